r"""Position, velocity and acceleration of a point of a body.

A body ``i`` has coordinates :math:`(x_i, y_i, θ_i)` of its reference point :math:`c_i` (the
centre of a bar) — a particle has no angle. Its point of body-frame coordinates
:math:`(u, v)` (m) — for a bar the point ``s`` of its axis is :math:`(sL, 0)`, as in
:meth:`~quivira.model.data.Bar.local_point` — is at :math:`P = c + r`,
:math:`r = R(θ)(u, v)^T`, and moves with the exact rigid-body formulas (planar, ω and α about
the z axis, :math:`k × r = (-r_y, r_x)`):

.. math:: v_P = v_c + ω\,k × r, \qquad a_P = a_c + α\,k × r - ω^2 r,

with :math:`(v_c, ω) = \dot q_i` and :math:`(a_c, α) = \ddot q_i` from the model's exact
accelerations (the Lagrangian equations at a state, a trajectory's ``qdd``, or a kinematic
sweep's :math:`q''` times the squared driver rate).

**Along the path.** With :math:`\hat v = v/|v|`: :math:`a_t = (a·\hat v)\hat v`,
:math:`a_n = a - a_t`, and the radius of curvature :math:`ρ = |v|^3/|v × a|` (infinite on a
straight stretch; 0 where the point stops, the limit at a cusp, where :math:`a_t = a`).

**In a moving frame.** Relative to body ``k`` (origin :math:`O' = c_k`, angle :math:`θ_k`),
with :math:`r' = P - O'` and :math:`ρ = R(θ_k)^T r'` the point's coordinates in that frame,

.. math:: a_P = \underbrace{a_{O'} + α_k\,k × r' - ω_k^2 r'}_{\text{transport}}
          + \underbrace{2ω_k\,k × v_{rel}}_{\text{Coriolis}} + a_{rel},

where :math:`v_{rel} = R\dot ρ` and :math:`a_{rel} = R\ddot ρ` are the velocity and
acceleration seen by an observer on body ``k`` (expressed in ground axes); they are computed
by differentiating :math:`ρ` directly, so the sum is a check, not a definition.

Units are those of the model (m, s, rad for SI data).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .data import ModelData

__all__ = ["BodyMotion", "PointMotion", "RelativeMotion", "body_motion", "point_motion",
           "relative_motion", "resolve_source"]


def _cross_k(r: np.ndarray) -> np.ndarray:
    """Return :math:`k × r` for vectors ``r`` (..., 2)."""
    return np.stack([-r[..., 1], r[..., 0]], axis=-1)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the z component of :math:`a × b` for vectors (..., 2)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


@dataclass(frozen=True)
class BodyMotion:
    """Motion of one body's reference point and its rotation at ``k`` frames.

    Attributes
    ----------
    centre, velocity, acceleration : numpy.ndarray (k, 2)
        Position (m), velocity (m/s) and acceleration (m/s²) of the reference point.
    angle, omega, alpha : numpy.ndarray (k,)
        θ (rad), ω (rad/s), α (rad/s²); zero for a particle.
    """

    centre: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    angle: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray

    def rotate(self, uv: np.ndarray) -> np.ndarray:
        r"""Return :math:`R(θ)\,(u, v)` (k, 2) for a body-frame vector ``uv``."""
        c, s = np.cos(self.angle), np.sin(self.angle)
        return np.stack([c * uv[0] - s * uv[1], s * uv[0] + c * uv[1]], axis=-1)


def body_motion(data: ModelData, i: int, q: np.ndarray, qd: np.ndarray,
                qdd: np.ndarray) -> BodyMotion:
    """Return the motion of body ``i`` from ``q``, ``qd``, ``qdd`` (k, n)."""
    o = data.offsets()[i]
    zero = np.zeros(q.shape[0])
    rot = data.bars[i].rotates

    def ang(a: np.ndarray) -> np.ndarray:
        return a[:, o + 2] if rot else zero

    return BodyMotion(q[:, o:o + 2], qd[:, o:o + 2], qdd[:, o:o + 2], ang(q), ang(qd), ang(qdd))


@dataclass(frozen=True)
class RelativeMotion:
    r"""A point's motion seen from a moving body ``frame`` (vectors in ground axes).

    Attributes
    ----------
    frame : int
        The body carrying the frame.
    position : numpy.ndarray (k, 2)
        :math:`r' = P - O'` (m), :math:`O'` the frame body's reference point.
    local_position : numpy.ndarray (k, 2)
        The point's coordinates in the frame (m).
    velocity : numpy.ndarray (k, 2)
        :math:`v_{rel}` (m/s).
    transport_velocity : numpy.ndarray (k, 2)
        :math:`v_{O'} + ω_k\,k × r'` (m/s); with :math:`v_{rel}` it sums to :math:`v_P`.
    acceleration : numpy.ndarray (k, 2)
        :math:`a_{rel}` (m/s²).
    transport, coriolis : numpy.ndarray (k, 2)
        :math:`a_{O'} + α_k\,k × r' - ω_k^2 r'` and :math:`2ω_k\,k × v_{rel}` (m/s²).
    """

    frame: int
    position: np.ndarray
    local_position: np.ndarray
    velocity: np.ndarray
    transport_velocity: np.ndarray
    acceleration: np.ndarray
    transport: np.ndarray
    coriolis: np.ndarray

    @property
    def total(self) -> np.ndarray:
        """Return transport + Coriolis + relative acceleration (m/s²): :math:`a_P`."""
        return self.transport + self.coriolis + self.acceleration


@dataclass(frozen=True)
class PointMotion:
    """Position, velocity and acceleration of a body point (:meth:`bar_joint_model.point_motion`).

    Arrays have one row per frame (k frames), or are single vectors for one state.

    Attributes
    ----------
    body : int
        The body.
    local : tuple of float
        The point's body-frame coordinates ``(u, v)`` (m).
    position, velocity, acceleration : numpy.ndarray (k, 2) or (2,)
        m, m/s, m/s² in the ground frame.
    relative : RelativeMotion or None
        The split relative to a moving body, when one was asked for.
    """

    body: int
    local: tuple
    position: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    relative: RelativeMotion | None = None

    @property
    def speed(self) -> np.ndarray | float:
        """Return :math:`|v|` (m/s)."""
        return np.linalg.norm(self.velocity, axis=-1)

    def _tangent(self) -> tuple[np.ndarray, np.ndarray]:
        v = np.asarray(self.velocity)
        sp = np.linalg.norm(v, axis=-1)
        scale = np.max(sp) if sp.size else 0.0
        moving = sp > 1e-14 * max(scale, 1e-300)
        that = np.where(moving[..., None], v / np.where(moving, sp, 1.0)[..., None], 0.0)
        return that, moving

    @property
    def tangential_acceleration(self) -> np.ndarray:
        r""":math:`a_t = (a·\hat v)\hat v` (m/s²); all of :math:`a` where the point stops."""
        that, moving = self._tangent()
        a = np.asarray(self.acceleration)
        at = np.sum(a * that, axis=-1)[..., None] * that
        return np.where(moving[..., None], at, a)

    @property
    def normal_acceleration(self) -> np.ndarray:
        """:math:`a_n = a - a_t` (m/s²), towards the centre of curvature."""
        return np.asarray(self.acceleration) - self.tangential_acceleration

    @property
    def curvature_radius(self) -> np.ndarray | float:
        r""":math:`|v|^3/|v × a|` (m): ``inf`` on a straight stretch, 0 where the point stops."""
        v, a = np.asarray(self.velocity), np.asarray(self.acceleration)
        sp = np.linalg.norm(v, axis=-1)
        cr = np.abs(_cross(v, a))
        tiny = 1e-14 * max(float(np.max(sp * np.linalg.norm(a, axis=-1))), 1e-300)
        with np.errstate(divide="ignore"):
            rho = np.where(cr > tiny, sp ** 3 / np.where(cr > tiny, cr, 1.0), np.inf)
        _, moving = self._tangent()
        return np.where(moving, rho, 0.0)


def point_motion(data: ModelData, i: int, uv: tuple, q: np.ndarray, qd: np.ndarray,
                 qdd: np.ndarray, frame: int | None = None) -> PointMotion:
    """Return the motion of body ``i``'s point ``uv`` at frames ``q, qd, qdd`` (k, n).

    ``frame``: a body to split the motion relative to (see the module docstring).
    """
    b = body_motion(data, i, q, qd, qdd)
    uv_arr = np.asarray(uv, dtype=float)
    r = b.rotate(uv_arr)
    kr = _cross_k(r)
    p = b.centre + r
    v = b.velocity + b.omega[:, None] * kr
    a = b.acceleration + b.alpha[:, None] * kr - (b.omega ** 2)[:, None] * r
    rel = None if frame is None else relative_motion(body_motion(data, frame, q, qd, qdd),
                                                     frame, p, v, a)
    return PointMotion(i, tuple(float(x) for x in uv_arr), p, v, a, rel)


def relative_motion(f: BodyMotion, frame: int, p: np.ndarray, v: np.ndarray,
                    a: np.ndarray) -> RelativeMotion:
    """Return the motion of the point ``(p, v, a)`` (k, 2) seen from the moving body ``f``."""
    d, dd, ddd = p - f.centre, v - f.velocity, a - f.acceleration
    c, s = np.cos(f.angle), np.sin(f.angle)
    w, al = f.omega[:, None], f.alpha[:, None]

    def rt(x):  # R(θ)^T x
        return np.stack([c * x[:, 0] + s * x[:, 1], -s * x[:, 0] + c * x[:, 1]], axis=-1)

    def r(x):  # R(θ) x
        return np.stack([c * x[:, 0] - s * x[:, 1], s * x[:, 0] + c * x[:, 1]], axis=-1)

    # d/dt R^T = -ω S R^T with S = k×; d²/dt² R^T = (-α S - ω² I) R^T
    rho = rt(d)
    rho_d = rt(dd) - w * _cross_k(rho)
    rho_dd = rt(ddd) - 2.0 * w * _cross_k(rt(dd)) - al * _cross_k(rho) - w ** 2 * rho
    v_rel, a_rel = r(rho_d), r(rho_dd)
    transport = f.acceleration + al * _cross_k(d) - w ** 2 * d
    return RelativeMotion(frame, d, rho, v_rel, f.velocity + w * _cross_k(d), a_rel,
                          transport, 2.0 * w * _cross_k(v_rel))


def _single(pm: PointMotion) -> PointMotion:
    """Return the one-frame motion as single vectors."""
    rel = pm.relative
    if rel is not None:
        rel = RelativeMotion(rel.frame, *(getattr(rel, f)[0] for f in (
            "position", "local_position", "velocity", "transport_velocity", "acceleration",
            "transport", "coriolis")))
    return PointMotion(pm.body, pm.local, pm.position[0], pm.velocity[0], pm.acceleration[0],
                       rel)


def check_on_constraints(model: Any, state: np.ndarray, what: str) -> None:
    """Raise ValueError naming the rows when ``state`` is off the model's constraints.

    Positions within ``max(tolerance, 1e-9)`` times the model's length scale; velocities
    within that times the largest weighted velocity (or the length scale at rest).
    """
    chk = model.check_constraint_fulfillment(state)
    n = model.n_coordinates
    rel = max(model.tolerance, 1e-9)
    w = model._data.coordinate_weights()
    vscale = max(float(np.max(np.abs(state[n:] * w))) if n else 0.0, chk.length_scale)
    pos_bad = np.abs(chk.position) > rel * chk.length_scale
    vel_bad = np.abs(chk.velocity) > rel * vscale
    if pos_bad.any() or vel_bad.any():
        rows = [lab for lab, b in zip(chk.labels, pos_bad | vel_bad) if b]
        raise ValueError(f"{what}: the state is off the constraints (rows {rows[:6]}: "
                         f"largest position residual {chk.max_position:.3g}, velocity residual "
                         f"{chk.max_velocity:.3g}); call model.assemble() or give a state on "
                         "the constraints")


def resolve_source(model: Any, source: Any, rate: float, what: str, need_qdd: bool = True
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """Return ``(q, qd, qdd, single)`` arrays (k, n) of a state, trajectory or sweep.

    ``source``: None (the initial state), a state ``[q, qd]``, a
    :class:`~quivira.model.trajectory.Trajectory` (its ``qdd``) or a
    :class:`~quivira.model.kinematics.KinematicSweep` (``qd = rate q'``,
    ``qdd = rate² q''``). A single state is checked to lie on the constraints and its
    accelerations are the model's :meth:`matrices` ``qdd``.
    """
    from .kinematics import KinematicSweep
    from .trajectory import Trajectory
    from .validation import real_array

    n = model.n_coordinates
    if isinstance(source, Trajectory):
        q, qd = np.asarray(source.q, float), np.asarray(source.qd, float)
        qdd = np.asarray(source.qdd, float) if need_qdd else None
        single = False
    elif isinstance(source, KinematicSweep):
        q = np.asarray(source.q, float)
        qd = rate * np.asarray(source.dq, float)
        qdd = rate ** 2 * np.asarray(source.ddq, float)
        single = False
    else:
        if source is None:
            state = np.asarray(model.get_initial_state(), float)
        else:
            state = real_array(source, what, f"a state [q, qd] of {2 * n} numbers, a "
                               "Trajectory or a KinematicSweep")
            if state.shape != (2 * n,):
                raise ValueError(f"{what} must be a state [q, qd] of {2 * n} numbers, a "
                                 f"Trajectory or a KinematicSweep, got shape {state.shape}")
        check_on_constraints(model, state, what)
        q, qd = state[None, :n], state[None, n:]
        qdd = np.asarray(model.matrices(state).qdd, float)[None, :] if need_qdd else None
        single = True
    if q.ndim != 2 or q.shape[1] != n or qd.shape != q.shape:
        raise ValueError(f"{what}: the motion has {q.shape[-1]} coordinates; the model has {n} "
                         "(was it made by another model?)")
    arrays = (q, qd) if qdd is None else (q, qd, qdd)
    if not all(np.all(np.isfinite(x)) for x in arrays):
        raise ValueError(f"{what}: the motion holds NaN or infinite values (a stopped or "
                         "failed run?); give finite states")
    return q, qd, qdd, single


def body_of(model: Any, body: Any, what: str) -> int:
    """Return the index of ``body`` given by index or name (``"bar2"``)."""
    from . import names
    from .validation import bar_index

    data = model._data
    if isinstance(body, str):
        i = names.body_index(data, body)
        if i is None:
            known = [names.body_name(k, b) for k, b in enumerate(data.bars)]
            raise ValueError(f"{what}: no body is called {body!r}; bodies are {known}")
        return i
    return bar_index(body, len(data.bars), what)


def of_model(model: Any, body: Any, point: Any, source: Any, *, frame: Any = None,
             rate: float = 1.0) -> PointMotion:
    """Return :meth:`bar_joint_model.point_motion` (checks, then :func:`point_motion`)."""
    from .validation import check_real

    i = body_of(model, body, "point_motion: body")
    k = None if frame is None else body_of(model, frame, "point_motion: frame")
    uv = model._data.bars[i].local_point(point, "point_motion: point")
    rate = check_real(rate, "point_motion: rate")
    q, qd, qdd, single = resolve_source(model, source, rate, "point_motion: source")
    pm = point_motion(model._data, i, uv, q, qd, qdd, k)
    return _single(pm) if single else pm

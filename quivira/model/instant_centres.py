r"""Instant centres of a planar linkage, Kennedy's theorem, and centrodes.

**Numbering.** The ground is the body ``"ground"``; the model's bodies keep their indices
``0, 1, ...`` (names ``"bar0"``, ...). A linkage of ``nb`` bodies has ``(nb + 1) nb / 2``
instant centres, one per pair, the ground pairs first.

**Exact centre.** Body ``i`` moves with the velocity :math:`v_i` of its reference point
:math:`c_i` and the angular rate :math:`ω_i` (the ground: 0 and 0). The ground point
:math:`P` carried by body ``i`` has the velocity :math:`v_i + ω_i\,k × (P - c_i)`. The relative
velocity field of ``i`` with respect to ``j`` is therefore

.. math:: w(P) = u + Δω\,k × (P - c_i), \qquad u = v_i - v_j - ω_j\,k × (c_i - c_j),
          \quad Δω = ω_i - ω_j,

and it vanishes at :math:`P = c_i + (k × u)/Δω` (apply :math:`k×` to :math:`w(P) = 0`,
with :math:`k × (k × x) = -x`). When :math:`Δω = 0` the relative motion is a translation
with velocity :math:`u`: the centre is at infinity, in the direction :math:`k × u/|u|`
(perpendicular to :math:`u`). It counts as at infinity when it would lie farther than
:math:`10^{12}` linkage sizes away. When both :math:`u` and :math:`Δω` vanish (relative to the
speeds of the linkage) the two bodies do not move relative to each other and the centre is
indeterminate.

**Velocity state.** The centres depend on the velocities only up to a common factor when the
linkage has one degree of freedom. At a pose given without velocities (or with zero ones),
the mechanism's unit-rate motion is used: the null space of :math:`J` (columns weighted by the
body lengths), which must be one-dimensional; with more degrees of freedom give a state
``[q, qd]``.

**Kennedy.** The three centres of any three bodies lie on one line. :func:`check_kennedy`
returns the worst :math:`|\det[h_1; h_2; h_3]|` over all triples, :math:`h` the centres in
homogeneous coordinates (points :math:`(x/ℓ, y/ℓ, 1)`, directions :math:`(d_x, d_y, 0)`,
ℓ the linkage size), each row normalised to unit length: 0 for collinear centres, at most 1.

**Centrodes.** Along a trajectory or kinematic sweep, the centre of a body relative to ground
traces the fixed centrode (in the ground frame) and, in the body frame, the moving centrode;
the moving centrode rolls without slipping on the fixed one.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .point_kinematics import _cross_k, body_motion, body_of, check_on_constraints

__all__ = ["Centrodes", "InstantCentre", "InstantCentres", "centre_between", "check_kennedy"]

#: a centre farther than this many linkage sizes counts as at infinity
FAR = 1e12
#: relative speed below which two bodies count as moving together
TOGETHER = 1e-12


@dataclass(frozen=True)
class InstantCentre:
    """The instant centre of the relative motion of two bodies.

    Attributes
    ----------
    bodies : tuple
        The pair, e.g. ``("ground", 2)`` or ``(0, 1)``.
    point : numpy.ndarray (2,) or None
        Its position (m) in the ground frame; None at infinity or when indeterminate.
    direction : numpy.ndarray (2,) or None
        Unit direction (a line direction, sign arbitrary) when at infinity, else None.
    relative_omega : float
        :math:`ω_b - ω_a` (rad/s) of the pair ``(a, b)`` in the velocity state used.
    """

    bodies: tuple
    point: np.ndarray | None
    direction: np.ndarray | None
    relative_omega: float

    @property
    def at_infinity(self) -> bool:
        """Whether the relative motion is a translation (the centre is at infinity)."""
        return self.direction is not None

    @property
    def indeterminate(self) -> bool:
        """Whether the two bodies do not move relative to each other."""
        return self.point is None and self.direction is None


def centre_between(ci: np.ndarray, vi: np.ndarray, wi: float, cj: np.ndarray, vj: np.ndarray,
                   wj: float, size: float, speed: float) -> tuple:
    """Return ``(point, direction)`` of the centre of bodies i and j (see the module docstring).

    ``size`` (m) and ``speed`` (m/s) are the linkage's scales; None for what does not apply.
    """
    ci, vi, cj, vj = (np.asarray(x, float) for x in (ci, vi, cj, vj))
    u = vi - vj - wj * _cross_k(ci - cj)
    dw = wi - wj
    nu = float(np.hypot(*u))
    if nu <= TOGETHER * speed and abs(dw) * size <= TOGETHER * speed:
        return None, None
    if abs(dw) * size * FAR <= nu:
        return None, _cross_k(u) / nu
    return ci + _cross_k(u) / dw, None


def _label(b: Any) -> Any:
    return "ground" if b in (None, "ground") else b


@dataclass(frozen=True)
class InstantCentres:
    """All instant centres of a linkage at one pose (:meth:`bar_joint_model.instant_centres`).

    Index by a pair: ``ic["ground", 2]``, ``ic[0, 1]`` (order free; ``None`` is the ground).

    Attributes
    ----------
    centres : dict
        ``{(a, b): InstantCentre}``, ``a`` before ``b`` (the ground first).
    size : float
        The linkage's length scale ℓ (m) used for "at infinity" and by Kennedy's check.
    qd : numpy.ndarray (n,)
        The velocity state used (a unit-rate mechanism motion when none was given).
    """

    centres: dict
    size: float
    qd: np.ndarray

    def __getitem__(self, pair: tuple) -> InstantCentre:
        """Return the centre of the pair ``(a, b)`` (either order, ``None`` = ground)."""
        a, b = (_label(x) for x in pair)
        for key in ((a, b), (b, a)):
            if key in self.centres:
                return self.centres[key]
        raise KeyError(f"no instant centre of bodies {pair!r}; pairs are of 'ground' and the "
                       f"body indices (e.g. {next(iter(self.centres), None)!r})")

    def __len__(self) -> int:
        """Return the number of centres, ``(nb + 1) nb / 2``."""
        return len(self.centres)

    def kennedy(self) -> float:
        """Return :func:`check_kennedy` of these centres."""
        return check_kennedy(self)

    def __str__(self) -> str:
        """Return a table: one centre per line (its point in m, or its direction at infinity)."""
        lines = [f"{len(self)} instant centres (Kennedy residual {self.kennedy():.1e})"]
        for (a, b), c in self.centres.items():
            where = ("indeterminate (no relative motion)" if c.indeterminate else
                     f"at infinity, direction ({c.direction[0]:+.4f}, {c.direction[1]:+.4f})"
                     if c.at_infinity else
                     f"({round(c.point[0], 4) + 0.0:.4f}, {round(c.point[1], 4) + 0.0:.4f}) m")
            lines.append(f"  I({a}, {b})  {where}")
        return "\n".join(lines)


def _homogeneous(c: InstantCentre, size: float) -> np.ndarray | None:
    if c.point is not None:
        h = np.array([c.point[0] / size, c.point[1] / size, 1.0])
    elif c.direction is not None:
        h = np.array([c.direction[0], c.direction[1], 0.0])
    else:
        return None
    return h / np.linalg.norm(h)


def check_kennedy(centres: InstantCentres) -> float:
    """Return the worst collinearity residual of the centres of every three bodies.

    See the module docstring: 0 when Kennedy's theorem holds, at most 1. Triples with an
    indeterminate centre are skipped.

    Examples
    --------
    >>> from quivira.examples import four_bar
    >>> from quivira.model.instant_centres import check_kennedy
    >>> ic = four_bar().instant_centres()
    >>> len(ic), check_kennedy(ic) < 1e-12
    (6, True)
    """
    if not isinstance(centres, InstantCentres):
        raise TypeError(f"check_kennedy needs InstantCentres (from model.instant_centres()), "
                        f"got {type(centres).__name__}")
    bodies = sorted({b for pair in centres.centres for b in pair}, key=lambda b: (b != "ground",
                                                                                   str(b)))
    worst = 0.0
    for a, b, c in itertools.combinations(bodies, 3):
        rows = [_homogeneous(centres[p], centres.size) for p in ((a, b), (b, c), (a, c))]
        if any(r is None for r in rows):
            continue
        worst = max(worst, abs(float(np.linalg.det(np.array(rows)))))
    return worst


def _speed_scale(data, qd: np.ndarray) -> float:
    return max(float(np.max(np.abs(qd * data.coordinate_weights()))) if qd.size else 0.0,
               1e-300)


def centres_at(data, q: np.ndarray, qd: np.ndarray) -> InstantCentres:
    """Return every instant centre at the pose ``q`` with velocities ``qd`` (n,)."""
    size = data.length_scale()
    speed = _speed_scale(data, qd)
    zeros = np.zeros(len(q))
    motions = [body_motion(data, i, q[None], qd[None], zeros[None])
               for i in range(len(data.bars))]
    ground = (np.zeros(2), np.zeros(2), 0.0)
    states = [ground] + [(m.centre[0], m.velocity[0], float(m.omega[0])) for m in motions]
    labels = ["ground"] + list(range(len(data.bars)))
    out = {}
    for (ia, a), (ib, b) in itertools.combinations(enumerate(labels), 2):
        point, direction = centre_between(*states[ib], *states[ia], size, speed)
        out[(a, b)] = InstantCentre((a, b), point, direction, states[ib][2] - states[ia][2])
    return InstantCentres(out, size, qd)


def mechanism_velocity(model: Any, q: np.ndarray, what: str) -> np.ndarray:
    """Return the unit-rate mechanism motion at the pose ``q``: the null vector of J.

    Columns weighted by the body lengths; the sign makes the largest weighted entry positive.
    """
    n = model.n_coordinates
    J = np.asarray(model.matrices(np.concatenate([q, np.zeros(n)])).J, float)
    w = model._data.coordinate_weights()
    Js = J / w[None, :]
    _, sv, vt = np.linalg.svd(Js) if Js.size else (None, np.zeros(0), np.eye(n))
    tol = 1e-9 * (sv[0] if sv.size else 1.0)
    rank = int(np.sum(sv > tol))
    if n - rank != 1:
        raise ValueError(f"{what}: the linkage has {n - rank} degrees of freedom at this pose; "
                         "the mechanism's motion is not unique, so give a state [q, qd] with "
                         "its velocities")
    z = vt[-1]
    z = z if z[np.argmax(np.abs(z))] > 0 else -z
    return z / w


def of_model(model: Any, state: Any) -> InstantCentres:
    """Return :meth:`bar_joint_model.instant_centres` (checks, then :func:`centres_at`)."""
    from .validation import real_array

    n = model.n_coordinates
    if state is None:
        x = np.asarray(model.get_initial_state(), float)
    else:
        x = real_array(state, "instant_centres: state", f"a pose of {n} or a state of {2 * n} "
                       "numbers")
        if x.shape == (n,):
            x = np.concatenate([x, np.zeros(n)])
        if x.shape != (2 * n,):
            raise ValueError(f"instant_centres: state must be a pose of {n} or a state [q, qd] "
                             f"of {2 * n} numbers, got shape {x.shape}")
    check_on_constraints(model, x, "instant_centres: state")
    q, qd = x[:n], x[n:]
    if not np.any(qd):
        qd = mechanism_velocity(model, q, "instant_centres")
    return centres_at(model._data, q, qd)


@dataclass(frozen=True)
class Centrodes:
    """Fixed and moving centrodes of a body relative to ground (:meth:`bar_joint_model.centrodes`).

    Attributes
    ----------
    body : int
    fixed : numpy.ndarray (k, 2)
        The instant centre in the ground frame (m), per frame.
    moving : numpy.ndarray (k, 2)
        The same point in the body frame (m).
    finite : numpy.ndarray (k,) of bool
        False where the body translates (centre at infinity) or is at rest: there the rows
        of ``fixed`` and ``moving`` are NaN, and only there.
    """

    body: int
    fixed: np.ndarray
    moving: np.ndarray
    finite: np.ndarray


def centrodes_of_model(model: Any, body: Any, source: Any, rate: float = 1.0) -> Centrodes:
    """Return :meth:`bar_joint_model.centrodes` of ``body`` along a trajectory or sweep."""
    from .kinematics import KinematicSweep
    from .point_kinematics import resolve_source
    from .trajectory import Trajectory

    if not isinstance(source, (Trajectory, KinematicSweep)):
        raise TypeError("centrodes: source must be a Trajectory or a KinematicSweep, got "
                        f"{type(source).__name__}")
    i = body_of(model, body, "centrodes: body")
    data = model._data
    if not data.bars[i].rotates:
        raise ValueError(f"centrodes: body {i} is a particle; it has no rotation centre")
    q, qd, _, _ = resolve_source(model, source, rate, "centrodes: source", need_qdd=False)
    m = body_motion(data, i, q, qd, np.zeros_like(q))
    size = data.length_scale()
    fixed = np.full((q.shape[0], 2), np.nan)
    for k in range(q.shape[0]):
        point, _ = centre_between(m.centre[k], m.velocity[k], float(m.omega[k]), np.zeros(2),
                                  np.zeros(2), 0.0, size, _speed_scale(data, qd[k]))
        if point is not None:
            fixed[k] = point
    finite = np.all(np.isfinite(fixed), axis=1)
    d = fixed - m.centre
    c, s = np.cos(m.angle), np.sin(m.angle)
    moving = np.stack([c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]], axis=-1)
    return Centrodes(i, fixed, moving, finite)

r"""Kinematic analysis of a bar model.

Mobility, sweeps, coupler curves, transmission angle.

**Mobility.** At a pose, the degrees of freedom are :math:`n - \operatorname{rank} J` (the
scale-aware rank of :func:`quivira.model.geometry.dependent_rows`, θ columns weighted by the bar
lengths); rows that repeat what the others already constrain are named. Beside it, the
Grübler–Kutzbach count :math:`n - m` (3 per bar, minus one per constraint row: 2 per pin, 1
per roller) — the two differ exactly when rows are redundant (special geometry such as
parallelograms, or over-constrained structures).

**Sweep.** One driver :math:`d(q)` — a coordinate (``"th0"``, an index) or a relative angle
``("angle", a, b)`` = :math:`θ_b - θ_a` (``a`` None: the absolute angle of ``b``) — is
prescribed along ``values``. At each value the position problem
:math:`F(q) = 0,\ d(q) = v` is solved by Newton's method from the predictor
:math:`q + q'Δv + \tfrac12 q''Δv^2` of the previous pose, with sub-steps when the correction
is not small against the step (so the sweep stays on the current assembly branch and never
jumps to the mirror one); then with :math:`A = [J; \nabla d]`

.. math:: A\,q' = \begin{bmatrix}0\\1\end{bmatrix}, \qquad
          A\,q'' = -\begin{bmatrix}\dot J q'\,\big|_{\dot q = q'}\\0\end{bmatrix},

the velocity and acceleration per unit driver rate (for a constant driver rate ω:
:math:`\dot q = ωq'`, :math:`\ddot q = ω^2 q''`). With more than one degree of freedom
the other freedoms take the least-norm motion (θ weighted by the bar lengths).
:math:`\dot J\dot q` is the model's
compiled one. A pose where :math:`A` loses rank (its :math:`(r+1)`-th singular value over
the largest, :math:`r = \operatorname{rank} J`, columns weighted as above and rows normalized,
below ``singular_threshold``) is singular: a dead centre of the driver (it cannot move on) or a
change point; the sweep reports these, and stops with ``complete=False`` where the driver
cannot pass.

**Four-bar.** The transmission angle is the angle at the coupler–rocker joint between the two
bars, :math:`\cos μ = (b^2 + c^2 - a^2 - d^2 + 2ad\cos φ)/(2bc)` for crank a, coupler b,
rocker c, ground d and crank angle φ.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy
import numpy as np

from .._repr import short_repr
from .._warnings import warn_caller
from ..budget import Budget, check_output_bytes, partial_on_interrupt, stop_if_exceeded
from . import geometry as geo
from .compiled import CompiledSystem, NonFiniteConstraintError, evaluate_geometry
from .data import ModelData

__all__ = ["CouplerCurve", "KinematicSweep", "Mobility", "SweepWarning", "parse_driver",
           "mobility", "kinematic_sweep", "transmission_angle"]


class SweepWarning(UserWarning):
    """A kinematic sweep stopped before the end of its values (a dead centre)."""


@dataclass(frozen=True)
class Mobility:
    r"""Degrees of freedom of a model at a pose (:meth:`bar_joint_model.mobility`).

    Attributes
    ----------
    dof : int
        :math:`n - \operatorname{rank} J`.
    rank : int
        Rank of the switched-on rows of J.
    n_coordinates, n_rows : int
        Coordinates and switched-on constraint rows.
    grubler : int
        The Grübler–Kutzbach count :math:`n - m`.
    redundant : list of str
        Labels of the rows that repeat what the others constrain (scanning in order).
    """

    dof: int
    rank: int
    n_coordinates: int
    n_rows: int
    grubler: int
    redundant: list

    @property
    def agrees(self) -> bool:
        """Whether Grübler's count equals the true degrees of freedom."""
        return self.grubler == self.dof


@dataclass(frozen=True)
class KinematicSweep:
    r"""Positions, velocities and accelerations along a driver (plain data).

    Attributes
    ----------
    driver : str
        What was driven (e.g. ``"th0"``, ``"angle 1 - 0"``).
    values : numpy.ndarray (k,)
        Driver values reached.
    q : numpy.ndarray (k, n)
        Poses.
    dq, ddq : numpy.ndarray (k, n)
        :math:`q' = dq/dv` and :math:`q'' = d^2q/dv^2` (velocity and acceleration per unit
        driver rate, for a constant rate).
    singularity : numpy.ndarray (k,)
        The :math:`(r+1)`-th over the largest singular value of the scaled
        :math:`[J; \nabla d]`, :math:`r` the rank of J at the start (0 at a dead centre).
    singular_points : list of int
        Indices where it is a local minimum below the threshold.
    coordinate_names : list of str
    complete : bool
        Whether every value was reached; otherwise :attr:`message` says where it stopped,
        and the last point is the last pose reached (nearest to the dead centre, at a driver
        value between two of those asked for).
    message : str
    """

    driver: str
    values: np.ndarray
    q: np.ndarray
    dq: np.ndarray
    ddq: np.ndarray
    singularity: np.ndarray
    singular_points: list
    coordinate_names: list
    complete: bool = True
    message: str = ""

    def __len__(self) -> int:
        """Return the number of driver values."""
        return self.values.shape[0]

    def velocities(self, rate: float = 1.0) -> np.ndarray:
        r""":math:`\dot q = ω q'` for a constant driver rate ``rate``."""
        return rate * self.dq

    def accelerations(self, rate: float = 1.0) -> np.ndarray:
        r""":math:`\ddot q = ω^2 q''` for a constant driver rate ``rate``."""
        return rate ** 2 * self.ddq

    def coordinate(self, name: str) -> np.ndarray:
        """One coordinate along the sweep (e.g. ``"th2"``)."""
        try:
            return self.q[:, self.coordinate_names.index(name)]
        except ValueError:
            raise KeyError(f"no coordinate {short_repr(name)}; coordinates are "
                           f"{self.coordinate_names}") from None

    def to_pandas(self):
        """Return the sweep as a :class:`pandas.DataFrame`.

        Columns: the driver value, the coordinates, their derivatives ``d<name>`` and
        ``dd<name>``, and ``singularity``.
        """
        import pandas as pd

        cols = {self.driver: self.values}
        cols |= {c: self.q[:, j] for j, c in enumerate(self.coordinate_names)}
        cols |= {f"d{c}": self.dq[:, j] for j, c in enumerate(self.coordinate_names)}
        cols |= {f"dd{c}": self.ddq[:, j] for j, c in enumerate(self.coordinate_names)}
        cols["singularity"] = self.singularity
        return pd.DataFrame(cols)


@dataclass(frozen=True)
class CouplerCurve:
    """The path of a bar point along a sweep.

    Attributes
    ----------
    values : numpy.ndarray (k,)
        Driver values.
    points : numpy.ndarray (k, 2)
        The point's positions (m).
    sweep : KinematicSweep
        The sweep it comes from.
    """

    values: np.ndarray
    points: np.ndarray
    sweep: KinematicSweep

    @property
    def x(self) -> np.ndarray:
        """X of the points."""
        return self.points[:, 0]

    @property
    def y(self) -> np.ndarray:
        """Y of the points."""
        return self.points[:, 1]

    @property
    def complete(self) -> bool:
        """Whether the sweep reached every value."""
        return self.sweep.complete


# ---------------------------------------------------------------------------- helpers
def _active_holonomic(active: np.ndarray, cs: CompiledSystem) -> np.ndarray:
    return np.nonzero(np.asarray(active, dtype=bool)[: cs.n_holonomic])[0]


def mobility(data: ModelData, cs: CompiledSystem, pars: np.ndarray, active: np.ndarray,
             q: np.ndarray, t: float = 0.0) -> Mobility:
    """Degrees of freedom at ``q`` (see the module docstring)."""
    _, J = evaluate_geometry(cs, q, pars, t)
    rows = np.nonzero(np.asarray(active, dtype=bool))[0]
    Ja = J[rows]
    w = data.coordinate_weights()
    rank, dependent = geo.dependent_rows(Ja, w) if Ja.shape[0] else (0, [])
    redundant: list[str] = []
    if dependent:
        kept: list[int] = []
        for i in range(Ja.shape[0]):
            r, _ = geo.dependent_rows(Ja[kept + [i]], w)
            if r == len(kept) + 1:
                kept.append(i)
            else:
                redundant.append(cs.labels[rows[i]])
    n = cs.n
    return Mobility(dof=n - rank, rank=rank, n_coordinates=n, n_rows=len(rows),
                    grubler=n - len(rows), redundant=redundant)


def parse_driver(driver: Any, data: ModelData, names: list[str]) -> tuple[str, np.ndarray]:
    r"""``(label, gradient)`` of a linear driver :math:`d(q) = g\cdot q`.

    Parameters
    ----------
    driver : str, int or tuple
        A coordinate name (``"th0"``, ``"x2"``), a coordinate index, or ``("angle", a, b)``:
        the angle of bar ``b`` relative to bar ``a`` (``a`` None: to the ground).
    """
    n = len(names)
    grad = np.zeros(n)
    if isinstance(driver, (bool, np.bool_)):
        raise TypeError(f"driver must be a coordinate name, index or ('angle', a, b), got "
                        f"{short_repr(driver)}")
    if isinstance(driver, str):
        if driver not in names:
            raise ValueError(f"driver: no coordinate named {short_repr(driver)}; coordinates "
                             f"are {names}")
        grad[names.index(driver)] = 1.0
        return driver, grad
    if isinstance(driver, (int, np.integer)):
        if not 0 <= int(driver) < n:
            raise ValueError(f"driver: coordinate index {int(driver)} out of range (0 to "
                             f"{n - 1})")
        grad[int(driver)] = 1.0
        return names[int(driver)], grad
    if isinstance(driver, tuple) and len(driver) == 3 and driver[0] == "angle":
        _, a, b = driver

        def theta(i, what):
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise TypeError(f"driver: {what} must be a bar index, got {short_repr(i)}")
            if not 0 <= int(i) < len(data.bars):
                raise ValueError(f"driver: {what} {int(i)} out of range (0 to "
                                 f"{len(data.bars) - 1})")
            name = f"th{int(i)}"
            if name not in names:
                raise ValueError(f"driver: body {int(i)} has no angle")
            return names.index(name)

        grad[theta(b, "b")] += 1.0
        if a is not None:
            grad[theta(a, "a")] -= 1.0
            return f"angle {int(b)} - {int(a)}", grad
        return f"angle {int(b)}", grad
    raise TypeError(f"driver must be a coordinate name such as 'th0', a coordinate index or "
                    f"('angle', a, b), got {short_repr(driver)}")


def _jdqd_function(cs: CompiledSystem):
    r"""Compiled :math:`\dot J\dot q` of the holonomic rows, cached on ``cs``."""
    key = "kinematics_jdqd"
    if key not in cs.extra:
        k = cs.n_holonomic
        exprs = [hy.expression(e) if not isinstance(e, hy.expression) else e
                 for e in cs.parts.Jdqd[:k]] or [hy.expression(0.0)]
        cs.extra[key] = hy.cfunc(exprs, vars=[*cs.q, *cs.qd], **cs.cfunc_options)
    return cs.extra[key]


class _Sweeper:
    def __init__(self, data, cs, pars, active, grad, t, singular_threshold):
        if cs.n_holonomic < cs.m and np.any(np.asarray(active)[cs.n_holonomic:]):
            raise ValueError("kinematic_sweep: the model has velocity (non-holonomic) "
                             "constraints, which a position sweep cannot follow; remove them "
                             "first")
        self.cs, self.pars, self.t = cs, pars, t
        self.rows = _active_holonomic(active, cs)
        self.grad = grad
        self.w = data.coordinate_weights()
        self.ell = data.length_scale()
        self.thr = singular_threshold
        self.jdqd = _jdqd_function(cs)
        self.rank = 0

    def set_rank(self, q) -> None:
        """Remember the rank of J at the start pose ``q``."""
        _, J = self.FJ(q)
        self.rank = geo.dependent_rows(J, self.w)[0] if J.shape[0] else 0

    def FJ(self, q):
        F, J = evaluate_geometry(self.cs, q, self.pars, self.t)
        return F[self.rows], J[self.rows]

    def A(self, J):
        return np.vstack([J, self.grad[None, :]])

    def measure(self, A) -> float:
        """Return the ``(r + 1)``-th over the largest singular value of the scaled ``A``.

        ``r`` is the rank of J at the start (redundant rows do not count as singular).
        """
        As = A / self.w[None, :]
        As = As / np.maximum(np.linalg.norm(As, axis=1, keepdims=True), 1e-300)
        sv = np.linalg.svd(As, compute_uv=False)
        r = self.rank + 1
        if sv.shape[0] < r or sv[0] <= 0:
            return 0.0
        return float(sv[r - 1] / sv[0])

    def derivatives(self, q):
        _, J = self.FJ(q)
        A = self.A(J)
        rhs = np.zeros(A.shape[0])
        rhs[-1] = 1.0
        dq = np.linalg.lstsq(A, rhs, rcond=None)[0]
        cf = self.jdqd
        kw = {"time": self.t} if cf.is_time_dependent else {}
        c = cf(np.concatenate([q, dq]), pars=self.pars[: cf.nparams], **kw)[self.rows] \
            if self.rows.size else np.zeros(0)
        ddq = np.linalg.lstsq(A, -np.concatenate([c, [0.0]]), rcond=None)[0]
        return dq, ddq, self.measure(A)

    def solve(self, q0, v, max_iter=12):
        """Newton from ``q0`` to the pose where the driver is ``v`` (None if it fails).

        It fails too where the constraints are not finite (a shorter step is tried then).
        """
        try:
            return self._solve(q0, v, max_iter)
        except NonFiniteConstraintError:
            return None

    def _solve(self, q0, v, max_iter):
        q = q0.copy()
        tol = 1e-13 * self.ell
        for _ in range(max_iter):
            F, J = self.FJ(q)
            res = np.concatenate([F, [self.grad @ q - v]])
            if np.max(np.abs(res)) <= tol:
                return q
            A = self.A(J) / self.w[None, :]
            step = np.linalg.lstsq(A, res, rcond=None)[0] / self.w
            if not np.all(np.isfinite(step)):
                return None
            q = q - step
        F, _ = self.FJ(q)
        res = np.concatenate([F, [self.grad @ q - v]])
        return q if np.max(np.abs(res)) <= 1e-10 * self.ell else None


def check_sweep_size(n: int, n_values: int) -> None:
    """Refuse, before any work, a sweep of ``n_values`` driver values too large to hold.

    Per value: the pose, :math:`q'` and :math:`q''` (``n`` each, in lists and in the
    arrays of the result), the value, the singularity measure and a coupler point.
    """
    check_output_bytes(8.0 * n_values * (6 * n + 6), f"{n_values} driver values",
                       "sweep fewer values")


def kinematic_sweep(data: ModelData, cs: CompiledSystem, pars: np.ndarray, active: np.ndarray,
                    driver_label: str, grad: np.ndarray, values: np.ndarray, q_start: np.ndarray,
                    *, t: float = 0.0, singular_threshold: float = 1e-6,
                    max_substeps: int = 1024, budget: Budget | None = None) -> KinematicSweep:
    """Sweep the driver along ``values`` from ``q_start`` (see the module docstring).

    ``budget`` counts the position solves (sub-steps; default:
    :class:`~quivira.budget.Budget`'s defaults); when it is used up, or on Ctrl-C, the sweep
    so far is raised with :class:`~quivira.model.trajectory.BudgetExceededError` or
    :class:`~quivira.model.trajectory.SimulationInterrupted` (``.result``, incomplete).
    """
    budget = Budget() if budget is None else budget
    sw = _Sweeper(data, cs, pars, active, grad, t, singular_threshold)
    names = [str(v) for v in cs.q]
    q = sw._solve(q_start, float(values[0]), max_iter=50)  # names non-finite rows
    if q is None:
        raise ValueError(f"kinematic_sweep: cannot place the model at {driver_label} = "
                         f"{values[0]:g} near the start pose; give q_start closer to it")
    sw.set_rank(q)
    dq, ddq, meas = sw.derivatives(q)
    Q, DQ, DDQ, S, V = [q], [dq], [ddq], [meas], [float(values[0])]

    def result(complete: bool, message: str) -> KinematicSweep:
        """Return the sweep of the points so far."""
        k = min(len(Q), len(DQ), len(DDQ), len(S), len(V))
        S_arr = np.array(S[:k])
        sing = [i for i in range(k) if S_arr[i] < singular_threshold
                and (i == 0 or S_arr[i] <= S_arr[i - 1])
                and (i == k - 1 or S_arr[i] <= S_arr[i + 1])]
        return KinematicSweep(driver=driver_label, values=np.array(V[:k]),
                              q=np.array(Q[:k]), dq=np.array(DQ[:k]), ddq=np.array(DDQ[:k]),
                              singularity=S_arr, singular_points=sing, coordinate_names=names,
                              complete=complete, message=message)

    def where() -> str:
        return f"at {driver_label} = {V[-1]:.10g}"

    complete, message = True, ""
    with partial_on_interrupt("kinematic_sweep", where, lambda msg: result(False, msg)):
        for v_next in values[1:]:
            v_prev = V[-1]
            target = float(v_next)
            vcur, qcur, dqc, ddqc = v_prev, q, dq, ddq
            h = target - vcur
            subs = 0
            ok = True
            while vcur != target:
                stop_if_exceeded(budget, "kinematic_sweep", where(),
                                 lambda msg: result(False, msg), Q[-1],
                                 shorter="sweep fewer values", unit="position solves")
                budget.add(1)
                step = min(abs(h), abs(target - vcur)) * np.sign(target - vcur)
                pred = qcur + dqc * step + 0.5 * ddqc * step ** 2
                qn = sw.solve(pred, vcur + step)
                move = np.linalg.norm((dqc * step) * sw.w)
                if qn is not None and np.linalg.norm((qn - pred) * sw.w) <= max(
                        0.05 * move, 1e-9 * sw.ell):
                    vcur = target if abs(target - (vcur + step)) <= 1e-15 * max(
                        1.0, abs(target)) else vcur + step
                    qcur = qn
                    dqc, ddqc, _ = sw.derivatives(qcur)
                    if not np.all(np.isfinite(dqc)):
                        ok = False
                        break
                    h = 2 * step
                else:
                    h = 0.5 * step
                    subs += 1
                    if subs > max_substeps or abs(h) < 1e-12 * max(1.0, abs(target - v_prev)):
                        ok = False
                        break
            if not ok:
                complete = False
                message = (f"the sweep stopped at {driver_label} = {vcur:.10g} before "
                           f"{target:.10g}: the driver cannot move on there (a dead centre or "
                           "singular pose, singularity measure "
                           f"{sw.measure(sw.A(sw.FJ(qcur)[1])):.3g})")
                warn_caller(message, SweepWarning)
                if vcur != V[-1]:  # the last pose reached, nearest to the dead centre
                    Q.append(qcur)
                    DQ.append(dqc)
                    DDQ.append(ddqc)
                    S.append(sw.measure(sw.A(sw.FJ(qcur)[1])))
                    V.append(vcur)
                break
            q, dq, ddq = qcur, dqc, ddqc
            Q.append(q)
            DQ.append(dq)
            DDQ.append(ddq)
            S.append(sw.measure(sw.A(sw.FJ(q)[1])))
            V.append(target)
    return result(complete, message)


def point_positions(data: ModelData, q: np.ndarray, bar: int, s: float,
                    offset: float = 0.0) -> np.ndarray:
    """Return the positions ``(k, 2)`` of the body-frame point ``(sL, offset)`` of ``bar``.

    At poses ``q`` ``(k, n)``.
    """
    o = data.offsets()[bar] if hasattr(data, "offsets") else 3 * bar
    L = data.bars[bar].length
    x, y, th = q[:, o], q[:, o + 1], q[:, o + 2]
    u = s * L
    c, sn = np.cos(th), np.sin(th)
    return np.column_stack([x + u * c - offset * sn, y + u * sn + offset * c])


def transmission_angle(data: ModelData, q: np.ndarray, coupler: int, rocker: int) -> np.ndarray:
    """Return the angle μ (rad) at the joint of ``coupler`` and ``rocker`` between the bars.

    At poses ``q`` ``(k, n)``.
    """
    from .elements import PinJoint

    joint = None
    for jt in data.of(PinJoint):
        if coupler in jt.bars and rocker in jt.bars:
            joint = jt
            break
    if joint is None:
        raise ValueError(f"transmission_angle: bars {coupler} and {rocker} share no pin "
                         "joint; give the coupler and the rocker of a four-bar")
    dirs = []
    for b in (coupler, rocker):
        s = joint.s[joint.bars.index(b)]
        if abs(s) < 1e-12:
            raise ValueError(f"transmission_angle: bar {b} is joined at its centre; the angle "
                             "between the bars needs the joint at an end side")
        o = data.offsets()[b] if hasattr(data, "offsets") else 3 * b
        th = q[:, o + 2]
        sign = -np.sign(s)  # from the joint into the bar
        dirs.append(sign * np.column_stack([np.cos(th), np.sin(th)]))
    cosmu = np.clip(np.sum(dirs[0] * dirs[1], axis=1), -1.0, 1.0)
    return np.arccos(cosmu)

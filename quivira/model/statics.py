r"""Static equilibrium, its stability, and equilibrium paths of a bar model.

Equilibrium at rest (:math:`\dot q = 0`, :math:`\ddot q = 0`) of
:math:`M\ddot q = f(q, \dot q, t) + J^T\lambda` with the holonomic constraints
:math:`F(q) = 0` is the KKT system

.. math::
    r(q, \lambda) = f(q, 0, t) + J(q)^T\lambda = 0, \qquad F(q) = 0,

where :math:`f = -\nabla V + Q` collects gravity, springs, constant loads and actuators
(dampers give nothing at rest). Only the holonomic rows that are switched on count (velocity
rows do not restrain a pose; a switched-on contact or stop acts as a bilateral row).
It is solved by Newton's method on :math:`(q, \lambda)` with
the exact, symbolic Jacobian

.. math::
    \begin{bmatrix} K & J^T \\ J & 0 \end{bmatrix}
    \begin{bmatrix} δq \\ δ\lambda \end{bmatrix} = -\begin{bmatrix} r \\ F \end{bmatrix},
    \qquad K = \frac{\partial r}{\partial q}
      = \frac{\partial f}{\partial q}
        + \sum_k \lambda_k \frac{\partial^2 F_k}{\partial q^2},

compiled once per topology with ``hy.cfunc`` (``hy.diff_tensors`` of :math:`r`; data are
runtime parameters, so changing a load, g or a spring re-solves without compiling). The
multipliers are the member forces and reactions (labelled as the constraint rows; the force of
every joint and support on every bar as in :class:`~quivira.model.trajectory.Trajectory`).

**Stability.** With the tangent basis :math:`T` of the coordinate partitioning of :math:`J`
(:func:`quivira.model.linearize.partition`), the reduced Hessian
:math:`H_z = -T^T K T` is the second variation of the potential on the constraint manifold
(for conservative loads :math:`-K = \nabla^2 V - \sum_k\lambda_k\nabla^2F_k`, symmetric);
the equilibrium is stable when all its eigenvalues are positive (Sylvester's law of inertia:
their signs do not depend on the choice of :math:`T`).

**Paths.** :func:`equilibrium_path` follows :math:`G(y, p) = (r, F) = 0`,
:math:`y = (q, \lambda)`, as one parameter :math:`p` changes (a load, a spring constant or
preload, a named parameter, g) by pseudo-arclength continuation: predictor along the unit
tangent :math:`t` of :math:`[G_y\; G_p]\,t = 0` (in scaled variables), corrector Newton on
:math:`G = 0`, :math:`t^T(z - z_{pred}) = 0`. A *limit point* (snap-through) is where
:math:`dp/ds` changes sign; a *bifurcation* where an eigenvalue of :math:`H_z` crosses zero
while :math:`dp/ds` does not, or where :math:`J` loses rank (:math:`W` becomes singular: the
smallest singular value of the scaled :math:`J`, rows normalized and θ columns weighted by the
bar lengths, passes below 1e-6). Both are located by the secant method on the arclength.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import heyoka as hy
import numpy as np

from .._repr import short_repr
from ..budget import Budget, check_output_bytes, partial_on_interrupt, stop_if_exceeded
from . import geometry as geo
from .compiled import CompiledSystem, NonFiniteConstraintError, evaluate_geometry
from .data import ModelData
from .determinacy import active_reaction_map
from .determinacy import analyse as analyse_determinacy
from .elements import BY_KIND
from .linearize import partition, tangent_basis
from .names import SEP, canonical, element_name, row_index, warn_earlier
from .symbolic import RUN_PARAMETERS, parameter_layout
from .trajectory import ReactionForce, reactions_from_multipliers
from .validation import check_positive, real_array

__all__ = ["EquilibriumError", "EquilibriumPath", "EquilibriumResult", "PathPoint",
           "StaticsProblem", "equilibrium", "equilibrium_path"]


class EquilibriumError(ValueError):
    """No equilibrium was found (none nearby, or a mechanism without restoring force)."""


# ---------------------------------------------------------------------------- the problem
def _kkt_function(cs: CompiledSystem):
    r"""Compiled :math:`[r, \partial r/\partial q]` of ``(q, qd, lambda)``, cached on ``cs``."""
    key = "statics_kkt"
    if key not in cs.extra:
        parts = cs.parts
        n, k = cs.n, cs.n_holonomic
        lam = [hy.expression(f"quivira_lam{i}") for i in range(k)]
        r = []
        for j in range(n):
            terms = [hy.expression(parts.f[j])]
            for row in range(k):
                e = parts.J_rows[row].get(j)
                if e is not None:
                    terms.append(hy.expression(e) * lam[row])
            r.append(hy.sum(terms))
        dt = hy.diff_tensors(r, diff_args=list(parts.q), diff_order=1)
        jac = np.asarray(dt.jacobian, dtype=object)
        cf = hy.cfunc(r + list(jac.ravel()), vars=[*parts.q, *parts.qd, *lam],
                      **cs.cfunc_options)
        cs.extra[key] = cf
    return cs.extra[key]


def _time_kw(cf, t: float) -> dict:
    return {"time": t} if cf.is_time_dependent else {}


def resolve_parameter(data: ModelData, parameter: Any) -> tuple[str, Any]:
    """Return ``(name, setter)`` of a continuation parameter.

    ``setter(v)`` returns the model data with that parameter set to ``v``.

    Parameters
    ----------
    parameter : str
        ``"g"``; the name of a named parameter (``Parameter(name="A", ...)``); or the name of
        an element's runtime datum, ``"<element>.<field>"`` such as ``"force0.fy"``,
        ``"spring1.l0"``, ``"torsion0.preload"`` (``model.parameters()`` lists them). The
        spellings of earlier releases (``"force 0 · fy"``, a key tuple of
        ``model.parameter_keys()``) are read with a pending-deprecation warning.
    """
    if isinstance(parameter, str) and parameter == "g":
        def set_g(v: float) -> ModelData:
            d = data.copy()
            d.g = v
            return d
        return "g", set_g
    keys = [key for key, _ in parameter_layout(data)]
    settable = [k for k in keys if k[0] not in ("bar", "g", *RUN_PARAMETERS)
                and not (len(k) > 2 and str(k[-1]).startswith("sL"))]

    def label(k: tuple) -> str:
        """Return the name of key ``k``: the named parameter's, or ``"<element>.<field>"``."""
        if k[0] == "param":
            return str(k[-1])
        el = data.elements[BY_KIND[k[0]].collection][k[1]]
        return f"{element_name(el, k[1])}{SEP}{'/'.join(str(x) for x in k[2:])}"

    def earlier(k: tuple) -> str:
        return f"{k[0]} {k[1]} · {' '.join(str(x) for x in k[2:])}"

    found = None
    if isinstance(parameter, tuple):
        found = parameter if parameter in settable else None
    elif isinstance(parameter, str):
        found = next((k for k in settable if label(k) == parameter), None)
        if found is None:  # an earlier spelling: "force 0 · fy"
            name = canonical(data, parameter)
            found = next((k for k in settable if k[0] != "param" and
                          (earlier(k) == parameter or label(k) == name)), None)
    else:
        raise TypeError("parameter must be a name such as 'g', 'force0.fy' or the name of a "
                        f"named parameter, got {short_repr(parameter)}")
    if found is None:
        names = ["g"] + [label(k) for k in settable]
        raise ValueError(f"unknown parameter {short_repr(parameter)}; the model's load, spring "
                         f"and named parameters are {names}")
    if parameter != label(found):
        warn_earlier(f"parameter {short_repr(parameter)} is an earlier spelling of "
                     f"{label(found)!r}; use {label(found)!r} (the earlier spellings go in "
                     "the next release)")
    pos = found[1]
    name = found[2:]
    kind = BY_KIND[found[0]]
    attr = "value" if found[0] == "param" else name[-1]
    el0 = data.elements[kind.collection][pos]
    if len(name) != 1 or not hasattr(el0, attr):
        raise ValueError(f"parameter {label(found)!r} is not a datum that can be varied")

    def setter(v: float) -> ModelData:
        d = data.copy()
        el = d.elements[kind.collection][pos]
        object.__setattr__(el, attr, float(v))
        return d

    return label(found), setter


class StaticsProblem:
    """The KKT system of a model's data at a time ``t``, evaluated by compiled functions.

    Parameters
    ----------
    data : ModelData
        The model data (loads, g, geometry).
    cs : CompiledSystem
        The compiled system of its topology.
    active : numpy.ndarray of bool
        Which constraint rows are switched on.
    t : float
        Time (for driven constraints and actuators).
    """

    def __init__(self, data: ModelData, cs: CompiledSystem, active: np.ndarray,
                 t: float = 0.0) -> None:
        self.cs = cs
        self.n = cs.n
        self.k = cs.n_holonomic
        self.t = t
        self.rows = np.nonzero(np.asarray(active, dtype=bool)[: self.k])[0]
        self.kkt = _kkt_function(cs)
        self.weights = data.coordinate_weights()
        self.length_scale = data.length_scale()
        self.set_data(data)

    def set_data(self, data: ModelData) -> None:
        """Use the numeric values of ``data`` (same topology): no compiling."""
        base = np.array([v for _, v in parameter_layout(data)], dtype=float)
        base[-1] = 0.0  # no Baumgarte terms
        self.data = data
        self.pars = self.cs.parameters(base)

    def geometry(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, J)`` of the active holonomic rows."""
        F, J = evaluate_geometry(self.cs, q, self.pars, self.t)
        return F[self.rows], J[self.rows]

    def residual(self, q: np.ndarray, lam: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        r"""Return ``(r, K)``: :math:`r = f + J^T\lambda` and :math:`K = \partial r/\partial q`.

        ``lam`` holds the multipliers of the active rows.
        """
        full = np.zeros(self.k)
        full[self.rows] = lam
        x = np.concatenate([q, np.zeros(self.n), full])
        cf = self.kkt
        out = cf(x, pars=self.pars[: cf.nparams], **_time_kw(cf, self.t))
        n = self.n
        return out[:n], out[n:].reshape(n, n)

    def applied(self, q: np.ndarray) -> np.ndarray:
        """:math:`f(q, 0, t)`, the applied generalized forces at rest."""
        return self.residual(q, np.zeros(len(self.rows)))[0]

    def full_multipliers(self, lam: np.ndarray) -> np.ndarray:
        """Multipliers of all ``m`` rows (0 for switched-off and velocity rows)."""
        out = np.zeros(self.cs.m)
        out[self.rows] = lam
        return out


# ---------------------------------------------------------------------------- results
@dataclass(frozen=True)
class EquilibriumResult:
    r"""A static equilibrium (:meth:`bar_joint_model.equilibrium`): plain data.

    Attributes
    ----------
    q : numpy.ndarray (n,)
        The pose, per bar ``(x, y, θ)`` of its centre.
    coordinate_names : list of str
        ``x0, y0, th0, ...``.
    lambda_mult : numpy.ndarray (m,)
        Multipliers of every constraint row (N for force rows; 0 for switched-off and velocity
        rows), with :math:`f + J^T\lambda = 0`.
    constraint_labels : list of str
        One label per row.
    reactions : list of ReactionForce
        Force (N, global frame) of every joint and support on every bar it touches (``force``
        of shape ``(1, 2)``).
    axial_force : numpy.ndarray (n_bars,)
        Axial force N (tension positive) at the centre of each bar (the member force of a
        two-force member; 0 for bodies that are not bars).
    eigenvalues : numpy.ndarray
        Eigenvalues of the reduced Hessian :math:`H_z = -T^TKT`, ascending (real parts for
        non-conservative loads).
    stability : str
        ``"stable"``, ``"unstable"``, ``"neutral"`` (an eigenvalue ≈ 0) or ``"rigid"`` (no
        degree of freedom).
    dof : int
        Degrees of freedom at the pose (n − rank J).
    redundant : list of str
        Labels of rows that are linearly dependent on the others (the multipliers are then
        the minimum-norm ones; statically indeterminate). Which multipliers and reaction
        components are then not determined: :attr:`determinacy`, :attr:`indeterminate`.
    iterations : int
        Newton iterations used.
    residual : float
        Final :math:`\max|r|` (N) after the solve.
    constraint_residual : float
        Final :math:`\max|F|` (m).
    """

    q: np.ndarray
    coordinate_names: list
    lambda_mult: np.ndarray
    constraint_labels: list
    reactions: list
    axial_force: np.ndarray
    eigenvalues: np.ndarray
    stability: str
    dof: int
    redundant: list
    iterations: int
    residual: float
    constraint_residual: float
    #: computes the :class:`~quivira.model.determinacy.Determinacy` at :attr:`q` (picklable)
    determinacy_source: Any = field(default=None, repr=False, compare=False)
    #: the determinacy once computed, and whether the warning was given
    _lazy: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getattribute__(self, name: str):
        """Warn once when the multipliers or reactions are first read (see :attr:`indeterminate`).

        The fields stay plain data; reading ``lambda_mult`` or ``reactions`` (also through
        :meth:`multiplier`, :meth:`support_force`, :meth:`joint_force`, :meth:`to_pandas`)
        emits :class:`~quivira.model.determinacy.IndeterminateMultipliersWarning` once per
        result when some are indeterminate.
        """
        if name in ("lambda_mult", "reactions"):
            lazy = object.__getattribute__(self, "_lazy")
            if not lazy.get("warned"):
                lazy["warned"] = True
                det = object.__getattribute__(self, "determinacy")
                if det is not None:
                    det.warn("equilibrium multipliers")
        return object.__getattribute__(self, name)

    @property
    def determinacy(self):
        """Which multipliers rigid-body mechanics determines at the pose :attr:`q`.

        A :class:`~quivira.model.determinacy.Determinacy` (computed on first access; None
        when the result was made without it, as the points of an equilibrium path).
        """
        if "det" not in self._lazy:
            src = self.determinacy_source
            self._lazy["det"] = None if src is None else src()
        return self._lazy["det"]

    @property
    def determinate(self) -> np.ndarray:
        """Per constraint row: whether its multiplier is determinate (all True if not known)."""
        from .determinacy import determinate_rows

        return determinate_rows(self.determinacy, self.constraint_labels)

    @property
    def indeterminate(self) -> list[str]:
        """The indeterminate multipliers ``lambda[<label>]`` and reaction components.

        Named as in :class:`~quivira.model.trajectory.Trajectory`: ``"support 0 on bar 0 ·
        Fx"``. Rigid-body mechanics fixes only combinations of them (e.g. the sum of two
        supports' horizontal reactions): the values printed are one choice among many.
        """
        det = self.determinacy
        return [] if det is None else det.indeterminate_columns

    @property
    def stable(self) -> bool:
        """Whether the equilibrium is stable (or rigid)."""
        return self.stability in ("stable", "rigid")

    def multiplier(self, label: str) -> float:
        """Return the multiplier of the row ``label`` (see :attr:`constraint_labels`)."""
        return float(self.lambda_mult[row_index(self.constraint_labels, label)])

    def _reaction(self, kind: str, index: int, bar: int | None) -> np.ndarray:
        for r in self.reactions:
            if r.kind == kind and r.index == index and (bar is None or r.bar == bar):
                return r.force[0].copy()
        raise KeyError(f"no reaction of {kind} {index}" + ("" if bar is None else f" on bar {bar}"))

    def support_force(self, support: int) -> np.ndarray:
        """Force ``(Fx, Fy)`` (N) of a support on its bar."""
        return self._reaction("support", support, None)

    def joint_force(self, joint: int, bar: int) -> np.ndarray:
        """Force ``(Fx, Fy)`` (N) of a joint on one of its bars."""
        return self._reaction("joint", joint, bar)

    def to_pandas(self):
        """Return the multipliers as a :class:`pandas.DataFrame` indexed by constraint label.

        One column, ``lambda`` (N). ``df.attrs["indeterminate"]`` lists the labels of the
        indeterminate multipliers, ``df.attrs["determinacy"]`` says it in a sentence.
        """
        import pandas as pd

        df = pd.DataFrame({"lambda": self.lambda_mult}, index=list(self.constraint_labels))
        det = self.determinacy
        df.attrs["indeterminate"] = [] if det is None else det.indeterminate_labels
        df.attrs["determinacy"] = "" if det is None else det.note()
        return df

    def reactions_to_pandas(self):
        """Return the reactions as a :class:`pandas.DataFrame`.

        Indexed by ``"joint j on bar b"`` / ``"support k on bar b"``, columns ``Fx``, ``Fy`` (N,
        global frame, force on the bar). ``df.attrs["indeterminate"]`` lists the
        indeterminate components (``"support 0 on bar 0 · Fx"``).
        """
        import pandas as pd

        df = pd.DataFrame([(r.label, r.force[0, 0], r.force[0, 1]) for r in self.reactions],
                          columns=["reaction", "Fx", "Fy"]).set_index("reaction")
        det = self.determinacy
        df.attrs["indeterminate"] = [] if det is None else det.indeterminate_reactions
        return df


@dataclass(frozen=True)
class PathPoint:
    """A special point of an equilibrium path (limit point or bifurcation).

    Attributes
    ----------
    kind : str
        ``"limit"`` (snap-through: the parameter turns back) or ``"bifurcation"``.
    parameter : float
        The parameter value there.
    q : numpy.ndarray
        The pose there.
    lambda_mult : numpy.ndarray
        The multipliers there.
    index : int
        Index of the path point after which it lies.
    """

    kind: str
    parameter: float
    q: np.ndarray
    lambda_mult: np.ndarray
    index: int
    #: why: ``"tangent"`` (dp/ds changes sign), ``"hessian"`` (an eigenvalue of the reduced
    #: Hessian crosses zero) or ``"rank"`` (J loses rank: W singular)
    reason: str = ""


@dataclass(frozen=True)
class EquilibriumPath:
    """An equilibrium path (:meth:`bar_joint_model.equilibrium_path`): plain data.

    Attributes
    ----------
    parameter_name : str
        What was varied.
    parameter : numpy.ndarray (k,)
        Its value at each path point (not monotone past a limit point).
    q : numpy.ndarray (k, n)
        Poses.
    lambda_mult : numpy.ndarray (k, m)
        Multipliers (labelled by :attr:`constraint_labels`).
    arclength : numpy.ndarray (k,)
        Scaled pseudo-arclength of each point.
    min_eigenvalue : numpy.ndarray (k,)
        Smallest eigenvalue of the reduced Hessian (stable where > 0).
    stable : numpy.ndarray of bool (k,)
    limit_points, bifurcations : list of PathPoint
        Located special points.
    constraint_labels, coordinate_names : list of str
    complete : bool
        Whether the path reached the end of ``values`` (otherwise see :attr:`message`).
    message : str
    """

    parameter_name: str
    parameter: np.ndarray
    q: np.ndarray
    lambda_mult: np.ndarray
    arclength: np.ndarray
    min_eigenvalue: np.ndarray
    stable: np.ndarray
    limit_points: list
    bifurcations: list
    constraint_labels: list
    coordinate_names: list
    complete: bool = True
    message: str = ""
    extra: dict = field(default_factory=dict)

    def __len__(self) -> int:
        """Return the number of points on the path."""
        return self.parameter.shape[0]

    def multiplier(self, label: str) -> np.ndarray:
        """Return the multiplier of row ``label`` along the path."""
        return self.lambda_mult[:, row_index(self.constraint_labels, label)]

    def to_pandas(self):
        """Return the path as a :class:`pandas.DataFrame`.

        Columns: the parameter, the coordinates, the multipliers ``lambda[<label>]``,
        ``min_eigenvalue`` and ``stable``.
        """
        import pandas as pd

        cols = {self.parameter_name: self.parameter, "arclength": self.arclength}
        cols |= {c: self.q[:, j] for j, c in enumerate(self.coordinate_names)}
        cols |= {f"lambda[{lb}]": self.lambda_mult[:, k]
                 for k, lb in enumerate(self.constraint_labels)}
        cols |= {"min_eigenvalue": self.min_eigenvalue, "stable": self.stable}
        return pd.DataFrame(cols)


# ---------------------------------------------------------------------------- Newton
def _reduced_hessian(K: np.ndarray, J: np.ndarray) -> tuple[np.ndarray, int, list]:
    """Eigenvalues of :math:`-T^TKT` (ascending), the dof, and the dependent columns."""
    n = K.shape[0]
    if J.shape[0]:
        dep, ind = partition(J)
    else:
        dep, ind = [], list(range(n))
    if not ind:
        return np.zeros(0), 0, dep
    T = tangent_basis(J, dep, ind) if dep else np.eye(n)[:, ind]
    H = -T.T @ K @ T
    asym = np.max(np.abs(H - H.T)) if H.size else 0.0
    if asym <= 1e-9 * max(np.max(np.abs(H)), 1e-300):
        ev = np.linalg.eigvalsh(0.5 * (H + H.T))
    else:
        ev = np.sort(np.real(np.linalg.eigvals(H)))
    return ev, len(ind), dep


def _classify(ev: np.ndarray, scale: float, rel: float = 1e-9) -> str:
    if ev.size == 0:
        return "rigid"
    thr = rel * max(scale, 1e-300)
    if ev[0] < -thr:
        return "unstable"
    if ev[0] <= thr:
        return "neutral"
    return "stable"


def _stiffness_scale(ev: np.ndarray, fs: float, ell: float) -> float:
    return max(float(np.max(np.abs(ev))) if ev.size else 0.0, fs / max(ell, 1e-300))


def _newton(prob: StaticsProblem, q0: np.ndarray, lam0: np.ndarray | None, *, tol: float,
            max_iter: int, fs: float) -> tuple[np.ndarray, np.ndarray, int, float, float]:
    """Newton on the KKT system from ``q0``; returns ``(q, lam, iterations, |r|, |F|)``."""
    q = np.array(q0, dtype=float)
    ell = prob.length_scale
    F, J = prob.geometry(q)
    if lam0 is None:
        f = prob.applied(q)
        lam = np.linalg.lstsq(J.T, -f, rcond=None)[0] if J.shape[0] else np.zeros(0)
    else:
        lam = np.array(lam0, dtype=float)
    m = J.shape[0]
    n = prob.n

    def merit(r, F):
        return float(np.sum((r / fs) ** 2) + np.sum((F / ell) ** 2))

    r, K = prob.residual(q, lam)
    for it in range(max_iter + 1):
        rn = float(np.max(np.abs(r))) if r.size else 0.0
        Fn = float(np.max(np.abs(F))) if F.size else 0.0
        if not (np.isfinite(rn) and np.isfinite(Fn)):
            raise EquilibriumError("the equilibrium iteration met a non-finite residual; try "
                                   "another q_guess")
        if rn <= tol * fs and Fn <= tol * ell:
            return _polish(prob, q, lam, r, K, F, J, merit) + (it,) + _norms(prob, q, lam)
        if it == max_iter:
            break
        A = np.zeros((n + m, n + m))
        A[:n, :n] = K
        A[:n, n:] = J.T
        A[n:, :n] = J
        rhs = -np.concatenate([r, F])
        sol = np.linalg.lstsq(A, rhs, rcond=None)[0]
        # a KKT matrix that cannot remove the residual: no equilibrium in this direction
        if np.linalg.norm(A @ sol - rhs) > 1e-6 * max(np.linalg.norm(rhs), 1e-300):
            ev, dof, _ = _reduced_hessian(K, J)
            raise EquilibriumError(
                f"no equilibrium near this pose: the model is a mechanism ({dof} degree(s) of "
                "freedom) whose loads have no restoring stiffness along a free motion "
                f"(reduced Hessian eigenvalues {np.round(ev, 12).tolist()}); add a spring or "
                "support, or change the loads")
        dq, dl = sol[:n], sol[n:]
        m0 = merit(r, F)
        alpha = 1.0
        for _ in range(40):
            q_t, l_t = q + alpha * dq, lam + alpha * dl
            try:  # a trial pose outside a constraint's domain: a shorter step
                F_t, J_t = prob.geometry(q_t)
            except NonFiniteConstraintError:
                alpha *= 0.5
                continue
            r_t, K_t = prob.residual(q_t, l_t)
            if np.all(np.isfinite(r_t)) and merit(r_t, F_t) < m0 * (1 - 1e-4 * alpha) \
                    or merit(r_t, F_t) <= 1e-28:
                break
            alpha *= 0.5
        else:
            break
        q, lam, F, J, r, K = q_t, l_t, F_t, J_t, r_t, K_t
    raise EquilibriumError(
        f"no equilibrium found near q_guess after {max_iter} Newton iterations (largest force "
        f"residual {rn:.3g} N, constraint residual {Fn:.3g}); give a q_guess closer to an "
        "equilibrium, or check that the loads can be balanced")


def _kkt_step(K, J, r, F) -> np.ndarray:
    n, m = K.shape[0], J.shape[0]
    A = np.zeros((n + m, n + m))
    A[:n, :n] = K
    A[:n, n:] = J.T
    A[n:, :n] = J
    return np.linalg.lstsq(A, -np.concatenate([r, F]), rcond=None)[0]


def _polish(prob: StaticsProblem, q, lam, r, K, F, J, merit, steps: int = 2):
    """Improve a converged Newton iterate by up to ``steps`` more full steps.

    While the residual still decreases (quadratic convergence: rounding level).
    """
    n = prob.n
    m0 = merit(r, F)
    for _ in range(steps):
        if m0 == 0.0:
            break
        sol = _kkt_step(K, J, r, F)
        q_t, l_t = q + sol[:n], lam + sol[n:]
        try:
            F_t, J_t = prob.geometry(q_t)
        except NonFiniteConstraintError:
            break
        r_t, K_t = prob.residual(q_t, l_t)
        m_t = merit(r_t, F_t)
        if not (np.isfinite(m_t) and m_t < m0):
            break
        q, lam, r, K, F, J, m0 = q_t, l_t, r_t, K_t, F_t, J_t, m_t
    return q, lam


def _norms(prob: StaticsProblem, q, lam) -> tuple[float, float]:
    F, _ = prob.geometry(q)
    r, _ = prob.residual(q, lam)
    return (float(np.max(np.abs(r))) if r.size else 0.0,
            float(np.max(np.abs(F))) if F.size else 0.0)


def _force_scale(prob: StaticsProblem, q: np.ndarray) -> float:
    f = prob.applied(q)
    fs = float(np.max(np.abs(f))) if f.size else 0.0
    w = [abs(b.mass * prob.data.g) for b in prob.data.bars]
    return max(fs, max(w, default=0.0), 1e-12)


def _start_pose(prob: StaticsProblem, q0: np.ndarray) -> np.ndarray:
    ell = prob.length_scale
    q, F, ok = geo.project_positions(q0, prob.geometry, prob.weights, tol=1e-13 * ell,
                                     max_iter=100)
    if not ok:
        raise EquilibriumError("the constraints cannot be met near q_guess (largest residual "
                               f"{np.max(np.abs(F)):.3g}); give a pose closer to an assembly")
    return q


def _finish(prob: StaticsProblem, q, lam, it, rn, Fn, axial,
            determinacy: bool = False) -> EquilibriumResult:
    cs = prob.cs
    _, J = prob.geometry(q)
    _, K = prob.residual(q, lam)
    ev, dof, _ = _reduced_hessian(K, J)
    fs = _force_scale(prob, q)
    stab = _classify(ev, _stiffness_scale(ev, fs, prob.length_scale))
    lam_full = prob.full_multipliers(lam)
    col = cs.assembly.collected
    reactions = reactions_from_multipliers(lam_full[None, :], col.reaction_map, q[None, :])
    rank, _ = geo.dependent_rows(J, prob.weights) if J.shape[0] else (0, [])
    redundant: list = []
    if rank < J.shape[0]:
        kept: list = []
        for i in range(J.shape[0]):
            r_, _ = geo.dependent_rows(J[kept + [i]], prob.weights)
            if r_ == len(kept) + 1:
                kept.append(i)
            else:
                redundant.append(cs.labels[prob.rows[i]])
    return EquilibriumResult(
        q=q, coordinate_names=[str(v) for v in cs.q], lambda_mult=lam_full,
        constraint_labels=list(cs.labels), reactions=list(reactions), axial_force=axial,
        eigenvalues=ev, stability=stab, dof=int(dof), redundant=redundant, iterations=it,
        residual=rn, constraint_residual=Fn,
        determinacy_source=_determinacy_source(prob, J) if determinacy else None)


def _determinacy_source(prob: StaticsProblem, J: np.ndarray) -> partial:
    """Return a picklable call that analyses ``J`` (active rows at the pose) on demand."""
    cs = prob.cs
    labels = cs.labels
    return partial(analyse_determinacy, J, [labels[i] for i in prob.rows],
                   [str(v) for v in cs.q], prob.weights,
                   active_reaction_map(cs.assembly.collected.reaction_map, prob.rows))


def _check_q(q: Any, n: int, what: str = "q_guess") -> np.ndarray:
    arr = real_array(q, what, f"a sequence of {n} numbers")
    if arr.ndim == 1 and arr.shape[0] == 2 * n:
        arr = arr[:n]  # a whole state [q, qd]: its positions
    if arr.shape != (n,):
        raise ValueError(f"{what} must have {n} entries (the coordinates of the bars), got "
                         f"shape {arr.shape}")
    return arr


def _check_options(tol: Any, max_iter: Any) -> tuple[float, int]:
    tol = check_positive(tol, "tol")
    if tol >= 1e-2:
        raise ValueError(f"tol must be below 0.01 (a relative tolerance such as 1e-10), got "
                         f"{tol:g}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)):
        raise TypeError(f"max_iter must be an integer >= 1, got {short_repr(max_iter)}")
    if max_iter < 1:
        raise ValueError(f"max_iter must be an integer >= 1, got {max_iter}")
    return tol, int(max_iter)


def equilibrium(prob: StaticsProblem, q_guess: np.ndarray, *, tol: float = 1e-10,
                max_iter: int = 50, axial=None, determinacy: bool = False
                ) -> EquilibriumResult:
    r"""Solve the KKT system from ``q_guess`` (see the module docstring).

    Parameters
    ----------
    prob : StaticsProblem
        The compiled problem with the model's current values.
    q_guess : numpy.ndarray
        Starting pose (moved onto the constraints first).
    tol : float
        Relative tolerance: :math:`\max|r| \le tol\cdot f_s`, :math:`\max|F| \le tol\cdot ℓ`
        with :math:`f_s` the size of the applied forces and ℓ the length scale.
    max_iter : int
        Largest number of Newton iterations.
    axial : callable, optional
        ``axial(q, lambda_full) -> (n_bars,)`` axial forces at the bar centres.
    determinacy : bool
        Give the result its :attr:`EquilibriumResult.determinacy` (computed on first access)
        and the warning on reading indeterminate multipliers.

    Raises
    ------
    EquilibriumError
        No equilibrium nearby, or a mechanism whose loads have no restoring stiffness.
    """
    tol, max_iter = _check_options(tol, max_iter)
    q0 = _check_q(q_guess, prob.n)
    q0 = _start_pose(prob, q0)
    fs = _force_scale(prob, q0)
    q, lam, it, rn, Fn = _newton(prob, q0, None, tol=tol, max_iter=max_iter, fs=fs)
    ax = axial(q, prob.full_multipliers(lam)) if axial is not None else np.zeros(0)
    return _finish(prob, q, lam, it, rn, Fn, ax, determinacy)


# ---------------------------------------------------------------------------- continuation
class _Continuation:
    """Pseudo-arclength continuation of :math:`G(y, p) = 0` in scaled variables."""

    def __init__(self, prob: StaticsProblem, setter, fs: float, p_scale: float, tol: float):
        self.prob, self.setter = prob, setter
        n, m = prob.n, len(prob.rows)
        self.n, self.m = n, m
        ell = prob.length_scale
        self.S = np.concatenate([np.full(n, ell) / np.maximum(prob.weights, 1e-300) * 1.0,
                                 np.full(m, fs), [p_scale]])
        self.fs, self.ell, self.tol = fs, ell, tol

    def set_p(self, p: float) -> None:
        self.prob.set_data(self.setter(p))

    def G(self, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Scaled residual, its Jacobian in scaled variables, and raw (r, F, K, J)."""
        n, m = self.n, self.m
        x = z * self.S
        q, lam, p = x[:n], x[n:n + m], x[-1]
        self.set_p(p)
        F, J = self.prob.geometry(q)
        r, K = self.prob.residual(q, lam)
        h = 1e-6 * max(abs(p), self.S[-1])
        self.set_p(p + h)
        rp, _ = self.prob.residual(q, lam)
        Fp, _ = self.prob.geometry(q)
        self.set_p(p - h)
        rm, _ = self.prob.residual(q, lam)
        Fm, _ = self.prob.geometry(q)
        self.set_p(p)
        Gp = np.concatenate([(rp - rm) / self.fs, (Fp - Fm) / self.ell]) / (2 * h)
        res = np.concatenate([r / self.fs, F / self.ell])
        A = np.zeros((n + m, n + m + 1))
        A[:n, :n] = K / self.fs
        A[:n, n:n + m] = J.T / self.fs
        A[n:, :n] = J / self.ell
        A[:, :n] *= self.S[None, :n]
        A[:, n:n + m] *= self.S[None, n:n + m]
        A[:, -1] = Gp * self.S[-1]
        return res, A, (q, lam, p, K, J)

    def tangent(self, A: np.ndarray, prev: np.ndarray) -> np.ndarray:
        B = np.vstack([A, prev[None, :]])
        rhs = np.zeros(B.shape[0])
        rhs[-1] = 1.0
        t = np.linalg.lstsq(B, rhs, rcond=None)[0]
        t /= np.linalg.norm(t)
        return t if t @ prev >= 0 else -t

    def correct(self, z_pred: np.ndarray, t: np.ndarray, max_iter: int = 12):
        """Newton on ``[G; t·(z - z_pred)] = 0``; returns ``(z, A, iterations)`` or None.

        None also where the constraints are not finite (a shorter step is tried then).
        """
        try:
            return self._correct(z_pred, t, max_iter)
        except NonFiniteConstraintError:
            return None

    def _correct(self, z_pred: np.ndarray, t: np.ndarray, max_iter: int):
        z = z_pred.copy()
        for it in range(max_iter):
            res, A, _ = self.G(z)
            g = np.concatenate([res, [t @ (z - z_pred)]])
            if np.max(np.abs(res)) <= self.tol and it > 0:
                return z, A, it
            B = np.vstack([A, t[None, :]])
            dz = np.linalg.lstsq(B, -g, rcond=None)[0]
            if not np.all(np.isfinite(dz)):
                return None
            z = z + dz
            if np.linalg.norm(dz) <= 1e-14 * max(1.0, np.linalg.norm(z)) and \
                    np.max(np.abs(self.G(z)[0])) <= self.tol:
                res, A, _ = self.G(z)
                return z, A, it + 1
        res, A, _ = self.G(z)
        if np.max(np.abs(res)) <= self.tol:
            return z, A, max_iter
        return None

    def eig_min(self, z: np.ndarray) -> tuple[float, float]:
        """Smallest reduced-Hessian eigenvalue and the smallest scaled singular value of J."""
        _, _, (q, lam, p, K, J) = self.G(z)
        ev, _, _ = _reduced_hessian(K, J)
        emin = float(ev[0]) if ev.size else math.inf
        if J.shape[0]:
            Js = J / self.prob.weights[None, :]
            Js = Js / np.maximum(np.linalg.norm(Js, axis=1, keepdims=True), 1e-300)
            smin = float(np.linalg.svd(Js, compute_uv=False)[-1])
        else:
            smin = 1.0
        return emin, smin


#: smallest scaled singular value of J below which the rows count as dependent (a W pivot → 0)
_RANK_THRESHOLD = 1e-6


def check_path_size(n: int, m: int, max_points: int) -> None:
    """Refuse, before any work, a path of ``max_points`` points too large to hold.

    Per point: the scaled unknowns and the tangent (:math:`n + m + 1` each, kept while the
    path is followed), their unscaled copy, the pose, the multipliers and four scalars.
    """
    check_output_bytes(8.0 * max_points * (3 * (n + m + 1) + n + m + 4),
                       f"max_points = {max_points}", "use fewer max_points")


def equilibrium_path(prob: StaticsProblem, parameter_name: str, setter, values: np.ndarray,
                     q_guess: np.ndarray, *, tol: float = 1e-10, max_points: int = 2000,
                     max_step: float | None = None, budget: Budget | None = None
                     ) -> EquilibriumPath:
    """Follow the equilibrium from ``values[0]`` towards ``values[-1]`` (see the module docstring).

    The path ends where the parameter passes ``values[-1]`` (it may leave the range of
    ``values`` by up to its span in between, e.g. past a limit point). ``budget`` counts
    predictor-corrector steps (default: :class:`~quivira.budget.Budget`'s defaults); when it
    is used up, or on Ctrl-C, the path so far is raised with
    :class:`~quivira.model.trajectory.BudgetExceededError` or
    :class:`~quivira.model.trajectory.SimulationInterrupted` (``.result``, incomplete).
    """
    budget = Budget() if budget is None else budget
    values = np.asarray(values, dtype=float)
    p0, p1 = float(values[0]), float(values[-1])
    lo, hi = min(values.min(), p0), max(values.max(), p1)
    span = max(hi - lo, 1e-300)
    prob.set_data(setter(p0))
    first = equilibrium(prob, q_guess, tol=tol)
    q, lam = first.q, first.lambda_mult[prob.rows]
    fs = max(_force_scale(prob, q), float(np.max(np.abs(lam))) if lam.size else 0.0)
    prob.set_data(setter(p1))
    fs = max(fs, _force_scale(prob, q))  # the loads at the end of the range count too
    prob.set_data(setter(p0))
    cont = _Continuation(prob, setter, fs, span, max(tol, 1e-12))
    z = np.concatenate([q, lam, [p0]]) / cont.S
    _, A, _ = cont.G(z)
    e = np.zeros(z.shape[0])
    e[-1] = 1.0 if p1 >= p0 else -1.0
    t = cont.tangent(A, e)
    h_max = max_step if max_step is not None else min(1.0 / max(len(values) - 1, 1), 0.02)
    h = h_max
    pts = [z.copy()]
    tangents = [t.copy()]
    eigs = [cont.eig_min(z)]
    arcs = [0.0]
    limits: list[PathPoint] = []
    bifs: list[PathPoint] = []

    def path(complete: bool, message: str) -> EquilibriumPath:
        """Return the path of the points so far."""
        k = min(len(pts), len(eigs), len(arcs))
        Z = np.array(pts[:k]) * cont.S[None, :]
        n, m = prob.n, len(prob.rows)
        lam_full = np.zeros((Z.shape[0], prob.cs.m))
        lam_full[:, prob.rows] = Z[:, n:n + m]
        emin = np.array([e_[0] for e_ in eigs[:k]])
        return EquilibriumPath(
            parameter_name=parameter_name, parameter=Z[:, -1], q=Z[:, :n],
            lambda_mult=lam_full, arclength=np.array(arcs[:k]), min_eigenvalue=emin,
            stable=np.array([(not np.isfinite(e_)) or e_ > 0 for e_ in emin]),
            limit_points=list(limits), bifurcations=list(bifs),
            constraint_labels=list(prob.cs.labels), coordinate_names=coordinate_names_of(prob),
            complete=complete, message=message)

    def where() -> str:
        return f"at {parameter_name} = {pts[-1][-1] * cont.S[-1]:.6g}"

    complete, message = False, ""
    try:
        with partial_on_interrupt("equilibrium_path", where, lambda msg: path(False, msg)):
            while len(pts) < max_points:
                stop_if_exceeded(budget, "equilibrium_path", where(),
                                 lambda msg: path(False, msg),
                                 pts[-1][:prob.n] * cont.S[:prob.n],
                                 shorter="follow a shorter range of values",
                                 unit="continuation steps")
                res = None
                while h >= 1e-10 * h_max:
                    budget.add(1)
                    res = cont.correct(z + h * t, t)
                    if res is not None:
                        break
                    h *= 0.5
                if res is None:
                    message = ("the continuation could not proceed (corrector failed at the "
                               "smallest step)")
                    break
                z_new, A_new, its = res
                t_new = cont.tangent(A_new, t)
                eig_new = cont.eig_min(z_new)
                # special points between z and z_new
                k = len(pts) - 1
                if t[-1] * t_new[-1] < 0:
                    limits.append(_locate(cont, z, t, h, lambda zz, tt: tt[-1], "limit", k,
                                          "tangent"))
                elif np.isfinite(eigs[-1][0]) and eigs[-1][0] * eig_new[0] < 0:
                    bifs.append(_locate(cont, z, t, h, lambda zz, tt: cont.eig_min(zz)[0],
                                        "bifurcation", k, "hessian"))
                if len(pts) >= 2 and eigs[-2][1] > eigs[-1][1] < eig_new[1] and \
                        eigs[-1][1] < 0.1:
                    # J nearly loses rank between the last three points: minimize its
                    # smallest singular value there (a V-shaped minimum, zero at a singular
                    # pose)
                    sp = _rank_minimum(cont, pts[-2], tangents[-2], arcs[-1] - arcs[-2] + h,
                                       k - 1)
                    if sp is not None:
                        bifs.append(sp)
                z, t = z_new, t_new
                pts.append(z.copy())
                tangents.append(t.copy())
                eigs.append(eig_new)
                arcs.append(arcs[-1] + h)
                p = z[-1] * cont.S[-1]
                if (p1 >= p0 and p >= p1) or (p1 < p0 and p <= p1):
                    complete = True
                    break
                if p > hi + span or p < lo - span:
                    message = (f"the path left the range of values (parameter {p:.6g}) "
                               f"without reaching {p1:g}")
                    break
                h = min(h_max, h * (1.5 if its <= 3 else 1.0 if its <= 6 else 0.5))
            else:
                message = f"stopped after max_points = {max_points} path points"
    finally:
        prob.set_data(setter(p0))
    return path(complete, message)


def _rank_minimum(cont: _Continuation, z: np.ndarray, t: np.ndarray, width: float,
                  index: int) -> PathPoint | None:
    """Find a singular pose between two path points by golden-section search.

    On the arclength σ in (0, width) from ``z`` along ``t``, for the minimum of the smallest
    scaled singular value of J; a :class:`PathPoint` if it is below the rank threshold (a
    singular pose on the path), else None.
    """
    cache: dict[float, tuple] = {}

    def f(sigma: float) -> float:
        res = cont.correct(z + sigma * t, t)
        if res is None:
            return math.inf
        cache[sigma] = res[0]
        return cont.eig_min(res[0])[1]

    g = (math.sqrt(5) - 1) / 2
    a, b = 0.0, width
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(80):
        if b - a <= 1e-12 * width:
            break
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    sigma, val = (c, fc) if fc < fd else (d, fd)
    if not val < _RANK_THRESHOLD or sigma not in cache:
        return None
    x = cache[sigma] * cont.S
    n, m = cont.n, cont.m
    return PathPoint("bifurcation", float(x[-1]), x[:n].copy(),
                     cont.prob.full_multipliers(x[n:n + m]), index, reason="rank")


def coordinate_names_of(prob: StaticsProblem) -> list[str]:
    """Names of the coordinates of the problem's compiled system."""
    return [str(v) for v in prob.cs.q]


def _locate(cont: _Continuation, z: np.ndarray, t: np.ndarray, h: float, fn, kind: str,
            index: int, reason: str) -> PathPoint:
    """Locate a zero of ``fn(z(σ), t(σ))`` by secant/bisection (Illinois).

    On the arclength σ in (0, h) from ``z`` along ``t``.
    """
    def evaluate(sigma: float):
        if sigma == 0.0:
            zz = z
            _, A, _ = cont.G(zz)
        else:
            res = cont.correct(z + sigma * t, t)
            if res is None:
                return None
            zz, A, _ = res
        tt = cont.tangent(A, t)
        return fn(zz, tt), zz

    a, b = 0.0, h
    ea, eb = evaluate(a), evaluate(b)
    if ea is None or eb is None:
        zz = z
    else:
        fa, fb = ea[0], eb[0]
        zz = eb[1]
        side = 0
        for _ in range(60):
            if fb == fa:
                break
            c = (a * fb - b * fa) / (fb - fa)
            if not (min(a, b) < c < max(a, b)):
                c = 0.5 * (a + b)
            ec = evaluate(c)
            if ec is None:
                break
            fc, zz = ec
            if abs(b - a) <= 1e-13 * h or fc == 0.0:
                break
            if fc * fb < 0:
                a, fa = b, fb
                b, fb = c, fc
                if side == 1:
                    fa *= 0.5
                side = 1
            else:
                b, fb = c, fc
                fa *= 0.5 if side == -1 else 1.0
                side = -1
            if abs(b - a) <= 1e-13 * h:
                break
    x = zz * cont.S
    n, m = cont.n, cont.m
    lam_full = cont.prob.full_multipliers(x[n:n + m])
    return PathPoint(kind, float(x[-1]), x[:n].copy(), lam_full, index, reason)


def check_values(values: Any) -> np.ndarray:
    """``values`` of a path or sweep as a finite 1-D float array of at least two entries."""
    arr = real_array(values, "values", "a sequence of numbers")
    if arr.ndim != 1 or arr.shape[0] < 2:
        raise ValueError(f"values must be a 1-D sequence of at least 2 numbers, got shape "
                         f"{arr.shape}")
    return arr


def reaction_forces(prob: StaticsProblem, q: np.ndarray, lam_full: np.ndarray
                    ) -> list[ReactionForce]:
    """Return the reactions of the multipliers ``lam_full`` at pose ``q``."""
    return reactions_from_multipliers(lam_full[None, :], prob.cs.assembly.collected.reaction_map,
                                      q[None, :])


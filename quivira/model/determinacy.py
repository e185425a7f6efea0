r"""Which multipliers are determined by rigid-body mechanics, at a pose.

With :math:`J` the constraint Jacobian at a pose (m rows, n coordinates), the equations of
motion :math:`M\ddot q = Q + J^T\lambda` determine :math:`J^T\lambda` but not :math:`\lambda`
when the rows are dependent: any *state of self-stress* :math:`s` with :math:`J^T s = 0` (the
null space of :math:`J^T`, Pellegrino & Calladine 1986) can be added to :math:`\lambda`
without changing the motion. So

* a multiplier :math:`\lambda_i` is **determinate** iff every self-stress has
  :math:`s_i = 0`;
* a linear combination :math:`c^T\lambda` (a reaction component, the sum of two supports'
  x-reactions, a joint's resultant) is determinate iff :math:`c^T s = 0` for every
  self-stress, i.e. :math:`c` lies in the range of :math:`J` (Wojtyra & Frączek 2013);
* the **mechanisms** are the null space of :math:`J`: infinitesimal motions that keep every
  constraint, :math:`m_\text{mob} = n - \operatorname{rank} J` of them. Without self-stress
  the constraint set is a manifold near the pose and every mechanism extends to a finite
  motion. With self-stresses, a mechanism :math:`u` extends to second order only if
  :math:`s^T H(u, u) = 0` for every self-stress (:math:`H(u,u)_r = u^T\nabla^2F_r u`, the
  second derivative of row r along u): where some :math:`s^T H(u,u) \ne 0` it is *blocked
  at second order* (the pose is an isolated, first-order flexible one); where all vanish the
  second-order test cannot decide.

The rank is revealed by the pivoted factorisation of the Gram matrix of the scaled
:math:`J` (:mod:`quivira.sparse_gram`): sparse, and its pivot ratios (squared distances of
each unit row from the span of the rows before it) are reported with the tolerance, so a pose
close to singular is said to be so.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..sparse_gram import PIVOT_TOL, factorize

#: a self-stress component (of a basis vector scaled to a largest entry of 1) below this is 0
ZERO = 1e-9
#: pivot ratios within this factor of the tolerance make the pose near-singular
NEAR = 1e3


class IndeterminateMultipliersWarning(UserWarning):
    """Some multipliers (and the reactions made of them) are not determined by the mechanics.

    Emitted once per result (a :class:`~quivira.model.trajectory.Trajectory`, an equilibrium),
    the first time its multipliers or reactions are read, naming them: the numbers shown for
    them are one choice among infinitely many (see :mod:`quivira.model.determinacy`).
    """


@dataclass(frozen=True)
class ReactionDeterminacy:
    """Whether the x and y components of one reaction are determinate."""

    kind: str
    index: int
    bar: int
    x: bool
    y: bool

    @property
    def label(self) -> str:
        """A readable name, e.g. ``"support 0 on bar 3"``."""
        return f"{self.kind} {self.index} on bar {self.bar}"


@dataclass(frozen=True)
class Determinacy:
    r"""The determinacy of the multipliers at a pose (see the module docstring).

    Attributes
    ----------
    labels : list of str
        One label per constraint row (multiplier).
    coordinate_names : list of str
        Names of the coordinates (rows of :attr:`mechanisms`).
    rank : int
        Rank of :math:`J`.
    pivot_tol : float
        The pivot ratio below which a row is dependent.
    smallest_kept, largest_dropped : float
        The smallest pivot ratio of an independent row and the largest of a dependent one
        (0 if none): their distance from :attr:`pivot_tol` says how clear the verdict is.
    near_singular : bool
        A pivot ratio lies within a factor 1000 of the tolerance: the pose is close to one
        where the rank changes, and the verdicts below are those of the nearest exact case.
    mechanisms : numpy.ndarray
        (n, mobility) a basis of the null space of :math:`J` (orthonormal in the metric
        where a rotation counts by how far a body's ends move).
    mechanism_status : list of str
        Per basis mechanism: ``"finite"`` (no self-stress: it extends to a motion),
        ``"blocked at second order"`` or ``"undecided at second order"``.
    self_stresses : numpy.ndarray
        (m, s) a basis of the states of self-stress, :math:`J^T s = 0`, each scaled to a
        largest entry of 1.
    dependent_rows : list of str
        The rows found dependent on the others (one per self-stress), by label.
    determinate : numpy.ndarray
        (m,) per multiplier, whether it is determinate.
    reactions : list of ReactionDeterminacy
        Per reaction force (joint on bar, support, contact...): whether its components are.
    """

    labels: list[str]
    coordinate_names: list[str]
    rank: int
    pivot_tol: float
    smallest_kept: float
    largest_dropped: float
    near_singular: bool
    mechanisms: np.ndarray
    mechanism_status: list[str]
    self_stresses: np.ndarray
    dependent_rows: list[str]
    determinate: np.ndarray
    reactions: list[ReactionDeterminacy]
    reaction_map: list = field(default_factory=list, repr=False)

    @property
    def mobility(self) -> int:
        r"""Number of independent infinitesimal mechanisms, :math:`n - \operatorname{rank} J`."""
        return self.mechanisms.shape[1]

    @property
    def n_self_stresses(self) -> int:
        r"""Number of independent states of self-stress, :math:`m - \operatorname{rank} J`."""
        return self.self_stresses.shape[1]

    @property
    def indeterminate_labels(self) -> list[str]:
        """Labels of the multipliers that rigid-body mechanics does not determine."""
        return [lb for lb, ok in zip(self.labels, self.determinate) if not ok]

    @property
    def indeterminate_reactions(self) -> list[str]:
        """The indeterminate reaction components, named as the columns of ``to_pandas``.

        E.g. ``"support 0 on bar 0 · Fx"``.
        """
        return [f"{r.label} · F{a}" for r in self.reactions
                for a, ok in (("x", r.x), ("y", r.y)) if not ok]

    def note(self) -> str:
        """One line naming the indeterminate multipliers ("" if there are none)."""
        bad = self.indeterminate_labels
        if not bad:
            return ""
        return (", ".join(f"λ[{lb}]" for lb in bad) + ": indeterminate (rigid-body mechanics "
                f"fixes only combinations of them, {self.n_self_stresses} state(s) of "
                "self-stress; the values shown are one choice among many; see .determinacy)")

    def warn(self, what: str) -> None:
        """Emit :class:`IndeterminateMultipliersWarning` naming the indeterminate multipliers.

        Nothing when every multiplier is determinate. ``what`` names the result.
        """
        from .._warnings import warn_caller

        if self.indeterminate_labels:
            warn_caller(f"{what}: {self.note()}", IndeterminateMultipliersWarning)

    def determinate_rows(self, labels: list[str]) -> np.ndarray:
        """Return, for each of ``labels`` (e.g. all rows of a model), whether it is determinate.

        Rows not analysed here (switched off: their multiplier is 0) count as determinate.
        """
        bad = set(self.indeterminate_labels)
        return np.array([lb not in bad for lb in labels], dtype=bool)

    @property
    def indeterminate_columns(self) -> list[str]:
        """``lambda[<label>]`` of the indeterminate multipliers, then the reaction components.

        As the columns of :meth:`~quivira.model.trajectory.Trajectory.to_pandas` name them.
        """
        return [f"lambda[{lb}]" for lb in self.indeterminate_labels] + \
            self.indeterminate_reactions

    def _vector(self, combination: Any) -> np.ndarray:
        r"""Return the coefficients ``c`` of :math:`c^T\lambda`, one per multiplier, checked."""
        from .validation import check_real, real_array

        if isinstance(combination, dict):
            c = np.zeros(len(self.labels))
            for label, coef in combination.items():
                if label not in self.labels:
                    raise ValueError(f"no multiplier is labelled {label!r}; labels are "
                                     f"{self.labels}")
                c[self.labels.index(label)] += check_real(coef, f"combination[{label!r}]")
            return c
        c = real_array(combination, "combination",
                       "a sequence of one number per multiplier or a dict {label: number}")
        if c.shape != (len(self.labels),):
            raise ValueError(f"combination: expected {len(self.labels)} coefficients (one per "
                             f"multiplier) or a dict {{label: coefficient}}, got shape {c.shape}")
        return c

    def is_determinate(self, combination: Any) -> bool:
        r"""Whether the combination :math:`c^T\lambda` is determinate.

        Parameters
        ----------
        combination : dict or array_like
            ``{label: coefficient}`` (e.g. ``{"support0.x": 1, "support1.x": 1}``) or
            one coefficient per multiplier; :meth:`reaction_combination` gives those of a
            reaction component.
        """
        c = self._vector(combination)
        if not self.n_self_stresses:
            return True
        scale = max(float(np.max(np.abs(c))), 1e-300)
        return bool(np.all(np.abs(c @ self.self_stresses) <= ZERO * scale))

    def reaction_combination(self, kind: str, index: int, bar: int | None = None,
                             axis: str = "x") -> np.ndarray:
        """Return the coefficients of a reaction component in the multipliers.

        ``kind``, ``index``, ``bar`` as :meth:`Trajectory.joint_force` and
        :meth:`Trajectory.support_force` name them; ``axis`` ``"x"`` or ``"y"``.
        """
        if axis not in ("x", "y"):
            raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
        a = 0 if axis == "x" else 1
        for (k, i, b), terms in self.reaction_map:
            if k == kind and i == index and (bar is None or b == bar):
                c = np.zeros(len(self.labels))
                for col, ax, sign in terms:
                    if ax == a:
                        c[col] += sign
                return c
        raise ValueError(f"no reaction of {kind} {index}" + ("" if bar is None else
                                                               f" on bar {bar}"))

    def summary(self) -> str:
        """Return a few lines: rank, mobility, self-stresses and the indeterminate multipliers."""
        lines = [f"rank of J {self.rank} of {len(self.labels)} rows (pivot tolerance "
                 f"{self.pivot_tol:g}; smallest kept {self.smallest_kept:.3g}, largest "
                 f"dropped {self.largest_dropped:.3g})" + ("; NEAR-SINGULAR pose"
                                                          if self.near_singular else ""),
                 f"mechanisms: {self.mobility} ({', '.join(self.mechanism_status) or 'none'})",
                 f"states of self-stress: {self.n_self_stresses}"]
        bad = self.indeterminate_labels
        lines.append("every multiplier is determinate" if not bad else
                     f"indeterminate multipliers ({len(bad)}): " + ", ".join(bad))
        return "\n".join(lines)


def analyse(J: np.ndarray, labels: list[str], coordinate_names: list[str],
            weights: np.ndarray, reaction_map: list, second_order=None,
            holonomic: int | None = None, pivot_tol: float = PIVOT_TOL) -> Determinacy:
    """Compute the :class:`Determinacy` of a constraint Jacobian ``J`` (m, n).

    Parameters
    ----------
    J : numpy.ndarray
        The rows of the constraints switched on at the pose.
    labels, coordinate_names : list of str
        Row labels and coordinate names.
    weights : numpy.ndarray
        Column weights ``(1, 1, L_i)`` per body.
    reaction_map : list
        ``[((kind, index, bar), [(row, axis, sign), ...]), ...]`` (see
        :attr:`~quivira.model.trajectory.Trajectory.reaction_map`).
    second_order : callable, optional
        ``u -> H(u, u)``: the second derivative of the (holonomic) rows along a motion ``u``;
        without it mechanisms with self-stresses are ``"undecided at second order"``.
    holonomic : int, optional
        Number of holonomic rows (the first ones; velocity rows have no second-order test).
    pivot_tol : float
        See :data:`quivira.sparse_gram.PIVOT_TOL`.
    """
    J = np.asarray(J, dtype=float)
    m, n = J.shape
    f = factorize(J, weights, pivot_tol)
    S = f.left_null() if f.dropped else np.zeros((m, 0))
    k = n - f.rank
    if k:
        rng = np.random.default_rng(12345)  # a fixed seed: the same basis every time
        U = f.project_to_null(rng.normal(size=(n, k)))
        # orthonormal in the metric |w u|: (x', y', L θ') per bar, the ends' displacement
        w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
        Q, _ = np.linalg.qr(U * w[:, None])
        U = Q / w[:, None]
    else:
        U = np.zeros((n, 0))
    status = _second_order(U, S, second_order, holonomic)
    det = np.all(np.abs(S) <= ZERO, axis=1) if S.size else np.ones(m, dtype=bool)
    reactions = []
    for (kind, index, bar), terms in reaction_map:
        comps = []
        for a in (0, 1):
            c = np.zeros(m)
            for col, ax, sign in terms:
                if ax == a:
                    c[col] += sign
            comps.append(True if not S.size else
                         bool(np.all(np.abs(c @ S) <= ZERO * max(np.abs(c).max(), 1e-300))))
        reactions.append(ReactionDeterminacy(kind, index, bar, comps[0], comps[1]))
    near = (f.smallest_kept() < NEAR * pivot_tol
            or (f.dropped and f.largest_dropped() > pivot_tol / NEAR))
    return Determinacy(labels=list(labels), coordinate_names=list(coordinate_names),
                       rank=f.rank, pivot_tol=pivot_tol, smallest_kept=f.smallest_kept(),
                       largest_dropped=f.largest_dropped(), near_singular=bool(near),
                       mechanisms=U, mechanism_status=status, self_stresses=S,
                       dependent_rows=[labels[i] for i in f.dependent_rows],
                       determinate=det, reactions=reactions, reaction_map=reaction_map)


def _second_order(U: np.ndarray, S: np.ndarray, H, holonomic: int | None) -> list[str]:
    """Return the status of each basis mechanism (see :class:`Determinacy`)."""
    k = U.shape[1]
    if not k:
        return []
    if not S.size:
        return ["finite"] * k
    if H is None:
        return ["undecided at second order"] * k
    rows = S.shape[0] if holonomic is None else holonomic
    out = []
    for j in range(k):
        h = np.asarray(H(U[:, j]), dtype=float)[:rows]
        work = S[:rows].T @ h
        scale = max(float(np.max(np.abs(h))), 1e-300)
        out.append("blocked at second order" if np.any(np.abs(work) > 1e-8 * scale)
                   else "undecided at second order")
    return out


def active_reaction_map(reaction_map: list, active) -> list:
    """Return the reaction map restricted to the rows ``active``, renumbered in their order.

    Terms along a body's normal (contacts) are left out: their direction moves with the pose.
    """
    where = {int(r): j for j, r in enumerate(active)}
    rmap = []
    for key, terms in reaction_map:
        kept = [(where[c], ax, sg) for c, ax, sg in terms
                if c in where and not isinstance(ax, (tuple, list))]
        if kept:
            rmap.append((key, kept))
    return rmap


def of_model(sim, data, state: np.ndarray, t: float = 0.0,
             pivot_tol: float = PIVOT_TOL, second_order: bool = True) -> Determinacy:
    """Return the :class:`Determinacy` of a model's data at ``state`` (``[q, qd]``).

    The rows switched on in the data are analysed (a latch that is open, a contact not
    touching, take no part). ``sim`` is the model's simulator (compiled-code cache). Without
    ``second_order`` no second-order test is made (nothing compiled beyond the system).
    """
    x = initial_state_of(data, state)
    cs = sim.compiled(data)
    pars = sim.parameters(data, cs, stabilized=False)
    return of_compiled(cs, data, x, pars, t, pivot_tol, second_order, check=True)


def initial_state_of(data, state) -> np.ndarray:
    """Return ``state`` as an array ``[q, qd]``, checked against the data's coordinates."""
    n = data.n_coordinates()
    x = np.asarray(state, float)
    if x.shape != (2 * n,):
        raise ValueError(f"state: expected {2 * n} values ([q, qd]), got shape {x.shape}")
    return x


def of_compiled(cs, data, x: np.ndarray, pars: np.ndarray, t: float = 0.0,
                pivot_tol: float = PIVOT_TOL, second_order: bool = True,
                check: bool = False) -> Determinacy:
    """Return the :class:`Determinacy` at state ``x`` of a compiled system ``cs`` of ``data``.

    With its runtime parameters ``pars``. ``check``: raise ValueError if ``x`` is off the
    constraints. Without ``second_order`` the mechanisms with self-stresses are
    ``"undecided at second order"`` (no compiling).
    """
    import heyoka as hy

    from ..model.compiled import active_rows, evaluate_geometry
    from ..model.symbolic import coordinate_names

    n = data.n_coordinates()
    F, J = evaluate_geometry(cs, x[:n], pars, t, qd=x[n:])
    scale = data.length_scale()
    k = cs.n_holonomic
    bad = np.nonzero(np.abs(F[:k]) > 1e-6 * scale)[0]
    if check and bad.size:
        raise ValueError("determinacy: the state violates the constraints ("
                         + ", ".join(f"{cs.labels[i]} off by {F[i]:.3g}" for i in bad[:4])
                         + "); call model.assemble() or give a state on the constraints")
    active = np.nonzero(active_rows(data, cs))[0]
    all_labels = cs.labels  # built on each access: read once
    labels = [all_labels[i] for i in active]
    rmap = active_reaction_map(cs.assembly.collected.reaction_map, active)

    def jdqd():
        # compiled on first use: only a pose with both mechanisms and self-stresses needs it
        fn = cs.extra.get("Jdqd")
        if fn is None:
            from .._entries import as_expression

            exprs = [as_expression(e) for e in cs.parts.Jdqd[:k]] or [hy.expression(0.0)]
            fn = hy.cfunc(exprs, vars=[*cs.q, *cs.qd], **cs.cfunc_options)
            cs.extra["Jdqd"] = fn
        return fn

    def second_order_fn(u: np.ndarray) -> np.ndarray:
        fn = jdqd()
        kw = {"pars": pars[: fn.nparams]} if fn.nparams else {}
        if fn.is_time_dependent:
            kw["time"] = t
        h = np.zeros(cs.m)
        h[:k] = fn(np.concatenate([x[:n], u]), **kw)[:k]
        return h[active]

    q_names, _ = coordinate_names(data)
    hol = int(np.sum(active < k))
    return analyse(J[active], labels, q_names, data.coordinate_weights(), rmap,
                   second_order_fn if second_order else None, hol, pivot_tol)


class StartPose:
    """The :class:`Determinacy` of a run's start pose, computed on first call.

    From a :class:`~quivira.model.simulator.DynamicsSource` (its compiled system and data:
    nothing is compiled; no second-order test). Picklable only once called (a trajectory
    pickles the result).
    """

    def __init__(self, source) -> None:
        self.source = source

    def __call__(self) -> Determinacy:
        """Analyse the first state of the source."""
        src = self.source
        pars = src.pars[0] if np.ndim(src.pars) == 2 else src.pars
        t0 = float(np.ravel(src.t)[0]) if np.size(src.t) else 0.0
        return of_compiled(src.system(), src._data, src.states[0], pars, t0,
                           second_order=False)


def determinate_rows(det: Determinacy | None, labels: list[str]) -> np.ndarray:
    """:meth:`Determinacy.determinate_rows` of ``labels``; all True when ``det`` is None."""
    if det is None:
        return np.ones(len(labels), dtype=bool)
    return det.determinate_rows(list(labels))

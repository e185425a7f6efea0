r"""Constrained Lagrangian equations of motion as heyoka expressions.

The equations built here, in the order the code runs:

1. Mass matrix and applied forces from a Lagrangian :math:`\mathcal L(q, \dot q, t)`:

   .. math::
      M = \frac{\partial^2 \mathcal L}{\partial \dot q\, \partial \dot q}, \qquad
      f = \frac{\partial \mathcal L}{\partial q}
        - \frac{\partial^2 \mathcal L}{\partial \dot q\, \partial q} \dot q
        - \frac{\partial^2 \mathcal L}{\partial \dot q\, \partial t} + Q_{nc}, \qquad
      M \ddot q_a = f.

2. Constraint rows at acceleration level, :math:`J \ddot q + c = 0`. A holonomic row
   :math:`F_k(q, t) = 0` gives :math:`J_k = \partial F_k / \partial q` and

   .. math:: c_k = \frac{\partial (J_k \dot q)}{\partial q} \dot q
             + 2 \frac{\partial J_k}{\partial t} \dot q
             + \frac{\partial^2 F_k}{\partial t^2}

   (:math:`c_k = (\dot J \dot q)_k` when :math:`F` does not depend on time); a velocity row
   :math:`g_k = A_k(q, t) \dot q + b_k(q, t) = 0` gives :math:`J_k = A_k` and
   :math:`c_k = (\partial g_k / \partial q) \dot q + \partial g_k / \partial t`
   (:mod:`quivira.constraint_rows`).
3. :math:`G = M^{-1} J^T` from :math:`M G = J^T` with one factorization of :math:`M`;
   :math:`W = J G`; :math:`W \lambda = -(J \ddot q_a + c)`;
   :math:`\ddot q = \ddot q_a + G \lambda`.

Sign convention of the multipliers: Lagrange's equations read

.. math:: \frac{d}{dt} \frac{\partial \mathcal L}{\partial \dot q}
          - \frac{\partial \mathcal L}{\partial q} = Q_{nc} + J^T \lambda,

so :math:`J^T \lambda` is the generalized constraint force acting on the system.

Inputs that would silently give wrong equations are rejected by :func:`lagrange_eom` and
:func:`quivira.lagrange_forms` with a :class:`ValueError` naming the stray variables: a
Lagrangian, velocity constraints or :math:`Q_{nc}` with variables outside
:math:`q \cup \dot q`, and holonomic constraints with variables outside :math:`q` (in
particular velocities). ``hy.time`` and runtime parameters ``hy.par[i]`` are allowed
everywhere; they are not variables.

All derivatives are taken only with respect to the variables an expression actually
contains (``hy.get_variables``), so structural zeros cost nothing, and every sum is flat
(``hy.sum``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import heyoka as hy
import numpy as np

from ._entries import (
    as_expression,
    as_matrix,
    as_variables,
    as_vector,
    check_entry,
    flat_sum,
    is_array_like,
    is_number,
    is_zero,
    stray_variables,
)
from ._repr import short_repr
from .constraint_rows import holonomic_rows, velocity_rows
from .linalg import LUFactorization, gaussian_factorize, solve_sparse, symmetric_factorize
from .ordering import (
    elimination_cost,
    minimum_degree,
    nested_dissection,
    reverse_cuthill_mckee,
)

__all__ = [
    "build_Jdqd",
    "build_constraint_jacobian",
    "build_mass_matrix",
    "find_constrained_accelerations",
    "lagrange_eom",
]

_ZERO = hy.expression(0.0)


def _check_scalar_expression(x: Any, name: str) -> hy.expression:
    """Return ``x`` as a heyoka expression.

    A real number becomes a constant, anything else is a :class:`TypeError`.
    """
    if isinstance(x, hy.expression):
        return x
    if is_number(x):
        check_entry(x, name)
        return hy.expression(float(x))
    raise TypeError(f"{name}: expected a scalar heyoka expression, got {type(x).__name__}")


_SOLVERS = ("lu", "ordered")


def _check_solver(solver: Any) -> None:
    """Check ``solver``.

    Raise :class:`TypeError` unless ``solver`` is a string or a callable, :class:`ValueError`
    for an unknown name.
    """
    msg = f"solver: expected 'lu', 'ordered' or a callable f(A, b), got {short_repr(solver)}"
    if callable(solver):
        return
    if not isinstance(solver, str):
        raise TypeError(msg)
    if solver not in _SOLVERS:
        raise ValueError(msg)


def _as_rows(rows: Any, name: str, what: str) -> list:
    """Return the entries of a sequence of constraint rows as a list (``[]`` for an empty one)."""
    if rows is None or isinstance(rows, hy.expression) or not is_array_like(rows):
        raise TypeError(f"{name}: expected a sequence of {what} (use [] for none)")
    return list(as_vector(rows, name)) if len(rows) else []


_ALLOWED_EXTRAS = "hy.time and runtime parameters hy.par[i]"


def _time_hint(stray: list[str]) -> str:
    named_t = [v for v in stray if v in ("t", "time")]
    if not named_t:
        return ""
    return f"; for the time use hy.time, not a variable named {named_t[0]!r}"


def _check_variables(L: hy.expression, F: list, G: list, Q: list | None, q: list,
                     qd: list) -> None:
    r"""Reject stray variables (see the module docstring), naming them and the row.

    Raises
    ------
    ValueError
        If the Lagrangian, a velocity constraint or an entry of ``Q`` contains a variable
        outside :math:`q \cup \dot q`, or a holonomic constraint one outside :math:`q`.
    """
    q_names = {str(v) for v in q}
    qd_names = {str(v) for v in qd}
    state = q_names | qd_names
    stray = stray_variables(L, state)
    if stray:
        raise ValueError(
            f"lagrangian: contains the variable(s) {stray}, which are neither coordinates (q) "
            f"nor velocities (qd); a Lagrangian may depend only on q, qd, {_ALLOWED_EXTRAS}"
            + _time_hint(stray)
        )
    for k, Fk in enumerate(F):
        stray = stray_variables(Fk, q_names)
        if not stray:
            continue
        velocities = [v for v in stray if v in qd_names]
        others = [v for v in stray if v not in qd_names]
        rule = f"a holonomic constraint F(q, t) = 0 may depend only on q, {_ALLOWED_EXTRAS}"
        if others:
            msg = (f"F[{k}]: contains the variable(s) {others}, which are not coordinates (q); "
                   + rule + _time_hint(others))
            if velocities:
                msg += f"; it also contains the velocity variable(s) {velocities}"
        else:
            msg = f"F[{k}]: contains the velocity variable(s) {velocities}; " + rule
        if velocities:
            msg += " (pass constraints on velocities as velocity_constraints=)"
        raise ValueError(msg)
    for k, g in enumerate(G):
        stray = stray_variables(g, state)
        if stray:
            raise ValueError(
                f"velocity_constraints[{k}]: contains the variable(s) {stray}, which are "
                "neither coordinates (q) nor velocities (qd); a velocity constraint "
                f"A(q, t) qd + b(q, t) = 0 may depend only on q, qd, {_ALLOWED_EXTRAS}"
                + _time_hint(stray)
            )
    for i, Qi in enumerate(Q or []):
        stray = stray_variables(Qi, state)
        if stray:
            raise ValueError(
                f"Q_nc[{i}]: contains the variable(s) {stray}, which are neither coordinates "
                "(q) nor velocities (qd); generalized forces may depend only on q, qd, "
                f"{_ALLOWED_EXTRAS}" + _time_hint(stray)
            )


def _var_index(variables: Sequence[hy.expression]) -> dict[str, int]:
    return {str(v): i for i, v in enumerate(variables)}


def _depends_on(expr: Any, index: dict[str, int]) -> list[int]:
    """Return the indices (into ``index``) of the variables in ``expr``, ascending."""
    if not isinstance(expr, hy.expression):
        return []
    return sorted(index[v] for v in hy.get_variables(expr) if v in index)


def _sparse_rows(A: np.ndarray) -> list[dict[int, Any]]:
    """Row-wise dictionaries of the structurally non-zero entries of a 2-D array."""
    return [{j: x for j, x in enumerate(row) if not is_zero(x)} for row in A]


def _to_expr_array(values: list) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = as_expression(v)
    return out


def _dense(rows: list[dict[int, Any]], n_cols: int) -> np.ndarray:
    out = np.empty((len(rows), n_cols), dtype=object)
    out[...] = _ZERO
    for i, r in enumerate(rows):
        for j, x in r.items():
            out[i, j] = as_expression(x)
    return out


# ----------------------------------------------------------------------------------------
# Step 1: mass matrix and applied forces
# ----------------------------------------------------------------------------------------


def _lagrangian_terms(lagrangian: hy.expression, q: list, qd: list):
    r"""Return ``(M_rows, f)``: the mass matrix as sparse rows and the force term ``f``.

    Here :math:`f = \partial L/\partial q - (\partial^2 L/\partial \dot q \partial q)\dot q
    - \partial^2 L/\partial \dot q\partial t` (the last for an explicitly time-dependent
    Lagrangian, e.g. in a moving frame; ``hy.time`` is replaced by an auxiliary variable
    for the derivative and put back).
    """
    n = len(q)
    tau = hy.expression("quivira_tau")
    L = hy.subs(lagrangian, {hy.time: tau})
    q_idx = _var_index([*q, tau])
    qd_idx = _var_index(qd)
    q_aug, qd_aug = [*q, tau], [*qd, 1.0]
    grad = hy.diff_tensors([L], diff_args=[*q, *qd], diff_order=1).gradient
    dL_dq, p = grad[:n], grad[n:]

    def back(e):
        return hy.subs(e, {tau: hy.time}) if isinstance(e, hy.expression) else e

    M_rows: list[dict[int, Any]] = []
    f: list = []
    for i in range(n):
        p_i = p[i]
        row = {}
        for j in _depends_on(p_i, qd_idx):
            d = hy.diff(p_i, qd[j])
            if not is_zero(d):
                row[j] = back(d)
        M_rows.append(row)
        terms = [dL_dq[i]]
        for j in _depends_on(p_i, q_idx):
            d = hy.diff(p_i, q_aug[j])
            if not is_zero(d):
                terms.append(-(d * qd_aug[j]))
        f.append(back(flat_sum(terms)))
    return M_rows, f


def build_mass_matrix(lagrangian: hy.expression, qd: Sequence[hy.expression]) -> np.ndarray:
    r"""Return the mass matrix of a Lagrangian.

    The entries are :math:`M_{ij} = \partial^2 \mathcal L / \partial \dot q_i \partial \dot q_j`.

    Parameters
    ----------
    lagrangian : heyoka.expression or float
        Scalar Lagrangian :math:`\mathcal L(q, \dot q, t)` (energy, J, in SI units). Its
        other symbols (coordinates, parameters) are not checked: they are constants of the
        differentiation.
    qd : sequence of heyoka variables
        Generalized velocities, in the ordering of the model coordinates.

    Returns
    -------
    numpy.ndarray
        ``(n, n)`` object array; structural zeros are the expression ``0``.

    Raises
    ------
    TypeError
        If ``lagrangian`` is neither a heyoka expression nor a real number, ``qd`` is not a
        sequence, or an entry of ``qd`` is not a heyoka expression.
    ValueError
        If an entry of ``qd`` is not a single variable, or a variable is repeated.
    """
    L = _check_scalar_expression(lagrangian, "lagrangian")
    qd = as_variables(qd, "qd")
    n = len(qd)
    if n == 0:
        return np.empty((0, 0), dtype=object)
    qd_idx = _var_index(qd)
    p = hy.diff_tensors([L], diff_args=list(qd), diff_order=1).gradient
    rows = []
    for i in range(n):
        rows.append({j: hy.diff(p[i], qd[j]) for j in _depends_on(p[i], qd_idx)})
    return _dense(rows, n)


# ----------------------------------------------------------------------------------------
# Step 2: constraints
# ----------------------------------------------------------------------------------------


def _jacobian_rows(F: list, q: list) -> list[dict[int, Any]]:
    q_idx = _var_index(q)
    rows = []
    for Fk in F:
        row = {}
        for j in _depends_on(Fk, q_idx):
            d = hy.diff(Fk, q[j])
            if not is_zero(d):
                row[j] = d
        rows.append(row)
    return rows


def _jdqd_rows(J_rows: list[dict[int, Any]], q: list, qd: list) -> list:
    r"""Return the rows of :math:`\dot J \dot q`.

    Row ``k`` is :math:`(\dot J \dot q)_k = \sum_j \partial (J_k \dot q)/\partial q_j\, \dot q_j`.
    """
    q_idx = _var_index(q)
    out = []
    for row in J_rows:
        v = flat_sum([J_kj * qd[j] for j, J_kj in row.items()])
        terms = []
        for j in _depends_on(v, q_idx):
            d = hy.diff(v, q[j])
            if not is_zero(d):
                terms.append(d * qd[j])
        out.append(flat_sum(terms))
    return out


def build_constraint_jacobian(F: Sequence, q: Sequence[hy.expression]) -> np.ndarray:
    r"""Return the constraint Jacobian :math:`J = \partial F / \partial q`.

    Parameters
    ----------
    F : sequence of heyoka.expression
        Constraint residuals :math:`F(q) = 0` (length ``m``). Symbols other than ``q`` are
        treated as constants of the differentiation and are not checked.
    q : sequence of heyoka variables
        Generalized coordinates (length ``n``).

    Returns
    -------
    numpy.ndarray
        ``(m, n)`` object array; entries for coordinates a residual does not contain are the
        expression ``0``.

    Raises
    ------
    TypeError
        If ``F`` is not a sequence or has an entry that is neither a real number nor a heyoka
        expression, ``q`` is not a sequence, or an entry of ``q`` is not a heyoka expression.
    ValueError
        If ``F`` is not one-dimensional, an entry of ``q`` is not a single variable, or a
        variable is repeated.
    """
    q = as_variables(q, "q")
    F_vec = as_vector(F, "F")
    return _dense(_jacobian_rows(list(F_vec), q), len(q))


def build_Jdqd(J: Any, q: Sequence[hy.expression], qd: Sequence[hy.expression]) -> np.ndarray:
    r"""Return :math:`\dot J \dot q = \sum_i (\partial J/\partial q_i)\, \dot q_i\, \dot q`.

    Computed as one directional derivative per row,
    :math:`(\dot J \dot q)_k = \partial (J_k \dot q)/\partial q \cdot \dot q`, with no
    triple loop.

    Only the dependence of ``J`` on ``q`` is differentiated: for a Jacobian that depends on
    ``hy.time`` the term :math:`(\partial J/\partial t)\dot q` is not included (use
    :func:`lagrange_eom`, which handles rheonomic constraints).

    Parameters
    ----------
    J : numpy.ndarray or sequence
        Constraint Jacobian :math:`J(q)`, shape ``(m, n)``; an empty sequence means ``m = 0``.
    q, qd : sequence of heyoka variables
        Generalized coordinates and velocities (length ``n`` each).

    Returns
    -------
    numpy.ndarray
        1-D object array of length ``m``.

    Raises
    ------
    TypeError
        If ``J`` is not an array or nested sequence or has an entry that is neither a real
        number nor a heyoka expression, or ``q``/``qd`` are not sequences of heyoka
        expressions.
    ValueError
        If ``J`` is not two-dimensional or does not have ``n`` columns, ``q`` and ``qd``
        differ in length, an entry of ``q``/``qd`` is not a single variable, or a variable
        is repeated.
    """
    q = as_variables(q, "q")
    qd = as_variables(qd, "qd")
    if len(q) != len(qd):
        raise ValueError(f"qd: expected {len(q)} velocities to match q, got {len(qd)}")
    J_arr = _as_jacobian(J, len(q))
    return _to_expr_array(_jdqd_rows(_sparse_rows(J_arr), q, qd))


def _as_jacobian(J: Any, n: int) -> np.ndarray:
    arr = np.array(J, dtype=object)
    if arr.size == 0:
        return np.empty((0, n), dtype=object)
    J_arr = as_matrix(J, "J")
    if J_arr.shape[1] != n:
        raise ValueError(f"J: expected {n} columns (one per coordinate), got shape {J_arr.shape}")
    return J_arr


# ----------------------------------------------------------------------------------------
# Step 3: multipliers and constrained accelerations
# ----------------------------------------------------------------------------------------


def _constrain(M_fac: LUFactorization, qdd_a: list, J_rows: list[dict[int, Any]], Jdqd: list,
               W_shift: dict[int, Any] | None = None, solver: Any = "lu"):
    r"""Apply the constraints to the applied accelerations.

    Returns ``(qdd, lambda_mult, W_rows, W_solve)`` (lists, and a :class:`WSolve` holding the
    LU factorization of ``W`` and the row order used, ``None`` without constraints), with
    :math:`G = M^{-1}J^T`, :math:`W = J G`, :math:`W\lambda = -(J\ddot q_a + \dot J\dot q)`,
    :math:`\ddot q = \ddot q_a + G\lambda`. ``W_shift`` adds terms to diagonal entries of
    ``W`` (used to switch rows off: a row scaled by 0 with a shift of 1 gives λ = 0).
    """
    n = M_fac.n
    m = len(J_rows)
    if m == 0:
        return list(qdd_a), [], [], None
    # Columns of G, stored sparsely: G_cols[k][j] = G_jk
    G_cols: list[dict[int, Any]] = []
    for row in J_rows:
        b = [0.0] * n
        for j, x in row.items():
            b[j] = x
        g = solve_sparse(M_fac, b)
        G_cols.append({j: x for j, x in enumerate(g) if not is_zero(x)})
    # W = J G is symmetric (M symmetric): build the upper triangle and mirror it; W_kl can be
    # non-zero only if G's column l touches a coordinate of row k.
    W_rows: list[dict[int, Any]] = [{} for _ in range(m)]
    cols_of_coord: dict[int, list[int]] = {}
    for ell, Gl in enumerate(G_cols):
        for j in Gl:
            cols_of_coord.setdefault(j, []).append(ell)
    for k in range(m):
        Jk = J_rows[k]
        partners = sorted({ell for j in Jk for ell in cols_of_coord.get(j, ()) if ell >= k})
        for ell in partners:
            Gl = G_cols[ell]
            if len(Jk) <= len(Gl):
                terms = [x * Gl[j] for j, x in Jk.items() if j in Gl]
            else:
                terms = [Jk[j] * x for j, x in Gl.items() if j in Jk]
            if terms:
                w = flat_sum(terms)
                if not is_zero(w):
                    W_rows[k][ell] = w
                    if ell != k:
                        W_rows[ell][k] = w
    for k, shift in (W_shift or {}).items():
        W_rows[k][k] = flat_sum([W_rows[k].get(k, 0.0), shift])
    rhs = []
    for k in range(m):
        terms = [x * qdd_a[j] for j, x in J_rows[k].items() if not is_zero(qdd_a[j])]
        terms.append(Jdqd[k])
        rhs.append(-flat_sum(terms))
    lam, W_solve = _solve_W(W_rows, rhs, solver)
    qdd = []
    for j in range(n):
        terms = [qdd_a[j]]
        for k in range(m):
            g = G_cols[k].get(j)
            if g is not None and not is_zero(lam[k]):
                terms.append(g * lam[k])
        qdd.append(flat_sum(terms))
    return qdd, lam, W_rows, W_solve


@dataclass
class WSolve:
    r"""Record how :math:`W\lambda = r` was solved.

    How :math:`W\lambda = r` was solved: ``fac`` is the LU factorization of
    :math:`P W P^T` with ``perm[k]`` the row of ``W`` at position ``k`` (identity for
    ``"lu"``), or ``fac = None`` for a user-supplied solver.
    """

    fac: LUFactorization | None
    perm: list[int]

    def pivot_ratios(self, W_rows: list) -> list:
        """Expressions :math:`d_k / W_{kk}` of the pivots, in the factorization's order."""
        return [1.0 / x for x in self.inverse_pivot_ratios(W_rows)]

    def inverse_pivot_ratios(self, W_rows: list) -> list:
        r"""Expressions :math:`W_{kk} / d_k`, in the factorization's order.

        One product each: the factorization's :math:`1/d_k` times the diagonal of W.
        """
        if self.fac is None:
            return []
        return [as_expression(inv_d) * as_expression(W_rows[self.perm[k]][self.perm[k]])
                for k, inv_d in enumerate(self.fac.inv_diag)]


#: from this many constraint rows on, :func:`fill_reducing_order` also weighs a nested
#: dissection (see there)
DISSECTION_MIN_ROWS = 280
#: factor-entry equivalent of one level of the elimination tree (see :func:`fill_reducing_order`)
HEIGHT_WEIGHT = 25


def fill_reducing_order(pattern: list[set[int]]) -> list[int]:
    r"""Return the elimination order of the ``"ordered"`` solver for the pattern of W.

    Of reverse Cuthill–McKee and minimum degree, the one with the fewest non-zeros of the
    factors, then the shortest elimination tree (:func:`~quivira.ordering.elimination_cost`).
    From :data:`DISSECTION_MIN_ROWS` rows on, a nested dissection
    (:func:`~quivira.ordering.nested_dissection`) replaces it when it lowers
    :math:`\text{non-zeros} + w\,\text{height}` (:math:`w` = :data:`HEIGHT_WEIGHT`): heyoka
    builds compact-mode code in time growing with the operations (about 8 per factor entry)
    and with the segments of mutually independent ones (about 3 LLVM modules per level of the
    tree), and a long lattice's minimum-degree tree is half its length deep. Measured on
    scissor masts (first-time ``simulate`` with the defaults, fresh processes; their centre
    pins out of the solve, :mod:`quivira.model.centre_pins`): 64 cells (255 rows, height 130
    against 28, non-zeros 2891 against 4863) 1.90-1.96 s against 1.40-1.57 s, a warm disk
    cache about even (1.06-1.10 s against 1.10-1.17 s); 32 cells (127 rows) 0.84 s against
    0.76 s first time but 0.50-0.53 s against 0.53-0.57 s warm; a 128-bar chain (256 rows)
    3.14-3.17 s against 3.00-3.04 s. The bound stays above those sizes for accuracy: the
    pivot ratios that the singularity monitor watches depend on the order, and IFToMM A02
    with N = 40 (242 rows, 20 passes through flat poses) crosses them with a relative energy
    error of 8.7e-10 in nested-dissection order against 6.5e-11 in minimum-degree order over
    its 20 s. Two-dimensional lattices (a 16 x 16 wall of masts) have shallow trees already
    and keep minimum degree.
    """
    # fewest non-zeros of the factors, then the shortest chain of dependent pivots
    (nnz, height), perm = min(((elimination_cost(pattern, p), p)
                               for p in (reverse_cuthill_mckee(pattern), minimum_degree(pattern))),
                              key=lambda cost_perm: cost_perm[0])
    if len(pattern) >= DISSECTION_MIN_ROWS:
        nd = nested_dissection(pattern)
        nd_nnz, nd_height = elimination_cost(pattern, nd)
        if nd_nnz + HEIGHT_WEIGHT * nd_height < nnz + HEIGHT_WEIGHT * height:
            perm = nd
    return perm


def _solve_W(W_rows: list, rhs: list, solver: Any) -> tuple[list, WSolve]:
    r"""Solve :math:`W\lambda = r` with the chosen solver (see :func:`lagrange_eom`).

    :math:`W = J M^{-1} J^T` is symmetric by construction (its rows are built from the upper
    triangle and mirrored), so ``"ordered"`` factorizes it as :math:`L D L^T`.
    """
    _check_solver(solver)
    m = len(W_rows)
    if callable(solver):
        W_dense = _dense(W_rows, m)
        sol = np.asarray(solver(W_dense, _to_expr_array(rhs)), dtype=object).reshape(-1)
        if sol.shape != (m,):
            raise ValueError(f"solver: must return {m} values for W lambda = b, got shape "
                             f"{sol.shape}")
        return list(sol), WSolve(None, list(range(m)))
    if solver == "lu":
        perm = list(range(m))
    else:  # "ordered"
        perm = fill_reducing_order([set(r) for r in W_rows])
    pos = {old: k for k, old in enumerate(perm)}
    try:
        if solver == "lu":
            W_perm = np.empty((m, m), dtype=object)
            W_perm[...] = 0.0
            for k, r in enumerate(W_rows):
                for ell, x in r.items():
                    W_perm[pos[k], pos[ell]] = x
            W_fac = gaussian_factorize(W_perm)
        else:
            perm_rows = [{pos[ell]: x for ell, x in W_rows[old].items()} for old in perm]
            W_fac = symmetric_factorize(perm_rows)
    except ZeroDivisionError as exc:
        raise ZeroDivisionError(
            "the Delassus matrix W = J M^-1 J^T has a structurally zero pivot: the constraints "
            f"are redundant or do not involve any coordinate ({exc})"
        ) from None
    lam_perm = solve_sparse(W_fac, [rhs[old] for old in perm])
    lam = [0.0] * m
    for k, old in enumerate(perm):
        lam[old] = lam_perm[k]
    return lam, WSolve(W_fac, perm)


def find_constrained_accelerations(
    qdd_free: Any,
    J: Any,
    M: Any,
    Jdqd: Any,
    Q_nc: Any = None,
    *,
    return_W: bool = False,
    solver: Any = "lu",
) -> tuple:
    r"""Return the constrained accelerations and the Lagrange multipliers.

    .. math::
        \ddot q_a = \ddot q_{free} + M^{-1} Q_{nc}, \quad G = M^{-1} J^T, \quad W = J G,

        W \lambda = -(J \ddot q_a + \dot J \dot q), \qquad \ddot q = \ddot q_a + G\lambda.

    ``G`` comes from :math:`M G = J^T` with a single factorization of ``M`` that is reused
    for every column and for ``Q_nc``. :math:`J^T\lambda` is the generalized constraint force.

    The entries are free-form: numbers or heyoka expressions in any symbols of the caller
    (their variables are not checked). Units are SI: accelerations in m/s² or rad/s²,
    :math:`M` in kg (kg m² for angles), forces in N (N m for angles).

    Parameters
    ----------
    qdd_free : sequence
        Free accelerations (length ``n``).
    J : numpy.ndarray or sequence
        Constraint Jacobian, shape ``(m, n)``; an empty list means no constraints.
    M : numpy.ndarray or sequence
        Mass matrix, shape ``(n, n)``.
    Jdqd : sequence
        :math:`\dot J \dot q` (length ``m``).
    Q_nc : sequence, optional
        Generalized applied forces (length ``n``); may depend on q, qd and ``hy.time``.
    return_W : bool, optional
        Also return the Delassus matrix :math:`W`.
    solver : {"lu", "ordered"} or callable, optional
        How :math:`W\lambda = r` is solved. ``"lu"`` (the default): sparse LU of ``W`` in
        the row order of ``J``. ``"ordered"``: symmetric :math:`LDL^T`
        (:func:`quivira.linalg.symmetric_factorize`, half the update products of LU) after
        the symmetric fill-reducing permutation of ``W`` (reverse Cuthill–McKee or minimum
        degree, whichever fills less; on a tie the one with the shorter chain of dependent
        pivots). A callable ``f(A, b)`` must return the solution of ``A x = b`` for object
        arrays ``A`` (m, m) and ``b`` (m,).

    Returns
    -------
    tuple
        ``(qdd, lambda_mult)`` or ``(qdd, lambda_mult, W)``: 1-D object arrays of length ``n``
        and ``m`` (in the row order of ``J``), and the ``(m, m)`` matrix ``W``.

    Raises
    ------
    TypeError
        If an argument is not an array or sequence, an entry is neither a real number nor a
        heyoka expression, or ``solver`` is neither a string nor a callable.
    ValueError
        If shapes or lengths disagree (named in the message), ``solver`` is an unknown name,
        or a callable solver returns the wrong number of values.
    ZeroDivisionError
        If ``M`` or ``W`` meets a structurally zero pivot.
    """
    _check_solver(solver)
    M_arr = as_matrix(M, "M", square=True)
    n = M_arr.shape[0]
    qdd_f = as_vector(qdd_free, "qdd_free", n)
    J_arr = _as_jacobian(J, n)
    m = J_arr.shape[0]
    Jdqd_v = as_vector(Jdqd, "Jdqd", m) if m else np.empty(0, dtype=object)
    if m == 0 and Jdqd is not None and np.size(np.array(Jdqd, dtype=object)) != 0:
        raise ValueError(f"Jdqd: expected 0 entries (J has no rows), got {np.size(Jdqd)}")
    M_fac = gaussian_factorize(M_arr)
    qdd_a = list(qdd_f)
    if Q_nc is not None:
        Q = as_vector(Q_nc, "Q_nc", n)
        acc = solve_sparse(M_fac, list(Q))
        qdd_a = [flat_sum([a, b]) for a, b in zip(qdd_a, acc, strict=True)]
    qdd, lam, W_rows, _ = _constrain(M_fac, qdd_a, _sparse_rows(J_arr), list(Jdqd_v),
                                     solver=solver)
    result = (_to_expr_array(qdd), _to_expr_array(lam))
    if return_W:
        return (*result, _dense(W_rows, m))
    return result


def lagrange_eom(
    lagrangian: hy.expression,
    F: Sequence,
    q: Sequence[hy.expression],
    qd: Sequence[hy.expression],
    Q_nc: Any = None,
    *,
    return_multipliers: bool = False,
    return_W: bool = False,
    velocity_constraints: Sequence | None = None,
    solver: Any = "lu",
) -> list | tuple:
    r"""Assemble the first-order ODE system of the constrained Lagrangian dynamics.

    Builds :math:`M`, the applied accelerations :math:`\ddot q_a` (with :math:`Q_{nc}`),
    :math:`J = \partial F/\partial q`, :math:`\dot J\dot q`, then
    :math:`\ddot q = \ddot q_a + M^{-1}J^T\lambda` with
    :math:`W\lambda = -(J\ddot q_a + \dot J\dot q)`, and returns

    .. math:: \frac{d}{dt}\begin{bmatrix} q \\ \dot q \end{bmatrix}
              = \begin{bmatrix} \dot q \\ \ddot q(q, \dot q, t) \end{bmatrix}.

    The constraints are enforced at acceleration level (index 1); the integrator keeps
    :math:`F(q) = 0` only up to its tolerance, starting from a consistent state.

    Parameters
    ----------
    lagrangian : heyoka.expression or float
        Scalar Lagrangian :math:`\mathcal L(q, \dot q, t)` (J); may contain only the
        variables of ``q`` and ``qd``, ``hy.time`` and runtime parameters ``hy.par[i]``.
    F : sequence of heyoka.expression
        Holonomic constraint residuals :math:`F(q, t) = 0`; an empty sequence gives free
        dynamics. May contain only the variables of ``q``, ``hy.time`` and ``hy.par[i]``.
    q, qd : sequence of heyoka variables
        Generalized coordinates and velocities (same length, distinct variables).
    Q_nc : sequence, optional
        Generalized non-conservative forces in the ordering of ``q`` (N for lengths, N m
        for angles); may contain the variables of ``q`` and ``qd``, ``hy.time`` and
        ``hy.par[i]``.
    return_multipliers : bool, optional
        Also return the multipliers :math:`\lambda` (1-D, in the order of ``F``).
    return_W : bool, optional
        Also return the Delassus matrix :math:`W = J M^{-1} J^T`.
    velocity_constraints : sequence of heyoka.expression, optional
        Non-holonomic rows :math:`A(q, t)\dot q + b(q, t) = 0` (linear in the velocities;
        variables of ``q`` and ``qd``, ``hy.time``, ``hy.par[i]``), appended after the rows
        of ``F``; their multipliers follow those of ``F`` and :math:`A^T\lambda` is their
        generalized force. Not part of the original function API; ``None`` (the default)
        means none.
    solver : {"lu", "ordered"} or callable, optional
        How :math:`W\lambda = r` is solved; see :func:`find_constrained_accelerations`.
        Not part of the original function API; the default ``"lu"`` is its behaviour.

    Returns
    -------
    list or tuple
        ``sys`` (a list of ``(state_var, rhs)`` pairs: ``(q_i, qd_i)`` for all i, then
        ``(qd_i, qdd_i)``), or ``(sys, lambda_mult)``, ``(sys, W)``, ``(sys, lambda_mult, W)``.

    Raises
    ------
    TypeError
        If ``lagrangian`` is neither a heyoka expression nor a number; ``F``, ``q``, ``qd``,
        ``Q_nc`` or ``velocity_constraints`` is not a sequence (e.g. a single expression);
        an entry has the wrong type; or ``solver`` is neither a string nor a callable.
    ValueError
        On mismatched lengths or malformed inputs (named in the message); if the Lagrangian,
        ``Q_nc`` or ``velocity_constraints`` contain variables outside ``q`` and ``qd``, or
        ``F`` contains variables outside ``q`` (velocities included) — the message names
        them; if a velocity constraint is not linear in the velocities; or for an unknown
        ``solver`` name.
    ZeroDivisionError
        If ``M`` is singular in structure or ``W`` meets a structurally zero pivot.

    Notes
    -----
    ``F`` may depend on time (``hy.time``, rheonomic constraints such as a driven crank
    :math:`θ - ωt = 0`); the acceleration equation then includes
    :math:`2\,\partial J/\partial t\,\dot q + \partial^2 F/\partial t^2`.

    Examples
    --------
    A point mass :math:`m` on a rod of length :math:`l` (lesson 1 of the course), in Cartesian
    coordinates with :math:`F = x^2 + y^2 - l^2`. Its multiplier is
    :math:`\lambda = m(gy - v^2)/(2l^2)`, so the rod tension is :math:`T = -2l\lambda`:

    >>> import heyoka as hy
    >>> import numpy as np
    >>> import quivira
    >>> x, y, vx, vy = hy.make_vars("x", "y", "vx", "vy")
    >>> m, g, l = 1.0, 9.81, 1.0
    >>> L = 0.5 * m * (vx**2 + vy**2) - m * g * y
    >>> sys, lam = quivira.lagrange_eom(L, [x**2 + y**2 - l**2], [x, y], [vx, vy],
    ...                                 return_multipliers=True)
    >>> [str(var) for var, _ in sys]
    ['x', 'y', 'vx', 'vy']
    >>> f = hy.cfunc([lam[0], sys[3][1]], vars=[x, y, vx, vy])
    >>> lam_val, ydd = f(np.array([0.0, -1.0, 2.0, 0.0]))  # at the bottom, at 2 m/s
    >>> round(float(-2 * l * lam_val), 10)  # T = m g + m v^2 / l
    13.81
    >>> round(float(ydd), 10)  # the centripetal acceleration v^2 / l, upwards
    4.0
    """
    parts = assemble_eom(lagrangian, F, q, qd, Q_nc, velocity_constraints=velocity_constraints,
                         solver=solver)
    return eom_result(parts, return_multipliers, return_W)


def first_order_system(parts: EOMParts) -> list:
    """``[(q_i, qd_i)..., (qd_i, qdd_i)...]``: the first-order system of :class:`EOMParts`."""
    n = len(parts.q)
    sys = [(parts.q[i], parts.qd[i]) for i in range(n)]
    sys += [(parts.qd[i], as_expression(parts.qdd[i])) for i in range(n)]
    return sys


def eom_result(parts: EOMParts, return_multipliers: bool, return_W: bool) -> list | tuple:
    """Return the value of :func:`lagrange_eom` (``sys`` or a tuple with λ and/or W)."""
    sys = first_order_system(parts)
    extra: list = []
    if return_multipliers:
        extra.append(_to_expr_array(parts.lambda_mult))
    if return_W:
        extra.append(_dense(parts.W_rows, len(parts.lambda_mult)))
    return (sys, *extra) if extra else sys


@dataclass
class EOMParts:
    r"""The pieces of a constrained Lagrangian system, kept sparse (rows as dicts).

    ``M_rows``, ``J_rows`` and ``W_rows`` map column indices to non-zero entries; ``qdd_a`` are
    the applied accelerations, ``qdd`` the constrained ones, ``W_solve`` how ``W`` was factorized
    (its pivots monitor singular poses), ``None`` without constraints;
    ``velocity_residual`` the row-wise :math:`\dot F` (or :math:`g` for velocity rows) and
    ``n_holonomic`` the number of holonomic rows (they come first).
    """

    q: list
    qd: list
    M_rows: list
    f: list
    J_rows: list
    Jdqd: list
    qdd_a: list
    qdd: list
    lambda_mult: list
    W_rows: list
    W_solve: WSolve | None
    velocity_residual: list
    n_holonomic: int
    W_shift: dict | None = None
    #: when the solve runs on a reduced system (a bar model's centre pins, see
    #: :mod:`quivira.model.centre_pins`): its W rows, and the rows of the whole system they
    #: are, in order; None when the solve is of ``W_rows`` itself
    W_solved: list | None = None
    solved_rows: list | None = None

    @property
    def solve_rows(self) -> list:
        """The rows of W that :attr:`W_solve` factorized (``W_rows`` unless reduced)."""
        return self.W_rows if self.W_solved is None else self.W_solved

    def solved_row(self, k: int) -> int:
        """Return the row of the whole system that is row ``k`` of the solve."""
        return k if self.solved_rows is None else self.solved_rows[k]


def assemble_eom(
    lagrangian: hy.expression,
    F: Sequence,
    q: Sequence[hy.expression],
    qd: Sequence[hy.expression],
    Q_nc: Any = None,
    *,
    velocity_constraints: Sequence | None = None,
    W_shift: dict[int, Any] | None = None,
    solver: Any = "lu",
) -> EOMParts:
    """Validate the inputs of :func:`lagrange_eom` and build all intermediate quantities.

    See the module docstring for the equations; returns an :class:`EOMParts`. Rows are the
    holonomic ones (``F``, possibly depending on ``hy.time``) followed by the velocity
    constraints (see :mod:`quivira.constraint_rows`). ``W_shift`` adds terms to diagonal
    entries of :math:`W` (see :func:`_constrain`). Raises as :func:`lagrange_eom`.
    """
    L = _check_scalar_expression(lagrangian, "lagrangian")
    q = as_variables(q, "q")
    qd = as_variables(qd, "qd")
    n = len(q)
    if len(qd) != n:
        raise ValueError(f"qd: expected {n} velocities to match q, got {len(qd)}")
    shared = {str(v) for v in q} & {str(v) for v in qd}
    if shared:
        raise ValueError(f"q and qd must be different variables, both contain {sorted(shared)}")
    F_list = _as_rows(F, "F", "constraint residuals")
    G_list = []
    if velocity_constraints is not None:
        G_list = _as_rows(velocity_constraints, "velocity_constraints", "expressions")
    Q = None if Q_nc is None else list(as_vector(Q_nc, "Q_nc", n))
    _check_solver(solver)
    _check_variables(L, F_list, G_list, Q, q, qd)
    M_rows, f = _lagrangian_terms(L, q, qd)
    if Q is not None:
        f = [flat_sum([a, b]) for a, b in zip(f, Q, strict=True)]
    M_dense = np.empty((n, n), dtype=object)
    M_dense[...] = 0.0
    for i, r in enumerate(M_rows):
        for j, x in r.items():
            M_dense[i, j] = x
    try:
        M_fac = gaussian_factorize(M_dense)
    except ZeroDivisionError as exc:
        raise ZeroDivisionError(
            "the mass matrix d2L/dqd2 is singular in structure: is every velocity in the "
            f"kinetic energy? ({exc})"
        ) from None
    return assemble_from_forces(q, qd, M_rows, M_fac, f, F_list, G_list, W_shift, solver)


def assemble_from_forces(q: list, qd: list, M_rows: list, M_fac: LUFactorization, f: list,
                         F: list, G: list, W_shift: dict[int, Any] | None = None,
                         solver: Any = "lu") -> EOMParts:
    r"""Build :class:`EOMParts` from a factorized mass matrix and the applied forces ``f``.

    :math:`M\ddot q_a = f`, then the constraint rows of ``F`` (holonomic) and ``G``
    (velocity level, linear in the velocities), as in :func:`assemble_eom`, without
    validation. (The bar model assembles its own equations, see
    :mod:`quivira.model.assembly`.)
    """
    qdd_a = solve_sparse(M_fac, f)
    hol = holonomic_rows(F, q, qd)
    vel = velocity_rows(G, q, qd)
    J_rows, Jdqd = hol.a + vel.a, hol.c + vel.c
    qdd, lam, W_rows, W_solve = _constrain(M_fac, qdd_a, J_rows, Jdqd, W_shift, solver)
    return EOMParts(q, qd, M_rows, f, J_rows, Jdqd, qdd_a, qdd, lam, W_rows, W_solve,
                    hol.velocity_residual + vel.velocity_residual, len(F), W_shift)

r"""Rank, null spaces and solves of a sparse constraint Jacobian, through its Gram matrix.

For a constraint Jacobian :math:`J` (m rows, n columns, a few non-zeros per row) scaled to
:math:`A = D_r J C` (columns divided by the coordinate weights, rows normalised to unit
length, so that a model and a scaled copy get the same verdicts), the Gram matrix
:math:`G = A A^T` is factorised as :math:`P G P^T = L D L^T` with a fill-reducing order
:math:`P` (:func:`quivira.ordering.minimum_degree`, or nested dissection for large systems)
and **pivot monitoring**: the pivot :math:`d_k` of row :math:`k` is the squared distance of
that (unit) row from the span of the rows eliminated before it. A pivot below
``rel_tol`` marks the row as *dependent* on those rows; it is dropped (its reduced row and
column are zero to rounding) and the factorisation goes on. Then

* the rank of :math:`J` is the number of kept pivots;
* each dropped row :math:`k` gives a vector of the left null space,
  :math:`x = L^{-T} e_k` (:math:`x^T G x = d_k \approx 0`, so :math:`A^T x \approx 0`), and
  :math:`\lambda = D_r x` satisfies :math:`J^T\lambda \approx 0`: a *state of self-stress*;
* :math:`G^{+}` restricted to the kept rows solves least-squares problems, and
  :math:`u = v - C A^T G^{+} A C^{-1} v` projects onto the null space of :math:`J` (the
  *mechanisms*).

Everything is sparse: the factor is stored by columns as index and value arrays, and the
work is about :math:`\sum_k |L_{:,k}|^2` operations.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .ordering import minimum_degree, nested_dissection

#: default relative pivot below which a row counts as dependent (a squared distance of the
#: unit row from the span of the others: 1e-10 is a distance of 1e-5, a pose that close to
#: singular is reported as near-singular rather than decided)
PIVOT_TOL = 1e-10
#: above this many rows the order is nested dissection (shallower elimination tree)
NESTED_FROM = 280


@dataclass
class GramFactor:
    """The pivoted :math:`LDL^T` of :math:`G = A A^T` (see the module docstring).

    Attributes
    ----------
    order : numpy.ndarray
        Elimination order: position ``k`` eliminates row ``order[k]`` of ``J``.
    cols : list
        Per position ``k``: ``(positions, values)`` of the column of ``L`` below the
        diagonal (positions > k in the elimination order).
    d : numpy.ndarray
        The pivots (0 for dropped rows).
    dropped : list of int
        Positions of the dependent rows.
    pivot_ratio : numpy.ndarray
        :math:`d_k / G_{kk}` per position (1 is an independent unit row).
    row_scale : numpy.ndarray
        :math:`D_r` (per row of ``J``).
    col_scale : numpy.ndarray
        :math:`C` (per column of ``J``).
    rel_tol : float
        The pivot tolerance used.
    """

    order: np.ndarray
    cols: list
    d: np.ndarray
    dropped: list[int]
    pivot_ratio: np.ndarray
    row_scale: np.ndarray
    col_scale: np.ndarray
    rel_tol: float
    A: object = field(repr=False, default=None)

    @property
    def rank(self) -> int:
        """Number of independent rows of :math:`J`."""
        return len(self.order) - len(self.dropped)

    @property
    def dependent_rows(self) -> list[int]:
        """Indices (rows of :math:`J`) of the dropped rows, in elimination order."""
        return [int(self.order[k]) for k in self.dropped]

    def smallest_kept(self) -> float:
        """Return the smallest pivot ratio kept (1.0 if none)."""
        kept = np.delete(self.pivot_ratio, self.dropped)
        return float(kept.min()) if kept.size else 1.0

    def largest_dropped(self) -> float:
        """Return the largest pivot ratio dropped (0.0 if none)."""
        return float(self.pivot_ratio[self.dropped].max()) if self.dropped else 0.0

    def _forward(self, b: np.ndarray) -> np.ndarray:
        """Solve :math:`L y = b` (positions), in place on a copy."""
        y = np.array(b, dtype=float)
        for k, (rows, vals) in enumerate(self.cols):
            if y[k] != 0.0 and rows.size:
                y[rows] -= vals * y[k]
        return y

    def _backward(self, y: np.ndarray) -> np.ndarray:
        """Solve :math:`L^T x = y` (positions)."""
        x = np.array(y, dtype=float)
        for k in range(len(self.cols) - 1, -1, -1):
            rows, vals = self.cols[k]
            if rows.size:
                x[k] -= vals @ x[rows]
        return x

    def solve(self, b: np.ndarray) -> np.ndarray:
        """Return :math:`G^{+} b` on the kept rows (0 on the dropped ones), in row order."""
        bp = np.asarray(b, dtype=float)[self.order]
        y = self._forward(bp)
        dinv = np.where(self.d > 0.0, 1.0 / np.where(self.d > 0.0, self.d, 1.0), 0.0)
        y = y * dinv
        y[self.dropped] = 0.0
        xp = self._backward(y)
        xp[self.dropped] = 0.0
        out = np.empty_like(xp)
        out[self.order] = xp
        return out

    def left_null(self, refine: int = 2) -> np.ndarray:
        r"""Return a basis of the self-stresses, :math:`J^T\lambda = 0`, as columns (m, k).

        One per dropped row, :math:`\lambda = D_r x` with :math:`x = L^{-T} e_k`, each scaled
        to a largest entry of 1 (so a dropped row's own entry is of order one).

        The factor is of the Gram matrix, whose condition is that of :math:`A` squared, so
        :math:`A^T x` is left at rounding times that condition (1e-10 on a 512-bar lattice,
        enough to misjudge a combination's determinacy). ``refine`` steps of

        .. math:: x \leftarrow x - G^{+} A (A^T x)

        remove it: :math:`G^{+} A\rho` is the solution :math:`\delta` on the kept rows of
        :math:`A^T\delta = \rho` (exact since :math:`\rho` lies in the range of
        :math:`A^T`), zero on the dropped ones, so each vector keeps its own dropped entry
        and the basis stays independent.
        """
        m = len(self.order)
        out = np.zeros((m, len(self.dropped)))
        A = self.A
        for j, k in enumerate(self.dropped):
            e = np.zeros(m)
            e[k] = 1.0
            xp = self._backward(e)
            x = np.empty(m)
            x[self.order] = xp
            if A is not None:
                for _ in range(refine):
                    x = x - self.solve(A @ (A.T @ x))
            lam = x * self.row_scale
            out[:, j] = lam / max(float(np.max(np.abs(lam))), 1e-300)
        return out

    def project_to_null(self, V: np.ndarray) -> np.ndarray:
        r"""Return the columns of ``V`` projected onto the null space of :math:`J`.

        In the metric of the column weights: :math:`u = v - C A^T G^{+} A C^{-1} v`.
        """
        A = self.A
        C = self.col_scale
        out = np.empty_like(V, dtype=float)
        for j in range(V.shape[1]):
            w = V[:, j] / C
            out[:, j] = (w - A.T @ self.solve(A @ w)) * C
        return out


def _scaled(J, weights: np.ndarray | None):
    """Return ``(A, row_scale, col_scale)``: ``A = D_r J C`` as a dense or sparse matrix."""
    J = np.asarray(J, dtype=float)
    m, n = J.shape
    C = np.ones(n) if weights is None else 1.0 / np.asarray(weights, dtype=float)
    A = J * C[None, :]
    norms = np.sqrt(np.einsum("ij,ij->i", A, A)) if m else np.zeros(0)
    Dr = 1.0 / np.where(norms > 0.0, norms, 1.0)
    return A * Dr[:, None], Dr, C


def factorize(J, weights: np.ndarray | None = None, rel_tol: float = PIVOT_TOL
              ) -> GramFactor:
    """Factorise the Gram matrix of the scaled ``J`` with pivot monitoring.

    Parameters
    ----------
    J : array_like
        The constraint Jacobian (m, n); dense, read by its non-zeros.
    weights : array_like, optional
        Column weights (``(1, 1, L_i)`` per bar): a rotation counts by how far a bar's ends
        move.
    rel_tol : float
        Pivot ratio below which a row is dependent (see :data:`PIVOT_TOL`).

    Returns
    -------
    GramFactor
    """
    A, Dr, C = _scaled(J, weights)
    m = A.shape[0]
    # the Gram matrix, sparse: G_ij = a_i . a_j for rows sharing a column
    rows_of_col: dict[int, list[int]] = {}
    nz = [np.flatnonzero(A[i]) for i in range(m)]
    for i, cols in enumerate(nz):
        for c in cols:
            rows_of_col.setdefault(int(c), []).append(i)
    pattern: list[set[int]] = [set() for _ in range(m)]
    for rows in rows_of_col.values():
        for i in rows:
            pattern[i].update(rows)
    order = np.array(nested_dissection(pattern) if m >= NESTED_FROM
                     else minimum_degree(pattern), dtype=int)
    pos = np.empty(m, dtype=int)
    pos[order] = np.arange(m)
    # the working rows (dicts keyed by position), filled as the elimination goes
    work: list[dict[int, float]] = [dict() for _ in range(m)]
    diag = np.ones(m)
    for i in range(m):
        p = pos[i]
        ai = A[i, nz[i]]
        for j in pattern[i]:
            q = pos[j]
            if q < p:
                continue
            v = float(ai @ A[j, nz[i]])
            if q == p:
                diag[p] = v
            work[p][q] = v
    cols = []
    d = np.zeros(m)
    ratio = np.zeros(m)
    dropped: list[int] = []
    for k in range(m):
        row = work[k]
        dk = row.pop(k, 0.0)
        gkk = diag[k] if diag[k] > 0.0 else 1.0
        ratio[k] = dk / gkk
        if dk <= rel_tol * gkk:
            dropped.append(k)
            cols.append((np.zeros(0, dtype=int), np.zeros(0)))
            work[k] = {}
            continue
        d[k] = dk
        idx = np.array(sorted(row), dtype=int)
        vals = np.array([row[q] for q in idx]) / dk
        cols.append((idx, vals))
        # rank-1 update of the rows below: G_ij -= L_ik d_k L_jk (upper part, i <= j)
        scaled = vals * dk
        for a, i in enumerate(idx):
            wi = work[i]
            li = vals[a]
            for b in range(a, len(idx)):
                j = int(idx[b])
                wi[j] = wi.get(j, 0.0) - li * scaled[b]
        work[k] = {}
    return GramFactor(order, cols, d, dropped, ratio, Dr, C, rel_tol, A)

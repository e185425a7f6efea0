r"""Sparsity-aware symbolic linear algebra on NumPy object arrays.

Entries may mix Python numbers and :class:`heyoka.expression` objects. Structural zeros
(numeric zeros and the expression ``0``) are tracked: the LU factorization below stores only
non-zero entries, never multiplies by a known zero, and creates fill only where elimination
really produces it. Updates of an entry are accumulated as a list of terms and summed flatly
(``hy.sum``) when the entry is first needed, so no deep chains of binary additions arise.

The factorization is Doolittle's LU without pivoting,

.. math:: S = L U, \qquad L_{ii} = 1,

followed by forward substitution :math:`L y = b` and back substitution :math:`U x = y`.

Errors: :class:`TypeError` for an argument or entry of the wrong kind (entries must be real
numbers or heyoka expressions), :class:`ValueError` for a wrong shape or size,
:class:`ZeroDivisionError` for a structurally zero pivot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy
import numpy as np

from ._entries import (
    as_expression,
    as_matrix,
    as_vector,
    flat_sum,
    is_array_like,
    is_number,
    is_zero,
)

__all__ = [
    "LUFactorization",
    "create_block_diagonal",
    "gaussian_elimination",
    "gaussian_factorize",
    "gaussian_solve_factored",
    "identity",
    "invert_matrix",
]


def identity(x: Any) -> Any:
    """Return the input unchanged (a no-op placeholder).

    Parameters
    ----------
    x : object
        Any Python object.

    Returns
    -------
    object
        ``x`` itself.
    """
    return x


def create_block_diagonal(blocks: list) -> np.ndarray:
    r"""Create a block-diagonal matrix from square arrays.

    .. math:: B = \operatorname{diag}(B_1, B_2, \ldots, B_k)

    Parameters
    ----------
    blocks : list
        Two-dimensional square arrays (numbers and/or heyoka expressions) to place along
        the main diagonal.

    Returns
    -------
    numpy.ndarray
        Object array holding the blocks; entries outside them are the heyoka expression
        ``0``. An empty sequence gives a ``(0, 0)`` object array.

    Raises
    ------
    TypeError
        If ``blocks`` is not a sequence, a block is not an array or nested sequence, or an
        entry is neither a real number nor a heyoka expression.
    ValueError
        If a block is not a two-dimensional square array.
    """
    if not is_array_like(blocks):
        raise TypeError(
            f"blocks: expected a sequence of square arrays, got {type(blocks).__name__}"
        )
    mats = [as_matrix(b, f"blocks[{i}]", square=True) for i, b in enumerate(blocks)]
    n = sum(m.shape[0] for m in mats)
    out = np.empty((n, n), dtype=object)
    out[...] = hy.expression(0.0)
    k = 0
    for m in mats:
        s = m.shape[0]
        out[k:k + s, k:k + s] = m
        k += s
    return out


@dataclass(frozen=True)
class LUFactorization:
    """A sparse symbolic LU factorization :math:`S = L U` (no pivoting).

    Attributes
    ----------
    n : int
        Size of the factorized matrix.
    lower : tuple of dict
        ``lower[i]`` maps column ``k < i`` to the non-zero multiplier :math:`L_{ik}`.
    upper : tuple of dict
        ``upper[i]`` maps column ``j > i`` to the non-zero entry :math:`U_{ij}`.
    inv_diag : tuple
        Reciprocals :math:`1/U_{ii}` of the pivots.
    symmetric : bool
        ``True`` for :math:`U = D L^T` (:func:`symmetric_factorize`): the back substitution
        then reads :math:`L^T` (see :func:`solve_sparse`).
    """

    n: int
    lower: tuple
    upper: tuple
    inv_diag: tuple
    symmetric: bool = False

    @property
    def n_nonzero(self) -> int:
        """Number of stored non-zero entries of L (strictly lower) and U (with diagonal)."""
        return sum(len(r) for r in self.lower) + sum(len(r) for r in self.upper) + self.n


def _reciprocal(p: Any) -> Any:
    if is_number(p):
        return 1.0 / float(p)
    return 1.0 / p


def _product(a: Any, b: Any) -> Any:
    """Product of two entries; NumPy scalars are turned into floats first."""
    if is_number(a):
        a = float(a)
    if is_number(b):
        b = float(b)
    return a * b


def _pivot_row(row_k: dict[int, list], k: int, who: str) -> tuple[Any, dict]:
    """Sum the pending terms of row ``k`` at its elimination.

    Return ``(1/pivot, {j: U_kj})`` for the structurally non-zero entries right of the diagonal
    (in column order).
    """
    pivot = flat_sum(row_k.pop(k)) if k in row_k else 0.0
    if is_zero(pivot):
        raise ZeroDivisionError(
            f"{who}: structurally zero pivot at position {k} "
            "(no row pivoting is performed; reorder the equations or unknowns)"
        )
    u_k = {}
    for j in sorted(row_k):
        v = flat_sum(row_k[j])
        if not is_zero(v):
            u_k[j] = v
    return _reciprocal(pivot), u_k


def gaussian_factorize(S: Any) -> LUFactorization:
    """Factorize a square symbolic matrix once, :math:`S = L U`, for reuse.

    Only structurally non-zero entries are stored and operated on; an entry receives fill
    only where the elimination of a non-zero column meets a non-zero pivot-row entry.

    Parameters
    ----------
    S : numpy.ndarray or sequence
        Square ``(n, n)`` matrix of numbers and/or heyoka expressions. Not modified.

    Returns
    -------
    LUFactorization
        To be passed to :func:`gaussian_solve_factored` for any number of right-hand sides.

    Raises
    ------
    TypeError
        If ``S`` is not an array or nested sequence, or an entry is neither a real number
        nor a heyoka expression.
    ValueError
        If ``S`` is not a square two-dimensional array.
    ZeroDivisionError
        If a structurally zero pivot is met (no row pivoting is done).
    """
    A = as_matrix(S, "S", square=True)
    n = A.shape[0]
    # rows[i][j] = list of terms whose sum is the current entry (i, j)
    rows: list[dict[int, list]] = [{} for _ in range(n)]
    cols: list[set[int]] = [set() for _ in range(n)]  # rows i having an entry in column j
    for (i, j), x in np.ndenumerate(A):
        if not is_zero(x):
            rows[i][j] = [x]
            cols[j].add(i)
    lower: list[dict] = [{} for _ in range(n)]
    upper: list[dict] = [{} for _ in range(n)]
    inv_diag: list = [None] * n
    for k in range(n):
        inv_p, u_k = _pivot_row(rows[k], k, "gaussian_factorize")
        inv_diag[k] = inv_p
        upper[k] = u_k
        rows[k] = {}
        for i in sorted(r for r in cols[k] if r > k):
            terms = rows[i].pop(k)
            a_ik = flat_sum(terms)
            if is_zero(a_ik):
                continue
            l_ik = _product(a_ik, inv_p)
            lower[i][k] = l_ik
            row_i = rows[i]
            for j, u_kj in u_k.items():
                t = -_product(l_ik, u_kj)
                if j in row_i:
                    row_i[j].append(t)
                else:
                    row_i[j] = [t]
                    cols[j].add(i)
        cols[k] = set()
    return LUFactorization(n, tuple(lower), tuple(upper), tuple(inv_diag))


def symmetric_factorize(rows: list[dict[int, Any]]) -> LUFactorization:
    r"""Factorize a structurally and numerically symmetric sparse matrix, :math:`S = L D L^T`.

    Right-looking elimination that updates only the upper triangle of each Schur
    complement: for pivot :math:`k` with later neighbours :math:`i \le j`,

    .. math:: d_k = S_{kk}, \quad L_{ik} = S_{ki} / d_k, \quad
              S_{ij} \leftarrow S_{ij} - L_{ik} S_{kj},

    so each update is formed once, where the unsymmetric :func:`gaussian_factorize` forms
    :math:`S_{ij}` and :math:`S_{ji}` separately (twice the products). The result is an
    :class:`LUFactorization` with :math:`U = D L^T` (``upper[k][j]`` the final
    :math:`S_{kj}`), usable by :func:`gaussian_solve_factored` and :func:`solve_sparse`.

    Parameters
    ----------
    rows : list of dict
        ``rows[i][j]`` the structurally non-zero entries; only ``j >= i`` is read, so the
        caller guarantees symmetry (e.g. :math:`W = J M^{-1} J^T`). Not validated: this is
        the internal routine of the ``"ordered"`` solver of :func:`quivira.lagrange_eom`.

    Returns
    -------
    LUFactorization
        With :math:`U = D L^T`.

    Raises
    ------
    ZeroDivisionError
        If a structurally zero pivot is met.
    """
    n = len(rows)
    # upper-triangle entries as lists of terms: tri[i][j], j >= i
    tri: list[dict[int, list]] = [{} for _ in range(n)]
    for i, r in enumerate(rows):
        for j, x in r.items():
            if j >= i and not is_zero(x):
                tri[i][j] = [x]
    lower: list[dict] = [{} for _ in range(n)]
    upper: list[dict] = [{} for _ in range(n)]
    inv_diag: list = [None] * n
    for k in range(n):
        inv_p, u_k = _pivot_row(tri[k], k, "symmetric_factorize")
        inv_diag[k] = inv_p
        upper[k] = u_k
        tri[k] = {}
        later = sorted(u_k)
        for a, i in enumerate(later):
            l_ik = _product(u_k[i], inv_p)
            lower[i][k] = l_ik
            row_i = tri[i]
            for j in later[a:]:
                t = -_product(l_ik, u_k[j])
                if j in row_i:
                    row_i[j].append(t)
                else:
                    row_i[j] = [t]
    return LUFactorization(n, tuple(lower), tuple(upper), tuple(inv_diag), symmetric=True)


def gaussian_solve_factored(factorization: LUFactorization, b: Any) -> np.ndarray:
    r"""Solve :math:`L U x = b` with a factorization from :func:`gaussian_factorize`.

    Forward substitution :math:`y_i = b_i - \sum_{k<i} L_{ik} y_k`, then back substitution
    :math:`x_i = (y_i - \sum_{j>i} U_{ij} x_j) / U_{ii}`, skipping structural zeros.

    Parameters
    ----------
    factorization : LUFactorization
        Result of :func:`gaussian_factorize`; it is not refactorized.
    b : numpy.ndarray or sequence
        Right-hand side with exactly ``n`` entries (1-D, or an ``(n, 1)`` column).

    Returns
    -------
    numpy.ndarray
        Object array of shape ``(n, 1)`` whose entries are heyoka expressions.

    Raises
    ------
    TypeError
        If ``factorization`` is not an :class:`LUFactorization`, ``b`` is not a sequence
        (e.g. a single number), or an entry of ``b`` is neither a real number nor a heyoka
        expression.
    ValueError
        If ``b`` is not one-dimensional or does not have ``n`` entries.
    """
    if not isinstance(factorization, LUFactorization):
        raise TypeError(
            "factorization: expected the result of gaussian_factorize, got "
            f"{type(factorization).__name__}"
        )
    n = factorization.n
    rhs = as_vector(b, "b")
    if rhs.shape[0] != n:
        raise ValueError(f"b: expected {n} entries to match the {n}x{n} matrix, got {rhs.shape[0]}")
    x = _solve_vector(factorization, list(rhs))
    out = np.empty((n, 1), dtype=object)
    for i, v in enumerate(x):
        out[i, 0] = as_expression(v)
    return out


def _solve_vector(f: LUFactorization, b: list) -> list:
    r"""Forward/back substitution on a list of entries (numbers or expressions).

    Forward :math:`y_i = b_i - \sum_{k<i} L_{ik} y_k`; back
    :math:`x_i = (y_i - \sum_{j>i} U_{ij} x_j) / U_{ii}`, or for :math:`U = D L^T`
    (``f.symmetric``) :math:`x_i = y_i/d_i - \sum_{j>i} L_{ji} x_j`, where :math:`y_i/d_i` is
    ready before the sum: one operation less per level of the elimination tree on the longest
    chain of dependent operations, along which heyoka's compact mode builds its code.
    """
    n = f.n
    y: list = [0.0] * n
    for i in range(n):
        terms = [b[i]]
        for k, l_ik in f.lower[i].items():
            if not is_zero(y[k]):
                terms.append(-_product(l_ik, y[k]))
        y[i] = flat_sum(terms)
    x: list = [0.0] * n
    if f.symmetric:
        for i in range(n - 1, -1, -1):
            terms = [] if is_zero(y[i]) else [_product(y[i], f.inv_diag[i])]
            terms += [-_product(f.lower[j][i], x[j]) for j in f.upper[i] if not is_zero(x[j])]
            x[i] = flat_sum(terms)
        return x
    for i in range(n - 1, -1, -1):
        terms = [y[i]]
        for j, u_ij in f.upper[i].items():
            if not is_zero(x[j]):
                terms.append(-_product(u_ij, x[j]))
        s = flat_sum(terms)
        x[i] = 0.0 if is_zero(s) else _product(s, f.inv_diag[i])
    return x


def gaussian_elimination(S: Any, b: Any) -> np.ndarray:
    """Solve :math:`S x = b` by sparse LU factorization and substitution.

    The factorization is computed for this call; to solve several systems with the same
    ``S`` use :func:`gaussian_factorize` once and :func:`gaussian_solve_factored`.

    Parameters
    ----------
    S : numpy.ndarray or sequence
        Square ``(n, n)`` coefficient matrix (numbers and/or heyoka expressions).
    b : numpy.ndarray or sequence
        Right-hand side with exactly ``n`` entries.

    Returns
    -------
    numpy.ndarray
        Solution of shape ``(n, 1)`` (heyoka expressions).

    Raises
    ------
    TypeError
        If ``S`` or ``b`` is not an array or sequence, or an entry is neither a real number
        nor a heyoka expression.
    ValueError
        If ``S`` is not square or ``b`` has an incompatible size.
    ZeroDivisionError
        If a structurally zero pivot is encountered (no row pivoting is done).

    Notes
    -----
    Neither ``S`` nor ``b`` is modified.
    """
    A = as_matrix(S, "S", square=True)
    rhs = as_vector(b, "b")
    if rhs.shape[0] != A.shape[0]:
        raise ValueError(
            f"b: expected {A.shape[0]} entries to match S of shape {A.shape}, got {rhs.shape[0]}"
        )
    return gaussian_solve_factored(gaussian_factorize(A), rhs)


def invert_matrix(matrix: Any) -> np.ndarray:
    """Return :math:`A^{-1}` by solving :math:`A x_j = e_j` for every basis vector.

    ``A`` is factorized once; each column of the inverse is one forward/back substitution.

    Parameters
    ----------
    matrix : numpy.ndarray or sequence
        Square matrix of numbers and/or heyoka expressions.

    Returns
    -------
    numpy.ndarray
        The inverse, an ``(n, n)`` object array of heyoka expressions.

    Raises
    ------
    TypeError
        If ``matrix`` is not an array or nested sequence, or an entry is neither a real
        number nor a heyoka expression.
    ValueError
        If ``matrix`` is not a square two-dimensional array.
    ZeroDivisionError
        If a structurally zero pivot is met (no row pivoting is done).
    """
    A = as_matrix(matrix, "matrix", square=True)
    n = A.shape[0]
    f = gaussian_factorize(A)
    inv = np.empty((n, n), dtype=object)
    for j in range(n):
        e = [0.0] * n
        e[j] = 1.0
        col = _solve_vector(f, e)
        for i in range(n):
            inv[i, j] = as_expression(col[i])
    return inv


def solve_sparse(f: LUFactorization, b: list) -> list:
    """Solve :math:`L U x = b` with a factorization.

    Return a plain list (numbers or expressions); ``b`` is not validated.

    Internal helper for the Lagrangian routines, which keep numbers numeric.
    """
    return _solve_vector(f, b)

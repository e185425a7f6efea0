"""Property tests of the sparse symbolic elimination routines in :mod:`quivira.linalg`.

Every symbolic result is evaluated with :func:`heyoka.cfunc` and compared with NumPy's dense
LAPACK routines on the numerically evaluated input, which is built here independently of
heyoka (the same coefficients are combined with NumPy). Matrices are strictly diagonally
dominant or symmetric positive definite with a bounded condition number, so the routines
(which do not pivot) must succeed and agree to a relative 1e-9.
"""

from __future__ import annotations

import copy

import heyoka as hy
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from quivira import (
    LUFactorization,
    create_block_diagonal,
    gaussian_elimination,
    gaussian_factorize,
    gaussian_solve_factored,
    invert_matrix,
)
from quivira.linalg import solve_sparse, symmetric_factorize

RTOL = 1e-9
SETTINGS = settings(max_examples=25, deadline=None)

X, Y, Z = hy.make_vars("x", "y", "z")
VARS = [X, Y, Z]

# Coefficients in [-1, 1]; values so tiny that products would become subnormal are flushed
# to 0 so that relative comparisons stay meaningful.
COEF = st.floats(-1.0, 1.0, allow_nan=False, allow_infinity=False).map(
    lambda v: v if abs(v) > 1e-100 else 0.0
)
RHS_COEF = st.floats(-10.0, 10.0, allow_nan=False, allow_infinity=False).map(
    lambda v: v if abs(v) > 1e-100 else 0.0
)
SIZES = st.integers(1, 7)
# The different spellings of a structural zero the routines must recognize.
ZEROS = st.sampled_from([0, 0.0, np.float64(0.0), hy.expression(0.0)])


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------


def as_expr(v):
    return v if isinstance(v, hy.expression) else hy.expression(float(v))


def evaluate(exprs, point=(0.0, 0.0, 0.0)):
    """Evaluate a flat sequence of expressions/numbers at (x, y, z) = point."""
    exprs = [as_expr(e) for e in exprs]
    cf = hy.cfunc(exprs, vars=VARS, opt_level=0)  # opt_level 0: compiles several times faster
    return np.asarray(cf(np.asarray(point, dtype=float)))


def assert_rel_close(got, ref, rtol=RTOL):
    got = np.asarray(got, dtype=float)
    ref = np.asarray(ref, dtype=float)
    assert got.shape == ref.shape
    assert np.all(np.isfinite(got))
    err = np.linalg.norm(got - ref)
    assert err <= rtol * np.linalg.norm(ref), (err, np.linalg.norm(ref), got, ref)


def same_entry(a, b) -> bool:
    """Entry equality that treats a number and the constant expression of it as equal."""
    return as_expr(a) == as_expr(b)


def wrap_number(v: float, kind: int):
    """Spell the number ``v`` as a Python float, a NumPy float or a constant expression."""
    if kind == 0:
        return float(v)
    if kind == 1:
        return np.float64(v)
    return hy.expression(float(v))


# ------------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------------


@st.composite
def numeric_matrices(draw, n=None):
    """``(S, S_num)``: a well-conditioned numeric matrix with mixed entry types."""
    if n is None:
        n = draw(SIZES)
    if draw(st.booleans()):
        # Strictly diagonally dominant with a drawn sparsity pattern: |off-diagonal row
        # sum| <= n - 1 < n + 1 <= |diagonal|.
        A = draw(hnp.arrays(np.float64, (n, n), elements=COEF))
        mask = draw(hnp.arrays(np.bool_, (n, n)))
        A = np.where(mask, A, 0.0)
        signs = np.where(draw(hnp.arrays(np.bool_, n)), 1.0, -1.0)
        np.fill_diagonal(A, signs * (n + 1.0 + np.abs(np.diag(A))))
    else:
        # Symmetric positive definite Q diag(d) Q^T with condition number <= 100.
        R = draw(hnp.arrays(np.float64, (n, n), elements=COEF))
        Q, _ = np.linalg.qr(R)
        d = draw(hnp.arrays(np.float64, n, elements=st.floats(1.0, 100.0)))
        A = (Q * d) @ Q.T
        A = 0.5 * (A + A.T)
    kinds = draw(hnp.arrays(np.int8, (n, n), elements=st.integers(0, 2)))
    S = np.empty((n, n), dtype=object)
    for (i, j), v in np.ndenumerate(A):
        S[i, j] = draw(ZEROS) if v == 0.0 else wrap_number(v, int(kinds[i, j]))
    return S, A


@st.composite
def numeric_vectors(draw, n):
    b = draw(hnp.arrays(np.float64, n, elements=RHS_COEF))
    kinds = draw(hnp.arrays(np.int8, n, elements=st.integers(0, 2)))
    out = [draw(ZEROS) if v == 0.0 else wrap_number(v, int(k)) for v, k in zip(b, kinds)]
    return out, b


POINTS = st.tuples(
    st.floats(-1.0, 1.0), st.floats(-3.0, 3.0), st.floats(-2.0, 2.0)
).map(lambda p: tuple(v if abs(v) > 1e-100 else 0.0 for v in p))


@st.composite
def symbolic_matrices(draw, n=None, pattern=None):
    """``(S, S_num, point)``: symbolic S(x, y), its value at ``point`` computed by NumPy.

    Off-diagonal entries have modulus <= 3 for |x| <= 1; the diagonal carries an extra
    +-(3n + 1), so S(point) is strictly diagonally dominant. ``pattern`` (bool array) fixes
    the structurally non-zero positions, all of them then depending on x; otherwise the
    pattern is drawn.
    """
    if n is None:
        n = draw(SIZES)
    x0, y0, _ = point = draw(POINTS)
    kinds = draw(hnp.arrays(np.int8, (n, n), elements=st.integers(0, 4)))
    if pattern is not None:
        kinds = np.where(pattern, np.maximum(kinds, 2), 0)
    a, b, c = (draw(hnp.arrays(np.float64, (n, n), elements=COEF)) for _ in range(3))
    if pattern is not None:
        # keep |a| >= 0.5: 0 * x would fold to a number, and numbers may cancel to 0
        a = np.where(a >= 0.0, 1.0, -1.0) * (0.5 + 0.5 * np.abs(a))
    signs = np.where(draw(hnp.arrays(np.bool_, n)), 1.0, -1.0)
    S = np.empty((n, n), dtype=object)
    S_num = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            k = int(kinds[i, j])
            aij, bij, cij = float(a[i, j]), float(b[i, j]), float(c[i, j])
            if i == j:
                k = max(k, 1)
                cij += signs[i] * (3 * n + 1)
            if k == 0:
                S[i, j] = draw(ZEROS)
                continue
            if k == 1:
                S[i, j], S_num[i, j] = cij, cij
            elif k == 2:
                S[i, j] = aij * X + cij
                S_num[i, j] = aij * x0 + cij
            elif k == 3:
                S[i, j] = aij * X + bij * hy.cos(Y) + cij
                S_num[i, j] = aij * x0 + bij * np.cos(y0) + cij
            else:
                S[i, j] = aij * hy.sin(X * Y) + bij * X + cij
                S_num[i, j] = aij * np.sin(x0 * y0) + bij * x0 + cij
    return S, S_num, point


@st.composite
def symbolic_vectors(draw, n, point):
    x0, _, z0 = point
    kinds = draw(hnp.arrays(np.int8, n, elements=st.integers(0, 3)))
    d, e = (draw(hnp.arrays(np.float64, n, elements=RHS_COEF)) for _ in range(2))
    out, num = [], np.zeros(n)
    for i in range(n):
        k, di, ei = int(kinds[i]), float(d[i]), float(e[i])
        if k == 0:
            out.append(draw(ZEROS))
        elif k == 1:
            out.append(di)
            num[i] = di
        elif k == 2:
            out.append(di * hy.sin(X) + ei)
            num[i] = di * np.sin(x0) + ei
        else:  # a variable that appears only in the right-hand side
            out.append(di * Z + ei * hy.cos(X))
            num[i] = di * z0 + ei * np.cos(x0)
    return out, num


def spell_vector(v, style: int):
    """Pass a right-hand side as a list, a 1-D object array or an (n, 1) column."""
    if style == 0:
        return list(v)
    arr = np.empty(len(v), dtype=object)
    arr[:] = list(v)
    return arr if style == 1 else arr.reshape(-1, 1)


def check_solution_array(sol, n):
    assert isinstance(sol, np.ndarray)
    assert sol.shape == (n, 1)
    assert all(isinstance(e, hy.expression) for e in sol.ravel())


# ------------------------------------------------------------------------------------------
# (a) numeric entries
# ------------------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_numeric_solve_matches_numpy(data):
    S, A = data.draw(numeric_matrices())
    n = A.shape[0]
    b, b_num = data.draw(numeric_vectors(n))
    style = data.draw(st.integers(0, 2))
    sol = gaussian_elimination(S, spell_vector(b, style))
    check_solution_array(sol, n)
    assert_rel_close(evaluate(sol.ravel()), np.linalg.solve(A, b_num))


@SETTINGS
@given(data=st.data())
def test_numeric_solve_accepts_nested_lists(data):
    S, A = data.draw(numeric_matrices())
    n = A.shape[0]
    b_num = data.draw(hnp.arrays(np.float64, n, elements=RHS_COEF))
    S_list = [[float(v) for v in row] for row in A]
    sol = gaussian_elimination(S_list, [float(v) for v in b_num])
    check_solution_array(sol, n)
    assert_rel_close(evaluate(sol.ravel()), np.linalg.solve(A, b_num))


# ------------------------------------------------------------------------------------------
# (b) symbolic entries with structural zeros
# ------------------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_symbolic_solve_matches_numpy(data):
    S, S_num, point = data.draw(symbolic_matrices())
    n = S.shape[0]
    b, b_num = data.draw(symbolic_vectors(n, point))
    sol = gaussian_elimination(S, spell_vector(b, data.draw(st.integers(0, 2))))
    check_solution_array(sol, n)
    assert_rel_close(evaluate(sol.ravel(), point), np.linalg.solve(S_num, b_num))


# ------------------------------------------------------------------------------------------
# (c) one factorization, many right-hand sides
# ------------------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_factorization_reused_for_many_rhs(data):
    S, S_num, point = data.draw(symbolic_matrices())
    n = S.shape[0]
    fac = gaussian_factorize(S)
    assert isinstance(fac, LUFactorization)
    assert fac.n == n
    k = data.draw(st.integers(1, 5))
    sols, refs = [], []
    for _ in range(k):
        if data.draw(st.booleans()):
            b, b_num = data.draw(symbolic_vectors(n, point))
        else:
            b, b_num = data.draw(numeric_vectors(n))
        sol = gaussian_solve_factored(fac, spell_vector(b, data.draw(st.integers(0, 2))))
        check_solution_array(sol, n)
        sols.extend(sol.ravel())
        refs.append(np.linalg.solve(S_num, b_num))
    got = evaluate(sols, point).reshape(k, n)
    for g, r in zip(got, refs):
        assert_rel_close(g, r)


# ------------------------------------------------------------------------------------------
# (d) inverse
# ------------------------------------------------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_invert_matrix_numeric(data):
    S, A = data.draw(numeric_matrices())
    n = A.shape[0]
    inv = invert_matrix(S)
    assert isinstance(inv, np.ndarray) and inv.shape == (n, n) and inv.dtype == object
    assert_rel_close(evaluate(inv.ravel()).reshape(n, n), np.linalg.inv(A))


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_invert_matrix_symbolic(data):
    S, S_num, point = data.draw(symbolic_matrices())
    n = S.shape[0]
    inv = invert_matrix(S)
    assert isinstance(inv, np.ndarray) and inv.shape == (n, n) and inv.dtype == object
    got = evaluate(inv.ravel(), point).reshape(n, n)
    assert_rel_close(got, np.linalg.inv(S_num))
    assert_rel_close(got @ S_num, np.eye(n))


# ------------------------------------------------------------------------------------------
# (e) inputs are not modified
# ------------------------------------------------------------------------------------------


def assert_same_entries(a, b):
    a = np.asarray(a, dtype=object)
    b = np.asarray(b, dtype=object)
    assert a.shape == b.shape
    for x, y in zip(a.ravel(), b.ravel()):
        assert type(x) is type(y)
        assert x == y


@SETTINGS
@given(data=st.data())
def test_inputs_not_modified(data):
    S, _, point = data.draw(symbolic_matrices())
    n = S.shape[0]
    b, _ = data.draw(symbolic_vectors(n, point))
    b_arr = spell_vector(b, data.draw(st.integers(0, 2)))
    S_copy, b_copy = copy.deepcopy(S), copy.deepcopy(b_arr)
    S_list = [list(row) for row in S]
    S_list_copy = copy.deepcopy(S_list)

    gaussian_elimination(S, b_arr)
    fac = gaussian_factorize(S)
    gaussian_solve_factored(fac, b_arr)
    gaussian_solve_factored(fac, b_arr)
    invert_matrix(S)
    gaussian_elimination(S_list, b_arr)
    create_block_diagonal([S, S_list])

    assert_same_entries(S, S_copy)
    assert_same_entries(b_arr, b_copy)
    assert_same_entries(S_list, S_list_copy)
    assert isinstance(b_arr, type(b_copy))
    if isinstance(b_arr, np.ndarray):
        assert b_arr.shape == b_copy.shape and b_arr.dtype == object


# ------------------------------------------------------------------------------------------
# (f) block-diagonal assembly
# ------------------------------------------------------------------------------------------


@st.composite
def blocks(draw):
    out = []
    for _ in range(draw(st.integers(1, 4))):
        s = draw(st.integers(1, 3))
        blk = np.empty((s, s), dtype=object)
        vals = draw(hnp.arrays(np.float64, (s, s), elements=COEF))
        kinds = draw(hnp.arrays(np.int8, (s, s), elements=st.integers(0, 4)))
        for (i, j), v in np.ndenumerate(vals):
            k = int(kinds[i, j])
            if k <= 2:
                blk[i, j] = wrap_number(v, k)
            elif k == 3:
                blk[i, j] = float(v) * X + hy.cos(Y)
            else:
                blk[i, j] = draw(ZEROS)
        out.append(blk if draw(st.booleans()) else [list(r) for r in blk])
    return out


@SETTINGS
@given(bl=blocks())
def test_block_diagonal_placement(bl):
    B = create_block_diagonal(bl)
    sizes = [len(b) for b in bl]
    N = sum(sizes)
    assert isinstance(B, np.ndarray) and B.shape == (N, N) and B.dtype == object
    owner = np.full(N, -1)
    start = 0
    for k, s in enumerate(sizes):
        owner[start:start + s] = k
        blk = np.asarray(bl[k], dtype=object)
        for i in range(s):
            for j in range(s):
                assert same_entry(B[start + i, start + j], blk[i, j])
        start += s
    for i in range(N):
        for j in range(N):
            if owner[i] != owner[j]:
                assert isinstance(B[i, j], hy.expression)
                assert B[i, j] == hy.expression(0.0)


def test_block_diagonal_empty():
    B = create_block_diagonal([])
    assert isinstance(B, np.ndarray)
    assert B.shape == (0, 0)
    assert B.dtype == object


@pytest.mark.parametrize(
    "bad",
    [
        [np.zeros((2, 3), dtype=object)],
        [np.eye(2), np.zeros(3)],
        [[[1.0, 2.0]]],
        [np.zeros((1, 1, 1))],
    ],
)
def test_block_diagonal_rejects_non_square(bad):
    with pytest.raises(ValueError):
        create_block_diagonal(bad)


# ------------------------------------------------------------------------------------------
# sparsity: no fill where elimination does not create any
# ------------------------------------------------------------------------------------------


def symbolic_fill_count(pattern: np.ndarray) -> int:
    """Structural non-zeros of L + U (diagonal once) from boolean Gaussian elimination."""
    P = np.array(pattern, dtype=bool)
    n = P.shape[0]
    np.fill_diagonal(P, True)
    for k in range(n):
        rows = [i for i in range(k + 1, n) if P[i, k]]
        cols = [j for j in range(k + 1, n) if P[k, j]]
        for i in rows:
            P[i, cols] = True
    return int(P.sum())


def nonzero_pattern(n, offsets):
    P = np.zeros((n, n), dtype=bool)
    for d in offsets:
        idx = np.arange(max(0, -d), min(n, n - d))
        P[idx, idx + d] = True
    return P


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_tridiagonal_factorization_has_no_fill(data):
    n = data.draw(SIZES)
    pattern = nonzero_pattern(n, (-1, 0, 1))
    S, S_num, point = data.draw(symbolic_matrices(n=n, pattern=pattern))
    fac = gaussian_factorize(S)
    assert fac.n_nonzero == int(pattern.sum()) == max(3 * n - 2, 1)
    b, b_num = data.draw(symbolic_vectors(n, point))
    sol = gaussian_solve_factored(fac, b)
    assert_rel_close(evaluate(sol.ravel(), point), np.linalg.solve(S_num, b_num))


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_fill_matches_structural_elimination(data):
    n = data.draw(SIZES)
    pattern = data.draw(hnp.arrays(np.bool_, (n, n)))
    np.fill_diagonal(pattern, True)
    # kinds >= 2 on the pattern: every stored entry depends on x, so no numeric cancellation
    S, S_num, point = data.draw(symbolic_matrices(n=n, pattern=pattern))
    fac = gaussian_factorize(S)
    assert fac.n_nonzero == symbolic_fill_count(pattern)
    b, b_num = data.draw(symbolic_vectors(n, point))
    sol = gaussian_solve_factored(fac, b)
    assert_rel_close(evaluate(sol.ravel(), point), np.linalg.solve(S_num, b_num))


@SETTINGS
@given(data=st.data())
@pytest.mark.slow
def test_symmetric_factorization_matches_numpy(data):
    """L D L^T of a symmetric S (upper triangle mirrored) solves like NumPy, with the same
    fill as the unsymmetric LU and the multipliers L_ik = U_ki / d_k."""
    n = data.draw(SIZES)
    pattern = data.draw(hnp.arrays(np.bool_, (n, n)))
    pattern = pattern | pattern.T
    np.fill_diagonal(pattern, True)
    S, S_num, point = data.draw(symbolic_matrices(n=n, pattern=pattern))
    iu = np.triu_indices(n, 1)
    S.T[iu] = S[iu]  # mirror the upper triangle: entries (j, i) = (i, j)
    S_num.T[iu] = S_num[iu]
    rows = [{j: S[i, j] for j in range(n) if pattern[i, j]} for i in range(n)]
    fac = symmetric_factorize(rows)
    assert fac.n_nonzero == symbolic_fill_count(pattern)
    assert all(set(fac.lower[i]) == {k for k in range(i) if i in fac.upper[k]}
               for i in range(n))
    b, b_num = data.draw(symbolic_vectors(n, point))
    sol = solve_sparse(fac, b)
    assert_rel_close(evaluate(sol, point), np.linalg.solve(S_num, b_num))


@pytest.mark.parametrize("n", [2, 5, 7])
def test_arrowhead_fill(n):
    """Arrow pointing down-right: no fill; pointing up-left: the factors become dense."""
    down = nonzero_pattern(n, (0,))
    down[-1, :] = down[:, -1] = True
    up = nonzero_pattern(n, (0,))
    up[0, :] = up[:, 0] = True
    for pattern, expected in ((down, 3 * n - 2), (up, n * n)):
        S = np.empty((n, n), dtype=object)
        S_num = np.zeros((n, n))
        for i, j in zip(*np.nonzero(pattern)):
            c = 0.5 + 0.1 * i - 0.05 * j + (2.0 * n if i == j else 0.0)
            S[i, j] = c + 0.25 * X
            S_num[i, j] = c + 0.25 * 0.3
        S[~pattern] = hy.expression(0.0)
        fac = gaussian_factorize(S)
        assert fac.n_nonzero == expected == symbolic_fill_count(pattern)
        b = np.arange(1.0, n + 1.0)
        sol = gaussian_solve_factored(fac, b)
        assert_rel_close(evaluate(sol.ravel(), (0.3, 0.0, 0.0)), np.linalg.solve(S_num, b))


# ------------------------------------------------------------------------------------------
# documented errors
# ------------------------------------------------------------------------------------------


def test_structurally_zero_pivot_raises():
    S = np.array([[0.0, 1.0], [1.0, 0.0]], dtype=object)
    with pytest.raises(ZeroDivisionError):
        gaussian_factorize(S)
    with pytest.raises(ZeroDivisionError):
        gaussian_elimination(S, [1.0, 2.0])
    S[0, 0] = hy.expression(0.0)
    with pytest.raises(ZeroDivisionError):
        invert_matrix(S)


def test_shape_errors():
    with pytest.raises(ValueError):
        gaussian_elimination(np.zeros((2, 3), dtype=object), [1.0, 2.0])
    with pytest.raises(ValueError):
        gaussian_elimination(np.eye(2), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError):
        gaussian_solve_factored(gaussian_factorize(np.eye(3)), [1.0, 2.0])
    with pytest.raises(ValueError):
        invert_matrix(np.zeros((2, 3)))

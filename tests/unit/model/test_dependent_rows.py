"""``geometry.dependent_rows`` against numpy's SVD rank of the same scaled matrix.

The full-rank shortcut through the eigenvalues of the Gram matrix must give the verdict the
singular values give: matrices with a prescribed smallest singular value, from well
conditioned to exactly rank deficient, with rows and columns of very different scales.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quivira.model.geometry import dependent_rows


def svd_rank(J: np.ndarray, weights: np.ndarray, rel_tol: float = 1e-9) -> int:
    """The oracle: rank of J with columns divided by ``weights``, rows normalised."""
    A = J / weights[None, :]
    A = A / np.linalg.norm(A, axis=1)[:, None]
    S = np.linalg.svd(A, compute_uv=False)
    return int(np.sum(S > rel_tol * S[0]))


def with_smallest_singular_value(rng, m: int, n: int, smin: float) -> np.ndarray:
    """An m×n matrix (m ≤ n) with singular values spread over [smin, 1]."""
    U, _ = np.linalg.qr(rng.standard_normal((m, m)))
    V, _ = np.linalg.qr(rng.standard_normal((n, m)))
    s = np.geomspace(1.0, smin, m) if smin > 0 else np.r_[np.geomspace(1.0, 1e-3, m - 1), 0.0]
    return (U * s) @ V.T


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 40), st.integers(0, 6), st.sampled_from([1e-2, 1e-5, 1e-7, 1e-8, 1e-10,
                                                              1e-12, 0.0]),
       st.integers(0, 2**31 - 1))
def test_the_verdict_is_the_svd_rank(m, extra_cols, smin, seed):
    rng = np.random.default_rng(seed)
    n = m + extra_cols
    J = with_smallest_singular_value(rng, m, n, smin)
    weights = np.exp(rng.uniform(-2.0, 2.0, n))  # columns of very different scales
    J = J * weights[None, :]
    rank, rows = dependent_rows(J, weights)
    assert rank == svd_rank(J, weights)
    assert (rows == []) == (rank == m)


@pytest.mark.slow
def test_a_repeated_row_is_found_in_a_large_matrix():
    rng = np.random.default_rng(7)
    J = rng.standard_normal((300, 310))
    J[123] = 2.5 * J[45]
    rank, rows = dependent_rows(J)
    assert rank == 299 == np.linalg.matrix_rank(J)
    assert set(rows) == {45, 123}


@pytest.mark.parametrize("smin", [1e-3, 1e-6])
@pytest.mark.slow
def test_full_rank_large_matrix(smin):
    rng = np.random.default_rng(3)
    J = with_smallest_singular_value(rng, 400, 420, smin)
    assert dependent_rows(J, np.ones(420)) == (400, []) == (svd_rank(J, np.ones(420)), [])

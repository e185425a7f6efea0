"""Fill-reducing orderings (:mod:`quivira.ordering`) against a dense structural elimination.

The reference eliminates a boolean matrix with NumPy: the filled pattern of the factors, and
the elimination tree (parent of pivot k: the first later row with an entry in column k), whose
height is the longest chain of pivots waiting for each other.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from quivira.ordering import (
    elimination_height,
    fill_count,
    minimum_degree,
    nested_dissection,
    reverse_cuthill_mckee,
)


def dense_reference(pattern: list[set[int]], order: list[int]) -> tuple[int, int]:
    """(non-zeros of L + U with diagonal, elimination tree height) by dense elimination."""
    n = len(order)
    pos = {old: k for k, old in enumerate(order)}
    A = np.eye(n, dtype=bool)
    for i, row in enumerate(pattern):
        for j in row:
            A[pos[i], pos[j]] = A[pos[j], pos[i]] = True
    for k in range(n):
        below = np.nonzero(A[k + 1:, k])[0] + k + 1
        A[np.ix_(below, below)] = True
    height = np.ones(n, dtype=int)
    for k in range(n):
        later = np.nonzero(A[k + 1:, k])[0]
        if later.size:
            parent = k + 1 + later[0]
            height[parent] = max(height[parent], height[k] + 1)
    return int(A.sum()), int(height.max()) if n else 0


@st.composite
def patterns(draw):
    n = draw(st.integers(1, 12))
    mask = draw(hnp.arrays(np.bool_, (n, n)))
    mask = mask | mask.T
    return [set(map(int, np.nonzero(mask[i])[0])) | {i} for i in range(n)]


@settings(max_examples=60, deadline=None)
@given(pattern=patterns(), data=st.data())
def test_fill_and_height_match_dense_elimination(pattern, data):
    n = len(pattern)
    orders = [list(range(n)), minimum_degree(pattern), reverse_cuthill_mckee(pattern),
              nested_dissection(pattern), nested_dissection(pattern, leaf=2),
              data.draw(st.permutations(range(n)))]
    for order in orders:
        assert sorted(order) == list(range(n))
        fill, height = dense_reference(pattern, order)
        assert fill_count(pattern, order) == fill
        assert elimination_height(pattern, order) == height


def path(n: int) -> list[set[int]]:
    return [{i - 1, i, i + 1} & set(range(n)) for i in range(n)]


def test_minimum_degree_eliminates_a_chain_from_both_ends():
    for n in (2, 5, 16, 33):
        p = path(n)
        natural = list(range(n))
        md = minimum_degree(p)
        assert fill_count(p, md) == fill_count(p, natural) == 3 * n - 2  # no fill either way
        assert elimination_height(p, natural) == n
        assert elimination_height(p, md) == n // 2 + 1
        assert {md[0], md[1]} == {0, n - 1}


def test_nested_dissection_of_a_chain_is_logarithmically_deep():
    """A path of n nodes split at its middle, recursively (parts of <= 8 nodes by minimum
    degree): the elimination tree is about log2(n / 8) + 4 deep instead of n / 2 + 1, and
    each separator node adds fill along the part beside it, so L + U holds at most
    n (log2 n + 1) non-zeros (3 n - 2 without fill)."""
    import math

    for n in (9, 33, 100, 255, 1000):
        p = path(n)
        nd = nested_dissection(p)
        assert sorted(nd) == list(range(n))
        assert elimination_height(p, nd) <= math.log2(n / 8) + 5
        assert elimination_height(p, minimum_degree(p)) == n // 2 + 1
        assert 3 * n - 2 <= fill_count(p, nd) <= n * (math.log2(n) + 1)

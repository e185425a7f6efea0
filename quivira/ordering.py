r"""Fill-reducing symmetric orderings of a sparsity pattern (pure Python, no SciPy).

For the Delassus matrix :math:`W = J M^{-1} J^T`, symmetric positive definite when the
constraints are independent, any symmetric permutation :math:`P W P^T` keeps every pivot of
the LU factorization non-zero, so the order can be chosen to reduce fill (and with it the
size of the symbolic expressions):

* :func:`reverse_cuthill_mckee` — breadth-first numbering from a peripheral node, reversed;
  narrows the band.
* :func:`minimum_degree` — eliminate the node of least current degree first (greedy),
  tracking the fill it creates; ties go to the node whose elimination can start earliest
  (lowest :func:`elimination_height` so far), then by index. On a chain this eliminates
  from both ends towards the middle ("twisted" factorization): the same fill as from one end,
  half the length of the longest chain of dependent pivots.
* :func:`nested_dissection` — split the graph by a separator, order the parts the same way
  and the separator last: a tree about :math:`\log_2` of a long lattice's length deep, for
  more fill (used for large systems, see :func:`quivira.lagrangian.fill_reducing_order`).

The length of that chain matters beyond the operation count: heyoka's compact mode
evaluates a decomposition in *segments* of mutually independent operations, and both its
compile time and its per-step overhead grow with their number (see
``benchmarks/solver_choice.py``). :func:`elimination_height` measures it.
"""

from __future__ import annotations

import heapq
from collections import deque


def _graph(pattern: list[set[int]]) -> list[set[int]]:
    n = len(pattern)
    adj = [set() for _ in range(n)]
    for i, row in enumerate(pattern):
        for j in row:
            if j != i:
                adj[i].add(j)
                adj[j].add(i)
    return adj


def reverse_cuthill_mckee(pattern: list[set[int]]) -> list[int]:
    """Reverse Cuthill–McKee order of the graph whose node ``i`` neighbours ``pattern[i]``.

    Parameters
    ----------
    pattern : list of set of int
        ``pattern[i]`` the column indices of the structural non-zeros of row ``i`` (read as
        a symmetric pattern; the diagonal is ignored).

    Returns
    -------
    list of int
        A permutation ``perm``: new position ``k`` holds old index ``perm[k]``.
    """
    adj = _graph(pattern)
    n = len(adj)
    seen = [False] * n
    order: list[int] = []
    for start in sorted(range(n), key=lambda i: (len(adj[i]), i)):
        if seen[start]:
            continue
        # a pseudo-peripheral start: the last node of a BFS from the lowest-degree node
        far = start
        for _ in range(2):
            level = {far: 0}
            dq = deque([far])
            while dq:
                u = dq.popleft()
                for v in adj[u]:
                    if v not in level:
                        level[v] = level[u] + 1
                        dq.append(v)
            far = max(level, key=lambda v: (level[v], -len(adj[v]), -v))
        seen[far] = True
        dq = deque([far])
        while dq:
            u = dq.popleft()
            order.append(u)
            for v in sorted(adj[u], key=lambda v: (len(adj[v]), v)):
                if not seen[v]:
                    seen[v] = True
                    dq.append(v)
    return order[::-1]


def minimum_degree(pattern: list[set[int]]) -> list[int]:
    """Return a greedy minimum-degree elimination order of a symmetric pattern.

    With fill tracking; ties by the elimination height reached so far (see the module
    docstring), then index.

    Parameters
    ----------
    pattern : list of set of int
        As for :func:`reverse_cuthill_mckee`.

    Returns
    -------
    list of int
        The permutation ``perm`` (new position ``k`` holds old index ``perm[k]``).
    """
    adj = _graph(pattern)
    alive = [True] * len(adj)
    height = [0] * len(adj)  # longest chain of eliminations a node's pivot waits for
    # a heap of (degree, height, index) with stale entries skipped when popped: the same
    # order as a min over the live nodes at every step, in O(fill log n) instead of O(n^2)
    heap = [(len(a), 0, i) for i, a in enumerate(adj)]
    heapq.heapify(heap)
    order: list[int] = []
    while heap:
        key = heapq.heappop(heap)
        u = key[2]
        if not alive[u] or key != (len(adj[u]), height[u], u):
            continue
        nbrs = adj[u]
        for v in nbrs:
            adj[v].discard(u)
            adj[v] |= nbrs - {v}
            height[v] = max(height[v], height[u] + 1)
            heapq.heappush(heap, (len(adj[v]), height[v], v))
        alive[u] = False
        adj[u] = set()
        order.append(u)
    return order


def elimination_cost(pattern: list[set[int]], order: list[int]) -> tuple[int, int]:
    r"""Eliminate the symmetric pattern in ``order`` structurally.

    Parameters
    ----------
    pattern : list of set of int
        As for :func:`reverse_cuthill_mckee`.
    order : list of int
        Elimination order (new position ``k`` holds old index ``order[k]``).

    Returns
    -------
    tuple of int
        ``(nnz, height)``: the number of non-zeros of the LU factors (diagonal once,
        :math:`n + 2\,|\text{strict upper triangle of } U|`) and the height of the
        elimination tree (see :func:`elimination_height`).
    """
    pos = {old: k for k, old in enumerate(order)}
    adj = [set() for _ in order]
    for i, row in enumerate(pattern):
        for j in row:
            if j != i:
                adj[pos[i]].add(pos[j])
                adj[pos[j]].add(pos[i])
    total = len(order)
    height = [1] * len(order)
    for k in range(len(order)):
        later = {v for v in adj[k] if v > k}
        total += 2 * len(later)
        for v in later:
            adj[v] |= later - {v}
            height[v] = max(height[v], height[k] + 1)
    return total, max(height, default=0)


def elimination_height(pattern: list[set[int]], order: list[int]) -> int:
    """Return the height of the elimination tree of the symmetric pattern in ``order``.

    The length of the longest chain of pivots each depending on the previous one.

    Parameters
    ----------
    pattern : list of set of int
        As for :func:`reverse_cuthill_mckee`.
    order : list of int
        Elimination order.

    Returns
    -------
    int
        The height (``0`` for an empty pattern).
    """
    return elimination_cost(pattern, order)[1]


def fill_count(pattern: list[set[int]], order: list[int]) -> int:
    """Count the non-zeros of the LU factors of the symmetric pattern eliminated in ``order``.

    Parameters
    ----------
    pattern : list of set of int
        As for :func:`reverse_cuthill_mckee`.
    order : list of int
        Elimination order.

    Returns
    -------
    int
        Non-zeros of :math:`L + U`, the diagonal counted once.
    """
    return elimination_cost(pattern, order)[0]


def nested_dissection(pattern: list[set[int]], leaf: int = 8) -> list[int]:
    """Return a nested-dissection elimination order of a symmetric pattern.

    The graph is split by a level of a breadth-first search from a peripheral node (a
    separator: the smallest level of the middle third, the middle one on ties), its parts
    are ordered the same way, recursively, and each separator is eliminated after both its
    parts; parts of at most ``leaf`` nodes (and parts of fewer than three levels) are ordered
    by :func:`minimum_degree`. The pivots of the two parts do not depend on each other, so
    the elimination tree of a long lattice has a height growing with the logarithm of its
    length rather than with the length (a 64-cell scissor mast: 43 against 194 for
    :func:`minimum_degree`), at the price of some fill (8117 non-zeros against 4797).

    Parameters
    ----------
    pattern : list of set of int
        As for :func:`reverse_cuthill_mckee`.
    leaf : int
        Parts of at most this many nodes are not split further.

    Returns
    -------
    list of int
        The permutation ``perm`` (new position ``k`` holds old index ``perm[k]``).
    """
    adj = _graph(pattern)
    order: list[int] = []

    def levels_from(start: int, nodes: set[int]) -> list[list[int]]:
        levels, seen = [[start]], {start}
        while True:
            nxt = sorted({v for u in levels[-1] for v in adj[u] if v in nodes and v not in seen})
            if not nxt:
                return levels
            seen.update(nxt)
            levels.append(nxt)

    def by_minimum_degree(nodes: list[int]) -> list[int]:
        local = {v: k for k, v in enumerate(nodes)}
        sub = [{local[w] for w in adj[v] if w in local} for v in nodes]
        return [nodes[k] for k in minimum_degree(sub)]

    def dissect(nodes: set[int]) -> None:
        todo = set(nodes)
        while todo:  # one connected part at a time
            start = min(todo, key=lambda v: (len(adj[v] & nodes), v))
            levels = levels_from(start, nodes)
            far = min(levels[-1], key=lambda v: (len(adj[v] & nodes), v))
            levels = levels_from(far, nodes)  # from a peripheral node: the longest spread
            part = {v for lev in levels for v in lev}
            todo -= part
            if len(part) <= leaf or len(levels) < 3:
                order.extend(by_minimum_degree(sorted(part)))
                continue
            mid = len(levels) // 2
            middle = range(max(1, len(levels) // 3), max(mid + 1, 2 * len(levels) // 3))
            separator = levels[min(middle, key=lambda k: (len(levels[k]), abs(k - mid)))]
            dissect(part - set(separator))
            order.extend(by_minimum_degree(separator))

    dissect(set(range(len(adj))))
    return order

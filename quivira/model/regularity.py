r"""Structural regularity of the constraint Jacobian: full row rank at every pose.

The singularity monitor of ``simulate`` watches the pivots of the Delassus matrix
:math:`W = J M^{-1} J^T`, which lose rank only where the rows of :math:`J` become dependent.
For many mechanisms that never happens, whatever the pose: an open chain or a tree of bars
held by pins and rollers. There the monitor would cost compile time and event tests at every
step for nothing, so it is left out. This module proves regularity from the structure of
:math:`J` alone.

The proof is a triangular pivot sequence. Repeatedly take a column :math:`c` that is
structurally non-zero in exactly one remaining row :math:`r`, with :math:`J_{rc}` a constant
(independent of the pose and of every parameter), and remove row :math:`r`. If every row is
removed, the rows :math:`r_1, r_2, \dots` and columns :math:`c_1, c_2, \dots` so chosen give a
square submatrix of :math:`J` that is triangular (:math:`J_{r_i c_j} = 0` for :math:`i > j`)
with the constant, non-zero diagonal :math:`J_{r_i c_i}`; its determinant is their product, so
:math:`J` has full row rank at every pose and for every value of the parameters.

For a pin between a bar and its parent the rows :math:`p_b - p_a = 0` have the entries
:math:`\pm 1` at the child's :math:`(x_b, y_b)`, which no other row touches once the child's
own children are removed: a tree of pins and rollers peels from its leaves to the ground. A
closed loop (four-bar, scissor lattice) has no such sequence and keeps the monitor. The test
is sufficient, not necessary: a model it does not prove regular is simply monitored.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any


def _constant_nonzero(entry: Any) -> bool:
    """Return True when a Jacobian entry is a non-zero number (no variable, no parameter)."""
    try:
        value = float(str(entry))
    except ValueError:
        return False
    return value != 0.0


def structurally_regular(J_rows: list[dict[int, Any]]) -> bool:
    """Return True when :math:`J` has full row rank at every pose (see the module docstring).

    Parameters
    ----------
    J_rows : list of dict
        One dict per constraint row, column index to the (heyoka expression) entry; absent
        columns are structural zeros.

    Returns
    -------
    bool
        True when a triangular sequence of constant pivots removes every row.
    """
    column_rows: dict[int, set[int]] = defaultdict(set)
    for r, row in enumerate(J_rows):
        for c in row:
            column_rows[c].add(r)
    remaining = set(range(len(J_rows)))
    ready = [c for c, rows in column_rows.items() if len(rows) == 1]
    while ready:
        c = ready.pop()
        if len(column_rows[c]) != 1:
            continue
        (r,) = column_rows[c]
        if not _constant_nonzero(J_rows[r][c]):
            continue
        remaining.discard(r)
        for c2 in J_rows[r]:
            column_rows[c2].discard(r)
            if len(column_rows[c2]) == 1:
                ready.append(c2)
    return not remaining

r"""Centre pins: two bodies pinned at both their centres move their centres as one.

A centre pin (:attr:`~quivira.model.elements.pin_joint.PinJoint.centre_pin`, the pin at the
centre of a scissor's X) has the rows :math:`F_e = c\,(q_i - q_j) = 0` for the x and the y
coordinates :math:`q_i, q_j` of the two centres, with a constant Jacobian. With :math:`M`
diagonal, the equations of motion on these rows' manifold need neither the rows nor their
multipliers: taking the pair's common coordinate :math:`X = q_i = q_j`,

.. math:: (m_i + m_j)\,\ddot X = f_i + f_j + \sum_k (J_{ki} + J_{kj})\,\lambda_k - (m_i + m_j)\,g_y

over the other rows :math:`k` (:math:`g_y` is :math:`g` for y coordinates, 0 for x). So the
Delassus matrix is built and solved for the other rows only, with the columns of each pair
summed in :math:`J` and :math:`1/(m_i + m_j)` (a runtime parameter of the joint) as the
pair's inverse mass: :math:`W_r = J_r M_r^{-1} J_r^T` is the Delassus matrix of the same
motion in the coordinates :math:`(X, Y)` of each pair, so its factorization, solves and
pivot ratios have two rows fewer per centre pin (a third of the rows of a scissor lattice).
It has full rank exactly when the whole :math:`J` has (the pin rows are independent and
:math:`(X, Y)` spans their null space), so the singularity monitor watches the same poses.

Both coordinates of a pair keep their own state entries, and the merged one the acceleration
of its pair with the Baumgarte term of the pin's row :math:`F_e` (rate :math:`α`),

.. math:: \ddot q_j = \ddot X - 2α(\dot q_j - \dot q_i) - α^2 (q_j - q_i),

so that a drift of the pin (the rounding of an impulse or a projection) decays as
:math:`\ddot F_e + 2α\dot F_e + α^2 F_e = 0`, as that of every other row; on the pin's
manifold the term vanishes. The pin's own multiplier is read
from body :math:`i`'s equation :math:`m_i\ddot q_i = A_i + c\,\lambda_e` with
:math:`A = f + \sum_k J_k\lambda_k` (gravity cancels):

.. math:: c\,\lambda_e = \frac{m_i A_j - m_j A_i}{m_i + m_j}.

Each coordinate is merged at most once: a second pin at the same centre keeps its rows (with
the pair's columns summed).
"""

from __future__ import annotations

from dataclasses import dataclass

import heyoka as hy

from . import monomials as mo


@dataclass(frozen=True)
class Merge:
    r"""One eliminated row :math:`c\,(q_i - q_j) = 0`, merging column ``j`` into ``i``."""

    #: the row's index among the constraint rows
    row: int
    #: the kept column and the merged one
    i: int
    j: int
    #: the row's coefficient of :math:`q_i` (:math:`-c` is that of :math:`q_j`)
    c: float
    #: parameter index of :math:`1/(m_i + m_j)`
    inv_mass_sum: int


def _pin_columns(F: mo.Poly) -> tuple[int, int, float] | None:
    r"""Return ``(i, j, c)`` if ``F`` is :math:`c\,q_i - c\,q_j` (a constant c), else None."""
    if len(F) != 2:
        return None
    terms = []
    for atom, coef in F.items():
        if len(atom) != 1 or not atom[0].startswith("q") or set(coef) != {()}:
            return None
        terms.append((int(atom[0][1:]), coef[()]))
    (a, ca), (b, cb) = sorted(terms)
    if ca == 0.0 or ca != -cb:
        return None
    return a, b, ca


def find_merges(rows: list, owners: list, shifts: list, n_holonomic: int,
                index: dict) -> list[Merge]:
    r"""Return the rows of centre pins that the equations eliminate (see module docstring).

    ``rows`` are the assembly's rows (objects with the poly ``F``, None for velocity rows),
    ``owners`` their ``(kind, position, bar, axis)`` and ``shifts`` their W shifts (a switchable
    row is never eliminated). A row is eliminated when its joint carries
    ``("joint", position, "inv_mass_sum")`` (a centre pin), its poly is exactly
    :math:`c\,(q_i - q_j)` and neither column has been merged by an earlier row.
    """
    out: list[Merge] = []
    used: set[int] = set()
    for k in range(n_holonomic):
        kind, pos = owners[k][:2]
        key = (kind, pos, "inv_mass_sum")
        if key not in index or shifts[k] is not None or rows[k].F is None:
            continue
        cols = _pin_columns(rows[k].F)
        if cols is None:
            continue
        i, j, c = cols
        if i in used or j in used:
            continue
        used.update((i, j))
        out.append(Merge(k, i, j, c, index[key]))
    return out


def merged_columns(merges: list[Merge], n: int) -> list[int]:
    """Return, per coordinate, the column that carries it in the reduced equations."""
    rep = list(range(n))
    for e in merges:
        rep[e.j] = e.i
    return rep


def reduced_inverse_masses(merges: list[Merge], inv_M: list) -> list:
    """Return :math:`M_r^{-1}` per column: :math:`1/(m_i + m_j)` for a pair's kept column."""
    out = list(inv_M)
    for e in merges:
        out[e.i] = mo.constant(1.0, e.inv_mass_sum)
        out[e.j] = {}
    return out


def reduced_jacobian(J: dict, rep: list[int]) -> dict:
    """Return a row of :math:`J_r`: the entries of each pair's columns summed into its kept one."""
    out: dict = {}
    for j, x in J.items():
        r = rep[j]
        out[r] = mo.add(out[r], x) if r in out else x
    return {j: x for j, x in out.items() if x}


def pair_acceleration(e: Merge, qdd_i, q: list, qd: list, coefs, alpha: int):
    r"""Return :math:`\ddot q_j = \ddot q_i - 2α(\dot q_j - \dot q_i) - α^2(q_j - q_i)`.

    ``alpha`` is the index of the stabilization rate; ``coefs`` the derived parameters
    (:math:`2α`, :math:`α^2`).
    """
    two_a = coefs.expression({(alpha,): 2.0})
    a2 = coefs.expression({(alpha, alpha): 1.0})
    # qdd_i is a number when no force acts along the coordinate (a free scissor)
    return hy.sum([hy.expression(qdd_i), two_a * (qd[e.i] - qd[e.j]), a2 * (q[e.i] - q[e.j])])


def pin_multiplier(e: Merge, mass_params: list, force_on):
    r"""Return :math:`\lambda_e = (m_i A_j - m_j A_i) / ((m_i + m_j)\,c)` as an expression.

    ``force_on(col)`` returns :math:`A_{col} = f_{col} + \sum_k J_{k,col}\lambda_k` (an
    expression); ``mass_params`` the mass parameter index per coordinate.
    """
    s = hy.par[e.inv_mass_sum] * (1.0 / e.c)
    return s * (hy.par[mass_params[e.i]] * force_on(e.j)
                - hy.par[mass_params[e.j]] * force_on(e.i))

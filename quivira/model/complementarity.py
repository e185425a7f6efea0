r"""Which unilateral rows carry force: the linear complementarity problem of contacts.

At an instant where unilateral rows (contacts, angle stops) are closed, the constraint forces
(or impulses) :math:`\lambda` and the rows' accelerations (or velocities) :math:`w` satisfy

.. math::

    w = W\lambda + b, \qquad w_B = 0, \qquad
    \lambda_U \ge 0,\quad w_U \ge 0,\quad \lambda_U^{\,T} w_U = 0,

with :math:`W = J M^{-1} J^T` the Delassus matrix of the rows involved, :math:`B` the
bilateral rows (joints, supports, latched latches: :math:`\lambda_B` free, :math:`w_B = 0`) and
:math:`U` the unilateral ones: each either pushes (:math:`\lambda_i > 0`) and stays closed
(:math:`w_i = 0`), or carries nothing and opens (:math:`w_i \ge 0`). A unilateral row can never
pull. Two levels use the same problem:

* **forces** (switching rows on at an instant): :math:`b = J\ddot q_{free} + \dot J\dot q`, the
  rows' accelerations without their own forces; :math:`w` their accelerations;
* **impulses** (Newton's impact law): :math:`b_i = (1 + e_i)\,(J\dot q^-)_i` for unilateral rows
  and :math:`(J\dot q^-)_i` for bilateral ones; :math:`w_i = (J\dot q^+)_i + e_i (J\dot q^-)_i`.

The bilateral rows are eliminated first (Schur complement
:math:`S = W_{UU} - W_{UB} W_{BB}^{+} W_{BU}`, positive semi-definite). A unilateral row that
adds nothing to the rank of the others (a second contact at the same point) is *redundant*: it
carries nothing and is reported as such. On the rest, :math:`S` is positive definite, and
Murty's least-index principal pivoting method finds the unique solution in finitely many
pivots.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: relative size of a Schur pivot below which a unilateral row adds nothing (redundant)
RANK_TOL = 1e-10
#: relative tolerance of the sign conditions (rounding of the solves)
SIGN_TOL = 1e-10


@dataclass(frozen=True)
class Complementarity:
    r"""The solution of one complementarity problem.

    Attributes
    ----------
    lambda_mult : numpy.ndarray
        :math:`\lambda` of every row of the problem (bilateral and unilateral), in its order.
    w : numpy.ndarray
        :math:`w = W\lambda + b` of every row (0 on the bilateral and the closed rows).
    closed : numpy.ndarray
        Per unilateral row (in the order given), whether it pushes and stays closed.
    redundant : numpy.ndarray
        Per unilateral row, whether it adds nothing to the rank of the others (it then carries
        nothing and is not closed).
    pivots : int
        Number of principal pivots taken.
    """

    lambda_mult: np.ndarray
    w: np.ndarray
    closed: np.ndarray
    redundant: np.ndarray
    pivots: int


class UnsettledContactsError(RuntimeError):
    """The pivoting on the unilateral rows did not reach a complementary solution."""


def _solve_psd(A: np.ndarray, rhs: np.ndarray) -> np.ndarray:
    """Solve ``A x = rhs`` for a positive semi-definite ``A`` (least squares if singular)."""
    if A.shape[0] == 0:
        return np.zeros(rhs.shape)
    try:
        return np.linalg.solve(A, rhs)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(A, rhs, rcond=None)[0]


def _independent(S: np.ndarray) -> np.ndarray:
    """Return the mask of rows of a PSD ``S`` kept in order while each adds to the rank.

    A pivoted Cholesky in the given order: row ``i`` is kept when its pivot after the kept
    rows is above :data:`RANK_TOL` times its diagonal.
    """
    k = S.shape[0]
    keep = np.zeros(k, dtype=bool)
    L = np.zeros((k, k))
    for i in range(k):
        kept = np.nonzero(keep)[0]
        d = S[i, i]
        if kept.size:
            Lk = L[np.ix_(kept, kept)]
            li = np.linalg.solve(Lk, S[kept, i]) if kept.size else np.zeros(0)
            d = S[i, i] - li @ li
        if d > RANK_TOL * max(abs(S[i, i]), 1e-300) and S[i, i] > 0.0:
            if kept.size:
                L[i, kept] = li
            L[i, i] = np.sqrt(d)
            keep[i] = True
    return keep


def _murty(S: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, int]:
    """Solve the LCP ``w = S z + q``, ``z, w >= 0``, ``z·w = 0`` for a P-matrix ``S``.

    Murty's least-index principal pivoting: the basis is the set of rows with ``z`` free; the
    lowest-indexed row that violates its sign condition changes side. Returns ``(z, pivots)``.
    """
    k = q.shape[0]
    scale_w = max(float(np.max(np.abs(q))) if k else 0.0, 1e-300)
    diag = np.maximum(np.diag(S), 1e-300) if k else np.ones(0)
    scale_z = max(float(np.max(np.abs(q) / diag)) if k else 0.0, 1e-300)
    basis = np.zeros(k, dtype=bool)
    z = np.zeros(k)
    limit = 50 * (k + 1) + 2 ** min(k, 16)
    for pivots in range(limit):
        z = np.zeros(k)
        idx = np.nonzero(basis)[0]
        if idx.size:
            z[idx] = _solve_psd(S[np.ix_(idx, idx)], -q[idx])
        w = S @ z + q
        bad = [i for i in range(k)
               if (basis[i] and z[i] < -SIGN_TOL * scale_z)
               or (not basis[i] and w[i] < -SIGN_TOL * scale_w)]
        if not bad:
            return np.where(basis, np.maximum(z, 0.0), 0.0), pivots
        basis[bad[0]] = not basis[bad[0]]
    raise UnsettledContactsError(f"the contact problem did not settle after {limit} pivots "
                       f"({k} unilateral rows)")


def solve(W: np.ndarray, b: np.ndarray, unilateral: np.ndarray) -> Complementarity:
    r"""Solve :math:`w = W\lambda + b` with the sign conditions of the module docstring.

    Parameters
    ----------
    W : numpy.ndarray
        The Delassus matrix :math:`J M^{-1} J^T` of the rows involved (symmetric, PSD).
    b : numpy.ndarray
        Their free accelerations or weighted approach velocities (module docstring).
    unilateral : numpy.ndarray
        Mask of the unilateral rows; the others are bilateral.

    Returns
    -------
    Complementarity
        :math:`\lambda`, :math:`w`, which unilateral rows stay closed and which are redundant.
    """
    W = np.asarray(W, dtype=float)
    b = np.asarray(b, dtype=float)
    U = np.nonzero(unilateral)[0]
    B = np.nonzero(~np.asarray(unilateral, dtype=bool))[0]
    W_BB = W[np.ix_(B, B)]
    X = _solve_psd(W_BB, np.column_stack([W[np.ix_(B, U)], b[B]]))
    S = W[np.ix_(U, U)] - W[np.ix_(U, B)] @ X[:, :-1]
    S = 0.5 * (S + S.T)
    q = b[U] - W[np.ix_(U, B)] @ X[:, -1]
    keep = _independent(S)
    z = np.zeros(U.size)
    kept = np.nonzero(keep)[0]
    zk, pivots = _murty(S[np.ix_(kept, kept)], q[kept])
    z[kept] = zk
    lam = np.zeros(b.shape[0])
    lam[U] = z
    lam[B] = -(X[:, -1] + X[:, :-1] @ z)
    w = W @ lam + b
    w[B] = 0.0
    return Complementarity(lambda_mult=lam, w=w, closed=z > 0.0, redundant=~keep,
                           pivots=pivots)

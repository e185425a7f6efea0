r"""Geometry of the initial pose: joint inference and constraint projection (assembly).

``intersections`` finds where bars meet in their initial poses. ``project_positions`` solves
:math:`F(q) = 0` by Gauss–Newton with minimum-norm steps in the weighted metric
:math:`\|Δq\|^2 = \sum_i Δx_i^2 + Δy_i^2 + (L_i Δθ_i)^2` (so a bar's rotation counts by
how far its ends move), which moves the drawn pose the least and stays on its branch.
Coordinates are per body (3 per bar or rigid body, 2 per particle: the weights of
:meth:`~quivira.model.data.ModelData.coordinate_weights`). ``project_velocities`` removes
the part of :math:`\dot q` that violates
:math:`J\dot q = 0` in the mass metric: :math:`\dot q \leftarrow \dot q - M^{-1}J^T W^{-1}
J\dot q`.
"""

from __future__ import annotations

import math

import numpy as np

from .data import Bar


def _segment(b: Bar):
    x, y, th = b.pose
    dx, dy = 0.5 * b.length * math.cos(th), 0.5 * b.length * math.sin(th)
    return np.array([x - dx, y - dy]), np.array([x + dx, y + dy])


def intersections(bars: list[Bar], tol: float) -> list[tuple[np.ndarray, list[tuple[int, float]]]]:
    """Points where two or more bars meet, each with the ``(bar, s)`` incidences there.

    Bars meeting at one point (within the distance ``tol``) form one group; collinear
    overlaps along a length are ignored (no unique point), collinear bars touching end to end
    meet at the shared end. Only bars are segments: particles and rigid bodies (issue 21) are
    skipped (they are joined explicitly).
    """
    segs = [_segment(b) if getattr(b, "body_kind", "bar") == "bar" else None for b in bars]
    eps = tol
    hits: list[tuple[np.ndarray, int, float]] = []
    for a in range(len(bars)):
        if segs[a] is None:
            continue
        pa, qa = segs[a]
        ra = qa - pa
        for b in range(a + 1, len(bars)):
            if segs[b] is None:
                continue
            pb, qb = segs[b]
            rb = qb - pb
            cross = ra[0] * rb[1] - ra[1] * rb[0]
            d = pb - pa
            la, lb = np.linalg.norm(ra), np.linalg.norm(rb)
            if abs(cross) <= 1e-12 * la * lb:  # parallel: only shared end points count
                for ua in (0.0, 1.0):
                    for ub in (0.0, 1.0):
                        P = pa + ua * ra
                        Q = pb + ub * rb
                        if np.linalg.norm(P - Q) <= eps:
                            hits.append((P, a, ua - 0.5))
                            hits.append((P, b, ub - 0.5))
                continue
            ua = (d[0] * rb[1] - d[1] * rb[0]) / cross
            ub = (d[0] * ra[1] - d[1] * ra[0]) / cross
            ta, tb = eps / la, eps / lb
            if -ta <= ua <= 1 + ta and -tb <= ub <= 1 + tb:
                ua, ub = min(max(ua, 0.0), 1.0), min(max(ub, 0.0), 1.0)
                P = pa + ua * ra
                hits.append((P, a, ua - 0.5))
                hits.append((P, b, ub - 0.5))
    groups: list[tuple[np.ndarray, list[tuple[int, float]]]] = []
    for P, bar, s in hits:
        for G in groups:
            if np.linalg.norm(G[0] - P) <= eps:
                if all(bb != bar for bb, _ in G[1]):
                    G[1].append((bar, s))
                break
        else:
            groups.append((P, [(bar, s)]))
    return [(P, sorted(inc)) for P, inc in groups if len(inc) >= 2]


def project_positions(q0: np.ndarray, geometry, weights: np.ndarray, *, tol: float,
                      max_iter: int = 50) -> tuple[np.ndarray, np.ndarray, bool]:
    """Gauss–Newton: ``q ← q − D⁻¹ (J D⁻¹)⁺ F(q)`` until ``max|F| ≤ tol``.

    ``geometry(q)`` returns ``(F, J)``. Returns ``(q, F, converged)``.
    """
    q = np.array(q0, dtype=float)
    Dinv = 1.0 / weights
    F, J = geometry(q)
    for _ in range(max_iter):
        if F.size == 0 or np.max(np.abs(F)) <= tol:
            return q, F, True
        Js = J * Dinv[None, :]
        step, *_ = np.linalg.lstsq(Js, F, rcond=None)
        dq = Dinv * step
        # damp if the step would increase the residual (Levenberg-style safeguard)
        alpha = 1.0
        for _ in range(30):
            q_try = q - alpha * dq
            F_try, J_try = geometry(q_try)
            if np.all(np.isfinite(F_try)) and np.linalg.norm(F_try) < np.linalg.norm(F):
                break
            alpha *= 0.5
        else:
            return q, F, False
        q, F, J = q_try, F_try, J_try
    return q, F, bool(F.size == 0 or np.max(np.abs(F)) <= tol)


def project_velocities(qd: np.ndarray, J: np.ndarray, M_diag: np.ndarray,
                       residual: np.ndarray | None = None) -> np.ndarray:
    r"""Project the velocities onto the constraints in the mass metric.

    Return :math:`\dot q - M^{-1}J^T W^{-1} r` with :math:`r = J\dot q + b` the velocity
    residual (default :math:`J\dot q`): the least change in the mass metric that makes
    :math:`J\dot q + b = 0`.
    """
    if J.shape[0] == 0:
        return qd.copy()
    G = J.T / M_diag[:, None]
    W = J @ G
    r = J @ qd if residual is None else residual
    lam = np.linalg.lstsq(W, r, rcond=None)[0]
    return qd - G @ lam


def dependent_rows(J: np.ndarray, weights: np.ndarray | None = None,
                   rel_tol: float = 1e-9) -> tuple[int, list[int]]:
    """Rank of ``J`` and the rows taking part in a linear dependence (empty if full rank).

    Scale-aware: the columns are divided by ``weights`` (e.g. ``(1, 1, L_i)`` per bar, so that
    θ columns are measured like x and y) and every row is normalised to unit length before the
    singular values are compared with ``rel_tol`` times the largest; a model and a copy scaled
    in length or mass get the same verdict.
    """
    m = J.shape[0]
    if m == 0:
        return 0, []
    A = np.array(J, dtype=float)
    if weights is not None:
        A = A / np.asarray(weights, dtype=float)[None, :]
    norms = np.linalg.norm(A, axis=1)
    A = A / np.where(norms > 0, norms, 1.0)[:, None]
    S = np.linalg.svd(A, compute_uv=False)  # singular vectors only when needed (slow here)
    smax = S[0] if S.size else 0.0
    rank = int(np.sum(S > rel_tol * max(smax, 1e-300)))
    if rank == m:
        return rank, []
    U, _, _ = np.linalg.svd(A, full_matrices=True)
    left_null = U[:, rank:]
    weight = np.linalg.norm(left_null, axis=1)
    rows = [int(i) for i in np.nonzero(weight > 1e-8)[0]]
    return rank, rows

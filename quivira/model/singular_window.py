r"""The window across a singular pose: the constraint acceleration interpolated in time.

Near a pose where :math:`W = J M^{-1} J^T` loses rank (a pivot ratio :math:`d_k/W_{kk}` of
its factorization falls below the threshold :math:`p`), the constraint acceleration
:math:`g = M^{-1}J^T\lambda` is a 0/0 limit: the pivot vanishes, and with it the projection of
the right-hand side on its mode. Along the exact motion :math:`g(t)` is smooth (the
multipliers need not be: in IFToMM A02 with two loops or more they grow like
:math:`1/(t^* - t)` while :math:`J^T\lambda` stays finite), but evaluating it in double
precision loses :math:`\epsilon/(d_k/W_{kk})` of its digits, and a regularized solve
:math:`(W + ε\,\mathrm{diag}\,W)` drops the part :math:`ε/(d_k/W_{kk} + ε)` of the mode: an
error proportional to the threshold.

Inside the window (every pivot ratio back above :math:`1.5\,p` ends it) the integrated
equations are therefore

.. math:: \ddot q = \ddot q_a(q, \dot q, t) + a_0 + a_1 (t - t_e),

the applied accelerations exactly, and the constraint acceleration as the line through its
values at the window's ends, :math:`a_0 = g(t_e)` and :math:`a_0 + a_1 (t_x - t_e) = g(t_x)`,
both evaluated where the pivot ratio is still :math:`\ge p` (relative rounding
:math:`\lesssim 10^{-8}`). The exit is found by a first pass with :math:`a_1 = 0` in growing
time steps (each 1.2 times the last), each ended by checking the pivot ratios of the
unregularized :math:`W`; the integrator is then put back at :math:`t_e` and crosses to
:math:`t_x` again with the line. The monitor is off inside; a strong regularization
:math:`W + \mathrm{diag}\,W` only keeps the unused solve finite. For a window of length
:math:`h` the error of the velocities is :math:`h^3 \max|\ddot g|/12` (interpolation) plus
:math:`h` times the rounding of :math:`g` at the ends, instead of the regularized solve's
error proportional to :math:`p`. Measured on IFToMM A02 (20 s, 20 crossings, tol 1e-15):
B0's error 3.0e-9 (n = 1) and 1.8e-9 (n = 2), against 9.4e-9 and 1.5e-6 with the
regularized solve alone. After the window the state is projected onto the constraints
(positions, then velocities, in the mass metric): the interpolation's small drift normal to
them is removed.

The multipliers reported inside a window are those of the regularized solve (the
:math:`\lambda` of a rank-deficient :math:`W` is not unique there); the accelerations are
those integrated.
"""

from __future__ import annotations

import heyoka as hy
import numpy as np

from .compiled import evaluate_dynamics, evaluate_singularity

#: first time step of the search for the window's end (s); it grows by GROWTH until found
FIRST_STEP = 1e-7
GROWTH = 1.2
#: the search gives up (and the regularized solve is used) after this many steps
MAX_STEPS = 150
#: regularization inside the window, where the solve's multipliers are not used: it only keeps
#: them (and their Taylor coefficients) finite
WINDOW_SCALE = 2.0


def window_indices(index: dict, n: int) -> tuple[int, int, np.ndarray, np.ndarray]:
    """Return the parameter positions ``(keep, t0, a0[n], a1[n])`` of the window."""
    a0 = np.array([index[("window_accel", j, 0)] for j in range(n)], dtype=int)
    a1 = np.array([index[("window_accel", j, 1)] for j in range(n)], dtype=int)
    return index[("window_keep",)], index[("window_t0",)], a0, a1


def constraint_acceleration(cs, state: np.ndarray, pars: np.ndarray, t: float,
                            keep: int) -> np.ndarray:
    r"""Return :math:`g = M^{-1}J^T\lambda = \ddot q - \ddot q_a` at one state.

    From the compiled dynamics with the parameters ``pars`` and the same with the
    constraint accelerations switched off (``pars[keep] = 0``), in one batch call.
    """
    off = np.array(pars, dtype=float)
    off[keep] = 0.0
    both = np.vstack([np.asarray(pars, dtype=float), off])
    s = np.repeat(np.asarray(state, dtype=float)[None, : 2 * cs.n], 2, axis=0)
    qdd = evaluate_dynamics(cs, s, both, t)["qdd"]
    return qdd[0] - qdd[1]


def all_regular(cs, state: np.ndarray, pars: np.ndarray, t: float, release: float) -> bool:
    """Whether every pivot ratio is back above ``release`` (the window may end)."""
    return evaluate_singularity(cs, state, pars, t) >= release * (1.0 - 1e-9)


def find_exit(ta, t_limit: float, exit_ok) -> tuple[float, np.ndarray] | None:
    """Integrate from the window's entry to a time where ``exit_ok(state, t)``.

    Steps from :data:`FIRST_STEP`, each :data:`GROWTH` times the last (the end overshoots
    by at most that factor); return ``(t_x, state)``, or None when ``t_limit``,
    :data:`MAX_STEPS` or an event comes first, or the state is not finite.
    """
    step = FIRST_STEP * max(1.0, abs(float(ta.time)) * 1e-6)
    for _ in range(MAX_STEPS):
        t = min(float(ta.time) + step, t_limit)
        res = ta.propagate_until(t)
        state = np.array(ta.state)
        if res[0] != hy.taylor_outcome.time_limit or not np.all(np.isfinite(state)):
            return None
        if exit_ok(state, t):
            return t, state
        if t >= t_limit:
            return None
        step *= GROWTH
    return None

r"""Simulate a system of the function API: from a Lagrangian and constraints to a Trajectory.

:func:`simulate_system` takes the inputs of :func:`quivira.lagrange_eom` (a Lagrangian
:math:`\mathcal L(q, \dot q, t)`, holonomic rows :math:`F(q, t) = 0`, optional velocity rows
and generalized forces), and does the steps a user of the function API otherwise writes by
hand:

1. the equations :math:`M\ddot q = f + J^T\lambda`, :math:`W\lambda = -(J\ddot q_a + c +
   2α v + α^2 F)` (holonomic rows; velocity rows :math:`-(J\ddot q_a + c + α g)`) with an
   optional Baumgarte rate :math:`α` (``stabilization``, default 0: the plain equations of
   :func:`quivira.lagrange_eom`);
2. heyoka compile options chosen by size (non-compact code for up to 6 coordinates, compact
   mode above, where non-compact code takes seconds to compile), overridable;
3. the initial positions checked against :math:`F(q_0, t_0) = 0` and inconsistent initial
   velocities **projected** onto the velocity constraints with the least change in the
   kinetic-energy metric, :math:`\dot q \leftarrow \dot q - M^{-1}J^TW^{-1}(J\dot q + b)`
   (with a :class:`~quivira.model.simulator.ConstraintWarning`);
4. the integration on an output grid and the outputs of a model run — multipliers,
   accelerations, kinetic energy :math:`T = \tfrac12\dot q^TM\dot q`, the potential
   :math:`V = T - \mathcal L` (so that ``energy`` is :math:`T + V` for
   :math:`\mathcal L = T - V`), and the residuals — in the same
   :class:`~quivira.model.trajectory.Trajectory` type.
"""

from __future__ import annotations

import time as _time
import warnings
from collections.abc import Sequence
from typing import Any

import heyoka as hy
import numpy as np

from ._entries import as_expression, is_zero
from ._repr import short_repr
from .budget import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    Budget,
    check_output_bytes,
    decomposition_cost,
    interrupt_seen,
    interrupts_polled,
    propagate_grid,
)
from .lagrangian import assemble_eom, find_constrained_accelerations
from .model.simulator import ConstraintWarning
from .model.trajectory import BudgetExceededError, SimulationInterrupted, Trajectory
from .model.validation import check_nonnegative, check_positive, check_real, real_array

__all__ = ["simulate_system"]


class _Arrays:
    """A picklable source of already evaluated multipliers and accelerations."""

    def __init__(self, values: dict) -> None:
        self.values = values

    def __call__(self) -> dict:
        return self.values


def _dense(rows: list, n: int) -> np.ndarray:
    out = np.empty((len(rows), n), dtype=object)
    out[...] = hy.expression(0.0)
    for k, r in enumerate(rows):
        for j, x in r.items():
            out[k, j] = as_expression(x)
    return out


@interrupts_polled()
def simulate_system(lagrangian: hy.expression, F: Sequence, q: Sequence, qd: Sequence,
                    t_end: float, initial_state: Sequence[float], *, Q_nc: Any = None,
                    velocity_constraints: Sequence | None = None, n_points: int = 201,
                    t0: float = 0.0, pars: Sequence[float] | None = None,
                    tol: float | None = None, stabilization: float = 0.0,
                    compact_mode: bool | None = None, opt_level: int | None = None,
                    labels: Sequence[str] | None = None,
                    position_tolerance: float = 1e-9, max_steps: int = DEFAULT_MAX_STEPS,
                    max_wall_s: float = DEFAULT_MAX_WALL_S) -> Trajectory:
    r"""Integrate the constrained system of :func:`quivira.lagrange_eom`.

    Return a :class:`~quivira.model.trajectory.Trajectory` (see the module docstring).

    Parameters
    ----------
    lagrangian, F, q, qd, Q_nc, velocity_constraints
        As :func:`quivira.lagrange_eom` / :func:`quivira.lagrange_forms`.
    t_end : float
        End time (s), after ``t0``.
    initial_state : sequence of float
        ``[q0..., qd0...]`` (2n values). Velocities violating the velocity constraints are
        projected (warning); positions must satisfy :math:`F(q_0, t_0) = 0`.
    n_points : int, optional
        Output times ``linspace(t0, t_end, n_points)`` (at least 2).
    t0 : float, optional
        Start time (s).
    pars : sequence of float, optional
        Values of the runtime parameters ``hy.par[i]`` the expressions use.
    tol : float, optional
        heyoka's tolerance (default: machine epsilon).
    stabilization : float, optional
        Baumgarte rate α (1/s), >= 0; 0 (default) integrates the plain index-1 equations.
    compact_mode : bool, optional
        heyoka's compact mode; default: off up to 6 coordinates, on above.
    opt_level : int, optional
        LLVM optimisation level; default 0 up to 6 coordinates, 1 above.
    labels : sequence of str, optional
        One label per constraint row (default ``"row k"``).
    position_tolerance : float, optional
        Largest accepted :math:`|F(q_0, t_0)|`, relative to :math:`\max(1, |q_0|_\infty)`.
    max_steps : int, optional
        Budget of integrator steps (as :meth:`quivira.bar_joint_model.simulate`).
    max_wall_s : float, optional
        Budget of wall time (s) of the call.

    Returns
    -------
    Trajectory
        Times, coordinates, velocities, multipliers (``J^T λ`` is the generalized constraint
        force), accelerations, energies and residuals; ``info`` holds the compile options and
        timings, ``info["projected_velocity_change"]`` the largest velocity change of the
        projection (0 if none).

    Raises
    ------
    TypeError, ValueError
        Bad inputs (as :func:`quivira.lagrange_eom`; a wrong state size, non-finite values,
        initial positions violating the constraints, ``t_end <= t0``); outputs larger than
        :data:`~quivira.budget.MAX_OUTPUT_BYTES` (checked before anything is compiled).
    BudgetExceededError
        ``max_steps`` or ``max_wall_s`` was used up; ``.trajectory`` holds the motion up to
        ``.t``.
    SimulationInterrupted
        Ctrl-C (checked between chunks of integrator steps); ``.trajectory`` holds the
        motion up to ``.t``.
    """
    t0 = check_real(t0, "t0")
    t_end = check_real(t_end, "t_end")
    if t_end <= t0:
        raise ValueError(f"t_end must be after t0 = {t0}, got {t_end}")
    if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)):
        raise TypeError(f"n_points must be an integer >= 2, got {short_repr(n_points)}")
    if n_points < 2:
        raise ValueError(f"n_points must be an integer >= 2, got {n_points}")
    alpha = check_nonnegative(stabilization, "stabilization")
    if tol is not None:
        tol = check_positive(tol, "tol")
    position_tolerance = check_positive(position_tolerance, "position_tolerance")
    budget = Budget(max_steps, max_wall_s)
    G = [] if velocity_constraints is None else list(velocity_constraints)
    parts = assemble_eom(lagrangian, F, q, qd, Q_nc, velocity_constraints=G or None)
    q, qd = list(parts.q), list(parts.qd)
    n, m = len(q), len(parts.J_rows)
    # per output time: the states; the outputs function's T, L, F, v, lambda, qdd and M; the
    # Trajectory's copies of q, qd, energies and residuals; M, J and W for the singularity
    per_time = 2 * n + (2 + 3 * m + n + n * n) + (2 * n + 2 + 2 * m) + (n * n + 2 * m * n)
    per_time += m * m
    check_output_bytes(8.0 * n_points * per_time, f"n_points = {n_points}",
                       "use fewer n_points")
    state0 = real_array(initial_state, "initial_state", "a sequence of real numbers")
    if state0.shape != (2 * n,):
        raise ValueError(f"initial_state: expected {2 * n} values ([q, qd] for {n} "
                         f"coordinates), got shape {state0.shape}")
    if labels is None:
        labels = [f"row {k}" for k in range(m)]
    labels = [str(x) for x in labels]
    if len(labels) != m:
        raise ValueError(f"labels: expected {m} labels (one per constraint row), got "
                         f"{len(labels)}")
    par_values = (np.zeros(0) if pars is None
                  else real_array(pars, "pars", "a sequence of numbers"))
    if par_values.ndim != 1:
        raise ValueError("pars must be a 1-d sequence of finite numbers")

    M = _dense(parts.M_rows, n)
    J = _dense(parts.J_rows, n)
    F_hol = [as_expression(x) for x in F] if not isinstance(F, hy.expression) else [F]
    residual = F_hol + [hy.expression(0.0)] * (m - len(F_hol))
    v_rows = [as_expression(x) for x in parts.velocity_residual]
    if m and alpha > 0.0:
        k = parts.n_holonomic
        c = [as_expression(parts.Jdqd[r]) + (2.0 * alpha) * v_rows[r]
             + (alpha * alpha) * residual[r] if r < k
             else as_expression(parts.Jdqd[r]) + alpha * v_rows[r] for r in range(m)]
        qdd, lam = find_constrained_accelerations(parts.qdd_a, J, M, c)
        qdd = [as_expression(x) for x in np.ravel(qdd)]
        lam = [as_expression(x) for x in np.ravel(lam)]
    else:
        qdd = [as_expression(x) for x in parts.qdd]
        lam = [as_expression(x) for x in parts.lambda_mult]

    # --- compile (options by size)
    big = n > 6
    opts = {"compact_mode": big if compact_mode is None else bool(compact_mode),
            "opt_level": (1 if big else 0) if opt_level is None else int(opt_level)}
    t_start = _time.perf_counter()
    sys = [(q[i], qd[i]) for i in range(n)] + [(qd[i], qdd[i]) for i in range(n)]
    kw = {} if tol is None else {"tol": tol}
    ta = hy.taylor_adaptive(sys, [0.0] * (2 * n), time=t0, **opts, **kw)
    if ta.pars.shape[0] != par_values.shape[0] and not (pars is None and ta.pars.shape[0] == 0):
        raise ValueError(f"pars: the expressions use {ta.pars.shape[0]} runtime parameters, "
                         f"got {par_values.shape[0]} values")
    if ta.pars.shape[0]:
        ta.pars[:] = par_values
    T = 0.5 * hy.sum([qd[i] * as_expression(M[i, j]) * qd[j]
                      for i in range(n) for j in range(n) if not is_zero(M[i, j])]
                     or [hy.expression(0.0)])
    M_flat = [as_expression(x) for x in np.ravel(M)]
    outs = [T, as_expression(lagrangian)] + residual + v_rows + lam + qdd + M_flat
    geo = [as_expression(x) for x in np.ravel(J)] if m else []
    cf = hy.cfunc(outs, vars=q + qd, compact_mode=opts["compact_mode"])
    cg = hy.cfunc(geo + residual + v_rows, vars=q + qd) if m else None
    t_compile = _time.perf_counter() - t_start

    def batch(f, states_t: np.ndarray, times: np.ndarray) -> np.ndarray:
        """``f`` at the columns of ``states_t`` (variables × points) and ``times``."""
        kw = {"time": times} if f.is_time_dependent else {}
        if f.nparams:
            kw["pars"] = np.repeat(par_values[:f.nparams, None], states_t.shape[1], axis=1)
        return f(np.ascontiguousarray(states_t), **kw)

    def geometry(state: np.ndarray, t: float):
        out = batch(cg, state[:, None], np.array([t]))[:, 0]
        Jn = out[:m * n].reshape(m, n)
        return Jn, out[m * n:m * n + m], out[m * n + m:]

    # --- consistent start
    dq_max = 0.0
    if m:
        Jn, Fn, vn = geometry(state0, t0)
        k = parts.n_holonomic
        scale = max(1.0, float(np.max(np.abs(state0[:n]))))
        bad = np.nonzero(np.abs(Fn[:k]) > position_tolerance * scale)[0]
        if bad.size:
            parts_txt = "; ".join(f"{labels[r]} off by {Fn[r]:.3g}" for r in bad[:6])
            raise ValueError("initial positions violate the constraints: " + parts_txt
                             + "; correct q0")
        if np.max(np.abs(vn)) > position_tolerance * scale:
            Mn = batch(hy.cfunc(M_flat, vars=q + qd), state0[:, None],
                       np.array([t0]))[:, 0].reshape(n, n)
            Gm = np.linalg.solve(Mn, Jn.T)
            lam0 = np.linalg.lstsq(Jn @ Gm, vn, rcond=None)[0]
            new = state0[n:] - Gm @ lam0
            dq_max = float(np.max(np.abs(new - state0[n:])))
            warnings.warn(f"initial velocities violate the velocity constraints (largest "
                          f"residual {np.max(np.abs(vn)):.3g}); they were projected onto them "
                          "(least change in the kinetic-energy metric)", ConstraintWarning,
                          stacklevel=2)
            state0 = np.concatenate([state0[:n], new])
    ta.state[:] = state0

    # --- integrate and evaluate
    grid = np.linspace(t0, t_end, n_points)
    t_run = _time.perf_counter()
    info = {"compact_mode": opts["compact_mode"], "opt_level": opts["opt_level"],
            "tol": float(ta.tol), "order": int(ta.order), "stabilization": alpha,
            "compile_s": t_compile, "projected_velocity_change": dq_max}

    def trajectory(states: np.ndarray) -> Trajectory:
        """Return the Trajectory of ``states`` on the first rows of ``grid``."""
        info["integrate_s"] = _time.perf_counter() - t_run
        return _outputs(states, grid[: len(states)], batch, cf, cg, n, m, labels, q, qd, info)

    try:
        states, outcome, stop = propagate_grid(ta, grid, budget, decomposition_cost(ta))
    except KeyboardInterrupt as exc:
        interrupt_seen()
        raise SimulationInterrupted(float(ta.time), trajectory(exc.states)) from None
    if stop is not None and outcome not in (hy.taylor_outcome.time_limit,
                                            hy.taylor_outcome.step_limit):
        raise ValueError("the integration produced non-finite states (a singular pose?)")
    traj = trajectory(states)
    if stop is not None:
        raise BudgetExceededError(stop, float(ta.time), np.array(ta.state), traj)
    return traj


def _outputs(states: np.ndarray, grid: np.ndarray, batch, cf, cg, n: int, m: int,
             labels: list, q: list, qd: list, info: dict) -> Trajectory:
    """Return the :class:`Trajectory` of the integrator ``states`` at the times ``grid``.

    With the multipliers, accelerations, energies and residuals of the compiled ``cf`` and
    ``cg`` (evaluated by ``batch``) and the singularity measure of ``W``.
    """
    n_points = len(grid)
    out = batch(cf, states.T.copy(), grid)
    kin, lag = out[0], out[1]
    o = 2
    F_out = out[o:o + m].T
    v_out = out[o + m:o + 2 * m].T
    lam_out = out[o + 2 * m:o + 3 * m].T
    qdd_out = out[o + 3 * m:o + 3 * m + n].T
    singularity = np.ones(n_points)
    if m:  # min_k d_k / W_kk with d_k the pivots of W = J M^-1 J^T (LDL^T in row order)
        Mb = out[o + 3 * m + n:].T.reshape(n_points, n, n)
        Jb = batch(cg, states.T.copy(), grid)[:m * n].T.reshape(n_points, m, n)
        Wb = Jb @ np.linalg.solve(Mb, np.swapaxes(Jb, 1, 2))
        diag = np.maximum(np.abs(np.diagonal(Wb, axis1=1, axis2=2)), 1e-300)
        try:
            piv = np.diagonal(np.linalg.cholesky(Wb), axis1=1, axis2=2) ** 2
            singularity = np.min(piv / diag, axis=1)
        except np.linalg.LinAlgError:  # a singular W somewhere: measure point by point
            for k in range(n_points):
                try:
                    piv = np.diagonal(np.linalg.cholesky(Wb[k])) ** 2
                    singularity[k] = float(np.min(piv / diag[k]))
                except np.linalg.LinAlgError:
                    singularity[k] = 0.0
    names_q = [str(v) for v in q]
    names_qd = [str(v) for v in qd]
    return Trajectory(
        t=grid, q=states[:, :n].copy(), qd=states[:, n:].copy(), constraint_labels=labels,
        kinetic_energy=kin, potential_energy=kin - lag, position_residual=F_out,
        velocity_residual=v_out, info=dict(info), coordinate_names=names_q,
        velocity_names=names_qd,
        dynamics_source=_Arrays({"lambda_mult": lam_out, "qdd": qdd_out,
                                 "singularity": singularity}))

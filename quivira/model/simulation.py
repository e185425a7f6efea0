"""Checking, assembling and simulating a bar-joint model (methods of the model class).

``simulate`` integrates with the compiled system of the model's topology (see
:mod:`quivira.model.compiled`), after checking the initial state: positions must satisfy
the holonomic constraints within the model's ``tolerance`` (ValueError naming the rows
otherwise; ``assemble()`` fixes drawn poses), the constraint rows must be independent
(ValueError naming the dependent rows), and velocities violating the velocity constraints
are projected onto them in the mass metric with a :class:`ConstraintWarning`.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence

import heyoka as hy
import numpy as np

from . import geometry as geo
from .builder import topology_key
from .compiled import (
    CompiledSystem,
    compile_system,
    default_compile_options,
    evaluate_dynamics,
    evaluate_geometry,
    evaluate_outputs,
    evaluate_singularity,
)
from .components import check_positive, check_real
from .trajectory import (
    SingularConfigurationError,
    Trajectory,
    constraint_groups,
    reactions_from_multipliers,
)


class ConstraintWarning(UserWarning):
    """Initial velocities were made consistent with the constraints (projected)."""


class ConstraintCheck(dict):
    """Result of :meth:`bar_joint_model.check_constraint_fulfillment` (a dict with keys
    ``labels``, ``position``, ``velocity``, ``max_position``, ``max_velocity``, ``satisfied``,
    ``tolerance``); ``bool(check)`` is ``check["satisfied"]``."""

    def __bool__(self) -> bool:
        return bool(self["satisfied"])

    def __getattr__(self, name: str):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None



class SimulationMethods:
    """Mixin of :class:`~quivira.bar_joint_model`: compiled code, checks, simulation."""

    # ------------------------------------------------------------------ compiled code
    def _cache_key(self, tol: float | None, purpose: str) -> tuple:
        opts = default_compile_options(3 * self.n_bars, purpose)
        return (topology_key(self._data), tol, tuple(sorted(opts.items())), self.solver)

    def topology_key(self) -> tuple:
        """What the compiled code depends on (bars, joints, supports, force points,
        constraints); equal keys share compiled code, value edits leave it unchanged."""
        return topology_key(self._data)

    def is_compiled(self, tol: float | None = None, purpose: str = "interactive") -> bool:
        """Whether :meth:`simulate` with these options would reuse compiled code."""
        return self._cache_key(tol, purpose) in self._cache

    def compiled(self, tol: float | None = None, purpose: str = "interactive", *,
                 dynamics: bool = False) -> CompiledSystem:
        """The compiled system of the current topology (built on first use, then cached).

        With ``dynamics`` the function evaluating multipliers, accelerations and the
        singularity measure is compiled too (otherwise on first need, e.g. by the
        singularity monitor of :meth:`simulate`)."""
        opts = default_compile_options(3 * self.n_bars, purpose)
        key = self._cache_key(tol, purpose)
        cs = self._cache.get(key)
        if cs is None:
            if self.n_bars == 0:
                raise ValueError("the model has no bars; add a bar first")
            cs = compile_system(self._data, tol, opts, self.solver)
            self._cache[key] = cs
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
        else:
            self._cache.move_to_end(key)
        if dynamics:
            cs.dynamics  # noqa: B018 - compiles on access
        return cs

    def _parameters(self, cs: CompiledSystem, *, stabilized: bool = True) -> np.ndarray:
        """The runtime parameters of ``cs`` for the current data. ``stabilized=False`` sets
        the Baumgarte rate to 0: the accelerations and multipliers of the exact Lagrangian
        equations at any state, also one slightly off the constraints (for inspection)."""
        base = self.parameter_values()
        if not stabilized:
            base[-1] = 0.0  # ("stabilization",), last in parameter_layout
        return cs.parameters(base)

    def _geometry_fn(self, cs: CompiledSystem, pars: np.ndarray, t: float = 0.0):
        """``q -> (F, J)`` of the holonomic rows only (what positions must satisfy)."""
        k = cs.n_holonomic

        def fn(q):
            F, J = evaluate_geometry(cs, q, pars, t)
            return F[:k], J[:k]

        return fn

    def _mass_diag(self) -> np.ndarray:
        return np.array([w for b in self._data.bars
                         for w in (b.mass, b.mass, b.mass * b.length ** 2 / 12.0)])

    def check_constraint_fulfillment(self, state: Sequence[float],
                                     t: float = 0.0) -> ConstraintCheck:
        """Evaluate the constraint residuals at ``state = [q..., qd...]`` and time ``t`` (which
        matters for driven constraints).

        Returns
        -------
        ConstraintCheck
            dict with ``labels``, ``position`` (:math:`F(q)` per row), ``velocity``
            (:math:`J\\dot q` per row), their maxima, ``tolerance`` and ``satisfied`` (both
            maxima within :attr:`tolerance`).
        """
        n = self.n_coordinates
        arr = np.asarray(state, dtype=float)
        if arr.shape != (2 * n,):
            raise ValueError(f"state: expected {2 * n} values ([q, qd] for {self.n_bars} bars), "
                             f"got shape {arr.shape}")
        cs = self.compiled()
        pars = self._parameters(cs)
        t = check_real(t, "t")
        F, _ = evaluate_geometry(cs, arr[:n], pars, t)
        v = evaluate_outputs(cs, arr[None, :], pars, t)["velocity_residual"][0]
        mp = float(np.max(np.abs(F))) if F.size else 0.0
        mv = float(np.max(np.abs(v))) if v.size else 0.0
        return ConstraintCheck(labels=cs.symbolic.labels, position=F, velocity=v,
                               max_position=mp, max_velocity=mv, tolerance=self.tolerance,
                               satisfied=bool(mp <= self.tolerance and mv <= self.tolerance))

    def degrees_of_freedom(self) -> int:
        """:math:`n - \\operatorname{rank} J` at the initial pose."""
        cs = self.compiled()
        _, J = evaluate_geometry(cs, np.array(self.get_initial_state()[:self.n_coordinates]),
                                 self._parameters(cs))
        rank, _ = geo.dependent_rows(J)
        return self.n_coordinates - rank

    def assemble(self, max_iter: int = 50) -> dict:
        """Move the initial poses the least needed to satisfy every constraint.

        Gauss–Newton with minimum-norm steps from the drawn pose (metric
        :math:`Δx^2 + Δy^2 + (LΔθ)^2` per bar), so the result stays on the drawn branch;
        then the velocities are projected onto :math:`J\\dot q = 0`.

        Returns
        -------
        dict
            ``moved`` (per bar: its ``(Δx, Δy, Δθ)``), ``max_move``, ``residual``,
            ``iterations_ok``.

        Raises
        ------
        ValueError
            Naming the constraints that cannot be met; the model is then unchanged.
        """
        cs = self.compiled()
        pars = self._parameters(cs)
        n = self.n_coordinates
        state = np.array(self.get_initial_state())
        q0 = state[:n]
        w = geo.coordinate_weights(self._data.bars)
        q, F, ok = geo.project_positions(q0, self._geometry_fn(cs, pars), w,
                                         tol=0.01 * self.tolerance, max_iter=max_iter)
        if not ok or (F.size and np.max(np.abs(F)) > self.tolerance):
            worst = np.argsort(-np.abs(F))[:5]
            names = [f"{cs.symbolic.labels[k]} (residual {abs(F[k]):.3g})" for k in worst
                     if abs(F[k]) > self.tolerance]
            raise ValueError("assemble: the constraints cannot all be met from this pose; "
                             "worst: " + ", ".join(names))
        _, J = evaluate_geometry(cs, q, pars, qd=state[n:])
        v = evaluate_outputs(cs, np.concatenate([q, state[n:]])[None, :],
                             pars)["velocity_residual"][0]
        qd = geo.project_velocities(state[n:], J, self._mass_diag(), v)
        new_state = np.concatenate([q, qd])
        dq = (q - q0).reshape(-1, 3)
        report = {"moved": {i: tuple(float(v) for v in dq[i]) for i in range(self.n_bars)
                            if np.any(np.abs(dq[i]) > 0)},
                  "max_move": float(np.max(np.abs(dq))) if dq.size else 0.0,
                  "residual": float(np.max(np.abs(F))) if F.size else 0.0}
        self.set_initial_state(new_state)
        return report

    def _active_rows(self, cs: CompiledSystem) -> np.ndarray:
        """Mask of the constraint rows that are switched on."""
        cc = self._data.coordinate_constraints
        return np.array([not (o[0] == "cc" and not cc[o[1]].active)
                         for o in cs.symbolic.row_owner], dtype=bool)

    def _consistent_start(self, cs: CompiledSystem, pars: np.ndarray) -> np.ndarray:
        """Check the initial state: positions, redundancy, velocities (projected, warning)."""
        n = self.n_coordinates
        state = np.array(self.get_initial_state())
        F, J = evaluate_geometry(cs, state[:n], pars, qd=state[n:])
        labels = cs.symbolic.labels
        if F.size:
            bad = np.nonzero(np.abs(F) > self.tolerance)[0]
            if bad.size:
                parts = [f"{labels[k]} off by {F[k]:.3g}" for k in bad[:6]]
                raise ValueError(
                    "initial positions violate constraints: " + "; ".join(parts)
                    + ("; ..." if bad.size > 6 else "")
                    + f" (tolerance {self.tolerance:g}); fix the poses or call model.assemble()"
                )
            active = np.nonzero(self._active_rows(cs))[0]
            rank, rows = geo.dependent_rows(J[active])
            if rows:
                raise ValueError(
                    f"redundant constraints: J has rank {rank} < {len(active)} rows at the "
                    "initial pose; these rows are linearly dependent: "
                    + ", ".join(labels[active[k]] for k in rows)
                    + ". Remove one of them (e.g. a support or joint that repeats another)"
                )
            v = evaluate_outputs(cs, state[None, :], pars)["velocity_residual"][0]
            if np.max(np.abs(v)) > self.tolerance:
                worst = int(np.argmax(np.abs(v)))
                qd = geo.project_velocities(state[n:], J, self._mass_diag(), v)
                warnings.warn(
                    f"initial velocities violate the velocity constraints (largest: "
                    f"{labels[worst]}, {v[worst]:.3g}); they were projected onto them (least "
                    "change in the kinetic-energy metric)", ConstraintWarning, stacklevel=3)
                state[n:] = qd
        return state

    # ------------------------------------------------------------------ simulation
    def simulate(self, t_end: float, n_points: int = 201, *, tol: float | None = None,
                 projection: bool = False, singular_threshold: float = 1e-8,
                 purpose: str = "interactive") -> Trajectory:
        """Integrate the motion from the initial state over ``[0, t_end]``.

        Uses ``hy.taylor_adaptive`` (cached by topology, data as runtime parameters) and
        ``propagate_grid``; outputs are evaluated by one compiled function on all points.

        Parameters
        ----------
        t_end : float
            Final time (> 0).
        n_points : int
            Number of output times, evenly spaced including 0 and ``t_end``.
        tol : float, optional
            Integrator tolerance (heyoka's default, machine epsilon, when None).
        projection : bool
            Project positions and velocities onto the constraint manifold at every output
            time (Gauss–Newton in the mass metric), removing drift on long runs.
        singular_threshold : float
            Stop when :math:`\\min_k d_k/W_{kk}` (see :class:`Trajectory`) falls below it.
        purpose : {"interactive", "long"}
            Compile options: fast compiling, or fast running.

        Raises
        ------
        ValueError
            Initial positions violate a constraint, or constraints are redundant.
        SingularConfigurationError
            A singular pose or non-finite state was met; carries ``t``, ``state`` and the
            trajectory up to then.
        """
        t_end = check_positive(t_end, "t_end")
        if isinstance(n_points, bool) or not isinstance(n_points, (int, np.integer)) \
                or n_points < 2:
            raise ValueError(f"n_points must be an integer >= 2, got {n_points!r}")
        cs = self.compiled(tol, purpose)
        pars = self._parameters(cs)
        state0 = self._consistent_start(cs, pars)
        grid = np.linspace(0.0, t_end, int(n_points))
        ta = cs.ta
        ta.time = 0.0
        ta.state[:] = state0
        ta.pars[:] = pars[: len(ta.pars)]
        monitor = _Monitor(cs, pars, singular_threshold)
        if projection:
            states, outcome = self._propagate_projected(cs, pars, grid, monitor)
        else:
            # no Python call per step when the monitor is off: heyoka itself stops on a
            # non-finite state (taylor_outcome.err_nf_state)
            res = ta.propagate_grid(grid, callback=monitor if monitor.active else None)
            outcome, states = res[0], res[5]
        n_valid = int(np.sum(grid <= ta.time)) if outcome != hy.taylor_outcome.time_limit \
            else len(grid)
        states = np.asarray(states[:n_valid])
        finite = np.all(np.isfinite(states), axis=1)
        if not np.all(finite):
            n_valid = int(np.argmin(finite))
            states = states[:n_valid]
        traj = self._trajectory(cs, pars, grid[:n_valid], states)
        if outcome not in (hy.taylor_outcome.time_limit, hy.taylor_outcome.success):
            reason = monitor.reason or (
                "non-finite state" if outcome == hy.taylor_outcome.err_nf_state
                else f"integrator stopped ({outcome})")
            t_last, s_last = monitor.last_valid(traj)
            raise SingularConfigurationError(reason, t_last, s_last, traj)
        return traj

    def _propagate_projected(self, cs, pars, grid, monitor):
        ta = cs.ta
        n = self.n_coordinates
        w = geo.coordinate_weights(self._data.bars)
        Mdiag = self._mass_diag()
        out = np.full((len(grid), 2 * n), np.nan)
        out[0] = ta.state
        outcome = hy.taylor_outcome.time_limit
        for k in range(1, len(grid)):
            outcome = ta.propagate_until(grid[k],
                                         callback=monitor if monitor.active else None)[0]
            if outcome != hy.taylor_outcome.time_limit:
                break
            s = ta.state.copy()

            geom = self._geometry_fn(cs, pars, grid[k])
            q, F, ok = geo.project_positions(s[:n], geom, w, tol=1e-15, max_iter=5)
            _, J = evaluate_geometry(cs, q, pars, grid[k], qd=s[n:])
            v = evaluate_outputs(cs, np.concatenate([q, s[n:]])[None, :], pars,
                                 grid[k])["velocity_residual"][0]
            qd = geo.project_velocities(s[n:], J, Mdiag, v)
            ta.state[:n] = q
            ta.state[n:] = qd
            out[k] = ta.state
        return out, outcome

    def _trajectory(self, cs, pars, t, states) -> Trajectory:
        n = self.n_coordinates
        states = states.reshape(-1, 2 * n)
        o = evaluate_outputs(cs, states, pars, t)
        row_owner = cs.symbolic.row_owner
        joints = copy.deepcopy(self._data.joints)
        return Trajectory(
            t=t, q=states[:, :n].copy(), qd=states[:, n:].copy(),
            constraint_labels=list(cs.symbolic.labels),
            kinetic_energy=o["kinetic_energy"], potential_energy=o["potential_energy"],
            position_residual=o["position_residual"], velocity_residual=o["velocity_residual"],
            info={"decomposition_size": cs.decomposition_size, "tol": cs.ta.tol,
                  "stabilization": self.stabilization,
                  "order": cs.ta.order, **{k: v for k, v in cs.timings.items()
                                           if k.endswith("_s")}},
            constraint_groups=constraint_groups(self._data, row_owner),
            dynamics_source=lambda: evaluate_dynamics(cs, states, pars, t),
            reaction_source=lambda lam: reactions_from_multipliers(lam, row_owner, joints),
        )

    # ------------------------------------------------------------------ numbers at a state
    def matrices(self, state: Sequence[float] | None = None, t: float = 0.0) -> dict:
        """Numeric ``M``, ``J``, ``W = J M⁻¹ Jᵀ``, ``lambda_mult`` and ``qdd`` at a state
        (default: the initial state) and time ``t`` (for driven constraints), with the rank of
        J, the degrees of freedom and the singularity measure (min pivot ratio of W in the
        factorization's row order, see :class:`Trajectory`). ``lambda_mult`` and ``qdd`` are
        those of the Lagrangian equations, without the stabilization terms of
        :meth:`simulate` (which vanish on the constraints anyway)."""
        n = self.n_coordinates
        arr = np.asarray(self.get_initial_state() if state is None else state, dtype=float)
        if arr.shape != (2 * n,):
            raise ValueError(f"state: expected {2 * n} values, got shape {arr.shape}")
        cs = self.compiled()
        pars = self._parameters(cs, stabilized=False)
        t = check_real(t, "t")
        _, J = evaluate_geometry(cs, arr[:n], pars, t, qd=arr[n:])
        Md = self._mass_diag()
        W = (J / Md[None, :]) @ J.T
        o = evaluate_dynamics(cs, arr[None, :], pars, t)
        rank, _ = geo.dependent_rows(J)
        return {"M": np.diag(Md), "J": J, "W": W, "lambda_mult": o["lambda_mult"][0],
                "qdd": o["qdd"][0], "labels": list(cs.symbolic.labels), "rank_J": rank,
                "dof": n - rank, "singularity": float(o["singularity"][0])}


class _Monitor:
    """Step callback: stops the integration at a singular pose or a non-finite state."""

    def __init__(self, cs: CompiledSystem, pars: np.ndarray, threshold: float):
        self.cs = cs
        self.pars = pars
        self.threshold = threshold
        self.reason: str | None = None
        self.last_t = 0.0
        self.last_state = np.array(cs.ta.state)
        self.active = cs.m > 0 and threshold > 0

    def __call__(self, ta) -> bool:
        s = ta.state
        if not np.all(np.isfinite(s)):
            self.reason = "non-finite state"
            return False
        if self.active:
            sing = evaluate_singularity(self.cs, s, self.pars, ta.time)
            if not sing > self.threshold:
                self.reason = (f"near-singular pose: min pivot ratio of W {sing:.3g} below "
                               f"{self.threshold:g}")
                return False
        self.last_t = ta.time
        self.last_state = s.copy()
        return True

    def last_valid(self, traj: Trajectory) -> tuple[float, np.ndarray]:
        return self.last_t, self.last_state



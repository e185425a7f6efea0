"""Compiled code, checks and simulation of a bar model: the :class:`Simulator`.

A :class:`Simulator` owns the cache of compiled systems (one per topology, tolerance and
compile options; :mod:`quivira.model.compiled`) and computes everything that needs them from a
model's data, which it is given explicitly with every call (a
:class:`~quivira.model.data.ModelData` snapshot and the model's tolerance).

``simulate`` checks the initial state first: positions must satisfy the holonomic
constraints within the tolerance (ValueError naming the rows otherwise; ``assemble()`` fixes
drawn poses), the switched-on constraint rows must be independent (ValueError naming the
dependent rows), and velocities violating the velocity constraints are projected onto them in
the mass metric with a :class:`ConstraintWarning`. Tolerances are relative to the model's
length scale (:meth:`~quivira.model.data.ModelData.length_scale`), and the rank test scales
the columns of J by the bar lengths, so that a model and a scaled copy get the same verdicts.

Thread safety: one model may be simulated from several threads; the runs take turns on the
model's compiled integrator (a lock), so each gets its own correct trajectory.
"""

from __future__ import annotations

import collections
import threading
import weakref
from collections import OrderedDict
from typing import Any

import heyoka as hy
import numpy as np

from .._warnings import warn_caller
from ..budget import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    MAX_OUTPUT_BYTES,
    Budget,
    interrupt_seen,
    interrupts_polled,
)
from ..budget import check_output_bytes as _check_output_bytes
from . import contacts
from . import geometry as geo
from .compiled import (
    ABOVE_RATIOS,
    DEFAULT_TOL_CHOICES,
    CompiledSystem,
    active_rows,
    compile_system,
    default_compile_options,
    default_tolerance,
    evaluate_dynamics,
    evaluate_geometry,
    evaluate_outputs,
    event_values,
    is_monitor_event,
)
from .data import ModelData
from .determinacy import StartPose
from .results import AssemblyReport, ConstraintCheck, Sparsity, StateMatrices
from .singular_window import (
    WINDOW_SCALE,
    all_regular,
    constraint_acceleration,
    find_exit,
    window_indices,
)
from .symbolic import coordinate_names, joint_bodies, parameter_layout, topology_key
from .trajectory import (
    BudgetExceededError,
    SimulationInterrupted,
    SingularConfigurationError,
    Trajectory,
)
from .validation import check_flag, check_positive, check_real

SOLVERS = ("ordered", "lu")
#: an element with this many events within :data:`CHATTER_SPAN` of the run's length stops the
#: run (impacts without end: a Zeno motion, or a switch that chatters)
CHATTER_EVENTS = 1000
#: see :data:`CHATTER_EVENTS`
CHATTER_SPAN = 1e-6
#: re-exported: the budgets of ``simulate`` are those of every long call
__all__ = ["DEFAULT_MAX_STEPS", "DEFAULT_MAX_WALL_S", "MAX_OUTPUT_BYTES"]


def _check_count(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer >= {minimum}, got {value!r}")
    if value < minimum:
        raise ValueError(f"{what} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_tol(tol: Any) -> float:
    v = check_positive(tol, "tol")
    if v >= 1.0:
        raise ValueError(f"tol must be below 1 (a relative integration tolerance such as 1e-12), "
                         f"got {v:g}")
    return v


def _check_threshold(value: Any) -> float:
    v = check_real(value, "singular_threshold")
    if not 0.0 <= v < 1.0:
        raise ValueError("singular_threshold must lie in [0, 1) (a pivot ratio; 0 switches the "
                         f"monitor off), got {v:g}")
    return v


def _check_purpose(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"purpose must be 'interactive' or 'long', got {value!r}")
    if value not in ("interactive", "long"):
        raise ValueError(f"purpose must be 'interactive' or 'long', got {value!r}")
    return value


class ConstraintWarning(UserWarning):
    """Initial velocities were made consistent with the constraints (projected)."""


class SingularPassWarning(UserWarning):
    """Passing a singular pose changed the energy balance more than the tolerance allows.

    The motion after it may be inaccurate.
    """


#: relative change of the energy balance across a singular pose above which a run warns
SINGULAR_PASS_TOLERANCE = 1e-7


def mass_diagonal(data: ModelData) -> np.ndarray:
    """Return the diagonal of M (:meth:`~quivira.model.data.ModelData.mass_diagonal`)."""
    return data.mass_diagonal()


def initial_state(data: ModelData, what: str = "get_initial_state") -> np.ndarray:
    """``[q..., qd...]`` of the bars' initial poses and velocities."""
    q, qd = [], []
    for i, b in enumerate(data.bars):
        if b.pose is None:
            raise ValueError(
                f"{what}: bar {i} has no initial pose yet; call set_init_bar_attitude({i}, x0, "
                "y0, theta0) first")
        q.extend(b.pose[:b.n_coordinates])
        qd.extend(b.velocity[:b.n_coordinates])
    return np.array(q + qd, dtype=float)


class DynamicsSource:
    """Computes the multipliers, accelerations and singularity measure on first use.

    Of a trajectory's states (see :class:`~quivira.model.trajectory.Trajectory`).

    Holds a weak reference to the compiled system (a trajectory does not keep compiled code
    alive) and the model data it was made from, to compile again if the system is gone.
    """

    def __init__(self, cs: CompiledSystem, data: ModelData, solver: str, states: np.ndarray,
                 pars: np.ndarray, t: np.ndarray, excluded: frozenset = frozenset()) -> None:
        self._cs = weakref.ref(cs)
        self._key = (cs.tol, dict(cs.options), solver, excluded)
        self._data = data
        self.states, self.pars, self.t = states, pars, t

    def system(self) -> CompiledSystem:
        """Return the compiled system (compiled again if it is gone)."""
        cs = self._cs()
        if cs is None:
            tol, options, solver, excluded = self._key
            cs = compile_system(self._data, tol, options, solver, excluded, integrator=False)
            self._cs = weakref.ref(cs)
            self._keep = cs  # compiled for this trajectory: keep it while it is needed
        return cs

    def __call__(self) -> dict:
        """Evaluate the multipliers, accelerations and singularity measure of the states."""
        return evaluate_dynamics(self.system(), self.states, self.pars, self.t)


class RedundantDynamics:
    r"""Multipliers of every row of a model with redundant rows.

    The motion comes from an independent subset (``reduced``), whose generalized constraint force
    :math:`J_r^T\lambda_r` every row shares; the reported :math:`\lambda` is the
    minimum-norm solution of :math:`J^T\lambda = J_r^T\lambda_r` (not unique: any null
    vector of :math:`J^T` may be added).
    """

    def __init__(self, reduced: DynamicsSource, full: DynamicsSource) -> None:
        self.reduced, self.full = reduced, full
        self.states, self.pars, self.t = full.states, full.pars, full.t

    def __call__(self) -> dict:
        """Evaluate the reduced dynamics and spread λ over every row (minimum norm)."""
        out = self.reduced()
        full, red_cs = self.full.system(), self.reduced.system()
        n = full.n
        lam = np.zeros((self.states.shape[0], full.m))
        t = np.broadcast_to(np.asarray(self.t, dtype=float), (self.states.shape[0],))
        for i, s in enumerate(self.states):
            p_full = self.pars[i] if np.ndim(self.pars) == 2 else self.pars
            p_red = (self.reduced.pars[i] if np.ndim(self.reduced.pars) == 2
                     else self.reduced.pars)
            _, J = evaluate_geometry(full, s[:n], p_full, t[i], qd=s[n:])
            _, Jr = evaluate_geometry(red_cs, s[:n], p_red, t[i], qd=s[n:])
            force = Jr.T @ out["lambda_mult"][i]
            lam[i] = np.linalg.lstsq(J.T, force, rcond=None)[0]
        return {**out, "lambda_mult": lam}


class Simulator:
    r"""Compiled-code cache, checks, assembly and simulation (see the module docstring).

    Parameters
    ----------
    solver : {"ordered", "lu"}
        How :math:`W\lambda = r` is solved symbolically (``"ordered"``: fill-reducing
        symmetric permutation and :math:`LDL^T`, smaller on lattices and chains).
    cache_size : int
        How many compiled systems are kept (least recently used dropped first).
    """

    def __init__(self, solver: str = "ordered", cache_size: int = 8) -> None:
        self.solver = solver
        self.cache_size = cache_size
        self._cache: OrderedDict[tuple, CompiledSystem] = OrderedDict()
        #: one integrator per compiled system: runs from several threads take turns
        self._lock = threading.RLock()

    # ------------------------------------------------------------------ settings
    @property
    def solver(self) -> str:
        """``"ordered"`` or ``"lu"`` (see the class docstring)."""
        return self._solver

    @solver.setter
    def solver(self, value: Any) -> None:
        if not isinstance(value, str):
            raise TypeError(f"solver must be one of {SOLVERS}, got {value!r}")
        if value not in SOLVERS:
            raise ValueError(f"solver must be one of {SOLVERS}, got {value!r}")
        self._solver = value

    @property
    def cache_size(self) -> int:
        """Number of compiled systems kept (>= 1)."""
        return self._cache_size

    @cache_size.setter
    def cache_size(self, value: Any) -> None:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"cache_size must be an integer >= 1, got {value!r}")
        if value < 1:
            raise ValueError(f"cache_size must be an integer >= 1, got {value!r}")
        self._cache_size = int(value)
        if hasattr(self, "_cache"):
            self._trim()

    def _trim(self) -> None:
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    # ------------------------------------------------------------------ compiled code
    def _key(self, data: ModelData, tol: float, purpose: str,
             excluded: frozenset = frozenset()) -> tuple:
        opts = default_compile_options(data.n_coordinates(), purpose)
        return (topology_key(data), tol, tuple(sorted(opts.items())), self.solver,
                tuple(sorted(excluded, key=str)))

    def default_tol(self, data: ModelData, purpose: str = "interactive",
                    t_end: float | None = None, excluded: frozenset = frozenset()
                    ) -> tuple[float, str]:
        """Return ``(tol, rule)``: the tolerance a call without ``tol`` uses, and why.

        :func:`~quivira.model.compiled.default_tolerance` of the model's size, ``t_end`` and
        time scale, unless that code is not compiled but code of this topology at another
        tolerance of the default rule is (an edit of t_end in a widget must not compile
        again): then that one.
        """
        want = default_tolerance(data.n_coordinates(), t_end, data.time_scale())
        if self._key(data, want, purpose, excluded) in self._cache:
            return want, "default for the model's size and run"
        for tol in DEFAULT_TOL_CHOICES:
            if tol != want and self._key(data, tol, purpose, excluded) in self._cache:
                return tol, (f"default, re-using the code compiled at tol {tol:g} (the rule "
                             f"gives {want:g} for this run)")
        return want, "default for the model's size and run"

    def is_compiled(self, data: ModelData, tol: float | None = None,
                    purpose: str = "interactive", t_end: float | None = None) -> bool:
        """Whether :meth:`simulate` with these options would reuse compiled code."""
        if tol is None:
            tol, _ = self.default_tol(data, purpose, t_end)
        return self._key(data, tol, purpose) in self._cache

    def compiled(self, data: ModelData, tol: float | None = None, purpose: str = "interactive",
                 *, dynamics: bool = False, excluded: frozenset = frozenset(),
                 integrator: bool = True, t_end: float | None = None) -> CompiledSystem:
        """Return the compiled system of the topology of ``data`` (built once, then cached).

        With ``dynamics`` also the function of multipliers and accelerations; without the
        (redundant) rows ``excluded``. With ``integrator`` (default) the Taylor integrator
        starts compiling in a background thread at once; without it, on first use. Without
        ``tol``, the default for a run of ``t_end`` (:meth:`default_tol`).
        """
        if tol is None:
            tol, _ = self.default_tol(data, purpose, t_end, excluded)
        key = self._key(data, tol, purpose, excluded)
        with self._lock:
            cs = self._cache.get(key)
            if cs is None:
                if not data.bars:
                    raise ValueError("the model has no bars; add a bar first")
                cs = compile_system(data, tol,
                                    default_compile_options(data.n_coordinates(), purpose),
                                    self.solver, excluded, integrator)
                self._cache[key] = cs
                self._trim()
            else:
                self._cache.move_to_end(key)
        if dynamics:
            cs.dynamics  # noqa: B018 - compiles on access
        return cs

    @property
    def n_cached(self) -> int:
        """Number of compiled systems in the cache."""
        return len(self._cache)

    @staticmethod
    def parameters(data: ModelData, cs: CompiledSystem, *, stabilized: bool = True,
                   threshold: float | None = None) -> np.ndarray:
        """Return the runtime parameter vector of ``cs`` for ``data`` (base and derived).

        ``stabilized=False`` sets the Baumgarte rate to 0: the accelerations and multipliers of
        the exact Lagrangian equations at any state (for inspection); ``threshold`` is the
        singularity monitor's (default 1e-8).
        """
        layout = parameter_layout(data)
        base = np.array([v for _, v in layout], dtype=float)
        if not stabilized:
            base[-1] = 0.0  # ("stabilization",), last in parameter_layout
        if threshold is not None:
            base[[k for k, (key, _) in enumerate(layout)
                  if key == ("singular_threshold",)]] = threshold
        return cs.parameters(base)

    @staticmethod
    def geometry_fn(cs: CompiledSystem, pars: np.ndarray, t: float = 0.0):
        """``q -> (F, J)`` of the holonomic rows only (what positions must satisfy)."""
        k = cs.n_holonomic

        def fn(q):
            F, J = evaluate_geometry(cs, q, pars, t)
            return F[:k], J[:k]

        return fn

    @staticmethod
    def active_rows(data: ModelData, cs: CompiledSystem) -> np.ndarray:
        """Return the mask of the constraint rows that are switched on in ``data``.

        The flags are runtime parameters: the compiled system's rows, the data's flags.
        """
        return active_rows(data, cs)

    @staticmethod
    def constraint_groups(data: ModelData, cs: CompiledSystem) -> dict:
        """Return the rows and current data of every named constraint.

        For :meth:`Trajectory.constraint_output`.
        """
        rows: dict[tuple, list[int]] = {}
        for col, (kind, pos, *_) in enumerate(cs.assembly.collected.owners):
            rows.setdefault((kind, pos), []).append(col)
        return {el.name: {"kind": kind.kind, "rows": rows.get((kind.kind, pos), []),
                          **el.group()} for kind, pos, el in data.named()}

    # ------------------------------------------------------------------ checks
    def check(self, data: ModelData, tolerance: float, state: Any, t: float = 0.0
              ) -> ConstraintCheck:
        """Constraint residuals at ``state = [q..., qd...]`` and time ``t``."""
        n = data.n_coordinates()
        arr = np.asarray(state, dtype=float)
        if arr.shape != (2 * n,):
            raise ValueError(f"state: expected {2 * n} values ([q, qd] for {len(data.bars)} "
                             f"bars), got shape {arr.shape}")
        cs = self.compiled(data)
        pars = self.parameters(data, cs)
        t = check_real(t, "t")
        F, _ = evaluate_geometry(cs, arr[:n], pars, t)
        v = evaluate_outputs(cs, arr[None, :], pars, t)["velocity_residual"][0]
        mp = float(np.max(np.abs(F))) if F.size else 0.0
        mv = float(np.max(np.abs(v))) if v.size else 0.0
        scale = data.length_scale()
        ok = mp <= tolerance * scale and mv <= tolerance * scale
        return ConstraintCheck(labels=list(cs.labels), position=F, velocity=v,
                               max_position=mp, max_velocity=mv, tolerance=tolerance,
                               satisfied=bool(ok), length_scale=scale)

    def degrees_of_freedom(self, data: ModelData) -> int:
        r""":math:`n - \operatorname{rank} J` at the initial pose."""
        cs = self.compiled(data)
        n = data.n_coordinates()
        _, J = evaluate_geometry(cs, initial_state(data)[:n], self.parameters(data, cs))
        rank, _ = geo.dependent_rows(J, data.coordinate_weights())
        return n - rank

    def assemble(self, data: ModelData, tolerance: float, max_iter: int = 50
                 ) -> tuple[np.ndarray, AssemblyReport]:
        r"""Move the initial poses the least to satisfy every constraint.

        The velocities are projected onto :math:`J\dot q = 0`; returns ``(new state, report)``.
        """
        cs = self.compiled(data)
        pars = self.parameters(data, cs)
        n = data.n_coordinates()
        state = initial_state(data)
        q0 = state[:n]
        w = data.coordinate_weights()
        tolerance = tolerance * data.length_scale()
        q, F, ok = geo.project_positions(q0, self.geometry_fn(cs, pars), w,
                                         tol=0.01 * tolerance, max_iter=max_iter)
        if not ok or (F.size and np.max(np.abs(F)) > tolerance):
            worst = np.argsort(-np.abs(F))[:5]
            names = [f"{cs.labels[k]} (residual {abs(F[k]):.3g})" for k in worst
                     if abs(F[k]) > tolerance]
            raise ValueError("assemble: the constraints cannot all be met from this pose; "
                             "worst: " + ", ".join(names))
        _, J = evaluate_geometry(cs, q, pars, qd=state[n:])
        v = evaluate_outputs(cs, np.concatenate([q, state[n:]])[None, :],
                             pars)["velocity_residual"][0]
        qd = geo.project_velocities(state[n:], J, mass_diagonal(data), v)
        dq = [(q - q0)[o:o + b.n_coordinates] for o, b in zip(data.offsets(), data.bars)]
        report = AssemblyReport(
            moved={i: tuple(float(x) for x in dq[i]) for i in range(len(data.bars))
                   if np.any(np.abs(dq[i]) > 0)},
            max_move=float(np.max(np.abs(q - q0))) if q.size else 0.0,
            residual=float(np.max(np.abs(F))) if F.size else 0.0)
        return np.concatenate([q, qd]), report

    @staticmethod
    def redundant_rows(data: ModelData, cs: CompiledSystem, J: np.ndarray) -> list[int]:
        """Return the rows that repeat what the others already constrain at ``J``.

        Scanning the switched-on rows in order, each row that does not raise the (scale-aware)
        rank is redundant.
        """
        active = np.nonzero(Simulator.active_rows(data, cs))[0]
        rank, rows = geo.dependent_rows(J[active], data.coordinate_weights())
        if not rows:
            return []
        kept: list[int] = []
        out: list[int] = []
        for k in active:
            trial = kept + [int(k)]
            r, _ = geo.dependent_rows(J[trial], data.coordinate_weights())
            (kept if r == len(trial) else out).append(int(k))
        return out

    def consistent_start(self, data: ModelData, tolerance: float, cs: CompiledSystem,
                         pars: np.ndarray) -> np.ndarray:
        """Check the initial state: positions, redundancy, velocities (projected, warning).

        Redundant rows are not an error here (see :meth:`simulate`).
        """
        n = data.n_coordinates()
        state = initial_state(data, "simulate")
        F, J = evaluate_geometry(cs, state[:n], pars, qd=state[n:])
        labels = cs.labels
        scale = data.length_scale()
        if F.size:
            bad = np.nonzero(np.abs(F) > tolerance * scale)[0]
            if bad.size:
                parts = [f"{labels[k]} off by {F[k]:.3g}" for k in bad[:6]]
                raise ValueError(
                    "initial positions violate constraints: " + "; ".join(parts)
                    + ("; ..." if bad.size > 6 else "")
                    + f" (tolerance {tolerance:g} × length scale {scale:g}); fix the poses or "
                    "call model.assemble()")
            v = evaluate_outputs(cs, state[None, :], pars)["velocity_residual"][0]
            if np.max(np.abs(v)) > tolerance * scale:
                worst = int(np.argmax(np.abs(v)))
                qd = geo.project_velocities(state[n:], J, mass_diagonal(data), v)
                warn_caller(
                    f"initial velocities violate the velocity constraints (largest: "
                    f"{labels[worst]}, {v[worst]:.3g}); they were projected onto them (least "
                    "change in the kinetic-energy metric)", ConstraintWarning)
                state[n:] = qd
        return state

    # ------------------------------------------------------------------ simulation
    @interrupts_polled()
    def simulate(self, data: ModelData, tolerance: float, t_end: float, n_points: int = 201,
                 *, tol: float | None = None, projection: bool = False,
                 singular_threshold: float = 1e-8, purpose: str = "interactive",
                 max_steps: int = DEFAULT_MAX_STEPS,
                 max_wall_s: float = DEFAULT_MAX_WALL_S, singular: str = "pass",
                 cancel: threading.Event | None = None) -> Trajectory:
        """Integrate the motion from the initial state of ``data`` over ``[0, t_end]``.

        See :meth:`quivira.bar_joint_model.simulate`. ``cancel``: an event another thread sets
        to stop the run at its next chunk (:class:`~quivira.budget.Budget`); the run then
        raises :class:`BudgetExceededError` with the trajectory so far.
        """
        if singular not in ("pass", "stop"):
            raise ValueError(f"singular must be 'pass' or 'stop', got {singular!r}")
        t_end = check_positive(t_end, "t_end")
        n_points = _check_count(n_points, "n_points", 2)
        singular_threshold = _check_threshold(singular_threshold)
        purpose = _check_purpose(purpose)
        projection = check_flag(projection, "projection")
        budget = Budget(max_steps, max_wall_s, cancel)
        n = data.n_coordinates()
        with self._lock:
            if tol is None:
                tol, tol_rule = self.default_tol(data, purpose, t_end)
            else:
                tol, tol_rule = _check_tol(tol), "given"
            full = self.compiled(data, tol, purpose)
            _check_output_bytes(n_points * 8 * (4 * n + 4 * full.m + 4),
                                f"n_points = {n_points} for this model", "use fewer n_points")
            grid = np.linspace(0.0, t_end, n_points)
            pars = self.parameters(data, full, threshold=singular_threshold)
            state0 = self.consistent_start(data, tolerance, full, pars)
            _, J = evaluate_geometry(full, state0[:n], pars, qd=state0[n:])
            redundant = self.redundant_rows(data, full, J)
            cs = full
            if redundant:  # integrate with an independent subset of the rows
                ids = full.assembly.collected.row_ids
                cs = self.compiled(data, tol, purpose,
                                   excluded=frozenset(ids[k] for k in redundant))
                pars = self.parameters(data, cs, threshold=singular_threshold)
            ta = cs.ta
            ta.time = 0.0
            ta.state[:] = 0.0  # the ledger's work and dissipation (if any) start at 0
            ta.state[: 2 * n] = state0
            ta.pars[:] = pars[: len(ta.pars)]
            if cs.terminal_events or cs.recorded_events:
                ta.reset_cooldowns()
            run = _Run(self, data, cs, pars, grid, projection, budget)
            run.full, run.redundant, run.singular = full, redundant, singular
            try:
                run.propagate()
            except KeyboardInterrupt:
                interrupt_seen()
                traj = run.trajectory()
                raise SimulationInterrupted(run.last_t, traj) from None
            traj = run.trajectory()
            monitor = ("off: J has full rank at every pose" if not cs.monitor
                       else "on" if singular_threshold > 0 else "off: threshold 0")
            traj.info.update({"tol_rule": tol_rule, "singularity_monitor": monitor,
                              **{k: cs.options[k] for k in ("compact_mode", "opt_level")}})
            if run.exhausted is not None:
                raise BudgetExceededError(run.exhausted, run.last_t, run.last_state, traj)
            if run.failure is not None:
                raise SingularConfigurationError(run.failure, run.last_t, run.last_state, traj)
            return traj

    def trajectory(self, data: ModelData, cs: CompiledSystem, pars: np.ndarray,
                   t: np.ndarray, states: np.ndarray) -> Trajectory:
        """Build the :class:`Trajectory` of integrator ``states`` at times ``t``.

        ``pars`` is one parameter vector, or one per state when constraints switched during the
        run.
        """
        n = data.n_coordinates()
        states = np.asarray(states, dtype=float).reshape(len(t), -1)
        o = evaluate_outputs(cs, states, pars, t)
        col = cs.assembly.collected
        q_names, qd_names = coordinate_names(data)
        zeros = np.zeros(len(t))
        ledger = states.shape[1] > 2 * n
        source = DynamicsSource(cs, data, self.solver, states[:, :2 * n], pars, t)
        return Trajectory(
            t=t, q=states[:, :n].copy(), qd=states[:, n:2 * n].copy(),
            constraint_labels=list(col.labels),
            kinetic_energy=o["kinetic_energy"], potential_energy=o["potential_energy"],
            position_residual=o["position_residual"], velocity_residual=o["velocity_residual"],
            # (not heyoka's decomposition size: copying it out costs 0.5 s on a 500-bar
            # lattice; CompiledSystem.decomposition_size gives it on demand)
            info={"tol": cs.ta.tol,
                  "stabilization": data.stabilization,
                  "order": cs.ta.order, **{k: v for k, v in cs.timings.items()
                                           if k.endswith("_s")}},
            constraint_groups=self.constraint_groups(data, cs),
            reaction_map=[(key, list(terms)) for key, terms in col.reaction_map],
            coordinate_names=q_names, velocity_names=qd_names,
            bodies=[b.copy() for b in data.bars], joint_bodies=joint_bodies(data),
            gravity_energy=o["gravity_energy"], load_potential=o["load_potential"],
            elastic_energy=o["elastic_energy"],
            work_in=states[:, 2 * n].copy() if ledger else zeros,
            dissipated=states[:, 2 * n + 1].copy() if ledger else zeros.copy(),
            power_in=o["power_in"], power_dissipated=o["dissipation"],
            load_power=o["load_power"], load_forces=o["load_forces"], nonconservative=ledger,
            energy_scale=data.energy_scale(),
            dynamics_source=source, determinacy_source=StartPose(source),
        )

    # ------------------------------------------------------------------ numbers at a state
    def matrices(self, data: ModelData, state: Any = None, t: float = 0.0, *,
                 stabilized: bool = False) -> StateMatrices:
        """Return numeric M, J, W, λ and q̈ at a state (default: the initial state).

        Without the stabilization terms unless ``stabilized`` (see
        :meth:`quivira.bar_joint_model.matrices`).
        """
        n = data.n_coordinates()
        arr = np.asarray(initial_state(data, "matrices") if state is None else state,
                         dtype=float)
        if arr.shape != (2 * n,):
            raise ValueError(f"state: expected {2 * n} values, got shape {arr.shape}")
        cs = self.compiled(data)
        pars = self.parameters(data, cs, stabilized=check_flag(stabilized, "stabilized"))
        t = check_real(t, "t")
        _, J = evaluate_geometry(cs, arr[:n], pars, t, qd=arr[n:])
        Md = mass_diagonal(data)
        W = (J / Md[None, :]) @ J.T
        o = evaluate_dynamics(cs, arr[None, :], pars, t)
        lam, qdd = o["lambda_mult"][0], o["qdd"][0]
        redundant = self.redundant_rows(data, cs, J)
        if redundant:  # W is singular: the motion of an independent subset of the rows,
            # λ of every row the minimum-norm solution of Jᵀλ = J_rᵀλ_r (as in a Trajectory)
            ids = cs.assembly.collected.row_ids
            reduced = self.compiled(data, excluded=frozenset(ids[k] for k in redundant))
            p_red = self.parameters(data, reduced, stabilized=stabilized)
            o_red = evaluate_dynamics(reduced, arr[None, :], p_red, t)
            _, J_red = evaluate_geometry(reduced, arr[:n], p_red, t, qd=arr[n:])
            lam = np.linalg.lstsq(J.T, J_red.T @ o_red["lambda_mult"][0], rcond=None)[0]
            qdd = o_red["qdd"][0]
        rank, _ = geo.dependent_rows(J, data.coordinate_weights())
        return StateMatrices(M=np.diag(Md), J=J, W=W, lambda_mult=lam, qdd=qdd,
                             labels=list(cs.labels), rank_J=rank, dof=n - rank,
                             singularity=float(o["singularity"][0]))

    def sparsity(self, data: ModelData) -> Sparsity:
        """Structural non-zeros of M, J and W of the compiled equations."""
        cs = self.compiled(data)
        parts = cs.parts
        n, m = cs.n, cs.m

        def pattern(rows, n_cols):
            out = np.zeros((len(rows), n_cols), dtype=bool)
            for i, r in enumerate(rows):
                out[i, list(r)] = True
            return out

        return Sparsity(M=pattern(parts.M_rows, n), J=pattern(parts.J_rows, n),
                        W=pattern(parts.W_rows, m))

    def symbolic_entry(self, data: ModelData, which: str, row: Any, col: Any = None):
        """Return one entry of M, J, W or λ of the compiled equations.

        See :meth:`quivira.bar_joint_model.symbolic_entry`.
        """
        if not isinstance(which, str):
            raise TypeError(f"which must be 'M', 'J', 'W' or 'lambda', got {which!r}")
        if which not in ("M", "J", "W", "lambda"):
            raise ValueError(f"which must be 'M', 'J', 'W' or 'lambda', got {which!r}")
        cs = self.compiled(data)
        parts = cs.parts
        n_rows = {"M": cs.n, "J": cs.m, "W": cs.m, "lambda": cs.m}[which]
        n_cols = {"M": cs.n, "J": cs.n, "W": cs.m}.get(which)
        i = _entry_index(row, n_rows, f"{which} row")
        if which == "lambda":
            entry = parts.lambda_mult[i]
        else:
            j = _entry_index(col, n_cols, f"{which} column")
            rows = {"M": parts.M_rows, "J": parts.J_rows, "W": parts.W_rows}[which]
            entry = rows[i].get(j, 0.0)
        if isinstance(entry, hy.expression):
            entry = cs.expand_parameters([entry])[0]
        return entry


def _entry_index(value: Any, count: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {value!r}")
    if not 0 <= int(value) < count:
        raise ValueError(f"{what} {int(value)} out of range (0 to {count - 1})")
    return int(value)


class _Run:
    """One integration over an output grid, in chunks of integrator steps.

    Between chunks Python code runs, so Ctrl-C (a kernel interrupt) is raised at once, a
    cancellation from another thread is seen, and the budgets are checked
    (:class:`~quivira.budget.Budget`); each chunk has a number of steps that depends on the
    size of the system only (:func:`~quivira.budget.chunk_steps`), so the steps, hence the
    results, are the same whatever the machine's load. With ``projection`` every output point
    is reached separately and the state is projected onto the constraints there. A terminal
    event stops a chunk at the event's time (located by heyoka on the Taylor series); its
    element reacts (:meth:`Element.on_event`, through :class:`~quivira.model.contacts.RunActions`:
    switch rows, apply an impulse, record, stop) and the integration goes on from there with
    the same compiled code. Switches change runtime parameters, so every output row keeps the
    parameter vector it was computed with. The instant t = 0 is settled first
    (:func:`quivira.model.contacts.start`), so the first output row is that of the settled
    state.
    """

    def __init__(self, sim, data, cs, pars, grid, projection, budget: Budget):
        self.sim, self.data, self.cs, self.grid = sim, data, cs, grid
        self.n = data.n_coordinates()
        self.pars = np.array(pars)
        self.base = np.array(pars[: cs.coefficients.n_base])
        self.projection = projection
        self.budget = budget
        #: work of one Taylor step, which sizes the chunks (see quivira.budget.chunk_steps)
        self.cost = cs.step_cost
        self.rows = [np.array(cs.ta.state)]
        self.row_base = [self.base]
        self.full, self.redundant = cs, []
        self.outcome = hy.taylor_outcome.time_limit
        self.n_events = 0
        self.pending_records: list = []
        self.wall_s = 0.0
        #: why the budget stopped the run (a sentence), or None
        self.exhausted: str | None = None
        self.failure: str | None = None
        self.stopped = False
        self.last_t = 0.0
        self.last_state = self.rows[0].copy()
        self.events: list[dict] = []
        #: time of each element's last event, by switch key
        self.last_event: dict = {}
        #: times of each element's recent events (chatter detection)
        self.recent: dict = {}
        self.index = {key: k for k, (key, _) in enumerate(parameter_layout(data))}
        self.singular = "pass"
        self.threshold = 0.0
        self.unilateral = contacts.unilateral_keys(self)
        #: the recorded events whose function is zero at t = 0 (recorded once, at the start)
        self.started_at_zero: set = set()
        cs.event_log.clear()

    @property
    def steps(self) -> int:
        """Integrator steps taken so far."""
        return self.budget.steps

    # ------------------------------------------------------------------ the loop
    def start(self) -> None:
        """Settle t = 0 (impacts, locks, resting contacts) and take the first output row.

        The energy ledger counts from the settled state: what an impact at t = 0 loses is in
        its record (``kinetic_energy_lost``), not in ``dissipated``, so that
        :math:`E(t) - E(0) = W_{in}(t) - D(t)` holds from the first row on.
        """
        contacts.start(self)
        self.flush_records()
        self.cs.ta.state[2 * self.n:] = 0.0
        self._skip_events_at_start()
        self.rows[0] = np.array(self.cs.ta.state)
        self.row_base[0] = self.base
        self.last_state = self.rows[0].copy()

    def _skip_events_at_start(self) -> None:
        """Check the user's events whose function is zero at t = 0.

        A function that starts at zero does not cross it there. A recorded event is recorded
        once at t = 0 (heyoka would see it at the start of every first step); a terminal one
        is an error, since it would end the run before it starts.
        """
        ta = self.cs.ta
        state = np.array(ta.state)
        values = event_values(self.cs, state, self.pars, float(ta.time))
        for ev in self.cs.terminal_events + self.cs.recorded_events:
            if values.get(id(ev), 1.0) != 0.0:
                continue
            el = self.data.elements[ev["kind"].collection][ev["position"]]
            if ev in self.cs.terminal_events:
                raise ValueError(
                    f"the terminal event {el.name!r} is zero at the initial state (t = 0): it "
                    "would end the run before it starts; shift its expression or the initial "
                    "state")
            self.events.append({"t": float(ta.time), "name": el.name, "what": "event",
                                "direction": "start", "state": state[:2 * self.n].copy()})
            self.started_at_zero.add(self.cs.recorded_events.index(ev))

    def flush_records(self) -> None:
        """Move the records queued by the last event onto the run's events."""
        self.events.extend(self.pending_records)
        self.pending_records = []

    def propagate(self) -> None:
        ta, grid = self.cs.ta, self.grid
        budget = self.budget
        self.start()
        guarded = first_step_guard(ta, grid[1] - grid[0], self.cs.event_log)
        if guarded is not None and -len(self.cs.terminal_events) <= int(guarded) < 0:
            self.on_event(self.cs.terminal_events[-int(guarded) - 1])
        k = 1
        while k < len(grid) and not self.stopped:
            if grid[k] <= ta.time:  # a guarded step or an event ended on an output time
                self._append(np.array(ta.state), grid[k])
                k += 1
                continue
            reason = budget.exceeded(float(ta.time))
            if reason is not None:
                self.exhausted = reason
                break
            sub = grid[k:k + 1] if self.projection else grid[k:]
            g = np.concatenate([[ta.time], sub])
            res = ta.propagate_grid(g, max_steps=budget.chunk(self.cost))
            self.outcome, states = res[0], np.asarray(res[5])
            budget.add(res[3])
            new = [s for s in states[1:]]
            while new and not np.all(np.isfinite(new[-1])):
                new.pop()
            for s in new:
                self._append(s, grid[k])
                k += 1
            if np.all(np.isfinite(ta.state)) and np.isfinite(ta.time):
                self.last_t, self.last_state = float(ta.time), np.array(ta.state)
            elif self.rows:
                self.last_t, self.last_state = float(grid[len(self.rows) - 1]), self.rows[-1]
            code = int(self.outcome)
            if -len(self.cs.terminal_events) <= code < 0:  # terminal event number -code - 1
                self.on_event(self.cs.terminal_events[-code - 1])
                k = len(self.rows)  # a singular pose's window appends its own rows
                self.n_events += 1
                if self.n_events > budget.max_steps:
                    self.exhausted = (f"stopped after {self.n_events} events at t = "
                                      f"{self.last_t:.6g} s (more than max_steps = "
                                      f"{budget.max_steps}); an event chatters")
                    break
                if self.failure is None and not self.stopped:
                    self.failure = contacts.check(self)
                if self.failure is not None:
                    break
                continue
            if self.outcome not in (hy.taylor_outcome.time_limit, hy.taylor_outcome.step_limit):
                self.failure = ("non-finite state" if self.outcome == hy.taylor_outcome.err_nf_state
                                else f"integrator stopped ({self.outcome})")
                break
            self.failure = contacts.check(self)
            if self.failure is not None:
                break
        self.wall_s = budget.wall_s
        if not self.stopped and self.failure is None and self.exhausted is None:
            self.outcome = hy.taylor_outcome.time_limit

    def _append(self, state: np.ndarray, t: float) -> None:
        if self.projection:
            state = self._projected(state, t)
        self.rows.append(state)
        self.row_base.append(self.base)

    # ------------------------------------------------------------------ events
    def dispatch(self, key: tuple, role: str) -> None:
        """Let the element ``key`` act on its event ``role`` and record what happened."""
        element = contacts.element(self, key)
        now = float(self.cs.ta.time)
        recent = self.recent.setdefault(key, collections.deque(maxlen=CHATTER_EVENTS))
        recent.append(now)
        if (len(recent) == CHATTER_EVENTS
                and now - recent[0] <= CHATTER_SPAN * float(self.grid[-1])):
            self.exhausted = (
                f"stopped at t = {now:.6g} s: {element.label_prefix(key[1])} had "
                f"{CHATTER_EVENTS} events within {now - recent[0]:.3g} s (impacts without end, "
                "a Zeno motion); give it a larger rest_speed or a smaller restitution")
            self.stopped = True
            return
        element.on_event(role, contacts.RunActions(self, key))
        self.flush_records()
        if element.joins_impacts:
            contacts.level_gaps(self)
            contacts.clear_rebounds(self)

    def on_event(self, ev: dict) -> None:
        """Handle the terminal event ``ev`` met now."""
        ta = self.cs.ta
        self.last_t, self.last_state = float(ta.time), np.array(ta.state)
        if is_monitor_event(ev):
            self._on_singular(ev)
            return
        self.dispatch((ev["kind"].kind, ev["position"]), ev["role"])

    def _on_singular(self, ev: dict) -> None:
        r"""Handle a singular pose: stop, or pass it in a window.

        A pivot ratio of W fell below the threshold (a singular pose comes), or rose again
        above 1.5 × threshold. ``singular="stop"``: stop. ``"pass"``: cross the window with
        the constraint acceleration interpolated in time between its values at the window's
        ends (:meth:`_enter_window`, :mod:`quivira.model.singular_window`), or, if that
        fails, with the regularized :math:`W + ε\,\mathrm{diag}(W)` (:math:`ε` =
        threshold/10) until every pivot ratio is back above 1.5 × threshold. The crossing is
        recorded in ``traj.events`` with the change of the energy balance across it. When the
        pose is passed, the state is projected back onto the constraints (positions by
        Gauss-Newton, then velocities, both in the mass metric).
        """
        label = self.cs.labels[ev["row"]]
        ta = self.cs.ta
        if self.base[self.index[("singular_release",)]] < 0.0:  # not in a window: it comes
            thr = self.base[self.index[("singular_threshold",)]]
            if self.singular == "stop":
                self.failure = (f"near-singular pose: the pivot of {label} in the "
                                f"factorization of W fell below {thr:g} of its diagonal")
                self.stopped = True
                return
            self.threshold = thr
            self._entry_balance = self._balance()
            entry = {"t": float(ta.time), "name": label, "what": "singular pose",
                     "state": np.array(ta.state[:2 * self.n])}
            entry["window"] = self._enter_window(thr)
            self.events.append(entry)
            if entry["window"] == "interpolated":
                self._leave_window(label)
            return
        if not all_regular(self.cs, np.array(ta.state), self.pars, float(ta.time),
                           1.5 * self.threshold):
            return  # another row is still singular: the window goes on
        self._leave_window(label)

    def _leave_window(self, label: str) -> None:
        """End the window: normal parameters, the state projected, the crossing recorded.

        The projection (positions, then velocities, in the mass metric) removes the window's
        drift normal to the constraints; the change of the energy balance across the window
        is recorded, with a :class:`SingularPassWarning` above the tolerance.
        """
        ta = self.cs.ta
        self.set_base(self._window_base(1.0, -1.0, self.threshold))
        self._projected(np.array(ta.state), float(ta.time))
        extra = {}
        if getattr(self, "_entry_balance", None) is not None:
            (b0, s0), (b1, s1) = self._entry_balance, self._balance()
            change = b1 - b0
            extra["energy_change"] = change
            if abs(change) > SINGULAR_PASS_TOLERANCE * max(s0, s1, 1e-300):
                warn_caller(
                    f"passing the singular pose at t = {float(ta.time):.6g} s changed the "
                    f"energy balance by {change:.3g} J ({abs(change) / max(s0, s1):.1e} "
                    "of the energy): the motion after it may be inaccurate; compare with "
                    "a smaller singular_threshold, or stop there with singular='stop'",
                    SingularPassWarning)
            self._entry_balance = None
        self.events.append({"t": float(ta.time), "name": label, "what": "regular again",
                            "state": np.array(ta.state[:2 * self.n]), **extra})

    def _window_base(self, scale: float, release: float, threshold: float,
                     keep: float = 1.0, t_e: float = 0.0, accel=(0.0, 0.0)) -> np.ndarray:
        """Return the current base parameters with the window's set.

        The regularization ``scale`` (1 + ε), the monitor's ``release`` and ``threshold``, and
        the constraint accelerations: ``keep`` (1: those of the solve) plus
        ``accel[0] + accel[1] (t - t_e)``. The defaults are those outside a window.
        """
        base = self.base.copy()
        base[self.index[("diagonal_scale",)]] = scale
        base[self.index[("singular_release",)]] = release
        base[self.index[("singular_threshold",)]] = threshold
        k, t0, a0, a1 = window_indices(self.index, self.n)
        base[k], base[t0], base[a0], base[a1] = keep, t_e, accel[0], accel[1]
        return base

    def set_base(self, base: np.ndarray) -> None:
        self.base = base
        self.pars = self.cs.parameters(base)
        self.cs.ta.pars[:] = self.pars[: len(self.cs.ta.pars)]

    def _enter_window(self, thr: float) -> str:
        """Cross the singular pose met now; return how (``"interpolated"``/``"regularized"``).

        A first pass with the constraint acceleration frozen finds a time after the window
        (:func:`~quivira.model.singular_window.find_exit`); the integrator is put back at the
        entry and crosses to that time with the line through the constraint accelerations at
        both ends, the output rows inside the window included, then leaves it (see
        :meth:`_leave_window`). If the first pass fails (another event, the end of the run, a
        non-finite state), the regularized solve is used across the window instead, until the
        monitor sees every pivot ratio back above 1.5 × threshold.
        """
        ta, cs = self.cs.ta, self.cs
        t_e, x_e = float(ta.time), np.array(ta.state)
        keep = self.index[("window_keep",)]
        normal, t_end, n_log = self.pars, float(self.grid[-1]), len(cs.event_log)

        def back() -> None:  # back to the entry; the events met on the way are forgotten
            rewind(ta, t_e, x_e, cs.event_log, n_log)

        g_e = constraint_acceleration(cs, x_e, normal, t_e, keep)
        self.set_base(self._window_base(WINDOW_SCALE, -1.0, -1.0, 0.0, t_e, (g_e, 0.0)))
        found = find_exit(ta, t_end, lambda s, t: all_regular(cs, s, normal, t, 1.5 * thr))
        back()
        if found is not None:
            t_x, x_x = found
            g_x = constraint_acceleration(cs, x_x, normal, t_x, keep)
            slope = (g_x - g_e) / (t_x - t_e)
            self.set_base(self._window_base(WINDOW_SCALE, -1.0, -1.0, 0.0, t_e, (g_e, slope)))
            inner = [t for t in self.grid[len(self.rows):] if t < t_x]
            res = ta.propagate_grid(np.array([t_e, *inner, t_x]))
            states = np.asarray(res[5])
            if res[0] == hy.taylor_outcome.time_limit and np.all(np.isfinite(states)):
                for s, t in zip(states[1:-1], inner, strict=True):
                    self._append(s, t)
                return "interpolated"
            back()
        self.set_base(self._window_base(1.0 + thr / 10.0, 1.5 * thr, ABOVE_RATIOS))
        return "regularized"

    def _balance(self) -> tuple[float, float]:
        """Return the energy balance :math:`T + V - W_{in} + D` at the integrator's state.

        In J; constant along the exact motion; returned with the size :math:`|T| + |V|` it is
        compared with.
        """
        ta, n = self.cs.ta, self.n
        state = np.array(ta.state)
        out = evaluate_outputs(self.cs, state[None, : 2 * n], self.pars, float(ta.time))
        T, V = float(out["kinetic_energy"][0]), float(out["potential_energy"][0])
        ledger = state[2 * n] - state[2 * n + 1] if state.shape[0] > 2 * n + 1 else 0.0
        return T + V - float(ledger), abs(T) + abs(V)

    def set_flag(self, key: tuple, active: bool) -> None:
        """Switch the rows of the element ``key`` on or off (runtime parameters only)."""
        flag, _ = self.cs.assembly.collected.switches[key]
        self.base = self.base.copy()  # the rows recorded so far keep theirs
        self.base[flag] = 1.0 if active else 0.0
        self.pars = self.cs.parameters(self.base)
        self.cs.ta.pars[:] = self.pars[: len(self.cs.ta.pars)]

    def is_active(self, key: tuple) -> bool:
        flag, _ = self.cs.assembly.collected.switches[key]
        return bool(self.base[flag])

    def active_mask(self) -> np.ndarray:
        """Return the mask of the rows switched on now."""
        mask = np.ones(self.cs.m, dtype=bool)
        for flag, cols in self.cs.assembly.collected.switches.values():
            if not self.base[flag]:
                mask[cols] = False
        return mask

    def row_parameters(self, cs: CompiledSystem) -> np.ndarray:
        """Return the parameters of ``cs`` for every output row.

        One vector, or one per row when constraints switched during the run.
        """
        if all(b is self.row_base[0] for b in self.row_base):
            return cs.parameters(self.row_base[0])
        cache: dict[int, np.ndarray] = {}
        return np.array([cache.setdefault(id(b), cs.parameters(b)) for b in self.row_base])

    def trajectory(self) -> Trajectory:
        t = self.grid[:len(self.rows)]
        states = np.array(self.rows)
        traj = self.sim.trajectory(self.data, self.full, self.row_parameters(self.full), t,
                                   states)
        if self.redundant:  # λ of every row: the minimum-norm solution (not unique)
            ids = self.full.assembly.collected.row_ids
            excluded = frozenset(ids[k] for k in self.redundant)
            traj.dynamics_source = RedundantDynamics(
                DynamicsSource(self.cs, self.data, self.sim.solver, states[:, :2 * self.n],
                               self.row_parameters(self.cs), t, excluded),
                DynamicsSource(self.full, self.data, self.sim.solver, states[:, :2 * self.n],
                               self.row_parameters(self.full), t))
            labels = self.full.labels
            traj.constraint_info = {
                "redundant": [labels[k] for k in self.redundant], "unique": False,
                "rank": self.full.m - len(self.redundant)}
        traj.info.update(steps=self.steps, wall_s=self.wall_s)
        recorded = [{"t": t_, "name": self.cs.recorded_events[k]["kind"] and
                     self.data.elements[self.cs.recorded_events[k]["kind"].collection][
                         self.cs.recorded_events[k]["position"]].name,
                     "what": "event", "direction": "up" if d > 0 else "down"}
                    for k, t_, d in self.cs.event_log
                    if not (t_ == 0.0 and k in self.started_at_zero)]
        traj.events = sorted(self.events + recorded, key=lambda e: e["t"])
        return traj

    def _projected(self, s: np.ndarray, t: float) -> np.ndarray:
        """Return the state at an output time put back on the constraints.

        Positions by Gauss-Newton, then velocities, both in the mass metric; the integrator
        continues from it.
        """
        data, cs, pars, ta, n = self.data, self.cs, self.pars, self.cs.ta, self.n
        geom = self.sim.geometry_fn(cs, pars, t)
        q, _, _ = geo.project_positions(s[:n], geom, data.coordinate_weights(), tol=1e-15,
                                        max_iter=5)
        _, J = evaluate_geometry(cs, q, pars, t, qd=s[n:2 * n])
        v = evaluate_outputs(cs, np.concatenate([q, s[n:2 * n]])[None, :], pars,
                             t)["velocity_residual"][0]
        qd = geo.project_velocities(s[n:2 * n], J, mass_diagonal(data), v)
        ta.state[:n] = q
        ta.state[n:2 * n] = qd
        return np.array(ta.state)


def first_step_guard(ta, max_h: float, log: list | None = None):
    """Take the first step of an integration segment with a safe size.

    A size heyoka's rule cannot get wrong.

    heyoka sizes a step from the Taylor coefficients of the last two orders. At a symmetric
    start (e.g. a bar at rest at θ = 0 with a torque ∝ cos θ: θ(t) has only every fourth
    coefficient) both can vanish while the series does not, and the step comes out infinite
    or absurdly long. The coefficients at the start are computed (a step of 1e-300, undone);
    if the last two orders vanish, one step is taken with the same rule applied to the two
    highest non-zero orders (at most ``max_h``); afterwards the state is generic again. The
    recorded events the probe step met are taken off ``log`` again (:func:`rewind`).

    Returns heyoka's outcome of the step it took (a terminal event met there must be handled
    by the caller, as after any step), or None when it took none.
    """
    state, t0 = np.array(ta.state), ta.time
    n_log = None if log is None else len(log)
    ta.step(max_delta_t=1e-300, write_tc=True)
    tc = np.abs(np.asarray(ta.tc))
    rewind(ta, t0, state, log, n_log)
    norms = tc.max(axis=0)  # per order, over the state
    p = norms.shape[0] - 1
    if not np.all(np.isfinite(norms)) or norms[p] > 0 or norms[p - 1] > 0:
        return None
    orders = [k for k in range(2, p + 1) if norms[k] > 0][-2:]
    if not orders:
        return None  # a polynomial of degree < 2: heyoka's step is exact
    rho = min((1.0 / norms[k]) ** (1.0 / k) for k in orders)
    h = min(max_h, rho * np.exp(-0.7 / (orders[-1] - 1)) / np.e ** 2)
    return ta.step(max_delta_t=float(h))[0]


def rewind(ta, t: float, state: np.ndarray, log: list | None = None,
           n_log: int | None = None) -> None:
    """Put the integrator back at time ``t`` and ``state``, forgetting the events met since.

    Every undone integration goes through here: the recorded events it met (the entries of
    ``log`` after the first ``n_log``) are undone with it, so none is recorded twice.
    """
    ta.time = t
    ta.state[:] = state
    if log is not None and n_log is not None:
        del log[n_log:]

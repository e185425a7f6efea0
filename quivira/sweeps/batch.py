"""Running blocks of sweep variants: heyoka batch mode, with the scalar simulator as fallback.

A *block* is a list of variants of one topology: their runtime parameter vectors, initial
states and values. :func:`run_block` is what a thread or a remote worker executes; it takes
the model as its :meth:`~quivira.bar_joint_model.to_dict` data (plain JSON, never a pickled
integrator) and compiles once per topology and thread: a per-process cache keeps the compiled
code (heyoka's in-memory and on-disk caches make a second compile of the same code cheap).

The batch integrator is ``hy.taylor_adaptive_batch`` of the *same* first-order system the
scalar simulator compiles (:meth:`~quivira.model.compiled.CompiledSystem.ode_system`, plus the
energy ledger's work and dissipation states), with ``2 * hy.recommended_simd_size()``
lanes (:func:`batch_size`), each lane one variant with its own parameters :math:`p`
(``ta.pars[:, lane]``) and state. The singularity monitor is one batch event per lane (see
:func:`build_batch_integrator`).

Fallback to the scalar simulator (``Simulator.simulate``, the code of ``model.simulate``),
variant by variant, in these cases, so every variant's result is the one ``simulate`` gives:

* the topology has element events (latches, stops, contacts, user events): their actions
  (impulses, switches) are the scalar simulator's, so the whole topology runs scalar;
* a lane meets a singular pose (a terminal event), a non-finite state or the step budget;
* a lane starts at a symmetric state where heyoka's first step size is unreliable (see
  :func:`quivira.model.simulator.first_step_guard`);
* the constraint rows of a variant are redundant at its start.

In batch mode a terminal event in one lane stops every lane; the block is then run again
without the lanes that met an event (a lane's numbers do not depend on the other lanes), so
results do not depend on how variants are grouped into blocks.
"""

from __future__ import annotations

import concurrent.futures as cf
import copy
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import heyoka as hy
import numpy as np

from ..budget import Budget
from ..lagrangian import first_order_system
from ..model.compiled import (
    DISSIPATED,
    N_ENERGY,
    WORK,
    CompiledSystem,
    evaluate_dynamics,
    evaluate_outputs,
    is_monitor_event,
)
from ..model.data import ModelData
from ..model.simulator import Simulator, initial_state, mass_diagonal
from ..model.symbolic import parameter_layout
from ..model.trajectory import (
    BudgetExceededError,
    SimulationInterrupted,
    SingularConfigurationError,
)
from .cache import explain_cache_error, use_cache_dir_here
from .values import apply_value, check_number, fast_setter, state_entries

_DIRECTIONS = {"any": hy.event_direction.any, "up": hy.event_direction.positive,
               "down": hy.event_direction.negative}


# ---------------------------------------------------------------------- compiled code
@dataclass
class Context:
    """Compiled code of one topology as one thread sees it.

    Compiled code of one topology as one thread sees it: the process's scalar simulator
    and compiled system (whose output functions all threads share), the thread's own copy of
    the batch integrator (None: scalar only, ``reason``), and, on first need, the thread's
    own scalar simulator for fallback runs (so that they run in parallel).
    """

    sim: Simulator
    cs: CompiledSystem
    ta: Any
    reason: str | None
    compile_s: float
    singular_events: list = field(default_factory=list)
    model_dict: dict | None = None
    settings: dict | None = None
    _fallback: Simulator | None = None

    def fallback(self) -> Simulator:
        """Return the thread's scalar simulator (compiled on first use)."""
        if self._fallback is None:
            self._fallback = Simulator(solver=self.settings["solver"])
        return self._fallback


_local = threading.local()
_shared: dict = {}
_shared_lock = threading.Lock()
#: per process: how many times each topology key was compiled, for tests and reports
COMPILE_COUNT: dict = {}


def _model_from_dict(model_dict: dict):
    from ..model.core import bar_joint_model

    return bar_joint_model.from_dict(model_dict)


def batch_size(options: dict | None = None) -> int:
    """Lanes of a batch integrator compiled with ``options`` (``compact_mode``, ``opt_level``).

    Optimized compact code (``opt_level`` ≥ 1) takes 8 lanes, or heyoka's recommended SIMD
    width if wider; other code twice that width, and at least 16 lanes. Measured on scissor-8
    and the four-bar (10 s): on an AVX2 machine (width 4) a lane of an 8-lane integrator costs
    0.6-0.7x a lane of a 4-lane one; on an AMD AVX-512 machine (width 8), at ``opt_level=1``
    16 lanes cost as much per lane as 8 (scissor-8) or 1.25x (four-bar) and compile 10-30 %
    longer, while at ``opt_level=0`` 16 lanes cost 0.65-0.85x per lane of 8; on an Intel
    AVX-512 machine where heyoka recommends width 4, a 200-variant scissor-8 sweep at
    ``opt_level=0`` took 1.64-1.72 s with 16 lanes against 1.85-2.26 s with 8.
    """
    width = int(hy.recommended_simd_size())
    if options and options.get("compact_mode") and options.get("opt_level", 0) >= 1:
        return max(width, 8)
    return max(2 * width, 16)


def build_batch_integrator(cs: CompiledSystem, size: int, threshold_index: int,
                           opt_level: int | None = None) -> tuple[Any, list, str | None]:
    r"""Build ``(ta, monitor, reason)``: the batch integrator of the system of ``cs``.

    ``ta`` is ``hy.taylor_adaptive_batch`` with ``size`` lanes, or ``(None, [], reason)``
    when the topology has element events that only the scalar simulator handles. It is
    compiled with the options of ``cs``, at ``opt_level`` if given.

    The singularity monitor is one terminal event per lane instead of the scalar simulator's
    one per pivot ratio :math:`r_k = d_k/W_{kk}`: the harmonic combination
    :math:`h = (\sum_k 1/r_k)^{-1}` falling through ``p_thr`` (``hy.par[threshold_index]``).
    Since :math:`\min_k r_k / m \le h \le \min_k r_k`, a lane in which any ratio falls below
    the threshold stops there or earlier (it is then run in the scalar simulator, with its
    exact monitor); event detection costs one root search per step instead of ``m``, and
    :math:`1/r_k = W_{kk}\,(1/d_k)` is one product of terms the solve computes anyway
    (scissor-8, 16 lanes: the monitor adds 15 % to the integration instead of 26 % with
    :math:`r_k` itself inverted). The
    equations are :meth:`~quivira.model.compiled.CompiledSystem.plain_assembly`'s: those of
    the scalar code outside a singular window, without the window's terms.
    """
    element_events = [e for e in cs.terminal_events if not is_monitor_event(e)]
    if element_events or cs.recorded_events:
        kinds = sorted({(e["kind"].kind if e["kind"] is not None else "event")
                        for e in element_events + cs.recorded_events})
        return None, [], ("element events (" + ", ".join(kinds) + ") run in the scalar "
                          "simulator")
    asm = cs.plain_assembly()  # no window terms: a singular lane goes to the scalar code
    sys = first_order_system(asm.parts)
    if asm.collected.ledger:
        sys += [(WORK, asm.power_in), (DISSIPATED, asm.dissipation)]
    W_solve = asm.parts.W_solve
    inv = [] if W_solve is None else W_solve.inverse_pivot_ratios(asm.parts.solve_rows)
    kwargs = dict(cs.options)
    if opt_level is not None:
        kwargs["opt_level"] = int(opt_level)
    if cs.tol is not None:
        kwargs["tol"] = cs.tol
    monitor = []
    if inv:
        h = 1.0 / (inv[0] if len(inv) == 1 else hy.sum(inv))
        monitor = [hy.t_event_batch(h - hy.par[threshold_index],
                                    direction=hy.event_direction.negative, cooldown=0.0)]
    kwargs["t_events"] = monitor
    ta = hy.taylor_adaptive_batch(sys, np.zeros((len(sys), size)), **kwargs)
    return ta, monitor, None


def shared_entry(model_dict: dict | None, key: tuple, settings: dict, model=None) -> tuple:
    """Return ``(sim, cs, batch)`` of the topology ``key``, this process's, made on first use.

    ``cs`` is the scalar compiled system (its equations at once; its integrator only if a
    variant falls back to it; its output functions compiling in background threads) and
    ``batch`` the future of :func:`_compile_batch`, also compiling in the background, so the
    variants' initial states are prepared meanwhile. Keys that differ only in their last
    two items (the batch code's lanes and ``opt_level``) share ``sim`` and ``cs``.
    """
    with _shared_lock:
        entry = _shared.get(key)
        if entry is None:
            t0 = time.perf_counter()
            use_cache_dir_here(settings.get("heyoka_cache_dir"))
            if model is None:
                model = _model_from_dict(model_dict)
            sibling = next((e for k, e in _shared.items() if k[:5] == key[:5]), None)
            if sibling is not None:
                sim, cs = sibling[0], sibling[1]
            else:
                sim = Simulator(solver=settings["solver"])
                cs = sim.compiled(model.engine.data, settings["tol"], settings["purpose"],
                                  integrator=False)
            want_dynamics = "max_abs_lambda" in settings.get("outputs", ())
            if want_dynamics:
                cs.prepare_dynamics()
            thr = [k for k, _ in parameter_layout(model.engine.data)].index(("singular_threshold",))
            batch = _BATCH_COMPILER.submit(_compile_batch, cs, settings, thr, want_dynamics, t0)
            entry = (sim, cs, batch)
            _shared[key] = entry
            COMPILE_COUNT[key] = COMPILE_COUNT.get(key, 0) + 1
    return entry


def _compile_batch(cs: CompiledSystem, settings: dict, threshold_index: int,
                   want_dynamics: bool, t0: float) -> tuple:
    """Build ``(ta, singular_events, reason, compile_s)``; wait for the output functions."""
    if settings.get("scalar"):
        ta, singular, reason = None, [], "scalar mode requested (batch=False)"
    else:
        ta, singular, reason = build_batch_integrator(cs, settings["batch_size"],
                                                      threshold_index,
                                                      settings.get("batch_opt_level"))
    if want_dynamics:
        cs.dynamics  # noqa: B018 - waits for it here, once, not in a sweep thread
    cs.outputs  # noqa: B018 - likewise
    return ta, singular, reason, time.perf_counter() - t0


#: the batch integrator compiles beside the output functions (heyoka releases the GIL)
_BATCH_COMPILER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="quivira-batch")


def shared_system(model_dict: dict | None, key: tuple, settings: dict, model=None) -> tuple:
    """Return ``(sim, cs, ta, singular_events, reason, compile_s)`` of the topology ``key``.

    In this process, compiled on first use (``ta``: the master batch integrator, copied per
    thread); waits for the compilation.
    """
    sim, cs, batch = shared_entry(model_dict, key, settings, model)
    return (sim, cs, *batch.result())


def context(model_dict: dict, key: tuple, settings: dict,
            cancel: threading.Event | None = None) -> Context | None:
    """Return the thread's view of the compiled code of the topology ``key``.

    None if ``cancel`` is set while the batch integrator compiles (the compilation itself
    goes on in its own thread, for the next sweep).
    """
    cache = getattr(_local, "contexts", None)
    if cache is None:
        cache = _local.contexts = {}
    ctx = cache.get(key)
    if ctx is None:
        batch = shared_entry(model_dict, key, settings)[2]
        while cancel is not None and not batch.done():
            if cancel.is_set():
                return None
            cf.wait([batch], timeout=0.05)
        sim, cs, ta, singular, reason, compile_s = shared_system(model_dict, key, settings)
        ctx = Context(sim, cs, None if ta is None else copy.deepcopy(ta), reason, compile_s,
                      singular, model_dict, settings)
        cache[key] = ctx
    return ctx


# ---------------------------------------------------------------------- variants
@dataclass
class Prepared:
    """The numbers of the variants of a group.

    The numbers of the variants of a group: base parameter vectors (``parameter_layout``
    order, the singularity threshold set) ``base`` (k, n_base), initial states ``state0``
    (k, 2n), and per variant whether it must run in the scalar simulator (``scalar`` reason
    or None).
    """

    base: np.ndarray
    state0: np.ndarray
    scalar: list

    @staticmethod
    def concatenated(parts: list[Prepared]) -> Prepared:
        """Return the variants of ``parts``, in order, in one :class:`Prepared`."""
        if len(parts) == 1:
            return parts[0]
        return Prepared(np.vstack([p.base for p in parts]), np.vstack([p.state0 for p in parts]),
                        [r for p in parts for r in p.scalar])


class Preparer:
    """Applies the values of variants to a scratch copy of a model.

    Parameters through the model's setters, then a consistent initial state (see
    :mod:`quivira.sweeps.values`).
    """

    def __init__(self, model_dict: dict, keys: list[str], settings: dict, model=None,
                 key: tuple | None = None) -> None:
        self.template = _model_from_dict(model_dict) if model is None else model
        self.scratch = _model_from_dict(model_dict)
        self.keys = [k for k in keys if k != "model"]
        self.n = self.template.n_coordinates
        self.state_keys = state_entries(self.keys, self.template.engine.data)
        state_names = {k for k, _ in self.state_keys}
        self.param_keys = [k for k in self.keys if k not in state_names]
        self.settings = settings
        self.key = key
        self.fast_keys = [(k, f) for k in self.param_keys
                          if (f := fast_setter(k, self.template.engine.data)) is not None]
        fast = {k for k, _ in self.fast_keys}
        self.slow_keys = [k for k in self.param_keys if k not in fast]
        self.sim = Simulator(solver=settings["solver"])
        layout = parameter_layout(self.template.engine.data)
        self.threshold_index = [i for i, (k, _) in enumerate(layout)
                                if k == ("singular_threshold",)]

    @property
    def cs(self) -> CompiledSystem:
        """The scalar compiled system of the template (for the constraint checks).

        The process's shared one of the topology.
        """
        if self.key is not None:  # without waiting for the batch integrator
            return shared_entry(None, self.key, self.settings, model=self.template)[1]
        return self.sim.compiled(self.template.engine.data, self.settings["tol"],
                                 self.settings["purpose"], integrator=False)

    def data(self, row: dict, state0: np.ndarray | None = None):
        """Return the model data of a variant (``row``: key -> value).

        With ``state0``, that initial state (as prepared before).

        Bar masses and lengths, g and the stabilization rate are set on a copy of the
        template's data after the checks of their setters; other keys go through the model's
        setters on a scratch copy of the model.
        """
        if self.slow_keys:
            scratch = self.scratch
            scratch.engine.commit(self.template.engine.data, "sweep variant")
            for k in self.slow_keys:
                apply_value(scratch, k, row[k])
            data = scratch.engine.data
        else:
            data = self.template.engine.data
        # new bodies, shared elements: committed elements are never changed (edits copy them)
        data = ModelData([b.copy() for b in data.bars],
                         {c: list(lst) for c, lst in data.elements.items()}, data.g,
                         data.stabilization)
        for k, setter in self.fast_keys:
            setter(data, row[k])
        if state0 is not None:
            n = self.n
            for o, b in zip(data.offsets(), data.bars):
                k = b.n_coordinates
                pad = (0.0,) * (3 - k)  # a particle keeps θ = 0
                b.pose = tuple(float(v) for v in state0[o:o + k]) + pad
                b.velocity = tuple(float(v) for v in state0[n + o:n + o + k]) + pad
        return data

    def prepare(self, rows: list[dict], indices: list[int] | None = None) -> Prepared:
        """Prepare parameters and consistent initial states of ``rows``, all variants at once.

        A TypeError or ValueError names the variant (its number in ``indices``) and what is
        wrong.
        """
        names = list(range(len(rows))) if indices is None else list(indices)
        datas, bases = [], []
        for r, row in enumerate(rows):
            for k, _ in self.state_keys:
                check_number(k, row[k], names[r])
            try:
                data = self.data(row)
            except (TypeError, ValueError) as exc:
                raise type(exc)(f"variant {names[r]}: {exc}") from None
            base = np.array([x for _, x in parameter_layout(data)], dtype=float)
            datas.append(data)
            bases.append(base)
        base = np.array(bases)
        states, scalar = self._states(datas, rows, base, names)
        base[:, self.threshold_index] = self.settings["singular_threshold"]
        return Prepared(base, states, scalar)

    def _states(self, datas: list, rows: list[dict], base: np.ndarray, names: list
                ) -> tuple[np.ndarray, list]:
        """Compute consistent initial states of all variants.

        Consistent initial states of all variants (see :mod:`quivira.sweeps.values`):
        Gauss–Newton with the swept positions held (followed in stages of at most 0.2 from
        the model's pose, so the assembly stays on the drawn branch), then the velocities
        with the swept ones held, and a rank test of J for redundant rows.
        """
        n, cs = self.n, self.cs
        V = len(datas)
        P = np.array([cs.parameters(b) for b in base])
        start = np.array([initial_state(d, "sweep") for d in datas])
        target = start.copy()
        held = np.zeros(2 * n, dtype=bool)
        for k, idx in self.state_keys:
            target[:, idx] = [float(r[k]) for r in rows]
            held[idx] = True
        scale = np.array([d.length_scale() for d in datas])
        weights = np.array([d.coordinate_weights() for d in datas])
        tol = self.template.tolerance * scale
        k_hol = cs.n_holonomic
        q, qd = target[:, :n].copy(), target[:, n:].copy()
        F, _, _ = geometry_batch(cs, q, qd, P)
        res = np.max(np.abs(F[:, :k_hol]), axis=1) if k_hol else np.zeros(V)
        move = np.nonzero(res > 0.01 * tol)[0]
        if move.size:
            hq = held[:n]
            q0, q1 = start[move, :n], target[move, :n]
            stages = np.maximum(1, np.ceil(np.max(np.abs(q1 - q0), axis=1) / 0.2)).astype(int)
            qm = q0.copy()
            for s in range(1, int(stages.max()) + 1):
                frac = np.minimum(1.0, s / stages)[:, None]
                qm[:, hq] = (q0 + (q1 - q0) * frac)[:, hq]
                last = s == int(stages.max())
                qm, r = hold_positions_batch(
                    cs, qm, qd[move], P[move], hq, weights[move],
                    (1e-15 if last else 1e-6) * scale[move], k_hol, 50 if last else 8)
            q[move] = qm
            bad = np.nonzero(r > tol[move])[0]
            if bad.size:
                v = move[bad[0]]
                raise ValueError(
                    f"variant {names[v]}: the constraints cannot be met with these values "
                    f"(position residual {r[bad[0]]:.3g} > tolerance {tol[v]:.3g}); check the "
                    "swept positions and lengths")
        _, J, vres = geometry_batch(cs, q, qd, P)
        res_v = np.max(np.abs(vres), axis=1) if vres.shape[1] else np.zeros(V)
        fix = np.nonzero(res_v > 0.01 * tol)[0]
        if fix.size:
            mass = np.array([mass_diagonal(datas[v]) for v in fix])
            qd[fix] = hold_velocities_batch(qd[fix], held[n:], J[fix], vres[fix], mass)
            _, J, vres = geometry_batch(cs, q, qd, P)
            res_v = np.max(np.abs(vres), axis=1)
            bad = np.nonzero(res_v > tol)[0]
            if bad.size:
                v = bad[0]
                raise ValueError(
                    f"variant {names[v]}: the swept initial velocities violate the velocity "
                    f"constraints (residual {res_v[v]:.3g}) and the others cannot make up for "
                    "it; sweep fewer velocity entries")
        scalar: list = [None] * V
        if J.shape[1]:
            active = np.array([Simulator.active_rows(d, cs) for d in datas])
            A = J / weights[:, None, :]
            A = np.where(active[:, :, None], A, 0.0)
            norms = np.linalg.norm(A, axis=2)
            A = A / np.where(norms > 0, norms, 1.0)[:, :, None]
            S = np.linalg.svd(A, compute_uv=False)
            rank = np.sum(S > 1e-9 * np.maximum(S[:, :1], 1e-300), axis=1)
            for v in np.nonzero(rank < active.sum(axis=1))[0]:
                scalar[v] = "redundant constraint rows at the start"
        return np.hstack([q, qd]), scalar


def geometry_batch(cs: CompiledSystem, q: np.ndarray, qd: np.ndarray, P: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(F, J, J q̇)`` at t = 0 of many states at once.

    One call of the compiled outputs function, one parameter vector per state: shapes
    (V, m), (V, m, n), (V, m).
    """
    cf = cs.outputs
    V, m = q.shape[0], cs.m
    X = np.ascontiguousarray(np.hstack([q, qd]).T)
    kw = {"time": np.zeros(V)} if cf.is_time_dependent else {}
    vals = cf(X, pars=np.ascontiguousarray(P[:, :cf.nparams].T), **kw).T
    o = N_ENERGY
    F, v = vals[:, o:o + m], vals[:, o + m:o + 2 * m]
    J = np.zeros((V, m, cs.n))
    if cs.J_pattern:
        rows, cols = zip(*cs.J_pattern)
        J[:, list(rows), list(cols)] = vals[:, o + 2 * m:o + 2 * m + len(cs.J_pattern)]
    return F, J, v


def hold_positions_batch(cs: CompiledSystem, q: np.ndarray, qd: np.ndarray, P: np.ndarray,
                         held: np.ndarray, weights: np.ndarray, tol: np.ndarray, k_hol: int,
                         max_iter: int) -> tuple[np.ndarray, np.ndarray]:
    r"""Solve the holonomic rows of many variants at once by Gauss–Newton.

    Gauss–Newton on the holonomic rows :math:`F(q) = 0` of many variants at once, moving
    only the coordinates not ``held``: :math:`Δq_f = -W_f^{-1}(J_f W_f^{-1})^+ F` per variant
    (``W`` the coordinate weights), until :math:`\max|F|` <= ``tol`` or it stops
    decreasing. Returns ``(q, max |F|)``.
    """
    q = q.copy()
    free = ~held
    w = weights[:, free]
    best = np.full(q.shape[0], np.inf)
    res = best
    for _ in range(max_iter):
        F, J, _ = geometry_batch(cs, q, qd, P)
        F, J = F[:, :k_hol], J[:, :k_hol]
        res = np.max(np.abs(F), axis=1) if k_hol else np.zeros(q.shape[0])
        go = (res > tol) & (res < 0.5 * best)
        if not np.any(go):
            break
        best = np.where(go, res, best)
        A = J[go][:, :, free] / w[go][:, None, :]
        step = -min_norm_solve(A, F[go])
        rows = np.nonzero(go)[0]
        q[np.ix_(rows, np.nonzero(free)[0])] += step / w[go]
    return q, res


def min_norm_solve(A: np.ndarray, b: np.ndarray) -> np.ndarray:
    r"""Return the minimum-norm solution of :math:`A x = b` per stacked system.

    :math:`x = A^T (A A^T + εI)^{-1} b` with :math:`ε = 10^{-13}\,\mathrm{tr}(AA^T)/m` (a
    tiny regularization, so that consistent redundant rows do no harm).
    """
    G = A @ np.swapaxes(A, 1, 2)
    m = G.shape[1]
    if m == 0:
        return np.zeros((A.shape[0], A.shape[2]))
    eps = 1e-13 * np.trace(G, axis1=1, axis2=2) / m
    G = G + (np.maximum(eps, 1e-300))[:, None, None] * np.eye(m)[None]
    y = np.linalg.solve(G, b[:, :, None])
    return (np.swapaxes(A, 1, 2) @ y)[:, :, 0]


def hold_velocities_batch(qd: np.ndarray, held: np.ndarray, J: np.ndarray, v: np.ndarray,
                          mass: np.ndarray) -> np.ndarray:
    r"""Project the velocities of every variant onto :math:`J\dot q = 0`, ``held`` ones kept.

    The velocities nearest ``qd`` in the mass metric (``v`` = :math:`J\dot q` now):
    :math:`Δ\dot q_f = -M_f^{-1/2}(J_f M_f^{-1/2})^+ v`.
    """
    qd = qd.copy()
    free = ~held
    s = 1.0 / np.sqrt(mass[:, free])
    A = J[:, :, free] * s[:, None, :]
    step = -min_norm_solve(A, v)
    qd[:, free] += step * s
    return qd


# ---------------------------------------------------------------------- integration
def _guard_needed(ta, lanes: int) -> np.ndarray:
    """Return, per lane, whether heyoka's first step would be unreliable.

    The last two Taylor orders vanish at the start (see ``first_step_guard``). The
    integrator's state is restored.
    """
    state, t0 = np.array(ta.state), np.array(ta.time)
    ta.step(max_delta_t=np.full(ta.batch_size, 1e-300), write_tc=True)
    tc = np.abs(np.asarray(ta.tc))  # (n_vars, order + 1, lanes)
    ta.state[:] = state
    ta.set_time(t0)
    norms = tc.max(axis=0)  # (order + 1, lanes)
    p = norms.shape[0] - 1
    finite = np.all(np.isfinite(norms), axis=0)
    return (finite & (norms[p] == 0) & (norms[p - 1] == 0))[:lanes]


def load_lanes(ctx: Context, pars: np.ndarray, states: np.ndarray, rows: list[int]) -> None:
    """Put the variants ``rows`` of ``pars``/``states`` in the lanes of ``ctx.ta`` at t = 0.

    Lanes beyond them get copies of the first (a batch integrator always runs all lanes).
    """
    ta = ctx.ta
    lanes = list(rows) + [rows[0]] * (ta.batch_size - len(rows))
    ta.set_time(np.zeros(ta.batch_size))
    ta.state[:] = 0.0
    ta.state[:states.shape[1], :] = states[lanes].T
    ta.pars[:] = pars[lanes, :ta.pars.shape[0]].T
    if ctx.singular_events:
        ta.reset_cooldowns()


def integrate_lanes(ctx: Context, pars: np.ndarray, states: np.ndarray, grid: np.ndarray,
                    settings: dict, cancel: threading.Event | None) -> list[tuple]:
    """Integrate up to ``batch_size`` variants in the lanes of the batch integrator.

    ``pars`` (k, n_pars) full parameter vectors, ``states`` (k, n_vars) initial states.
    Returns per variant ``("ok", states (n_points, n_vars))``, ``("scalar", reason)``,
    ``("cancelled", None)`` or ``("budget", (t, message))``.
    """
    ta = ctx.ta
    size = ta.batch_size
    k = pars.shape[0]
    out: list = [None] * k
    todo = list(range(k))
    G = np.repeat(grid[:, None], size, axis=1)
    while todo:
        load_lanes(ctx, pars, states, todo)
        guard = _guard_needed(ta, len(todo))
        if np.any(guard):
            for i in np.nonzero(guard)[0]:
                out[todo[i]] = ("scalar", "symmetric start (first step guard)")
            todo = [v for i, v in enumerate(todo) if not guard[i]]
            continue
        # heyoka counts the steps (a lane out of steps goes to the scalar simulator); the
        # callback, between steps, stops every lane on cancellation or at max_wall_s
        budget = Budget(settings["max_steps"], settings["max_wall_s"], cancel)

        def callback(_ta, budget=budget):
            return budget.exceeded() is None

        res = ta.propagate_grid(G, max_steps=budget.max_steps, callback=callback)
        result = np.asarray(res[1])  # (n_points, n_vars, size)
        outcomes = ta.propagate_res
        if budget.cancelled():
            for v in todo:
                out[v] = ("cancelled", None)
            return out
        n_events = len(ctx.singular_events)
        rerun = []
        for i, v in enumerate(todo):
            outcome = outcomes[i][0]
            code = int(outcome)
            if outcome == hy.taylor_outcome.time_limit:
                out[v] = ("ok", result[:, :, i].copy())
            elif -n_events <= code < 0:
                out[v] = ("scalar", "singular pose met")
            elif outcome == hy.taylor_outcome.err_nf_state:
                out[v] = ("scalar", "non-finite state")
            elif outcome == hy.taylor_outcome.step_limit:
                out[v] = ("scalar", "step budget used up")
            elif outcome == hy.taylor_outcome.cb_stop:
                t = float(ta.time[i])
                out[v] = ("budget", (t, budget.exceeded(t)))
            else:  # stopped at another lane's event: run again without that lane
                rerun.append(v)
        todo = rerun
    return out


# ---------------------------------------------------------------------- outputs
def lane_outputs(cs: CompiledSystem, states: np.ndarray, base: np.ndarray, grid: np.ndarray,
                 want_lambda: bool) -> dict:
    r"""Energy error and max |λ| of variants integrated in batch mode.

    ``states`` (k, n_points, n_vars), ``base`` (k, n_base). The relative energy error is that
    of :meth:`~quivira.model.trajectory.Trajectory.relative_energy_error`:
    :math:`\max_t |E(t) - E(0) - W_{in}(t) + D(t)| / \max(|E(0)|, \max_t T, \max_t
    |W_{in}|, \max_t D, \sum_i m_i|g|\ell)` (the ledger terms only for non-conservative
    models; :math:`\ell` the model's length scale).
    """
    k, n_t, n_vars = states.shape
    n = cs.n
    flat = states.reshape(k * n_t, n_vars)
    pars = np.array([cs.parameters(b) for b in base])
    # one parameter column per state, laid out as the compiled functions read it (column
    # order: no transposed copy of this large array, thousands of derived parameters)
    columns = np.empty((pars.shape[1], k, n_t))
    columns[:] = pars.T[:, :, None]  # broadcast: one pass over memory (np.repeat takes two)
    pars_rows = columns.reshape(pars.shape[1], k * n_t).T
    t_rows = np.tile(grid, k)
    o = evaluate_outputs(cs, flat, pars_rows, t_rows)
    T = o["kinetic_energy"].reshape(k, n_t)
    E = T + o["potential_energy"].reshape(k, n_t)
    ledger = n_vars > 2 * n
    if ledger:
        W_in, D = states[:, :, 2 * n], states[:, :, 2 * n + 1]
        balance = E - E[:, :1] - W_in + D
    else:
        balance = E - E[:, :1]
    scale = np.maximum(np.abs(E[:, 0]), np.max(np.abs(T), axis=1))
    scale = np.maximum(scale, np.maximum(_energy_scales(cs, base), 1e-300))
    if ledger:
        scale = np.maximum(scale, np.maximum(np.max(np.abs(W_in), axis=1),
                                             np.max(np.abs(D), axis=1)))
    out = {"energy_error": np.max(np.abs(balance), axis=1) / scale}
    if want_lambda:
        lam = evaluate_dynamics(cs, flat, pars_rows, t_rows)["lambda_mult"]
        out["max_abs_lambda"] = np.max(np.abs(lam.reshape(k, n_t, -1)), axis=1)
    return out


def _energy_scales(cs: CompiledSystem, base: np.ndarray) -> np.ndarray:
    r"""Return :math:`\sum_i m_i|g|\ell` of each variant (``Trajectory.energy_scale``).

    The weights :math:`m_i g` are the bodies' ``"weight"`` parameters of ``base``; the
    length scale :math:`\ell` is the model's.
    """
    data = cs.source[0] if cs.source is not None else None
    if data is None:
        return np.zeros(base.shape[0])
    weights = [k for k, (key, _) in enumerate(parameter_layout(data))
               if key[0] == "bar" and key[2] == "weight"]
    return np.sum(np.abs(base[:, weights]), axis=1) * data.length_scale()


def _events(traj) -> list[dict]:
    return [{"t": float(e["t"]), "name": str(e.get("name")), "what": str(e.get("what"))}
            for e in traj.events]


def scalar_variant(ctx: Context, data, settings: dict, want_lambda: bool,
                   cancel: threading.Event | None = None) -> dict:
    """Run one variant in the scalar simulator (``Simulator.simulate``, as ``model.simulate``).

    Its states on the grid (NaN after a stop), status and outputs; exceptions become a
    status. ``cancel`` (set by the sweep's Ctrl-C) stops the run between chunks of steps:
    status ``"cancelled"``, with the states so far.
    """
    n_points = settings["n_points"]
    status, t_status, message, traj = "ok", np.nan, "", None
    try:
        traj = ctx.fallback().simulate(
            data, settings["tolerance"], settings["t_end"], n_points, tol=settings["tol"],
            singular_threshold=settings["singular_threshold"], purpose=settings["purpose"],
            max_steps=settings["max_steps"], max_wall_s=settings["max_wall_s"],
            singular=settings["singular"], cancel=cancel)
        singular = [e for e in traj.events if e.get("what") == "singular pose"]
        if singular:
            status, t_status = "singular", float(singular[0]["t"])
            message = f"passed a singular pose ({singular[0]['name']})"
    except SingularConfigurationError as exc:
        traj = exc.trajectory
        t_status, message = float(exc.t), str(exc)
        status = "diverged" if "non-finite" in str(exc) else "singular"
    except (BudgetExceededError, SimulationInterrupted) as exc:
        traj, t_status, message, status = exc.trajectory, float(exc.t), str(exc), "budget"
        if cancel is not None and cancel.is_set():
            status, message = "cancelled", f"cancelled at t = {exc.t:.6g} s"
    except Exception as exc:  # noqa: BLE001 - one failing variant never stops the sweep
        in_use = settings.get("heyoka_cache_dir") is not None
        message = explain_cache_error(exc, cache_in_use=in_use)
        status, message = "error", f"{type(exc).__name__}: {message}"
    n_state = 2 * ctx.cs.n
    states = np.full((n_points, n_state), np.nan)
    out = {"status": status, "t_status": t_status, "message": message, "events": [],
           "energy_error": np.nan, "max_abs_lambda": np.full(ctx.cs.m, np.nan)}
    if traj is not None and traj.n_points:
        rows = traj.n_points
        states[:rows] = np.hstack([traj.q, traj.qd])
        out["events"] = _events(traj)
        if rows >= 1:
            e = traj.relative_energy_error()
            out["energy_error"] = e if np.isfinite(e) else np.nan
            if want_lambda:
                lam = np.asarray(traj.lambda_mult)
                if lam.size:
                    out["max_abs_lambda"] = np.nanmax(np.abs(lam), axis=0)
    out["states"] = states
    return out


def run_block(model_dict: dict, block: dict) -> dict:
    """Run a block of variants of one topology (what a thread or a remote worker executes).

    Parameters
    ----------
    model_dict : dict
        The group's model as :meth:`~quivira.bar_joint_model.to_dict` data.
    block : dict
        ``indices`` (variant numbers), ``rows`` (per variant: key -> value), ``base``
        (k, n_base) parameter vectors, ``state0`` (k, 2n) initial states, ``scalar`` (per
        variant a reason to run it in the scalar simulator, or None), ``key`` (the group's
        topology key) and ``settings`` (t_end, n_points, tol, purpose, ...).

    Returns
    -------
    dict
        ``indices``, ``states`` (k, n_points, 2n), ``energy_error`` (k,),
        ``max_abs_lambda`` (k, m), ``status``, ``t_status``, ``message``, ``events``,
        ``scalar`` (per variant: why it ran in the scalar simulator, or None),
        ``compile_s`` and ``wall_s``.
    """
    t0 = time.perf_counter()
    settings = block["settings"]
    cancel = block.get("cancel") or threading.Event()  # executors: never set
    ctx = context(model_dict, block["key"], settings, cancel)
    idx = list(block["indices"])
    k = len(idx)
    cs = shared_entry(model_dict, block["key"], settings)[1] if ctx is None else ctx.cs
    n, m = cs.n, cs.m
    n_points = settings["n_points"]
    grid = np.linspace(0.0, settings["t_end"], n_points)
    want_lambda = "max_abs_lambda" in settings["outputs"]
    base = np.asarray(block["base"], dtype=float)
    state0 = np.asarray(block["state0"], dtype=float)
    res = {"indices": idx, "states": np.full((k, n_points, 2 * n), np.nan),
           "energy_error": np.full(k, np.nan), "max_abs_lambda": np.full((k, m), np.nan),
           "status": ["cancelled"] * k, "t_status": np.full(k, np.nan), "message": [""] * k,
           "events": [[] for _ in range(k)], "scalar": list(block["scalar"]),
           "compile_s": 0.0 if ctx is None else ctx.compile_s}
    if ctx is None:  # cancelled while the code compiled
        return _finished(res, settings, t0)
    scalar_reason = [ctx.reason if ctx.ta is None else r for r in block["scalar"]]
    batch_lanes = [i for i in range(k) if scalar_reason[i] is None]
    if batch_lanes and not cancel.is_set():
        pars = np.array([ctx.cs.parameters(base[i]) for i in batch_lanes])
        n_vars = ctx.ta.dim
        st = np.zeros((len(batch_lanes), n_vars))
        st[:, :2 * n] = state0[batch_lanes]
        size = ctx.ta.batch_size
        done_ok = []
        for c in range(0, len(batch_lanes), size):
            chunk = batch_lanes[c:c + size]
            outs = integrate_lanes(ctx, pars[c:c + size], st[c:c + size], grid, settings,
                                   cancel)
            for i, (what, payload) in zip(chunk, outs, strict=True):
                if what == "ok":
                    res["states"][i] = payload[:, :2 * n]
                    res["status"][i] = "ok"
                    done_ok.append((i, payload))
                elif what == "scalar":
                    scalar_reason[i] = payload
                elif what == "budget":
                    res["status"][i] = "budget"
                    res["t_status"][i], res["message"][i] = payload
        if done_ok:
            o = lane_outputs(ctx.cs, np.array([p for _, p in done_ok]),
                             base[[i for i, _ in done_ok]], grid, want_lambda)
            for j, (i, _) in enumerate(done_ok):
                res["energy_error"][i] = o["energy_error"][j]
                if want_lambda:
                    res["max_abs_lambda"][i] = o["max_abs_lambda"][j]
    scalar_lanes = [i for i in range(k) if scalar_reason[i] is not None]
    if scalar_lanes:
        prep = None
        for i in scalar_lanes:
            if cancel.is_set():
                break
            if prep is None:
                prep = _preparer(model_dict, block, settings)
            data = prep.data(block["rows"][i], state0[i])
            o = scalar_variant(ctx, data, settings, want_lambda, cancel)
            res["states"][i] = o["states"]
            for name in ("energy_error", "t_status"):
                res[name][i] = o[name]
            res["max_abs_lambda"][i] = o["max_abs_lambda"]
            res["status"][i], res["message"][i] = o["status"], o["message"]
            res["events"][i] = o["events"]
            res["scalar"][i] = scalar_reason[i]
    return _finished(res, settings, t0)


def _finished(res: dict, settings: dict, t0: float) -> dict:
    """Return the result of a block: its wall time; only the last states without a trajectory.

    (A sweep that does not return the trajectories then holds one state per variant.)
    """
    if "trajectory" not in settings["outputs"]:
        res["states"] = res["states"][:, -1:].copy()
    res["wall_s"] = time.perf_counter() - t0
    return res


def _preparer(model_dict: dict, block: dict, settings: dict) -> Preparer:
    cache = getattr(_local, "preparers", None)
    if cache is None:
        cache = _local.preparers = {}
    key = (block["key"], tuple(block["keys"]))
    prep = cache.get(key)
    if prep is None:
        prep = cache[key] = Preparer(model_dict, block["keys"], settings)
    return prep


r"""Compiled code of a model topology: the Taylor integrator and the output functions.

A :class:`CompiledSystem` is built once per topology (see
:func:`quivira.model.symbolic.topology_key`) and integration tolerance, with every numeric
datum a runtime parameter. Changing a length, mass, g, force or support position only
changes the parameter vector ``pars``; the compiled integrator is reused.

The expressions come from :func:`quivira.model.assembly.assemble_bar_model`: besides the
model's own parameters (:func:`~quivira.model.symbolic.parameter_layout`, the *base* ones) they
use *derived* parameters, polynomials in the base ones (see
:class:`~quivira.model.monomials.Coefficients`); :meth:`CompiledSystem.parameters` gives the
whole vector that the integrator and the compiled functions take.

Outputs along a trajectory are evaluated by compiled functions (``hy.cfunc``) on whole
arrays of states: one, compiled in a background thread while the integrator compiles (heyoka
releases the GIL while LLVM works, so on two cores it costs no wall time), for the energies,
position residuals
:math:`F(q)`, velocity residuals :math:`J\dot q` and the entries of :math:`J`; on first use,
one for the multipliers :math:`\lambda` and accelerations, and one for the singularity
measure :math:`\min_k d_k / W_{kk}`, where :math:`d_k` are the pivots of the factorization of
the Delassus matrix :math:`W` (for a symmetric positive definite :math:`W`,
:math:`0 < d_k \le W_{kk}`; a ratio near 0 means the constraint rows are nearly dependent).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import heyoka as hy
import numpy as np

from .._entries import as_expression
from .._repr import short_repr
from ..lagrangian import first_order_system
from .assembly import BarAssembly, assemble_bar_model
from .data import ModelData
from .elements import BY_KIND
from .geometry import NonFiniteConstraintError
from .monomials import Coefficients
from .regularity import structurally_regular


def default_compile_options(n_coordinates: int, purpose: str = "interactive") -> dict:
    """Heyoka ``compact_mode`` / ``opt_level`` chosen by size and purpose.

    Compact mode at ``opt_level=0`` compiles fastest at every size, by one to three orders of
    magnitude against non-compact code or higher levels, while ``opt_level=1`` runs about 3x
    faster (measured by ``benchmarks/compile_options.py``, figures in
    ``benchmarks/results/``). ``"interactive"`` (edits in a widget, short runs) takes
    compact/0; ``"long"`` takes compact/1, except tiny systems (up to 2 bars), where
    non-compact code at level 0 is both quick to build and fast.
    """
    if purpose == "interactive":
        return {"compact_mode": True, "opt_level": 0}
    if purpose == "long":
        if n_coordinates <= 6:
            return {"compact_mode": False, "opt_level": 0}
        return {"compact_mode": True, "opt_level": 1}
    raise ValueError(f"purpose must be 'interactive' or 'long', got {short_repr(purpose)}")


#: ``simulate(tol=None)``: ``(up to this many coordinates, tolerance)``, loosening with size.
#: Small models compile in a blink and integrate in less, so accuracy costs little; from
#: a few bars on the integration dominates and its cost grows with the Taylor order (about
#: -ln(tol)/2 + 1). The boundary is set by ``benchmarks/run.py`` (the default call against a
#: sweep of tolerances); its measurements: docs/design/tolerances.md.
DEFAULT_TOLERANCES = ((20, 1e-12),)
#: above the last size of :data:`DEFAULT_TOLERANCES`, for runs longer than the time scale
LARGE_MODEL_TOL = 1e-10
#: a run no longer than the model's time scale (``ModelData.time_scale``) takes this one at
#: every size: its few steps cost little against compiling; see docs/design/tolerances.md
SHORT_RUN_TOL = 1e-12
#: every tolerance the default rule can choose (``simulate`` reuses code compiled at any of
#: them rather than compiling again)
DEFAULT_TOL_CHOICES = tuple(sorted({t for _, t in DEFAULT_TOLERANCES}
                                   | {LARGE_MODEL_TOL, SHORT_RUN_TOL}))


def default_tolerance(n_coordinates: int, t_end: float | None = None,
                      time_scale: float | None = None) -> float:
    r"""Return the integrator tolerance ``simulate`` uses when none is given.

    Parameters
    ----------
    n_coordinates : int
        Number of generalized coordinates of the model.
    t_end : float, optional
        Length of the run (s), if known.
    time_scale : float, optional
        The model's time scale :math:`T = 2\pi\sqrt{\ell/g}`
        (:meth:`~quivira.model.data.ModelData.time_scale`), None without gravity.

    Returns
    -------
    float
        1e-12 up to 20 coordinates (a four-bar, a 2-cell scissor, a 4-bar chain), where
        compiling dominates; 1e-12 also at any size when ``t_end`` <= ``time_scale`` (a run
        shorter than one swing takes few steps, so a tighter tolerance costs little against
        compiling); else 1e-10 (:data:`DEFAULT_TOLERANCES`, :data:`SHORT_RUN_TOL`).
    """
    for size, tol in DEFAULT_TOLERANCES:
        if n_coordinates <= size:
            return tol
    if t_end is not None and time_scale is not None and t_end <= time_scale:
        return SHORT_RUN_TOL
    return LARGE_MODEL_TOL


@dataclass
class CompiledSystem:
    """Integrator and output functions of one topology; see the module docstring."""

    #: the assembled equations and the element definitions they come from
    assembly: BarAssembly
    parts: object
    #: the integrator's recipe ``(system, kwargs)``, compiled by :attr:`ta` on first use
    ta_recipe: tuple
    #: [T, V, F (m rows), J qd (m rows), entries of J at J_pattern] of (q, qd, t), compiling
    #: in the background (see :attr:`outputs`)
    outputs_future: Future
    J_pattern: list
    n: int
    m: int
    n_holonomic: int
    tol: float | None
    options: dict
    #: the derived runtime parameters of the expressions (see :meth:`parameters`)
    coefficients: Coefficients
    timings: dict = field(default_factory=dict)
    cfunc_options: dict = field(default_factory=dict)
    _dynamics: object = None
    #: further compiled functions built on demand (e.g. for linearization), by key
    extra: dict = field(default_factory=dict, repr=False)
    #: the events of the integrator (see :func:`event_table`) and the log of the recorded ones
    terminal_events: list = field(default_factory=list, repr=False)
    recorded_events: list = field(default_factory=list, repr=False)
    event_log: list = field(default_factory=list, repr=False)
    _ta: object = field(default=None, repr=False)
    #: the integrator compiling in a background thread (see :meth:`start_integrator`)
    ta_future: Future | None = field(default=None, repr=False)
    #: guards the start of the background compilations (held briefly, never while waiting)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    #: ``(data, solver, excluded)`` the equations were assembled from (see :meth:`plain_assembly`)
    source: tuple | None = field(default=None, repr=False)
    _plain: object = field(default=None, repr=False)

    @property
    def monitor(self) -> bool:
        """Whether the integrator carries the singularity monitor's events (:func:`event_table`)."""
        return any(is_monitor_event(e) for e in self.terminal_events)

    @property
    def ta(self):
        """The scalar Taylor integrator ``hy.taylor_adaptive``.

        Compiling in a background thread since :func:`compile_system` (``simulate``: while
        the initial state is made consistent) or, if it was not asked for there (a sweep in
        batch mode needs it only for a fallback variant), from its first use.
        """
        if self._ta is None:
            self.start_integrator()
            self._ta = self._wait(self.ta_future, "compile_integrator_s")
        return self._ta

    def start_integrator(self) -> None:
        """Start compiling :attr:`ta` in a background thread (if it has not started)."""
        with self._lock:
            if self.ta_future is None:
                self.ta_future = _COMPILER.submit(self._build_integrator)

    def _build_integrator(self):
        t0 = time.perf_counter()
        sys, kwargs = self.ta_recipe
        ta = hy.taylor_adaptive(sys, [0.0] * len(sys), **kwargs)
        self.timings["integrator_thread_s"] = time.perf_counter() - t0
        return ta

    def _wait(self, future: Future, key: str):
        """Return ``future.result()``; the first wait's wall time goes to ``timings[key]``."""
        if key in self.timings:
            return future.result()
        t0 = time.perf_counter()
        out = future.result()
        self.timings.setdefault(key, time.perf_counter() - t0)  # what it cost the caller
        return out

    @property
    def outputs(self):
        """The compiled outputs function (waits for its background compilation)."""
        return self._wait(self.outputs_future, "compile_outputs_s")

    @property
    def q(self) -> list:
        """The coordinate variables."""
        return self.parts.q

    @property
    def qd(self) -> list:
        """The velocity variables."""
        return self.parts.qd

    @property
    def labels(self) -> list[str]:
        """One label per constraint row."""
        return self.assembly.collected.labels

    @property
    def singularity(self):
        """Compiled pivot ratios :math:`d_k/W_{kk}` of the state alone.

        The factorization of W, not the solves: what the singularity monitor of ``simulate``
        evaluates after every step; built on first use.
        """
        fn = self.extra.get("singularity")
        if fn is None:
            t0 = time.perf_counter()
            ratios = singularity_measures(self.parts) or [hy.expression(1.0)]
            fn = hy.cfunc(ratios, vars=[*self.q, *self.qd],
                          **self.cfunc_options)
            self.extra["singularity"] = fn
            self.timings["compile_singularity_s"] = time.perf_counter() - t0
        return fn

    def prepare_dynamics(self) -> None:
        r"""Start compiling :attr:`dynamics` in a background thread (once).

        E.g. beside a batch integrator, or while a player shows the first frames.
        """
        with self._lock:
            if self._dynamics is None:
                exprs = [as_expression(x) for x in self.parts.lambda_mult]
                exprs += singularity_measures(self.parts)
                exprs += [as_expression(x) for x in self.parts.qdd]
                self._dynamics = compile_in_background(exprs, [*self.q, *self.qd],
                                                       self.cfunc_options, self.timings,
                                                       "dynamics_thread_s")

    @property
    def dynamics(self):
        r"""Compiled :math:`(\lambda, d_k/W_{kk}, \ddot q)` of the state, built on first use."""
        self.prepare_dynamics()
        return self._wait(self._dynamics, "compile_dynamics_s")

    def parameters(self, base: np.ndarray) -> np.ndarray:
        """Return the runtime parameter vector of the compiled code.

        The model's parameter values (:meth:`~quivira.bar_joint_model.parameter_values`) followed
        by the derived ones.
        """
        return self.coefficients.values(base)

    def expand_parameters(self, exprs: list) -> list:
        """Replace every derived parameter in ``exprs`` by its formula in the base ones.

        Derivatives with respect to a datum (``hy.diff``, ``hy.var_ode_sys``) then see all of its
        occurrences.
        """
        formulas = self.coefficients.formulas()
        if not formulas:
            return [as_expression(x) for x in exprs]
        return [hy.subs(as_expression(x), formulas) for x in exprs]

    def ode_system(self, expand_parameters: bool = False) -> list:
        """Return the first-order system ``[(q_i, qd_i)..., (qd_i, qdd_i)...]`` that is integrated.

        With ``expand_parameters`` it uses base parameters only (see :meth:`expand_parameters`),
        e.g. for sensitivities with ``hy.var_ode_sys``.
        """
        sys = first_order_system(self.parts)
        if not expand_parameters:
            return sys
        rhs = self.expand_parameters([r for _, r in sys])
        return [(v, r) for (v, _), r in zip(sys, rhs, strict=True)]

    def plain_assembly(self) -> BarAssembly:
        r"""Return the equations without the terms of the passage through singular poses.

        :func:`~quivira.model.assembly.assemble_bar_model` with ``run_terms=False``: the
        values of :math:`\ddot q` and :math:`\lambda` are those of :attr:`assembly` outside a
        window (diagonal scale 1, window terms 0) with fewer operations. For code that never
        crosses a singular pose itself, such as a sweep's batch lanes. Built on first use,
        with the same runtime parameters; :attr:`assembly` itself when the two do not share
        their derived coefficients (or have no such terms).
        """
        if self._plain is None:
            plain = self.assembly
            if self.source is not None:
                data, solver, excluded = self.source
                asm = assemble_bar_model(data, solver, excluded, run_terms=False)
                if self.coefficients.extends(asm.coefficients):
                    plain = asm
            self._plain = plain
        return self._plain

    @property
    def step_cost(self) -> float:
        """A measure of the work of one Taylor step: coordinates plus non-zeros of J and W.

        heyoka's decomposition is about five times it (:attr:`decomposition_size`, slow to
        read on large systems); it sizes the chunks of a run
        (:func:`quivira.budget.chunk_steps`).
        """
        cost = self.extra.get("step_cost")
        if cost is None:
            cost = float(self.n + sum(len(r) for r in self.parts.J_rows)
                         + sum(len(r) for r in self.parts.W_rows))
            self.extra["step_cost"] = cost
        return cost

    @property
    def decomposition_size(self) -> int:
        """Length of heyoka's decomposition of the ODE system (a measure of its cost)."""
        if "decomposition_size" not in self.timings:
            self.timings["decomposition_size"] = len(self.ta.decomposition)
        return self.timings["decomposition_size"]


ode_system = first_order_system


def singularity_measures(parts) -> list:
    """Expressions :math:`d_k / W_{kk}` for every constraint row (see module docstring)."""
    if parts.W_solve is None:
        return []
    return parts.W_solve.pivot_ratios(parts.solve_rows)


def compile_system(data: ModelData, tol: float | None, options: dict,
                   solver: str = "ordered", excluded: frozenset = frozenset(),
                   integrator: bool = True) -> CompiledSystem:
    """Build the equations of the topology of ``data`` and compile its code.

    The output functions, and with ``integrator`` the Taylor integrator, compile in
    background threads (see :attr:`CompiledSystem.outputs`, :attr:`CompiledSystem.ta`).
    The rows ``excluded`` are left out.
    """
    t0 = time.perf_counter()
    asm = assemble_bar_model(data, solver, excluded)
    parts = asm.parts
    sys = ode_system(parts)
    if asm.collected.ledger:  # the energy ledger: work in and energy dissipated, integrated
        sys += [(WORK, asm.power_in), (DISSIPATED, asm.dissipation)]
    n, m = len(parts.q), len(parts.lambda_mult)
    t1 = time.perf_counter()
    kwargs = dict(options)
    if tol is not None:
        kwargs["tol"] = tol
    terminal, recorded = event_table(asm, data)
    event_log: list = []
    # no cooldown: an impulse turns the event function away from zero (a directed event
    # cannot trigger again there), while heyoka's automatic cooldown, long after slow
    # impacts, could hide the next crossing of another event
    kwargs["t_events"] = [hy.t_event(e["expr"], direction=_DIRECTIONS[e["direction"]],
                                     cooldown=0.0) for e in terminal]
    kwargs["nt_events"] = [hy.nt_event(e["expr"], _recorder(event_log, k),
                                       direction=_DIRECTIONS[e["direction"]])
                           for k, e in enumerate(recorded)]
    pattern = [(k, j) for k, row in enumerate(parts.J_rows) for j in row]
    # one compiled function for all outputs: [T, V_gravity, V_loads, P_in, P_d, F (m), v (m),
    # J entries (pattern), power of each load, energy of each elastic load]
    out_exprs = [asm.kinetic, asm.gravity, asm.load_potential, asm.power_in, asm.dissipation]
    out_exprs += list(asm.position_residual)
    out_exprs += [as_expression(x) for x in parts.velocity_residual]
    out_exprs += [as_expression(parts.J_rows[k][j]) for k, j in pattern]
    out_exprs += list(asm.load_power.values()) + list(asm.elastic.values())
    out_exprs += [e for outs in asm.load_forces.values() for _, e in outs]
    cf_opts = cfunc_options(options)
    timings = {"build_s": t1 - t0}
    outputs = compile_in_background(out_exprs, [*parts.q, *parts.qd], cf_opts, timings,
                                    "outputs_thread_s")
    cs = CompiledSystem(asm, parts, (sys, kwargs), outputs, pattern, n, m, parts.n_holonomic,
                        tol, dict(options), asm.coefficients, timings, cf_opts)
    cs.terminal_events, cs.recorded_events, cs.event_log = terminal, recorded, event_log
    cs.source = (data, solver, excluded)
    if integrator:
        cs.start_integrator()
    return cs


#: LLVM compiles the output functions beside the integrator (heyoka releases the GIL)
_COMPILER = ThreadPoolExecutor(max_workers=3, thread_name_prefix="quivira-compile")


def cfunc_options(options: dict) -> dict:
    """Options of the compiled output functions: the integrator's ``compact_mode``, level 0.

    Output functions are evaluated on the output times only (a few hundred states), where
    ``opt_level=0`` costs microseconds more per call but compiles 3-4x faster than level 1
    (measured on scissor-8: 0.35 s against 1.24 s for the multipliers and accelerations).
    """
    opts = {"opt_level": 0, "batch_size": 1}  # one scalar kernel: half the compile time
    if "compact_mode" in options:
        opts["compact_mode"] = options["compact_mode"]
    return opts


def compile_in_background(exprs: list, variables: list, options: dict, timings: dict,
                          name: str) -> Future:
    """Start compiling ``hy.cfunc(exprs, vars=variables, **options)`` in a worker thread.

    The compile time is recorded as ``timings[name]``; ``future.result()`` returns the function
    (or raises what the compilation raised).
    """
    def job():
        t0 = time.perf_counter()
        cf = hy.cfunc(exprs, vars=variables, **options)
        timings[name] = time.perf_counter() - t0
        return cf

    return _COMPILER.submit(job)


_DIRECTIONS = {"any": hy.event_direction.any, "up": hy.event_direction.positive,
               "down": hy.event_direction.negative}


def _recorder(log: list, k: int):
    """Return the callback of a recorded (non-terminal) event: it appends ``(k, t, direction)``."""
    def callback(ta, t, d_sgn):
        log.append((k, float(t), int(d_sgn)))

    return callback


def event_table(asm: BarAssembly, data: ModelData) -> tuple[list, list]:
    r"""Return the terminal and the recorded events of the compiled system.

    These are the elements' events, and the singularity monitor: one terminal event per pivot
    ratio :math:`r_k = d_k/W_{kk}` of W, falling through zero,

    .. math:: g_k = (r_k - p_{thr})\,(r_k - p_{rel}),

    with the runtime parameters ``p_thr`` (``("singular_threshold",)``) and ``p_rel``
    (``("singular_release",)``). Since :math:`0 \le r_k \le 1` (W is positive
    semi-definite), at most one factor changes sign: outside a window ``p_rel = -1``
    (:math:`r_k - p_{rel} > 0`), so :math:`g_k` falls through zero when :math:`r_k` falls
    through ``p_thr`` (a singular pose comes); inside a regularized window ``p_thr =``
    :data:`ABOVE_RATIOS` (:math:`r_k - p_{thr} < 0`), so it falls through zero when
    :math:`r_k` rises through ``p_rel`` (the pose is passed); with both at -1 it stays
    positive. One event per pivot where a falling and a rising one would double the event
    functions heyoka compiles and searches for roots at every step. A model whose :math:`J`
    has full row rank at every pose, proven from its structure
    (:func:`~quivira.model.regularity.structurally_regular`: trees of pins and rollers), has
    no monitor.
    """
    terminal = [e for e in asm.events if e["terminal"]]
    recorded = [e for e in asm.events if not e["terminal"]]
    parts = asm.parts
    if parts.W_solve is not None and not structurally_regular(parts.J_rows):
        from .symbolic import parameter_layout

        keys = [key for key, _ in parameter_layout(data)]
        thr = hy.par[keys.index(("singular_threshold",))]
        rel = hy.par[keys.index(("singular_release",))]
        for k, ratio in enumerate(singularity_measures(parts)):
            r = as_expression(ratio)
            terminal.append({"kind": None, "position": None, "role": "singular",
                             "row": parts.solved_row(parts.W_solve.perm[k]),
                             "direction": "down",
                             "expr": (r - thr) * (r - rel)})
    return terminal, recorded


def event_values(cs: CompiledSystem, state: np.ndarray, pars: np.ndarray, t: float = 0.0
                 ) -> dict[int, float]:
    """Return the value of every user event's function at ``state``, by ``id`` of the event.

    The user's events of :attr:`CompiledSystem.terminal_events` and
    :attr:`CompiledSystem.recorded_events`, compiled into one function on first use.
    """
    events = [e for e in cs.terminal_events + cs.recorded_events if e["role"] == "user"]
    if not events:
        return {}
    fn = cs.extra.get("user_events")
    if fn is None:
        fn = hy.cfunc([as_expression(e["expr"]) for e in events], vars=[*cs.q, *cs.qd],
                      **cs.cfunc_options)
        cs.extra["user_events"] = fn
    x = np.asarray(state, dtype=float)[: 2 * cs.n]
    kw = {"pars": pars[: fn.nparams]} if fn.nparams else {}
    vals = fn(x, **kw, **_time_kw(fn, t))
    return {id(e): float(v) for e, v in zip(events, vals)}


def is_monitor_event(event: dict) -> bool:
    """Return True for an event of the singularity monitor (see :func:`event_table`)."""
    return event["role"] == "singular"


#: a value of ``("singular_threshold",)`` above every pivot ratio: the monitor's event
#: then watches the release (see :func:`event_table`). Should rounding ever carry a ratio
#: :math:`r_k` above it inside a window, nothing is lost: the window opens with :math:`r_k`
#: at the threshold, below ``p_rel``, so :math:`r_k` rose through ``p_rel`` on its way up,
#: and that crossing (g falling) released the window first (a release is also checked on the
#: numbers: every ratio above 1.5 x the threshold, in the simulator's ``_on_singular``)
ABOVE_RATIOS = 2.0


#: the ledger's extra state variables: work supplied and energy dissipated since t = 0
WORK, DISSIPATED = hy.make_vars("quivira_work", "quivira_dissipated")
#: number of energy/power outputs before the residuals in the outputs function
N_ENERGY = 5


def _time_kw(cf, t):
    return {"time": t} if cf.is_time_dependent else {}


def evaluate_geometry(cs: CompiledSystem, q: np.ndarray, pars: np.ndarray, t: float = 0.0,
                      qd: np.ndarray | None = None):
    r"""Return ``(F(q, t), J(q, qd, t))`` as numpy arrays.

    ``J`` is dense ``(m, n)``; rows of velocity constraints have ``F = 0`` and their
    :math:`\partial g/\partial \dot q` in ``J``, which depends on ``qd`` for constraints
    nonlinear in the velocities (default qd = 0).

    Raises
    ------
    NonFiniteConstraintError
        A ValueError naming the rows whose residual or Jacobian is not finite at the pose
        (a constraint outside its domain, such as the square root of a negative number),
        instead of handing NaN to the linear algebra, which fails with LAPACK's "SVD did
        not converge". Iterations that probe trial poses catch it and step back.
    """
    if cs.m == 0:
        return np.zeros(0), np.zeros((0, cs.n))
    x = np.concatenate([np.asarray(q, dtype=float),
                        np.zeros(cs.n) if qd is None else np.asarray(qd, dtype=float)])
    vals = cs.outputs(x, pars=pars[: cs.outputs.nparams], **_time_kw(cs.outputs, t))
    m, o = cs.m, N_ENERGY
    F = vals[o : m + o].copy()
    J = np.zeros((m, cs.n))
    rows, cols = zip(*cs.J_pattern) if cs.J_pattern else ((), ())
    J[list(rows), list(cols)] = vals[2 * m + o : 2 * m + o + len(cs.J_pattern)]
    if not (np.isfinite(F).all() and np.isfinite(J).all()):
        raise _non_finite(cs, x, F, J, t)
    return F, J


def _non_finite(cs: CompiledSystem, x: np.ndarray, F: np.ndarray, J: np.ndarray,
                t: float) -> NonFiniteConstraintError:
    """Return the error naming the rows of ``F`` or ``J`` that are not finite at ``x``."""
    bad = [int(k) for k in np.nonzero(~(np.isfinite(F) & np.isfinite(J).all(axis=1)))[0]]
    if not np.isfinite(x).all():
        return NonFiniteConstraintError("the constraints cannot be evaluated: the pose or "
                                        "velocities are not finite", bad)
    labels = cs.labels
    parts = []
    for k in bad[:4]:
        if not np.isfinite(F[k]):
            what = f"its residual is {F[k]}"
        else:
            j = int(np.nonzero(~np.isfinite(J[k]))[0][0])
            what = f"its derivative by {cs.q[j]} is {J[k, j]}"
        parts.append(f"{labels[k]!r} ({what})")
    more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
    at = f" at t = {t:g}" if t else ""
    return NonFiniteConstraintError(
        f"constraint row{'s' if len(bad) > 1 else ''} {', '.join(parts)}{more} "
        f"{'are' if len(bad) > 1 else 'is'} not finite at this pose{at}: the constraint is "
        "undefined there (such as the square root or logarithm of a negative number); change "
        "the pose or the constraint", bad)


def _batch(cf, states: np.ndarray, pars: np.ndarray, t) -> np.ndarray:
    n_pts = states.shape[0]
    if n_pts == 0:
        return np.zeros((0, cf.nouts))
    p = np.asarray(pars, dtype=float)
    if p.ndim == 2:  # one parameter vector per state (switches during a run)
        batch_pars = np.ascontiguousarray(p[:, : cf.nparams].T)
    else:
        batch_pars = np.repeat(p[: cf.nparams, None], n_pts, axis=1)
    kw = {}
    if cf.is_time_dependent:
        kw["time"] = np.broadcast_to(np.asarray(t, dtype=float), (n_pts,)).copy()
    return cf(np.ascontiguousarray(states.T), pars=batch_pars, **kw).T


def evaluate_outputs(cs: CompiledSystem, states: np.ndarray, pars: np.ndarray,
                     t: np.ndarray | float = 0.0) -> dict:
    """Evaluate energies and residuals on ``states`` ``(n_points, 2n)`` at times ``t``.

    One batch call of a compiled function.
    """
    m, o = cs.m, N_ENERGY
    vals = _batch(cs.outputs, states[:, : 2 * cs.n], pars, t)
    k = 2 * m + o + len(cs.J_pattern)
    names_p = list(cs.assembly.load_power)
    names_e = list(cs.assembly.elastic)
    forces, col = {}, k + len(names_p) + len(names_e)
    for nm, outs in cs.assembly.load_forces.items():
        block = vals[:, col:col + len(outs)]
        forces[nm] = block[:, 0] if len(outs) == 1 else block
        col += len(outs)
    return {
        "kinetic_energy": vals[:, 0],
        "gravity_energy": vals[:, 1],
        "load_potential": vals[:, 2],
        "potential_energy": vals[:, 1] + vals[:, 2],
        "power_in": vals[:, 3],
        "dissipation": vals[:, 4],
        "position_residual": vals[:, o : m + o],
        "velocity_residual": vals[:, m + o : 2 * m + o],
        "load_power": {nm: vals[:, k + i] for i, nm in enumerate(names_p)},
        "elastic_energy": {nm: vals[:, k + len(names_p) + i] for i, nm in enumerate(names_e)},
        "load_forces": forces,
    }


def evaluate_singularity(cs: CompiledSystem, state: np.ndarray, pars: np.ndarray,
                         t: float = 0.0) -> float:
    r""":math:`\min_k d_k/W_{kk}` at one state (1.0 without constraints)."""
    cf = cs.singularity
    return float(np.min(cf(state[: 2 * cs.n], pars=pars[: cf.nparams], **_time_kw(cf, t))))


def evaluate_dynamics(cs: CompiledSystem, states: np.ndarray, pars: np.ndarray,
                      t: np.ndarray | float = 0.0) -> dict:
    """Multipliers, singularity measure and accelerations on ``states``, in one batch call."""
    m, n = cs.m, cs.n
    vals = _batch(cs.dynamics, states[:, : 2 * cs.n], pars, t)
    sing = vals[:, m : vals.shape[1] - n]  # one ratio per row of the solve
    return {
        "lambda_mult": vals[:, :m],
        "singularity": sing.min(axis=1) if sing.shape[1] else np.ones(vals.shape[0]),
        "qdd": vals[:, vals.shape[1] - n :],
    }


def active_rows(data: ModelData, cs: CompiledSystem) -> np.ndarray:
    """Return the mask of the constraint rows of ``cs`` that are switched on in ``data``.

    The flags are runtime parameters: the compiled system's rows, the data's flags.
    """
    return np.array([data.elements[BY_KIND[kind].collection][pos].is_active
                     for kind, pos, *_ in cs.assembly.collected.owners], dtype=bool)

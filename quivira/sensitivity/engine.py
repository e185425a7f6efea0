r"""Variational equations of a bar model and the jets of its outputs.

The motion integrated by ``simulate`` is the first-order system
:math:`\dot x = f(x, p)`, :math:`x = (q, \dot q)`, with :math:`\ddot q = M^{-1}(Q + J^T\lambda)`
and the Baumgarte-stabilized multipliers :math:`W\lambda = -(J\ddot q_a + \dot J\dot q + 2α
\dot F + α^2 F)` (:meth:`~quivira.model.compiled.CompiledSystem.ode_system`). Here it is
taken with every derived parameter written out in the physical ones
(:mod:`.parameters`), and heyoka's ``var_ode_sys`` adds the variational equations of order
``k`` with respect to the selected parameters :math:`w`:

.. math:: \frac{d}{dt} ∂^α x = ∂^α f(x(t, w), w), \qquad 1 ≤ |α| ≤ k,

integrated with the motion in one Taylor integrator. Their initial values are the jets of the
initial state :math:`x_0(w)` (:func:`initial_jets`): the initial state must satisfy the
constraints for every ``w``, so a perturbation moves the *dependent* coordinates of a
coordinate partitioning and keeps the independent ones.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field

import heyoka as hy
import numpy as np

from .._entries import as_expression
from ..model.compiled import CompiledSystem, is_monitor_event
from ..model.symbolic import parameter_layout, topology_key
from .jets import TotalDerivative, multi_indices
from .parameters import ParameterMap, Variable, substitution

#: the outputs that can be requested besides the state
OUTPUT_KINDS = ("state", "energy", "lambda")


@dataclass
class VariationalSystem:
    """The compiled variational integrator of one topology, selection of variables and order.

    With the compiled jets of its outputs (built on first use).
    """

    cs: CompiledSystem
    variables: list[Variable]
    pmap: ParameterMap
    order: int
    ta: object
    #: ``{(c, α): state index}`` in the integrator's state
    layout: dict
    #: ``{(c, α): variable}`` and ``{(c, α): right-hand side}`` of the variational system
    state_vars: dict
    rhs: dict
    mindex: list
    #: the model's terminal events the integrator watches: dicts with name, expr
    events: list
    n: int
    timings: dict = field(default_factory=dict)
    #: compiled jets: ``{key: (cfunc, list of α, n_exprs)}``
    compiled_jets: dict = field(default_factory=dict)
    #: the cost of one step, for the chunks of steps (:func:`quivira.budget.chunk_steps`)
    step_cost: float | None = None

    def substituted(self, exprs: list) -> list:
        """``exprs`` in the base parameters with the selected ones substituted."""
        out = self.cs.expand_parameters([as_expression(e) for e in exprs])
        if self.pmap.subs:
            out = [hy.subs(e, self.pmap.subs) for e in out]
        return out

    def jet_function(self, key: str, exprs_fn, *, event: bool = False, at_time_zero=False):
        """Return the compiled jets of the expressions ``exprs_fn()`` (cached under ``key``).

        ``(cfunc, mindex, n_exprs)``; the cfunc maps the integrator state (and, with ``event``,
        the τ jets) to all :math:`D^α h` stacked by multi-index.
        """
        hit = self.compiled_jets.get(key)
        if hit is not None:
            return hit
        t0 = time.perf_counter()
        exprs = exprs_fn()
        if at_time_zero:
            exprs = [hy.subs(e, {hy.time: hy.expression(0.0)}) for e in exprs]
        time_var = hy.expression("quivira_time") if event else None
        if event:
            exprs = [hy.subs(e, {hy.time: time_var}) for e in exprs]
        rhs = None
        if event:
            rhs = {k: hy.subs(r, {hy.time: time_var}) for k, r in self.rhs.items()}
        td = TotalDerivative(self.state_vars, [hy.par[i] for i in self.pmap.par_index],
                             self.order, rhs=rhs, time_var=time_var)
        jets = td.jets(exprs)
        flat = [e for a in td.mindex for e in jets[a]]
        ordered = sorted(self.layout.items(), key=lambda kv: kv[1])
        inputs = [self.state_vars[k] for k, _ in ordered]
        if event:
            inputs += [td.tau[a] for a in td.mindex[1:]] + [time_var]
        cf = hy.cfunc(flat, vars=inputs, compact_mode=True, opt_level=0)
        hit = (cf, td.mindex, len(exprs))
        self.compiled_jets[key] = hit
        self.timings[f"compile_jets_{key}_s"] = time.perf_counter() - t0
        return hit


_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def variational_system(simulator, data, cs: CompiledSystem, variables: list[Variable],
                       order: int, tol: float | None, excluded: frozenset) -> VariationalSystem:
    """Return the (cached) variational integrator for this topology, selection and order."""
    # the substitution writes the data of variables not selected as constants: they are
    # part of the key when there is a substitution (g, masses, lengths)
    values = ()
    if any(v.kind in ("g", "mass", "length") for v in variables):
        values = tuple(v for _, v in parameter_layout(data))
    key = (topology_key(data), tuple((v.kind, v.index) for v in variables), order, tol,
           tuple(sorted(excluded, key=str)), id(cs), values)
    cache = _CACHE.setdefault(simulator, {})
    hit = cache.get(key)
    if hit is not None and hit.cs is cs:
        return hit
    t0 = time.perf_counter()
    pmap = substitution(data, variables)
    sys = cs.ode_system(expand_parameters=True)
    if pmap.subs:
        sys = [(v, hy.subs(r, pmap.subs)) for v, r in sys]
    vsys = hy.var_ode_sys(sys, [hy.par[i] for i in pmap.par_index], order=order)
    events = []
    for ev in cs.terminal_events:
        if is_monitor_event(ev):
            continue
        element = data.elements[ev["kind"].collection][ev["position"]]
        expr = cs.expand_parameters([ev["expr"]])[0]
        if pmap.subs:
            expr = hy.subs(expr, pmap.subs)
        events.append({"name": element.label_prefix(ev["position"]), "role": ev["role"],
                       "expr": expr, "direction": ev["direction"]})
    directions = {"any": hy.event_direction.any, "up": hy.event_direction.positive,
                  "down": hy.event_direction.negative}
    kwargs = {"compact_mode": True, "opt_level": 0}
    if tol is not None:
        kwargs["tol"] = tol
    t1 = time.perf_counter()
    ta = hy.taylor_adaptive(vsys, [0.0] * len(sys),
                            t_events=[hy.t_event(e["expr"], direction=directions[e["direction"]],
                                                 cooldown=0.0) for e in events], **kwargs)
    t2 = time.perf_counter()
    n = cs.n
    mindex = multi_indices(len(variables), order)
    pos = {a: k for k, a in enumerate(mindex)}
    layout, state_vars, rhs = {}, {}, {}
    for i, (v, r) in enumerate(vsys.sys):
        mi = ta.get_mindex(i)
        c, a = mi[0], tuple(mi[1:])
        if i < len(sys):
            a = mindex[0]
        assert a in pos
        layout[(c, a)] = i
        state_vars[(c, a)] = v
        rhs[(c, a)] = r
    vs = VariationalSystem(cs, variables, pmap, order, ta, layout, state_vars, rhs, mindex,
                           events, n, {"build_variational_s": t1 - t0,
                                       "compile_variational_s": t2 - t1})
    cache[key] = vs
    while len(cache) > 4:
        cache.pop(next(iter(cache)))
    return vs


# ------------------------------------------------------------------ initial state
def partition(J: np.ndarray, weights: np.ndarray, fixed: list[int]) -> list[int]:
    """Choose the dependent columns of ``J`` (scaled by ``weights``).

    By Gram–Schmidt with column pivoting: the column with the largest remainder after
    projecting out the chosen ones, until the rank is reached; never a column of ``fixed``
    (initial-state entries that are differentiation variables: they must stay independent).

    Raises
    ------
    ValueError
        The constraints fix a combination of the ``fixed`` entries (they cannot all be
        varied independently).
    """
    if J.shape[0] == 0:
        return []
    A = J * weights[None, :]
    scale = np.max(np.abs(A)) if A.size else 0.0
    if scale == 0.0:
        return []
    tol = 1e-10 * scale
    rank = np.linalg.matrix_rank(A, tol=tol)
    R = A.copy()
    R[:, fixed] = 0.0
    chosen: list[int] = []
    for _ in range(rank):
        norms = np.linalg.norm(R, axis=0)
        norms[chosen] = 0.0
        c = int(np.argmax(norms))
        if norms[c] <= tol:
            names = ", ".join(str(k) for k in fixed)
            raise ValueError(f"the initial-state entries (state indices {names}) cannot all "
                             "be varied independently: the constraints fix them; choose "
                             "other coordinates")
        u = R[:, c] / norms[c]
        R -= np.outer(u, u @ R)
        chosen.append(c)
    return sorted(chosen)


def initial_jets(vs: VariationalSystem, state0: np.ndarray, ext_pars: np.ndarray,
                 dep_q: list[int], dep_v: list[int], J: np.ndarray) -> np.ndarray:
    r"""Return the initial state of the variational integrator.

    ``state0`` and the jets of the initial state :math:`x_0(w)`.

    Coordinate partitioning (:func:`partition`): dependent coordinates :math:`q_D` for the
    holonomic rows :math:`F(q, p) = 0` and dependent velocities :math:`\dot q_D` for the
    velocity rows :math:`v(q, \dot q, p) = J\dot q + F_t = 0`, never an entry named in
    ``wrt``. Independent entries keep their values (their jets are :math:`∂x_c/∂w_j = 1` for
    the entry ``w_j`` itself, else 0). The dependent ones follow from :math:`D^α F = 0` and
    :math:`D^α v = 0`, order by order: at order :math:`|α|`,
    :math:`D^α F = F_{q_D}\, ∂^α q_D + r_α` with :math:`r_α` made of known lower-order jets,
    so :math:`∂^α q_D = -F_{q_D}^{+} r_α` (least squares: redundant rows are consistent), then
    the same for :math:`\dot q_D` with :math:`∂v/∂\dot q = J`.
    """
    ta, n, cs = vs.ta, vs.n, vs.cs
    init = np.zeros(ta.dim)
    init[: 2 * n] = state0[: 2 * n]
    for j, v in enumerate(vs.variables):
        if v.kind == "state":
            init[vs.layout[(v.index, vs.mindex[1 + j])]] = 1.0
    if cs.m == 0 or (not dep_q and not dep_v):
        return init
    n_hol = cs.n_holonomic
    F_exprs = list(cs.assembly.position_residual[:n_hol])
    v_exprs = [as_expression(x) for x in cs.parts.velocity_residual]
    if "constraints depend" not in vs.compiled_jets:
        # do the selected parameters enter the constraints at all? (stiffnesses, loads,
        # masses do not: then the initial state does not move and nothing is compiled)
        wrt_pars = {f"p{i}" for i in vs.pmap.par_index}
        used = {str(p) for e in vs.substituted(F_exprs + v_exprs) for p in hy.get_params(e)}
        vs.compiled_jets["constraints depend"] = bool(wrt_pars & used)
    moves = any(v.kind == "state" for v in vs.variables)
    if not moves and not vs.compiled_jets["constraints depend"]:
        return init
    cf, mindex, n_e = vs.jet_function(
        "constraints", lambda: vs.substituted(F_exprs + v_exprs), at_time_zero=True)
    Fq = J[:n_hol][:, dep_q]
    Jv = J[:, dep_v]
    for r in range(1, vs.order + 1):
        alphas = [(k, a) for k, a in enumerate(mindex) if sum(a) == r]
        for rows, dep, A, offset in ((slice(0, n_hol), dep_q, Fq, 0),
                                     (slice(n_hol, n_e), dep_v, Jv, n)):
            if not dep:
                continue
            vals = _call(cf, init, ext_pars)
            for k, a in alphas:
                res = vals[k * n_e: (k + 1) * n_e][rows]
                sol = np.linalg.lstsq(A, -res, rcond=None)[0]
                for c, s in zip(dep, sol):
                    init[vs.layout[(c + offset, a)]] += s
    return init


def _call(cf, x: np.ndarray, pars: np.ndarray, **kw) -> np.ndarray:
    if cf.nparams:
        return np.asarray(cf(x, pars=np.ascontiguousarray(pars[: cf.nparams]), **kw))
    return np.asarray(cf(x, **kw))


# ------------------------------------------------------------------ outputs
def output_expressions(vs: VariationalSystem, kind: str) -> tuple[list[str], list]:
    """Labels and expressions of an output kind (``"energy"``, ``"lambda"``)."""
    cs, asm = vs.cs, vs.cs.assembly
    if kind == "energy":
        labels = ["kinetic", "potential", "total"]
        T = as_expression(asm.kinetic)
        V = as_expression(asm.gravity) + as_expression(asm.load_potential)
        return labels, [T, V, T + V]
    if kind == "lambda":
        return list(cs.labels), [as_expression(x) for x in cs.parts.lambda_mult]
    raise ValueError(f"unknown output {kind!r}")


def evaluate_jets(vs: VariationalSystem, key: str, exprs_fn, states: np.ndarray,
                  pars: np.ndarray, t: np.ndarray) -> np.ndarray:
    """``(n_t, n_exprs, n_mindex)`` jets of expressions on the integrator states."""
    cf, mindex, n_e = vs.jet_function(key, exprs_fn)
    n_t = states.shape[0]
    if n_t == 0:
        return np.zeros((0, n_e, len(mindex)))
    kw = {}
    if cf.is_time_dependent:
        kw["time"] = np.ascontiguousarray(np.asarray(t, dtype=float))
    if cf.nparams:
        kw["pars"] = np.repeat(pars[: cf.nparams, None], n_t, axis=1)
    vals = cf(np.ascontiguousarray(states.T), **kw).T  # (n_t, n_mi * n_e)
    return vals.reshape(n_t, len(mindex), n_e).transpose(0, 2, 1)


def event_jets(vs: VariationalSystem, k: int, state: np.ndarray, pars: np.ndarray,
               t_star: float) -> np.ndarray:
    r"""Return the jets of the time :math:`t^*(w)` of terminal event ``k``.

    From :math:`g(x(t^* + τ(w), w), w) = 0` (implicit function theorem, order by order:
    :math:`D^α G = \dot g\, τ_α + r_α`, :math:`\dot g = ∇g \cdot f`).
    """
    ev = vs.events[k]
    cf, mindex, _ = vs.jet_function(f"event {k}", lambda: [ev["expr"]], event=True)
    n_tau = len(mindex) - 1
    tau = np.zeros(n_tau)
    # dg/dt along the motion: D in the direction of the flow (τ_j = 1 for a unit shift)
    g_dot = _flow_derivative(vs, k, state, pars, t_star)
    if not np.isfinite(g_dot) or g_dot == 0.0:
        raise ValueError(f"event {ev['name']!r}: the crossing at t = {t_star:.6g} is tangent "
                         "(dg/dt = 0); its time has no derivative")
    kw = {"time": t_star} if cf.is_time_dependent else {}
    order = {a: sum(a) for a in mindex}
    for r in range(1, vs.order + 1):
        x = np.concatenate([state, tau, [t_star]])
        vals = _call(cf, x, pars, **kw)
        for idx, a in enumerate(mindex):
            if order[a] == r:
                tau[idx - 1] = -vals[idx] / g_dot
    return np.concatenate([[t_star], tau])


def _flow_derivative(vs: VariationalSystem, k: int, state: np.ndarray, pars: np.ndarray,
                     t_star: float) -> float:
    r""":math:`\dot g = ∇_x g\cdot f + ∂g/∂t` at the event."""
    key = f"event rate {k}"
    cf = vs.compiled_jets.get(key)
    if cf is None:
        ev = vs.events[k]
        n2 = 2 * vs.n
        xs = [vs.state_vars[(c, vs.mindex[0])] for c in range(n2)]
        tv = hy.expression("quivira_time")
        g = hy.subs(ev["expr"], {hy.time: tv})
        rate = [hy.diff(g, tv)]
        for c in range(n2):
            d = hy.diff(g, xs[c])
            if d != hy.expression(0.0):
                rate.append(d * hy.subs(vs.rhs[(c, vs.mindex[0])], {hy.time: tv}))
        cf = hy.cfunc([hy.sum(rate) if len(rate) > 1 else rate[0]], vars=xs + [tv],
                      compact_mode=True, opt_level=0)
        vs.compiled_jets[key] = cf
    x = np.concatenate([state[: 2 * vs.n], [t_star]])
    return float(_call(cf, x, pars)[0])


def base_parameters(data) -> np.ndarray:
    """Return the model's base parameter values (:func:`parameter_layout`)."""
    return np.array([v for _, v in parameter_layout(data)], dtype=float)

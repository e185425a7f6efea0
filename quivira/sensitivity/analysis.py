"""``sensitivities``: derivatives of a motion and its outputs with respect to model data.

See :func:`sensitivities` for the equations; :mod:`.engine` builds the variational
integrator, :mod:`.parameters` says what can be differentiated, :mod:`.results` holds the
answer.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import heyoka as hy
import numpy as np

from ..budget import (
    DEFAULT_MAX_STEPS,
    DEFAULT_MAX_WALL_S,
    Budget,
    check_output_bytes,
    decomposition_cost,
    interrupt_seen,
    interrupts_polled,
    propagate_grid,
)
from ..model.compiled import evaluate_geometry, evaluate_outputs
from ..model.engine_api import check_count, check_tol
from ..model.simulator import first_step_guard, initial_state
from ..model.symbolic import coordinate_names, parameter_layout
from ..model.trajectory import BudgetExceededError, SimulationInterrupted
from ..model.validation import check_positive, check_real
from .engine import (
    OUTPUT_KINDS,
    evaluate_jets,
    event_jets,
    initial_jets,
    output_expressions,
    partition,
    variational_system,
)
from .parameters import Variable, resolve
from .results import Sensitivities


def _check_order(order: Any) -> int:
    if isinstance(order, (bool, np.bool_)) or not isinstance(order, (int, np.integer)):
        raise TypeError(f"order must be an integer >= 1, got {order!r}")
    if order < 1:
        raise ValueError(f"order must be an integer >= 1 (1: gradients, 2: Hessians, ...), "
                         f"got {order!r}")
    if order > 8:
        raise ValueError(f"order must be at most 8 (the variational system grows "
                         f"combinatorially), got {order!r}")
    return int(order)


#: growth per derivative order of the size of one jet's variational equations (the product
#: and chain rules), fitted on a four-bar (orders 1 to 6) and scissor lattices
JET_GROWTH = 2.5
#: working memory (bytes) per weighted jet and per square of the system's size
#: :math:`2n + m` (expressions of the solve for the accelerations grow with both), from the
#: same measurements: a four-bar (2n + m = 26) with 8 names at order 3 peaks at 4.5 GB
BYTES_PER_JET_TERM = 900.0
#: number of jets over which the chain rule's cross terms (the jets of the constraints
#: through the state) double the working memory
CROSS_TERM_JETS = 65.0


def check_sizes(n: int, m: int, n_names: int, order: int, n_points: int,
                kinds: tuple[str, ...]) -> None:
    r"""Refuse, before any work, a call whose outputs or variational system are too large.

    Each of the :math:`2n` state entries carries :math:`\binom{K + k}{k}` jets for
    :math:`K` = ``n_names`` variables at order :math:`k`. The outputs are the integrator's
    states and the jets of the requested outputs at ``n_points`` times (the states twice
    while they are gathered). The working memory of building and compiling the variational
    system is estimated as :data:`BYTES_PER_JET_TERM` :math:`\cdot (2n + m)^2 \cdot
    \sum_{r=1}^{k} \binom{r + K - 1}{r} g^r \cdot (1 + J/J_0)`: the jets of each order
    weighted by :data:`JET_GROWTH` :math:`g` to the order, and the cross terms of the chain
    rule (:math:`J` jets, :data:`CROSS_TERM_JETS` :math:`J_0`).

    Raises
    ------
    ValueError
        Above :data:`~quivira.budget.MAX_OUTPUT_BYTES`, naming what to reduce.
    """
    jets = math.comb(n_names + order, order)
    per_time = 2 * 2 * n + 2 * n  # integrator rows, gathered copy, state jets
    per_time += (3 if "energy" in kinds else 0) + (m if "lambda" in kinds else 0)
    check_output_bytes(8.0 * n_points * per_time * jets,
                       f"n_points = {n_points} with {jets} jets per entry (order {order}, "
                       f"{n_names} wrt names)", "use fewer n_points, wrt names or a lower order")
    weighted = sum(math.comb(r + n_names - 1, r) * JET_GROWTH ** r
                   for r in range(1, order + 1))
    work = (BYTES_PER_JET_TERM * (2 * n + m) ** 2 * weighted
            * (1.0 + jets / CROSS_TERM_JETS))
    check_output_bytes(work, f"order = {order} with {n_names} wrt names ({jets} jets per "
                       f"state entry, {2 * n * jets} equations)",
                       "use fewer wrt names or a lower order", of="working memory")


def _check_outputs(outputs: Any) -> tuple[str, ...]:
    if isinstance(outputs, str):
        outputs = (outputs,)
    try:
        items = tuple(outputs)
    except TypeError:
        raise TypeError(f"outputs must be a list of {OUTPUT_KINDS}, got {outputs!r}") from None
    for o in items:
        if not isinstance(o, str):
            raise TypeError(f"outputs: expected names among {OUTPUT_KINDS}, got {o!r}")
        if o not in OUTPUT_KINDS:
            raise ValueError(f"outputs: unknown output {o!r}; choose among {OUTPUT_KINDS}")
    if "state" not in items:
        items = ("state", *items)
    return tuple(dict.fromkeys(items))


def _check_at(at: Any, variables: list[Variable]) -> dict[int, float]:
    """``{position in wrt: value}`` of the values to evaluate at."""
    if at is None:
        return {}
    names = [v.name for v in variables]
    if isinstance(at, Mapping):
        items = list(at.items())
    else:
        try:
            vals = list(at)
        except TypeError:
            raise TypeError("at must be a mapping {name: value} or a sequence of values in "
                            f"wrt order, got {at!r}") from None
        if len(vals) != len(names):
            raise ValueError(f"at: expected {len(names)} values (one per wrt name), got "
                             f"{len(vals)}")
        items = list(zip(names, vals))
    out = {}
    for nm, val in items:
        if nm not in names:
            raise ValueError(f"at: {nm!r} is not among wrt ({names})")
        j = names.index(nm)
        v = check_real(val, f"at[{nm!r}]")
        if variables[j].kind in ("mass", "length", "inertia"):
            check_positive(v, f"at[{nm!r}]")
        out[j] = v
    return out


def _data_at(data, variables: list[Variable], values: dict[int, float]):
    """Return a copy of ``data`` with the bar data, g and initial state set to ``values``.

    Leaf parameters are set in the parameter vector instead: see :func:`_base_at`.
    """
    if not values:
        return data
    new = data.copy()
    n = new.n_coordinates()
    offsets = new.offsets()
    for j, val in values.items():
        v = variables[j]
        if v.kind == "g":
            new.g = val
        elif v.kind == "mass":
            new.bars[v.index].mass = val
        elif v.kind == "length":
            new.bars[v.index].length = val
        elif v.kind == "inertia":
            new.bars[v.index].inertia = val
        elif v.kind == "state":
            k = v.index % n
            i = max(b for b, o in enumerate(offsets) if o <= k)
            c = k - offsets[i]
            b = new.bars[i]
            if v.index < n:
                pose = list(b.pose)
                pose[c] = val
                b.pose = tuple(pose)
            else:
                vel = list(b.velocity)
                vel[c] = val
                b.velocity = tuple(vel)
    return new


def _base_at(data, variables: list[Variable], values: dict[int, float]) -> np.ndarray:
    base = np.array([v for _, v in parameter_layout(data)], dtype=float)
    for j, val in values.items():
        if variables[j].kind == "leaf":
            base[variables[j].index] = val
    return base


def _project(cs, full: np.ndarray, state: np.ndarray, dep_q: list[int], dep_v: list[int],
             scale: float) -> np.ndarray:
    r"""Apply Newton's method on the dependent entries only.

    :math:`F(q) = 0` for :math:`q_D`, then :math:`v(q, \dot q) = 0` for :math:`\dot q_D` (the
    independent ones are kept).
    """
    n, n_hol = cs.n, cs.n_holonomic
    x = state.copy()
    if n_hol and dep_q:
        for _ in range(50):
            F, J = evaluate_geometry(cs, x[:n], full, 0.0, qd=x[n:2 * n])
            if np.max(np.abs(F[:n_hol])) <= 1e-14 * scale:
                break
            x[dep_q] -= np.linalg.lstsq(J[:n_hol][:, dep_q], F[:n_hol], rcond=None)[0]
        else:
            raise ValueError("the constraints cannot be met at these values (Newton's method "
                             "on the dependent coordinates did not converge)")
    if cs.m and dep_v:
        for _ in range(10):
            _, J = evaluate_geometry(cs, x[:n], full, 0.0, qd=x[n:2 * n])
            v = evaluate_outputs(cs, x[None, : 2 * n], full)["velocity_residual"][0]
            if np.max(np.abs(v)) <= 1e-14 * scale:
                break
            x[[n + c for c in dep_v]] -= np.linalg.lstsq(J[:, dep_v], v, rcond=None)[0]
    return x


@interrupts_polled()
def sensitivities(model, t_end: float, wrt: str | Sequence[str], order: int = 1,
                  outputs: str | Sequence[str] = ("state", "energy"), n_points: int = 201,
                  *, tol: float | None = None, at: Mapping | Sequence | None = None,
                  max_steps: int = DEFAULT_MAX_STEPS, max_wall_s: float = DEFAULT_MAX_WALL_S
                  ) -> Sensitivities:
    r"""Compute derivatives of the motion and its outputs up to ``order``.

    From the variational equations.

    The motion :math:`x(t) = (q, \dot q)` of ``model.simulate`` solves
    :math:`\dot x = f(x, p)` (with the Baumgarte stabilization of the constraints). With
    respect to the variables :math:`w` named in ``wrt``, heyoka's ``var_ode_sys`` integrates,
    with the motion and in the same Taylor steps,

    .. math:: \frac{d}{dt}\,∂^α x = ∂^α \big[f(x(t, w), w)\big], \qquad 1 ≤ |α| ≤ k,

    from the jets of the initial state (which satisfies the constraints for every ``w``: a
    perturbation moves the dependent coordinates of a coordinate partitioning, never the
    entries named in ``wrt``; see :func:`~quivira.sensitivity.engine.initial_jets`).
    Outputs :math:`y = h(x, w)` (energies, multipliers) get their jets by the chain rule
    along the state (:class:`~quivira.sensitivity.jets.TotalDerivative`). The time
    :math:`t^*` of a terminal event :math:`g(x, w) = 0` (``model.add_event(...,
    terminal=True)``, contacts, stops, latches) ends the integration; its jets follow from the
    implicit function theorem, :math:`dt^*/dw_j = -(∂g/∂w_j + ∇_x g\cdot ∂x/∂w_j)/\dot g`
    at first order and likewise order by order.

    Parameters
    ----------
    model : bar_joint_model
        The model; it is not changed.
    t_end : float
        Final time (s), > 0 (the integration stops earlier at a terminal event).
    wrt : str or list of str
        Names of the variables (see :mod:`quivira.sensitivity.parameters`): ``"g"``,
        ``"bar i · mass"``, ``"bar i · length"``, element parameters such as
        ``"torsional spring 0 · k"``, named parameters, initial-state entries ``"th0"``,
        ``"om1"``, ... (``quivira.sensitivity.variable_names(model)`` lists them).
    order : int
        Highest derivative order k, >= 1.
    outputs : str or list of str
        Among ``"state"`` (always included), ``"energy"`` (kinetic, potential, total) and
        ``"lambda"`` (the multipliers, one per constraint row).
    n_points : int
        Number of output times, evenly spaced over ``[0, t_end]``.
    tol : float, optional
        Integrator tolerance (heyoka's default, machine epsilon, when None).
    at : mapping or sequence, optional
        Evaluate at other values of the ``wrt`` variables than the model's (``{name:
        value}`` or values in ``wrt`` order), without changing the model; the initial state
        is then put back on the constraints by moving the dependent entries.
    max_steps : int
        Budget of integrator steps (as :meth:`~quivira.bar_joint_model.simulate`).
    max_wall_s : float
        Budget of wall time (s) of the call.

    Returns
    -------
    Sensitivities
        Labelled jets of every output (:meth:`Sensitivities.array`), the Taylor map
        (:meth:`Sensitivities.taylor_map`) and uncertainty propagation
        (:meth:`Sensitivities.propagate`).

    Raises
    ------
    TypeError, ValueError
        Bad arguments (an unknown name lists the valid ones; ``order < 1``); an initial
        state that violates the constraints; initial-state entries the constraints fix;
        outputs or a variational system larger than
        :data:`~quivira.budget.MAX_OUTPUT_BYTES` (checked before any work).
    BudgetExceededError
        ``max_steps`` or ``max_wall_s`` was used up; ``.result`` holds the
        :class:`Sensitivities` up to ``.t``.
    SimulationInterrupted
        Ctrl-C (checked between chunks of integrator steps); ``.result`` holds the
        :class:`Sensitivities` up to ``.t``.

    Notes
    -----
    Only smooth motion is differentiated: the integration ends at the first terminal event
    (impacts and switches, which make the flow non-smooth, are not continued through), and
    the singularity monitor of ``simulate`` is not used (sensitivities through a singular pose
    are not meaningful).
    """
    t_start = time.perf_counter()
    t_end = check_positive(t_end, "t_end")
    order = _check_order(order)
    kinds = _check_outputs(outputs)
    n_points = check_count(n_points, "n_points", 2)
    tol = None if tol is None else check_tol(tol)
    budget = Budget(max_steps, max_wall_s)
    engine = model.engine
    data = engine.data
    sim = engine.simulator
    if not data.bars:
        raise ValueError("the model has no bars; add a bar first")
    n = data.n_coordinates()
    variables = resolve(data, wrt)
    values = _check_at(at, variables)
    check_sizes(n, len(model.constraint_labels), len(variables), order, n_points, kinds)
    tolerance = model.tolerance
    # nominal point: the partition of the coordinates
    cs_full = sim.compiled(data, tol, integrator=False)  # the variational one integrates
    full0 = cs_full.parameters(_base_at(data, variables, {}))
    state_nom = sim.consistent_start(data, tolerance, cs_full, full0)
    _, J0 = evaluate_geometry(cs_full, state_nom[:n], full0, 0.0, qd=state_nom[n:])
    redundant = sim.redundant_rows(data, cs_full, J0)
    excluded = frozenset()
    cs = cs_full
    if redundant:
        ids = cs_full.assembly.collected.row_ids
        excluded = frozenset(ids[k] for k in redundant)
        cs = sim.compiled(data, tol, excluded=excluded, integrator=False)
        full0 = cs.parameters(_base_at(data, variables, {}))
        _, J0 = evaluate_geometry(cs, state_nom[:n], full0, 0.0, qd=state_nom[n:])
    weights = data.coordinate_weights()
    fixed_q = [v.index for v in variables if v.kind == "state" and v.index < n]
    fixed_v = [v.index - n for v in variables if v.kind == "state" and v.index >= n]
    dep_q = partition(J0[: cs.n_holonomic], weights, fixed_q)
    dep_v = partition(J0, weights, fixed_v)
    # the point of evaluation
    data_at = _data_at(data, variables, values)
    base = _base_at(data_at, variables, values)
    full = cs.parameters(base)
    if values:
        raw = np.concatenate([initial_state(data_at, "sensitivities")])
        state0 = _project(cs, full, raw, dep_q, dep_v, data.length_scale())
    else:
        state0 = state_nom
    _, J = evaluate_geometry(cs, state0[:n], full, 0.0, qd=state0[n:])
    vs = variational_system(sim, data, cs, variables, order, tol, excluded)
    variables_at = resolve(data_at, [v.name for v in variables], warn=False)
    for j, val in values.items():
        variables_at[j] = Variable(variables[j].name, variables[j].kind, variables[j].index,
                                   val)
    ext = np.concatenate([base, [v.value for v in variables_at
                                 if v.kind in ("length", "state")]])
    for kind in kinds:  # compiled now, so that a stopped run's partial result is quick
        if kind != "state":
            vs.jet_function(kind, lambda kind=kind: vs.substituted(
                output_expressions(vs, kind)[1]))
    if vs.step_cost is None:
        vs.step_cost = decomposition_cost(vs.ta)
    result = _Partial(vs, data, kinds, variables, variables_at, ext, order, dep_q, dep_v,
                      t_start)
    with engine.lock:  # one variational integrator per selection: runs take turns
        init = initial_jets(vs, state0, ext, dep_q, dep_v, J)
        ta = vs.ta
        ta.time = 0.0
        ta.state[:] = init
        ta.pars[:] = ext[: len(ta.pars)]
        if vs.events:
            ta.reset_cooldowns()
        grid = np.linspace(0.0, t_end, n_points)
        guarded = first_step_guard(ta, grid[1] - grid[0])
        try:
            if guarded is not None and -len(vs.events) <= int(guarded) < 0:
                states, outcome, stop = np.array([init]), guarded, None  # an event at once
            else:
                states, outcome, stop = propagate_grid(ta, grid, budget, vs.step_cost)
        except KeyboardInterrupt as exc:
            interrupt_seen()
            states = exc.states
            states[0] = init
            t_reached = float(ta.time)
            raise SimulationInterrupted(t_reached, result=result(grid, states, []), message=(
                f"sensitivities interrupted at t = {t_reached:.6g} s; the jets up to then are "
                "in .result of this exception")) from None
        states[0] = init  # the first step guard may have stepped already
        events_out = []
        code = int(outcome)
        if -len(vs.events) <= code < 0:
            k = -code - 1
            t_star = float(ta.time)
            jets = event_jets(vs, k, np.array(ta.state), ext, t_star)
            events_out.append({"name": vs.events[k]["name"], "t": t_star, "jets": jets,
                               "state": np.array(ta.state[: 2 * n])})
        elif stop is not None and outcome in (hy.taylor_outcome.time_limit,
                                              hy.taylor_outcome.step_limit):
            raise BudgetExceededError(f"sensitivities {stop}", float(ta.time),
                                      np.array(ta.state[: 2 * n]),
                                      result=result(grid, states, []))
        elif stop is not None:
            t_last = float(grid[len(states) - 1])
            raise ValueError(f"sensitivities: the variational integration failed after t = "
                             f"{t_last:.6g} s ({outcome}): the motion is not smooth there (a "
                             "singular pose, where simulate regularizes W, or a blow-up); choose "
                             "a shorter t_end")
    return result(grid, states, events_out)


class _Partial:
    """Builds the :class:`Sensitivities` of the integrator states gathered so far."""

    def __init__(self, vs, data, kinds, variables, variables_at, ext, order, dep_q, dep_v,
                 t_start):
        self.vs, self.data, self.kinds, self.ext, self.order = vs, data, kinds, ext, order
        self.wrt = [v.name for v in variables]
        self.point = np.array([v.value for v in variables_at])
        q_names, qd_names = coordinate_names(data)
        self.names = q_names + qd_names
        self.dependent = ([q_names[c] for c in dep_q], [qd_names[c] for c in dep_v])
        self.t_start = t_start

    def __call__(self, grid: np.ndarray, states: np.ndarray, events: list) -> Sensitivities:
        """Return the sensitivities at ``grid[:len(states)]`` (``events``: the event jets)."""
        vs = self.vs
        t = grid[: len(states)]
        states = np.asarray(states).reshape(len(t), vs.ta.dim)
        layout, mindex = vs.layout, vs.mindex
        idx = np.array([[layout[(c, a)] for a in mindex] for c in range(2 * vs.n)])
        arrays: dict[str, tuple[list[str], np.ndarray]] = {"state": (self.names,
                                                                     states[:, idx])}
        for kind in self.kinds:
            if kind == "state":
                continue
            labels, _ = output_expressions(vs, kind)
            jets = evaluate_jets(vs, kind, lambda kind=kind: vs.substituted(
                output_expressions(vs, kind)[1]), states, self.ext, t)
            arrays[kind] = (labels, jets)
        info = {"wall_s": time.perf_counter() - self.t_start, "dim": int(vs.ta.dim),
                "dependent_coordinates": self.dependent[0],
                "dependent_velocities": self.dependent[1], **vs.timings}
        return Sensitivities(t=t, wrt=self.wrt, point=self.point, order=self.order,
                             mindex=list(mindex), arrays=arrays, events=events, info=info)


def variable_names(model) -> list[str]:
    """Every name ``sensitivities`` accepts in ``wrt`` for this model."""
    from .parameters import available

    return [v.name for v in available(model.engine.data)]

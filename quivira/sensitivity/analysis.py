"""``sensitivities``: derivatives of a motion and its outputs with respect to model data.

See :func:`sensitivities` for the equations; :mod:`.engine` builds the variational
integrator, :mod:`.parameters` says what can be differentiated, :mod:`.results` holds the
answer.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

import heyoka as hy
import numpy as np

from ..model.compiled import evaluate_geometry, evaluate_outputs
from ..model.simulator import _check_count, _check_tol, first_step_guard, initial_state
from ..model.symbolic import coordinate_names, parameter_layout
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


def sensitivities(model, t_end: float, wrt: str | Sequence[str], order: int = 1,
                  outputs: str | Sequence[str] = ("state", "energy"), n_points: int = 201,
                  *, tol: float | None = None, at: Mapping | Sequence | None = None
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
        state that violates the constraints; initial-state entries the constraints fix.

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
    n_points = _check_count(n_points, "n_points", 2)
    tol = None if tol is None else _check_tol(tol)
    data = model._data
    sim = model._simulator
    if not data.bars:
        raise ValueError("the model has no bars; add a bar first")
    n = data.n_coordinates()
    variables = resolve(data, wrt)
    values = _check_at(at, variables)
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
    variables_at = resolve(data_at, [v.name for v in variables])
    for j, val in values.items():
        variables_at[j] = Variable(variables[j].name, variables[j].kind, variables[j].index,
                                   val)
    ext = np.concatenate([base, [v.value for v in variables_at
                                 if v.kind in ("length", "state")]])
    with sim._lock:  # one variational integrator per selection: runs take turns
        init = initial_jets(vs, state0, ext, dep_q, dep_v, J)
        ta = vs.ta
        ta.time = 0.0
        ta.state[:] = init
        ta.pars[:] = ext[: len(ta.pars)]
        if vs.events:
            ta.reset_cooldowns()
        grid = np.linspace(0.0, t_end, n_points)
        first_step_guard(ta, grid[1] - grid[0])
        sub = grid[grid > ta.time]
        rows = [init] + [np.array(ta.state)] * int(np.sum(grid[1:] <= ta.time))
        res = ta.propagate_grid(np.concatenate([[ta.time], sub]))
        outcome, states = res[0], np.asarray(res[5])
        new = [s for s in states[1:] if np.all(np.isfinite(s))]
        rows += new
        events_out = []
        code = int(outcome)
        if -len(vs.events) <= code < 0:
            k = -code - 1
            t_star = float(ta.time)
            jets = event_jets(vs, k, np.array(ta.state), ext, t_star)
            events_out.append({"name": vs.events[k]["name"], "t": t_star, "jets": jets,
                               "state": np.array(ta.state[: 2 * n])})
        elif outcome != hy.taylor_outcome.time_limit:
            t_last = float(grid[len(rows) - 1])
            raise ValueError(f"sensitivities: the variational integration failed after t = "
                             f"{t_last:.6g} s ({outcome}): the motion is not smooth there (a "
                             "singular pose, where simulate regularizes W, or a blow-up); choose "
                             "a shorter t_end")
    t = grid[: len(rows)]
    states = np.array(rows)
    layout, mindex = vs.layout, vs.mindex
    idx = np.array([[layout[(c, a)] for a in mindex] for c in range(2 * n)])
    arrays: dict[str, tuple[list[str], np.ndarray]] = {}
    q_names, qd_names = coordinate_names(data)
    arrays["state"] = (q_names + qd_names, states[:, idx])
    for kind in kinds:
        if kind == "state":
            continue
        labels, _ = output_expressions(vs, kind)
        jets = evaluate_jets(vs, kind, lambda kind=kind: vs.substituted(
            output_expressions(vs, kind)[1]), states, ext, t)
        arrays[kind] = (labels, jets)
    info = {"wall_s": time.perf_counter() - t_start, "dim": int(ta.dim),
            "dependent_coordinates": [q_names[c] for c in dep_q],
            "dependent_velocities": [qd_names[c] for c in dep_v], **vs.timings}
    point = np.array([v.value for v in variables_at])
    return Sensitivities(t=t, wrt=[v.name for v in variables], point=point, order=order,
                         mindex=list(mindex), arrays=arrays, events=events_out, info=info)


def variable_names(model) -> list[str]:
    """Every name ``sensitivities`` accepts in ``wrt`` for this model."""
    from .parameters import available

    return [v.name for v in available(model._data)]

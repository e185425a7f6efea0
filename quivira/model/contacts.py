r"""Switching constraints during a run: impacts, and which unilateral rows carry force.

What the simulator's run loop (:class:`quivira.model.simulator._Run`) does when an element's
event triggers, or at the start of a run, for the elements whose rows switch on and off
(latches, angle stops, contacts):

* :class:`RunActions` is what an element may do at its event (:class:`EventActions`):
  apply Newton's impact law, switch its rows, record, stop.
* :func:`settle` decides, at an instant, which **unilateral** rows in contact (gap 0, no
  normal velocity) are switched on: those that push. It solves the complementarity problem
  of :mod:`quivira.model.complementarity` at the level of accelerations. Every path that
  switches a unilateral row on goes through it — a resting impact, a release, the start of a
  run — so a contact never pulls: a row whose force would be tensile stays open (its
  separation acceleration is then :math:`\ge 0`).
* An **impact** (:meth:`RunActions.impact`) is the same problem at the level of impulses:
  the impacting rows and every unilateral row already in contact share the impulse, no
  unilateral impulse pulls, and the rows that end at rest are handed to :func:`settle`.
* :func:`start` settles the instant :math:`t = 0`: a body moving into a closed contact or a
  stop gets its impact, latches at their angle lock, and resting contacts carry their force,
  before the first output row is taken.

The run object is duck-typed: ``cs`` (the compiled system), ``data``, ``base``/``pars`` (its
parameters), ``grid``, ``rows``, ``budget``, ``set_flag``, ``is_active``, ``active_mask``,
``events``, ``pending_records``, ``last_event``, ``dispatch``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import complementarity
from . import geometry as geo
from .compiled import evaluate_dynamics, evaluate_geometry
from .elements import BY_KIND
from .elements.base import EventActions

#: relative gap (of the length scale) within which a unilateral row counts as closed
GAP_TOL = 1e-10
#: relative speed (of the motion's speed scale) below which a row's rate is rounding
SPEED_TOL = 1e-9
#: smallest rebound height (of the length scale) that counts as a bounce: slower rebounds
#: rest, so that a bouncing body comes to rest after finitely many impacts whatever its
#: ``rest_speed`` (a rebound under gravity g rises v²/2g)
MIN_REBOUND_HEIGHT = 1e-9
#: relative gap (of the length scale) or force (of the force scale) beyond which an open
#: row closed, or a closed one pulling, means the event search failed (:func:`check`)
PENETRATION_TOL = 1e-6


def element(run, key: tuple):
    """Return the element of the run's data with switch key ``(kind, position)``."""
    return run.data.elements[BY_KIND[key[0]].collection][key[1]]


def unilateral_keys(run) -> list[tuple]:
    """Return the switch keys of the unilateral elements of the run (contacts, stops)."""
    return [key for key in run.cs.assembly.collected.switches if element(run, key).unilateral]


def rows_of(run, key: tuple) -> np.ndarray:
    """Return the constraint rows (columns of λ) of the element ``key``."""
    return np.asarray(run.cs.assembly.collected.switches[key][1])


def state(run) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(q, qd)`` of the run's integrator now."""
    ta, n = run.cs.ta, run.n
    return np.array(ta.state[:n]), np.array(ta.state[n:2 * n])


def geometry_with(run, keys: list[tuple]) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
    r"""Return ``(q, qd, F, J)`` now, with the rows of ``keys`` switched on for the evaluation.

    Rows switched off are scaled to 0 in :math:`F` and :math:`J`; the flags are put back.
    """
    was = {key: run.is_active(key) for key in keys}
    for key in keys:
        run.set_flag(key, True)
    q, qd = state(run)
    F, J = evaluate_geometry(run.cs, q, run.pars, float(run.cs.ta.time), qd=qd)
    for key, on in was.items():
        run.set_flag(key, on)
    return q, qd, F, J


def speed_scale(run, qd: np.ndarray) -> float:
    r"""Return the speed scale of the motion now: :math:`\max(|\dot q|_w, \sqrt{|g|\ell})`.

    Velocities weighted by the coordinate weights (rotations times the body's length).
    """
    w = run.data.coordinate_weights()
    v = float(np.max(np.abs(qd * w))) if qd.size else 0.0
    return max(v, math.sqrt(abs(run.data.g) * run.data.length_scale()), 1e-300)


def gap_tolerance(run) -> float:
    """Return the gap below which a unilateral row counts as closed."""
    return GAP_TOL * max(run.data.length_scale(), 1.0)


def rest_speed_floor(run) -> float:
    r"""Return the slowest rebound that still counts as a bounce: :math:`\sqrt{2|g|h_{min}}`.

    :math:`h_{min}` = :data:`MIN_REBOUND_HEIGHT` times the length scale. Below it a rebound
    could not open the gap far enough for the next crossing to be seen.
    """
    return math.sqrt(2.0 * abs(run.data.g) * MIN_REBOUND_HEIGHT * run.data.length_scale())


def _record(run, key: tuple, what: str, **info: Any) -> None:
    """Queue a record of element ``key`` (after the record of the event's own element)."""
    ta, n = run.cs.ta, run.n
    now = float(ta.time)
    run.last_event[key] = now
    run.pending_records.append({"t": now, "name": element(run, key).label_prefix(key[1]),
                                "what": what, "state": np.array(ta.state[:2 * n]), **info})


def settle(run, quiet: tuple = ()) -> None:
    r"""Switch on exactly the unilateral rows in contact that push; open the others.

    The rows in contact are those closed (gap within :func:`gap_tolerance`) and at rest
    along their normal (rate below :data:`SPEED_TOL` of :func:`speed_scale`), switched on or
    not. With all of them on, the compiled dynamics give :math:`\lambda`, from which the
    free accelerations of the rows are :math:`b = -W\lambda` (every active row has zero
    acceleration there); :func:`quivira.model.complementarity.solve` then keeps closed the
    rows whose force is :math:`> 0` and opens the others, whose separation acceleration is
    :math:`\ge 0`. Active rows moving apart (after an impulse) are opened too.

    Records ``"rests"`` for a row switched on and ``"released"`` for a row switched off,
    except for the keys in ``quiet`` (the elements of the event being handled record
    themselves). The events of a row opened or closed here start at a gap or force of 0;
    they are offset (:data:`~quivira.model.symbolic.EVENT_GAP`), so the rounding around 0
    does not trigger them.
    """
    keys = unilateral_keys(run)
    if not keys:
        return
    q, qd, F, J = geometry_with(run, keys)
    gap_tol = gap_tolerance(run)
    speed_tol = SPEED_TOL * speed_scale(run, qd)
    contact = []
    for key in keys:
        cols = rows_of(run, key)
        rate = J[cols] @ qd
        if float(np.min(F[cols])) <= gap_tol and float(np.max(np.abs(rate))) <= speed_tol:
            contact.append(key)
        elif run.is_active(key):  # moving apart after an impulse
            _open(run, key, None if key in quiet else "released")
    if not contact:
        return
    was = {key: run.is_active(key) for key in contact}
    for key in contact:
        run.set_flag(key, True)
    x = np.concatenate([q, qd])
    lam = evaluate_dynamics(run.cs, x[None, :], run.pars, float(run.cs.ta.time))["lambda_mult"][0]
    active = np.nonzero(run.active_mask())[0]
    JA = J[active]
    W = (JA / run.data.mass_diagonal()[None, :]) @ JA.T
    b = -(W @ lam[active])
    where = {key: np.isin(active, rows_of(run, key)) for key in contact}
    unilateral = np.zeros(active.size, dtype=bool)
    for sel in where.values():
        unilateral |= sel
    sol = complementarity.solve(W, b, unilateral)
    closed = np.zeros(active.size, dtype=bool)
    closed[np.nonzero(unilateral)[0][sol.closed]] = True
    for key in contact:
        on = bool(np.all(closed[where[key]]))
        if not on:
            _open(run, key, None if key in quiet or not was[key] else "released")
            continue
        run.set_flag(key, True)
        if not was[key] and key not in quiet:
            _record(run, key, "rests")


def level_gaps(run) -> None:
    r"""Put the open unilateral rows in contact and at rest along their normal at gap 0.

    After an event the gap of a row left open in contact is where the event was located,
    :math:`-ε` (``event_gap``), or the drift of a released row: its close event, offset by
    :math:`-ε`, would start from 0 or below, where heyoka cannot see it cross. The positions
    are projected (Gauss–Newton, mass metric) onto those gaps at 0 and the active holonomic
    rows, moving them by about :math:`ε`; the close events then start from :math:`+ε`. Rows
    moving apart (a rebound) are left alone: their gap opens by itself.
    """
    keys = [key for key in unilateral_keys(run) if not run.is_active(key)]
    if not keys:
        return
    q, qd, F, J = geometry_with(run, keys)
    tol = gap_tolerance(run)
    speed_tol = SPEED_TOL * speed_scale(run, qd)
    touching = [key for key in keys if float(np.max(np.abs(F[rows_of(run, key)]))) <= tol
                and float(np.max(np.abs(J[rows_of(run, key)] @ qd))) <= speed_tol]
    if not touching:
        return
    for key in touching:
        run.set_flag(key, True)
    rows = np.nonzero(run.active_mask() & (np.arange(run.cs.m) < run.cs.n_holonomic))[0]
    t = float(run.cs.ta.time)

    def geometry(qq):
        Fq, Jq = evaluate_geometry(run.cs, qq, run.pars, t)
        return Fq[rows], Jq[rows]

    scale = max(run.data.length_scale(), 1.0)
    q_new, _, ok = geo.project_positions(q, geometry, run.data.coordinate_weights(),
                                         tol=1e-15 * scale, max_iter=5)
    for key in touching:
        run.set_flag(key, False)
    if ok:
        run.cs.ta.state[:run.n] = q_new


def clear_rebounds(run) -> None:
    r"""Integrate the few picoseconds that take rebounding rows off their event's zero.

    A row that rebounded sits where its close event was located, gap :math:`-ε`: its event
    function :math:`g + ε` is exactly 0 at the start of the next step, and heyoka does not see
    a later zero of a function that starts at exactly 0 when the step's Taylor polynomial
    also has that root (a body in free flight: its next landing was missed). The motion is
    continued by :math:`2ε/v` (:math:`v` the slowest rebound), after which every such function
    is about :math:`+ε`; an event met on the way is handled as usual.
    """
    keys = [key for key in unilateral_keys(run) if not run.is_active(key)]
    if not keys:
        return
    _, qd, F, J = geometry_with(run, keys)
    eps = run.base[run.index[("event_gap",)]]
    speed_tol = SPEED_TOL * speed_scale(run, qd)
    slow = np.inf
    for key in keys:
        cols = rows_of(run, key)
        g, v = F[cols] + eps, J[cols] @ qd
        at_zero = np.abs(g) <= 1e-3 * eps
        if np.any(at_zero & (v > speed_tol)):
            slow = min(slow, float(np.min(v[at_zero & (v > speed_tol)])))
    if not np.isfinite(slow):
        return
    ta = run.cs.ta
    t_end = float(run.grid[-1])
    target = min(float(ta.time) + 2.0 * eps / slow, t_end)
    if target <= ta.time:
        return
    res = ta.propagate_until(target, max_steps=run.budget.chunk(run.cost))
    run.budget.add(res[3])
    code = int(res[0])
    if -len(run.cs.terminal_events) <= code < 0:
        run.on_event(run.cs.terminal_events[-code - 1])


def force_scale(run, lam: np.ndarray) -> float:
    r"""Return a force scale: :math:`\max(|\lambda|, \sum_i m_i |g|)`."""
    weight = float(np.sum(run.data.mass_diagonal())) * abs(run.data.g)
    return max(float(np.max(np.abs(lam))) if lam.size else 0.0, weight, 1e-300)


def _open(run, key: tuple, what: str | None) -> None:
    """Switch ``key`` off and record ``what`` (unless None)."""
    run.set_flag(key, False)
    if what is not None:
        _record(run, key, what)


def start(run) -> None:
    """Settle the instant t = 0 (see the module docstring).

    A unilateral row below its gap tolerance is an error (the pose is on the wrong side).
    Closed unilateral rows moving into contact get the impact of their element (together, as
    one simultaneous impact); latches at their angle lock; then :func:`settle`.
    """
    switches = run.cs.assembly.collected.switches
    keys = [key for key in switches
            if element(run, key).joins_impacts and not run.is_active(key)]
    if not keys:
        settle(run)
        return
    _, qd, F, J = geometry_with(run, keys)
    gap_tol = gap_tolerance(run)
    speed_tol = SPEED_TOL * speed_scale(run, qd)
    first = None
    for key in keys:
        el, cols = element(run, key), rows_of(run, key)
        if el.unilateral and float(np.min(F[cols])) < -gap_tol:
            raise ValueError(f"{el.label_prefix(key[1])}: the initial pose is on the wrong side "
                             f"of the {el.title} (gap {float(np.min(F[cols])):.3g}); move the "
                             "bodies first")
        closed = float(np.max(np.abs(F[cols]))) <= gap_tol
        if closed and first is None and (
                el.locking or float(np.min(J[cols] @ qd)) < -speed_tol):
            first = key
    if first is not None:  # its impact takes every other row closing now along
        run.dispatch(first, element(run, first).closing_role)
    settle(run)
    level_gaps(run)


class RunActions(EventActions):
    """What an element can do at its event (see :class:`EventActions`), on a run."""

    def __init__(self, run, key: tuple) -> None:
        self.run, self.key = run, key
        self.element = element(run, key)
        self.name = self.element.label_prefix(key[1])

    def is_active(self) -> bool:
        """Whether the element's rows are switched on now."""
        return self.run.is_active(self.key)

    def _own(self) -> tuple[np.ndarray, np.ndarray]:
        r"""Return the element's gap :math:`g` and its rate :math:`J\dot q`."""
        _, qd, F, J = geometry_with(self.run, [self.key])
        cols = rows_of(self.run, self.key)
        return F[cols], J[cols] @ qd

    def approach_speed(self) -> float:
        r"""How fast the element's row closes now, :math:`-J\dot q`."""
        return float(-np.min(self._own()[1]))

    def speed_tolerance(self) -> float:
        """Return the speed below which a rate is rounding (:data:`SPEED_TOL` of the scale)."""
        return SPEED_TOL * speed_scale(self.run, state(self.run)[1])

    def set_value(self, name: str, value: float) -> None:
        """Set one of the element's runtime parameters for the rest of this run."""
        run = self.run
        base = run.base.copy()
        base[run.index[(*self.key, name)]] = float(value)
        run.set_base(base)

    def adds_rank(self) -> bool:
        """Whether the element's rows, switched on now, would constrain anything new."""
        run = self.run
        _, _, _, J = geometry_with(run, [self.key])
        active = np.nonzero(run.active_mask())[0]
        rows = np.union1d(active, rows_of(run, self.key))
        weights = run.data.coordinate_weights()
        rank_with, _ = geo.dependent_rows(J[rows], weights)
        rank_without, _ = geo.dependent_rows(J[active], weights)
        return rank_with > rank_without

    def time_since_last(self) -> float:
        """Time (s) since this element's previous event in this run (inf if none)."""
        last = self.run.last_event.get(self.key)
        return float("inf") if last is None else float(self.run.cs.ta.time) - last

    def _companions(self) -> list[tuple]:
        """Return the other switching elements closing at this instant.

        Unilateral ones (contacts, stops) closed and not moving apart, locking ones (latches)
        at their angle; ``(key, element, rows)``. They take part in the same impact (a bar
        landing flat hits with both ends at once, the identical cells of a lattice latch
        together: one after the other would be wrong).
        """
        run = self.run
        keys = [key for key in run.cs.assembly.collected.switches
                if key != self.key and not run.is_active(key)
                and element(run, key).joins_impacts]
        if not keys:
            return []
        _, qd, F, J = geometry_with(run, keys)
        tol = gap_tolerance(run)
        out = []
        for key in keys:
            el, cols = element(run, key), rows_of(run, key)
            closed = float(np.max(np.abs(F[cols]))) <= tol
            if closed and (el.locking or float(np.min(J[cols] @ qd)) < 0.0):
                out.append((key, el, cols))
        return out

    def impact(self, restitution: float, activate: bool) -> dict:
        r"""Apply Newton's impact law to the element's rows and every row closing with them.

        The rows taking part: the element's, the companions closing at this instant
        (:meth:`_companions`) and every active row. The impulse :math:`\Lambda` solves the
        complementarity problem of impulses (:mod:`quivira.model.complementarity`) with
        :math:`W = J M^{-1} J^T` of those rows and :math:`b_i = (1 + e_i)(J\dot q^-)_i` on the
        unilateral ones (restitution :math:`e_i`: the element's ``restitution``; a companion's
        own, or 0 when it closes slower than its resting speed; 0 for the rows already in
        contact), :math:`b_i = (J\dot q^-)_i` on the locking rows (plastic), :math:`b_i = 0`
        on the other active rows (they keep their velocity). No unilateral impulse pulls:
        :math:`\dot q^+ = \dot q^- + M^{-1}J^T\Lambda`. Locking rows switch on (``activate``
        for the element's own) where they add to the rank, else they are recorded as
        redundant; the unilateral rows that end at rest are handed to :func:`settle`, which
        switches them on only if they push (``"rests"`` in the returned info says whether the
        element's own row is on).
        """
        run = self.run
        el = self.element
        companions = self._companions()
        closing = [self.key] + [key for key, _, _ in companions]
        _, qd, _, J = geometry_with(run, closing)
        was = {key: run.is_active(key) for key in closing}
        for key in closing:
            run.set_flag(key, True)
        active = np.nonzero(run.active_mask())[0]
        for key, on in was.items():
            run.set_flag(key, on)
        JA = J[active]
        Md = run.data.mass_diagonal()
        W = (JA / Md[None, :]) @ JA.T
        v = JA @ qd
        b = np.zeros(active.size)
        unilateral = np.zeros(active.size, dtype=bool)
        for key in unilateral_keys(run):  # the rows already in contact: plastic, >= 0
            if run.is_active(key):
                sel = np.isin(active, rows_of(run, key))
                unilateral |= sel
                b[sel] = v[sel]
        floor = rest_speed_floor(run)
        own = np.isin(active, rows_of(run, self.key))
        approach = -v[own]
        e_own = restitution if restitution * float(approach.max(initial=0.0)) >= floor else 0.0
        b[own] = (1.0 + (e_own if el.unilateral else 0.0)) * v[own]
        unilateral |= own if el.unilateral else np.zeros_like(own)
        bounces = {}
        for key, c_el, cols in companions:
            sel = np.isin(active, cols)
            e_c = 0.0
            if c_el.unilateral:
                e_c = c_el.restitution_at(float(-np.min(v[sel])), floor)
                unilateral |= sel
            bounces[key] = e_c
            b[sel] = (1.0 + e_c) * v[sel]
        sol = complementarity.solve(W, b, unilateral)
        lam = sol.lambda_mult
        qd_new = qd + (JA.T @ lam) / Md
        T0, T1 = 0.5 * np.sum(Md * qd * qd), 0.5 * np.sum(Md * qd_new * qd_new)
        ta, n = run.cs.ta, run.n
        ta.state[n:2 * n] = qd_new
        if ta.state.shape[0] > 2 * n:  # the ledger: impacts dissipate
            ta.state[2 * n + 1] += T0 - T1
        now = float(ta.time)
        run.last_event[self.key] = now
        # each row's share of the loss: -Λ_i (v_i⁻ + v_i⁺)/2 (their sum is T0 - T1)
        lost = -0.5 * lam * (v + JA @ qd_new)
        info = {"approach_speed": float(approach.max(initial=0.0)),
                "impulse": lam[own].tolist(), "kinetic_energy_lost": float(np.sum(lost[own]))}
        names = [self.name] + [c_el.label_prefix(key[1]) for key, c_el, _ in companions]
        if companions:
            info["simultaneous"] = names[1:]
        # locking rows: on where they add to the rank (an independent subset), else redundant
        if el.locking and activate:
            run.set_flag(self.key, True)
        records, quiet = [], [self.key]
        for key, c_el, cols in companions:
            sel = np.isin(active, cols)
            rec = {"approach_speed": float(-np.min(v[sel])), "impulse": lam[sel].tolist(),
                   "kinetic_energy_lost": float(np.sum(lost[sel])), "with": self.name,
                   "simultaneous": [nm for nm in names if nm != c_el.label_prefix(key[1])]}
            run.last_event[key] = now
            quiet.append(key)
            if c_el.locking:
                act = RunActions(run, key)
                if act.adds_rank():
                    run.set_flag(key, True)
                else:
                    rec["redundant"] = True
                    c_el.on_redundant_lock(act)
                records.append((key, "latched", rec))
            else:  # it bounces, or rests if settle switches it on
                records.append((key, "impact" if bounces[key] > 0.0 else None, rec))
        settle(run, quiet=tuple(quiet))
        for key, what, rec in records:
            if what is None and not run.is_active(key):
                continue  # settle opened it: a touch at rest that does not push
            _record(run, key, what or "rests", **rec)
        info["rests"] = bool(run.is_active(self.key))
        return info

    def switch(self, active: bool) -> None:
        """Switch the element's rows on or off (no impulse); an opened gap is let open."""
        self.run.set_flag(self.key, active)
        self.run.last_event[self.key] = float(self.run.cs.ta.time)

    def record(self, what: str, **info: Any) -> None:
        """Record the event on the trajectory (``traj.events``)."""
        ta = self.run.cs.ta
        self.run.last_event[self.key] = float(ta.time)
        self.run.events.append({"t": float(ta.time), "name": self.name, "what": what,
                                "state": np.array(ta.state[:2 * self.run.n]), **info})

    def stop(self) -> None:
        """End the simulation here (the trajectory so far is returned)."""
        self.run.stopped = True


def check(run) -> str | None:
    """Return why the run's state cannot be trusted (a sentence), or None.

    Checked between chunks and after events: an open unilateral row must not be closed
    beyond :data:`PENETRATION_TOL` of the length scale (its closing was not located: the
    event search failed, e.g. under accelerations so large that the Taylor series cannot
    resolve it), and a closed one must not pull beyond :data:`PENETRATION_TOL` of the force
    scale (its release was not located).
    """
    keys = run.unilateral
    if not keys:
        return None
    q, qd, F, J = geometry_with(run, keys)
    tol = PENETRATION_TOL * max(run.data.length_scale(), 1.0)
    t = float(run.cs.ta.time)
    on = [key for key in keys if run.is_active(key)]
    for key in keys:
        gap = float(np.min(F[rows_of(run, key)]))
        if key not in on and gap < -tol:
            name = element(run, key).label_prefix(key[1])
            return (f"the event search missed the closing of {name} (gap {gap:.3g} at t = "
                    f"{t:.6g} s): the motion cannot be resolved at this tolerance and scale "
                    "(accelerations too large?)")
    if on:
        x = np.concatenate([q, qd])
        lam = evaluate_dynamics(run.cs, x[None, :], run.pars, t)["lambda_mult"][0]
        scale = force_scale(run, lam)
        for key in on:
            force = float(np.min(lam[rows_of(run, key)]))
            if force < -PENETRATION_TOL * scale:
                return (f"{element(run, key).label_prefix(key[1])} pulls (multiplier "
                        f"{force:.3g}) at t = {t:.6g} s: its release was not located by the "
                        "event search")
    return None

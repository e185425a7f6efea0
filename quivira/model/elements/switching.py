r"""Constraints that switch on and off at events: latches, angle stops, contacts.

Each has one row :math:`g(q)` whose ``active`` flag is a runtime parameter (switched during a
run without recompiling); heyoka locates the switching instants on its Taylor series.

* :class:`Latch`: :math:`g = θ_b - θ_a - φ_L`. When the relative angle reaches the latch angle
  the row switches on, and the velocities jump by the plastic impulse through the Delassus
  matrix of the active rows, :math:`\Delta\dot q = -M^{-1}J^T W^{-1} J\dot q^-` (only the new
  row's velocity changes, to 0); the kinetic energy lost is recorded. It stays latched.
* :class:`AngleStop`: a one-sided limit of the relative angle, :math:`g = φ - φ_{min} \ge 0`
  or :math:`g = φ_{max} - φ \ge 0`;
* :class:`Contact`: a bar point on the ground side of a line, :math:`g = n\cdot p(s) - h \ge 0`
  (a floor :math:`y \ge h` has :math:`n = (0, 1)`; a wall :math:`n = (\pm 1, 0)`).

Stops and contacts are unilateral: when :math:`g` reaches 0 while the row is off, Newton's
impact law with restitution :math:`e` applies through :math:`W`: the row's velocity becomes
:math:`-e` times its approach velocity, the other active rows keep theirs, and no unilateral
impulse pulls (:mod:`quivira.model.complementarity`). If the rebound is slower than
``rest_speed`` (which must be positive: with 0 a bouncing body would never come to rest), or
too slow to lift the gap measurably, or the impacts come faster than :data:`ZENO_TIME`, the
impact is plastic and the row switches on **only if its force then pushes** (resting
contact; :func:`quivira.model.contacts.settle`); it releases when its multiplier
:math:`\lambda` (the contact force, :math:`\ge 0` when pushing) turns tensile, an event on
:math:`\lambda`. Friction is not modelled; a tangential row could be added by the same means.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from . import fields
from .base import Constraint, EventActions, EventSpec, Row, RowContext, shift_bar
from .registry import register

#: default approach speed (m/s or rad/s) below which an impact ends in resting contact
REST_SPEED = 1e-3
#: impacts of one element closer in time than this (s) are a resting contact (Zeno-safe)
ZENO_TIME = 1e-9


def _angle_poly(ctx: RowContext, a: int | None, b: int, sign: float = 1.0) -> mo.Poly:
    out = mo.monomial((ctx.q(3 * b + 2),), sign)
    if a is not None:
        out = mo.add(out, mo.monomial((ctx.q(3 * a + 2),), -sign))
    return out


def _restitution() -> Any:
    """Declare the coefficient of restitution of an impact (event data, not differentiated)."""
    return fields.number("restitution", "", "coefficient of restitution of an impact: 0 "
                         "plastic, 1 elastic", lower=0.0, upper=1.0, differentiable=False,
                         default=0.0)


def _rest_speed(unit: str) -> Any:
    """Declare the approach speed below which an impact ends at rest (> 0)."""
    return fields.number("rest speed", unit, "approach speed below which an impact ends at "
                         "rest; positive (with 0 a bouncing body never comes to rest)",
                         positive=True, differentiable=False, default=REST_SPEED)


def _active(what: str) -> Any:
    """Declare the switch flag of the rows (runtime: switched during runs, no recompiling)."""
    return fields.flag(what, "the rows are switched on (set by the element's events during a "
                       "run; the initial state here)", default=False)


def _two_bars(el: Any, where: str) -> None:
    """Refuse an angle element between a bar and itself."""
    if el.bar_a == el.bar_b:
        raise ValueError(f"{where}: bar_a and bar_b are the same bar ({el.bar_b}); the angle "
                         "is between two bars (bar_a None: the ground)")


class _Switching(Constraint):
    """Common part: one switchable row (its ``active`` flag), reindexing of two bars."""

    switchable = True
    named = True
    has_name = True
    #: impacts lose kinetic energy: it is recorded in the ledger's dissipation
    dissipates = True

    def reindexed(self, removed_bar: int):
        if removed_bar in self.bars_used():
            return None
        c = self.copy()
        for attr in ("bar_a", "bar_b", "bar"):
            v = getattr(c, attr, None)
            if v is not None:
                setattr(c, attr, shift_bar(v, removed_bar))
        return c


@register(rank=1600)
@dataclass
class Latch(_Switching):
    """Locks the relative angle ``θ_b − θ_a`` when it reaches ``angle``.

    ``bar_a`` None: the ground (then ``bar_b`` must be supported); otherwise the two bars
    share a pin joint, whose hinge the latch locks.
    """

    bar_a: int | None = fields.body("bar a", "the first bar (None: the ground)", ground=True)
    bar_b: int = fields.body("bar b", "the second bar")
    angle: float = fields.number("latch angle", "rad", "the relative angle θ_b − θ_a at "
                                 "which the hinge locks")
    active: bool = _active("latched")
    name: str | None = fields.name(default=None)

    kind = "latch"
    collection = "latches"
    title = "latch"
    prefix = "latch"
    locking = True
    closing_role = "lock"

    def check(self, bodies: list, where: str) -> Latch:
        """Return the latch checked across fields: two different bars."""
        _two_bars(self, where)
        return self

    def check_model(self, data: Any, where: str) -> None:
        """Check that the latch locks a hinge: a joint of its bars, or a supported bar."""
        from .pin_joint import PinJoint
        from .support import Support

        a, b = self.bar_a, self.bar_b
        if a is None:
            if not any(sp.bar == b for sp in data.of(Support)):
                raise ValueError(f"{where}: a latch to ground needs bar {b} to be supported")
        elif not any(a in j.bars and b in j.bars for j in data.of(PinJoint)):
            raise ValueError(f"{where}: bars {a} and {b} have no common joint; a latch locks "
                             "the hinge of a joint")

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the latch touches."""
        return tuple(x for x in (self.bar_a, self.bar_b) if x is not None)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the latch's runtime parameters ``[(name, value), ...]``."""
        return [(("active",), 1.0 if self.active else 0.0), (("angle",), self.angle)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the latch."""
        return {("active",): [(f"a_{{L{position}}}", 1)],
                ("angle",): [(f"φ_{{L{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the latch's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar_a, self.bar_b)

    def describe(self, position: int) -> str:
        """Return the latch's line in the model summary."""
        a = "ground" if self.bar_a is None else f"bar {self.bar_a}"
        state = "latched" if self.active else "open"
        return f"{self.name}: latch {a} → bar {self.bar_b} at {self.angle:g} rad ({state})"

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`θ_b - θ_a - \mathrm{angle} = 0` (switched on once latched)."""
        g = mo.add(_angle_poly(ctx, self.bar_a, self.bar_b), mo.constant(-1.0, ctx.par("angle")))
        return [Row(g, f"{self.name}.angle", self.bar_b, "torque")]

    def events(self, ctx: RowContext) -> list[EventSpec]:
        """Return the lock event: the row crosses zero while the latch is off."""
        return [EventSpec("lock", ("row", 0), "any", "inactive")]

    def on_redundant_lock(self, act: EventActions) -> None:
        """Keep the latch from triggering again: its rows stay off for the rest of the run.

        Its event function φ − angle would hover at round-off zero for ever: the (unused)
        angle moves out of reach.
        """
        act.set_value("angle", self.angle + 1e6)

    def on_event(self, role: str, act: EventActions) -> None:
        """Lock the hinge with a plastic impulse (restitution 0) and record it.

        A latch whose rows would be redundant is recorded but stays off.
        """
        if not act.adds_rank():
            # another latch (or joint) already holds this angle, e.g. the identical cells of a
            # lattice latching at one instant: its rows stay off (an independent subset)
            act.record("latched", redundant=True, impulse=[], kinetic_energy_lost=0.0,
                       approach_speed=act.approach_speed())
            self.on_redundant_lock(act)
            return
        info = act.impact(0.0, activate=True)
        info.pop("rests", None)
        act.record("latched", **info)


class _Unilateral(_Switching):
    """A one-sided row ``g >= 0`` with impacts (restitution) and resting contact."""

    unilateral = True

    def restitution_at(self, speed: float, floor: float) -> float:
        """Return ``restitution``, or 0 (at rest) below the rest speed or the run's floor."""
        e = self.restitution
        return 0.0 if e * speed < max(self.rest_speed, floor) else e

    def events(self, ctx: RowContext) -> list[EventSpec]:
        """Return the close event (gap falling through ``-event_gap``) and the release event.

        The release: the force falling through ``-release_force``; the offsets keep
        heyoka from seeing crossings in the rounding of a gap or a force that starts at 0
        (:data:`~quivira.model.symbolic.EVENT_GAP`).
        """
        return [EventSpec("close", ("row", 0), "down", "inactive",
                          offset=ctx.global_par("event_gap")),
                EventSpec("release", ("lambda", 0), "down", "active",
                          offset=ctx.global_par("release_force"))]

    def on_event(self, role: str, act: EventActions) -> None:
        if role == "release":
            act.switch(False)
            act.record("released")
            return
        approach = act.approach_speed()
        if approach <= 0.0 and act.time_since_last() < ZENO_TIME:
            return  # already part of a simultaneous impact at this instant
        resting = (self.restitution * approach < self.rest_speed
                   or act.time_since_last() < ZENO_TIME)
        info = act.impact(0.0 if resting else self.restitution, activate=resting)
        rests = info.pop("rests")
        if not rests and approach <= act.speed_tolerance():
            return  # touched at rest and does not push (its force would pull): stays open
        act.record("rests" if rests else "impact", **info)


@register(rank=1700)
@dataclass
class AngleStop(_Unilateral):
    """A limit of the relative angle ``θ_b − θ_a``, with restitution ``e``.

    ``side`` "min" (φ ≥ limit) or "max" (φ ≤ limit); ``bar_a`` None: the ground.
    """

    bar_a: int | None = fields.body("bar a", "the first bar (None: the ground)", ground=True)
    bar_b: int = fields.body("bar b", "the second bar")
    limit: float = fields.number("limit", "rad", "the limit of the relative angle θ_b − θ_a")
    side: str = fields.choice("side", ("min", "max"), "which side of the limit is allowed: "
                              "min (φ ≥ limit) or max (φ ≤ limit)", default="max")
    restitution: float = _restitution()
    rest_speed: float = _rest_speed("rad/s")
    active: bool = _active("in contact")
    name: str | None = fields.name(default=None)

    kind = "stop"
    collection = "angle_stops"
    title = "angle stop"
    prefix = "stop"

    def check(self, bodies: list, where: str) -> AngleStop:
        """Return the stop checked across fields: two different bars."""
        _two_bars(self, where)
        return self

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the angle stop touches."""
        return tuple(x for x in (self.bar_a, self.bar_b) if x is not None)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the angle stop's runtime parameters ``[(name, value), ...]``."""
        return [(("active",), 1.0 if self.active else 0.0), (("limit",), self.limit)]

    def topology(self) -> tuple:
        """Return the angle stop's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar_a, self.bar_b, self.side)

    def describe(self, position: int) -> str:
        """Return the angle stop's line in the model summary."""
        a = "ground" if self.bar_a is None else f"bar {self.bar_a}"
        rel = "≥" if self.side == "min" else "≤"
        return (f"{self.name}: stop θ(bar {self.bar_b}) − θ({a}) {rel} {self.limit:g} rad, "
                f"restitution {self.restitution:g}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the unilateral row :math:`\pm(φ - \mathrm{limit}) \ge 0` (+ for "min")."""
        sign = 1.0 if self.side == "min" else -1.0
        g = mo.add(_angle_poly(ctx, self.bar_a, self.bar_b, sign),
                   mo.constant(-sign, ctx.par("limit")))
        return [Row(g, f"{self.name}.angle", self.bar_b, "torque")]


@register(rank=1800)
@dataclass
class Contact(_Unilateral):
    """The point ``s`` of a bar stays on the side ``n·p ≥ h`` of a ground line.

    The normal is at ``normal_angle`` from +x: π/2 (the default) is a floor, 0 a wall.
    """

    bar: int = fields.body("bar", "the bar in contact")
    s: float = fields.local("s", "the contact point")
    normal_angle: float = fields.number("normal angle", "rad", "direction of the line's "
                                        "normal from +x: π/2 a floor, 0 a wall (the "
                                        "reaction's direction: an edit recompiles)",
                                        topology=True, default=math.pi / 2)
    height: float = fields.number("height", "m", "h: the point stays where n·p ≥ h",
                                  default=0.0)
    restitution: float = _restitution()
    rest_speed: float = _rest_speed("m/s")
    active: bool = _active("in contact")
    name: str | None = fields.name(default=None)

    kind = "contact"
    collection = "contacts"
    title = "contact"
    prefix = "contact"

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the contact touches."""
        return (self.bar,)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the contact's runtime parameters ``[(name, value), ...]``."""
        return [(("active",), 1.0 if self.active else 0.0),
                (("sL",), self.s * bars[self.bar].length),
                (("nx",), math.cos(self.normal_angle)), (("ny",), math.sin(self.normal_angle)),
                (("height",), self.height)]

    def topology(self) -> tuple:
        """Return the contact's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar, self.normal_angle)  # the reaction's direction

    def describe(self, position: int) -> str:
        """Return the contact's line in the model summary."""
        return (f"{self.name}: bar {self.bar} at s = {self.s:g} stays on the side n·p ≥ "
                f"{self.height:g} (normal at {self.normal_angle:g} rad), restitution "
                f"{self.restitution:g}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the unilateral row :math:`n \cdot p - h \ge 0` of the bar point :math:`p`."""
        sl = ctx.par("sL")
        g = mo.add(mo.mul(ctx.point(self.bar, sl, 0), mo.constant(1.0, ctx.par("nx"))),
                   mo.mul(ctx.point(self.bar, sl, 1), mo.constant(1.0, ctx.par("ny"))),
                   mo.constant(-1.0, ctx.par("height")))
        return [Row(g, f"{self.name}.normal", self.bar, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the contact's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        key = (self.kind, position, self.bar)
        return [(key, col, 0, math.cos(self.normal_angle)),
                (key, col, 1, math.sin(self.normal_angle))]

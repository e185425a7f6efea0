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
from ..validation import (
    bar_index,
    check_flag,
    check_name,
    check_positive,
    check_real,
    check_s,
    field,
    optional_bar,
)
from .base import Constraint, EventActions, EventSpec, LoadContext, Row, RowContext, shift_bar

#: default approach speed (m/s or rad/s) below which an impact ends in resting contact
REST_SPEED = 1e-3
#: impacts of one element closer in time than this (s) are a resting contact (Zeno-safe)
ZENO_TIME = 1e-9


def _angle_poly(ctx: RowContext, a: int | None, b: int, sign: float = 1.0) -> mo.Poly:
    out = mo.monomial((ctx.q(3 * b + 2),), sign)
    if a is not None:
        out = mo.add(out, mo.monomial((ctx.q(3 * a + 2),), -sign))
    return out


def _check_restitution(e: Any, where: str) -> float:
    v = check_real(e, where)
    if not 0.0 <= v <= 1.0:
        raise ValueError(f"{where} must lie in [0, 1] (0 plastic, 1 elastic), got {v:g}")
    return v


def _check_rest_speed(v: Any, where: str) -> float:
    """Check a resting speed: positive (with 0 a bouncing body would bounce for ever)."""
    try:
        return check_positive(v, where)
    except ValueError:
        raise ValueError(f"{where} must be > 0 (an approach speed below which an impact "
                         "ends at rest; with 0 a bouncing body never comes to rest), got "
                         f"{v!r}") from None


class _Switching(Constraint):
    """Common part: one switchable row, reindexing of two bars, persistence of the flag."""

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


@dataclass
class Latch(_Switching):
    """Locks the relative angle ``θ_b − θ_a`` when it reaches ``angle``.

    ``bar_a`` None: the ground.
    """

    bar_a: int | None
    bar_b: int
    angle: float
    name: str
    active: bool = False

    kind = "latch"
    collection = "latches"
    title = "latch"
    locking = True

    @classmethod
    def create(cls, bar_a: Any, bar_b: Any, angle: Any, name: str, data) -> Latch:
        """Build a validated latch: the two bars must share a joint.

        A ground latch: bar_b must be supported.
        """
        from .pin_joint import PinJoint
        from .support import Support

        n = len(data.bars)
        a = optional_bar(bar_a, n, f"{name}: bar_a")
        b = bar_index(bar_b, n, f"{name}: bar_b")
        if a == b:
            raise ValueError(f"{name}: bar_a and bar_b are the same bar ({b})")
        if a is None:
            if not any(sp.bar == b for sp in data.of(Support)):
                raise ValueError(f"{name}: a latch to ground needs bar {b} to be supported")
        elif not any(a in j.bars and b in j.bars for j in data.of(PinJoint)):
            raise ValueError(f"{name}: bars {a} and {b} have no common joint; a latch locks "
                             "the hinge of a joint")
        return cls(a, b, check_real(angle, f"{name}: angle"), name)

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
        return (f"constraint {self.name!r}: latch {a} → bar {self.bar_b} at {self.angle:g} rad "
                f"({state})")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`θ_b - θ_a - \mathrm{angle} = 0` (switched on once latched)."""
        g = mo.add(_angle_poly(ctx, self.bar_a, self.bar_b), mo.constant(-1.0, ctx.par("angle")))
        return [Row(g, f"{self.name} · angle", self.bar_b, "torque")]

    def events(self, ctx: RowContext) -> list[EventSpec]:
        """Return the lock event: the row crosses zero while the latch is off."""
        return [EventSpec("lock", ("row", 0), "any", "inactive")]

    def on_event(self, role: str, act: EventActions) -> None:
        """Lock the hinge with a plastic impulse (restitution 0) and record it.

        A latch whose rows would be redundant is recorded but stays off.
        """
        if not act.adds_rank():
            # another latch (or joint) already holds this angle, e.g. the identical cells of a
            # lattice latching at one instant: its rows stay off (an independent subset)
            act.record("latched", redundant=True, impulse=[], kinetic_energy_lost=0.0,
                       approach_speed=act.approach_speed())
            # its event function φ - angle would hover at round-off zero for ever: move the
            # (unused) angle out of reach for the rest of the run so it stops triggering
            act.set_value("angle", self.angle + 1e6)
            return
        info = act.impact(0.0, activate=True)
        info.pop("rests", None)
        act.record("latched", **info)

    def to_dict(self) -> dict:
        """Return the latch as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar_a": self.bar_a, "bar_b": self.bar_b,
                "angle": self.angle, "active": self.active}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Latch:
        """Build the latch from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "bar_a", where), ctx.n_bars, f"{where}.bar_a")
        b = bar_index(field(d, "bar_b", where), ctx.n_bars, f"{where}.bar_b")
        if a == b:
            raise ValueError(f"{where}: bar_a and bar_b are the same bar")
        return cls(a, b, check_real(field(d, "angle", where), f"{where}.angle"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"),
                   check_flag(field(d, "active", where), f"{where}.active"))


class _Unilateral(_Switching):
    """A one-sided row ``g >= 0`` with impacts (restitution) and resting contact."""

    unilateral = True

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

    def _unilateral_dict(self) -> dict:
        return {"restitution": self.restitution, "rest_speed": self.rest_speed,
                "active": self.active}

    @staticmethod
    def _unilateral_values(d: Any, where: str) -> tuple:
        return (_check_restitution(field(d, "restitution", where), f"{where}.restitution"),
                _check_rest_speed(field(d, "rest_speed", where), f"{where}.rest_speed"),
                check_flag(field(d, "active", where), f"{where}.active"))


@dataclass
class AngleStop(_Unilateral):
    """A limit of the relative angle ``θ_b − θ_a``, with restitution ``e``.

    ``side`` "min" (φ ≥ limit) or "max" (φ ≤ limit).
    """

    bar_a: int | None
    bar_b: int
    limit: float
    side: str
    restitution: float
    name: str
    rest_speed: float = REST_SPEED
    active: bool = False

    kind = "stop"
    collection = "angle_stops"
    title = "angle stop"

    @classmethod
    def create(cls, bar_a: Any, bar_b: Any, limit: Any, side: Any, restitution: Any,
               rest_speed: Any, name: str, n_bars: int) -> AngleStop:
        """Build a validated stop (arguments as ``add_angle_stop``)."""
        a = optional_bar(bar_a, n_bars, f"{name}: bar_a")
        b = bar_index(bar_b, n_bars, f"{name}: bar_b")
        if a == b:
            raise ValueError(f"{name}: bar_a and bar_b are the same bar ({b})")
        if side not in ("min", "max"):
            raise ValueError(f"{name}: side must be 'min' or 'max', got {side!r}")
        return cls(a, b, check_real(limit, f"{name}: limit"), side,
                   _check_restitution(restitution, f"{name}: restitution"), name,
                   _check_rest_speed(rest_speed, f"{name}: rest_speed"))

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
        return (f"constraint {self.name!r}: stop θ(bar {self.bar_b}) − θ({a}) {rel} "
                f"{self.limit:g} rad, restitution {self.restitution:g}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the unilateral row :math:`\pm(φ - \mathrm{limit}) \ge 0` (+ for "min")."""
        sign = 1.0 if self.side == "min" else -1.0
        g = mo.add(_angle_poly(ctx, self.bar_a, self.bar_b, sign),
                   mo.constant(-sign, ctx.par("limit")))
        return [Row(g, f"{self.name} · angle", self.bar_b, "torque")]

    def to_dict(self) -> dict:
        """Return the angle stop as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar_a": self.bar_a, "bar_b": self.bar_b,
                "limit": self.limit, "side": self.side, **self._unilateral_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> AngleStop:
        """Build the angle stop from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "bar_a", where), ctx.n_bars, f"{where}.bar_a")
        b = bar_index(field(d, "bar_b", where), ctx.n_bars, f"{where}.bar_b")
        side = field(d, "side", where)
        if a == b or side not in ("min", "max"):
            raise ValueError(f"{where}: needs two different bars and side 'min' or 'max'")
        e, v, active = cls._unilateral_values(d, where)
        return cls(a, b, check_real(field(d, "limit", where), f"{where}.limit"), side, e,
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"), v, active)


@dataclass
class Contact(_Unilateral):
    """The point ``s`` of a bar stays on the side ``n·p ≥ h`` of a ground line.

    The normal is at ``normal_angle`` from +x: π/2 is a floor.
    """

    bar: int
    s: float
    normal_angle: float
    height: float
    restitution: float
    name: str
    rest_speed: float = REST_SPEED
    active: bool = False

    kind = "contact"
    collection = "contacts"
    title = "contact"

    @classmethod
    def create(cls, bar: Any, s: Any, normal_angle: Any, height: Any, restitution: Any,
               rest_speed: Any, name: str, n_bars: int) -> Contact:
        """Build a validated contact (arguments as ``add_contact``)."""
        return cls(bar_index(bar, n_bars, f"{name}: bar_index"), check_s(s, f"{name}: s"),
                   check_real(normal_angle, f"{name}: normal_angle"),
                   check_real(height, f"{name}: height"),
                   _check_restitution(restitution, f"{name}: restitution"), name,
                   _check_rest_speed(rest_speed, f"{name}: rest_speed"))

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the contact touches."""
        return (self.bar,)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the contact's runtime parameters ``[(name, value), ...]``."""
        return [(("active",), 1.0 if self.active else 0.0),
                (("sL",), self.s * bars[self.bar].length),
                (("nx",), math.cos(self.normal_angle)), (("ny",), math.sin(self.normal_angle)),
                (("h",), self.height)]

    def topology(self) -> tuple:
        """Return the contact's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar, self.normal_angle)  # the reaction's direction

    def describe(self, position: int) -> str:
        """Return the contact's line in the model summary."""
        return (f"constraint {self.name!r}: bar {self.bar} at s = {self.s:g} stays on the side "
                f"n·p ≥ {self.height:g} (normal at {self.normal_angle:g} rad), restitution "
                f"{self.restitution:g}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the unilateral row :math:`n \cdot p - h \ge 0` of the bar point :math:`p`."""
        sl = ctx.par("sL")
        g = mo.add(mo.mul(ctx.point(self.bar, sl, 0), mo.constant(1.0, ctx.par("nx"))),
                   mo.mul(ctx.point(self.bar, sl, 1), mo.constant(1.0, ctx.par("ny"))),
                   mo.constant(-1.0, ctx.par("h")))
        return [Row(g, f"{self.name} · normal", self.bar, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the contact's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        key = (self.kind, position, self.bar)
        return [(key, col, 0, math.cos(self.normal_angle)),
                (key, col, 1, math.sin(self.normal_angle))]

    def to_dict(self) -> dict:
        """Return the contact as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar": self.bar, "s": self.s,
                "normal_angle": self.normal_angle, "height": self.height,
                **self._unilateral_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Contact:
        """Build the contact from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        e, v, active = cls._unilateral_values(d, where)
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"),
                   check_real(field(d, "normal_angle", where), f"{where}.normal_angle"),
                   check_real(field(d, "height", where), f"{where}.height"), e,
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"), v, active)

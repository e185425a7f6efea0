"""User events: a function of the state and time whose zeros are located.

They are located during a simulation and recorded on the trajectory (``traj.events``); a
terminal one ends it.

The function is a heyoka expression of ``hy.time``, the bars' coordinates and velocities
(``model.coordinates(i)``, ``model.velocities(i)``) and named parameters; heyoka locates its
zeros on the Taylor series of each step (to rounding, not to the output grid). ``direction``
"up" counts only crossings where it increases, "down" where it decreases, "any" both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from ..._repr import short_repr
from ..validation import check_flag, check_name, field
from .actuators import check_law, law_from_file
from .base import Element, EventActions, EventSpec, LoadContext, RowContext

DIRECTIONS = ("any", "up", "down")


def _check_moves(e: hy.expression, where: str) -> hy.expression:
    """Refuse an event function of neither the state nor the time (it never crosses zero)."""
    if not hy.get_variables(e) and "t" not in str(e):
        raise ValueError(f"{where}: the event function uses neither the state nor the time")
    return e


@dataclass
class UserEvent(Element):
    """An event ``expr = 0`` (see the module docstring)."""

    expr: Any
    name: str
    direction: str = "any"
    terminal: bool = False

    kind = "event"
    collection = "events"
    title = "event"
    has_name = True

    @classmethod
    def create(cls, expr: Any, name: str, direction: Any, terminal: Any, n_bars: int,
               parameters: list[str]) -> UserEvent:
        """Build a validated event (arguments as ``add_event``)."""
        if not isinstance(expr, hy.expression):
            raise TypeError(f"{name}: expr must be a heyoka expression, got "
                            f"{type(expr).__name__}")
        e = _check_moves(check_law(expr, n_bars, parameters, f"{name}: expr"), name)
        if direction not in DIRECTIONS:
            raise ValueError(f"{name}: direction must be one of {DIRECTIONS}, got "
                             f"{short_repr(direction)}")
        return cls(e, name, direction, check_flag(terminal, f"{name}: terminal"))

    def bars_used(self) -> tuple[int, ...]:
        """Return the bodies the event touches."""
        return tuple(sorted({int(v.lstrip("xythvom")) for v in hy.get_variables(self.expr)
                             if not v.startswith("par_")}))

    def topology(self) -> tuple:
        """Return the event's part of the topology key (connectivity, never values)."""
        return (self.name, str(self.expr), self.direction, self.terminal)

    def reindexed(self, removed_bar: int):
        """Return the event after bar ``removed_bar`` is deleted (None if it used it)."""
        from .actuators import _rename_bar_variables

        laws = _rename_bar_variables([self.expr], removed_bar)
        if laws is None:
            return None
        c = self.copy()
        c.expr = laws[0]
        return c

    def describe(self, position: int) -> str:
        """Return the event's line in the model summary."""
        kind = "terminal event" if self.terminal else "event"
        return f"{kind} {self.name!r}: {self.expr} = 0 ({self.direction})"

    def events(self, ctx: RowContext) -> list[EventSpec]:
        """Return the user's event: the zeros of its expression, in its direction."""
        subs = ctx.user_parameters()
        value = hy.subs(self.expr, subs) if subs else self.expr
        return [EventSpec("user", value, self.direction, "always", self.terminal)]

    def on_event(self, role: str, act: EventActions) -> None:
        """Record the event; a terminal event stops the simulation."""
        act.record("event")
        if self.terminal:
            act.stop()

    def to_dict(self) -> dict:
        """Return the event as plain JSON-ready data (read back by :meth:`from_dict`)."""
        from ...expression_codec import encode_expression

        return {"name": self.name, "expr": encode_expression(self.expr),
                "text": str(self.expr), "direction": self.direction, "terminal": self.terminal}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> UserEvent:
        """Build the event from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        direction = field(d, "direction", where)
        if direction not in DIRECTIONS:
            raise ValueError(f"{where}.direction: expected one of {DIRECTIONS}")
        expr = law_from_file(field(d, "expr", where), f"{where}.expr", ctx)
        return cls(_check_moves(expr, f"{where}.expr"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"), direction,
                   check_flag(field(d, "terminal", where), f"{where}.terminal"))

"""User events: a function of the state and time whose zeros are located.

They are located during a simulation and recorded on the trajectory (``traj.events``); a
terminal one ends it.

The function is a heyoka expression of ``hy.time``, the bodies' coordinates and velocities
(``model.variables(i)``) and named parameters; heyoka locates its
zeros on the Taylor series of each step (to rounding, not to the output grid). ``direction``
"up" counts only crossings where it increases, "down" where it decreases, "any" both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from . import fields
from .actuators import WithLaws, check_law
from .base import Element, EventActions, EventSpec, LoadContext, RowContext
from .registry import register

DIRECTIONS = ("any", "up", "down")


def _check_moves(e: hy.expression, where: str) -> hy.expression:
    """Refuse an event function of neither the state nor the time (it never crosses zero)."""
    if not hy.get_variables(e) and "t" not in str(e):
        raise ValueError(f"{where}: the event function uses neither the state nor the time")
    return e


@register(rank=2400)
@dataclass
class UserEvent(WithLaws, Element):
    """An event ``expr = 0`` (see the module docstring)."""

    expr: Any = fields.law("expression", "", "the function whose zeros are the events")
    direction: str = fields.choice("direction", DIRECTIONS, "the crossings that count: "
                                   "increasing (up), decreasing (down) or both (any)",
                                   default="any")
    terminal: bool = fields.flag("terminal", "the first crossing ends the simulation",
                                 topology=True, default=False)
    name: str | None = fields.name(default=None)

    kind = "event"
    collection = "events"
    title = "event"
    prefix = "event"
    has_name = True

    @classmethod
    def law_from_api(cls, value: Any, where: str, n_bars: int,
                     parameters: list[str] | None) -> hy.expression:
        """Return the event function checked: a heyoka expression of the state or the time."""
        if not isinstance(value, hy.expression):
            raise TypeError(f"{where} must be a heyoka expression, got {type(value).__name__}")
        return _check_moves(check_law(value, n_bars, parameters, where), where)

    @classmethod
    def law_from_file(cls, tree: Any, where: str, ctx: LoadContext) -> hy.expression:
        """Return the event function of a file, checked as :meth:`law_from_api` checks it."""
        return _check_moves(super().law_from_file(tree, where, ctx), where)

    @classmethod
    def text_key(cls, law: str) -> str:
        """Return the file key of the expression's readable text, ``"text"``."""
        return "text"

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

r"""Knife edge (skate): a point of a bar cannot move across the bar.

The velocity of the point :math:`s` of bar :math:`i` has no component along the bar's normal
:math:`n = (-\sin θ, \cos θ)`:

.. math:: g = -\sin θ\,\dot x + \cos θ\,\dot y + sL\,\dot θ = 0

(a non-holonomic velocity row; its multiplier is the lateral force on the bar at the edge,
along :math:`n`). Parameter: ``sL``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import monomials as mo
from . import fields
from .base import Constraint, OnOneBar, Row, RowContext
from .registry import register


@register(rank=600)
@dataclass
class KnifeEdge(OnOneBar, Constraint):
    """A knife edge at the point ``s`` of a bar: no velocity across the bar there."""

    bar: int = fields.body("bar", "the bar on the edge")
    s: float = fields.local("s", "where the edge touches the bar")
    name: str | None = fields.name(default=None)

    kind = "knife"
    collection = "knife_edges"
    title = "knife edge"
    prefix = "knife"
    named = True
    has_name = True

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the knife edge's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s * bars[self.bar].length)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the knife edge."""
        return {("sL",): [(f"\\ell_{{K{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the knife edge's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar)

    def describe(self, position: int) -> str:
        """Return the knife edge's line in the model summary."""
        return f"constraint {self.name!r}: knife edge on bar {self.bar} at s = {self.s:g}"

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the velocity row :math:`-\sin θ\,\dot x + \cos θ\,\dot y + sL\,\dot θ = 0`."""
        i = self.bar
        g = mo.add(mo.monomial((ctx.sin(i), ctx.v(3 * i)), -1.0),
                   mo.monomial((ctx.cos(i), ctx.v(3 * i + 1)), 1.0),
                   mo.monomial((ctx.v(3 * i + 2),), 1.0, ctx.par("sL")))
        return [Row(g, f"{self.name}.normal", i, "n", velocity=True)]

    def group(self) -> dict:
        """Return the knife edge's data recorded on trajectories (named constraints)."""
        return {"velocity_level": True}

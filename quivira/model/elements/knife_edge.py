r"""Knife edge (skate): a point of a bar cannot move across the bar.

The velocity of the point :math:`s` of bar :math:`i` has no component along the bar's normal
:math:`n = (-\sin θ, \cos θ)`:

.. math:: g = -\sin θ\,\dot x + \cos θ\,\dot y + sL\,\dot θ = 0

(a non-holonomic velocity row; its multiplier is the lateral force on the bar at the edge,
along :math:`n`). Parameter: ``sL``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from ..validation import bar_index, check_name, check_s, field
from .base import Constraint, LoadContext, OnOneBar, Row, RowContext


@dataclass
class KnifeEdge(OnOneBar, Constraint):
    """A knife edge at the point ``s`` of a bar: no velocity across the bar there."""

    bar: int
    s: float
    name: str

    kind = "knife"
    collection = "knife_edges"
    title = "knife edge"
    named = True
    has_name = True

    @classmethod
    def create(cls, bar: Any, s: Any, name: str, n_bars: int, position: int) -> KnifeEdge:
        """Build a validated knife edge (arguments as ``add_knife_edge``)."""
        return cls(bar_index(bar, n_bars, "bar_index"), check_s(s, f"knife edge {position}: s"),
                   name)

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
        return [Row(g, f"{self.name} · normal", i, "n", velocity=True)]

    def group(self) -> dict:
        """Return the knife edge's data recorded on trajectories (named constraints)."""
        return {"velocity_level": True}

    def to_dict(self) -> dict:
        """Return the knife edge as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"bar": self.bar, "s": self.s, "name": self.name}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> KnifeEdge:
        """Build the knife edge from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

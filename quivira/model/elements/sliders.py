r"""Sliding joints: a pin in a slot, a prismatic joint, a slider along a ground line.

With :math:`n_a = (-\sin θ_a, \cos θ_a)` the normal of bar a and :math:`c_a` its centre:

* :class:`PinInSlot` (Exudyn ``ObjectJointSliding2D``): the point :math:`p_b(s_b)` of bar b
  stays on the line of bar a (shifted by ``offset`` along the normal), rotation free:

  .. math:: g = n_a \cdot (p_b - c_a) - e = 0;

  its multiplier is the force along :math:`n_a` the slot exerts on bar b (and its opposite on
  bar a).
* :class:`PrismaticJoint` (Exudyn ``ObjectJointPrismatic2D``): the same row, and the relative
  rotation locked, :math:`θ_b - θ_a - φ_0 = 0`; the second multiplier is the locking torque on
  bar b (its opposite on bar a).
* :class:`GroundSlider`: a point of a bar on the ground line through :math:`P` at the angle
  :math:`α` (today's roller support is the axis-aligned case):
  :math:`n\cdot(p(s) - P) = 0` with :math:`n = (-\sin α, \cos α)`; the multiplier is the
  force along :math:`n` on the bar.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from ..validation import bar_index, check_name, check_point, check_real, check_s, field
from .base import Constraint, LoadContext, OnOneBar, Row, RowContext, shift_bar


def _slot_row(ctx: RowContext, a: int, b: int, sl_b: int, offset: int) -> mo.Poly:
    r""":math:`n_a\cdot(p_b - c_a) - e` as a poly."""
    sa, ca = ctx.sin(a), ctx.cos(a)
    terms = [
        mo.monomial((sa, ctx.q(3 * b)), -1.0), mo.monomial((sa, ctx.cos(b)), -1.0, sl_b),
        mo.monomial((sa, ctx.q(3 * a)), 1.0),
        mo.monomial((ca, ctx.q(3 * b + 1)), 1.0), mo.monomial((ca, ctx.sin(b)), 1.0, sl_b),
        mo.monomial((ca, ctx.q(3 * a + 1)), -1.0), mo.constant(-1.0, offset)]
    return mo.add(*terms)


def _check_pair(bar_a: Any, bar_b: Any, s_b: Any, offset: Any, n_bars: int, where: str):
    a = bar_index(bar_a, n_bars, f"{where}: bar_a")
    b = bar_index(bar_b, n_bars, f"{where}: bar_b")
    if a == b:
        raise ValueError(f"{where}: bar_a and bar_b are the same bar ({a})")
    return a, b, check_s(s_b, f"{where}: s_b"), check_real(offset, f"{where}: offset")


@dataclass
class PinInSlot(Constraint):
    """The point ``s_b`` of ``bar_b`` slides in the slot along ``bar_a`` (rotation free)."""

    bar_a: int
    bar_b: int
    s_b: float
    offset: float
    name: str

    kind = "slot"
    collection = "slots"
    title = "pin-in-slot"
    named = True
    has_name = True

    @classmethod
    def create(cls, bar_a: Any, bar_b: Any, s_b: Any, offset: Any, name: str,
               n_bars: int) -> PinInSlot:
        """Build a validated pin-in-slot joint (arguments as ``add_pin_in_slot``)."""
        return cls(*_check_pair(bar_a, bar_b, s_b, offset, n_bars, name), name)

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the pin-in-slot joint touches."""
        return (self.bar_a, self.bar_b)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the pin-in-slot joint's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s_b * bars[self.bar_b].length), (("offset",), self.offset)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the pin-in-slot joint."""
        return {("sL",): [(f"s_{{P{position}}}", 1), (f"L_{self.bar_b}", 1)],
                ("offset",): [(f"e_{{P{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the pin-in-slot joint's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar_a, self.bar_b)

    def reindexed(self, removed_bar: int):
        """Return the joint after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        c = self.copy()
        c.bar_a, c.bar_b = shift_bar(self.bar_a, removed_bar), shift_bar(self.bar_b, removed_bar)
        return c

    def describe(self, position: int) -> str:
        """Return the pin-in-slot joint's line in the model summary."""
        return (f"constraint {self.name!r}: pin of bar {self.bar_b} at s = {self.s_b:g} in the "
                f"slot of bar {self.bar_a} (offset {self.offset:g})")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`n_a \cdot (p_b - c_a) - e = 0`: the pin stays on the slot line."""
        F = _slot_row(ctx, self.bar_a, self.bar_b, ctx.par("sL"), ctx.par("offset"))
        return [Row(F, f"{self.name} · normal", self.bar_b, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the pin-in-slot joint's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        return [((self.kind, position, self.bar_b), col, ("normal", self.bar_a), 1.0),
                ((self.kind, position, self.bar_a), col, ("normal", self.bar_a), -1.0)]

    def group(self) -> dict:
        """Return the pin-in-slot joint's data recorded on trajectories (named constraints)."""
        return {"velocity_level": False}

    def to_dict(self) -> dict:
        """Return the joint as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar_a": self.bar_a, "bar_b": self.bar_b, "s_b": self.s_b,
                "offset": self.offset}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> PinInSlot:
        """Build the joint from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        name = check_name(field(d, "name", where), ctx.names, f"{where}.name")
        return cls(*_check_pair(field(d, "bar_a", where), field(d, "bar_b", where),
                                field(d, "s_b", where), field(d, "offset", where), ctx.n_bars,
                                where), name)


@dataclass
class PrismaticJoint(PinInSlot):
    """Bar ``bar_b`` slides along ``bar_a`` with the relative rotation locked at ``phi0``."""

    phi0: float = 0.0

    kind = "prismatic"
    collection = "prismatic_joints"
    title = "prismatic joint"

    @classmethod
    def create(cls, bar_a: Any, bar_b: Any, s_b: Any, offset: Any, name: str, bars: list,
               phi0: Any = None) -> PrismaticJoint:
        """Build a validated prismatic joint; ``phi0`` None is the initial relative angle."""
        a, b, s, e = _check_pair(bar_a, bar_b, s_b, offset, len(bars), name)
        if phi0 is None:
            if bars[a].pose is None or bars[b].pose is None:
                raise ValueError(f"{name}: the bars have no initial pose yet; set the poses "
                                 "first (the locked angle defaults to the initial one)")
            phi0 = bars[b].pose[2] - bars[a].pose[2]
        return cls(a, b, s, e, name, check_real(phi0, f"{name}: phi0"))

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the prismatic joint's runtime parameters ``[(name, value), ...]``."""
        return super().parameters(bars) + [(("phi0",), self.phi0)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the prismatic joint."""
        return super().parameter_symbols(position, bars) | {
            ("phi0",): [(f"φ_{{P{position}}}", 1)]}

    def describe(self, position: int) -> str:
        """Return the prismatic joint's line in the model summary."""
        return (f"constraint {self.name!r}: bar {self.bar_b} slides along bar {self.bar_a} "
                f"(point s = {self.s_b:g}, offset {self.offset:g}, angle locked at "
                f"{self.phi0:g} rad)")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the slot row and the locking row :math:`θ_b - θ_a - φ_0 = 0`."""
        lock = mo.add(mo.monomial((ctx.q(3 * self.bar_b + 2),), 1.0),
                      mo.monomial((ctx.q(3 * self.bar_a + 2),), -1.0),
                      mo.constant(-1.0, ctx.par("phi0")))
        return super().rows(ctx) + [Row(lock, f"{self.name} · angle", self.bar_b, "torque")]

    def to_dict(self) -> dict:
        """Return the prismatic joint as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return super().to_dict() | {"phi0": self.phi0}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> PrismaticJoint:
        """Build the joint from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        name = check_name(field(d, "name", where), ctx.names, f"{where}.name")
        a, b, s, e = _check_pair(field(d, "bar_a", where), field(d, "bar_b", where),
                                 field(d, "s_b", where), field(d, "offset", where), ctx.n_bars,
                                 where)
        return cls(a, b, s, e, name, check_real(field(d, "phi0", where), f"{where}.phi0"))


@dataclass
class GroundSlider(OnOneBar, Constraint):
    """The point ``s`` of a bar slides on the ground line through ``point`` at ``angle``."""

    bar: int
    s: float
    point: tuple[float, float]
    angle: float
    name: str

    kind = "slider"
    collection = "ground_sliders"
    title = "ground slider"
    named = True
    has_name = True

    @classmethod
    def create(cls, bar: Any, s: Any, angle: Any, point: Any, name: str,
               bars: list) -> GroundSlider:
        """Build a validated slider; ``point`` None is the point's initial position."""
        i = bar_index(bar, len(bars), f"{name}: bar_index")
        sv = check_s(s, f"{name}: s")
        if point is None:
            if bars[i].pose is None:
                raise ValueError(f"{name}: bar {i} has no initial pose yet; set it first (the "
                                 "guide passes through the point's initial position)")
            point = bars[i].point(sv)
        return cls(i, sv, check_point(point, f"{name}: point"),
                   check_real(angle, f"{name}: angle"), name)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the slider's runtime parameters ``[(name, value), ...]``."""
        nx, ny = -math.sin(self.angle), math.cos(self.angle)
        return [(("sL",), self.s * bars[self.bar].length), (("nx",), nx), (("ny",), ny),
                (("d",), nx * self.point[0] + ny * self.point[1])]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the slider."""
        return {("sL",): [(f"s_{{G{position}}}", 1), (f"L_{self.bar}", 1)],
                ("nx",): [(f"n_{{x,G{position}}}", 1)], ("ny",): [(f"n_{{y,G{position}}}", 1)],
                ("d",): [(f"d_{{G{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the slider's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar, self.angle)  # the reactions' direction depends on it

    def describe(self, position: int) -> str:
        """Return the slider's line in the model summary."""
        return (f"constraint {self.name!r}: bar {self.bar} at s = {self.s:g} slides on the "
                f"ground line through ({self.point[0]:.4g}, {self.point[1]:.4g}) at "
                f"{self.angle:.4g} rad")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`n \cdot p - d = 0`: the bar point stays on the ground line."""
        nx, ny = ctx.par("nx"), ctx.par("ny")
        px = ctx.point(self.bar, ctx.par("sL"), 0)
        py = ctx.point(self.bar, ctx.par("sL"), 1)
        F = mo.add(mo.mul(px, mo.constant(1.0, nx)), mo.mul(py, mo.constant(1.0, ny)),
                   mo.constant(-1.0, ctx.par("d")))
        return [Row(F, f"{self.name} · normal", self.bar, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the slider's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        c, s = math.cos(self.angle), math.sin(self.angle)
        return [((self.kind, position, self.bar), col, 0, -s),
                ((self.kind, position, self.bar), col, 1, c)]

    def to_dict(self) -> dict:
        """Return the slider as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar": self.bar, "s": self.s, "point": list(self.point),
                "angle": self.angle}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> GroundSlider:
        """Build the slider from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"),
                   check_point(field(d, "point", where), f"{where}.point"),
                   check_real(field(d, "angle", where), f"{where}.angle"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

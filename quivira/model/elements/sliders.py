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
from dataclasses import dataclass, replace

from .. import monomials as mo
from . import fields
from .base import Constraint, OnOneBar, Row, RowContext, shift_bar
from .registry import register


def _slot_row(ctx: RowContext, a: int, b: int, sl_b: int, offset: int) -> mo.Poly:
    r""":math:`n_a\cdot(p_b - c_a) - e` as a poly."""
    sa, ca = ctx.sin(a), ctx.cos(a)
    terms = [
        mo.monomial((sa, ctx.q(3 * b)), -1.0), mo.monomial((sa, ctx.cos(b)), -1.0, sl_b),
        mo.monomial((sa, ctx.q(3 * a)), 1.0),
        mo.monomial((ca, ctx.q(3 * b + 1)), 1.0), mo.monomial((ca, ctx.sin(b)), 1.0, sl_b),
        mo.monomial((ca, ctx.q(3 * a + 1)), -1.0), mo.constant(-1.0, offset)]
    return mo.add(*terms)


@register(rank=700)
@dataclass
class PinInSlot(Constraint):
    """The point ``s_b`` of ``bar_b`` slides in the slot along ``bar_a`` (rotation free)."""

    bar_a: int = fields.body("slot bar", "the bar with the slot (its axis is the line)")
    bar_b: int = fields.body("pin bar", "the bar with the pin")
    s_b: float = fields.local("s_b", "the pin's point on the pin bar")
    offset: float = fields.number("offset", "m", "distance of the slot line from the axis "
                                  "of the slot bar, along its normal", default=0.0)
    name: str | None = fields.name(default=None)

    kind = "slot"
    collection = "slots"
    title = "pin-in-slot"
    prefix = "slot"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> PinInSlot:
        """Return the joint checked across fields: two different bars."""
        if self.bar_a == self.bar_b:
            raise ValueError(f"{where}: bar_a and bar_b are the same bar ({self.bar_a}); "
                             "a slot joins two bars")
        return self

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
        return (f"{self.name}: pin of bar {self.bar_b} at s = {self.s_b:g} in the slot of bar "
                f"{self.bar_a} (offset {self.offset:g})")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`n_a \cdot (p_b - c_a) - e = 0`: the pin stays on the slot line."""
        F = _slot_row(ctx, self.bar_a, self.bar_b, ctx.par("sL"), ctx.par("offset"))
        return [Row(F, f"{self.name}.normal", self.bar_b, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the pin-in-slot joint's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        return [((self.kind, position, self.bar_b), col, ("normal", self.bar_a), 1.0),
                ((self.kind, position, self.bar_a), col, ("normal", self.bar_a), -1.0)]

    def group(self) -> dict:
        """Return the pin-in-slot joint's data recorded on trajectories (named constraints)."""
        return {"velocity_level": False}


@register(rank=800)
@dataclass
class PrismaticJoint(PinInSlot):
    """Bar ``bar_b`` slides along ``bar_a`` with the relative rotation locked at ``phi0``.

    ``phi0`` None is the bars' initial relative angle.
    """

    s_b: float = fields.local("s_b", "the point of the sliding bar on the guide line",
                              default=0.0)
    phi0: float | None = fields.number("locked angle", "rad", "the relative angle θ_b − θ_a "
                                       "held by the joint (None: the initial one)",
                                       optional=True, default=None)

    kind = "prismatic"
    collection = "prismatic_joints"
    title = "prismatic joint"
    prefix = "prismatic"

    def check(self, bodies: list, where: str) -> PrismaticJoint:
        """Return the joint checked across fields, ``phi0`` None set from the initial poses."""
        super().check(bodies, where)
        if self.phi0 is not None:
            return self
        a, b = bodies[self.bar_a], bodies[self.bar_b]
        if a.pose is None or b.pose is None:
            raise ValueError(f"{where}: phi0: bars {self.bar_a} and {self.bar_b} need initial "
                             "poses (the locked angle defaults to the initial one); set the "
                             "poses first or give phi0")
        return replace(self, phi0=b.pose[2] - a.pose[2])

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the prismatic joint's runtime parameters ``[(name, value), ...]``."""
        return super().parameters(bars) + [(("phi0",), self.phi0)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the prismatic joint."""
        return super().parameter_symbols(position, bars) | {
            ("phi0",): [(f"φ_{{P{position}}}", 1)]}

    def describe(self, position: int) -> str:
        """Return the prismatic joint's line in the model summary."""
        return (f"{self.name}: bar {self.bar_b} slides along bar {self.bar_a} (point s = "
                f"{self.s_b:g}, offset {self.offset:g}, angle locked at {self.phi0:g} rad)")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the slot row and the locking row :math:`θ_b - θ_a - φ_0 = 0`."""
        lock = mo.add(mo.monomial((ctx.q(3 * self.bar_b + 2),), 1.0),
                      mo.monomial((ctx.q(3 * self.bar_a + 2),), -1.0),
                      mo.constant(-1.0, ctx.par("phi0")))
        return super().rows(ctx) + [Row(lock, f"{self.name}.angle", self.bar_b, "torque")]


@register(rank=900)
@dataclass
class GroundSlider(OnOneBar, Constraint):
    """The point ``s`` of a bar slides on the ground line through ``point`` at ``angle``.

    ``point`` None is the sliding point's initial position.
    """

    bar: int = fields.body("bar", "the sliding bar")
    s: float = fields.local("s", "the sliding point")
    angle: float = fields.number("angle", "rad", "direction of the guide line from +x (the "
                                 "reaction's direction: an edit recompiles)", topology=True,
                                 default=0.0)
    point: tuple[float, float] | None = fields.point(
        "guide point", "m", "a point of the guide line (None: the sliding point's initial "
        "position)", optional=True, default=None)
    name: str | None = fields.name(default=None)

    kind = "slider"
    collection = "ground_sliders"
    title = "ground slider"
    prefix = "slider"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> GroundSlider:
        """Return the slider with ``point`` None set to the sliding point's initial position."""
        if self.point is not None:
            return self
        b = bodies[self.bar]
        if b.pose is None:
            raise ValueError(f"{where}: point: bar {self.bar} has no initial pose yet; set it "
                             "first (the guide passes through the point's initial position) "
                             "or give the point")
        return replace(self, point=tuple(b.point(self.s)))

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
        return (f"{self.name}: bar {self.bar} at s = {self.s:g} slides on the ground line "
                f"through ({self.point[0]:.4g}, {self.point[1]:.4g}) at {self.angle:.4g} rad")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`n \cdot p - d = 0`: the bar point stays on the ground line."""
        nx, ny = ctx.par("nx"), ctx.par("ny")
        px = ctx.point(self.bar, ctx.par("sL"), 0)
        py = ctx.point(self.bar, ctx.par("sL"), 1)
        F = mo.add(mo.mul(px, mo.constant(1.0, nx)), mo.mul(py, mo.constant(1.0, ny)),
                   mo.constant(-1.0, ctx.par("d")))
        return [Row(F, f"{self.name}.normal", self.bar, "n")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the slider's multipliers act as forces on the bars."""
        (col, _), = rows[:1]
        c, s = math.cos(self.angle), math.sin(self.angle)
        return [((self.kind, position, self.bar), col, 0, -s),
                ((self.kind, position, self.bar), col, 1, c)]

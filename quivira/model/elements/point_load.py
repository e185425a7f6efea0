r"""Point load: a constant force at a point of a bar, plus a torque.

A force :math:`f = (f_x, f_y)` (global frame) at :math:`r = sL(\cos θ, \sin θ)` from the
bar's centre, with a torque :math:`τ` (counter-clockwise positive), is the generalized force

.. math:: Q = (f_x,\; f_y,\; τ + r_x f_y - r_y f_x)

on the bar's :math:`(x, y, θ)`, with the potential
:math:`V = -(f \cdot p(s) + τθ)`, so that :math:`Q = -\partial V/\partial q`.
Parameters: ``sL``, ``fx``, ``fy``, ``torque`` (N, N, N·m for SI data).
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import monomials as mo
from . import fields
from .base import Load, OnOneBar, RowContext
from .registry import register


@register(rank=1900)
@dataclass
class PointLoad(OnOneBar, Load):
    """A constant point force ``(fx, fy)`` at ``s`` on a bar, plus a torque (counter-clockwise)."""

    bar: int = fields.body("bar", "the loaded bar")
    s: float = fields.local("s", "the point of application")
    fx: float = fields.number("fx", "N", "the force along the ground's x axis")
    fy: float = fields.number("fy", "N", "the force along the ground's y axis")
    torque: float = fields.number("torque", "N m", "a torque on the bar, counter-clockwise "
                                  "positive", default=0.0)
    name: str | None = fields.name(default=None)

    kind = "force"
    collection = "forces"
    title = "force"
    prefix = "force"
    has_name = True
    named_since = 3
    inputs = ("fx", "fy", "torque")

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the load's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s * bars[self.bar].length), (("fx",), self.fx),
                (("fy",), self.fy), (("torque",), self.torque)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the load."""
        return {("sL",): [(f"s_{{F{position}}}", 1), (f"L_{self.bar}", 1)],
                ("fx",): [(f"F_{{x{position}}}", 1)], ("fy",): [(f"F_{{y{position}}}", 1)],
                ("torque",): [(f"tau_{position}", 1)]}

    def topology(self) -> tuple:
        """Return the load's part of the topology key (connectivity and name, never values).

        The name labels the load's power and inputs in the compiled code.
        """
        return (self.name, self.bar)

    def describe(self, position: int) -> str:
        """Return the load's line in the model summary."""
        return (f"{self.name}: force on bar {self.bar} at s = {self.s:g}, (fx, fy) = "
                f"({self.fx:g}, {self.fy:g}), torque {self.torque:g}")

    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, mo.Poly]]:
        r"""Return the generalized forces of the force and the torque.

        :math:`Q = (f_x, f_y, τ + sL(f_y\cos θ - f_x\sin θ))` on the bar's ``(x, y, θ)``.
        """
        i = self.bar
        fx, fy, tau, sl = (ctx.par(w) for w in ("fx", "fy", "torque", "sL"))
        return [(3 * i, mo.constant(1.0, fx)), (3 * i + 1, mo.constant(1.0, fy)),
                (3 * i + 2, mo.add(mo.constant(1.0, tau),
                                   mo.monomial((ctx.cos(i),), 1.0, sl, fy),
                                   mo.monomial((ctx.sin(i),), -1.0, sl, fx)))]

    def potential(self, ctx: RowContext) -> mo.Poly:
        """Return the potential :math:`V = -f_x x_p - f_y y_p - τθ` of the constant load."""
        i = self.bar
        fx, fy, tau, sl = (ctx.par(w) for w in ("fx", "fy", "torque", "sL"))
        return mo.add(mo.mul(ctx.point(i, sl, 0, -1.0), mo.constant(1.0, fx)),
                      mo.mul(ctx.point(i, sl, 1, -1.0), mo.constant(1.0, fy)),
                      mo.monomial((ctx.q(3 * i + 2),), -1.0, tau))

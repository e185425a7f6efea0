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
from typing import Any

from .. import monomials as mo
from ..validation import bar_index, check_real, check_s, field
from .base import Load, LoadContext, OnOneBar, RowContext


@dataclass
class PointLoad(OnOneBar, Load):
    """A constant point force ``(fx, fy)`` at ``s`` on a bar, plus a torque (counter-clockwise)."""

    bar: int
    s: float
    fx: float
    fy: float
    torque: float = 0.0

    kind = "force"
    collection = "forces"
    title = "force"
    inputs = ("fx", "fy", "torque")

    @classmethod
    def create(cls, bar: Any, s: Any, fx: Any, fy: Any, torque: Any, n_bars: int,
               position: int) -> PointLoad:
        """Build a validated load (arguments as ``add_external_force``)."""
        where = f"force {position}"
        return cls(bar_index(bar, n_bars, f"{where}: bar_index"), check_s(s, f"{where}: s"),
                   check_real(fx, f"{where}: fx"), check_real(fy, f"{where}: fy"),
                   check_real(torque, f"{where}: torque"))

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the load's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s * bars[self.bar].length), (("fx",), self.fx),
                (("fy",), self.fy), (("torque",), self.torque)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the load."""
        return {("sL",): [(f"s_{{F{position}}}", 1), (f"L_{self.bar}", 1)],
                ("fx",): [(f"F_{{x{position}}}", 1)], ("fy",): [(f"F_{{y{position}}}", 1)],
                ("torque",): [(f"tau_{position}", 1)]}

    def topology(self) -> int:
        """Return the load's part of the topology key (connectivity, never values)."""
        return self.bar

    def describe(self, position: int) -> str:
        """Return the load's line in the model summary."""
        return (f"force {position}: bar {self.bar} at s = {self.s:g}, (fx, fy) = "
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

    def to_dict(self) -> dict:
        """Return the load as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"bar": self.bar, "s": self.s, "fx": self.fx, "fy": self.fy,
                "torque": self.torque}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> PointLoad:
        """Build the load from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"),
                   check_real(field(d, "fx", where), f"{where}.fx"),
                   check_real(field(d, "fy", where), f"{where}.fy"),
                   check_real(field(d, "torque", where), f"{where}.torque"))

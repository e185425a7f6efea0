r"""Point-to-point spring-damper between two bar points, or a bar point and a ground point.

As Exudyn's ``ObjectConnectorSpringDamper``: with :math:`d = p_b - p_a`, the distance
:math:`\ell = |d|` and its rate :math:`\dot\ell = d\cdot\dot d/\ell`, the scalar force

.. math:: f = k(\ell - \ell_0) + c\,\dot\ell \qquad (f > 0: \text{tension})

pulls the two points towards each other: :math:`-f\,d/\ell` on point b, :math:`+f\,d/\ell`
on point a. Its generalized force on a bar :math:`i` attached at :math:`r = sL(\cos θ,
\sin θ)` from its centre is :math:`(F_x, F_y, r_x F_y - r_y F_x)`. The spring is conservative
with :math:`V = \tfrac12 k(\ell - \ell_0)^2`; the damper dissipates :math:`c\,\dot\ell^2`.
Parameters: ``k`` (N/m), ``l0`` (m), ``c`` (N s/m), and ``sL`` of each bar end or the ground
point ``x``, ``y``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import heyoka as hy

from . import fields
from .base import Load, RowContext, shift_bar
from .registry import register


@register(rank=2000)
@dataclass
class SpringDamper(Load):
    """A spring-damper from point ``s_a`` of ``bar_a`` to point ``s_b`` of ``bar_b``.

    ``bar_b`` None: the ground point ``ground``. ``l0`` None is the initial distance of the
    ends.
    """

    bar_a: int = fields.body("bar a", "the bar of the first end")
    s_a: float = fields.local("s a", "the first end on bar a")
    bar_b: int | None = fields.body("bar b", "the bar of the second end (None: a ground "
                                    "point)", ground=True)
    s_b: float = fields.local("s b", "the second end on bar b", default=0.0)
    ground: tuple[float, float] | None = fields.point(
        "ground point", "m", "the second end when bar b is None (the ground)", optional=True,
        default=None)
    k: float = fields.number("k", "N/m", "stiffness", lower=0.0, default=0.0)
    l0: float | None = fields.number("l0", "m", "rest length (None: the initial distance)",
                                     lower=0.0, optional=True, default=None)
    c: float = fields.number("c", "N s/m", "damping on the rate of the length", lower=0.0,
                             default=0.0)
    name: str | None = fields.name(default=None)

    kind = "spring"
    collection = "springs"
    title = "spring"
    prefix = "spring"
    has_name = True
    dissipates = True
    elastic = True

    def check(self, bodies: list, where: str) -> SpringDamper:
        """Return the spring checked across fields, ``l0`` None set from the initial pose.

        One end on a bar and the other on another bar or a ground point; ends that are apart
        in the initial pose (else the spring has no direction).
        """
        if self.bar_b is None:
            if self.ground is None:
                raise ValueError(f"{where}: bar_b is None (the ground): give the ground point, "
                                 "ground=(x, y)")
            if self.s_b != 0.0:
                raise ValueError(f"{where}: s_b = {self.s_b:g} is a point on bar b, but the "
                                 "second end is the ground point; leave s_b at 0")
        elif self.ground is not None:
            raise ValueError(f"{where}: a ground point is given but bar_b = {self.bar_b} is a "
                             "bar; use bar_b=None for a spring to ground")
        elif self.bar_b == self.bar_a:
            raise ValueError(f"{where}: both ends are on bar {self.bar_a}; a spring joins two "
                             "bars or a bar and ground")
        length = self.initial_length(bodies)
        if length is None:
            if self.l0 is None:
                raise ValueError(f"{where}: the bars have no initial pose yet; set the poses "
                                 "first (the rest length defaults to the initial distance)")
            return self
        if length <= 1e-12 * max(1.0, *(b.length for b in bodies)):
            raise ValueError(f"{where}: the two ends coincide initially (distance {length:g}), "
                             "so the spring has no direction; attach it at distinct points")
        return self if self.l0 is not None else replace(self, l0=length)

    def initial_length(self, bars: list) -> float | None:
        """Distance of the two ends in the initial pose (None without poses)."""
        ends = []
        for bar, s in ((self.bar_a, self.s_a), (self.bar_b, self.s_b)):
            if bar is None:
                ends.append(self.ground)
            elif bars[bar].pose is None:
                return None
            else:
                ends.append(bars[bar].point(s))
        return float(((ends[1][0] - ends[0][0]) ** 2 + (ends[1][1] - ends[0][1]) ** 2) ** 0.5)

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the spring-damper touches."""
        return tuple(b for b in (self.bar_a, self.bar_b) if b is not None)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the spring-damper's runtime parameters ``[(name, value), ...]``."""
        out = [(("k",), self.k), (("l0",), self.l0), (("c",), self.c),
               (("sL_a",), self.s_a * bars[self.bar_a].length)]
        if self.bar_b is None:
            out += [(("x",), self.ground[0]), (("y",), self.ground[1])]
        else:
            out.append((("sL_b",), self.s_b * bars[self.bar_b].length))
        return out

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the spring-damper."""
        out = {("k",): [(f"k_{{{position}}}", 1)], ("l0",): [(f"\\ell_{{0,{position}}}", 1)],
               ("c",): [(f"c_{{{position}}}", 1)],
               ("sL_a",): [(f"s_{{a{position}}}", 1), (f"L_{self.bar_a}", 1)]}
        if self.bar_b is None:
            out[("x",)] = [(f"X_{{{position}}}", 1)]
            out[("y",)] = [(f"Y_{{{position}}}", 1)]
        else:
            out[("sL_b",)] = [(f"s_{{b{position}}}", 1), (f"L_{self.bar_b}", 1)]
        return out

    def topology(self) -> tuple:
        """Return the spring-damper's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar_a, self.bar_b)

    def reindexed(self, removed_bar: int) -> SpringDamper | None:
        """Return the spring-damper after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        c = self.copy()
        c.bar_a = shift_bar(self.bar_a, removed_bar)
        c.bar_b = None if self.bar_b is None else shift_bar(self.bar_b, removed_bar)
        return c

    def describe(self, position: int) -> str:
        """Return the spring-damper's line in the model summary."""
        b = (f"ground ({self.ground[0]:.4g}, {self.ground[1]:.4g})" if self.bar_b is None
             else f"bar {self.bar_b} at s = {self.s_b:g}")
        return (f"{self.name}: spring-damper from bar {self.bar_a} at s = {self.s_a:g} to {b}, "
                f"k = {self.k:g}, l0 = {self.l0:g}, c = {self.c:g}")

    # ------------------------------------------------------------------ equations
    def _geometry(self, ctx: RowContext):
        """Return the ends, their velocities and lever arms, the distance and its rate."""
        pa, va, ra = ctx.point_expr(self.bar_a, ctx.P("sL_a"))
        if self.bar_b is None:
            pb, vb, rb = (ctx.P("x"), ctx.P("y")), (0.0, 0.0), None
        else:
            pb, vb, rb = ctx.point_expr(self.bar_b, ctx.P("sL_b"))
        dx, dy = pb[0] - pa[0], pb[1] - pa[1]
        dvx, dvy = vb[0] - va[0], vb[1] - va[1]
        length = hy.sqrt(dx * dx + dy * dy)
        rate = (dx * dvx + dy * dvy) / length
        return dx, dy, ra, rb, length, rate

    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, Any]]:
        r"""Return the generalized forces of the tension :math:`f = k(\ell - \ell_0) + c\,\dot\ell`.

        The force :math:`f\,d/\ell` pulls point a towards b and its opposite point b towards a;
        each adds its moment about the bar's centre.
        """
        dx, dy, ra, rb, length, rate = self._geometry(ctx)
        g = (ctx.P("k") * (length - ctx.P("l0")) + ctx.P("c") * rate) / length  # f / ℓ
        fx, fy = g * dx, g * dy  # the force on point a; -(fx, fy) on point b
        out = [(3 * self.bar_a, fx), (3 * self.bar_a + 1, fy),
               (3 * self.bar_a + 2, ra[0] * fy - ra[1] * fx)]
        if self.bar_b is not None:
            b = self.bar_b
            out += [(3 * b, -fx), (3 * b + 1, -fy), (3 * b + 2, rb[1] * fx - rb[0] * fy)]
        return out

    def potential(self, ctx: RowContext) -> Any:
        r"""Return the spring's potential :math:`V = \tfrac12 k(\ell - \ell_0)^2`."""
        _, _, _, _, length, _ = self._geometry(ctx)
        stretch = length - ctx.P("l0")
        return 0.5 * ctx.P("k") * stretch * stretch

    def force_outputs(self, ctx: RowContext) -> list[tuple[str, Any]]:
        r"""Return the tension :math:`f = k(\ell - \ell_0) + c\,\dot\ell` along a motion."""
        _, _, _, _, length, rate = self._geometry(ctx)
        return [("tension", ctx.P("k") * (length - ctx.P("l0")) + ctx.P("c") * rate)]

    def dissipation(self, ctx: RowContext) -> Any:
        r"""Return the damper's dissipated power :math:`P_d = c\,\dot\ell^2`."""
        rate = self._geometry(ctx)[5]
        return ctx.P("c") * rate * rate

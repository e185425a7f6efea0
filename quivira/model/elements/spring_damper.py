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

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from ..validation import (
    bar_index,
    check_name,
    check_nonnegative,
    check_point,
    check_s,
    field,
    optional_bar,
)
from .base import Load, LoadContext, RowContext, shift_bar


@dataclass
class SpringDamper(Load):
    """A spring-damper from point ``s_a`` of ``bar_a`` to point ``s_b`` of ``bar_b``.

    ``bar_b`` None: the ground point ``ground``.
    """

    bar_a: int
    s_a: float
    bar_b: int | None
    s_b: float
    ground: tuple[float, float] | None
    k: float
    l0: float
    c: float
    name: str

    kind = "spring"
    collection = "springs"
    title = "spring"
    has_name = True
    dissipates = True
    elastic = True

    @classmethod
    def create(cls, bar_a: Any, s_a: Any, bar_b: Any, s_b: Any, ground: Any, k: Any,
               l0: Any, c: Any, name: str, bars: list) -> SpringDamper:
        """Build a validated spring (arguments as ``add_spring_damper``).

        ``l0`` None is the initial distance.
        """
        where = name
        a = bar_index(bar_a, len(bars), f"{where}: bar_a")
        sa = check_s(s_a, f"{where}: s_a")
        b = optional_bar(bar_b, len(bars), f"{where}: bar_b")
        sb = 0.0 if b is None else check_s(s_b, f"{where}: s_b")
        if b is None:
            if ground is None:
                raise ValueError(f"{where}: bar_b is None (ground): give ground_point=(x, y)")
            gp = check_point(ground, f"{where}: ground_point")
        else:
            if ground is not None:
                raise ValueError(f"{where}: a ground_point is given but bar_b = {b} is a bar; "
                                 "use bar_b=None for a spring to ground")
            if b == a:
                raise ValueError(f"{where}: both ends are on bar {a}; a spring joins two bars "
                                 "or a bar and ground")
            gp = None
        el = cls(a, sa, b, sb, gp, check_nonnegative(k, f"{where}: k"), 0.0,
                 check_nonnegative(c, f"{where}: c"), name)
        length = el.initial_length(bars)
        if length is None:
            raise ValueError(f"{where}: the bars have no initial pose yet; set the poses first "
                             "(the rest length defaults to the initial distance)")
        if length <= 1e-12 * max(1.0, *(b_.length for b_ in bars)):
            raise ValueError(f"{where}: the two ends coincide initially (distance {length:g}), so "
                             "the spring has no direction; attach it at distinct points")
        el.l0 = length if l0 is None else check_nonnegative(l0, f"{where}: l0")
        return el

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

    def with_values(self, k: Any = None, l0: Any = None, c: Any = None) -> SpringDamper:
        """Return a copy with new ``k``, ``l0`` or ``c`` (None keeps a value)."""
        el = self.copy()
        if k is not None:
            el.k = check_nonnegative(k, f"{self.name}: k")
        if l0 is not None:
            el.l0 = check_nonnegative(l0, f"{self.name}: l0")
        if c is not None:
            el.c = check_nonnegative(c, f"{self.name}: c")
        return el

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

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """Return the spring-damper as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar_a": self.bar_a, "s_a": self.s_a, "bar_b": self.bar_b,
                "s_b": self.s_b, "ground": None if self.ground is None else list(self.ground),
                "k": self.k, "l0": self.l0, "c": self.c}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> SpringDamper:
        """Build the spring from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        b = optional_bar(field(d, "bar_b", where), ctx.n_bars, f"{where}.bar_b")
        ground = field(d, "ground", where)
        if (b is None) != (ground is not None):
            raise ValueError(f"{where}: give either bar_b or a ground point, not both")
        return cls(bar_index(field(d, "bar_a", where), ctx.n_bars, f"{where}.bar_a"),
                   check_s(field(d, "s_a", where), f"{where}.s_a"), b,
                   check_s(field(d, "s_b", where), f"{where}.s_b"),
                   None if ground is None else check_point(ground, f"{where}.ground"),
                   check_nonnegative(field(d, "k", where), f"{where}.k"),
                   check_nonnegative(field(d, "l0", where), f"{where}.l0"),
                   check_nonnegative(field(d, "c", where), f"{where}.c"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))


r"""Rolling without slipping of a disc: on a ground line, and on (or inside) another disc.

:class:`RollingOnLine` — a disc of radius :math:`R` whose centre is the body point
:math:`c` rolls on the ground line through :math:`P` with direction
:math:`t = (\cos α, \sin α)` and normal :math:`n = (-\sin α, \cos α)` (the disc lies on the
side of :math:`+n`). Holonomic rows:

.. math:: n\cdot(c - P) - R = 0, \qquad t\cdot c + R\,θ - k = 0,

the second the integrated no-slip condition :math:`t\cdot\dot c = -R\dot θ`
(:math:`x + Rθ = \text{const}` on level ground), with :math:`k = t\cdot c_0 + Rθ_0` from the
initial pose. The multipliers are the **normal force** (along :math:`n`) and the **friction
force** (along :math:`t`) of the ground on the disc at the contact point :math:`c - Rn` (N).

:class:`RollingOnDisc` — disc b (radius :math:`R_b`, centre :math:`c_b`) rolls on the outside
of disc a (radius :math:`R_a`, centre :math:`c_a`), or inside it (``inside=True``, a ring);
disc a may be the ground (a fixed circle). With :math:`d = c_b - c_a` and
:math:`D = R_a + R_b` (outside) or :math:`R_a - R_b` (inside), the rows are

.. math:: \pm\frac{d\cdot d - D^2}{2D} = 0 \ (\text{+ outside}), \qquad
          g = \frac{d \times \dot d}{D} - R_a\dot θ_a \mp R_b\dot θ_b = 0,

the second at velocity level: the velocities of the two material points at the contact agree
(:math:`d\times\dot d/D = D\dot φ` with :math:`φ` the direction of :math:`d`, exact on the
first row). Its integral, :math:`Dφ - R_aθ_a \mp R_bθ_b`, would need :math:`φ =
\operatorname{atan2}(d_y, d_x)` with its jump at ±π; the velocity form is smooth everywhere.
The multipliers are the **normal force** on disc b (pushing it away from a's centre when
outside, toward it when inside) and the **friction force** on disc b along
:math:`e_\perp = (-d_y, d_x)/D` (N); disc a gets the opposite forces.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from .. import monomials as mo
from ..validation import check_positive
from . import fields
from .base import Constraint, Row, RowContext
from .body_points import (
    TwoBodies,
    body_of,
    check_ref,
    point_poly,
    point_velocity_poly,
    ref_text,
    resolve,
    shifted,
    world,
)
from .registry import register


def _radius(bars: list, body: int, radius: Any, what: str) -> float | None:
    """Validate the given radius, or return None to use the disc shape of the body."""
    if radius is not None:
        return check_positive(radius, what)
    if getattr(bars[body], "radius", None) is None:
        raise ValueError(f"{what}: body {body} is not a disc; give the radius (m) or create the "
                         "body with shape={'kind': 'disc', 'radius': R}")
    return None


def _current_radius(bars: list, body: int | None, radius: float | None) -> float:
    return radius if radius is not None else bars[body].radius


#: the doc of a point reference field
_REF = ("a point reference on the body: s along its axis, (u, v) in m in the body frame, or "
        "the name of an attachment point")


@register(rank=1300)
@dataclass
class RollingOnLine(Constraint):
    """A disc rolling without slipping on a ground line.

    Disc ``body`` (centre at its point ``centre``, radius ``radius`` or its disc shape's)
    rolls on the ground line through ``point`` at ``angle``; ``point`` None puts the line
    tangent to the disc in its initial pose.
    """

    body: int = fields.body("disc", "the rolling disc (a rigid body or a bar)")
    angle: float = fields.number("angle", "rad", "direction of the ground line from +x, the "
                                 "disc on its left (the reactions' directions: an edit "
                                 "recompiles)", topology=True, default=0.0)
    point: tuple[float, float] | None = fields.point(
        "line point", "m", "a point of the ground line (None: the line touching the disc in "
        "its initial pose)", optional=True, default=None)
    radius: float | None = fields.number("radius", "m", "the rolling radius (None: the "
                                         "radius of the body's disc shape)", positive=True,
                                         optional=True, differentiable=False, default=None)
    centre: Any = fields.data("centre", f"the disc's centre, {_REF}", topology=False,
                              editable=True, default=(0.0, 0.0))
    name: str | None = fields.name(default=None)

    kind = "rolling"
    collection = "rolling_contacts"
    title = "rolling contact"
    prefix = "rolling"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> RollingOnLine:
        """Return the contact checked against the bodies, ``point`` None set from the pose.

        The body rotates (not a particle), its centre point exists, its radius is given or
        it is a disc.
        """
        i = body_of(self.body, bodies, f"{where}: body", rotating=True, ground=False)
        c = check_ref(self.centre, f"{where}: centre")
        uv = resolve(bodies, i, c, f"{where}: centre")
        if self.radius is None:
            _radius(bodies, i, None, f"{where}: radius")
        point = self.point
        if point is None:
            if bodies[i].pose is None:
                raise ValueError(f"{where}: point: body {i} has no initial pose yet; set it "
                                 "first (the line touches the disc in its initial pose) or "
                                 "give the point")
            cx, cy = world(bodies, i, uv)
            r = _current_radius(bodies, i, self.radius)
            point = (cx + r * math.sin(self.angle), cy - r * math.cos(self.angle))
        return replace(self, centre=c, point=point)

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the rolling contact touches."""
        return (self.body,)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the rolling contact's runtime parameters ``[(name, value), ...]``."""
        u, v = resolve(bars, self.body, self.centre, f"{self.name}: centre")
        R = _current_radius(bars, self.body, self.radius)
        tx, ty = math.cos(self.angle), math.sin(self.angle)
        nx, ny = -ty, tx
        b = bars[self.body]
        if b.pose is None:
            k = 0.0
        else:
            cx, cy = b.world(u, v)
            k = tx * cx + ty * cy + R * b.pose[2]
        return [(("u",), u), (("v",), v), (("R",), R), (("tx",), tx), (("ty",), ty),
                (("nx",), nx), (("ny",), ny),
                (("d",), nx * self.point[0] + ny * self.point[1] + R), (("k",), k)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the rolling contact."""
        r = f"R{position}"
        return {("u",): [(f"u_{{{r}}}", 1)], ("v",): [(f"v_{{{r}}}", 1)],
                ("R",): [(f"R_{{{r}}}", 1)], ("tx",): [(f"t_{{x,{r}}}", 1)],
                ("ty",): [(f"t_{{y,{r}}}", 1)], ("nx",): [(f"n_{{x,{r}}}", 1)],
                ("ny",): [(f"n_{{y,{r}}}", 1)], ("d",): [(f"d_{{{r}}}", 1)],
                ("k",): [(f"k_{{{r}}}", 1)]}

    def topology(self) -> tuple:
        """Return the rolling contact's part of the topology key (connectivity, never values)."""
        return (self.name, self.body, self.angle)  # the reactions' directions depend on it

    def reindexed(self, removed_bar: int) -> RollingOnLine | None:
        """Return the rolling contact after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar == self.body:
            return None
        c = self.copy()
        c.body = shifted(self.body, removed_bar)
        return c

    def describe(self, position: int) -> str:
        """Return the rolling contact's line in the model summary."""
        r = "its disc radius" if self.radius is None else f"radius {self.radius:g}"
        return (f"{self.name}: {ref_text(self.body, self.centre)} ({r}) rolls on the ground "
                f"line through ({self.point[0]:.4g}, {self.point[1]:.4g}) at {self.angle:.4g} "
                "rad")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the normal and the rolling row of the disc centre :math:`c`.

        Normal: :math:`n \cdot c - d = 0` (the centre at the radius from the line); rolling
        without slipping: :math:`t \cdot c + Rθ - k = 0`.
        """
        i, u, v = self.body, ctx.par("u"), ctx.par("v")
        cx, cy = point_poly(ctx, i, u, v, 0), point_poly(ctx, i, u, v, 1)
        normal = mo.add(mo.mul(cx, mo.constant(1.0, ctx.par("nx"))),
                        mo.mul(cy, mo.constant(1.0, ctx.par("ny"))),
                        mo.constant(-1.0, ctx.par("d")))
        roll = mo.add(mo.mul(cx, mo.constant(1.0, ctx.par("tx"))),
                      mo.mul(cy, mo.constant(1.0, ctx.par("ty"))),
                      mo.monomial((ctx.q(3 * i + 2),), 1.0, ctx.par("R")),
                      mo.constant(-1.0, ctx.par("k")))
        return [Row(normal, f"{self.name}.normal", i, "normal"),
                Row(roll, f"{self.name}.friction", i, "friction")]

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the rolling contact's multipliers act as forces on the bars."""
        tx, ty = math.cos(self.angle), math.sin(self.angle)
        out = []
        for col, row in rows:
            dx, dy = (-ty, tx) if row.axis == "normal" else (tx, ty)
            out += [((self.kind, position, self.body), col, 0, dx),
                    ((self.kind, position, self.body), col, 1, dy)]
        return out


@register(rank=1400)
@dataclass
class RollingOnDisc(TwoBodies, Constraint):
    """Disc ``body_b`` rolling without slipping on disc ``body_a``.

    ``body_a`` None: a fixed ground circle centred at ``centre_a`` (give ``radius_a`` and
    ``centre_a``); outside it or, with ``inside``, inside it.
    """

    body_a: int | None = fields.body("disc a", "the disc rolled on (None: a fixed ground "
                                     "circle)", ground=True)
    body_b: int = fields.body("disc b", "the rolling disc")
    radius_a: float | None = fields.number("radius a", "m", "radius of disc a (None: its "
                                           "disc shape's)", positive=True, optional=True,
                                           differentiable=False, default=None)
    radius_b: float | None = fields.number("radius b", "m", "radius of disc b (None: its "
                                           "disc shape's)", positive=True, optional=True,
                                           differentiable=False, default=None)
    inside: bool = fields.flag("inside", "disc b rolls inside disc a (a ring)", topology=True,
                               default=False)
    centre_a: Any = fields.data("centre a", f"the centre of disc a, {_REF} (the ground "
                                "circle's: its centre (x, y) in m; None: the mass centre)",
                                topology=False, editable=True, default=None)
    centre_b: Any = fields.data("centre b", f"the centre of disc b, {_REF} (None: the mass "
                                "centre)", topology=False, editable=True, default=None)
    name: str | None = fields.name(default=None)

    kind = "disc_rolling"
    collection = "disc_rolling_contacts"
    title = "disc rolling contact"
    prefix = "disc"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> RollingOnDisc:
        """Return the contact checked against the bodies, centres None set to ``(0, 0)``.

        Two different rotating bodies (or the ground and one), known centres, radii given
        or disc shapes, a ground circle with its radius and centre, and disc b smaller than
        the ring it rolls inside.
        """
        a = body_of(self.body_a, bodies, f"{where}: body_a", rotating=True)
        b = body_of(self.body_b, bodies, f"{where}: body_b", rotating=True, ground=False)
        if a == b:
            raise ValueError(f"{where}: body_a and body_b are the same body ({b})")
        if a is None:
            if self.radius_a is None:
                raise ValueError(f"{where}: give radius_a, the radius of the ground circle (m)")
            if self.centre_a is None:
                raise ValueError(f"{where}: give centre_a, the ground circle's centre (x, y)")
        else:
            _radius(bodies, a, self.radius_a, f"{where}: radius_a")
        _radius(bodies, b, self.radius_b, f"{where}: radius_b")
        ca = check_ref((0.0, 0.0) if self.centre_a is None else self.centre_a,
                       f"{where}: centre_a")
        cb = check_ref((0.0, 0.0) if self.centre_b is None else self.centre_b,
                       f"{where}: centre_b")
        resolve(bodies, a, ca, f"{where}: centre_a")
        resolve(bodies, b, cb, f"{where}: centre_b")
        el = replace(self, centre_a=ca, centre_b=cb)
        Ra, Rb = el.radii(bodies)
        if self.inside and Ra <= Rb:
            raise ValueError(f"{where}: disc b (radius {Rb:g}) must be smaller than the ring "
                             f"it rolls inside (radius {Ra:g})")
        return el

    def radii(self, bars: list) -> tuple[float, float]:
        """Return the current radii ``(R_a, R_b)`` (m)."""
        return (_current_radius(bars, self.body_a, self.radius_a),
                _current_radius(bars, self.body_b, self.radius_b))

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the rolling contact's runtime parameters ``[(name, value), ...]``."""
        ua, va = resolve(bars, self.body_a, self.centre_a, f"{self.name}: centre_a")
        ub, vb = resolve(bars, self.body_b, self.centre_b, f"{self.name}: centre_b")
        Ra, Rb = self.radii(bars)
        D = Ra - Rb if self.inside else Ra + Rb
        if D <= 0.0:
            raise ValueError(f"{self.name}: disc b (radius {Rb:g}) must be smaller than the "
                             f"ring it rolls inside (radius {Ra:g})")
        sign = -1.0 if self.inside else 1.0
        return [(("ua",), ua), (("va",), va), (("ub",), ub), (("vb",), vb),
                (("sign_inv_2D",), sign * 0.5 / D), (("sign_half_D",), sign * 0.5 * D),
                (("inv_D",), 1.0 / D), (("Ra",), Ra), (("Rb_signed",), sign * Rb)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the rolling contact."""
        r = f"C{position}"
        return {("ua",): [(f"u_{{a,{r}}}", 1)], ("va",): [(f"v_{{a,{r}}}", 1)],
                ("ub",): [(f"u_{{b,{r}}}", 1)], ("vb",): [(f"v_{{b,{r}}}", 1)],
                ("sign_inv_2D",): [(f"2D_{{{r}}}", -1)], ("sign_half_D",): [(f"D_{{{r}}}/2", 1)],
                ("inv_D",): [(f"D_{{{r}}}", -1)], ("Ra",): [(f"R_{{a,{r}}}", 1)],
                ("Rb_signed",): [(f"R_{{b,{r}}}", 1)]}

    def topology(self) -> tuple:
        """Return the rolling contact's part of the topology key (connectivity, never values)."""
        return (self.name, self.body_a, self.body_b, self.inside)

    def describe(self, position: int) -> str:
        """Return the rolling contact's line in the model summary."""
        where = "inside" if self.inside else "on"
        a = (f"the ground circle at ({self.centre_a[0]:.4g}, {self.centre_a[1]:.4g})"
             if self.body_a is None else f"disc {ref_text(self.body_a, self.centre_a)}")
        return f"{self.name}: disc {ref_text(self.body_b, self.centre_b)} rolls {where} {a}"

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the normal row and the rolling (velocity) row of the two discs.

        With :math:`d = c_b - c_a` and :math:`D = R_a \pm R_b`: :math:`\pm(|d|^2/(2D) - D/2) = 0`
        keeps the centres at distance :math:`D`; :math:`(d \times \dot d)/D - R_b^\pm\dot θ_b -
        R_a\dot θ_a = 0` is rolling without slipping (signed radius :math:`R_b^\pm`).
        """
        a, b = self.body_a, self.body_b
        ua, va, ub, vb = (ctx.par(k) for k in ("ua", "va", "ub", "vb"))
        d = [mo.add(point_poly(ctx, b, ub, vb, ax), point_poly(ctx, a, ua, va, ax, -1.0))
             for ax in (0, 1)]
        dd = [mo.add(point_velocity_poly(ctx, b, ub, vb, ax),
                     point_velocity_poly(ctx, a, ua, va, ax, -1.0)) for ax in (0, 1)]
        normal = mo.add(mo.mul(mo.add(mo.mul(d[0], d[0]), mo.mul(d[1], d[1])),
                               mo.constant(1.0, ctx.par("sign_inv_2D"))),
                        mo.constant(-1.0, ctx.par("sign_half_D")))
        cross = mo.add(mo.mul(d[0], dd[1]), mo.scale(mo.mul(d[1], dd[0]), -1.0))
        terms = [mo.mul(cross, mo.constant(1.0, ctx.par("inv_D"))),
                 mo.monomial((ctx.v(3 * b + 2),), -1.0, ctx.par("Rb_signed"))]
        if a is not None:
            terms.append(mo.monomial((ctx.v(3 * a + 2),), -1.0, ctx.par("Ra")))
        roll = mo.add(*terms)
        return [Row(normal, f"{self.name}.normal", b, "normal"),
                Row(roll, f"{self.name}.friction", b, "friction", velocity=True)]

    def group(self) -> dict:
        """Return the rolling contact's data recorded on trajectories (named constraints)."""
        return {"velocity_level": False}

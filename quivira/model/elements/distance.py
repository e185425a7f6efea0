r"""Distance constraint: a massless rigid link between two points of bodies (or the ground).

With :math:`d = p_b - p_a` the vector between the points (body-frame points, see
:mod:`.body_points`) and :math:`\ell` the link's length, the row is

.. math:: F = \frac{\ell^2 - d\cdot d}{2\ell} = 0,

scaled so that its multiplier is the link's **tension** :math:`T` (N): the link pulls point b
toward a with the force :math:`-T\,d/\ell` (and a toward b with :math:`+T\,d/\ell`);
:math:`T < 0` is compression. Same constraint as Exudyn's ``ObjectConnectorDistance``.
Parameters (runtime): the points' :math:`(u, v)`, :math:`1/(2\ell)` and :math:`\ell/2`. The
row is labelled ``"<name>.tension"``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from .. import monomials as mo
from ..validation import check_positive
from . import fields
from .base import Constraint, Row, RowContext
from .body_points import TwoBodies, check_ref, point_poly, point_ref, ref_text, resolve, world
from .registry import register


@register(rank=1100)
@dataclass
class Distance(TwoBodies, Constraint):
    """The points ``point_a`` of ``body_a`` and ``point_b`` of ``body_b`` at a fixed distance.

    None: ground, the point then a ground position; the distance is ``length`` (m; None: the
    initial distance of the points). The points and the length are runtime parameters.
    """

    body_a: int | None = fields.body("body a", "the first body (None: the ground)",
                                     ground=True)
    point_a: Any = point_ref("point on a", "a point reference on body a: s, (u, v) in m or an "
                             "attachment point's name; a ground position for the ground")
    body_b: int | None = fields.body("body b", "the second body (None: the ground)",
                                     ground=True)
    point_b: Any = point_ref("point on b", "a point reference on body b: s, (u, v) in m or an "
                             "attachment point's name; a ground position for the ground")
    length: float | None = fields.number(
        "length", "m", "the link's length (None: the initial distance of the points)",
        positive=True, optional=True, differentiable=False, default=None)
    name: str | None = fields.name(default=None)

    kind = "distance"
    collection = "distances"
    title = "distance"
    prefix = "distance"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> Distance:
        """Return the link checked; ``length`` None becomes the initial distance of the points."""
        a, b = self.body_a, self.body_b
        if a is None and b is None:
            raise ValueError(f"{where}: body_a and body_b are both the ground (None), so the "
                             "link constrains nothing; give at least one body")
        self.check_pair(bodies, where)
        ra = check_ref(self.point_a, f"{where}.point_a")
        rb = check_ref(self.point_b, f"{where}.point_b")
        uva = resolve(bodies, a, ra, f"{where}.point_a")
        uvb = resolve(bodies, b, rb, f"{where}.point_b")
        length = self.length
        if length is None:
            pa, pb = world(bodies, a, uva), world(bodies, b, uvb)
            length = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
            if length <= 0.0:
                raise ValueError(f"{where}.length: the points coincide in the initial pose; "
                                 "give the length (a link of length 0 is a pin joint)")
            length = check_positive(length, f"{where}.length")
        return replace(self, point_a=ra, point_b=rb, length=length)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the distance link's runtime parameters ``[(name, value), ...]``."""
        ua, va = resolve(bars, self.body_a, self.point_a, f"{self.name}: point_a")
        ub, vb = resolve(bars, self.body_b, self.point_b, f"{self.name}: point_b")
        return [(("ua",), ua), (("va",), va), (("ub",), ub), (("vb",), vb),
                (("inv_2l",), 0.5 / self.length), (("half_l",), 0.5 * self.length)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the distance link."""
        d = f"D{position}"
        return {("ua",): [(f"u_{{a,{d}}}", 1)], ("va",): [(f"v_{{a,{d}}}", 1)],
                ("ub",): [(f"u_{{b,{d}}}", 1)], ("vb",): [(f"v_{{b,{d}}}", 1)],
                ("inv_2l",): [(f"2\\ell_{{{d}}}", -1)], ("half_l",): [(f"\\ell_{{{d}}}/2", 1)]}

    def describe(self, position: int) -> str:
        """Return the distance link's line in the model summary."""
        return (f"constraint {self.name!r}: distance {self.length:g} between "
                f"{ref_text(self.body_a, self.point_a)} and "
                f"{ref_text(self.body_b, self.point_b)}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`\ell/2 - |p_b - p_a|^2/(2\ell) = 0`.

        Scaled so that its multiplier is the tension (N).
        """
        ua, va, ub, vb = (ctx.par(k) for k in ("ua", "va", "ub", "vb"))
        dd = []
        for axis in (0, 1):
            d = mo.add(point_poly(ctx, self.body_b, ub, vb, axis),
                       point_poly(ctx, self.body_a, ua, va, axis, -1.0))
            dd.append(mo.mul(d, d))
        F = mo.add(mo.mul(mo.add(*dd), mo.constant(-1.0, ctx.par("inv_2l"))),
                   mo.constant(1.0, ctx.par("half_l")))
        owner = self.body_b if self.body_b is not None else self.body_a
        return [Row(F, f"{self.name}.tension", owner, "tension")]

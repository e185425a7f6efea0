r"""Distance constraint: a massless rigid link between two points of bodies (or the ground).

With :math:`d = p_b - p_a` the vector between the points (body-frame points, see
:mod:`.body_points`) and :math:`\ell` the link's length, the row is

.. math:: F = \frac{\ell^2 - d\cdot d}{2\ell} = 0,

scaled so that its multiplier is the link's **tension** :math:`T` (N): the link pulls point b
toward a with the force :math:`-T\,d/\ell` (and a toward b with :math:`+T\,d/\ell`);
:math:`T < 0` is compression. Same constraint as Exudyn's ``ObjectConnectorDistance``.
Parameters (runtime): the points' :math:`(u, v)`, :math:`1/(2\ell)` and :math:`\ell/2`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from ..validation import check_name, check_positive, field, optional_bar
from .base import Constraint, LoadContext, Row, RowContext
from .body_points import TwoBodies, body_of, check_ref, point_poly, ref_text, resolve, world


@dataclass
class Distance(TwoBodies, Constraint):
    """The points ``point_a`` of ``body_a`` and ``point_b`` of ``body_b`` at a fixed distance.

    None: ground, the point then a ground position; the distance is ``length`` (m).
    """

    body_a: int | None
    point_a: Any
    body_b: int | None
    point_b: Any
    length: float
    name: str

    kind = "distance"
    collection = "distances"
    title = "distance"
    named = True
    has_name = True

    @classmethod
    def create(cls, body_a: Any, point_a: Any, body_b: Any, point_b: Any, length: Any,
               name: str, bars: list) -> Distance:
        """Build a validated link; ``length`` None is the initial distance of the points."""
        a = body_of(body_a, bars, f"{name}: body_a")
        b = body_of(body_b, bars, f"{name}: body_b")
        if a is None and b is None:
            raise ValueError(f"{name}: a link between two ground points constrains nothing; "
                             "give at least one body")
        ra, rb = check_ref(point_a, f"{name}: point_a"), check_ref(point_b, f"{name}: point_b")
        uva = resolve(bars, a, ra, f"{name}: point_a")
        uvb = resolve(bars, b, rb, f"{name}: point_b")
        if length is None:
            pa, pb = world(bars, a, uva), world(bars, b, uvb)
            length = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
            if length <= 0.0:
                raise ValueError(f"{name}: the points coincide in the initial pose; give the "
                                 "length (a link of length 0 is a pin joint)")
        return cls(a, ra, b, rb, check_positive(length, f"{name}: length"), name)


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
        return [Row(F, f"{self.name} · tension", owner, "tension")]

    def to_dict(self) -> dict:
        """Return the distance link as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "body_a": self.body_a, "point_a": self.point_a,
                "body_b": self.body_b, "point_b": self.point_b, "length": self.length}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Distance:
        """Build the link from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "body_a", where), ctx.n_bars, f"{where}.body_a")
        b = optional_bar(field(d, "body_b", where), ctx.n_bars, f"{where}.body_b")
        if a is None and b is None:
            raise ValueError(f"{where}: a link needs at least one body")
        return cls(a, check_ref(field(d, "point_a", where), f"{where}.point_a"), b,
                   check_ref(field(d, "point_b", where), f"{where}.point_b"),
                   check_positive(field(d, "length", where), f"{where}.length"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

    def check_bodies(self, bars: list, where: str) -> None:
        """After loading: the point references must exist on their bodies."""
        resolve(bars, self.body_a, self.point_a, f"{where}.point_a")
        resolve(bars, self.body_b, self.point_b, f"{where}.point_b")

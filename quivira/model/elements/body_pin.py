r"""A pin joint between any two body points (or a body point and a ground point).

The points are body-frame points (see :mod:`.body_points`): a local coordinate ``s`` on the
body's axis, a pair :math:`(u, v)` relative to the mass centre, or the name of an attachment
point of a rigid body. The rows are

.. math:: p_b - p_a = 0 \quad (x \text{ and } y),

and their multipliers the force (N) on body b along x and y (its opposite on body a). This is
:class:`~.pin_joint.PinJoint` for points off a body's axis, as the bodies of Andrews'
mechanism need (IFToMM A03). Parameters (runtime): the points' :math:`(u, v)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..validation import check_name, field, optional_bar
from .base import Constraint, LoadContext, Row, RowContext
from .body_points import TwoBodies, body_of, check_ref, coincidence_rows, ref_text, resolve, world


@dataclass
class BodyPin(TwoBodies, Constraint):
    """The point ``point_a`` of ``body_a`` pinned to the point ``point_b`` of ``body_b``.

    None: the ground, the point then a ground position.
    """

    body_a: int | None
    point_a: Any
    body_b: int
    point_b: Any
    name: str

    kind = "body_pin"
    collection = "body_pins"
    title = "pin"
    named = True
    has_name = True

    @classmethod
    def create(cls, body_a: Any, point_a: Any, body_b: Any, point_b: Any, name: str,
               bars: list, tolerance: float) -> BodyPin:
        """Build a validated pin; the two points must coincide in the initial pose.

        Within ``tolerance`` times the model's length scale.
        """
        a = body_of(body_a, bars, f"{name}: body_a")
        b = body_of(body_b, bars, f"{name}: body_b", ground=False)
        if a == b:
            raise ValueError(f"{name}: body_a and body_b are the same body ({b})")
        ra, rb = check_ref(point_a, f"{name}: point_a"), check_ref(point_b, f"{name}: point_b")
        pa = world(bars, a, resolve(bars, a, ra, f"{name}: point_a"))
        pb = world(bars, b, resolve(bars, b, rb, f"{name}: point_b"))
        gap = max(abs(pa[0] - pb[0]), abs(pa[1] - pb[1]))
        scale = max([1.0] + [abs(c) for bar in bars if bar.pose for c in bar.pose[:2]])
        if gap > tolerance * scale:
            raise ValueError(f"{name}: the two points are {gap:.3g} m apart in the initial "
                             "pose; move the bodies so that they coincide, or call "
                             "model.assemble() after adding the pin")
        return cls(a, ra, b, rb, name)


    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the pin's runtime parameters ``[(name, value), ...]``."""
        ua, va = resolve(bars, self.body_a, self.point_a, f"{self.name}: point_a")
        ub, vb = resolve(bars, self.body_b, self.point_b, f"{self.name}: point_b")
        return [(("ua",), ua), (("va",), va), (("ub",), ub), (("vb",), vb)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the pin."""
        p = f"P{position}"
        return {("ua",): [(f"u_{{a,{p}}}", 1)], ("va",): [(f"v_{{a,{p}}}", 1)],
                ("ub",): [(f"u_{{b,{p}}}", 1)], ("vb",): [(f"v_{{b,{p}}}", 1)]}



    def describe(self, position: int) -> str:
        """Return the pin's line in the model summary."""
        return (f"constraint {self.name!r}: pin of {ref_text(self.body_a, self.point_a)} and "
                f"{ref_text(self.body_b, self.point_b)}")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the rows :math:`p_b - p_a = 0` (x, y): the two points coincide."""
        return coincidence_rows(ctx, self.body_a, self.body_b, self.name)

    def to_dict(self) -> dict:
        """Return the pin as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "body_a": self.body_a, "point_a": self.point_a,
                "body_b": self.body_b, "point_b": self.point_b}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> BodyPin:
        """Build the pin from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "body_a", where), ctx.n_bars, f"{where}.body_a")
        b = optional_bar(field(d, "body_b", where), ctx.n_bars, f"{where}.body_b")
        if b is None:
            raise ValueError(f"{where}.body_b: a pin needs a body (not the ground) as body_b")
        if a == b:
            raise ValueError(f"{where}: body_a and body_b are the same body")
        return cls(a, check_ref(field(d, "point_a", where), f"{where}.point_a"), b,
                   check_ref(field(d, "point_b", where), f"{where}.point_b"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

    def check_bodies(self, bars: list, where: str) -> None:
        """After loading: the point references must exist on their bodies."""
        resolve(bars, self.body_a, self.point_a, f"{where}.point_a")
        resolve(bars, self.body_b, self.point_b, f"{where}.point_b")

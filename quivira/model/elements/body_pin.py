r"""A pin joint between any two body points (or a body point and a ground point).

The points are body-frame points (see :mod:`.body_points`): a local coordinate ``s`` on the
body's axis, a pair :math:`(u, v)` relative to the mass centre, or the name of an attachment
point of a rigid body. The rows are

.. math:: p_b - p_a = 0 \quad (x \text{ and } y),

and their multipliers the force (N) on body b along x and y (its opposite on body a). This is
:class:`~.pin_joint.PinJoint` for points off a body's axis, as the bodies of Andrews'
mechanism need (IFToMM A03). Parameters (runtime): the points' :math:`(u, v)`. The rows are
labelled ``"<name>.x"`` and ``"<name>.y"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from . import fields
from .base import Constraint, Row, RowContext
from .body_points import TwoBodies, check_ref, coincidence_rows, point_ref, ref_text, resolve, world
from .registry import register


@register(rank=1200)
@dataclass
class BodyPin(TwoBodies, Constraint):
    """The point ``point_a`` of ``body_a`` pinned to the point ``point_b`` of ``body_b``.

    None: the ground, the point then a ground position. The points are runtime parameters.
    They need not coincide in the initial pose (``model.assemble()`` moves the bodies
    together; a simulation refuses to start off the constraints): see :meth:`gap`.
    """

    body_a: int | None = fields.body("body a", "the first body (None: the ground)",
                                     ground=True)
    point_a: Any = point_ref("point on a", "a point reference on body a: s, (u, v) in m or an "
                             "attachment point's name; a ground position for the ground")
    body_b: int = fields.body("body b", "the second body")
    point_b: Any = point_ref("point on b", "a point reference on body b: s, (u, v) in m or an "
                             "attachment point's name")
    name: str | None = fields.name(default=None)

    kind = "body_pin"
    collection = "body_pins"
    title = "pin"
    prefix = "pin"
    named = True
    has_name = True

    def check(self, bodies: list, where: str) -> BodyPin:
        """Return the pin with its point references checked against its bodies."""
        self.check_pair(bodies, where)
        ra = check_ref(self.point_a, f"{where}.point_a")
        rb = check_ref(self.point_b, f"{where}.point_b")
        resolve(bodies, self.body_a, ra, f"{where}.point_a")
        resolve(bodies, self.body_b, rb, f"{where}.point_b")
        return replace(self, point_a=ra, point_b=rb)

    def gap(self, bodies: list) -> float:
        """Return how far apart (m, the larger of x and y) the two points are in the initial pose.

        ``bodies`` are the model's bodies, posed (ValueError naming a body without a pose).
        """
        pa = world(bodies, self.body_a, resolve(bodies, self.body_a, self.point_a, "point_a"))
        pb = world(bodies, self.body_b, resolve(bodies, self.body_b, self.point_b, "point_b"))
        return max(abs(pa[0] - pb[0]), abs(pa[1] - pb[1]))

    def check_coincident(self, bodies: list, tolerance: float, where: str) -> None:
        """Raise ValueError if the points are apart in the initial pose (beyond ``tolerance``).

        ``tolerance`` is relative to the largest body position (at least 1 m); ``where``
        names the pin in the message.
        """
        gap = self.checked(bodies, where).gap(bodies)
        scale = max([1.0] + [abs(c) for bar in bodies if bar.pose for c in bar.pose[:2]])
        if gap > tolerance * scale:
            raise ValueError(f"{where}: the two points are {gap:.3g} m apart in the initial "
                             "pose; move the bodies so that they coincide, or call "
                             "model.assemble() after adding the pin")

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

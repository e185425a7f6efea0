r"""Support: a point of a bar held at a ground position in x, in y, or both.

A pin support fixes both directions, a roller one (``free_x`` or ``free_y`` True leaves that
direction free). Rows, for each fixed direction,

.. math:: p_x(s) - X = 0, \qquad p_y(s) - Y = 0,

with :math:`p(s) = (x_i, y_i) + sL_i(\cos θ_i, \sin θ_i)`. The multiplier of a row is the
force component the support exerts on the bar (global frame, newtons for SI data).
Parameters: ``sL``, ``x`` (:math:`X`), ``y`` (:math:`Y`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import monomials as mo
from . import fields
from .base import Constraint, OnOneBar, Row, RowContext
from .registry import register


@register(rank=300)
@dataclass
class Support(OnOneBar, Constraint):
    """A support of the point ``s`` of a bar at ``(x, y)``.

    ``free_x``/``free_y`` True means a roller free in that direction; ``x``/``y`` None is the
    point's initial position.
    """

    bar: int = fields.body("bar", "the supported bar")
    s: float = fields.local("s", "the supported point")
    free_x: bool = fields.flag("free in x", "a roller free in x", topology=True,
                               default=False)
    free_y: bool = fields.flag("free in y", "a roller free in y", topology=True,
                               default=False)
    x: float | None = fields.number("x", "m", "the ground position's x (None: where the "
                                    "point is)", optional=True, default=None)
    y: float | None = fields.number("y", "m", "the ground position's y (None: where the "
                                    "point is)", optional=True, default=None)
    name: str | None = fields.name(default=None)

    kind = "support"
    collection = "supports"
    title = "support"
    prefix = "support"
    has_name = True
    named_since = 3

    def check(self, bodies: list, where: str) -> Support:
        """Return the support checked across fields, ``x``/``y`` None set from the pose."""
        if self.free_x and self.free_y:
            raise ValueError(f"{where}: free_x and free_y are both True, so it would "
                             "constrain nothing; fix at least one direction")
        if self.x is not None and self.y is not None:
            return self
        b = bodies[self.bar]
        if b.pose is None:
            raise ValueError(
                f"{where}: default position: bar {self.bar} has no initial pose yet; call "
                f"set_init_bar_attitude({self.bar}, x0, y0, theta0) first")
        px, py = b.point(self.s)
        return replace(self, x=px if self.x is None else self.x,
                       y=py if self.y is None else self.y)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the support's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s * bars[self.bar].length), (("x",), self.x), (("y",), self.y)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the support."""
        return {("sL",): [(f"s_{{S{position}}}", 1), (f"L_{self.bar}", 1)],
                ("x",): [(f"X_{{S{position}}}", 1)], ("y",): [(f"Y_{{S{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the support's part of the topology key (connectivity, never values)."""
        return (self.bar, self.free_x, self.free_y)

    def describe(self, position: int) -> str:
        """Return the support's line in the model summary."""
        kind = "pin" if not (self.free_x or self.free_y) else (
            "roller, free in x" if self.free_x else "roller, free in y")
        return (f"{self.name}: {kind}, bar {self.bar} at s = {self.s:g}, "
                f"at ({self.x:.4g}, {self.y:.4g})")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the rows :math:`x_p - x_s = 0`, :math:`y_p - y_s = 0` of the fixed directions."""
        out = []
        for axis, free, name in ((0, self.free_x, "x"), (1, self.free_y, "y")):
            if not free:
                F = mo.add(ctx.point(self.bar, ctx.par("sL"), axis),
                           mo.constant(-1.0, ctx.par(name)))
                out.append(Row(F, f"{self.name}.{name}", self.bar, name))
        return out

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the support's multipliers act as forces on the bars."""
        return [(("support", position, self.bar), col, 0 if row.axis == "x" else 1, 1.0)
                for col, row in rows]

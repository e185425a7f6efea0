r"""Support: a point of a bar held at a ground position in x, in y, or both.

A pin support fixes both directions, a roller one (``free_x`` or ``free_y`` True leaves that
direction free). Rows, for each fixed direction,

.. math:: p_x(s) - X = 0, \qquad p_y(s) - Y = 0,

with :math:`p(s) = (x_i, y_i) + sL_i(\cos θ_i, \sin θ_i)`. The multiplier of a row is the
force component the support exerts on the bar (global frame, newtons for SI data).
Parameters: ``sL``, ``x`` (:math:`X`), ``y`` (:math:`Y`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from ..validation import bar_index, check_flag, check_real, check_s, field
from .base import Constraint, LoadContext, OnOneBar, Row, RowContext


@dataclass
class Support(OnOneBar, Constraint):
    """A support of the point ``s`` of a bar at ``(x, y)``.

    ``free_x``/``free_y`` True means a roller free in that direction.
    """

    bar: int
    s: float
    free_x: bool
    free_y: bool
    x: float
    y: float

    kind = "support"
    collection = "supports"
    title = "support"

    @classmethod
    def create(cls, bar: Any, s: Any, dof_in_x: Any, dof_in_y: Any, x: Any, y: Any,
               bars: list, position: int) -> Support:
        """Build a validated support; ``x``/``y`` None default to the point's initial position."""
        where = f"support {position}"
        i = bar_index(bar, len(bars), f"{where}: bar_index")
        sv = check_s(s, f"{where}: s")
        fx = check_flag(dof_in_x, f"{where}: dof_in_x")
        fy = check_flag(dof_in_y, f"{where}: dof_in_y")
        if fx and fy:
            raise ValueError(f"{where}: dof_in_x and dof_in_y are both True, so it would "
                             "constrain nothing; fix at least one direction")
        if x is None or y is None:
            b = bars[i]
            if b.pose is None:
                raise ValueError(
                    f"{where}: default position: bar {i} has no initial pose yet; call "
                    f"set_init_bar_attitude({i}, x0, y0, theta0) first")
            px, py = b.point(sv)
            x = px if x is None else x
            y = py if y is None else y
        return cls(i, sv, fx, fy, check_real(x, f"{where}: x"), check_real(y, f"{where}: y"))

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
        return (f"support {position}: {kind}, bar {self.bar} at s = {self.s:g}, "
                f"at ({self.x:.4g}, {self.y:.4g})")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the rows :math:`x_p - x_s = 0`, :math:`y_p - y_s = 0` of the fixed directions."""
        out = []
        for axis, free, name in ((0, self.free_x, "x"), (1, self.free_y, "y")):
            if not free:
                F = mo.add(ctx.point(self.bar, ctx.par("sL"), axis),
                           mo.constant(-1.0, ctx.par(name)))
                out.append(Row(F, f"support {ctx.position} · {name}", self.bar, name))
        return out

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the support's multipliers act as forces on the bars."""
        return [(("support", position, self.bar), col, 0 if row.axis == "x" else 1, 1.0)
                for col, row in rows]

    def to_dict(self) -> dict:
        """Return the support as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"bar": self.bar, "s": self.s, "free_x": self.free_x, "free_y": self.free_y,
                "x": self.x, "y": self.y}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Support:
        """Build the support from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        fx = check_flag(field(d, "free_x", where), f"{where}.free_x")
        fy = check_flag(field(d, "free_y", where), f"{where}.free_y")
        if fx and fy:
            raise ValueError(f"{where}: free_x and free_y are both true (constrains nothing)")
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"), fx, fy,
                   check_real(field(d, "x", where), f"{where}.x"),
                   check_real(field(d, "y", where), f"{where}.y"))

r"""Weld: two bodies (or a body and the ground) rigidly connected.

With the weld point given in both body frames, :math:`(u_a, v_a)` on body a and
:math:`(u_b, v_b)` on body b, and the locked relative angle :math:`φ_0`, the rows are

.. math:: p_b(u_b, v_b) - p_a(u_a, v_a) = 0 \quad (x, y), \qquad
          θ_b - θ_a - φ_0 = 0,

(:math:`θ_a = 0` and :math:`p_a` a fixed point for the ground). The multipliers
:math:`(\lambda_x, \lambda_y)` are the force the weld exerts on body b at the weld point
(global frame, N), :math:`-(\lambda_x, \lambda_y)` the force on body a, and
:math:`\lambda_θ` the torque on body b about the weld point (N·m; its opposite on a).
Parameters (runtime): :math:`u_a, v_a, u_b, v_b, φ_0`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .. import monomials as mo
from ..validation import bar_index, check_name, check_point, check_real, field, optional_bar
from .base import Constraint, LoadContext, Row, RowContext
from .body_points import TwoBodies, angle_poly, body_of, coincidence_rows


@dataclass
class Weld(TwoBodies, Constraint):
    """Bodies ``body_a`` (None: ground) and ``body_b`` welded together.

    At the point given in each frame (``point_a``, ``point_b``: body-frame ``(u, v)`` in m),
    relative angle ``phi0``.
    """

    body_a: int | None
    body_b: int
    point_a: tuple[float, float]
    point_b: tuple[float, float]
    phi0: float
    name: str

    kind = "weld"
    collection = "welds"
    title = "weld"
    named = True
    has_name = True

    @classmethod
    def create(cls, body_a: Any, body_b: Any, at: Any, name: str, bars: list) -> Weld:
        """Build a validated weld of the bodies as they are posed now, at the global point ``at``.

        The default point is body b's mass centre.
        """
        a = body_of(body_a, bars, f"{name}: body_a", rotating=True)
        b = body_of(body_b, bars, f"{name}: body_b", rotating=True, ground=False)
        if a == b:
            raise ValueError(f"{name}: body_a and body_b are the same body ({b})")
        for i in (a, b):
            if i is not None and bars[i].pose is None:
                raise ValueError(f"{name}: body {i} has no initial pose yet; set it first (the "
                                 "weld keeps the bodies as they are posed)")
        pb = bars[b].pose
        P = (pb[0], pb[1]) if at is None else check_point(at, f"{name}: at")
        local = []
        for i in (a, b):
            if i is None:
                local.append(P)
                continue
            x, y, th = bars[i].pose
            c, s = math.cos(th), math.sin(th)
            dx, dy = P[0] - x, P[1] - y
            local.append((c * dx + s * dy, -s * dx + c * dy))
        phi0 = pb[2] - (0.0 if a is None else bars[a].pose[2])
        return cls(a, b, local[0], local[1], phi0, name)


    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the weld's runtime parameters ``[(name, value), ...]``."""
        return [(("ua",), self.point_a[0]), (("va",), self.point_a[1]),
                (("ub",), self.point_b[0]), (("vb",), self.point_b[1]),
                (("phi0",), self.phi0)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the weld."""
        w = f"W{position}"
        return {("ua",): [(f"u_{{a,{w}}}", 1)], ("va",): [(f"v_{{a,{w}}}", 1)],
                ("ub",): [(f"u_{{b,{w}}}", 1)], ("vb",): [(f"v_{{b,{w}}}", 1)],
                ("phi0",): [(f"φ_{{{w}}}", 1)]}



    def describe(self, position: int) -> str:
        """Return the weld's line in the model summary."""
        a = "the ground" if self.body_a is None else f"body {self.body_a}"
        return (f"constraint {self.name!r}: weld of body {self.body_b} to {a} at body-frame "
                f"point ({self.point_b[0]:.4g}, {self.point_b[1]:.4g}), relative angle "
                f"{self.phi0:.4g} rad")

    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the rows :math:`p_b - p_a = 0` (x, y) and :math:`θ_b - θ_a - φ_0 = 0`."""
        a, b = self.body_a, self.body_b
        out = coincidence_rows(ctx, a, b, f"{self.name} · body {b}")
        lock = mo.add(angle_poly(ctx, b), angle_poly(ctx, a, -1.0),
                      mo.constant(-1.0, ctx.par("phi0")))
        out.append(Row(lock, f"{self.name} · body {b} · torque", b, "torque"))
        return out

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]) -> list:
        """Return how the weld's multipliers act as forces on the bars."""
        out = []
        for col, row in rows:
            if row.axis not in ("x", "y"):
                continue
            axis = 0 if row.axis == "x" else 1
            out.append(((self.kind, position, self.body_b), col, axis, 1.0))
            if self.body_a is not None:
                out.append(((self.kind, position, self.body_a), col, axis, -1.0))
        return out

    def to_dict(self) -> dict:
        """Return the weld as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "body_a": self.body_a, "body_b": self.body_b,
                "point_a": list(self.point_a), "point_b": list(self.point_b),
                "phi0": self.phi0}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Weld:
        """Build the weld from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "body_a", where), ctx.n_bars, f"{where}.body_a")
        b = bar_index(field(d, "body_b", where), ctx.n_bars, f"{where}.body_b")
        if a == b:
            raise ValueError(f"{where}: body_a and body_b are the same body ({b})")
        return cls(a, b, check_point(field(d, "point_a", where), f"{where}.point_a"),
                   check_point(field(d, "point_b", where), f"{where}.point_b"),
                   check_real(field(d, "phi0", where), f"{where}.phi0"),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

    def check_bodies(self, bars: list, where: str) -> None:
        """After loading: the welded bodies must rotate (not particles)."""
        for i in (self.body_a, self.body_b):
            body_of(i, bars, where, rotating=True)

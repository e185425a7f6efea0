r"""Weld: two bodies (or a body and the ground) rigidly connected.

With the weld point given in both body frames, :math:`(u_a, v_a)` on body a and
:math:`(u_b, v_b)` on body b, and the locked relative angle :math:`φ_0`, the rows are

.. math:: p_b(u_b, v_b) - p_a(u_a, v_a) = 0 \quad (x, y), \qquad
          θ_b - θ_a - φ_0 = 0,

(:math:`θ_a = 0` and :math:`p_a` a fixed point for the ground). The multipliers
:math:`(\lambda_x, \lambda_y)` are the force the weld exerts on body b at the weld point
(global frame, N), :math:`-(\lambda_x, \lambda_y)` the force on body a, and
:math:`\lambda_θ` the torque on body b about the weld point (N·m; its opposite on a).
Parameters (runtime): :math:`u_a, v_a, u_b, v_b, φ_0`. The rows are labelled ``"<name>.x"``,
``"<name>.y"`` and ``"<name>.torque"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import monomials as mo
from ..validation import check_point
from . import fields
from .base import Constraint, Row, RowContext
from .body_points import TwoBodies, angle_poly, coincidence_rows, local_at, world
from .registry import register


@register(rank=1000)
@dataclass
class Weld(TwoBodies, Constraint):
    """Bodies ``body_a`` (None: ground) and ``body_b`` welded together.

    At the point given in each frame (``point_a``, ``point_b``: body-frame ``(u, v)`` in m, a
    ground position for the ground), relative angle ``phi0``. What is not given is taken from
    the initial pose, so that the weld holds the bodies as they are posed: a missing point is
    where the other one is (neither given: body b's mass centre), ``phi0`` the initial
    relative angle. The points and ``phi0`` are runtime parameters.
    """

    body_a: int | None = fields.body("body a", "the first body (None: the ground)",
                                     ground=True)
    body_b: int = fields.body("body b", "the second body (not a particle)")
    point_a: tuple[float, float] | None = fields.point(
        "point on a", "m", "the weld point in body a's frame, a ground position for the "
        "ground (None: where point b is in the initial pose)", optional=True, default=None)
    point_b: tuple[float, float] | None = fields.point(
        "point on b", "m", "the weld point in body b's frame (None: where point a is in the "
        "initial pose; neither given: b's mass centre)", optional=True, default=None)
    phi0: float | None = fields.number("relative angle", "rad", "the locked angle θ_b − θ_a "
                                       "(None: the initial one)", optional=True, default=None)
    name: str | None = fields.name(default=None)

    kind = "weld"
    collection = "welds"
    title = "weld"
    prefix = "weld"
    named = True
    has_name = True

    @classmethod
    def at_point(cls, bodies: list, body_a: int | None, body_b: int,
                 at: tuple[float, float] | None, name: str | None = None) -> Weld:
        """Return the weld of ``body_a`` and ``body_b`` at the ground point ``at`` (m).

        ``at`` is put into each body's frame in the initial pose (None: the defaults of the
        class, body b's mass centre). A body that is not a posed body of ``bodies`` keeps
        its point None: the weld's checks then say why.
        """
        def in_frame(body: int | None, P: tuple[float, float]) -> tuple[float, float] | None:
            if body is None:
                return P
            if isinstance(body, int) and not isinstance(body, bool) \
                    and 0 <= body < len(bodies) and bodies[body].pose is not None:
                return local_at(bodies, body, P)
            return None

        if at is None:
            return cls(body_a=body_a, body_b=body_b, name=name)
        P = check_point(at, "weld: at")
        return cls(body_a=body_a, body_b=body_b, point_a=in_frame(body_a, P),
                   point_b=in_frame(body_b, P), name=name)

    def check(self, bodies: list, where: str) -> Weld:
        """Return the weld checked; the points and angle not given taken from the pose."""
        self.check_pair(bodies, where, rotating=True)
        pa, pb, phi0 = self.point_a, self.point_b, self.phi0
        if pa is not None and pb is not None and phi0 is not None:
            return self
        a, b = self.body_a, self.body_b
        for f, i in (("body_a", a), ("body_b", b)):
            if i is not None and bodies[i].pose is None:
                raise ValueError(f"{where}.{f}: body {i} has no initial pose yet; set it first "
                                 "(the weld keeps the bodies as they are posed)")
        if pa is None or pb is None:  # the weld point P, in the ground frame
            if pb is not None:
                P = world(bodies, b, pb)
            elif pa is not None:
                P = world(bodies, a, pa)
            else:
                P = tuple(bodies[b].pose[:2])
            pa = local_at(bodies, a, P) if pa is None else pa
            pb = local_at(bodies, b, P) if pb is None else pb
        if phi0 is None:
            phi0 = bodies[b].pose[2] - (0.0 if a is None else bodies[a].pose[2])
        return replace(self, point_a=pa, point_b=pb, phi0=phi0)

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
        out = coincidence_rows(ctx, a, b, self.name)
        lock = mo.add(angle_poly(ctx, b), angle_poly(ctx, a, -1.0),
                      mo.constant(-1.0, ctx.par("phi0")))
        out.append(Row(lock, f"{self.name}.torque", b, "torque"))
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

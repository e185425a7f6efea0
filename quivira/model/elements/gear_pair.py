r"""Gear pair: the angles of two bodies coupled by meshing gears of pitch radii r_a and r_b.

For bodies a and b (bars or rigid bodies, not particles), pitch radii :math:`r_a, r_b > 0`
and reference angles :math:`θ_{a0}, θ_{b0}` (by default the bodies' initial angles), the
holonomic row is

.. math:: F = r_a (θ_a - θ_{a0}) + σ\, r_b (θ_b - θ_{b0}) = 0,

with :math:`σ = +1` for an external mesh (the gears turn in opposite directions) and
:math:`σ = -1` for an internal mesh (a pinion in a ring gear: the same direction). The arc
lengths rolled off at the pitch point are equal, so :math:`\dot θ_b = -σ (r_a/r_b)\dot θ_a`.

:math:`J^T\lambda` is the torque :math:`r_a\lambda` on body a and :math:`σ r_b\lambda` on
body b: the multiplier is the **tangential tooth force** (N) at the pitch point. The row
couples the angles only: the tooth force's push on the axles is not part of it (the
bearings' reactions do not include it), which is exact for the angular motion of gears on
fixed axles. Runtime parameters (edits re-simulate without recompiling): ``radius_a``,
``radius_b``, ``angle_a0``, ``angle_b0``; the mesh (``internal``) is topology. The row is
labelled ``"<name>.force"``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import monomials as mo
from . import fields
from .base import Constraint, Row, RowContext
from .body_points import TwoBodies
from .registry import register

#: the runtime parameters, in order: the kind's numeric fields
_PARAMETERS = ("radius_a", "radius_b", "angle_a0", "angle_b0")


@register(rank=1550)
@dataclass
class GearPair(TwoBodies, Constraint):
    """Gears of pitch radii ``radius_a`` on ``body_a`` and ``radius_b`` on ``body_b``, meshing.

    ``r_a (θ_a − θ_a0) + σ r_b (θ_b − θ_b0) = 0``, σ = −1 with ``internal`` (a ring gear),
    +1 otherwise; the reference angles None become the bodies' initial angles.
    """

    body_a: int = fields.body("body a", "the body carrying gear a")
    body_b: int = fields.body("body b", "the body carrying gear b")
    radius_a: float = fields.number("radius a", "m", "pitch radius of gear a", positive=True,
                                    differentiable=False)
    radius_b: float = fields.number("radius b", "m", "pitch radius of gear b", positive=True,
                                    differentiable=False)
    internal: bool = fields.flag("internal", "internal mesh (a pinion in a ring gear: both "
                                 "turn the same way)", topology=True, default=False)
    angle_a0: float | None = fields.number("angle a0", "rad", "angle of body a at which the "
                                           "gears are in their reference mesh (None: its "
                                           "initial angle)", optional=True,
                                           differentiable=False, default=None)
    angle_b0: float | None = fields.number("angle b0", "rad", "angle of body b at which the "
                                           "gears are in their reference mesh (None: its "
                                           "initial angle)", optional=True,
                                           differentiable=False, default=None)
    name: str | None = fields.name(default=None)

    kind = "gear"
    collection = "gear_pairs"
    title = "gear pair"
    prefix = "gear"
    named = True
    has_name = True

    @property
    def sign(self) -> float:
        """σ: +1 for an external mesh, −1 for an internal one."""
        return -1.0 if self.internal else 1.0

    def check(self, bodies: list, where: str) -> GearPair:
        """Return the pair of two different rotating bodies, reference angles filled in.

        A reference angle None becomes the body's initial angle (0 if it has no pose yet).
        """
        self.check_pair(bodies, where, rotating=True)
        initial = {}
        for f, b in (("angle_a0", self.body_a), ("angle_b0", self.body_b)):
            if getattr(self, f) is None:
                pose = bodies[b].pose
                initial[f] = 0.0 if pose is None else float(pose[2])
        return replace(self, **initial)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the gear pair's runtime parameters ``[(name, value), ...]``."""
        return [((p,), float(getattr(self, p))) for p in _PARAMETERS]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the gear pair."""
        g = f"G{position}"
        return {("radius_a",): [(f"r_{{a,{g}}}", 1)], ("radius_b",): [(f"r_{{b,{g}}}", 1)],
                ("angle_a0",): [(f"θ_{{a0,{g}}}", 1)], ("angle_b0",): [(f"θ_{{b0,{g}}}", 1)]}

    def topology(self) -> tuple:
        """Return the gear pair's part of the topology key (connectivity, never values)."""
        return (self.name, self.body_a, self.body_b, self.internal)

    def describe(self, position: int) -> str:
        """Return the gear pair's line in the model summary."""
        mesh = "internal" if self.internal else "external"
        return (f"constraint {self.name!r}: gear pair ({mesh} mesh), body {self.body_a} "
                f"radius {self.radius_a:g} with body {self.body_b} radius {self.radius_b:g}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`r_a (θ_a - θ_{a0}) + σ r_b (θ_b - θ_{b0}) = 0`."""
        ra, rb, a0, b0 = (ctx.par(p) for p in _PARAMETERS)
        s = self.sign
        F = mo.add(mo.monomial((ctx.q(3 * self.body_a + 2),), 1.0, ra),
                   mo.constant(-1.0, ra, a0),
                   mo.monomial((ctx.q(3 * self.body_b + 2),), s, rb),
                   mo.constant(-s, rb, b0))
        return [Row(F, f"{self.name}.force", self.body_a, "force")]

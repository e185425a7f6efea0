r"""Joint motor: the relative angle of two bodies driven by a law of time.

For bodies a (None: ground, :math:`θ_a = 0`) and b, typically the first two bars of a pin
joint, and an angle law :math:`φ(t)` (a heyoka expression of ``hy.time`` and the model's
named parameters, ``model.parameter(name)``), the rheonomic row is

.. math:: F(q, t) = θ_b - θ_a - φ(t) = 0 .

Its Jacobian and :math:`\dot J\dot q` carry the :math:`\partial/\partial t` terms
(:mod:`quivira.constraint_rows`): :math:`\ddot F = \ddot θ_b - \ddot θ_a - \ddot φ(t)`.
The multiplier is the **motor torque** on body b (N·m; its opposite acts on body a). Named
parameters in the law are runtime parameters: ``model.set(name, value)`` re-simulates
without compiling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from . import fields
from .actuators import WithLaws
from .base import Constraint, Row, RowContext, expression_text
from .body_points import TwoBodies, body_of
from .registry import register


@register(rank=1500)
@dataclass
class JointMotor(WithLaws, TwoBodies, Constraint):
    """θ_b − θ_a = law(t) for bodies ``body_a`` (None: ground) and ``body_b``."""

    body_a: int | None = fields.body("body a", "the first body (None: the ground)",
                                     ground=True)
    body_b: int = fields.body("body b", "the driven body")
    law: Any = fields.law("angle law", "rad", "the relative angle θ_b − θ_a, a law of time "
                          "and named parameters")
    name: str | None = fields.name(default=None)

    kind = "motor"
    collection = "joint_motors"
    title = "joint motor"
    prefix = "motor"
    named = True
    has_name = True
    laws_of_state = False

    def check(self, bodies: list, where: str) -> JointMotor:
        """Return the motor between two different bodies that rotate (not particles)."""
        body_of(self.body_a, bodies, f"{where}: body_a", rotating=True)
        body_of(self.body_b, bodies, f"{where}: body_b", rotating=True)
        if self.body_a == self.body_b:
            raise ValueError(f"{where}: body_a and body_b are the same body ({self.body_b})")
        return self

    def topology(self) -> tuple:
        """Return the joint motor's part of the topology key (connectivity, never values)."""
        return (self.name, self.body_a, self.body_b, str(self.law))

    def describe(self, position: int) -> str:
        """Return the joint motor's line in the model summary."""
        a = "the ground" if self.body_a is None else f"body {self.body_a}"
        text = expression_text(self.law)
        return (f"constraint {self.name!r}: joint motor, angle of body {self.body_b} relative "
                f"to {a} = {text}")

    def rows(self, ctx: RowContext) -> list[Row]:
        r"""Return the row :math:`θ_b - θ_a - \mathrm{law}(t) = 0` (:math:`θ_a = 0`: ground)."""
        subs = ctx.user_parameters()
        law = hy.subs(self.law, subs) if subs else self.law
        F = hy.expression(f"th{self.body_b}") - law
        if self.body_a is not None:
            F = F - hy.expression(f"th{self.body_a}")
        return [Row(F, f"{self.name}.torque", self.body_b, "torque")]

r"""Joint motor: the relative angle of two bodies driven by a law of time.

For bodies a (None: ground, :math:`θ_a = 0`) and b, typically the first two bars of a pin
joint, and an angle law :math:`φ(t)` (a heyoka expression of ``hy.time`` and the model's
named parameters, ``model.parameter(name)``), the rheonomic row is

.. math:: F(q, t) = θ_b - θ_a - φ(t) = 0 .

Its Jacobian and :math:`\dot J\dot q` carry the :math:`\partial/\partial t` terms
(:mod:`quivira.constraint_rows`): :math:`\ddot F = \ddot θ_b - \ddot θ_a - \ddot φ(t)`.
The multiplier is the **motor torque** on body b (N·m; its opposite acts on body a). Named
parameters in the law are runtime parameters: ``set_parameter`` re-simulates without
compiling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import heyoka as hy

from ...expression_codec import encode_expression
from ..validation import bar_index, check_name, field, optional_bar
from .actuators import check_law, law_from_file
from .base import Constraint, LoadContext, Row, RowContext, expression_text
from .body_points import TwoBodies, body_of


@dataclass
class JointMotor(TwoBodies, Constraint):
    """θ_b − θ_a = law(t) for bodies ``body_a`` (None: ground) and ``body_b``."""

    body_a: int | None
    body_b: int
    law: Any
    name: str

    kind = "motor"
    collection = "joint_motors"
    title = "joint motor"
    named = True
    has_name = True

    @classmethod
    def create(cls, body_a: Any, body_b: Any, law: Any, name: str, bars: list,
               parameters: list[str]) -> JointMotor:
        """Build a validated motor; the law may use ``hy.time`` and named parameters only."""
        a = body_of(body_a, bars, f"{name}: body_a", rotating=True)
        b = body_of(body_b, bars, f"{name}: body_b", rotating=True, ground=False)
        if a == b:
            raise ValueError(f"{name}: body_a and body_b are the same body ({b})")
        return cls(a, b, check_law(law, 0, parameters, f"{name}: angle_law"), name)


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
        return [Row(F, f"{self.name} · torque", self.body_b, "torque")]

    def to_dict(self) -> dict:
        """Return the joint motor as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "body_a": self.body_a, "body_b": self.body_b,
                "law": encode_expression(self.law), "law_text": str(self.law)}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> JointMotor:
        """Build the motor from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        a = optional_bar(field(d, "body_a", where), ctx.n_bars, f"{where}.body_a")
        b = bar_index(field(d, "body_b", where), ctx.n_bars, f"{where}.body_b")
        if a == b:
            raise ValueError(f"{where}: body_a and body_b are the same body ({b})")
        law = law_from_file(field(d, "law", where), f"{where}.law", ctx, n_bars=0)
        return cls(a, b, law, check_name(field(d, "name", where), ctx.names, f"{where}.name"))

    def check_bodies(self, bars: list, where: str) -> None:
        """After loading: both bodies rotate."""
        body_of(self.body_a, bars, f"{where}.body_a", rotating=True)
        body_of(self.body_b, bars, f"{where}.body_b", rotating=True)

r"""Torsional spring-damper between two bars, or a bar and ground.

As Exudyn's ``ObjectConnectorTorsionalSpringDamper``: with the relative angle
:math:`φ = θ_b - θ_a` (:math:`θ_a = 0` for ground), the torque

.. math:: τ = k_θ(φ - φ_0) + c_θ\,\dot φ + τ_0

acts with :math:`-τ` on bar b and :math:`+τ` on bar a: the spring drives φ back to its rest
angle :math:`φ_0`, and a preload :math:`τ_0 > 0` lowers the angle it rests at to
:math:`φ_0 - τ_0/k_θ`. Conservative part :math:`V = \tfrac12 k_θ(φ - φ_0)^2 + τ_0 φ`; the
damper dissipates :math:`c_θ\dot φ^2`. All terms are polynomials in the angles and angular
velocities, so a lattice with a spring at every hinge costs little more to integrate.
Parameters: ``k`` (N m/rad), ``phi0`` (rad), ``c`` (N m s/rad), ``preload`` (N m).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from .. import monomials as mo
from . import fields
from .base import Load, RowContext, shift_bar
from .registry import register


@register(rank=2100)
@dataclass
class TorsionalSpring(Load):
    """A torsional spring-damper on the relative angle ``θ_b − θ_a``.

    ``bar_a`` None: the ground. ``phi0`` None is the initial relative angle.
    """

    bar_a: int | None = fields.body("bar a", "the first bar (None: the ground)", ground=True)
    bar_b: int = fields.body("bar b", "the second bar")
    k: float = fields.number("k", "N m/rad", "stiffness", lower=0.0)
    phi0: float | None = fields.number("phi0", "rad", "rest angle θ_b − θ_a (None: the "
                                       "initial one)", optional=True, default=None)
    c: float = fields.number("c", "N m s/rad", "damping on the relative angular velocity",
                             lower=0.0, default=0.0)
    preload: float = fields.number("preload", "N m", "a constant torque τ_0", default=0.0)
    name: str | None = fields.name(default=None)

    kind = "torsion"
    collection = "torsional_springs"
    title = "torsional spring"
    prefix = "torsion"
    has_name = True
    dissipates = True
    elastic = True

    def check(self, bodies: list, where: str) -> TorsionalSpring:
        """Return the spring on two different bars, ``phi0`` None set from the initial pose."""
        a, b = self.bar_a, self.bar_b
        if a == b:
            raise ValueError(f"{where}: bar_a and bar_b are the same bar ({b}); a torsional "
                             "spring joins two bars or a bar and ground (bar_a=None)")
        if self.phi0 is not None:
            return self
        phi0 = self.initial_angle(bodies)
        if phi0 is None:
            raise ValueError(f"{where}: the bars have no initial pose yet; set the poses first "
                             "(the rest angle defaults to the initial relative angle)")
        return replace(self, phi0=phi0)

    def initial_angle(self, bodies: list) -> float | None:
        """Return the relative angle θ_b − θ_a (rad) in the initial pose (None without poses).

        θ_a = 0 for the ground (``bar_a`` None).
        """
        a, b = self.bar_a, self.bar_b
        if any(bodies[i].pose is None for i in (a, b) if i is not None):
            return None
        return bodies[b].pose[2] - (0.0 if a is None else bodies[a].pose[2])

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the torsional spring touches."""
        return tuple(b for b in (self.bar_a, self.bar_b) if b is not None)

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the torsional spring's runtime parameters ``[(name, value), ...]``."""
        return [(("k",), self.k), (("phi0",), self.phi0), (("c",), self.c),
                (("preload",), self.preload)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the torsional spring."""
        return {("k",): [(f"k_{{θ{position}}}", 1)], ("phi0",): [(f"φ_{{0,{position}}}", 1)],
                ("c",): [(f"c_{{θ{position}}}", 1)], ("preload",): [(f"τ_{{0,{position}}}", 1)]}

    def topology(self) -> tuple:
        """Return the torsional spring's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar_a, self.bar_b)

    def reindexed(self, removed_bar: int) -> TorsionalSpring | None:
        """Return the torsional spring after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        c = self.copy()
        c.bar_a = None if self.bar_a is None else shift_bar(self.bar_a, removed_bar)
        c.bar_b = shift_bar(self.bar_b, removed_bar)
        return c

    def describe(self, position: int) -> str:
        """Return the torsional spring's line in the model summary."""
        a = "ground" if self.bar_a is None else f"bar {self.bar_a}"
        return (f"{self.name}: torsional spring-damper {a} → bar {self.bar_b}, k = {self.k:g}, "
                f"phi0 = {self.phi0:g}, c = {self.c:g}, preload = {self.preload:g}")

    # ------------------------------------------------------------------ equations
    def _angle(self, ctx: RowContext, letter) -> mo.Poly:
        """φ (``letter = ctx.q``) or φ̇ (``ctx.v``) as a poly."""
        out = mo.monomial((letter(3 * self.bar_b + 2),), 1.0)
        if self.bar_a is not None:
            out = mo.add(out, mo.monomial((letter(3 * self.bar_a + 2),), -1.0))
        return out

    def _torque(self, ctx: RowContext) -> mo.Poly:
        """τ = k(φ − φ0) + c φ̇ + τ0."""
        k, c = mo.constant(1.0, ctx.par("k")), mo.constant(1.0, ctx.par("c"))
        return mo.add(mo.mul(k, self._angle(ctx, ctx.q)), mo.constant(-1.0, ctx.par("k"),
                                                                      ctx.par("phi0")),
                      mo.mul(c, self._angle(ctx, ctx.v)), mo.constant(1.0, ctx.par("preload")))

    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, Any]]:
        r"""Return the generalized forces: :math:`-τ` on θ_b and :math:`+τ` on θ_a.

        :math:`τ = k(φ - φ_0) + c\dot φ + τ_0` with :math:`φ = θ_b - θ_a`.
        """
        tau = self._torque(ctx)
        out = [(3 * self.bar_b + 2, mo.scale(tau, -1.0))]
        if self.bar_a is not None:
            out.append((3 * self.bar_a + 2, tau))
        return out

    def potential(self, ctx: RowContext) -> Any:
        r"""Return the potential :math:`V = \tfrac12 k(φ - φ_0)^2 + τ_0 φ`."""
        phi = self._angle(ctx, ctx.q)
        stretch = mo.add(phi, mo.constant(-1.0, ctx.par("phi0")))
        return mo.add(mo.mul(mo.constant(0.5, ctx.par("k")), mo.mul(stretch, stretch)),
                      mo.mul(mo.constant(1.0, ctx.par("preload")), phi))

    def force_outputs(self, ctx: RowContext) -> list[tuple[str, Any]]:
        r"""Return the torque :math:`τ = k(φ - φ_0) + c\dot φ + τ_0` along a motion."""
        return [("torque", self._torque(ctx))]

    def dissipation(self, ctx: RowContext) -> Any:
        r"""Return the damper's dissipated power :math:`P_d = c\,\dot φ^2`."""
        rate = self._angle(ctx, ctx.v)
        return mo.mul(mo.constant(1.0, ctx.par("c")), mo.mul(rate, rate))

r"""Actuators: forces and torques given by laws, and the named parameters the laws use.

A law is a heyoka expression (or a number) of ``hy.time``, the coordinates and velocities of
the bodies (``model.variables(i)``) and named runtime parameters (``model.parameter("A")`` of
a :class:`Parameter` ``A``, edited with ``model.set("A", value)`` without recompiling), e.g.
``A * hy.sin(w * hy.time)``. The work an actuator does, :math:`\int Q\cdot\dot q\,dt`, is
the input :math:`W_{in}` of the energy ledger.

* :class:`ForceActuator`: a force on a bar point, its components along the ground axes
  :math:`(f_x, f_y)` or, with ``frame="bar"``, along and across the bar :math:`(f_t, f_n)`,
  i.e. :math:`F = R(θ)(f_t, f_n)`; generalized force :math:`(F_x, F_y, r_x F_y - r_y F_x)`.
* :class:`TorqueActuator`: a torque :math:`τ` on a bar, or between two bars (:math:`+τ` on
  bar b, :math:`-τ` on bar a: it drives the relative angle :math:`θ_b - θ_a` up).
* :class:`Parameter`: a named runtime parameter (variable ``par_<name>`` in the laws).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import heyoka as hy

from ..._repr import short_repr
from ...expression_codec import check_storable
from ..validation import check_real
from . import fields
from .base import (
    Element,
    Load,
    LoadContext,
    OnOneBar,
    RowContext,
    expression_text,
    shift_bar,
)
from .registry import register

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COORDS = ("x", "y", "th", "vx", "vy", "om")


def parameter_variable(name: str) -> str:
    """Return the variable name standing for the named parameter ``name`` in laws."""
    return f"par_{name}"


def check_law(value: Any, n_bars: int, parameters: list[str] | None,
              where: str) -> hy.expression:
    """Validate a law and return it as a heyoka expression.

    Numbers are accepted; variables must be the coordinates and velocities of ``n_bars``
    bars or named parameters (``par_<name>`` of ``parameters``; None accepts every
    ``par_<name>``, for a law checked before); no ``hy.par``.
    """
    if isinstance(value, hy.expression):
        expr = value
    else:
        expr = hy.expression(check_real(value, where))
    allowed = {f"{c}{i}" for i in range(n_bars) for c in _COORDS}
    if parameters is not None:
        allowed |= {parameter_variable(p) for p in parameters}
    unknown = sorted(v for v in set(hy.get_variables(expr)) - allowed
                     if parameters is not None or not v.startswith(parameter_variable("")))
    if unknown:
        known = "" if parameters is None else f" (parameters: {parameters})"
        raise ValueError(f"{where}: unknown variables {unknown}; a law may use hy.time, "
                         f"model.variables(i) and model.parameter(name){known}")
    if hy.get_params(expr):
        raise ValueError(f"{where}: use model.parameter(name) for values to edit, not hy.par")
    try:
        check_storable(expr)
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    return expr


def law_from_file(tree: Any, where: str, ctx: LoadContext, n_bars: int | None = None
                  ) -> hy.expression:
    """Read a law of a file and check it as the API checks it (:func:`check_law`).

    So a file holds only what the API accepts: no raw ``["par", k]`` (which would read an
    internal parameter, such as a mass or g, or one that does not exist), only the variables
    of ``n_bars`` bars (default: the model's; 0 for a law of time) and named parameters.
    """
    n = ctx.n_bars if n_bars is None else n_bars
    parameters = sorted(ctx.parameters)
    allowed = {f"{c}{i}" for i in range(n) for c in _COORDS}
    allowed |= {parameter_variable(p) for p in parameters}
    return check_law(ctx.expression(tree, where, allowed), n, parameters, where)


class WithLaws:
    """Mixin of the kinds whose fields include laws (:func:`~.fields.law`).

    Laws given through the API and read from files are checked alike (:func:`check_law`);
    files carry the readable text of each law next to its encoded tree.
    """

    #: whether the laws may use the bodies' coordinates and velocities (False: only time
    #: and named parameters)
    laws_of_state: ClassVar[bool] = True

    @classmethod
    def law_from_api(cls, value: Any, where: str, n_bars: int,
                     parameters: list[str] | None) -> hy.expression:
        """Return a law given through the API checked (:func:`check_law`)."""
        return check_law(value, n_bars if cls.laws_of_state else 0, parameters, where)

    @classmethod
    def law_from_file(cls, tree: Any, where: str, ctx: LoadContext) -> hy.expression:
        """Return a law of a file decoded and checked as the API checks it."""
        return law_from_file(tree, where, ctx, None if cls.laws_of_state else 0)

    @classmethod
    def text_key(cls, law: str) -> str:
        """Return the file key of the readable text of the law field ``law``."""
        return f"{law}_text"

    def to_dict(self) -> dict:
        """Return one key per declared field, and the readable text of each law.

        The file format differs from the fields by the texts (``<law>_text``): a person
        reading the file sees the law, not only its encoded tree; files of earlier versions
        have them too. Reading ignores them (the tree is the law).
        """
        out = super().to_dict()
        for fname, spec in self.specs().items():
            if spec.what == "law":
                out[self.text_key(fname)] = str(getattr(self, fname))
        return out


def _rename_bar_variables(exprs: list, removed: int) -> list | None:
    """Laws after bar ``removed`` is deleted, or None if one uses its variables."""
    rename = {}
    for v in {v for e in exprs for v in hy.get_variables(e)}:
        prefix = v.rstrip("0123456789")
        if prefix not in _COORDS:
            continue
        b = int(v[len(prefix):])
        if b == removed:
            return None
        if b > removed:
            rename[v] = hy.expression(f"{prefix}{b - 1}")
    return [hy.subs(e, rename) if rename else e for e in exprs]


@register(rank=100)
@dataclass
class Parameter(Element):
    """A named runtime parameter, for the laws of actuators, motors and events.

    Laws use it as ``model.parameter(name)`` (the variable ``par_<name>``); editing its value
    (``model.set(name, value)``) re-simulates without compiling.
    """

    name: str = fields.name()
    value: float = fields.number("value", "", "its value (in the units the laws give it)")

    kind = "param"
    collection = "parameters"
    title = "parameter"
    prefix = "param"
    has_name = True

    def check(self, bodies: list, where: str) -> Parameter:
        """Return the parameter if its name can stand in a law (letters, digits and ``_``)."""
        if not isinstance(self.name, str) or not _NAME.fullmatch(self.name) \
                or len(self.name) > 60:
            raise ValueError(f"{where}: a parameter's name must consist of letters, digits and "
                             "'_', not start with a digit (at most 60 characters), got "
                             f"{short_repr(self.name)}")
        return self

    def bars_used(self) -> tuple[int, ...]:
        """Return the bodies the parameter touches."""
        return ()

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the parameter's runtime parameters ``[(name, value), ...]``."""
        return [((self.name,), self.value)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the parameter."""
        return {(self.name,): [(self.name, 1)]}

    def topology(self) -> str:
        """Return the parameter's part of the topology key (connectivity, never values)."""
        return self.name

    def reindexed(self, removed_bar: int) -> Parameter:
        """Return a copy: a parameter does not depend on the bars."""
        return self.copy()

    def describe(self, position: int) -> str:
        """Return the parameter's line in the model summary."""
        return f"parameter {self.name} = {self.value:g}"

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Parameter:
        """Read the parameter's fields (as :meth:`Element.from_dict`) and make it usable.

        The file format is the fields; the laws read after it may use its name.
        """
        el = super().from_dict(d, where, ctx)
        ctx.parameters.add(el.name)
        return el


class _Driven(WithLaws, Load):
    """Common part of the actuators: laws and the input power."""

    drives = True
    laws: tuple[str, ...] = ()

    def law_exprs(self, ctx: RowContext) -> list:
        subs = ctx.user_parameters()
        return [hy.subs(getattr(self, law), subs) if subs else getattr(self, law)
                for law in self.laws]

    def power_in(self, ctx: RowContext) -> Any:
        _, qd = ctx.variables()
        return [term * qd[j] for j, term in self.generalized_forces(ctx)]

    def law_topology(self) -> tuple:
        return tuple(str(getattr(self, law)) for law in self.laws)


@register(rank=2200)
@dataclass
class ForceActuator(OnOneBar, _Driven):
    """A force given by laws ``(fx, fy)`` at the point ``s`` of a bar.

    ``frame``: "ground" components, or "bar": along and across the bar.
    """

    bar: int = fields.body("bar", "the bar the force acts on")
    s: float = fields.local("s", "the point of application")
    fx: Any = fields.law("fx", "N", "the force along x (ground frame) or along the bar")
    fy: Any = fields.law("fy", "N", "the force along y (ground frame) or across the bar")
    frame: str = fields.choice("frame", ("ground", "bar"), "the frame of the components",
                               default="ground")
    name: str | None = fields.name(default=None)

    kind = "force_actuator"
    collection = "force_actuators"
    title = "force actuator"
    prefix = "actuator"
    has_name = True
    laws = ("fx", "fy")

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the force actuator's runtime parameters ``[(name, value), ...]``."""
        return [(("sL",), self.s * bars[self.bar].length)]

    def parameter_symbols(self, position: int, bars: list) -> dict:
        """Return the LaTeX symbol of each runtime parameter of the force actuator."""
        return {("sL",): [(f"s_{{A{position}}}", 1), (f"L_{self.bar}", 1)]}

    def topology(self) -> tuple:
        """Return the force actuator's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar, self.frame, *self.law_topology())

    def reindexed(self, removed_bar: int) -> ForceActuator | None:
        """Return the force actuator after bar ``removed_bar`` is deleted (None if it used it)."""
        new = OnOneBar.reindexed(self, removed_bar)
        if new is None:
            return None
        laws = _rename_bar_variables([self.fx, self.fy], removed_bar)
        if laws is None:
            return None
        new.fx, new.fy = laws
        return new

    def describe(self, position: int) -> str:
        """Return the force actuator's line in the model summary."""
        return (f"{self.name}: force on bar {self.bar} at s = {self.s:g}, ({self.frame} frame) "
                f"({expression_text(self.fx)}, {expression_text(self.fy)})")

    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, Any]]:
        r"""Return the generalized forces of the force :math:`f` at the bar point.

        :math:`Q = (f_x, f_y, sL(f_y\cos θ - f_x\sin θ))` on the bar's ``(x, y, θ)``, with
        bar-frame laws rotated to the ground frame first.
        """
        fx, fy = self.law_exprs(ctx)
        i = self.bar
        q, _ = ctx.variables()
        if self.frame == "bar":
            c, s = hy.cos(q[3 * i + 2]), hy.sin(q[3 * i + 2])
            fx, fy = fx * c - fy * s, fx * s + fy * c
        _, _, (rx, ry) = ctx.point_expr(i, ctx.P("sL"))
        return [(3 * i, fx), (3 * i + 1, fy), (3 * i + 2, rx * fy - ry * fx)]

    def force_outputs(self, ctx: RowContext) -> list[tuple[str, Any]]:
        """Return the force's ground-frame components ``Fx`` and ``Fy`` along a motion."""
        q = self.generalized_forces(ctx)
        return [("Fx", q[0][1]), ("Fy", q[1][1])]


@register(rank=2300)
@dataclass
class TorqueActuator(_Driven):
    """A torque given by a law on bar ``bar`` (and its reaction on ``bar_a``, if given)."""

    bar: int = fields.body("bar", "the driven bar (it receives +τ)")
    torque: Any = fields.law("torque", "N m", "the torque, counter-clockwise positive")
    bar_a: int | None = fields.body("reaction bar", "the bar receiving -τ (None: no "
                                    "reaction on a bar)", ground=True, default=None)
    name: str | None = fields.name(default=None)

    kind = "torque_actuator"
    collection = "torque_actuators"
    title = "torque actuator"
    prefix = "torque"
    has_name = True
    laws = ("torque",)

    def check(self, bodies: list, where: str) -> TorqueActuator:
        """Return the actuator if its reaction acts on another bar than the driven one."""
        if self.bar_a == self.bar:
            raise ValueError(f"{where}: bar_a is the driven bar itself ({self.bar}); give "
                             "another bar, or None for a torque without reaction on a bar")
        return self

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the torque actuator touches."""
        return tuple(b for b in (self.bar, self.bar_a) if b is not None)

    def topology(self) -> tuple:
        """Return the torque actuator's part of the topology key (connectivity, never values)."""
        return (self.name, self.bar, self.bar_a, *self.law_topology())

    def reindexed(self, removed_bar: int) -> TorqueActuator | None:
        """Return the torque actuator after bar ``removed_bar`` is deleted (None if it used it)."""
        if removed_bar in self.bars_used():
            return None
        laws = _rename_bar_variables([self.torque], removed_bar)
        if laws is None:
            return None
        c = self.copy()
        c.bar = shift_bar(self.bar, removed_bar)
        c.bar_a = None if self.bar_a is None else shift_bar(self.bar_a, removed_bar)
        c.torque = laws[0]
        return c

    def describe(self, position: int) -> str:
        """Return the torque actuator's line in the model summary."""
        between = "" if self.bar_a is None else f" (reaction on bar {self.bar_a})"
        return f"{self.name}: torque {expression_text(self.torque)} on bar {self.bar}{between}"

    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, Any]]:
        """Return the generalized forces: :math:`τ` on the bar's angle, :math:`-τ` on ``bar_a``."""
        (tau,) = self.law_exprs(ctx)
        out = [(3 * self.bar + 2, tau)]
        if self.bar_a is not None:
            out.append((3 * self.bar_a + 2, -tau))
        return out

    def force_outputs(self, ctx: RowContext) -> list[tuple[str, Any]]:
        """Return the torque :math:`τ` along a motion."""
        return [("torque", self.generalized_forces(ctx)[0][1])]

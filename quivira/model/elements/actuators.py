r"""Actuators: forces and torques given by laws, and the named parameters the laws use.

A law is a heyoka expression (or a number) of ``hy.time``, the coordinates and velocities of
the bars (``model.coordinates(i)``, ``model.velocities(i)``) and named runtime parameters
(``model.parameter("A")``, edited with ``model.set_parameter`` without recompiling), e.g.
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
from typing import Any

import heyoka as hy

from ..._repr import short_repr
from ...expression_codec import check_storable, encode_expression
from ..validation import (
    bar_index,
    check_name,
    check_real,
    check_s,
    field,
    optional_bar,
)
from .base import (
    Element,
    Load,
    LoadContext,
    OnOneBar,
    RowContext,
    expression_text,
    shift_bar,
)

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COORDS = ("x", "y", "th", "vx", "vy", "om")


def parameter_variable(name: str) -> str:
    """Return the variable name standing for the named parameter ``name`` in laws."""
    return f"par_{name}"


def check_law(value: Any, n_bars: int, parameters: list[str], where: str) -> hy.expression:
    """Validate a law and return it as a heyoka expression.

    Numbers are accepted; variables must be the bars' coordinates and velocities or named
    parameters (``par_<name>``); no ``hy.par``.
    """
    if isinstance(value, hy.expression):
        expr = value
    else:
        expr = hy.expression(check_real(value, where))
    allowed = {f"{c}{i}" for i in range(n_bars) for c in _COORDS}
    allowed |= {parameter_variable(p) for p in parameters}
    unknown = sorted(set(hy.get_variables(expr)) - allowed)
    if unknown:
        raise ValueError(f"{where}: unknown variables {unknown}; a law may use hy.time, "
                         "model.coordinates(i), model.velocities(i) and model.parameter(name) "
                         f"(parameters: {parameters})")
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


@dataclass
class Parameter(Element):
    """A named runtime parameter (usable in the laws of actuators)."""

    name: str
    value: float

    kind = "param"
    collection = "parameters"
    title = "parameter"
    has_name = True

    @classmethod
    def create(cls, name: Any, value: Any, taken: set) -> Parameter:
        """Build a validated parameter (a name made of letters, digits and ``_``)."""
        if not isinstance(name, str):
            raise TypeError(f"parameter name must be a string, got {short_repr(name)}")
        if not _NAME.fullmatch(name) or len(name) > 60:
            raise ValueError(f"parameter name must consist of letters, digits and '_', not "
                             f"start with a digit (at most 60 characters), got {short_repr(name)}")
        return cls(check_name(name, taken), check_real(value, f"parameter {name}"))

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

    def to_dict(self) -> dict:
        """Return the parameter as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "value": self.value}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Parameter:
        """Build the parameter from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        name = field(d, "name", where)
        if not isinstance(name, str) or not _NAME.fullmatch(name):
            raise ValueError(f"{where}.name: expected a parameter name, got {short_repr(name)}")
        el = cls(check_name(name, ctx.names, f"{where}.name"),
                 check_real(field(d, "value", where), f"{where}.value"))
        ctx.parameters.add(el.name)
        return el


class _Driven(Load):
    """Common part of the actuators: laws, the input power, persistence of laws."""

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

    def laws_dict(self) -> dict:
        return {law: encode_expression(getattr(self, law)) for law in self.laws} | {
            f"{law}_text": str(getattr(self, law)) for law in self.laws}


@dataclass
class ForceActuator(OnOneBar, _Driven):
    """A force given by laws ``(fx, fy)`` at the point ``s`` of a bar.

    ``frame``: "ground" components, or "bar": along and across the bar.
    """

    bar: int
    s: float
    fx: Any
    fy: Any
    frame: str
    name: str

    kind = "force_actuator"
    collection = "force_actuators"
    title = "force actuator"
    has_name = True
    laws = ("fx", "fy")

    @classmethod
    def create(cls, bar: Any, s: Any, fx: Any, fy: Any, frame: Any, name: str, n_bars: int,
               parameters: list[str]) -> ForceActuator:
        """Build a validated force actuator (arguments as ``add_force_actuator``)."""
        if frame not in ("ground", "bar"):
            raise ValueError(f"{name}: frame must be 'ground' or 'bar', got {short_repr(frame)}")
        return cls(bar_index(bar, n_bars, f"{name}: bar_index"), check_s(s, f"{name}: s"),
                   check_law(fx, n_bars, parameters, f"{name}: fx"),
                   check_law(fy, n_bars, parameters, f"{name}: fy"), frame, name)

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

    def to_dict(self) -> dict:
        """Return the force actuator as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar": self.bar, "s": self.s, "frame": self.frame,
                **self.laws_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> ForceActuator:
        """Build the actuator from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        frame = field(d, "frame", where)
        if frame not in ("ground", "bar"):
            raise ValueError(f"{where}.frame: expected 'ground' or 'bar', got {short_repr(frame)}")
        return cls(bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar"),
                   check_s(field(d, "s", where), f"{where}.s"),
                   law_from_file(field(d, "fx", where), f"{where}.fx", ctx),
                   law_from_file(field(d, "fy", where), f"{where}.fy", ctx), frame,
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))


@dataclass
class TorqueActuator(_Driven):
    """A torque given by a law on bar ``bar`` (and its reaction on ``bar_a``, if given)."""

    bar: int
    bar_a: int | None
    torque: Any
    name: str

    kind = "torque_actuator"
    collection = "torque_actuators"
    title = "torque actuator"
    has_name = True
    laws = ("torque",)

    @classmethod
    def create(cls, bar: Any, torque: Any, bar_a: Any, name: str, n_bars: int,
               parameters: list[str]) -> TorqueActuator:
        """Build a validated torque actuator (arguments as ``add_torque_actuator``)."""
        b = bar_index(bar, n_bars, f"{name}: bar_index")
        a = optional_bar(bar_a, n_bars, f"{name}: bar_a")
        if a == b:
            raise ValueError(f"{name}: bar_a is the driven bar itself ({b})")
        return cls(b, a, check_law(torque, n_bars, parameters, f"{name}: torque"), name)

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

    def to_dict(self) -> dict:
        """Return the torque actuator as plain JSON-ready data (read back by :meth:`from_dict`)."""
        return {"name": self.name, "bar": self.bar, "bar_a": self.bar_a, **self.laws_dict()}

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> TorqueActuator:
        """Build the actuator from :meth:`to_dict` data; ValueError naming ``where`` on errors."""
        b = bar_index(field(d, "bar", where), ctx.n_bars, f"{where}.bar")
        a = optional_bar(field(d, "bar_a", where), ctx.n_bars, f"{where}.bar_a")
        if a == b:
            raise ValueError(f"{where}: bar_a is the driven bar itself")
        return cls(b, a, law_from_file(field(d, "torque", where), f"{where}.torque", ctx),
                   check_name(field(d, "name", where), ctx.names, f"{where}.name"))

r"""Laws of the actuators the editor builds: constant or sinusoidal, every value a parameter.

An actuator made in the editor has the value

.. math:: g(t) = g_0 \quad\text{(constant)}, \qquad
          g(t) = g_0 + A \sin(ω t + φ) \quad\text{(sinusoidal)}

(N for a force, N·m for a torque), and a force acts along the direction α:
:math:`(f_x, f_y) = g(t)\,(\cos α, \sin α)` in the ground frame or the bar frame. Every number
of a law is a named runtime parameter of the model (``model.add_parameter``), named
``<prefix>_offset``, ``<prefix>_A``, ``<prefix>_w``, ``<prefix>_phase`` (rad) and
``<prefix>_dir`` (rad), with a prefix such as ``tq0`` or ``fa1`` of its own: editing a value
is ``model.set_parameter`` and re-simulates without recompiling.

A law is read back from the model (after undo, or from a file) by :func:`read_law`: the
parameters the expression uses give the prefix, and the expression must be exactly the one
:func:`law_expressions` builds from them. Any other law (written in code) is "custom": shown,
not edited.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import heyoka as hy
import numpy as np

from quivira.elements import Parameter

from ._modelinfo import by_collection

KINDS = ("constant", "sine")
#: parameter suffix of each value of a law
SUFFIX = {"offset": "offset", "amplitude": "A", "omega": "w", "phase": "phase",
          "direction": "dir"}
_PREFIX = re.compile(r"([A-Za-z_][A-Za-z0-9_]*?)_(offset|A|w|phase|dir)")


@dataclass(frozen=True)
class Law:
    """A constant or sinusoidal law (and a direction, for a force).

    Attributes
    ----------
    kind : {"constant", "sine"}
    offset, amplitude : float
        :math:`g_0` and :math:`A` (N or N·m).
    omega : float
        :math:`ω` (rad/s).
    phase : float
        :math:`φ` (rad).
    direction : float or None
        α (rad) of a force; None for a torque.
    """

    kind: str = "constant"
    offset: float = 0.0
    amplitude: float = 0.0
    omega: float = 0.0
    phase: float = 0.0
    direction: float | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"law kind must be one of {KINDS}, got {self.kind!r}")

    def value(self, t) -> np.ndarray:
        """:math:`g(t)` at the times ``t``."""
        t = np.asarray(t, dtype=float)
        if self.kind == "constant":
            return np.full(t.shape, self.offset)
        return self.offset + self.amplitude * np.sin(self.omega * t + self.phase)

    def values(self) -> dict[str, float]:
        """Return the law's parameter values by suffix key (``"offset"``, ``"amplitude"``, ...)."""
        keys = ["offset"] + (["amplitude", "omega", "phase"] if self.kind == "sine" else [])
        out = {k: float(getattr(self, k)) for k in keys}
        if self.direction is not None:
            out["direction"] = float(self.direction)
        return out

    def text(self, unit: str) -> str:
        """E.g. ``"τ(t) = 1 + 2·sin(3 t + 30°) N·m"``."""
        g = "F" if self.direction is not None else "τ"
        if self.kind == "constant":
            body = f"{self.offset:.4g}"
        else:
            body = (f"{self.amplitude:.4g}·sin({self.omega:.4g} t "
                    f"{'+' if self.phase >= 0 else '−'} {abs(math.degrees(self.phase)):.4g}°)")
            if self.offset:
                body = f"{self.offset:.4g} + {body}"
        text = f"{g}(t) = {body} {unit}"
        if self.direction is not None:
            text += f" along α = {math.degrees(self.direction):.4g}°"
        return text


def parameter_names(model) -> list[str]:
    """Return the names of the model's named parameters (``model.add_parameter``)."""
    return [e.name for e in by_collection(model)["parameters"]]


def parameter_name(prefix: str, key: str) -> str:
    """Return the parameter holding value ``key`` (``"offset"``, ``"amplitude"``, ...) of a law."""
    return f"{prefix}_{SUFFIX[key]}"


def free_prefix(model, stem: str) -> str:
    """Return the first ``stem0``, ``stem1``, ... whose law parameters are free in ``model``."""
    taken = set(model.elements)
    for k in range(100_000):
        prefix = f"{stem}{k}"
        if not any(parameter_name(prefix, key) in taken for key in SUFFIX):
            return prefix
    raise ValueError(f"no free name for the parameters of a new law ({stem}…)")


def law_expressions(model, prefix: str, kind: str, force: bool) -> list:
    """Return the law of the parameters ``prefix_*`` of ``model`` (they must exist).

    ``[g]`` for a torque, ``[fx, fy]`` for a force.
    """
    if kind not in KINDS:
        raise ValueError(f"law kind must be one of {KINDS}, got {kind!r}")

    def p(key: str):
        return model.parameter(parameter_name(prefix, key))

    g = p("offset")
    if kind == "sine":
        g = g + p("amplitude") * hy.sin(p("omega") * hy.time + p("phase"))
    if not force:
        return [g]
    return [g * hy.cos(p("direction")), g * hy.sin(p("direction"))]


def _parameter_of_variable(model) -> dict[str, str]:
    """Variable name in laws → parameter name, for the parameters of ``model``."""
    return {str(model.parameter(name)): name for name in parameter_names(model)}


def read_law(model, exprs: list) -> tuple[str, Law] | None:
    """Return ``(prefix, law)`` when ``exprs`` is a law the editor builds, else None.

    ``exprs`` is ``[torque]`` or ``[fx, fy]`` (see the module docstring).
    """
    by_var = _parameter_of_variable(model)
    names = set()
    for e in exprs:
        for v in hy.get_variables(e):
            if v not in by_var:
                return None  # coordinates, velocities: written in code
            names.add(by_var[v])
    matches = [_PREFIX.fullmatch(n) for n in names]
    if not names or not all(matches):
        return None
    prefixes = {m.group(1) for m in matches}
    if len(prefixes) != 1:
        return None
    prefix = prefixes.pop()
    force = len(exprs) == 2
    values = {e.name: e.value for e in by_collection(model)["parameters"]}
    for kind in KINDS:
        keys = ["offset"] + (["amplitude", "omega", "phase"] if kind == "sine" else [])
        keys += ["direction"] if force else []
        if {parameter_name(prefix, k) for k in keys} != names:
            continue
        want = law_expressions(model, prefix, kind, force)
        if [str(e) for e in exprs] != [str(w) for w in want]:
            return None
        vals = {k: float(values[parameter_name(prefix, k)]) for k in keys}
        return prefix, Law(kind=kind, offset=vals["offset"],
                           amplitude=vals.get("amplitude", 0.0), omega=vals.get("omega", 0.0),
                           phase=vals.get("phase", 0.0), direction=vals.get("direction"))
    return None


def constant_value(expr) -> float | None:
    """Return the number a law is, when it is a constant (``hy.expression(2.0)``), else None."""
    if hy.get_variables(expr):
        return None
    try:
        return float(str(expr))
    except ValueError:
        return None


def add_parameters(model, prefix: str, law: Law) -> list[str]:
    """Add the parameters of ``law`` under ``prefix``; returns their names."""
    names = []
    for key, value in law.values().items():
        name = parameter_name(prefix, key)
        model.add(Parameter(name=name, value=value))
        names.append(name)
    return names


def law_parameters(prefix: str, law: Law) -> list[str]:
    """Return the names of the parameters of ``law`` under ``prefix``."""
    return [parameter_name(prefix, key) for key in law.values()]

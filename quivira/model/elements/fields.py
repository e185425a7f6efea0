r"""The fields of an element kind, declared once with what they mean.

Every element kind is a dataclass whose fields carry a :class:`Spec` in their metadata,
written with the helpers below (:func:`number`, :func:`local`, :func:`body`, :func:`flag`,
:func:`choice`, :func:`point`, :func:`law`, :func:`name`, ...). From that one declaration come:

* **creation and validation** (:meth:`Spec.check`; ``Element.create``), with messages that
  name the element and the field;
* **files** (``to_dict``/``from_dict``: one key per field, checked the same way);
* **value edits** (``model.set(name, **values)``: editable fields only; a field that is not
  ``topology`` changes runtime parameters and never recompiles);
* **sweep keys and sensitivity names** (``<element>.<field>`` of the ``sweepable`` and
  ``differentiable`` fields, see :mod:`quivira.model.names`);
* **the widget form** (label, unit, range, choices) and **the docs table** of the kind
  (:func:`table`).

A field is *topology* when compiled code depends on it (which bodies, a side, a frame): an edit
recompiles. Other numbers are *runtime*: they enter the equations as ``hy.par`` entries.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..._repr import short_repr
from ..validation import (
    MAX_MAGNITUDE,
    MIN_POSITIVE,
    check_flag,
    check_point,
    check_real,
    check_s,
    optional_bar,
)
from ..validation import bar_index as _bar_index

#: key of the metadata entry that holds a field's :class:`Spec`
KEY = "quivira"


@dataclass(frozen=True)
class Spec:
    """What one field of an element kind is.

    Attributes
    ----------
    what : str
        The kind of value: ``"number"``, ``"local"`` (a bar's local coordinate s in
        [-1/2, 1/2]), ``"body"`` (a body index), ``"body_or_ground"`` (a body index or None),
        ``"point"`` (x, y), ``"flag"``, ``"choice"``, ``"name"``, ``"law"`` (a heyoka
        expression), ``"data"`` (checked by the kind itself).
    label : str
        What the field is called in forms and messages.
    unit : str
        SI unit ("m", "N/m", "rad", "" for numbers without one).
    doc : str
        One sentence for the docs table and the form's tooltip.
    lower, upper : float or None
        Bounds of a number (``lower_open``: the bound is excluded).
    topology : bool
        Compiled code depends on the field (an edit recompiles).
    editable : bool
        ``model.set`` may change it.
    sweepable, differentiable : bool
        It is a sweep key, a sensitivity variable (``<element>.<field>``).
    choices : tuple
        The values of a ``"choice"`` field.
    optional : bool
        None is allowed (a derived default, e.g. a spring's rest length).
    """

    what: str
    label: str = ""
    unit: str = ""
    doc: str = ""
    lower: float | None = None
    upper: float | None = None
    lower_open: bool = False
    topology: bool = False
    editable: bool = True
    sweepable: bool = False
    differentiable: bool = False
    choices: tuple = ()
    optional: bool = False

    def check(self, value: Any, where: str, n_bodies: int | None = None) -> Any:
        """Return ``value`` checked and normalized; TypeError/ValueError naming ``where``.

        ``n_bodies`` bounds body indices (not checked when None).
        """
        if value is None and self.optional:
            return None
        w = self.what
        if w == "number":
            v = check_real(value, where)
            low = self.lower
            if low is not None and (v < low or (self.lower_open and v <= low)):
                if self.lower_open and low == 0.0:
                    raise ValueError(f"{where} must be positive, got {v:g}")
                rel = ">" if self.lower_open else ">="
                raise ValueError(f"{where} must be {rel} {low:g}, got {v:g}")
            if self.upper is not None and v > self.upper:
                raise ValueError(f"{where} must be <= {self.upper:g}, got {v:g}")
            if self.lower_open and low == 0.0 and v < MIN_POSITIVE:
                raise ValueError(f"{where} must be at least {MIN_POSITIVE:g} (smaller values "
                                 f"underflow the derived quantities), got {v:g}")
            return v
        if w == "local":
            return check_s(value, where)
        if w == "body":
            return _bar_index(value, n_bodies if n_bodies is not None else 1 << 62, where)
        if w == "body_or_ground":
            return optional_bar(value, n_bodies if n_bodies is not None else 1 << 62, where)
        if w == "point":
            return check_point(value, where)
        if w == "flag":
            return check_flag(value, where)
        if w == "choice":
            if not isinstance(value, str):
                raise TypeError(f"{where} must be one of {self.choices}, got "
                                f"{short_repr(value)}")
            if value not in self.choices:
                raise ValueError(f"{where} must be one of {self.choices}, got {value!r}")
            return value
        if w == "name":
            if not isinstance(value, str):
                raise TypeError(f"{where} must be a string, got {short_repr(value)}")
            return value
        return value  # "law", "data": checked by the kind

    @property
    def runtime(self) -> bool:
        """Whether an edit changes runtime parameters only (never recompiles)."""
        return not self.topology

    def range_text(self) -> str:
        """Return the allowed values as text, e.g. ``"> 0"``, ``"[0, 1]"``, ``"min, max"``."""
        if self.what == "choice":
            return ", ".join(self.choices)
        if self.what == "local":
            return "[-0.5, 0.5]"
        if self.what != "number":
            return ""
        low, up = self.lower, self.upper
        if low is not None and up is not None:
            return f"[{low:g}, {up:g}]"
        if low is not None:
            return f"{'>' if self.lower_open else '>='} {low:g}"
        if up is not None:
            return f"<= {up:g}"
        return f"|v| <= {MAX_MAGNITUDE:g}"


def _field(spec: Spec, default: Any = dataclasses.MISSING,
           factory: Callable | None = None) -> Any:
    kw: dict = {"metadata": {KEY: spec}}
    if factory is not None:
        kw["default_factory"] = factory
    elif default is not dataclasses.MISSING:
        kw["default"] = default
    return dataclasses.field(**kw)


def number(label: str, unit: str = "", doc: str = "", *, lower: float | None = None,
           upper: float | None = None, positive: bool = False, topology: bool = False,
           sweepable: bool = True, differentiable: bool = True, optional: bool = False,
           editable: bool = True, default: Any = dataclasses.MISSING) -> Any:
    """Declare a real number (``positive``: > 0; ``lower``/``upper``: inclusive bounds)."""
    spec = Spec("number", label, unit, doc, lower=0.0 if positive else lower, upper=upper,
                lower_open=positive, topology=topology, sweepable=sweepable and not topology,
                differentiable=differentiable and not topology, optional=optional,
                editable=editable)
    return _field(spec, default)


def local(label: str = "s", doc: str = "", *, default: Any = dataclasses.MISSING,
          sweepable: bool = True) -> Any:
    """Declare a bar's local coordinate s in [-1/2, 1/2] (centre + s L (cos θ, sin θ))."""
    return _field(Spec("local", label, "", doc or "position along the bar, -1/2 to 1/2",
                       sweepable=sweepable, differentiable=sweepable), default)


def body(label: str = "body", doc: str = "", *, ground: bool = False,
         default: Any = dataclasses.MISSING) -> Any:
    """Declare a body index (``ground``: None means the ground); topology, not editable."""
    return _field(Spec("body_or_ground" if ground else "body", label, "", doc,
                       topology=True, editable=False), default)


def point(label: str, unit: str = "m", doc: str = "", *, topology: bool = False,
          optional: bool = False, default: Any = dataclasses.MISSING) -> Any:
    """Declare a point (x, y) (ground or body frame)."""
    return _field(Spec("point", label, unit, doc, topology=topology, optional=optional),
                  default)


def flag(label: str, doc: str = "", *, topology: bool = False,
         default: Any = dataclasses.MISSING) -> Any:
    """Declare a bool."""
    return _field(Spec("flag", label, "", doc, topology=topology), default)


def choice(label: str, choices: tuple, doc: str = "", *, topology: bool = True,
           default: Any = dataclasses.MISSING) -> Any:
    """Declare one of a few strings (e.g. a side ``"min"``/``"max"``)."""
    return _field(Spec("choice", label, "", doc, topology=topology, choices=tuple(choices)),
                  default)


def name(default: Any = dataclasses.MISSING) -> Any:
    """Declare the element's name (unique among the model's names; not editable by ``set``)."""
    return _field(Spec("name", "name", "", "the element's name", editable=False), default)


def law(label: str, unit: str = "", doc: str = "", *, default: Any = dataclasses.MISSING
        ) -> Any:
    """Declare a heyoka expression of time, state and named parameters (topology)."""
    return _field(Spec("law", label, unit, doc, topology=True, editable=False), default)


def data(label: str, doc: str = "", *, topology: bool = True, editable: bool = False,
         default: Any = dataclasses.MISSING, factory: Callable | None = None) -> Any:
    """Declare a value the kind checks itself (lists of indices, matrices, ...)."""
    return _field(Spec("data", label, "", doc, topology=topology, editable=editable),
                  default, factory)


def specs(cls: type) -> dict[str, Spec]:
    """Return ``{field: Spec}`` of an element class, in declaration order."""
    return {f.name: f.metadata[KEY] for f in dataclasses.fields(cls) if KEY in f.metadata}


def table(cls: type) -> list[dict]:
    """Return the rows of the docs table of a kind: field, label, unit, range and roles."""
    rows = []
    for fname, s in specs(cls).items():
        roles = [r for r, on in (("topology", s.topology), ("editable", s.editable),
                                 ("sweepable", s.sweepable),
                                 ("differentiable", s.differentiable)) if on]
        rows.append({"field": fname, "label": s.label, "unit": s.unit,
                     "range": s.range_text(), "roles": ", ".join(roles), "doc": s.doc})
    return rows


def finite_or_none(v: Any) -> bool:
    """Whether ``v`` is None or a finite float (for optional numbers in files)."""
    return v is None or (isinstance(v, float) and math.isfinite(v))

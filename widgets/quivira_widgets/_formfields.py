"""One editor per declared field of an element kind, built from the field's metadata.

An element kind declares its fields once (:func:`quivira.elements.fields_of`: label, unit,
range, what the value is). :func:`editor_for` turns one declaration into a control:

* a number: a :class:`~quivira_widgets._fields.NumberField` with the unit beside it and the
  declared range as its hard limits (unbounded numbers: ``|v| <= 1e12``); what cannot be used
  (``abc``, ``nan``, ``inf``, ``1e400``, a negative value where the range forbids it) is
  refused next to the field and never reaches the model;
* a bar's local coordinate s: a number from -0.5 to 0.5;
* a body: a dropdown of the model's bodies (and the ground, when the field allows it);
* a point: x and y (both empty: None, when the field is optional);
* a flag: a checkbox; a choice: a dropdown of the declared choices;
* a law or other data (lists, point references, expressions): a text box, read by
  :func:`read_text`: numbers, lists and quoted names as Python literals, expressions of
  ``t``, the bodies' coordinates (``x0``, ``th1``, ``vx0``), the model's named parameters
  and ``sin``, ``cos``, ``exp``, ... as heyoka expressions (nothing else is evaluated).
"""

from __future__ import annotations

import ast
import dataclasses
import html
import math
import re
from typing import Any

import heyoka as hy
import ipywidgets as widgets

from ._fields import NumberField, NumberSpec, OptionalNumberField, format_number

#: largest magnitude of a number without a declared range (as the model checks it)
MAX_MAGNITUDE = 1e12
#: the value of the "ground" entry of a body dropdown
GROUND = -1
_FUNCTIONS = ("sin", "cos", "tan", "exp", "log", "sqrt", "tanh", "atan", "asin", "acos",
              "sinh", "cosh")
_OPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
        ast.Mult: lambda a, b: a * b, ast.Div: lambda a, b: a / b,
        ast.Pow: lambda a, b: a ** b}


def number_spec(spec: Any, name: str) -> NumberSpec:
    """Return the :class:`NumberSpec` of a declared number (or local coordinate) ``spec``."""
    if spec.what == "local":
        return NumberSpec(spec.label or name, "", lo=-0.5, hi=0.5,
                          expected="a number from -0.5 (start) to 0.5 (end of the bar)")
    positive = spec.lower_open and spec.lower == 0.0
    lo = None if positive else (spec.lower if spec.lower is not None else -MAX_MAGNITUDE)
    hi = spec.upper if spec.upper is not None else MAX_MAGNITUDE
    return NumberSpec(spec.label or name, spec.unit, lo=lo, hi=hi, positive=positive)


def _expression(node: ast.AST, names: dict) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) \
            and not isinstance(node.value, bool):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ValueError(f"unknown name {node.id!r}; use t, the coordinates (x0, y0, th0, "
                             f"vx0, ...), the named parameters or {', '.join(_FUNCTIONS)}")
        return names[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _expression(node.operand, names)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_expression(node.left, names),
                                   _expression(node.right, names))
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
            and node.func.id in _FUNCTIONS and len(node.args) == 1 and not node.keywords:
        return getattr(hy, node.func.id)(_expression(node.args[0], names))
    raise ValueError(f"not allowed in an expression: {ast.unparse(node)!r}")


def expression_names(model) -> dict:
    """Return the names an expression may use: ``t``, coordinates, velocities, parameters."""
    names: dict = {"t": hy.time}
    for i in range(len(model.bodies)):
        q, qd = model.variables(i)
        names.update({str(v): v for v in (*q, *qd)})
    for nm, el in model.elements.items():
        if type(el).kind == "param":
            names[nm] = model.parameter(nm)
    return names


#: longest text a law or data field reads (ast.literal_eval and the parser: bounded work)
MAX_TEXT = 10_000


def read_text(text: str, model, what: str) -> Any:
    """Return the value typed in a law or data field (see the module docstring).

    Empty text is None. ``what`` ("law" or "data"): a data field that holds expressions gets
    a list. ValueError says what is wrong.
    """
    t = str(text).strip()
    if not t:
        return None
    if len(t) > MAX_TEXT:
        raise ValueError(f"{len(t)} characters is too long for a field (at most {MAX_TEXT})")
    try:
        value = ast.literal_eval(t)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        pass
    else:
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"a finite number, got {t!r}")
        return list(value) if isinstance(value, tuple) else value
    try:
        tree = ast.parse(t, mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        raise ValueError(f"cannot read {t!r}: write a number, a list or an expression "
                         "such as 0.5 * sin(2 * t)") from None
    names = expression_names(model)
    if isinstance(tree, (ast.Tuple, ast.List)):
        return [_expression(e, names) for e in tree.elts]
    value = _expression(tree, names)
    return [value] if what == "data" else value


def show_text(value: Any) -> str:
    """Return the text of a law or data value (the inverse of :func:`read_text`)."""
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        # a list keeps its brackets, so that one entry ([0.0], [[1.0, 0.0]]) reads back as a
        # list; a tuple (a point, a reference) is written as its entries
        text = ", ".join(show_text(v) for v in value)
        return f"[{text}]" if isinstance(value, list) else text
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float):
        return format_number(value)
    return str(value)


def placeholder(spec: Any) -> str:
    """Return what an empty optional field means: the doc's ``(None: ...)``, else "default".

    E.g. "the initial distance" for a spring's rest length.
    """
    m = re.search(r"None: ([^)]*)\)", spec.doc)
    return m.group(1).strip() if m else "default"


class FieldEditor:
    """The control of one declared field: ``widget``, and :meth:`read` / :meth:`show`.

    Parameters
    ----------
    name : str
        The field's name (``"k"``).
    spec : Spec
        Its declaration (``kind.specs()[name]``).
    default : Any
        The value of a new element (``dataclasses.MISSING``: none).
    """

    def __init__(self, name: str, spec: Any, default: Any) -> None:
        self.name, self.spec, self.default = name, spec, default
        w = spec.what
        label = spec.label or name
        tip = spec.doc or label
        self.fields: list = []
        if w in ("number", "local"):
            ns = number_spec(spec, name)
            if spec.optional:
                f = OptionalNumberField(ns, None, placeholder=placeholder(spec), tooltip=tip)
            else:
                f = NumberField(ns, self._number_default(ns), tooltip=tip)
            self.fields = [f]
            self.widget = f
        elif w == "point":
            self.fields = [OptionalNumberField(
                NumberSpec(f"{label} {c}", spec.unit, lo=-MAX_MAGNITUDE, hi=MAX_MAGNITUDE),
                None, placeholder=placeholder(spec), description=c, tooltip=f"{tip} ({c})")
                for c in ("x", "y")]
            self.widget = widgets.VBox([widgets.HTML(
                f'<span class="quivira-hint">{html.escape(label)}'
                f'{" (" + spec.unit + ")" if spec.unit else ""}</span>'), *self.fields])
        elif w in ("body", "body_or_ground", "choice"):
            self.widget = widgets.Dropdown(description=label, tooltip=tip,
                                           options=list(spec.choices),
                                           style={"description_width": "74px"},
                                           layout=widgets.Layout(width="220px"))
            if w == "choice" and default in spec.choices:
                self.widget.value = default
        elif w == "flag":
            self.widget = widgets.Checkbox(value=bool(default is True), description=label,
                                           tooltip=tip, indent=False)
        else:  # law, data, name
            self.widget = widgets.Text(description=label, tooltip=tip,
                                       continuous_update=False,
                                       placeholder="e.g. 0.5 * sin(2 * t)" if w == "law" else
                                       placeholder(spec),
                                       style={"description_width": "74px"},
                                       layout=widgets.Layout(width="260px", max_width="100%"))
        self.widget.add_class(f"quivira-form-{name}")
        self.message = widgets.HTML()
        self.box = widgets.VBox([self.widget, self.message])

    def _number_default(self, ns: NumberSpec) -> float:
        d = self.default
        if isinstance(d, (int, float)) and not isinstance(d, bool):
            return float(d)
        return 1.0 if ns.positive else 0.0

    # ------------------------------------------------------------------ bodies
    def set_bodies(self, options: list[tuple[str, int]]) -> None:
        """Offer the model's bodies (``(label, index)``) in a body field."""
        if self.spec.what not in ("body", "body_or_ground"):
            return
        opts = ([("ground", GROUND)] if self.spec.what == "body_or_ground" else []) + options
        if list(self.widget.options) != opts:
            old = self.widget.value
            self.widget.options = opts
            values = [v for _, v in opts]
            if old in values:
                self.widget.value = old
            elif values:
                self.widget.value = values[-1] if self.spec.what == "body" else values[0]

    # ------------------------------------------------------------------ values
    @property
    def error(self) -> str:
        """The message of a refused input in the field ("" when none)."""
        return next((f.error for f in self.fields if f.error), "") or \
            getattr(self, "_error", "")

    def show_error(self, text: str) -> None:
        """Show ``text`` next to the field."""
        self._error = text
        if self.fields:
            self.fields[0].show_error(text)
        else:
            self.message.value = f'<span class="quivira-msg-error">⚠ {text}</span>'

    def clear_error(self) -> None:
        """Clear the message shown next to the field."""
        self._error = ""
        self.message.value = ""

    def read(self, model) -> Any:
        """Return the value in the control; ValueError (shown next to it) if it is refused."""
        self.clear_error()
        w = self.spec.what
        if self.error:
            raise ValueError(self.error)
        if w in ("number", "local"):
            return self.fields[0].value
        if w == "point":
            x, y = (f.value for f in self.fields)
            if x is None and y is None:
                return None
            if x is None or y is None:
                msg = f"{self.spec.label}: give both x and y, or leave both empty"
                self.show_error(msg)
                raise ValueError(msg)
            return (x, y)
        if w in ("body", "body_or_ground"):
            v = self.widget.value
            return None if v in (GROUND, None) else int(v)
        if w in ("choice", "flag"):
            return self.widget.value
        if w == "name":
            return self.widget.value.strip() or None
        try:
            return read_text(self.widget.value, model, w)
        except ValueError as exc:
            msg = f"{self.spec.label or self.name}: {exc}"
            self.show_error(msg)
            raise ValueError(msg) from None

    def show(self, value: Any) -> None:
        """Show ``value`` (of an element, or a new one's default) in the control."""
        self.clear_error()
        w = self.spec.what
        if value is dataclasses.MISSING:
            value = None
        if w in ("number", "local"):
            f = self.fields[0]
            f.set_quietly(value if value is not None or self.spec.optional
                          else self._number_default(f.spec))
            f.check_value(f.value)
        elif w == "point":
            for f, v in zip(self.fields, (None, None) if value is None else value):
                f.set_quietly(v)
                f.check_value(f.value)
        elif w in ("body", "body_or_ground"):
            v = GROUND if value is None else value
            if v in [o for _, o in self.widget.options]:
                self.widget.value = v
        elif w == "choice":
            if value in self.spec.choices:
                self.widget.value = value
        elif w == "flag":
            self.widget.value = bool(value)
        elif w == "name":
            self.widget.value = value or ""
        else:
            self.widget.value = show_text(value)

    @property
    def disabled(self) -> bool:
        """Whether the control is greyed out."""
        return bool((self.fields[0] if self.fields else self.widget).disabled)

    @disabled.setter
    def disabled(self, value: bool) -> None:
        for f in self.fields or [self.widget]:
            f.disabled = value


def editors_for(kind: type) -> list[FieldEditor]:
    """Return one :class:`FieldEditor` per declared field of ``kind``, in declaration order."""
    out = []
    for f in dataclasses.fields(kind):
        spec = kind.specs().get(f.name)
        if spec is None:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING
            else dataclasses.MISSING)
        out.append(FieldEditor(f.name, spec, default))
    return out

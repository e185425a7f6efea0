"""Input fields that never lie: what cannot be used is refused with a message next to the field.

A :class:`NumberField` is a text box with its unit beside it and a message line below. What is
typed is parsed here, not in the browser (a browser number box silently reverts a letter, an
empty field or ``1e400``):

* a value that cannot be used keeps the typed text, marks the field red and says what is
  expected, e.g. ``length in m: a positive number, got 'abc'``; ``value`` keeps the last good
  number, so nothing downstream changes;
* a legal but suspicious value (``g < 0``, a very large force) is accepted and marked with a
  warning, e.g. ``g < 0: gravity points up (+y)``;
* a good value becomes ``value`` (a trait: observe it).

Limits are part of a field's :class:`NumberSpec`: the hard limits keep the simulation within
its budget (e.g. a time span of at most 10⁴ s); the warning limits flag unusual values.
Setting ``value`` from code (tests, notebooks) writes the text too.
"""

from __future__ import annotations

import math
import re
from abc import abstractmethod
from dataclasses import dataclass

import ipywidgets as widgets
import traitlets

from ._messages import Message
from ._widgets import AbstractWidgetMeta

_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_DESCRIPTION_WIDTH = "74px"


@dataclass(frozen=True)
class NumberSpec:
    """What a number field accepts.

    Attributes
    ----------
    name : str
        What the value is, as the field shows it ("length").
    unit : str
        Its unit ("m"), or "" for none.
    lo, hi : float or None
        Hard limits (inclusive); a value outside is refused.
    positive : bool
        Refuse zero and negative values.
    integer : bool
        Accept whole numbers only.
    warn_lo, warn_hi : float or None
        A value below ``warn_lo`` or above ``warn_hi`` is accepted with a warning.
    warn_below, warn_above : str
        The warning texts.
    expected : str
        How the expected value is described ("a positive number"); made from the limits when
        empty.
    why : str
        Why the hard limit exists (appended to the refusal of an out-of-range value).
    why_lo : str or None
        Why the lower limit exists, when that differs from ``why`` ("" for no reason).
    """

    name: str
    unit: str = ""
    lo: float | None = None
    hi: float | None = None
    positive: bool = False
    integer: bool = False
    warn_lo: float | None = None
    warn_hi: float | None = None
    warn_below: str = ""
    warn_above: str = ""
    expected: str = ""
    why: str = ""
    why_lo: str | None = None

    @property
    def what(self) -> str:
        """``"length in m"`` or ``"frames"``."""
        return f"{self.name} in {self.unit}" if self.unit else self.name

    def describe(self) -> str:
        """Return the expected value in words, e.g. ``"a positive number up to 1e+06"``."""
        if self.expected:
            return self.expected
        noun = "whole number" if self.integer else "number"
        if self.positive:
            text = f"a positive {noun}"
        else:
            text = f"a {noun}"
        if self.lo is not None and self.hi is not None and not self.positive:
            return f"{text} from {self.lo:g} to {self.hi:g}"
        if self.hi is not None:
            text += f" up to {self.hi:g}"
        if self.lo is not None and not self.positive:
            text += f" from {self.lo:g}"
        return text

    def parse(self, text: str) -> tuple[float, str]:
        """Parse ``text``: ``(value, warning)`` (warning "" when none).

        Raises
        ------
        ValueError
            With the message to show, naming what is expected and what was typed.
        """
        raw = str(text)
        t = raw.strip().replace("−", "-").replace("\u2009", "").replace(" ", "")
        if not t:
            raise ValueError(f"{self.what}: {self.describe()}, got an empty field")
        pattern = _INTEGER if self.integer else _NUMBER
        if not pattern.fullmatch(t):
            hint = ""
            if not self.integer and re.fullmatch(r"[+-]?\d+,\d+", t):
                hint = " (write a point for decimals, e.g. 1.5)"
            raise ValueError(f"{self.what}: {self.describe()}, got {raw!r}{hint}")
        value: float = int(t) if self.integer else float(t)
        if self.integer:
            if abs(value) > 10 ** 15:
                raise ValueError(f"{self.what}: {self.describe()}, got {raw!r}")
        elif not math.isfinite(value):
            raise ValueError(f"{self.what}: {self.describe()}, got {raw!r} (too large)")
        elif abs(value) < 1e-300 and re.search(r"[1-9]", t.lower().split("e")[0]):
            raise ValueError(f"{self.what}: {self.describe()}, got {raw!r} (too small: it "
                             "rounds to 0)")
        return value, self.check(value, raw)

    def check(self, value: float, raw: str | None = None) -> str:
        """Check a number against the limits; returns the warning ("" when none).

        Raises
        ------
        ValueError
            If it is refused.
        """
        shown = repr(raw) if raw is not None else f"{value:g}"
        why = f" ({self.why})" if self.why else ""
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{self.what}: {self.describe()}, got {shown}")
        if self.positive and not value > 0:
            raise ValueError(f"{self.what}: {self.describe()}, got {shown}")
        if self.lo is not None and value < self.lo:
            if self.why_lo is not None:
                why = f" ({self.why_lo})" if self.why_lo else ""
            raise ValueError(f"{self.what}: at least {self.lo:g}{why}, got {shown}")
        if self.hi is not None and value > self.hi:
            raise ValueError(f"{self.what}: at most {self.hi:g}{why}, got {shown}")
        if self.warn_lo is not None and value < self.warn_lo:
            return self.warn_below or f"{self.what}: {value:g} is unusually small"
        if self.warn_hi is not None and value > self.warn_hi:
            return self.warn_above or f"{self.what}: {value:g} is unusually large"
        return ""


def format_number(value: float | None, integer: bool = False) -> str:
    """Return the text shown for ``value`` (12 significant digits; "" for None)."""
    if value is None:
        return ""
    if integer:
        return str(int(value))
    v = float(value)
    if v == 0.0:
        return "0"
    return f"{v:.12g}"


class _Field(widgets.VBox, metaclass=AbstractWidgetMeta):
    """A text box, a unit, a message line: the common part of the fields."""

    error = traitlets.Unicode("", help="the message of a refused input ('' when none)")
    warning = traitlets.Unicode("", help="the warning of an accepted input ('' when none)")

    def __init__(self, description: str, unit: str, tooltip: str, width: str,
                 placeholder: str = "") -> None:
        super().__init__()
        self.text = widgets.Text(description=description, continuous_update=False,
                                 placeholder=placeholder, tooltip=tooltip or description,
                                 style={"description_width": _DESCRIPTION_WIDTH},
                                 layout=widgets.Layout(width=width))
        self.text.add_class("quivira-field")
        self.unit = widgets.HTML(f'<span class="quivira-unit">{unit}</span>' if unit else "",
                                 layout=widgets.Layout(min_width="2.2em" if unit else "0"))
        self.message = Message("quivira-field-message")
        self.message.widget.layout.min_height = "0"
        self.children = [widgets.HBox([self.text, self.unit],
                                      layout=widgets.Layout(align_items="center")),
                         self.message.widget]
        self.layout.margin = "0 8px 0 0"
        self._keep_text = False
        self._writing_text = False

    @property
    def description(self) -> str:
        """The label in front of the box."""
        return self.text.description

    @property
    def disabled(self) -> bool:
        """Whether the box accepts input."""
        return self.text.disabled

    @disabled.setter
    def disabled(self, value: bool) -> None:
        self.text.disabled = bool(value)

    def show_error(self, text: str) -> None:
        """Mark the field red and show ``text`` below it (the typed text stays)."""
        self.error = text
        self.warning = ""
        self.message.error(text)
        self.remove_class("quivira-warned")
        self.add_class("quivira-invalid")

    def show_warning(self, text: str) -> None:
        """Show a warning below the field (the value was accepted)."""
        self.error = ""
        self.warning = text
        self.message.warning(text)
        self.remove_class("quivira-invalid")
        self.add_class("quivira-warned")

    def clear_message(self) -> None:
        """Remove the error or warning."""
        self.error = ""
        self.warning = ""
        self.message.clear()
        self.remove_class("quivira-invalid")
        self.remove_class("quivira-warned")

    @abstractmethod
    def format(self, value) -> str:
        """Return the text shown for ``value``."""

    def set_quietly(self, value, keep_text: bool = False) -> None:
        """Set ``value`` and show it (``keep_text``: leave what was typed, and its message).

        Observers of ``value`` still run, so callers hold their own "syncing" guard.
        """
        self._keep_text = True
        try:
            self.value = value
        finally:
            self._keep_text = False
        if not keep_text:
            self.clear_message()
            self._write_text(value)

    def _write_text(self, value) -> None:
        """Show ``value`` as text without parsing it back (the value stays exact)."""
        self._writing_text = True
        try:
            self.text.value = self.format(value)
        finally:
            self._writing_text = False

    def check_value(self, value) -> None:
        """Show the message a value set from code deserves (refused, warned, or none)."""
        self.clear_message()


class NumberField(_Field):
    """A number typed as text, checked against a :class:`NumberSpec` (see the module docs).

    Parameters
    ----------
    spec : NumberSpec
        What the field accepts.
    value : float
        The initial value.
    description : str, optional
        The label (default ``spec.name``).
    tooltip : str
        Shown on hovering.
    width : str
        CSS width of the text box.

    Attributes
    ----------
    value : float
        The last accepted number (a trait).
    text : ipywidgets.Text
        The box (type into ``text.value``; it is parsed on Enter or when leaving the box).
    error, warning : str
        The current message (traits).
    """

    value = traitlets.Float(0.0, allow_none=True)

    def __init__(self, spec: NumberSpec, value: float = 0.0, description: str | None = None,
                 tooltip: str = "", width: str = "172px") -> None:
        super().__init__(description if description is not None else spec.name, spec.unit,
                         tooltip, width)
        self.spec = spec
        self.value = value
        self.text.value = self.format(value)
        self.text.observe(self._on_text, names="value")
        self.observe(self._on_value, names="value")

    def _on_text(self, change) -> None:
        if self._writing_text:
            return
        try:
            value, warning = self.spec.parse(change["new"])
        except ValueError as exc:
            self.show_error(str(exc))
            return
        if warning:
            self.show_warning(warning)
        else:
            self.clear_message()
        self.set_quietly(value, keep_text=True)

    def format(self, value) -> str:
        """Return the text shown for ``value``."""
        return format_number(value, self.spec.integer)

    def check_value(self, value) -> None:
        """Refuse or warn about a value set from code, as if it had been typed."""
        if value is None:
            self.show_error(f"{self.spec.what}: {self.spec.describe()}, got nothing")
            return
        try:
            warning = self.spec.check(value)
        except ValueError as exc:
            self.show_error(str(exc))
            return
        if warning:
            self.show_warning(warning)
        else:
            self.clear_message()

    def _on_value(self, change) -> None:
        if self._keep_text:
            return
        self._write_text(change["new"])
        self.check_value(change["new"])

    def set_spec(self, spec: NumberSpec) -> None:
        """Accept what ``spec`` accepts from now on (e.g. N·m instead of N).

        The unit beside the box follows, and the value shown is checked again.
        """
        self.spec = spec
        self.unit.value = f'<span class="quivira-unit">{spec.unit}</span>' if spec.unit else ""
        if not self.error:
            self.check_value(self.value)


class OptionalNumberField(NumberField):
    """A :class:`NumberField` that may be left empty.

    ``value`` is then None, which means what ``placeholder`` says (e.g. "initial distance").

    Parameters
    ----------
    spec : NumberSpec
        What a number typed in must be.
    value : float or None
        The initial value.
    placeholder : str
        Shown in the empty box.
    """

    value = traitlets.Float(None, allow_none=True)

    def __init__(self, spec: NumberSpec, value: float | None = None, placeholder: str = "",
                 **kwargs) -> None:
        super().__init__(spec, value, **kwargs)
        self.text.placeholder = placeholder

    def _on_text(self, change) -> None:
        if self._writing_text:
            return
        if not str(change["new"]).strip():
            self.clear_message()
            self.set_quietly(None, keep_text=True)
            return
        super()._on_text(change)

    def check_value(self, value) -> None:
        """Accept an empty value; check a number as :class:`NumberField` does."""
        if value is None:
            self.clear_message()
            return
        super().check_value(value)


class IntField(NumberField):
    """A :class:`NumberField` of whole numbers (``spec.integer`` must be True)."""

    value = traitlets.Int(0, allow_none=True)

    def __init__(self, spec: NumberSpec, value: int = 0, **kwargs) -> None:
        if not spec.integer:
            raise ValueError("IntField needs a NumberSpec with integer=True")
        super().__init__(spec, value, **kwargs)


class ListField(_Field):
    """A comma-separated list of numbers (bar indices or points ``s``), parsed in the kernel.

    Parameters
    ----------
    name : str
        What the list holds, for messages ("bars").
    kind : {"index", "s"}
        Bar indices (whole numbers ≥ 0) or points on bars (numbers in [-0.5, 0.5]).
    value : list
        The initial list.

    Attributes
    ----------
    value : list
        The last accepted list (a trait).
    """

    value = traitlets.Any([])

    def __init__(self, name: str, kind: str, value: list | None = None, description: str = "",
                 tooltip: str = "", placeholder: str = "", width: str = "300px") -> None:
        if kind not in ("index", "s"):
            raise ValueError(f"kind must be 'index' or 's', got {kind!r}")
        super().__init__(description or name, "", tooltip, width, placeholder)
        self.name = name
        self.kind = kind
        self.value = list(value or [])
        self.text.value = self.format(self.value)
        self.text.observe(self._on_text, names="value")
        self.observe(self._on_value, names="value")

    @traitlets.validate("value")
    def _text_to_list(self, proposal) -> list:
        """Parse a string set from code as if typed (TraitError with the message)."""
        v = proposal["value"]
        if isinstance(v, str):
            try:
                return self.parse(v)
            except ValueError as exc:
                raise traitlets.TraitError(str(exc)) from None
        try:
            return list(v)
        except TypeError:
            raise traitlets.TraitError(f"{self.name}: expected a list or a text such as "
                                       f"'0, 1', got {v!r}") from None

    def format(self, values: list) -> str:
        """Return the text shown for a list."""
        try:
            if self.kind == "index":
                return ", ".join(str(int(v)) for v in values)
            return ", ".join(format_number(float(v)) for v in values)
        except (TypeError, ValueError, OverflowError):
            return ", ".join(str(v) for v in values)

    def parse(self, text: str) -> list:
        """Parse the typed text (ValueError with the message to show)."""
        if self.kind == "index":
            expected = "two or more bar numbers separated by commas, e.g. 0, 1"
        else:
            expected = ("one point per bar, each from -0.5 (start) to 0.5 (end), separated by "
                        "commas, e.g. 0.5, -0.5")
        raw = str(text)
        parts = [p for p in re.split(r"[,;\s]+", raw.strip().replace("−", "-")) if p]
        if not parts:
            raise ValueError(f"{self.name}: {expected}; the field is empty")
        out = []
        for p in parts:
            pattern = _INTEGER if self.kind == "index" else _NUMBER
            if not pattern.fullmatch(p):
                raise ValueError(f"{self.name}: {expected}; got {raw!r}")
            if self.kind == "index":
                v = int(p)
                if v < 0 or v > 10 ** 9:
                    raise ValueError(f"{self.name}: bar numbers are 0, 1, 2, …; got {p}")
            else:
                v = float(p)
                if not (math.isfinite(v) and -0.5 <= v <= 0.5):
                    raise ValueError(f"{self.name}: each point from -0.5 (start) to 0.5 "
                                     f"(end); got {p}")
            out.append(v)
        if self.kind == "index" and len(out) < 2:
            raise ValueError(f"{self.name}: {expected}; got {raw!r}")
        return out

    def _on_text(self, change) -> None:
        if self._writing_text:
            return
        try:
            value = self.parse(change["new"])
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.clear_message()
        self.set_quietly(value, keep_text=True)

    def _on_value(self, change) -> None:
        if self._keep_text:
            return
        self._write_text(change["new"])
        try:
            self.parse(self.format(change["new"]))
        except ValueError as exc:
            self.show_error(str(exc))
            return
        self.clear_message()

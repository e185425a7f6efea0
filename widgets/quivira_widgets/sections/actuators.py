"""Actuators in the *Loads* section: forces and torques whose value follows a law of time.

* a **force** at the point ``s`` of a bar, along the direction α (degrees from the x axis in
  the ground frame, or from the bar's axis in the bar frame, turning with the bar)
  (``model.add_force_actuator``);
* a **torque** on a bar, or between two bars: +τ on the driven bar and −τ on the other
  (``model.add_torque_actuator``).

The value is constant, g(t) = g₀, or sinusoidal, g(t) = g₀ + A·sin(ω t + φ) (N or N·m). Every
number of a law is a named runtime parameter (:mod:`quivira_widgets._laws`), so editing the
amplitude, the frequency or any other value of a selected actuator is ``model.set_parameter``
and re-simulates without recompiling. Where an actuator acts and the shape of its law are
fixed once it exists (delete it and add a new one). Actuators whose law was written in code
are listed with their law and can be deleted here, not edited.
"""

from __future__ import annotations

import html
import math

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import ForceActuator, Parameter, TorqueActuator

from .. import _laws as laws
from .. import _specs as spec
from .._fields import NumberField
from .._modelinfo import by_collection, n_bodies, nice
from .base import GROUND, NEW, ItemSection, bar_dropdown, row

#: the value keys of a law, and whether the field shows degrees
_KEYS = (("offset", False), ("amplitude", False), ("omega", False), ("phase", True),
         ("direction", True))


class ActuatorsSection(ItemSection):
    """Force and torque actuators of the model (see the module docstring).

    Attributes
    ----------
    kind : ipywidgets.ToggleButtons
        ``"force"`` or ``"torque"`` (of a new actuator).
    law_kind : ipywidgets.ToggleButtons
        ``"constant"`` or ``"sine"`` (of a new actuator).
    bar : ipywidgets.Dropdown
        The bar acted on (the driven bar of a torque, +τ).
    s : NumberField
        The point of a force on its bar.
    frame : ipywidgets.ToggleButtons
        ``"ground"`` or ``"bar"``: the frame of the direction α of a force.
    reaction : ipywidgets.Dropdown
        The bar receiving −τ of a torque, or ``GROUND`` (-1) for none.
    offset, amplitude, omega, phase, direction : NumberField
        g₀ and A (N or N·m), ω (rad/s), φ (°), α (°).
    law_text : ipywidgets.HTML
        The law in words and the names of its parameters.
    """

    noun = "actuator"
    title = "Actuators"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.kind = widgets.ToggleButtons(options=[("force", "force"), ("torque", "torque")],
                                          value="torque", style={"button_width": "80px"},
                                          tooltip="a force on a bar point, or a torque")
        self.kind.add_class("quivira-actuator-kind")
        self.law_kind = widgets.ToggleButtons(options=[("constant", "constant"),
                                                       ("sinusoidal", "sine")], value="sine",
                                              style={"button_width": "90px"},
                                              tooltip="g(t) = g₀, or g₀ + A·sin(ω t + φ)")
        self.bar = bar_dropdown("on bar", tooltip="the bar acted on (+τ for a torque)")
        self.s = NumberField(spec.POINT_S, 0.5, "point s", "point of the bar: -0.5 start, "
                             "0 centre, 0.5 end")
        self.frame = widgets.ToggleButtons(options=[("ground frame", "ground"),
                                                    ("bar frame", "bar")], value="ground",
                                           style={"button_width": "90px"},
                                           tooltip="α from the x axis (ground), or from the "
                                           "bar's axis, turning with it (bar)")
        self.reaction = bar_dropdown("−τ on", "nothing", tooltip="a torque between two bars: "
                                     "−τ on this bar")
        self.offset = NumberField(spec.LAW_TORQUE, 0.0, "offset g₀", "the constant part")
        self.amplitude = NumberField(spec.AMPLITUDE_TORQUE, 1.0, "amplitude A",
                                     "A in g₀ + A·sin(ω t + φ)")
        self.omega = NumberField(spec.OMEGA, 2 * math.pi, "ω", "angular frequency (2π × "
                                 "the frequency in Hz)")
        self.phase = NumberField(spec.PHASE, 0.0, "phase φ", "phase at t = 0, in degrees")
        self.direction = NumberField(spec.DIRECTION, -90.0, "direction α",
                                     "direction of the force, degrees counter-clockwise from "
                                     "the x axis (ground frame) or the bar's axis (bar frame)")
        self.law_text = widgets.HTML()
        self.fields = {"offset": self.offset, "amplitude": self.amplitude, "omega": self.omega,
                       "phase": self.phase, "direction": self.direction}
        for key, f in self.fields.items():
            self.on_change(f, lambda key=key: self._on_value(key))
        self.on_change(self.kind, self._show_kind)
        self.on_change(self.law_kind, self._show_kind)
        self.on_change(self.frame, self._show_kind)
        self._force_row = row(self.s, self.frame, align="center")
        self._sine_row = row(self.omega, self.phase)
        self.children = [self.select, row(self.kind, self.law_kind, align="center"),
                         row(self.bar, self.reaction, align="center"), self._force_row,
                         row(self.direction), row(self.offset, self.amplitude), self._sine_row,
                         self.law_text, row(self.add_button, self.delete_button),
                         self.message.widget]
        self._law: tuple[str, laws.Law] | None = None
        self._show_kind()

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the actuators of the model listed by the section."""
        el = by_collection(self.model)
        return ([("force", a) for a in el.get("force_actuators", [])]
                + [("torque", a) for a in el.get("torque_actuators", [])])

    def read(self, item) -> tuple[str, laws.Law] | None:
        """``(prefix, law)`` of an actuator made here, None for a law written in code."""
        kind, el = item
        exprs = [el.fx, el.fy] if kind == "force" else [el.torque]
        return laws.read_law(self.model, exprs)

    def item_label(self, k: int, item) -> str:
        """Return the selector's text of item ``k``."""
        kind, el = item
        found = self.read(item)
        if kind == "force":
            where = f"force on bar {el.bar} (s = {el.s:g})"
            law = found[1].text("N") if found else "law set in code"
        else:
            where = f"torque on bar {el.bar}" + ("" if el.bar_a is None
                                                 else f" (−τ on bar {el.bar_a})")
            law = found[1].text("N·m") if found else "law set in code"
        return f"{el.name}: {where}, {law}"

    def selected_item(self):
        """``(kind, element)`` of the selected actuator, or None for "+ new actuator"."""
        k = self.selected
        items = self.items()
        return None if k == NEW or k >= len(items) else items[k]

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        n = n_bodies(self.model)
        self.set_bar_options(self.bar, default=n - 1)
        self.set_bar_options(self.reaction, "nothing", default=GROUND)
        super().refresh()

    def fill_from(self, item, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        kind, el = item
        self._law = self.read(item)
        self.put(self.kind, kind, force)
        self.put(self.bar, el.bar, force)
        if kind == "force":
            self.put(self.s, el.s, force)
            self.put(self.frame, el.frame, force)
        else:
            self.put(self.reaction, GROUND if el.bar_a is None else el.bar_a, force)
        if self._law is not None:
            law = self._law[1]
            self.put(self.law_kind, law.kind, force)
            for key, degrees in _KEYS:
                v = getattr(law, key)
                if v is not None:
                    self.put(self.fields[key], nice(math.degrees(v) if degrees else v), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill in a sinusoidal torque of 1 N·m at 1 Hz on the last bar."""
        n = n_bodies(self.model)
        self._law = None
        with self.syncing():
            self.bar.value = n - 1 if n else None
            self.reaction.value = GROUND
            for f, v in ((self.s, 0.5), (self.offset, 0.0), (self.amplitude, 1.0),
                         (self.omega, nice(2 * math.pi)), (self.phase, 0.0),
                         (self.direction, -90.0)):
                f.set_quietly(v)
        self._show_kind()

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        new = k == NEW
        for w in (self.kind, self.law_kind, self.bar, self.s, self.frame, self.reaction):
            w.disabled = not new
        custom = not new and self._law is None
        for f in self.fields.values():
            f.disabled = custom
        self._show_kind()

    def _show_kind(self) -> None:
        force = self.kind.value == "force"
        sine = self.law_kind.value == "sine"
        self._force_row.layout.display = None if force else "none"
        self.direction.layout.display = None if force else "none"
        self.reaction.layout.display = "none" if force else None
        self._sine_row.layout.display = None if sine else "none"
        self.amplitude.layout.display = None if sine else "none"
        unit = "N" if force else "N·m"
        want = (spec.LAW_FORCE, spec.AMPLITUDE_FORCE) if force else (spec.LAW_TORQUE,
                                                                    spec.AMPLITUDE_TORQUE)
        for f, sp in zip((self.offset, self.amplitude), want):
            if f.spec is not sp:
                f.set_spec(sp)
        self.law_text.value = self._law_html(unit)

    def _law_html(self, unit: str) -> str:
        item = self.selected_item()
        if item is not None and self._law is None:
            el = item[1]
            exprs = [el.fx, el.fy] if item[0] == "force" else [el.torque]
            text = "law set in code (delete it here, edit it in code): " + "; ".join(
                str(e) for e in exprs)
            return f'<span class="quivira-hint">{html.escape(text)}</span>'
        try:
            law = self._law_from_fields()
        except ValueError:
            return ""
        text = law.text(unit)
        if self._law is not None:
            names = ", ".join(laws.law_parameters(self._law[0], self._law[1]))
            text += f" · parameters {names} (edits do not recompile)"
        return f'<span class="quivira-hint">{html.escape(text)}</span>'

    def _law_from_fields(self) -> laws.Law:
        force = self.kind.value == "force"
        return laws.Law(kind=self.law_kind.value, offset=self.offset.value,
                        amplitude=self.amplitude.value, omega=self.omega.value,
                        phase=math.radians(self.phase.value),
                        direction=math.radians(self.direction.value) if force else None)

    # ------------------------------------------------------------------ edits
    def _on_value(self, key: str) -> None:
        field = self.fields[key]
        item = self.selected_item()
        if item is None:
            self._show_kind()  # the template's law text follows the fields
            return
        if self._law is None or field.error:
            return
        prefix, law = self._law
        if getattr(law, key) is None or (law.kind == "constant" and key in ("amplitude",
                                                                            "omega", "phase")):
            return
        value = field.value
        degrees = dict(_KEYS)[key]
        stored = math.radians(value) if degrees else value
        name = laws.parameter_name(prefix, key)
        old = getattr(law, key)
        shown = f"{value:.6g}°" if degrees else f"{value:.6g}"
        self.apply(lambda: self.model.set(name, value=stored),
                   f"{item[1].name}: {name} = {shown}", field,
                   nice(math.degrees(old) if degrees else old))

    def add(self) -> str | None:
        """Add a force or torque actuator with the law of the fields; returns its name."""
        if self.selected != NEW:
            self.message.error("choose '+ new actuator' to add an actuator")
            return None
        bar = self.bar.value
        if bar is None:
            self.message.error("add a bar first: an actuator acts on a bar")
            return None
        force = self.kind.value == "force"
        fields = [self.offset] + ([self.amplitude, self.omega, self.phase]
                                  if self.law_kind.value == "sine" else [])
        fields += [self.s, self.direction] if force else []
        if self.refused(*fields):
            return None
        reaction = None if force or self.reaction.value == GROUND else self.reaction.value
        if reaction == bar:
            self.message.error(f"−τ on bar {bar}, the driven bar itself: choose another bar "
                               "or nothing")
            return None
        law = self._law_from_fields()
        s, frame = self.s.value, self.frame.value
        model = self.model

        def action() -> str:
            prefix = laws.free_prefix(model, "fa" if force else "tq")
            with model.batch():  # one change, one undo step
                added: list[str] = []
                try:
                    for key, value in law.values().items():
                        name = laws.parameter_name(prefix, key)
                        model.add(Parameter(name=name, value=value))
                        added.append(name)
                    exprs = laws.law_expressions(model, prefix, law.kind, force)
                    if force:
                        return model.add(ForceActuator(bar=bar, s=s, fx=exprs[0], fy=exprs[1],
                                                       frame=frame))
                    return model.add(TorqueActuator(bar=bar, torque=exprs[0], bar_a=reaction))
                except Exception:
                    for name in reversed(added):
                        model.remove(name)
                    raise

        ok, name = self.apply(action, lambda name: f"added {name}")
        if ok:
            self.fresh_defaults()
        return name if ok else None

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        item = self.items()[k]
        found = self.read(item)
        name = item[1].name
        with self.model.batch():  # the actuator and its parameters: one undo step
            self.model.remove(name)
            if found is not None:
                for p in laws.law_parameters(*found):
                    self.model.remove(p)
        return name

    def removed_text(self, k: int, result) -> str:
        """Return the message shown after item ``k`` is deleted."""
        return f"deleted {result}"

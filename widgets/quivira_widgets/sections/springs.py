"""The *Springs & dampers* section: spring-dampers and torsional springs.

* A **spring-damper** joins the point ``s_a`` of a bar to the point ``s_b`` of another bar or
  to a ground point ``(x, y)``: stiffness k (N/m), rest length l0 (m; empty: the initial
  distance of the ends), damping c (N·s/m) on the rate of the length
  (``model.add_spring_damper``).
* A **torsional spring** acts on the relative angle φ = θ_b − θ_a of two bars (at their common
  joint), or of a bar and ground: k_θ (N·m/rad), rest angle φ0 (degrees here, radians in the
  model; empty: the initial angle), damping c_θ (N·m·s/rad) and a preload torque (N·m)
  (``model.add_torsional_spring``).

Their values are runtime parameters: with a spring selected, an edit of a value is
``model.set_spring`` and re-simulates without recompiling. Where a spring is attached is fixed
once it exists (delete it and add a new one to move it). A new spring's fields start as a
spring from the last bar's centre to a ground point half a bar length across the bar (on its
upper side), and a torsional spring at a joint of the last bar.
"""

from __future__ import annotations

import math

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import PinJoint, SpringDamper, TorsionalSpring

from .. import _specs as spec
from .._fields import NumberField, OptionalNumberField
from .._modelinfo import by_collection, n_bodies, nice, of_kind
from .base import GROUND, NEW, ItemSection, bar_dropdown, hint, row

KINDS = (("spring-damper", "spring"), ("torsional spring", "torsion"))


class SpringsSection(ItemSection):
    """Spring-dampers and torsional springs of the model (see the module docstring).

    Attributes
    ----------
    kind : ipywidgets.ToggleButtons
        ``"spring"`` (spring-damper) or ``"torsion"`` (torsional spring) — of a new one.
    bar_a, end_b : ipywidgets.Dropdown
        The bar of the first end; the second end: a bar or ``GROUND`` (-1).
    s_a, s_b : NumberField
        The points of the ends on their bars.
    ground_x, ground_y : NumberField
        The ground point (m) when ``end_b`` is ground.
    k, c : NumberField
        Stiffness (N/m) and damping (N·s/m).
    l0 : OptionalNumberField
        Rest length (m); empty: the initial distance.
    torsion_a, torsion_b : ipywidgets.Dropdown
        The bars of a torsional spring (``torsion_a`` may be ``GROUND``).
    k_theta, c_theta, preload : NumberField
        k_θ (N·m/rad), c_θ (N·m·s/rad), preload (N·m).
    phi0 : OptionalNumberField
        Rest angle (°); empty: the initial angle.
    """

    noun = "spring"
    title = "Springs & dampers"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.kind = widgets.ToggleButtons(options=list(KINDS), value="spring",
                                          style={"button_width": "120px"},
                                          tooltip="the kind of the new spring")
        self.kind.add_class("quivira-spring-kind")
        self._build_spring_fields()
        self._build_torsion_fields()
        self.on_change(self.kind, self._show_kind)
        self.on_change(self.end_b, self._show_kind)
        self.children = [self.select, self.kind, self._spring_box, self._torsion_box,
                         row(self.add_button, self.delete_button), self.message.widget]
        self._show_kind()

    def _build_spring_fields(self) -> None:
        self.bar_a = bar_dropdown("end a: bar", tooltip="the bar of the first end")
        self.s_a = NumberField(spec.POINT_S, 0.0, "point s",
                               "point of the bar: -0.5 start, 0 centre, 0.5 end")
        self.end_b = bar_dropdown("end b", "ground point", tooltip="the second end: a point "
                                  "of another bar, or a fixed point of the ground")
        self.s_b = NumberField(spec.POINT_S, 0.0, "point s",
                               "point of the second bar: -0.5 start, 0 centre, 0.5 end")
        self.ground_x = NumberField(spec.COORD_X, 0.0, "ground x", "x of the ground point")
        self.ground_y = NumberField(spec.COORD_Y, 1.0, "ground y", "y of the ground point")
        self.k = NumberField(spec.STIFFNESS, 100.0, tooltip="stiffness: tension = k (ℓ − l0) "
                             "+ c dℓ/dt")
        self.l0 = OptionalNumberField(spec.REST_LENGTH, None, "initial distance",
                                      tooltip="rest length; leave empty for the distance of "
                                      "the ends in the initial pose")
        self.c = NumberField(spec.DAMPING, 0.0, tooltip="damping on the rate of the length "
                             "(0: a spring alone)")
        self._ground_row = row(self.ground_x, self.ground_y)
        for f, key in ((self.k, "k"), (self.l0, "l0"), (self.c, "c")):
            self.on_change(f, lambda key=key, f=f: self._on_spring_value(key, f))
        self._spring_box = widgets.VBox([
            row(self.bar_a, self.s_a, align="center"), row(self.end_b, self.s_b, align="center"),
            self._ground_row, row(self.k, self.l0), row(self.c),
            hint("empty l0: the initial distance · tension = k (ℓ − l0) + c dℓ/dt")])

    def _build_torsion_fields(self) -> None:
        self.torsion_a = bar_dropdown("bar a", "ground", tooltip="the first bar (or ground): "
                                      "φ = θ_b − θ_a")
        self.torsion_b = bar_dropdown("bar b", tooltip="the second bar")
        self.k_theta = NumberField(spec.TORSION_K, 10.0, tooltip="torsional stiffness: torque "
                                   "= k_θ (φ − φ0) + c_θ dφ/dt + preload")
        self.phi0 = OptionalNumberField(spec.REST_ANGLE, None, "initial angle",
                                        tooltip="rest angle in degrees; leave empty for the "
                                        "relative angle in the initial pose")
        self.c_theta = NumberField(spec.TORSION_C, 0.0, tooltip="damping on the relative "
                                   "angular velocity")
        self.preload = NumberField(spec.PRELOAD, 0.0, tooltip="constant torque τ0 added to "
                                   "the spring's torque")
        for f, key in ((self.k_theta, "k"), (self.phi0, "phi0"), (self.c_theta, "c"),
                       (self.preload, "preload")):
            self.on_change(f, lambda key=key, f=f: self._on_torsion_value(key, f))
        self._torsion_box = widgets.VBox([
            row(self.torsion_a, self.torsion_b, align="center"), row(self.k_theta, self.phi0),
            row(self.c_theta, self.preload),
            hint("φ = θ_b − θ_a · empty φ0: the initial angle · torque = k_θ (φ − φ0) + "
                 "c_θ dφ/dt + preload")])

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the springs of the model listed by the section."""
        el = by_collection(self.model)
        return ([("spring", sp) for sp in el.get("springs", [])]
                + [("torsion", ts) for ts in el.get("torsional_springs", [])])

    def item_label(self, k: int, item) -> str:
        """Return the selector's text of item ``k``."""
        kind, el = item
        if kind == "spring":
            b = (f"ground ({el.ground[0]:.3g}, {el.ground[1]:.3g})" if el.bar_b is None
                 else f"bar {el.bar_b} (s = {el.s_b:g})")
            return (f"{el.name}: bar {el.bar_a} (s = {el.s_a:g}) ↔ {b}, k = {el.k:g} N/m"
                    + (f", c = {el.c:g} N·s/m" if el.c else ""))
        a = "ground" if el.bar_a is None else f"bar {el.bar_a}"
        return (f"{el.name}: {a} ↔ bar {el.bar_b}, k_θ = {el.k:g} N·m/rad"
                + (f", c_θ = {el.c:g} N·m·s/rad" if el.c else ""))

    def selected_element(self):
        """Return the selected spring (a copy), or None for "+ new spring"."""
        k = self.selected
        items = self.items()
        return None if k == NEW or k >= len(items) else items[k][1]

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        n = n_bodies(self.model)
        self.set_bar_options(self.bar_a, default=n - 1)
        self.set_bar_options(self.end_b, "ground point", default=GROUND)
        self.set_bar_options(self.torsion_a, "ground", default=GROUND)
        self.set_bar_options(self.torsion_b, default=n - 1)
        super().refresh()

    def fill_from(self, item, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        kind, el = item
        self.put(self.kind, kind, force)
        if kind == "spring":
            self.put(self.bar_a, el.bar_a, force)
            self.put(self.s_a, el.s_a, force)
            self.put(self.end_b, GROUND if el.bar_b is None else el.bar_b, force)
            self.put(self.s_b, el.s_b, force)
            if el.ground is not None:
                self.put(self.ground_x, nice(el.ground[0]), force)
                self.put(self.ground_y, nice(el.ground[1]), force)
            for f, v in ((self.k, el.k), (self.l0, el.l0), (self.c, el.c)):
                self.put(f, nice(v), force)
        else:
            self.put(self.torsion_a, GROUND if el.bar_a is None else el.bar_a, force)
            self.put(self.torsion_b, el.bar_b, force)
            for f, v in ((self.k_theta, el.k), (self.phi0, math.degrees(el.phi0)),
                         (self.c_theta, el.c), (self.preload, el.preload)):
                self.put(f, nice(v), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill in a spring from the last bar's centre to a ground point across the bar.

        And a torsional spring at a joint of the last bar (or to ground).
        """
        n = n_bodies(self.model)
        bars = self.model.bodies
        gx, gy = 0.0, 1.0
        if n and bars[-1].pose is not None:
            # half a bar length from its centre, across the bar, on the upper side
            x, y, th = bars[-1].pose
            nx, ny = -math.sin(th), math.cos(th)
            if ny < -1e-9 or (abs(ny) <= 1e-9 and nx > 0):
                nx, ny = -nx, -ny
            rise = max(0.5 * bars[-1].length, 0.1)
            gx, gy = float(f"{x + rise * nx:.3g}"), float(f"{y + rise * ny:.3g}")
            if math.hypot(gx - x, gy - y) < 0.5 * rise:  # rounding must not close the gap
                gx, gy = x + rise * nx, y + rise * ny
        other = GROUND
        for jt in of_kind(self.model, PinJoint):
            if n - 1 in jt.bars:
                other = next(b for b in jt.bars if b != n - 1)
                break
        with self.syncing():
            self.bar_a.value = n - 1 if n else None
            self.end_b.value = GROUND
            self.torsion_a.value = other
            self.torsion_b.value = n - 1 if n else None
            for f, v in ((self.s_a, 0.0), (self.s_b, 0.0), (self.ground_x, nice(gx)),
                         (self.ground_y, nice(gy)), (self.k, 100.0), (self.l0, None),
                         (self.c, 0.0), (self.k_theta, 10.0), (self.phi0, None),
                         (self.c_theta, 0.0), (self.preload, 0.0)):
                f.set_quietly(v)
        self._show_kind()

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        new = k == NEW
        for w in (self.kind, self.bar_a, self.s_a, self.end_b, self.s_b, self.ground_x,
                  self.ground_y, self.torsion_a, self.torsion_b):
            w.disabled = not new
        tip = "where a spring is attached is fixed: delete it and add a new one to move it"
        for dd in (self.bar_a, self.end_b, self.torsion_a, self.torsion_b):
            dd.tooltip = dd.description if new else tip
        self._show_kind()

    def _show_kind(self) -> None:
        spring = self.kind.value == "spring"
        self._spring_box.layout.display = None if spring else "none"
        self._torsion_box.layout.display = "none" if spring else None
        ground = self.end_b.value == GROUND
        self._ground_row.layout.display = None if ground else "none"
        self.s_b.layout.display = "none" if ground else None

    # ------------------------------------------------------------------ edits
    def _on_spring_value(self, key: str, field: NumberField) -> None:
        el = self.selected_element()
        if el is None or self.kind.value != "spring" or field.error:
            return
        value = field.value
        old = getattr(el, key)
        note = ""
        if value is None:  # an empty l0: the initial distance
            value = el.initial_length(self.model.bodies)
            if value is None:
                field.show_error("l0: the bars have no initial pose; type a rest length")
                return
            note = " (the initial distance)"
        unit = {"k": " N/m", "l0": " m", "c": " N·s/m"}[key]
        self.apply(lambda: self.model.set(el.name, **{key: value}),
                   f"{el.name}: {key} = {value:.6g}{unit}{note}", field, nice(old))

    def _on_torsion_value(self, key: str, field: NumberField) -> None:
        el = self.selected_element()
        if el is None or self.kind.value != "torsion" or field.error:
            return
        value = field.value
        old = getattr(el, key)
        note = ""
        if key == "phi0":
            old = math.degrees(old)
            if value is None:
                value = el.initial_angle(self.model.bodies)
                if value is None:
                    field.show_error("φ0: the bars have no initial pose; type a rest angle")
                    return
                note = " (the initial angle)"
            else:
                value = math.radians(value)
            shown = f"{math.degrees(value):.6g}°"
        else:
            shown = f"{value:.6g} {dict(k='N·m/rad', c='N·m·s/rad', preload='N·m')[key]}"
        label = {"k": "k_θ", "c": "c_θ", "phi0": "φ0", "preload": "preload"}[key]
        self.apply(lambda: self.model.set(el.name, **{key: value}),
                   f"{el.name}: {label} = {shown}{note}", field, nice(old))

    def add(self) -> str | None:
        """Add a spring-damper or a torsional spring from the fields; returns its name."""
        if self.selected != NEW:
            self.message.error("choose '+ new spring' to add a spring")
            return None
        if n_bodies(self.model) == 0:
            self.message.error("add a bar first: a spring acts on bars")
            return None
        action = self._spring_action() if self.kind.value == "spring" else self._torsion_action()
        if action is None:
            return None
        ok, name = self.apply(action, lambda name: f"added {name}")
        if ok:
            self.fresh_defaults()
        return name if ok else None

    def _spring_action(self):
        a, b = self.bar_a.value, self.end_b.value
        if a is None:
            self.message.error("choose the bar of end a")
            return None
        fields = [self.s_a, self.k, self.l0, self.c]
        fields += [self.ground_x, self.ground_y] if b == GROUND else [self.s_b]
        if self.refused(*fields):
            return None
        s_a, s_b, k, l0, c = (self.s_a.value, self.s_b.value, self.k.value, self.l0.value,
                              self.c.value)
        if b == GROUND:
            gp = (self.ground_x.value, self.ground_y.value)
            return lambda: self.model.add(SpringDamper(bar_a=a, s_a=s_a, bar_b=None, s_b=0.0,
                                                       ground=gp, k=k, l0=l0, c=c))
        return lambda: self.model.add(SpringDamper(bar_a=a, s_a=s_a, bar_b=b, s_b=s_b, k=k,
                                                   l0=l0, c=c))

    def _torsion_action(self):
        a, b = self.torsion_a.value, self.torsion_b.value
        if b is None:
            self.message.error("choose bar b")
            return None
        if self.refused(self.k_theta, self.phi0, self.c_theta, self.preload):
            return None
        k, c, pre = self.k_theta.value, self.c_theta.value, self.preload.value
        phi0 = None if self.phi0.value is None else math.radians(self.phi0.value)
        bar_a = None if a == GROUND else a
        return lambda: self.model.add(TorsionalSpring(bar_a=bar_a, bar_b=b, k=k, phi0=phi0, c=c,
                                                      preload=pre))

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        name = self.items()[k][1].name
        self.model.remove(name)
        return name

    def removed_text(self, k: int, result) -> str:
        """Return the message shown after item ``k`` is deleted."""
        return f"deleted {result}"

r"""The *Sliders, stops & contact* section.

Slots, prismatic joints, ground sliders, latches, angle stops and contacts (floors and
walls).

* a **slot** (pin-in-slot): the point ``s`` of bar b stays on the line of the guide bar a,
  shifted by ``offset`` (m) along its normal, :math:`n_a\cdot(p_b - c_a) - e = 0`; rotation
  free (``model.add_pin_in_slot``);
* a **prismatic joint**: the same line, and the relative angle locked,
  :math:`θ_b - θ_a = φ_0` (° here; empty: the initial angle) (``model.add_prismatic_joint``);
* a **ground slider**: the point ``s`` of a bar on the ground line through ``(x, y)`` at the
  guide angle α (°), :math:`n\cdot(p(s) - P) = 0`, :math:`n = (-\sin α, \cos α)`
  (``model.add_ground_slider``);
* a **latch**: when the relative angle :math:`φ = θ_b - θ_a` (bar a may be ground) reaches
  the latch angle, the hinge locks (a plastic impulse; the kinetic energy lost is in the event
  log) (``model.add_latch``);
* an **angle stop**: :math:`φ \le φ_{lim}` (side "max") or :math:`φ \ge φ_{lim}` ("min"),
  impacts with restitution e, resting below the rest speed (rad/s) (``model.add_angle_stop``);
* a **contact** (floor or wall): the point ``s`` of a bar stays where :math:`n\cdot p \ge h`,
  :math:`n = (\cos α, \sin α)` (α = 90°: a floor :math:`y \ge h`; 0°: a wall
  :math:`x \ge h`), with restitution e and a rest speed (m/s) (``model.add_contact``).

With an element selected, an edit of a value (point, offset, angles, limit, height,
restitution, rest speed, guide point) changes that element through
``model.set_constraint_values`` (one undo step, validated as by the ``add_*`` methods) — these
values are runtime parameters or event data, so the motion re-simulates without compiling,
except for the guide angle of a ground slider and the normal of a contact, which set the
direction of their reactions (a compile of the new direction). The bars of an element,
and a stop's side, are fixed once it exists (delete it and add a new one).
"""

from __future__ import annotations

import math

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import (
    AngleStop,
    Contact,
    GroundSlider,
    Latch,
    PinInSlot,
    PrismaticJoint,
)

from .. import _specs as spec
from .._fields import NumberField, OptionalNumberField
from .._modelinfo import by_collection, n_bodies, nice
from .base import GROUND, NEW, STYLE, ItemSection, bar_dropdown, hint, row

#: the kinds: (key, button label, model collection)
KINDS = (("slot", "slot", "slots"), ("prismatic", "prismatic", "prismatic_joints"),
         ("slider", "ground slider", "ground_sliders"), ("latch", "latch", "latches"),
         ("stop", "angle stop", "angle_stops"), ("contact", "floor / wall", "contacts"))
COLLECTION = {k: c for k, _, c in KINDS}
#: the fields each kind shows (beyond its bars)
FIELDS = {"slot": ("s", "offset"), "prismatic": ("s", "offset", "phi0"),
          "slider": ("s", "guide_angle", "guide_x", "guide_y"), "latch": ("latch_angle",),
          "stop": ("limit", "side", "restitution", "rest_speed_ang"),
          "contact": ("s", "height", "normal_angle", "restitution", "rest_speed_lin")}
#: the element attribute behind each field, and whether the field shows degrees
ATTRIBUTE = {"s": {"slot": "s_b", "prismatic": "s_b", "slider": "s", "contact": "s"},
             "offset": "offset", "phi0": "phi0", "guide_angle": "angle",
             "latch_angle": "angle", "limit": "limit", "restitution": "restitution",
             "rest_speed_ang": "rest_speed", "rest_speed_lin": "rest_speed",
             "height": "height", "normal_angle": "normal_angle"}
DEGREES = {"phi0", "guide_angle", "latch_angle", "limit", "normal_angle"}
UNITS = {"offset": " m", "height": " m", "rest_speed_ang": " rad/s", "rest_speed_lin": " m/s",
         "s": "", "restitution": ""}
#: bars: which kinds take a bar a, and whether it may be ground
BAR_A = {"slot": False, "prismatic": False, "latch": True, "stop": True}


def relative_angle(model, bar_a: int | None, bar_b: int) -> float | None:
    """Return the initial relative angle θ_b − θ_a (rad; θ_a = 0 for ground), or None.

    None when the model has no poses.
    """
    bars = model.bodies
    if bars[bar_b].pose is None or (bar_a is not None and bars[bar_a].pose is None):
        return None
    return bars[bar_b].pose[2] - (0.0 if bar_a is None else bars[bar_a].pose[2])


class SlidersSection(ItemSection):
    """Slots, prismatic joints, ground sliders, latches, stops and contacts (module docstring).

    Attributes
    ----------
    kind : ipywidgets.Dropdown
        ``"slot"``, ``"prismatic"``, ``"slider"``, ``"latch"``, ``"stop"``, ``"contact"``
        (of a new element).
    bar_a : ipywidgets.Dropdown
        The guide bar (slot, prismatic) or bar a of φ = θ_b − θ_a (latch, stop; ``GROUND``
        (-1) for ground).
    bar_b : ipywidgets.Dropdown
        The pin's / sliding / contact bar, or bar b of φ.
    s : NumberField
        The point of bar b on the line (slot, prismatic, slider) or in contact.
    offset : NumberField
        The slot line's distance from the guide bar's axis (m).
    phi0 : OptionalNumberField
        A prismatic joint's locked angle (°; empty: the initial angle).
    guide_angle, guide_x, guide_y : NumberField
        A ground slider's line: its angle (°) and a point on it (m).
    latch_angle, limit : NumberField
        The latch angle and the stop's limit (°).
    side : ipywidgets.ToggleButtons
        ``"max"`` (φ ≤ limit) or ``"min"`` (φ ≥ limit).
    restitution : NumberField
        e in [0, 1] of a stop or contact.
    rest_speed_ang, rest_speed_lin : NumberField
        Rest speed of a stop (rad/s) or of a contact (m/s).
    height, normal_angle : NumberField
        A contact's line n·p = h: h (m) and the normal's angle α (°; 90: a floor).
    fields : dict of str to NumberField
        The number fields by key.
    """

    noun = "element"
    title = "Sliders, stops & contact"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.add_button.tooltip = "add a slider, latch, stop or contact from the fields"
        self.delete_button.tooltip = "delete the selected element"
        self.kind = widgets.Dropdown(options=[(label, k) for k, label, _ in KINDS],
                                     value="slot", description="kind", style=STYLE,
                                     tooltip="the kind of the new element",
                                     layout=widgets.Layout(width="240px"))
        self.kind.add_class("quivira-slider-kind")
        self.bar_a = bar_dropdown("guide bar", "ground", tooltip="the guide bar (slot, "
                                  "prismatic) or bar a of φ = θ_b − θ_a (latch, stop)")
        self.bar_b = bar_dropdown("bar", tooltip="the bar with the pin / sliding / in "
                                  "contact, or bar b of φ = θ_b − θ_a")
        self.s = NumberField(spec.POINT_S, 0.0, "point s", "point of the bar: -0.5 start, "
                             "0 centre, 0.5 end")
        self.offset = NumberField(spec.OFFSET, 0.0, tooltip="distance of the slot line from "
                                  "the guide bar's axis, along its normal")
        self.phi0 = OptionalNumberField(spec.LOCK_ANGLE, None, "initial angle",
                                        tooltip="locked relative angle θ_b − θ_a in degrees; "
                                        "empty: the initial angle")
        self.guide_angle = NumberField(spec.GUIDE_ANGLE, 0.0, tooltip="direction of the "
                                       "ground line, degrees counter-clockwise from x")
        self.guide_x = NumberField(spec.COORD_X, 0.0, "line x", "a point of the ground line")
        self.guide_y = NumberField(spec.COORD_Y, 0.0, "line y", "a point of the ground line")
        self.latch_angle = NumberField(spec.LATCH_ANGLE, 0.0, tooltip="the hinge locks when "
                                       "θ_b − θ_a reaches this angle (degrees)")
        self.limit = NumberField(spec.LIMIT_ANGLE, 0.0, tooltip="the limit of θ_b − θ_a "
                                 "(degrees)")
        self.side = widgets.ToggleButtons(options=[("φ ≤ limit", "max"), ("φ ≥ limit", "min")],
                                          value="max", style={"button_width": "80px"},
                                          tooltip="which side of the limit is allowed")
        self.restitution = NumberField(spec.RESTITUTION, 0.0, "restit. e", "coefficient "
                                       "of restitution e: 0 plastic, 1 elastic")
        self.rest_speed_ang = NumberField(spec.REST_SPEED_ANG, 1e-3, tooltip="slower "
                                          "impacts end in resting contact")
        self.rest_speed_lin = NumberField(spec.REST_SPEED_LIN, 1e-3, tooltip="slower "
                                          "impacts end in resting contact")
        self.height = NumberField(spec.HEIGHT, 0.0, tooltip="the line n·p = h (a floor: y = h)")
        self.normal_angle = NumberField(spec.NORMAL_ANGLE, 90.0, tooltip="direction of the "
                                        "line's normal, pointing to the allowed side: 90° a "
                                        "floor, 0° a wall on the left, 180° on the right")
        self.fields = {"s": self.s, "offset": self.offset, "phi0": self.phi0,
                       "guide_angle": self.guide_angle, "guide_x": self.guide_x,
                       "guide_y": self.guide_y, "latch_angle": self.latch_angle,
                       "limit": self.limit, "restitution": self.restitution,
                       "rest_speed_ang": self.rest_speed_ang,
                       "rest_speed_lin": self.rest_speed_lin, "height": self.height,
                       "normal_angle": self.normal_angle}
        for key, f in self.fields.items():
            self.on_change(f, lambda key=key: self._on_value(key))
        self.on_change(self.kind, self._show_kind)
        for w, css in ((self.bar_a, "quivira-slider-bar-a"), (self.bar_b, "quivira-slider-bar-b"),
                       (self.side, "quivira-slider-side")):
            w.add_class(css)
        self.hint = hint("")
        self._rows = {
            "bars": row(self.bar_a, self.bar_b, align="center"),
            "s": row(self.s), "offset": row(self.offset, self.phi0),
            "guide": row(self.guide_angle), "point": row(self.guide_x, self.guide_y),
            "latch": row(self.latch_angle), "stop": row(self.limit, self.side, align="center"),
            "contact": row(self.height, self.normal_angle),
            "impact": row(self.restitution, self.rest_speed_ang, self.rest_speed_lin)}
        self.children = [self.select, self.kind, *self._rows.values(), self.hint,
                         row(self.add_button, self.delete_button), self.message.widget]
        self._show_kind()

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the sliders and contacts of the model listed by the section."""
        el = by_collection(self.model)
        return [(k, e) for k, _, coll in KINDS for e in el.get(coll, [])]

    def item_label(self, k: int, item) -> str:
        """Return the selector's text of item ``k``."""
        kind, el = item
        if kind in ("slot", "prismatic"):
            what = "slot" if kind == "slot" else "prismatic joint"
            extra = f", offset {el.offset:g} m" if el.offset else ""
            return f"{el.name}: {what}, bar {el.bar_b} (s = {el.s_b:g}) on bar {el.bar_a}{extra}"
        if kind == "slider":
            return (f"{el.name}: bar {el.bar} (s = {el.s:g}) on the ground line at "
                    f"{math.degrees(el.angle):.4g}°")
        if kind in ("latch", "stop"):
            a = "ground" if el.bar_a is None else f"bar {el.bar_a}"
            if kind == "latch":
                return (f"{el.name}: latch {a} → bar {el.bar_b} at "
                        f"{math.degrees(el.angle):.4g}°")
            rel = "≤" if el.side == "max" else "≥"
            return (f"{el.name}: stop φ(bar {el.bar_b} − {a}) {rel} "
                    f"{math.degrees(el.limit):.4g}°, e = {el.restitution:g}")
        return (f"{el.name}: bar {el.bar} (s = {el.s:g}), n·p ≥ {el.height:g} m at "
                f"{math.degrees(el.normal_angle):.4g}°, e = {el.restitution:g}")

    def selected_item(self):
        """``(kind, element)`` of the selected element, or None for "+ new element"."""
        k = self.selected
        items = self.items()
        return None if k == NEW or k >= len(items) else items[k]

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        n = n_bodies(self.model)
        self.set_bar_options(self.bar_a, "ground", default=0 if n > 1 else GROUND)
        self.set_bar_options(self.bar_b, default=n - 1)
        super().refresh()

    def fill_from(self, item, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        kind, el = item
        self.put(self.kind, kind, force)
        if kind in ("slot", "prismatic", "latch", "stop"):
            self.put(self.bar_a, GROUND if el.bar_a is None else el.bar_a, force)
            self.put(self.bar_b, el.bar_b, force)
        else:
            self.put(self.bar_b, el.bar, force)
        for key in FIELDS[kind]:
            if key == "side":
                self.put(self.side, el.side, force)
                continue
            if key in ("guide_x", "guide_y"):
                self.put(self.fields[key], nice(el.point[0 if key == "guide_x" else 1]), force)
                continue
            v = getattr(el, self._attr(key, kind))
            self.put(self.fields[key], nice(math.degrees(v) if key in DEGREES else v), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill in a slot of the last bar's centre on the bar before it.

        The other kinds' values at the neutral choices (0° angles, e = 0, a floor at y = 0 under
        the last bar).
        """
        n = n_bodies(self.model)
        bars = self.model.bodies
        gx = gy = 0.0
        floor = 0.0
        if n and bars[-1].pose is not None:
            gx, gy = bars[-1].pose[0], bars[-1].pose[1]
            x, y, th = bars[-1].pose
            floor = y - 0.5 * bars[-1].length * abs(math.sin(th)) - 0.1 * bars[-1].length
        with self.syncing():
            self.bar_a.value = n - 2 if n > 1 else GROUND
            self.bar_b.value = n - 1 if n else None
            for f, v in ((self.s, 0.0), (self.offset, 0.0), (self.phi0, None),
                         (self.guide_angle, 0.0), (self.guide_x, nice(gx)),
                         (self.guide_y, nice(gy)), (self.latch_angle, 0.0), (self.limit, 0.0),
                         (self.restitution, 0.0), (self.rest_speed_ang, 1e-3),
                         (self.rest_speed_lin, 1e-3), (self.height, nice(float(f"{floor:.3g}"))),
                         (self.normal_angle, 90.0)):
                f.set_quietly(v)
            self.side.value = "max"
        self._show_kind()

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        new = k == NEW
        for w in (self.kind, self.bar_a, self.bar_b, self.side):
            w.disabled = not new
        tip = "the bars of an element are fixed: delete it and add a new one to move it"
        for dd in (self.bar_a, self.bar_b):
            dd.tooltip = dd.description if new else tip
        self._show_kind()

    def _show_kind(self) -> None:
        kind = self.kind.value
        shown = set(FIELDS[kind])
        r = self._rows
        self.bar_a.layout.display = None if kind in BAR_A else "none"
        self.bar_a.description = "guide bar" if kind in ("slot", "prismatic") else "bar a"
        self.bar_b.description = "bar b" if kind in ("latch", "stop") else "bar"
        for key, box in (("s", r["s"]), ("guide_angle", r["guide"]), ("guide_x", r["point"]),
                         ("latch_angle", r["latch"]), ("limit", r["stop"]),
                         ("height", r["contact"])):
            box.layout.display = None if key in shown else "none"
        r["offset"].layout.display = None if "offset" in shown else "none"
        self.phi0.layout.display = None if "phi0" in shown else "none"
        r["impact"].layout.display = None if "restitution" in shown else "none"
        self.rest_speed_ang.layout.display = None if kind == "stop" else "none"
        self.rest_speed_lin.layout.display = None if kind == "contact" else "none"
        self.hint.value = '<span class="quivira-hint">' + {
            "slot": "the point s of bar b stays on the guide bar's line (+ offset); it turns "
                    "freely",
            "prismatic": "bar b slides along the guide bar, the angle θ_b − θ_a locked at φ0 "
                         "(empty: the initial angle)",
            "slider": "the point s of the bar stays on the ground line through (x, y) at the "
                      "guide angle (a new angle recompiles)",
            "latch": "the hinge locks when φ = θ_b − θ_a reaches the latch angle (a plastic "
                     "impulse; the energy lost is in the event log)",
            "stop": "φ = θ_b − θ_a stays on the allowed side of the limit; impacts bounce "
                    "with e, rest when slower than the rest speed",
            "contact": "the point s stays where n·p ≥ h, n at the normal's angle (90°: a floor "
                       "y ≥ h; a new normal recompiles)",
        }[kind] + "</span>"

    @staticmethod
    def _attr(key: str, kind: str) -> str:
        a = ATTRIBUTE[key]
        return a[kind] if isinstance(a, dict) else a

    # ------------------------------------------------------------------ edits
    def _on_value(self, key: str) -> None:
        item = self.selected_item()
        field = self.fields[key]
        if item is None or field.error:
            return
        kind, el = item
        if key not in FIELDS[kind] or kind != self.kind.value:
            return
        value = field.value
        note = ""
        if key in ("guide_x", "guide_y"):
            old = el.point[0 if key == "guide_x" else 1]
            point = list(el.point)
            point[0 if key == "guide_x" else 1] = value
            values = {"point": point}
            shown = f"{value:.6g} m"
        else:
            attr = self._attr(key, kind)
            old = getattr(el, attr)
            if key == "phi0" and value is None:
                value = relative_angle(self.model, el.bar_a, el.bar_b)
                if value is None:
                    field.show_error("φ0: the bars have no initial pose; type an angle")
                    return
                note = " (the initial angle)"
            elif key in DEGREES:
                value = math.radians(value)
            if key in DEGREES:
                old = math.degrees(old)
                shown = f"{math.degrees(value):.6g}°"
            else:
                shown = f"{value:.6g}{UNITS.get(key, '')}"
            values = {attr: value}
        label = field.spec.name
        self.apply(lambda: self.model.set(el.name, **values),
                   f"{el.name}: {label} = {shown}{note}", field, nice(old))

    def add(self) -> str | None:
        """Add an element of the chosen kind from the fields; returns its name."""
        if self.selected != NEW:
            self.message.error("choose '+ new element' to add an element")
            return None
        if n_bodies(self.model) == 0:
            self.message.error("add a bar first: these elements act on bars")
            return None
        kind = self.kind.value
        fields = [self.fields[k] for k in FIELDS[kind] if k in self.fields]
        if self.refused(*fields):
            return None
        a, b = self.bar_a.value, self.bar_b.value
        if b is None:
            self.message.error("choose the bar")
            return None
        m = self.model
        if kind in ("slot", "prismatic") and a == GROUND:
            self.message.error(f"a {'slot' if kind == 'slot' else 'prismatic joint'} needs a "
                               "guide bar: choose a bar as the guide bar (on the ground, use "
                               "a ground slider)")
            return None
        bar_a = None if a == GROUND else a
        deg = math.radians
        if kind == "slot":
            s, e = self.s.value, self.offset.value
            el = PinInSlot(bar_a=bar_a, bar_b=b, s_b=s, offset=e)
        elif kind == "prismatic":
            s, e = self.s.value, self.offset.value
            phi0 = None if self.phi0.value is None else deg(self.phi0.value)
            el = PrismaticJoint(bar_a=bar_a, bar_b=b, s_b=s, offset=e, phi0=phi0)
        elif kind == "slider":
            s, ang = self.s.value, deg(self.guide_angle.value)
            point = (self.guide_x.value, self.guide_y.value)
            el = GroundSlider(bar=b, s=s, angle=ang, point=point)
        elif kind == "latch":
            ang = deg(self.latch_angle.value)
            el = Latch(bar_a=bar_a, bar_b=b, angle=ang)
        elif kind == "stop":
            lim, side = deg(self.limit.value), self.side.value
            e, v = self.restitution.value, self.rest_speed_ang.value
            el = AngleStop(bar_a=bar_a, bar_b=b, limit=lim, side=side, restitution=e,
                           rest_speed=v)
        else:
            s, h, e = self.s.value, self.height.value, self.restitution.value
            alpha, v = deg(self.normal_angle.value), self.rest_speed_lin.value
            el = Contact(bar=b, s=s, normal_angle=alpha, height=h, restitution=e,
                         rest_speed=v)
        ok, name = self.apply(lambda: m.add(el), lambda name: f"added {name}")
        if ok:
            self.fresh_defaults()
        return name if ok else None

    def delete(self) -> None:
        """Delete the selected element."""
        if self.selected == NEW:
            self.message.error("select an element to delete")
            return
        super().delete()

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        name = self.items()[k][1].name
        self.model.remove(name)
        return name

    def removed_text(self, k: int, result) -> str:
        """Return the message shown after item ``k`` is deleted."""
        return f"deleted {result}"

r"""The *Body joints & motors* section: welds, links, pins, rolling contacts and joint motors.

Every element joins body b to body a or to the ground (bodies are bars, particles and rigid
bodies; one index for all). Points of a body are given in its own frame, ``(u, v)`` in metres
from its mass centre (for the ground: the ground position ``(x, y)``; a particle has only the
point ``(0, 0)``).

* a **weld** keeps body b fixed to body a (or the ground) as they are posed now, at a weld
  point ``(x, y)`` (empty: body b's mass centre) (``model.add_weld``);
* a **distance link** is a massless rigid rod between point a and point b, of length ℓ
  (empty: their initial distance) (``model.add_distance``);
* a **body pin** pins point b on point a (they must coincide in the initial pose: *b on a*
  puts point b there) (``model.add_pin``);
* **rolling on a line**: disc b rolls without slipping on the ground line at the angle α
  (through ``(x, y)``; empty: the line touching the disc), with the radius R (empty: the
  radius of its disc shape) (``model.add_rolling_on_line``);
* **rolling on a disc**: disc b rolls on disc a, outside or inside it; a ground circle needs
  its radius and centre (``model.add_rolling_on_disc``);
* a **joint motor** drives the relative angle :math:`φ = θ_b - θ_a` (a: ground for an
  absolute angle) by a law of time: a constant speed :math:`φ(t) = φ_0 + ω t`, or an
  oscillation :math:`φ(t) = φ_0 + A \sin(ω t + ψ)`; empty :math:`φ_0` is the initial angle
  (``model.add_joint_motor``; with a pin joint chosen, its first two bodies).

Where an element acts is fixed once it exists (delete it and add a new one); a selected link's
length can be changed (``model.set_distance_length``, no recompiling).
"""

from __future__ import annotations

import html
import math
import numbers
import re

import heyoka as hy
import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import (
    BodyPin,
    Distance,
    JointMotor,
    PinJoint,
    RollingOnDisc,
    RollingOnLine,
    Weld,
)

from .._fields import NumberField, NumberSpec, OptionalNumberField
from .._modelinfo import by_collection, n_bodies, nice, of_kind
from .base import GROUND, NEW, STYLE, ItemSection, button, hint, row
from .bodies import body_label

_SIZE = "larger models are slow or inaccurate to simulate"
_DEG = "give an angle in degrees"

#: the kinds: (key, label, model collection)
KINDS = (("weld", "weld", "welds"), ("distance", "distance link", "distances"),
         ("pin", "body pin", "body_pins"), ("rolling", "rolling on a line", "rolling_contacts"),
         ("disc", "rolling on a disc", "disc_rolling_contacts"),
         ("motor", "joint motor", "joint_motors"))
COLLECTION = {k: c for k, _, c in KINDS}
#: the kinds that take body a (or the ground)
BODY_A = {"weld", "distance", "pin", "disc", "motor"}
#: the motor laws: (label, key)
LAWS = (("constant speed", "speed"), ("oscillation", "sine"))


def _coord(name: str) -> NumberSpec:
    return NumberSpec(name, "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE)


def _optional_coord(name: str, empty: str) -> NumberSpec:
    return NumberSpec(name, "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE,
                      expected=f"a number from -1e+06 to 1e+06, or empty for {empty}")


def _optional_length(name: str, empty: str) -> NumberSpec:
    return NumberSpec(name, "m", positive=True, lo=1e-6, hi=1e6, warn_lo=1e-3, warn_hi=1e4,
                      why=_SIZE, expected=f"a positive number up to 1e+06, or empty for {empty}")


POINT_A_U, POINT_A_V = _coord("u of point a"), _coord("v of point a")
POINT_B_U, POINT_B_V = _coord("u of point b"), _coord("v of point b")
WELD_X = _optional_coord("weld x", "body b's mass centre")
WELD_Y = _optional_coord("weld y", "body b's mass centre")
LINK_LENGTH = _optional_length("length ℓ", "the initial distance")
LINE_ANGLE = NumberSpec("line angle α", "°", lo=-1e6, hi=1e6, why=_DEG)
LINE_X = _optional_coord("line x", "the line touching the disc")
LINE_Y = _optional_coord("line y", "the line touching the disc")
RADIUS_A = _optional_length("radius a", "the radius of disc a's shape")
RADIUS_B = _optional_length("radius b", "the radius of disc b's shape")
CIRCLE_X, CIRCLE_Y = _coord("circle x"), _coord("circle y")
MOTOR_PHI0 = NumberSpec("φ0", "°", lo=-1e6, hi=1e6,
                        expected="an angle in degrees, or empty for the initial angle")
MOTOR_OMEGA = NumberSpec("ω", "rad/s", lo=-1e4, hi=1e4, warn_lo=-1e3, warn_hi=1e3,
                         warn_below="a fast motor: the run needs many steps",
                         warn_above="a fast motor: the run needs many steps",
                         why="faster motors need more steps than the budget allows")
MOTOR_AMPLITUDE = NumberSpec("amplitude A", "°", lo=-1e6, hi=1e6, why=_DEG)
MOTOR_PHASE = NumberSpec("phase ψ", "°", lo=-1e6, hi=1e6, why=_DEG)


def motor_law(kind: str, phi0: float, omega: float, amplitude: float = 0.0,
              phase: float = 0.0) -> hy.expression:
    r"""Return the angle law of a joint motor made in the editor.

    Parameters
    ----------
    kind : {"speed", "sine"}
        A constant speed, :math:`φ_0 + ω t`, or an oscillation,
        :math:`φ_0 + A \sin(ω t + ψ)`.
    phi0 : float
        :math:`φ_0` (rad).
    omega : float
        :math:`ω` (rad/s).
    amplitude : float, optional
        :math:`A` (rad) of an oscillation.
    phase : float, optional
        :math:`ψ` (rad) of an oscillation.

    Returns
    -------
    heyoka.expression
        :math:`φ(t)` of ``hy.time``.
    """
    if kind == "speed":
        return phi0 + omega * hy.time
    if kind == "sine":
        return phi0 + amplitude * hy.sin(omega * hy.time + phase)
    raise ValueError(f"motor law must be 'speed' or 'sine', got {kind!r}")


def law_text(law) -> str:
    """Return a motor's law as text, its numbers shown with 6 significant digits.

    Parameters
    ----------
    law : heyoka.expression
        The law.
    """
    return re.sub(r"\d+\.\d+(?:e[+-]?\d+)?", lambda m: f"{float(m.group()):.6g}", str(law))


def _local(body, point: tuple[float, float]) -> tuple[float, float]:
    """Body-frame coordinates of the global ``point`` in the initial pose of ``body``."""
    x, y, th = body.pose
    c, s = math.cos(th), math.sin(th)
    dx, dy = point[0] - x, point[1] - y
    return nice(c * dx + s * dy), nice(-s * dx + c * dy)


class BodyJointsSection(ItemSection):
    """Welds, links, body pins, rolling contacts and joint motors (see the module docstring).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model edited.

    Attributes
    ----------
    kind : ipywidgets.Dropdown
        ``"weld"``, ``"distance"``, ``"pin"``, ``"rolling"`` (on a line), ``"disc"``
        (rolling on a disc), ``"motor"`` — of a new element.
    body_a : ipywidgets.Dropdown
        Body a, or ``GROUND`` (-1) for the ground.
    body_b : ipywidgets.Dropdown
        Body b (the welded, linked, pinned, rolling or driven body).
    ua, va, ub, vb : NumberField
        Point a and point b in their bodies' frames (m; ground: the position ``(x, y)``).
    match_button : ipywidgets.Button
        Put point b where point a is in the initial pose (for a pin).
    weld_x, weld_y : OptionalNumberField
        The weld point (m, global); empty: body b's mass centre.
    length : OptionalNumberField
        A link's length ℓ (m); empty: the initial distance of its points.
    line_angle : NumberField
        The rolling line's angle α (°).
    line_x, line_y : OptionalNumberField
        A point of the rolling line (m); empty: the line touching the disc.
    radius_a, radius_b : OptionalNumberField
        Rolling radii (m); empty: the bodies' disc shapes (a ground circle needs ``radius_a``).
    inside : ipywidgets.ToggleButtons
        ``False`` (disc b rolls outside disc a) or ``True`` (inside it).
    circle_x, circle_y : NumberField
        The centre of a ground circle (m).
    joint : ipywidgets.Dropdown
        A motor's pin joint (its first two bodies), or -1 to drive body b relative to body a.
    law : ipywidgets.ToggleButtons
        ``"speed"`` (φ0 + ω t) or ``"sine"`` (φ0 + A sin(ω t + ψ)).
    phi0 : OptionalNumberField
        φ0 (°); empty: the initial relative angle.
    omega : NumberField
        ω (rad/s).
    amplitude, phase : NumberField
        A and ψ (°) of an oscillation.
    fields : dict of str to NumberField
        The number fields by key.
    """

    noun = "element"
    title = "Body joints & motors"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.add_button.tooltip = "add a weld, link, pin, rolling contact or motor"
        # CSS classes of their own: "element" is the noun of *Sliders, stops & contact*, too
        for w, css in ((self.select, "select"), (self.add_button, "add"),
                       (self.delete_button, "delete")):
            w.remove_class(f"quivira-{css}-element")
            w.add_class(f"quivira-{css}-body-joint")
        self.kind = widgets.Dropdown(options=[(label, k) for k, label, _ in KINDS],
                                     value="weld", description="kind", style=STYLE,
                                     tooltip="the kind of the new element",
                                     layout=widgets.Layout(width="240px"))
        self.kind.add_class("quivira-body-joint-kind")
        self.body_a = widgets.Dropdown(options=[("ground", GROUND)], value=GROUND,
                                       description="body a", style=STYLE,
                                       tooltip="body a, or the ground",
                                       layout=widgets.Layout(width="172px"))
        self.body_b = widgets.Dropdown(options=[], description="body b", style=STYLE,
                                       tooltip="body b: welded, linked, pinned, rolling or "
                                       "driven", layout=widgets.Layout(width="172px"))
        self.body_a.add_class("quivira-body-a")
        self.body_b.add_class("quivira-body-b")
        self._build_fields()
        for key, f in self.fields.items():
            self.on_change(f, lambda key=key: self._on_value(key))
        self.on_change(self.kind, self._on_kind)
        self.on_change(self.body_a, self._on_bodies)
        self.on_change(self.body_b, self._on_bodies)
        self.on_change(self.joint, self._on_joint)
        self.on_change(self.law, self._show_kind)
        self.on_change(self.inside, self._show_kind)
        self.on_click(self.match_button, self.match_points)
        self.hint = hint("")
        self.info = hint("")
        self.children = [self.select, self.kind, row(self.body_a, self.body_b, align="center"),
                         *self._rows.values(), self.hint, self.info,
                         row(self.add_button, self.delete_button), self.message.widget]
        self._show_kind()

    def _build_fields(self) -> None:
        wide = "236px"  # room for the 12 digits of a point computed from the poses
        self.ua = NumberField(POINT_A_U, 0.0, "a: u", "point a in body a's frame (m from its "
                              "mass centre); for the ground: x", width=wide)
        self.va = NumberField(POINT_A_V, 0.0, "a: v", "point a in body a's frame; for the "
                              "ground: y", width=wide)
        self.ub = NumberField(POINT_B_U, 0.0, "b: u", "point b in body b's frame (m from its "
                              "mass centre)", width=wide)
        self.vb = NumberField(POINT_B_V, 0.0, "b: v", "point b in body b's frame", width=wide)
        self.match_button = button("b on a", "crosshairs", "", "put point b where point a is "
                                   "in the initial pose", "quivira-match-points")
        self.weld_x = OptionalNumberField(WELD_X, None, "b's centre", description="weld x",
                                          tooltip="the weld point (global); empty: body b's "
                                          "mass centre")
        self.weld_y = OptionalNumberField(WELD_Y, None, "b's centre", description="weld y",
                                          tooltip="the weld point (global)")
        self.length = OptionalNumberField(LINK_LENGTH, None, "initial distance",
                                          description="length ℓ", tooltip="the link's length; "
                                          "empty: the initial distance of the points")
        self.line_angle = NumberField(LINE_ANGLE, 0.0, "line α", "direction of the ground "
                                      "line, degrees counter-clockwise from x; the disc lies "
                                      "on its left")
        self.line_x = OptionalNumberField(LINE_X, None, "touching", description="line x",
                                          tooltip="a point of the line; empty: the line "
                                          "touching the disc in its initial pose")
        self.line_y = OptionalNumberField(LINE_Y, None, "touching", description="line y",
                                          tooltip="a point of the line")
        self.radius_a = OptionalNumberField(RADIUS_A, None, "disc shape",
                                            description="radius a", tooltip="radius of disc "
                                            "a; empty: its disc shape's (a ground circle "
                                            "needs one)")
        self.radius_b = OptionalNumberField(RADIUS_B, None, "disc shape",
                                            description="radius b", tooltip="radius of the "
                                            "rolling disc b; empty: its disc shape's")
        self.inside = widgets.ToggleButtons(options=[("outside a", False), ("inside a", True)],
                                            value=False, style={"button_width": "80px"},
                                            tooltip="disc b rolls on the outside of disc a, "
                                            "or inside it (a ring)")
        self.circle_x = NumberField(CIRCLE_X, 0.0, "circle x", "centre of the ground circle")
        self.circle_y = NumberField(CIRCLE_Y, 0.0, "circle y", "centre of the ground circle")
        self.joint = widgets.Dropdown(options=[("— bodies a, b", NEW)], value=NEW,
                                      description="pin joint", style=STYLE,
                                      tooltip="drive a pin joint (its first two bodies), or "
                                      "body b relative to body a",
                                      layout=widgets.Layout(width="340px", max_width="100%"))
        self.joint.add_class("quivira-motor-joint")
        self.law = widgets.ToggleButtons(options=list(LAWS), value="speed",
                                         style={"button_width": "auto"},
                                         tooltip="φ(t) = φ0 + ω t, or φ0 + A sin(ω t + ψ)")
        self.law.add_class("quivira-motor-law")
        self.phi0 = OptionalNumberField(MOTOR_PHI0, None, "initial angle", description="φ0",
                                        tooltip="the angle at t = 0 in degrees; empty: the "
                                        "initial relative angle θ_b − θ_a")
        self.omega = NumberField(MOTOR_OMEGA, 1.0, "ω", "angular speed (constant speed) or "
                                 "angular frequency (oscillation)")
        self.amplitude = NumberField(MOTOR_AMPLITUDE, 30.0, "amplitude", "A in φ0 + "
                                     "A sin(ω t + ψ), degrees")
        self.phase = NumberField(MOTOR_PHASE, 0.0, "phase ψ", "ψ in φ0 + A sin(ω t + ψ), "
                                 "degrees")
        self.fields = {"ua": self.ua, "va": self.va, "ub": self.ub, "vb": self.vb,
                       "weld_x": self.weld_x, "weld_y": self.weld_y, "length": self.length,
                       "line_angle": self.line_angle, "line_x": self.line_x,
                       "line_y": self.line_y, "radius_a": self.radius_a,
                       "radius_b": self.radius_b, "circle_x": self.circle_x,
                       "circle_y": self.circle_y, "phi0": self.phi0, "omega": self.omega,
                       "amplitude": self.amplitude, "phase": self.phase}
        self._rows = {
            "point_a": row(self.ua, self.va), "point_b": row(self.ub, self.vb),
            "match": row(self.match_button), "weld": row(self.weld_x, self.weld_y),
            "length": row(self.length), "line": row(self.line_angle),
            "line_point": row(self.line_x, self.line_y), "inside": row(self.inside),
            "radii": row(self.radius_a, self.radius_b),
            "circle": row(self.circle_x, self.circle_y), "joint": row(self.joint),
            "law": row(self.law), "motor": row(self.phi0, self.omega),
            "sine": row(self.amplitude, self.phase)}

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the elements as ``(kind, element)`` pairs, kind by kind."""
        el = by_collection(self.model)
        return [(k, e) for k, _, coll in KINDS for e in el.get(coll, [])]

    def _name(self, body: int | None, bars: list | None = None) -> str:
        if body is None:
            return "ground"
        bars = self.model.bodies if bars is None else bars
        return body_label(body, bars[body]) if body < len(bars) else f"body {body}"

    def _ref(self, body: int | None, ref, bars: list) -> str:
        where = self._name(body, bars)
        if isinstance(ref, str):
            return f"{where} point {ref!r}"
        if isinstance(ref, numbers.Real):
            return f"{where} s = {ref:g}"
        if body is None:
            return f"ground ({ref[0]:.4g}, {ref[1]:.4g})"
        if ref[0] == 0.0 and ref[1] == 0.0:
            return where
        return f"{where} ({ref[0]:.4g}, {ref[1]:.4g})"

    def item_label(self, k: int, item) -> str:
        """Return the selector's text of ``item = (kind, element)``."""
        kind, el = item
        bars = self.model.bodies
        if kind == "rolling":
            return (f"{el.name}: {self._name(el.body, bars)} rolls on the line at "
                    f"{math.degrees(el.angle):.4g}°")
        a, b = self._name(el.body_a, bars), self._name(el.body_b, bars)
        if kind == "weld":
            return f"{el.name}: {b} welded to {a}"
        if kind == "distance":
            return (f"{el.name}: {self._ref(el.body_a, el.point_a, bars)} ↔ "
                    f"{self._ref(el.body_b, el.point_b, bars)}, ℓ = {el.length:.4g} m")
        if kind == "pin":
            return (f"{el.name}: {self._ref(el.body_b, el.point_b, bars)} pinned to "
                    f"{self._ref(el.body_a, el.point_a, bars)}")
        if kind == "disc":
            a = "a ground circle" if el.body_a is None else a
            return f"{el.name}: {b} rolls {'inside' if el.inside else 'on'} {a}"
        text = law_text(el.law)
        text = text if len(text) <= 48 else text[:45] + "..."
        return f"{el.name}: θ of {b} − θ of {a} = {text}"

    def selected_item(self):
        """Return ``(kind, element)`` of the selected element, None for "+ new element"."""
        k = self.selected
        items = self.items()
        return None if k == NEW or k >= len(items) else items[k]

    def refresh(self) -> None:
        """Offer the model's bodies and pin joints, then show the model again."""
        n = n_bodies(self.model)
        self._set_body_options(self.body_a, True, n - 2 if n > 1 else GROUND)
        self._set_body_options(self.body_b, False, n - 1)
        joints = [(f"joint {k}: " + ", ".join(self._name(b) for b in jt.bars[:2]), k)
                  for k, jt in enumerate(of_kind(self.model, PinJoint))]
        options = [("— bodies a, b", NEW)] + joints
        if list(self.joint.options) != options:
            old = self.joint.value
            with self.syncing():
                self.joint.options = options
                self.joint.value = old if old in [v for _, v in options] else NEW
        super().refresh()

    def _set_body_options(self, dropdown: widgets.Dropdown, ground: bool,
                          default: int | None) -> None:
        options = ([("ground", GROUND)] if ground else []) + [
            (body_label(i, b), i) for i, b in enumerate(self.model.bodies)]
        self.set_bar_options(dropdown, default=default, options=options)

    def fill_from(self, item, force: bool) -> None:
        """Show ``item = (kind, element)`` in the fields."""
        kind, el = item
        bars = self.model.bodies
        self.put(self.kind, kind, force)
        if kind == "rolling":
            self.put(self.body_b, el.body, force)
            self.put(self.line_angle, nice(math.degrees(el.angle)), force)
            self.put(self.line_x, nice(el.point[0]), force)
            self.put(self.line_y, nice(el.point[1]), force)
            self.put(self.radius_b, None if el.radius is None else nice(el.radius), force)
            self._show_kind()
            return
        self.put(self.body_a, GROUND if el.body_a is None else el.body_a, force)
        self.put(self.body_b, el.body_b, force)
        if kind in ("distance", "pin"):
            for (fu, fv), body, ref in (((self.ua, self.va), el.body_a, el.point_a),
                                        ((self.ub, self.vb), el.body_b, el.point_b)):
                u, v = ref if body is None else bars[body].local_point(ref, "point")
                self.put(fu, nice(u), force)
                self.put(fv, nice(v), force)
            if kind == "distance":
                self.put(self.length, nice(el.length), force)
        elif kind == "weld":
            b = bars[el.body_b]
            if b.pose is not None:
                x, y = b.world(*el.point_b)
                self.put(self.weld_x, nice(x), force)
                self.put(self.weld_y, nice(y), force)
        elif kind == "disc":
            self.put(self.inside, bool(el.inside), force)
            self.put(self.radius_a, None if el.radius_a is None else nice(el.radius_a), force)
            self.put(self.radius_b, None if el.radius_b is None else nice(el.radius_b), force)
            if el.body_a is None:
                self.put(self.circle_x, nice(el.centre_a[0]), force)
                self.put(self.circle_y, nice(el.centre_a[1]), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill in an element of the last two bodies, with points that suit its kind."""
        n = n_bodies(self.model)
        with self.syncing():
            if n:
                self.body_a.value = n - 2 if n > 1 else GROUND
                self.body_b.value = n - 1
            self.joint.value = NEW
            self.inside.value = False
            self.law.value = "speed"
            for f, v in ((self.weld_x, None), (self.weld_y, None), (self.length, None),
                         (self.line_angle, 0.0), (self.line_x, None), (self.line_y, None),
                         (self.radius_b, None), (self.phi0, None), (self.omega, 1.0),
                         (self.amplitude, 30.0), (self.phase, 0.0)):
                f.set_quietly(v)
        self._default_points()
        self._show_kind()

    def _default_points(self) -> None:
        """Fill in points that suit the kind.

        A pin's point a where body b's centre is, a link from body a's centre (or a ground
        point above body b) to body b's centre, a ground circle under disc b.
        """
        bars = self.model.bodies
        a, b = self._bodies()
        ua = va = ub = vb = 0.0
        radius_a, cx, cy = None, 0.0, 0.0
        kind = self.kind.value
        posed = b is not None and bars[b].pose is not None
        if posed and kind == "pin":
            cb = bars[b].pose[:2]
            if a is None:
                ua, va = nice(cb[0]), nice(cb[1])
            elif bars[a].pose is not None and bars[a].rotates:
                ua, va = _local(bars[a], cb)
            elif bars[a].pose is not None and bars[b].rotates:
                ub, vb = _local(bars[b], bars[a].pose[:2])
        elif posed and kind == "distance" and a is None:
            rise = max(0.5 * bars[b].length, 0.5)
            ua, va = (float(f"{c:.3g}") for c in (bars[b].pose[0], bars[b].pose[1] + rise))
        elif posed and kind == "disc" and a is None:
            rb = getattr(bars[b], "radius", None) or 0.5 * bars[b].length or 0.2
            radius_a = 1.0
            cx, cy = nice(bars[b].pose[0]), nice(bars[b].pose[1] - radius_a - rb)
        with self.syncing():
            for f, v in ((self.ua, ua), (self.va, va), (self.ub, ub), (self.vb, vb),
                         (self.radius_a, radius_a), (self.circle_x, cx), (self.circle_y, cy)):
                f.set_quietly(v)

    def after_select(self, k: int) -> None:
        """Enable the controls a new element needs; of an existing one, only a link's length."""
        new = k == NEW
        item = self.selected_item()
        for w in (self.kind, self.body_a, self.body_b, self.joint, self.law, self.inside,
                  self.match_button):
            w.disabled = not new
        for key, f in self.fields.items():
            f.disabled = not new and not (key == "length" and item is not None
                                          and item[0] == "distance")
        if new and self.kind.value == "motor" and self.joint.value != NEW:
            self.body_a.disabled = self.body_b.disabled = True  # the joint's bodies
        self._show_kind()

    def _show_kind(self) -> None:
        kind = self.kind.value
        a_ground = self.body_a.value == GROUND
        shown = {"weld": {"weld"}, "distance": {"point_a", "point_b", "length"},
                 "pin": {"point_a", "point_b", "match"}, "rolling": {"line", "line_point",
                                                                      "radii"},
                 "disc": {"inside", "radii"} | ({"circle"} if a_ground else set()),
                 "motor": {"joint", "law", "motor"} | ({"sine"} if self.law.value == "sine"
                                                       else set())}[kind]
        for key, box in self._rows.items():
            box.layout.display = None if key in shown else "none"
        self.radius_a.layout.display = None if kind == "disc" else "none"
        self.body_a.layout.display = None if kind in BODY_A else "none"
        self.body_b.description = "disc" if kind == "rolling" else (
            "disc b" if kind == "disc" else "body b")
        self.body_a.description = "disc a" if kind == "disc" else "body a"
        self.hint.value = '<span class="quivira-hint">' + {
            "weld": "body b stays fixed to body a (or the ground) as they are posed now; "
                    "empty weld point: b's mass centre",
            "distance": "a massless rod from point a to point b (u, v in each body's frame; "
                        "ground: x, y); empty ℓ: their initial distance",
            "pin": "point b turns about point a; they must coincide now (b on a puts them "
                   "together)",
            "rolling": "disc b rolls without slipping on the ground line at α (the disc on "
                       "its left); empty point: the line touching the disc",
            "disc": "disc b rolls without slipping on disc a (a ground circle: give its "
                    "radius and centre)",
            "motor": ("φ(t) = φ0 + ω t" if self.law.value == "speed" else
                      "φ(t) = φ0 + A sin(ω t + ψ)") + ", φ = θ_b − θ_a (θ_a = 0 for the "
                     "ground) · empty φ0: the initial angle",
        }[kind] + "</span>"
        self.info.value = self._info_html()

    def _info_html(self) -> str:
        """Describe the points of a new pin or link now, or the law of a selected motor."""
        item = self.selected_item()
        if item is not None:
            if item[0] == "motor":
                text = html.escape(law_text(item[1].law))
                return f'<span class="quivira-hint">φ(t) = {text}</span>'
            return ""
        kind = self.kind.value
        if kind not in ("pin", "distance"):
            return ""
        try:
            pa = self._world(self._bodies()[0], self.ua.value, self.va.value)
            pb = self._world(self._bodies()[1], self.ub.value, self.vb.value)
        except (TypeError, ValueError, IndexError):
            return ""
        if pa is None or pb is None:
            return ""
        d = math.hypot(pb[0] - pa[0], pb[1] - pa[1])
        scale = max(1.0, *(abs(c) for c in (*pa, *pb)))
        if kind == "distance":
            what = f"distance {d:.6g} m"
        else:
            what = "they coincide" if d <= 1e-10 * scale else f"gap {d:.4g} m"
        return (f'<span class="quivira-hint">now: a at ({pa[0]:.4g}, {pa[1]:.4g}), b at '
                f"({pb[0]:.4g}, {pb[1]:.4g}) · {what}</span>")

    def _world(self, body: int | None, u: float, v: float) -> tuple[float, float] | None:
        if body is None:
            return (u, v)
        b = self.model.bodies[body]
        return None if b.pose is None else b.world(u, v)

    def _bodies(self) -> tuple[int | None, int | None]:
        """Body a (None: ground) and body b of the fields."""
        a = self.body_a.value
        return (None if a in (GROUND, None) else a), self.body_b.value

    # ------------------------------------------------------------------ handlers
    def _on_kind(self) -> None:
        if self.selected == NEW:
            self._default_points()
        self.after_select(self.selected)

    def _on_bodies(self) -> None:
        if self.selected == NEW:
            self._default_points()
        self._show_kind()

    def _on_joint(self) -> None:
        j = self.joint.value
        if j is not None and j != NEW and self.selected == NEW:
            bars = of_kind(self.model, PinJoint)[j].bars
            with self.syncing():
                self.body_a.value, self.body_b.value = bars[0], bars[1]
        self.after_select(self.selected)

    def _on_value(self, key: str) -> None:
        item = self.selected_item()
        if item is None or key != "length" or item[0] != "distance":
            self._show_kind()  # the template's note follows the fields
            return
        el = item[1]
        if self.length.error:
            return
        value = self.length.value
        if value is None:
            self.length.show_error("length ℓ: a linked pair of points keeps its length; type "
                                   "the new length")
            self.message.error(f"{el.name}: type the new length (m)")
            return
        self.apply(lambda: self.model.set(el.name, length=value),
                   f"{el.name}: length {value:.6g} m", self.length, nice(el.length))

    def match_points(self) -> None:
        """Put point b where point a is in the initial pose (a pin's points coincide)."""
        a, b = self._bodies()
        if b is None:
            self.message.error("choose body b first")
            return
        if self.refused(self.ua, self.va):
            return
        bars = self.model.bodies
        pa = self._world(a, self.ua.value, self.va.value)
        if pa is None or bars[b].pose is None:
            self.message.error("the bodies have no initial pose yet")
            return
        if not bars[b].rotates:
            self.message.error(f"{self._name(b)} is a particle: its only point is (0, 0); "
                               "move point a onto it instead")
            return
        ub, vb = _local(bars[b], pa)
        with self.syncing():
            self.ub.set_quietly(ub)
            self.vb.set_quietly(vb)
        self._touched = True
        self._show_kind()
        self.message.info(f"point b set to ({ub:.6g}, {vb:.6g}) in {self._name(b)}'s frame")

    # ------------------------------------------------------------------ add, remove
    def add(self) -> str | None:
        """Add the element of the fields.

        Returns
        -------
        str or None
            The new element's name, None when refused (the message says why).
        """
        if self.selected != NEW:
            self.message.error("choose '+ new element' to add one")
            return None
        a, b = self._bodies()
        n = n_bodies(self.model)
        if b is None or not 0 <= b < n:
            self.message.error("body b: add a body first (Bars or Bodies)" if n == 0
                               else f"body b: choose one of the bodies 0 to {n - 1}")
            return None
        if a is not None and not 0 <= a < n:
            self.message.error(f"body a: choose the ground or one of the bodies 0 to {n - 1}")
            return None
        action = getattr(self, f"_{self.kind.value}_action")(a, b)
        if action is None:
            return None
        ok, name = self.apply(action, lambda name: f"added {name}")
        if ok:
            self.fresh_defaults()
        return name if ok else None

    def _both(self, fx: OptionalNumberField, fy: OptionalNumberField,
              what: str) -> tuple[bool, tuple[float, float] | None]:
        """``(ok, point)`` of two optional fields: both empty is None, one empty an error."""
        if (fx.value is None) != (fy.value is None):
            f = fx if fx.value is None else fy
            msg = f"{f.spec.name}: give both x and y of the {what}, or leave both empty"
            f.show_error(msg)
            self.message.error(msg)
            return False, None
        return True, None if fx.value is None else (fx.value, fy.value)

    def _weld_action(self, a, b):
        if self.refused(self.weld_x, self.weld_y):
            return None
        ok, at = self._both(self.weld_x, self.weld_y, "weld point")
        if not ok:
            return None
        return lambda: self.model.add(Weld.at_point(self.model.bodies, a, b, at))

    def _distance_action(self, a, b):
        if self.refused(self.ua, self.va, self.ub, self.vb, self.length):
            return None
        pa, pb = (self.ua.value, self.va.value), (self.ub.value, self.vb.value)
        length = self.length.value
        return lambda: self.model.add(Distance(body_a=a, point_a=pa, body_b=b, point_b=pb,
                                                 length=length))

    def _pin_action(self, a, b):
        if self.refused(self.ua, self.va, self.ub, self.vb):
            return None
        pa, pb = (self.ua.value, self.va.value), (self.ub.value, self.vb.value)
        return lambda: self._add_pin(BodyPin(body_a=a, point_a=pa, body_b=b, point_b=pb))

    def _rolling_action(self, a, b):
        if self.refused(self.line_angle, self.line_x, self.line_y, self.radius_b):
            return None
        ok, point = self._both(self.line_x, self.line_y, "line's point")
        if not ok:
            return None
        alpha, radius = math.radians(self.line_angle.value), self.radius_b.value
        return lambda: self.model.add(RollingOnLine(body=b, angle=alpha, point=point,
                                                      radius=radius))

    def _disc_action(self, a, b):
        fields = [self.radius_a, self.radius_b]
        fields += [self.circle_x, self.circle_y] if a is None else []
        if self.refused(*fields):
            return None
        ra, rb, inside = self.radius_a.value, self.radius_b.value, bool(self.inside.value)
        if a is None:
            if ra is None:
                msg = "radius a: a ground circle needs its radius (m)"
                self.radius_a.show_error(msg)
                self.message.error(msg)
                return None
            centre = (self.circle_x.value, self.circle_y.value)
            return lambda: self.model.add(RollingOnDisc(body_a=None, body_b=b, inside=inside,
                                                        radius_a=ra, radius_b=rb,
                                                        centre_a=centre))
        return lambda: self.model.add(RollingOnDisc(body_a=a, body_b=b, inside=inside,
                                                    radius_a=ra, radius_b=rb))

    def _motor_action(self, a, b):
        sine = self.law.value == "sine"
        fields = [self.phi0, self.omega] + ([self.amplitude, self.phase] if sine else [])
        if self.refused(*fields):
            return None
        joint = self.joint.value
        joint = None if joint in (NEW, None) else joint
        if joint is not None:
            a, b = of_kind(self.model, PinJoint)[joint].bars[:2]
        if self.phi0.value is None:
            bars = self.model.bodies
            if bars[b].pose is None or (a is not None and bars[a].pose is None):
                msg = "φ0: the bodies have no initial pose; type the angle at t = 0"
                self.phi0.show_error(msg)
                self.message.error(msg)
                return None
            phi0 = bars[b].pose[2] - (0.0 if a is None else bars[a].pose[2])
        else:
            phi0 = math.radians(self.phi0.value)
        law = motor_law(self.law.value, phi0, self.omega.value,
                        math.radians(self.amplitude.value), math.radians(self.phase.value))
        return lambda: self.model.add(JointMotor(body_a=a, body_b=b, law=law))

    def _add_pin(self, pin: BodyPin) -> str:
        """Add ``pin`` if its points coincide in the initial pose (the model's tolerance)."""
        bodies = self.model.bodies
        taken = set(self.model.elements)
        where = pin.name or next(f"{BodyPin.prefix}{k}" for k in range(len(taken) + 1)
                                 if f"{BodyPin.prefix}{k}" not in taken)
        pin.check_coincident(bodies, self.model.tolerance, where)
        return self.model.add(pin)

    def delete(self) -> None:
        """Delete the selected element."""
        if self.selected == NEW:
            self.message.error("select an element to delete")
            return
        super().delete()

    def remove(self, k: int) -> str:
        """Remove the ``k``-th listed element (``model.remove_constraint``); its name."""
        name = self.items()[k][1].name
        self.model.remove(name)
        return name

    def removed_text(self, k: int, result) -> str:
        """Return the message after a deletion."""
        return f"deleted {result}"

"""`ModelEditor`: add, edit and delete bars, joints, supports and loads; g; assemble; files.

Every control calls the model's public API. The core validates every edit and leaves the
model unchanged when it raises ``ValueError``; the editor shows that message in red next to
the controls of the section and keeps the typed value, so it can be corrected.

Each section has a selector whose first entry is "new …". With "new" selected the fields are
a template for the *Add* button; with an existing item selected, changing a field edits that
item at once (number fields apply on Enter or when leaving the field:
``continuous_update=False``).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable

import ipywidgets as widgets

from quivira import BarJointModel

from . import _geometry as geo
from ._messages import Message
from ._modelinfo import counts_line, nice
from ._widgets import close_tree

SECTIONS = ("bars", "joints", "supports", "forces", "model")
_TITLES = ("Bars", "Joints", "Supports", "Loads", "Model & files")
_STYLE = {"description_width": "64px"}
NEW = -1


def _num(description: str, value: float, tooltip: str = "", width: str = "170px"):
    return widgets.FloatText(value=value, description=description, continuous_update=False,
                             style=_STYLE, tooltip=tooltip, layout=widgets.Layout(width=width))


def _button(description: str, icon: str = "", style: str = "", tooltip: str = ""):
    return widgets.Button(description=description, icon=icon, button_style=style,
                          tooltip=tooltip or description, layout=widgets.Layout(width="auto"))


def _item_select(noun: str, description: str) -> widgets.Dropdown:
    """The selector of a section: "+ new ..." (a template for Add) or an existing item."""
    return widgets.Dropdown(options=[(f"+ new {noun}", NEW)], value=NEW,
                            description=description, style=_STYLE,
                            layout=widgets.Layout(width="340px"))


def _bar_picker() -> widgets.Dropdown:
    """Which bar a support or load acts on."""
    return widgets.Dropdown(options=[], description="on bar", style=_STYLE,
                            layout=widgets.Layout(width="170px"))


def _row(*children) -> widgets.HBox:
    return widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap"))


def _parse_list(text: str, kind: type, what: str) -> list:
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        return [kind(p) for p in parts]
    except ValueError:
        example = "0, 1" if kind is int else "0.5, -0.5"
        raise ValueError(f"{what}: write {'bar indices' if kind is int else 'numbers'} "
                         f"separated by commas, e.g. {example}; got {text!r}") from None


class ModelEditor(widgets.VBox):
    """Build and edit a :class:`quivira.bar_joint_model` with widgets.

    Parameters
    ----------
    model : quivira.bar_joint_model
        The model to edit (observed: the editor follows changes made elsewhere, too).

    Attributes
    ----------
    model : quivira.bar_joint_model
        The model edited (a loaded file replaces its content: ``model.replace_with``).
    messages : dict of str to Message
        The message line of each section: ``"bars"``, ``"joints"``, ``"supports"``,
        ``"forces"``, ``"model"``.
    summary : ipywidgets.HTML
        The counts line, e.g. "3 bars · 2 joints · …".
    sections : ipywidgets.Accordion
        The sections, in the order of :data:`SECTIONS`.

    Notes
    -----
    The controls are attributes named by section: ``bar_select``, ``bar_mode``, ``bar_x``,
    ``bar_y``, ``bar_theta`` (degrees), ``bar_length``, ``bar_x1`` … ``bar_y2``,
    ``bar_mass``, ``add_bar_button``, ``delete_bar_button``; ``joint_select``,
    ``joint_bars``, ``joint_s``, ``add_joint_button``, ``delete_joint_button``,
    ``infer_joints_button``; ``support_select``, ``support_bar``, ``support_s``,
    ``support_free_x``, ``support_free_y``, ``support_at_point``, ``support_x``,
    ``support_y``, ``add_support_button``, ``delete_support_button``; ``force_select``,
    ``force_bar``, ``force_s``, ``force_fx``, ``force_fy``, ``force_torque``,
    ``add_force_button``, ``delete_force_button``; ``g``, ``assemble_button``, ``path``,
    ``save_button``, ``load_button``, ``upload``.
    """

    def __init__(self, model: BarJointModel) -> None:
        super().__init__()
        self.model = model
        self._syncing = False
        self.messages = {s: Message() for s in SECTIONS}
        self.summary = widgets.HTML()
        self.summary.add_class("quivira-summary")
        boxes = [self._build_bars(), self._build_joints(), self._build_supports(),
                 self._build_forces(), self._build_model()]
        self.sections = widgets.Accordion(children=boxes, titles=_TITLES, selected_index=0)
        self.children = [self.summary, self.sections]
        self.add_class("quivira-editor")
        self.model.observe(self._on_model_change)
        self._refresh()

    # ================================================================== building
    def _build_bars(self) -> widgets.VBox:
        self.bar_select = _item_select("bar", "bar")
        self.bar_mode = widgets.ToggleButtons(options=[("by attitude", "attitude"),
                                                       ("by endpoints", "endpoints")],
                                              value="attitude", style={"button_width": "110px"})
        self.bar_x = _num("x", 0.0, "x of the bar's centre")
        self.bar_y = _num("y", 0.0, "y of the bar's centre")
        self.bar_theta = _num("θ [°]", 0.0, "angle from the +x axis, in degrees")
        self.bar_length = _num("length", 1.0, "bar length (positive)")
        self.bar_x1 = _num("x₁", -0.5, "x of the s = -0.5 end")
        self.bar_y1 = _num("y₁", 0.0, "y of the s = -0.5 end")
        self.bar_x2 = _num("x₂", 0.5, "x of the s = +0.5 end")
        self.bar_y2 = _num("y₂", 0.0, "y of the s = +0.5 end")
        self.bar_mass = _num("mass", 1.0, "bar mass (positive)")
        self.add_bar_button = _button("Add bar", "plus", "success", "add a bar from the fields")
        self.delete_bar_button = _button("Delete bar", "trash", "danger",
                                         "delete the selected bar (and what depends on it)")
        self.add_bar_button.add_class("quivira-add-bar")
        self._attitude_box = widgets.VBox([_row(self.bar_x, self.bar_y),
                                           _row(self.bar_theta, self.bar_length)])
        self._endpoint_box = widgets.VBox([_row(self.bar_x1, self.bar_y1),
                                           _row(self.bar_x2, self.bar_y2)])
        self._endpoint_box.layout.display = "none"
        self.bar_select.observe(lambda _: self._sync_bar(), names="value")
        self.bar_mode.observe(self._on_bar_mode, names="value")
        for w, name in ((self.bar_x, "x"), (self.bar_y, "y"), (self.bar_theta, "theta")):
            w.observe(lambda ch, name=name: self._on_bar_attitude(name), names="value")
        for w in (self.bar_x1, self.bar_y1, self.bar_x2, self.bar_y2):
            w.observe(lambda ch, w=w: self._on_bar_endpoint(w), names="value")
        self.bar_length.observe(lambda _: self._on_bar_length(), names="value")
        self.bar_mass.observe(lambda _: self._on_bar_mass(), names="value")
        self.add_bar_button.on_click(lambda _: self.add_bar())
        self.delete_bar_button.on_click(lambda _: self.delete_bar())
        return widgets.VBox([self.bar_select, self.bar_mode, self._attitude_box,
                             self._endpoint_box, _row(self.bar_mass),
                             _row(self.add_bar_button, self.delete_bar_button),
                             self.messages["bars"].widget])

    def _build_joints(self) -> widgets.VBox:
        self.joint_select = _item_select("joint", "joint")
        self.joint_bars = widgets.Text(value="0, 1", description="bars", placeholder="0, 1",
                                       continuous_update=False, style=_STYLE,
                                       tooltip="indices of the bars pinned together",
                                       layout=widgets.Layout(width="340px"))
        self.joint_s = widgets.Text(value="0.5, -0.5", description="points s",
                                    placeholder="0.5, -0.5", continuous_update=False,
                                    style=_STYLE, tooltip="one s per bar: -0.5 start, 0 centre, "
                                    "0.5 end", layout=widgets.Layout(width="340px"))
        hint = widgets.HTML('<span style="color:#607d8b;font-size:0.85em">one point per bar: '
                            "s = −0.5 start, 0 centre, +0.5 end</span>")
        self.add_joint_button = _button("Add joint", "plus", "success")
        self.delete_joint_button = _button("Delete joint", "trash", "danger")
        self.infer_joints_button = _button("Infer joints", "magic", "info",
                                           "add joints where bars meet in the drawn pose")
        self.infer_joints_button.add_class("quivira-infer-joints")
        self.joint_select.observe(lambda _: self._sync_joint(), names="value")
        self.joint_bars.observe(lambda _: self._on_joint_field(), names="value")
        self.joint_s.observe(lambda _: self._on_joint_field(), names="value")
        self.add_joint_button.on_click(lambda _: self.add_joint())
        self.delete_joint_button.on_click(lambda _: self.delete_joint())
        self.infer_joints_button.on_click(lambda _: self.infer_joints())
        return widgets.VBox([self.joint_select, self.joint_bars, self.joint_s, hint,
                             _row(self.add_joint_button, self.delete_joint_button,
                                  self.infer_joints_button),
                             self.messages["joints"].widget])

    def _build_supports(self) -> widgets.VBox:
        self.support_select = _item_select("support", "support")
        self.support_bar = _bar_picker()
        self.support_s = _num("point s", -0.5, "point of the bar: -0.5 start, 0 centre, 0.5 end")
        self.support_free_x = widgets.ToggleButton(value=False, description="free in x",
                                                   icon="arrows-h",
                                                   tooltip="roller: free to move along x",
                                                   layout=widgets.Layout(width="110px"))
        self.support_free_y = widgets.ToggleButton(value=False, description="free in y",
                                                   icon="arrows-v",
                                                   tooltip="roller: free to move along y",
                                                   layout=widgets.Layout(width="110px"))
        self.support_kind = widgets.HTML()
        self.support_at_point = widgets.Checkbox(value=True, description="at the bar point",
                                                 indent=False,
                                                 layout=widgets.Layout(width="150px"))
        self.support_x = _num("x", 0.0, "support position x")
        self.support_y = _num("y", 0.0, "support position y")
        self.add_support_button = _button("Add support", "plus", "success")
        self.delete_support_button = _button("Delete support", "trash", "danger")
        self.support_select.observe(lambda _: self._sync_support(), names="value")
        self.support_s.observe(lambda _: self._on_support_field("s"), names="value")
        self.support_free_x.observe(lambda _: self._on_support_field("free"), names="value")
        self.support_free_y.observe(lambda _: self._on_support_field("free"), names="value")
        self.support_at_point.observe(lambda _: self._on_support_field("at"), names="value")
        self.support_x.observe(lambda _: self._on_support_field("xy"), names="value")
        self.support_y.observe(lambda _: self._on_support_field("xy"), names="value")
        self.support_bar.observe(lambda _: self._template_support_point(), names="value")
        self.add_support_button.on_click(lambda _: self.add_support())
        self.delete_support_button.on_click(lambda _: self.delete_support())
        return widgets.VBox([self.support_select, _row(self.support_bar, self.support_s),
                             _row(self.support_free_x, self.support_free_y, self.support_kind),
                             _row(self.support_at_point),
                             _row(self.support_x, self.support_y),
                             _row(self.add_support_button, self.delete_support_button),
                             self.messages["supports"].widget])

    def _build_forces(self) -> widgets.VBox:
        self.force_select = _item_select("load", "load")
        self.force_bar = _bar_picker()
        self.force_s = _num("point s", 0.5, "point of the bar: -0.5 start, 0 centre, 0.5 end")
        self.force_fx = _num("fx", 0.0, "force, x component")
        self.force_fy = _num("fy", -1.0, "force, y component")
        self.force_torque = _num("torque", 0.0, "torque, counter-clockwise positive")
        self.add_force_button = _button("Add load", "plus", "success")
        self.delete_force_button = _button("Delete load", "trash", "danger")
        self.force_select.observe(lambda _: self._sync_force(), names="value")
        for w, key in ((self.force_s, "s"), (self.force_fx, "fx"), (self.force_fy, "fy"),
                       (self.force_torque, "torque")):
            w.observe(lambda ch, key=key: self._on_force_field(key), names="value")
        self.add_force_button.on_click(lambda _: self.add_force())
        self.delete_force_button.on_click(lambda _: self.delete_force())
        return widgets.VBox([self.force_select, _row(self.force_bar, self.force_s),
                             _row(self.force_fx, self.force_fy), _row(self.force_torque),
                             _row(self.add_force_button, self.delete_force_button),
                             self.messages["forces"].widget])

    def _build_model(self) -> widgets.VBox:
        self.g = _num("g", 9.81, "gravitational acceleration, acting along −y")
        self.assemble_button = _button("Assemble", "compress", "primary",
                                       "move the poses the least needed to meet every joint "
                                       "and support (model.assemble())")
        self.path = widgets.Text(value="model.json", description="file", style=_STYLE,
                                 layout=widgets.Layout(width="340px"))
        self.save_button = _button("Save", "save", "", "save the model to the file (JSON)")
        self.load_button = _button("Load", "folder-open", "", "load a model from the file")
        self.upload = widgets.FileUpload(accept=".json", multiple=False,
                                         description="Upload JSON", icon="upload")
        self.details = widgets.HTML()
        self.g.observe(lambda _: self._on_g(), names="value")
        self.assemble_button.on_click(lambda _: self.assemble())
        self.save_button.on_click(lambda _: self.save())
        self.load_button.on_click(lambda _: self.load())
        self.upload.observe(self._on_upload, names="value")
        details = widgets.Accordion(children=[self.details], titles=("model summary",))
        return widgets.VBox([_row(self.g, self.assemble_button), self.path,
                             _row(self.save_button, self.load_button, self.upload),
                             self.messages["model"].widget, details])

    # ================================================================== helpers
    def _apply(self, section: str, action: Callable, ok: str | Callable | None = None):
        """Run a model edit; show its ValueError in red (the model is then unchanged)."""
        msg = self.messages[section]
        try:
            result = action()
        except ValueError as exc:
            msg.error(str(exc))
            return False, None
        if ok is not None:
            msg.ok(ok(result) if callable(ok) else ok)
        return True, result

    def _set(self, widget, value) -> None:
        self._syncing = True
        try:
            widget.value = value
        finally:
            self._syncing = False

    def _set_options(self, dropdown, options: list, keep: bool = True) -> None:
        old = dropdown.value
        values = [v for _, v in options]
        self._syncing = True
        try:
            if list(dropdown.options) != options:
                dropdown.options = options
            if keep and old in values:
                dropdown.value = old
            elif values:
                dropdown.value = values[0]
        finally:
            self._syncing = False

    # ================================================================== refresh
    def _on_model_change(self, what: str) -> None:
        try:
            self._refresh()
        except Exception as exc:  # an observer must never break the model's edit
            self.messages["model"].error(f"editor could not refresh: {exc}")

    def _refresh(self) -> None:
        m = self.model
        self.summary.value = (f'<b class="quivira-counts">{counts_line(m)}</b>')
        bars = m.bars
        self._bars = bars
        bar_opts = [(f"bar {i}: L = {b.length:.4g}, m = {b.mass:.4g}", i)
                    for i, b in enumerate(bars)]
        self._set_options(self.bar_select, [("+ new bar", NEW)] + bar_opts)
        plain = [(f"bar {i}", i) for i in range(len(bars))]
        self._set_options(self.support_bar, plain)
        self._set_options(self.force_bar, plain)
        self._joints = m.joints
        self._set_options(self.joint_select, [("+ new joint", NEW)] + [
            (f"joint {j}: " + ", ".join(f"bar {b} at s = {s:g}" for b, s in zip(jt.bars, jt.s)),
             j) for j, jt in enumerate(self._joints)])
        self._supports = m.supports
        self._set_options(self.support_select, [("+ new support", NEW)] + [
            (f"support {k}: {self._kind(sp.free_x, sp.free_y)}, bar {sp.bar} at s = {sp.s:g}", k)
            for k, sp in enumerate(self._supports)])
        self._forces = m.forces
        self._set_options(self.force_select, [("+ new load", NEW)] + [
            (f"load {k}: bar {f.bar} at s = {f.s:g}, ({f.fx:g}, {f.fy:g}), τ = {f.torque:g}", k)
            for k, f in enumerate(self._forces)])
        self._set(self.g, m.g)
        self.details.value = ("<pre style='font-size:0.8em;line-height:1.25'>"
                              + html.escape(m.summary()) + "</pre>")
        self._sync_bar()
        self._sync_joint()
        self._sync_support()
        self._sync_force()

    @staticmethod
    def _kind(free_x: bool, free_y: bool) -> str:
        if free_x:
            return "roller, free in x"
        if free_y:
            return "roller, free in y"
        return "pin"

    # ================================================================== bars
    def _selected(self, dropdown) -> int:
        v = dropdown.value
        return NEW if v is None else int(v)

    def _sync_bar(self) -> None:
        i = self._selected(self.bar_select)
        self.delete_bar_button.disabled = i == NEW
        self.add_bar_button.description = "Add bar" if i == NEW else "Add copy"
        if i == NEW or i >= len(self._bars):
            return
        b = self._bars[i]
        self._set(self.bar_length, nice(b.length))
        self._set(self.bar_mass, nice(b.mass))
        if b.pose is not None:
            x, y, th = b.pose
            self._set(self.bar_x, nice(x))
            self._set(self.bar_y, nice(y))
            self._set(self.bar_theta, nice(math.degrees(th)))
            self._sync_endpoints(x, y, th, b.length)

    def _sync_endpoints(self, x, y, th, L) -> None:
        x1, y1, x2, y2 = geo.endpoints_from_pose(x, y, th, L)
        for w, v in ((self.bar_x1, x1), (self.bar_y1, y1), (self.bar_x2, x2), (self.bar_y2, y2)):
            self._set(w, nice(v))

    def _sync_attitude_from_endpoints(self) -> None:
        x, y, th, L = geo.pose_from_endpoints(self.bar_x1.value, self.bar_y1.value,
                                              self.bar_x2.value, self.bar_y2.value)
        self._set(self.bar_x, nice(x))
        self._set(self.bar_y, nice(y))
        self._set(self.bar_theta, nice(math.degrees(th)))
        if L > 0:
            self._set(self.bar_length, nice(L))

    def _on_bar_mode(self, change) -> None:
        attitude = change["new"] == "attitude"
        self._attitude_box.layout.display = None if attitude else "none"
        self._endpoint_box.layout.display = "none" if attitude else None

    def _sync_template_endpoints(self) -> None:
        """Show the endpoints of the bar the "new bar" fields describe."""
        self._sync_endpoints(self.bar_x.value, self.bar_y.value,
                             math.radians(self.bar_theta.value), self.bar_length.value)

    def _on_bar_attitude(self, name: str) -> None:
        if self._syncing:
            return
        i = self._selected(self.bar_select)
        if i == NEW:
            self._sync_template_endpoints()
            return
        b = self._bars[i]
        x, y, th = b.pose if b.pose is not None else (self.bar_x.value, self.bar_y.value,
                                                      math.radians(self.bar_theta.value))
        # only the edited coordinate changes: the others keep their exact values
        if name == "x":
            x = self.bar_x.value
        elif name == "y":
            y = self.bar_y.value
        else:
            th = math.radians(self.bar_theta.value)
        self._apply("bars", lambda: self.model.set_init_bar_attitude(i, x, y, th),
                    f"bar {i}: pose set")

    def _on_bar_endpoint(self, widget) -> None:
        if self._syncing:
            return
        i = self._selected(self.bar_select)
        if i == NEW:
            self._sync_attitude_from_endpoints()
            return
        b = self._bars[i]
        if b.pose is None:
            ends = [self.bar_x1.value, self.bar_y1.value, self.bar_x2.value, self.bar_y2.value]
        else:
            ends = list(geo.endpoints_from_pose(*b.pose, b.length))
        order = (self.bar_x1, self.bar_y1, self.bar_x2, self.bar_y2)
        ends[order.index(widget)] = widget.value
        x, y, th, L = geo.pose_from_endpoints(*ends)
        if not L > 0:
            self.messages["bars"].error(f"bar {i}: the two ends coincide (zero length); move "
                                        "one end")
            return
        ok, _ = self._apply("bars", lambda: self.model.set_init_bar_attitude(i, x, y, th))
        if ok and abs(L - b.length) > 1e-15 * max(1.0, L):
            ok, _ = self._apply("bars", lambda: self.model.set_bar_length(i, L))
        if ok:
            self.messages["bars"].ok(f"bar {i}: ends set (length {L:.6g})")

    def _on_bar_length(self) -> None:
        if self._syncing:
            return
        i = self._selected(self.bar_select)
        if i == NEW:
            self._sync_template_endpoints()
            return
        L = self.bar_length.value
        self._apply("bars", lambda: self.model.set_bar_length(i, L),
                    f"bar {i}: length {L:g}")

    def _on_bar_mass(self) -> None:
        if self._syncing:
            return
        i = self._selected(self.bar_select)
        if i == NEW:
            return
        m = self.bar_mass.value
        self._apply("bars", lambda: self.model.set_bar_mass(i, m), f"bar {i}: mass {m:g}")

    def add_bar(self) -> int | None:
        """Add a bar from the fields (by attitude or by endpoints); returns its index."""
        mass = self.bar_mass.value
        if self.bar_mode.value == "attitude":
            x, y, th = self.bar_x.value, self.bar_y.value, math.radians(self.bar_theta.value)
            L = self.bar_length.value

            def action():
                return self.model.add_bar_at_attitude(x, y, th, L, mass)
        else:
            p1 = (self.bar_x1.value, self.bar_y1.value)
            p2 = (self.bar_x2.value, self.bar_y2.value)
            L = math.hypot(p2[0] - p1[0], p2[1] - p1[1])

            def action():
                if not (isinstance(mass, (int, float)) and mass > 0):
                    # the core names the bad value: pass it on as a mass per length
                    return self.model.add_bar_from_point_pair(p1, p2, mass)
                return self.model.add_bar_from_point_pair(p1, p2, mass / L if L > 0 else mass)
        ok, i = self._apply("bars", action, lambda i: f"added bar {i}")
        return i if ok else None

    def delete_bar(self) -> None:
        """Delete the selected bar (joints, supports and loads on it go too)."""
        i = self._selected(self.bar_select)
        if i == NEW:
            self.messages["bars"].error("select a bar to delete")
            return

        def text(rem):
            extra = [f"{len(rem[k])} {k[:-1] if len(rem[k]) == 1 else k}"
                     for k in ("joints", "supports", "forces") if rem[k]]
            return f"deleted bar {i}" + (f" (and {', '.join(extra)})" if extra else "") + \
                "; higher bar indices moved down by one"
        self._apply("bars", lambda: self.model.remove_bar(i), text)

    # ================================================================== joints
    def _sync_joint(self) -> None:
        j = self._selected(self.joint_select)
        self.delete_joint_button.disabled = j == NEW
        if j == NEW or j >= len(self._joints):
            return
        jt = self._joints[j]
        self._set(self.joint_bars, ", ".join(str(b) for b in jt.bars))
        self._set(self.joint_s, ", ".join(f"{s:g}" for s in jt.s))

    def _joint_fields(self) -> tuple[list[int], list[float]]:
        bars = _parse_list(self.joint_bars.value, int, "joint bars")
        s = _parse_list(self.joint_s.value, float, "joint points s")
        return bars, s

    def _on_joint_field(self) -> None:
        if self._syncing:
            return
        j = self._selected(self.joint_select)
        if j == NEW:
            return

        def action():
            bars, s = self._joint_fields()
            self.model.set_joint(j, bars, s)
        self._apply("joints", action, f"joint {j} changed")

    def add_joint(self) -> int | None:
        """Add a joint of the bars and points in the fields; returns its index."""
        def action():
            bars, s = self._joint_fields()
            return self.model.add_joint(bars, s)
        ok, j = self._apply("joints", action, lambda j: f"added joint {j}")
        return j if ok else None

    def _delete_selected(self, section: str, select, remove, noun: str) -> None:
        """Remove the item chosen in ``select`` with ``remove(index)``, reporting in ``section``."""
        k = self._selected(select)
        if k == NEW:
            self.messages[section].error(f"select a {noun} to delete")
            return
        self._apply(section, lambda: remove(k), f"deleted {noun} {k}")

    def delete_joint(self) -> None:
        """Delete the selected joint."""
        self._delete_selected("joints", self.joint_select, self.model.remove_joint, "joint")

    def infer_joints(self) -> None:
        """Add joints where bars meet in their drawn poses (``model.infer_joints()``)."""
        before = len(self.model.joints)
        self._apply("joints", self.model.infer_joints,
                    lambda n: f"infer joints: {n - before} new, {n} in total")

    # ================================================================== supports
    def _bar_point(self, bar: int, s: float) -> tuple[float, float] | None:
        if not 0 <= bar < len(self._bars) or self._bars[bar].pose is None:
            return None
        return self._bars[bar].point(s)

    def _sync_support(self) -> None:
        k = self._selected(self.support_select)
        self.delete_support_button.disabled = k == NEW
        self.support_bar.disabled = k != NEW
        self.support_bar.tooltip = ("to move a support to another bar, delete it and add a new "
                                    "one" if k != NEW else "the bar the support holds")
        if k == NEW or k >= len(self._supports):
            self._show_support_kind()
            self._template_support_point()
            return
        sp = self._supports[k]
        self._set(self.support_bar, sp.bar)
        self._set(self.support_s, sp.s)
        self._set(self.support_free_x, sp.free_x)
        self._set(self.support_free_y, sp.free_y)
        p = self._bar_point(sp.bar, sp.s)
        at = p is not None and math.hypot(p[0] - sp.x, p[1] - sp.y) <= 1e-12 * max(
            1.0, abs(sp.x), abs(sp.y))
        self._set(self.support_at_point, at)
        self._set(self.support_x, nice(sp.x))
        self._set(self.support_y, nice(sp.y))
        self._show_support_kind()

    def _show_support_kind(self) -> None:
        self.support_x.disabled = self.support_y.disabled = self.support_at_point.value
        kind = self._kind(self.support_free_x.value, self.support_free_y.value)
        if self.support_free_x.value and self.support_free_y.value:
            kind = "free in both: constrains nothing"
        self.support_kind.value = f'<span style="color:#455a64">{kind}</span>'

    def _template_support_point(self) -> None:
        if self._syncing or self._selected(self.support_select) != NEW:
            return
        if self.support_at_point.value and self.support_bar.value is not None:
            p = self._bar_point(self.support_bar.value, self.support_s.value)
            if p is not None:
                self._set(self.support_x, nice(p[0]))
                self._set(self.support_y, nice(p[1]))

    def _on_support_field(self, what: str) -> None:
        if self._syncing:
            return
        self._show_support_kind()
        k = self._selected(self.support_select)
        if k == NEW:
            self._template_support_point()
            return
        sp = self._supports[k]
        kw: dict = {}
        if what == "free":
            kw = {"dof_in_x": self.support_free_x.value, "dof_in_y": self.support_free_y.value}
        elif what in ("s", "at"):
            kw = {"s": self.support_s.value}
            if self.support_at_point.value:
                p = self._bar_point(sp.bar, self.support_s.value)
                if p is not None and all(math.isfinite(v) for v in p):
                    kw.update(x=p[0], y=p[1])
            if what == "at" and not self.support_at_point.value:
                return
        else:
            kw = {"x": self.support_x.value, "y": self.support_y.value}
        self._apply("supports", lambda: self.model.set_support(k, **kw), f"support {k} changed")

    def add_support(self) -> int | None:
        """Add a support (pin, or roller when a direction is free) from the fields."""
        bar = self.support_bar.value
        if bar is None:
            self.messages["supports"].error("add a bar first: a support holds a point of a bar")
            return None
        at = self.support_at_point.value
        x = None if at else self.support_x.value
        y = None if at else self.support_y.value
        ok, k = self._apply("supports", lambda: self.model.add_support(
            bar, self.support_s.value, self.support_free_x.value, self.support_free_y.value,
            x, y), lambda k: f"added support {k}")
        return k if ok else None

    def delete_support(self) -> None:
        """Delete the selected support."""
        self._delete_selected("supports", self.support_select, self.model.remove_support,
                              "support")

    # ================================================================== forces
    def _sync_force(self) -> None:
        k = self._selected(self.force_select)
        self.delete_force_button.disabled = k == NEW
        self.force_bar.disabled = k != NEW
        self.force_bar.tooltip = ("to move a load to another bar, delete it and add a new one"
                                  if k != NEW else "the bar the load acts on")
        if k == NEW or k >= len(self._forces):
            return
        f = self._forces[k]
        self._set(self.force_bar, f.bar)
        self._set(self.force_s, f.s)
        self._set(self.force_fx, f.fx)
        self._set(self.force_fy, f.fy)
        self._set(self.force_torque, f.torque)

    def _on_force_field(self, key: str) -> None:
        if self._syncing:
            return
        k = self._selected(self.force_select)
        if k == NEW:
            return
        value = {"s": self.force_s, "fx": self.force_fx, "fy": self.force_fy,
                 "torque": self.force_torque}[key].value
        self._apply("forces", lambda: self.model.set_force(k, **{key: value}),
                    f"load {k}: {key} = {value:g}")

    def add_force(self) -> int | None:
        """Add a load (force and torque at a point of a bar) from the fields."""
        bar = self.force_bar.value
        if bar is None:
            self.messages["forces"].error("add a bar first: a load acts on a point of a bar")
            return None
        ok, k = self._apply("forces", lambda: self.model.add_external_force(
            bar, self.force_s.value, self.force_fx.value, self.force_fy.value,
            self.force_torque.value), lambda k: f"added load {k}")
        return k if ok else None

    def delete_force(self) -> None:
        """Delete the selected load."""
        self._delete_selected("forces", self.force_select, self.model.remove_force, "load")

    # ================================================================== model, files
    def _on_g(self) -> None:
        if self._syncing:
            return
        g = self.g.value
        self._apply("model", lambda: self.model.set_g(g), f"g = {g:g}")

    def assemble(self) -> dict | None:
        """Move the poses the least needed to meet all constraints (``model.assemble()``)."""
        self.messages["model"].info("assembling… (the first time for a new topology also "
                                    "compiles the equations)")

        def text(rep):
            moved = sorted(rep["moved"])
            if not moved:
                return "assembled: the pose already meets every constraint"
            return (f"assembled: moved bar{'s' if len(moved) > 1 else ''} "
                    f"{', '.join(map(str, moved))} (largest change {rep['max_move']:.3g})")
        ok, rep = self._apply("model", self.model.assemble, text)
        return rep if ok else None

    def save(self) -> None:
        """Save the model to the file named in :attr:`path` (JSON)."""
        path = self.path.value.strip()
        if not path:
            self.messages["model"].error("write a file name first, e.g. model.json")
            return
        try:
            self.model.save(path)
        except OSError as exc:
            self.messages["model"].error(f"cannot write {path}: {exc.strerror or exc}")
            return
        self.messages["model"].ok(f"saved to {path}")

    def load(self) -> None:
        """Load the model in the file named in :attr:`path`; it replaces the edited model."""
        path = self.path.value.strip()
        try:
            new = type(self.model).load(path)
        except FileNotFoundError:
            self.messages["model"].error(f"no file {path!r}")
            return
        except (OSError, ValueError) as exc:
            self.messages["model"].error(str(exc))
            return
        self._replace(new, f"loaded {path}")

    def _on_upload(self, change) -> None:
        files = change["new"]
        if not files:
            return
        f = files[0]
        name = f.get("name", "upload")
        try:
            data = json.loads(bytes(f["content"]).decode("utf-8"))
            new = type(self.model).from_dict(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            self.messages["model"].error(f"{name}: not a JSON model file ({exc})")
            return
        except ValueError as exc:
            self.messages["model"].error(f"{name}: {exc}")
            return
        finally:
            self.upload.value = ()
        self._replace(new, f"loaded {name}")

    def _replace(self, new, text: str) -> None:
        self.model.replace_with(new)  # same model object: every panel observing it follows
        self.messages["model"].ok(text)

    def set_model(self, model: BarJointModel) -> None:
        """Edit another model from now on."""
        if model is self.model:
            return
        self.model.unobserve(self._on_model_change)
        self.model = model
        model.observe(self._on_model_change)
        for w in (self.bar_select, self.joint_select, self.support_select, self.force_select):
            self._set(w, NEW)
        self._refresh()

    def close(self) -> None:
        """Stop observing the model and close the widgets."""
        self.model.unobserve(self._on_model_change)
        close_tree(self)
        super().close()


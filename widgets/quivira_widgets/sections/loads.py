"""The *Loads* section: constant point loads (a force and a torque at a point of a bar).

A load acts at the point ``s`` of a bar with components ``fx``, ``fy`` (N, global axes) and a
torque (N·m, counter-clockwise positive). A new load's fields start as 10 N downwards at the
end of the last bar.
"""

from __future__ import annotations

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import PointLoad

from .. import _specs as spec
from .._fields import NumberField
from .._modelinfo import n_bodies, names_of, of_kind
from .base import NEW, STYLE, ItemSection, row


class LoadsSection(ItemSection):
    """Point loads of the model (see the module docstring).

    Attributes
    ----------
    bar : ipywidgets.Dropdown
        The loaded bar (fixed once the load exists).
    s, fx, fy, torque : NumberField
        Point, force components (N) and torque (N·m).
    """

    noun = "load"
    title = "Loads"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.bar = widgets.Dropdown(options=[], description="on bar", style=STYLE,
                                    layout=widgets.Layout(width="172px"))
        self.s = NumberField(spec.POINT_S, 0.5, tooltip="point of the bar: -0.5 start, "
                             "0 centre, 0.5 end")
        self.fx = NumberField(spec.FORCE_X, 0.0, tooltip="force along the global x axis")
        self.fy = NumberField(spec.FORCE_Y, -10.0, tooltip="force along the global y axis "
                              "(gravity acts along −y)")
        self.torque = NumberField(spec.TORQUE, 0.0, tooltip="torque, counter-clockwise "
                                  "positive")
        for f, key in ((self.s, "s"), (self.fx, "fx"), (self.fy, "fy"),
                       (self.torque, "torque")):
            self.on_change(f, lambda key=key, f=f: self._on_field(key, f))
        self.children = [self.select, row(self.bar, self.s, align="center"),
                         row(self.fx, self.fy), row(self.torque),
                         row(self.add_button, self.delete_button), self.message.widget]

    def items(self) -> list:
        """Return the loads of the model listed by the section."""
        return of_kind(self.model, PointLoad)

    def item_label(self, k: int, f) -> str:
        """Return the selector's text of item ``k``."""
        return (f"load {k}: bar {f.bar} at s = {f.s:g}, ({f.fx:g}, {f.fy:g}) N, "
                f"τ = {f.torque:g} N·m")

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        options = [(f"bar {i}", i) for i in range(n_bodies(self.model))]
        with self.syncing():
            if list(self.bar.options) != options:
                old = self.bar.value
                self.bar.options = options
                self.bar.value = old if old in range(len(options)) else (
                    options[-1][1] if options else None)
        super().refresh()

    def fill_from(self, f, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        self.put(self.bar, f.bar, force)
        for field, v in ((self.s, f.s), (self.fx, f.fx), (self.fy, f.fy),
                         (self.torque, f.torque)):
            self.put(field, v, force)

    def fill_defaults(self) -> None:
        """Fill the fields with fresh values for a new item."""
        n = n_bodies(self.model)
        with self.syncing():
            self.bar.value = n - 1 if n else None
            for field, v in ((self.s, 0.5), (self.fx, 0.0), (self.fy, -10.0),
                             (self.torque, 0.0)):
                field.set_quietly(v)

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        self.bar.disabled = k != NEW
        self.bar.tooltip = ("to load another bar, delete this load and add a new one"
                            if k != NEW else "the bar the load acts on")

    def _on_field(self, key: str, field: NumberField) -> None:
        k = self.selected
        if k == NEW:
            return
        old = getattr(of_kind(self.model, PointLoad)[k], key)
        if field.error:
            self.put(field, old)
            return
        value = field.value
        unit = {"s": "", "torque": " N·m"}.get(key, " N")
        self.apply(lambda: self.model.set(names_of(self.model, PointLoad)[k], **{key: value}),
                   f"load {k}: {key} = {value:g}{unit}", field, old)

    def add(self) -> int | None:
        """Add a load (force and torque at a point of a bar) from the fields."""
        if self.selected != NEW:
            self.message.error("choose '+ new load' to add a load")
            return None
        bar = self.bar.value
        if bar is None:
            self.message.error("add a bar first: a load acts on a point of a bar")
            return None
        if self.refused(self.s, self.fx, self.fy, self.torque):
            return None
        vals = (self.s.value, self.fx.value, self.fy.value, self.torque.value)
        ok, k = self.apply(lambda: self.model.add_external_force(bar, *vals),
                           lambda k: f"added load {k}")
        return k if ok else None

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        return self.model.remove(names_of(self.model, PointLoad)[k])

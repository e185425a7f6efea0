"""The *Supports* section: pins and rollers holding a point of a bar.

A support holds the point ``s`` of a bar at a ground position ``(x, y)`` (m): a pin in both
directions, a roller free in x or in y. By default the ground position is where the bar's
point is drawn ("at the bar point"). A new support's fields start on the last bar's start.
"""

from __future__ import annotations

import math

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import Support

from .. import _specs as spec
from .._fields import NumberField
from .._modelinfo import n_bodies, names_of, nice, of_kind
from .base import NEW, STYLE, ItemSection, row


def support_kind(free_x: bool, free_y: bool) -> str:
    """``"pin"``, ``"roller, free in x"``, ``"roller, free in y"``."""
    if free_x and free_y:
        return "free in both: holds nothing"
    if free_x:
        return "roller, free in x"
    if free_y:
        return "roller, free in y"
    return "pin"


class SupportsSection(ItemSection):
    """Supports of the model (see the module docstring).

    Attributes
    ----------
    bar : ipywidgets.Dropdown
        The bar held (fixed once the support exists).
    s : NumberField
        The point of the bar.
    free_x, free_y : ipywidgets.ToggleButton
        Free directions (a roller).
    at_point : ipywidgets.Checkbox
        The ground position is the bar point's drawn position.
    x, y : NumberField
        The ground position (m).
    """

    noun = "support"
    title = "Supports"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.bar = widgets.Dropdown(options=[], description="on bar", style=STYLE,
                                    layout=widgets.Layout(width="172px"))
        self.s = NumberField(spec.POINT_S, -0.5, tooltip="point of the bar: -0.5 start, "
                             "0 centre, 0.5 end")
        self.free_x = widgets.ToggleButton(value=False, description="free in x",
                                           icon="arrows-h", tooltip="roller: free along x",
                                           layout=widgets.Layout(width="110px"))
        self.free_y = widgets.ToggleButton(value=False, description="free in y",
                                           icon="arrows-v", tooltip="roller: free along y",
                                           layout=widgets.Layout(width="110px"))
        self.kind = widgets.HTML()
        self.at_point = widgets.Checkbox(value=True, description="at the bar point",
                                         indent=False, layout=widgets.Layout(width="150px"))
        self.x = NumberField(spec.COORD_X, 0.0, tooltip="ground position x")
        self.y = NumberField(spec.COORD_Y, 0.0, tooltip="ground position y")
        self.on_change(self.s, lambda: self._on_field("s"))
        self.on_change(self.free_x, lambda: self._on_field("free"))
        self.on_change(self.free_y, lambda: self._on_field("free"))
        self.on_change(self.at_point, lambda: self._on_field("at"))
        self.on_change(self.x, lambda: self._on_field("x"))
        self.on_change(self.y, lambda: self._on_field("y"))
        self.on_change(self.bar, self._template_point)
        self.children = [self.select, row(self.bar, self.s, align="center"),
                         row(self.free_x, self.free_y, self.kind, align="center"),
                         row(self.at_point), row(self.x, self.y),
                         row(self.add_button, self.delete_button), self.message.widget]
        self._show_kind()

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the supports of the model listed by the section."""
        return of_kind(self.model, Support)

    def item_label(self, k: int, sp) -> str:
        """Return the selector's text of item ``k``."""
        return f"support {k}: {support_kind(sp.free_x, sp.free_y)}, bar {sp.bar} at s = {sp.s:g}"

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

    def _bar_point(self, bar, s: float) -> tuple[float, float] | None:
        bars = self.model.bodies
        if bar is None or not 0 <= bar < len(bars) or bars[bar].pose is None:
            return None
        return bars[bar].point(s)

    def fill_from(self, sp, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        self.put(self.bar, sp.bar, force)
        self.put(self.s, sp.s, force)
        self.put(self.free_x, sp.free_x, force)
        self.put(self.free_y, sp.free_y, force)
        p = self._bar_point(sp.bar, sp.s)
        at = p is not None and math.hypot(p[0] - sp.x, p[1] - sp.y) <= 1e-12 * max(
            1.0, abs(sp.x), abs(sp.y))
        self.put(self.at_point, at, force)
        self.put(self.x, nice(sp.x), force)
        self.put(self.y, nice(sp.y), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill the fields with fresh values for a new item."""
        n = n_bodies(self.model)
        with self.syncing():
            self.bar.value = n - 1 if n else None
            self.s.set_quietly(-0.5)
            self.free_x.value = False
            self.free_y.value = False
            self.at_point.value = True
        self._template_point()

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        self.bar.disabled = k != NEW
        self.bar.tooltip = ("to hold another bar, delete this support and add a new one"
                            if k != NEW else "the bar the support holds")
        self._show_kind()

    def _show_kind(self) -> None:
        self.x.disabled = self.y.disabled = self.at_point.value
        kind = support_kind(self.free_x.value, self.free_y.value)
        self.kind.value = f'<span class="quivira-hint">{kind}</span>'

    def _template_point(self) -> None:
        if self.selected != NEW or not self.at_point.value or self.s.error:
            return
        p = self._bar_point(self.bar.value, self.s.value)
        if p is not None:
            with self.syncing():
                self.x.set_quietly(nice(p[0]))
                self.y.set_quietly(nice(p[1]))

    # ------------------------------------------------------------------ edits
    def _on_field(self, what: str) -> None:
        self._show_kind()
        k = self.selected
        if k == NEW:
            self._template_point()
            return
        sp = of_kind(self.model, Support)[k]
        kw: dict = {}
        field = None
        restore = None
        if what == "free":
            kw = {"free_x": self.free_x.value, "free_y": self.free_y.value}
        elif what in ("s", "at"):
            if self.s.error:
                return
            if what == "at" and not self.at_point.value:
                return
            kw = {"s": self.s.value}
            field, restore = self.s, sp.s
            if self.at_point.value:
                p = self._bar_point(sp.bar, self.s.value)
                if p is not None and all(math.isfinite(v) for v in p):
                    kw.update(x=p[0], y=p[1])
        else:
            field = self.x if what == "x" else self.y
            if field.error:
                return
            # only the edited coordinate: the other keeps its exact value, not the one shown
            kw = {what: field.value}
            restore = nice(getattr(sp, what))
        name = names_of(self.model, Support)[k]
        ok, _ = self.apply(lambda: self.model.set(name, **kw), f"support {k} changed",
                           field, restore)
        if not ok and what == "free":
            with self.syncing():
                self.free_x.value, self.free_y.value = sp.free_x, sp.free_y
            self._show_kind()

    def add(self) -> int | None:
        """Add a support (pin, or roller when a direction is free) from the fields."""
        if self.selected != NEW:
            self.message.error("choose '+ new support' to add a support")
            return None
        bar = self.bar.value
        if bar is None:
            self.message.error("add a bar first: a support holds a point of a bar")
            return None
        if self.refused(self.s) or (not self.at_point.value and self.refused(self.x, self.y)):
            return None
        at = self.at_point.value
        x = None if at else self.x.value
        y = None if at else self.y.value
        s, fx, fy = self.s.value, self.free_x.value, self.free_y.value
        ok, k = self.apply(lambda: self.model.add_support(bar, s, fx, fy, x, y),
                           lambda k: f"added support {k}")
        if ok:
            self.fresh_defaults()
        return k if ok else None

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        return self.model.remove(names_of(self.model, Support)[k])

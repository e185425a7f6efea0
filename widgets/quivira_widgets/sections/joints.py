"""The *Joints* section: pin joints between bars, and *Infer joints* from the drawn poses.

A joint pins the point ``s[k]`` of bar ``bars[k]`` together for every k (two or more bars;
``s = -0.5`` is a bar's start, ``0`` its centre, ``+0.5`` its end). A new joint's fields start
with the two bars added last, end to start.
"""

from __future__ import annotations

import ipywidgets as widgets

from quivira import BarJointModel
from quivira.elements import PinJoint

from .._fields import ListField
from .._modelinfo import n_bodies, names_of, of_kind, replace_fields
from .base import NEW, ItemSection, button, row


class JointsSection(ItemSection):
    """Joints of the model (see the module docstring).

    Attributes
    ----------
    bars : ListField
        The bars pinned together (e.g. ``0, 1``).
    s : ListField
        One point per bar (e.g. ``0.5, -0.5``).
    infer_button : ipywidgets.Button
        Add joints where bars meet in their drawn poses.
    """

    noun = "joint"
    title = "Joints"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.bars = ListField("bars", "index", [0, 1], tooltip="numbers of the bars pinned "
                              "together", placeholder="e.g. 0, 1")
        self.s = ListField("points s", "s", [0.5, -0.5], tooltip="one point per bar: -0.5 "
                           "start, 0 centre, 0.5 end", placeholder="e.g. 0.5, -0.5")
        hint = widgets.HTML('<span class="quivira-hint">one point per bar: s = −0.5 start, '
                            "0 centre, +0.5 end</span>")
        self.infer_button = button("Infer joints", "magic", "info",
                                   "add joints where bars meet in the drawn pose",
                                   "quivira-infer-joints")
        self.on_change(self.bars, self._on_fields)
        self.on_change(self.s, self._on_fields)
        self.on_click(self.infer_button, self.infer)
        self.children = [self.select, self.bars, self.s, hint,
                         row(self.add_button, self.delete_button, self.infer_button),
                         self.message.widget]

    def items(self) -> list:
        """Return the joints of the model listed by the section."""
        return of_kind(self.model, PinJoint)

    def item_label(self, k: int, jt) -> str:
        """Return the selector's text of item ``k``."""
        return f"joint {k}: " + ", ".join(f"bar {b} at s = {s:g}" for b, s in zip(jt.bars, jt.s))

    def fill_from(self, jt, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        self.put(self.bars, [int(b) for b in jt.bars], force)
        self.put(self.s, [float(s) for s in jt.s], force)

    def fill_defaults(self) -> None:
        """Fill the fields with fresh values for a new item."""
        n = n_bodies(self.model)
        with self.syncing():
            if n >= 2:
                self.bars.set_quietly([n - 2, n - 1])
                self.s.set_quietly([0.5, -0.5])
            else:
                self.bars.set_quietly([0, 1])
                self.s.set_quietly([0.5, -0.5])

    def _on_fields(self) -> None:
        j = self.selected
        if j == NEW or self.bars.error or self.s.error:
            return
        bars, s = list(self.bars.value), list(self.s.value)
        old = of_kind(self.model, PinJoint)[j]
        field = self.s if len(s) != len(bars) else self.bars
        name = names_of(self.model, PinJoint)[j]
        ok, _ = self.apply(lambda: replace_fields(self.model, name, bars=bars, s=s),
                           f"joint {j} changed", field)
        if not ok:
            with self.syncing():
                self.bars.set_quietly([int(b) for b in old.bars], keep_text=True)
                self.s.set_quietly([float(v) for v in old.s], keep_text=True)

    def add(self) -> int | None:
        """Add a joint of the bars and points in the fields; returns its index."""
        if self.selected != NEW:
            self.message.error("choose '+ new joint' to add a joint")
            return None
        if self.refused(self.bars, self.s):
            return None
        bars, s = list(self.bars.value), list(self.s.value)
        field = self.s if len(s) != len(bars) else self.bars
        ok, j = self.apply(lambda: self.model.add_joint(bars, s), lambda j: f"added joint {j}",
                           field)
        if ok:
            self.fresh_defaults()
        return j if ok else None

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        return self.model.remove(names_of(self.model, PinJoint)[k])

    def infer(self) -> None:
        """Add joints where bars meet in their drawn poses (``model.infer_joints()``)."""
        before = len(of_kind(self.model, PinJoint))
        self.apply(self.model.infer_joints,
                   lambda n: f"infer joints: {n - before} new, {n} in total")

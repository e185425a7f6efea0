"""The *Model* section: gravity and *Assemble*, and a summary of the model."""

from __future__ import annotations

import html

import ipywidgets as widgets

from quivira import BarJointModel

from .. import _specs as spec
from .._fields import NumberField
from .base import Section, button, row


class ModelSection(Section):
    """Gravity, assembling the initial pose, and the model's summary.

    Attributes
    ----------
    g : NumberField
        The acceleration of gravity along −y (m/s²); g < 0 is accepted with a warning.
    assemble_button : ipywidgets.Button
        Move the poses the least needed to meet every joint and support.
    details : ipywidgets.HTML
        The model's summary (``model.summary()``).
    """

    title = "Model"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.g = NumberField(spec.GRAVITY, 9.81, tooltip="acceleration of gravity, acting "
                             "along −y")
        self.assemble_button = button("Assemble", "compress", "primary",
                                      "move the poses the least needed to meet every joint "
                                      "and support", "quivira-assemble")
        self.details = widgets.HTML()
        self.on_change(self.g, self._on_g)
        self.on_click(self.assemble_button, self.assemble)
        summary = widgets.Accordion(children=[self.details], titles=("model summary",))
        self.children = [row(self.g, self.assemble_button, align="center"), self.message.widget,
                         summary]

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        self.put(self.g, self.model.g)
        self.details.value = ("<pre style='font-size:0.8em;line-height:1.25;white-space:"
                              "pre-wrap'>" + html.escape(self.model.summary()) + "</pre>")

    def _on_g(self) -> None:
        if self.g.error:
            self.put(self.g, self.model.g)
            return
        g = self.g.value
        old = self.model.g
        ok, _ = self.apply(lambda: self.model.set_g(g), f"g = {g:g} m/s²", self.g, old)
        if ok and self.g.warning:
            self.message.warning(self.g.warning)

    def assemble(self):
        """Move the poses the least needed to meet all constraints (``model.assemble()``)."""
        self.message.info("assembling… (the first time for a new topology also compiles the "
                          "equations)")

        def text(rep):
            moved = sorted(rep["moved"])
            if not moved:
                return "assembled: the pose already meets every constraint"
            return (f"assembled: moved bar{'s' if len(moved) > 1 else ''} "
                    f"{', '.join(map(str, moved))} (largest change {rep['max_move']:.3g})")
        ok, rep = self.apply(self.model.assemble, text)
        return rep if ok else None

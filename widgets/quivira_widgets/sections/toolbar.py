"""The editor's toolbar: undo, redo, a new empty model, and the examples of ``quivira.examples``.

Examples are found in :mod:`quivira.examples` when the toolbar is made: every public function
there that builds a model from keyword defaults, or from one whole number ``n`` (``chain(n)``,
``scissor(n)``), is offered — examples added to that module later appear by themselves.
Opening an example or a new model replaces the content of the edited model (one undoable
step).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel

from .. import _specs as spec
from .._fields import IntField
from .._history import History
from .base import Section, button, row


@dataclass(frozen=True)
class Example:
    """A function of :mod:`quivira.examples` and whether it takes a size ``n``."""

    name: str
    build: Callable
    takes_n: bool

    @property
    def label(self) -> str:
        """E.g. ``"chain(n)"``, ``"four-bar"``."""
        base = self.name.replace("_", "-")
        return f"{base}(n)" if self.takes_n else base


def find_examples() -> list[Example]:
    """Return the examples of :mod:`quivira.examples` (see the module docstring)."""
    import quivira.examples as ex

    out = []
    for name, fn in inspect.getmembers(ex, inspect.isfunction):
        if name.startswith("_") or fn.__module__ != ex.__name__:
            continue
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is inspect.Parameter.empty]
        if len(params) > 1:
            continue
        out.append(Example(name, fn, len(params) == 1))
    order = {"four_bar": 0, "chain": 1, "scissor": 2}
    return sorted(out, key=lambda e: (order.get(e.name, 9), e.name))


class Toolbar(Section):
    """Undo, redo, new model, examples (see the module docstring).

    Attributes
    ----------
    history : History
        The undo/redo stacks of the model.
    undo_button, redo_button, new_button, example_button : ipywidgets.Button
    example : ipywidgets.Dropdown
        The example to open.
    example_n : IntField
        Its size, for examples that take one.
    """

    title = "Toolbar"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.history = History(model)
        self.undo_button = button("Undo", "undo", "", "undo the last edit", "quivira-undo")
        self.redo_button = button("Redo", "repeat", "", "redo the edit undone",
                                  "quivira-redo")
        self.new_button = button("New model", "file-o", "", "start from an empty model "
                                 "(can be undone)", "quivira-new-model")
        self.examples = find_examples()
        self.example = widgets.Dropdown(options=[(e.label, e.name) for e in self.examples],
                                        description="example",
                                        style={"description_width": "58px"},
                                        layout=widgets.Layout(width="180px"))
        self.example_n = IntField(spec.EXAMPLE_N, 3, description="n", width="92px",
                                  tooltip="bars of a chain, cells of a scissor lattice")
        self.example_n.text.style.description_width = "18px"
        self.example_button = button("Open", "folder-open-o", "", "replace the model by this "
                                     "example (can be undone)", "quivira-open-example")
        self.on_click(self.undo_button, self.undo)
        self.on_click(self.redo_button, self.redo)
        self.on_click(self.new_button, self.new_model)
        self.on_click(self.example_button, self.open_example)
        self.on_change(self.example, self._show_n)
        self.history.observe(self._on_history, names=["can_undo", "can_redo", "undo_label",
                                                      "redo_label"])
        self.children = [row(self.undo_button, self.redo_button, self.new_button,
                             align="center"),
                         row(self.example, self.example_n, self.example_button,
                             align="center"),
                         self.message.widget]
        self._on_history(None)
        self._show_n()

    def _on_history(self, _change) -> None:
        h = self.history
        self.undo_button.disabled = not h.can_undo
        self.redo_button.disabled = not h.can_redo
        self.undo_button.tooltip = f"undo: {h.undo_label}" if h.can_undo else "nothing to undo"
        self.redo_button.tooltip = f"redo: {h.redo_label}" if h.can_redo else "nothing to redo"

    def _show_n(self) -> None:
        ex = self._chosen()
        self.example_n.layout.display = None if ex is not None and ex.takes_n else "none"

    def _chosen(self) -> Example | None:
        return next((e for e in self.examples if e.name == self.example.value), None)

    def undo(self) -> None:
        """Undo the last edit of the model."""
        what = self.history.undo()
        if what is None:
            self.message.info("nothing to undo")
        else:
            self.message.ok(f"undone: {what}")

    def redo(self) -> None:
        """Redo the last undone edit."""
        what = self.history.redo()
        if what is None:
            self.message.info("nothing to redo")
        else:
            self.message.ok(f"redone: {what}")

    def new_model(self) -> None:
        """Replace the model by an empty one (undoable)."""
        self.model.replace_with(BarJointModel())
        self.message.ok("new empty model (Undo brings the old one back)")

    def open_example(self) -> None:
        """Replace the model by the chosen example (undoable)."""
        ex = self._chosen()
        if ex is None:
            self.message.error("choose an example")
            return
        if ex.takes_n:
            if self.refused(self.example_n):
                return
            model = ex.build(int(self.example_n.value))
            what = f"{ex.name.replace('_', '-')}({int(self.example_n.value)})"
        else:
            model = ex.build()
            what = ex.label
        self.model.replace_with(model)
        self.message.ok(f"opened the example {what} (Undo brings the old model back)")

    @traitlets.observe("model")
    def _on_model(self, change) -> None:
        history = getattr(self, "history", None)
        if history is None or history.model is change["new"]:
            return
        history.unobserve(self._on_history)
        history.close()
        self.history = History(change["new"])
        self.history.observe(self._on_history, names=["can_undo", "can_redo", "undo_label",
                                                      "redo_label"])
        self._on_history(None)

    def close(self) -> None:
        """Close the toolbar's undo history and its widgets."""
        self.history.close()
        super().close()

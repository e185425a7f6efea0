"""What every editor section shares: the model trait, a message line, guarded edits, syncing.

A section shows part of a model and edits it through the model's public methods. Its handlers
run through :meth:`Section.handler`: skipped while the section writes its own fields
(:meth:`Section.syncing`), and no exception escapes (:mod:`quivira_widgets._guard`). An edit
runs through :meth:`Section.apply`: the core validates it; on an error the model is unchanged,
the message is shown in the section and next to the field concerned, and that field keeps what
was typed.

:class:`ItemSection` adds a selector whose first entry is "+ new …" (the fields are then a
template for *Add*, filled with fresh defaults) and Add/Delete buttons.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel

from .._fields import _Field
from .._guard import report
from .._messages import Message
from .._modelinfo import n_bodies
from .._widgets import AbstractWidgetMeta, close_tree

NEW = -1
STYLE = {"description_width": "74px"}


def button(description: str, icon: str = "", style: str = "", tooltip: str = "",
           css: str = "") -> widgets.Button:
    """Return a button sized to its text."""
    b = widgets.Button(description=description, icon=icon, button_style=style,
                       tooltip=tooltip or description, layout=widgets.Layout(width="auto"))
    if css:
        b.add_class(css)
    return b


def row(*children, align: str = "flex-start") -> widgets.HBox:
    """Children side by side, wrapping when the panel is narrow."""
    return widgets.HBox(list(children), layout=widgets.Layout(flex_flow="row wrap",
                                                              align_items=align))


#: the value of the "ground" entry of a bar dropdown
GROUND = -1


def bar_choices(n_bars: int, ground: str = "") -> list[tuple[str, int]]:
    """Options of a bar dropdown: ``("bar i", i)``, after ``(ground, GROUND)`` if given."""
    return ([(ground, GROUND)] if ground else []) + [(f"bar {i}", i) for i in range(n_bars)]


def bar_dropdown(description: str, ground: str = "", width: str = "172px",
                 tooltip: str = "") -> widgets.Dropdown:
    """Return a dropdown of the bars (and ground, when ``ground`` names it)."""
    return widgets.Dropdown(options=bar_choices(0, ground), description=description,
                            style=STYLE, tooltip=tooltip or description,
                            layout=widgets.Layout(width=width))


def title(text: str) -> widgets.HTML:
    """Return a small heading inside a section."""
    return widgets.HTML(f'<div class="quivira-section-title">{text}</div>')


def hint(text: str) -> widgets.HTML:
    """Return a line of help in the muted colour."""
    return widgets.HTML(f'<span class="quivira-hint">{text}</span>')


class Section(widgets.VBox):
    """Base of the editor's sections (see the module docstring).

    Attributes
    ----------
    model : quivira.BarJointModel
        The model edited (a trait).
    message : Message
        The section's message line.
    title : str
        The section's title in the editor.
    """

    model = traitlets.Instance(BarJointModel)
    title = "section"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__()
        self.model = model
        self.message = Message()
        self._sync_depth = 0

    # ------------------------------------------------------------------ syncing
    @contextmanager
    def syncing(self) -> Iterator[None]:
        """Inside the block the section's own handlers do nothing (fields set from code)."""
        self._sync_depth += 1
        try:
            yield
        finally:
            self._sync_depth -= 1

    @property
    def is_syncing(self) -> bool:
        """True while the section writes its own fields."""
        return self._sync_depth > 0

    def put(self, field, value, force: bool = False) -> None:
        """Show ``value`` in ``field`` without editing the model.

        A field showing an error keeps what was typed unless ``force``.
        """
        with self.syncing():
            if isinstance(field, _Field):
                if not force and field.value == value:
                    return  # unchanged: keep the text and its message (e.g. a warning)
                field.set_quietly(value, keep_text=bool(field.error) and not force)
            elif field.value != value:
                field.value = value

    # ------------------------------------------------------------------ handlers, edits
    def handler(self, fn: Callable[[], Any]) -> Callable:
        """``fn`` as a widget callback: skipped while syncing, exceptions shown."""
        def run(*_args):
            if self.is_syncing:
                return None
            self.note_input()
            try:
                return fn()
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.message.error, f"{type(self).__name__}.{fn.__name__}")
                return None
        return run

    def on_change(self, widget: widgets.Widget, fn: Callable[[], Any]) -> None:
        """Run ``fn`` (as a :meth:`handler`) when ``widget.value`` changes."""
        widget.observe(self.handler(fn), names="value")

    def on_click(self, btn: widgets.Button, fn: Callable[[], Any]) -> None:
        """Run ``fn`` (as a :meth:`handler`) when ``btn`` is clicked."""
        btn.on_click(self.handler(fn))

    def note_input(self) -> None:
        """Note that the user changed a control of the section (a hook)."""

    def apply(self, action: Callable[[], Any], ok: str | Callable[[Any], str] | None = None,
              field: _Field | None = None, restore: Any = None) -> tuple[bool, Any]:
        """Run a model edit.

        On success show ``ok`` (text, or a function of the result). On an exception show
        its message in the section and next to ``field`` (which keeps the typed text; its
        value goes back to ``restore`` when given). Returns ``(succeeded, result)``.
        """
        try:
            result = action()
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
            shown: list[str] = []
            report(exc, shown.append, f"{type(self).__name__}.apply")
            self.message.error(shown[0])
            if field is not None:
                if restore is not None:
                    self.put(field, restore, force=False)
                field.show_error(shown[0])
            return False, None
        if ok is not None:
            self.message.ok(ok(result) if callable(ok) else ok)
        return True, result

    def refused(self, *fields: _Field) -> bool:
        """Tell whether one of ``fields`` shows a refused input (and say so in the message line)."""
        for f in fields:
            if f.error:
                self.message.error(f"correct the marked field first — {f.error}")
                return True
        return False

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""

    def set_bar_options(self, dropdown: widgets.Dropdown, ground: str = "",
                        default: int | None = None, options: list | None = None) -> None:
        """Offer the model's bars (and ground) in ``dropdown``.

        Its value is kept if it still exists (else ``default``, else the last bar).
        ``options``: the ``(label, value)`` pairs to offer instead of the numbered bars.
        """
        if options is None:
            options = bar_choices(n_bodies(self.model), ground)
        if list(dropdown.options) == options:
            return
        values = [v for _, v in options]
        old = dropdown.value
        with self.syncing():
            dropdown.options = options
            if old in values:
                dropdown.value = old
            elif default in values:
                dropdown.value = default
            else:
                dropdown.value = values[-1] if values else None

    def close(self) -> None:
        """Close the section's widgets."""
        close_tree(self)
        super().close()


class ItemSection(Section, metaclass=AbstractWidgetMeta):
    """A section of a list of items (bars, joints, supports, loads): selector, Add, Delete.

    Subclasses define :attr:`noun`, :meth:`items`, :meth:`item_label`, :meth:`fill_from`,
    :meth:`fill_defaults`, :meth:`add` and :meth:`remove`.
    """

    noun = "item"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.select = widgets.Dropdown(options=[(f"+ new {self.noun}", NEW)], value=NEW,
                                       description=self.noun, style=STYLE,
                                       layout=widgets.Layout(width="340px", max_width="100%"))
        self.select.add_class(f"quivira-select-{self.noun}")
        self.add_button = button(f"Add {self.noun}", "plus", "success",
                                 f"add a {self.noun} from the fields",
                                 f"quivira-add-{self.noun}")
        self.delete_button = button(f"Delete {self.noun}", "trash", "danger",
                                    f"delete the selected {self.noun}",
                                    f"quivira-delete-{self.noun}")
        self.on_change(self.select, self._on_select)
        self.on_click(self.add_button, self.add)
        self.on_click(self.delete_button, self.delete)

    # ------------------------------------------------------------------ to define
    @abstractmethod
    def items(self) -> list:
        """Return the items of the model."""

    @abstractmethod
    def item_label(self, k: int, item) -> str:
        """Return the selector's text of item ``k``."""

    @abstractmethod
    def fill_from(self, item, force: bool) -> None:
        """Show ``item`` in the fields."""

    @abstractmethod
    def fill_defaults(self) -> None:
        """Fresh values for a new item."""

    @abstractmethod
    def add(self) -> int | None:
        """Add an item from the fields; its index, or None."""

    @abstractmethod
    def remove(self, k: int) -> Any:
        """Remove item ``k`` from the model."""

    def removed_text(self, k: int, result: Any) -> str:
        """Return the message after deleting item ``k``."""
        return f"deleted {self.noun} {k}"

    # ------------------------------------------------------------------ shared
    def note_input(self) -> None:
        # the "+ new" template was typed into: model changes no longer refill it
        """Note typing into the "+ new" template: model changes no longer refill it."""
        if self.selected == NEW:
            self._touched = True

    def fresh_defaults(self) -> None:
        """Fill the "+ new" template with fresh defaults.

        They follow the model until the user types into them.
        """
        self.fill_defaults()
        self._touched = False

    @property
    def selected(self) -> int:
        """The selected item's index, or :data:`NEW`."""
        v = self.select.value
        return NEW if v is None else int(v)

    def _on_select(self) -> None:
        self._show_selected(force=True)

    def _show_selected(self, force: bool) -> None:
        k = self.selected
        items = self.items()
        is_new = k == NEW or k >= len(items)
        self.delete_button.disabled = is_new
        self.add_button.disabled = not is_new
        self.add_button.tooltip = (f"add a {self.noun} from the fields" if is_new else
                                   f"choose '+ new {self.noun}' to add one")
        if is_new:
            if force or not getattr(self, "_touched", False):
                self.fresh_defaults()
        else:
            self.fill_from(items[k], force)
        self.after_select(k)

    def after_select(self, k: int) -> None:
        """Enable or disable controls for the selection ``k`` (a hook)."""

    def refresh(self) -> None:
        """Show the model again (called after every change of the model)."""
        items = self.items()
        options = [(f"+ new {self.noun}", NEW)] + [(self.item_label(k, it), k)
                                                   for k, it in enumerate(items)]
        old = self.selected
        with self.syncing():
            if list(self.select.options) != options:
                self.select.options = options
            keep = old if old < len(items) else NEW
            if self.select.value != keep:
                self.select.value = keep
        self._show_selected(force=keep != old)

    def delete(self) -> None:
        """Delete the selected item."""
        k = self.selected
        if k == NEW:
            self.message.error(f"select a {self.noun} to delete")
            return
        self.apply(lambda: self.remove(k), lambda r: self.removed_text(k, r))

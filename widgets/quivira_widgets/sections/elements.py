"""*Any element*: every kind of the model's registry, with a form built from its fields.

The kinds are those of :data:`quivira.elements.KINDS`, read when the section is shown:
a kind added to the registry later appears here without a change of the widgets. Its form
has one editor per declared field (:mod:`quivira_widgets._formfields`: numbers with their unit
and range, bodies, points, flags, choices, laws). With "+ new …" selected the form is a
template for *Add* (``model.add(Kind(...))``); with an element selected, a change of an
editable field is ``model.set(name, field=value)`` and fields that cannot be edited are
greyed out. What the model refuses is shown in the section and next to the field it names;
the model is unchanged.
"""

from __future__ import annotations

import dataclasses
import html
import re

import ipywidgets as widgets

from quivira import BarJointModel

from .._formfields import FieldEditor, editors_for
from .._modelinfo import body_kind
from .base import NEW, STYLE, Section, button, hint, row


def registry() -> tuple[type, ...]:
    """Return the model's registry of element kinds (read now: it may have grown)."""
    import quivira.elements

    return tuple(quivira.elements.KINDS)


class ElementsSection(Section):
    """Add, edit and remove an element of any kind with a generic form.

    Attributes
    ----------
    kind : ipywidgets.Dropdown
        The kind (its title), from the model's registry.
    select : ipywidgets.Dropdown
        "+ new <kind>" or an element of that kind, by name.
    editors : dict of str to FieldEditor
        The form: one editor per declared field of the kind.
    add_button, delete_button : ipywidgets.Button
    """

    title = "Any element"

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.kind = widgets.Dropdown(description="kind", style=STYLE,
                                     layout=widgets.Layout(width="300px"))
        self.kind.add_class("quivira-elements-kind")
        self.select = widgets.Dropdown(description="element", style=STYLE,
                                       layout=widgets.Layout(width="300px"))
        self.select.add_class("quivira-elements-select")
        self.add_button = button("Add", "plus", "success", "add the element of the form",
                                 "quivira-elements-add")
        self.delete_button = button("Delete", "trash", "danger", "delete the selected element",
                                    "quivira-elements-delete")
        self.doc = hint("")
        self.form = widgets.VBox()
        self.form.add_class("quivira-elements-form")
        self.editors: dict[str, FieldEditor] = {}
        self._kinds: tuple = ()
        self.on_change(self.kind, self._on_kind)
        self.on_change(self.select, self._on_select)
        self.on_click(self.add_button, self.add)
        self.on_click(self.delete_button, self.delete)
        self.children = [row(self.kind, self.select, align="center"), self.doc, self.form,
                         row(self.add_button, self.delete_button), self.message.widget]
        self.refresh()

    # ------------------------------------------------------------------ showing
    def _body_options(self) -> list[tuple[str, int]]:
        return [(f"{body_kind(b)} {i}", i) for i, b in enumerate(self.model.bodies)]

    def refresh(self) -> None:
        """Show the model again: the kinds, the elements of the kind, the selected one."""
        kinds = registry()
        with self.syncing():
            if kinds != self._kinds:
                self._kinds = kinds
                old = self.kind.value
                self.kind.options = [(k.title, k) for k in kinds]
                self.kind.value = old if old in kinds else kinds[0]
        if self.editors == {} or self._form_kind is not self.kind.value:
            self._build_form()
        names = self.names()
        old = self.select.value
        with self.syncing():
            opts = [(f"+ new {self.kind.value.title}", NEW)] + [(n, n) for n in names]
            if list(self.select.options) != opts:
                self.select.options = opts
            self.select.value = old if old in names else NEW
        body_opts = self._body_options()
        with self.syncing():
            for ed in self.editors.values():
                ed.set_bodies(body_opts)
        self._show_selected(force=old != self.select.value)

    _form_kind: type | None = None

    def _build_form(self) -> None:
        kind = self.kind.value
        self._form_kind = kind
        self.editors = {ed.name: ed for ed in editors_for(kind)}
        for name, ed in self.editors.items():
            w = ed.fields or [ed.widget]
            for f in w:
                f.observe(self.handler(lambda name=name: self._on_field(name)), names="value")
        doc = (kind.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
        doc = re.sub(r":\w+:`~?\.?([^`]+)`", r"\1", doc).replace("``", "")
        self.doc.value = f'<span class="quivira-hint">{html.escape(doc)}</span>'
        self.form.children = [ed.box for ed in self.editors.values()]

    def names(self) -> list[str]:
        """Return the names of the model's elements of the kind shown."""
        kind = self.kind.value
        return [n for n, el in self.model.elements.items() if type(el) is kind]

    @property
    def selected(self) -> str | int:
        """The selected element's name, or :data:`NEW`."""
        return NEW if self.select.value in (None, NEW) else self.select.value

    def _show_selected(self, force: bool) -> None:
        sel = self.selected
        self.delete_button.disabled = sel == NEW
        self.add_button.disabled = sel != NEW
        if not force:
            return
        with self.syncing():
            if sel == NEW:
                for ed in self.editors.values():
                    ed.show(ed.default)
                    ed.disabled = False
                return
            el = self.model.element(sel)
            for name, ed in self.editors.items():
                ed.show(getattr(el, name))
                ed.disabled = not ed.spec.editable

    # ------------------------------------------------------------------ handlers
    def _on_kind(self) -> None:
        self._build_form()
        self.refresh()
        self._show_selected(force=True)

    def _on_select(self) -> None:
        self._show_selected(force=True)

    def _on_field(self, name: str) -> None:
        sel = self.selected
        ed = self.editors[name]
        if sel == NEW or not ed.spec.editable:
            return
        try:
            value = ed.read(self.model)
        except ValueError as exc:
            self.message.error(str(exc))
            return
        old = getattr(self.model.element(sel), name)
        ok, _ = self.apply(lambda: self.model.set(sel, **{name: value}),
                           f"{sel}: {ed.spec.label or name} = {_shown(value, ed.spec.unit)}")
        if not ok:
            text = self.message_text()
            with self.syncing():
                ed.show(old)
            ed.show_error(text.lstrip("⚠ "))

    def _values(self) -> dict | None:
        """Return the form's values, None when a field refuses its input (shown there)."""
        values = {}
        for name, ed in self.editors.items():
            try:
                v = ed.read(self.model)
            except ValueError as exc:
                self.message.error(f"correct the marked field first — {exc}")
                return None
            if v is None and ed.default is dataclasses.MISSING and \
                    ed.spec.what not in ("body_or_ground",):
                msg = f"{ed.spec.label or name}: give a value"
                ed.show_error(msg)
                self.message.error(msg)
                return None
            if v is not None or ed.spec.optional or ed.spec.what == "body_or_ground" \
                    or ed.default is None:
                values[name] = v
        return values

    def add(self) -> str | None:
        """Add the element of the form; its name, or None when refused (the message says why)."""
        if self.selected != NEW:
            self.message.error(f"choose '+ new {self.kind.value.title}' to add one")
            return None
        values = self._values()
        if values is None:
            return None
        kind = self.kind.value
        try:
            el = kind(**values)
        except (TypeError, ValueError) as exc:
            self.message.error(str(exc))
            return None
        ok, name = self.apply(lambda: self.model.add(el), lambda name: f"added {name}")
        if not ok:
            self._mark(self.message_text())
        return name if ok else None

    def message_text(self) -> str:
        """Return the text of the section's message line."""
        return html.unescape(re.sub(r"<[^>]+>", "", self.message.widget.value))

    def _mark(self, text: str) -> None:
        """Show ``text`` next to the field it names (``contact0.restitution``, ``bar_a``)."""
        for name, ed in self.editors.items():
            if re.search(rf"(\.|\b){re.escape(name)}\b", text):
                ed.show_error(text.lstrip("⚠ "))
                return

    def delete(self) -> None:
        """Delete the selected element."""
        sel = self.selected
        if sel == NEW:
            self.message.error("select an element to delete")
            return
        self.apply(lambda: self.model.remove(sel), f"deleted {sel}")


def _shown(value, unit: str) -> str:
    if isinstance(value, float):
        return f"{value:.6g}{' ' + unit if unit else ''}"
    return str(value)

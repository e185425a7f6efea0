"""A one-line message shown next to controls: errors, warnings, confirmations, notes.

A :class:`Message` is a small :class:`traitlets.HasTraits`: its ``text`` and ``kind`` are
traits, so a panel can ``observe`` another panel's messages (the Studio's status strip follows
the player's this way). Colours come from the style sheet (:mod:`quivira_widgets._theme`),
which takes them from JupyterLab's theme.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import traitlets

KINDS = ("error", "ok", "info", "warning")
_MARKS = {"error": "⚠ ", "ok": "✓ ", "info": "", "warning": "⚠ "}


class Message(traitlets.HasTraits):
    """A line of text with a kind (``error``, ``ok``, ``info``, ``warning``).

    Attributes
    ----------
    widget : ipywidgets.HTML
        The widget to place next to the controls.
    text : str
        The plain text shown last ("" when cleared).
    kind : str
        The kind of the last message ("" when cleared).
    """

    text = traitlets.Unicode("")
    kind = traitlets.Unicode("")

    def __init__(self, css_class: str = "") -> None:
        super().__init__()
        self.widget = widgets.HTML(value="", layout=widgets.Layout(min_height="1.5em"))
        self.widget.add_class("quivira-message")
        if css_class:
            self.widget.add_class(css_class)

    def show(self, text: str, kind: str = "info") -> None:
        """Show ``text`` styled by ``kind``."""
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        with self.hold_trait_notifications():
            self.kind = kind
            self.text = text
        self.widget.value = (f'<span class="quivira-msg-{kind}">{_MARKS[kind]}'
                             f"{html.escape(text)}</span>")

    def error(self, text: str) -> None:
        """Show an error."""
        self.show(text, "error")

    def ok(self, text: str) -> None:
        """Show a confirmation."""
        self.show(text, "ok")

    def info(self, text: str) -> None:
        """Show a neutral note."""
        self.show(text, "info")

    def warning(self, text: str) -> None:
        """Show a warning."""
        self.show(text, "warning")

    def clear(self) -> None:
        """Remove the message."""
        with self.hold_trait_notifications():
            self.kind = ""
            self.text = ""
        self.widget.value = ""

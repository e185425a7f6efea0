"""A one-line message shown next to controls: errors in red, confirmations in green."""

from __future__ import annotations

import html

import ipywidgets as widgets

_STYLES = {
    "error": ("#c62828", "⚠ "),
    "ok": ("#2e7d32", "✓ "),
    "info": ("#455a64", ""),
    "warning": ("#b26a00", "⚠ "),
}


class Message:
    """An :class:`ipywidgets.HTML` line with a kind (``error``, ``ok``, ``info``, ``warning``).

    Attributes
    ----------
    widget : ipywidgets.HTML
        The widget to place next to the controls.
    text : str
        The plain text shown last ("" when cleared).
    kind : str
        The kind of the last message ("" when cleared).
    """

    def __init__(self) -> None:
        self.widget = widgets.HTML(value="", layout=widgets.Layout(min_height="1.6em"))
        self.widget.add_class("quivira-message")
        self.text = ""
        self.kind = ""

    def show(self, text: str, kind: str = "info") -> None:
        """Show ``text`` styled by ``kind``."""
        if kind not in _STYLES:
            raise ValueError(f"kind must be one of {sorted(_STYLES)}, got {kind!r}")
        color, mark = _STYLES[kind]
        self.text = text
        self.kind = kind
        self.widget.value = (f'<span class="quivira-{kind}" style="color:{color}">'
                             f"{mark}{html.escape(text)}</span>")

    def error(self, text: str) -> None:
        """Show an error (red)."""
        self.show(text, "error")

    def ok(self, text: str) -> None:
        """Show a confirmation (green)."""
        self.show(text, "ok")

    def info(self, text: str) -> None:
        """Show a neutral note."""
        self.show(text, "info")

    def warning(self, text: str) -> None:
        """Show a warning (amber)."""
        self.show(text, "warning")

    def clear(self) -> None:
        """Remove the message."""
        self.text = ""
        self.kind = ""
        self.widget.value = ""

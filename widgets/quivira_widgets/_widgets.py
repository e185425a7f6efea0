"""Closing a panel's widgets: every descendant, so nothing stays in ipywidgets' registry."""

from __future__ import annotations

import ipywidgets as widgets


def close_tree(root: widgets.Widget) -> None:
    """Close ``root``'s descendants (depth first), but not ``root`` itself."""
    seen: set[int] = set()
    stack = list(getattr(root, "children", ()))
    while stack:
        w = stack.pop()
        if id(w) in seen or not isinstance(w, widgets.Widget):
            continue
        seen.add(id(w))
        stack.extend(getattr(w, "children", ()))
        w.close()

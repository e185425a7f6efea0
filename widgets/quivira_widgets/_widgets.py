"""Closing panels, and the metaclass of widget base classes with abstract methods.

A panel's widgets are closed with every descendant, so nothing stays in ipywidgets' registry.
"""

from __future__ import annotations

from abc import ABCMeta

import ipywidgets as widgets


class AbstractWidgetMeta(type(widgets.VBox), ABCMeta):
    """Metaclass of widget classes that declare ``abc.abstractmethod`` hooks.

    ipywidgets classes have traitlets' metaclass; combined with :class:`abc.ABCMeta` a subclass
    that misses a hook fails when it is instantiated, not deep inside a callback.
    """


def release_panel(panel) -> bool:
    """Stop ``panel`` observing its model, close its figure pane and its descendants, once.

    Returns False when the panel was released before (the caller then does nothing more).
    """
    if getattr(panel, "_closed", False):
        return False
    panel._closed = True
    panel.model.unobserve(panel._on_model_change)
    panel.pane.close()
    close_tree(panel)
    return True


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

"""Look of the panels: one style sheet on JupyterLab's theme variables, and font scaling.

Every panel carries the CSS class ``quivira-root`` and one small :class:`ipywidgets.HTML`
holding a ``<style>`` element (:func:`style_widget`). The rules use JupyterLab's CSS
variables (``--jp-ui-font-color1``, ``--jp-layout-color2``, ``--jp-error-color1``, ...), with
light fallbacks outside JupyterLab, so text, the status strip and the messages follow the
light and the dark theme.

Figures are drawn by matplotlib in the kernel, in light colours. In a dark JupyterLab theme
(``body[data-jp-theme-light="false"]``) the style sheet shows them through a CSS filter
``invert(0.9) hue-rotate(180deg)``: the white background becomes dark grey, dark text light,
and colours keep their hue. This follows a theme switch at once, without the kernel.

Figures are rendered at a fixed pixel size and scaled down by CSS (``max-width: 100%``) when
the container is narrower, so nothing is cut off on the right.

The *presentation* mode (class ``quivira-presentation``) enlarges the widget fonts and control
heights; :func:`scale_fonts` enlarges the text of a figure.
"""

from __future__ import annotations

import ipywidgets as widgets
from matplotlib.figure import Figure
from matplotlib.text import Text

#: font scale of figures in presentation mode
PRESENTATION_SCALE = 1.45

CSS = """
.quivira-root { color: var(--jp-ui-font-color1, #212121); max-width: 100%; }
.quivira-root .quivira-header { display: flex; flex-wrap: wrap; align-items: baseline;
  gap: 4px 14px; border-bottom: 2px solid var(--jp-brand-color1, #1f5fa8);
  padding-bottom: 4px; margin-bottom: 2px; }
.quivira-root .quivira-title { font-size: 1.45em; font-weight: 600;
  color: var(--jp-ui-font-color0, #0d2f57); }
.quivira-root .quivira-tagline, .quivira-root .quivira-hint, .quivira-root .quivira-unit {
  color: var(--jp-ui-font-color2, #607d8b); }
.quivira-root .quivira-hint { font-size: 0.88em; }
.quivira-root .quivira-status-strip { background: var(--jp-layout-color2, #eef2f6);
  color: var(--jp-ui-font-color1, #37474f); border-radius: 4px; padding: 3px 8px;
  border: 1px solid var(--jp-border-color2, #dde3ea); }
.quivira-root .quivira-msg-error { color: var(--jp-error-color1, #c62828); }
.quivira-root .quivira-msg-ok { color: var(--jp-success-color1, #2e7d32); }
.quivira-root .quivira-msg-warning { color: var(--jp-warn-color0, #b26a00); }
.quivira-root .quivira-msg-info { color: var(--jp-ui-font-color2, #455a64); }
.quivira-root .quivira-invalid input, .quivira-root .quivira-invalid textarea {
  border-color: var(--jp-error-color1, #c62828) !important;
  box-shadow: 0 0 0 1px var(--jp-error-color1, #c62828); }
.quivira-root .quivira-warned input { border-color: var(--jp-warn-color1, #f57c00) !important; }
.quivira-root .quivira-field-message { font-size: 0.86em; line-height: 1.25;
  margin: -2px 0 2px 8px; }
.quivira-root .quivira-figure { max-width: 100%; min-width: 0; overflow: hidden; }
.quivira-root .quivira-figure img { max-width: 100%; height: auto !important; }
.quivira-root .quivira-figure.jupyter-matplotlib,
.quivira-root .quivira-figure .jupyter-matplotlib-figure { width: auto; max-width: 100%; }
.quivira-root .quivira-figure .jupyter-matplotlib-canvas-container { overflow: hidden; }
body[data-jp-theme-light="false"] .quivira-root .quivira-figure img,
body[data-jp-theme-light="false"] .quivira-root .quivira-figure canvas {
  filter: invert(0.9) hue-rotate(180deg); }
.quivira-root .quivira-timeline { position: relative; height: 14px; margin: 0 0 2px 0;
  border-bottom: 1px solid var(--jp-border-color1, #cfd8dc); }
.quivira-root .quivira-event { position: absolute; top: 0; transform: translateX(-50%);
  font-size: 11px; line-height: 14px; color: var(--jp-error-color1, #c62828); cursor: default; }
.quivira-root .quivira-event.quivira-event-info { color: var(--jp-brand-color1, #1f5fa8); }
.quivira-root .quivira-event.quivira-event-switch { color: var(--jp-warn-color0, #e65100); }
.quivira-root .quivira-event-log { max-height: 150px; overflow-y: auto; max-width: 100%; }
.quivira-root table.quivira-event-table { border-collapse: collapse; font-size: 0.9em; }
.quivira-root table.quivira-event-table th { text-align: left; font-weight: 600;
  color: var(--jp-ui-font-color2, #546e7a); padding: 0 12px 1px 0; position: sticky; top: 0;
  background: var(--jp-layout-color1, #ffffff);
  border-bottom: 1px solid var(--jp-border-color1, #cfd8dc); }
.quivira-root table.quivira-event-table td { padding: 0 12px 0 0; white-space: nowrap; }
.quivira-root table.quivira-event-table td.quivira-num { text-align: right;
  font-variant-numeric: tabular-nums; }
.quivira-root table.quivira-event-table tr.quivira-event-past td {
  color: var(--jp-ui-font-color2, #90a4ae); }
.quivira-root a.quivira-download { color: var(--jp-content-link-color, #1565c0);
  text-decoration: underline; }
.quivira-root .quivira-section-title { font-weight: 600; margin-top: 4px; }
.quivira-root table.quivira-facts td { padding: 0 12px 0 0; vertical-align: top; }
.quivira-root table.quivira-facts td.quivira-key { color: var(--jp-ui-font-color2, #546e7a); }
.quivira-presentation { --jp-widgets-font-size: 17px; --jp-ui-font-size1: 17px;
  --jp-widgets-inline-height: 34px; --jp-widgets-inline-label-width: 110px;
  font-size: 17px; }
.quivira-presentation .quivira-title { font-size: 1.8em; }
"""


#: pixel sizes of the figures made so far (each gets its aspect-ratio rule)
_SIZES: set[tuple[int, int]] = set()


def _size_rule(w: int, h: int) -> str:
    """Return the CSS rule that scales ipympl's fixed-size canvas box to its container.

    Ipympl draws on absolutely placed canvases in a box of fixed pixel size: the box is
    scaled down to the container at the figure's aspect ratio, and the canvases with it.
    """
    sel = f".quivira-root .quivira-ar-{w}x{h} .jupyter-matplotlib-canvas-div"
    return (f"{sel} {{ width: {w}px !important; max-width: calc(100% - 4px); "
            f"height: auto !important; aspect-ratio: {w} / {h}; }}\n"
            f"{sel} canvas {{ width: 100% !important; height: 100% !important; }}\n")


def style_widget() -> widgets.HTML:
    """Return an HTML widget holding the style sheet (it takes no room on the page)."""
    sizes = "".join(_size_rule(w, h) for w, h in sorted(_SIZES))
    w = widgets.HTML(f"<style>{CSS}{sizes}</style>",
                     layout=widgets.Layout(height="0px", margin="0", padding="0",
                                           overflow="hidden"))
    w.add_class("quivira-style")
    return w


def mark_figure(widget: widgets.DOMWidget, width: int, height: int) -> None:
    """Give a figure's widget the CSS classes that scale it to the container and theme it.

    The aspect ratio is kept; ``width`` × ``height`` is its size in pixels.
    """
    widget.add_class("quivira-figure")
    widget.add_class(f"quivira-ar-{int(width)}x{int(height)}")
    _SIZES.add((int(width), int(height)))


def scale_fonts(figure: Figure, scale: float) -> None:
    """Set every text of ``figure`` (titles, labels, ticks, legends) to ``scale`` times its size.

    Sizes are those at the first call; later calls scale from those base sizes, so 1.0
    restores them.
    """
    for t in figure.findobj(Text):
        base = getattr(t, "_quivira_font_size", None)
        if base is None:
            base = t.get_fontsize()
            t._quivira_font_size = base
        t.set_fontsize(base * scale)
    for ax in figure.axes:  # after the texts: ticks made later take these sizes
        for axis in (ax.xaxis, ax.yaxis):
            base = getattr(axis, "_quivira_tick_size", None)
            if base is None:
                ticks = axis.get_major_ticks()
                base = ticks[0].label1._quivira_font_size if ticks else 8.0
                axis._quivira_tick_size = base
            axis.set_tick_params(labelsize=base * scale)

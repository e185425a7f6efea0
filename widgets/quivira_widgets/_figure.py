"""One matplotlib figure owned by a panel, shown as a widget, redrawn in place.

A :class:`FigurePane` makes its figure without pyplot (``matplotlib.figure.Figure``), so the
figure never enters pyplot's registry: nothing is displayed twice by the inline backend, and
nothing is left behind when the panel is closed (``plt.get_fignums()`` stays unchanged).

Two ways to show it:

* ``"ipympl"`` — the figure's canvas is ipympl's ``Canvas`` widget (the ``%matplotlib
  widget`` canvas), embedded directly in the panel. Drawing is requested with
  ``draw_idle`` and rendered when the browser asks for a frame. Mouse and key events of the
  browser reach the kernel (:meth:`FigurePane.connect`).
* ``"static"`` — an Agg canvas rendered to PNG bytes in an :class:`ipywidgets.Image`
  (works in any front end, and headless).

``"auto"`` takes ipympl when it can be imported.

Artists that change are registered with :meth:`FigurePane.animate` in one of two layers:
``"data"`` (changes with a new result, e.g. the curves of a new trajectory) and ``"frame"``
(changes every animation frame, e.g. the bars and the time cursors). A full draw renders the
static rest once and keeps it as a background, then the data layer, keeping that too, then
the frame layer. :meth:`FigurePane.update` restores the kept image and draws only what
changed (blitting), which is what keeps an animation frame cheap.
"""

from __future__ import annotations

import functools
import io
import struct
import warnings
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

import ipywidgets as widgets
import numpy as np
from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ._theme import mark_figure, scale_fonts

BACKENDS = ("auto", "ipympl", "static")


def ipympl_available() -> bool:
    """Tell whether ipympl's widget canvas can be imported."""
    try:
        import ipympl.backend_nbagg  # noqa: F401
    except ImportError:
        return False
    return True


def resolve_backend(backend: str) -> str:
    """Return ``"ipympl"`` or ``"static"`` for ``backend`` in ``("auto", "ipympl", "static")``.

    Raises
    ------
    ValueError
        If ``backend`` is not one of those, or ``"ipympl"`` is asked for but not installed.
    """
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if backend == "auto":
        return "ipympl" if ipympl_available() else "static"
    if backend == "ipympl" and not ipympl_available():
        raise ValueError("backend 'ipympl' asked for, but ipympl is not installed "
                         "(pip install ipympl), use backend='static'")
    return backend


def png_rgba(pixels: np.ndarray) -> bytes:
    """Encode an RGBA image ``(h, w, 4)`` of uint8 as PNG bytes (unfiltered, deflate level 1).

    For the frame diffs of an animation (mostly transparent black) this is about twice as fast
    as Pillow's encoder, which tries a filter per row, for the same size.
    """
    px = np.ascontiguousarray(pixels, dtype=np.uint8)
    h, w = px.shape[:2]
    rows = np.empty((h, 1 + 4 * w), dtype=np.uint8)
    rows[:, 0] = 0  # filter type "none"
    rows[:, 1:] = px.reshape(h, 4 * w)

    def chunk(tag: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + tag + data
                + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 1)) + chunk(b"IEND", b""))


#: ipympl versions whose private canvas members the fast encoder was tested with
TESTED_IPYMPL = ((0, 9), (0, 10))
_PRIVATE = ("_png_is_old", "_force_full", "_last_buff")


def _ipympl_version() -> tuple[int, ...]:
    from ipympl import __version__

    return tuple(int(p) for p in __version__.split(".")[:2] if p.isdigit())


@functools.cache
def _canvas_class():
    """Ipympl's ``Canvas``, with faster frame encoding where that is known to work.

    WebAgg sends every frame as a PNG of the pixels that changed (the rest transparent
    black); encoding it unfiltered at zlib level 1 (:func:`png_rgba`) instead of Pillow's
    default takes about a sixth of the time for a few percent more bytes, which matters at
    animation rates. That needs the
    canvas's private members ``_png_is_old``, ``_force_full`` and ``_last_buff``: the faster
    subclass is used only with the ipympl versions in :data:`TESTED_IPYMPL` whose ``Canvas``
    declares them, and it falls back to the stock encoder whenever one is missing. Otherwise
    the stock canvas is used unchanged.
    """
    from ipympl.backend_nbagg import Canvas

    lo, hi = TESTED_IPYMPL
    try:
        tested = lo <= _ipympl_version() <= hi
    except (ImportError, ValueError):
        tested = False
    if not (tested and callable(getattr(Canvas, "get_diff_image", None))
            and all(hasattr(Canvas, a) for a in _PRIVATE[:2])):
        return Canvas

    class FastCanvas(Canvas):
        """ipympl's canvas widget, frame diffs encoded unfiltered at zlib level 1."""

        def get_diff_image(self):
            if not all(hasattr(self, a) for a in _PRIVATE):
                return super().get_diff_image()
            if not self._png_is_old:
                return None
            pixels = np.asarray(self.get_renderer().buffer_rgba())
            buff = pixels.view(np.uint32).squeeze(2)
            if (self._force_full or buff.shape != self._last_buff.shape
                    or (pixels[:, :, 3] != 255).any()):
                self.set_image_mode("full")
                output = buff
            else:
                self.set_image_mode("diff")
                output = np.where(buff != self._last_buff, buff, 0)
            self._last_buff = buff.copy()
            self._force_full = False
            self._png_is_old = False
            return png_rgba(output.view(dtype=np.uint8).reshape((*output.shape, 4)))

    return FastCanvas


def fast_encoding() -> bool:
    """Whether ipympl canvases use the faster frame encoder (see :func:`_canvas_class`)."""
    from ipympl.backend_nbagg import Canvas

    return _canvas_class() is not Canvas


class FigurePane:
    """A figure and the widget that shows it (see the module docstring).

    Parameters
    ----------
    figsize : tuple of float
        Figure size in inches.
    dpi : float
        Dots per inch of the rendered figure.
    backend : {"auto", "ipympl", "static"}
        How the figure is shown.

    Attributes
    ----------
    figure : matplotlib.figure.Figure
        The figure (never registered with pyplot).
    widget : ipywidgets.DOMWidget
        ipympl ``Canvas`` or ``ipywidgets.Image``: put it in a box to show the figure.
    backend : str
        ``"ipympl"`` or ``"static"``.
    n_full_draws, n_fast_draws : int
        How many full draws and blitted (foreground-only) draws were done or requested.
    """

    def __init__(self, figsize: tuple[float, float] = (6.0, 4.5), dpi: float = 100,
                 backend: str = "auto") -> None:
        self.backend = resolve_backend(backend)
        self.figure = Figure(figsize=figsize, dpi=dpi)
        self._animated: list[Artist] = []
        self._layer: dict[int, str] = {}
        self._bg = None
        self._bg_data = None
        self._bg_size: tuple[int, int] | None = None
        self._hold = 0
        self._pending: str | None = None
        self._closed = False
        self.n_full_draws = 0
        self.n_fast_draws = 0
        if self.backend == "ipympl":
            from ipympl.backend_nbagg import FigureManager

            canvas = _canvas_class()(self.figure)
            with warnings.catch_warnings():  # ipympl's own toolbar construction warns
                warnings.simplefilter("ignore", DeprecationWarning)
                self._manager = FigureManager(canvas, 0)
            canvas.header_visible = False
            canvas.footer_visible = False
            canvas.resizable = False
            canvas.toolbar_position = "right"
            canvas.toolbar_visible = "fade-in-fade-out"
            canvas.layout.max_width = "100%"
            self.widget = canvas
        else:
            FigureCanvasAgg(self.figure)
            self._manager = None
            w, h = self.figure.get_size_inches() * self.figure.dpi
            self.widget = widgets.Image(format="png", width=int(w), height=int(h),
                                        layout=widgets.Layout(width=f"{int(w)}px",
                                                              max_width="100%",
                                                              height="auto"))
            # the figure as it is (blank until its owner draws): an Image without data is
            # shown by the browser as a broken image
            self.figure.canvas.draw()
            self._publish()
        w, h = self.figure.get_size_inches() * self.figure.dpi
        mark_figure(self.widget, int(round(w)), int(round(h)))
        self._cid = self.figure.canvas.mpl_connect("draw_event", self._on_draw)
        self._cids: list[int] = []
        self.font_scale = 1.0

    # ------------------------------------------------------------------ look, events
    def set_font_scale(self, scale: float) -> None:
        """Scale every text of the figure (1.0: the sizes it was made with) and redraw."""
        self.font_scale = float(scale)
        scale_fonts(self.figure, self.font_scale)
        self.redraw()

    def connect(self, event: str, callback) -> None:
        """``figure.canvas.mpl_connect(event, callback)``, disconnected on :meth:`close`.

        With ipympl the browser's mouse and key events arrive here (``"button_press_event"``,
        ``"motion_notify_event"``, ``"key_press_event"``); the static backend has none.
        """
        self._cids.append(self.figure.canvas.mpl_connect(event, callback))

    # ------------------------------------------------------------------ moving artists
    def animate(self, *artists: Artist, layer: str = "frame") -> None:
        """Register artists that change.

        ``layer="frame"``: every frame, ``"data"``: with new results (drawn over the kept
        background, see the module docstring).
        """
        if layer not in ("frame", "data"):
            raise ValueError(f"layer must be 'frame' or 'data', got {layer!r}")
        for a in artists:
            if a is None:
                continue
            self._layer[id(a)] = layer
            if any(a is b for b in self._animated):
                continue
            a.set_animated(True)
            self._animated.append(a)

    def forget(self, *artists: Artist) -> None:
        """Unregister artists (e.g. before removing them from the figure)."""
        ids = {id(a) for a in artists}
        self._animated = [a for a in self._animated if id(a) not in ids]
        for i in ids:
            self._layer.pop(i, None)

    @property
    def animated(self) -> list[Artist]:
        """The registered moving artists."""
        return list(self._animated)

    # ------------------------------------------------------------------ drawing
    @contextmanager
    def hold(self) -> Iterator[FigurePane]:
        """Collect the draws asked for inside the block into one at its end."""
        self._hold += 1
        try:
            yield self
        finally:
            self._hold -= 1
            if self._hold == 0 and self._pending is not None:
                what, self._pending = self._pending, None
                if what == "full":
                    self.redraw()
                else:
                    self.update(data=what == "data")

    def redraw(self) -> None:
        """Draw everything again (after limits, sizes or static artists changed)."""
        if self._closed:
            return
        if self._hold:
            self._pending = "full"
            return
        self._bg = self._bg_data = None
        self.n_full_draws += 1
        if self.backend == "ipympl":
            self.figure.canvas.draw_idle()
        else:
            self.figure.canvas.draw()  # the draw event keeps the background
            self._publish()

    def update(self, data: bool = False) -> None:
        """Draw the frame layer over the kept image (``data=True``: the data layer too).

        A full draw when nothing is kept yet.
        """
        if self._closed:
            return
        if self._hold:
            rank = {None: 0, "fast": 1, "data": 2, "full": 3}
            want = "data" if data else "fast"
            if rank[want] > rank[self._pending]:
                self._pending = want
            return
        canvas = self.figure.canvas
        if self._bg is None or self._bg_data is None or not self._bg_matches():
            self.redraw()
            return
        self.n_fast_draws += 1
        if data:
            canvas.restore_region(self._bg)
            self._draw_animated("data")
            self._bg_data = canvas.copy_from_bbox(self.figure.bbox)
        else:
            canvas.restore_region(self._bg_data)
        self._draw_animated("frame")
        if self.backend == "ipympl":
            canvas.blit(self.figure.bbox)
        else:
            self._publish(fast=True)

    def _bg_matches(self) -> bool:
        return self._bg_size == self.figure.canvas.get_width_height(physical=True)

    def _on_draw(self, event) -> None:
        canvas = self.figure.canvas
        if self._closed or canvas.is_saving():
            return
        self._bg = canvas.copy_from_bbox(self.figure.bbox)
        self._bg_size = canvas.get_width_height(physical=True)
        self._draw_animated("data")
        self._bg_data = canvas.copy_from_bbox(self.figure.bbox)
        self._draw_animated("frame")

    def _draw_animated(self, layer: str) -> None:
        fig = self.figure
        for a in sorted(self._animated, key=lambda a: a.get_zorder()):
            if self._layer.get(id(a)) != layer or not a.get_visible() or a.figure is not fig:
                continue
            if isinstance(a, Line2D) and len(a.get_xdata(orig=True)) == 0:
                continue  # nothing to draw
            fig.draw_artist(a)

    def _publish(self, fast: bool = False) -> None:
        """Encode the rendered buffer into the Image widget (static backend).

        Full draws are PNG; the frequent foreground updates (animation frames) are JPEG at
        quality 92, which encodes about four times faster than PNG (the RGBA → RGB conversion
        is Pillow's, in C: a numpy copy of the RGB channels took five times longer).
        """
        from PIL import Image

        buf = np.asarray(self.figure.canvas.buffer_rgba())
        with io.BytesIO() as out:
            if fast:
                h, w = buf.shape[:2]
                Image.frombuffer("RGBA", (w, h), buf, "raw", "RGBA", 0, 1).convert("RGB").save(
                    out, format="jpeg", quality=92)
                fmt = "jpeg"
            else:
                Image.fromarray(buf).save(out, format="png", compress_level=1)
                fmt = "png"
            data = out.getvalue()
        with self.widget.hold_sync():
            self.widget.format = fmt
            self.widget.value = data

    def render_now(self) -> None:
        """Render synchronously (also for ipympl, where drawing otherwise waits for the browser).

        Used by benchmarks and exports.
        """
        if self.backend == "ipympl":
            self._bg = self._bg_data = None
            self.figure.canvas.draw()
        else:
            self.redraw()

    def frame_pixels(self, full: bool = False) -> np.ndarray:
        """Render synchronously and return the RGBA pixels ``(h, w, 4)`` (a copy).

        ``full=True`` draws everything (and keeps the background); otherwise only the moving
        layer is drawn over the kept background, as an animation frame. Nothing is sent to
        the browser: exporters call this for every frame.
        """
        canvas = self.figure.canvas
        if full or self._bg_data is None or not self._bg_matches():
            self._bg = self._bg_data = None
            FigureCanvasAgg.draw(canvas)  # the draw event keeps the backgrounds
        else:
            canvas.restore_region(self._bg_data)
            self._draw_animated("frame")
        return np.asarray(canvas.buffer_rgba()).copy()

    def png(self) -> bytes:
        """Return the figure as PNG bytes (including the moving artists)."""
        with io.BytesIO() as out:
            self.figure.savefig(out, format="png", dpi=self.figure.dpi)
            data = out.getvalue()
        self.redraw()
        return data

    # ------------------------------------------------------------------ life cycle
    @property
    def closed(self) -> bool:
        """True after :meth:`close`."""
        return self._closed

    def close(self) -> None:
        """Release the figure and its widget (the pane cannot draw afterwards)."""
        if self._closed:
            return
        self._closed = True
        self.figure.canvas.mpl_disconnect(self._cid)
        for cid in self._cids:
            self.figure.canvas.mpl_disconnect(cid)
        self._cids = []
        self._animated = []
        self._bg = self._bg_data = None
        if self.backend == "ipympl":
            toolbar = getattr(self._manager, "toolbar", None)
            if isinstance(toolbar, widgets.Widget):
                toolbar.close()
            self._manager = None
        self.widget.close()
        try:
            self.figure.clear()
        except ImportError:  # at interpreter shutdown (a widget's __del__)
            pass

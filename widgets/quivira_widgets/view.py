"""`ModelView`: the model drawn live — bars, joints, supports, loads, indices, forces.

The view observes the model and redraws in place after every change. Its state is in traits:
``trajectory`` and ``frame`` (a motion and the frame of it to draw: the player links its own to
them), ``selection`` (a constraint row, e.g. ``"joint 0 · bar 1 · x"``: the force of that
joint or support on the bar is drawn as a green arrow, from the trajectory at the frame, or at
the initial state from ``model.matrices()``) and ``limits`` (the drawn region, read by the
editor to place new bars). It can also draw any state (:meth:`ModelView.show_state`) and a
displaced shape such as a vibration mode (:meth:`ModelView.show_mode`). Every artist is made
once and updated with ``set_data`` / ``set_offsets``; only the moving layer is redrawn (see
:mod:`quivira_widgets._figure`). Axes are in metres.

Symbols: bars are thick blue lines with their index at the centre, joints white circles, a
pinned support a filled triangle on a ground line, a roller a triangle on wheels (rail
horizontal when free in x, vertical when free in y), a point load a red arrow (length
proportional to the force, the largest drawn at a quarter of the model size) and a torque a
purple arc, counter-clockwise for a positive torque; the selected constraint force a green
arrow with its magnitude in newtons. Springs are zigzags, dampers pistons, torsional springs
coils at their joint, actuators orange arrows and arcs, all moving with the motion (see
:mod:`quivira_widgets._forcelayer`). Slots are grooves along their guide bar, prismatic joints
and ground sliders sleeves (on a hatched rail), angle stops red wedges at their hinge, latches
a dashed ray at the latch angle that turns solid orange with a lock once latched during the
motion, contacts a hatched floor (or wall) line (see :mod:`quivira_widgets._switchlayer`).
Particles are dots sized by their mass, rigid bodies their shape (a disc with a radius line
showing its rotation, a plate) with their named points; welds squares, distance links thin
lines, rolling contacts a hatched ground line or circle, joint motors orange arc arrows (see
:mod:`quivira_widgets._bodylayer`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
import traitlets
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.font_manager import FontProperties
from matplotlib.lines import Line2D
from matplotlib.markers import MarkerStyle
from matplotlib.path import Path
from matplotlib.textpath import TextPath
from matplotlib.ticker import MaxNLocator
from matplotlib.transforms import Affine2D, IdentityTransform

from quivira import BarJointModel, Trajectory

from . import _constraints as cons
from . import _geometry as geo
from ._bodylayer import BodyLayer
from ._figure import FigurePane
from ._forcelayer import ForceLayer
from ._guard import report
from ._messages import Message
from ._modelinfo import coordinate_columns
from ._switchlayer import SwitchLayer
from ._theme import style_widget
from ._widgets import close_tree

BAR_COLOR = "#1f5fa8"
JOINT_EDGE = "#263238"
SUPPORT_COLOR = "#455a64"
FORCE_COLOR = "#d32f2f"
TORQUE_COLOR = "#8e24aa"
MODE_COLOR = "#ef6c00"
INDEX_COLOR = "#0d2f57"
REACTION_COLOR = "#00897b"
TENSION_COLOR = "#d32f2f"
COMPRESSION_COLOR = "#1565c0"
NEUTRAL_BAR_COLOR = "#90a4ae"
AUTO_INDEX_LIMIT = 30  # show indices automatically up to this many bars
AUTO_JOINT_INDEX_LIMIT = 16  # joint indices too, up to this many joints


def _pin_path() -> Path:
    """Triangle with its apex at the origin standing on a ground line."""
    tri = Path([(0, 0), (-0.7, -1.0), (0.7, -1.0), (0, 0)],
               [Path.MOVETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY])
    ground = Path([(-1.1, -1.15), (1.1, -1.15)], [Path.MOVETO, Path.LINETO])
    return Path.make_compound_path(tri, ground)


def _roller_path() -> Path:
    """Triangle with its apex at the origin on two wheels and a rail."""
    tri = Path([(0, 0), (-0.7, -0.8), (0.7, -0.8), (0, 0)],
               [Path.MOVETO, Path.LINETO, Path.LINETO, Path.CLOSEPOLY])
    w1 = Path.circle((-0.38, -1.02), 0.2)
    w2 = Path.circle((0.38, -1.02), 0.2)
    rail = Path([(-1.1, -1.3), (1.1, -1.3)], [Path.MOVETO, Path.LINETO])
    return Path.make_compound_path(tri, w1, w2, rail)


PIN_MARKER = MarkerStyle(_pin_path())
ROLLER_X_MARKER = MarkerStyle(_roller_path())
ROLLER_Y_MARKER = MarkerStyle(_roller_path(), transform=Affine2D().rotate_deg(-90))


@functools.lru_cache(maxsize=4096)
def _label_path(text: str, bold: bool = False, align: str = "center") -> Path:
    """Return the outline of ``text`` in units of the font size (cap height about 0.73).

    Centred on the origin, or (``align="left"``) starting there on its baseline.
    """
    if not text.strip():
        return Path(np.zeros((1, 2)))
    tp = TextPath((0, 0), text, size=1.0, prop=FontProperties(weight="bold" if bold else
                                                                 "normal"))
    v = tp.vertices
    if align == "left":
        return Path(v, tp.codes)
    lo, hi = v.min(axis=0), v.max(axis=0)
    return Path(v - 0.5 * (lo + hi), tp.codes)


def _labels(texts: list[str], size: float, color: str, zorder: float,
            bold: bool = False) -> PathCollection:
    """All ``texts`` as one collection (one draw call), ``size`` in points."""
    pc = PathCollection([_label_path(t, bold) for t in texts],
                        sizes=[size ** 2], facecolors=color, edgecolors="none",
                        zorder=zorder, transform=IdentityTransform())
    return pc


class ModelView(widgets.VBox):
    """The model drawn live; also draws trajectory frames, forces and mode shapes.

    Parameters
    ----------
    model : quivira.BarJointModel
        The model to draw (observed: every change redraws the view).
    backend : {"auto", "ipympl", "static"}
        ipympl's canvas widget, or PNG images (see :mod:`quivira_widgets._figure`).
    figsize : tuple of float
        Figure size in inches.
    show_indices : bool or "auto"
        Draw bar and joint indices; ``"auto"``: when the model has at most 30 bars.

    Attributes
    ----------
    model : quivira.BarJointModel
        The model drawn (a trait).
    trajectory : quivira.Trajectory or None
        The motion whose ``frame`` is drawn (a trait; None: the initial pose).
    frame : int
        The frame of ``trajectory`` drawn (a trait).
    selection : str
        A constraint row label; its joint's or support's force is drawn (a trait; "" none).
    limits : tuple of float
        ``(xmin, xmax, ymin, ymax)`` drawn now, in m (a trait, read-only in use).
    font_scale : float
        Text size factor (a trait; the Studio's presentation mode sets it).
    color_by_axial : bool
        Colour the bars by their axial force N at the centre (a trait): tension red,
        compression blue, grey when N = 0 (to 1e-9 of the largest :math:`|N|`), from
        ``model.internal_forces`` of the trajectory at the frame drawn, of the initial state,
        or the forces given to :meth:`show_state` (an equilibrium).
    bar_axial : numpy.ndarray or None
        N (N) at the centre of every body used for the colours (NaN for bodies that are not
        bars); None when the bars are not coloured.
    figure : matplotlib.figure.Figure
        The view's own figure (reused for every drawing).
    ax : matplotlib.axes.Axes
        Its axes (equal scaling, in m).
    bar_lines : list of matplotlib.lines.Line2D
        One line per bar, from its ``s = -0.5`` end to its ``s = +0.5`` end.
    joint_markers, pin_markers, roller_x_markers, roller_y_markers : Line2D
        Markers of joints and supports.
    torque_arcs : Line2D
        Arcs of the applied torques.
    force_arrows : matplotlib.quiver.Quiver or None
        Arrows of the point loads (None without loads).
    reaction_arrow : matplotlib.quiver.Quiver
        The force of the selected constraint (hidden without a selection).
    reaction : tuple or None
        ``(label, point, force)`` of the arrow drawn (None when none is drawn).
    bar_labels, joint_labels : matplotlib.collections.PathCollection or None
        Bar indices at the bar centres (offset across the bar) and joint indices beside the
        joints (up to 16 joints), each one collection; None while indices are hidden.
    mode_lines : matplotlib.collections.LineCollection
        The displaced shape of :meth:`show_mode`.
    force_layer : ForceLayer
        Springs, dampers, torsional springs and actuators: ``spring_line``,
        ``damper_line``, ``coil_line``, ``arrows``, ``arc_line``, and ``spring_ends`` (the
        ends of every spring-damper as drawn now).
    body_layer : BodyLayer
        Particles, rigid bodies, welds, distance links, rolling contacts and joint motors
        (``particle_xy``, ``disc_centres``, ``disc_spokes``, ``plate_corners``, ...).
    switch_layer : SwitchLayer
        Slots, prismatic joints, ground sliders, stops, latches and floors (``slot_lines``,
        ``guide_lines``, ``stop_rays``, ``latch_rays``, ``latched``, ``floor_lines``).
    q : numpy.ndarray
        The coordinates drawn now.
    source : str
        ``"model"`` (initial pose), ``"state"`` (a trajectory frame or :meth:`show_state`).
    message : Message
        Notes about what cannot be drawn (bars without a pose).
    """

    model = traitlets.Instance(BarJointModel)
    trajectory = traitlets.Instance(Trajectory, allow_none=True)
    frame = traitlets.Int(0)
    selection = traitlets.Unicode("")
    limits = traitlets.Tuple(traitlets.Float(), traitlets.Float(), traitlets.Float(),
                             traitlets.Float(), default_value=(-1.0, 1.0, -1.0, 1.0))
    font_scale = traitlets.Float(1.0)
    color_by_axial = traitlets.Bool(False)

    def __init__(self, model: BarJointModel, *, backend: str = "auto",
                 figsize: tuple[float, float] = (6.2, 4.6), dpi: float = 100,
                 show_indices: bool | str = "auto") -> None:
        super().__init__()
        if show_indices not in (True, False, "auto"):
            raise ValueError(f"show_indices must be True, False or 'auto', got {show_indices!r}")
        self.model = model
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self._auto_indices = show_indices == "auto"
        self._limits: tuple[float, float, float, float] | None = None
        self._fixed_limits: tuple[float, float, float, float] | None = None
        self._mode: np.ndarray | None = None
        self._force_scale = 1.0
        self._state_cache: tuple | None = None
        self._axial_cache: tuple | None = None
        self._axial_given: np.ndarray | None = None
        self.bar_axial: np.ndarray | None = None
        self.note: str | None = None
        self.q = np.zeros(0)
        self.source = "model"
        self.time: float | None = None
        self.reaction: tuple | None = None
        self._arrow_scale = 0.0
        self.message = Message()
        self._build_axes()
        self.indices_toggle = widgets.ToggleButton(
            value=bool(show_indices) if show_indices != "auto" else True,
            description="indices", icon="hashtag", tooltip="show bar and joint numbers",
            layout=widgets.Layout(width="90px"))
        self.fit_button = widgets.Button(description="fit", icon="expand",
                                         tooltip="fit the drawing to the model",
                                         layout=widgets.Layout(width="70px"))
        self.indices_toggle.observe(self._guarded(self._on_indices), names="value")
        self.fit_button.on_click(self._guarded(lambda _: self.fit()))
        self.children = [style_widget(), self.pane.widget,
                         widgets.HBox([self.indices_toggle, self.fit_button,
                                       self.message.widget],
                                      layout=widgets.Layout(flex_flow="row wrap"))]
        self.add_class("quivira-view")
        self.add_class("quivira-root")
        self.layout.min_width = "0"
        self.observe(self._guarded(self._on_motion), names=["trajectory", "frame"])
        self.observe(self._guarded(self._on_selection), names="selection")
        self.observe(self._guarded(self._on_font_scale), names="font_scale")
        self.observe(self._guarded(lambda _: self._draw(self.q)), names="color_by_axial")
        self.model.observe(self._on_model_change)
        self.refresh()

    def _guarded(self, fn):
        def run(*args):
            try:
                return fn(*args)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.message.error, f"ModelView.{fn.__name__}")
                return None
        return run

    # ------------------------------------------------------------------ construction
    def _build_axes(self) -> None:
        ax = self.ax = self.figure.add_axes((0.1, 0.1, 0.88, 0.88))
        ax.set_aspect("auto")  # equal scaling is kept by _apply_limits (see _fit_box)
        ax.grid(True, color="#e3e8ee", lw=0.8)
        ax.set_axisbelow(True)
        ax.tick_params(labelsize=8, colors="#546e7a", length=3)
        ax.set_xlabel("x [m]", fontsize=8.5, color="#455a64", labelpad=1)
        ax.set_ylabel("y [m]", fontsize=8.5, color="#455a64", labelpad=1)
        for sp in ax.spines.values():
            sp.set_color("#cfd8dc")
        ax.xaxis.set_major_locator(MaxNLocator(6))
        ax.yaxis.set_major_locator(MaxNLocator(6))
        self.bar_lines: list[Line2D] = []
        self.bar_labels: PathCollection | None = None
        self.joint_labels: PathCollection | None = None
        self._label_texts: tuple = ((), ())
        self.joint_markers = ax.plot([], [], ls="", marker="o", ms=7, mfc="white", mec=JOINT_EDGE,
                                     mew=1.6, zorder=6)[0]
        self.pin_markers = ax.plot([], [], ls="", marker=PIN_MARKER, ms=34, mfc=SUPPORT_COLOR,
                                   mec=SUPPORT_COLOR, mew=1.4, zorder=3)[0]
        self.roller_x_markers = ax.plot([], [], ls="", marker=ROLLER_X_MARKER, ms=38, mfc="white",
                                        mec=SUPPORT_COLOR, mew=1.4, zorder=3)[0]
        self.roller_y_markers = ax.plot([], [], ls="", marker=ROLLER_Y_MARKER, ms=38, mfc="white",
                                        mec=SUPPORT_COLOR, mew=1.4, zorder=3)[0]
        self.torque_arcs = ax.plot([], [], color=TORQUE_COLOR, lw=1.8, zorder=7)[0]
        self.force_arrows = None
        self.reaction_arrow = ax.quiver([0.0], [0.0], [0.0], [0.0], angles="xy",
                                        scale_units="xy", scale=1.0, color=REACTION_COLOR,
                                        width=0.009, zorder=9)
        self.reaction_arrow.set_visible(False)
        self.mode_lines = LineCollection([], colors=MODE_COLOR, linewidths=3, linestyles="--",
                                         zorder=5, alpha=0.9)
        ax.add_collection(self.mode_lines)
        self.force_layer = ForceLayer(ax, self.pane)
        self.switch_layer = SwitchLayer(ax, self.pane)
        self.body_layer = BodyLayer(ax, self.pane)
        # the corner note ("initial pose", "t = 0.125 s") as outlines: cheaper per frame than
        # a Text artist, and the outlines of each string are cached
        self.info_text = PathCollection([_label_path(" ", align="left")], sizes=[9.5 ** 2],
                                        facecolors="#37474f", edgecolors="none", zorder=9,
                                        transform=IdentityTransform(),
                                        offsets=[(0.015, 0.955)],
                                        offset_transform=ax.transAxes)
        ax.add_collection(self.info_text, autolim=False)
        self.reaction_text = PathCollection([_label_path(" ", align="left")], sizes=[9.5 ** 2],
                                            facecolors=REACTION_COLOR, edgecolors="none",
                                            zorder=9, transform=IdentityTransform(),
                                            offsets=[(0.015, 0.9)],
                                            offset_transform=ax.transAxes)
        ax.add_collection(self.reaction_text, autolim=False)
        self.info = ""
        self._reaction_info = ""
        self.pane.animate(self.joint_markers, self.pin_markers, self.roller_x_markers,
                          self.roller_y_markers, self.torque_arcs, self.mode_lines,
                          self.info_text, self.reaction_arrow, self.reaction_text)

    def _ensure_bar_artists(self, n: int) -> None:
        while len(self.bar_lines) < n:
            line = self.ax.plot([], [], color=BAR_COLOR, lw=5, solid_capstyle="round",
                                alpha=0.92, zorder=4)[0]
            self.pane.animate(line)
            self.bar_lines.append(line)
        while len(self.bar_lines) > n:
            line = self.bar_lines.pop()
            self.pane.forget(line)
            line.remove()

    def _ensure_label_artists(self, bar_texts: list[str], joint_texts: list[str]) -> None:
        """(Re)make the label collections when the texts change."""
        if self._label_texts == (tuple(bar_texts), tuple(joint_texts)):
            return
        self._label_texts = (tuple(bar_texts), tuple(joint_texts))
        k = self.font_scale
        for attr, texts, size, color, bold in (
                ("bar_labels", bar_texts, 11.0 * k, INDEX_COLOR, True),
                ("joint_labels", joint_texts, 9.0 * k, "#78909c", False)):
            old = getattr(self, attr)
            if old is not None:
                self.pane.forget(old)
                old.remove()
            new = None
            if texts:
                new = _labels(texts, size, color, zorder=8, bold=bold)
                new.set_offset_transform(self.ax.transData)
                new.set_offsets(np.zeros((len(texts), 2)))
                self.ax.add_collection(new, autolim=False)
                self.pane.animate(new)
            setattr(self, attr, new)

    def _ensure_force_artist(self, nf: int) -> None:
        if self.force_arrows is not None and self.force_arrows.N == nf:
            return
        if self.force_arrows is not None:
            self.pane.forget(self.force_arrows)
            self.force_arrows.remove()
            self.force_arrows = None
        if nf:
            z = np.zeros(nf)
            self.force_arrows = self.ax.quiver(z, z, z, z, angles="xy", scale_units="xy",
                                               scale=1.0, color=FORCE_COLOR, width=0.006,
                                               zorder=7)
            self.pane.animate(self.force_arrows)

    # ------------------------------------------------------------------ public drawing
    @property
    def indices_visible(self) -> bool:
        """Whether bar and joint indices are drawn."""
        return bool(self.indices_toggle.value)

    def refresh(self) -> None:
        """Read the model again and draw its initial pose (called on every model change)."""
        self._snap = geo.snapshot(self.model)
        snap = self._snap
        self.force_layer.refresh(self.model, snap)
        self.switch_layer.refresh(self.model, snap)
        self.body_layer.refresh(self.model, snap)
        n = snap.n_bars
        if self._auto_indices:
            self._set_toggle(n <= AUTO_INDEX_LIMIT)
        self._ensure_bar_artists(n)
        self._ensure_force_artist(len(snap.force_bar))
        self._update_labels()
        fmax = float(np.max(np.hypot(*snap.force_f.T))) if len(snap.force_bar) else 0.0
        self._force_scale = 0.0 if fmax == 0 else 0.25 * self._model_size(snap.q0) / fmax
        if self._mode is not None and self._mode.shape[0] != 3 * n:
            self._mode = None
        unposed = [i for i in range(n) if not snap.posed[i]]
        if unposed:
            many = len(unposed) > 1
            self.message.warning(f"bar{'s' if many else ''} {', '.join(map(str, unposed))} "
                                 f"ha{'ve' if many else 's'} no pose yet (not drawn)")
        else:
            self.message.clear()
        self.source = "model"
        self.time = None
        self.note, self._axial_given = None, None
        self._state_cache = None
        self._axial_cache = None
        self._draw(snap.q0)

    def show_state(self, state: Sequence[float], t: float | None = None,
                   render: bool = True, *, note: str | None = None,
                   axial: Sequence[float] | None = None) -> None:
        """Draw the bodies at ``state``.

        ``[q...]`` (the model's coordinates: 3 per bar or body, 2 per particle; or 3 per body)
        or ``[q..., qd...]``.

        ``t`` is shown in the corner (or ``note``, e.g. "equilibrium pose"); ``render=False``
        only moves the artists (e.g. while an exporter renders the frames itself); ``axial``:
        the axial force (N) of every body at this state, for :attr:`color_by_axial`.

        Raises
        ------
        ValueError
            If the length is neither ``nq`` nor ``2 nq`` for the model's ``nq`` coordinates
            (nor ``3 n`` / ``6 n`` for its ``n`` bodies).
        """
        n = self._snap.n_bars
        nq = self._snap.n_coords
        arr = np.asarray(state, dtype=float).reshape(-1)
        if arr.shape[0] in (nq, 2 * nq):
            q = geo.expand_q(arr[:nq], self._snap)
        elif arr.shape[0] in (3 * n, 6 * n):
            q = arr[:3 * n]
        else:
            raise ValueError(f"state: expected {nq} coordinates or {2 * nq} values (q and qd) "
                             f"for {n} bodies, got {arr.shape[0]}")
        self.source = "state"
        self.time = None if t is None else float(t)
        self.note = note
        self._axial_given = None if axial is None else np.asarray(axial, dtype=float)
        self._draw(q, render=render)

    def show_mode(self, shape: Sequence[float], amplitude: float = 1.0) -> None:
        """Draw the displaced shape ``q + amplitude · shape`` over the current drawing.

        Parameters
        ----------
        shape : sequence of float
            A displacement of the ``3 n`` coordinates ``(Δx, Δy, Δθ)`` per bar, e.g. a
            vibration mode.
        amplitude : float
            Scale of the displacement.

        Raises
        ------
        ValueError
            On a wrong length or non-finite entries.
        """
        n = self._snap.n_bars
        arr = np.asarray(shape, dtype=float).reshape(-1)
        if arr.shape[0] == self._snap.n_coords and arr.shape[0] != 3 * n:
            arr = geo.expand_q(arr, self._snap)
        if arr.shape[0] != 3 * n:
            raise ValueError(f"shape: expected {3 * n} values (Δx, Δy, Δθ for each of {n} bars), "
                             f"got {arr.shape[0]}")
        amp = float(amplitude)
        if not (np.all(np.isfinite(arr)) and math.isfinite(amp)):
            raise ValueError("shape and amplitude must be finite")
        self._mode = amp * arr
        self._draw(self.q)

    def clear_mode(self) -> None:
        """Remove the mode shape."""
        self._mode = None
        self._draw(self.q)

    @property
    def mode_visible(self) -> bool:
        """Whether a mode shape is drawn."""
        return self._mode is not None

    # ------------------------------------------------------------------ traits
    def _on_motion(self, change) -> None:
        tr = self.trajectory
        usable = tr is not None and tr.n_points > 0 and tr.q.shape[1] == self._snap.n_coords
        if change["name"] == "trajectory":
            if not usable:
                self._fixed_limits = None
                self.source, self.time = "model", None
                self.note, self._axial_given = None, None
                self._draw(self._snap.q0, refit=True)
                return
            ends = geo.bar_ends(geo.expand_q(tr.q, self._snap), self._snap.lengths)
            sups = self._snap.sup_xy
            ext = geo.extent(np.concatenate([ends.reshape(-1, 2), sups,
                                             self.force_layer.fixed_points()]))
            if ext is not None:
                x0, x1, y0, y1 = ext
                pad = 0.1 * max(x1 - x0, y1 - y0, 1e-6) + 0.05
                self._fixed_limits = (x0 - pad, x1 + pad, y0 - pad, y1 + pad)
        if usable:
            k = int(min(max(self.frame, 0), tr.n_points - 1))
            self.source = "state"
            self.time = float(tr.t[k])
            self.note, self._axial_given = None, None
            self._draw(geo.expand_q(tr.q[k], self._snap))

    def redraw_motion(self) -> None:
        """Draw the current frame of the trajectory again (or the initial pose), fully."""
        self.pane.redraw()
        self._on_motion({"name": "frame"})
        if self.trajectory is None:
            self.refresh()

    def _on_selection(self, change) -> None:
        self._draw(self.q)

    def _on_font_scale(self, change) -> None:
        k = float(change["new"])
        for pc, size in ((self.info_text, 9.5), (self.reaction_text, 9.5)):
            pc.set_sizes([(size * k) ** 2])
        self._label_texts = ((), ())  # remade at the new size
        self._update_labels()
        self.pane.set_font_scale(k)
        self._draw(self.q, refit=True)

    def _reaction_now(self, q: np.ndarray) -> tuple | None:
        """``(label, point, force)`` of the selected constraint at the drawn state."""
        if not self.selection:
            return None
        target = cons.force_target(self.model, self.selection)
        if target is None:
            return None
        tr = self.trajectory
        snap = self._snap
        if (self.source == "state" and tr is not None and tr.q.shape[1] == snap.n_coords
                and self.time is not None):
            k = int(np.argmin(np.abs(tr.t - self.time)))
            force = cons.force_from_trajectory(tr, target, k)
        elif self.source == "model":
            key = (self.model.revision, target)
            if self._state_cache is None or self._state_cache[0] != key:
                mats = self.model.matrices()
                force = cons.force_from_matrices(mats["J"], mats["lambda_mult"],
                                                 mats["labels"], target,
                                                 coordinate_columns(self.model, target.bar)[:2])
                self._state_cache = (key, force)
            force = self._state_cache[1]
        else:
            force = None
        if force is None or not np.all(np.isfinite(force)):
            return None
        point = geo.points_on_bars(q, snap.lengths, np.array([target.bar]),
                                   np.array([target.s]))[0]
        return target.label, point, np.asarray(force, dtype=float)

    # ------------------------------------------------------------------ axial force colours
    def axial_now(self) -> np.ndarray | None:
        """Return N (N) at the centre of every body at the state drawn.

        NaN for bodies that are not bars; from the forces given to :meth:`show_state`,
        ``model.internal_forces`` of the trajectory at the frame drawn, or of the initial state;
        None for another state.
        """
        n = self._snap.n_bars
        if self._axial_given is not None and self.source == "state":
            out = np.full(n, np.nan)
            given = self._axial_given[:n]
            bars = [i for i, k in enumerate(self._snap.kinds) if k == "bar"]
            out[bars] = given[bars]
            return out
        tr = self.trajectory
        if self.source == "state" and self.time is not None and tr is not None \
                and tr.q.shape[1] == self._snap.n_coords:
            src = tr
        elif self.source == "model":
            src = None
        else:
            return None
        # the cache keeps its source (compared by identity: an id() can be reused)
        c = self._axial_cache
        if c is None or c[0] is not src or c[1] != self.model.revision:
            self._axial_cache = (src, self.model.revision,
                                 self.model.internal_forces(src, s=[0.0]))
        res = self._axial_cache[2]
        k = 0 if src is None else int(np.argmin(np.abs(tr.t - self.time)))
        out = np.full(n, np.nan)
        out[list(res.bars)] = res.N[k, :, 0]
        return out

    def _colour_bars(self) -> None:
        if not self.color_by_axial or not self.bar_lines:
            if self.bar_axial is not None:
                for line in self.bar_lines:
                    line.set_color(BAR_COLOR)
            self.bar_axial = None
            return
        try:
            N = self.axial_now()
        except (TypeError, ValueError, RuntimeError) as exc:
            self.message.warning(f"no axial-force colours: {exc}")
            N = None
        self.bar_axial = N
        if N is None:
            for line in self.bar_lines:
                line.set_color(BAR_COLOR)
            return
        finite = np.abs(N[np.isfinite(N)])
        tiny = 1e-9 * float(finite.max()) if finite.size else 0.0
        for line, v in zip(self.bar_lines, N):
            if not np.isfinite(v):
                line.set_color(BAR_COLOR)
            elif v > tiny:
                line.set_color(TENSION_COLOR)
            elif v < -tiny:
                line.set_color(COMPRESSION_COLOR)
            else:
                line.set_color(NEUTRAL_BAR_COLOR)

    def _reaction_scale(self, force: np.ndarray) -> float:
        """Return the length per newton of the reaction arrows.

        The element's median force over the motion (or this one) is drawn at 20 % of the model's
        size; one scale for all frames.
        """
        tr = self.trajectory
        target = cons.force_target(self.model, self.selection)
        fref = float(np.hypot(*force))
        if self.source == "state" and tr is not None and target is not None:
            for r in tr.reactions:
                if (r.kind, r.index, r.bar) == (target.kind, target.index, target.bar):
                    mags = np.hypot(r.force[:, 0], r.force[:, 1])
                    mags = mags[np.isfinite(mags)]
                    fref = float(np.median(mags)) if mags.size else fref
        return 0.0 if not fref > 0 else 0.2 * self._model_size(self.q) / fref

    def set_limits(self, limits: tuple[float, float, float, float] | None) -> None:
        """Fix the drawn region ``(xmin, xmax, ymin, ymax)`` (None: fit to the drawing)."""
        self._fixed_limits = None if limits is None else tuple(float(v) for v in limits)
        self._draw(self.q, refit=limits is None)

    def fit(self) -> None:
        """Fit the drawn region to what is drawn now."""
        self._fixed_limits = None
        self._draw(self.q, refit=True)

    def bar_endpoints(self) -> np.ndarray:
        """End points ``(n, 2, 2)`` of the bars as drawn now."""
        return geo.bar_ends(self.q, self._snap.lengths)

    # ------------------------------------------------------------------ internals
    def _model_size(self, q: np.ndarray) -> float:
        ext = geo.extent(geo.bar_ends(q, self._snap.lengths)) if q.size else None
        if ext is None:
            return 1.0
        return max(ext[1] - ext[0], ext[3] - ext[2], float(np.max(self._snap.lengths)), 1e-9)

    def _update_labels(self) -> None:
        bars, joints = [], []
        if self.indices_visible:
            bars = [str(i) for i in range(self._snap.n_bars)]
            nj = len(self._snap.joint_bars)
            if nj <= AUTO_JOINT_INDEX_LIMIT:
                joints = [f"j{k}" for k in range(nj)]
        self._ensure_label_artists(bars, joints)

    def _set_toggle(self, value: bool) -> None:
        if self.indices_toggle.value != value:
            self._syncing = True
            try:
                self.indices_toggle.value = value
            finally:
                self._syncing = False

    def _on_indices(self, change) -> None:
        if getattr(self, "_syncing", False):
            return
        self._auto_indices = False
        self._update_labels()
        self._draw(self.q)

    def _geometry(self, q: np.ndarray) -> dict:
        """All points to draw at ``q``."""
        snap = self._snap
        L = snap.lengths
        ends = geo.bar_ends(q, L) if snap.n_bars else np.zeros((0, 2, 2))
        out = {"ends": ends}
        jb = np.array([b[0] for b in snap.joint_bars], dtype=int)
        js = np.array([s[0] for s in snap.joint_s], dtype=float)
        out["joints"] = geo.points_on_bars(q, L, jb, js) if jb.size else np.zeros((0, 2))
        if snap.sup_bar.size:
            pts = geo.points_on_bars(q, L, snap.sup_bar, snap.sup_s)
            # a roller's symbol rides along its free direction with the bar point
            sym = np.where(snap.sup_free, pts, snap.sup_xy)
            sym = np.where(np.isfinite(sym), sym, snap.sup_xy)
        else:
            sym = np.zeros((0, 2))
        out["supports"] = sym
        if snap.force_bar.size:
            out["force_at"] = geo.points_on_bars(q, L, snap.force_bar, snap.force_s)
        else:
            out["force_at"] = np.zeros((0, 2))
        return out

    def _torque_path(self, at: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
        xs, ys = [], []
        for (px, py), tau in zip(at, self._snap.force_torque):
            if tau == 0 or not np.isfinite(px):
                continue
            sgn = 1.0 if tau > 0 else -1.0
            a = np.linspace(math.radians(-60), math.radians(200), 24) * sgn
            x, y = px + radius * np.cos(a), py + radius * np.sin(a)
            # arrow head at the end of the arc, along its tangent
            tx, ty = -np.sin(a[-1]) * sgn, np.cos(a[-1]) * sgn
            nx, ny = -ty, tx
            h = 0.45 * radius
            hx = [x[-1] - h * tx + 0.6 * h * nx, x[-1], x[-1] - h * tx - 0.6 * h * nx]
            hy = [y[-1] - h * ty + 0.6 * h * ny, y[-1], y[-1] - h * ty - 0.6 * h * ny]
            xs += [*x, np.nan, *hx, np.nan]
            ys += [*y, np.nan, *hy, np.nan]
        return np.array(xs), np.array(ys)

    def _draw(self, q: np.ndarray, refit: bool = False, render: bool = True) -> None:
        snap = self._snap
        q = np.asarray(q, dtype=float)
        self.q = q
        g = self._geometry(q)
        ends = g["ends"]
        for line, e, kind in zip(self.bar_lines, ends, snap.kinds or ("bar",) * len(ends)):
            if kind == "bar":
                line.set_data(e[:, 0], e[:, 1])
            else:  # particles and rigid bodies: the body layer draws them
                line.set_data([], [])
        self._colour_bars()
        self.joint_markers.set_data(g["joints"][:, 0], g["joints"][:, 1])
        sup = g["supports"]
        free = snap.sup_free
        for line, mask in ((self.pin_markers, ~free[:, 0] & ~free[:, 1]),
                           (self.roller_x_markers, free[:, 0]),
                           (self.roller_y_markers, free[:, 1])):
            line.set_data(sup[mask, 0], sup[mask, 1])
        size = self._model_size(q)
        at = g["force_at"]
        tips = at
        if self.force_arrows is not None:
            uv = snap.force_f * self._force_scale
            self.force_arrows.set_offsets(np.where(np.isfinite(at), at, 0.0))
            self.force_arrows.set_UVC(uv[:, 0], uv[:, 1])
            tips = at + uv
        self.torque_arcs.set_data(*self._torque_path(at, 0.07 * size))
        tr = self.trajectory
        moving = tr if (self.source == "state" and tr is not None
                        and tr.q.shape[1] == snap.n_coords) else None
        elements = self.force_layer.draw(q, snap, size, moving, self.time)
        switching = self.switch_layer.draw(q, snap, size, moving, self.time)
        bodies = self.body_layer.draw(q, snap, size, moving)
        if self.bar_labels is not None or self.joint_labels is not None:
            self._place_labels(ends, g["joints"], size)
        reaction = None
        if self.selection:
            try:
                reaction = self._reaction_now(q)
            except (TypeError, ValueError, RuntimeError) as exc:
                self.message.warning(f"no force arrow: {exc}")
        self._show_reaction(reaction, size)
        if self._mode is not None:
            ghost = geo.bar_ends(q + self._mode, snap.lengths)
            self.mode_lines.set_segments(list(ghost))
        else:
            self.mode_lines.set_segments([])
        info = ("initial pose" if self.source == "model" else self.note if self.note else
                "state" if self.time is None else f"t = {self.time:.3f} s")
        if self._mode is not None:
            info += " · mode shape (dashed)"
        if info != self.info:
            self.info = info
            self.info_text.set_paths([_label_path(info, align="left")])
        bar_ends = ends[[k == "bar" for k in snap.kinds]] if snap.kinds else ends
        pts = [bar_ends.reshape(-1, 2), sup, tips, elements, switching, bodies]
        if reaction is not None:
            pts.append(np.array([reaction[1], reaction[1] + reaction[2] * self._arrow_scale]))
        if self._mode is not None:
            pts.append(geo.bar_ends(q + self._mode, snap.lengths).reshape(-1, 2))
        changed = self._apply_limits(np.concatenate(pts), refit)
        if not render:
            return
        if changed:
            self.pane.redraw()
        else:
            self.pane.update()

    def _show_reaction(self, reaction: tuple | None, size: float) -> None:
        self.reaction = reaction
        arrow = self.reaction_arrow
        if reaction is None:
            arrow.set_visible(False)
            text = ""
            if self.selection:
                text = f"{self.selection}: no force arrow for this row"
        else:
            label, point, force = reaction
            self._arrow_scale = self._reaction_scale(force)
            longest = 0.45 * size  # a peak force keeps its direction, not its full length
            norm = float(np.hypot(*force)) * self._arrow_scale
            if norm > longest:
                self._arrow_scale *= longest / norm
            uv = force * self._arrow_scale
            arrow.set_offsets([point])
            arrow.set_UVC([uv[0]], [uv[1]])
            arrow.set_visible(True)
            text = f"{label}: |F| = {float(np.hypot(*force)):.4g} N"
        if text != self._reaction_info:
            self._reaction_info = text
            self.reaction_text.set_paths([_label_path(text or " ", align="left")])

    def _place_labels(self, ends, joints, size) -> None:
        off = 0.05 * size
        if self.bar_labels is not None and len(ends):
            d = ends[:, 1] - ends[:, 0]
            norm = np.hypot(d[:, 0], d[:, 1])
            norm[norm == 0] = 1.0
            nrm = np.stack([-d[:, 1], d[:, 0]], axis=1) / norm[:, None]
            centre = 0.5 * (ends[:, 0] + ends[:, 1]) + off * nrm
            self.bar_labels.set_offsets(centre)
        if self.joint_labels is not None and len(joints):
            self.joint_labels.set_offsets(joints + 0.9 * off)

    def _apply_limits(self, pts: np.ndarray, refit: bool) -> bool:
        """Set the axes limits if needed; True when they changed (a full draw is due)."""
        if self._fixed_limits is not None:
            want = self._fit_box(self._fixed_limits)
            cur = self._limits
            if cur is not None and not refit:
                inside = (cur[0] <= want[0] and want[1] <= cur[1] and cur[2] <= want[2]
                          and want[3] <= cur[3])
                if want == cur or (inside and (cur[1] - cur[0]) <= 1.3 * (want[1] - want[0])):
                    return False
        else:
            ext = geo.extent(pts)
            if ext is None:
                ext = (-1.0, 1.0, -1.0, 1.0)
            x0, x1, y0, y1 = ext
            span = max(x1 - x0, y1 - y0, 1e-6)
            pad = 0.12 * span + 0.05
            want = self._fit_box((x0 - pad, x1 + pad, y0 - pad, y1 + pad))
            cur = self._limits
            if cur is not None and not refit:
                inside = (cur[0] <= x0 and x1 <= cur[1] and cur[2] <= y0 and y1 <= cur[3])
                cur_span = max(cur[1] - cur[0], cur[3] - cur[2])
                if inside and cur_span <= 3.0 * (span + 2 * pad):
                    return False
        if self._fixed_limits is not None and not refit:
            # some slack, so that the next run with similar numbers keeps these limits
            dx, dy = 0.05 * (want[1] - want[0]), 0.05 * (want[3] - want[2])
            want = (want[0] - dx, want[1] + dx, want[2] - dy, want[3] + dy)
        self._limits = want
        self.ax.set_xlim(want[0], want[1])
        self.ax.set_ylim(want[2], want[3])
        self.limits = tuple(float(v) for v in want)
        return True

    def _fit_box(self, lim: tuple[float, float, float, float]) -> tuple[float, ...]:
        """Widen ``lim`` in x or y so that one unit has the same length in x and y on screen."""
        x0, x1, y0, y1 = lim
        bbox = self.ax.get_position()
        w_in, h_in = self.figure.get_size_inches()
        box = (bbox.width * w_in) / (bbox.height * h_in)
        dx, dy = max(x1 - x0, 1e-9), max(y1 - y0, 1e-9)
        if dx / dy < box:
            grow = 0.5 * (box * dy - dx)
            x0, x1 = x0 - grow, x1 + grow
        else:
            grow = 0.5 * (dx / box - dy)
            y0, y1 = y0 - grow, y1 + grow
        return (x0, x1, y0, y1)

    # ------------------------------------------------------------------ model life cycle
    def _on_model_change(self, what: str) -> None:
        try:
            self.refresh()
        except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
            report(exc, self.message.error, "ModelView.refresh")

    def set_model(self, model: BarJointModel) -> None:
        """Draw another model from now on (observing it instead of the old one)."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        self._mode = None
        self._fixed_limits = None
        self._limits = None
        self.trajectory = None
        model.observe(self._on_model_change)
        self.refresh()

    def close(self) -> None:
        """Stop observing the model and release the figure."""
        self.model.unobserve(self._on_model_change)
        self.pane.close()
        close_tree(self)
        super().close()

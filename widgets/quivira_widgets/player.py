"""`MotionPlayer`: simulate with visible progress, animate, plot λ/reactions, energy, residuals.

*Simulate* runs in two visible steps — the compiled code (built on the first run of a
topology, then reused from the model's cache) and the integration — then draws. After a
run, edits of the model re-simulate at once when "re-simulate after edits" is ticked: value
edits (mass, length, g, loads, positions) reuse the compiled code and take a fraction of a
second; topology edits recompile, with the same progress display.

The animation is a ``Play`` widget linked to the frame slider in the browser
(``jslink``), so playing needs no Python loop: each slider change moves the bars of the view
and the time cursors of the plots in place. The motion can be exported as GIF
(``PillowWriter``) or MP4 (``FFMpegWriter``, when ``ffmpeg`` is on the PATH).
"""

from __future__ import annotations

import math
import shutil
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import ipywidgets as widgets
import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from quivira import BarJointModel, SingularConfigurationError, Trajectory

from . import _geometry as geo
from ._figure import FigurePane
from ._messages import Message
from ._widgets import close_tree
from .view import ModelView

MAX_EXPORT_FRAMES = 150
_COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
           "#17becf", "#bcbd22", "#7f7f7f"]


def ffmpeg_available() -> bool:
    """True when an ``ffmpeg`` executable is on the PATH (MP4 export)."""
    return shutil.which("ffmpeg") is not None


class MotionPlayer(widgets.VBox):
    """Simulate a model and play the motion.

    Parameters
    ----------
    model : quivira.bar_joint_model
        The model (observed: edits re-simulate or clear the motion).
    view : ModelView, optional
        The view to animate; by default the player makes (and shows) its own.
    backend : {"auto", "ipympl", "static"}
        How figures are shown.
    t_end : float
        Simulated time span.
    n_frames : int
        Number of output times (animation frames).
    auto : bool
        Re-simulate after every edit of the model, once Simulate has been pressed.

    Attributes
    ----------
    trajectory : quivira.Trajectory or None
        The motion shown (None before a run, or after a failed one).
    run_info : dict
        Of the last run: ``compile_s``, ``integrate_s``, ``draw_s``, ``total_s``,
        ``reused`` (True when compiled code of this topology existed already) and
        ``stopped`` (the reason when a singular pose stopped the integration).
    n_runs : int
        Number of simulations run.
    status : Message
        The progress and result line.
    progress : ipywidgets.IntProgress
        0 → 3: compiled code, integration, drawing done.
    force_lines, energy_lines, residual_lines : list of Line2D
        The time plots; ``cursors`` the moving time cursor of each plot.
    play, slider : ipywidgets.Play, ipywidgets.IntSlider
        The animation controls; ``link`` is their browser-side ``jslink``.
    """

    def __init__(self, model: BarJointModel, view: ModelView | None = None, *,
                 backend: str = "auto", t_end: float = 2.0, n_frames: int = 201, auto: bool = True,
                 figsize: tuple[float, float] = (9.6, 2.9), dpi: float = 100) -> None:
        super().__init__()
        self.model = model
        self._own_view = view is None
        self.view = ModelView(model, backend=backend) if view is None else view
        self.trajectory = None
        self.run_info: dict = {}
        self.n_runs = 0
        self._has_run = False
        self._frame_callbacks: list[Callable] = []
        self._run_callbacks: list[Callable] = []
        self._lengths = np.zeros(0)
        self._busy = False
        self._quiet = False
        # ---------------------------------------------------------------- controls
        style = {"description_width": "52px"}
        self.t_end = widgets.FloatText(value=t_end, description="time [s]", style=style,
                                       continuous_update=False,
                                       layout=widgets.Layout(width="150px"))
        self.n_frames = widgets.IntText(value=n_frames, description="frames", style=style,
                                        continuous_update=False,
                                        layout=widgets.Layout(width="140px"))
        self.simulate_button = widgets.Button(description="Simulate", icon="play-circle",
                                              button_style="primary",
                                              tooltip="compile (if needed) and integrate",
                                              layout=widgets.Layout(width="auto"))
        self.simulate_button.add_class("quivira-simulate")
        self.auto = widgets.Checkbox(value=auto, description="re-simulate after edits",
                                     indent=False, layout=widgets.Layout(width="190px"))
        self.progress = widgets.IntProgress(value=0, min=0, max=3, bar_style="info",
                                            layout=widgets.Layout(width="120px"))
        self.status = Message()
        self.status.widget.add_class("quivira-player-status")
        self.status.info("press Simulate to compute the motion")
        self.play = widgets.Play(value=0, min=0, max=0, step=1, interval=40,
                                 show_repeat=True, tooltip="play the motion")
        self.slider = widgets.IntSlider(value=0, min=0, max=0, description="frame",
                                        style=style, readout=True, continuous_update=True,
                                        layout=widgets.Layout(width="360px"))
        self.link = widgets.jslink((self.play, "value"), (self.slider, "value"))
        self.time_label = widgets.HTML("t = –")
        self.time_label.add_class("quivira-time")
        self.plot_kind = widgets.ToggleButtons(options=[("multipliers λ", "lambda"),
                                                        ("reaction forces", "reactions")],
                                               value="lambda",
                                               style={"button_width": "120px"})
        formats = ["gif"] + (["mp4"] if ffmpeg_available() else [])
        self.export_format = widgets.Dropdown(options=formats, value="gif",
                                              layout=widgets.Layout(width="80px"))
        self.export_path = widgets.Text(value="motion.gif", description="export",
                                        style=style, layout=widgets.Layout(width="260px"))
        self.export_button = widgets.Button(description="Export", icon="film",
                                            tooltip="write the animation of the view",
                                            layout=widgets.Layout(width="auto"))
        self.export_message = Message()
        self.simulate_button.on_click(lambda _: self.simulate())
        self.slider.observe(self._on_slider, names="value")
        self.plot_kind.observe(lambda _: self._plot_forces(redraw=True), names="value")
        self.export_format.observe(self._on_format, names="value")
        self.export_button.on_click(lambda _: self.export())
        # ---------------------------------------------------------------- figure
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self._build_plots()
        rows = [
            widgets.HBox([self.t_end, self.n_frames, self.simulate_button, self.auto],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="center")),
            widgets.HBox([self.progress, self.status.widget],
                         layout=widgets.Layout(align_items="center")),
            widgets.HBox([self.play, self.slider, self.time_label],
                         layout=widgets.Layout(align_items="center")),
            self.plot_kind,
            self.pane.widget,
            widgets.HBox([self.export_path, self.export_format, self.export_button,
                          self.export_message.widget],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="center")),
        ]
        self.children = ([self.view] if self._own_view else []) + rows
        self.add_class("quivira-player")
        self.model.observe(self._on_model_change)

    # ================================================================== figure
    def _build_plots(self) -> None:
        fig = self.figure
        gs = fig.add_gridspec(1, 3, left=0.06, right=0.99, top=0.88, bottom=0.17, wspace=0.28)
        self.ax_force = fig.add_subplot(gs[0, 0])
        self.ax_energy = fig.add_subplot(gs[0, 1])
        self.ax_residual = fig.add_subplot(gs[0, 2])
        for ax, title in ((self.ax_force, "multipliers λ"), (self.ax_energy, "energy"),
                          (self.ax_residual, "constraint residual")):
            ax.set_title(title, fontsize=9)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("t [s]", fontsize=8, labelpad=1)
            ax.grid(True, color="#eceff1")
            ax.xaxis.set_major_locator(MaxNLocator(5))
        self.ax_residual.set_yscale("log")
        self.force_lines = []
        self.energy_lines = [self.ax_energy.plot([], [], color=c, lw=lw, ls=ls, label=lb)[0]
                             for c, lw, ls, lb in (("#212121", 1.8, "-", "E = T + V"),
                                                   ("#1f77b4", 1.2, "--", "T"),
                                                   ("#2ca02c", 1.2, "--", "V"))]
        self.residual_lines = [self.ax_residual.plot([], [], color=c, lw=1.3, label=lb)[0]
                               for c, lb in (("#6a1b9a", "max |F(q)|"),
                                             ("#ef6c00", "max |J q̇|"))]
        self.ax_energy.legend(fontsize=7, loc="upper right", frameon=False, ncol=3)
        self.ax_residual.legend(fontsize=7, loc="upper right", frameon=False, ncol=2)
        self._legend_labels: tuple = ()
        self.cursors = [ax.axvline(0.0, color="#e53935", lw=1.2, alpha=0.8)
                        for ax in (self.ax_force, self.ax_energy, self.ax_residual)]
        for c in self.cursors:
            c.set_visible(False)
        self.pane.animate(*self.cursors)
        self.pane.animate(*self.energy_lines, *self.residual_lines, layer="data")

    def _ensure_force_lines(self, k: int) -> None:
        while len(self.force_lines) < k:
            c = _COLORS[len(self.force_lines) % len(_COLORS)]
            line = self.ax_force.plot([], [], color=c, lw=1.1)[0]
            self.pane.animate(line, layer="data")
            self.force_lines.append(line)
        while len(self.force_lines) > k:
            line = self.force_lines.pop()
            self.pane.forget(line)
            line.remove()

    def _plot_forces(self, redraw: bool = False) -> bool:
        """Update the λ / reaction lines; True when the static layer (limits, legend)
        changed and a full draw is due."""
        tr = self.trajectory
        ax = self.ax_force
        kind = self.plot_kind.value
        labels: tuple = ()
        if tr is None:
            self._ensure_force_lines(0)
        elif kind == "lambda":
            lam = tr.lambda_mult
            self._ensure_force_lines(lam.shape[1])
            for line, col in zip(self.force_lines, lam.T):
                line.set_data(tr.t, col)
            labels = tuple(tr.constraint_labels)
        else:
            self._ensure_force_lines(len(tr.reactions))
            for line, r in zip(self.force_lines, tr.reactions):
                line.set_data(tr.t, np.hypot(r.force[:, 0], r.force[:, 1]))
            labels = tuple(f"|{r.label}|" for r in tr.reactions)
        changed = False
        title = "multipliers λ" if kind == "lambda" else "reaction forces |F|"
        if ax.get_title() != title:
            ax.set_title(title, fontsize=9)
            changed = True
        if labels != self._legend_labels:
            self._legend_labels = labels
            leg = ax.get_legend()
            if leg is not None:
                leg.remove()
            if 0 < len(labels) <= 8:
                handles = [Line2D([], [], color=ln.get_color(), lw=1.1) for ln in self.force_lines]
                ax.legend(handles, labels, fontsize=6, loc="upper right", frameon=False, ncol=2)
            changed = True
        changed |= _fit_limits(ax, self.force_lines, tr)
        if redraw:
            self._draw_plots(changed)
        return changed

    def _draw_plots(self, full: bool) -> None:
        if full:
            self.pane.redraw()
        else:
            self.pane.update(data=True)

    def _plot_trajectory(self) -> None:
        tr = self.trajectory
        changed = self._plot_forces()
        if tr is None:
            for line in self.energy_lines + self.residual_lines:
                line.set_data([], [])
            for c in self.cursors:
                c.set_visible(False)
        else:
            for line, y in zip(self.energy_lines, (tr.energy, tr.kinetic_energy,
                                                   tr.potential_energy)):
                line.set_data(tr.t, y)
            floor = 1e-18
            pos = np.max(np.abs(tr.position_residual), axis=1) if tr.position_residual.size \
                else np.zeros_like(tr.t)
            vel = np.max(np.abs(tr.velocity_residual), axis=1) if tr.velocity_residual.size \
                else np.zeros_like(tr.t)
            self.residual_lines[0].set_data(tr.t, np.maximum(pos, floor))
            self.residual_lines[1].set_data(tr.t, np.maximum(vel, floor))
            for c in self.cursors:
                c.set_visible(True)
        changed |= _fit_limits(self.ax_energy, self.energy_lines, tr)
        changed |= _fit_limits(self.ax_residual, self.residual_lines, tr, log=True)
        self._draw_plots(changed)

    # ================================================================== simulation
    def _step(self, value: int, text: str, style: str = "info") -> None:
        self.progress.value = value
        self.progress.bar_style = style
        self.status.info(text)

    def simulate(self) -> Trajectory | None:
        """Compile if needed, integrate over ``[0, t_end]`` and show the motion.

        Returns
        -------
        quivira.Trajectory or None
            The motion (also :attr:`trajectory`), or None when the model cannot be simulated
            (the reason is shown in :attr:`status`).
        """
        if self._busy:
            return self.trajectory
        self._busy = True
        self.simulate_button.disabled = True
        try:
            return self._simulate()
        finally:
            self._busy = False
            self.simulate_button.disabled = False

    def _simulate(self):
        t_start = time.perf_counter()
        self._has_run = True
        reused = self.model.is_compiled()
        self._step(0, "1/3 re-using the compiled equations…" if reused else
                   "1/3 compiling the equations of this topology (once per topology)…")
        notes: list[str] = []
        stopped = None
        try:
            self.model.compiled()
            t_comp = time.perf_counter()
            self._step(1, f"2/3 integrating {self.t_end.value:g} s…")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    traj = self.model.simulate(self.t_end.value, self.n_frames.value)
                except SingularConfigurationError as exc:
                    traj = exc.trajectory
                    stopped = f"stopped at t = {exc.t:.4g} s: {exc.reason}"
            notes += [str(w.message) for w in caught]
        except ValueError as exc:
            self._fail(str(exc))
            return None
        t_sim = time.perf_counter()
        if traj is None or traj.n_points == 0:
            self._fail(stopped or "the integration produced no state")
            return None
        self._step(2, "3/3 drawing…")
        self._set_trajectory(traj)
        t_draw = time.perf_counter()
        self.n_runs += 1
        self.run_info = {"compile_s": t_comp - t_start, "integrate_s": t_sim - t_comp,
                         "draw_s": t_draw - t_sim, "total_s": t_draw - t_start,
                         "reused": reused, "stopped": stopped, "n_points": traj.n_points}
        if reused:
            code = "compiled code reused"
        elif t_comp - t_start < 0.05:
            code = "compiled code from the model's cache"
        else:
            code = f"compiled in {t_comp - t_start:.2f} s"
        text = (f"{traj.t[-1]:.3g} s simulated ({traj.n_points} frames) in "
                f"{t_sim - t_start:.2f} s · {code} · energy drift "
                f"{traj.relative_energy_error():.1e} · residual "
                f"{traj.max_position_residual():.1e}")
        if stopped:
            self.progress.value, self.progress.bar_style = 3, "warning"
            self.status.warning(f"{stopped} — showing the motion until then · {text}")
        else:
            self.progress.value, self.progress.bar_style = 3, "success"
            self.status.ok(text + ("" if not notes else " · note: " + "; ".join(notes)))
        for cb in list(self._run_callbacks):
            cb(traj)
        return traj

    def _fail(self, text: str) -> None:
        self.trajectory = None
        self.progress.value = 3
        self.progress.bar_style = "danger"
        hint = ""
        if "violate" in text:
            hint = " — use Assemble (Model & files) to close the joints"
        self.status.error(f"cannot simulate: {text}{hint}")
        self._clear_motion()

    def _clear_motion(self) -> None:
        self.trajectory = None
        self.play.playing = False
        self._set_slider_range(0)
        self.time_label.value = "t = –"
        self.view.set_limits(None)
        self._plot_trajectory()

    def _set_slider_range(self, last: int) -> None:
        keep = min(self.slider.value, last)
        self._quiet = True
        try:
            self.play.max = last
            self.slider.max = last
            self.slider.value = keep
            self.play.value = keep
        finally:
            self._quiet = False

    def _set_trajectory(self, traj) -> None:
        self.trajectory = traj
        self._lengths = np.array([b.length for b in self.model.bars])
        n = traj.n_points
        dt = float(traj.t[-1] - traj.t[0]) / max(n - 1, 1)
        self.play.interval = int(min(max(1000 * dt, 20), 250))
        self._set_slider_range(n - 1)
        ends = geo.bar_ends(traj.q, self._lengths)
        ext = geo.extent(np.concatenate([ends.reshape(-1, 2), self._support_points()]))
        with self.pane.hold(), self.view.pane.hold():
            if ext is not None:
                x0, x1, y0, y1 = ext
                pad = 0.1 * max(x1 - x0, y1 - y0, 1e-6) + 0.05
                self.view.set_limits((x0 - pad, x1 + pad, y0 - pad, y1 + pad))
            self._plot_trajectory()
            self.show_frame(self.slider.value)

    def _support_points(self) -> np.ndarray:
        sups = self.model.supports
        return np.array([(s.x, s.y) for s in sups], dtype=float).reshape(-1, 2)

    # ================================================================== frames
    def _on_slider(self, change) -> None:
        if self._quiet or self.trajectory is None:
            return
        self.show_frame(change["new"])

    def show_frame(self, k: int) -> None:
        """Show frame ``k`` of the motion: bars in the view, time cursors in the plots."""
        tr = self.trajectory
        if tr is None:
            return
        k = int(min(max(k, 0), tr.n_points - 1))
        t = float(tr.t[k])
        self.view.show_state(tr.q[k], t=t)
        for c in self.cursors:
            c.set_xdata([t, t])
        self.pane.update()
        self.time_label.value = f"t = {t:.3f} s"
        for cb in list(self._frame_callbacks):
            cb(k, t, np.concatenate([tr.q[k], tr.qd[k]]))

    @property
    def frame(self) -> int:
        """The frame shown (the slider's value)."""
        return int(self.slider.value)

    def on_frame(self, callback: Callable) -> None:
        """Call ``callback(k, t, state)`` whenever a frame is shown."""
        self._frame_callbacks.append(callback)

    def on_simulated(self, callback: Callable) -> None:
        """Call ``callback(trajectory)`` after every successful run."""
        self._run_callbacks.append(callback)

    # ================================================================== model changes
    def _on_model_change(self, what: str) -> None:
        try:
            if not self._has_run:
                return
            if self.auto.value:
                self.simulate()
            else:
                self._clear_motion()
                self.progress.value = 0
                self.status.info("the model changed — press Simulate")
        except Exception as exc:  # an observer must never break the model's edit
            self.status.error(f"player: {exc}")

    # ================================================================== export
    def _on_format(self, change) -> None:
        p = Path(self.export_path.value or "motion")
        self.export_path.value = str(p.with_suffix("." + change["new"]))

    def export(self, path: str | None = None) -> str | None:
        """Write the animation of the view to ``path`` (default: the export field).

        GIF uses ``matplotlib.animation.PillowWriter``; MP4 ``FFMpegWriter`` (needs
        ``ffmpeg``). At most 150 frames are written (evenly spaced), at the speed of the
        motion where possible. Returns the path, or None on failure (see the message).
        """
        from matplotlib.animation import FFMpegWriter, PillowWriter

        tr = self.trajectory
        if tr is None:
            self.export_message.error("simulate first: there is no motion to export")
            return None
        path = path or self.export_path.value.strip()
        if not path:
            self.export_message.error("write a file name, e.g. motion.gif")
            return None
        fmt = Path(path).suffix.lstrip(".").lower() or self.export_format.value
        if fmt not in ("gif", "mp4"):
            self.export_message.error(f"unknown format {fmt!r}: use a .gif or .mp4 file name")
            return None
        if fmt == "mp4" and not ffmpeg_available():
            self.export_message.error("MP4 needs ffmpeg on the PATH; export a .gif instead")
            return None
        stride = max(1, math.ceil(tr.n_points / MAX_EXPORT_FRAMES))
        frames = list(range(0, tr.n_points, stride))
        span = float(tr.t[frames[-1]] - tr.t[0]) or 1.0
        fps = int(min(max(round(len(frames) / span), 5), 30))
        writer = PillowWriter(fps=fps) if fmt == "gif" else FFMpegWriter(fps=fps)
        fig = self.view.figure
        current = self.frame
        try:
            with writer.saving(fig, path, dpi=fig.dpi):
                for k in frames:
                    self.view.show_state(tr.q[k], t=float(tr.t[k]), render=False)
                    writer.grab_frame()
        except (OSError, RuntimeError, ValueError) as exc:
            self.export_message.error(f"export failed: {exc}")
            return None
        finally:
            self.view.pane.redraw()
            self.show_frame(current)
        self.export_message.ok(f"wrote {len(frames)} frames to {path}")
        return path

    # ================================================================== life cycle
    def set_model(self, model: BarJointModel) -> None:
        """Simulate another model from now on (the motion is cleared)."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        model.observe(self._on_model_change)
        if self._own_view:
            self.view.set_model(model)
        self._has_run = False
        self._clear_motion()
        self.progress.value = 0
        self.status.info("press Simulate to compute the motion")

    def close(self) -> None:
        """Stop observing the model; release the figure (and the view if it is its own)."""
        self.model.unobserve(self._on_model_change)
        self.play.playing = False
        self.link.close()
        self.pane.close()
        if self._own_view:
            self.view.close()
        close_tree(self)
        super().close()


def _fit_limits(ax, lines, tr, log: bool = False) -> bool:
    """Fit the axes to the lines' data, keeping the limits when the data still fit well
    (so a re-run with similar numbers only redraws the lines). True when they changed."""
    if tr is None or tr.n_points < 2:
        return False
    ys = [np.asarray(ln.get_ydata(), dtype=float) for ln in lines]
    ys = [y[np.isfinite(y)] for y in ys if len(y)]
    ys = [y for y in ys if y.size]
    if not ys:
        return False
    lo = min(float(y.min()) for y in ys)
    hi = max(float(y.max()) for y in ys)
    x_want = (float(tr.t[0]), float(tr.t[-1]))
    cur_y = ax.get_ylim()
    if log:
        lo, hi = math.log10(max(lo, 1e-300)), math.log10(max(hi, 1e-300))
        c0, c1 = math.log10(cur_y[0]), math.log10(cur_y[1])
        span = max(hi - lo, 1.0)
        keep = c0 <= lo and hi <= c1 and (c1 - c0) <= span + 4
        want = (10 ** (lo - 0.5), 10 ** (hi + 0.5))
    else:
        span = max(hi - lo, 1e-12 * max(abs(hi), abs(lo), 1.0), 1e-300)
        c0, c1 = cur_y
        keep = c0 <= lo and hi <= c1 and (c1 - c0) <= 2.0 * span
        pad = 0.12 * span  # slack: a re-run with similar numbers keeps the limits
        want = (lo - pad, hi + pad)
    changed = False
    if ax.get_xlim() != x_want:
        ax.set_xlim(*x_want)
        changed = True
    if not keep:
        ax.set_ylim(*want)
        changed = True
    return changed

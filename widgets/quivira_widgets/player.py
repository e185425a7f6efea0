"""`MotionPlayer`: simulate with visible progress, play in real time, plot, export, download.

*Simulate* runs in two visible steps — the compiled code (built on the first run of a
topology, then reused from the model's cache) and the integration — then draws. After a run,
edits of the model re-simulate at once when "re-simulate after edits" is ticked: value edits
(mass, length, g, loads, positions) reuse the compiled code and take a fraction of a second.
The time and frame fields refuse what would exceed the Studio's budget (at most 10⁴ s and 10⁵
frames, :mod:`quivira_widgets._specs`), and runs get a wall-time budget where the core offers
one; a run stopped early (singular pose, budget, "interrupt kernel") keeps its motion up to
then and marks the stop on the timeline.

Events of the run (latches locking, impacts on stops and floors, contacts resting and
releasing, user events; ``trajectory.events``) are marked on the timeline under the slider
(orange: switches and impacts) and as dashed lines in the time plots, and listed in the event
log below the timeline: t, element, what, kinetic energy lost (greyed once the frame shown has
passed them).

State is in traits: ``trajectory``, ``frame`` (linked to the slider), ``selection`` (a
constraint row, highlighted in the plot) and ``speed``. Playing needs no Python loop: the
``Play`` widget drives the slider in the browser (``jslink``) every ``interval`` ms by ``step``
frames, chosen so that the motion plays in real time times ``speed`` (0.1× … 4×). With ipympl,
clicking the view and pressing Space plays or pauses, ← and → step one frame.

Below the constraint plots, a second figure shows the energy ledger (kinetic, gravity,
elastic, loads and the energy dissipated, stacked, with the work supplied by the actuators),
the energy balance E − E₀ − W + D, and the forces of the springs, dampers and actuators chosen
in ``element_rows`` (:mod:`quivira_widgets._ledgerplots`).

The motion exports as GIF (or MP4 where ``ffmpeg`` exists) and the trajectory as CSV (q, q̇,
λ, reactions, energies): written to the working folder and offered as a browser download, with
a progress bar.
"""

from __future__ import annotations

import time
import warnings

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel, SingularConfigurationError, Trajectory

from . import _export as export_mod
from . import _specs as spec
from ._export import ffmpeg_available
from ._fields import IntField, NumberField
from ._files import DownloadLink, WorkFolder
from ._guard import report
from ._ledgerplots import LedgerPlots, element_series
from ._messages import Message
from ._playback import (
    SPEEDS,
    event_records,
    events_of,
    log_html,
    log_rows,
    play_timing,
    timeline_html,
)
from ._theme import style_widget
from ._timeplots import TimePlots, force_series
from ._widgets import close_tree
from .view import ModelView

#: wall-time budget (s) of one run from the player, where the core's simulate takes one
MAX_WALL_S = 120.0
#: rows of the constraint force plot chosen at first
DEFAULT_ROWS = 6
#: element force series chosen at first
DEFAULT_ELEMENT_ROWS = 6

__all__ = ["MotionPlayer", "ffmpeg_available", "force_series_labels"]


class MotionPlayer(widgets.VBox):
    """Simulate a model and play the motion (see the module docstring).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model (observed: edits re-simulate or clear the motion).
    view : ModelView, optional
        The view to animate; by default the player makes (and shows) its own.
    backend : {"auto", "ipympl", "static"}
        How figures are shown.
    t_end : float
        Simulated time span (s).
    n_frames : int
        Number of output times (animation frames).
    auto : bool
        Re-simulate after every edit of the model, once Simulate has been pressed.
    workdir : WorkFolder, optional
        Where exports go (default ``quivira-work/`` next to the notebook).

    Attributes
    ----------
    model, trajectory, frame, selection, speed, font_scale : traits
        The model; the motion shown (None before a run or after a failed one); the frame
        shown; the highlighted constraint row; the playback speed; the text size factor.
    run_revision : int
        The model's ``revision`` at the last run, successful or not (a trait).
    run_info : dict
        Of the last run: ``compile_s``, ``integrate_s``, ``draw_s``, ``total_s``,
        ``reused`` (compiled code existed already), ``stopped`` (why it stopped early, or
        None), ``n_points``.
    n_runs : int
        Number of successful simulations.
    status : Message
        The progress and result line.
    progress : ipywidgets.IntProgress
        0 → 3: compiled code, integration, drawing done.
    t_end, n_frames : NumberField, IntField
        Time span (s) and number of frames.
    play, slider : ipywidgets.Play, ipywidgets.IntSlider
        The animation controls; ``link`` is their browser-side ``jslink``.
    speed_control : ipywidgets.SelectionSlider
        0.1× … 4×.
    plot_kind : ipywidgets.ToggleButtons
        ``"lambda"`` or ``"reactions"``.
    rows : ipywidgets.SelectMultiple
        The constraint rows (or reactions) plotted.
    plots : TimePlots
        The time plots; ``force_lines``, ``energy_lines``, ``residual_lines``, ``cursors``
        are its lines.
    element_rows : ipywidgets.SelectMultiple
        The element force series plotted (spring tensions, torques, actuator forces).
    ledger : LedgerPlots
        The energy ledger, the balance and the element forces (``bands``, ``bounds``,
        ``work_line``, ``balance_line``, ``force_lines``).
    timeline : ipywidgets.HTML
        Event markers under the slider.
    events : list of (float, str)
        The events of the motion shown (and where it stopped early), as marked.
    event_rows : list of tuple
        The event log's rows ``(t, element, what, kinetic energy lost in J or None)``, one per
        entry of ``trajectory.events``.
    event_log : ipywidgets.HTML
        The event log (a table; empty without events).
    """

    model = traitlets.Instance(BarJointModel)
    trajectory = traitlets.Instance(Trajectory, allow_none=True)
    frame = traitlets.Int(0)
    selection = traitlets.Unicode("")
    speed = traitlets.Float(1.0)
    font_scale = traitlets.Float(1.0)
    run_revision = traitlets.Int(-1)

    def __init__(self, model: BarJointModel, view: ModelView | None = None, *,
                 backend: str = "auto", t_end: float = 2.0, n_frames: int = 201,
                 auto: bool = True, workdir: WorkFolder | None = None,
                 figsize: tuple[float, float] = (8.8, 2.9), dpi: float = 100) -> None:
        super().__init__()
        self.model = model
        self._own_view = view is None
        self.view = ModelView(model, backend=backend) if view is None else view
        self.workdir = workdir or WorkFolder()
        self.run_info: dict = {}
        self.n_runs = 0
        self.events: list[tuple[float, str]] = []
        self.event_rows: list[tuple] = []
        self._log_past = -1
        self._has_run = False
        self._busy = False
        self._build_controls(t_end, n_frames, auto)
        self.plots = TimePlots(backend, figsize, dpi)
        self.plots.model = model
        self.pane = self.plots.pane
        self.figure = self.plots.figure
        self.ledger = LedgerPlots(backend, figsize, dpi)
        self._links = [
            widgets.jslink((self.play, "value"), (self.slider, "value")),
        ]
        self.link = self._links[0]
        self._trait_links = [
            traitlets.link((self.slider, "value"), (self, "frame")),
            traitlets.link((self.speed_control, "value"), (self, "speed")),
            traitlets.dlink((self, "trajectory"), (self.view, "trajectory")),
            traitlets.dlink((self, "frame"), (self.view, "frame")),
        ]
        if self._own_view:
            self._trait_links += [traitlets.link((self, "selection"), (self.view, "selection")),
                                  traitlets.dlink((self, "font_scale"),
                                                  (self.view, "font_scale"))]
        self.observe(self._guard(self._on_frame), names="frame")
        self.observe(self._guard(self._on_trajectory), names="trajectory")
        self.observe(self._guard(self._on_selection), names="selection")
        self.observe(self._guard(self._apply_speed), names="speed")
        self.observe(self._guard(self._on_font_scale), names="font_scale")
        self.view.pane.connect("key_press_event", self._guard(self._on_key))
        self.children = ([style_widget()] + ([self.view] if self._own_view else [])
                         + self._layout())
        self.add_class("quivira-player")
        self.add_class("quivira-root")
        self.model.observe(self._on_model_change)

    # ================================================================== controls
    def _guard(self, fn):
        def run(*args):
            try:
                return fn(*args)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.status.error, f"MotionPlayer.{fn.__name__}")
                return None
        return run

    def _build_controls(self, t_end: float, n_frames: int, auto: bool) -> None:
        self.t_end = NumberField(spec.TIME, t_end, description="time",
                                 tooltip="simulated time span", width="150px")
        self.n_frames = IntField(spec.FRAMES, n_frames, description="frames",
                                 tooltip="number of output times (animation frames)",
                                 width="150px")
        for f in (self.t_end, self.n_frames):
            f.text.style.description_width = "46px"
        self.simulate_button = widgets.Button(description="Simulate", icon="play-circle",
                                              button_style="primary",
                                              tooltip="compile (if needed) and integrate",
                                              layout=widgets.Layout(width="auto"))
        self.simulate_button.add_class("quivira-simulate")
        self.auto = widgets.Checkbox(value=auto, description="re-simulate after edits",
                                     indent=False, layout=widgets.Layout(width="190px"))
        self.progress = widgets.IntProgress(value=0, min=0, max=3, bar_style="info",
                                            layout=widgets.Layout(width="110px"))
        self.status = Message("quivira-player-status")
        self.status.info("press Simulate to compute the motion")
        self.play = widgets.Play(value=0, min=0, max=0, step=1, interval=40,
                                 show_repeat=True, tooltip="play / pause the motion")
        self.slider = widgets.IntSlider(value=0, min=0, max=0, description="frame",
                                        style={"description_width": "46px"}, readout=True,
                                        continuous_update=True,
                                        layout=widgets.Layout(width="340px"))
        self.speed_control = widgets.SelectionSlider(
            options=[(f"{s:g}×", s) for s in SPEEDS], value=1.0, description="speed",
            continuous_update=False, style={"description_width": "42px"},
            tooltip="playback speed (1× = real time)", layout=widgets.Layout(width="210px"))
        self.time_label = widgets.HTML("t = –")
        self.time_label.add_class("quivira-time")
        self.timeline = widgets.HTML("", layout=widgets.Layout(width="260px",
                                                               margin="0 0 0 52px"))
        self.timeline.add_class("quivira-timeline")
        self.event_log = widgets.HTML("", layout=widgets.Layout(max_width="100%"))
        self.event_log.add_class("quivira-event-log-box")
        self.keys_hint = widgets.HTML('<span class="quivira-hint">click the view, then Space '
                                      "plays/pauses, ← → step</span>")
        self.plot_kind = widgets.ToggleButtons(options=[("multipliers λ", "lambda"),
                                                        ("reaction forces", "reactions")],
                                               value="lambda", style={"button_width": "120px"})
        self.rows = widgets.SelectMultiple(options=[], rows=4, description="show",
                                           style={"description_width": "40px"},
                                           tooltip="the constraint rows plotted (Ctrl/Shift "
                                           "for several)", layout=widgets.Layout(width="300px"))
        self.element_rows = widgets.SelectMultiple(
            options=[], rows=3, description="forces", style={"description_width": "46px"},
            tooltip="the spring, damper and actuator forces plotted (Ctrl/Shift for several)",
            layout=widgets.Layout(width="340px"))
        self.element_rows.add_class("quivira-element-rows")
        self.ledger_title = widgets.HTML(
            '<span class="quivira-section-title">Energy ledger and element forces</span> '
            '<span class="quivira-hint">where the energy goes: stacked parts + dissipated '
            "= E(0) + work in</span>")
        formats = [("GIF (motion)", "gif")] + ([("MP4 (motion)", "mp4")] if ffmpeg_available()
                                               else []) + [("CSV (trajectory)", "csv")]
        self.export_format = widgets.Dropdown(options=formats, value="gif",
                                              layout=widgets.Layout(width="150px"))
        self.export_path = widgets.Text(value="motion.gif", description="file",
                                        style={"description_width": "30px"},
                                        continuous_update=False,
                                        layout=widgets.Layout(width="210px"))
        self.export_button = widgets.Button(description="Export", icon="download",
                                            tooltip="write the file to the working folder "
                                            "and offer it as a download",
                                            layout=widgets.Layout(width="auto"))
        self.export_button.add_class("quivira-export")
        self.export_progress = widgets.IntProgress(value=0, min=0, max=1, bar_style="info",
                                                   layout=widgets.Layout(width="110px",
                                                                         display="none"))
        self.export_message = Message("quivira-export-message")
        self.download = DownloadLink()
        self.simulate_button.on_click(self._guard(lambda _: self.simulate()))
        self.plot_kind.observe(self._guard(self._on_kind), names="value")
        self.rows.observe(self._guard(self._on_rows), names="value")
        self.element_rows.observe(self._guard(self._on_element_rows), names="value")
        self.export_format.observe(self._guard(self._on_format), names="value")
        self.export_button.on_click(self._guard(lambda _: self.export()))
        self.t_end.observe(self._guard(self._on_budget_field), names="error")
        self.n_frames.observe(self._guard(self._on_budget_field), names="error")

    def _layout(self) -> list:
        wrap = widgets.Layout(flex_flow="row wrap", align_items="center")
        return [
            widgets.HBox([self.t_end, self.n_frames, self.simulate_button, self.auto],
                         layout=wrap),
            widgets.HBox([self.progress, self.status.widget], layout=wrap),
            widgets.HBox([self.play, self.slider, self.time_label, self.speed_control],
                         layout=wrap),
            widgets.HBox([self.timeline, self.keys_hint], layout=wrap),
            self.event_log,
            widgets.HBox([self.plot_kind, self.rows], layout=wrap),
            self.pane.widget,
            widgets.HBox([self.ledger_title, self.element_rows], layout=wrap),
            self.ledger.pane.widget,
            widgets.HBox([self.export_format, self.export_path, self.export_button,
                          self.export_progress, self.export_message.widget], layout=wrap),
            self.download,
        ]

    # ================================================================== simulation
    def _step(self, value: int, text: str) -> None:
        self.progress.value = value
        self.progress.bar_style = "info"
        self.status.info(text)

    def _budget(self) -> dict:
        """Return the wall-time budget of an interactive run, for ``model.simulate``.

        The player stops at singular poses (where a lecture's linkages lie flat), which
        ``simulate`` by default passes.
        """
        return {"max_wall_s": MAX_WALL_S, "singular": "stop"}

    def _on_budget_field(self, change) -> None:
        if change["new"]:
            self.status.error(change["new"])

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

    def _simulate(self) -> Trajectory | None:
        self._has_run = True
        for f in (self.t_end, self.n_frames):
            # a refused field: say so, and keep the motion shown (nothing was run)
            if f.error:
                self.status.error(f"cannot simulate: correct the marked field first — "
                                  f"{f.error}")
                return None
            try:
                f.spec.check(f.value)
            except ValueError as exc:
                f.show_error(str(exc))
                self.status.error(f"cannot simulate: {exc}")
                return None
        t_end, n_points = float(self.t_end.value), int(self.n_frames.value)
        t_start = time.perf_counter()
        reused = False
        stopped = None
        notes: list[str] = []
        traj = None
        try:
            reused = self.model.is_compiled(t_end=t_end)
            self._step(0, "1/3 re-using the compiled equations…" if reused else
                       "1/3 compiling the equations of this topology (once per topology)…")
            self.model.compiled(t_end=t_end)
            t_comp = time.perf_counter()
            self._step(1, f"2/3 integrating {t_end:g} s…")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    traj = self.model.simulate(t_end, n_points, **self._budget())
                except SingularConfigurationError as exc:
                    traj = exc.trajectory
                    stopped = f"stopped at t = {exc.t:.4g} s: {exc.reason}"
                except (RuntimeError, KeyboardInterrupt) as exc:
                    partial = getattr(exc, "trajectory", None)
                    if partial is None:
                        raise
                    traj = partial
                    reached = getattr(exc, "t", None)
                    where = f" at t = {reached:.4g} s" if reached is not None else ""
                    why = ("the kernel was interrupted" if isinstance(exc, KeyboardInterrupt)
                           else str(exc))
                    stopped = f"stopped{where}: {why}"
            notes += [str(w.message) for w in caught]
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown to the user
            shown: list[str] = []
            report(exc, shown.append, "MotionPlayer.simulate")
            self._fail(shown[0])
            return None
        t_sim = time.perf_counter()
        if traj is None or traj.n_points == 0:
            self._fail(stopped or "the integration produced no state")
            return None
        self._step(2, "3/3 drawing…")
        self.run_info = {"compile_s": t_comp - t_start, "integrate_s": t_sim - t_comp,
                         "reused": reused, "stopped": stopped, "n_points": traj.n_points}
        self.events = events_of(traj, stopped)
        self.event_rows = log_rows(event_records(traj))
        self._log_past = -1
        with self.pane.hold(), self.ledger.pane.hold(), self.view.pane.hold():
            self._set_trajectory(traj)
        t_draw = time.perf_counter()
        self.n_runs += 1
        self.run_info.update(draw_s=t_draw - t_sim, total_s=t_draw - t_start)
        if reused:
            code = "compiled code reused"
        elif t_comp - t_start < 0.05:
            code = "compiled code from the model's cache"
        else:
            code = f"compiled in {t_comp - t_start:.2f} s"
        # with dampers or drives E changes: the error is that of E − E0 − W + D
        energy = "energy balance error" if traj.nonconservative else "energy drift"
        text = (f"{traj.t[-1]:.3g} s simulated ({traj.n_points} frames) in "
                f"{t_sim - t_start:.2f} s · {code} · {energy} "
                f"{traj.relative_energy_error():.1e} · largest joint gap "
                f"{traj.max_position_residual():.1e} m")
        self.progress.value = 3
        if stopped:
            self.progress.bar_style = "warning"
            self.status.warning(f"{stopped} — showing the motion until then · {text}")
        else:
            self.progress.bar_style = "success"
            self.status.ok(text + ("" if not notes else " · note: " + "; ".join(notes)))
        self.run_revision = self.model.revision
        return traj

    def _fail(self, text: str) -> None:
        self.progress.value = 3
        self.progress.bar_style = "danger"
        hint = ""
        if "violate" in text:
            hint = " — use Assemble (Model & files) to close the joints"
        self.events = []
        self.event_rows = []
        self._clear_motion()
        self.status.error(f"cannot simulate: {text}{hint}")
        self.run_revision = self.model.revision

    def _clear_motion(self) -> None:
        self.play.playing = False
        self.trajectory = None
        self._set_slider_range(0)
        self.time_label.value = "t = –"
        self.timeline.value = ""
        self.event_log.value = ""
        self._log_past = -1

    def _set_slider_range(self, last: int) -> None:
        keep = min(self.slider.value, last)
        with self.hold_trait_notifications():
            self.play.max = last
            self.slider.max = last
            self.slider.value = keep
            self.play.value = keep

    def _set_trajectory(self, traj: Trajectory) -> None:
        last = traj.n_points - 1
        self.play.max = last
        self.slider.max = last
        if self.slider.value > last:
            self.slider.value = last
        self.trajectory = traj  # the view and the plots follow (observers)
        self.play.value = self.slider.value

    # ================================================================== trait observers
    def _on_trajectory(self, change) -> None:
        tr = change["new"]
        self._update_rows()
        self._replot()
        self._update_element_rows()
        self._replot_ledger()
        if tr is not None:
            self._apply_speed()
            self.timeline.value = timeline_html(self.events, float(tr.t[0]), float(tr.t[-1]))
            self._show_time()

    def _on_frame(self, change) -> None:
        self._show_time()

    def _show_time(self) -> None:
        tr = self.trajectory
        if tr is None or tr.n_points == 0:
            return
        k = int(min(max(self.frame, 0), tr.n_points - 1))
        t = float(tr.t[k])
        self.plots.set_time(t)
        self.ledger.set_time(t)
        self.time_label.value = f"t = {t:.3f} s"
        self._show_log(t)

    def _show_log(self, t: float) -> None:
        """Show the event log, its rows up to ``t`` greyed.

        Redrawn only when that count changes.
        """
        past = sum(1 for row in self.event_rows if row[0] <= t + 1e-12)
        if past == self._log_past and (self.event_log.value or not self.event_rows):
            return
        self._log_past = past
        self.event_log.value = log_html(self.event_rows, t)

    def _on_selection(self, change) -> None:
        self.plots.set_highlight(change["new"])

    def _apply_speed(self, change=None) -> None:
        tr = self.trajectory
        if tr is None or tr.n_points < 2:
            return
        dt = float(tr.t[-1] - tr.t[0]) / (tr.n_points - 1)
        interval, step = play_timing(dt, float(self.speed))
        self.play.interval = interval
        self.play.step = step

    def _on_font_scale(self, change) -> None:
        self.plots.pane.set_font_scale(change["new"])
        self.ledger.pane.set_font_scale(change["new"])

    def _on_key(self, event) -> None:
        key = getattr(event, "key", None)
        if key in (" ", "space", "k"):
            self.play.playing = not self.play.playing
        elif key in ("right", "left") and self.trajectory is not None:
            self.play.playing = False
            step = 1 if key == "right" else -1
            self.slider.value = int(min(max(self.slider.value + step, 0), self.slider.max))
        elif key == "home":
            self.slider.value = 0
        elif key == "end":
            self.slider.value = self.slider.max

    # ================================================================== plots
    def _on_kind(self, change) -> None:
        self._update_rows(reset=True)
        self._replot()

    def _on_rows(self, change) -> None:
        if getattr(self, "_rows_syncing", False):
            return
        self._replot()

    def _on_element_rows(self, change) -> None:
        if getattr(self, "_rows_syncing", False):
            return
        self._replot_ledger()

    def _update_element_rows(self) -> None:
        tr = self.trajectory
        labels = [] if tr is None else element_series(tr, self.model)[0]
        options = [(lb, k) for k, lb in enumerate(labels)]
        if list(self.element_rows.options) == options:
            return
        chosen = set(self.element_rows.value)
        old = {lb for lb, k in self.element_rows.options if k in chosen}
        self._rows_syncing = True
        try:
            self.element_rows.options = options
            keep = tuple(k for lb, k in options if lb in old)
            self.element_rows.value = keep or tuple(range(min(DEFAULT_ELEMENT_ROWS,
                                                              len(options))))
        finally:
            self._rows_syncing = False

    def _replot_ledger(self) -> None:
        self.ledger.show(self.trajectory, list(self.element_rows.value), self.model)

    def _update_rows(self, reset: bool = False) -> None:
        tr = self.trajectory
        labels = [] if tr is None else force_series_labels(tr, self.plot_kind.value)
        options = [(lb, k) for k, lb in enumerate(labels)]
        self._rows_syncing = True
        try:
            if list(self.rows.options) != options:
                old = set(self.rows.value)
                self.rows.options = options
                keep = tuple(v for _, v in options if v in old)
                self.rows.value = keep if keep and not reset else tuple(
                    range(min(DEFAULT_ROWS, len(options))))
            elif reset:
                self.rows.value = tuple(range(min(DEFAULT_ROWS, len(options))))
        finally:
            self._rows_syncing = False

    def _replot(self) -> None:
        self.plots.show(self.trajectory, self.plot_kind.value, list(self.rows.value),
                        self.selection, self.events)

    # ------------------------------------------------------------------ plotted data
    @property
    def force_lines(self):
        """The constraint-force lines of the plot."""
        return self.plots.force_lines

    @property
    def energy_lines(self):
        """E, T, V lines."""
        return self.plots.energy_lines

    @property
    def residual_lines(self):
        """Position and velocity residual lines."""
        return self.plots.residual_lines

    @property
    def cursors(self):
        """The time cursors of the plots."""
        return self.plots.cursors

    def show_frame(self, k: int) -> None:
        """Show frame ``k`` of the motion (the slider follows)."""
        if self.trajectory is None:
            return
        self.slider.value = int(min(max(k, 0), self.trajectory.n_points - 1))

    # ================================================================== model changes
    def _on_model_change(self, what: str) -> None:
        try:
            if not self._has_run:
                return
            if self.auto.value:
                self.simulate()
            else:
                self.events = []
                self.event_rows = []
                self._clear_motion()
                self.progress.value = 0
                self.status.info("the model changed — press Simulate")
                self.run_revision = self.model.revision
        except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
            report(exc, self.status.error, "MotionPlayer._on_model_change")

    # ================================================================== export
    def _on_format(self, change) -> None:
        name = (self.export_path.value or "motion").strip()
        stem = name.rsplit(".", 1)[0] if "." in name else name
        if change["new"] == "csv" and stem == "motion":
            stem = "trajectory"
        elif change["new"] != "csv" and stem == "trajectory":
            stem = "motion"
        self.export_path.value = f"{stem}.{change['new']}"

    def export(self, path: str | None = None) -> str | None:
        """Write the motion (GIF/MP4) or the trajectory (CSV) and offer it as a download.

        Parameters
        ----------
        path : str, optional
            A file name in the working folder (default: the file field); its suffix chooses
            the format (.gif, .mp4, .csv), else the format menu.

        Returns
        -------
        str or None
            The path written, or None on failure (see :attr:`export_message`).
        """
        tr = self.trajectory
        if tr is None:
            self.export_message.error("simulate first: there is no motion to export")
            return None
        name = (path or self.export_path.value).strip()
        suffix = name.rsplit(".", 1)[-1].lower() if "." in name else self.export_format.value
        if suffix not in export_mod.FORMATS:
            self.export_message.error(f"unknown format .{suffix}: name a .gif, .mp4 or .csv "
                                      "file")
            return None
        if suffix == "mp4" and not ffmpeg_available():
            self.export_message.error("MP4 needs ffmpeg, which is not installed here; export "
                                      "a GIF instead")
            return None
        try:
            target = self.workdir.file(name, "." + suffix)
            data = self._export_data(tr, suffix, target)
        except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown to the user
            report(exc, lambda t: self.export_message.error(f"export failed: {t}"),
                   "MotionPlayer.export")
            return None
        finally:
            self.export_progress.layout.display = "none"
        self.download.offer(target.name, data, export_mod.FORMATS[suffix])
        self.export_message.ok(f"wrote {target.name} ({len(data) / 1000:.0f} kB) in "
                               f"{self.workdir.path}/")
        return str(target)

    def _export_data(self, tr: Trajectory, fmt: str, target) -> bytes:
        bar = self.export_progress
        if fmt == "csv":
            tr.to_csv(target)
            return target.read_bytes()
        frames = export_mod.frame_indices(tr.n_points)
        bar.max, bar.value, bar.bar_style = len(frames) + 1, 0, "info"
        bar.layout.display = None

        def progress(j: int, n: int) -> None:
            if j % 5 == 0 or j == n:
                bar.value = j
                self.export_message.info(f"exporting… frame {j}/{n}")

        try:
            images = export_mod.render_frames(self.view, tr, frames, progress)
        finally:
            self.view.redraw_motion()
        fps = export_mod.frames_per_second(tr.t, frames)
        self.export_message.info("exporting… encoding")
        if fmt == "gif":
            data = export_mod.gif_bytes(images, fps)
            target.write_bytes(data)
        else:
            export_mod.write_mp4(images, fps, target)
            data = target.read_bytes()
        bar.value = bar.max
        bar.bar_style = "success"
        return data

    # ================================================================== life cycle
    def set_model(self, model: BarJointModel) -> None:
        """Simulate another model from now on (the motion is cleared)."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        self.plots.model = model
        model.observe(self._on_model_change)
        if self._own_view:
            self.view.set_model(model)
        self._has_run = False
        self.events = []
        self.event_rows = []
        self._clear_motion()
        self.progress.value = 0
        self.status.info("press Simulate to compute the motion")

    def close(self) -> None:
        """Stop observing the model; release the figure (and the view if it is its own)."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self.model.unobserve(self._on_model_change)
        self.play.playing = False
        for link in self._trait_links:
            link.unlink()
        self._trait_links = []
        for link in self._links:
            link.close()
        self.plots.close()
        self.ledger.close()
        if self._own_view:
            self.view.close()
        close_tree(self)
        super().close()


def force_series_labels(tr: Trajectory, kind: str) -> list[str]:
    """Labels of the constraint-force series of ``tr`` (rows of λ, or reactions)."""
    if kind == "lambda":
        return list(tr.constraint_labels)
    return force_series(tr, kind)[0]


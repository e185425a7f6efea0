"""`Studio`: the editor, the live view, the motion player and the matrix inspector together.

Layout: a title with the *presentation* toggle, a status strip; the editor beside the view
(they wrap one below the other when the container is narrower than about 900 px); below, tabs
for the motion (player and its time plots) and the matrices (inspector). Figures scale down to
the container's width. Colours follow JupyterLab's light or dark theme.

All panels share one model and one working folder, and their state is wired with traitlets
links: the player's ``trajectory`` and ``frame`` drive the view; ``selection`` (a constraint
row) is one value for the player (highlighted curve), the inspector (λ row) and the view (force
arrow); the view's ``limits`` give the editor the centre where new bars go; ``presentation``
sets every panel's ``font_scale``. The inspector follows the player's frame when asked. Nothing
is global: two studios in one notebook are independent.
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel

from ._files import WorkFolder
from ._modelinfo import counts_line
from ._theme import PRESENTATION_SCALE, style_widget
from ._widgets import close_tree
from .editor import ModelEditor
from .inspector import MatrixInspector
from .player import MotionPlayer
from .sensitivity import SensitivityPanel
from .statics import StaticsPanel
from .view import ModelView


def _centre(limits: tuple) -> tuple[float, float]:
    x0, x1, y0, y1 = limits
    return 0.5 * (x0 + x1), 0.5 * (y0 + y1)


class Studio(widgets.VBox):
    """Editor, view, player and inspector of one model, composed.

    Parameters
    ----------
    model : quivira.BarJointModel
        The model (shared by all panels).
    backend : {"auto", "ipympl", "static"}
        How figures are shown (ipympl's canvas widget when available, else PNG images).
    title : str
        Shown at the top.
    t_end : float
        Simulated time span of the player (s).
    n_frames : int
        Number of frames of the player.
    workdir : str or WorkFolder, optional
        Where saves and exports go (default ``quivira-work/`` next to the notebook).

    Attributes
    ----------
    model : quivira.BarJointModel
        The model (a trait).
    selection : str
        The constraint row shown in every panel (a trait; "" for none).
    presentation : bool
        Larger fonts for projectors (a trait; the toggle in the title bar).
    editor : ModelEditor
    view : ModelView
    player : MotionPlayer
    inspector : MatrixInspector
    statics : StaticsPanel
        *Equilibrium*, bars coloured by axial force, N/V/M diagrams of a bar.
    sensitivity : SensitivityPanel
        The derivatives of a chosen output with respect to the parameters, as a bar chart.
    workdir : WorkFolder
    status : ipywidgets.HTML
        The status strip: counts, and the last thing that happened.
    tabs : ipywidgets.Tab
        "Motion" (the player), "Matrices" (the inspector, refreshed while shown) and
        "Statics" (the statics panel), "Sensitivity" (the sensitivity panel).
    follow : ipywidgets.Checkbox
        Inspect the matrices at the player's frame instead of the initial state.
    """

    model = traitlets.Instance(BarJointModel)
    selection = traitlets.Unicode("")
    presentation = traitlets.Bool(False)

    def __init__(self, model: BarJointModel, *, backend: str = "auto",
                 title: str = "Quivira Studio", t_end: float = 2.0, n_frames: int = 201,
                 workdir: str | WorkFolder | None = None) -> None:
        super().__init__()
        self.model = model
        if isinstance(workdir, WorkFolder):
            self.workdir = workdir
        else:
            self.workdir = WorkFolder() if workdir is None else WorkFolder(path=str(workdir))
        self.view = ModelView(model, backend=backend)
        self.editor = ModelEditor(model, workdir=self.workdir)
        self.player = MotionPlayer(model, self.view, backend=backend, t_end=t_end,
                                   n_frames=n_frames, workdir=self.workdir)
        self.inspector = MatrixInspector(model, backend=backend, active=False)
        # the diagrams are images (no zoom needed): a static figure, redrawn as one PNG
        self.statics = StaticsPanel(model, self.view, backend="static", active=False)
        self.sensitivity = SensitivityPanel(model, backend="static")
        self.presentation_toggle = widgets.ToggleButton(
            value=False, description="presentation", icon="television",
            tooltip="larger fonts for projectors", layout=widgets.Layout(width="auto"))
        self.presentation_toggle.add_class("quivira-presentation-toggle")
        self.header = widgets.HBox(
            [widgets.HTML(f'<span class="quivira-title">{html.escape(title)}</span> '
                          '<span class="quivira-tagline">build a linkage · watch it move · '
                          "look inside its equations</span>",
                          layout=widgets.Layout(flex="1 1 auto")),
             self.presentation_toggle],
            layout=widgets.Layout(align_items="center", flex_flow="row wrap"))
        self.header.add_class("quivira-header")
        self.status = widgets.HTML()
        self.status.add_class("quivira-status")
        self._last = "ready"
        self.follow = widgets.Checkbox(value=False, indent=False,
                                       description="inspect at the player's frame",
                                       layout=widgets.Layout(width="260px"))
        self.tabs = widgets.Tab(children=[self.player, widgets.VBox([self.follow,
                                                                     self.inspector]),
                                          self.statics, self.sensitivity],
                                titles=("Motion", "Matrices M · J · W · λ",
                                        "Statics · N V M", "Sensitivity"), selected_index=0)
        self.editor.layout = widgets.Layout(flex="0 1 372px", min_width="320px",
                                            max_width="100%")
        self.editor.summary.layout.display = "none"  # the status strip shows the counts
        self.view.layout = widgets.Layout(flex="1 1 440px", min_width="0", max_width="640px",
                                          margin="0 0 0 10px")
        body = widgets.HBox([self.editor, self.view],
                            layout=widgets.Layout(align_items="flex-start", flex_flow="row wrap",
                                                  width="100%"))
        self.children = [style_widget(), self.header, self.status, body, self.tabs]
        self.add_class("quivira-studio")
        self.add_class("quivira-root")
        self.layout.max_width = "100%"
        self._links = [
            traitlets.link((self, "selection"), (self.player, "selection")),
            traitlets.link((self, "selection"), (self.inspector, "selection")),
            traitlets.link((self, "selection"), (self.view, "selection")),
            traitlets.link((self, "presentation"), (self.presentation_toggle, "value")),
            traitlets.dlink((self.view, "limits"), (self.editor, "center"), _centre),
        ]
        for panel in (self.view, self.player, self.inspector):
            self._links.append(traitlets.dlink(
                (self, "presentation"), (panel, "font_scale"),
                lambda on: PRESENTATION_SCALE if on else 1.0))
        self.editor.center = _centre(self.view.limits)
        self.observe(self._on_presentation, names="presentation")
        self.tabs.observe(self._on_tab, names="selected_index")
        self.follow.observe(lambda _: self._on_follow(), names="value")
        self.player.observe(self._on_frame, names="frame")
        self.player.status.observe(self._on_player_status, names="text")
        self.model.observe(self._on_model_change)
        self._update_status()

    # ------------------------------------------------------------------ status
    def _update_status(self) -> None:
        kind = self.player.status.kind if self._last == self.player.status.text else "info"
        self.status.value = (
            '<div class="quivira-status-strip">'
            f'<b class="quivira-status-counts">{html.escape(counts_line(self.model))}</b>'
            f' &nbsp;—&nbsp; <span class="quivira-status-last quivira-msg-{kind or "info"}">'
            f"{html.escape(self._last)}</span></div>")

    def _on_model_change(self, what: str) -> None:
        if self.player.run_revision == self.model.revision and self.player.status.text:
            # the player has already re-simulated (or failed on) this edit: keep its report
            self._last = self.player.status.text
        else:
            self._last = f"model changed: {what}"
        self._update_status()

    def _on_player_status(self, change) -> None:
        kind = self.player.status.kind
        if kind in ("ok", "warning", "error") or self._last.startswith("model changed"):
            self._last = change["new"]
            self._update_status()

    def _on_presentation(self, change) -> None:
        if change["new"]:
            self.add_class("quivira-presentation")
        else:
            self.remove_class("quivira-presentation")

    # ------------------------------------------------------------------ tabs, follow
    def _on_tab(self, change) -> None:
        self.inspector.active = change["new"] == 1
        self.statics.active = change["new"] == 2

    def _on_follow(self) -> None:
        if self.follow.value and self.player.trajectory is not None:
            self._on_frame(None)
        elif not self.follow.value:
            self.inspector.set_state(None)

    def _on_frame(self, change) -> None:
        tr = self.player.trajectory
        if not self.follow.value or tr is None:
            return
        k = int(min(max(self.player.frame, 0), tr.n_points - 1))
        self.inspector.set_state(tr.states[k], f"frame {k}, t = {tr.t[k]:.3f} s")

    # ------------------------------------------------------------------ life cycle
    def set_model(self, model: BarJointModel) -> None:
        """Work on another model object in every panel.

        To load a file into the same object, use ``model.replace_with``, which the editor's
        Load does.
        """
        if model is self.model:
            return
        self.model.unobserve(self._on_model_change)
        self.model = model
        self.view.set_model(model)
        self.editor.set_model(model)
        self.player.set_model(model)
        self.inspector.set_model(model)
        self.statics.set_model(model)
        self.sensitivity.set_model(model)
        model.observe(self._on_model_change)
        self._last = "model loaded"
        self._update_status()

    def close(self) -> None:
        """Close every panel and release their figures."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self.model.unobserve(self._on_model_change)
        for link in self._links:
            link.unlink()
        self._links = []
        for panel in (self.sensitivity, self.statics, self.player, self.inspector, self.editor,
                      self.view):
            panel.close()
        close_tree(self)
        super().close()

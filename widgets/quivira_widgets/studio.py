"""`Studio`: the editor, the live view, the motion player and the matrix inspector together.

Layout: a title and a status line; the editor (sections in an accordion) beside the view;
below, tabs for the motion (player and its time plots) and the matrices (inspector). All
panels share one model and one view: the player animates the view, the inspector follows
the player's frame when asked. Nothing is global: two studios in one notebook are
independent.
"""

from __future__ import annotations

import html

import ipywidgets as widgets

from quivira import BarJointModel

from ._modelinfo import counts_line
from ._widgets import close_tree
from .editor import ModelEditor
from .inspector import MatrixInspector
from .player import MotionPlayer
from .view import ModelView

_HEADER = """
<div style="display:flex;align-items:baseline;gap:12px;border-bottom:2px solid #1f5fa8;
            padding-bottom:4px;margin-bottom:2px">
  <span style="font-size:1.45em;font-weight:600;color:#0d2f57">{title}</span>
  <span style="color:#607d8b">build a linkage · watch it move · look inside its equations</span>
</div>
"""


class Studio(widgets.VBox):
    """Editor, view, player and inspector of one model, composed.

    Parameters
    ----------
    model : quivira.bar_joint_model
        The model (shared by all panels).
    backend : {"auto", "ipympl", "static"}
        How figures are shown (ipympl's canvas widget when available, else PNG images).
    title : str
        Shown at the top.
    t_end : float
        Simulated time span of the player.
    n_frames : int
        Number of frames of the player.

    Attributes
    ----------
    editor : ModelEditor
    view : ModelView
    player : MotionPlayer
    inspector : MatrixInspector
    status : ipywidgets.HTML
        The status line: counts, and the last thing that happened.
    tabs : ipywidgets.Tab
        "Motion" (the player) and "Matrices" (the inspector, refreshed while shown).
    follow : ipywidgets.Checkbox
        Inspect the matrices at the player's frame instead of the initial state.
    """

    def __init__(self, model: BarJointModel, *, backend: str = "auto",
                 title: str = "Quivira Studio", t_end: float = 2.0,
                 n_frames: int = 201) -> None:
        super().__init__()
        self.model = model
        self.view = ModelView(model, backend=backend)
        self.editor = ModelEditor(model)
        self.player = MotionPlayer(model, self.view, backend=backend, t_end=t_end,
                                   n_frames=n_frames)
        self.inspector = MatrixInspector(model, backend=backend, active=False)
        self.header = widgets.HTML(_HEADER.format(title=html.escape(title)))
        self.status = widgets.HTML()
        self.status.add_class("quivira-status")
        self._last = "ready"
        self.follow = widgets.Checkbox(value=False, indent=False,
                                       description="inspect at the player's frame",
                                       layout=widgets.Layout(width="260px"))
        self.tabs = widgets.Tab(children=[self.player, widgets.VBox([self.follow,
                                                                     self.inspector])],
                                titles=("Motion", "Matrices M · J · W · λ"), selected_index=0)
        self.editor.layout = widgets.Layout(width="410px", min_width="360px")
        self.editor.summary.layout.display = "none"  # the status line shows the counts
        self.view.layout.margin = "0 0 0 12px"
        body = widgets.HBox([self.editor, self.view],
                            layout=widgets.Layout(align_items="flex-start", flex_flow="row wrap"))
        self.children = [self.header, self.status, body, self.tabs]
        self.add_class("quivira-studio")
        self.tabs.observe(self._on_tab, names="selected_index")
        self.follow.observe(lambda _: self._on_follow(), names="value")
        self.player.on_simulated(self._on_simulated)
        self.player.on_frame(self._on_frame)
        self.model.observe(self._on_model_change)
        self._update_status()

    # ------------------------------------------------------------------ status
    def _update_status(self) -> None:
        self.status.value = (
            f'<div style="background:#f3f6f9;border-radius:4px;padding:3px 8px;color:#37474f">'
            f'<b class="quivira-status-counts">{html.escape(counts_line(self.model))}</b>'
            f' &nbsp;—&nbsp; <span class="quivira-status-last">{html.escape(self._last)}'
            "</span></div>")

    def _on_model_change(self, what: str) -> None:
        if getattr(self, "_sim_revision", None) == self.model.revision:
            # the player has already re-simulated this edit: keep its report
            self._last += f" after {what}"
        else:
            self._last = f"model changed: {what}"
        self._update_status()

    def _on_simulated(self, traj) -> None:
        info = self.player.run_info
        self._last = (f"simulated {traj.t[-1]:.3g} s in {info.get('total_s', 0):.2f} s"
                      + (" (compiled code reused)" if info.get("reused") else ""))
        self._sim_revision = self.model.revision
        self._update_status()

    # ------------------------------------------------------------------ tabs, follow
    def _on_tab(self, change) -> None:
        self.inspector.active = change["new"] == 1

    def _on_follow(self) -> None:
        if self.follow.value and self.player.trajectory is not None:
            self._on_frame(self.player.frame, None, None)
        elif not self.follow.value:
            self.inspector.set_state(None)

    def _on_frame(self, k: int, t, state) -> None:
        if not self.follow.value or self.player.trajectory is None:
            return
        tr = self.player.trajectory
        self.inspector.set_state(state if state is not None else tr.states[k],
                                 f"frame {k}, t = {tr.t[k]:.3f} s")

    # ------------------------------------------------------------------ life cycle
    def set_model(self, model: BarJointModel) -> None:
        """Work on another model (e.g. one loaded from a file) in every panel."""
        if model is self.model:
            return
        self.model.unobserve(self._on_model_change)
        self.model = model
        self.view.set_model(model)
        self.editor.set_model(model)
        self.player.set_model(model)
        self.inspector.set_model(model)
        model.observe(self._on_model_change)
        self._last = "model loaded"
        self._update_status()

    def close(self) -> None:
        """Close every panel and release their figures."""
        self.model.unobserve(self._on_model_change)
        for panel in (self.player, self.inspector, self.editor, self.view):
            panel.close()
        close_tree(self)
        super().close()

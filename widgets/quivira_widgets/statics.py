r"""`StaticsPanel`: the equilibrium of the model, member forces, and N/V/M diagrams of a bar.

* **Equilibrium** runs ``model.equilibrium()`` (Newton on :math:`f(q) + J^T\lambda = 0`,
  :math:`F(q) = 0`, from the initial pose): the view shows the equilibrium pose (its bars
  coloured by their axial force when *colour bars by N* is on), and a table lists the
  verdict (stable, unstable, neutral or rigid, with the smallest eigenvalue of the reduced
  Hessian and the degrees of freedom), the axial force N of every bar (N, tension positive)
  and every reaction (Fx, Fy in N, the force on the bar). When there is no equilibrium near
  the initial pose (``EquilibriumError``) the message says so and why; the model is never
  changed.
* **colour bars by N**: the view colours the bars by their axial force at the state it draws
  (tension red, compression blue; from ``model.internal_forces`` along the motion at the
  frame played).
* **N · V · M**: the axial force N [N], shear force V [N] and bending moment M [N m] along
  the chosen bar, against the position x [m] from its centre (bar frame, tension positive,
  dM/dx = V), at the state the view draws: the equilibrium, the frame of the motion, or the
  initial state (``model.internal_forces``).
"""

from __future__ import annotations

import html

import ipywidgets as widgets
import numpy as np
import traitlets

from quivira import BarJointModel

from ._figure import FigurePane
from ._guard import report
from ._kinsweep import KinematicSweepBox
from ._messages import Message
from ._modelinfo import n_bodies
from ._theme import style_widget
from ._widgets import close_tree
from .view import COMPRESSION_COLOR, TENSION_COLOR, ModelView

_COLOURS = {"N": "#6a1b9a", "V": "#00838f", "M": "#ef6c00"}
_LABELS = {"N": "N [N]", "V": "V [N]", "M": "M [N m]"}


class StaticsPanel(widgets.VBox):
    """Equilibrium, member forces and internal-force diagrams (module docstring).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model.
    view : ModelView
        The view that shows the equilibrium pose and colours the bars.
    backend : {"auto", "ipympl", "static"}
        How the diagram figure is shown.

    Attributes
    ----------
    equilibrium_button : ipywidgets.Button
        Compute the equilibrium and show it.
    colour_toggle : ipywidgets.ToggleButton
        Colour the view's bars by axial force (linked to ``view.color_by_axial``).
    diagram_bar : ipywidgets.Dropdown
        The bar of the N/V/M diagrams.
    result : EquilibriumResult or None
        The last ``model.equilibrium()`` found (None: none, or the model changed since).
    table : ipywidgets.HTML
        Verdict, member forces and reactions of :attr:`result`.
    message : Message
        What happened (an error when there is no equilibrium).
    figure, axes, lines : the diagram figure, its axes and lines by ``"N"``, ``"V"``, ``"M"``
        (the data plotted: ``lines["N"].get_xydata()``).
    diagram : dict or None
        ``{"bar", "where", "x", "N", "V", "M"}`` of the diagrams drawn.
    active : bool
        Update the diagrams with the view's frame (a trait; the Studio sets it while its tab
        is shown).
    """

    active = traitlets.Bool(True)

    def __init__(self, model: BarJointModel, view: ModelView, *, backend: str = "auto",
                 figsize: tuple[float, float] = (6.2, 4.2), dpi: float = 100,
                 active: bool = True) -> None:
        super().__init__()
        self.active = active
        self.model = model
        self.view = view
        self.result = None
        self._shown_revision = -1
        self._forces_memo: tuple | None = None
        self.diagram: dict | None = None
        self.message = Message()
        self.equilibrium_button = widgets.Button(
            description="Equilibrium", icon="balance-scale",
            tooltip="find the static equilibrium near the initial pose and show it",
            layout=widgets.Layout(width="auto"))
        self.colour_toggle = widgets.ToggleButton(
            value=bool(view.color_by_axial), description="colour bars by N", icon="tint",
            tooltip="colour the bars by their axial force: tension red, compression blue",
            layout=widgets.Layout(width="auto"))
        self.diagram_bar = widgets.Dropdown(options=[], description="N · V · M of",
                                            layout=widgets.Layout(width="220px"),
                                            style={"description_width": "initial"})
        self.table = widgets.HTML("")
        #: drive an angle through a turn and plot a bar point's path (dead centres marked)
        self.kinematics = KinematicSweepBox(model, backend=backend)
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self.axes = {}
        self.lines = {}
        ax = None
        for k, key in enumerate(("N", "V", "M")):
            ax = self.figure.add_subplot(3, 1, k + 1, sharex=ax)
            ax.axhline(0.0, color="#90a4ae", lw=0.8)
            ax.set_ylabel(_LABELS[key], fontsize=8.5)
            ax.tick_params(labelsize=8)
            ax.grid(True, color="#e3e8ee", lw=0.8)
            self.lines[key] = ax.plot([], [], color=_COLOURS[key], lw=1.8)[0]
            self.axes[key] = ax
        self.axes["M"].set_xlabel("x [m] along the bar, from its centre", fontsize=8.5)
        self.figure.subplots_adjust(left=0.14, right=0.97, top=0.92, bottom=0.12, hspace=0.25)
        self._title = self.figure.suptitle("", fontsize=9)
        self._link = traitlets.link((self.colour_toggle, "value"), (view, "color_by_axial"))
        self.equilibrium_button.on_click(self._guarded(lambda _: self.find_equilibrium()))
        self.diagram_bar.observe(self._guarded(lambda _: self.update_diagram()), names="value")
        view.observe(self._guarded(self._on_view), names=["frame", "trajectory"])
        self.observe(self._guarded(lambda _: self.update_diagram()), names="active")
        model.observe(self._on_model_change)
        legend = (f'<span class="quivira-hint">bars: <b style="color:{TENSION_COLOR}">'
                  f'tension</b> · <b style="color:{COMPRESSION_COLOR}">compression</b></span>')
        self.children = [style_widget(),
                         widgets.HBox([self.equilibrium_button, self.colour_toggle,
                                       widgets.HTML(legend)],
                                      layout=widgets.Layout(flex_flow="row wrap",
                                                            align_items="center")),
                         self.message.widget, self.table, self.diagram_bar, self.pane.widget,
                         widgets.HTML("<b>Kinematic sweep</b>"), self.kinematics]
        self.add_class("quivira-statics")
        self.add_class("quivira-root")
        self._refresh_bars()
        self._guarded(self.update_diagram)()

    def _guarded(self, fn):
        def run(*args):
            try:
                return fn(*args)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.message.error, f"StaticsPanel.{fn.__name__}")
                return None
        return run

    # ------------------------------------------------------------------ equilibrium
    def find_equilibrium(self):
        """Compute ``model.equilibrium()`` and show the pose in the view and the table.

        Returns the result (None, with an error message, when there is none).
        """
        try:
            res = self.model.equilibrium()
        except ValueError as exc:  # EquilibriumError (a ValueError) or a refused model
            self.result = None
            self.table.value = ""
            lead = ("no equilibrium near the initial pose" if type(exc).__name__ ==
                    "EquilibriumError" else "cannot compute the equilibrium")
            self.message.error(f"{lead}: {exc}")
            self.update_diagram()
            return None
        self.result = res
        self._shown_revision = self.model.revision
        axial = np.full(n_bodies(self.model), np.nan)
        axial[:len(res.axial_force)] = res.axial_force
        self.view.show_state(res.q, note=f"equilibrium pose ({res.stability})", axial=axial)
        self.table.value = self._table_html(res)
        ev = res.eigenvalues
        smallest = f", smallest eigenvalue {ev[0]:.4g}" if len(ev) else ""
        self.message.ok(f"equilibrium found in {res.iterations} iterations: {res.stability}"
                        f" ({res.dof} degree{'s' if res.dof != 1 else ''} of freedom"
                        f"{smallest})")
        self.update_diagram()
        return res

    def _table_html(self, res) -> str:
        esc = html.escape
        kinds = [getattr(b, "body_kind", "bar") for b in self.model.bodies]
        forces = [r.force[0] for r in res.reactions]
        # round-off (1e-9 of the largest force) is shown as 0, with no tension/compression
        values = [abs(float(v)) for v in res.axial_force]
        values += [abs(float(v)) for f in forces for v in f]
        scale = max(values, default=0.0)
        tiny = 1e-9 * scale

        def fmt(v: float) -> str:
            return "0" if abs(v) <= tiny else f"{v:.4g}"

        rows = []
        for i, N in enumerate(res.axial_force):
            if i >= len(kinds) or kinds[i] != "bar":
                continue
            what = "tension" if N > tiny else "compression" if N < -tiny else "—"
            colour = (TENSION_COLOR if N > tiny else COMPRESSION_COLOR if N < -tiny
                      else "inherit")
            rows.append(f"<tr><td>bar {i}</td><td style='text-align:right;color:{colour}'>"
                        f"{fmt(N)}</td><td>{what}</td></tr>")
        reac = [f"<tr><td>{esc(r.label)}</td><td style='text-align:right'>{fmt(f[0])}"
                f"</td><td style='text-align:right'>{fmt(f[1])}</td></tr>"
                for r, f in zip(res.reactions, forces)]
        verdict = {"stable": "stable", "unstable": "unstable", "neutral": "neutral (an "
                   "eigenvalue ≈ 0)", "rigid": "rigid (no degree of freedom)"}.get(
                       res.stability, res.stability)
        ev = ", ".join(f"{v:.4g}" for v in res.eigenvalues[:4])
        redundant = (f"<br>redundant rows (statically indeterminate): "
                     f"{esc(', '.join(res.redundant))}" if res.redundant else "")
        return ("<div class='quivira-statics-table' style='font-size:12px'>"
                f"<b>verdict:</b> {verdict} · {res.dof} DOF"
                + (f" · eigenvalues of the reduced Hessian: {ev}" if ev else "") + redundant
                + "<table style='border-collapse:collapse;margin-top:4px'>"
                "<tr><th style='text-align:left'>member</th><th>N [N]</th><th></th></tr>"
                + "".join(rows)
                + "</table><table style='border-collapse:collapse;margin-top:4px'>"
                "<tr><th style='text-align:left'>reaction (on the bar)</th><th>Fx [N]</th>"
                "<th>Fy [N]</th></tr>" + "".join(reac) + "</table></div>")

    # ------------------------------------------------------------------ diagrams
    def _refresh_bars(self) -> None:
        bars = [i for i, b in enumerate(self.model.bodies)
                if getattr(b, "body_kind", "bar") == "bar"]
        opts = [(f"bar {i}", i) for i in bars]
        if list(self.diagram_bar.options) != opts:
            keep = self.diagram_bar.value
            self.diagram_bar.options = opts
            self.diagram_bar.value = keep if keep in bars else (bars[0] if bars else None)

    def _source(self):
        """``(source, frame, where)`` of the state the view draws now."""
        v = self.view
        if (self.result is not None and v.source == "state" and v.time is None
                and v.note and v.note.startswith("equilibrium")):
            return self.result, 0, "equilibrium"
        tr = v.trajectory
        if v.source == "state" and v.time is not None and tr is not None:
            k = int(np.argmin(np.abs(tr.t - v.time)))
            return tr, k, f"t = {tr.t[k]:.3f} s"
        return None, 0, "initial state"

    def update_diagram(self) -> None:
        """Plot N, V, M of the chosen bar at the state the view draws."""
        b = self.diagram_bar.value
        if not self.active:
            return
        if b is None:
            self.diagram = None
            for line in self.lines.values():
                line.set_data([], [])
            self._title.set_text("no bar to draw")
            self._redraw()
            return
        src, k, where = self._source()
        key = (self.model.revision, b)
        try:
            # the cache keeps its source object: compared by identity (an id() could be
            # reused by a new object once the old one is gone)
            c = self._forces_memo
            if c is None or c[0] is not src or c[1] != key:
                self._forces_memo = (src, key, self.model.internal_forces(src, bars=[b]))
            d = self._forces_memo[2].bar(b, k)
        except (ValueError, TypeError, RuntimeError) as exc:  # shown on the figure
            self.diagram = None
            for line in self.lines.values():
                line.set_data([], [])
            self._title.set_text(f"no diagram: {exc}"[:110])
            self._redraw()
            return
        self.diagram = {"bar": b, "where": where, "x": d.x, "N": d.N, "V": d.V, "M": d.M}
        # round-off beside large values is not magnified: each axis spans at least 4 % of the
        # largest |N|, |V|, |M| drawn
        scale = max(float(np.max(np.abs(getattr(d, k_)))) for k_ in ("N", "V", "M"))
        for key_, ax in self.axes.items():
            y = getattr(d, key_)
            self.lines[key_].set_data(d.x, y)
            lo, hi = float(np.min(y)), float(np.max(y))
            pad = max(0.1 * max(hi - lo, abs(hi), abs(lo)), 0.02 * scale, 1e-9)
            ax.set_ylim(min(lo, 0.0) - pad, max(hi, 0.0) + pad)
        self.axes["M"].set_xlim(float(d.x[0]), float(d.x[-1]))
        self._title.set_text(f"bar {b} · {where}")
        self._redraw()

    def _redraw(self) -> None:
        self.pane.redraw()

    def _on_view(self, change) -> None:
        self.update_diagram()

    # ------------------------------------------------------------------ model life cycle
    def _on_model_change(self, what: str) -> None:
        try:
            if self.result is not None and self.model.revision != self._shown_revision:
                self.result = None
                self.table.value = ""
                self.message.info("the model changed: press Equilibrium again")
            self._forces_memo = None
            self._refresh_bars()
            self.kinematics.refresh_options()
            self.update_diagram()
        except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
            report(exc, self.message.error, "StaticsPanel.refresh")

    def set_model(self, model: BarJointModel) -> None:
        """Work on another model."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        self.result = None
        self.table.value = ""
        self._forces_memo = None
        model.observe(self._on_model_change)
        self.kinematics.set_model(model)
        self._refresh_bars()
        self._guarded(self.update_diagram)()

    def close(self) -> None:
        """Stop observing and release the figure."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self.model.unobserve(self._on_model_change)
        self._link.unlink()
        self.kinematics.close()
        self.pane.close()
        close_tree(self)
        super().close()

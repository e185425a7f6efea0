"""`MatrixInspector`: M, J, W and λ at a state, their structure, rank and conditioning.

At a state ``(q, q̇)`` the model gives (``model.matrices(state)``) the mass matrix ``M``, the
constraint Jacobian ``J = ∂F/∂q``, the Delassus matrix ``W = J M⁻¹ Jᵀ`` and the multipliers
``λ`` solving ``W λ = −(J q̈_a + J̇ q̇)``. The inspector draws them as heatmaps: grey cells are
structural zeros (absent from the symbolic equations), coloured cells the values (red
positive, blue negative). It reports the rank of ``J``, the degrees of freedom
``n − rank J``, the eigenvalues and condition number of the symmetric ``W`` (a pose is
flagged near-singular when ``cond W > 10⁸`` or ``J`` loses rank, where λ is not determined),
the size of the symbolic system (operations in heyoka's decomposition), and the formula of
a chosen entry. Each heatmap has a colour bar in its units (M in kg and kg·m², J
dimensionless on positions and in m on angles, W in 1/kg, λ in N).

The multipliers are also listed with their labels and values: choosing a row there — or, with
ipympl, clicking or hovering a row of the λ heatmap — sets the ``selection`` trait, which the
Studio links to the player (the curve is highlighted) and the view (the force of that joint or
support is drawn on the linkage).
"""

from __future__ import annotations

import html
from collections.abc import Sequence

import heyoka as hy
import ipywidgets as widgets
import numpy as np
import traitlets
from matplotlib import colormaps
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from quivira import BarJointModel

from ._figure import FigurePane
from ._formula import entry_html
from ._guard import report
from ._messages import Message
from ._theme import style_widget
from ._widgets import release_panel

NEAR_SINGULAR_COND = 1e8
_CMAP = colormaps["RdBu_r"].with_extremes(bad="#e9edf1")
_TICK_LIMIT = 12  # label rows/columns of matrices up to this size
_TITLES = {"M": "M  [kg; kg·m² on θ]", "J": "J = ∂F/∂q  [1; m on θ]",
           "W": "W = J M⁻¹Jᵀ  [1/kg]", "lambda": "λ  [N]"}


class MatrixInspector(widgets.VBox):
    """M, J, W and λ of a model at a state, with rank, conditioning and formulas.

    Parameters
    ----------
    model : quivira.bar_joint_model
        The model (observed: a change refreshes the inspector when it is active).
    backend : {"auto", "ipympl", "static"}
        How the figure is shown.
    active : bool
        Refresh on every model change (False: mark stale and refresh when activated, as
        :class:`~quivira_widgets.Studio` does while the inspector's tab is hidden).

    Attributes
    ----------
    matrices : dict or None
        The last result of ``model.matrices(state)`` (None if it could not be computed).
    cond_W : float
        Condition number of W (inf when singular, nan without constraints).
    eigenvalues_W : numpy.ndarray
        Eigenvalues of W, ascending.
    near_singular : bool
        Whether the pose was flagged near-singular.
    decomposition_size : int or None
        Operations in heyoka's decomposition of the equations of motion.
    images : dict of str to matplotlib.image.AxesImage
        The heatmaps ``"M"``, ``"J"``, ``"W"``, ``"lambda"``.
    info : ipywidgets.HTML
        The numbers above, as text.
    formula : ipywidgets.HTMLMath
        The formula of the chosen entry.
    message : Message
        Why nothing could be computed (e.g. the pose violates the constraints).
    lambda_list : ipywidgets.Select
        The multipliers, one row each: choosing one sets ``selection``.
    selection : str
        The chosen constraint row label (a trait; "" for none).
    colorbars : dict of str to matplotlib.colorbar.Colorbar
        The colour bars of the heatmaps.
    """

    model = traitlets.Instance(BarJointModel)
    selection = traitlets.Unicode("")
    font_scale = traitlets.Float(1.0)

    def __init__(self, model: BarJointModel, *, backend: str = "auto", active: bool = True,
                 figsize: tuple[float, float] = (8.8, 3.3), dpi: float = 100) -> None:
        super().__init__()
        self.model = model
        self._active = bool(active)
        self.stale = True
        self.state: np.ndarray | None = None
        self.state_label = "initial state"
        self.matrices: dict | None = None
        self.cond_W = float("nan")
        self.eigenvalues_W = np.zeros(0)
        self.near_singular = False
        self.decomposition_size: int | None = None
        self._decomp_cache: tuple[tuple, int] | None = None
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self._build_figure()
        self.message = Message()
        self.info = widgets.HTML(layout=widgets.Layout(flex="1 1 360px", min_width="0"))
        self.info.add_class("quivira-inspector-info")
        self.entry_matrix = widgets.ToggleButtons(options=[("M", "M"), ("J", "J"), ("W", "W"),
                                                           ("λ", "lambda")], value="W",
                                                  style={"button_width": "44px"},
                                                  tooltip="matrix of the entry")
        self.entry_row = widgets.Dropdown(description="row", options=[],
                                          style={"description_width": "36px"},
                                          layout=widgets.Layout(width="260px"))
        self.entry_col = widgets.Dropdown(description="column", options=[],
                                          style={"description_width": "50px"},
                                          layout=widgets.Layout(width="200px"))
        self.formula_button = widgets.Button(description="Show formula", icon="superscript",
                                             layout=widgets.Layout(width="auto"))
        self.formula = widgets.HTMLMath(layout=widgets.Layout(max_height="220px",
                                                              overflow="auto"))
        self.refresh_button = widgets.Button(description="Refresh", icon="refresh",
                                             layout=widgets.Layout(width="auto"))
        self.lambda_list = widgets.Select(options=[], rows=6, description="λ rows",
                                          style={"description_width": "52px"},
                                          tooltip="choose a row: its curve is highlighted and "
                                          "its force drawn on the linkage",
                                          layout=widgets.Layout(width="330px"))
        self.lambda_list.add_class("quivira-lambda-list")
        self.entry_matrix.observe(self._guarded(lambda _: self._entry_options()), names="value")
        self.formula_button.on_click(self._guarded(lambda _: self.show_formula()))
        self.refresh_button.on_click(self._guarded(lambda _: self.refresh()))
        self.lambda_list.observe(self._guarded(self._on_list), names="value")
        self.observe(self._guarded(self._on_selection), names="selection")
        self.observe(self._guarded(lambda ch: self.pane.set_font_scale(ch["new"])),
                     names="font_scale")
        self.pane.connect("button_press_event", self._guarded(self._on_mouse))
        self.pane.connect("motion_notify_event", self._guarded(self._on_mouse))
        self.children = [
            style_widget(),
            self.pane.widget,
            widgets.HBox([self.refresh_button, self.message.widget]),
            widgets.HBox([self.info, self.lambda_list],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="flex-start")),
            widgets.HBox([self.entry_matrix, self.entry_row, self.entry_col,
                          self.formula_button], layout=widgets.Layout(flex_flow="row wrap")),
            self.formula,
        ]
        self.add_class("quivira-inspector")
        self.add_class("quivira-root")
        self.model.observe(self._on_model_change)
        if self._active:
            self.refresh()

    # ------------------------------------------------------------------ figure
    def _build_figure(self) -> None:
        fig = self.figure
        gs = fig.add_gridspec(1, 4, width_ratios=[1, 1, 1, 0.3], left=0.045, right=0.975,
                              top=0.86, bottom=0.17, wspace=0.55)
        self.axes = {}
        self.images = {}
        self.colorbars = {}
        for k, name in enumerate(("M", "J", "W", "lambda")):
            ax = fig.add_subplot(gs[0, k])
            im = ax.imshow(np.ma.masked_all((1, 1)), cmap=_CMAP, interpolation="nearest",
                           aspect="auto", vmin=-1, vmax=1)
            ax.tick_params(labelsize=7, length=2)
            ax.set_title(_TITLES[name], fontsize=8.5)
            cb = fig.colorbar(im, ax=ax, fraction=0.08 if name != "lambda" else 0.3,
                              pad=0.03, aspect=25)
            cb.ax.tick_params(labelsize=6.5, length=2)
            self.axes[name] = ax
            self.images[name] = im
            self.colorbars[name] = cb
        self._highlight = Rectangle((-0.5, -0.5), 1.0, 1.0, fill=False, edgecolor="#00897b",
                                    lw=2.5, zorder=5, visible=False)
        self.axes["lambda"].add_patch(self._highlight)

    def _guarded(self, fn):
        def run(*args):
            try:
                return fn(*args)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.message.error, "MatrixInspector")
                return None
        return run

    def _show_matrix(self, name: str, A: np.ndarray, pattern: np.ndarray, title: str,
                     rows: list[str], cols: list[str]) -> None:
        ax, im = self.axes[name], self.images[name]
        r, c = A.shape
        data = np.ma.masked_array(A, mask=~pattern) if A.size else np.ma.masked_all((1, 1))
        if not A.size:  # e.g. no constraints: an empty, greyed-out cell
            r = c = 1
            rows, cols = [], []
        amax = float(np.max(np.abs(A))) if A.size else 1.0
        amax = amax if amax > 0 else 1.0
        im.set_data(data)
        im.set_extent((-0.5, c - 0.5, r - 0.5, -0.5))
        im.set_clim(-amax, amax)
        ax.set_xlim(-0.5, c - 0.5)
        ax.set_ylim(r - 0.5, -0.5)
        ax.set_title(title, fontsize=ax.title.get_fontsize())
        for axis, labels, n in ((ax.xaxis, cols, c), (ax.yaxis, rows, r)):
            if labels and n <= _TICK_LIMIT:
                axis.set_ticks(range(n), labels, fontsize=6 if n > 6 else 7)
            else:
                axis.set_major_locator(MaxNLocator(5, integer=True))
        if name == "lambda":
            ax.set_xticks([])
        ax.tick_params(axis="x", labelrotation=90 if cols and c <= _TICK_LIMIT else 0)

    # ------------------------------------------------------------------ activity
    @property
    def active(self) -> bool:
        """Whether model changes refresh the inspector at once."""
        return self._active

    @active.setter
    def active(self, value: bool) -> None:
        self._active = bool(value)
        if self._active and self.stale:
            self.refresh()

    def set_state(self, state: Sequence[float] | None, label: str | None = None) -> None:
        """Inspect at ``state = [q..., qd...]`` (None: the model's initial state)."""
        self.state = None if state is None else np.asarray(state, dtype=float).copy()
        self.state_label = label or ("initial state" if state is None else "given state")
        self.stale = True
        if self._active:
            self.refresh()

    def _on_model_change(self, what: str) -> None:
        self.state = None
        self.state_label = "initial state"
        self.stale = True
        if self._active:
            try:
                self.refresh()
            except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
                report(exc, self.message.error, "MatrixInspector.refresh")

    # ------------------------------------------------------------------ computing
    def refresh(self) -> None:
        """Compute the matrices at the state and redraw."""
        self.stale = False
        try:
            mats = self.model.matrices(self.state)
            pattern = self.model.sparsity()
        except (TypeError, ValueError, RuntimeError) as exc:
            self.matrices = None
            report(exc, self.message.error, "MatrixInspector.refresh")
            self.info.value = ""
            self._clear()
            self._update_list()
            return
        self.message.clear()
        self.matrices = mats
        key = self.model.topology_key()
        if self._decomp_cache is None or self._decomp_cache[0] != key:
            self._decomp_cache = (key, int(self.model.compiled().decomposition_size))
        self.decomposition_size = self._decomp_cache[1]
        self._draw(mats, pattern)
        self._report(mats)
        self._entry_options()
        self._update_list()

    def _clear(self) -> None:
        for name in self.images:
            z = np.zeros((0, 0))
            self._show_matrix(name, z, z.astype(bool), _TITLES[name], [], [])
        self._show_highlight()
        self.pane.redraw()

    # ------------------------------------------------------------------ selection
    def _update_list(self) -> None:
        mats = self.matrices
        if mats is None:
            options = []
        else:
            lam = np.asarray(mats["lambda_mult"], dtype=float)
            options = [(f"{lb}: λ = {v:.4g} N", lb) for lb, v in zip(mats["labels"], lam)]
        self._list_syncing = True
        try:
            if list(self.lambda_list.options) != options:
                self.lambda_list.options = options
            want = self.selection if self.selection in [v for _, v in options] else None
            if self.lambda_list.value != want:
                self.lambda_list.value = want
        finally:
            self._list_syncing = False

    def _on_list(self, change) -> None:
        if getattr(self, "_list_syncing", False):
            return
        self.selection = change["new"] or ""

    def _on_selection(self, change) -> None:
        self._update_list()
        if self._show_highlight():
            self.pane.redraw()

    def _show_highlight(self) -> bool:
        """Mark the selected row on the λ heatmap; True when the mark changed."""
        mats = self.matrices
        labels = [] if mats is None else list(mats["labels"])
        rect = self._highlight
        before = (rect.get_visible(), rect.get_y())
        if self.selection in labels:
            rect.set_y(labels.index(self.selection) - 0.5)
            rect.set_visible(True)
        else:
            rect.set_visible(False)
        return before != (rect.get_visible(), rect.get_y())

    def _on_mouse(self, event) -> None:
        """With ipympl: a click or hover on a row of the λ heatmap selects that row."""
        mats = self.matrices
        if mats is None or event.inaxes is not self.axes["lambda"] or event.ydata is None:
            return
        if event.name == "motion_notify_event" and event.button is not None:
            return  # a drag, not a hover
        r = int(round(float(event.ydata)))
        labels = list(mats["labels"])
        if 0 <= r < len(labels) and self.selection != labels[r]:
            self.selection = labels[r]

    def _draw(self, mats, pattern) -> None:
        M, J, W, lam = mats["M"], mats["J"], mats["W"], mats["lambda_mult"]
        n, m = M.shape[0], J.shape[0]
        pM, pJ, pW = pattern.M, pattern.J, pattern.W | (W != 0)
        coords = _coordinate_names(self.model, n)
        labels = [_short(lb) for lb in mats["labels"]]
        self._show_matrix("M", M, pM, f"{_TITLES['M']}\n{n}×{n}, {int(pM.sum())} non-zero",
                          coords, coords)
        self._show_matrix("J", J, pJ, f"{_TITLES['J']}\n{m}×{n}, {int(pJ.sum())} non-zero",
                          labels, coords)
        self._show_matrix("W", W, pW, f"{_TITLES['W']}\n{m}×{m}, {int(pW.sum())} non-zero",
                          labels, labels)
        lam2 = np.asarray(lam, dtype=float).reshape(-1, 1)
        self._show_matrix("lambda", lam2, np.ones_like(lam2, dtype=bool), f"{_TITLES['lambda']}"
                          "\nat this state", labels, [])
        self._show_highlight()
        self.pane.redraw()

    def _report(self, mats: dict) -> None:
        W, J = mats["W"], mats["J"]
        m, n = J.shape
        rank = int(mats["rank_J"])
        if m:
            ev = np.linalg.eigvalsh(0.5 * (W + W.T))
            lo, hi = float(ev[0]), float(ev[-1])
            cond = float("inf") if lo <= hi * 1e-300 else hi / lo
        else:
            ev, cond = np.zeros(0), float("nan")
        self.eigenvalues_W = ev
        self.cond_W = cond
        sing = float(mats.get("singularity", 1.0))
        self.near_singular = bool(m and (rank < m or not cond <= NEAR_SINGULAR_COND))
        rows = [
            ("state", html.escape(self.state_label)),
            ("J", f"{m} constraint rows × {n} coordinates, rank {rank}"
                  + (" (full)" if rank == m else f" — <b>{m - rank} dependent rows</b>")),
            ("degrees of freedom", f"n − rank J = {n} − {rank} = <b>{mats['dof']}</b>"),
        ]
        if m:
            shown = ", ".join(f"{v:.4g}" for v in ev) if len(ev) <= 10 else (
                f"{ev[0]:.4g}, {ev[1]:.4g}, …, {ev[-1]:.4g}  ({len(ev)} values)")
            rows.append(("eigenvalues of W", shown))
            rows.append(("condition number of W", f"{cond:.4g}"))
            rows.append(("how well λ is determined", f"{sing:.3g} (1: well; near 0: near a "
                         "dead point, where the constraints lock)"))
            lam = np.asarray(mats["lambda_mult"], dtype=float)
            if len(lam) <= 12:
                rows.append(("multipliers λ", ", ".join(
                    f"{html.escape(_short(lb))} = {v:.4g} N"
                    for lb, v in zip(mats["labels"], lam))))
            else:
                rows.append(("multipliers λ",
                             f"{len(lam)} values, |λ| ≤ {np.max(np.abs(lam)):.4g} N"))
        if self.decomposition_size is not None:
            rows.append(("symbolic equations", f"{self.decomposition_size} operations "
                                               "(heyoka decomposition)"))
        table = "".join(f"<tr><td class='quivira-key'>{k}</td><td>{v}</td></tr>"
                        for k, v in rows)
        flag = ""
        if self.near_singular:
            flag = ("<div class='quivira-singular quivira-msg-error' style='font-weight:bold'>"
                    "⚠ near-singular pose: W is (nearly) singular, the constraints are "
                    "(nearly) dependent here and λ is not well determined</div>")
        self.info.value = flag + f"<table class='quivira-facts' style='font-size:0.9em'>" \
                                 f"{table}</table>"

    # ------------------------------------------------------------------ formulas
    def _entry_options(self) -> None:
        mats = self.matrices
        if mats is None:
            self.entry_row.options, self.entry_col.options = [], []
            return
        n = mats["M"].shape[0]
        labels = mats["labels"]
        coords = _coordinate_names(self.model, n)
        which = self.entry_matrix.value
        rows = {"M": coords, "J": labels, "W": labels, "lambda": labels}[which]
        cols = {"M": coords, "J": coords, "W": labels, "lambda": []}[which]
        row_opts = [(f"{k}: {lb}", k) for k, lb in enumerate(rows)]
        col_opts = [(f"{k}: {lb}", k) for k, lb in enumerate(cols)]
        if list(self.entry_row.options) != row_opts:
            self.entry_row.options = row_opts
        if list(self.entry_col.options) != col_opts:
            self.entry_col.options = col_opts
        self.entry_col.disabled = which == "lambda"

    def entry_expression(self, which: str, row: int,
                         col: int | None = None) -> hy.expression | float:
        """Return the symbolic entry (heyoka expression, or 0.0 for a structural zero).

        Written with the model's own parameters only (the compiled code's derived parameters
        expanded).
        """
        return self.model.symbolic_entry(which, row, None if which == "lambda" else col)

    def show_formula(self) -> str:
        """Show the formula of the entry chosen in the controls and return its kind.

        ``"latex"``, or ``"text"`` when SymPy is missing or the expression is too long.
        """
        which, row, col = self.entry_matrix.value, self.entry_row.value, self.entry_col.value
        if row is None or (which != "lambda" and col is None):
            self.formula.value = "<i>choose an entry</i>"
            return "none"
        try:
            expr = self.entry_expression(which, row, col)
        except ValueError as exc:
            self.message.error(str(exc))
            return "none"
        sym = {"M": "M", "J": "J", "W": "W", "lambda": "\\lambda"}[which]
        name = f"{sym}_{{{row}}}" if which == "lambda" else f"{sym}_{{{row},{col}}}"
        kind, text = entry_html(expr, self.model, name)
        value = ""
        if self.matrices is not None:
            mat = {"M": self.matrices["M"], "J": self.matrices["J"], "W": self.matrices["W"],
                   "lambda": self.matrices["lambda_mult"].reshape(-1, 1)}[which]
            v = mat[row, 0 if which == "lambda" else col]
            value = f"<div style='color:#546e7a'>value at the {html.escape(self.state_label)}: " \
                    f"{v:.6g}</div>"
        self.formula.value = text + value
        self.formula_kind = kind
        return kind

    # ------------------------------------------------------------------ life cycle
    def set_model(self, model: BarJointModel) -> None:
        """Inspect another model from now on."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        model.observe(self._on_model_change)
        self._on_model_change("model replaced")

    def close(self) -> None:
        """Stop observing the model and release the figure."""
        if release_panel(self):
            super().close()


def _coordinate_names(model, n: int) -> list[str]:
    """Names of the ``n`` coordinates: ``x0, y0, θ0, ...`` (no θ for a particle)."""
    kinds = [getattr(b, "body_kind", "bar") for b in model.bodies]
    names = [f"{c}{i}" for i, k in enumerate(kinds)
             for c in (("x", "y") if k == "particle" else ("x", "y", "θ"))]
    if len(names) != n:  # the model changed since the matrices were computed
        names = [f"q{k}" for k in range(n)]
    return names


def _short(label: str) -> str:
    """``"joint 2 · bar 3 · x"`` → ``"j2·b3·x"``."""
    out = label
    for long, short in (("joint ", "j"), ("support ", "s"), ("bar ", "b"), (" · ", "·")):
        out = out.replace(long, short)
    return out

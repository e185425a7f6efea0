r"""`SensitivityPanel`: how much an output of the motion changes with each parameter.

The user picks an **output** — a coordinate or a velocity at :math:`t_\text{end}`, a
multiplier row at :math:`t_\text{end}` or its peak :math:`\max_t |λ(t)|`, an energy at
:math:`t_\text{end}` — a time span and the **parameters** to vary (by default every runtime
parameter that ``model.sensitivities`` accepts: g, bar masses and lengths, element parameters,
named parameters; initial-state entries can be added), and presses *Compute*. The panel runs
``model.sensitivities(t_end, wrt, order=1)`` (heyoka's variational equations, integrated with
the motion) and draws a horizontal bar chart of the first derivatives
:math:`∂y/∂p_j`, largest on top (red: the output grows with the parameter, blue: it shrinks):

* **∂y/∂p** — the derivatives themselves, in [unit of y / unit of p] (each tick label gives
  the parameter's unit);
* **∂y/∂p · p** — scaled by the parameter's value: the change of y per relative change of p
  (a bar of 0.3 m: 1 % more p gives 3 mm more y), in the unit of y, comparable across
  parameters (a parameter at 0 gets no bar);
* **∂y/∂p · tol · p** — the change of y when p moves by its tolerance, a percentage of its
  value (the first-order effect of that tolerance).

For the peak of a multiplier the derivative is taken at the output time of the peak
(:math:`∂|λ(t_k)|/∂p = \operatorname{sign}λ(t_k)\,∂λ(t_k)/∂p`), which is the derivative of the
peak over the output grid while the peak stays at that time. The model is never changed; a
model the sensitivities refuse (a start off the constraints, no bars), an
empty selection or an unusable time span is reported in the message line.
"""

from __future__ import annotations

import html
import math
import re
import time

import ipywidgets as widgets
import numpy as np

from quivira import BarJointModel
from quivira.sensitivity import variable_names

from ._fields import NumberField, NumberSpec
from ._figure import FigurePane
from ._guard import report
from ._messages import Message
from ._modelinfo import n_bodies
from ._theme import style_widget
from ._widgets import release_panel

#: output kinds: (label, key)
OUTPUT_KINDS = (("coordinate at t_end", "coordinate"), ("velocity at t_end", "velocity"),
                ("multiplier λ at t_end", "lambda"), ("peak |λ| over [0, t_end]", "peak"),
                ("energy at t_end", "energy"))
#: scalings of the bars: (label, key)
SCALINGS = (("∂y/∂p", "raw"), ("∂y/∂p · p (relative)", "relative"),
            ("∂y/∂p · tol · p (tolerance)", "tolerance"))
#: output times of a run (the peak of a multiplier is taken over them)
N_POINTS = 201
#: most bars drawn (the largest by size)
MAX_BARS = 24
_POS = "#c62828"
_NEG = "#1565c0"

T_END = NumberSpec("t_end", "s", positive=True, hi=100.0, warn_hi=20.0,
                   warn_above="a long span: the variational equations may take a while",
                   why="the sensitivities integrate the motion and its derivatives together")
TOLERANCE = NumberSpec("tol", "%", positive=True, hi=100.0,
                       expected="a positive percentage up to 100")

_ENERGY = ("kinetic", "potential", "total")
_STATE = re.compile(r"(x|y|th|vx|vy|om)(\d+)")
_STATE_UNITS = {"x": "m", "y": "m", "th": "rad", "vx": "m/s", "vy": "m/s", "om": "rad/s"}


def parameter_unit(model: BarJointModel, name: str) -> str:
    """Return the unit of a differentiation variable of ``model`` ("" when unknown).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model whose variable it is.
    name : str
        A name of ``quivira.sensitivity.variable_names(model)``.

    Returns
    -------
    str
        E.g. ``"m/s²"`` for ``"g"``, ``"N·m/rad"`` for a torsional spring's ``k``: the unit
        its declaration gives (``model.parameters()``).
    """
    return next((n.unit for n in model.parameters() if n.name == name), "")


def output_unit(kind: str, name: str) -> str:
    """Return the unit of an output (``kind`` among the keys of :data:`OUTPUT_KINDS`)."""
    if kind in ("coordinate", "velocity"):
        m = _STATE.fullmatch(name)
        return _STATE_UNITS[m.group(1)] if m else ""
    if kind == "energy":
        return "J"
    return "N" if name.endswith((".x", ".y", " · x", " · y")) else "N or N·m"


def _per(unit_y: str, unit_p: str) -> str:
    if not unit_p:
        return unit_y
    if not unit_y:
        return f"1/({unit_p})" if "/" in unit_p or "·" in unit_p else f"1/{unit_p}"
    return f"{unit_y}/({unit_p})" if "/" in unit_p or "·" in unit_p else f"{unit_y}/{unit_p}"


class SensitivityPanel(widgets.VBox):
    """The sensitivity of a chosen output to each parameter, as a bar chart (module docstring).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model (never changed by the panel).
    backend : {"auto", "ipympl", "static"}
        How the bar chart is shown.
    figsize : tuple of float
        Figure size in inches.
    dpi : float
        Dots per inch of the figure.
    t_end : float
        The initial time span (s).

    Attributes
    ----------
    output_kind : ipywidgets.Dropdown
        What kind of output (keys of :data:`OUTPUT_KINDS`).
    output_name : ipywidgets.Dropdown
        Which one: a coordinate (``"y2"``), a velocity, a constraint row, an energy.
    t_end : NumberField
        The time span (s).
    parameters : ipywidgets.SelectMultiple
        The parameters to vary (names of ``quivira.sensitivity.variable_names``).
    scaling : ipywidgets.Dropdown
        ``"raw"``, ``"relative"`` or ``"tolerance"`` (see the module docstring).
    tolerance : NumberField
        The tolerance (% of each parameter's value) of the ``"tolerance"`` scaling.
    compute_button : ipywidgets.Button
        Runs the sensitivities and draws the bars.
    message : Message
        What happened (errors in words, never a traceback).
    result : dict or None
        The last computation: ``output`` (kind, name), ``t_end``, ``t`` (the time of the value:
        t_end, or the peak's time), ``value`` (y), ``unit``, ``names`` and ``gradient``
        (:math:`∂y/∂p_j`), ``point`` (the parameters' values), ``units``; None before the first
        or after a refusal.
    bars : dict or None
        What the chart shows: ``names`` (top to bottom), ``values`` (bar lengths in the
        chart's unit), ``scaling``, ``xlabel``.
    figure, axes : the matplotlib figure and axes of the chart.
    """

    def __init__(self, model: BarJointModel, *, backend: str = "auto",
                 figsize: tuple[float, float] = (6.4, 4.0), dpi: float = 100,
                 t_end: float = 1.0) -> None:
        super().__init__()
        self.model = model
        self.result: dict | None = None
        self.bars: dict | None = None
        self._result_revision = -1
        self._names: list[str] = []
        self.message = Message()
        self.output_kind = widgets.Dropdown(
            options=list(OUTPUT_KINDS), value="coordinate", description="output",
            layout=widgets.Layout(width="250px"), style={"description_width": "initial"})
        self.output_name = widgets.Dropdown(options=[], layout=widgets.Layout(width="200px"),
                                            tooltip="which coordinate, row or energy")
        self.t_end = NumberField(T_END, t_end, tooltip="the output is taken at t_end (the peak: "
                                 "over [0, t_end])", width="150px")
        self.parameters = widgets.SelectMultiple(
            options=[], rows=9, description="vary",
            layout=widgets.Layout(width="300px"), style={"description_width": "initial"})
        self.select_all = widgets.Button(description="all parameters", icon="check-square",
                                         tooltip="select every runtime parameter (not the "
                                                 "initial state)",
                                         layout=widgets.Layout(width="auto"))
        self.select_none = widgets.Button(description="none", icon="square",
                                          tooltip="clear the selection",
                                          layout=widgets.Layout(width="auto"))
        self.scaling = widgets.Dropdown(options=list(SCALINGS), value="raw", description="bars",
                                        layout=widgets.Layout(width="270px"),
                                        style={"description_width": "initial"})
        self.tolerance = NumberField(TOLERANCE, 1.0, tooltip="the tolerance of every parameter, "
                                     "in % of its value", width="150px")
        self.compute_button = widgets.Button(
            description="Compute", icon="bar-chart", button_style="primary",
            tooltip="integrate the variational equations and draw dy/dp",
            layout=widgets.Layout(width="auto"))
        self.summary = widgets.HTML("")
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self.axes = self.figure.add_subplot(1, 1, 1)
        self._blank("press Compute")
        self.output_kind.observe(self._guarded(lambda _: self._refresh_names()), names="value")
        self.scaling.observe(self._guarded(lambda _: self._on_scaling()), names="value")
        self.tolerance.observe(self._guarded(lambda _: self._on_scaling()), names="value")
        self.compute_button.on_click(self._guarded(lambda _: self.compute()))
        self.select_all.on_click(self._guarded(lambda _: self._select_defaults()))
        self.select_none.on_click(self._guarded(lambda _: self._select_none()))
        model.observe(self._on_model_change)
        row = widgets.Layout(flex_flow="row wrap", align_items="flex-start")
        side = widgets.VBox([self.scaling, self.tolerance,
                             widgets.HBox([self.select_all, self.select_none]),
                             self.compute_button],
                            layout=widgets.Layout(margin="0 0 0 10px"))
        self.children = [style_widget(),
                         widgets.HBox([self.output_kind, self.output_name, self.t_end],
                                      layout=row),
                         widgets.HBox([self.parameters, side], layout=row),
                         self.message.widget, self.summary, self.pane.widget]
        self.add_class("quivira-sensitivity")
        self.add_class("quivira-root")
        self._on_scaling_visibility()
        self._guarded(self.refresh_options)()

    def _guarded(self, fn):
        def run(*args):
            try:
                return fn(*args)
            except (Exception, KeyboardInterrupt) as exc:  # noqa: BLE001 - shown
                report(exc, self.message.error, f"SensitivityPanel.{fn.__name__}")
                return None
        return run

    # ------------------------------------------------------------------ options
    def _available(self) -> list[str]:
        try:
            return variable_names(self.model)
        except (ValueError, TypeError, RuntimeError, KeyError, IndexError):
            return []

    def _is_state(self, name: str) -> bool:
        """Whether ``name`` is an initial-state entry (``"bar0.theta"``), not a parameter."""
        return name in self._state_names

    def refresh_options(self) -> None:
        """Rebuild the output names and the parameter list from the model.

        The selection is kept where its names still exist; a selection never touched
        follows the default: every runtime parameter.
        """
        names = self._available()
        try:
            self._state_names = {n.name for n in self.model.parameters() if n.where == "state"}
        except (ValueError, TypeError, RuntimeError, KeyError, IndexError):
            self._state_names = set()
        default = [n for n in names if not self._is_state(n)]
        keep = list(self.parameters.value)
        was_default = set(keep) == set(n for n in self._names if not self._is_state(n))
        self._names = names
        if list(self.parameters.options) != names:
            self.parameters.options = names
        if was_default:
            self.parameters.value = tuple(default)
        else:
            self.parameters.value = tuple(n for n in keep if n in names)
        self._refresh_names()

    def _refresh_names(self) -> None:
        kind = self.output_kind.value
        n = n_bodies(self.model)
        if kind == "coordinate":
            opts = [f"{c}{i}" for i in range(n) for c in ("x", "y", "th")]
        elif kind == "velocity":
            opts = [f"{c}{i}" for i in range(n) for c in ("vx", "vy", "om")]
        elif kind in ("lambda", "peak"):
            opts = list(self.model.constraint_labels)
        else:
            opts = list(_ENERGY)
        keep = self.output_name.value
        if list(self.output_name.options) != opts:
            self.output_name.options = opts
        if keep in opts:
            self.output_name.value = keep
        elif opts:
            self.output_name.value = opts[1] if kind == "coordinate" and len(opts) > 1 \
                else opts[0]

    def _select_defaults(self) -> None:
        self.parameters.value = tuple(n for n in self._names if not self._is_state(n))

    def _select_none(self) -> None:
        self.parameters.value = ()

    # ------------------------------------------------------------------ computing
    def _check_inputs(self) -> tuple[str, str, float, list[str]] | None:
        """Return the inputs, or None after showing what is wrong."""
        if self.t_end.error:
            self.message.error(f"cannot compute: {self.t_end.error}")
            return None
        if self.scaling.value == "tolerance" and self.tolerance.error:
            self.message.error(f"cannot compute: {self.tolerance.error}")
            return None
        wrt = list(self.parameters.value)
        if not wrt:
            self.message.error("select at least one parameter to vary (or press "
                               "'all parameters')")
            return None
        kind, name = self.output_kind.value, self.output_name.value
        if not name:
            self.message.error("the model has no such output; add a bar (or a constraint) "
                               "first")
            return None
        t_end = self.t_end.value
        if t_end is None or not t_end > 0 or not math.isfinite(t_end):
            self.message.error(f"cannot compute: t_end must be a positive number of seconds, "
                               f"got {t_end!r}")
            return None
        return kind, name, float(t_end), wrt

    def compute(self) -> dict | None:
        """Run ``model.sensitivities`` for the chosen output and parameters; draw the bars.

        Returns
        -------
        dict or None
            :attr:`result`; None, with a message, when the inputs or the model are refused.
        """
        inputs = self._check_inputs()
        if inputs is None:
            return None
        kind, name, t_end, wrt = inputs
        self.message.info(f"computing the derivatives with respect to {len(wrt)} "
                          f"parameter{'s' if len(wrt) != 1 else ''} (the first run of a "
                          "selection compiles for a few seconds) …")
        self.compute_button.disabled = True
        t0 = time.perf_counter()
        try:
            out_kind = {"coordinate": "state", "velocity": "state", "lambda": "lambda",
                        "peak": "lambda", "energy": "energy"}[kind]
            n_points = N_POINTS if kind == "peak" else 2
            try:
                sens = self.model.sensitivities(t_end, wrt, order=1, outputs=[out_kind],
                                                n_points=n_points)
            except (ValueError, TypeError) as exc:
                self.result = None
                self._blank("no sensitivities")
                self.message.error(f"cannot compute the sensitivities: {exc}")
                return None
        finally:
            self.compute_button.disabled = False
        labels = list(sens.arrays[out_kind][0])
        if name not in labels:
            self.result = None
            self._blank("no sensitivities")
            self.message.error(f"the output {name!r} is not among the computed ones (a "
                               "redundant constraint row has no multiplier of its own)")
            return None
        values = sens.derivative(out_kind, name)
        grad = sens.gradient(out_kind, name)
        if kind == "peak":
            k = int(np.argmax(np.abs(values)))
            sign = 1.0 if values[k] >= 0 else -1.0
            value, gradient, t_at = abs(float(values[k])), sign * grad[k], float(sens.t[k])
        else:
            k = len(values) - 1
            value, gradient, t_at = float(values[k]), np.array(grad[k]), float(sens.t[k])
        self.result = {"output": (kind, name), "t_end": t_end, "t": t_at, "value": value,
                       "unit": output_unit(kind, name), "names": list(sens.wrt),
                       "gradient": np.asarray(gradient, dtype=float),
                       "point": np.asarray(sens.point, dtype=float),
                       "units": [parameter_unit(self.model, w) for w in sens.wrt],
                       "wall_s": time.perf_counter() - t0}
        self._result_revision = self.model.revision
        self.draw()
        early = (f" (the motion ended at a terminal event at t = {sens.t[-1]:.4g} s)"
                 if sens.events else "")
        self.message.ok(f"{len(wrt)} derivative{'s' if len(wrt) != 1 else ''} of {name} "
                        f"computed in {self.result['wall_s']:.1f} s{early}")
        return self.result

    # ------------------------------------------------------------------ drawing
    def _blank(self, text: str) -> None:
        ax = self.axes
        ax.clear()
        ax.set_xticks([])
        ax.set_yticks([])
        ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes,
                color="#78909c", fontsize=10)
        self.bars = None
        self.summary.value = ""
        self.pane.redraw()

    def _scaled(self) -> tuple[np.ndarray, str, list[str]]:
        """Return the bar values, the x label and the tick labels of the current scaling."""
        r = self.result
        assert r is not None
        kind, name = r["output"]
        uy = r["unit"]
        what = f"{name} at t = {r['t']:.4g} s" if kind != "peak" else f"peak |λ| of {name}"
        mode = self.scaling.value
        if mode == "raw":
            vals = r["gradient"]
            ticks = [f"{n} [{u}]" if u else n for n, u in zip(r["names"], r["units"])]
            xlabel = f"∂({what})/∂p  [{_per(uy, 'unit of p')}]"
        elif mode == "relative":
            vals = r["gradient"] * r["point"]
            ticks = list(r["names"])
            xlabel = f"∂({what})/∂p · p  [{uy}]" if uy else f"∂({what})/∂p · p"
        else:
            tol = float(self.tolerance.value) / 100.0
            vals = r["gradient"] * r["point"] * tol
            ticks = list(r["names"])
            xlabel = (f"change of {what} for +{100 * tol:g} % of p  [{uy}]" if uy else
                      f"change of {what} for +{100 * tol:g} % of p")
        return np.asarray(vals, dtype=float), xlabel, ticks

    def draw(self) -> None:
        """Draw the bars of :attr:`result` with the current scaling."""
        if self.result is None:
            self._blank("press Compute")
            return
        vals, xlabel, ticks = self._scaled()
        r = self.result
        # a parameter at 0 has no relative bar: left out (and named below the controls)
        keep = np.arange(len(vals)) if self.scaling.value == "raw" else \
            np.flatnonzero(r["point"] != 0.0)
        order = keep[np.argsort(np.abs(vals[keep]), kind="stable")[::-1]][:MAX_BARS]
        shown = order[::-1]                                                # largest on top
        ax = self.axes
        ax.clear()
        y = np.arange(len(shown))
        v = vals[shown]
        ax.barh(y, v, color=[_POS if x > 0 else _NEG for x in v], height=0.7)
        ax.axvline(0.0, color="#455a64", lw=0.8)
        fs = 8 if len(shown) <= 14 else 7
        ax.set_yticks(y, [ticks[j] for j in shown], fontsize=fs)
        ax.set_ylim(-0.6, len(shown) - 0.4)
        ax.tick_params(axis="x", labelsize=8)
        ax.grid(True, axis="x", color="#e3e8ee", lw=0.8)
        ax.set_axisbelow(True)
        ax.set_xlabel(xlabel, fontsize=8.5)
        lim = float(np.max(np.abs(v))) if len(v) else 0.0
        lim = lim if lim > 0 else 1.0
        ax.set_xlim(-1.28 * lim, 1.28 * lim)
        for yi, x in zip(y, v):
            # round-off beside large values (1e-9 of the largest bar) is written as 0
            text = "0" if abs(x) <= 1e-9 * lim else f"{x:.3g}"
            ax.text(x + (0.02 if x >= 0 else -0.02) * lim, yi, text, va="center",
                    ha="left" if x >= 0 else "right", fontsize=7, color="#37474f")
        kind, name = r["output"]
        unit = f" {r['unit']}" if r["unit"] and r["unit"] != "N or N·m" else ""
        title = (f"{name} = {r['value']:.5g}{unit} at t = {r['t']:.4g} s" if kind != "peak"
                 else f"peak |λ| of {name} = {r['value']:.5g}{unit} at t = {r['t']:.4g} s")
        if len(keep) > len(shown):
            title += f"  (the {len(shown)} largest of {len(keep)})"
        ax.set_title(title, fontsize=9)
        self.figure.subplots_adjust(left=0.34, right=0.97, top=0.9, bottom=0.14)
        self.bars = {"names": [r["names"][j] for j in shown][::-1],
                     "values": np.array(v[::-1]), "scaling": self.scaling.value,
                     "xlabel": xlabel}
        zero = [r["names"][j] for j in range(len(vals)) if r["point"][j] == 0.0]
        note = ""
        if self.scaling.value != "raw" and zero:
            note = (f"<br>at 0, so no relative bar: {html.escape(', '.join(zero[:6]))}"
                    + (" …" if len(zero) > 6 else ""))
        self.summary.value = ('<div class="quivira-hint" style="line-height:1.35;'
                              'margin:0 0 4px 0">bars largest on top · red: the output grows '
                              f"with p · blue: it shrinks{note}</div>")
        self.pane.redraw()

    def _on_scaling_visibility(self) -> None:
        self.tolerance.layout.display = None if self.scaling.value == "tolerance" else "none"

    def _on_scaling(self) -> None:
        self._on_scaling_visibility()
        if self.result is not None:
            if self.scaling.value == "tolerance" and self.tolerance.error:
                return
            self.draw()

    # ------------------------------------------------------------------ model life cycle
    def _on_model_change(self, what: str) -> None:
        try:
            if self.result is not None and self.model.revision != self._result_revision:
                self.result = None
                self._blank("the model changed: press Compute")
                self.message.info("the model changed: press Compute again")
            self.refresh_options()
        except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
            report(exc, self.message.error, "SensitivityPanel.refresh")

    def set_model(self, model: BarJointModel) -> None:
        """Work on another model (its parameters selected by default)."""
        self.model.unobserve(self._on_model_change)
        self.model = model
        self.result = None
        model.observe(self._on_model_change)
        self._blank("press Compute")
        self._names = []
        self.parameters.value = ()  # another model: the default selection again
        self._guarded(self.refresh_options)()

    def close(self) -> None:
        """Stop observing and release the figure."""
        if release_panel(self):
            super().close()

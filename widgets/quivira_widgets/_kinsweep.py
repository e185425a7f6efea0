r"""`KinematicSweepBox`: drive one angle of the model through a turn.

It plots the path of a bar point (``model.kinematic_sweep``), with the dead centres
marked.

The driver is an angle coordinate :math:`θ_i` of a bar or rigid body; it is turned from its
initial value by the angle typed (°) in 181 steps, staying on the current assembly branch
(continuation). The path of the traced point :math:`p = c + s L (\cos θ, \sin θ)` of the
chosen bar is drawn in metres; the poses where the driver cannot pass (dead centres, where the
singularity measure of :math:`[J; ∇d]` has a minimum near zero) are marked, and a sweep that
stops there says so.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np

from quivira import BarJointModel

from . import _specs as spec
from ._fields import NumberField
from ._figure import FigurePane
from ._messages import Message
from ._modelinfo import body_kind, n_bodies

TURN = spec.NumberSpec("turn by", "°", lo=-3600.0, hi=3600.0,
                       why="give the angle to turn the driver by, in degrees")
TRACE_S = spec.POINT_S
STEPS = 181


class KinematicSweepBox(widgets.VBox):
    """Driver, turn, traced point, *Sweep* button and the path plot (module docstring).

    Attributes
    ----------
    driver, trace_bar : ipywidgets.Dropdown
        The driven angle coordinate (``"th0"``, ...) and the bar whose point is traced.
    turn, trace_s : NumberField
        The turn (°) and the local coordinate of the traced point on its bar.
    sweep_button : ipywidgets.Button
    result : KinematicSweep or None
        The last sweep.
    path : numpy.ndarray (k, 2) or None
        The traced point's positions (m) along :attr:`result`.
    message : Message
    figure, axes, line, dead : the path figure, its axes, the path line and the dead-centre
        markers.
    """

    def __init__(self, model: BarJointModel, *, backend: str = "auto",
                 figsize: tuple[float, float] = (4.6, 3.6), dpi: float = 100) -> None:
        super().__init__()
        self.model = model
        self.result = None
        self.path = None
        self.message = Message()
        self.driver = widgets.Dropdown(options=[], description="drive",
                                       layout=widgets.Layout(width="150px"),
                                       style={"description_width": "initial"})
        self.turn = NumberField(TURN, 360.0, tooltip="how far to turn the driver")
        self.trace_bar = widgets.Dropdown(options=[], description="trace bar",
                                          layout=widgets.Layout(width="170px"),
                                          style={"description_width": "initial"})
        self.trace_s = NumberField(TRACE_S, 0.5, tooltip="the traced point on that bar")
        self.sweep_button = widgets.Button(description="Kinematic sweep", icon="sync",
                                           tooltip="turn the driver, staying on the branch, "
                                                   "and draw the path of the traced point",
                                           layout=widgets.Layout(width="auto"))
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = self.pane.figure
        self.axes = self.figure.add_subplot(1, 1, 1)
        self.axes.set_xlabel("x [m]", fontsize=8.5)
        self.axes.set_ylabel("y [m]", fontsize=8.5)
        self.axes.tick_params(labelsize=8)
        self.axes.set_aspect("equal", adjustable="datalim")
        self.axes.grid(True, color="#e3e8ee", lw=0.8)
        self.line = self.axes.plot([], [], color="#1565c0", lw=1.6, label="path")[0]
        self.dead = self.axes.plot([], [], "o", color="#c62828", ms=6,
                                   label="dead centre")[0]
        self.figure.subplots_adjust(left=0.17, right=0.97, top=0.9, bottom=0.14)
        self._title = self.axes.set_title("", fontsize=9)
        self.sweep_button.on_click(lambda _: self._guarded_sweep())
        self.refresh_options()
        self.pane.redraw()  # the empty axes, not an empty (broken) image, before a sweep
        self.children = [
            widgets.HBox([self.driver, self.turn, self.trace_bar, self.trace_s,
                          self.sweep_button],
                         layout=widgets.Layout(flex_flow="row wrap", align_items="flex-end")),
            self.message.widget, self.pane.widget]

    # ------------------------------------------------------------------ options
    def refresh_options(self) -> None:
        """Drivers: the angle coordinates of bars and rigid bodies; traced bars: the bars."""
        names, bars = [], []
        for i in range(n_bodies(self.model)):
            kind = body_kind(self.model.bodies[i])
            if kind != "particle":
                names.append(f"th{i}")
            if kind == "bar":
                bars.append((f"bar {i}", i))
        keep_d, keep_b = self.driver.value, self.trace_bar.value
        self.driver.options = names
        self.trace_bar.options = bars
        if keep_d in names:
            self.driver.value = keep_d
        elif names:
            self.driver.value = names[0]  # a sweep runs at the first click
        if keep_b in [b for _, b in bars]:
            self.trace_bar.value = keep_b
        elif bars:
            self.trace_bar.value = bars[-1][1] if len(bars) < 2 else bars[1][1]

    def set_model(self, model: BarJointModel) -> None:
        """Work on another model."""
        self.model = model
        self.result = None
        self.path = None
        self.refresh_options()

    # ------------------------------------------------------------------ the sweep
    def _guarded_sweep(self) -> None:
        try:
            self.run_sweep()
        except (TypeError, ValueError) as exc:
            self.message.error(f"cannot sweep: {exc}")
        except Exception as exc:  # noqa: BLE001 - shown, never raised into the front end
            self.message.error(f"cannot sweep ({type(exc).__name__}): {exc}")

    def run_sweep(self):
        """Turn the driver by :attr:`turn` from its initial value and draw the traced path.

        Returns the kinematic sweep (``model.kinematic_sweep``).
        """
        import warnings

        if not self.driver.value:
            raise ValueError("the model has no angle to drive; add a bar first")
        if self.trace_bar.value is None:
            raise ValueError("the model has no bar to trace")
        if self.turn.error or self.trace_s.error:
            raise ValueError(self.turn.error or self.trace_s.error)
        i = int(self.driver.value[2:])
        start = float(self.model.bodies[i].pose[2])
        values = start + np.radians(self.turn.value) * np.linspace(0.0, 1.0, STEPS)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reported below instead
            res = self.model.kinematic_sweep(self.driver.value, values)
        b, s = int(self.trace_bar.value), float(self.trace_s.value)
        L = float(self.model.bodies[b].length)
        x, y, th = res.q[:, 3 * b], res.q[:, 3 * b + 1], res.q[:, 3 * b + 2]
        self.path = np.column_stack([x + s * L * np.cos(th), y + s * L * np.sin(th)])
        self.result = res
        self.line.set_data(self.path[:, 0], self.path[:, 1])
        dead = self.path[list(res.singular_points)] if len(res.singular_points) else \
            np.zeros((0, 2))
        self.dead.set_data(dead[:, 0], dead[:, 1])
        self.axes.relim()
        self.axes.autoscale_view()
        turned = math.degrees(res.values[-1] - res.values[0])
        self._title.set_text(f"bar {b} at s = {s:g}, {self.driver.value} turned by "
                             f"{turned:.1f}°")
        if len(dead):
            self.axes.legend(fontsize=7.5, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        self.pane.redraw()
        if res.complete:
            self.message.ok(f"swept {len(res.values)} poses"
                            + (f"; {len(dead)} dead centre(s) passed" if len(dead) else ""))
        else:
            self.message.warning(f"stopped at a dead centre after {turned:.1f}°: {res.message}")
        return res

    def close(self) -> None:
        """Release the figure."""
        self.pane.close()
        super().close()

"""The player's energy ledger and element forces: where the energy goes, what the springs do.

Three axes side by side, over time t [s]:

* **energy ledger** [J], stacked: the kinetic energy, the gravity potential, the elastic
  energy of the springs, the potential of the constant loads, and on top the energy
  dissipated by the dampers since t = 0 (``traj.energy_ledger()``). A potential has no
  natural zero, so gravity and loads are drawn above their lowest value over the motion (the
  elastic energy from 0, or from its lowest value if a preload makes it negative): the
  offsets are :attr:`LedgerPlots.offsets`. The top of the stack is then
  E(t) + D(t) − Σ offsets, and the dashed line "E(0) + work in" is
  E(0) + W_in(t) − Σ offsets: the two coincide when the books balance;
* **balance** [J]: E(t) − E(0) − W_in(t) + D(t) (``traj.energy_balance()``), at rounding
  level for an exact motion;
* **element forces**: the tension of the chosen spring-dampers and the components of the
  force actuators [N] on the left axis, the torques of torsional springs and torque actuators
  [N·m] on the right one (dashed) — ``traj.element_force(name)``.

Every plotted number is the trajectory's own array (less the offset, for the potentials).
The time cursor moves with the frame; new results redraw the data layer only, while the
limits still fit (see :mod:`quivira_widgets._figure`).
"""

from __future__ import annotations

import numpy as np
from matplotlib.collections import PolyCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ._figure import FigurePane
from ._modelinfo import by_collection
from ._timeplots import COLORS, MAX_LEGEND, _fit

#: the stacked parts, bottom to top: (key of the ledger, legend label, colour)
PARTS = (("kinetic", "kinetic", "#1f77b4"), ("gravity", "gravity", "#2ca02c"),
         ("elastic", "elastic", "#17becf"), ("loads", "loads", "#bcbd22"),
         ("dissipated", "dissipated", "#ff7f0e"))
#: parts whose zero is arbitrary (drawn above their lowest value)
_SHIFTED = ("gravity", "loads")


def ledger_layers(tr) -> dict:
    """Return the numbers the ledger plot draws for trajectory ``tr``.

    Returns
    -------
    dict
        ``"ledger"`` (``tr.energy_ledger()``), ``"offsets"`` (J per part), ``"bounds"``
        (part → ``(lower, upper)`` arrays of its band), ``"work"`` (the dashed line),
        ``"balance"`` (``tr.energy_balance()``).
    """
    led = tr.energy_ledger()
    offsets = {}
    for key, _, _ in PARTS:
        y = np.asarray(led[key], dtype=float)
        finite = y[np.isfinite(y)]
        low = float(finite.min()) if finite.size else 0.0
        if key in _SHIFTED:
            offsets[key] = low
        elif key == "elastic":
            offsets[key] = min(low, 0.0)
        else:
            offsets[key] = 0.0
    bounds = {}
    base = np.zeros(tr.n_points)
    for key, _, _ in PARTS:
        top = base + (np.asarray(led[key], dtype=float) - offsets[key])
        bounds[key] = (base, top)
        base = top
    e0 = float(tr.energy[0]) if tr.n_points else 0.0
    work = e0 - sum(offsets.values()) + np.asarray(led["work_in"], dtype=float)
    return {"ledger": led, "offsets": offsets, "bounds": bounds, "work": work,
            "balance": tr.energy_balance()}


def element_series(tr, model=None) -> tuple[list[str], np.ndarray, list[str]]:
    """Return labels, columns ``(n_points, k)`` and units of the element forces of ``tr``.

    Units ``"N"`` or ``"N·m"``: a spring's tension, a torque, the Fx and Fy of a force
    actuator.
    """
    kinds: dict[str, str] = {}
    if model is not None:
        el = by_collection(model)
        for coll, kind in (("springs", "tension"), ("torsional_springs", "torque"),
                           ("torque_actuators", "torque"), ("force_actuators", "force")):
            for e in el.get(coll, []):
                kinds[e.name] = kind
    labels, cols, units = [], [], []
    for name, values in tr.load_forces.items():
        arr = np.asarray(values, dtype=float)
        if arr.ndim == 2:
            for j, axis in enumerate(("Fx", "Fy")):
                labels.append(f"{name} · {axis}")
                cols.append(arr[:, j])
                units.append("N")
            continue
        kind = kinds.get(name) or ("torque" if "torque" in name or "torsion" in name
                                   else "tension")
        labels.append(f"{name} · {kind}")
        cols.append(arr)
        units.append("N·m" if kind == "torque" else "N")
    data = np.column_stack(cols) if cols else np.zeros((tr.n_points, 0))
    return labels, data, units


class LedgerPlots:
    """The figure of the ledger, the balance and the element forces (module docstring).

    Attributes
    ----------
    pane : FigurePane
    ax_ledger, ax_balance, ax_forces, ax_torques : matplotlib.axes.Axes
        ``ax_torques`` is the right-hand axis (N·m) of ``ax_forces`` (N).
    bands : dict of str to matplotlib.collections.PolyCollection
        The stacked band of each part (``"kinetic"``, …, ``"dissipated"``).
    bounds : dict of str to tuple of numpy.ndarray
        ``(lower, upper)`` of each band as drawn.
    offsets : dict of str to float
        What was subtracted from each part (J).
    top_line, work_line, balance_line : matplotlib.lines.Line2D
        The top of the stack, "E(0) + work in", the balance.
    force_lines : list of Line2D
        One per shown element series; ``force_labels`` and ``force_units`` describe them.
    cursors : list of Line2D
        The time cursor of each axes.
    """

    def __init__(self, backend: str = "auto", figsize: tuple[float, float] = (8.8, 2.9),
                 dpi: float = 100) -> None:
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = fig = self.pane.figure
        gs = fig.add_gridspec(1, 3, left=0.075, right=0.925, top=0.7, bottom=0.16,
                              wspace=0.42, width_ratios=(1.25, 0.8, 1.25))
        self.ax_ledger = fig.add_subplot(gs[0, 0])
        self.ax_balance = fig.add_subplot(gs[0, 1])
        self.ax_forces = fig.add_subplot(gs[0, 2])
        self.ax_torques = self.ax_forces.twinx()
        for ax, ylabel in ((self.ax_ledger, "energy [J]"),
                           (self.ax_balance, "E − E₀ − W + D [J]"),
                           (self.ax_forces, "force [N]")):
            ax.set_ylabel(ylabel, fontsize=8, labelpad=2)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("t [s]", fontsize=8, labelpad=1)
            ax.grid(True, color="#eceff1")
            ax.xaxis.set_major_locator(MaxNLocator(5))
        self.ax_torques.set_ylabel("torque [N·m]", fontsize=8, labelpad=2)
        self.ax_torques.tick_params(labelsize=7)
        self.ax_balance.ticklabel_format(axis="y", style="sci", scilimits=(-3, 3))
        self.ax_balance.yaxis.get_offset_text().set_fontsize(7)
        self.bands: dict[str, PolyCollection] = {}
        for key, _, color in PARTS:
            pc = PolyCollection([], facecolors=color, edgecolors="none", alpha=0.72,
                                zorder=2)
            self.ax_ledger.add_collection(pc, autolim=False)
            self.bands[key] = pc
        self.top_line = self.ax_ledger.plot([], [], color="#37474f", lw=0.9, zorder=3)[0]
        self.work_line = self.ax_ledger.plot([], [], color="#212121", lw=1.4, ls="--",
                                             zorder=4)[0]
        self.balance_line = self.ax_balance.plot([], [], color="#6a1b9a", lw=1.2)[0]
        self.ax_balance.axhline(0.0, color="#90a4ae", lw=0.8, zorder=1)
        self.note = self.ax_ledger.text(0.99, 0.03, "potentials above their lowest value",
                                        transform=self.ax_ledger.transAxes, fontsize=6,
                                        ha="right", va="bottom", color="#37474f",
                                        bbox={"facecolor": "white", "alpha": 0.75,
                                              "edgecolor": "none", "pad": 1.0})
        self.empty_note = self.ax_forces.text(0.5, 0.5, "no springs, dampers or actuators",
                                              transform=self.ax_forces.transAxes, fontsize=7,
                                              ha="center", va="center", color="#78909c")
        self.force_lines: list[Line2D] = []
        self.force_labels: list[str] = []
        self.force_units: list[str] = []
        self.bounds: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.offsets: dict[str, float] = {}
        self.cursors = [ax.axvline(0.0, color="#e53935", lw=1.2, alpha=0.8)
                        for ax in (self.ax_ledger, self.ax_balance, self.ax_forces)]
        for c in self.cursors:
            c.set_visible(False)
        self.pane.animate(*self.cursors)
        self.pane.animate(*self.bands.values(), self.top_line, self.work_line,
                          self.balance_line, layer="data")
        self._legend_keys: tuple = ((), ())

    # ------------------------------------------------------------------ legends
    def _ledger_legend(self, shown: list[str]) -> bool:
        key = tuple(shown)
        if key == self._legend_keys[0]:
            return False
        self._legend_keys = (key, self._legend_keys[1])
        handles = [Patch(facecolor=c, alpha=0.72, label=lb) for k, lb, c in PARTS if k in key]
        handles.append(Line2D([], [], color="#212121", lw=1.4, ls="--", label="E(0) + work in"))
        leg = self.ax_ledger.get_legend()
        if leg is not None:
            leg.remove()
        self.ax_ledger.legend(handles=handles, fontsize=6.5, loc="lower left",
                              bbox_to_anchor=(0.0, 1.01), frameon=False, ncol=3,
                              borderaxespad=0.0, handlelength=1.2, columnspacing=0.8)
        return True

    def _forces_legend(self) -> bool:
        key = tuple(zip(self.force_labels, self.force_units))
        if key == self._legend_keys[1]:
            return False
        self._legend_keys = (self._legend_keys[0], key)
        leg = self.ax_forces.get_legend()
        if leg is not None:
            leg.remove()
        if not key:
            return True
        shown = list(zip(self.force_lines, self.force_labels, self.force_units))[:MAX_LEGEND]
        handles = [Line2D([], [], color=ln.get_color(), ls=ln.get_linestyle(), lw=1.3)
                   for ln, _, _ in shown]
        texts = [f"{lb} [{u}]" for _, lb, u in shown]
        if len(key) > MAX_LEGEND:
            handles.append(Line2D([], [], color="none"))
            texts.append(f"… {len(key) - MAX_LEGEND} more")
        self.ax_forces.legend(handles, texts, fontsize=6, loc="lower left",
                              bbox_to_anchor=(-0.1, 1.01), frameon=False,
                              ncol=1 if len(texts) <= 3 else 2, borderaxespad=0.0,
                              handlelength=1.5, columnspacing=0.8)
        return True

    # ------------------------------------------------------------------ lines
    def _ensure_force_lines(self, units: list[str]) -> None:
        while self.force_lines:
            line = self.force_lines.pop()
            self.pane.forget(line)
            line.remove()
        for k, unit in enumerate(units):
            ax = self.ax_forces if unit == "N" else self.ax_torques
            line = ax.plot([], [], color=COLORS[k % len(COLORS)], lw=1.2,
                           ls="-" if unit == "N" else "--")[0]
            self.pane.animate(line, layer="data")
            self.force_lines.append(line)

    # ------------------------------------------------------------------ public
    def show(self, tr, rows: list[int] | None = None, model=None) -> None:
        """Plot trajectory ``tr`` (None: clear) and its element series ``rows``.

        ``rows`` None: all; else indices into :func:`element_series`.
        """
        changed = False
        if tr is None or tr.n_points == 0:
            for pc in self.bands.values():
                pc.set_verts([])
            for line in (self.top_line, self.work_line, self.balance_line):
                line.set_data([], [])
            if self.force_lines:
                self._ensure_force_lines([])
                changed = True
            self.force_labels, self.force_units = [], []
            self.bounds, self.offsets = {}, {}
            for c in self.cursors:
                c.set_visible(False)
            changed |= self._forces_legend()
            self._draw(changed)
            return
        t = np.asarray(tr.t, dtype=float)
        layers = ledger_layers(tr)
        self.bounds, self.offsets = layers["bounds"], layers["offsets"]
        shown = []
        for key, (lo, hi) in self.bounds.items():
            self.bands[key].set_verts([np.column_stack([np.concatenate([t, t[::-1]]),
                                                        np.concatenate([hi, lo[::-1]])])])
            if np.any(np.abs(hi - lo) > 0):
                shown.append(key)
        self.top_line.set_data(t, self.bounds[PARTS[-1][0]][1])
        self.work_line.set_data(t, layers["work"])
        self.balance_line.set_data(t, layers["balance"])
        changed |= self._ledger_legend(shown)
        labels, data, units = element_series(tr, model)
        idx = list(range(len(labels))) if rows is None else [r for r in rows
                                                             if 0 <= r < len(labels)]
        want_units = [units[i] for i in idx]
        if [ln.axes is (self.ax_forces if u == "N" else self.ax_torques) for ln, u in
                zip(self.force_lines, want_units)] != [True] * len(idx) or len(
                self.force_lines) != len(idx):
            self._ensure_force_lines(want_units)
            changed = True
        self.force_labels = [labels[i] for i in idx]
        self.force_units = want_units
        for line, i in zip(self.force_lines, idx):
            line.set_data(t, data[:, i])
        changed |= self._forces_legend()
        self.empty_note.set_visible(not labels)
        for c in self.cursors:
            c.set_visible(True)
        changed |= _fit(self.ax_ledger, [self.top_line, self.work_line], tr,
                        floor0=bool(np.nanmin(layers["work"]) >= 0))
        changed |= _fit(self.ax_balance, [self.balance_line], tr)
        n_lines = [ln for ln, u in zip(self.force_lines, self.force_units) if u == "N"]
        m_lines = [ln for ln, u in zip(self.force_lines, self.force_units) if u != "N"]
        changed |= _fit(self.ax_forces, n_lines, tr)
        changed |= _fit(self.ax_torques, m_lines, tr)
        if self.ax_torques.get_visible() != bool(m_lines):
            self.ax_torques.set_visible(bool(m_lines))
            changed = True
        self._draw(changed)

    def set_time(self, t: float) -> None:
        """Move the time cursors to ``t`` (s) and redraw them only."""
        for c in self.cursors:
            c.set_xdata([t, t])
        self.pane.update()

    def _draw(self, full: bool) -> None:
        if full:
            self.pane.redraw()
        else:
            self.pane.update(data=True)

    def close(self) -> None:
        """Release the figure."""
        self.pane.close()

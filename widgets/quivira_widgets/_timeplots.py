"""The player's time plots: constraint forces, energy, constraint error — with units.

Three axes side by side, over time t [s]:

* **constraint forces**: the multipliers λ of the chosen constraint rows [N], or the magnitude
  |F| of the chosen reaction forces [N] (each joint on each bar, each support) on their own
  range (from 0);
* **energy** [J]: E = T + V, the kinetic energy T and the potential energy V;
* **constraint error**: the largest position residual |F(q)| [m] and velocity residual
  |J q̇| [m/s] over the rows, on a log scale.

Every plotted array is the trajectory's own (``lambda_mult``, ``reactions[k].force``,
``energy``, ``kinetic_energy``, ``potential_energy``, ``position_residual``,
``velocity_residual``). Legends sit above the axes, off the data. The curve of the selected
row is drawn thick and the others faded. Events (e.g. where a run stopped) are dashed
vertical lines; the time cursor moves with the frame (the only artist redrawn per frame).
"""

from __future__ import annotations

import math

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.ticker import MaxNLocator

from ._figure import FigurePane

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2",
          "#17becf", "#bcbd22", "#7f7f7f"]
#: legend entries shown at most (more curves: choose fewer rows for a legend)
MAX_LEGEND = 8
_FLOOR = 1e-18


def force_series(tr, kind: str) -> tuple[list[str], np.ndarray]:
    """Return labels and columns ``(n_points, k)`` of the constraint-force plot of ``tr``.

    ``"lambda"`` — the multipliers; ``"reactions"`` — |F| of every reaction (N).
    """
    if kind == "lambda":
        return list(tr.constraint_labels), np.asarray(tr.lambda_mult, dtype=float)
    reactions = tr.reactions
    if not reactions:
        return [], np.zeros((tr.n_points, 0))
    cols = np.column_stack([np.hypot(r.force[:, 0], r.force[:, 1]) for r in reactions])
    return [r.label for r in reactions], cols


class TimePlots:
    """The figure of the time plots (see the module docstring).

    Attributes
    ----------
    pane : FigurePane
    ax_force, ax_energy, ax_residual : matplotlib.axes.Axes
    force_lines : list of Line2D
        One per shown series; ``force_labels`` their labels.
    energy_lines : list of Line2D
        E, T, V.
    residual_lines : list of Line2D
        Position and velocity residual.
    cursors : list of Line2D
        The time cursor of each axes.
    event_lines : list of LineCollection
        Event markers of each axes.
    """

    def __init__(self, backend: str = "auto", figsize: tuple[float, float] = (8.8, 2.9),
                 dpi: float = 100) -> None:
        self.pane = FigurePane(figsize, dpi, backend)
        self.figure = fig = self.pane.figure
        gs = fig.add_gridspec(1, 3, left=0.075, right=0.99, top=0.7, bottom=0.16, wspace=0.36)
        self.ax_force = fig.add_subplot(gs[0, 0])
        self.ax_energy = fig.add_subplot(gs[0, 1])
        self.ax_residual = fig.add_subplot(gs[0, 2])
        for ax, ylabel in ((self.ax_force, "λ [N]"), (self.ax_energy, "energy [J]"),
                           (self.ax_residual, "constraint error")):
            ax.set_ylabel(ylabel, fontsize=8, labelpad=2)
            ax.tick_params(labelsize=7)
            ax.set_xlabel("t [s]", fontsize=8, labelpad=1)
            ax.grid(True, color="#eceff1")
            ax.xaxis.set_major_locator(MaxNLocator(5))
        self.ax_residual.set_yscale("log")
        self.force_lines: list[Line2D] = []
        self.force_labels: list[str] = []
        self.energy_lines = [self.ax_energy.plot([], [], color=c, lw=lw, ls=ls, label=lb)[0]
                             for c, lw, ls, lb in (("#212121", 1.8, "-", "E = T + V"),
                                                   ("#1f77b4", 1.2, "--", "T kinetic"),
                                                   ("#2ca02c", 1.2, "--", "V potential"))]
        self.residual_lines = [self.ax_residual.plot([], [], color=c, lw=1.3, label=lb)[0]
                               for c, lb in (("#6a1b9a", "position |F(q)| [m]"),
                                             ("#ef6c00", "velocity |J q̇| [m/s]"))]
        for ax, ncol in ((self.ax_energy, 3), (self.ax_residual, 1)):
            ax.legend(fontsize=7, loc="lower left", bbox_to_anchor=(0.0, 1.01), frameon=False,
                      ncol=ncol, borderaxespad=0.0, handlelength=1.6, columnspacing=1.0)
        self._legend_key: tuple = ()
        self.event_lines = []
        for ax in (self.ax_force, self.ax_energy, self.ax_residual):
            lc = LineCollection([], colors="#c62828", linewidths=1.0, linestyles="--",
                                alpha=0.8, transform=ax.get_xaxis_transform(), zorder=1)
            ax.add_collection(lc, autolim=False)
            self.event_lines.append(lc)
        self.cursors = [ax.axvline(0.0, color="#e53935", lw=1.2, alpha=0.8)
                        for ax in (self.ax_force, self.ax_energy, self.ax_residual)]
        for c in self.cursors:
            c.set_visible(False)
        self.pane.animate(*self.cursors)
        self.pane.animate(*self.energy_lines, *self.residual_lines, layer="data")
        self.kind = "lambda"
        self.highlight = ""
        self._event_times: tuple = ()
        #: the model whose rows are plotted: a row's element is found by its name
        self.model = None

    # ------------------------------------------------------------------ lines
    def _ensure_force_lines(self, k: int) -> None:
        while len(self.force_lines) < k:
            c = COLORS[len(self.force_lines) % len(COLORS)]
            line = self.ax_force.plot([], [], color=c, lw=1.1)[0]
            self.pane.animate(line, layer="data")
            self.force_lines.append(line)
        while len(self.force_lines) > k:
            line = self.force_lines.pop()
            self.pane.forget(line)
            line.remove()

    def _style_highlight(self) -> None:
        hl = self.highlight
        for line, lb in zip(self.force_lines, self.force_labels):
            if not hl:
                line.set_linewidth(1.1)
                line.set_alpha(1.0)
            elif lb == hl:
                line.set_linewidth(2.6)
                line.set_alpha(1.0)
                line.set_zorder(3)
            else:
                line.set_linewidth(1.0)
                line.set_alpha(0.3)
                line.set_zorder(2)

    def _legend(self) -> bool:
        labels = tuple(self.force_labels)
        key = (labels, self.highlight)
        if key == self._legend_key:
            return False
        self._legend_key = key
        ax = self.ax_force
        leg = ax.get_legend()
        if leg is not None:
            leg.remove()
        if not labels:
            return True
        shown = list(zip(self.force_lines, labels))[:MAX_LEGEND]
        handles = [Line2D([], [], color=ln.get_color(), lw=2.4 if lb == self.highlight else 1.2)
                   for ln, lb in shown]
        texts = [lb for _, lb in shown]
        if len(labels) > MAX_LEGEND:
            handles.append(Line2D([], [], color="none"))
            texts.append(f"… {len(labels) - MAX_LEGEND} more (choose fewer for a legend)")
        ax.legend(handles, texts, fontsize=6.5, loc="lower left", bbox_to_anchor=(0.0, 1.01),
                  frameon=False, ncol=2, borderaxespad=0.0, handlelength=1.4,
                  columnspacing=0.8)
        return True

    # ------------------------------------------------------------------ public
    def show(self, tr, kind: str, rows: list[int] | None, highlight: str = "",
             events: list[tuple[float, str]] | None = None) -> None:
        """Plot trajectory ``tr`` (None: clear).

        The force series ``rows`` of ``kind`` (``"lambda"`` or ``"reactions"``; None: all), the
        highlighted label, the events.
        """
        changed = kind != self.kind
        self.kind = kind
        self.highlight = highlight
        ylabel = "λ [N]" if kind == "lambda" else "|F| [N]"
        if self.ax_force.get_ylabel() != ylabel:
            self.ax_force.set_ylabel(ylabel, fontsize=self.ax_energy.yaxis.label.get_fontsize())
            changed = True
        if tr is None or tr.n_points == 0:
            self._ensure_force_lines(0)
            self.force_labels = []
            for line in self.energy_lines + self.residual_lines:
                line.set_data([], [])
            for c in self.cursors:
                c.set_visible(False)
            changed |= self._set_events([])
            changed |= self._legend()
            self._draw(changed)
            return
        labels, cols = force_series(tr, kind)
        idx = list(range(len(labels))) if rows is None else [r for r in rows
                                                             if 0 <= r < len(labels)]
        if highlight and kind == "reactions":
            highlight = self._reaction_of(highlight, labels) or highlight
            self.highlight = highlight
        if highlight in labels and labels.index(highlight) not in idx:
            idx.append(labels.index(highlight))
        self._ensure_force_lines(len(idx))
        self.force_labels = [labels[i] for i in idx]
        for line, i in zip(self.force_lines, idx):
            line.set_data(tr.t, cols[:, i])
        self._style_highlight()
        changed |= self._legend()
        for line, y in zip(self.energy_lines, (tr.energy, tr.kinetic_energy,
                                               tr.potential_energy)):
            line.set_data(tr.t, y)
        pos = np.max(np.abs(tr.position_residual), axis=1) if tr.position_residual.size \
            else np.zeros_like(tr.t)
        vel = np.max(np.abs(tr.velocity_residual), axis=1) if tr.velocity_residual.size \
            else np.zeros_like(tr.t)
        self.residual_lines[0].set_data(tr.t, np.maximum(pos, _FLOOR))
        self.residual_lines[1].set_data(tr.t, np.maximum(vel, _FLOOR))
        for c in self.cursors:
            c.set_visible(True)
        changed |= self._set_events(events or [])
        changed |= _fit(self.ax_force, self.force_lines, tr, floor0=kind == "reactions",
                        refit=changed)
        changed |= _fit(self.ax_energy, self.energy_lines, tr)
        changed |= _fit(self.ax_residual, self.residual_lines, tr, log=True)
        self._draw(changed)

    def _reaction_of(self, row_label: str, labels: list[str]) -> str | None:
        """Return the reaction label of a constraint row, if that reaction is plotted.

        For example ``"joint0.bar1.x"`` → ``"joint 0 on bar 1"`` (the element found by its
        name in :attr:`model`).
        """
        from ._constraints import reaction_label_of_row

        want = reaction_label_of_row(row_label, self.model)
        return want if want in labels else None

    def set_highlight(self, label: str) -> None:
        """Emphasize the curve of ``label`` (a constraint row; "" for none)."""
        if self.kind == "reactions" and label:
            label = self._reaction_of(label, self.force_labels) or label
        if label == self.highlight:
            return
        self.highlight = label
        self._style_highlight()
        self._draw(self._legend() or True)

    def set_time(self, t: float) -> None:
        """Move the time cursors to ``t`` (s) and redraw them only."""
        for c in self.cursors:
            c.set_xdata([t, t])
        self.pane.update()

    def _set_events(self, events: list[tuple[float, str]]) -> bool:
        """Draw dashed lines at the events' times on every axes; return True when they changed.

        They are part of the still background, so a change needs a full draw.
        """
        times = tuple(float(t) for t, _ in events)
        if times == self._event_times:
            return False
        self._event_times = times
        segs = [[(t, 0.0), (t, 1.0)] for t in times]
        for lc in self.event_lines:
            lc.set_segments(segs)
        return True

    def _draw(self, full: bool) -> None:
        if full:
            self.pane.redraw()
        else:
            self.pane.update(data=True)

    def close(self) -> None:
        """Release the figure."""
        self.pane.close()


def _fit(ax, lines, tr, log: bool = False, floor0: bool = False, refit: bool = False) -> bool:
    """Fit the axes to the lines' data; return True when the limits changed.

    The limits are kept when the data still fit well (so a re-run with similar numbers only
    redraws the lines).
    """
    if tr is None or tr.n_points < 2:
        return False
    ys = [np.asarray(ln.get_ydata(), dtype=float) for ln in lines]
    ys = [y[np.isfinite(y)] for y in ys if len(y)]
    ys = [y for y in ys if y.size]
    x_want = (float(tr.t[0]), float(tr.t[-1]))
    changed = False
    if ax.get_xlim() != x_want:
        ax.set_xlim(*x_want)
        changed = True
    if not ys:
        return changed
    lo = min(float(y.min()) for y in ys)
    hi = max(float(y.max()) for y in ys)
    cur_y = ax.get_ylim()
    if log:
        lo, hi = math.log10(max(lo, 1e-300)), math.log10(max(hi, 1e-300))
        c0, c1 = math.log10(max(cur_y[0], 1e-300)), math.log10(max(cur_y[1], 1e-300))
        span = max(hi - lo, 1.0)
        keep = c0 <= lo and hi <= c1 and (c1 - c0) <= span + 4
        want = (10 ** (lo - 0.5), 10 ** (hi + 0.5))
    else:
        if floor0:
            lo = 0.0
        span = max(hi - lo, 1e-12 * max(abs(hi), abs(lo), 1.0), 1e-300)
        c0, c1 = cur_y
        keep = c0 <= lo and hi <= c1 and (c1 - c0) <= 2.0 * span
        pad = 0.12 * span  # slack: a re-run with similar numbers keeps the limits
        want = (lo if floor0 else lo - pad, hi + pad)
    if refit or not keep:
        ax.set_ylim(*want)
        changed = True
    return changed


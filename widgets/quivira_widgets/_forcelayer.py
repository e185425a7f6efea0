"""The view's drawing of springs, dampers, torsional springs and actuators.

Symbols (shapes from :mod:`quivira_widgets._symbols`):

* a spring-damper: a zigzag from end a to end b; with damping (c > 0) a piston too: beside the
  zigzag when there is a spring (k > 0), on the axis alone when k = 0; a ground end is marked
  by a small ground hatch;
* a torsional spring: a spiral coil at the joint of its two bars (for a spring to ground, at
  the bar's supported point, else at its start);
* a force actuator: an orange arrow at its point (length ∝ force, the largest over the motion
  drawn at a quarter of the model's size); a torque actuator: an orange arc with an arrow head
  at the bar's centre (or at the joint of the two bars), turning as the torque.

Every kind is one matplotlib artist updated in place each frame. Actuators are drawn with
their value at the frame (``trajectory.element_force``), at the initial state with the value
of their law at t = 0 (laws written in code: only after a simulation).
"""

from __future__ import annotations

import math

import numpy as np

from . import _geometry as geo
from . import _laws as laws
from . import _symbols as sym
from ._figure import FigurePane
from ._modelinfo import by_collection

SPRING_COLOR = "#00796b"
DAMPER_COLOR = "#5d4037"
COIL_COLOR = "#00796b"
ACTUATOR_COLOR = "#e65100"


def _common_joint(joints: list, a: int | None, b: int) -> float | None:
    """Return the point ``s`` of bar ``b`` at a joint (of ``joints``) it shares with bar ``a``.

    None if there is none.
    """
    if a is None:
        return None
    for jt in joints:
        if a in jt.bars and b in jt.bars:
            return float(jt.s[list(jt.bars).index(b)])
    return None


def _ground_anchor(supports: list, b: int) -> float:
    """Return where a torsional spring to ground is drawn on bar ``b``.

    Its supported point (of ``supports``), else its start.
    """
    for sp in supports:
        if sp.bar == b:
            return float(sp.s)
    return -0.5


class ForceLayer:
    """Artists of the force elements on a view's axes (see the module docstring).

    Attributes
    ----------
    spring_line, damper_line, coil_line, ground_line, arc_line : matplotlib.lines.Line2D
        Zigzags, pistons, coils, ground hatches of ground ends, torque arcs.
    arrows : matplotlib.quiver.Quiver or None
        The force actuators' arrows.
    spring_names, torsion_names, force_names, torque_names : list of str
        The elements drawn, in the order of the artists' pieces.
    spring_ends : numpy.ndarray
        ``(k, 2, 2)``: the ends a and b of every spring-damper as drawn now.
    forces, torques : numpy.ndarray
        The actuator values drawn now (``(k, 2)`` N, ``(k,)`` N·m; NaN: not drawn).
    """

    def __init__(self, ax, pane: FigurePane) -> None:
        self.ax = ax
        self.pane = pane
        self.spring_line = ax.plot([], [], color=SPRING_COLOR, lw=1.6, zorder=4.5,
                                   solid_joinstyle="miter")[0]
        self.damper_line = ax.plot([], [], color=DAMPER_COLOR, lw=1.8, zorder=4.5)[0]
        self.coil_line = ax.plot([], [], color=COIL_COLOR, lw=1.5, zorder=6.5)[0]
        self.ground_line = ax.plot([], [], color=DAMPER_COLOR, lw=1.2, zorder=4.4)[0]
        self.arc_line = ax.plot([], [], color=ACTUATOR_COLOR, lw=2.0, zorder=7.5)[0]
        self.arrows = None
        pane.animate(self.spring_line, self.damper_line, self.coil_line, self.ground_line,
                     self.arc_line)
        self.spring_names: list[str] = []
        self.torsion_names: list[str] = []
        self.force_names: list[str] = []
        self.torque_names: list[str] = []
        self.spring_ends = np.zeros((0, 2, 2))
        self.forces = np.zeros((0, 2))
        self.torques = np.zeros(0)
        self._scale_key: tuple | None = None
        self._fmax = 0.0
        self.refresh(None, None)

    # ------------------------------------------------------------------ model
    def refresh(self, model, snap: geo.Snapshot | None) -> None:
        """Read the force elements of ``model`` (None: none)."""
        el = by_collection(model)
        joints, supports = el.get("joints", []), el.get("supports", [])
        springs = el.get("springs", [])
        self.spring_names = [s.name for s in springs]
        self._sp_a = np.array([s.bar_a for s in springs], dtype=int)
        self._sp_sa = np.array([s.s_a for s in springs], dtype=float)
        self._sp_b = np.array([-1 if s.bar_b is None else s.bar_b for s in springs], dtype=int)
        self._sp_sb = np.array([s.s_b for s in springs], dtype=float)
        self._sp_ground = np.array([s.ground if s.ground is not None else (np.nan, np.nan)
                                    for s in springs], dtype=float).reshape(-1, 2)
        self._sp_k = np.array([s.k for s in springs], dtype=float)
        self._sp_c = np.array([s.c for s in springs], dtype=float)
        self._sp_rest = np.zeros(len(springs))
        if springs and snap is not None and snap.n_bars:
            a, b = self._spring_points(snap.q0, snap)
            self._sp_rest = np.hypot(*(b - a).T)
        tors = el.get("torsional_springs", [])
        self.torsion_names = [t.name for t in tors]
        self._ts_a = np.array([-1 if t.bar_a is None else t.bar_a for t in tors], dtype=int)
        self._ts_b = np.array([t.bar_b for t in tors], dtype=int)
        anchors = []
        for t in tors:
            s = _common_joint(joints, t.bar_a, t.bar_b)
            anchors.append(_ground_anchor(supports, t.bar_b) if s is None else s)
        self._ts_s = np.array(anchors, dtype=float)
        fa = el.get("force_actuators", [])
        self.force_names = [f.name for f in fa]
        self._fa_bar = np.array([f.bar for f in fa], dtype=int)
        self._fa_s = np.array([f.s for f in fa], dtype=float)
        self._fa_frame_bar = np.array([f.frame == "bar" for f in fa], dtype=bool)
        self._fa_laws = [self._initial_force(model, f) for f in fa]
        ta = el.get("torque_actuators", [])
        self.torque_names = [t.name for t in ta]
        self._ta_bar = np.array([t.bar for t in ta], dtype=int)
        at = [_common_joint(joints, t.bar_a, t.bar) for t in ta]
        self._ta_s = np.array([0.0 if s is None else s for s in at], dtype=float)
        self._ta_init = np.array([self._initial_torque(model, t) for t in ta], dtype=float)
        self._ensure_arrows(len(fa))
        self._scale_key = None

    @staticmethod
    def _initial_force(model, f) -> tuple[float, float] | None:
        """``(fx, fy)`` of a force actuator at t = 0 in its own frame (None: unknown)."""
        found = laws.read_law(model, [f.fx, f.fy])
        if found is not None:
            law = found[1]
            g = float(law.value(0.0))
            return g * math.cos(law.direction), g * math.sin(law.direction)
        fx, fy = laws.constant_value(f.fx), laws.constant_value(f.fy)
        return None if fx is None or fy is None else (fx, fy)

    @staticmethod
    def _initial_torque(model, t) -> float:
        found = laws.read_law(model, [t.torque])
        if found is not None:
            return float(found[1].value(0.0))
        v = laws.constant_value(t.torque)
        return math.nan if v is None else v

    def _ensure_arrows(self, n: int) -> None:
        if self.arrows is not None and self.arrows.N == n:
            return
        if self.arrows is not None:
            self.pane.forget(self.arrows)
            self.arrows.remove()
            self.arrows = None
        if n:
            z = np.zeros(n)
            self.arrows = self.ax.quiver(z, z, z, z, angles="xy", scale_units="xy", scale=1.0,
                                         color=ACTUATOR_COLOR, width=0.007, zorder=7.5)
            self.pane.animate(self.arrows)

    # ------------------------------------------------------------------ geometry
    def _spring_points(self, q: np.ndarray, snap: geo.Snapshot) -> tuple[np.ndarray, ...]:
        L = snap.lengths
        a = geo.points_on_bars(q, L, self._sp_a, self._sp_sa)
        ground = self._sp_b < 0
        b = self._sp_ground.copy()
        if (~ground).any():
            b[~ground] = geo.points_on_bars(q, L, self._sp_b[~ground], self._sp_sb[~ground])
        return a, b

    def _actuator_values(self, q: np.ndarray, trajectory, time: float | None):
        """Return the forces ``(k, 2)`` (N, ground frame) and torques ``(k,)`` (N·m) to draw."""
        k = None
        if trajectory is not None and time is not None and trajectory.n_points:
            k = int(np.argmin(np.abs(trajectory.t - time)))
        forces = np.full((len(self.force_names), 2), np.nan)
        for j, name in enumerate(self.force_names):
            got = None if k is None else trajectory.load_forces.get(name)
            if got is not None:
                forces[j] = np.asarray(got)[k]
            elif self._fa_laws[j] is not None:
                fx, fy = self._fa_laws[j]
                if self._fa_frame_bar[j]:
                    th = q[3 * self._fa_bar[j] + 2]
                    fx, fy = fx * math.cos(th) - fy * math.sin(th), fx * math.sin(th) + \
                        fy * math.cos(th)
                forces[j] = (fx, fy)
        torques = self._ta_init.copy()
        for j, name in enumerate(self.torque_names):
            got = None if k is None else trajectory.load_forces.get(name)
            if got is not None:
                torques[j] = float(np.asarray(got)[k])
        return forces, torques

    def _force_scale(self, trajectory, forces: np.ndarray) -> float:
        """Return the metres per newton of the force arrows.

        The largest force over the motion (or now) is a quarter of the model's size (one scale
        for all frames).
        """
        key = (id(trajectory), tuple(self.force_names))
        if key != self._scale_key:
            mags = [np.hypot(*forces.T)] if len(forces) else []
            if trajectory is not None:
                for name in self.force_names:
                    got = trajectory.load_forces.get(name)
                    if got is not None and np.ndim(got) == 2:
                        mags.append(np.hypot(*np.asarray(got).T))
            vals = np.concatenate(mags) if mags else np.zeros(0)
            vals = vals[np.isfinite(vals)]
            self._scale_key = key
            self._fmax = float(vals.max()) if vals.size else 0.0
        return self._fmax

    # ------------------------------------------------------------------ drawing
    def draw(self, q: np.ndarray, snap: geo.Snapshot, size: float, trajectory=None,
             time: float | None = None) -> np.ndarray:
        """Place every symbol for coordinates ``q``; returns points the view must show."""
        pts = [np.zeros((0, 2))]
        w = 0.022 * size
        if len(self.spring_names):
            a, b = self._spring_points(q, snap)
            self.spring_ends = np.stack([a, b], axis=1)
            spring = (self._sp_k > 0) | (self._sp_c == 0)
            damper = self._sp_c > 0
            both = spring & damper
            off = np.where(both, 1.6 * w, 0.0)
            self.spring_line.set_data(*sym.join(sym.zigzag(a[spring], b[spring], w,
                                                           off[spring])))
            self.damper_line.set_data(*sym.join(sym.piston(a[damper], b[damper],
                                                           self._sp_rest[damper], 1.1 * w,
                                                           -off[damper])))
            ground = self._sp_b < 0
            self.ground_line.set_data(*self._hatches(b[ground], a[ground], 2.2 * w))
            pts += [a, b]
        else:
            self.spring_ends = np.zeros((0, 2, 2))
            for line in (self.spring_line, self.damper_line, self.ground_line):
                line.set_data([], [])
        if len(self.torsion_names):
            L = snap.lengths
            centre = geo.points_on_bars(q, L, self._ts_b, self._ts_s)
            qq = q.reshape(-1, 3)
            th_b = qq[self._ts_b, 2]
            th_a = np.where(self._ts_a >= 0, qq[np.maximum(self._ts_a, 0), 2], 0.0)
            self.coil_line.set_data(*sym.join(sym.coil(centre, th_a, th_b, 0.06 * size)))
        else:
            self.coil_line.set_data([], [])
        forces, torques = self._actuator_values(q, trajectory, time)
        self.forces, self.torques = forces, torques
        if self.arrows is not None:
            at = geo.points_on_bars(q, snap.lengths, self._fa_bar, self._fa_s)
            fmax = self._force_scale(trajectory, forces)
            scale = 0.0 if not fmax > 0 else 0.25 * size / fmax
            uv = np.where(np.isfinite(forces), forces * scale, 0.0)
            self.arrows.set_offsets(np.where(np.isfinite(at), at, 0.0))
            self.arrows.set_UVC(uv[:, 0], uv[:, 1])
            pts += [at, at + uv]
        if len(self.torque_names):
            centre = geo.points_on_bars(q, snap.lengths, self._ta_bar, self._ta_s)
            sign = np.where(np.isfinite(torques), np.sign(torques), 0.0)
            self.arc_line.set_data(*sym.join(sym.torque_arcs(centre, sign, 0.1 * size)))
        else:
            self.arc_line.set_data([], [])
        return np.concatenate(pts)

    @staticmethod
    def _hatches(ground: np.ndarray, towards: np.ndarray, width: float):
        """Draw a short hatched ground line across each spring's axis at its ground end."""
        if len(ground) == 0:
            return np.zeros(0), np.zeros(0)
        d = ground - towards
        n = np.hypot(d[:, 0], d[:, 1])
        e = d / np.where(n > 0, n, 1.0)[:, None]
        p = np.stack([-e[:, 1], e[:, 0]], axis=1)
        pieces = []
        for g, ee, pp in zip(ground, e, p):
            piece = [g - width * pp, g + width * pp, (np.nan, np.nan)]
            for t in np.linspace(-1.0, 0.6, 5):
                s = g + t * width * pp
                piece += [s, s + 0.5 * width * (ee + pp), (np.nan, np.nan)]
            pieces.append(np.array(piece))
        out = np.concatenate(pieces)[:-1]
        return out[:, 0], out[:, 1]

    def fixed_points(self) -> np.ndarray:
        """Return the ground points of the springs (to keep in view during a motion)."""
        g = self._sp_ground
        return g[np.all(np.isfinite(g), axis=1)]

    def artists(self) -> list:
        """Every artist of the layer."""
        return [a for a in (self.spring_line, self.damper_line, self.coil_line,
                            self.ground_line, self.arc_line, self.arrows) if a is not None]

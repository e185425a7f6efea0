r"""The view's drawing of sliders, latches, stops and contacts (floors and walls).

Symbols, all moving with the motion:

* a **pin-in-slot** (``model.add_pin_in_slot``): a groove along the guide bar a, centred on
  the slot line :math:`c_a + s L_a u_a + e\,n_a` for :math:`s \in [-1/2, 1/2]`
  (:math:`u_a = (\cos θ_a, \sin θ_a)`, :math:`n_a = (-\sin θ_a, \cos θ_a)`, offset
  :math:`e`), and the pin (a dot) at the point :math:`s_b` of bar b;
* a **prismatic joint**: the same groove, and a sleeve (a small box along the guide) at the
  point :math:`s_b` of the sliding bar;
* a **ground slider**: a hatched rail on the ground line through :math:`P` at the angle
  :math:`α`, spanning the region of the motion, and a sleeve at the sliding point;
* an **angle stop** on :math:`φ = θ_b - θ_a` (:math:`θ_a = 0` for ground): at the hinge of
  the two bars (their common joint; to ground: the supported point of bar b), a ray where bar
  b lies at the limit, :math:`θ_a + φ_{lim}` (plus π when bar b leaves the hinge backwards,
  i.e. the hinge is at its :math:`s > 0` side), with a hatched wedge on the forbidden side
  (:math:`φ > φ_{lim}` for ``side="max"``);
* a **latch**: at its hinge, a dashed ray at the latch angle :math:`θ_a + φ_L` while open;
  once latched (in the model, or by a ``"latched"`` event of the trajectory up to the frame
  drawn) a solid ray and a filled lock square;
* a **contact**: the hatched line :math:`n\cdot p = h`, :math:`n = (\cos α, \sin α)`
  (hatches on the forbidden side :math:`n\cdot p < h`; one line for contacts sharing it),
  spanning the region of the motion, and a small triangle at the contact point.

Every kind is one matplotlib artist updated in place each frame; the numbers drawn are kept as
attributes (``slot_lines``, ``guide_lines``, ``stop_rays``, ``latch_rays``, ``latched``,
``floor_lines``) so tests can compare them with the model's geometry.
"""

from __future__ import annotations

import math

import numpy as np

from . import _geometry as geo
from ._figure import FigurePane
from ._modelinfo import by_collection

SLOT_COLOR = "#37474f"
STOP_COLOR = "#c62828"
LATCH_OPEN_COLOR = "#6d4c41"
LATCH_CLOSED_COLOR = "#e65100"
FLOOR_COLOR = "#455a64"


def _common_joint_s(joints: list, a: int | None, b: int) -> float | None:
    """Return the point ``s`` of bar ``b`` at a joint it shares with bar ``a`` (None if none)."""
    if a is None:
        return None
    for jt in joints:
        if a in jt.bars and b in jt.bars:
            return float(jt.s[list(jt.bars).index(b)])
    return None


def _hinge_s(joints: list, supports: list, a: int | None, b: int) -> float:
    """Return where a latch or stop of bars ``a`` (None: ground) and ``b`` is drawn on ``b``.

    Their common joint, else bar b's supported point, else its start.
    """
    s = _common_joint_s(joints, a, b)
    if s is not None:
        return s
    for sp in supports:
        if sp.bar == b:
            return float(sp.s)
    return -0.5


def hatched_line(a: np.ndarray, b: np.ndarray, side: np.ndarray, spacing: float,
                 depth: float) -> np.ndarray:
    """Return a line from ``a`` to ``b`` with slanted hatches towards ``side``.

    ``side`` is a unit vector; hatches ``spacing`` apart and ``depth`` long, as one polyline
    with NaN breaks ``(m, 2)``.
    """
    d = b - a
    n = float(np.hypot(*d))
    if not n > 0 or not math.isfinite(n):
        return np.zeros((0, 2))
    u = d / n
    k = max(2, min(int(n / max(spacing, 1e-12)) + 1, 400))
    out = [a, b, (np.nan, np.nan)]
    for t in np.linspace(0.0, n, k):
        p = a + t * u
        out += [p, p + depth * (side - 0.6 * u), (np.nan, np.nan)]
    return np.array(out[:-1], dtype=float)


def _box(centre: np.ndarray, u: np.ndarray, half_long: float, half_wide: float) -> np.ndarray:
    """Return a closed rectangle along ``u`` around ``centre``: ``(5, 2)``."""
    n = np.array([-u[1], u[0]])
    c = [centre + sx * half_long * u + sy * half_wide * n
         for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1), (-1, -1))]
    return np.array(c)


def _cat(pieces: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Polylines ``(m_i, 2)`` as the x and y of one line with NaN breaks."""
    pieces = [p for p in pieces if len(p)]
    if not pieces:
        return np.zeros(0), np.zeros(0)
    gap = np.full((1, 2), np.nan)
    out = np.concatenate([x for p in pieces for x in (p, gap)][:-1])
    return out[:, 0], out[:, 1]


class SwitchLayer:
    """Artists of the sliding and switching elements on a view's axes (module docstring).

    Attributes
    ----------
    slot_line, sleeve_line, rail_line, stop_line, latch_open_line, latch_closed_line,
    floor_line : matplotlib.lines.Line2D
        Grooves, sleeves and pins' boxes, ground rails, stops, open and closed latches,
        floors and walls.
    pin_markers, contact_markers, lock_markers : matplotlib.lines.Line2D
        Pins in slots, contact points, locks of closed latches.
    slot_names, guide_names, stop_names, latch_names, contact_names : list of str
        The elements drawn, in the order of the arrays below (slots: pin-in-slots, then
        prismatic joints).
    slot_lines : numpy.ndarray
        ``(k, 2, 2)``: the ends of every slot's line (s = -1/2, +1/2 of the guide bar,
        shifted by the offset) as drawn now.
    pins : numpy.ndarray
        ``(k, 2)``: the pin (or sleeve centre) of every slot.
    guide_lines : numpy.ndarray
        ``(k, 2, 2)``: the ends of every ground slider's rail.
    stop_rays, latch_rays : numpy.ndarray
        ``(k, 2, 2)``: hinge and tip of the ray of every stop and latch.
    latched : numpy.ndarray
        ``(k,)`` bool: which latches are drawn latched.
    floor_lines : numpy.ndarray
        ``(k, 2, 2)``: the ends of the line of every contact (one per contact, even when
        several share the drawn line).
    """

    def __init__(self, ax, pane: FigurePane) -> None:
        self.ax = ax
        self.pane = pane
        plot = ax.plot
        self.slot_line = plot([], [], color=SLOT_COLOR, lw=1.3, zorder=3.6,
                              solid_capstyle="round")[0]
        self.sleeve_line = plot([], [], color=SLOT_COLOR, lw=1.6, zorder=6.2)[0]
        self.rail_line = plot([], [], color=FLOOR_COLOR, lw=1.2, zorder=2.5)[0]
        self.stop_line = plot([], [], color=STOP_COLOR, lw=1.6, zorder=6.3)[0]
        self.latch_open_line = plot([], [], color=LATCH_OPEN_COLOR, lw=2.0, ls=(0, (4, 2)),
                                    zorder=6.8)[0]
        self.latch_closed_line = plot([], [], color=LATCH_CLOSED_COLOR, lw=2.6, zorder=6.8)[0]
        self.floor_line = plot([], [], color=FLOOR_COLOR, lw=1.2, zorder=2.5)[0]
        self.pin_markers = plot([], [], ls="", marker="o", ms=5, mfc=SLOT_COLOR,
                                mec="white", mew=1.0, zorder=6.6)[0]
        self.contact_markers = plot([], [], ls="", marker="v", ms=6, mfc=FLOOR_COLOR,
                                    mec=FLOOR_COLOR, zorder=6.6)[0]
        self.lock_markers = plot([], [], ls="", marker="s", ms=7, mfc=LATCH_CLOSED_COLOR,
                                 mec="white", mew=0.8, zorder=6.9)[0]
        pane.animate(*self.artists())
        self._span_key: tuple | None = None
        self._span: dict = {}
        self.refresh(None, None)

    # ------------------------------------------------------------------ model
    def refresh(self, model, snap: geo.Snapshot | None) -> None:
        """Read the sliding and switching elements of ``model`` (None: none)."""
        el = by_collection(model)
        joints, supports = el.get("joints", []), el.get("supports", [])
        slots = list(el.get("slots", [])) + list(el.get("prismatic_joints", []))
        self.slot_names = [s.name for s in slots]
        self._sl_a = np.array([s.bar_a for s in slots], dtype=int)
        self._sl_b = np.array([s.bar_b for s in slots], dtype=int)
        self._sl_s = np.array([s.s_b for s in slots], dtype=float)
        self._sl_e = np.array([s.offset for s in slots], dtype=float)
        self._sl_prismatic = np.array([hasattr(s, "phi0") for s in slots], dtype=bool)
        guides = el.get("ground_sliders", [])
        self.guide_names = [g.name for g in guides]
        self._gd_bar = np.array([g.bar for g in guides], dtype=int)
        self._gd_s = np.array([g.s for g in guides], dtype=float)
        self._gd_p = np.array([g.point for g in guides], dtype=float).reshape(-1, 2)
        self._gd_angle = np.array([g.angle for g in guides], dtype=float)
        stops = el.get("angle_stops", [])
        self.stop_names = [s.name for s in stops]
        self._st_a = np.array([-1 if s.bar_a is None else s.bar_a for s in stops], dtype=int)
        self._st_b = np.array([s.bar_b for s in stops], dtype=int)
        self._st_hinge = np.array([_hinge_s(joints, supports, s.bar_a, s.bar_b)
                                   for s in stops], dtype=float)
        self._st_limit = np.array([s.limit for s in stops], dtype=float)
        self._st_max = np.array([s.side == "max" for s in stops], dtype=bool)
        latches = el.get("latches", [])
        self.latch_names = [lt.name for lt in latches]
        self._lt_a = np.array([-1 if lt.bar_a is None else lt.bar_a for lt in latches],
                              dtype=int)
        self._lt_b = np.array([lt.bar_b for lt in latches], dtype=int)
        self._lt_hinge = np.array([_hinge_s(joints, supports, lt.bar_a, lt.bar_b)
                                   for lt in latches], dtype=float)
        self._lt_angle = np.array([lt.angle for lt in latches], dtype=float)
        self._lt_active = np.array([bool(lt.active) for lt in latches], dtype=bool)
        contacts = el.get("contacts", [])
        self.contact_names = [c.name for c in contacts]
        self._ct_bar = np.array([c.bar for c in contacts], dtype=int)
        self._ct_s = np.array([c.s for c in contacts], dtype=float)
        self._ct_alpha = np.array([c.normal_angle for c in contacts], dtype=float)
        self._ct_h = np.array([c.height for c in contacts], dtype=float)
        self.slot_lines = np.zeros((len(slots), 2, 2))
        self.pins = np.zeros((len(slots), 2))
        self.guide_lines = np.zeros((len(guides), 2, 2))
        self.stop_rays = np.zeros((len(stops), 2, 2))
        self.latch_rays = np.zeros((len(latches), 2, 2))
        self.latched = self._lt_active.copy()
        self.floor_lines = np.zeros((len(contacts), 2, 2))
        self._span_key = None

    @property
    def empty(self) -> bool:
        """True when the model has none of these elements."""
        return not (self.slot_names or self.guide_names or self.stop_names
                    or self.latch_names or self.contact_names)

    # ------------------------------------------------------------------ geometry
    def _spans(self, q: np.ndarray, snap: geo.Snapshot, size: float, trajectory) -> dict:
        """Return the along-line extents ``(lo, hi)`` of the rails and floors.

        The bar ends' projections (over the whole motion when there is one, so the line stays
        put), plus a margin.
        """
        key = (id(trajectory), len(self.guide_names), len(self.contact_names),
               None if trajectory is not None else (round(size, 9), q.tobytes()))
        if key == self._span_key:
            return self._span
        if trajectory is not None and trajectory.n_points:
            qs = geo.expand_q(trajectory.q[::max(1, trajectory.n_points // 200)], snap)
            pts = geo.bar_ends(qs, snap.lengths).reshape(-1, 2)
            pts = np.concatenate([pts, geo.bar_ends(q, snap.lengths).reshape(-1, 2)])
        else:
            pts = geo.bar_ends(q, snap.lengths).reshape(-1, 2)
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        margin = 0.15 * size
        spans = {}
        for kind, angles, origins in (("guide", self._gd_angle, self._gd_p),
                                      ("floor", self._ct_alpha + 0.5 * math.pi, None)):
            out = []
            for k, ang in enumerate(angles):
                u = np.array([math.cos(ang), math.sin(ang)])
                o = origins[k] if origins is not None else np.zeros(2)
                t = (pts - o) @ u if len(pts) else np.zeros(1)
                if origins is not None:  # the rail's own point is always on it
                    t = np.append(t, 0.0)
                out.append((float(t.min()) - margin, float(t.max()) + margin))
            spans[kind] = out
        self._span_key, self._span = key, spans
        return spans

    def _latched_at(self, trajectory, time: float | None) -> np.ndarray:
        """Return which latches hold at ``time``.

        Latched in the model, or by a ``"latched"`` event of ``trajectory`` at or before
        ``time``.
        """
        out = self._lt_active.copy()
        if trajectory is None or time is None or not self.latch_names:
            return out
        index = {nm: k for k, nm in enumerate(self.latch_names)}
        for ev in getattr(trajectory, "events", None) or []:
            if not isinstance(ev, dict) or ev.get("what") != "latched":
                continue
            k = index.get(ev.get("name"))
            t = ev.get("t")
            if k is not None and t is not None and float(t) <= time + 1e-12:
                out[k] = True
        return out

    # ------------------------------------------------------------------ drawing
    def draw(self, q: np.ndarray, snap: geo.Snapshot, size: float, trajectory=None,
             time: float | None = None) -> np.ndarray:
        """Place every symbol for coordinates ``q``; returns points the view must show."""
        if self.empty or snap.n_bars == 0:
            for a in self.artists():
                a.set_data([], [])
            return np.zeros((0, 2))
        L = snap.lengths
        qq = q.reshape(-1, 3)
        w = 0.018 * size
        pts = [np.zeros((0, 2))]
        spans = self._spans(q, snap, size, trajectory)
        # slots and prismatic joints ------------------------------------------------------
        grooves, sleeves = [], []
        if self.slot_names:
            th = qq[self._sl_a, 2]
            u = np.stack([np.cos(th), np.sin(th)], axis=1)
            n = np.stack([-np.sin(th), np.cos(th)], axis=1)
            ends = geo.bar_ends(q, L)[self._sl_a] + (self._sl_e[:, None] * n)[:, None, :]
            self.slot_lines = ends
            self.pins = geo.points_on_bars(q, L, self._sl_b, self._sl_s)
            for k in range(len(self.slot_names)):
                a, b = ends[k]
                grooves.append(np.array([a - w * n[k], b - w * n[k], b + w * n[k],
                                         a + w * n[k], a - w * n[k]]))
                if self._sl_prismatic[k]:
                    sleeves.append(_box(self.pins[k], u[k], 2.2 * w, 1.6 * w))
            pts += [ends.reshape(-1, 2)]
        # ground sliders ------------------------------------------------------------------
        rails = []
        if self.guide_names:
            at = geo.points_on_bars(q, L, self._gd_bar, self._gd_s)
            for k, ang in enumerate(self._gd_angle):
                u = np.array([math.cos(ang), math.sin(ang)])
                lo, hi = spans["guide"][k]
                a, b = self._gd_p[k] + lo * u, self._gd_p[k] + hi * u
                self.guide_lines[k] = (a, b)
                rails.append(hatched_line(a, b, -np.array([-u[1], u[0]]), 3 * w, 1.6 * w))
                sleeves.append(_box(at[k], u, 2.2 * w, 1.2 * w))
            pts += [self.guide_lines.reshape(-1, 2)]
        self.slot_line.set_data(*_cat(grooves))
        self.sleeve_line.set_data(*_cat(sleeves))
        self.pin_markers.set_data(*(self.pins[~self._sl_prismatic].T if self.slot_names
                                    else (np.zeros(0), np.zeros(0))))
        self.rail_line.set_data(*_cat(rails))
        # stops ---------------------------------------------------------------------------
        r = 0.14 * size
        wedges = []
        if self.stop_names:
            hinge = geo.points_on_bars(q, L, self._st_b, self._st_hinge)
            th_a = np.where(self._st_a >= 0, qq[np.maximum(self._st_a, 0), 2], 0.0)
            ray = th_a + self._st_limit + np.where(self._st_hinge > 0, math.pi, 0.0)
            tips = hinge + r * np.stack([np.cos(ray), np.sin(ray)], axis=1)
            self.stop_rays = np.stack([hinge, tips], axis=1)
            for k in range(len(self.stop_names)):
                # the forbidden side: beyond the limit, counter-clockwise for "max"
                sgn = 1.0 if self._st_max[k] else -1.0
                arc = ray[k] + sgn * np.linspace(0.0, math.radians(28), 8)
                pa = hinge[k] + 0.75 * r * np.stack([np.cos(arc), np.sin(arc)], axis=1)
                piece = [hinge[k], tips[k], (np.nan, np.nan), *pa]
                for p in pa[1::2]:
                    piece += [(np.nan, np.nan), p, hinge[k] + 0.45 * (p - hinge[k])]
                wedges.append(np.array(piece, dtype=float))
            pts += [tips]
        self.stop_line.set_data(*_cat(wedges))
        # latches -------------------------------------------------------------------------
        if self.latch_names:
            hinge = geo.points_on_bars(q, L, self._lt_b, self._lt_hinge)
            th_a = np.where(self._lt_a >= 0, qq[np.maximum(self._lt_a, 0), 2], 0.0)
            ray = th_a + self._lt_angle + np.where(self._lt_hinge > 0, math.pi, 0.0)
            tips = hinge + 1.1 * r * np.stack([np.cos(ray), np.sin(ray)], axis=1)
            self.latch_rays = np.stack([hinge, tips], axis=1)
            self.latched = self._latched_at(trajectory, time)
            on = self.latched
            hook = []
            for k in range(len(self.latch_names)):
                # a small hook across the ray's tip: the catch the bar snaps into
                e = (tips[k] - hinge[k]) / max(float(np.hypot(*(tips[k] - hinge[k]))), 1e-12)
                nn = np.array([-e[1], e[0]])
                hook.append(np.array([hinge[k], tips[k], tips[k] + 0.8 * w * nn,
                                      tips[k] + 0.8 * w * nn - 1.2 * w * e]))
            self.latch_open_line.set_data(*_cat([h for h, c in zip(hook, on) if not c]))
            self.latch_closed_line.set_data(*_cat([h for h, c in zip(hook, on) if c]))
            self.lock_markers.set_data(hinge[on, 0], hinge[on, 1])
            pts += [tips]
        else:
            for a in (self.latch_open_line, self.latch_closed_line, self.lock_markers):
                a.set_data([], [])
        # contacts ------------------------------------------------------------------------
        floors = []
        if self.contact_names:
            at = geo.points_on_bars(q, L, self._ct_bar, self._ct_s)
            drawn: dict = {}
            for k, (alpha, h) in enumerate(zip(self._ct_alpha, self._ct_h)):
                nvec = np.array([math.cos(alpha), math.sin(alpha)])
                u = np.array([-nvec[1], nvec[0]])
                lo, hi = spans["floor"][k]
                a, b = h * nvec + lo * u, h * nvec + hi * u
                self.floor_lines[k] = (a, b)
                key = (round(math.remainder(alpha, 2 * math.pi), 9), round(h, 12))
                if key in drawn:  # one line for contacts sharing it, long enough for all
                    j = drawn[key]
                    lo0, hi0 = drawn[key + ("span",)]
                    drawn[key + ("span",)] = (min(lo, lo0), max(hi, hi0))
                    lo1, hi1 = drawn[key + ("span",)]
                    floors[j] = hatched_line(h * nvec + lo1 * u, h * nvec + hi1 * u, -nvec,
                                             3 * w, 1.6 * w)
                    continue
                drawn[key] = len(floors)
                drawn[key + ("span",)] = (lo, hi)
                floors.append(hatched_line(a, b, -nvec, 3 * w, 1.6 * w))
            self.contact_markers.set_data(at[:, 0], at[:, 1])
            pts += [self.floor_lines.reshape(-1, 2)]
        else:
            self.contact_markers.set_data([], [])
        self.floor_line.set_data(*_cat(floors))
        out = np.concatenate(pts)
        return out[np.all(np.isfinite(out), axis=1)]

    def artists(self) -> list:
        """Every artist of the layer."""
        return [self.slot_line, self.sleeve_line, self.rail_line, self.stop_line,
                self.latch_open_line, self.latch_closed_line, self.floor_line,
                self.pin_markers, self.contact_markers, self.lock_markers]

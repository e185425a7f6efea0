r"""The view's drawing of particles, rigid bodies and their body elements.

Symbols, all moving with the motion (``q`` in the drawing layout of three numbers per body,
:func:`quivira_widgets._geometry.expand_q`):

* a **particle** (``model.add_particle``): a dot at :math:`(x_i, y_i)`, its area growing with
  its mass, :math:`s = 30 + 150\,m_i/m_{max}` (points²);
* a **rigid body** (``model.add_body``) by its shape: a *disc* of radius :math:`R` as a circle
  about its mass centre with a radius line to :math:`c + R(\cos θ, \sin θ)` showing its
  rotation; a *plate* :math:`w × h` as the rectangle :math:`c + R(θ)(\pm w/2, \pm h/2)`;
  a body without shape as a small cross; its named attachment points
  :math:`c + R(θ)(u, v)` as small dots with their names;
* a **weld**: a filled square at the weld point of body b;
* a **distance link**: a thin line between its two resolved points;
* **rolling** on a line: the hatched ground line (hatches on the side away from the disc),
  spanning the motion; rolling on a fixed ground disc: the ground circle, hatched inside;
* a **joint motor**: a small orange arc arrow at the hinge of its two bodies (their common
  joint; to ground: the supported point of body b, else its mass centre).

The numbers drawn are kept as attributes (``particle_xy``, ``disc_centres``, ``disc_radii``,
``disc_spokes``, ``plate_corners``, ``point_xy``, ``weld_xy``, ``distance_segments``,
``rolling_lines``, ``ground_circles``, ``motor_xy``) so tests can compare them with the
model's geometry.
"""

from __future__ import annotations

import math

import numpy as np

from quivira.elements import PinJoint, Support

from . import _geometry as geo
from ._figure import FigurePane
from ._modelinfo import by_collection, of_kind
from ._switchlayer import _cat, hatched_line
from ._symbols import join, torque_arcs

BODY_COLOR = "#1f5fa8"
BODY_FILL = "#bbdefb"
PARTICLE_COLOR = "#0d47a1"
LINK_COLOR = "#5d4037"
WELD_COLOR = "#37474f"
GROUND_COLOR = "#455a64"
MOTOR_COLOR = "#ef6c00"
POINT_COLOR = "#263238"
MAX_POINT_LABELS = 24
_CIRCLE = np.linspace(0.0, 2.0 * math.pi, 49)


def particle_sizes(masses: np.ndarray) -> np.ndarray:
    """Marker areas (points²) of particles of ``masses``: ``30 + 150 m / m_max``."""
    m = np.asarray(masses, dtype=float)
    if m.size == 0:
        return m
    return 30.0 + 150.0 * m / float(np.max(m))


def _world(q: np.ndarray, body: int | None, uv) -> np.ndarray:
    """Return the point ``uv`` of ``body`` at ``q`` (three per body; ground: ``uv`` itself)."""
    u, v = float(uv[0]), float(uv[1])
    if body is None:
        return np.array([u, v])
    x, y, th = q[3 * body:3 * body + 3]
    c, s = math.cos(th), math.sin(th)
    return np.array([x + u * c - v * s, y + u * s + v * c])


def _resolve(bars: list, body: int | None, ref) -> tuple[float, float]:
    """Body-frame ``(u, v)`` of a point reference (ground: the point itself)."""
    if body is None:
        return float(ref[0]), float(ref[1])
    if ref is None:
        return 0.0, 0.0
    return tuple(bars[body].local_point(ref, "point"))


class BodyLayer:
    """Artists of particles, rigid bodies, welds, links, rolling contacts and motors.

    See the module docstring.

    Attributes
    ----------
    particle_dots : matplotlib.collections.PathCollection
        The particles (areas by mass).
    disc_line, plate_line, link_line, ground_line, motor_line : matplotlib.lines.Line2D
        Disc outlines with their radius lines, plate outlines, distance links, rolling lines
        and ground circles, motor arcs.
    point_markers, weld_markers, centre_markers : matplotlib.lines.Line2D
        Named points, welds, mass centres of bodies without shape.
    particles, discs, plates : list of int
        The bodies drawn as each (indices).
    particle_xy : numpy.ndarray
        ``(k, 2)`` particle positions drawn now; ``particle_size`` their marker areas.
    disc_centres, disc_radii, disc_spokes : numpy.ndarray
        ``(k, 2)``, ``(k,)`` and ``(k, 2, 2)`` (centre, rim point at the body's angle).
    plate_corners : numpy.ndarray
        ``(k, 4, 2)``: the corners ``(-w/2, -h/2), (w/2, -h/2), (w/2, h/2), (-w/2, h/2)``.
    point_names, point_xy : list of str, numpy.ndarray
        ``"body i · name"`` and the positions of the named points.
    weld_names, weld_xy, distance_names, distance_segments : list, numpy.ndarray
        Welds (their point on body b) and links ``(k, 2, 2)``.
    rolling_names, rolling_lines : list, numpy.ndarray
        Rolling-on-line contacts and the ends ``(k, 2, 2)`` of their ground lines.
    ground_circles : numpy.ndarray
        ``(k, 3)``: centre and radius of every fixed ground disc rolled on.
    motor_names, motor_xy : list, numpy.ndarray
        Joint motors and the centres of their arcs.
    """

    def __init__(self, ax, pane: FigurePane) -> None:
        self.ax = ax
        self.pane = pane
        plot = ax.plot
        self.particle_dots = ax.scatter(np.zeros(0), np.zeros(0), s=np.zeros(0),
                                        c=PARTICLE_COLOR, edgecolors="white", linewidths=1.0,
                                        zorder=5.5)
        self.disc_line = plot([], [], color=BODY_COLOR, lw=2.2, zorder=4.2)[0]
        self.plate_line = plot([], [], color=BODY_COLOR, lw=2.2, zorder=4.2)[0]
        self.link_line = plot([], [], color=LINK_COLOR, lw=1.1, zorder=4.1)[0]
        self.ground_line = plot([], [], color=GROUND_COLOR, lw=1.2, zorder=2.5)[0]
        self.motor_line = plot([], [], color=MOTOR_COLOR, lw=1.8, zorder=7.2)[0]
        self.point_markers = plot([], [], ls="", marker="o", ms=3.5, mfc=POINT_COLOR,
                                  mec=POINT_COLOR, zorder=6.4)[0]
        self.weld_markers = plot([], [], ls="", marker="s", ms=7, mfc=WELD_COLOR, mec="white",
                                 mew=0.8, zorder=6.5)[0]
        self.centre_markers = plot([], [], ls="", marker="P", ms=8, mfc=BODY_COLOR,
                                   mec="white", mew=0.8, zorder=5.5)[0]
        self.point_texts: list = []
        pane.animate(*self.artists())
        self._span_key: tuple | None = None
        self._spans: list = []
        self.refresh(None, None)

    # ------------------------------------------------------------------ model
    def refresh(self, model, snap: geo.Snapshot | None) -> None:
        """Read the bodies and body elements of ``model`` (None: none)."""
        bars = [] if model is None else model.bodies
        el = by_collection(model)
        self._bars = bars
        kinds = [getattr(b, "body_kind", "bar") for b in bars]
        self.particles = [i for i, k in enumerate(kinds) if k == "particle"]
        bodies = [i for i, k in enumerate(kinds) if k == "body"]
        self.discs = [i for i in bodies if bars[i].shape.get("kind") == "disc"]
        self.plates = [i for i in bodies if bars[i].shape.get("kind") == "plate"]
        self.bare = [i for i in bodies if i not in self.discs and i not in self.plates]
        self.disc_radii = np.array([bars[i].shape["radius"] for i in self.discs], dtype=float)
        self._plate_wh = np.array([(bars[i].shape["width"], bars[i].shape["height"])
                                   for i in self.plates], dtype=float).reshape(-1, 2)
        self.particle_size = particle_sizes([bars[i].mass for i in self.particles])
        self.particle_dots.set_sizes(self.particle_size)
        self._points = [(i, name, tuple(uv)) for i in bodies
                        for name, uv in (bars[i].points or {}).items()]
        self.point_names = [f"body {i} · {name}" for i, name, _ in self._points]
        self._welds = list(el.get("welds", []))
        self.weld_names = [w.name for w in self._welds]
        self._links = []
        for d in el.get("distances", []):
            self._links.append((d.body_a, _resolve(bars, d.body_a, d.point_a),
                                d.body_b, _resolve(bars, d.body_b, d.point_b)))
        self.distance_names = [d.name for d in el.get("distances", [])]
        self._rolls = []
        for r in el.get("rolling_contacts", []):
            radius = r.radius if r.radius is not None else bars[r.body].radius
            self._rolls.append((r.body, _resolve(bars, r.body, r.centre), float(radius),
                                np.asarray(r.point, dtype=float), float(r.angle)))
        self.rolling_names = [r.name for r in el.get("rolling_contacts", [])]
        circles = []
        for r in el.get("disc_rolling_contacts", []):
            if r.body_a is None:
                circles.append((*_resolve(bars, None, r.centre_a), float(r.radius_a)))
        self.ground_circles = np.array(circles, dtype=float).reshape(-1, 3)
        joints = [] if model is None else of_kind(model, PinJoint)
        sups = [] if model is None else of_kind(model, Support)
        self._motors = []
        for mo in el.get("joint_motors", []):
            self._motors.append(self._hinge(joints, sups, mo.body_a, mo.body_b))
        self.motor_names = [mo.name for mo in el.get("joint_motors", [])]
        self._ensure_texts(self.point_names[:MAX_POINT_LABELS])
        self._span_key = None
        self.particle_xy = np.zeros((0, 2))
        self.disc_centres = np.zeros((0, 2))
        self.disc_spokes = np.zeros((0, 2, 2))
        self.plate_corners = np.zeros((0, 4, 2))
        self.point_xy = np.zeros((0, 2))
        self.weld_xy = np.zeros((0, 2))
        self.distance_segments = np.zeros((0, 2, 2))
        self.rolling_lines = np.zeros((0, 2, 2))
        self.motor_xy = np.zeros((0, 2))

    def _hinge(self, joints: list, sups: list, a: int | None, b: int) -> tuple:
        """Return ``(body, (u, v))`` of the point where a motor of bodies ``a``, ``b`` is drawn."""
        bars = self._bars
        for jt in joints:
            if b in jt.bars and (a is None or a in jt.bars):
                s = float(jt.s[list(jt.bars).index(b)])
                return b, (s * bars[b].length, 0.0)
        for sp in sups:
            if sp.bar == b:
                return b, (float(sp.s) * bars[b].length, 0.0)
        return b, (0.0, 0.0)

    def _ensure_texts(self, names: list[str]) -> None:
        while len(self.point_texts) > len(names):
            t = self.point_texts.pop()
            self.pane.forget(t)
            t.remove()
        while len(self.point_texts) < len(names):
            t = self.ax.text(0.0, 0.0, "", fontsize=7, color=POINT_COLOR, zorder=8,
                             clip_on=True)
            self.pane.animate(t)
            self.point_texts.append(t)
        for t, name in zip(self.point_texts, names):
            t.set_text(" " + name.split(" · ", 1)[1])

    @property
    def empty(self) -> bool:
        """True when the model has no particle, rigid body or body element."""
        return not (self.particles or self.discs or self.plates or self.bare
                    or self.weld_names or self.distance_names or self.rolling_names
                    or len(self.ground_circles) or self.motor_names)

    # ------------------------------------------------------------------ drawing
    def _rolling_spans(self, q: np.ndarray, snap: geo.Snapshot, trajectory) -> list:
        """Return the along-line extents of every rolling line.

        The disc centre's projections over the motion (or at ``q``) plus two radii.
        """
        key = (id(trajectory), len(self._rolls),
               None if trajectory is not None else q.tobytes())
        if key == self._span_key:
            return self._spans
        if trajectory is not None and trajectory.n_points:
            qs = geo.expand_q(trajectory.q[::max(1, trajectory.n_points // 200)], snap)
            qs = np.concatenate([qs, q[None, :]])
        else:
            qs = q[None, :]
        spans = []
        for body, uv, radius, _p, ang in self._rolls:
            t = np.array([math.cos(ang), math.sin(ang)])
            proj = [float(_world(qk, body, uv) @ t) for qk in qs]
            proj = [v for v in proj if math.isfinite(v)]
            lo, hi = (min(proj), max(proj)) if proj else (0.0, 0.0)
            spans.append((lo - 2.0 * radius, hi + 2.0 * radius))
        self._span_key, self._spans = key, spans
        return spans

    def draw(self, q: np.ndarray, snap: geo.Snapshot, size: float, trajectory=None) -> np.ndarray:
        """Place every artist for the (expanded) coordinates ``q``.

        Returns the points drawn ``(m, 2)`` (for the view's limits).
        """
        q = np.asarray(q, dtype=float)
        pts = [np.zeros((0, 2))]
        xy = np.array([q[3 * i:3 * i + 2] for i in self.particles]).reshape(-1, 2)
        self.particle_xy = xy
        self.particle_dots.set_offsets(xy)
        pts.append(xy)
        # discs: outline and radius line
        centres = np.array([q[3 * i:3 * i + 2] for i in self.discs]).reshape(-1, 2)
        th = np.array([q[3 * i + 2] for i in self.discs], dtype=float)
        R = self.disc_radii
        rim = centres + R[:, None] * np.stack([np.cos(th), np.sin(th)], axis=-1).reshape(-1, 2)
        self.disc_centres = centres
        self.disc_spokes = np.stack([centres, rim], axis=1).reshape(-1, 2, 2)
        pieces = []
        for c, r, sp in zip(centres, R, self.disc_spokes):
            pieces.append(np.stack([c[0] + r * np.cos(_CIRCLE), c[1] + r * np.sin(_CIRCLE)],
                                   axis=-1))
            pieces.append(sp)
            pts.append(np.array([c - r, c + r]))
        self.disc_line.set_data(*_cat(pieces))
        # plates
        corners = []
        for i, (w, h) in zip(self.plates, self._plate_wh):
            corners.append([_world(q, i, (sx * w / 2, sy * h / 2))
                            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
        self.plate_corners = np.array(corners, dtype=float).reshape(-1, 4, 2)
        closed = [np.concatenate([c, c[:1]]) for c in self.plate_corners]
        self.plate_line.set_data(*_cat(closed))
        pts.append(self.plate_corners.reshape(-1, 2))
        bare = np.array([q[3 * i:3 * i + 2] for i in self.bare]).reshape(-1, 2)
        self.centre_markers.set_data(bare[:, 0], bare[:, 1])
        pts.append(bare)
        # named points
        self.point_xy = np.array([_world(q, i, uv) for i, _n, uv in self._points],
                                 dtype=float).reshape(-1, 2)
        self.point_markers.set_data(self.point_xy[:, 0], self.point_xy[:, 1])
        for t, p in zip(self.point_texts, self.point_xy):
            t.set_position((float(p[0]), float(p[1])))
        # welds, links
        self.weld_xy = np.array([_world(q, w.body_b, w.point_b) for w in self._welds],
                                dtype=float).reshape(-1, 2)
        self.weld_markers.set_data(self.weld_xy[:, 0], self.weld_xy[:, 1])
        self.distance_segments = np.array(
            [[_world(q, a, ua), _world(q, b, ub)] for a, ua, b, ub in self._links],
            dtype=float).reshape(-1, 2, 2)
        self.link_line.set_data(*join(self.distance_segments))
        pts += [self.weld_xy, self.distance_segments.reshape(-1, 2)]
        # rolling lines and ground circles
        ground, lines = [], []
        spans = self._rolling_spans(q, snap, trajectory) if self._rolls else []
        for (_b, _uv, _r, p, ang), (lo, hi) in zip(self._rolls, spans):
            t = np.array([math.cos(ang), math.sin(ang)])
            n = np.array([-t[1], t[0]])
            base = p - float(p @ t) * t
            a, b = base + lo * t, base + hi * t
            lines.append([a, b])
            ground.append(hatched_line(a, b, -n, 0.04 * size, 0.025 * size))
        self.rolling_lines = np.array(lines, dtype=float).reshape(-1, 2, 2)
        for cx, cy, r in self.ground_circles:
            circ = np.stack([cx + r * np.cos(_CIRCLE), cy + r * np.sin(_CIRCLE)], axis=-1)
            ground.append(circ)
            for a in _CIRCLE[:-1:4]:
                u = np.array([math.cos(a), math.sin(a)])
                hatch = np.array([[cx, cy] + r * u, [cx, cy] + (r - 0.025 * size) * u])
                ground.append(np.vstack([hatch, [np.nan, np.nan]]))
            pts.append(np.array([[cx - r, cy - r], [cx + r, cy + r]]))
        self.ground_line.set_data(*_cat(ground))
        pts.append(self.rolling_lines.reshape(-1, 2))
        # motors
        self.motor_xy = np.array([_world(q, b, uv) for b, uv in self._motors],
                                 dtype=float).reshape(-1, 2)
        arcs = torque_arcs(self.motor_xy, np.ones(len(self.motor_xy)), 0.06 * size)
        self.motor_line.set_data(*join(arcs))
        out = np.concatenate([p.reshape(-1, 2) for p in pts])
        return out[np.all(np.isfinite(out), axis=1)]

    def artists(self) -> list:
        """Every artist of the layer (without the point labels)."""
        return [self.particle_dots, self.disc_line, self.plate_line, self.link_line,
                self.ground_line, self.motor_line, self.point_markers, self.weld_markers,
                self.centre_markers]

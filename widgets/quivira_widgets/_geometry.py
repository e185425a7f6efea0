r"""Where things are: bar ends, joint, support and force points for a pose, vectorized.

A point of bar ``i`` at local coordinate ``s`` is
:math:`(x_i, y_i) + s L_i (\cos θ_i, \sin θ_i)` with ``q = [x_0, y_0, θ_0, x_1, ...]``.

Drawing works on this *expanded* layout, three numbers per body. A model's own ``q`` has two
coordinates per particle (no angle): :func:`expand_q` inserts θ = 0 for them
(:attr:`Snapshot.coord_index`), so every drawing layer reads ``(x, y, θ)`` per body.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from quivira.elements import PinJoint, PointLoad, Support

from ._modelinfo import of_kind


@dataclass
class Snapshot:
    """Numbers of a model needed for drawing, read once through its public read access."""

    lengths: np.ndarray  # (n,)
    masses: np.ndarray  # (n,)
    posed: np.ndarray  # (n,) bool
    q0: np.ndarray  # (3n,), NaN where a bar has no pose
    joint_bars: list[list[int]]
    joint_s: list[list[float]]
    sup_bar: np.ndarray  # (ns,) int
    sup_s: np.ndarray  # (ns,)
    sup_xy: np.ndarray  # (ns, 2) support positions
    sup_free: np.ndarray  # (ns, 2) bool: free in x, free in y
    force_bar: np.ndarray  # (nf,) int
    force_s: np.ndarray  # (nf,)
    force_f: np.ndarray  # (nf, 2)
    force_torque: np.ndarray  # (nf,)
    g: float
    #: (3n,) column of each expanded entry in the model's ``q`` (-1: a particle's θ, 0)
    coord_index: np.ndarray | None = None
    #: number of coordinates of the model's ``q`` (3n without particles)
    n_coords: int = 0
    #: body kind of every body: "bar", "particle" or "body"
    kinds: tuple = ()

    @property
    def n_bars(self) -> int:
        """Number of bars."""
        return int(self.lengths.shape[0])


def snapshot(model) -> Snapshot:
    """Read bars, joints, supports, forces and g of a :class:`quivira.bar_joint_model`."""
    bars = model.bodies
    n = len(bars)
    q0 = np.full(3 * n, np.nan)
    posed = np.zeros(n, dtype=bool)
    for i, b in enumerate(bars):
        if b.pose is not None:
            q0[3 * i:3 * i + 3] = b.pose
            posed[i] = True
    kinds = tuple(getattr(b, "body_kind", "bar") for b in bars)
    index, k = [], 0
    for kind in kinds:
        if kind == "particle":
            index += [k, k + 1, -1]
            k += 2
        else:
            index += [k, k + 1, k + 2]
            k += 3
    joints = of_kind(model, PinJoint)
    sups = of_kind(model, Support)
    forces = of_kind(model, PointLoad)
    return Snapshot(
        lengths=np.array([b.length for b in bars], dtype=float),
        masses=np.array([b.mass for b in bars], dtype=float),
        posed=posed,
        q0=q0,
        joint_bars=[list(j.bars) for j in joints],
        joint_s=[list(j.s) for j in joints],
        sup_bar=np.array([s.bar for s in sups], dtype=int),
        sup_s=np.array([s.s for s in sups], dtype=float),
        sup_xy=np.array([(s.x, s.y) for s in sups], dtype=float).reshape(-1, 2),
        sup_free=np.array([(s.free_x, s.free_y) for s in sups], dtype=bool).reshape(-1, 2),
        force_bar=np.array([f.bar for f in forces], dtype=int),
        force_s=np.array([f.s for f in forces], dtype=float),
        force_f=np.array([(f.fx, f.fy) for f in forces], dtype=float).reshape(-1, 2),
        force_torque=np.array([f.torque for f in forces], dtype=float),
        g=float(model.g),
        coord_index=np.array(index, dtype=int),
        n_coords=k,
        kinds=kinds,
    )


def expand_q(q: np.ndarray, snap: Snapshot) -> np.ndarray:
    """Return the model's coordinates ``q`` in the drawing layout of three per body.

    ``(..., n_coords)`` becomes ``(..., 3n)``: a particle's θ is 0. A ``q`` already of
    length ``3n`` is returned as it is (a model without particles, or an expanded ``q``).
    """
    q = np.asarray(q, dtype=float)
    idx = snap.coord_index
    if idx is None or q.shape[-1] == idx.shape[0]:
        return q
    if q.shape[-1] != snap.n_coords:
        raise ValueError(f"expected {snap.n_coords} coordinates, got {q.shape[-1]}")
    out = q[..., np.maximum(idx, 0)]
    out[..., idx < 0] = 0.0
    return out


def bar_ends(q: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """End points of every bar: ``(..., n, 2, 2)`` as ``[bar][end s=-0.5, s=+0.5][x, y]``.

    ``q`` has shape ``(..., 3n)``; leading dimensions (e.g. time) are kept.
    """
    q = np.asarray(q, dtype=float)
    qq = q.reshape(*q.shape[:-1], -1, 3)
    c = qq[..., :2]
    half = 0.5 * lengths[..., :, None] * np.stack([np.cos(qq[..., 2]), np.sin(qq[..., 2])],
                                                 axis=-1)
    return np.stack([c - half, c + half], axis=-2)


def points_on_bars(q: np.ndarray, lengths: np.ndarray, bars: np.ndarray,
                   s: np.ndarray) -> np.ndarray:
    """Points ``s[k]`` of bars ``bars[k]``: ``(..., k, 2)``."""
    q = np.asarray(q, dtype=float)
    bars = np.asarray(bars, dtype=int)
    s = np.asarray(s, dtype=float)
    qq = q.reshape(*q.shape[:-1], -1, 3)[..., bars, :]
    sl = s * lengths[bars]
    return qq[..., :2] + sl[..., None] * np.stack([np.cos(qq[..., 2]), np.sin(qq[..., 2])],
                                                   axis=-1)


def pose_from_endpoints(x1: float, y1: float, x2: float, y2: float) -> tuple[float, ...]:
    """``(x, y, θ, L)`` of the bar from ``(x1, y1)`` (s = -0.5) to ``(x2, y2)`` (s = +0.5)."""
    L = math.hypot(x2 - x1, y2 - y1)
    return 0.5 * (x1 + x2), 0.5 * (y1 + y2), math.atan2(y2 - y1, x2 - x1), L


def endpoints_from_pose(x: float, y: float, theta: float, length: float) -> tuple[float, ...]:
    """``(x1, y1, x2, y2)``: the ``s = -0.5`` and ``s = +0.5`` ends of a bar."""
    dx, dy = 0.5 * length * math.cos(theta), 0.5 * length * math.sin(theta)
    return x - dx, y - dy, x + dx, y + dy


def extent(points: np.ndarray) -> tuple[float, float, float, float] | None:
    """``(xmin, xmax, ymin, ymax)`` of the finite points in an ``(..., 2)`` array."""
    p = np.asarray(points, dtype=float).reshape(-1, 2)
    p = p[np.all(np.isfinite(p), axis=1)]
    if p.size == 0:
        return None
    return float(p[:, 0].min()), float(p[:, 0].max()), float(p[:, 1].min()), float(p[:, 1].max())

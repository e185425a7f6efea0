"""The shapes of springs, dampers, coils and torque arrows, as polylines, vectorized.

Every function takes the points of ``k`` elements at once and returns an array
``(k, m, 2)`` of polylines of ``m`` vertices each (rows of NaN break a polyline into pieces),
ready to be concatenated into one matplotlib line: drawing a frame is a few numpy operations
whatever the number of elements.

* :func:`zigzag` — a spring from ``a`` to ``b``: straight leads, then a zigzag; with an
  ``offset`` the zigzag runs beside the axis, joined to the ends by brackets (a spring next to
  a damper, as in the symbol of a Kelvin–Voigt element). It starts exactly at ``a`` and ends
  exactly at ``b``.
* :func:`piston` — a damper: a cylinder fixed to ``a``, a rod with its plate fixed to ``b``;
  the cylinder and the rod keep their lengths (fractions of the initial distance), so the
  plate slides in the cylinder as the ends move.
* :func:`coil` — a spiral spring at a joint: it starts along bar a's direction and ends, at
  its outer radius, along bar b's; it winds up as the relative angle grows.
* :func:`torque_arcs` — an arc around a point with an arrow head, counter-clockwise for a
  positive torque.
"""

from __future__ import annotations

import math

import numpy as np

#: zigzag peaks of a spring
N_PEAKS = 12
#: the ends' straight leads, as fractions of the length
LEAD = 0.12


def _frame(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Length ``(k,)``, unit direction and unit normal ``(k, 2)`` from ``a`` to ``b``."""
    d = b - a
    length = np.hypot(d[:, 0], d[:, 1])
    safe = np.where(length > 0, length, 1.0)
    e = np.where((length > 0)[:, None], d / safe[:, None], np.array([1.0, 0.0]))
    n = np.stack([-e[:, 1], e[:, 0]], axis=1)
    return length, e, n


def _place(a: np.ndarray, e: np.ndarray, n: np.ndarray, u: np.ndarray,
           v: np.ndarray) -> np.ndarray:
    """Points ``a + u e + v n`` for ``u``, ``v`` of shape ``(k, m)``: ``(k, m, 2)``."""
    return a[:, None, :] + u[..., None] * e[:, None, :] + v[..., None] * n[:, None, :]


def _zigzag_template() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Fractions of the length, multiples of the offset, multiples of the width."""
    start, end = LEAD + 0.08, 1.0 - LEAD - 0.08
    peaks = start + (end - start) * (np.arange(N_PEAKS) + 0.5) / N_PEAKS
    f = np.concatenate([[0.0, LEAD, LEAD, start], peaks, [end, 1 - LEAD, 1 - LEAD, 1.0]])
    b = np.concatenate([[0.0, 0.0, 1.0, 1.0], np.ones(N_PEAKS), [1.0, 1.0, 0.0, 0.0]])
    z = np.concatenate([[0.0] * 4, np.where(np.arange(N_PEAKS) % 2 == 0, 1.0, -1.0),
                        [0.0] * 4])
    return f, b, z


_ZIGZAG = _zigzag_template()


def zigzag(a: np.ndarray, b: np.ndarray, width: float,
           offset: np.ndarray | float = 0.0) -> np.ndarray:
    """Springs from ``a`` to ``b`` (``(k, 2)`` each): ``(k, m, 2)`` polylines.

    Parameters
    ----------
    a, b : numpy.ndarray
        The ends.
    width : float
        Half the height of the zigzag (m).
    offset : float or numpy.ndarray
        How far beside the axis the zigzag runs (per spring; 0 on the axis).
    """
    a = np.asarray(a, dtype=float).reshape(-1, 2)
    b = np.asarray(b, dtype=float).reshape(-1, 2)
    length, e, n = _frame(a, b)
    f, bo, z = _ZIGZAG
    off = np.broadcast_to(np.asarray(offset, dtype=float), length.shape)
    u = length[:, None] * f[None, :]
    v = off[:, None] * bo[None, :] + width * z[None, :]
    out = _place(a, e, n, u, v)
    out[:, -1] = b  # exactly at the end, whatever the rounding
    return out


#: the damper's vertices: (fraction of the length, multiple of the rest distance, multiple of
#: the offset, multiple of the cylinder's half height); NaN rows break the polyline, and the
#: plate's two vertices (index 10, 11) and the rod's start (13) are placed by :func:`piston`
_NAN = (math.nan,) * 4
_PISTON = np.array([
    (0.0, 0.0, 0.0, 0.0), (LEAD, 0.0, 0.0, 0.0), (LEAD, 0.0, 1.0, 0.0),  # lead, bracket
    _NAN,
    (LEAD, 0.5, 1.0, -1.0), (LEAD, 0.0, 1.0, -1.0), (LEAD, 0.0, 1.0, 1.0),  # cylinder
    (LEAD, 0.5, 1.0, 1.0),
    _NAN, _NAN,
    (0.0, 0.0, 1.0, -0.75), (0.0, 0.0, 1.0, 0.75),  # plate (placed below)
    _NAN,
    (0.0, 0.0, 1.0, 0.0), (1 - LEAD, 0.0, 1.0, 0.0),  # rod
    (1 - LEAD, 0.0, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0),  # bracket, lead
])
_PLATE = (10, 11, 13)


def piston(a: np.ndarray, b: np.ndarray, rest: np.ndarray, width: float,
           offset: np.ndarray | float = 0.0) -> np.ndarray:
    """Dampers from ``a`` to ``b``: ``(k, m, 2)`` polylines (see the module docstring).

    Parameters
    ----------
    a, b : numpy.ndarray
        The ends ``(k, 2)``.
    rest : numpy.ndarray
        A reference distance of each damper's ends (the initial one): the cylinder is half
        of it long.
    width : float
        The cylinder's half height (m).
    offset : float or numpy.ndarray
        How far beside the axis the damper runs (negative: the other side).
    """
    a = np.asarray(a, dtype=float).reshape(-1, 2)
    b = np.asarray(b, dtype=float).reshape(-1, 2)
    length, e, n = _frame(a, b)
    rest = np.asarray(rest, dtype=float).reshape(-1)
    rest = np.where(np.isfinite(rest) & (rest > 0), rest, length)
    off = np.broadcast_to(np.asarray(offset, dtype=float), length.shape)
    t = _PISTON
    u = length[:, None] * t[None, :, 0] + rest[:, None] * t[None, :, 1]
    v = off[:, None] * t[None, :, 2] + width * t[None, :, 3]
    # the plate: a fixed rod length from b, kept inside the cylinder
    c0, c1 = LEAD * length, LEAD * length + 0.5 * rest
    plate = np.clip((1 - LEAD) * length - 0.42 * rest, c0 + 0.06 * rest, c1 - 0.03 * rest)
    for j in _PLATE:
        u[:, j] = plate
    out = _place(a, e, n, u, v)
    out[:, -1] = b
    return out


def _wrap(angle: np.ndarray) -> np.ndarray:
    """Angles in (-π, π]."""
    return np.pi - np.mod(np.pi - angle, 2 * np.pi)


def coil(centre: np.ndarray, theta_a: np.ndarray, theta_b: np.ndarray, radius: float,
         turns: float = 2.0, m: int = 40) -> np.ndarray:
    """Return spiral springs at ``centre`` ``(k, 2)`` as ``(k, m, 2)`` polylines.

    See the module docstring; ``theta_a`` is 0 for a spring to ground.
    """
    centre = np.asarray(centre, dtype=float).reshape(-1, 2)
    th_a = np.asarray(theta_a, dtype=float).reshape(-1)
    th_b = np.asarray(theta_b, dtype=float).reshape(-1)
    span = 2 * np.pi * turns + _wrap(th_b - th_a)
    u = np.linspace(0.0, 1.0, m)
    ang = th_a[:, None] + u[None, :] * span[:, None]
    r = radius * (0.15 + 0.85 * u)[None, :]
    return centre[:, None, :] + np.stack([r * np.cos(ang), r * np.sin(ang)], axis=-1)


def torque_arcs(centre: np.ndarray, sign: np.ndarray, radius: float,
                m: int = 24) -> np.ndarray:
    """Return arcs with arrow heads around ``centre`` ``(k, 2)`` turning as ``sign``.

    ``sign`` +1 counter-clockwise, -1 clockwise; 0 draws nothing: ``(k, m + 4, 2)`` with NaN
    breaks.
    """
    centre = np.asarray(centre, dtype=float).reshape(-1, 2)
    sgn = np.asarray(sign, dtype=float).reshape(-1)
    a = np.linspace(math.radians(-50), math.radians(210), m)[None, :] * np.where(
        sgn == 0, 1.0, sgn)[:, None]
    x = centre[:, 0:1] + radius * np.cos(a)
    y = centre[:, 1:2] + radius * np.sin(a)
    s = np.where(sgn == 0, 1.0, sgn)
    tx, ty = -np.sin(a[:, -1]) * s, np.cos(a[:, -1]) * s
    nx, ny = -ty, tx
    h = 0.45 * radius
    ex, ey = x[:, -1], y[:, -1]
    hx = np.stack([ex - h * tx + 0.6 * h * nx, ex, ex - h * tx - 0.6 * h * nx], axis=1)
    hy = np.stack([ey - h * ty + 0.6 * h * ny, ey, ey - h * ty - 0.6 * h * ny], axis=1)
    nan = np.full((len(sgn), 1), np.nan)
    out = np.stack([np.hstack([x, nan, hx]), np.hstack([y, nan, hy])], axis=-1)
    out[sgn == 0] = np.nan
    return out


def join(polylines: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(k, m, 2)`` polylines as the x and y of one line, a NaN row between them."""
    p = np.asarray(polylines, dtype=float)
    if p.size == 0:
        return np.zeros(0), np.zeros(0)
    k, m, _ = p.shape
    out = np.full((k, m + 1, 2), np.nan)
    out[:, :m] = p
    flat = out.reshape(-1, 2)[:-1]
    return flat[:, 0], flat[:, 1]

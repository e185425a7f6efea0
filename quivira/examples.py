"""Ready-made linkages for lessons, benchmarks and tests.

Each function returns a new :class:`~quivira.bar_joint_model` whose initial pose satisfies
its constraints exactly (up to rounding) and whose bars are at rest.
"""

from __future__ import annotations

import math

from .model import bar_joint_model


def chain(n_bars: int, *, length: float = 1.0, mass: float = 1.0, angle: float = -0.3,
          g: float = 9.81) -> bar_joint_model:
    """A chain of ``n_bars`` uniform bars, pinned to the origin at the ``s = -0.5`` end of bar 0,
    consecutive bars joined end to end, all at ``angle`` (radians from the +x axis)."""
    if not isinstance(n_bars, int) or n_bars < 1:
        raise ValueError(f"n_bars must be a positive integer, got {n_bars!r}")
    m = bar_joint_model()
    m.set_g(g)
    c, s = math.cos(angle), math.sin(angle)
    for i in range(n_bars):
        m.add_bar_at_attitude((i + 0.5) * length * c, (i + 0.5) * length * s, angle, length, mass)
    m.add_support(0, -0.5, False, False, 0.0, 0.0)
    for i in range(n_bars - 1):
        m.add_joint([i, i + 1], [0.5, -0.5])
    return m


def four_bar(crank: float = 1.0, coupler: float = 3.0, rocker: float = 2.5,
             ground: float = 3.0, crank_angle: float = math.pi / 3, *,
             mass_per_length: float = 1.0, g: float = 9.81) -> bar_joint_model:
    """A four-bar linkage: ground pins at ``(0, 0)`` and ``(ground, 0)``; bar 0 the crank,
    bar 1 the coupler, bar 2 the rocker, closed in the "elbow-up" assembly.

    The defaults form a Grashof crank-rocker (shortest + longest ≤ sum of the other two,
    with the crank the shortest link).
    """
    ax, ay = crank * math.cos(crank_angle), crank * math.sin(crank_angle)
    bx, by = ground, 0.0
    d = math.hypot(bx - ax, by - ay)
    if d > coupler + rocker or d < abs(coupler - rocker):
        raise ValueError("four_bar: the links cannot close at this crank angle "
                         f"(distance {d:.4g} between crank tip and rocker pivot)")
    # circle intersection: crank tip A, rocker pivot B; point C at |AC| = coupler, |BC| = rocker
    a = (coupler ** 2 - rocker ** 2 + d ** 2) / (2 * d)
    h = math.sqrt(max(coupler ** 2 - a ** 2, 0.0))
    ex, ey = (bx - ax) / d, (by - ay) / d
    cx, cy = ax + a * ex - h * ey, ay + a * ey + h * ex
    m = bar_joint_model()
    m.set_g(g)
    m.add_bar_from_point_pair((0.0, 0.0), (ax, ay), mass_per_length)
    m.add_bar_from_point_pair((ax, ay), (cx, cy), mass_per_length)
    m.add_bar_from_point_pair((bx, by), (cx, cy), mass_per_length)
    m.add_support(0, -0.5, False, False)
    m.add_support(2, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.5])
    return m


def scissor(cells: int, *, length: float = 1.0, angle: float = 0.6,
            mass_per_length: float = 1.0, g: float = 9.81) -> bar_joint_model:
    """A vertical scissor lattice of ``cells`` X-cells of bars of ``length`` at ``angle``.

    Bar ``2c`` rises to the right and bar ``2c + 1`` to the left in cell ``c``; joints are found
    by :meth:`~quivira.bar_joint_model.infer_joints` (centres and cell corners). Bar 0's lower
    end is pinned, bar 1's lower end is on a roller free in x, so the lattice has one degree
    of freedom and collapses under gravity towards the flat (singular) pose.
    """
    if not isinstance(cells, int) or cells < 1:
        raise ValueError(f"cells must be a positive integer, got {cells!r}")
    m = bar_joint_model()
    m.set_g(g)
    h, w = length * math.sin(angle), length * math.cos(angle)
    for c in range(cells):
        y0 = c * h
        m.add_bar_from_point_pair((0.0, y0), (w, y0 + h), mass_per_length)
        m.add_bar_from_point_pair((w, y0), (0.0, y0 + h), mass_per_length)
    m.infer_joints()
    m.add_support(0, -0.5, False, False)
    m.add_support(1, -0.5, True, False)
    return m

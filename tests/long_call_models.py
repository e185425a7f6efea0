"""Small systems shared by the tests of budgets and Ctrl-C (``unit/test_budgets.py``,
``unit/test_interrupts.py``): importable because ``tests/conftest.py`` puts ``tests/`` on
``sys.path``."""

from __future__ import annotations

import math

import heyoka as hy
import numpy as np

import quivira as qv

G = 9.81

#: crank angles of 1000 turns of a four-bar's crank, for sweeps long enough to interrupt
TURNS = np.linspace(math.pi / 3, math.pi / 3 + 2000 * math.pi, 100_001)


def pendulum() -> qv.BarJointModel:
    """A unit bar pinned at one end, released at 0.9 rad from the vertical."""
    m = qv.BarJointModel()
    th = -0.9
    m.add_bar_at_attitude(0.5 * math.cos(th), 0.5 * math.sin(th), th, 1.0, 1.0)
    m.add_support(0, -0.5, dof_in_x=False, dof_in_y=False, x=0.0, y=0.0)
    return m


def circle():
    """A point mass on a circle of radius 1 (Cartesian coordinates, one holonomic row).

    Returns ``(lagrangian, rows, q, qd, initial state)`` for ``quivira.simulate_system``.
    """
    x, y, u, v = hy.make_vars("x", "y", "u", "v")
    lag = (u * u + v * v) / 2 - G * y
    return lag, [x * x + y * y - 1.0], [x, y], [u, v], [math.sin(0.8), -math.cos(0.8), 0, 0]

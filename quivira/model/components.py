"""Data records of a planar bar-joint model and the validation of their values.

A bar ``i`` has generalized coordinates ``(x_i, y_i, θ_i)`` of its centre. The point at the
local coordinate ``s ∈ [-0.5, 0.5]`` is

.. math:: p_i(s) = (x_i, y_i) + s L_i (\\cos θ_i, \\sin θ_i),

its inertia about the centre is :math:`m_i L_i^2 / 12`.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field
from typing import Any


def check_real(value: Any, what: str) -> float:
    """Return ``value`` as a float, or raise ValueError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        try:
            import numpy as np

            if isinstance(value, np.generic) and np.isrealobj(value) and value.ndim == 0:
                value = float(value)
            else:
                raise TypeError
        except TypeError:
            raise ValueError(f"{what} must be a real number, got {value!r}") from None
    v = float(value)
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, got {v}")
    return v


def check_positive(value: Any, what: str) -> float:
    """Return ``value`` as a positive finite float, or raise ValueError naming ``what``."""
    v = check_real(value, what)
    if v <= 0.0:
        raise ValueError(f"{what} must be positive, got {v}")
    return v


def check_s(value: Any, what: str) -> float:
    """Return a local bar coordinate in ``[-0.5, 0.5]``, or raise ValueError."""
    v = check_real(value, what)
    if not -0.5 <= v <= 0.5:
        raise ValueError(f"{what} must lie in [-0.5, 0.5] (bar ends at ±0.5), got {v}")
    return v


#: default Baumgarte rate α in 1/s: drift of the constraints decays as exp(-α t); fast against
#: the motion of linkages of metre-sized bars (periods of a second or so), slow against the
#: integrator's steps, so it costs no extra steps (benchmarks/results: chains, lattices)
DEFAULT_STABILIZATION = 10.0


def check_stabilization(value: Any, what: str = "stabilization") -> float:
    """Return a Baumgarte rate: a finite number >= 0 (0 = off), or raise ValueError."""
    v = check_real(value, what)
    if v < 0.0:
        raise ValueError(f"{what} must be >= 0 (a rate in 1/s; 0 switches it off), got {v}")
    return v


def check_flag(value: Any, what: str) -> bool:
    """Return ``value`` as bool if it is a bool (or 0/1), else raise ValueError."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    try:
        import numpy as np

        if isinstance(value, np.bool_):
            return bool(value)
    except ImportError:  # pragma: no cover
        pass
    raise ValueError(f"{what} must be True or False, got {value!r}")


@dataclass
class Bar:
    """A rigid bar: length, mass, and its initial pose and velocity (None until set)."""

    length: float
    mass: float
    pose: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def point(self, s: float) -> tuple[float, float]:
        """Initial position of the point at local coordinate ``s``."""
        x, y, th = self.pose
        return x + s * self.length * math.cos(th), y + s * self.length * math.sin(th)


@dataclass
class Joint:
    """A pin joint making the points ``s[k]`` of the bars ``bars[k]`` coincide."""

    bars: list[int]
    s: list[float]


@dataclass
class Support:
    """A support of the point ``s`` of a bar; ``free_x``/``free_y`` True means a roller."""

    bar: int
    s: float
    free_x: bool
    free_y: bool
    x: float
    y: float


@dataclass
class Force:
    """A constant point force ``(fx, fy)`` at ``s`` on a bar, plus a torque (counter-clockwise)."""

    bar: int
    s: float
    fx: float
    fy: float
    torque: float = 0.0


@dataclass
class CoordinateConstraint:
    """Exudyn-style coordinate-vector constraint between the ``(x, y, θ)`` of two bars.

    .. math:: c = X_1 q_1 + Y_1 q_1^2 - X_0 q_0 - Y_0 q_0^2 - v_{off} = 0

    (squares element-wise; ``None`` for a bar means ground; empty matrices are ``None``).
    With ``velocity_level`` the same with velocities; ``active`` False makes the rows
    :math:`\\lambda = 0`.
    """

    bar0: int | None
    bar1: int | None
    X0: list | None
    X1: list | None
    Y0: list | None
    Y1: list | None
    offset: list
    velocity_level: bool
    active: bool
    name: str

    @property
    def n_rows(self) -> int:
        """Number of equations."""
        return len(self.offset)


@dataclass
class UserConstraint:
    """Constraint rows given as heyoka expressions of the coordinates (and ``hy.time``);
    with ``velocity_level`` rows linear in the velocities, :math:`A(q,t)\\dot q + b = 0`."""

    exprs: list
    name: str
    velocity_level: bool = False


@dataclass
class KnifeEdge:
    """A knife edge (skate) at the point ``s`` of a bar: no velocity across the bar there."""

    bar: int
    s: float
    name: str


@dataclass
class ModelData:
    """Everything that defines a model; copied before edits so failed edits change nothing."""

    bars: list[Bar] = field(default_factory=list)
    joints: list[Joint] = field(default_factory=list)
    supports: list[Support] = field(default_factory=list)
    forces: list[Force] = field(default_factory=list)
    coordinate_constraints: list[CoordinateConstraint] = field(default_factory=list)
    user_constraints: list[UserConstraint] = field(default_factory=list)
    knife_edges: list[KnifeEdge] = field(default_factory=list)
    g: float = 9.81
    #: Baumgarte rate α (1/time) pulling drifted states back onto the constraints
    #: (see :mod:`quivira.model.assembly`); 0 switches the stabilization off
    stabilization: float = DEFAULT_STABILIZATION

    def copy(self) -> ModelData:
        """An independent copy (what an edit works on until it is committed)."""
        def rec(r):
            c = copy.copy(r)
            for name, v in vars(c).items():
                if isinstance(v, list):
                    setattr(c, name, [list(x) if isinstance(x, list) else x for x in v])
            return c

        return ModelData([rec(b) for b in self.bars], [rec(j) for j in self.joints],
                         [rec(s) for s in self.supports], [rec(f) for f in self.forces],
                         [rec(c) for c in self.coordinate_constraints],
                         [rec(u) for u in self.user_constraints],
                         [rec(k) for k in self.knife_edges], self.g, self.stabilization)

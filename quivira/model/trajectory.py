"""Simulation results: :class:`Trajectory` and :class:`SingularConfigurationError`.

Reaction forces are read off the multipliers. For a joint of bars :math:`b_0, b_1, \\ldots`
the rows :math:`p_{b_k} - p_{b_0} = 0` give :math:`J^T\\lambda` = a point force
:math:`(\\lambda_{k,x}, \\lambda_{k,y})` at the joint point of bar :math:`b_k`, and
:math:`-\\sum_k \\lambda_k` on bar :math:`b_0`. For a support, :math:`\\lambda` of its fixed
direction is the force the support exerts on the bar. Signs: **the force the joint or support
exerts on the bar**, in the global frame, in the units of the model (newtons for SI data).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class ReactionForce:
    """Force (global x, y) that a joint or support exerts on one bar along a trajectory."""

    kind: str
    index: int
    bar: int
    force: np.ndarray  # (n_points, 2)

    @property
    def label(self) -> str:
        """A readable name, e.g. ``"joint 2 on bar 3"``."""
        return f"{self.kind} {self.index} on bar {self.bar}"


@dataclass
class Trajectory:
    """The motion of a model on an output grid.

    Attributes
    ----------
    t : ndarray (n_points,)
        Output times.
    q, qd : ndarray (n_points, n)
        Coordinates and velocities, per bar ``(x, y, θ)`` of its centre.
    lambda_mult : ndarray (n_points, m)
        Lagrange multipliers, one column per constraint row (``J^T λ`` is the generalized
        constraint force).
    constraint_labels : list of str
        One label per row, e.g. ``"joint 2 · bar 3 · x"``, ``"support 0 · y"``.
    energy, kinetic_energy, potential_energy : ndarray (n_points,)
        Mechanical energy :math:`T + V`, with :math:`V` the gravity potential plus the
        potential :math:`-(f\\cdot p + τθ)` of the constant applied loads (so ``energy`` is
        conserved by the exact motion).
    position_residual, velocity_residual : ndarray (n_points, m)
        :math:`F(q)` and :math:`J \\dot q` at every output time.
    singularity : ndarray (n_points,)
        :math:`\\min_k d_k/W_{kk}` (1 well-conditioned, → 0 near a singular pose).
    reactions : list of ReactionForce
        The force of every joint and support on every bar it touches.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lambda_mult: np.ndarray
    constraint_labels: list[str]
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray
    singularity: np.ndarray
    reactions: list[ReactionForce] = field(default_factory=list)
    info: dict = field(default_factory=dict)

    @property
    def energy(self) -> np.ndarray:
        """Total mechanical energy ``kinetic_energy + potential_energy``."""
        return self.kinetic_energy + self.potential_energy

    @property
    def states(self) -> np.ndarray:
        """States ``[q, qd]`` of shape ``(n_points, 2n)``."""
        return np.hstack([self.q, self.qd])

    @property
    def n_points(self) -> int:
        """Number of output times."""
        return self.t.shape[0]

    def max_position_residual(self) -> float:
        """Largest :math:`|F(q)|` over the trajectory."""
        r = self.position_residual
        return float(np.max(np.abs(r))) if r.size else 0.0

    def max_velocity_residual(self) -> float:
        """Largest :math:`|J \\dot q|` over the trajectory."""
        r = self.velocity_residual
        return float(np.max(np.abs(r))) if r.size else 0.0

    def relative_energy_error(self) -> float:
        """:math:`\\max_t |E(t) - E(0)| / \\max(|E(0)|, \\max_t T)`."""
        e = self.energy
        scale = max(abs(e[0]), float(np.max(np.abs(self.kinetic_energy))), 1e-300)
        return float(np.max(np.abs(e - e[0])) / scale)

    def multiplier(self, label: str) -> np.ndarray:
        """Column of :attr:`lambda_mult` with the given constraint label."""
        try:
            return self.lambda_mult[:, self.constraint_labels.index(label)]
        except ValueError:
            raise KeyError(
                f"no constraint labelled {label!r}; labels are {self.constraint_labels}"
            ) from None

    def joint_force(self, joint: int, bar: int) -> np.ndarray:
        """Force ``(n_points, 2)`` that joint ``joint`` exerts on bar ``bar``."""
        return self._reaction("joint", joint, bar)

    def support_force(self, support: int) -> np.ndarray:
        """Force ``(n_points, 2)`` that support ``support`` exerts on its bar."""
        return self._reaction("support", support, None)

    def _reaction(self, kind: str, index: int, bar: int | None) -> np.ndarray:
        for r in self.reactions:
            if r.kind == kind and r.index == index and (bar is None or r.bar == bar):
                return r.force
        raise KeyError(f"no reaction of {kind} {index}" + ("" if bar is None else f" on bar {bar}"))


class SingularConfigurationError(RuntimeError):
    """The integration met a singular pose or a non-finite state and was stopped.

    Attributes
    ----------
    t : float
        Time of the last valid state.
    state : numpy.ndarray
        The last valid state ``[q, qd]``.
    trajectory : Trajectory or None
        The motion on the output grid up to ``t``.
    reason : str
        What was detected.
    """

    def __init__(self, reason: str, t: float, state: np.ndarray, trajectory=None):
        super().__init__(f"{reason} at t = {t:.6g}; the integration was stopped "
                         "(see .t, .state and .trajectory of this exception)")
        self.reason = reason
        self.t = t
        self.state = state
        self.trajectory = trajectory


def reactions_from_multipliers(lam: np.ndarray, row_owner: list[tuple], joints) -> list:
    """Turn multiplier columns into :class:`ReactionForce` records (see module docstring)."""
    n_pts = lam.shape[0]
    out: dict[tuple, np.ndarray] = {}
    order: list[tuple] = []

    def acc(key, axis, values):
        if key not in out:
            out[key] = np.zeros((n_pts, 2))
            order.append(key)
        out[key][:, axis] += values

    for j, jt in enumerate(joints):  # bar b0 first, for a stable order
        acc(("joint", j, jt.bars[0]), 0, 0.0)
    for col, owner in enumerate(row_owner):
        kind, idx, bar, axis = owner[:4]
        a = 0 if axis == "x" else 1
        if kind == "joint":
            acc((kind, idx, bar), a, lam[:, col])
            acc((kind, idx, joints[idx].bars[0]), a, -lam[:, col])
        elif kind == "support":
            acc((kind, idx, bar), a, lam[:, col])
    return [ReactionForce(k[0], k[1], k[2], out[k]) for k in order]

"""Simulation results: :class:`Trajectory` and :class:`SingularConfigurationError`.

Reaction forces are read off the multipliers. For a joint of bars :math:`b_0, b_1, \\ldots`
the rows :math:`p_{b_k} - p_{b_0} = 0` give :math:`J^T\\lambda` = a point force
:math:`(\\lambda_{k,x}, \\lambda_{k,y})` at the joint point of bar :math:`b_k`, and
:math:`-\\sum_k \\lambda_k` on bar :math:`b_0`. For a support, :math:`\\lambda` of its fixed
direction is the force the support exerts on the bar. Signs: **the force the joint or support
exerts on the bar**, in the global frame, in the units of the model (newtons for SI data).
"""

from __future__ import annotations

from collections.abc import Callable
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

    The multipliers, accelerations, singularity measure and reactions are evaluated by a
    second compiled function the first time one of them is read (so a run that needs only
    energies and residuals does not pay for compiling it).

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
    qdd : ndarray (n_points, n)
        Accelerations :math:`\\ddot q` from the equations of motion at each state.
    reactions : list of ReactionForce
        The force of every joint and support on every bar it touches.
    """

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    constraint_labels: list[str]
    kinetic_energy: np.ndarray
    potential_energy: np.ndarray
    position_residual: np.ndarray
    velocity_residual: np.ndarray
    info: dict = field(default_factory=dict)
    #: named constraints: name -> {"kind", "rows", and for coordinate constraints the data}
    constraint_groups: dict = field(default_factory=dict)
    #: returns {"lambda_mult", "qdd", "singularity"}; called once, on first access
    dynamics_source: Callable[[], dict] | None = field(default=None, repr=False)
    #: turns the multipliers into the list of ReactionForce
    reaction_source: Callable[[np.ndarray], list] | None = field(default=None, repr=False)
    _dyn: dict | None = field(default=None, init=False, repr=False)
    _reactions: list | None = field(default=None, init=False, repr=False)

    def _dynamics(self) -> dict:
        if self._dyn is None:
            self._dyn = self.dynamics_source()
        return self._dyn

    @property
    def lambda_mult(self) -> np.ndarray:
        """Multipliers ``(n_points, m)`` (computed by a compiled function on first access)."""
        return self._dynamics()["lambda_mult"]

    @property
    def qdd(self) -> np.ndarray:
        """Accelerations ``(n_points, n)`` from the equations of motion."""
        return self._dynamics()["qdd"]

    @property
    def singularity(self) -> np.ndarray:
        """:math:`\\min_k d_k/W_{kk}` per point (1 well-conditioned, → 0 near singular), with
        :math:`d_k` the pivots of the symbolic LU of W in the solver's row order (the model's
        ``"ordered"`` permutation): a row-order dependent but cheap measure, bounded by
        :math:`σ_{min}(W)/\\max_k W_{kk} \\le \\min_k d_k/W_{kk} \\le 1`."""
        return self._dynamics()["singularity"]

    @property
    def reactions(self) -> list[ReactionForce]:
        """Force of every joint and support on every bar it touches."""
        if self._reactions is None:
            self._reactions = self.reaction_source(self.lambda_mult)
        return self._reactions

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

    def constraint_output(self, constraint: str | int, output: str) -> np.ndarray:
        """Per-constraint outputs, as Exudyn's output variables of a coordinate constraint.

        Parameters
        ----------
        constraint : str or int
            Name of a coordinate, user or knife-edge constraint, or its index.
        output : {"Displacement", "Velocity", "ConstraintEquation", "Force"}
            ``Displacement`` :math:`Δq = q_1 - q_0` and ``Velocity`` :math:`Δv = \\dot q_1 -
            \\dot q_0` of the marker coordinates (no scaling matrices; coordinate constraints
            only); ``ConstraintEquation`` the residual :math:`c` (velocity level: of the
            velocity equation); ``Force`` the multipliers :math:`\\lambda` of its rows.

        Returns
        -------
        numpy.ndarray
            ``(n_points, 3)`` for Displacement/Velocity, ``(n_points, rows)`` otherwise.
        """
        names = list(self.constraint_groups)
        if isinstance(constraint, str):
            if constraint not in self.constraint_groups:
                raise KeyError(f"no constraint named {constraint!r}; constraints are {names}")
            grp = self.constraint_groups[constraint]
        elif isinstance(constraint, (int, np.integer)) and 0 <= constraint < len(names):
            grp = self.constraint_groups[names[int(constraint)]]
        else:
            raise KeyError(f"constraint: expected a name or an index below {len(names)}, got "
                           f"{constraint!r}")
        rows = grp["rows"]
        if output == "Force":
            return self.lambda_mult[:, rows]
        if output in ("Displacement", "Velocity"):
            if grp["kind"] != "cc":
                raise ValueError(f"{output} is defined for coordinate constraints only")
            X = self.q if output == "Displacement" else self.qd
            return _marker(X, grp["bar1"]) - _marker(X, grp["bar0"])
        if output == "ConstraintEquation":
            if grp["kind"] == "cc":
                X = self.qd if grp["velocity_level"] else self.q
                q0, q1 = _marker(X, grp["bar0"]), _marker(X, grp["bar1"])
                c = -np.asarray(grp["offset"])[None, :]
                for mat, v, sign in ((grp["X1"], q1, 1), (grp["Y1"], q1 * q1, 1),
                                     (grp["X0"], q0, -1), (grp["Y0"], q0 * q0, -1)):
                    if mat is not None:
                        c = c + sign * (v @ np.asarray(mat).T)
                return c
            if grp["velocity_level"]:
                return self.velocity_residual[:, rows]
            return self.position_residual[:, rows]
        raise ValueError(f"output must be 'Displacement', 'Velocity', 'ConstraintEquation' or "
                         f"'Force', got {output!r}")

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


def _marker(X: np.ndarray, bar: int | None) -> np.ndarray:
    if bar is None:
        return np.zeros((X.shape[0], 3))
    return X[:, 3 * bar:3 * bar + 3]


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


def constraint_groups(data, row_owner: list[tuple]) -> dict:
    """Rows and data of the named constraints, for :meth:`Trajectory.constraint_output`."""
    groups: dict = {}
    specs = ([("cc", i, c) for i, c in enumerate(data.coordinate_constraints)]
             + [("user", i, u) for i, u in enumerate(data.user_constraints)]
             + [("knife", i, k) for i, k in enumerate(data.knife_edges)])
    for kind, i, c in specs:
        rows = [r for r, o in enumerate(row_owner) if o[0] == kind and o[1] == i]
        g = {"kind": kind, "rows": rows,
             "velocity_level": kind == "knife" or bool(getattr(c, "velocity_level", False))}
        if kind == "cc":
            g.update(bar0=c.bar0, bar1=c.bar1, X0=c.X0, X1=c.X1, Y0=c.Y0, Y1=c.Y1,
                     offset=list(c.offset), active=c.active)
        groups[c.name] = g
    return groups


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

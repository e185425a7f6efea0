"""Results of model queries as plain, frozen, documented data.

Each result is a frozen dataclass. For code written against the earlier dict results, fields
can also be read by key (``check["satisfied"]``, ``mats["J"]``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np


class _ByKey:
    """Read access by key to the fields of a dataclass (``result["name"]``)."""

    def __getitem__(self, key: str):
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def keys(self) -> list[str]:
        """Return the field names."""
        return [f.name for f in fields(self)]

    def __contains__(self, key: object) -> bool:
        return key in self.keys()

    def get(self, key: str, default=None):
        """Return the field ``key``, or ``default`` if there is none."""
        return getattr(self, key) if key in self.keys() else default


@dataclass(frozen=True)
class ConstraintCheck(_ByKey):
    r"""Constraint residuals at one state (:meth:`bar_joint_model.check_constraint_fulfillment`).

    ``bool(check)`` is :attr:`satisfied`.

    Attributes
    ----------
    labels : list of str
        One label per constraint row.
    position : numpy.ndarray (m,)
        :math:`F(q, t)` per row (length units for position rows; 0 for velocity rows).
    velocity : numpy.ndarray (m,)
        :math:`J\dot q` per row (:math:`g(q, \dot q)` for velocity rows), length/time.
    max_position, max_velocity : float
        Their largest absolute values.
    tolerance : float
        The model's tolerance (relative).
    satisfied : bool
        Both maxima within ``tolerance × length_scale`` (positions in length units, velocities
        in length per second).
    length_scale : float
        The model's length scale ℓ (largest bar length or centre coordinate).
    """

    labels: list
    position: np.ndarray
    velocity: np.ndarray
    max_position: float
    max_velocity: float
    tolerance: float
    satisfied: bool
    length_scale: float = 1.0

    def __bool__(self) -> bool:
        """Return ``satisfied``: whether both residual maxima are within the tolerance."""
        return bool(self.satisfied)


@dataclass(frozen=True)
class AssemblyReport(_ByKey):
    """What :meth:`bar_joint_model.assemble` moved.

    Attributes
    ----------
    moved : dict
        Per bar that moved: its ``(Δx, Δy, Δθ)`` (m, m, rad).
    max_move : float
        The largest absolute entry of all moves.
    residual : float
        The largest constraint residual :math:`|F|` after assembling.
    """

    moved: dict
    max_move: float
    residual: float


@dataclass(frozen=True)
class StateMatrices(_ByKey):
    r"""Numbers of the equations at one state (:meth:`bar_joint_model.matrices`).

    Attributes
    ----------
    M : numpy.ndarray (n, n)
        Mass matrix (kg, kg m² on the angles).
    J : numpy.ndarray (m, n)
        Constraint Jacobian.
    W : numpy.ndarray (m, m)
        Delassus matrix :math:`W = J M^{-1} J^T`.
    lambda_mult : numpy.ndarray (m,)
        Multipliers of the Lagrangian equations (no stabilization terms).
    qdd : numpy.ndarray (n,)
        Accelerations.
    labels : list of str
        One label per constraint row.
    rank_J : int
        Numerical rank of J.
    dof : int
        Degrees of freedom :math:`n - \operatorname{rank} J`.
    singularity : float
        Smallest pivot ratio :math:`d_k/W_{kk}` of the factorization of W (1 if none).
    """

    M: np.ndarray
    J: np.ndarray
    W: np.ndarray
    lambda_mult: np.ndarray
    qdd: np.ndarray
    labels: list
    rank_J: int
    dof: int
    singularity: float


@dataclass(frozen=True)
class Sparsity(_ByKey):
    """Structural non-zeros of the model's matrices (:meth:`bar_joint_model.sparsity`).

    Attributes
    ----------
    M, J, W : numpy.ndarray of bool
        True where the entry is not a structural zero of the compiled equations
        (shapes ``(n, n)``, ``(m, n)``, ``(m, m)``).
    """

    M: np.ndarray
    J: np.ndarray
    W: np.ndarray

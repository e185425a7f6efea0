"""The planar bar-joint model and its simulation results.

Layout: :mod:`.core` (the model class, a façade), :mod:`.editing` (data, edits, observers),
:mod:`.elements` (one class per element kind, and their registry), :mod:`.symbolic` and
:mod:`.assembly` (the equations written by the elements), :mod:`.compiled` (heyoka code),
:mod:`.simulator` (cache, checks, simulation), :mod:`.linearize`, :mod:`.persistence`,
:mod:`.trajectory` and :mod:`.results` (plain result data).
"""

from .core import BarJointModel, bar_joint_model
from .results import AssemblyReport, ConstraintCheck, Sparsity, StateMatrices
from .simulator import ConstraintWarning
from .trajectory import (
    BudgetExceededError,
    ReactionForce,
    SimulationInterrupted,
    SingularConfigurationError,
    Trajectory,
)

__all__ = [
    "AssemblyReport",
    "BarJointModel",
    "BudgetExceededError",
    "ConstraintCheck",
    "ConstraintWarning",
    "ReactionForce",
    "SimulationInterrupted",
    "SingularConfigurationError",
    "Sparsity",
    "StateMatrices",
    "Trajectory",
    "bar_joint_model",
]

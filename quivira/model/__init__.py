"""The planar bar-joint model and its simulation results.

Layout: :mod:`.core` (the model class, a façade), :mod:`.editing` (data, edits, observers),
:mod:`.elements` (one class per element kind, and their registry), :mod:`.symbolic` and
:mod:`.assembly` (the equations written by the elements), :mod:`.compiled` (heyoka code),
:mod:`.simulator` (cache, checks, simulation), :mod:`.linearize`, :mod:`.persistence`,
:mod:`.trajectory` and :mod:`.results` (plain result data).
"""

from .core import BarJointModel, bar_joint_model
from .determinacy import IndeterminateMultipliersWarning
from .four_bar import (
    FourBarAnalysis,
    Grashof,
    RockerLimits,
    TransmissionExtremes,
    four_bar_analysis,
    grashof,
)
from .internal_forces import InternalForces
from .kinematics import CouplerCurve, KinematicSweep, Mobility, SweepWarning
from .results import AssemblyReport, ConstraintCheck, Sparsity, StateMatrices
from .simulator import ConstraintWarning, SingularPassWarning
from .statics import EquilibriumError, EquilibriumPath, EquilibriumResult
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
    "CouplerCurve",
    "EquilibriumError",
    "EquilibriumPath",
    "EquilibriumResult",
    "FourBarAnalysis",
    "Grashof",
    "IndeterminateMultipliersWarning",
    "InternalForces",
    "KinematicSweep",
    "Mobility",
    "ReactionForce",
    "RockerLimits",
    "SimulationInterrupted",
    "SingularConfigurationError",
    "SingularPassWarning",
    "Sparsity",
    "StateMatrices",
    "SweepWarning",
    "TransmissionExtremes",
    "Trajectory",
    "bar_joint_model",
    "four_bar_analysis",
    "grashof",
]

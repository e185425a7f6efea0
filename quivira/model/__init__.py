"""The planar bar-joint model and its simulation results."""

from .core import BarJointModel, bar_joint_model
from .simulation import ConstraintCheck, ConstraintWarning
from .trajectory import ReactionForce, SingularConfigurationError, Trajectory

__all__ = [
    "BarJointModel",
    "ConstraintCheck",
    "ConstraintWarning",
    "ReactionForce",
    "SingularConfigurationError",
    "Trajectory",
    "bar_joint_model",
]

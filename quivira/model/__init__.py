"""The planar bar-joint model and its simulation results."""

from .core import BarJointModel, ConstraintCheck, ConstraintWarning, bar_joint_model
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

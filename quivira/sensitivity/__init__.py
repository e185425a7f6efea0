"""Sensitivities of a motion at any order, uncertainty propagation, design by exact gradients.

* :func:`sensitivities` (also ``model.sensitivities``): jets of the state, energies,
  multipliers and terminal-event times from heyoka's variational equations;
* :class:`Sensitivities`: labelled arrays, :meth:`~Sensitivities.taylor_map`,
  :meth:`~Sensitivities.propagate` (mean and covariance for :class:`Normal` and
  :class:`Uniform` parameters);
* :func:`optimize`: scipy.optimize with gradients from the sensitivities.
"""

from ..model.engine_api import register_study
from .analysis import sensitivities, variable_names
from .optimize import Dual, Objective, OptimizeResult, optimize
from .results import Normal, Propagation, Sensitivities, Uniform

register_study("sensitivities", sensitivities)  # model.sensitivities calls it

__all__ = ["Dual", "Normal", "Objective", "OptimizeResult", "Propagation", "Sensitivities",
           "Uniform", "optimize", "sensitivities", "variable_names"]

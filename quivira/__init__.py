"""Quivira: constrained Lagrangian dynamics of planar linkages on heyoka expressions."""

from .linalg import (
    LUFactorization,
    create_block_diagonal,
    gaussian_elimination,
    gaussian_factorize,
    gaussian_solve_factored,
    identity,
    invert_matrix,
)

__version__ = "0.1.0"

__all__ = [
    "LUFactorization",
    "create_block_diagonal",
    "gaussian_elimination",
    "gaussian_factorize",
    "gaussian_solve_factored",
    "identity",
    "invert_matrix",
]

from .lagrangian import (  # noqa: E402
    build_constraint_jacobian,
    build_Jdqd,
    build_mass_matrix,
    find_constrained_accelerations,
    lagrange_eom,
)

__all__ += [
    "build_Jdqd",
    "build_constraint_jacobian",
    "build_mass_matrix",
    "find_constrained_accelerations",
    "lagrange_eom",
]

from .model import (  # noqa: E402
    BarJointModel,
    BudgetExceededError,
    ConstraintCheck,
    ConstraintWarning,
    IndeterminateMultipliersWarning,
    ReactionForce,
    SimulationInterrupted,
    SingularConfigurationError,
    SingularPassWarning,
    Trajectory,
    bar_joint_model,
)

__all__ += [
    "BarJointModel",
    "BudgetExceededError",
    "ConstraintCheck",
    "ConstraintWarning",
    "IndeterminateMultipliersWarning",
    "ReactionForce",
    "SimulationInterrupted",
    "SingularConfigurationError",
    "SingularPassWarning",
    "Trajectory",
    "bar_joint_model",
]

from .model.four_bar import four_bar_analysis, grashof  # noqa: E402
from .model.instant_centres import check_kennedy  # noqa: E402

__all__ += ["check_kennedy", "four_bar_analysis", "grashof"]

from .forms import LagrangeForms, lagrange_forms  # noqa: E402

__all__ += ["LagrangeForms", "lagrange_forms"]

from .sensitivity import Normal, Uniform, optimize, sensitivities  # noqa: E402

__all__ += ["Normal", "Uniform", "optimize", "sensitivities"]

from .system_simulation import simulate_system  # noqa: E402

__all__ += ["simulate_system"]

from .sweeps import grid, sweep  # noqa: E402

__all__ += ["grid", "sweep"]

from . import elements  # noqa: E402  (the kinds for model.add)

__all__ += ["elements"]

"""Sweeps and ensembles: many variants of a model in heyoka batch mode.

On threads or on the workers of any ``concurrent.futures`` executor (Dask included).

``quivira.sweep(model, values, t_end)`` (see :func:`~quivira.sweeps.run.sweep`) and
``quivira.grid(...)`` (all combinations of value axes).
"""

from .results import SweepResult
from .run import OUTPUTS, sweep
from .values import Grid, grid, valid_keys

__all__ = ["OUTPUTS", "Grid", "SweepResult", "grid", "sweep", "valid_keys"]

"""The declared engine API: what studies, widgets and benchmarks may use below the façade.

The user-facing API is the model's methods (:class:`~quivira.model.core.bar_joint_model`).
Code that builds on the model's internals — the sweeps, the sensitivities, the widgets, the
benchmarks — goes through this module instead of private attributes:

* :class:`Engine` (``model.engine``): the model's data, its simulator (compiled-code cache)
  and the one way to make a data snapshot the model's data;
* the checks of simulation settings that every study applies to its own arguments
  (:func:`check_count`, :func:`check_tol`, :func:`check_threshold`, :func:`check_purpose`);
* :func:`register_study` / :func:`study`: a study (such as :mod:`quivira.sensitivity`)
  registers the function behind a model method (``model.sensitivities``), so that the model
  calls it without importing the study (the model never depends on a study).

Examples
--------
>>> import quivira
>>> model = quivira.bar_joint_model()
>>> model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 2.0)
0
>>> engine = model.engine
>>> engine.data.bars[0].mass, engine.data.n_coordinates()
(2.0, 3)
>>> study("sensitivities") is quivira.sensitivities
True
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .data import ModelData
from .editing import ModelEditor
from .simulator import (
    Simulator,
    _check_count,
    _check_purpose,
    _check_threshold,
    _check_tol,
)

__all__ = ["Engine", "check_count", "check_purpose", "check_threshold", "check_tol",
           "register_study", "study"]

#: ``check_count(value, what, minimum)``: ``value`` as an int ≥ ``minimum`` (TypeError,
#: ValueError naming ``what`` otherwise)
check_count = _check_count
#: ``check_tol(tol)``: a relative integration tolerance as a float in (0, 1)
check_tol = _check_tol
#: ``check_threshold(value)``: a singularity threshold (a pivot ratio) as a float in [0, 1)
check_threshold = _check_threshold
#: ``check_purpose(value)``: a compile purpose, ``"interactive"`` or ``"long"``
check_purpose = _check_purpose


class Engine:
    """The engine of one model: its data, its simulator and data replacement.

    Returned by ``model.engine``; meant for studies, widgets and benchmarks, not for users.
    It holds no state of its own: each attribute reads the model's current parts.

    Parameters
    ----------
    editor : ModelEditor
        The model's editor (data, copy-on-write edits, observers).
    simulator : Simulator
        The model's simulator (compiled-code cache, checks, simulation).
    """

    __slots__ = ("_editor", "_simulator")

    def __init__(self, editor: ModelEditor, simulator: Simulator) -> None:
        self._editor = editor
        self._simulator = simulator

    @property
    def data(self) -> ModelData:
        """The model's current data: bars (bodies), elements, g and stabilization.

        A snapshot: every edit of the model builds new data (copy-on-write), so this object is
        not changed by later edits. Read it, or copy it before changing it; never change it in
        place.
        """
        return self._editor.data

    @property
    def simulator(self) -> Simulator:
        """The model's simulator: the compiled-code cache shared by every run of the model.

        ``simulator.compiled(data, tol, purpose, ...)`` returns the compiled system of a data
        snapshot (compiled once per topology and settings).
        """
        return self._simulator

    @property
    def lock(self) -> threading.RLock:
        """The lock under which the simulator's cached integrators are used.

        Hold it while running an integrator taken from :attr:`simulator`'s cache, so that two
        threads never step one integrator at once.
        """
        return self._simulator._lock

    def commit(self, data: ModelData, what: str) -> None:
        """Make ``data`` the model's data, as one edit (revision + 1, observers told ``what``).

        ``data`` is taken as it is (not checked, not copied): pass the data of a model of the
        same kind, such as another model's :attr:`data`, and do not change it afterwards.
        """
        if not isinstance(data, ModelData):
            raise TypeError(f"engine.commit: expected ModelData, got {type(data).__name__}")
        self._editor.commit(data, what)


#: the function behind each study's model method, registered by the study
_STUDIES: dict[str, Callable[..., Any]] = {}


def register_study(name: str, function: Callable[..., Any]) -> None:
    """Register ``function`` as the study ``name`` that the model's method of that name calls.

    The study's package calls this when it is imported (``import quivira`` imports every
    study), so the model calls ``function(model, ...)`` without importing the study.
    """
    if not isinstance(name, str) or not callable(function):
        raise TypeError("register_study: expected a name (str) and a callable")
    _STUDIES[name] = function


def study(name: str) -> Callable[..., Any]:
    """Return the function registered as the study ``name`` (see :func:`register_study`)."""
    try:
        return _STUDIES[name]
    except KeyError:
        raise LookupError(f"no study {name!r} is registered; import quivira (which registers "
                          f"{', '.join(sorted(_STUDIES)) or 'the studies'})") from None

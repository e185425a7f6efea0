"""Warnings that point at the user's line, whatever the depth of the call inside Quivira."""

from __future__ import annotations

import contextlib
import inspect
import os
import warnings

_ROOT = os.path.dirname(os.path.abspath(__file__)) + os.sep
#: frames of decorators that sit between Quivira's own frames (``interrupts_polled``)
_WRAPPERS = {os.path.abspath(contextlib.__file__)}


def _inside_quivira(filename: str) -> bool:
    path = os.path.abspath(filename)
    return path.startswith(_ROOT) or path in _WRAPPERS


def warn_caller(message: str, category: type[Warning]) -> None:
    """Warn with ``category``, attributed to the first frame outside the ``quivira`` package.

    A fixed ``stacklevel`` names the wrong line as soon as a call goes through one more
    function or decorator; this names the user's code (a notebook cell, a script, a test).
    """
    here = inspect.currentframe()
    level, frame = 2, here.f_back if here is not None else None  # 2: this function's caller
    while frame is not None and _inside_quivira(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)

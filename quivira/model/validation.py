"""Validation of the values a model is given: one place for the checks and their messages.

A wrong *type* raises :class:`TypeError` (a string where a number goes, a float where an
index goes), a wrong *value* :class:`ValueError` (a negative length, NaN, an index out of
range); messages name what to fix. Model files are checked by the same functions, and any
problem in a file is a :class:`ValueError` (the file's content is wrong, see
:func:`file_errors`).
"""

from __future__ import annotations

import contextlib
import math
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from .._repr import int_digits, short_repr

#: largest magnitude of a number of the model (lengths, masses, positions, forces, g, ...):
#: products of a few data (L², 1/I = 12/(m L²), m g, the coefficients of W) stay far from
#: overflow and underflow of double precision
MAX_MAGNITUDE = 1e50
#: smallest positive length or mass
MIN_POSITIVE = 1e-50


def check_real(value: Any, what: str) -> float:
    """Return ``value`` as a finite float of magnitude at most :data:`MAX_MAGNITUDE`.

    Raises
    ------
    TypeError
        If it is not a real number (bools are not numbers here).
    ValueError
        If it is not finite or too large.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} must be a real number, got {short_repr(value)}")
    try:
        v = float(value)
    except OverflowError:
        raise ValueError(f"{what} must be finite, got an integer of {int_digits(value)} "
                         "digits") from None
    if not math.isfinite(v):
        raise ValueError(f"{what} must be finite, got {v}")
    if abs(v) > MAX_MAGNITUDE:
        raise ValueError(f"{what} must lie within ±{MAX_MAGNITUDE:g} (larger values overflow "
                         f"the derived quantities), got {v:g}")
    return v


#: deepest nesting of the arrays the model reads (trajectories of states are 2-D)
_MAX_NDIM = 4


def _is_real(x: Any) -> bool:
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def real_array(value: Any, what: str, expected: str = "an array of real numbers"
               ) -> np.ndarray:
    """Return ``value`` as a float array whose every entry passes :func:`check_real`.

    The one way the model reads arrays of numbers (states, poses, matrices, offsets, ...):
    every entry is a real number (bools and strings are not, unlike for
    ``np.asarray(value, dtype=float)``), finite, and of magnitude at most
    :data:`MAX_MAGNITUDE`, the limit of every other number of the model; ints too large for a
    double are refused (``np.asarray`` would raise OverflowError). Shapes are left to the
    caller.

    Parameters
    ----------
    value : array_like
        A numpy array of a real dtype, or a (nested) sequence of real numbers.
    what : str
        Name of the argument in messages.
    expected : str, optional
        What the argument should be, for the TypeError (``"{what} must be {expected}"``).

    Returns
    -------
    numpy.ndarray
        A new float array.

    Raises
    ------
    TypeError
        If ``value`` is not an array or sequence of real numbers (the message names the first
        entry that is not).
    ValueError
        If an entry is not finite or too large (the message names it).
    """
    if isinstance(value, np.ndarray) and value.dtype.kind in "fiu":
        arr = value.astype(float)
    else:
        if isinstance(value, (str, bytes, dict, set, frozenset)) or _is_real(value) \
                or not hasattr(value, "__len__"):
            raise TypeError(f"{what} must be {expected}, got {short_repr(value)}")
        try:
            obj = np.array(value, dtype=object)
        except (TypeError, ValueError, RecursionError):
            raise TypeError(f"{what} must be {expected}, got {short_repr(value)}") from None
        if obj.ndim > _MAX_NDIM:
            raise TypeError(f"{what} must be {expected}, got {short_repr(value)} (nested "
                            f"more than {_MAX_NDIM} levels deep)")
        arr = np.empty(obj.shape)
        for idx, x in np.ndenumerate(obj):
            if not _is_real(x):
                raise TypeError(f"{what} must be {expected}; entry {_index(idx)} is "
                                f"{short_repr(x)}")
            try:
                arr[idx] = float(x)
            except OverflowError:
                raise ValueError(f"{what}: entries must be finite; entry {_index(idx)} is an "
                                 f"integer of {int_digits(x)} digits (not finite in double "
                                 "precision)") from None
    bad = ~np.isfinite(arr)
    if bad.any():
        idx = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{what}: entries must be finite; entry {_index(idx)} ({arr[idx]}) "
                         "is not finite")
    big = np.abs(arr) > MAX_MAGNITUDE
    if big.any():
        idx = tuple(int(i) for i in np.argwhere(big)[0])
        raise ValueError(f"{what}: entries must lie within ±{MAX_MAGNITUDE:g} (larger values "
                         f"overflow the derived quantities); entry {_index(idx)} is "
                         f"{arr[idx]:g}")
    return arr


def _index(idx: tuple) -> str:
    """``3`` for a 1-D index, ``(0, 2)`` for others."""
    return str(idx[0]) if len(idx) == 1 else str(tuple(int(i) for i in idx))


def check_positive(value: Any, what: str) -> float:
    """Return ``value`` as a positive finite float in the allowed range.

    The range is [:data:`MIN_POSITIVE`, :data:`MAX_MAGNITUDE`] (TypeError/ValueError naming
    ``what``).
    """
    v = check_real(value, what)
    if v <= 0.0:
        raise ValueError(f"{what} must be positive, got {v}")
    if v < MIN_POSITIVE:
        raise ValueError(f"{what} must be at least {MIN_POSITIVE:g} (smaller values underflow "
                         f"the derived quantities), got {v:g}")
    return v


def check_nonnegative(value: Any, what: str) -> float:
    """Return ``value`` as a finite float >= 0 (TypeError/ValueError naming ``what``)."""
    v = check_real(value, what)
    if v < 0.0:
        raise ValueError(f"{what} must be >= 0, got {v}")
    return v


def check_s(value: Any, what: str) -> float:
    """Return a local bar coordinate in ``[-0.5, 0.5]`` (the bar's ends are at ±0.5)."""
    v = check_real(value, what)
    if not -0.5 <= v <= 0.5:
        raise ValueError(f"{what} must lie in [-0.5, 0.5] (bar ends at ±0.5), got {v}")
    return v


def check_flag(value: Any, what: str) -> bool:
    """Return ``value`` as a bool: True/False (also numpy's, and the integers 0/1)."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)) and value in (0, 1):
        return bool(value)
    raise TypeError(f"{what} must be True or False, got {short_repr(value)}")


def _integer(value: Any, message: str) -> int:
    """``value`` as an int, or TypeError ``"{message}, got <value>"`` (bools refused)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{message}, got {short_repr(value)}")
    return int(value)


def check_index(value: Any, count: int, what: str) -> int:
    """Return an integer index in ``[0, count)``.

    Raises
    ------
    TypeError
        If it is not an integer (floats, bools and strings are refused).
    ValueError
        If it is out of range.
    """
    i = _integer(value, f"{what} index must be an integer")
    if not 0 <= i < count:
        raise ValueError(f"{what} index {i} out of range (the model has {count})")
    return i


def bar_index(value: Any, n_bars: int, what: str) -> int:
    """Return a bar index in ``[0, n_bars)`` (TypeError/ValueError naming ``what``)."""
    i = _integer(value, f"{what} must be an integer bar index")
    if not 0 <= i < n_bars:
        raise ValueError(f"{what}: bar index {i} out of range (the model has {n_bars} bars)")
    return i


def optional_bar(value: Any, n_bars: int, what: str) -> int | None:
    """Validate a bar index, or None for ground."""
    return None if value is None else bar_index(value, n_bars, what)


def index_list(values: list, n_bars: int, what: str) -> list[int]:
    """Bar indices ``values[k]``, each checked as by :func:`bar_index`."""
    return [bar_index(b, n_bars, f"{what}[{k}]") for k, b in enumerate(values)]


def check_name(value: Any, taken: set | list, what: str = "name") -> str:
    """Validate a name: a non-empty string not in ``taken``."""
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a non-empty string, got {short_repr(value)}")
    if not value:
        raise ValueError(f"{what} must be a non-empty string, got ''")
    if value in taken:
        raise ValueError(f"an element named {short_repr(value)} exists already (names of "
                         "constraints, loads and parameters are unique); choose another name")
    return value


def check_point(p: Any, what: str) -> tuple[float, float]:
    """Validate a pair ``(x, y)`` of finite numbers."""
    try:
        seq = list(p)
    except TypeError:
        raise TypeError(f"{what} must be a pair (x, y), got {short_repr(p)}") from None
    if len(seq) != 2:
        raise ValueError(f"{what} must be a pair (x, y), got {len(seq)} values")
    return check_real(seq[0], f"{what} x"), check_real(seq[1], f"{what} y")


#: default Baumgarte rate α in 1/s: drift of the constraints decays as exp(-α t); fast against
#: the motion of linkages of metre-sized bars (periods of a second or so), slow against the
#: integrator's steps, so it costs no extra steps
DEFAULT_STABILIZATION = 10.0


def check_stabilization(value: Any, what: str = "stabilization") -> float:
    """Validate a Baumgarte rate: a finite number >= 0 in 1/s (0 = off)."""
    v = check_real(value, what)
    if v < 0.0:
        raise ValueError(f"{what} must be >= 0 (a rate in 1/s; 0 switches it off), got {v}")
    return v


# ---------------------------------------------------------------------------- file data
def field(d: Any, key: str, where: str) -> Any:
    """``d[key]`` of a file object; ValueError if ``d`` is not an object or lacks the key."""
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object, got {type(d).__name__}")
    if key not in d:
        raise ValueError(f"{where}: missing key {short_repr(key)}")
    return d[key]


def list_field(d: Any, key: str, where: str) -> list:
    """``d[key]`` that must be a list."""
    v = field(d, key, where)
    if not isinstance(v, list):
        raise ValueError(f"{where}.{key}: expected a list, got {type(v).__name__}")
    return v


def triple(v: Any, where: str) -> tuple[float, float, float]:
    """Validate a list of three finite numbers."""
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError(f"{where}: expected a list of 3 numbers, got {short_repr(v)}")
    return tuple(check_real(x, f"{where}[{k}]") for k, x in enumerate(v))


@contextlib.contextmanager
def file_errors() -> Iterator[None]:
    """Turn TypeErrors of the checks into ValueErrors.

    In a file, a wrong type is a wrong value of the file's content.
    """
    try:
        yield
    except TypeError as exc:
        raise ValueError(str(exc)) from None

"""Validation and classification of matrix and vector entries.

Entries of the symbolic matrices handled by quivira may be Python/NumPy real numbers or
:class:`heyoka.expression` objects. This module converts user input to NumPy object arrays,
checks shapes, and tells *structural* zeros (numeric zeros and the heyoka expression ``0``)
apart from everything else, so that the elimination routines can skip them.

Errors follow one rule: :class:`TypeError` when an argument or entry is of the wrong kind
(a string where a number is expected, a single expression where a sequence is expected),
:class:`ValueError` when it is of the right kind but has a wrong value (a shape, a length,
an expression that is not a single variable, a variable that does not belong).
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import heyoka as hy
import numpy as np

from ._repr import int_digits, short_repr

_ZERO = hy.expression(0.0)


def is_number(x: Any) -> bool:
    """Return True for real Python/NumPy numbers (bools excluded)."""
    t = type(x)
    if t is float or t is int:  # the common cases first: no ABC check (hot in the builds)
        return True
    if t is hy.expression:
        return False
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def is_array_like(x: Any) -> bool:
    """Return True for a NumPy array or a sequence other than a string (list, tuple, ...)."""
    if isinstance(x, np.ndarray):
        return True
    return isinstance(x, Sequence) and not isinstance(x, (str, bytes))


def check_entry(x: Any, name: str, index: tuple | int | None = None) -> None:
    """Raise unless ``x`` is a real number (that a double can hold) or a heyoka expression.

    Raises
    ------
    TypeError
        If ``x`` is neither a real number nor a heyoka expression.
    ValueError
        If ``x`` is an int too large for double precision (``float(x)`` would overflow).
    """
    where = "" if index is None else f" at index {index}"
    if isinstance(x, hy.expression):
        return
    if is_number(x):
        try:
            float(x)
        except OverflowError:
            raise ValueError(f"{name}: an integer of {int_digits(x)} digits{where} is too large "
                             "for double precision") from None
        return
    raise TypeError(
        f"{name}: entries must be real numbers or heyoka expressions, "
        f"got {type(x).__name__} ({short_repr(x)}){where}"
    )


def is_zero(x: Any) -> bool:
    """Return True if ``x`` is a structural zero: a numeric 0 or the heyoka expression 0."""
    if isinstance(x, hy.expression):
        return x == _ZERO
    return x == 0


def as_expression(x: Any) -> hy.expression:
    """Return ``x`` as a heyoka expression (numbers are converted to constants)."""
    if isinstance(x, hy.expression):
        return x
    return hy.expression(float(x))


def flat_sum(terms: list) -> Any:
    """Sum ``terms`` flatly: numeric terms are added in Python, symbolic ones with ``hy.sum``.

    Structural zeros are dropped. The result is a number when no term is symbolic.
    """
    numeric = 0.0
    symbolic = []
    has_numeric = False
    for t in terms:
        if isinstance(t, hy.expression):
            if not t == _ZERO:
                symbolic.append(t)
        elif t != 0:
            numeric += t
            has_numeric = True
    if not symbolic:
        return numeric
    if has_numeric and numeric != 0.0:
        symbolic.append(hy.expression(numeric))
    if len(symbolic) == 1:
        return symbolic[0]
    return hy.sum(symbolic)


def as_matrix(A: Any, name: str, *, square: bool = False) -> np.ndarray:
    """Convert ``A`` to a 2-D object array, checking dimensions and entry types.

    Raises
    ------
    TypeError
        If ``A`` is not an array or a (nested) sequence, or an entry is neither a real number
        nor a heyoka expression.
    ValueError
        If ``A`` is not two-dimensional, or not square when ``square`` is True.
    """
    if not is_array_like(A):
        raise TypeError(
            f"{name}: expected a 2-D array (numpy.ndarray or nested sequence), "
            f"got {type(A).__name__}"
        )
    try:
        arr = np.array(A, dtype=object)
    except ValueError as exc:  # ragged nested sequences
        raise ValueError(
            f"{name}: expected a 2-D array with rows of equal length ({exc})"
        ) from None
    if arr.ndim != 2:
        raise ValueError(f"{name}: expected a 2-D array, got an array with {arr.ndim} dimension(s) "
                         f"and shape {arr.shape}")
    if square and arr.shape[0] != arr.shape[1]:
        raise ValueError(f"{name}: expected a square matrix, got shape {arr.shape}")
    for idx, x in np.ndenumerate(arr):
        check_entry(x, name, idx)
    return arr


def as_vector(v: Any, name: str, length: int | None = None) -> np.ndarray:
    """Convert ``v`` to a 1-D object array of numbers/expressions.

    Column vectors of shape ``(n, 1)`` and row vectors ``(1, n)`` are accepted and flattened.

    Raises
    ------
    TypeError
        If ``v`` is a single number or expression, or not an array or sequence at all, or an
        entry is neither a real number nor a heyoka expression.
    ValueError
        If ``v`` is not vector-shaped or its length differs from ``length``.
    """
    if isinstance(v, hy.expression) or is_number(v):
        raise TypeError(f"{name}: expected a sequence (vector), got a single {type(v).__name__}")
    if not is_array_like(v):
        raise TypeError(
            f"{name}: expected a sequence (vector) or numpy.ndarray, got {type(v).__name__}"
        )
    try:
        arr = np.array(v, dtype=object)
    except ValueError as exc:
        raise ValueError(f"{name}: expected a 1-D sequence ({exc})") from None
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D sequence, got shape {arr.shape}")
    if length is not None and arr.shape[0] != length:
        raise ValueError(f"{name}: expected {length} entries, got {arr.shape[0]}")
    for i, x in enumerate(arr):
        check_entry(x, name, i)
    return arr


def as_variables(v: Sequence, name: str) -> list[hy.expression]:
    """Check that ``v`` is a sequence of distinct heyoka variables and return it as a list.

    Raises
    ------
    TypeError
        If ``v`` is a single expression or not a sequence, or an entry is not a heyoka
        expression.
    ValueError
        If an entry is an expression other than a single variable (``x * y``, ``hy.par[0]``,
        ``hy.time``, a constant), or a variable is repeated.
    """
    if isinstance(v, hy.expression):
        raise TypeError(
            f"{name}: expected a sequence of heyoka variables, got a single expression"
        )
    if not is_array_like(v):
        raise TypeError(
            f"{name}: expected a sequence of heyoka variables, got {type(v).__name__}"
        )
    out = list(v)
    for i, x in enumerate(out):
        msg = (f"{name}: entry {i} must be a heyoka variable (from hy.make_vars), got "
               f"{short_repr(x)}")
        if not isinstance(x, hy.expression):
            raise TypeError(msg)
        if not x == hy.expression(str(x)):
            raise ValueError(msg)
    names = [str(x) for x in out]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{name}: variables must be distinct, repeated: {dup}")
    return out


def stray_variables(x: Any, allowed: set[str]) -> list[str]:
    """Names of the variables of ``x`` (a number or heyoka expression) not in ``allowed``.

    ``hy.time`` and runtime parameters ``hy.par[i]`` are not variables
    (:func:`heyoka.get_variables` does not list them), so they are never stray.
    """
    if not isinstance(x, hy.expression):
        return []
    return sorted(v for v in hy.get_variables(x) if v not in allowed)

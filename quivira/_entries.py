"""Validation and classification of matrix and vector entries.

Entries of the symbolic matrices handled by quivira may be Python/NumPy real numbers or
:class:`heyoka.expression` objects. This module converts user input to NumPy object arrays,
checks shapes, and tells *structural* zeros (numeric zeros and the heyoka expression ``0``)
apart from everything else, so that the elimination routines can skip them.
"""

from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

import heyoka as hy
import numpy as np

_ZERO = hy.expression(0.0)


class EntryTypeError(TypeError, ValueError):
    """An entry is neither a real number nor a :class:`heyoka.expression`.

    Derives from both :class:`TypeError` and :class:`ValueError`, so that callers catching
    either see it.
    """


def is_number(x: Any) -> bool:
    """Return True for real Python/NumPy numbers (bools excluded)."""
    return isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_))


def check_entry(x: Any, name: str, index: tuple | int | None = None) -> None:
    """Raise :class:`EntryTypeError` unless ``x`` is a real number or a heyoka expression."""
    if isinstance(x, hy.expression) or is_number(x):
        return
    where = "" if index is None else f" at index {index}"
    raise EntryTypeError(
        f"{name}: entries must be real numbers or heyoka expressions, "
        f"got {type(x).__name__} ({x!r}){where}"
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
    ValueError
        If ``A`` is not two-dimensional, or not square when ``square`` is True.
    EntryTypeError
        If an entry is neither a real number nor a heyoka expression.
    """
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
    ValueError
        If ``v`` is not vector-shaped or its length differs from ``length``.
    EntryTypeError
        If an entry is neither a real number nor a heyoka expression.
    """
    if isinstance(v, hy.expression) or is_number(v):
        raise ValueError(f"{name}: expected a sequence (vector), got a single {type(v).__name__}")
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
    """Check that ``v`` is a sequence of distinct heyoka variables and return it as a list."""
    if isinstance(v, hy.expression):
        raise ValueError(
            f"{name}: expected a sequence of heyoka variables, got a single expression"
        )
    out = list(v)
    for i, x in enumerate(out):
        if not isinstance(x, hy.expression) or not x == hy.expression(str(x)):
            raise EntryTypeError(
                f"{name}: entry {i} must be a heyoka variable (from hy.make_vars), got {x!r}"
            )
    names = [str(x) for x in out]
    if len(set(names)) != len(names):
        dup = sorted({n for n in names if names.count(n) > 1})
        raise ValueError(f"{name}: variables must be distinct, repeated: {dup}")
    return out

"""Short, bounded text of any value, for error messages.

``repr()`` of a value a user passed can be huge (a list of a million numbers), deep (a list
nested 100,000 times: Python's ``repr`` recurses and raises :class:`RecursionError`) or
impossible (an int of more than 4300 digits: ``repr`` raises :class:`ValueError`). Error
messages therefore show values through :func:`short_repr`, which is bounded in depth and
length and never raises.
"""

from __future__ import annotations

import math
import reprlib
from typing import Any

__all__ = ["int_digits", "short_repr"]

#: ints with more bits than this are shown by their number of digits, not their digits
_LONG_INT_BITS = 128


def int_digits(value: int) -> int:
    """Return the number of decimal digits of ``|value|`` (exact, without converting to str).

    Python refuses to convert ints of more than 4300 digits to strings, so this counts from
    the bit length and corrects by one comparison.
    """
    v = abs(value)
    if v == 0:
        return 1
    estimate = int(math.floor((v.bit_length() - 1) * math.log10(2))) + 1
    return estimate + 1 if v >= 10 ** estimate else estimate


class _Bounded(reprlib.Repr):
    """:class:`reprlib.Repr` with small bounds and long ints shown by their size."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxtuple = self.maxlist = self.maxarray = self.maxset = 6
        self.maxfrozenset = self.maxdeque = 6
        self.maxdict = 4
        self.maxstring = 40
        self.maxlong = 40
        self.maxother = 40

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > _LONG_INT_BITS:
            return f"<int of {int_digits(x)} digits>"
        return super().repr_int(x, level)


_BOUNDED = _Bounded()


def short_repr(value: Any, width: int = 60) -> str:
    """Return a repr of ``value`` of at most about ``width`` characters; never raises.

    Containers are shown to three levels and a few items, long strings and numbers are cut in
    the middle, ints of more than 128 bits are shown as ``<int of N digits>``, and a value
    whose ``repr`` fails (or recurses too deeply) is shown as ``<TypeName>``.

    Parameters
    ----------
    value : Any
        The value to show.
    width : int, optional
        Largest length of the text; longer texts end with ``...``.

    Returns
    -------
    str
        The text.
    """
    try:
        text = _BOUNDED.repr(value)
    except Exception:  # noqa: BLE001 - a failing __repr__ of any kind (RecursionError too)
        text = f"<{type(value).__name__}>"
    return text if len(text) <= width else text[: width - 3] + "..."

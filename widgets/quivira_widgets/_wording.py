"""Messages in the words of the fields: the core's parameter names replaced by what a user sees.

The core names its arguments (``t_end``, ``n_points``, ``bar_index[1]``, ``mass_per_length``);
the panels show fields called *time*, *frames*, *bars*. :func:`plain` rewrites a core message
accordingly; it never drops information (numbers and indices stay).
"""

from __future__ import annotations

import re

_REPLACEMENTS: tuple[tuple[str, str], ...] = (
    (r"\bt_end\b", "the time span"),
    (r"\bn_points\b", "the number of frames"),
    (r"\bmass_per_length\b", "mass per length"),
    (r"\bdof_in_x\b", "'free in x'"),
    (r"\bdof_in_y\b", "'free in y'"),
    (r"\btheta0\b", "θ"),
    (r"\bx0\b", "x"),
    (r"\by0\b", "y"),
    (r"\bsingular_threshold\b", "the singularity threshold"),
    (r"\bmax_wall_s\b", "the time budget"),
    (r"\bmax_steps\b", "the step budget"),
)


def _list_position(match: re.Match) -> str:
    k = int(match.group(1))
    return f"the {_ordinal(k + 1)} bar of the list"


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        suffix = "th"
    else:
        suffix = {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def plain(message: str) -> str:
    """``message`` with the core's argument names replaced by the names of the fields."""
    out = re.sub(r"\bbar_index\[(\d+)\]", _list_position, str(message))
    out = re.sub(r"\bs\[(\d+)\]", lambda m: f"the {_ordinal(int(m.group(1)) + 1)} point s",
                 out)
    out = re.sub(r"\bbar_index\b", "bar", out)
    for pattern, text in _REPLACEMENTS:
        out = re.sub(pattern, text, out)
    return out


def exception_text(exc: BaseException) -> str:
    """Describe an exception raised by the core in one line of plain language."""
    text = plain(str(exc)).strip() or type(exc).__name__
    if isinstance(exc, (TypeError, ValueError, RuntimeError, OSError)):
        return text
    return f"{type(exc).__name__}: {text}"

"""Short facts about a model read through its public API: counts, display rounding."""

from __future__ import annotations


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def counts_line(model) -> str:
    """E.g. ``"3 bars · 2 joints · 2 supports · 0 loads · g = 9.81 m/s²"`` (the words of the
    editor's sections)."""
    return " · ".join([_plural(model.n_bars, "bar"), _plural(len(model.joints), "joint"),
                       _plural(len(model.supports), "support"), _plural(len(model.forces), "load"),
                       f"g = {model.g:g} m/s²"])


def nice(v: float) -> float:
    """``v`` rounded to 12 significant digits, for display in number fields."""
    return float(f"{v:.12g}")

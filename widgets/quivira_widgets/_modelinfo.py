"""Short facts about a model read through its public API: counts and topology."""

from __future__ import annotations


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def counts_line(model) -> str:
    """E.g. ``"3 bars · 2 joints · 2 supports · 0 forces · g = 9.81"``."""
    return " · ".join([_plural(model.n_bars, "bar"), _plural(len(model.joints), "joint"),
                       _plural(len(model.supports), "support"), _plural(len(model.forces), "force"),
                       f"g = {model.g:g}"])


def topology_signature(model) -> tuple:
    """What decides whether the model's compiled code can be reused after an edit.

    Mirrors the connectivity the core caches compiled code by (bar count, the bars of each
    joint, support bars and free directions, force bars, named constraints); numeric values
    (lengths, masses, g, loads, positions, joint points) are not part of it.
    """
    return (
        model.n_bars,
        tuple(tuple(j.bars) for j in model.joints),
        tuple((s.bar, s.free_x, s.free_y) for s in model.supports),
        tuple(f.bar for f in model.forces),
        tuple(getattr(model, "constraint_names", ())),
    )


def nice(v: float) -> float:
    """``v`` rounded to 12 significant digits, for display in number fields."""
    return float(f"{v:.12g}")

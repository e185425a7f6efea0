"""Short facts about a model read through its public API: counts, display rounding."""

from __future__ import annotations


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def counts_line(model) -> str:
    """E.g. ``"3 bars · 2 joints · 2 supports · 0 loads · g = 9.81 m/s²"`` (the words of the
    editor's sections); springs, actuators, slots, prismatic joints, sliders, latches, stops
    and contacts are counted when there are some
    (``"… · 0 loads · 2 springs · 1 actuator · 2 latches · g = …"``)."""
    parts = [_plural(model.n_bars, "bar"), _plural(len(model.joints), "joint"),
             _plural(len(model.supports), "support"), _plural(len(model.forces), "load")]
    el = model.elements
    springs = len(el.get("springs", [])) + len(el.get("torsional_springs", []))
    actuators = len(el.get("force_actuators", [])) + len(el.get("torque_actuators", []))
    if springs:
        parts.append(_plural(springs, "spring"))
    if actuators:
        parts.append(_plural(actuators, "actuator"))
    for coll, word in (("slots", "slot"), ("prismatic_joints", "prismatic joint"),
                       ("ground_sliders", "slider"), ("latches", "latch"),
                       ("angle_stops", "stop"), ("contacts", "contact")):
        k = len(el.get(coll, []))
        if k:
            parts.append(f"{k} {word}" + ("" if k == 1 else "es" if word == "latch" else "s"))
    return " · ".join(parts + [f"g = {model.g:g} m/s²"])


def nice(v: float) -> float:
    """``v`` rounded to 12 significant digits, for display in number fields."""
    return float(f"{v:.12g}")

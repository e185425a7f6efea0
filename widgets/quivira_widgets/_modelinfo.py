"""Short facts about a model read through its public API: counts, display rounding."""

from __future__ import annotations


def by_collection(model) -> dict[str, list]:
    """Return the model's elements grouped by kind: ``{"joints": [...], ...}``.

    Every kind's collection is present (empty lists too), each list in row order, as the
    sections and layers draw them; from ``model.elements`` (by name).
    """
    from quivira.elements import KINDS

    out: dict[str, list] = {k.collection: [] for k in KINDS}
    if model is None:
        return out
    for el in model.elements.values():
        out[type(el).collection].append(el)
    return out


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} " + (word if n == 1 else plural or word + "s")


#: element lists counted when present: (collections, word, plural)
_OPTIONAL = (
    (("springs", "torsional_springs"), "spring", None),
    (("force_actuators", "torque_actuators"), "actuator", None),
    (("slots",), "slot", None), (("prismatic_joints",), "prismatic joint", None),
    (("ground_sliders",), "slider", None), (("latches",), "latch", "latches"),
    (("angle_stops",), "stop", None), (("contacts",), "contact", None),
    (("welds",), "weld", None), (("distances",), "distance link", None),
    (("body_pins",), "body pin", None),
    (("rolling_contacts", "disc_rolling_contacts"), "rolling contact", None),
    (("joint_motors",), "joint motor", None),
)


def counts_line(model) -> str:
    """Return the line counting the model's parts, e.g. ``"3 bars · 2 joints · ..."``.

    For example ``"3 bars · 2 joints · 2 supports · 0 loads · g = 9.81 m/s²"`` (the words of
    the editor's sections); particles and rigid bodies, springs, actuators, slots, prismatic
    joints, sliders, latches, stops, contacts, welds, distance links, body pins, rolling
    contacts and joint motors are counted when there are some
    (``"2 bars · 1 body · … · 0 loads · 1 weld · 2 latches · g = …"``).
    """
    kinds = [getattr(b, "body_kind", "bar") for b in model.bars]
    parts = [_plural(kinds.count("bar"), "bar")]
    parts += [_plural(kinds.count(k), w, p) for k, w, p in
              (("particle", "particle", None), ("body", "body", "bodies")) if kinds.count(k)]
    parts += [_plural(len(model.joints), "joint"), _plural(len(model.supports), "support"),
              _plural(len(model.forces), "load")]
    el = by_collection(model)
    for colls, word, plural in _OPTIONAL:
        k = sum(len(el.get(c, [])) for c in colls)
        if k:
            parts.append(_plural(k, word, plural))
    return " · ".join(parts + [f"g = {model.g:g} m/s²"])


def nice(v: float) -> float:
    """``v`` rounded to 12 significant digits, for display in number fields."""
    return float(f"{v:.12g}")

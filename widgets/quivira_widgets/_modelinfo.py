"""Short facts about a model read through its generic API: bodies, elements by kind, counts.

Everything here reads ``model.bodies`` and ``model.elements`` and the model's registry of
kinds (:data:`quivira.elements.KINDS`): a kind added to the registry is listed and counted
without a change here.
"""

from __future__ import annotations

from typing import Any


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


def of_kind(model, *kinds: type) -> list:
    """Return the model's elements of ``kinds`` (copies), in row order.

    ``of_kind(model, PinJoint)[j]`` is joint ``j``.
    """
    if model is None:
        return []
    return [el for el in model.elements.values() if type(el) in kinds]


def names_of(model, *kinds: type) -> list[str]:
    """Return the names of the model's elements of ``kinds``, in row order."""
    if model is None:
        return []
    return [nm for nm, el in model.elements.items() if type(el) in kinds]


def n_bodies(model) -> int:
    """Return the number of bodies (bars, particles, rigid bodies) of ``model``."""
    return 0 if model is None else len(model.bodies)


def body_kind(body: Any) -> str:
    """Return ``"bar"``, ``"particle"`` or ``"body"``."""
    return getattr(body, "body_kind", "bar")


def body_name(model, i: int) -> str:
    """Return the name of body ``i`` of ``model`` (``"bar3"``, ``"particle3"``, ``"body3"``)."""
    return f"{body_kind(model.bodies[i])}{i}"


def _plural(n: int, word: str) -> str:
    if n == 1:
        return f"{n} {word}"
    return f"{n} {word}es" if word.endswith(("ch", "sh", "s", "x")) else f"{n} {word}s"


#: kinds that are counted always (the editor's first sections) or never (named numbers)
_ALWAYS = ("joints", "supports")
_NEVER = ("parameters",)


def counts_line(model) -> str:
    """Return the line counting the model's parts, e.g. ``"3 bars · 2 joints · ..."``.

    For example ``"3 bars · 2 joints · 2 supports · 0 loads · g = 9.81 m/s²"``: bars, joints,
    supports and constant loads always; particles, rigid bodies and every other kind of the
    registry when there are some, by the kind's title (``"… · 1 weld · 2 latches · g = …"``).
    """
    from quivira.elements import KINDS

    kinds = [body_kind(b) for b in model.bodies]
    parts = [_plural(kinds.count("bar"), "bar")]
    parts += [_plural(kinds.count(k), "body" if k == "body" else k).replace("bodys", "bodies")
              for k in ("particle", "body") if kinds.count(k)]
    el = by_collection(model)
    parts += [_plural(len(el[c]), w) for c, w in (("joints", "joint"), ("supports", "support"),
                                                   ("forces", "load"))]
    for kind in KINDS:
        c = kind.collection
        if c in _ALWAYS or c in _NEVER or c == "forces" or not el[c]:
            continue
        parts.append(_plural(len(el[c]), kind.title))
    return " · ".join(parts + [f"g = {model.g:g} m/s²"])


def nice(v: float) -> float:
    """``v`` rounded to 12 significant digits, for display in number fields."""
    return float(f"{v:.12g}")


def add_body(model, body: Any) -> int:
    """Add ``body`` (a Bar, Particle or RigidBody) with ``model.add``; return its index."""
    i = n_bodies(model)
    model.add(body)
    return i


def replace_fields(model, name: str, **values: Any) -> None:
    """Give element ``name`` new ``values``, topology fields too, keeping its place in the rows.

    Values that ``model.set`` may change go through it; a change of a topology field (a
    joint's bars) rebuilds the model from its data with the element changed
    (``model.replace_with``: one notification, the same model object). Checked as a model
    file is; on an error the model is unchanged.
    """
    el = model.element(name)
    fixed = {f for f, s in type(el).specs().items() if not s.editable}
    if not fixed & set(values):
        model.set(name, **values)
        return
    data = model.to_dict()
    entry = next(e for e in data[type(el).collection] if e.get("name") == name)
    entry.update({k: list(v) if isinstance(v, tuple) else v for k, v in values.items()})
    model.replace_with(type(model).from_dict(data))


def coordinate_columns(model, body: int) -> list[int]:
    """Return the columns of body ``body``'s coordinates in the state (2 for a particle, else 3).

    The bodies' coordinates follow each other in index order (``model.bodies``).
    """
    bodies = model.bodies
    start = sum(b.n_coordinates for b in bodies[:body])
    return list(range(start, start + bodies[body].n_coordinates))

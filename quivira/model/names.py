"""One name for every number of a model, used everywhere.

=====================================  =====================================================
name                                   what
=====================================  =====================================================
``g``, ``stabilization``               the model-wide values (m/s², 1/s)
``bar3``, ``particle3``, ``body3``     body 3, by its kind (the index counts all bodies)
``bar3.mass``, ``.length``             a bar's data; ``body3.inertia`` of a rigid body
``bar3.x``, ``.y``, ``.theta``         its initial pose (m, m, rad)
``bar3.vx``, ``.vy``, ``.omega``       its initial velocity (m/s, m/s, rad/s)
``spring0``, ``wall``, ...             an element, by its name (default: kind prefix + index)
``spring0.k``, ``wall.restitution``    a field of an element (:mod:`.elements.fields`)
``A``                                  a named parameter (``Parameter(name="A", value=...)``)
``joint2.bar3.x``                      a constraint row and its multiplier (labels)
=====================================  =====================================================

The same names are the keys of sweeps, the variables of sensitivities, the labels of
multipliers, the columns of ``to_pandas``, the coordinates of ``to_xarray``, the fields of the
widgets and the words of error messages. :func:`parameters` lists them with their unit and
value; :func:`lookup` finds one (with a did-you-mean), and reads the spellings of earlier
versions (``("bar", 3, "mass")``, ``"bar 3 · mass"``, ``"th0"``, ``"om3"``, ...) with a
:data:`EARLIER_SPELLING` (a pending deprecation).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from .._warnings import warn_caller
from .data import ModelData

#: separator of the parts of a name
SEP = "."
#: the initial-state fields of a body: (block 0: q, 1: qd; index in the body's block)
STATE_FIELDS = {"x": (0, 0), "y": (0, 1), "theta": (0, 2),
                "vx": (1, 0), "vy": (1, 1), "omega": (1, 2)}
_STATE_UNITS = {"x": "m", "y": "m", "theta": "rad", "vx": "m/s", "vy": "m/s", "omega": "rad/s"}
_BODY_FIELDS = {"bar": (("mass", "kg"), ("length", "m")), "particle": (("mass", "kg"),),
                "body": (("mass", "kg"), ("inertia", "kg m²"))}
_BODY_NAME = re.compile(r"^(bar|particle|body)(\d+)$")

#: the warning of an earlier spelling or method: pending (shown with ``-W default`` or in
#: tests) while the course and the docs move to the new names, a DeprecationWarning after
EARLIER_SPELLING = PendingDeprecationWarning


def warn_earlier(message: str) -> None:
    """Warn (:data:`EARLIER_SPELLING`) about an earlier spelling, at the user's line."""
    warn_caller(message, EARLIER_SPELLING)


@dataclass(frozen=True)
class Name:
    """One settable number of a model and what it is.

    Attributes
    ----------
    name : str
        Its canonical name, e.g. ``"spring0.k"``.
    owner : str
        ``""`` (model-wide), a body's name or an element's name.
    field : str
        The field of the owner (``"g"`` for the model-wide ``g``).
    where : str
        ``"model"``, ``"body"``, ``"state"`` (initial state of a body), ``"element"`` or
        ``"parameter"`` (a named parameter).
    unit : str
        Its SI unit.
    value : float
        Its value in the model now.
    sweepable, differentiable, runtime : bool
        A sweep key; a sensitivity variable; an edit that changes runtime parameters only.
    index : int
        The body index (bodies and state), the element's position in its kind's list, or -1.
    """

    name: str
    owner: str
    field: str
    where: str
    unit: str
    value: float
    sweepable: bool = True
    differentiable: bool = True
    runtime: bool = True
    index: int = -1


def body_name(i: int, body: Any) -> str:
    """Return the name of body ``i``: ``bar3``, ``particle3`` or ``body3`` by its kind."""
    return f"{getattr(body, 'body_kind', 'bar')}{i}"


def body_index(data: ModelData, name: str) -> int | None:
    """Return the index of the body called ``name``, or None if no body is called so."""
    m = _BODY_NAME.match(name)
    if m is None:
        return None
    i = int(m.group(2))
    if i < len(data.bars) and body_name(i, data.bars[i]) == name:
        return i
    return None


def parameters(data: ModelData) -> list[Name]:
    """Return every settable number of the model, by its canonical name, in a fixed order.

    Model-wide values, the bodies' data and initial states, then every element's declared
    fields that are numbers (their :class:`~.elements.fields.Spec` says whether they sweep,
    differentiate, or recompile), and the named parameters.
    """
    out = [Name("g", "", "g", "model", "m/s²", float(data.g)),
           Name("stabilization", "", "stabilization", "model", "1/s",
                float(data.stabilization), differentiable=False)]
    for i, b in enumerate(data.bars):
        bn = body_name(i, b)
        for f, unit in _BODY_FIELDS[getattr(b, "body_kind", "bar")]:
            out.append(Name(f"{bn}.{f}", bn, f, "body", unit, float(getattr(b, f)), index=i))
    for i, b in enumerate(data.bars):
        bn = body_name(i, b)
        pose = b.pose if b.pose is not None else (0.0, 0.0, 0.0)
        for f, (block, j) in STATE_FIELDS.items():
            if j >= b.n_coordinates:
                continue
            v = (pose if block == 0 else b.velocity)[j]
            out.append(Name(f"{bn}.{f}", bn, f, "state", _STATE_UNITS[f], float(v), index=i))
    for kind, pos, el in data.items():
        if kind.kind == "param":
            out.append(Name(el.name, el.name, "value", "parameter", "", float(el.value),
                            index=pos))
            continue
        owner = element_name(el, pos)
        for f, spec in kind.specs().items():
            if spec.what not in ("number", "local"):
                continue
            v = getattr(el, f)
            if v is None:
                continue
            out.append(Name(f"{owner}.{f}", owner, f, "element", spec.unit, float(v),
                            sweepable=spec.sweepable, differentiable=spec.differentiable,
                            runtime=spec.runtime, index=pos))
    return out


def element_name(el: Any, position: int) -> str:
    """Return an element's name (its ``name`` field, or the kind's title and position)."""
    name = getattr(el, "name", None)
    return name if isinstance(name, str) else f"{el.prefix or el.kind}{position}"


def owners(data: ModelData) -> dict[str, tuple[str, Any]]:
    """Return ``{name: ("body", index) | ("element", (kind, position))}`` of the model."""
    out: dict[str, tuple[str, Any]] = {}
    for i, b in enumerate(data.bars):
        out[body_name(i, b)] = ("body", i)
    for kind, pos, el in data.items():
        out[element_name(el, pos)] = ("element", (kind, pos))
    return out


def default_name(data: ModelData, prefix: str) -> str:
    """Return ``prefix`` followed by the smallest index that no name of the model has."""
    taken = set(owners(data)) | data.all_names()
    k = 0
    while f"{prefix}{k}" in taken:
        k += 1
    return f"{prefix}{k}"


def check_new_name(data: ModelData, name: Any) -> str:
    """Return ``name`` if it can name a new element.

    A non-empty string without :data:`SEP`, that names no body (``bar3``) nor model-wide
    value, and no element of the model yet (TypeError/ValueError naming what to fix).
    """
    if not isinstance(name, str):
        from .._repr import short_repr

        raise TypeError(f"name must be a string, got {short_repr(name)}")
    if not name or name != name.strip():
        raise ValueError(f"name must be a non-empty string without surrounding spaces, got "
                         f"{name!r}")
    if SEP in name:
        raise ValueError(f"name {name!r}: a name may not contain {SEP!r} (it separates the "
                         "parts of parameter names such as 'spring0.k')")
    if _BODY_NAME.match(name) or name in ("g", "stabilization"):
        raise ValueError(f"name {name!r} is reserved (bodies are bar0, particle1, body2, ...; "
                         "g and stabilization are the model's); choose another")
    if name in owners(data) or name in data.all_names():
        raise ValueError(f"name {name!r} is already taken; choose another")
    return name


# ---------------------------------------------------------------------- earlier spellings
_LEGACY_BODY = re.compile(r"^(bar|particle|body) (\d+) · (mass|length|inertia)$")
_LEGACY_STATE = re.compile(r"^(x|y|th|vx|vy|om|thetad)(\d+)$")
_LEGACY_STATE_FIELD = {"x": "x", "y": "y", "th": "theta", "vx": "vx", "vy": "vy",
                       "om": "omega", "thetad": "omega"}


def _legacy(data: ModelData, name: Any) -> str | None:
    """Return the canonical name of an earlier spelling, or None if ``name`` is not one."""
    if isinstance(name, tuple) and len(name) == 3 and name[0] == "bar":
        _, i, f = name
        if isinstance(i, int) and 0 <= i < len(data.bars):
            return f"{body_name(i, data.bars[i])}.{f}"
        return None
    if not isinstance(name, str):
        return None
    m = _LEGACY_BODY.match(name)
    if m is not None:
        i = int(m.group(2))
        if i < len(data.bars):
            return f"{body_name(i, data.bars[i])}.{m.group(3)}"
    m = _LEGACY_STATE.match(name)
    if m is not None:
        i = int(m.group(2))
        if i < len(data.bars):
            return f"{body_name(i, data.bars[i])}.{_LEGACY_STATE_FIELD[m.group(1)]}"
    m = re.match(r"^(bar)(\d+)\.(\w+)$", name)  # "bar3.mass" of a particle or rigid body
    if m is not None:
        i = int(m.group(2))
        if i < len(data.bars) and body_name(i, data.bars[i]) != f"bar{i}":
            return f"{body_name(i, data.bars[i])}.{m.group(3)}"
    if " · " in name:  # "torsional spring 0 · k", "force 1 · fy", "<name> · <field>"
        owner, _, f = name.rpartition(" · ")
        for _, pos, el in data.items():
            if owner in (el.label_prefix(pos), getattr(el, "name", None),
                         f"{el.title} {pos}"):
                return f"{element_name(el, pos)}.{f}"
    return None


def canonical(data: ModelData, name: Any, known: set[str] | None = None) -> str | None:
    """Return the canonical name of ``name`` (itself if canonical), or None if it names nothing.

    No warning: for code that keeps its own spelling of a name and accepts the canonical one
    too (sensitivity variables, continuation parameters). ``known``: the canonical names of
    ``data`` (``{n.name for n in parameters(data)}``), when the caller asks for many names.
    """
    if known is None:
        known = {n.name for n in parameters(data)}
    if isinstance(name, str) and name in known:
        return name
    return _legacy(data, name)


def lookup(data: ModelData, name: Any, what: str = "name") -> Name:
    """Return the :class:`Name` called ``name``.

    An earlier spelling is read with an :data:`EARLIER_SPELLING` warning that gives the
    canonical name; an unknown name is a ValueError that lists the valid ones (with a did-you-mean).
    """
    table = {n.name: n for n in parameters(data)}
    if isinstance(name, str) and name in table:
        return table[name]
    canonical = _legacy(data, name)
    if canonical is not None and canonical in table:
        warn_earlier(f"{name!r} is an earlier spelling of {canonical!r}; use {canonical!r} "
                     "(the earlier spellings go in the next release)")
        return table[canonical]
    if not isinstance(name, str):
        from .._repr import short_repr

        raise TypeError(f"{what} must be a name (a string such as 'spring0.k'), got "
                        f"{short_repr(name)}")
    close = difflib.get_close_matches(name, list(table), n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise ValueError(f"{what}: no number of the model is called {name!r}{hint}; the names are "
                     + ", ".join(table))


# ---------------------------------------------------------------------- row labels
#: the titles of the kinds in labels of earlier releases, and their prefixes now
_OLD_TITLES = {"joint": "joint", "support": "support", "knife edge": "knife",
               "coordinate constraint": "coordinate", "constraint": "constraint",
               "contact": "contact", "latch": "latch", "stop": "stop", "slot": "slot",
               "prismatic joint": "prismatic", "slider": "slider", "weld": "weld",
               "distance": "distance", "pin": "pin", "rolling": "rolling", "disc": "disc",
               "motor": "motor"}
_OLD_LABEL = re.compile(r"^(?P<title>[a-z ]+?) (?P<k>\d+) · (?P<rest>.+)$")


def legacy_label(label: str) -> str | None:
    """Return the label of this release for a label of an earlier one, or None.

    ``"joint 2 · bar 3 · x"`` → ``"joint2.bar3.x"``, ``"support 0 · y"`` →
    ``"support0.y"``, ``"knife edge 1 · normal"`` → ``"knife1.normal"``; a user's name
    keeps its form (``"wall · normal"`` → ``"wall.normal"``).
    """
    if not isinstance(label, str) or " · " not in label:
        return None
    m = _OLD_LABEL.match(label)
    if m is not None and m.group("title") in _OLD_TITLES:
        head = f"{_OLD_TITLES[m.group('title')]}{m.group('k')}"
        rest = m.group("rest")
    else:
        head, _, rest = label.partition(" · ")
    rest = re.sub(r"\b(bar|particle|body) (\d+)\b", r"\1\2", rest).replace(" · ", SEP)
    return f"{head}{SEP}{rest}"


def row_index(labels: list[str], label: Any) -> int:
    """Return the index of the row ``label`` in ``labels``.

    A label of an earlier release is read with an :data:`EARLIER_SPELLING` warning; an
    unknown one is a KeyError that lists the labels.
    """
    if isinstance(label, str) and label in labels:
        return labels.index(label)
    new = legacy_label(label)
    if new is not None and new not in labels:  # a stored name of an earlier release
        new = label.replace(" · ", SEP) if isinstance(label, str) else None
    if new is not None and new in labels:
        warn_earlier(f"the label {label!r} is spelled {new!r} now (the earlier spelling goes "
                     "in the next release)")
        return labels.index(new)
    from .._repr import short_repr

    raise KeyError(f"no constraint labelled {short_repr(label)}; labels are {labels}")

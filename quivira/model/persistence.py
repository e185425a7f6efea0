"""JSON persistence of a bar-joint model (format version 1).

A dict holds ``format`` ("quivira.bar_joint_model"), ``format_version``, ``tolerance``,
``g``, ``stabilization`` (optional, default 10), the list ``bars`` and one list per element
kind, named by the kind's ``collection`` (``joints``, ``supports``, ``forces``, ...; see
:data:`quivira.model.elements.KINDS`), each entry written by the element's own ``to_dict``.
A bar is written as ``{"length", "mass", "pose", "velocity"}``; other bodies
carry their ``kind``: a particle ``{"kind": "particle", "mass", "pose", "velocity"}`` (pose and
velocity as ``[x, y, 0]``), a rigid body ``{"kind": "body", "mass", "inertia", "pose",
"velocity", "shape", "points", "length"}`` (``shape`` a dict such as ``{"kind": "disc",
"radius": 0.2}``, ``points`` ``{name: [u, v]}``, ``length`` the reference length or null).
Floats are written by Python's shortest round-trip representation, so a save/load round trip
reproduces every number bit for bit. Loading validates everything first and raises ValueError
naming the first problem.
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import os
import stat
from pathlib import Path
from typing import Any

from .._repr import short_repr
from ..expression_codec import DEFAULT_TOTAL_NODES, NodeBudget
from .data import Bar, ModelData, Particle, RigidBody, check_points, check_shape
from .elements import KINDS, LoadContext
from .validation import (
    DEFAULT_STABILIZATION,
    check_positive,
    check_real,
    check_stabilization,
    field,
    file_errors,
    list_field,
    triple,
)

FORMAT = "quivira.bar_joint_model"
FORMAT_VERSION = 3
#: versions this quivira reads (1: expressions as pickles, read without unpickling)
READABLE_VERSIONS = (1, 2, 3)
#: default largest model file :func:`read_file` reads (bytes). A chain of 512 bars takes 80 kB,
#: so this holds models far beyond what compiles in reasonable time, while parsing it stays
#: below a second and about 200 MB (``json.loads`` of nested lists needs about 20 bytes of
#: memory per byte of text: a 36 MB file of expressions took 3.2 s and 600 MB)
MAX_FILE_BYTES = 10_000_000
#: default total number of nodes of all the expressions of one model (a file or a dict)
MAX_EXPRESSION_NODES = DEFAULT_TOTAL_NODES
_HEADER_KEYS = ("format", "format_version", "tolerance", "g", "stabilization", "bars")
_BAR_KEYS = ("length", "mass", "pose", "velocity")
_PARTICLE_KEYS = ("kind", "mass", "pose", "velocity")
_BODY_KEYS = ("kind", "mass", "inertia", "pose", "velocity", "shape", "points", "length")


def body_to_dict(b) -> dict:
    """Plain data of a body (a bar keeps the format of version 2 without a ``kind``)."""
    pose = None if b.pose is None else list(b.pose)
    if isinstance(b, Particle):
        return {"kind": "particle", "mass": b.mass, "pose": pose, "velocity": list(b.velocity)}
    if isinstance(b, RigidBody):
        return {"kind": "body", "mass": b.mass, "inertia": b.inertia, "pose": pose,
                "velocity": list(b.velocity), "shape": dict(b.shape),
                "points": {k: list(v) for k, v in b.points.items()}, "length": b.ref_length}
    return {"length": b.length, "mass": b.mass, "pose": pose, "velocity": list(b.velocity)}


def body_from_dict(b: Any, w: str):
    """Build a validated body from file data (ValueError naming ``w`` and the field)."""
    if not isinstance(b, dict):
        raise ValueError(f"{w}: expected an object, got {type(b).__name__}")
    kind = b.get("kind", "bar")
    pose = field(b, "pose", w)
    pose = None if pose is None else triple(pose, f"{w}.pose")
    vel = triple(field(b, "velocity", w), f"{w}.velocity")
    if kind == "bar":
        check_keys(b, _BAR_KEYS, w)
        return Bar(check_positive(field(b, "length", w), f"{w}.length"),
                   check_positive(field(b, "mass", w), f"{w}.mass"), pose, vel)
    if kind == "particle":
        check_keys(b, _PARTICLE_KEYS, w)
        if (pose is not None and pose[2] != 0.0) or vel[2] != 0.0:
            raise ValueError(f"{w}: a particle has no angle; pose and velocity end with 0")
        return Particle(check_positive(field(b, "mass", w), f"{w}.mass"), pose, vel)
    if kind == "body":
        check_keys(b, _BODY_KEYS, w)
        length = field(b, "length", w)
        return RigidBody(check_positive(field(b, "mass", w), f"{w}.mass"),
                         check_positive(field(b, "inertia", w), f"{w}.inertia"), pose, vel,
                         check_shape(field(b, "shape", w), f"{w}.shape"),
                         check_points(field(b, "points", w), f"{w}.points"),
                         None if length is None else check_positive(length, f"{w}.length"))
    raise ValueError(f"{w}.kind: expected 'bar', 'particle' or 'body', got {short_repr(kind)}")


def check_keys(d: dict, allowed, where: str) -> None:
    """ValueError naming the keys of ``d`` not in ``allowed`` (with a close match, if any)."""
    unknown = [k for k in d if k not in allowed]
    if not unknown:
        return
    parts = []
    for k in unknown:
        close = difflib.get_close_matches(short_repr(k), [str(a) for a in allowed], n=1)
        parts.append(short_repr(k) + (f" (did you mean {close[0]!r}?)" if close else ""))
    raise ValueError(f"{where}: unknown key{'s' if len(parts) > 1 else ''} "
                     + ", ".join(parts) + f"; allowed: {', '.join(map(str, allowed))}")


def to_dict(data: ModelData, tolerance: float) -> dict:
    """Return plain, JSON-ready data of a model.

    A header, the bars, and one list per element kind (each element's
    :meth:`~quivira.model.elements.base.Element.to_dict`).
    """
    out = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tolerance": tolerance,
        "g": data.g,
        "stabilization": data.stabilization,
        "bars": [body_to_dict(b) for b in data.bars],
    }
    for kind in KINDS:
        out[kind.collection] = [el.to_dict() for el in data.of(kind)]
    return out


def from_dict(d: Any, max_expression_nodes: int | None = None) -> tuple[ModelData, float]:
    """Validate ``d`` and return ``(ModelData, tolerance)``; raise ValueError if malformed.

    The expressions of ``d`` may have at most ``max_expression_nodes`` nodes together
    (default :data:`MAX_EXPRESSION_NODES`; TypeError/ValueError for a wrong limit itself).
    """
    if max_expression_nodes is None:
        max_expression_nodes = MAX_EXPRESSION_NODES
    budget = NodeBudget(max_expression_nodes, name="max_expression_nodes", fix=(
        "; a model this large is not expected: if the data is trusted, read it with a larger "
        "max_expression_nodes (BarJointModel.load or from_dict)"))
    if not isinstance(d, dict):
        raise ValueError(f"model data: expected a JSON object, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise ValueError(f"model data: 'format' must be {FORMAT!r}, got "
                         f"{short_repr(d.get('format'))}")
    version = d.get("format_version")
    if isinstance(version, bool) or not isinstance(version, int) \
            or version not in READABLE_VERSIONS:
        raise ValueError(f"model data: unsupported format_version {short_repr(version)} (this "
                         f"quivira reads versions {', '.join(map(str, READABLE_VERSIONS))})")
    check_keys(d, _HEADER_KEYS + tuple(k.collection for k in KINDS), "model")
    with file_errors():
        tol = check_positive(field(d, "tolerance", "model"), "model.tolerance")
        data = ModelData(g=check_real(field(d, "g", "model"), "model.g"),
                         stabilization=check_stabilization(
                             d.get("stabilization", DEFAULT_STABILIZATION),
                             "model.stabilization"))
        for i, b in enumerate(list_field(d, "bars", "model")):
            data.bars.append(body_from_dict(b, f"bars[{i}]"))
        ctx = LoadContext(len(data.bars), set(), version, budget=budget, bodies=data.bars)
        for kind in KINDS:
            items = d.get(kind.collection, [])
            if not isinstance(items, list):
                raise ValueError(f"model.{kind.collection}: expected a list, got "
                                 f"{type(items).__name__}")
            keys = None  # every element of a kind writes the same keys: ask the first one
            for k, item in enumerate(items):
                where = f"{kind.collection}[{k}]"
                el = kind.from_dict(item, where, dataclasses.replace(ctx, position=k))
                keys = keys or tuple(el.to_dict())  # (to_dict encodes expressions: once)
                check_keys(item, keys, where)
                if kind.has_name:
                    ctx.names.add(el.name)
                data.of(kind).append(el)
    return data, tol


def read_file(path: str | Path, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Read the JSON content of a model file safely.

    Only regular files are read (not FIFOs, devices or directories), at most ``max_bytes``;
    nesting deeper than Python's JSON parser handles is an error (non-finite numbers such as
    ``NaN`` are refused by the validation of :func:`from_dict`, which names the field).
    Every problem is a ValueError naming the file (OSError if it cannot be opened).
    """
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, int):
        raise TypeError(f"max_bytes must be an integer, got {short_repr(max_bytes)}")
    if max_bytes < 1:
        raise ValueError(f"max_bytes must be positive, got {max_bytes}")
    path = Path(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError(f"{path}: not a regular file; a model is read from a file written "
                             "by save()")
        if info.st_size > max_bytes:
            raise ValueError(f"{path}: {info.st_size} bytes, more than max_bytes = {max_bytes} "
                             "(pass a larger max_bytes to load bigger models)")
        with os.fdopen(fd, "rb", closefd=False) as fh:
            raw = fh.read(max_bytes + 1)
    finally:
        os.close(fd)
    if len(raw) > max_bytes:
        raise ValueError(f"{path}: more than max_bytes = {max_bytes} bytes")
    try:
        return json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # JSON and UTF-8 errors, and ints beyond Python's 4300 digits
        raise ValueError(f"{path}: not a valid JSON model file ({exc})") from None
    except RecursionError:
        raise ValueError(f"{path}: not a valid JSON model file (nested too deeply)") from None

"""JSON persistence of a bar-joint model (format version 1).

A dict holds ``format`` ("quivira.bar_joint_model"), ``format_version``, ``tolerance``,
``g``, ``stabilization`` (optional, default 10), the list ``bars`` and one list per element
kind, named by the kind's ``collection`` (``joints``, ``supports``, ``forces``, ...; see
:data:`quivira.model.elements.KINDS`), each entry written by the element's own ``to_dict``.
Floats are written by Python's shortest round-trip representation, so a save/load round trip
reproduces every number bit for bit. Loading validates everything first and raises ValueError
naming the first problem.
"""

from __future__ import annotations

import base64
import io
import pickle
from typing import Any

import heyoka as hy

from .data import Bar, ModelData
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
FORMAT_VERSION = 1


def to_dict(data: ModelData, tolerance: float) -> dict:
    """Plain, JSON-ready data of a model: a header, the bars, and one list per element kind
    (each element's :meth:`~quivira.model.elements.base.Element.to_dict`)."""
    out = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tolerance": tolerance,
        "g": data.g,
        "stabilization": data.stabilization,
        "bars": [{"length": b.length, "mass": b.mass,
                  "pose": None if b.pose is None else list(b.pose),
                  "velocity": list(b.velocity)} for b in data.bars],
    }
    for kind in KINDS:
        out[kind.collection] = [el.to_dict() for el in data.of(kind)]
    return out


class _ExpressionUnpickler(pickle.Unpickler):
    """Unpickles heyoka expressions and nothing else (no code can be run from a file)."""

    def find_class(self, module: str, name: str):
        if (module, name) == ("heyoka._core", "expression"):
            return hy.expression
        raise ValueError(f"model file: refusing to load {module}.{name} (only heyoka "
                         "expressions are allowed)")


def expression_to_text(e: hy.expression) -> str:
    """A heyoka expression as base64 text (its exact serialization, bit for bit)."""
    return base64.b64encode(pickle.dumps(e)).decode("ascii")


def expression_from_text(text: Any, where: str) -> hy.expression:
    """Inverse of :func:`expression_to_text`; raises ValueError on anything else."""
    if not isinstance(text, str):
        raise ValueError(f"{where}: expected an encoded expression string")
    try:
        obj = _ExpressionUnpickler(io.BytesIO(base64.b64decode(text, validate=True))).load()
    except Exception as exc:  # corrupt data of any kind
        raise ValueError(f"{where}: not a valid encoded heyoka expression ({exc})") from None
    if not isinstance(obj, hy.expression):
        raise ValueError(f"{where}: not a heyoka expression")
    return obj


def from_dict(d: Any) -> tuple[ModelData, float]:
    """Validate ``d`` and return ``(ModelData, tolerance)``; raise ValueError if malformed."""
    if not isinstance(d, dict):
        raise ValueError(f"model data: expected a JSON object, got {type(d).__name__}")
    if d.get("format") != FORMAT:
        raise ValueError(f"model data: 'format' must be {FORMAT!r}, got {d.get('format')!r}")
    version = d.get("format_version")
    if version != FORMAT_VERSION:
        raise ValueError(f"model data: unsupported format_version {version!r} (this quivira "
                         f"reads version {FORMAT_VERSION})")
    with file_errors():
        tol = check_positive(field(d, "tolerance", "model"), "model.tolerance")
        data = ModelData(g=check_real(field(d, "g", "model"), "model.g"),
                         stabilization=check_stabilization(
                             d.get("stabilization", DEFAULT_STABILIZATION),
                             "model.stabilization"))
        for i, b in enumerate(list_field(d, "bars", "model")):
            w = f"bars[{i}]"
            pose = field(b, "pose", w)
            data.bars.append(Bar(
                check_positive(field(b, "length", w), f"{w}.length"),
                check_positive(field(b, "mass", w), f"{w}.mass"),
                None if pose is None else triple(pose, f"{w}.pose"),
                triple(field(b, "velocity", w), f"{w}.velocity"),
            ))
        ctx = LoadContext(len(data.bars), set())
        for kind in KINDS:
            items = d.get(kind.collection, [])
            if not isinstance(items, list):
                raise ValueError(f"model.{kind.collection}: expected a list, got "
                                 f"{type(items).__name__}")
            for k, item in enumerate(items):
                el = kind.from_dict(item, f"{kind.collection}[{k}]", ctx)
                if kind.named:
                    ctx.names.add(el.name)
                data.of(kind).append(el)
    return data, tol

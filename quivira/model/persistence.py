"""JSON persistence of a bar-joint model (format version 1).

A dict holds ``format`` ("quivira.bar_joint_model"), ``format_version``, ``tolerance``,
``g`` and lists of bars, joints, supports and forces. Floats are written by Python's
shortest round-trip representation, so a save/load round trip reproduces every number bit
for bit. Loading validates everything first and raises ValueError naming the first problem.
"""

from __future__ import annotations

from typing import Any

from .components import (
    Bar,
    Force,
    Joint,
    ModelData,
    Support,
    check_flag,
    check_positive,
    check_real,
    check_s,
)

FORMAT = "quivira.bar_joint_model"
FORMAT_VERSION = 1


def to_dict(data: ModelData, tolerance: float) -> dict:
    """Plain, JSON-ready data of a model."""
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "tolerance": tolerance,
        "g": data.g,
        "bars": [{"length": b.length, "mass": b.mass,
                  "pose": None if b.pose is None else list(b.pose),
                  "velocity": list(b.velocity)} for b in data.bars],
        "joints": [{"bars": list(j.bars), "s": list(j.s)} for j in data.joints],
        "supports": [{"bar": s.bar, "s": s.s, "free_x": s.free_x, "free_y": s.free_y,
                      "x": s.x, "y": s.y} for s in data.supports],
        "forces": [{"bar": f.bar, "s": f.s, "fx": f.fx, "fy": f.fy, "torque": f.torque}
                   for f in data.forces],
    }


def _get(d: Any, key: str, where: str):
    if not isinstance(d, dict):
        raise ValueError(f"{where}: expected an object, got {type(d).__name__}")
    if key not in d:
        raise ValueError(f"{where}: missing key {key!r}")
    return d[key]


def _list(d: dict, key: str, where: str) -> list:
    v = _get(d, key, where)
    if not isinstance(v, list):
        raise ValueError(f"{where}.{key}: expected a list, got {type(v).__name__}")
    return v


def _triple(v: Any, where: str) -> tuple[float, float, float]:
    if not isinstance(v, list) or len(v) != 3:
        raise ValueError(f"{where}: expected a list of 3 numbers, got {v!r}")
    return tuple(check_real(x, f"{where}[{k}]") for k, x in enumerate(v))


def _bar_index(v: Any, n: int, where: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
        raise ValueError(f"{where}: expected a bar index in [0, {n}), got {v!r}")
    return v


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
    tol = check_positive(_get(d, "tolerance", "model"), "model.tolerance")
    data = ModelData(g=check_real(_get(d, "g", "model"), "model.g"))
    for i, b in enumerate(_list(d, "bars", "model")):
        w = f"bars[{i}]"
        pose = _get(b, "pose", w)
        data.bars.append(Bar(
            check_positive(_get(b, "length", w), f"{w}.length"),
            check_positive(_get(b, "mass", w), f"{w}.mass"),
            None if pose is None else _triple(pose, f"{w}.pose"),
            _triple(_get(b, "velocity", w), f"{w}.velocity"),
        ))
    n = len(data.bars)
    for j, jt in enumerate(_list(d, "joints", "model")):
        w = f"joints[{j}]"
        bars = _list(jt, "bars", w)
        ss = _list(jt, "s", w)
        if len(bars) < 2 or len(ss) != len(bars):
            raise ValueError(f"{w}: needs at least two bars and one s per bar")
        idx = [_bar_index(b, n, f"{w}.bars[{k}]") for k, b in enumerate(bars)]
        if len(set(idx)) != len(idx):
            raise ValueError(f"{w}: the same bar appears twice in {idx}")
        data.joints.append(Joint(idx, [check_s(s, f"{w}.s[{k}]") for k, s in enumerate(ss)]))
    for k, sp in enumerate(_list(d, "supports", "model")):
        w = f"supports[{k}]"
        fx = check_flag(_get(sp, "free_x", w), f"{w}.free_x")
        fy = check_flag(_get(sp, "free_y", w), f"{w}.free_y")
        if fx and fy:
            raise ValueError(f"{w}: free_x and free_y are both true (constrains nothing)")
        data.supports.append(Support(
            _bar_index(_get(sp, "bar", w), n, f"{w}.bar"), check_s(_get(sp, "s", w), f"{w}.s"),
            fx, fy, check_real(_get(sp, "x", w), f"{w}.x"), check_real(_get(sp, "y", w), f"{w}.y"),
        ))
    for k, f in enumerate(_list(d, "forces", "model")):
        w = f"forces[{k}]"
        data.forces.append(Force(
            _bar_index(_get(f, "bar", w), n, f"{w}.bar"), check_s(_get(f, "s", w), f"{w}.s"),
            check_real(_get(f, "fx", w), f"{w}.fx"), check_real(_get(f, "fy", w), f"{w}.fy"),
            check_real(_get(f, "torque", w), f"{w}.torque"),
        ))
    return data, tol

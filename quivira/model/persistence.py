"""JSON persistence of a bar-joint model (format version 1).

A dict holds ``format`` ("quivira.bar_joint_model"), ``format_version``, ``tolerance``,
``g``, ``stabilization`` (optional, default 10) and lists of bars, joints, supports and
forces. Floats are written by Python's shortest round-trip representation, so a save/load
round trip reproduces every number bit for bit. Loading validates everything first and
raises ValueError naming the first problem.
"""

from __future__ import annotations

import base64
import io
import pickle
from typing import Any

import heyoka as hy

from .components import (
    DEFAULT_STABILIZATION,
    Bar,
    CoordinateConstraint,
    Force,
    Joint,
    KnifeEdge,
    ModelData,
    Support,
    UserConstraint,
    check_flag,
    check_positive,
    check_real,
    check_s,
    check_stabilization,
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
        "stabilization": data.stabilization,
        "bars": [{"length": b.length, "mass": b.mass,
                  "pose": None if b.pose is None else list(b.pose),
                  "velocity": list(b.velocity)} for b in data.bars],
        "joints": [{"bars": list(j.bars), "s": list(j.s)} for j in data.joints],
        "supports": [{"bar": s.bar, "s": s.s, "free_x": s.free_x, "free_y": s.free_y,
                      "x": s.x, "y": s.y} for s in data.supports],
        "forces": [{"bar": f.bar, "s": f.s, "fx": f.fx, "fy": f.fy, "torque": f.torque}
                   for f in data.forces],
        "coordinate_constraints": [
            {"bar0": c.bar0, "bar1": c.bar1, "X0": c.X0, "X1": c.X1, "Y0": c.Y0, "Y1": c.Y1,
             "offset": list(c.offset), "velocity_level": c.velocity_level, "active": c.active,
             "name": c.name} for c in data.coordinate_constraints],
        "user_constraints": [
            {"name": u.name, "velocity_level": u.velocity_level, "text": [str(e) for e in u.exprs],
             "exprs": [expression_to_text(e) for e in u.exprs]} for u in data.user_constraints],
        "knife_edges": [{"bar": k.bar, "s": k.s, "name": k.name} for k in data.knife_edges],
    }


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
    data = ModelData(g=check_real(_get(d, "g", "model"), "model.g"),
                     stabilization=check_stabilization(
                         d.get("stabilization", DEFAULT_STABILIZATION), "model.stabilization"))
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
    n_names: set[str] = set()

    def name_of(obj, where):
        nm = _get(obj, "name", where)
        if not isinstance(nm, str) or not nm or nm in n_names:
            raise ValueError(f"{where}.name: expected a unique non-empty string, got {nm!r}")
        n_names.add(nm)
        return nm

    def opt_bar(v, where):
        return None if v is None else _bar_index(v, n, where)

    def matrix(v, where, rows=None):
        if v is None:
            return None
        if not isinstance(v, list) or not all(isinstance(r, list) and len(r) == 3 for r in v):
            raise ValueError(f"{where}: expected a list of rows of 3 numbers or null")
        return [[check_real(x, where) for x in r] for r in v]

    def optional_list(key):
        v = d.get(key, [])
        if not isinstance(v, list):
            raise ValueError(f"model.{key}: expected a list, got {type(v).__name__}")
        return v

    for k, c in enumerate(optional_list("coordinate_constraints")):
        w = f"coordinate_constraints[{k}]"
        mats = [matrix(_get(c, key, w), f"{w}.{key}") for key in ("X0", "X1", "Y0", "Y1")]
        off = [check_real(x, f"{w}.offset") for x in _list(c, "offset", w)]
        if any(mt is not None and len(mt) != len(off) for mt in mats) or not off:
            raise ValueError(f"{w}: matrices and offset must have the same number of rows")
        b0, b1 = opt_bar(_get(c, "bar0", w), f"{w}.bar0"), opt_bar(_get(c, "bar1", w), f"{w}.bar1")
        data.coordinate_constraints.append(CoordinateConstraint(
            b0, b1, *mats, off, check_flag(_get(c, "velocity_level", w), f"{w}.velocity_level"),
            check_flag(_get(c, "active", w), f"{w}.active"), name_of(c, w)))
    allowed = {f"{c}{i}" for i in range(n) for c in ("x", "y", "th")}
    allowed_v = allowed | {f"{c}{i}" for i in range(n) for c in ("vx", "vy", "om")}
    for k, u in enumerate(optional_list("user_constraints")):
        w = f"user_constraints[{k}]"
        exprs = [expression_from_text(t, f"{w}.exprs[{r}]")
                 for r, t in enumerate(_list(u, "exprs", w))]
        vel = check_flag(_get(u, "velocity_level", w), f"{w}.velocity_level")
        for r, e in enumerate(exprs):
            unknown = sorted(set(hy.get_variables(e)) - (allowed_v if vel else allowed))
            if unknown or hy.get_params(e):
                raise ValueError(f"{w}.exprs[{r}]: uses unknown variables {unknown} or runtime "
                                 f"parameters; the model has {n} bars")
        data.user_constraints.append(UserConstraint(
            exprs, name_of(u, w), check_flag(_get(u, "velocity_level", w), f"{w}.velocity_level")))
    for k, ke in enumerate(optional_list("knife_edges")):
        w = f"knife_edges[{k}]"
        data.knife_edges.append(KnifeEdge(_bar_index(_get(ke, "bar", w), n, f"{w}.bar"),
                                          check_s(_get(ke, "s", w), f"{w}.s"), name_of(ke, w)))
    return data, tol

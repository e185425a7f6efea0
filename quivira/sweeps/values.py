r"""The values of a sweep: parsing, key names, and the data and initial state of each variant.

A sweep's ``values`` give, per variant, numbers for some *keys* of the model:

====================================  ==========================================================
key                                   what it sets (through the model's own setter)
====================================  ==========================================================
``"g"``, ``"stabilization"``          :meth:`~quivira.bar_joint_model.set_g`, ``set_stabilization``
``"bar3.mass"``, ``"bar3.length"``    ``set_bar_mass(3, v)``, ``set_bar_length(3, v)``
``"bar3.inertia"``                    ``set_body_inertia(3, v)`` (a rigid body, kg m²)
``"bar3.x"``, ``.y``, ``.theta``      the initial pose of body 3 (m, m, rad)
``"bar3.vx"``, ``.vy``, ``.omega``    its initial velocity (m/s, m/s, rad/s)
``"support1.x"``, ``"support1.y"``    ``set_support(1, x=v)``
``"force0.fx"``, ``.fy``, ``.torque`` ``set_force(0, fx=v)``
``"<spring name>.k"`` (``.c``, ...)   ``set_spring(name, k=v)`` (``l0``; ``phi0``, ``preload``)
``"<parameter name>"``                ``set_parameter(name, v)`` (named runtime parameters)
``"model"``                           a whole model per variant (variants are grouped by
                                      topology, each group compiles once)
====================================  ==========================================================

Initial positions that are swept are *held*: the other coordinates are moved the least (in
the metric :math:`Δx^2 + Δy^2 + (LΔθ)^2`) to satisfy the holonomic constraints
:math:`F(q) = 0` by Gauss–Newton; swept velocities are held likewise and the others projected
onto :math:`J\dot q = 0` in the mass metric. A length change also reassembles the pose.

``bar<i>`` names body ``i`` whatever its kind: a particle has ``mass``, ``x``, ``y``, ``vx``,
``vy``; a rigid body ``mass``, ``inertia`` and the six state fields; a bar ``mass``,
``length`` and the six.
"""

from __future__ import annotations

import difflib
import itertools
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: the initial-state fields of a bar and their index in its (x, y, θ) block of q or q̇
STATE_FIELDS = {"x": (0, 0), "y": (0, 1), "theta": (0, 2),
                "vx": (1, 0), "vy": (1, 1), "omega": (1, 2)}


@dataclass(frozen=True)
class Grid:
    """The outer product of value axes (see :func:`grid`)."""

    axes: tuple[tuple[str, tuple], ...]

    def __len__(self) -> int:
        """Return the number of variants: the product of the axes' lengths."""
        n = 1
        for _, v in self.axes:
            n *= len(v)
        return n

    def table(self) -> dict[str, list]:
        """Per key, its value in every variant (the last key varies fastest)."""
        keys = [k for k, _ in self.axes]
        combos = list(itertools.product(*(v for _, v in self.axes)))
        return {k: [c[i] for c in combos] for i, k in enumerate(keys)}


def grid(*args: Mapping[str, Any], **axes: Any) -> Grid:
    """Build the outer product of value axes: every combination is one variant.

    Parameters
    ----------
    *args : mapping, optional
        Axes as a mapping ``{key: values}`` (for keys that are not Python names, such as
        ``"bar0.mass"``).
    **axes : sequence of values
        More axes by keyword (``g=[1.62, 9.81]``).

    Returns
    -------
    Grid
        ``len(grid)`` = the product of the axis lengths; the last axis varies fastest.

    Examples
    --------
    >>> g = grid({"bar0.mass": [1.0, 2.0]}, g=[1.62, 9.81, 24.8])
    >>> len(g)
    6
    """
    merged: dict[str, Any] = {}
    for a in args:
        if not isinstance(a, Mapping):
            raise TypeError(f"grid: positional arguments must be mappings {{key: values}}, "
                            f"got {type(a).__name__}")
        merged.update(a)
    merged.update(axes)
    if not merged:
        raise ValueError("grid: give at least one axis, e.g. grid(g=[1.62, 9.81])")
    out = []
    for k, v in merged.items():
        if not isinstance(k, str):
            raise TypeError(f"grid: keys must be strings, got {k!r}")
        vals = _as_list(v, k)
        if not vals:
            raise ValueError(f"grid: axis {k!r} is empty")
        out.append((k, tuple(vals)))
    return Grid(tuple(out))


def _as_list(v: Any, key: str) -> list:
    if isinstance(v, np.ndarray):
        if v.ndim != 1:
            raise ValueError(f"values of {key!r} must be one-dimensional (one value per "
                             f"variant), got shape {v.shape}")
        return v.tolist() if v.dtype != object else list(v)
    if isinstance(v, (str, bytes, Mapping)) or not hasattr(v, "__iter__"):
        raise TypeError(f"values of {key!r} must be a sequence (one value per variant), "
                        f"got {type(v).__name__}")
    return list(v)


def parse_values(values: Any) -> tuple[list[str], dict[str, list], int]:
    """Return ``(keys, table, n_variants)`` of the values of a sweep.

    Of a mapping ``{key: values}``, a list of dicts or a :class:`Grid`; ``table[key]`` has one
    entry per variant.

    Raises
    ------
    TypeError
        ``values`` of another type, non-string keys.
    ValueError
        Arrays of different lengths, dicts with different keys, no variants.
    """
    if isinstance(values, Grid):
        table = values.table()
    elif isinstance(values, Mapping):
        if not values:
            raise ValueError("values: give at least one key, e.g. {'g': [1.62, 9.81]}")
        table = {}
        for k, v in values.items():
            if not isinstance(k, str):
                raise TypeError(f"values: keys must be strings such as 'bar0.mass', got {k!r}")
            table[k] = _as_list(v, k)
        lengths = {k: len(v) for k, v in table.items()}
        if len(set(lengths.values())) > 1:
            raise ValueError(f"values: every key needs the same number of values (one per "
                             f"variant), got lengths {lengths}; use quivira.grid(...) for "
                             "all combinations")
    elif isinstance(values, Sequence) and not isinstance(values, (str, bytes)):
        if not values:
            raise ValueError("values: the list of variants is empty")
        keys = None
        for i, d in enumerate(values):
            if not isinstance(d, Mapping):
                raise TypeError(f"values[{i}]: expected a dict {{key: value}}, got "
                                f"{type(d).__name__}")
            if keys is None:
                keys = list(d)
            elif set(d) != set(keys):
                raise ValueError(f"values[{i}]: keys {sorted(d)} differ from those of "
                                 f"values[0] {sorted(keys)}; every variant sets the same keys")
        for k in keys:
            if not isinstance(k, str):
                raise TypeError(f"values: keys must be strings such as 'bar0.mass', got {k!r}")
        table = {k: [d[k] for d in values] for k in keys}
    else:
        raise TypeError("values must be a mapping {key: array}, a list of dicts or "
                        f"quivira.grid(...), got {type(values).__name__}")
    n = len(next(iter(table.values())))
    if n == 0:
        raise ValueError("values: no variants (the arrays are empty)")
    return list(table), table, n


# ---------------------------------------------------------------------- keys of a model
_BAR = re.compile(r"^bar(\d+)\.(mass|length|inertia|x|y|theta|vx|vy|omega)$")
_SUPPORT = re.compile(r"^support(\d+)\.(x|y)$")
_FORCE = re.compile(r"^force(\d+)\.(fx|fy|torque)$")


def valid_keys(model) -> list[str]:
    """Every key a sweep of ``model`` accepts (see the module docstring)."""
    from ..model.elements.actuators import Parameter
    from ..model.elements.point_load import PointLoad
    from ..model.elements.spring_damper import SpringDamper
    from ..model.elements.support import Support
    from ..model.elements.torsional_spring import TorsionalSpring

    data = model.engine.data
    keys = ["g", "stabilization", "model"]
    for i, b in enumerate(data.bars):
        kind = getattr(b, "body_kind", "bar")
        own = {"bar": ("mass", "length"), "particle": ("mass",), "body": ("mass", "inertia")}
        state = [f for f, (_, j) in STATE_FIELDS.items() if j < b.n_coordinates]
        keys += [f"bar{i}.{f}" for f in (*own[kind], *state)]
    keys += [f"support{j}.{f}" for j in range(len(data.of(Support))) for f in ("x", "y")]
    keys += [f"force{j}.{f}" for j in range(len(data.of(PointLoad)))
             for f in ("fx", "fy", "torque")]
    keys += [f"{s.name}.{f}" for s in data.of(SpringDamper) for f in ("k", "l0", "c")]
    keys += [f"{s.name}.{f}" for s in data.of(TorsionalSpring)
             for f in ("k", "phi0", "c", "preload")]
    keys += [p.name for p in data.of(Parameter)]
    return keys


def check_keys(model, keys: list[str]) -> None:
    """ValueError naming every unknown key, with the valid ones (and a did-you-mean)."""
    valid = valid_keys(model)
    unknown = [k for k in keys if k not in valid]
    if unknown:
        hints = []
        for k in unknown:
            close = difflib.get_close_matches(k, valid, n=1)
            hints.append(f"{k!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
        raise ValueError(f"values: unknown key {', '.join(hints)}; valid keys of this model: "
                         + ", ".join(valid))


def apply_value(model, key: str, value: Any) -> None:
    """Set ``key`` to ``value`` on ``model`` by its name, with ``model.set``.

    Validated there: a TypeError or ValueError names the problem, and the model is left as it
    was. A body's key ``bar<i>.<field>`` names body ``i`` whatever its kind (``body<i>`` for a
    rigid body). Initial-state keys are handled by :class:`quivira.sweeps.batch.Preparer`, not
    here.
    """
    from ..model.names import body_name

    if (m := _BAR.match(key)) is not None:
        i = int(m.group(1))
        key = f"{body_name(i, model.bodies[i])}.{m.group(2)}"
    model.set(key, value)


def state_entries(keys: list[str], data) -> list[tuple[str, int]]:
    """``(key, index in [q, qd])`` of the initial-state keys among ``keys``.

    ``data``: the model data (bodies have 3 coordinates, particles 2).
    """
    offsets, n = data.offsets(), data.n_coordinates()
    out = []
    for k in keys:
        m = _BAR.match(k)
        if m is not None and m.group(2) in STATE_FIELDS:
            block, j = STATE_FIELDS[m.group(2)]
            out.append((k, block * n + offsets[int(m.group(1))] + j))
    return out


def check_number(key: str, value: Any, variant: int) -> float:
    """``value`` as a finite float (TypeError/ValueError naming the key and variant)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"values: {key!r} of variant {variant} must be a real number, got "
                        f"{value!r}")
    v = float(value)
    if not np.isfinite(v):
        raise ValueError(f"values: {key!r} of variant {variant} must be finite, got {v}")
    return v


def fast_setter(key: str, data=None):
    """Return a fast setter of a sweep key on model data, or None.

    For ``g``, ``stabilization``, bar masses and lengths, spring values and named
    parameters: ``setter(data, value)`` that sets the value on a
    :class:`~quivira.model.data.ModelData` copy (with its own element lists) as the model's
    setter does, with the same checks (a length keeps the bar's centre and angle, as
    ``set_bar_length``; a spring or a named parameter is replaced by ``with_values`` and
    ``checked``, as ``model.set``); None for other keys (they go through the model's
    setters). ``data``: the template's data, to find named elements.
    """
    from ..model.elements.actuators import Parameter
    from ..model.elements.spring_damper import SpringDamper
    from ..model.elements.torsional_spring import TorsionalSpring
    from ..model.validation import check_positive, check_real, check_stabilization

    if data is not None:
        for pos, p in enumerate(data.of(Parameter)):
            if p.name == key:
                def set_par(d, v, pos=pos):
                    lst = d.elements[Parameter.collection]
                    lst[pos] = lst[pos].with_values(value=v).checked(d.bars, key)
                return set_par
        name, _, what = key.rpartition(".")
        for kind, fields in ((SpringDamper, ("k", "l0", "c")),
                             (TorsionalSpring, ("k", "phi0", "c", "preload"))):
            for pos, el in enumerate(data.of(kind)):
                if el.name == name and what in fields:
                    def set_spring(d, v, kind=kind, pos=pos, what=what):
                        lst = d.elements[kind.collection]
                        lst[pos] = lst[pos].with_values(**{what: v}).checked(d.bars, name)
                    return set_spring

    if key == "g":
        def set_g(data, v):
            data.g = check_real(v, "g")
        return set_g
    if key == "stabilization":
        def set_stab(data, v):
            data.stabilization = check_stabilization(v)
        return set_stab
    m = _BAR.match(key)
    if m is not None and m.group(2) in ("mass", "length"):
        i, what = int(m.group(1)), m.group(2)

        def set_bar(data, v):
            setattr(data.bars[i], what, check_positive(v, f"bar {i}: {what}"))
        return set_bar
    return None

"""What a sensitivity can be taken with respect to, and how it enters the equations.

A *differentiation variable* ``w_j`` is named as everywhere else in Quivira
(:mod:`quivira.model.names`):

* ``"g"``: the acceleration of gravity;
* ``"bar3.mass"``, ``"bar3.length"``: a bar's data; ``"particle3.mass"``;
  ``"body3.mass"``, ``"body3.inertia"`` of a rigid body (its inertia is a datum of its
  own, not :math:`mL^2/12`);
* a runtime field of an element, ``"<element>.<field>"`` (e.g. ``"torsion0.k"``,
  ``"force1.fy"``, ``"support0.x"``), or a named parameter by its name (``"A"`` of
  ``Parameter(name="A", value=...)``);
* an initial-state entry of a body: ``"bar0.x"``, ``"bar0.y"``, ``"bar0.theta"`` (the
  centre of bar 0 and its angle), ``"bar0.vx"``, ``"bar0.vy"``, ``"bar0.omega"``.

The spellings of earlier releases (``"bar 0 · mass"``, ``"torsional spring 0 · k"``,
``"th0"``, ``"om1"``) are still read, with a pending-deprecation warning that gives the name.

**Physical parameters, not the compiled ones.** The compiled equations use runtime
parameters derived from the data (``1/m``, ``m g``, ``12/(m L²)``, ``s L`` of every point on
a bar, and products of those). A derivative with respect to a bar's mass must see all of them.
Instead of the chain rule (which at order ``k`` needs all mixed derivatives of the derived
parameters), the derived parameters are *substituted* by their formulas in the physical ones
(:func:`substitution`): ``hy.par[inv_mass] → 1/hy.par[mass]``, ``hy.par[weight] →
hy.par[mass]·hy.par[g]``, ``hy.par[sL] → s·hy.par[L]`` with a new runtime parameter for the
length. Then every physical parameter is a single ``hy.par`` entry and heyoka's
``var_ode_sys`` differentiates to any order directly. Parameters that are not selected keep
their (numeric) derived entries, so the substituted system costs little more than the
original one.

Initial-state entries are appended as runtime parameters that the ODE does not contain; they
act through the initial values of the variational equations (see :mod:`.engine`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import heyoka as hy
import numpy as np

from ..model.data import Bar, ModelData
from ..model.elements import Parameter
from ..model.names import SEP, STATE_FIELDS, body_name, element_name, warn_earlier
from ..model.symbolic import coordinate_names, parameter_layout

#: element parameter names that are never differentiation variables (switches, and the
#: inverse mass sum of a centre pin: data of the bodies, substituted with their masses)
_NOT_DIFFERENTIABLE = {"active", "inv_mass_sum"}
#: bar parameters, by their formula in (m, L, g)
_BAR_FORMULAS = {
    "inv_mass": lambda m, L, g: 1.0 / m,
    "inv_inertia": lambda m, L, g: 12.0 / (m * L * L),
    "weight": lambda m, L, g: m * g,
    "minus_weight": lambda m, L, g: -(m * g),
    "mass": lambda m, L, g: m,
    "inertia": lambda m, L, g: m * L * L / 12.0,
}
#: parameters of particles and rigid bodies, by their formula in (m, I, g); a rigid body's
#: inertia is its own datum (a particle has none of the inertia entries)
_BODY_FORMULAS = {
    "inv_mass": lambda m, inertia, g: 1.0 / m,
    "inv_inertia": lambda m, inertia, g: 1.0 / inertia,
    "weight": lambda m, inertia, g: m * g,
    "minus_weight": lambda m, inertia, g: -(m * g),
}


def _is_bar(body) -> bool:
    return getattr(body, "body_kind", "bar") == "bar"


def _body_label(i: int, body) -> str:
    """Return ``"bar i"``, ``"particle i"`` or ``"body i"`` (the names of the variables)."""
    return f"{getattr(body, 'body_kind', 'bar')} {i}"


@dataclass(frozen=True)
class Variable:
    """One differentiation variable.

    Attributes
    ----------
    name : str
        Its user-facing name.
    kind : str
        ``"g"``, ``"mass"``, ``"length"``, ``"inertia"`` (of a rigid body), ``"leaf"`` (an
        element parameter used as is) or ``"state"`` (an initial-state entry).
    index : int
        The body (mass, length, inertia), the base parameter index (g, leaf) or the state
        index.
    value : float
        Its value in the model's current data.
    """

    name: str
    kind: str
    index: int
    value: float


class _SymbolicBar:
    """A body whose length and mass may be expressions (to read the elements' formulas).

    Everything else is the body's own; a point ``s`` of its axis (:meth:`local_point`, used by
    distance links, body pins and rolling contacts) is then ``(s L, 0)`` with the symbolic
    ``L``, so an element datum that follows the length is seen to depend on it (and a centre
    pin's :math:`1/(m_0 + m_1)` on the masses).
    """

    local_point = Bar.local_point  # the body method, read through the bar class

    def __init__(self, bar: Bar, length, mass=None) -> None:
        self._bar = bar
        self.length = length
        self.mass = bar.mass if mass is None else mass
        self.pose = bar.pose
        self.velocity = bar.velocity

    def __getattr__(self, name: str):
        """Return the attribute of the underlying bar (read only)."""
        return getattr(self.__dict__["_bar"], name)


def _leaf_parameters(data: ModelData) -> list[tuple[str, int, float]]:
    """Return ``(name, base index, value)`` of every element parameter free of bar data.

    Detected by reading the element's parameters with symbolic lengths.
    """
    layout = parameter_layout(data)
    index = {key: k for k, (key, _) in enumerate(layout)}
    probe = [_SymbolicBar(b, hy.expression(f"quivira_L{i}")) if _is_bar(b) else b
             for i, b in enumerate(data.bars)]
    out = []
    for kind, pos, el in data.items():
        for name, value in el.parameters(probe):
            if isinstance(value, hy.expression) or name[-1] in _NOT_DIFFERENTIABLE:
                continue
            if kind is Parameter:
                label = el.name
            else:
                label = f"{element_name(el, pos)}{SEP}{'/'.join(str(p) for p in name)}"
            out.append((label, index[(kind.kind, pos, *name)], float(value)))
    return out


def _earlier_spellings(data: ModelData) -> dict[str, str]:
    """Return ``{earlier spelling: name}`` of the variables (``"bar 0 · mass"``, ``"th0"``)."""
    out = {}
    for i, b in enumerate(data.bars):
        bn, kind = body_name(i, b), getattr(b, "body_kind", "bar")
        for f in ("mass", "length", "inertia"):
            out[f"{kind} {i} · {f}"] = f"{bn}.{f}"
    for kind, pos, el in data.items():
        if kind is not Parameter:
            for name, _ in el.parameters(data.bars):
                f = "/".join(str(p) for p in name)
                out[f"{el.label_prefix(pos)} · {f}"] = f"{element_name(el, pos)}{SEP}{f}"
    q_names, qd_names = coordinate_names(data)
    for k, nm in enumerate(q_names + qd_names):
        out[nm] = _state_names(data)[k]
    return out


def _state_names(data: ModelData) -> list[str]:
    """Return the names of the initial-state entries, in state order (q, then q̇)."""
    q, qd = [], []
    for i, b in enumerate(data.bars):
        bn = body_name(i, b)
        for f, (block, j) in STATE_FIELDS.items():
            if j < b.n_coordinates:
                (q if block == 0 else qd).append(f"{bn}{SEP}{f}")
    return q + qd


def available(data: ModelData) -> list[Variable]:
    """Every differentiation variable of the model, in a fixed order (see module docstring)."""
    layout = parameter_layout(data)
    out = [Variable("g", "g", 0, float(data.g))]
    assert layout[0][0] == ("g",)
    for i, b in enumerate(data.bars):
        bn = body_name(i, b)
        out.append(Variable(f"{bn}{SEP}mass", "mass", i, float(b.mass)))
        if _is_bar(b):
            out.append(Variable(f"{bn}{SEP}length", "length", i, float(b.length)))
        elif b.rotates:
            out.append(Variable(f"{bn}{SEP}inertia", "inertia", i, float(b.inertia)))
    out += [Variable(name, "leaf", k, v) for name, k, v in _leaf_parameters(data)]
    state = []
    for b in data.bars:
        state += list(b.pose or (0.0, 0.0, 0.0))[: b.n_coordinates]
    for b in data.bars:
        state += list(b.velocity)[: b.n_coordinates]
    out += [Variable(nm, "state", k, float(state[k]))
            for k, nm in enumerate(_state_names(data))]
    return out


def resolve(data: ModelData, wrt, *, warn: bool = True) -> list[Variable]:
    """Return the variables named in ``wrt`` (a name or a sequence of distinct names).

    An earlier spelling (``"bar 0 · mass"``, ``"th0"``) is read with a pending-deprecation
    warning that gives the name (``warn=False``: read silently, for names already read).

    Raises
    ------
    TypeError
        ``wrt`` is not a string or a sequence of strings.
    ValueError
        An unknown or repeated name (the message lists the valid names), or an empty list.
    """
    if isinstance(wrt, str):
        wrt = [wrt]
    try:
        names = list(wrt)
    except TypeError:
        raise TypeError(f"wrt must be a name or a list of names, got {wrt!r}") from None
    if not names:
        raise ValueError("wrt: give at least one name to differentiate with respect to")
    by_name = {v.name: v for v in available(data)}
    earlier = _earlier_spellings(data) if any(
        isinstance(nm, str) and nm not in by_name for nm in names) else {}
    out = []
    for nm in names:
        if not isinstance(nm, str):
            raise TypeError(f"wrt: names must be strings, got {nm!r}")
        if nm not in by_name and earlier.get(nm) in by_name:
            if warn:
                warn_earlier(f"wrt: {nm!r} is an earlier spelling of {earlier[nm]!r}; use "
                             f"{earlier[nm]!r} (the earlier spellings go in the next "
                             "release)")
            by_name[nm] = by_name[earlier[nm]]
        if nm not in by_name:
            valid = ", ".join(repr(k) for k in by_name)
            raise ValueError(f"wrt: unknown name {nm!r}; valid names: {valid}")
        var = by_name[nm]
        if any((v.kind, v.index) == (var.kind, var.index) for v in out):
            raise ValueError(f"wrt: {nm!r} is named twice")
        out.append(dataclasses.replace(var, name=nm))  # results use the spelling given
    return out


@dataclass
class ParameterMap:
    """Where each differentiation variable lives in the extended parameter vector.

    Attributes
    ----------
    par_index : list[int]
        Per variable, its ``hy.par`` index in the extended vector.
    n_base : int
        Number of base parameters (the model's :func:`parameter_layout`).
    extra_values : list[float]
        Values of the appended parameters (lengths, initial-state entries), after the base.
    subs : dict
        ``{hy.par[base]: formula}`` for the base parameters that depend on a variable.
    """

    par_index: list[int]
    n_base: int
    extra_values: list[float]
    subs: dict

    def vector(self, base: np.ndarray, values: dict[int, float] | None = None) -> np.ndarray:
        """Return the extended parameter vector.

        The base values (substituted entries then unused) and the appended ones; ``values``
        overrides variables by position in ``wrt``.
        """
        vec = np.concatenate([np.asarray(base, dtype=float), self.extra_values])
        for j, v in (values or {}).items():
            vec[self.par_index[j]] = v
        return vec


def substitution(data: ModelData, variables: list[Variable]) -> ParameterMap:
    """Return the extended parameter vector and the substitution of derived parameters.

    See the module docstring: ``g``, masses and the inertias of rigid bodies use their own
    base entries (``("g",)``, ``("bar", i, "mass")``, ``("bar", i, "inertia")``), lengths and
    initial-state entries are appended.
    """
    layout = parameter_layout(data)
    index = {key: k for k, (key, _) in enumerate(layout)}
    n_base = len(layout)
    par_index, extra = [], []
    length_par: dict[int, hy.expression] = {}
    mass_par: dict[int, hy.expression] = {}
    inertia_par: dict[int, hy.expression] = {}
    g_par = None
    for v in variables:
        if v.kind == "g":
            par_index.append(index[("g",)])
            g_par = hy.par[index[("g",)]]
        elif v.kind == "mass":
            k = index[("bar", v.index, "mass")]
            par_index.append(k)
            mass_par[v.index] = hy.par[k]
        elif v.kind == "inertia":
            k = index[("bar", v.index, "inertia")]
            par_index.append(k)
            inertia_par[v.index] = hy.par[k]
        elif v.kind == "leaf":
            par_index.append(v.index)
        else:  # length or state: appended
            k = n_base + len(extra)
            par_index.append(k)
            extra.append(v.value)
            if v.kind == "length":
                length_par[v.index] = hy.par[k]
    subs: dict = {}
    for i, b in enumerate(data.bars):
        if g_par is None and i not in mass_par and i not in length_par \
                and i not in inertia_par:
            continue
        m = mass_par.get(i, b.mass)
        g = g_par if g_par is not None else data.g
        if not _is_bar(b):
            inertia = inertia_par.get(i, b.inertia if b.rotates else 1.0)
            for name, formula in _BODY_FORMULAS.items():
                uses = (g_par is not None and "weight" in name) or \
                    (i in mass_par and name != "inv_inertia") or \
                    (i in inertia_par and name == "inv_inertia")
                key = ("bar", i, name)
                if uses and key in index:
                    subs[hy.par[index[key]]] = hy.expression(formula(m, inertia, g))
            continue
        L = length_par.get(i, b.length)
        for name, formula in _BAR_FORMULAS.items():
            if name == "mass":
                continue  # the mass's own entry stays
            uses = (g_par is not None and name in ("weight", "minus_weight")) or \
                (i in mass_par) or (i in length_par and "inertia" in name)
            key = ("bar", i, name)
            if uses and key in index:
                subs[hy.par[index[key]]] = hy.expression(formula(m, L, g))
    if length_par or mass_par:
        probe = [_SymbolicBar(b, length_par.get(i, b.length), mass_par.get(i, b.mass))
                 if _is_bar(b) or i in mass_par else b for i, b in enumerate(data.bars)]
        for kind, pos, el in data.items():
            for name, value in el.parameters(probe):
                if isinstance(value, hy.expression):
                    subs[hy.par[index[(kind.kind, pos, *name)]]] = value
    return ParameterMap(par_index, n_base, extra, subs)

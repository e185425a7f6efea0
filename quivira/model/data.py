r"""The data of a model: bodies and elements, plus g and the Baumgarte rate.

Bodies are rigid planar bodies with their coordinates taken at the **mass centre**:

* a :class:`Bar` has coordinates ``(x_i, y_i, θ_i)``, length :math:`L_i`, mass :math:`m_i` and
  inertia :math:`I_i = m_i L_i^2/12` about its centre; the point at the local coordinate
  ``s ∈ [-0.5, 0.5]`` is

  .. math:: p_i(s) = (x_i, y_i) + s L_i (\cos θ_i, \sin θ_i);

* a :class:`Particle` (point mass) has the two coordinates ``(x_i, y_i)``, mass :math:`m_i`
  and no angle (its ``pose`` is kept as ``(x, y, 0)`` for readers of poses);
* a :class:`RigidBody` has ``(x_i, y_i, θ_i)``, mass :math:`m_i` and any inertia
  :math:`I_i > 0` about its mass centre, named attachment points :math:`(u, v)` in the body
  frame (a point of the body is :math:`(x_i, y_i) + R(θ_i)(u, v)`, so mass-centre offsets
  are attachment points) and a drawing shape (disc, plate).

Every body answers the same questions (coordinate count, mass diagonal, runtime parameters,
local points), so a bar is one kind of body and the rest of the code iterates over bodies.
The state layout is ``[q..., qd...]`` with the coordinates of the bodies in order, 3 per bar
or rigid body, 2 per particle (:meth:`ModelData.offsets`).

Elements (joints, supports, constraints, loads) are records of the kinds registered in
:mod:`quivira.model.elements`. A :class:`ModelData` is never changed once it is the model's
current data: edits work on a :meth:`ModelData.copy` and replace it, so a failed edit changes
nothing and results may keep a reference to the data they were computed from.
"""

from __future__ import annotations

import copy as _copy
import functools
import math
import numbers
from dataclasses import dataclass, field, fields
from typing import Any, ClassVar

from .._repr import short_repr
from .elements import KINDS, Element
from .validation import DEFAULT_STABILIZATION, check_point, check_positive, check_s

#: the drawing shapes of a rigid body and their size keys
SHAPES = {"disc": ("radius",), "plate": ("width", "height"), "none": ()}



@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    """Return the dataclass field names of a body class (cached: ``fields`` is slow)."""
    return tuple(f.name for f in fields(cls))


class _Body:
    """What every body provides (see the module docstring)."""

    #: key of the body kind in files and messages
    body_kind: ClassVar[str] = "bar"
    #: number of generalized coordinates (3: x, y, θ; 2 for a particle)
    n_coordinates: ClassVar[int] = 3

    def copy(self):
        """Return an independent copy.

        Lists and dicts (shape, named points) are copied; numbers, strings and tuples are shared
        (they are immutable).

        A model edit copies every body (see :meth:`ModelData.copy`), so this is kept cheap: a
        deep copy made building a 500-bar lattice take half a minute.
        """
        c = _copy.copy(self)
        for name in _field_names(type(self)):
            v = getattr(c, name)
            if isinstance(v, dict):
                setattr(c, name, {k: list(x) if isinstance(x, list) else x for k, x in v.items()})
            elif isinstance(v, list):
                setattr(c, name, [list(x) if isinstance(x, list) else x for x in v])
        return c

    @property
    def rotates(self) -> bool:
        """Whether the body has an angle coordinate."""
        return self.n_coordinates == 3

    def world(self, u: float, v: float) -> tuple[float, float]:
        """Return the initial position (m) of the body-frame point ``(u, v)``."""
        x, y, th = self.pose
        c, s = math.cos(th), math.sin(th)
        return x + u * c - v * s, y + u * s + v * c

    def point(self, s: float) -> tuple[float, float]:
        """Return the initial position of the point at local coordinate ``s``.

        That is the point ``(sL, 0)`` in the body frame.
        """
        return self.world(s * self.length, 0.0)

    def local_point(self, ref: Any, what: str) -> tuple[float, float]:
        """Return the body-frame coordinates ``(u, v)`` (m) of a point reference.

        A reference is a number ``s`` (the point ``(s L, 0)`` of the body's axis, ``s`` in
        [-0.5, 0.5]), a pair ``(u, v)`` in metres, or the name of one of the body's attachment
        points.
        """
        if isinstance(ref, str):
            pts = getattr(self, "points", {}) or {}
            if ref not in pts:
                raise ValueError(f"{what}: the body has no point named {short_repr(ref)} (its "
                                 f"points: {sorted(pts) or 'none'})")
            return tuple(pts[ref])
        if isinstance(ref, numbers.Real) and not isinstance(ref, bool):
            return check_s(ref, what) * self.length, 0.0
        uv = check_point(ref, what)
        if not self.rotates and (uv[0] != 0.0 or uv[1] != 0.0):
            raise ValueError(f"{what}: a particle has only the point (0, 0), got {uv}")
        return uv

    def _pose_text(self) -> str:
        if self.pose is None:
            return "pose not set"
        if not self.rotates:
            return f"position ({self.pose[0]:.4g}, {self.pose[1]:.4g})"
        return f"centre ({self.pose[0]:.4g}, {self.pose[1]:.4g}), θ = {self.pose[2]:.4g} rad"

    def describe(self, i: int) -> str:
        """Return the body's line in the model summary."""
        vel = tuple(round(v, 6) for v in self.velocity[:self.n_coordinates])
        return f"bar {i}: L = {self.length:g}, m = {self.mass:g}, {self._pose_text()}, " \
               f"velocity {vel}"

    def mass_diagonal(self) -> list[float]:
        """Return the body's diagonal entries of M: ``(m, m, I)``, or ``(m, m)`` for a particle."""
        return [self.mass, self.mass, self.inertia][:self.n_coordinates]

    def weights(self) -> list[float]:
        """Column weights of the rank tests and assembly metric: ``(1, 1, ℓ)``.

        ℓ is the body's length (a rotation counts by how far its ends move).
        """
        return [1.0, 1.0, max(self.length, 1e-300)][:self.n_coordinates]

    def parameters(self, g: float) -> list[tuple[str, float]]:
        """Return the body's runtime parameters ``(name, value)``.

        They are :math:`1/m`, :math:`1/I`, :math:`mg`, :math:`-mg`, :math:`m`, :math:`I` (no
        inertia for a particle; derived quantities are parameters of their own, so the compiled
        code does no arithmetic on data).
        """
        out = [("inv_mass", 1.0 / self.mass), ("weight", self.mass * g),
               ("minus_weight", -self.mass * g), ("mass", self.mass)]
        if self.rotates:
            inertia = self.inertia
            out[1:1] = [("inv_inertia", 1.0 / inertia)]
            out.append(("inertia", inertia))
        return out

    def parameter_symbols(self, i: int) -> dict[str, list[tuple[str, int]]]:
        """Symbols of :meth:`parameters` as factors ``(name, power)``."""
        m, inertia = f"m_{i}", f"I_{i}"
        out = {"inv_mass": [(m, -1)], "weight": [(m, 1), ("g", 1)],
               "minus_weight": [(m, 1), ("g", 1)], "mass": [(m, 1)]}
        if self.rotates:
            out |= {"inv_inertia": [(inertia, -1)], "inertia": [(inertia, 1)]}
        return out


@dataclass
class Bar(_Body):
    """A rigid bar: length, mass, and its initial pose and velocity (None until set)."""

    length: float
    mass: float
    pose: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)

    body_kind: ClassVar[str] = "bar"

    @property
    def inertia(self) -> float:
        """Moment of inertia about the centre, :math:`m L^2/12`."""
        return self.mass * self.length ** 2 / 12.0


@dataclass
class Particle(_Body):
    """A point mass: coordinates ``(x, y)``, no angle; ``pose`` is ``(x, y, 0)``."""

    mass: float
    pose: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)

    body_kind: ClassVar[str] = "particle"
    n_coordinates: ClassVar[int] = 2

    def __setattr__(self, name: str, value: Any) -> None:
        """Set an attribute; a particle's pose and velocity are ``(x, y)``, stored with angle 0."""
        if name in ("pose", "velocity") and value is not None:
            if len(value) == 3 and value[2] != 0.0:
                raise ValueError(f"a particle has no angle: its {name} is (x, y) (the third "
                                 f"entry must be 0), got {tuple(value)}")
            value = (value[0], value[1], 0.0)
        object.__setattr__(self, name, value)

    @property
    def length(self) -> float:
        """A particle has no extent (0)."""
        return 0.0

    @length.setter
    def length(self, value: float) -> None:
        raise ValueError("a particle has no length; it is a point mass (change its mass)")

    def describe(self, i: int) -> str:
        """Return the particle's line in the model summary (``i`` its index)."""
        vel = tuple(round(v, 6) for v in self.velocity[:2])
        return f"particle {i}: m = {self.mass:g}, {self._pose_text()}, velocity {vel}"

    @property
    def inertia(self) -> float:
        """A particle has no rotational inertia (0; it has no angle coordinate)."""
        return 0.0


@dataclass
class RigidBody(_Body):
    """A planar rigid body with a mass, an inertia, attachment points and a shape.

    Mass, inertia about the mass centre, attachment points in the body frame, a drawing
    shape; coordinates ``(x, y, θ)`` of the mass centre.
    """

    mass: float
    inertia: float
    pose: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: drawing shape: ``{"kind": "disc", "radius": R}``, ``{"kind": "plate", "width": w,
    #: "height": h}`` or ``{"kind": "none"}``
    shape: dict = field(default_factory=lambda: {"kind": "none"})
    #: named attachment points ``{name: (u, v)}`` in the body frame (m)
    points: dict = field(default_factory=dict)
    #: reference length ℓ of local coordinates ``s`` (the point ``(s ℓ, 0)``); None: from
    #: the shape (disc: diameter, plate: width), else the radius of gyration times √12
    ref_length: float | None = None

    body_kind: ClassVar[str] = "body"

    @property
    def length(self) -> float:
        """Reference length ℓ (m) of the body's local coordinates ``s``.

        See :attr:`ref_length`.
        """
        if self.ref_length is not None:
            return self.ref_length
        kind = self.shape.get("kind", "none")
        if kind == "disc":
            return 2.0 * self.shape["radius"]
        if kind == "plate":
            return self.shape["width"]
        return math.sqrt(12.0 * self.inertia / self.mass)

    @length.setter
    def length(self, value: float) -> None:
        self.ref_length = value

    def describe(self, i: int) -> str:
        """Return the body's line in the model summary (``i`` its index)."""
        shape = ", ".join(f"{k} = {v:g}" for k, v in self.shape.items() if k != "kind")
        shape = self.shape["kind"] + (f" ({shape})" if shape else "")
        pts = ", ".join(f"{k} ({u:.4g}, {v:.4g})" for k, (u, v) in self.points.items())
        vel = tuple(round(v, 6) for v in self.velocity)
        return (f"body {i}: {shape}, m = {self.mass:g}, I = {self.inertia:g}, "
                f"{self._pose_text()}, velocity {vel}" + (f", points {pts}" if pts else ""))

    @property
    def radius(self) -> float | None:
        """The radius of a disc-shaped body (m), None for other shapes."""
        return self.shape.get("radius") if self.shape.get("kind") == "disc" else None


#: body classes by their kind key
BODY_KINDS: dict[str, type] = {"bar": Bar, "particle": Particle, "body": RigidBody}


def check_shape(shape: Any, what: str) -> dict:
    """Validate a drawing shape (dict with ``kind`` and its positive sizes; None = none)."""
    if shape is None:
        return {"kind": "none"}
    if isinstance(shape, str):
        shape = {"kind": shape}
    if not isinstance(shape, dict):
        raise TypeError(f"{what} must be a dict such as {{'kind': 'disc', 'radius': 0.2}}, got "
                        f"{short_repr(shape)}")
    kind = shape.get("kind")
    if kind not in SHAPES:
        raise ValueError(f"{what}: kind must be one of {sorted(SHAPES)}, got {short_repr(kind)}")
    extra = sorted(set(shape) - {"kind", *SHAPES[kind]})
    if extra:
        raise ValueError(f"{what}: unknown keys {extra} for a {kind} (it takes "
                         f"{list(SHAPES[kind]) or 'no sizes'})")
    out: dict = {"kind": kind}
    for key in SHAPES[kind]:
        if key not in shape:
            raise ValueError(f"{what}: a {kind} needs {key!r} (m)")
        out[key] = check_positive(shape[key], f"{what} {key}")
    return out


def check_points(points: Any, what: str) -> dict:
    """Validate attachment points ``{name: (u, v)}`` (None = none)."""
    if points is None:
        return {}
    if not isinstance(points, dict):
        raise TypeError(f"{what} must be a dict {{name: (u, v)}} of body-frame points, got "
                        f"{short_repr(points)}")
    out = {}
    for name, uv in points.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"{what}: point names must be non-empty strings, got "
                            f"{short_repr(name)}")
        out[name] = check_point(uv, f"{what}[{short_repr(name)}]")
    return out


def _empty_elements() -> dict[str, list[Element]]:
    return {k.collection: [] for k in KINDS}


@dataclass
class ModelData:
    """Everything that defines a model: bars, elements by kind, g, the Baumgarte rate."""

    bars: list[Bar] = field(default_factory=list)
    #: element lists by collection name (every registered kind present, in registry order)
    elements: dict[str, list[Element]] = field(default_factory=_empty_elements)
    g: float = 9.81
    #: Baumgarte rate α (1/time) pulling drifted states back onto the constraints; 0 = off
    stabilization: float = DEFAULT_STABILIZATION

    def copy(self) -> ModelData:
        """Return an independent copy (what an edit works on until it is committed)."""
        bars = [b.copy() for b in self.bars]
        elements = {c: [e.copy() for e in lst] for c, lst in self.elements.items()}
        return ModelData(bars, elements, self.g, self.stabilization)

    def shallow_copy(self) -> ModelData:
        """Return a copy with new lists that share the bodies and elements.

        The draft of an edit that only appends, replaces or removes whole items (never
        changes one in place): :meth:`copy` costs a copy of every item per edit, which made
        building large lattices quadratic in their size.
        """
        return ModelData(list(self.bars), {c: list(lst) for c, lst in self.elements.items()},
                         self.g, self.stabilization)

    def of(self, kind: type[Element]) -> list[Element]:
        """Return the list of elements of a kind (the live list of this data: edit drafts only)."""
        return self.elements[kind.collection]

    def items(self):
        """``(kind, position, element)`` for every element, in registry order."""
        for kind in KINDS:
            for pos, el in enumerate(self.elements[kind.collection]):
                yield kind, pos, el

    def named(self) -> list[tuple[type[Element], int, Element]]:
        """Return the named elements (constraints addressed by name), in registry order."""
        return [(k, p, e) for k, p, e in self.items() if k.named]

    def length_scale(self) -> float:
        """Return the model's length scale ℓ.

        The largest bar length or coordinate of a bar centre in the initial pose (1 for a model
        without bars). Residual tolerances are relative to it, so a model and a scaled copy get
        the same verdicts.
        """
        values = [b.length for b in self.bars]
        values += [abs(v) for b in self.bars if b.pose is not None for v in b.pose[:2]]
        return max(values, default=1.0)

    def time_scale(self) -> float | None:
        r"""Return the model's time scale :math:`T = 2\pi\sqrt{\ell/g}`, or None without gravity.

        :math:`\ell` is the shortest bar length: T is the period of small swings of a simple
        pendulum that long, about the time of one swing of the model's quickest bar under
        gravity. The default tolerance (:func:`~quivira.model.compiled.default_tolerance`)
        treats a run no longer than T as short.
        """
        import math

        lengths = [b.length for b in self.bars if b.length > 0]
        if not lengths or not self.g:
            return None
        return 2.0 * math.pi * math.sqrt(min(lengths) / abs(self.g))

    def coordinate_weights(self):
        """Return the column weights ``(1, 1, L_i)`` per bar or body (``(1, 1)`` per particle).

        Multiplying the θ derivatives by ``L_i`` makes every column of J a length (the metric of
        assembly and of the rank tests).
        """
        import numpy as np

        return np.array([w for b in self.bars for w in b.weights()])

    def mass_diagonal(self):
        """Return the diagonal of the mass matrix M: ``(m, m, I)`` per body.

        ``(m, m)`` per particle; M is diagonal in the centre coordinates of every body kind.
        """
        import numpy as np

        return np.array([w for b in self.bars for w in b.mass_diagonal()])

    def energy_scale(self) -> float:
        r"""Return :math:`\sum_i m_i\,|g|\,\ell`: the work gravity can do over the model's size.

        A scale for energy errors that means something when every energy of a motion is about
        0 (a body at rest on the floor), where the zero of the potential is arbitrary.
        """
        return sum(b.mass for b in self.bars) * abs(self.g) * self.length_scale()

    def offsets(self) -> list[int]:
        """Return the index of the first coordinate of every body in ``q``.

        3 per bar or rigid body, 2 per particle.
        """
        out, k = [], 0
        for b in self.bars:
            out.append(k)
            k += b.n_coordinates
        return out

    def n_coordinates(self) -> int:
        """Return the number of generalized coordinates."""
        return sum(b.n_coordinates for b in self.bars)

    def has_particles(self) -> bool:
        """Whether a body has fewer than 3 coordinates (the layout is not 3 per body)."""
        return any(b.n_coordinates != 3 for b in self.bars)

    def theta_index(self, i: int) -> int | None:
        """Index of body ``i``'s angle in ``q`` (None for a particle)."""
        return self.theta_indices()[i]

    def theta_indices(self) -> list[int | None]:
        """Index of every body's angle in ``q`` (None for a particle), in one pass."""
        return [k + 2 if b.rotates else None for k, b in zip(self.offsets(), self.bars)]

    def names(self) -> list[str]:
        """Names of the named constraints, in registry order."""
        return [e.name for _, _, e in self.named()]

    def all_names(self) -> set[str]:
        """Every name taken, by constraints, loads and parameters."""
        return {e.name for k, _, e in self.items() if k.has_name}

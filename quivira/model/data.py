"""The data of a bar model: bars (the bodies) and elements, plus g and the Baumgarte rate.

A bar ``i`` has generalized coordinates ``(x_i, y_i, θ_i)`` of its centre. The point at the
local coordinate ``s ∈ [-0.5, 0.5]`` is

.. math:: p_i(s) = (x_i, y_i) + s L_i (\\cos θ_i, \\sin θ_i),

its inertia about the centre is :math:`m_i L_i^2 / 12`. Elements (joints, supports,
constraints, loads) are records of the kinds registered in :mod:`quivira.model.elements`.
A :class:`ModelData` is never changed once it is the model's current data: edits work on a
:meth:`ModelData.copy` and replace it, so a failed edit changes nothing and results may keep a
reference to the data they were computed from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .elements import KINDS, Element
from .validation import DEFAULT_STABILIZATION


@dataclass
class Bar:
    """A rigid bar: length, mass, and its initial pose and velocity (None until set)."""

    length: float
    mass: float
    pose: tuple[float, float, float] | None = None
    velocity: tuple[float, float, float] = (0.0, 0.0, 0.0)

    @property
    def inertia(self) -> float:
        """Moment of inertia about the centre, :math:`m L^2/12`."""
        return self.mass * self.length ** 2 / 12.0

    def point(self, s: float) -> tuple[float, float]:
        """Initial position of the point at local coordinate ``s``."""
        x, y, th = self.pose
        return x + s * self.length * math.cos(th), y + s * self.length * math.sin(th)

    def parameters(self, g: float) -> list[tuple[str, float]]:
        """The bar's runtime parameters ``(name, value)``: :math:`1/m`, :math:`1/I`,
        :math:`mg`, :math:`-mg`, :math:`m`, :math:`I` (derived quantities are parameters of
        their own, so the compiled code does no arithmetic on data)."""
        inertia = self.inertia
        return [("inv_mass", 1.0 / self.mass), ("inv_inertia", 1.0 / inertia),
                ("weight", self.mass * g), ("minus_weight", -self.mass * g),
                ("mass", self.mass), ("inertia", inertia)]

    @staticmethod
    def parameter_symbols(i: int) -> dict[str, list[tuple[str, int]]]:
        """Symbols of :meth:`parameters` as factors ``(name, power)``."""
        m, inertia = f"m_{i}", f"I_{i}"
        return {"inv_mass": [(m, -1)], "inv_inertia": [(inertia, -1)],
                "weight": [(m, 1), ("g", 1)], "minus_weight": [(m, 1), ("g", 1)],
                "mass": [(m, 1)], "inertia": [(inertia, 1)]}


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
        """An independent copy (what an edit works on until it is committed)."""
        bars = [Bar(b.length, b.mass, b.pose, b.velocity) for b in self.bars]
        elements = {c: [e.copy() for e in lst] for c, lst in self.elements.items()}
        return ModelData(bars, elements, self.g, self.stabilization)

    def of(self, kind: type[Element]) -> list[Element]:
        """The list of elements of a kind (the live list of this data: edit drafts only)."""
        return self.elements[kind.collection]

    def items(self):
        """``(kind, position, element)`` for every element, in registry order."""
        for kind in KINDS:
            for pos, el in enumerate(self.elements[kind.collection]):
                yield kind, pos, el

    def named(self) -> list[tuple[type[Element], int, Element]]:
        """The named elements (constraints addressed by name), in registry order."""
        return [(k, p, e) for k, p, e in self.items() if k.named]

    def length_scale(self) -> float:
        """The model's length scale ℓ: the largest bar length or coordinate of a bar centre
        in the initial pose (1 for a model without bars). Residual tolerances are relative to
        it, so a model and a scaled copy get the same verdicts."""
        values = [b.length for b in self.bars]
        values += [abs(v) for b in self.bars if b.pose is not None for v in b.pose[:2]]
        return max(values, default=1.0)

    def coordinate_weights(self):
        """``(1, 1, L_i)`` per bar: multiplying the θ derivatives by ``L_i`` makes every column
        of J a length (the metric of assembly and of the rank tests)."""
        import numpy as np

        return np.array([w for b in self.bars for w in (1.0, 1.0, b.length)])

    def names(self) -> list[str]:
        """Names of the named constraints, in registry order."""
        return [e.name for _, _, e in self.named()]

    def all_names(self) -> set[str]:
        """Every name taken, by constraints, loads and parameters."""
        return {e.name for k, _, e in self.items() if k.has_name}

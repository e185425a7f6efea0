r"""From a constraint row to the force it stands for: which element, which bar, which point.

Constraint rows are labelled ``"joint2.bar3.x"`` or ``"support0.y"`` (the model's
``constraint_labels``: the element's name, then the parts of the row).
A row of joint ``j`` naming bar ``b`` belongs to the force that joint
``j`` exerts on bar ``b``, applied at the joint's point of that bar; a support row to the force
of the support on its bar, at the supported point. That force is, at a state,

.. math:: F_{e,b} = \sum_{r \in e} (J_{r,x_b}, J_{r,y_b})\,\lambda_r

(the translational part of :math:`J^T\lambda` on bar ``b`` from the rows of element ``e``),
which is what a trajectory's ``reactions`` hold along the motion. Other kinds of constraint
(the rows of named constraints) have no single point of application: no arrow.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

_BAR = re.compile(r"bar(\d+)$")


@dataclass(frozen=True)
class ForceTarget:
    """The element, bar and point a constraint row's force acts on."""

    kind: str  # "joint" or "support"
    index: int
    bar: int
    s: float
    name: str = ""  # the element's name: the first part of its rows' labels

    @property
    def label(self) -> str:
        """E.g. ``"joint 2 on bar 3"`` (as :attr:`quivira.ReactionForce.label`)."""
        return f"{self.kind} {self.index} on bar {self.bar}"


def force_target(model, label: str) -> ForceTarget | None:
    """Return the :class:`ForceTarget` of the row ``label`` of ``model``.

    None for other kinds or labels that do not match the model.
    """
    from quivira.elements import PinJoint, Support

    name, _, rest = str(label).partition(".")
    if model is None or not rest:
        return None
    elements = model.elements  # one read per call: the view asks at every frame drawn
    element = elements.get(name)
    if not isinstance(element, (PinJoint, Support)):
        return None
    # the element's position among its kind: the index of its reaction in the trajectory
    k = [nm for nm, e in elements.items() if type(e) is type(element)].index(name)
    if isinstance(element, Support):
        return ForceTarget("support", k, int(element.bar), float(element.s), name)
    bar_part = next((_BAR.fullmatch(p) for p in rest.split(".") if _BAR.fullmatch(p)), None)
    if bar_part is None or int(bar_part.group(1)) not in element.bars:
        return None
    b = int(bar_part.group(1))
    return ForceTarget("joint", k, b, float(element.s[list(element.bars).index(b)]), name)


def force_from_trajectory(trajectory, target: ForceTarget, frame: int) -> np.ndarray | None:
    """Return the force (N) of ``target`` at ``frame`` from ``trajectory.reactions``, or None."""
    for r in trajectory.reactions:
        if (r.kind, r.index, r.bar) == (target.kind, target.index, target.bar):
            return np.asarray(r.force[frame], dtype=float)
    return None


def force_from_matrices(J: np.ndarray, lam: np.ndarray, labels: list[str],
                        target: ForceTarget, columns: list[int] | None = None) -> np.ndarray:
    """Return the force (N) of ``target`` at one state from ``J`` and ``λ`` (see the module docs).

    ``columns``: the columns of the bar's x and y in J (``model.body_coordinates(bar)[:2]``;
    default ``3 bar``, ``3 bar + 1``, right without particles).
    """
    rows = [r for r, lb in enumerate(labels) if lb.partition(".")[0] == target.name]
    b = target.bar
    if not rows:
        return np.zeros(2)
    cols = [3 * b, 3 * b + 1] if columns is None else list(columns)[:2]
    return np.asarray(J, dtype=float)[np.ix_(rows, cols)].T @ np.asarray(lam)[rows]


def reaction_label_of_row(label: str, model) -> str | None:
    """Return the reaction label (``"joint 2 on bar 3"``) a constraint row belongs to, if any."""
    t = force_target(model, label)
    return None if t is None else t.label

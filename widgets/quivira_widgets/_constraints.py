r"""From a constraint row to the force it stands for: which element, which bar, which point.

Constraint rows are labelled ``"joint 2 · bar 3 · x"`` or ``"support 0 · y"`` (the model's
``constraint_labels``). A row of joint ``j`` naming bar ``b`` belongs to the force that joint
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

_JOINT = re.compile(r"joint (\d+)$")
_SUPPORT = re.compile(r"support (\d+)$")
_BAR = re.compile(r"bar (\d+)$")


@dataclass(frozen=True)
class ForceTarget:
    """The element, bar and point a constraint row's force acts on."""

    kind: str  # "joint" or "support"
    index: int
    bar: int
    s: float

    @property
    def label(self) -> str:
        """E.g. ``"joint 2 on bar 3"`` (as :attr:`quivira.ReactionForce.label`)."""
        return f"{self.kind} {self.index} on bar {self.bar}"


def force_target(model, label: str) -> ForceTarget | None:
    """Return the :class:`ForceTarget` of the row ``label`` of ``model``.

    None for other kinds or labels that do not match the model.
    """
    parts = [p.strip() for p in str(label).split("·")]
    if not parts:
        return None
    m = _JOINT.fullmatch(parts[0])
    if m:
        j = int(m.group(1))
        joints = model.joints
        bar_part = next((_BAR.fullmatch(p) for p in parts[1:] if _BAR.fullmatch(p)), None)
        if j >= len(joints) or bar_part is None:
            return None
        b = int(bar_part.group(1))
        jt = joints[j]
        if b not in jt.bars:
            return None
        return ForceTarget("joint", j, b, float(jt.s[list(jt.bars).index(b)]))
    m = _SUPPORT.fullmatch(parts[0])
    if m:
        k = int(m.group(1))
        sups = model.supports
        if k >= len(sups):
            return None
        return ForceTarget("support", k, int(sups[k].bar), float(sups[k].s))
    return None


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
    prefix = f"{target.kind} {target.index}"
    rows = [r for r, lb in enumerate(labels) if lb.split("·")[0].strip() == prefix]
    b = target.bar
    if not rows:
        return np.zeros(2)
    cols = [3 * b, 3 * b + 1] if columns is None else list(columns)[:2]
    return np.asarray(J, dtype=float)[np.ix_(rows, cols)].T @ np.asarray(lam)[rows]


def reaction_label_of_row(label: str, model) -> str | None:
    """Return the reaction label (``"joint 2 on bar 3"``) a constraint row belongs to, if any."""
    t = force_target(model, label)
    return None if t is None else t.label

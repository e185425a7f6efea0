r"""Closed-form analysis of a four-bar linkage: Grashof class, toggles, transmission, limits.

Links: ground :math:`d` (pivots :math:`O_2` and :math:`O_4`), input :math:`a` (pinned at
:math:`O_2`, tip :math:`A`), coupler :math:`b` (from :math:`A` to :math:`B`), output
:math:`c` (pinned at :math:`O_4`, tip :math:`B`). Angles are measured counter-clockwise from
the ground line :math:`O_2 \to O_4`: the input angle :math:`θ_2` of :math:`O_2 \to A`, the
output angle :math:`θ_4` of :math:`O_4 \to B`. They are given for the assembly with
:math:`B` on the left of :math:`A \to O_4` (the "elbow-up" one of
:func:`quivira.examples.four_bar`); the other assembly is its mirror image in the ground
line (negate the angles).

**Grashof.** With :math:`s, l` the shortest and longest link and :math:`p, q` the other two,
:math:`s + l < p + q` is a Grashof linkage (the shortest link turns fully relative to the
others): a crank–rocker if the shortest is the input or the output, a double crank if it is
the ground, a double rocker if it is the coupler. :math:`s + l > p + q`: a triple rocker (no
link turns fully). :math:`s + l = p + q`: a change point (the linkage can fold flat, where its
assembly branch is undetermined).

**Input toggles.** The distance :math:`f = |AO_4|` obeys
:math:`f^2 = a^2 + d^2 - 2ad\cos θ_2`, and the loop closes iff
:math:`|b - c| \le f \le b + c`. The input turns fully iff :math:`d + a \le b + c` and
:math:`|d - a| \ge |b - c|`; otherwise it stops where coupler and output align (a dead centre
of the input), at :math:`\cos θ_2 = (a^2 + d^2 - (b \pm c)^2)/(2ad)`.

**Transmission angle** :math:`μ` (at :math:`B`, between coupler and output):
:math:`\cos μ = (b^2 + c^2 - f^2)/(2bc)`, increasing with :math:`f`; over a full input turn
its extremes are at :math:`θ_2 = 0` and :math:`π`,
:math:`\cos μ = (b^2 + c^2 - d^2 - a^2 \pm 2ad)/(2bc)`.

**Rocker limits** (a crank–rocker with the input the crank): the output is at an extreme when
input and coupler are collinear, :math:`|O_2B| = a + b` (extended) or :math:`b - a` (folded);
the triangle :math:`O_2 O_4 B` gives :math:`θ_4` and :math:`θ_2`. With :math:`α` the angle
between the two crank lines (the two strokes take :math:`180° \pm α` of crank rotation), the
time ratio is :math:`Q = (180° + α)/(180° - α)`.

References: R. L. Norton, *Design of Machinery*, ch. 2 and 4; J. J. Uicker, G. R. Pennock,
J. E. Shigley, *Theory of Machines and Mechanisms*, ch. 1 and 4.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from .._repr import short_repr
from .data import ModelData
from .validation import bar_index, check_positive

__all__ = ["FourBarAnalysis", "FourBarLinks", "Grashof", "RockerLimits", "TransmissionExtremes",
           "four_bar_analysis", "four_bar_links", "grashof"]

#: relative tolerance of s + l = p + q (the change point) and of the toggle inequalities
CHANGE_POINT_RTOL = 1e-12

_LINKS = ("ground", "input", "coupler", "output")
_SYMBOLS = {"ground": "d", "input": "a", "coupler": "b", "output": "c"}


@dataclass(frozen=True)
class Grashof:
    """The Grashof classification of a four-bar (:func:`grashof`).

    Attributes
    ----------
    ground, input, coupler, output : float
        The link lengths :math:`d, a, b, c`.
    s_plus_l, p_plus_q : float
        The two sides of Grashof's inequality.
    kind : str
        ``"crank-rocker"``, ``"double crank"``, ``"double rocker"``, ``"triple rocker"`` or
        ``"change point"``.
    shortest : str
        The shortest link (``"ground"``, ``"input"``, ``"coupler"``, ``"output"``).
    input_turns_fully, output_turns_fully : bool
        Whether the input (output) link can turn fully relative to the ground.
    """

    ground: float
    input: float
    coupler: float
    output: float
    s_plus_l: float
    p_plus_q: float
    kind: str
    shortest: str
    input_turns_fully: bool
    output_turns_fully: bool

    @property
    def is_grashof(self) -> bool:
        """Whether :math:`s + l < p + q` (strictly: the change point is not)."""
        return self.kind not in ("triple rocker", "change point")

    def __str__(self) -> str:
        """One readable sentence: the class, the inequality and what the input does."""
        lhs, rhs = f"s + l = {self.s_plus_l:g}", f"p + q = {self.p_plus_q:g}"
        if self.kind == "change point":
            ineq = f"s + l = p + q = {self.s_plus_l:g}"
        else:
            ineq = f"{lhs} {'>' if self.kind == 'triple rocker' else '<'} {rhs}"
        does = "turns fully" if self.input_turns_fully else "rocks"
        text = (f"{self.kind.replace('-', '–')}: {ineq}; the input (a = {self.input:g}) "
                f"{does}")
        if self.output_turns_fully and not self.input_turns_fully:
            text += f", the output (c = {self.output:g}) turns fully"
        if self.kind == "change point" and self.input_turns_fully:
            text += " through flat positions where the assembly branch is undetermined"
        return text


@dataclass(frozen=True)
class TransmissionExtremes:
    """Extremes of the transmission angle μ over the input's reachable range.

    Attributes
    ----------
    min, max : float
        The smallest and largest μ (rad).
    input_at_min, input_at_max : float
        Input angles θ2 (rad) where they occur (θ2 in [0, π]; the mirror −θ2 too).
    """

    min: float
    max: float
    input_at_min: float
    input_at_max: float

    @property
    def worst_deviation(self) -> float:
        """Largest deviation (rad) of μ from a right angle."""
        return max(abs(0.5 * math.pi - self.min), abs(self.max - 0.5 * math.pi))


@dataclass(frozen=True)
class RockerLimits:
    r"""The two extreme positions of the output of a crank–rocker (input the crank).

    Attributes
    ----------
    output_extended, output_folded : float
        Output angles θ4 (rad) with input and coupler collinear, extended and folded.
    input_extended, input_folded : float
        The input angles θ2 (rad) there.
    swing : float
        The rocker's swing angle (rad), ``output_folded - output_extended``.
    alpha : float
        Angle (rad) between the two crank lines: the strokes take π ± α of crank rotation.
    time_ratio : float
        The quick-return ratio :math:`Q = (π + α)/(π - α) \ge 1`.
    """

    output_extended: float
    output_folded: float
    input_extended: float
    input_folded: float
    swing: float
    alpha: float
    time_ratio: float


@dataclass(frozen=True)
class FourBarLinks:
    r"""Where a model's four-bar is: its bars, ground pivots and link lengths.

    Attributes
    ----------
    input, coupler, output : int
        Bar indices.
    pivot_input, pivot_output : tuple of float
        Ground pivots :math:`O_2`, :math:`O_4` (m).
    lengths : tuple of float
        ``(ground, input, coupler, output)`` between the pin points.
    ground_angle : float
        Direction (rad) of :math:`O_2 \to O_4` in the model's frame.
    input_end, output_end : tuple of float
        Local coordinates ``(s at the ground pivot, s at the moving pin)`` on the input and
        the output bar.
    mirrored : bool
        Whether the initial pose is the other assembly (:math:`B` on the right of
        :math:`A \to O_4`): its angles are those of the analysis negated.
    """

    input: int
    coupler: int
    output: int
    pivot_input: tuple
    pivot_output: tuple
    lengths: tuple
    ground_angle: float
    input_end: tuple
    output_end: tuple
    mirrored: bool


@dataclass(frozen=True)
class FourBarAnalysis:
    """Everything :func:`four_bar_analysis` finds, angles as in the module docstring.

    Attributes
    ----------
    grashof : Grashof
        The classification.
    input_range : tuple of float or None
        ``(lo, hi)``: the input angles θ2 (rad) of the two input toggles, between which the
        input moves (``lo < hi``; None if the input turns fully). Where both toggles lie in
        (0, π) the input rocks in ``[lo, hi]`` or its mirror ``[-hi, -lo]``.
    input_toggles : tuple of str
        At ``lo`` and ``hi``: ``"extended"`` (coupler and output in line, f = b + c) or
        ``"folded"`` (f = |b − c|); empty if the input turns fully.
    transmission : TransmissionExtremes
        Over the reachable input angles.
    rocker : RockerLimits or None
        For a crank–rocker with the input the crank.
    links : FourBarLinks or None
        The bars of the model analysed (None from lengths).
    """

    grashof: Grashof
    input_range: tuple | None
    input_toggles: tuple
    transmission: TransmissionExtremes
    rocker: RockerLimits | None
    links: FourBarLinks | None = None

    def __str__(self) -> str:
        """Return the Grashof sentence and the angles, in degrees."""
        lines = [str(self.grashof)]
        if self.input_range is not None:
            lo, hi = (math.degrees(v) for v in self.input_range)
            lines.append(f"input range {lo:.4g}° to {hi:.4g}° (toggles: "
                         f"{' and '.join(self.input_toggles)})")
        t = self.transmission
        lines.append(f"transmission angle {math.degrees(t.min):.4g}° to "
                     f"{math.degrees(t.max):.4g}°")
        if self.rocker is not None:
            r = self.rocker
            lines.append(f"rocker swing {math.degrees(r.swing):.4g}°, time ratio "
                         f"{r.time_ratio:.4g}")
        return "\n".join(lines)


# ---------------------------------------------------------------------------- lengths
def _lengths(ground: Any, input: Any, coupler: Any, output: Any) -> tuple:
    d, a, b, c = (check_positive(v, f"four-bar {name} length")
                  for v, name in zip((ground, input, coupler, output), _LINKS))
    longest = max(d, a, b, c)
    if longest >= (d + a + b + c - longest) * (1.0 - CHANGE_POINT_RTOL):
        name = _LINKS[(d, a, b, c).index(longest)]
        raise ValueError(f"a four-bar with {name} {longest:g} cannot be assembled: the longest "
                         "link must be shorter than the sum of the other three "
                         f"({d + a + b + c - longest:g}) (lengths d, a, b, c = {d:g}, {a:g}, "
                         f"{b:g}, {c:g})")
    return d, a, b, c


def _at_most(x: float, y: float, scale: float) -> bool:
    return x <= y + CHANGE_POINT_RTOL * scale


def _turns_fully(d: float, a: float, b: float, c: float) -> bool:
    """Whether link ``a`` (pinned to ground ``d``, loop a, b, c, d) can turn fully."""
    scale = d + a + b + c
    return _at_most(d + a, b + c, scale) and _at_most(abs(b - c), abs(d - a), scale)


def grashof(ground: float, input: float, coupler: float, output: float) -> Grashof:
    """Classify a four-bar by Grashof's criterion (see :mod:`quivira.model.four_bar`).

    Parameters
    ----------
    ground, input, coupler, output : float
        The link lengths :math:`d, a, b, c` (positive, finite).

    Returns
    -------
    Grashof

    Raises
    ------
    ValueError
        A length is not positive and finite, or the longest link is not shorter than the
        other three together (the linkage cannot be assembled).

    Examples
    --------
    >>> print(grashof(3.0, 1.0, 3.0, 2.5))
    crank–rocker: s + l = 4 < p + q = 5.5; the input (a = 1) turns fully
    >>> grashof(1.0, 3.0, 2.0, 2.5).kind
    'double crank'
    """
    d, a, b, c = _lengths(ground, input, coupler, output)
    ls = (d, a, b, c)
    s, l = min(ls), max(ls)
    s_plus_l, p_plus_q = s + l, sum(ls) - s - l
    shortest = _LINKS[ls.index(s)]
    if abs(s_plus_l - p_plus_q) <= CHANGE_POINT_RTOL * sum(ls):
        kind = "change point"
    elif s_plus_l > p_plus_q:
        kind = "triple rocker"
    else:
        kind = {"ground": "double crank", "coupler": "double rocker"}.get(shortest,
                                                                          "crank-rocker")
    return Grashof(ground=d, input=a, coupler=b, output=c, s_plus_l=s_plus_l,
                   p_plus_q=p_plus_q, kind=kind, shortest=shortest,
                   input_turns_fully=_turns_fully(d, a, b, c),
                   output_turns_fully=_turns_fully(d, c, b, a))


# ---------------------------------------------------------------------------- angles
def _input_angle_at(f: float, d: float, a: float) -> float:
    """Input angle θ2 in [0, π] where ``|AO_4| = f``."""
    return math.acos(max(-1.0, min(1.0, (a * a + d * d - f * f) / (2.0 * a * d))))


def _mu(f: float, b: float, c: float) -> float:
    return math.acos(max(-1.0, min(1.0, (b * b + c * c - f * f) / (2.0 * b * c))))


def _input_range(d: float, a: float, b: float, c: float) -> tuple:
    """``(range, toggles)`` of the input (see :class:`FourBarAnalysis`)."""
    scale = d + a + b + c
    extended_inside = not _at_most(d + a, b + c, scale)  # f = b + c reached at some θ2
    folded_inside = not _at_most(abs(b - c), abs(d - a), scale)  # f = |b - c| reached
    if not (extended_inside or folded_inside):
        return None, ()
    t_ext = _input_angle_at(b + c, d, a)
    t_fold = _input_angle_at(abs(b - c), d, a)
    if extended_inside and folded_inside:
        return (t_fold, t_ext), ("folded", "extended")
    if extended_inside:  # the input moves through θ2 = 0
        return (-t_ext, t_ext), ("extended", "extended")
    return (t_fold, 2.0 * math.pi - t_fold), ("folded", "folded")  # through θ2 = π


def _transmission(d: float, a: float, b: float, c: float) -> TransmissionExtremes:
    scale = d + a + b + c
    # input along the ground line where it can be, else at a toggle
    if _at_most(abs(b - c), abs(d - a), scale):
        f_min, at_min = abs(d - a), 0.0
    else:
        f_min = abs(b - c)
        at_min = _input_angle_at(f_min, d, a)
    if _at_most(d + a, b + c, scale):
        f_max, at_max = d + a, math.pi
    else:
        f_max = b + c
        at_max = _input_angle_at(f_max, d, a)
    return TransmissionExtremes(min=_mu(f_min, b, c), max=_mu(f_max, b, c),
                                input_at_min=at_min, input_at_max=at_max)


def _triangle_angle(opposite: float, side1: float, side2: float) -> float:
    """Angle between ``side1`` and ``side2`` of a triangle (law of cosines)."""
    cos = (side1 * side1 + side2 * side2 - opposite * opposite) / (2.0 * side1 * side2)
    return math.acos(max(-1.0, min(1.0, cos)))


def _rocker_limits(d: float, a: float, b: float, c: float) -> RockerLimits:
    r_ext, r_fold = a + b, b - a
    out_ext = math.pi - _triangle_angle(r_ext, d, c)
    out_fold = math.pi - _triangle_angle(r_fold, d, c)
    gamma_ext = _triangle_angle(c, d, r_ext)
    gamma_fold = _triangle_angle(c, d, r_fold)
    alpha = abs(gamma_fold - gamma_ext)
    return RockerLimits(output_extended=out_ext, output_folded=out_fold,
                        input_extended=gamma_ext, input_folded=gamma_fold + math.pi,
                        swing=out_fold - out_ext, alpha=alpha,
                        time_ratio=(math.pi + alpha) / (math.pi - alpha))


def four_bar_analysis(ground: float, input: float, coupler: float, output: float, *,
                      links: FourBarLinks | None = None) -> FourBarAnalysis:
    """Analyse a four-bar in closed form (see :mod:`quivira.model.four_bar`).

    Parameters
    ----------
    ground, input, coupler, output : float
        The link lengths :math:`d, a, b, c` (positive, finite).
    links : FourBarLinks, optional
        The model's bars, kept in the result.

    Returns
    -------
    FourBarAnalysis
        The Grashof class, the input's toggles and range, the transmission-angle extremes and,
        for a crank–rocker driven by its crank, the rocker's limit positions and time ratio.

    Raises
    ------
    ValueError
        As :func:`grashof`.

    Examples
    --------
    >>> r = four_bar_analysis(5.0, 2.0, 4.0, 3.5)
    >>> round(math.degrees(r.rocker.swing), 1), round(r.rocker.time_ratio, 3)
    (69.8, 1.029)
    """
    g = grashof(ground, input, coupler, output)
    d, a, b, c = g.ground, g.input, g.coupler, g.output
    rng, toggles = _input_range(d, a, b, c)
    rocker = None
    if g.input_turns_fully and not g.output_turns_fully and b > a:
        rocker = _rocker_limits(d, a, b, c)
    return FourBarAnalysis(grashof=g, input_range=rng, input_toggles=toggles,
                           transmission=_transmission(d, a, b, c), rocker=rocker, links=links)


# ---------------------------------------------------------------------------- models
def _not_a_four_bar(found: str) -> ValueError:
    return ValueError("the model is not a four-bar (three bars, two pinned to the ground by "
                      "pin supports and joined through the third by two pin joints, no other "
                      f"constraint): {found}")


def four_bar_links(data: ModelData, input: int | None = None) -> FourBarLinks:
    """Find the four-bar of a model: its input, coupler and output bars and link lengths.

    Parameters
    ----------
    data : ModelData
        The model's data (initial pose).
    input : int, optional
        The input bar (one of the two grounded bars; default: the lower index).

    Returns
    -------
    FourBarLinks

    Raises
    ------
    ValueError
        Naming what was found where the model is not a four-bar.
    """
    from .elements import PinJoint, Support
    from .elements.base import Constraint

    bars = data.bars
    if len(bars) != 3 or not all(b.rotates for b in bars):
        raise _not_a_four_bar(f"it has {len(bars)} bodies"
                              + ("" if len(bars) != 3 else ", not all of them bars"))
    others = sorted({k.kind for k, _, el in data.items()
                     if isinstance(el, Constraint) and k not in (PinJoint, Support)})
    if others:
        raise _not_a_four_bar(f"it has constraints of kind {', '.join(others)}")
    supports, joints = data.of(Support), data.of(PinJoint)
    if len(supports) != 2 or any(sp.free_x or sp.free_y for sp in supports):
        rollers = sum(1 for sp in supports if sp.free_x or sp.free_y)
        raise _not_a_four_bar(f"it has {len(supports)} supports ({rollers} rollers)")
    grounded = sorted(sp.bar for sp in supports)
    if grounded[0] == grounded[1]:
        raise _not_a_four_bar(f"both supports are on bar {grounded[0]}")
    if len(joints) != 2 or any(len(j.bars) != 2 for j in joints):
        raise _not_a_four_bar(f"it has {len(joints)} pin joints "
                              f"({[list(j.bars) for j in joints]})")
    if input is None:
        input = grounded[0]
    elif (input := bar_index(input, len(bars), "four-bar input")) not in grounded:
        raise ValueError(f"four-bar input: bar {short_repr(input)} is not pinned to the "
                         f"ground; give one of the grounded bars {grounded}")
    output = grounded[1] if input == grounded[0] else grounded[0]
    coupler = ({0, 1, 2} - set(grounded)).pop()

    def pin(bar_a: int, bar_b: int) -> tuple:
        for j in joints:
            if set(j.bars) == {bar_a, bar_b}:
                return j.s[j.bars.index(bar_a)], j.s[j.bars.index(bar_b)]
        raise _not_a_four_bar(f"no pin joint joins bars {bar_a} and {bar_b} (joints: "
                              f"{[list(j.bars) for j in joints]})")

    s_in_pin, s_cp_in = pin(input, coupler)
    s_out_pin, s_cp_out = pin(output, coupler)
    sup = {sp.bar: sp for sp in supports}

    def pivot(bar: int) -> tuple:
        sp = sup[bar]
        px, py = bars[bar].point(sp.s)
        return (px if sp.x is None else float(sp.x), py if sp.y is None else float(sp.y))

    o2, o4 = pivot(input), pivot(output)
    lengths = (math.hypot(o4[0] - o2[0], o4[1] - o2[1]),
               abs(s_in_pin - sup[input].s) * bars[input].length,
               abs(s_cp_out - s_cp_in) * bars[coupler].length,
               abs(s_out_pin - sup[output].s) * bars[output].length)
    for name, v in zip(_LINKS, lengths):
        if not v > 0.0:
            raise _not_a_four_bar(f"its {name} link has zero length (pins at one point)")
    ax, ay = bars[input].point(s_in_pin)
    bx, by = bars[output].point(s_out_pin)
    left = (o4[0] - ax) * (by - ay) - (o4[1] - ay) * (bx - ax)  # (O4 − A) × (B − A)
    return FourBarLinks(input=input, coupler=coupler, output=output, pivot_input=o2,
                        pivot_output=o4, lengths=lengths,
                        ground_angle=math.atan2(o4[1] - o2[1], o4[0] - o2[0]),
                        input_end=(sup[input].s, s_in_pin),
                        output_end=(sup[output].s, s_out_pin), mirrored=left < 0.0)


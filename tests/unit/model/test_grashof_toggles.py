"""Four-bar analysis (:mod:`quivira.model.four_bar`) against textbook numbers, a brute-force
loop closure and kinematic sweeps of the model.

The oracles: a published worked example (rocker swing), the law of cosines evaluated here,
Freudenstein's equation solved by numpy over a full input turn (whether the loop closes), and
the model's own position solver (:meth:`bar_joint_model.kinematic_sweep`), which knows
nothing of closed forms.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import quivira as qv
from quivira.examples import chain, four_bar
from quivira.model.kinematics import SweepWarning

# ------------------------------------------------------------------- brute-force closure


def closes(d: float, a: float, b: float, c: float, theta2) -> np.ndarray:
    """Whether the loop a e^{iθ2} + b e^{iθ3} = d + c e^{iθ4} has a solution at each θ2.

    Freudenstein's form P cos θ4 + Q sin θ4 = R has a solution iff P² + Q² ≥ R²; the
    solution is then checked by putting the pins back and measuring the coupler.
    """
    th = np.asarray(theta2, dtype=float)
    P = 2 * d * c - 2 * a * c * np.cos(th)
    Q = -2 * a * c * np.sin(th)
    R = b * b - a * a - c * c - d * d + 2 * a * d * np.cos(th)
    ok = P * P + Q * Q >= R * R
    rho = np.sqrt(P * P + Q * Q)
    th4 = np.arctan2(Q, P) + np.arccos(np.clip(R / np.where(rho > 0, rho, 1.0), -1, 1))
    A = a * np.exp(1j * th)
    B = d + c * np.exp(1j * th4)
    coupler_error = np.abs(np.abs(B - A) - b)
    assert np.all(coupler_error[ok] < 1e-9 * (a + b + c + d))
    return ok


GRID = np.linspace(-math.pi, math.pi, 3601)  # 0.1° steps


def turns_fully(d, a, b, c) -> bool:
    """Whether the input ``a`` closes the loop at every sampled angle of a full turn."""
    return bool(np.all(closes(d, a, b, c, GRID)))


def first_failure(d, a, b, c, start: float, direction: float) -> float:
    """Walk from ``start`` (closed) in 0.1° steps to the first angle where the loop opens,
    then bisect to 1e-12 rad."""
    lo = start
    for k in range(1, 3601):
        hi = start + direction * k * math.pi / 1800
        if not closes(d, a, b, c, hi):
            break
    else:
        raise AssertionError("the loop never opens")
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if closes(d, a, b, c, mid):
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


# ------------------------------------------------------------------- textbook cases


def test_published_crank_rocker_swing():
    # StatIQ worked example "Crank-Rocker 4-Bar Mechanism"
    # (https://www.statiqsolver.com/examples/crank-rocker-4-bar-mechanism): crank 2, coupler
    # 4, rocker 3.5, ground 5; printed: s + l = 7.0 < p + q = 7.5, 69.8° rocker oscillation.
    a, b, c, d = 2.0, 4.0, 3.5, 5.0
    r = qv.four_bar_analysis(d, a, b, c)
    assert r.grashof.kind == "crank-rocker"
    assert (r.grashof.s_plus_l, r.grashof.p_plus_q) == (7.0, 7.5)
    # law of cosines at O4 in the triangles with O2B = a + b and b - a
    psi_ext = math.acos((d * d + c * c - (a + b) ** 2) / (2 * d * c))
    psi_fold = math.acos((d * d + c * c - (b - a) ** 2) / (2 * d * c))
    assert math.degrees(psi_ext - psi_fold) == pytest.approx(69.8, abs=0.05)
    assert r.rocker.swing == pytest.approx(psi_ext - psi_fold, abs=1e-12)
    # crank angles at the two limits (law of cosines at O2) and Q = (180 + α)/(180 − α)
    g_ext = math.acos((d * d + (a + b) ** 2 - c * c) / (2 * d * (a + b)))
    g_fold = math.acos((d * d + (b - a) ** 2 - c * c) / (2 * d * (b - a)))
    alpha = math.degrees(abs(g_fold - g_ext))
    assert r.rocker.time_ratio == pytest.approx((180 + alpha) / (180 - alpha), abs=1e-12)
    assert r.rocker.input_extended == pytest.approx(g_ext, abs=1e-12)
    assert r.rocker.input_folded == pytest.approx(g_fold + math.pi, abs=1e-12)


@pytest.mark.parametrize("lengths, expected", [
    # Norton, Design of Machinery, problem "Grashof condition of the fourbar mechanisms":
    # (2, 4.5, 7, 9): 2 + 9 = 11 < 4.5 + 7 = 11.5; (2, 3.5, 7, 9): 11 > 10.5;
    # (2, 4, 6, 8): 10 = 10
    ((2.0, 4.5, 7.0, 9.0), "<"), ((2.0, 3.5, 7.0, 9.0), ">"), ((2.0, 4.0, 6.0, 8.0), "="),
])
def test_textbook_grashof_conditions_in_every_inversion(lengths, expected):
    s, p, q, l = sorted(lengths)
    assert {"<": s + l < p + q, ">": s + l > p + q, "=": s + l == p + q}[expected]
    names = ["ground", "input", "coupler", "output"]
    for k in range(4):  # each link in turn the ground, the others in order around the loop
        d, a, b, c = (lengths[(k + j) % 4] for j in range(4))
        g = qv.grashof(d, a, b, c)
        assert (g.s_plus_l, g.p_plus_q) == (s + l, p + q)
        shortest = names[(d, a, b, c).index(s)]
        if expected == "=":
            want = "change point"
        elif expected == ">":
            want = "triple rocker"
        else:
            want = {"ground": "double crank", "coupler": "double rocker"}.get(
                shortest, "crank-rocker")
        assert g.kind == want, (d, a, b, c)
        if expected != "=":
            assert g.input_turns_fully == turns_fully(d, a, b, c)


# ------------------------------------------------------------------- hand-picked classes


@pytest.mark.parametrize("lengths, kind, input_full, output_full", [
    ((3.0, 1.0, 3.0, 2.5), "crank-rocker", True, False),
    ((3.0, 2.5, 3.0, 1.0), "crank-rocker", False, True),
    ((1.0, 3.0, 2.0, 2.5), "double crank", True, True),
    ((3.0, 2.5, 1.0, 3.0), "double rocker", False, False),
    ((9.0, 2.0, 3.5, 7.0), "triple rocker", False, False),
    # change points: the links next to the shortest (here the ground) turn fully, folding flat
    ((2.0, 4.0, 6.0, 8.0), "change point", True, True),
    ((3.0, 1.0, 3.0, 1.0), "change point", True, True),  # parallelogram
])
def test_each_class(lengths, kind, input_full, output_full):
    d, a, b, c = lengths
    g = qv.grashof(d, a, b, c)
    assert (g.kind, g.input_turns_fully, g.output_turns_fully) == (kind, input_full,
                                                                   output_full)
    assert g.is_grashof == (kind not in ("triple rocker", "change point"))
    if kind == "change point":
        return  # the loop just closes at the flat poses: rounding would decide a brute force
    assert turns_fully(d, a, b, c) == input_full
    assert turns_fully(d, c, b, a) == output_full


def test_sentence():
    g = qv.grashof(4.0, 1.0, 3.5, 2.5)
    assert str(g) == "crank–rocker: s + l = 5 < p + q = 6; the input (a = 1) turns fully"
    assert str(qv.grashof(9.0, 2.0, 3.5, 7.0)) == (
        "triple rocker: s + l = 11 > p + q = 10.5; the input (a = 2) rocks")
    assert "the output (c = 1) turns fully" in str(qv.grashof(3.0, 2.5, 3.0, 1.0))
    assert str(qv.grashof(2.0, 4.0, 6.0, 8.0)).startswith("change point: s + l = p + q = 10;")


# ------------------------------------------------------------------- property test


def brute_kind(d, a, b, c) -> str:
    inp, out = turns_fully(d, a, b, c), turns_fully(d, c, b, a)
    if inp and out:
        return "double crank"
    if inp or out:
        return "crank-rocker"
    # the coupler turns fully relative to the input: the inversion with the input as ground
    return "double rocker" if turns_fully(a, b, c, d) else "triple rocker"


def test_classification_and_toggles_match_brute_force():
    rng = np.random.default_rng(20261207)
    cases = 0
    kinds = set()
    while cases < 200:
        d, a, b, c = rng.uniform(0.5, 5.0, 4)
        ls = sorted((d, a, b, c))
        if ls[3] >= 0.95 * (ls[0] + ls[1] + ls[2]):
            continue  # cannot be assembled, or nearly flat everywhere
        if abs(ls[0] + ls[3] - ls[1] - ls[2]) < 0.02 * sum(ls):
            continue  # away from the change point
        cases += 1
        r = qv.four_bar_analysis(d, a, b, c)
        g = r.grashof
        assert g.kind == brute_kind(d, a, b, c), (d, a, b, c)
        kinds.add(g.kind)
        full = turns_fully(d, a, b, c)
        assert g.input_turns_fully == full, (d, a, b, c)
        assert (r.input_range is None) == full
        if full:
            continue
        lo, hi = r.input_range
        mid = 0.5 * (lo + hi)
        assert closes(d, a, b, c, mid)
        assert first_failure(d, a, b, c, mid, +1.0) == pytest.approx(hi, abs=1e-9)
        assert first_failure(d, a, b, c, mid, -1.0) == pytest.approx(lo, abs=1e-9)
        # at a toggle the coupler and output are in line: |AO4| = b + c or |b − c|
        for th, kind in zip((lo, hi), r.input_toggles):
            f = abs(a * complex(math.cos(th), math.sin(th)) - d)
            assert f == pytest.approx(b + c if kind == "extended" else abs(b - c), abs=1e-9)
    assert kinds == {"crank-rocker", "double crank", "double rocker", "triple rocker"}


# ------------------------------------------------------------------- against the model


@pytest.mark.parametrize("crank, coupler, rocker, ground", [
    (1.0, 3.0, 2.5, 3.0), (2.0, 4.0, 3.5, 5.0),
])
def test_transmission_extremes_match_a_sweep(crank, coupler, rocker, ground):
    a, b, c, d = crank, coupler, rocker, ground
    m = four_bar(crank=a, coupler=b, rocker=c, ground=d)
    r = m.four_bar_analysis()
    assert (r.links.input, r.links.coupler, r.links.output) == (0, 1, 2)
    np.testing.assert_allclose(r.links.lengths, (d, a, b, c), rtol=1e-12)
    phi = np.linspace(math.pi / 3, math.pi / 3 + 2 * math.pi, 721)  # 0.5° steps, 0 and π in
    sweep = m.kinematic_sweep("th0", phi)
    assert sweep.complete
    mu = m.transmission_angle(1, 2, sweep)
    mu_min = math.acos((b * b + c * c - d * d - a * a + 2 * a * d) / (2 * b * c))
    mu_max = math.acos((b * b + c * c - d * d - a * a - 2 * a * d) / (2 * b * c))
    assert mu.min() == pytest.approx(mu_min, abs=1e-6)
    assert mu.max() == pytest.approx(mu_max, abs=1e-6)
    assert r.transmission.min == pytest.approx(mu_min, abs=1e-12)
    assert r.transmission.max == pytest.approx(mu_max, abs=1e-12)
    # where: input along the ground line (θ2 = 0) and against it (θ2 = π)
    wrap = lambda x: (x + math.pi) % (2 * math.pi) - math.pi  # noqa: E731
    assert abs(wrap(phi[np.argmin(mu)] - r.transmission.input_at_min)) < 1e-9
    assert abs(wrap(phi[np.argmax(mu)] - r.transmission.input_at_max)) < 1e-9
    assert (r.transmission.input_at_min, r.transmission.input_at_max) == (0.0, math.pi)


def test_quick_return_ratio_matches_the_rocker_extremes_of_a_sweep():
    a, b, c, d = 2.0, 4.0, 3.5, 5.0
    m = four_bar(crank=a, coupler=b, rocker=c, ground=d, crank_angle=0.0)
    r = m.four_bar_analysis().rocker
    # coarse sweep over a full turn: the rocker's angle θ4 = th2 (bar 2 points O4 → B)
    phi = np.linspace(0.0, 2 * math.pi, 721)
    sweep = m.kinematic_sweep("th0", phi)
    th4 = sweep.coordinate("th2")
    k_min, k_max = int(np.argmin(th4)), int(np.argmax(th4))
    found = {}
    for name, k in (("min", k_min), ("max", k_max)):  # refine: 801 values over 2°
        sub = m.kinematic_sweep("th0", np.linspace(phi[k - 2], phi[k + 2], 801),
                                q_start=sweep.q[k - 2])
        rate = sub.dq[:, 8]
        j = int(np.nonzero(np.sign(rate[:-1]) != np.sign(rate[1:]))[0][0])
        t = rate[j] / (rate[j] - rate[j + 1])
        found[name] = (sub.values[j] + t * (sub.values[j + 1] - sub.values[j]),
                       max(sub.q[j, 8], sub.q[j + 1, 8]) if name == "max"
                       else min(sub.q[j, 8], sub.q[j + 1, 8]))
    (phi_min, th4_min), (phi_max, th4_max) = found["min"], found["max"]
    # the rocker is nearest the ground line (smallest θ4) with input and coupler extended
    assert th4_min == pytest.approx(r.output_extended, abs=1e-9)
    assert th4_max == pytest.approx(r.output_folded, abs=1e-9)
    assert th4_max - th4_min == pytest.approx(r.swing, abs=1e-9)
    assert phi_min == pytest.approx(r.input_extended, abs=1e-6)
    assert phi_max == pytest.approx(r.input_folded, abs=1e-6)
    stroke = (phi_max - phi_min) % (2 * math.pi)  # crank rotation from one limit to the other
    alpha = abs(math.pi - stroke)
    assert (math.pi + alpha) / (math.pi - alpha) == pytest.approx(r.time_ratio, abs=1e-6)


def test_the_mirror_assembly_is_recognised_and_its_angles_are_negated():
    a, b, c, d = 2.0, 4.0, 3.5, 5.0
    up = four_bar(crank=a, coupler=b, rocker=c, ground=d, crank_angle=0.3)
    x = np.asarray(up.get_initial_state()[:9]).reshape(3, 3)
    ends = [((xc - 0.5 * L * math.cos(t), -(yc - 0.5 * L * math.sin(t))),
             (xc + 0.5 * L * math.cos(t), -(yc + 0.5 * L * math.sin(t))))
            for (xc, yc, t), L in zip(x, (a, b, c))]  # reflected in the ground line
    m = qv.bar_joint_model()
    for p0, p1 in ends:
        m.add_bar_from_point_pair(p0, p1, 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_support(2, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.5])
    assert not up.four_bar_analysis().links.mirrored
    r = m.four_bar_analysis()
    assert r.links.mirrored
    phi = np.linspace(-0.3, -0.3 - 2 * math.pi, 721)
    th4 = m.kinematic_sweep("th0", phi).coordinate("th2")
    assert th4.min() == pytest.approx(-r.rocker.output_folded, abs=2e-4)
    assert th4.max() == pytest.approx(-r.rocker.output_extended, abs=2e-4)


def test_a_sweep_of_a_triple_rocker_stops_at_the_toggle():
    a, b, c, d = 2.0, 3.5, 7.0, 9.0
    m = four_bar(crank=a, coupler=b, rocker=c, ground=d, crank_angle=0.0)
    r = m.four_bar_analysis()
    assert r.grashof.kind == "triple rocker"
    lo, hi = r.input_range
    with pytest.warns(SweepWarning, match="dead centre"):
        sweep = m.kinematic_sweep("th0", np.linspace(0.0, hi + 0.1, 201))
    assert not sweep.complete
    assert sweep.values[-1] == pytest.approx(hi, abs=1e-3)
    assert sweep.values[-1] < hi + 1e-9  # the model's lengths round at 1e-16


def test_the_input_may_be_the_other_grounded_bar():
    m = four_bar()
    g = m.grashof(input=2)
    assert (g.ground, g.input, g.coupler, g.output) == pytest.approx((3.0, 2.5, 3.0, 1.0))
    assert (g.kind, g.input_turns_fully, g.output_turns_fully) == ("crank-rocker", False, True)


# ------------------------------------------------------------------- errors


def test_a_model_that_is_not_a_four_bar_is_refused():
    with pytest.raises(ValueError, match="not a four-bar.*2 bodies"):
        chain(2).grashof()
    with pytest.raises(ValueError, match="not a four-bar.*1 supports"):
        chain(3).four_bar_analysis()
    with pytest.raises(ValueError, match="bar 1 is not pinned to the ground"):
        four_bar().grashof(input=1)
    with pytest.raises(ValueError, match="bar index 5 out of range"):
        four_bar().grashof(input=5)


@pytest.mark.parametrize("lengths, error, match", [
    ((0.0, 1.0, 1.0, 1.0), ValueError, "ground length must be positive"),
    ((1.0, -1.0, 1.0, 1.0), ValueError, "input length must be positive"),
    ((1.0, 1.0, math.nan, 1.0), ValueError, "coupler length"),
    ((1.0, 1.0, 1.0, math.inf), ValueError, "output length"),
    ((1.0, "2", 1.0, 1.0), TypeError, "input length"),
    ((10.0, 1.0, 2.0, 3.0), ValueError, "ground 10 cannot be assembled"),
    ((1.0, 1.0, 1.0, 3.0), ValueError, "cannot be assembled"),
])
def test_bad_lengths_are_refused(lengths, error, match):
    with pytest.raises(error, match=match):
        qv.grashof(*lengths)
    with pytest.raises(error, match=match):
        qv.four_bar_analysis(*lengths)

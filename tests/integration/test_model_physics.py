"""Physics tests of :class:`quivira.bar_joint_model` against independent oracles.

No expected value here was printed by Quivira. The oracles are

* Exudyn (``quivira_oracles/exudyn_planar.py``, implicit generalized-alpha, index 3) for the
  motion and the joint reactions of a Grashof crank-rocker four-bar, a 3-bar chain and a
  3-bar "star" (one joint of three bars, two 2-bar joints in Exudyn);
* hand statics (equilibrium of every bar and of every joint pin, solved with NumPy) of two
  statically determinate trusses (a triangle; a two-bay Warren truss with 3- and 4-bar
  joints), and their support reactions in closed form;
* the exact period of a physical pendulum (small-amplitude formula with its amplitude
  correction, and the complete elliptic integral for a large amplitude);
* the mechanical energy recomputed here with NumPy from ``q`` and ``qd``, and, for the
  scissor lift, its one-degree-of-freedom energy integral ``t(α)`` by quadrature;
* the rank of a finite-difference Jacobian of constraints written here.

Kinematic data (crank-rocker velocities, chain poses) are computed here from the geometry.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from quivira import ConstraintWarning, SingularConfigurationError, bar_joint_model
from quivira_oracles.exudyn_planar import simulate_bars_exudyn

G = 9.81


# ---------------------------------------------------------------------------- helpers
def unit(theta: float) -> np.ndarray:
    return np.array([math.cos(theta), math.sin(theta)])


def perp(r: np.ndarray) -> np.ndarray:
    """``ω × r`` for ``ω = 1`` (counter-clockwise rotation of ``r`` by 90°)."""
    return np.array([-r[1], r[0]])


def bar_record(p: np.ndarray, q: np.ndarray, mass: float, v_p=(0.0, 0.0), omega=0.0) -> dict:
    """Bar from ``p`` (s = -0.5) to ``q`` (s = +0.5) whose point ``p`` moves with ``v_p``."""
    c = 0.5 * (p + q)
    v = np.asarray(v_p, dtype=float) + omega * perp(c - p)
    return {"x": c[0], "y": c[1], "theta": math.atan2(q[1] - p[1], q[0] - p[0]),
            "length": float(np.linalg.norm(q - p)), "mass": mass,
            "vx": v[0], "vy": v[1], "omega": omega}


def build_model(bars, joints, pins, *, g=G) -> bar_joint_model:
    """Our model of ``bars`` (records as above), ``joints`` ``(a, s_a, b, s_b)``, pins."""
    model = bar_joint_model()
    model.set_g(g)
    for b in bars:
        i = model.add_bar_at_attitude(b["x"], b["y"], b["theta"], b["length"], b["mass"])
        model.set_init_bar_velocities(i, b.get("vx", 0.0), b.get("vy", 0.0),
                                      b.get("omega", 0.0))
    for a, sa, b, sb in joints:
        model.add_joint([a, b], [sa, sb])
    for i, s in pins:
        model.add_support(i, s, False, False)
    return model


def own_energy(q, qd, masses, lengths, g):
    """``T + V`` recomputed from the states: T = Σ ½m v² + ½(mL²/12)ω², V = Σ m g y."""
    m = np.asarray(masses, dtype=float)
    inertia = m * np.asarray(lengths, dtype=float) ** 2 / 12.0
    vx, vy, om = qd[:, 0::3], qd[:, 1::3], qd[:, 2::3]
    kin = 0.5 * (m * (vx**2 + vy**2) + inertia * om**2).sum(axis=1)
    pot = (m * g * q[:, 1::3]).sum(axis=1)
    return kin, kin + pot


def own_relative_energy_error(q, qd, masses, lengths, g) -> float:
    kin, e = own_energy(q, qd, masses, lengths, g)
    scale = max(abs(e[0]), float(np.max(kin)))
    return float(np.max(np.abs(e - e[0])) / scale)


def simulate_strict(model: bar_joint_model, *args, **kwargs):
    """Simulate and fail if the model had to project our (consistent) initial velocities."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstraintWarning)
        return model.simulate(*args, **kwargs)


# ---------------------------------------------------------------------------- mechanisms
# Grashof crank-rocker: ground d, crank a, coupler b, rocker c; s + l <= p + q with the
# shortest link (the crank) next to the ground, so the crank turns fully.
FOUR_BAR = {"a": 1.0, "b": 3.5, "c": 3.0, "d": 4.0, "masses": (1.0, 2.0, 1.5)}


def four_bar_bars(phi: float = 0.7, omega: float = 5.0) -> list[dict]:
    """Crank ``A→B``, coupler ``B→C``, rocker ``D→C`` (upper branch), crank speed ``omega``,
    coupler and rocker speeds from the velocity loop ``v_B + ω₂×BC = ω₃×DC``."""
    a, b, c, d = (FOUR_BAR[k] for k in "abcd")
    links = sorted([a, b, c, d])
    assert links[0] + links[3] <= links[1] + links[2] and links[0] == a  # crank-rocker
    A, D = np.zeros(2), np.array([d, 0.0])
    B = A + a * unit(phi)
    # C: intersection of the circles |C - B| = b and |C - D| = c, upper branch
    e = (D - B) / np.linalg.norm(D - B)
    along = (b * b - c * c + np.dot(D - B, D - B)) / (2.0 * np.linalg.norm(D - B))
    C = B + along * e + math.sqrt(b * b - along * along) * perp(e)
    assert abs(np.linalg.norm(C - B) - b) < 1e-13 and abs(np.linalg.norm(C - D) - c) < 1e-13
    v_B = omega * perp(B - A)
    rBC, rDC = C - B, C - D
    w2, w3 = np.linalg.solve(np.column_stack([perp(rBC), -perp(rDC)]), -v_B)
    m0, m1, m2 = FOUR_BAR["masses"]
    return [bar_record(A, B, m0, (0.0, 0.0), omega),
            bar_record(B, C, m1, v_B, w2),
            bar_record(D, C, m2, (0.0, 0.0), w3)]


FOUR_BAR_JOINTS = [(0, 0.5, 1, -0.5), (1, 0.5, 2, 0.5)]
FOUR_BAR_PINS = [(0, -0.5), (2, -0.5)]


def chain_bars(lengths, masses, angles) -> list[dict]:
    """Bars joined end to end from the origin, at rest."""
    p, out = np.zeros(2), []
    for L, m, th in zip(lengths, masses, angles):
        q = p + L * unit(th)
        out.append(bar_record(p, q, m))
        p = q
    return out


def chain_joints(n: int) -> list[tuple]:
    return [(i, 0.5, i + 1, -0.5) for i in range(n - 1)]


# ---------------------------------------------------------------------------- 1. Exudyn
# Exudyn's generalized-alpha step h = 1e-4 is second order: its own errors on these runs are
# ~1e-7..2e-6 in positions, ~1e-5 in velocities and ~1e-6 (relative to the largest force) in
# the reactions; halving / doubling h scales our differences by 1/4 / 4, so they are
# Exudyn's. Tolerances keep a margin of >= 5x over that (Quivira's error is negligible).
EXUDYN_H = 1e-4
POS_TOL = 1e-5
VEL_TOL = 2e-4
FORCE_RTOL = 1e-4  # relative to the largest reaction of the run (46 N to 260 N here)


def star_bars() -> list[dict]:
    """Bar 0 pinned at the origin; bars 1 and 2 hang from its free end (one 3-bar joint)."""
    A, N = np.zeros(2), np.array([0.9, -0.5])
    return [bar_record(A, N, 1.0), bar_record(N, N + 0.8 * unit(0.3), 0.6),
            bar_record(N, N + 1.1 * unit(-2.0), 1.4)]


# name: (bars, Exudyn joints (a, s_a, b, s_b), which of our joints each one belongs to,
# ground pins, degrees of freedom). Our joint k joins the bars of its Exudyn joints (a 3-bar
# joint of ours is two 2-bar joints in Exudyn, sharing bar a).
EXUDYN_CASES = {
    "four_bar": (four_bar_bars, FOUR_BAR_JOINTS, [0, 1], FOUR_BAR_PINS, 1),
    "chain3": (lambda: chain_bars([1.0, 0.8, 1.2], [1.0, 0.7, 1.3], [-0.3, 0.4, -1.2]),
               chain_joints(3), [0, 1], [(0, -0.5)], 3),
    "star3": (star_bars, [(0, 0.5, 1, -0.5), (0, 0.5, 2, -0.5)], [0, 0], [(0, -0.5)], 3),
}


@pytest.fixture(scope="module", params=sorted(EXUDYN_CASES))
def exudyn_case(request):
    make_bars, joints, groups, pins, dof = EXUDYN_CASES[request.param]
    bars = make_bars()
    n_out = 101
    ref = simulate_bars_exudyn(bars, joints, pins, g=G, t_end=1.0, h=EXUDYN_H, n_out=n_out)
    model = build_model(bars, [], pins)
    ours: dict[int, dict] = {}
    for (a, sa, b, sb), k in zip(joints, groups):
        ours.setdefault(k, {a: sa})[b] = sb
    for k in sorted(ours):
        assert model.add_joint(list(ours[k]), list(ours[k].values())) == k
    assert model.degrees_of_freedom() == dof
    traj = simulate_strict(model, 1.0, n_out)
    # Exudyn's force of each of our joints on each of its bars
    expected: dict[tuple, np.ndarray] = {}
    for j, ((a, _, b, _), k) in enumerate(zip(joints, groups)):
        on_b = ref["joint_forces"][:, j]
        expected[(k, b)] = expected.get((k, b), 0.0) + on_b
        expected[(k, a)] = expected.get((k, a), 0.0) - on_b
    return {"pins": pins, "ref": ref, "traj": traj, "expected": expected}


def test_exudyn_positions_and_velocities(exudyn_case):
    ref, traj = exudyn_case["ref"], exudyn_case["traj"]
    np.testing.assert_allclose(traj.t, ref["t"], rtol=0, atol=1e-14)
    assert np.max(np.abs(traj.q - ref["q"])) < POS_TOL
    assert np.max(np.abs(traj.qd - ref["qd"])) < VEL_TOL
    assert traj.max_position_residual() < 1e-12
    assert traj.max_velocity_residual() < 1e-12


def test_exudyn_reaction_forces(exudyn_case):
    ref, traj = exudyn_case["ref"], exudyn_case["traj"]
    f_max = max(np.max(np.abs(ref["joint_forces"])), np.max(np.abs(ref["pin_forces"])))
    atol = FORCE_RTOL * f_max
    for (k, bar), f in exudyn_case["expected"].items():
        np.testing.assert_allclose(traj.joint_force(k, bar), f, rtol=0, atol=atol)
    for k in range(len(exudyn_case["pins"])):
        np.testing.assert_allclose(traj.support_force(k), ref["pin_forces"][:, k], rtol=0,
                                   atol=atol)


# ---------------------------------------------------------------------------- 2. truss statics
# Statically determinate trusses (2·nodes = bars + 3): a pin at node A, a roller free in x at
# the last bottom node, one point load on a bar end at a top node. Members run from their
# first node (s = -0.5) to their second (s = +0.5); each node is one joint of all its bars.
TRUSSES = {
    "triangle": {
        "nodes": {"A": (0.0, 0.0), "B": (4.0, 0.0), "C": (1.5, 2.0)},
        "members": [("A", "B"), ("A", "C"), ("B", "C")],
        "roller": "B", "load": ("C", 1, 300.0, -1000.0),  # (node, bar, fx, fy)
    },
    "two_bays": {  # Warren truss: 4- and 3-bar joints
        "nodes": {"A": (0.0, 0.0), "B": (2.0, 0.0), "C": (4.0, 0.0), "D": (1.0, 1.5),
                  "E": (3.0, 1.5)},
        "members": [("A", "B"), ("B", "C"), ("A", "D"), ("B", "D"), ("B", "E"), ("C", "E"),
                    ("D", "E")],
        "roller": "C", "load": ("E", 4, -200.0, -800.0),
    },
}
TRUSS_RHO = 2.0  # mass per length


def truss_layout(truss):
    """Hand-written joints ``{node: [(bar, s), ...]}``, pin and roller ``(bar, s)``."""
    joints: dict[str, list] = {n: [] for n in truss["nodes"]}
    for i, (p, q) in enumerate(truss["members"]):
        joints[p].append((i, -0.5))
        joints[q].append((i, 0.5))
    return joints, joints["A"][0], joints[truss["roller"]][0]


def truss_statics(truss, g: float):
    """Equilibrium of every bar (ΣF = 0, ΣM about its centre = 0) and of every (massless)
    joint pin (the forces it exerts on its bars sum to 0), solved with NumPy.

    Returns ``forces[(bar, node)]`` (force of the joint at ``node`` on ``bar``), the pin
    reaction (x, y) and the roller reaction y.
    """
    nodes = {k: np.array(v) for k, v in truss["nodes"].items()}
    members = truss["members"]
    centres = [0.5 * (nodes[p] + nodes[q]) for p, q in members]
    masses = [TRUSS_RHO * np.linalg.norm(nodes[q] - nodes[p]) for p, q in members]
    ends = [(i, n) for i, pq in enumerate(members) for n in pq]
    col = {e: 2 * k for k, e in enumerate(ends)}
    n_unknown = 2 * len(ends) + 3  # bar-end forces, pin (x, y), roller y
    pin_col, roller_col = 2 * len(ends), 2 * len(ends) + 2
    n_rows = 3 * len(members) + 2 * len(nodes)
    assert n_rows == n_unknown  # statically determinate
    A = np.zeros((n_rows, n_unknown))
    rhs = np.zeros(n_rows)

    def on_bar(i, at, cx, cy, sign=1.0):
        r = nodes[at] - centres[i]
        if cx is not None:
            A[3 * i, cx] += sign
            A[3 * i + 2, cx] -= sign * r[1]  # moment r × f = r_x f_y - r_y f_x
        A[3 * i + 1, cy] += sign
        A[3 * i + 2, cy] += sign * r[0]

    node_row = {n: 3 * len(members) + 2 * k for k, n in enumerate(nodes)}
    for (i, n), c in col.items():
        on_bar(i, n, c, c + 1)
        A[node_row[n], c] += 1.0
        A[node_row[n] + 1, c + 1] += 1.0
    _, (pin_bar, _), (roller_bar, _) = truss_layout(truss)
    on_bar(pin_bar, "A", pin_col, pin_col + 1)
    on_bar(roller_bar, truss["roller"], None, roller_col)
    at, bar, fx, fy = truss["load"]
    r = nodes[at] - centres[bar]
    rhs[3 * bar : 3 * bar + 3] -= (fx, fy, r[0] * fy - r[1] * fx)
    for i, m in enumerate(masses):
        rhs[3 * i + 1] += m * g
    x = np.linalg.solve(A, rhs)
    forces = {e: x[c : c + 2] for e, c in col.items()}
    return forces, x[pin_col : pin_col + 2], x[roller_col], masses, centres


def truss_support_reactions(truss, g: float, masses, centres):
    """Global equilibrium of the whole truss: pin (x, y) at A (the origin), roller y."""
    at, _, fx, fy = truss["load"]
    P, xr = np.array(truss["nodes"][at]), truss["nodes"][truss["roller"]][0]
    moment_a = (P[0] * fy - P[1] * fx) - sum(c[0] * m * g for c, m in zip(centres, masses))
    r_roller = -moment_a / xr
    return np.array([-fx, -fy + g * sum(masses) - r_roller]), r_roller


@pytest.mark.parametrize("g", [0.0, G])
@pytest.mark.parametrize("name", sorted(TRUSSES))
def test_truss_reactions_match_statics(name, g):
    truss = TRUSSES[name]
    joints, pin, roller = truss_layout(truss)
    model = bar_joint_model()
    model.set_g(g)
    for p, q in truss["members"]:
        model.add_bar_from_point_pair(truss["nodes"][p], truss["nodes"][q], TRUSS_RHO)
    joint_index = {}
    for node, inc in joints.items():
        joint_index[node] = model.add_joint([b for b, _ in inc], [s for _, s in inc])
    model.add_support(pin[0], pin[1], False, False)
    model.add_support(roller[0], roller[1], True, False)
    at, bar, fx, fy = truss["load"]
    model.add_external_force(bar, dict(joints[at])[bar], fx, fy)
    assert model.degrees_of_freedom() == 0  # a rigid truss: nothing can move
    traj = simulate_strict(model, 1e-3, 3)

    forces, pin_force, roller_y, masses, centres = truss_statics(truss, g)
    pin_global, roller_global = truss_support_reactions(truss, g, masses, centres)
    np.testing.assert_allclose(pin_force, pin_global, rtol=0, atol=1e-9)
    assert roller_y == pytest.approx(roller_global, abs=1e-9)
    if name == "triangle" and g == 0.0:
        # by hand: R_Ax = -300, R_By = (1.5·1000 + 2·300)/4 = 525, R_Ay = 1000 - 525
        np.testing.assert_allclose(pin_force, [-300.0, 475.0], rtol=0, atol=1e-9)
        assert roller_y == pytest.approx(525.0, abs=1e-9)

    atol = 1e-12 * np.max(np.abs(list(forces.values())))
    for k in range(traj.n_points):  # released from rest, it stays at rest (t = 0 and later)
        for (i, node), f in forces.items():
            np.testing.assert_allclose(traj.joint_force(joint_index[node], i)[k], f, rtol=0,
                                       atol=atol)
        np.testing.assert_allclose(traj.support_force(0)[k], pin_force, rtol=0, atol=atol)
        np.testing.assert_allclose(traj.support_force(1)[k], [0.0, roller_y], rtol=0, atol=atol)
    assert np.max(np.abs(traj.q - traj.q[0])) < 1e-12
    assert np.max(np.abs(traj.qd)) < 1e-12


# ---------------------------------------------------------------------------- 3. pendulum
def complete_elliptic_k(k: float) -> float:
    """K(k) = π / (2 AGM(1, √(1 - k²)))."""
    a, b = 1.0, math.sqrt(1.0 - k * k)
    for _ in range(40):
        a, b = 0.5 * (a + b), math.sqrt(a * b)
    return math.pi / (2.0 * a)


def zero_crossings(t, f, fd) -> np.ndarray:
    """Roots of ``f`` from the cubic Hermite interpolant of ``(f, f')`` on each sign change."""
    dt = t[1] - t[0]
    roots = []
    for k in np.nonzero(np.sign(f[:-1]) != np.sign(f[1:]))[0]:
        p0, p1, m0, m1 = f[k], f[k + 1], fd[k] * dt, fd[k + 1] * dt
        r = np.roots([2 * p0 + m0 - 2 * p1 + m1, -3 * p0 - 2 * m0 + 3 * p1 - m1, m0, p0])
        r = r[np.abs(r.imag) < 1e-12].real
        r = r[(r >= -1e-9) & (r <= 1 + 1e-9)]
        assert r.size == 1
        roots.append(t[k] + r[0] * dt)
    return np.array(roots)


@pytest.mark.parametrize("amplitude", [1e-3, 0.5])
def test_pendulum_period(amplitude):
    L, m = 1.5, 2.0
    th0 = -math.pi / 2 + amplitude
    model = bar_joint_model()
    model.set_g(G)
    model.add_bar_at_attitude(0.5 * L * math.cos(th0), 0.5 * L * math.sin(th0), th0, L, m)
    model.add_support(0, -0.5, False, False)
    t_small = 2 * math.pi * math.sqrt(2 * L / (3 * G))
    traj = simulate_strict(model, 10 * t_small, 2001)
    crossings = zero_crossings(traj.t, traj.q[:, 2] + math.pi / 2, traj.qd[:, 2])
    assert crossings.size == 20
    period = 2.0 * np.polyfit(np.arange(crossings.size), crossings, 1)[0]
    if amplitude <= 1e-3:
        # T = T0 (1 + A²/16 + 11 A⁴/3072 + ...); the A⁴ term is 4e-15 here
        assert period / t_small - 1.0 == pytest.approx(amplitude**2 / 16, abs=1e-10)
    k = math.sin(amplitude / 2)
    exact = 4.0 * complete_elliptic_k(k) / math.sqrt(3 * G / (2 * L))
    assert period == pytest.approx(exact, rel=1e-10)
    # t = 0 is a turning point (at rest, no centripetal term): along the bar, the pin force
    # balances the weight's component m g cos(A)
    f0 = traj.support_force(0)[0]
    e = unit(th0)  # from the pin to the centre
    assert -np.dot(f0, e) == pytest.approx(m * G * math.cos(amplitude), rel=1e-12)


# ---------------------------------------------------------------------------- 4. energy
def test_energy_four_bar_10s():
    bars = four_bar_bars(phi=0.7, omega=5.0)
    model = build_model(bars, FOUR_BAR_JOINTS, FOUR_BAR_PINS)
    traj = simulate_strict(model, 10.0, 1001)
    masses = [b["mass"] for b in bars]
    lengths = [b["length"] for b in bars]
    assert traj.relative_energy_error() < 1e-10
    assert own_relative_energy_error(traj.q, traj.qd, masses, lengths, G) < 1e-10
    kin, e = own_energy(traj.q, traj.qd, masses, lengths, G)
    scale = max(abs(e[0]), float(np.max(kin)))
    np.testing.assert_allclose(traj.kinetic_energy, kin, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(traj.energy, e, rtol=0, atol=1e-12 * scale)
    assert traj.max_position_residual() < 1e-10
    assert traj.max_velocity_residual() < 1e-10
    # the crank turns fully (crank-rocker): its angle runs through more than 2π
    assert traj.q[-1, 2] - traj.q[0, 2] > 2 * math.pi


def scissor_model(n_cells: int, w: float = 1.0, h: float = 0.8) -> bar_joint_model:
    """Scissor lift: cell k has bars (0, kh)→(w, (k+1)h) and (w, kh)→(0, (k+1)h); pin at
    bar 0 s = -0.5 (the origin), roller free in x at bar 1 s = -0.5 ((w, 0))."""
    model = bar_joint_model()
    model.set_g(G)
    for k in range(n_cells):
        model.add_bar_from_point_pair((0.0, k * h), (w, (k + 1) * h), 1.0)
        model.add_bar_from_point_pair((w, k * h), (0.0, (k + 1) * h), 1.0)
    model.infer_joints()
    model.add_support(0, -0.5, False, False)
    model.add_support(1, -0.5, True, False)
    return model


def scissor_joints(n_cells: int) -> list[tuple]:
    """The joints of :func:`scissor_model` written out by hand: ``(a, s_a, b, s_b)``."""
    out = []
    for k in range(n_cells):
        out.append((2 * k, 0.0, 2 * k + 1, 0.0))  # crossing at the midpoints
        if k + 1 < n_cells:
            out.append((2 * k, 0.5, 2 * k + 3, -0.5))  # right side, top of cell k
            out.append((2 * k + 1, 0.5, 2 * k + 2, -0.5))  # left side, top of cell k
    return out


def scissor_time_of_angle(alpha, alpha0, n_cells, L, rho, g, n_nodes=60):
    """Time for the lift released at rest at bar angle ``alpha0`` to reach ``alpha``.

    With α the angle of the bars to the horizontal, every bar centre of cell k is at
    ``((L/2)cos α, (k + ½) L sin α)`` and rotates at ±α̇, so
    ``T = ½ M(α) α̇²`` with ``M = Σ m [(L/2)² sin²α + (k+½)² L² cos²α + L²/12]`` and
    ``V = Σ m g (k+½) L sin α``; ``t = ∫ dα/α̇`` with ``α = α0 - u²`` (Gauss–Legendre).
    """
    m = rho * L
    ks = np.arange(n_cells) + 0.5

    def alpha_dot(a):
        M = 2 * m * np.sum(0.25 * L * L * np.sin(a)[..., None] ** 2
                           + (ks * L) ** 2 * np.cos(a)[..., None] ** 2 + L * L / 12.0, axis=-1)
        dV = 2 * m * g * np.sum(ks) * L * (np.sin(alpha0) - np.sin(a))
        return np.sqrt(2.0 * dV / M)

    x, wts = np.polynomial.legendre.leggauss(n_nodes)
    out = []
    for a in np.atleast_1d(alpha):
        umax = math.sqrt(alpha0 - a)
        u = 0.5 * umax * (x + 1.0)
        out.append(0.5 * umax * np.sum(wts * 2.0 * u / alpha_dot(alpha0 - u * u)))
    return np.array(out)


def test_energy_scissor_until_flat():
    n_cells, w, h = 3, 1.0, 0.8
    model = scissor_model(n_cells, w, h)
    assert model.degrees_of_freedom() == 1
    with pytest.raises(SingularConfigurationError) as info:
        simulate_strict(model, 5.0, 2001, singular="stop")
    err = info.value
    traj = err.trajectory
    assert traj is not None and traj.n_points > 100
    assert 0.0 < err.t < 5.0 and traj.t[-1] <= err.t
    assert np.all(np.isfinite(traj.states)) and np.all(np.isfinite(err.state))
    # it stopped because the lift is nearly flat: every bar within 0.05 rad of horizontal
    th = np.asarray(err.state[: 3 * model.n_bars])[2::3]
    assert np.max(np.abs(np.sin(th))) < 0.05
    L = math.hypot(w, h)
    masses, lengths = [L] * (2 * n_cells), [L] * (2 * n_cells)
    assert traj.relative_energy_error() < 1e-10
    assert own_relative_energy_error(traj.q, traj.qd, masses, lengths, G) < 1e-10
    assert traj.max_position_residual() <= 1e-10
    assert traj.max_velocity_residual() <= 1e-10
    # the motion is the one-degree-of-freedom collapse: bars 2k at α, bars 2k+1 at π - α,
    # all centres above each other, and t(α) from the energy integral
    alpha = traj.q[:, 2]
    for i in range(2 * n_cells):
        expect = alpha if i % 2 == 0 else math.pi - alpha
        np.testing.assert_allclose(traj.q[:, 3 * i + 2], expect, rtol=0, atol=1e-9)
        np.testing.assert_allclose(traj.q[:, 3 * i], 0.5 * L * np.cos(alpha), rtol=0, atol=1e-9)
    late = traj.t > 0.05  # near t = 0, t(α) is ill-conditioned (α - α0 ∝ t²)
    t_pred = scissor_time_of_angle(alpha[late], math.atan2(h, w), n_cells, L, 1.0, G)
    np.testing.assert_allclose(traj.t[late], t_pred, rtol=0, atol=1e-8)


# ---------------------------------------------------------------------------- 5. scissor DOF
def own_constraints(q, lengths, joints, pins, rollers_x):
    """F(q): joint points coincide, pins fixed, rollers free in x fixed in y."""
    x, y, th = q[0::3], q[1::3], q[2::3]

    def point(i, s):
        return np.array([x[i] + s * lengths[i] * np.cos(th[i]),
                         y[i] + s * lengths[i] * np.sin(th[i])])

    F = []
    for a, sa, b, sb in joints:
        F.extend(point(b, sb) - point(a, sa))
    for i, s, px, py in pins:
        F.extend(point(i, s) - (px, py))
    for i, s, py in rollers_x:
        F.append(point(i, s)[1] - py)
    return np.array(F)


def test_scissor_two_cells_dof():
    n_cells, w, h = 2, 1.0, 0.8
    model = scissor_model(n_cells, w, h)
    joints = scissor_joints(n_cells)
    # infer_joints found exactly the hand-written joints
    ours = {frozenset(zip(j.bars, j.s)) for j in model.joints}
    assert ours == {frozenset({(a, sa), (b, sb)}) for a, sa, b, sb in joints}
    L = math.hypot(w, h)
    lengths = [L] * (2 * n_cells)
    q0 = np.array(model.get_initial_state()[: 3 * model.n_bars])
    args = (lengths, joints, [(0, -0.5, 0.0, 0.0)], [(1, -0.5, 0.0)])
    assert np.max(np.abs(own_constraints(q0, *args))) < 1e-14
    eps = 1e-6
    jac = np.column_stack([
        (own_constraints(q0 + eps * e, *args) - own_constraints(q0 - eps * e, *args)) / (2 * eps)
        for e in np.eye(q0.size)
    ])
    sv = np.linalg.svd(jac, compute_uv=False)
    rank = int(np.sum(sv > 1e-6 * sv[0]))
    assert rank == jac.shape[0] == 11 and sv[rank - 1] > 1e-3  # well separated, full rank
    assert q0.size - rank == 1
    assert model.degrees_of_freedom() == 1
    assert model.n_constraints == 11
    traj = simulate_strict(model, 0.2, 51)
    assert np.all(np.isfinite(traj.states))
    assert traj.max_position_residual() < 1e-12
    assert traj.relative_energy_error() < 1e-12
    assert own_relative_energy_error(traj.q, traj.qd, lengths, lengths, G) < 1e-12
    assert traj.q[-1, 2] < traj.q[0, 2]  # it collapses under gravity


# ---------------------------------------------------------------------------- 6. long run
def test_chain4_projection_1000s():
    """Chaotic 4-bar chain (pendulum) over 1000 s with projection (30-55 s on 2 cores)."""
    bars = chain_bars([1.0, 0.8, 1.2, 0.9], [1.0, 0.8, 1.2, 0.9], [-0.3, 0.4, -1.2, 0.2])
    model = build_model(bars, chain_joints(4), [(0, -0.5)])
    traj = simulate_strict(model, 1000.0, n_points=1001, projection=True)
    assert traj.n_points == 1001 and traj.t[-1] == 1000.0
    assert np.all(np.isfinite(traj.states))
    assert traj.max_position_residual() <= 1e-12
    assert traj.max_velocity_residual() <= 1e-12
    masses = [b["mass"] for b in bars]
    lengths = [b["length"] for b in bars]
    # a chaotic motion over 1e5 steps at tol 1e-12: the energy error accumulates the local
    # errors, and with them the rounding of the machine's vector unit (below 1e-10 on the
    # AVX2 machines of earlier runs, 2.1e-10 on an AVX-512 one)
    assert own_relative_energy_error(traj.q, traj.qd, masses, lengths, G) < 1e-9

"""Static equilibrium, stability and equilibrium paths against independent oracles:
the method of joints, the free-body equations of a three-hinged arch, a direct minimisation
of the potential with scipy, and the closed-form limit load of a von Mises truss."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import quivira as qv
from quivira.model.statics import EquilibriumError

# --------------------------------------------------------------------------- a Warren truss
NODES = np.array([[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [6.0, 0.0],
                  [1.0, 1.5], [3.0, 1.5], [5.0, 1.5]])
MEMBERS = [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6),
           (0, 4), (4, 1), (1, 5), (5, 2), (2, 6), (6, 3)]
LOADS = {1: (0.0, -10e3), 2: (0.0, -10e3), 5: (3e3, 0.0), 6: (0.0, -4e3)}  # N at nodes


def truss_model() -> qv.BarJointModel:
    """Bars between the nodes, one pin joint per node, a pin at node 0 and a roller (free in x)
    at node 3, the loads at the nodes; no gravity."""
    m = qv.BarJointModel()
    m.set_g(0.0)
    at_node: dict[int, list[tuple[int, float]]] = {}
    for b, (i, j) in enumerate(MEMBERS):
        m.add_bar_from_point_pair(tuple(NODES[i]), tuple(NODES[j]))
        at_node.setdefault(i, []).append((b, -0.5))
        at_node.setdefault(j, []).append((b, 0.5))
    for k in sorted(at_node):
        bars = at_node[k]
        m.add_joint([b for b, _ in bars], [s for _, s in bars])
    b0, s0 = at_node[0][0]
    m.add_support(b0, s0, False, False)
    b3, s3 = at_node[3][0]
    m.add_support(b3, s3, True, False)
    for k, (fx, fy) in LOADS.items():
        b, s = at_node[k][0]
        m.add_external_force(b, s, fx, fy)
    return m


def method_of_joints() -> tuple[np.ndarray, np.ndarray]:
    """Member forces (tension positive) and reactions (R0x, R0y, R3y) from the equilibrium of
    every node: Σ_e T_e u_e + R + P = 0 (u_e the unit vector from the node along member e)."""
    n_nodes, n_mem = len(NODES), len(MEMBERS)
    A = np.zeros((2 * n_nodes, n_mem + 3))
    b = np.zeros(2 * n_nodes)
    for e, (i, j) in enumerate(MEMBERS):
        u = (NODES[j] - NODES[i]) / np.linalg.norm(NODES[j] - NODES[i])
        A[2 * i:2 * i + 2, e] += u
        A[2 * j:2 * j + 2, e] -= u
    A[0, n_mem], A[1, n_mem + 1], A[7, n_mem + 2] = 1.0, 1.0, 1.0
    for k, (fx, fy) in LOADS.items():
        b[2 * k:2 * k + 2] -= (fx, fy)
    x = np.linalg.solve(A, b)
    return x[:n_mem], x[n_mem:]


def test_truss_member_forces_match_the_method_of_joints():
    m = truss_model()
    eq = m.equilibrium()
    T, R = method_of_joints()
    scale = np.max(np.abs(T))
    err = np.max(np.abs(eq.axial_force - T)) / scale
    print(f"truss: max member force error {err:.2e} (relative to {scale:.4g} N)")
    assert err < 1e-10
    assert eq.stability == "rigid" and eq.dof == 0 and not eq.redundant
    np.testing.assert_allclose(eq.support_force(0), R[:2], rtol=0, atol=1e-10 * scale)
    np.testing.assert_allclose(eq.support_force(1), [0.0, R[2]], rtol=0, atol=1e-10 * scale)
    assert eq.constraint_residual < 1e-12


def test_changing_a_load_resolves_without_compiling():
    m = truss_model()
    m.equilibrium()
    n_compiled = m.n_compiled
    kkt = m.compiled().extra["statics_kkt"]  # the compiled KKT residual and Jacobian
    m.set_force(0, fy=-20e3)
    eq = m.equilibrium()
    assert m.n_compiled == n_compiled and m.compiled().extra["statics_kkt"] is kkt
    global LOADS
    saved = dict(LOADS)
    try:
        LOADS[1] = (0.0, -20e3)
        T, _ = method_of_joints()
    finally:
        LOADS = saved
    assert np.max(np.abs(eq.axial_force - T)) < 1e-10 * np.max(np.abs(T))


# --------------------------------------------------------------------------- three-hinged arch
def test_three_hinged_arch_reactions_closed_form():
    A, C, B = np.array([0.0, 0.0]), np.array([2.0, 1.5]), np.array([4.5, 0.5])
    m = qv.BarJointModel()
    m.set_g(9.81)
    m.add_bar_from_point_pair(tuple(A), tuple(C), mass_per_length=3.0)  # bar 0
    m.add_bar_from_point_pair(tuple(C), tuple(B), mass_per_length=2.0)  # bar 1
    m.add_support(0, -0.5, False, False)
    m.add_support(1, 0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    s_p, P = 0.2, np.array([1.5e3, -4e3])
    m.add_external_force(0, s_p, *P)
    eq = m.equilibrium()
    # free-body equations: unknowns Ax, Ay, Bx, By
    L0, L1 = np.linalg.norm(C - A), np.linalg.norm(B - C)
    W0, W1 = np.array([0.0, -3.0 * L0 * 9.81]), np.array([0.0, -2.0 * L1 * 9.81])
    G0, G1 = (A + C) / 2, (C + B) / 2
    Xp = (A + C) / 2 + s_p * (C - A)

    def cross(r, f):
        return r[0] * f[1] - r[1] * f[0]

    M = np.array([
        [1.0, 0.0, 1.0, 0.0],                     # Σ Fx
        [0.0, 1.0, 0.0, 1.0],                     # Σ Fy
        [0.0, 0.0, -(B - A)[1], (B - A)[0]],      # Σ M about A (whole arch)
        [0.0, 0.0, -(B - C)[1], (B - C)[0]],      # Σ M about C (right part)
    ])
    rhs = -np.array([P[0] + W0[0] + W1[0], P[1] + W0[1] + W1[1],
                     cross(Xp - A, P) + cross(G0 - A, W0) + cross(G1 - A, W1),
                     cross(G1 - C, W1)])
    Ax, Ay, Bx, By = np.linalg.solve(M, rhs)
    err = max(np.max(np.abs(eq.support_force(0) - (Ax, Ay))),
              np.max(np.abs(eq.support_force(1) - (Bx, By)))) / np.max(np.abs(P))
    print(f"arch: reactions ({Ax:.6f}, {Ay:.6f}), ({Bx:.6f}, {By:.6f}); relative error "
          f"{err:.2e}")
    assert err < 1e-10
    # the crown hinge carries no moment: its force on bar 1 balances bar 1 with B and W1
    Fc = eq.joint_force(0, 1)
    assert abs(cross(C - B, Fc) + cross(G1 - B, W1)) < 1e-9 * np.max(np.abs(P))


# --------------------------------------------------------------------------- hanging chain
def test_hanging_chain_matches_scipy_minimisation():
    masses = [1.0, 2.0, 1.5, 1.0, 0.7]
    lengths = [1.0, 0.8, 1.2, 1.0, 0.9]
    end = np.array([3.2, 0.4])
    g = 9.81
    m = qv.BarJointModel()
    m.set_g(g)
    x, y = 0.0, 0.0
    # a drawn pose that closes: a shallow V (assemble moves it onto the constraints)
    angles0 = [-0.9, -0.5, 0.1, 0.6, 0.9]
    for L, mass, a in zip(lengths, masses, angles0):
        m.add_bar_at_attitude(x + 0.5 * L * math.cos(a), y + 0.5 * L * math.sin(a), a, L, mass)
        x, y = x + L * math.cos(a), y + L * math.sin(a)
    for i in range(4):
        m.add_joint([i, i + 1], [0.5, -0.5])
    m.add_support(0, -0.5, False, False, 0.0, 0.0)
    m.add_support(4, 0.5, False, False, *end)
    m.assemble()
    eq = m.equilibrium()
    assert eq.stability == "stable" and eq.dof == 3

    def potential(phi):
        yy, V = 0.0, 0.0
        for L, mass, p in zip(lengths, masses, phi):
            V += mass * g * (yy + 0.5 * L * math.sin(p))
            yy += L * math.sin(p)
        return V

    cons = [{"type": "eq", "fun": lambda p: sum(L * math.cos(a) for L, a in zip(lengths, p))
             - end[0]},
            {"type": "eq", "fun": lambda p: sum(L * math.sin(a) for L, a in zip(lengths, p))
             - end[1]}]
    res = minimize(potential, angles0, constraints=cons, method="SLSQP",
                   options={"ftol": 1e-15, "maxiter": 500})
    assert res.success
    theta = np.array([eq.q[3 * i + 2] for i in range(5)])
    theta = (theta + np.pi) % (2 * np.pi) - np.pi
    err = np.max(np.abs(theta - res.x))
    print(f"hanging chain: max angle difference to scipy SLSQP {err:.2e} rad")
    assert err < 1e-6
    # multipliers: the supports carry the whole weight
    W = g * sum(masses)
    Fy = eq.support_force(0)[1] + eq.support_force(1)[1]
    assert abs(Fy - W) < 1e-10 * W
    assert abs(eq.support_force(0)[0] + eq.support_force(1)[0]) < 1e-10 * W


# --------------------------------------------------------------------------- stability
def pendulum(theta: float, g: float = 9.81) -> qv.BarJointModel:
    m = qv.BarJointModel()
    m.set_g(g)
    m.add_bar_at_attitude(0.5 * math.cos(theta), 0.5 * math.sin(theta), theta, 1.0, 2.0)
    m.add_support(0, -0.5, False, False, 0.0, 0.0)
    return m


def test_pendulum_stability_down_and_up():
    down = pendulum(-math.pi / 2 + 0.3).equilibrium()
    assert down.stability == "stable"
    assert abs(down.q[2] + math.pi / 2) < 1e-10
    np.testing.assert_allclose(down.support_force(0), [0.0, 2.0 * 9.81], atol=1e-10)
    up = pendulum(math.pi / 2 + 0.01).equilibrium()
    assert up.stability == "unstable"
    assert abs(up.q[2] - math.pi / 2) < 1e-10


# --------------------------------------------------------------------------- von Mises truss
A_HALF, H, K = 1.0, 0.5, 100.0


def von_mises() -> qv.BarJointModel:
    """A slider at x = 0 (a short vertical bar on two rollers) held by two springs from its
    centre to (±a, 0), rest length their initial length; a vertical load at the centre."""
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, H, math.pi / 2, 0.2, 1.0)
    m.add_support(0, -0.5, False, True)
    m.add_support(0, 0.5, False, True)
    m.add_spring_damper(0, 0.0, None, k=K, ground_point=(-A_HALF, 0.0))
    m.add_spring_damper(0, 0.0, None, k=K, ground_point=(A_HALF, 0.0))
    m.add_external_force(0, 0.0, 0.0, 0.0)
    return m


def test_von_mises_snap_through_limit_load():
    m = von_mises()
    before = m.to_dict()
    path = m.equilibrium_path("force0.fy", [0.0, -40.0])
    assert m.to_dict() == before
    l0 = math.hypot(A_HALF, H)
    l_star = (l0 * A_HALF ** 2) ** (1 / 3)
    y_star = math.sqrt(l_star ** 2 - A_HALF ** 2)
    P_max = 2 * K * y_star * (l0 / l_star - 1)
    assert path.complete
    assert len(path.limit_points) == 2 and not path.bifurcations
    assert {lp.reason for lp in path.limit_points} == {"tangent"}
    lp = path.limit_points[0]
    err = abs(-lp.parameter - P_max) / P_max
    print(f"von Mises: limit load {-lp.parameter:.12g} N, closed form {P_max:.12g} N, "
          f"relative error {err:.2e}; second limit {path.limit_points[1].parameter:.12g} N")
    assert err < 1e-8
    assert abs(lp.q[1] - y_star) < 1e-6
    assert abs(path.limit_points[1].parameter - P_max) < 1e-8 * P_max
    # the path: P(y) = 2k y (l0/l - 1) at every point, stable on the outer branches only
    y = path.q[:, 1]
    P_closed = 2 * K * y * (l0 / np.hypot(A_HALF, y) - 1)
    assert np.max(np.abs(-path.parameter - P_closed)) < 1e-8 * P_max
    inner = np.abs(y) < y_star - 1e-3
    outer = np.abs(y) > y_star + 1e-3
    assert not path.stable[inner].any() and path.stable[outer].all()
    # the multipliers along the path: the rollers carry no vertical force, no moment needed
    assert np.max(np.abs(path.multiplier("support0.x"))) < 1e-8 * P_max
    df = path.to_pandas()
    assert list(df.columns[:2]) == ["force0.fy", "arclength"]


def test_path_over_g_reports_no_special_point_for_a_pendulum():
    m = pendulum(-math.pi / 2 + 0.2)
    path = m.equilibrium_path("g", [9.81, 1.0], q_guess=[0.0, -0.5, -math.pi / 2])
    assert path.complete and not path.limit_points and not path.bifurcations
    # reaction = weight m g along the whole path
    np.testing.assert_allclose(path.multiplier("support0.y"), 2.0 * path.parameter,
                               rtol=1e-10)


def test_rigid_bar_column_bifurcates_at_the_euler_load():
    # a vertical bar on a pin with a torsional spring k at its foot, a vertical load P at its
    # top: the straight column stays an equilibrium, stable until P = k / L (pitchfork)
    L, k = 1.2, 50.0
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, L / 2, math.pi / 2, L, 1.0)
    m.add_support(0, -0.5, False, False)
    m.add_torsional_spring(None, 0, k=k)
    m.add_external_force(0, 0.5, 0.0, 0.0)
    path = m.equilibrium_path("force0.fy", [0.0, -2 * k / L])
    assert path.complete and not path.limit_points
    assert [b.reason for b in path.bifurcations] == ["hessian"]
    P_cr = -path.bifurcations[0].parameter
    print(f"column: bifurcation at P = {P_cr:.12g} N, closed form k/L = {k / L:.12g} N")
    assert abs(P_cr - k / L) < 1e-9 * k / L
    assert np.max(np.abs(path.q[:, 2] - math.pi / 2)) < 1e-10  # stays straight
    P = -path.parameter
    assert path.stable[P < k / L - 1e-6].all() and not path.stable[P > k / L + 1e-6].any()


def test_parallelogram_path_through_its_flat_pose_reports_the_rank_loss():
    # a parallelogram four-bar (no gravity) held by a torsional spring at the crank: the
    # equilibrium is θ = φ0 with no force anywhere; as φ0 passes 0 the linkage goes through
    # its flat pose, where J loses rank (W singular; the antiparallelogram branch crosses)
    th = 0.5
    A = (math.cos(th), math.sin(th))
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_from_point_pair((0.0, 0.0), A)
    m.add_bar_from_point_pair(A, (A[0] + 2.0, A[1]))
    m.add_bar_from_point_pair((2.0, 0.0), (A[0] + 2.0, A[1]))
    m.add_support(0, -0.5, False, False)
    m.add_support(2, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.5])
    m.add_torsional_spring(None, 0, k=100.0)
    path = m.equilibrium_path("torsion0.phi0", [0.5, -0.5])
    assert path.complete
    np.testing.assert_allclose(path.q[:, 2], path.parameter, atol=1e-12)
    assert [(b.kind, b.reason) for b in path.bifurcations] == [("bifurcation", "rank")]
    flat = path.bifurcations[0]
    print(f"parallelogram: rank loss located at φ0 = {flat.parameter:.2e} (closed form 0)")
    assert abs(flat.parameter) < 1e-8 and abs(flat.q[2]) < 1e-8
    assert m.mobility(flat.q).dof == 2 and m.mobility().dof == 1


def test_statically_indeterminate_bar_names_the_redundant_row():
    # a bar pinned at both ends: one horizontal reaction is redundant (minimum-norm split)
    m = qv.BarJointModel()
    m.set_g(9.81)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 2.0, 4.0)
    m.add_support(0, -0.5, False, False)
    m.add_support(0, 0.5, False, False)
    m.add_external_force(0, 0.0, 6.0, -10.0)
    eq = m.equilibrium()
    assert eq.redundant == ["support1.x"]
    W = 4.0 * 9.81 + 10.0
    np.testing.assert_allclose([eq.support_force(0)[1], eq.support_force(1)[1]],
                               [W / 2, W / 2], rtol=1e-12)
    assert abs(eq.support_force(0)[0] + eq.support_force(1)[0] + 6.0) < 1e-12
    assert abs(eq.support_force(0)[0] - eq.support_force(1)[0]) < 1e-12  # minimum norm


def test_path_over_a_named_parameter_of_a_motor_torque():
    # a pendulum turned by a motor torque A at its pin: m g (L/2) cos θ = A
    m = pendulum(-math.pi / 2 + 0.1)
    A = m.add_parameter("A", 0.0)
    m.add_torque_actuator(0, A)
    path = m.equilibrium_path("A", [0.0, 8.0], q_guess=[0.0, -0.5, -math.pi / 2])
    assert path.complete and path.parameter_name == "A"
    theta = path.q[:, 2]
    np.testing.assert_allclose(2.0 * 9.81 * 0.5 * np.cos(theta), path.parameter, atol=1e-9)
    assert path.stable.all()
    eq = m.equilibrium()
    assert m.element("A").value == 0.0  # the model kept its value
    assert eq.to_pandas().loc["support0.y", "lambda"] == pytest.approx(2.0 * 9.81)
    assert list(eq.reactions_to_pandas().columns) == ["Fx", "Fy"]


# --------------------------------------------------------------------------- errors
def test_mechanism_without_restoring_force_is_an_error():
    m = pendulum(0.3, g=0.0)
    m.add_external_force(0, 0.5, 0.0, 0.0, torque=1.0)
    before = m.to_dict()
    with pytest.raises(EquilibriumError, match="no restoring stiffness|no equilibrium"):
        m.equilibrium()
    assert m.to_dict() == before


def test_no_equilibrium_nearby_is_an_error():
    # a free bar under a constant force has no equilibrium at all
    m = qv.BarJointModel()
    m.set_g(0.0)
    m.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    m.add_external_force(0, 0.5, 1.0, 0.0)
    with pytest.raises(ValueError, match="equilibrium"):
        m.equilibrium()


def test_bad_inputs_raise_clear_errors():
    m = pendulum(-1.0)
    before = m.to_dict()
    with pytest.raises(ValueError, match="q_guess must have 3 entries"):
        m.equilibrium([0.0, 1.0])
    with pytest.raises(TypeError, match="q_guess"):
        m.equilibrium(["a", "b", "c"])
    with pytest.raises(ValueError, match="finite"):
        m.equilibrium([0.0, float("nan"), 0.0])
    with pytest.raises(TypeError, match="max_iter"):
        m.equilibrium(max_iter=2.5)
    with pytest.raises(ValueError, match="tol"):
        m.equilibrium(tol=0.5)
    with pytest.raises(ValueError, match="unknown parameter 'force3.fy'.*'g'"):
        m.equilibrium_path("force3.fy", [0.0, 1.0])
    with pytest.raises(TypeError, match="parameter must be"):
        m.equilibrium_path(3, [0.0, 1.0])
    with pytest.raises(ValueError, match="at least 2"):
        m.equilibrium_path("g", [1.0])
    with pytest.raises(TypeError, match="values"):
        m.equilibrium_path("g", "abc")
    with pytest.raises(ValueError, match="finite"):
        m.equilibrium_path("g", [1.0, float("inf")])
    assert m.to_dict() == before

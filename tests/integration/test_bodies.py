"""Particles, rigid bodies, welds, distance links, rolling, joint motors, kinematics
helpers, API ergonomics and the function API's ``simulate_system`` — against independent
oracles (SymPy derivations integrated by SciPy, closed forms, Exudyn).
"""

from __future__ import annotations

import json
import math
import warnings

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.model.simulator import ConstraintWarning

G = 9.81


def _crossings(t: np.ndarray, f: np.ndarray) -> np.ndarray:
    """Times of the upward zero crossings of ``f`` (linear interpolation)."""
    k = np.nonzero((f[:-1] < 0.0) & (f[1:] >= 0.0))[0]
    return t[k] - f[k] * (t[k + 1] - t[k]) / (f[k + 1] - f[k])


# ----------------------------------------------------------------- particle double pendulum
M1, M2, L1, L2 = 1.0, 2.0, 1.0, 0.7
TH0 = (0.6, -0.3, 0.5, -1.0)  # θ1, θ2 from the downward vertical, and their rates


def _double_pendulum_model() -> qv.BarJointModel:
    """The particle double pendulum of *Learn Multibody Dynamics* (two point masses on
    massless rods) in the model API: two particles and two distance links."""
    th1, th2, w1, w2 = TH0
    p1 = np.array([L1 * math.sin(th1), -L1 * math.cos(th1)])
    p2 = p1 + [L2 * math.sin(th2), -L2 * math.cos(th2)]
    v1 = L1 * w1 * np.array([math.cos(th1), math.sin(th1)])
    v2 = v1 + L2 * w2 * np.array([math.cos(th2), math.sin(th2)])
    model = qv.BarJointModel()
    a = model.add_particle(*p1, M1, vx=v1[0], vy=v1[1])
    b = model.add_particle(*p2, M2, vx=v2[0], vy=v2[1])
    model.add_distance(None, (0.0, 0.0), a, 0.0, name="rod 1")
    model.add_distance(a, 0.0, b, 0.0, name="rod 2")
    return model


def _sympy_double_pendulum(t_out: np.ndarray):
    """Independent oracle: Lagrange's equations in the angles (SymPy), integrated by SciPy's
    DOP853; tensions from Newton's law on each particle."""
    import sympy as sp
    from scipy.integrate import solve_ivp

    t = sp.symbols("t")
    th1, th2 = sp.Function("th1")(t), sp.Function("th2")(t)
    p1 = sp.Matrix([L1 * sp.sin(th1), -L1 * sp.cos(th1)])
    p2 = p1 + sp.Matrix([L2 * sp.sin(th2), -L2 * sp.cos(th2)])
    v1, v2 = p1.diff(t), p2.diff(t)
    lag = (M1 * v1.dot(v1) + M2 * v2.dot(v2)) / 2 - G * (M1 * p1[1] + M2 * p2[1])
    eqs = [sp.diff(lag.diff(q.diff(t)), t) - lag.diff(q) for q in (th1, th2)]
    a1, a2 = sp.symbols("a1 a2")
    w1, w2, s1, s2 = sp.symbols("w1 w2 s1 s2")
    rep = {th1.diff(t, 2): a1, th2.diff(t, 2): a2}
    rep2 = {th1.diff(t): w1, th2.diff(t): w2}
    eqs = [e.subs(rep).subs(rep2).subs({th1: s1, th2: s2}) for e in eqs]
    sol = sp.solve(eqs, [a1, a2], dict=True)[0]
    acc = sp.lambdify((s1, s2, w1, w2), [sol[a1], sol[a2]])
    res = solve_ivp(lambda _t, y: [y[2], y[3], *acc(*y)], (0.0, t_out[-1]), list(TH0),
                    t_eval=t_out, method="DOP853", rtol=1e-12, atol=1e-12)
    s1n, s2n, w1n, w2n = res.y
    a1n, a2n = np.array(acc(s1n, s2n, w1n, w2n))
    # particle positions and accelerations from the angles
    e1 = np.stack([np.sin(s1n), -np.cos(s1n)], 1)
    e2 = np.stack([np.sin(s2n), -np.cos(s2n)], 1)
    t1 = np.stack([np.cos(s1n), np.sin(s1n)], 1)
    t2 = np.stack([np.cos(s2n), np.sin(s2n)], 1)
    acc1 = L1 * (a1n[:, None] * t1 - (w1n ** 2)[:, None] * e1)
    acc2 = acc1 + L2 * (a2n[:, None] * t2 - (w2n ** 2)[:, None] * e2)
    g = np.array([0.0, -G])
    # M2 a2 = -T2 e2 + M2 g ;  M1 a1 = -T1 e1 + T2 e2 + M1 g
    T2 = np.einsum("ij,ij->i", M2 * (g - acc2), e2)
    T1 = np.einsum("ij,ij->i", T2[:, None] * e2 + M1 * (g - acc1), e1)
    pos1, pos2 = L1 * e1, L1 * e1 + L2 * e2
    return np.hstack([pos1, pos2]), T1, T2


def test_particle_double_pendulum_against_sympy():
    model = _double_pendulum_model()
    assert model.n_coordinates == 4
    assert model.constraint_labels == ["rod 1.tension", "rod 2.tension"]
    tr = model.simulate(3.0, n_points=31)
    q_ref, T1, T2 = _sympy_double_pendulum(tr.t)
    assert tr.coordinate_names == ["x0", "y0", "x1", "y1"]
    assert np.max(np.abs(tr.q - q_ref)) < 1e-8
    lam = tr.constraint_output("rod 1", "Force")[:, 0], tr.lambda_mult[:, 1]
    assert np.max(np.abs(lam[0] - T1)) < 1e-7 * np.max(np.abs(T1))
    assert np.max(np.abs(lam[1] - T2)) < 1e-7 * np.max(np.abs(T2))
    assert tr.relative_energy_error() < 1e-12
    # the links keep their lengths (the distance helper, in m)
    assert np.max(np.abs(tr.distance((None, (0.0, 0.0)), (0, 0.0)) - L1)) < 1e-12
    assert np.max(np.abs(tr.distance((0, 0.0), (1, (0.0, 0.0))) - L2)) < 1e-12


def test_particle_double_pendulum_against_exudyn():
    import exudyn as exu
    from exudyn import itemInterface as ii

    model = _double_pendulum_model()
    tr = model.simulate(1.0, n_points=11)
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ovt = exu.OutputVariableType
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    st = model.get_initial_state()
    nodes, sensors = [], []
    for k, m in enumerate((M1, M2)):
        n = mbs.AddNode(ii.NodePoint2D(referenceCoordinates=st[2 * k:2 * k + 2],
                                       initialVelocities=st[4 + 2 * k:6 + 2 * k]))
        body = mbs.AddObject(ii.ObjectMassPoint2D(nodeNumber=n, mass=m))
        mm = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=body))
        mbs.AddLoad(ii.LoadMassProportional(markerNumber=mm, loadVector=[0.0, -G, 0.0]))
        nodes.append(n)
    mg = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[0.0] * 3))
    mk = [mbs.AddMarker(ii.MarkerNodePosition(nodeNumber=n)) for n in nodes]
    for pair, ell in (((mg, mk[0]), L1), ((mk[0], mk[1]), L2)):
        c = mbs.AddObject(ii.ObjectConnectorDistance(markerNumbers=list(pair), distance=ell))
        sensors.append(mbs.AddSensor(ii.SensorObject(objectNumber=c, outputVariableType=ovt.Force,
                                                     storeInternal=True)))
    pos = [mbs.AddSensor(ii.SensorNode(nodeNumber=n, outputVariableType=ovt.Position,
                                       storeInternal=True)) for n in nodes]
    mbs.Assemble()
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps, ti.endTime, ti.verboseMode = 10000, 1.0, 0
    ti.generalizedAlpha.spectralRadius = 0.8
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = False
    ti.newton.relativeTolerance = ti.newton.absoluteTolerance = 1e-12
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = 0.5e-4
    assert exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)

    def at(sensor, cols):
        d = np.asarray(mbs.GetSensorStoredData(sensor))
        keep = np.append(np.diff(d[:, 0]) > 0, True)
        return np.column_stack([np.interp(tr.t, d[keep, 0], d[keep, c]) for c in cols])

    q_exu = np.hstack([at(p, (1, 2)) for p in pos])
    tension = np.hstack([at(s, (1,)) for s in sensors])  # Exudyn: the link force, + = tension
    assert np.max(np.abs(tr.q - q_exu)) < 2e-6  # Exudyn's O(h²) error at h = 1e-4
    assert np.max(np.abs(tr.lambda_mult - tension)) < 2e-4 * np.max(np.abs(tension))


def test_particle_mass_is_a_runtime_parameter():
    """A particle hanging at rest on a link: tension m g, for any mass, one compilation."""
    model = qv.BarJointModel()
    p = model.add_particle(0.0, -0.8, 0.5)
    model.add_distance(None, (0.0, 0.0), p, 0.0)
    tr = model.simulate(0.5, n_points=3)
    n0 = model.n_compiled
    assert np.max(np.abs(tr.lambda_mult[:, 0] - 0.5 * G)) < 1e-12
    model.set_bar_mass(p, 2.5)
    tr = model.simulate(0.5, n_points=3)
    assert model.n_compiled == n0
    assert np.max(np.abs(tr.lambda_mult[:, 0] - 2.5 * G)) < 1e-12
    assert np.max(np.abs(tr.q - [0.0, -0.8])) < 1e-15


def test_particle_double_pendulum_modes_closed_form():
    """Small oscillations about the hanging pose: K v = ω² M v with
    M = [[(m1+m2) l1², m2 l1 l2], [m2 l1 l2, m2 l2²]], K = diag((m1+m2) g l1, m2 g l2)."""
    model = _double_pendulum_model()
    model.set_initial_state([0.0, -L1, 0.0, -L1 - L2] + [0.0] * 4)
    modes = model.modes()
    Mm = np.array([[(M1 + M2) * L1 ** 2, M2 * L1 * L2], [M2 * L1 * L2, M2 * L2 ** 2]])
    Kk = np.diag([(M1 + M2) * G * L1, M2 * G * L2])
    w2 = np.sort(np.linalg.eigvals(np.linalg.solve(Mm, Kk)).real)
    assert modes.omega_squared == pytest.approx(w2, rel=1e-10)
    assert modes.shapes.shape == (4, 2)


# ----------------------------------------------------------------- rolling disc on an incline
def _incline(alpha=0.3, R=0.2, m=2.0, inertia=None):
    model = qv.BarJointModel()
    n = (-math.sin(alpha), math.cos(alpha))
    inertia = 0.5 * m * R * R if inertia is None else inertia
    d = model.add_body(R * n[0], R * n[1], 0.0, m, inertia, shape={"kind": "disc", "radius": R})
    name = model.add_rolling_on_line(d, alpha, (0.0, 0.0))
    return model, d, name


def test_rolling_disc_on_incline_closed_form():
    """SymPy's rolling disc on an incline: the centre accelerates down the slope at
    2 g sin α / 3; normal force m g cos α; friction m g sin α / 3 up the slope."""
    alpha, R, m = 0.3, 0.2, 2.0
    model, d, name = _incline(alpha, R, m)
    assert name == "rolling0"
    assert model.constraint_labels == ["rolling0.normal", "rolling0.friction"]
    tr = model.simulate(1.2, n_points=13)
    tvec = np.array([math.cos(alpha), math.sin(alpha)])
    s = tr.q[:, :2] @ tvec
    assert np.max(np.abs(s - (s[0] - G * math.sin(alpha) / 3.0 * tr.t ** 2))) < 1e-12
    N, f = tr.lambda_mult[:, 0], tr.lambda_mult[:, 1]
    assert np.max(np.abs(N - m * G * math.cos(alpha))) < 1e-11
    assert np.max(np.abs(f - m * G * math.sin(alpha) / 3.0)) < 1e-11
    # the reaction on the disc is N n + f t (global frame)
    force = tr.reactions[0].force
    nvec = np.array([-math.sin(alpha), math.cos(alpha)])
    expected = m * G * math.cos(alpha) * nvec + m * G * math.sin(alpha) / 3.0 * tvec
    assert np.max(np.abs(force - expected)) < 1e-11
    # no slip: the contact point of the disc has zero velocity (material point under the
    # centre at each instant: the body-frame point R(-θ)·(-R n))
    th = tr.q[:, 2]
    contact_vel = tr.qd[:, :2] + tr.qd[:, 2:3] * np.column_stack(
        [R * nvec[1] * np.ones_like(th), -R * nvec[0] * np.ones_like(th)])
    assert np.max(np.abs(contact_vel)) < 1e-12
    assert tr.relative_energy_error() < 1e-12


def test_rolling_runtime_parameters_do_not_recompile():
    alpha, R = 0.3, 0.2
    model, d, _ = _incline(alpha, R, 2.0)
    model.simulate(0.1, n_points=2)
    n0 = model.n_compiled
    m, inertia = 3.0, 0.9 * 3.0 * R * R  # a heavier, ring-like disc
    model.set_bar_mass(d, m)
    model.set_body_inertia(d, inertia)
    tr = model.simulate(1.0, n_points=11)
    assert model.n_compiled == n0
    acc = G * math.sin(alpha) / (1.0 + inertia / (m * R * R))
    s = tr.q[:, :2] @ [math.cos(alpha), math.sin(alpha)]
    assert np.max(np.abs(s - (s[0] - 0.5 * acc * tr.t ** 2))) < 1e-12
    assert np.max(np.abs(tr.lambda_mult[:, 1] - inertia / R ** 2 * acc)) < 1e-11


# ----------------------------------------------------------------- welded T pendulum
def test_welded_T_pendulum_period():
    """Stem pinned at its top, cross bar welded at its lower end: T = 2π√(17L/18g)."""
    L, m, amp = 0.8, 1.3, 0.01
    model = qv.BarJointModel()
    c, s = math.sin(amp), -math.cos(amp)  # stem direction, hanging amp rad off vertical
    stem = model.add_bar_from_point_pair((0.0, 0.0), (L * c, L * s), mass=m)
    end = (L * c, L * s)
    cross = model.add_bar_at_attitude(end[0], end[1], amp, L, m)
    model.add_support(stem, -0.5, fixed_x=True, fixed_y=True)
    weld = model.add_weld(stem, cross, at=end)
    assert model.bars[stem].mass == pytest.approx(m)
    T0 = 2 * math.pi * math.sqrt(17 * L / (18 * G))
    tr = model.simulate(3.2 * T0, n_points=3201)
    angle = tr.q[:, 2] + math.pi / 2  # the stem's angle from the downward vertical
    periods = np.diff(_crossings(tr.t, -angle))
    T_amp = T0 * (1 + amp ** 2 / 16)  # finite-amplitude correction of a physical pendulum
    assert np.max(np.abs(periods / T_amp - 1)) < 1e-6
    # the weld holds the relative angle (π/2) and its three rows
    assert np.max(np.abs(tr.joint_angle(weld) - math.pi / 2)) < 1e-12
    assert tr.constraint_labels[2:] == [f"{weld}.x", f"{weld}.y",
                                         f"{weld}.torque"]
    # the modes of the linearized model give the same frequency
    model.set_initial_state(np.concatenate([[0, -L / 2, -math.pi / 2, 0, -L, 0], np.zeros(6)]))
    modes = model.modes()
    assert modes.omega[0] == pytest.approx(math.sqrt(18 * G / (17 * L)), rel=1e-9)
    # at rest, hanging: the weld carries the cross bar's weight and no torque
    tr = model.simulate(0.01, n_points=2)
    assert np.max(np.abs(tr.lambda_mult[:, 2:] - [0.0, m * G, 0.0])) < 1e-11


def test_weld_against_exudyn():
    """A T pendulum released at 0.6 rad: Exudyn's revolute joint plus a coordinate constraint
    on the relative angle is the same weld (force at the weld point, pure torque)."""
    from quivira_oracles.exudyn_planar import simulate_bars_exudyn

    L, m, th = 0.8, 1.3, 0.6
    model = qv.BarJointModel()
    end = (L * math.sin(th), -L * math.cos(th))
    stem = model.add_bar_from_point_pair((0.0, 0.0), end, mass=m)
    cross = model.add_bar_at_attitude(end[0], end[1], th, L, m)
    model.add_support(stem, -0.5, fixed_x=True, fixed_y=True)
    weld = model.add_weld(stem, cross, at=end)
    tr = model.simulate(1.0, n_points=11)
    bars = [dict(x=b.pose[0], y=b.pose[1], theta=b.pose[2], length=b.length, mass=b.mass)
            for b in model.bars]
    ref = simulate_bars_exudyn(bars, [(0, 0.5, 1, 0.0)], [(0, -0.5)], g=G, t_end=1.0,
                               h=1e-4, n_out=11,
                               coordinate_constraints=[dict(bar0=0, bar1=1, X0=[[0, 0, 1]],
                                                            X1=[[0, 0, 1]],
                                                            offset=[math.pi / 2])])
    assert np.max(np.abs(tr.q - ref["q"])) < 1e-6
    force = tr.constraint_output(weld, "Force")
    assert np.max(np.abs(force[:, :2] - ref["joint_forces"][:, 0, :])) < 1e-4 * m * G
    assert np.max(np.abs(force[:, 2] + ref["cc_forces"][0][:, 0])) < 1e-4 * m * G * L
    on = {(r.kind, r.bar): r.force for r in tr.reactions}
    assert np.max(np.abs(on[("weld", 1)] - ref["joint_forces"][:, 0, :])) < 1e-4 * m * G
    assert np.array_equal(on[("weld", 0)], -on[("weld", 1)])


# ----------------------------------------------------------------- disc rolling inside a circle
def test_disc_rolling_inside_circle_frequency():
    """ω² = 2g / (3(R - r)) for a uniform disc rolling inside a fixed ring."""
    Rr, r, m, amp = 1.0, 0.25, 1.5, 0.02
    D = Rr - r
    model = qv.BarJointModel()
    phi0 = -math.pi / 2 + amp
    d = model.add_body(D * math.cos(phi0), D * math.sin(phi0), 0.0, m, 0.5 * m * r * r,
                       shape={"kind": "disc", "radius": r})
    name = model.add_rolling_on_disc(None, d, inside=True, radius_a=Rr, centre_a=(0.0, 0.0))
    T0 = 2 * math.pi * math.sqrt(3 * D / (2 * G))
    tr = model.simulate(3.2 * T0, n_points=3201)
    phi = np.arctan2(tr.q[:, 1], tr.q[:, 0]) + math.pi / 2
    periods = np.diff(_crossings(tr.t, phi))
    assert np.max(np.abs(periods / (T0 * (1 + amp ** 2 / 16)) - 1)) < 1e-6
    # at rest at t = 0: normal force m g cos φ, friction m g sin φ / 3 (closed forms)
    assert tr.constraint_output(name, "Force")[0] == pytest.approx(
        [m * G * math.cos(amp), m * G * math.sin(amp) / 3], rel=1e-10)
    # rolling: D φ̇ = -r θ̇ inside a fixed ring (the velocity row), and the centre stays on
    # the circle of radius R - r
    phid = (tr.q[:, 0] * tr.qd[:, 1] - tr.q[:, 1] * tr.qd[:, 0]) / D ** 2
    assert np.max(np.abs(D * phid + r * tr.qd[:, 2])) < 1e-11
    assert np.max(np.abs(np.hypot(tr.q[:, 0], tr.q[:, 1]) - D)) < 1e-12
    assert tr.relative_energy_error() < 1e-11


def test_disc_rolling_on_fixed_disc_against_ode():
    """A disc rolling on top of a fixed circle until it leaves: φ̈ = -g cos φ / (D(1 + I/mr²)),
    N = m g sin φ - m D φ̇² (SciPy on the closed-form equation)."""
    from scipy.integrate import solve_ivp

    Ra, r, m = 0.6, 0.2, 0.8
    inertia = 0.4 * m * r * r
    D = Ra + r
    phi0 = math.pi / 2 - 0.2
    model = qv.BarJointModel()
    b = model.add_body(D * math.cos(phi0), 0.3 + D * math.sin(phi0), 0.4, m, inertia,
                       shape={"kind": "disc", "radius": r})
    model.add_rolling_on_disc(None, b, radius_a=Ra, centre_a=(0.0, 0.3), name="on top")
    tr = model.simulate(0.5, n_points=51)
    k = 1 + inertia / (m * r * r)
    res = solve_ivp(lambda _t, y: [y[1], -G * math.cos(y[0]) / (D * k)], (0, 0.5),
                    [phi0, 0.0], t_eval=tr.t, rtol=1e-12, atol=1e-12, method="DOP853")
    phi = np.arctan2(tr.q[:, 1] - 0.3, tr.q[:, 0])
    assert np.max(np.abs(phi - res.y[0])) < 1e-9
    N = m * G * np.sin(res.y[0]) - m * D * res.y[1] ** 2
    assert np.max(np.abs(tr.lambda_mult[:, 0] - N)) < 1e-8
    # outside rolling: D φ̇ = r θ̇ (the disc turns clockwise as it rolls down the right side)
    assert np.max(np.abs(D * res.y[1] - r * tr.qd[:, 2])) < 1e-8


# ----------------------------------------------------------------- joint motor
def test_joint_motor_torque_and_parameters():
    """A bar pinned at one end, its angle driven by θ(t) = θ0 + A sin ωt: the motor torque is
    I_O θ̈ + m g (L/2) cos θ with I_O = m L²/3."""
    L, m, th0, om = 0.9, 1.7, -0.4, 3.0
    model = qv.BarJointModel()
    A = model.add_parameter("A", 0.3)
    b = model.add_bar_at_attitude(0.5 * L * math.cos(th0), 0.5 * L * math.sin(th0), th0, L, m)
    model.add_support(b, -0.5, fixed_x=True, fixed_y=True)
    name = model.add_joint_motor(None, th0 + A * hy.sin(om * hy.time), bodies=(None, b))

    def check(amp):
        thd0 = amp * om
        model.set_init_bar_velocities(b, -0.5 * L * thd0 * math.sin(th0),
                                      0.5 * L * thd0 * math.cos(th0), thd0)
        tr = model.simulate(2.0, n_points=21)
        th = th0 + amp * np.sin(om * tr.t)
        thdd = -amp * om ** 2 * np.sin(om * tr.t)
        assert np.max(np.abs(tr.q[:, 2] - th)) < 1e-12
        assert np.max(np.abs(tr.joint_angle(name) - th)) < 1e-12
        assert np.max(np.abs(tr.joint_angular_velocity(name) - amp * om * np.cos(om * tr.t))) \
            < 1e-11
        tau = m * L * L / 3 * thdd + m * G * 0.5 * L * np.cos(th)
        assert np.max(np.abs(tr.constraint_output(name, "Force")[:, 0] - tau)) < 1e-10

    check(0.3)
    n0 = model.n_compiled
    model.set_parameter("A", 0.5)
    check(0.5)
    assert model.n_compiled == n0


def test_joint_motor_on_pin_joint_drives_relative_angle():
    model = qv.BarJointModel()
    a = model.add_bar_from_point_pair((0.0, 0.0), (1.0, 0.0))
    b = model.add_bar_from_point_pair((1.0, 0.0), (1.0, -1.0))
    model.add_support(a, -0.5, fixed_x=True, fixed_y=True)
    j = model.add_joint([a, b], [0.5, -0.5])
    model.add_joint_motor(j, -math.pi / 2 + 0.5 * hy.time)
    model.set_init_bar_velocities(b, 0.0, 0.0, 0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstraintWarning)
        tr = model.simulate(1.0, n_points=11)
    assert np.max(np.abs(tr.joint_angle(j) - (-math.pi / 2 + 0.5 * tr.t))) < 1e-10
    assert np.max(np.abs(tr.joint_angular_velocity(j) - 0.5)) < 1e-10


# ----------------------------------------------------------------- kinematics helpers
def test_point_kinematics_of_a_pendulum():
    """The free end of a bar pinned at its other end: p = L(cos θ, sin θ), ṗ = Lθ̇(-sin, cos),
    p̈ = Lθ̈(-sin, cos) - Lθ̇²(cos, sin), θ̈ = -(3g/2L) cos θ."""
    L = 1.2
    model = qv.BarJointModel()
    b = model.add_bar_from_point_pair((0.0, 0.0), (L, 0.0), mass_per_length=2.0)
    model.add_support(b, -0.5, False, False, fixed_x=True)  # alias and spec form agree
    tr = model.simulate(1.0, n_points=11)
    th, w = tr.q[:, 2], tr.qd[:, 2]
    al = -1.5 * G / L * np.cos(th)
    e, t = np.column_stack([np.cos(th), np.sin(th)]), np.column_stack([-np.sin(th), np.cos(th)])
    p, v, a = tr.point(b, 0.5)
    assert np.max(np.abs(p - L * e)) < 1e-12
    assert np.max(np.abs(v - L * w[:, None] * t)) < 1e-12
    assert np.max(np.abs(a - (L * al[:, None] * t - L * (w ** 2)[:, None] * e))) < 1e-10
    # the same point as a body-frame pair (m), and the pin point stays at the origin
    p2, _, _ = tr.point(b, (0.5 * L, 0.0))
    assert np.array_equal(p, p2)
    p0, v0, a0 = tr.point(b, -0.5)
    assert np.max(np.abs(p0)) < 1e-12 and np.max(np.abs(v0)) < 1e-12
    assert np.max(np.abs(a0)) < 1e-10
    assert np.max(np.abs(tr.distance((b, 0.5), (None, (0.0, 0.0))) - L)) < 1e-12


def test_named_points_offset_mass_centre():
    """A rigid body hanging from a named point at distance c from its mass centre is a
    physical pendulum: ω² = m g c / (I + m c²)."""
    m, inertia, c, amp = 2.0, 0.05, 0.3, 0.01
    model = qv.BarJointModel()
    b = model.add_body(c * math.sin(amp), -c * math.cos(amp), amp, m, inertia,
                       shape={"kind": "plate", "width": 0.2, "height": 0.8},
                       points={"pivot": (0.0, c)})
    # two links from nearby ground points at right angles hold the pivot at the origin
    model.add_distance(None, (-0.05, 0.0), b, "pivot")
    model.add_distance(None, (0.0, 0.05), b, "pivot")
    assert model.check_constraint_fulfillment(model.get_initial_state()).satisfied
    tr = model.simulate(4.0, n_points=4001)
    pivot, _, _ = tr.point(b, "pivot")
    assert np.max(np.abs(pivot - pivot[0])) < 1e-12
    omega = math.sqrt(m * G * c / (inertia + m * c * c))
    periods = np.diff(_crossings(tr.t, tr.q[:, 2]))
    assert np.max(np.abs(periods * omega / (2 * math.pi) - (1 + amp ** 2 / 16))) < 1e-5


# ----------------------------------------------------------------- persistence
def _every_kind() -> qv.BarJointModel:
    model = qv.BarJointModel()
    A = model.add_parameter("A", 0.2)
    bar = model.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 1.0)
    model.add_support(bar, -0.5, fixed_x=True, fixed_y=True)
    cross = model.add_bar_at_attitude(0.0, -1.0, 0.0, 0.6, 0.5)
    model.add_weld(bar, cross, at=(0.0, -1.0))
    p = model.add_particle(0.3, -1.4, 0.4)
    model.add_distance(cross, 0.5, p, 0.0)
    disc = model.add_body(2.0, 0.25, 0.0, 1.0, 0.03, {"kind": "disc", "radius": 0.25},
                          {"rim": (0.25, 0.0)})
    model.add_rolling_on_line(disc, 0.0, (2.0, 0.0))
    ring = model.add_body(4.0, 0.0, 0.0, 2.0, 0.5, {"kind": "disc", "radius": 1.0})
    model.add_support(ring, 0.0, fixed_x=True, fixed_y=True)
    small = model.add_body(4.0, -0.8, 0.0, 0.3, 0.006, {"kind": "disc", "radius": 0.2})
    model.add_rolling_on_disc(ring, small, inside=True)
    model.add_joint_motor(None, A * hy.sin(hy.time), bodies=(None, ring))
    model.add_distance(disc, "rim", None, (2.25, 1.0))
    return model


def test_persistence_round_trip_of_every_new_kind(tmp_path):
    model = _every_kind()
    d = model.to_dict()
    kinds = [b.get("kind", "bar") for b in d["bars"]]
    assert kinds == ["bar", "bar", "particle", "body", "body", "body"]
    for coll in ("welds", "distances", "rolling_contacts", "disc_rolling_contacts",
                 "joint_motors"):
        assert d[coll], coll
    again = qv.BarJointModel.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    assert again.topology_key() == model.topology_key()
    assert np.array_equal(again.parameter_values(), model.parameter_values())
    path = tmp_path / "every_kind.json"
    model.save(path)
    loaded = qv.BarJointModel.load(path)
    assert loaded.to_dict() == d
    assert loaded.summary() == model.summary()
    assert "particle 2: m = 0.4" in model.summary()
    assert "weld of body 1 to body 0" in model.summary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConstraintWarning)
        a = model.simulate(0.2, n_points=3)
        b = loaded.simulate(0.2, n_points=3)
    assert np.array_equal(a.q, b.q)
    assert a.constraint_labels == b.constraint_labels


def test_persistence_refuses_bad_bodies():
    d = _every_kind().to_dict()
    bad = json.loads(json.dumps(d))
    bad["bars"][2]["kind"] = "blob"
    with pytest.raises(ValueError, match="bars\\[2\\].kind"):
        qv.BarJointModel.from_dict(bad)
    bad = json.loads(json.dumps(d))
    bad["distances"][1]["point_a"] = "nowhere"
    with pytest.raises(ValueError, match="no point named 'nowhere'"):
        qv.BarJointModel.from_dict(bad)
    bad = json.loads(json.dumps(d))
    bad["welds"][0]["body_b"] = 2  # a particle cannot be welded
    with pytest.raises(ValueError, match="particle"):
        qv.BarJointModel.from_dict(bad)
    bad = json.loads(json.dumps(d))
    bad["bars"][3]["inertia"] = -1.0
    with pytest.raises(ValueError, match="inertia"):
        qv.BarJointModel.from_dict(bad)


# ----------------------------------------------------------------- API ergonomics, bad input
def test_point_pair_mass_and_support_aliases_match_the_spec_forms():
    a = qv.BarJointModel()
    a.add_bar_from_point_pair((0.0, 0.0), (2.0, 0.0), 1.5)  # spec: positional mass/length
    a.add_support(0, -0.5, False, True)
    b = qv.BarJointModel()
    b.add_bar_from_point_pair((0.0, 0.0), (2.0, 0.0), mass=3.0)
    b.add_support(0, -0.5, fixed_x=True, fixed_y=False)
    c = qv.BarJointModel()
    c.add_bar_from_point_pair((0.0, 0.0), (2.0, 0.0), mass_per_length=1.5)
    c.add_support(0, -0.5, dof_in_x=False, fixed_y=False)
    assert a.to_dict() == b.to_dict() == c.to_dict()
    assert qv.BarJointModel().add_bar_from_point_pair((0, 0), (1, 0)) == 0  # default 1 kg/m


@pytest.mark.parametrize("edit, error, text", [
    (lambda m: m.add_particle(0.0, 0.0, -1.0), ValueError, "m must be positive"),
    (lambda m: m.add_particle("a", 0.0, 1.0), TypeError, "x must be a real number"),
    (lambda m: m.add_body(0, 0, 0, 1.0, 0.0), ValueError, "I must be positive"),
    (lambda m: m.add_body(0, 0, 0, 1.0, 1.0, shape={"kind": "star"}), ValueError, "kind"),
    (lambda m: m.add_body(0, 0, 0, 1.0, 1.0, shape={"kind": "disc"}), ValueError, "radius"),
    (lambda m: m.add_body(0, 0, 0, 1.0, 1.0, points=[(0, 1)]), TypeError, "points"),
    (lambda m: m.add_weld(0, 1), ValueError, "particle"),
    (lambda m: m.add_weld(0, 0), ValueError, "same body"),
    (lambda m: m.add_distance(None, (0, 0), None, (1, 1)), ValueError, "at least one body"),
    (lambda m: m.add_distance(0, "tip", 1, 0.0), ValueError, "no point named 'tip'"),
    (lambda m: m.add_distance(1, (0.1, 0.0), 0, 0.0), ValueError, "particle has only"),
    (lambda m: m.add_distance(0, 0.0, 1, 0.0, length=0.0), ValueError, "positive"),
    (lambda m: m.add_rolling_on_line(0), ValueError, "not a disc"),
    (lambda m: m.add_rolling_on_line(1, radius=0.1), ValueError, "particle"),
    (lambda m: m.add_rolling_on_disc(None, 2, inside=True, radius_a=0.1, centre_a=(0, 0)),
     ValueError, "must be smaller"),
    (lambda m: m.add_rolling_on_disc(None, 2, radius_a=1.0), ValueError, "centre_a"),
    (lambda m: m.add_joint_motor(None, 0.1), TypeError, "joint index or bodies"),
    (lambda m: m.add_joint_motor(None, hy.expression("x0"), bodies=(None, 0)), ValueError,
     "unknown variables"),
    (lambda m: m.add_joint_motor(None, 0.1, bodies=(None, 1)), ValueError, "particle"),
    (lambda m: m.set_body_inertia(0, 1.0), ValueError, "rigid bodies"),
    (lambda m: m.set_bar_length(1, 1.0), ValueError, "no length"),
    (lambda m: m.add_support(0, 0.0, True, True, fixed_x=True), ValueError, "contradict"),
    (lambda m: m.add_support(0, 0.0, fixed_x=True), TypeError, "held in y"),
    (lambda m: m.add_bar_from_point_pair((0, 0), (1, 0), 1.0, mass=2.0), ValueError,
     "not both"),
])
def test_bad_input_names_the_problem_and_leaves_the_model(edit, error, text):
    model = qv.BarJointModel()
    model.add_bar_at_attitude(0.0, 0.0, 0.0, 1.0, 1.0)
    model.add_particle(1.0, 0.0, 1.0)
    model.add_body(0.0, 2.0, 0.0, 1.0, 0.02, {"kind": "disc", "radius": 0.2})
    before, rev = model.to_dict(), model.revision
    with pytest.raises(error, match=text):
        edit(model)
    assert model.to_dict() == before and model.revision == rev


def test_old_elements_refuse_a_particles_angle_at_compile():
    model = qv.BarJointModel()
    p = model.add_particle(1.0, 0.0, 1.0)
    model.add_distance(None, (0.0, 0.0), p, 0.0)
    model.add_torsional_spring(None, p, k=1.0)
    with pytest.raises(ValueError, match="angle of particle 0"):
        model.simulate(0.1, n_points=2)


def test_particle_state_layout_and_user_constraints():
    model = qv.BarJointModel()
    b = model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    p = model.add_particle(1.0, 0.0, 0.5)
    assert model.body_coordinates(p) == [3, 4] and model.body_kind(p) == "particle"
    x, y = model.coordinates(p)
    model.add_constraint([y], name="rail")  # a particle on the x axis (user row)
    model.add_joint([b, p], [0.5, 0.0])
    model.add_support(b, -0.5, fixed_x=True, fixed_y=True)
    assert model.get_initial_state() == [0.5, 0.0, 0.0, 1.0, 0.0] + [0.0] * 5
    model.set_initial_state([0.5, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="expected 10 values"):
        model.set_initial_state([0.0] * 12)
    assert model.degrees_of_freedom() == 0


# ----------------------------------------------------------------- function API
def test_simulate_system_pendulum_period_and_projection():
    """A point mass on a circle (Cartesian coordinates, one holonomic row): the exact period
    4K(sin²(θ0/2))√(l/g); an initial velocity with a radial part is projected onto the
    tangent (M = m I, so the projection is orthogonal)."""
    from scipy.special import ellipk

    m, ell, th0 = 1.3, 0.9, 0.8
    x, y, u, v = hy.make_vars("x", "y", "u", "v")
    lag = m * (u * u + v * v) / 2 - m * G * y
    p0 = [ell * math.sin(th0), -ell * math.cos(th0)]
    T_exact = 4 * ellipk(math.sin(th0 / 2) ** 2) * math.sqrt(ell / G)
    with pytest.warns(ConstraintWarning, match="projected"):
        tr = qv.simulate_system(lag, [x * x + y * y - ell * ell], [x, y], [u, v], 2 * T_exact,
                                [*p0, 0.3 * p0[0], 0.3 * p0[1]], n_points=2001)
    assert isinstance(tr, qv.Trajectory)
    assert np.max(np.abs(tr.qd[0])) < 1e-15  # the purely radial velocity is removed
    assert tr.info["projected_velocity_change"] == pytest.approx(0.3 * max(map(abs, p0)))
    k = np.nonzero((tr.qd[:-1, 0] < 0) & (tr.qd[1:, 0] >= 0))[0]
    tz = tr.t[k] - tr.qd[k, 0] * (tr.t[k + 1] - tr.t[k]) / (tr.qd[k + 1, 0] - tr.qd[k, 0])
    assert abs(np.diff(tz)[0] - T_exact) < 1e-6 * T_exact  # output-grid interpolation
    assert tr.relative_energy_error() < 1e-12
    # the multiplier: J^T λ = (2x, 2y) λ is the rod force, -T e with T the tension
    r = np.hypot(tr.q[:, 0], tr.q[:, 1])
    speed2 = tr.qd[:, 0] ** 2 + tr.qd[:, 1] ** 2
    tension = m * speed2 / ell - m * G * tr.q[:, 1] / r  # m v²/l + m g cos θ
    assert np.max(np.abs(-2 * ell * tr.lambda_mult[:, 0] - tension)) < 1e-9
    assert tr.info["compact_mode"] is False


def test_simulate_system_chain_uses_compact_mode_and_matches_the_model():
    """Four particles on links (8 coordinates): compact mode by default, the same motion as
    the model API."""
    n = 4
    names = [c + str(i) for i in range(n) for c in ("x", "y")]
    q = list(hy.make_vars(*names))
    qd = list(hy.make_vars(*["v" + s for s in names]))
    ms = [1.0, 0.5, 0.8, 0.3]
    lag = hy.sum([0.5 * ms[i] * (qd[2 * i] ** 2 + qd[2 * i + 1] ** 2) - ms[i] * G * q[2 * i + 1]
                  for i in range(n)])
    F = [q[0] ** 2 + q[1] ** 2 - 0.25]
    F += [(q[2 * i] - q[2 * i - 2]) ** 2 + (q[2 * i + 1] - q[2 * i - 1]) ** 2 - 0.25
          for i in range(1, n)]
    q0 = []
    for i in range(n):
        q0 += [0.5 * (i + 1), 0.0]
    tr = qv.simulate_system(lag, F, q, qd, 0.5, q0 + [0.0] * (2 * n), n_points=6)
    assert tr.info["compact_mode"] is True
    model = qv.BarJointModel()
    for i in range(n):
        model.add_particle(0.5 * (i + 1), 0.0, ms[i])
    model.add_distance(None, (0.0, 0.0), 0, 0.0)
    for i in range(1, n):
        model.add_distance(i - 1, 0.0, i, 0.0)
    ref = model.simulate(0.5, n_points=6)
    assert np.max(np.abs(tr.q - ref.q)) < 1e-10
    # tension = -2 l λ for rows |d|² - l² (the model's rows are scaled to give T directly)
    assert np.max(np.abs(-2 * 0.5 * tr.lambda_mult - ref.lambda_mult)) < 1e-8


def test_simulate_system_bad_inputs():
    x, y, u, v = hy.make_vars("x", "y", "u", "v")
    lag = (u * u + v * v) / 2 - G * y
    args = (lag, [x * x + y * y - 1.0], [x, y], [u, v])
    with pytest.raises(ValueError, match="expected 4 values"):
        qv.simulate_system(*args, 1.0, [1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="initial positions violate"):
        qv.simulate_system(*args, 1.0, [2.0, 0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="t_end must be after"):
        qv.simulate_system(*args, 0.0, [1.0, 0.0, 0.0, 0.0])
    with pytest.raises(TypeError, match="n_points"):
        qv.simulate_system(*args, 1.0, [1.0, 0.0, 0.0, 0.0], n_points=2.5)
    with pytest.raises(ValueError, match="runtime parameters"):
        qv.simulate_system(lag * hy.par[0], *args[1:], 1.0, [1.0, 0.0, 0.0, 0.0])


def test_a_torque_on_a_particle_is_refused_not_dropped():
    import heyoka as hy

    m = qv.BarJointModel()
    p = m.add_particle(1.0, 0.0, 1.0)
    m.add_distance(None, (0.0, 0.0), p, 0.0)
    m.add_torque_actuator(p, 2.0 * hy.sin(hy.time), name="motor")
    with pytest.raises(ValueError, match="no angle"):
        m.simulate(0.1)
    m.remove_load("motor")
    tr = m.simulate(0.1, n_points=3)  # without it the particle swings on its link
    assert tr.n_points == 3 and abs(tr.q[-1, 0] ** 2 + tr.q[-1, 1] ** 2 - 1.0) < 1e-12


def test_a_parameter_used_by_a_joint_motor_cannot_be_removed():
    """The motor's law needs the parameter: removing it first is refused, the model unchanged
    (it would no longer load from its own file)."""
    from quivira.examples import chain

    m = chain(2)
    w = m.add_parameter("w", 2.0)
    m.add_joint_motor(0, 0.3 * hy.sin(w * hy.time), name="motor")
    before = m.to_dict()
    with pytest.raises(ValueError, match="'w' is used by \\['motor'\\]"):
        m.remove_load("w")
    assert m.to_dict() == before
    assert qv.BarJointModel.from_dict(before).to_dict() == before
    m.remove_constraint("motor")
    m.remove_load("w")
    m.add_parameter("w", 1.0)          # the name is free again: it was really removed

"""Sensitivities, uncertainty propagation and optimisation, against oracles:
high-order central finite differences of ``model.simulate``, the elliptic-integral period of
a pendulum, closed-form event times of a falling bar (SymPy derivatives), Monte Carlo
sampling of re-simulations, and an optimisation problem with an analytic optimum."""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

import quivira as qv
from quivira.sensitivity import Normal, Uniform, optimize, variable_names

G = 9.81
K_SPRING = 3.0
TH_START = -0.9  # bar angle at release (rad)


def pendulum() -> qv.BarJointModel:
    """A unit bar pinned at its left end, with a torsional spring to the ground; released
    from rest at TH_START (both ends: the pin at the origin)."""
    m = qv.BarJointModel()
    L = 1.0
    m.add_bar_at_attitude(0.5 * L * math.cos(TH_START), 0.5 * L * math.sin(TH_START),
                          TH_START, L, 1.0)
    m.add_support(0, -0.5, dof_in_x=False, dof_in_y=False, x=0.0, y=0.0)
    m.add_torsional_spring(None, 0, k=K_SPRING, preload=0.4)
    return m


def set_point(m: qv.BarJointModel, g=G, mass=1.0, k=K_SPRING, L=1.0, th=TH_START) -> None:
    """The pendulum at other data, with a consistent initial pose (closed form: the centre
    at L/2 from the pin along the bar)."""
    m.set_g(g)
    m.set_bar_mass(0, mass)
    m.set("torsion0", k=k)
    m.set_bar_length(0, L)
    m.set_init_bar_attitude(0, 0.5 * L * math.cos(th), 0.5 * L * math.sin(th), th)


NOMINAL = {"g": G, "mass": 1.0, "k": K_SPRING, "L": 1.0, "th": TH_START}
WRT = ["g", "bar0.mass", "torsion0.k", "bar0.length", "bar0.theta"]
KEYS = ["g", "mass", "k", "L", "th"]
T_END = 0.8


@pytest.fixture(scope="module")
def pend_sens():
    m = pendulum()
    rev = m.revision
    s = m.sensitivities(T_END, WRT, order=2, outputs=["state", "energy", "lambda"],
                        n_points=5)
    assert m.revision == rev  # the model is not changed
    return m, s


def _outputs(m: qv.BarJointModel, **kw) -> np.ndarray:
    """Final state, energies and multipliers of a re-simulation at other data."""
    point = dict(NOMINAL, **kw)
    set_point(m, **point)
    try:
        tr = m.simulate(T_END, n_points=5)
        T, V = tr.kinetic_energy[-1], tr.potential_energy[-1]
        return np.concatenate([tr.q[-1], tr.qd[-1], [T, V], tr.lambda_mult[-1]])
    finally:
        set_point(m, **NOMINAL)


def _jets_final(s) -> np.ndarray:
    st = s.array("state").values[-1]
    en = s.array("energy").values[-1][:2]
    la = s.array("lambda").values[-1]
    return np.concatenate([st, en, la])  # (n_out, n_mindex)


def test_first_and_second_derivatives_match_finite_differences(pend_sens):
    m, s = pend_sens
    jets = _jets_final(s)
    nominal = _outputs(m)
    np.testing.assert_allclose(jets[:, 0], nominal, rtol=1e-12, atol=1e-12)
    assert s.info["dependent_coordinates"] == ["x0", "y0"]
    for j, key in enumerate(KEYS):
        h = 2e-3 * max(abs(NOMINAL[key]), 1.0)
        f = {d: _outputs(m, **{key: NOMINAL[key] + d * h}) for d in (-2, -1, 1, 2)}
        # fourth-order central differences: first and second derivative
        d1 = (-f[2] + 8 * f[1] - 8 * f[-1] + f[-2]) / (12 * h)
        d2 = (-f[2] + 16 * f[1] - 30 * nominal + 16 * f[-1] - f[-2]) / (12 * h * h)
        alpha1 = [0] * len(WRT)
        alpha1[j] = 1
        alpha2 = [0] * len(WRT)
        alpha2[j] = 2
        v1 = jets[:, s.mindex.index(tuple(alpha1))]
        v2 = jets[:, s.mindex.index(tuple(alpha2))]
        scale1 = np.max(np.abs(v1))
        scale2 = np.max(np.abs(v2))
        assert scale1 > 1e-3 and scale2 > 1e-3, key
        np.testing.assert_allclose(v1, d1, rtol=0, atol=1e-7 * scale1, err_msg=key)
        np.testing.assert_allclose(v2, d2, rtol=0, atol=1e-7 * scale2, err_msg=key)


def test_mixed_second_derivative_and_taylor_map(pend_sens):
    m, s = pend_sens
    # fourth-order stencil for the mixed derivative: the product of two first-derivative
    # stencils (c_{±1} = ±8/12, c_{±2} = ∓1/12)
    h, k = 2e-2, 2e-3
    c = {-2: 1 / 12, -1: -8 / 12, 1: 8 / 12, 2: -1 / 12}
    mixed = sum(c[a] * c[b] * _outputs(m, g=G + a * h, th=TH_START + b * k)
                for a in c for b in c) / (h * k)
    jets = _jets_final(s)
    v = jets[:, s.mindex.index((1, 0, 0, 0, 1))]
    np.testing.assert_allclose(v, mixed, rtol=0, atol=1e-7 * np.max(np.abs(v)))
    assert np.array_equal(s.derivative("state", "th0", ["g", "bar0.theta"]),
                          s.array("state").sel(output="th0").values[
                              :, s.mindex.index((1, 0, 0, 0, 1))])
    # the map of order 2 predicts a re-simulation with an O(δ³) error: halving every
    # offset divides the error by 8 (and the first-order map's by 4)
    d = {"g": 0.05, "mass": 0.02, "k": -0.03, "L": 0.01, "th": 0.004}
    errs = []
    for scale in (1.0, 0.5):
        dd = {k: scale * v for k, v in d.items()}
        pred = s.taylor_map({w: NOMINAL[k] + dd[k] for w, k in zip(WRT, KEYS)})
        exact = _outputs(m, **{k: NOMINAL[k] + dd[k] for k in KEYS})
        lin = s.array("state").values[-1, :, :6] @ np.array([1.0, *[dd[k] for k in KEYS]])
        errs.append((np.max(np.abs(pred["state"][-1] - exact[:6])),
                     np.max(np.abs(lin - exact[:6]))))
    (e2, e1), (e2h, e1h) = errs
    assert e2 < e1 / 10
    assert 6.5 < e2 / e2h < 9.5
    assert 3.2 < e1 / e1h < 4.8


def test_pendulum_period_derivative_against_elliptic_integral():
    L = 1.0
    phi = sp.Symbol("phi")
    omega0 = math.sqrt(3 * G / (2 * L))  # bar pinned at an end: m g (L/2) / (m L²/3)
    quarter = sp.elliptic_k(sp.sin(phi / 2) ** 2) / omega0  # T/4 of amplitude phi
    for phi0 in (0.4, 1.2):
        th = -math.pi / 2 + phi0
        m = qv.BarJointModel()
        m.add_bar_at_attitude(0.5 * L * math.cos(th), 0.5 * L * math.sin(th), th, L, 1.0)
        m.add_support(0, -0.5, dof_in_x=False, dof_in_y=False, x=0.0, y=0.0)
        x0, _, _ = m.coordinates(0)
        m.add_event(x0, "vertical", direction="down", terminal=True)
        s = m.sensitivities(2.0, ["th0"], order=2, n_points=3)
        assert s.events and s.events[0]["name"] == "vertical"
        t1 = float(sp.diff(quarter, phi).subs(phi, phi0).evalf(30))
        t2 = float(sp.diff(quarter, phi, 2).subs(phi, phi0).evalf(30))
        assert s.events[0]["t"] == pytest.approx(float(quarter.subs(phi, phi0).evalf(30)),
                                                 rel=1e-12)
        assert s.derivative("event_time", "vertical", "th0") == pytest.approx(t1, rel=1e-9)
        assert s.derivative("event_time", "vertical", ["th0", "th0"]) == pytest.approx(
            t2, rel=1e-8)


def falling_bar(y0: float = 2.0) -> qv.BarJointModel:
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, y0, 0.0, 1.0, 1.0)
    _, y, _ = m.coordinates(0)
    m.add_event(y, "floor", direction="down", terminal=True)
    return m


def test_event_time_of_a_falling_bar_against_closed_form():
    g, h, v = sp.symbols("g h v")
    t_star = (v + sp.sqrt(v * v + 2 * g * h)) / g  # h + v t - g t²/2 = 0
    at = {g: G, h: 2.0, v: 0.7}
    m = falling_bar()
    m.set_init_bar_velocities(0, 0.0, 0.7, 0.0)
    s = m.sensitivities(3.0, ["g", "y0", "vy0"], order=2, n_points=4)
    syms = [g, h, v]
    assert s.events[0]["t"] == pytest.approx(float(t_star.subs(at)), rel=1e-13)
    for i, a in enumerate(syms):
        exact = float(sp.diff(t_star, a).subs(at))
        assert s.derivative("event_time", "floor", s.wrt[i]) == pytest.approx(exact, rel=1e-10)
        for j, b in enumerate(syms[i:], start=i):
            exact2 = float(sp.diff(t_star, a, b).subs(at))
            got = s.derivative("event_time", "floor", [s.wrt[i], s.wrt[j]])
            assert got == pytest.approx(exact2, rel=1e-9, abs=1e-12)
    # the integration ended at the event
    assert s.t[-1] <= s.events[0]["t"]


@pytest.mark.slow
def test_propagated_mean_and_covariance_against_monte_carlo():
    m = pendulum()
    dist = {"g": Normal(0.3), "torsion0.k": Uniform(2.4, 3.6),
            "bar0.mass": Normal(0.08)}
    s = m.sensitivities(T_END, list(dist), order=2, outputs=["state"], n_points=3)
    p = s.propagate(dist, outputs=["th0", "om0"])
    assert p.within  # the spreads lie inside the validity radius
    rng = np.random.default_rng(7)
    N = 1200
    samples = np.column_stack([G + 0.3 * rng.standard_normal(N),
                               rng.uniform(2.4, 3.6, N), 1.0 + 0.08 * rng.standard_normal(N)])
    out = np.empty((N, 2))
    try:
        for i, (g, k, mass) in enumerate(samples):
            m.set_g(g)
            m.set("torsion0", k=k)
            m.set_bar_mass(0, mass)
            tr = m.simulate(T_END, n_points=2)
            out[i] = tr.q[-1, 2], tr.qd[-1, 2]
    finally:
        set_point(m)
    mc_mean, mc_cov = out.mean(axis=0), np.cov(out.T)
    se_mean = np.sqrt(np.diag(mc_cov) / N)
    assert np.all(np.abs(p.mean[-1] - mc_mean) < 4 * se_mean)
    # the order-2 mean correction, resolved with a control variate: y - ∇y·δ has the same
    # mean (E[δ] = 0) and a much smaller variance; the nominal value is many errors off
    jets = s.array("state").sel(output=["th0", "om0"]).values[-1]
    delta = samples - np.array([G, K_SPRING, 1.0])
    cv = out - delta @ jets[:, 1:4].T
    cv_mean, se_cv = cv.mean(axis=0), cv.std(axis=0, ddof=1) / math.sqrt(N)
    assert np.all(np.abs(p.mean[-1] - cv_mean) < 4 * se_cv)
    assert np.min(np.abs(jets[:, 0] - cv_mean) / se_cv) > 5
    # variances within their statistical error (relative sd sqrt(2/N) for near-normal data)
    rel = np.abs(np.diag(p.cov[-1]) / np.diag(mc_cov) - 1)
    assert np.all(rel < 4 * math.sqrt(2 / N))
    corr_q = p.cov[-1, 0, 1] / math.sqrt(p.cov[-1, 0, 0] * p.cov[-1, 1, 1])
    corr_mc = mc_cov[0, 1] / math.sqrt(mc_cov[0, 0] * mc_cov[1, 1])
    assert abs(corr_q - corr_mc) < 4 * (1 - corr_mc ** 2) / math.sqrt(N)
    # Taylor-map evaluation of the same samples agrees with the re-simulations
    pred = s.taylor_map(samples[:50], kind="state")
    err = np.abs(pred[-1, 2, :] - out[:50, 0])
    assert np.max(err) < 0.05 * np.std(out[:, 0]) and np.median(err) < 0.005 * np.std(out[:, 0])


def test_optimizer_reaches_the_analytic_optimum():
    # the initial vertical speed that makes a bar dropped from 2 m land at t = 0.5 s:
    # 2 + v t - g t²/2 = 0  =>  v = (g t²/2 - 2)/t
    m = falling_bar()
    target = 0.5
    res = optimize(m, lambda view: (view.event_time("floor") - target) ** 2, ["vy0"],
                   bounds=[(-10.0, 10.0)], t_end=3.0, n_points=3,
                   options={"ftol": 1e-30, "gtol": 1e-14})
    v_exact = (G * target ** 2 / 2 - 2.0) / target
    assert res.values["vy0"] == pytest.approx(v_exact, rel=1e-8)
    assert res.fun < 1e-16
    # two variables with an interior optimum: a bar's final height over (y0, vy0) at fixed
    # time, min (y(T) - 1)^2 + (vy0 - 0.5)^2  =>  vy0 = 0.5, y0 = 1 - 0.5 T + g T²/2
    m2 = qv.BarJointModel()
    m2.add_bar_at_attitude(0.0, 2.0, 0.0, 1.0, 1.0)
    T = 0.6
    res2 = optimize(m2, lambda v: (v.final("y0") - 1.0) ** 2 + (v.at("state", "vy0", 0) - 0.5)
                    ** 2, ["y0", "vy0"], t_end=T, n_points=3,
                    options={"ftol": 1e-30, "gtol": 1e-12})
    assert res2.values["vy0"] == pytest.approx(0.5, abs=1e-7)
    assert res2.values["y0"] == pytest.approx(1.0 - 0.5 * T + G * T * T / 2, abs=1e-7)


def test_bad_inputs_raise_clear_errors_and_leave_the_model_unchanged():
    m = pendulum()
    rev = m.revision
    with pytest.raises(ValueError, match=r"unknown name 'bar7.mass'.*valid names:.*'g'"):
        m.sensitivities(1.0, ["bar7.mass"])
    with pytest.raises(ValueError, match="order must be an integer >= 1"):
        m.sensitivities(1.0, ["g"], order=0)
    with pytest.raises(TypeError, match="order"):
        m.sensitivities(1.0, ["g"], order=1.5)
    with pytest.raises(ValueError, match="at least one name"):
        m.sensitivities(1.0, [])
    with pytest.raises(ValueError, match="named twice"):
        m.sensitivities(1.0, ["g", "g"])
    with pytest.raises(TypeError, match="names must be strings"):
        m.sensitivities(1.0, [3])
    with pytest.raises(ValueError, match="unknown output 'forces'"):
        m.sensitivities(1.0, ["g"], outputs=["forces"])
    with pytest.raises(ValueError, match="t_end must be positive"):
        m.sensitivities(-1.0, ["g"])
    with pytest.raises(ValueError, match="cannot all be varied independently"):
        m.sensitivities(1.0, ["x0", "y0", "th0"])  # the pin fixes a combination of them
    with pytest.raises(ValueError, match="at: expected 1 values"):
        m.sensitivities(1.0, ["g"], at=[1.0, 2.0])
    s = m.sensitivities(0.2, ["g"], order=1, n_points=3)
    with pytest.raises(ValueError, match="order >= 2"):
        s.validity_radius()
    with pytest.raises(TypeError, match="Normal"):
        s.propagate({"g": 0.1})
    with pytest.raises(ValueError, match="not among wrt"):
        s.propagate({"bar0.mass": Normal(0.1)})
    with pytest.raises(ValueError, match="sd must be positive"):
        s.propagate({"g": Normal(-0.1)})
    with pytest.raises(ValueError, match="expected 1 values"):
        s.taylor_map([1.0, 2.0])
    with pytest.raises(TypeError, match="objective must be a function"):
        optimize(m, 3.0, ["g"], t_end=0.2)
    with pytest.raises(TypeError, match="must return a Dual"):
        optimize(m, lambda v: 1.0, ["g"], t_end=0.2, n_points=3)
    assert m.revision == rev
    assert "torsion0.k" in variable_names(m) and "bar0.omega" in variable_names(m)


def test_state_and_multiplier_labels_and_energy_conservation(pend_sens):
    _, s = pend_sens
    arr = s.array("state")
    assert list(arr.dims) == ["t", "output", "derivative"]
    assert arr.sizes["derivative"] == 1 + 5 + 15
    assert list(s.array("lambda").output.values) == ["support0.x", "support0.y"]
    # the total energy is conserved for every value of the data: all its derivatives are
    # constant in time (the initial ones change with g, m, k, L, θ0)
    tot = s.array("energy").sel(output="total").values
    np.testing.assert_allclose(tot - tot[0], 0.0, atol=1e-11 * np.max(np.abs(tot)))


def test_evaluation_at_other_values_projects_the_initial_state(pend_sens):
    # `at=` moves the dependent coordinates (x0, y0) back onto the pin: the motion is the
    # re-simulation from the closed-form pose at the new length and angle
    m, _ = pend_sens
    point = {"g": 9.5, "bar0.length": 1.1, "bar0.theta": TH_START + 0.05}
    s = m.sensitivities(T_END, WRT, order=2, outputs=["state"], n_points=5, at=point)
    exact = _outputs(m, g=9.5, L=1.1, th=TH_START + 0.05)
    np.testing.assert_allclose(s.array("state").values[-1, :, 0], exact[:6], rtol=0,
                               atol=1e-11)
    assert s.point[WRT.index("bar0.length")] == 1.1
    assert m.bars[0].length == 1.0  # the model is unchanged


def test_models_with_a_distance_link_between_bars():
    """A distance link's points follow the bar length (s L): sensitivities of such a model
    (it used to fail reading the link's data) against central differences of simulate."""
    def build(g=9.81, length=1.0):
        m = qv.BarJointModel()
        m.set_g(g)
        m.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
        m.add_bar_at_attitude(1.0 + 0.5 * length, 0.0, 0.0, length, 1.0)
        m.add_support(0, -0.5, False, False)
        m.add_joint([0, 1], [0.5, -0.5])
        m.add_distance(None, (2.0, 1.0), 1, 0.5, 1.0, name="link")  # holds bar 1's free end
        return m

    t_end = 0.4
    s = build().sensitivities(t_end, wrt=["g", "bar1.length"], order=1)
    jet = s.array("state").values[-1]                   # (2n, monomials) at t_end
    for j, key in enumerate(("g", "length")):
        h = 1e-4 * (9.81 if key == "g" else 1.0)
        plus = build(**{key: (9.81 if key == "g" else 1.0) + h})
        minus = build(**{key: (9.81 if key == "g" else 1.0) - h})
        for mdl in (plus, minus):   # a longer bar 1 starts off the link's circle: assemble
            mdl.assemble()
        fp, fm = (np.concatenate([t.q[-1], t.qd[-1]]) for t in
                  (plus.simulate(t_end, n_points=3), minus.simulate(t_end, n_points=3)))
        fd = (fp - fm) / (2 * h)
        alpha = [0, 0]
        alpha[j] = 1
        got = jet[:, s.mindex.index(tuple(alpha))]
        assert np.max(np.abs(got)) > 1e-3, key
        np.testing.assert_allclose(got, fd, rtol=0, atol=1e-6 * np.max(np.abs(got)), err_msg=key)


def _fd_state(build, key, nominal, h, t_end):
    """Central differences of the final state of ``build(**{key: ·})``'s simulation."""
    fp, fm = (build(**{key: nominal + d}).simulate(t_end, n_points=3) for d in (h, -h))
    return (np.concatenate([fp.q[-1], fp.qd[-1]]) - np.concatenate([fm.q[-1], fm.qd[-1]])) \
        / (2 * h)


@pytest.mark.parametrize("kind", ["particle", "disc"])
def test_particles_and_rigid_bodies(kind):
    """A point mass on a massless link, and a disc pinned at its rim: derivatives with respect
    to the body's mass, its inertia and g against central differences of simulate; for the
    point mass, the motion does not depend on the mass at all (an exact zero)."""
    L, th0 = 0.8, 0.6

    def build(g=9.81, mass=1.5, inertia=0.2):
        m = qv.BarJointModel()
        m.set_g(g)
        x, y = L * math.sin(th0), -L * math.cos(th0)
        if kind == "particle":
            b = m.add_particle(x, y, mass)
            m.add_distance(None, (0.0, 0.0), b, 0.0, L, name="link")
        else:
            b = m.add_body(x, y, 0.0, mass, inertia, points={"rim": (-x, -y)})
            m.add_pin(None, (0.0, 0.0), b, "rim")
        return m

    names = {"particle": ["g", "particle0.mass"],
             "disc": ["g", "body0.mass", "body0.inertia"]}[kind]
    keys = {"g": ("g", 9.81), "particle0.mass": ("mass", 1.5),
            "body0.mass": ("mass", 1.5), "body0.inertia": ("inertia", 0.2)}
    t_end = 0.7
    s = build().sensitivities(t_end, wrt=names, order=1)
    jet = s.array("state").values[-1]
    n = 2 if kind == "particle" else 3
    assert jet.shape[0] == 2 * n
    for j, nm in enumerate(names):
        key, nominal = keys[nm]
        alpha = [0] * len(names)
        alpha[j] = 1
        got = jet[:, s.mindex.index(tuple(alpha))]
        fd = _fd_state(build, key, nominal, 1e-5 * nominal, t_end)
        if kind == "particle" and key == "mass":
            np.testing.assert_allclose(got, 0.0, atol=1e-10)   # Galileo: mass-independent
            continue
        assert np.max(np.abs(got)) > 1e-3, nm
        np.testing.assert_allclose(got, fd, rtol=0, atol=1e-6 * np.max(np.abs(got)),
                                   err_msg=nm)

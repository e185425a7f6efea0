"""Sweeps and ensembles: ``quivira.sweep`` against independent computations.

* Every variant of a sweep equals ``model.simulate`` of the same variant (a model built and
  edited by hand, run through the scalar simulator), to integration tolerance: a four-bar with
  swept link masses and crank angle (the oracle model is assembled in closed form by
  ``four_bar(crank_angle=...)``), and a damped scissor lattice with hinge springs (energy
  ledger states).
* A closed form: a bar pinned at its centre on a torsional spring, θ(t) = θ0 cos(ωt) with
  ω² = 12 k / (m L²), for swept k, m and θ0.
* Grouping by topology, failure isolation (diverged, singular and ok variants side by side),
  a real Dask ``LocalCluster`` (2 worker processes) equal to the threaded run bitwise,
  Ctrl-C returning what finished, results as xarray / pandas, and bad inputs.
"""

from __future__ import annotations

import concurrent.futures as cf
import math

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira.examples import chain, four_bar, scissor
from quivira.sweeps import batch as sweep_batch
from quivira.sweeps import distributed as sweep_distributed

RNG = np.random.default_rng(16)


def _close_to_simulate(res, i, traj, atol_q=1e-9):
    n = traj.q.shape[1]
    assert res.status[i] == "ok", res.message[i]
    np.testing.assert_allclose(res.q[i, :, :n], traj.q, rtol=0, atol=atol_q)
    np.testing.assert_allclose(res.qd[i, :, :n], traj.qd, rtol=0, atol=50 * atol_q)
    np.testing.assert_allclose(res.final_state[i, :n], traj.q[-1], rtol=0, atol=atol_q)
    lam = np.max(np.abs(traj.lambda_mult), axis=0)
    cols = [res.constraint_labels.index(lab) for lab in traj.constraint_labels]
    np.testing.assert_allclose(res.max_abs_lambda[i, cols], lam, rtol=1e-7)
    assert res.energy_error[i] < 1e-12 and traj.relative_energy_error() < 1e-12


def test_four_bar_sweep_equals_simulate_of_each_variant():
    n_var = 6
    values = {"bar0.mass": RNG.uniform(0.5, 2.0, n_var), "bar1.mass": RNG.uniform(2.0, 4.0, n_var),
              "bar2.mass": RNG.uniform(2.0, 3.0, n_var),
              "bar0.theta": RNG.uniform(-3.0, 3.0, n_var)}
    model = four_bar()
    before = model.to_dict()
    res = qv.sweep(model, values, 2.0, n_points=41, progress=False)
    assert model.to_dict() == before  # the model is not changed
    assert res.attrs["fallback"] == "none" and all(s is None for s in res.scalar)
    for i in range(n_var):
        oracle = four_bar(crank_angle=float(values["bar0.theta"][i]))
        for b in range(3):
            oracle.set_bar_mass(b, float(values[f"bar{b}.mass"][i]))
        # the sweep's held-angle assembly equals the closed-form assembly of four_bar()
        np.testing.assert_allclose(res.q[i, 0], oracle.get_initial_state()[:9], atol=1e-13)
        traj = oracle.simulate(2.0, n_points=41, purpose="long")
        _close_to_simulate(res, i, traj)


def _sprung_scissor(k: float, c: float):
    model = scissor(2)
    names = []
    for cell in range(2):
        names.append(model.add_torsional_spring(2 * cell, 2 * cell + 1, k, c=c,
                                                name=f"pivot {cell}"))
    names.append(model.add_torsional_spring(1, 2, k, c=c, name="corner 1"))
    return model, names


@pytest.mark.slow
def test_spring_model_sweep_equals_simulate_with_ledger():
    model, names = _sprung_scissor(30.0, 0.2)
    ks, cs_ = [20.0, 30.0, 45.0], [0.0, 0.2, 0.5]
    values = qv.grid({"pivot 0.k": ks, "corner 1.c": cs_})
    res = qv.sweep(model, values, 1.5, n_points=31, progress=False)
    assert len(res) == 9 and list(res.values["pivot 0.k"][:3]) == [20.0] * 3
    for i in range(len(res)):
        oracle, _ = _sprung_scissor(30.0, 0.2)
        oracle.set_spring("pivot 0", k=float(res.values["pivot 0.k"][i]))
        oracle.set_spring("corner 1", c=float(res.values["corner 1.c"][i]))
        traj = oracle.simulate(1.5, n_points=31, purpose="long")
        assert traj.nonconservative and res.status[i] == "ok"
        _close_to_simulate(res, i, traj, atol_q=1e-8)
    # damping changes the motion: the grid's variants differ
    assert np.max(np.abs(res.final_state[0] - res.final_state[2])) > 1e-3


def test_torsional_spring_closed_form():
    length = 1.2
    model = qv.BarJointModel()
    model.add_bar_at_attitude(0.0, 0.0, 0.3, length, 1.0)
    model.add_support(0, 0.0, False, False)          # pinned at its centre
    model.add_torsional_spring(None, 0, 10.0, phi0=0.0, name="spring")
    values = {"spring.k": [5.0, 10.0, 40.0, 7.5], "bar0.mass": [1.0, 2.0, 0.5, 3.0],
              "bar0.theta": [0.3, -0.2, 0.5, 1.0]}
    res = qv.sweep(model, values, 3.0, n_points=61, progress=False)
    for i in range(4):
        k, m, th0 = (values[key][i] for key in ("spring.k", "bar0.mass", "bar0.theta"))
        omega = math.sqrt(12.0 * k / (m * length ** 2))
        np.testing.assert_allclose(res.q[i, :, 2], th0 * np.cos(omega * res.t), atol=1e-12)
        np.testing.assert_allclose(res.qd[i, :, 2], -th0 * omega * np.sin(omega * res.t),
                                   atol=1e-11)
        assert res.energy_error[i] < 1e-12  # the default tolerance of a small model: 1e-12


def test_grouping_by_topology_compiles_once_per_topology():
    models = [four_bar(), chain(2), four_bar(crank=1.1, crank_angle=1.2), chain(2, mass=2.0),
              four_bar(ground=3.2)]
    before = dict(sweep_batch.COMPILE_COUNT)
    res = qv.sweep(four_bar(), {"model": models, "g": [9.81, 9.81, 5.0, 1.62, 9.81]}, 1.0,
                   n_points=21, progress=False, tol=1e-14)
    new = {k: v - before.get(k, 0) for k, v in sweep_batch.COMPILE_COUNT.items()
           if v != before.get(k, 0)}
    assert res.attrs["n_topologies"] == 2 and len(new) == 2 and set(new.values()) == {1}
    assert list(res.values["model"]) == [0, 1, 2, 3, 4]
    for i, m in enumerate(models):
        m.set_g(float(res.values["g"][i]))
        traj = m.simulate(1.0, n_points=21, tol=1e-14, purpose="long")
        _close_to_simulate(res, i, traj)
        n = traj.q.shape[1]
        assert np.all(np.isnan(res.q[i, :, n:]))  # padded to the largest model
    assert res.q.shape[2] == 9 and len(res.constraint_labels) >= 6


def _pushed_bar(pinned: bool):
    """A bar driven by exp(rate·t): a free bar pushed along x (the work of the push, an
    integrated state ∝ exp(2 rate t), overflows to a non-finite state at t ≈ 355/rate), or a
    bar pinned at one end and spun by a torque (its steps shrink as 1/ω)."""
    model = qv.BarJointModel()
    model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 1.0)
    model.set_g(0.0)
    rate = model.add_parameter("rate", 1.0)
    if pinned:
        model.add_support(0, -0.5, False, False)
        model.add_torque_actuator(0, hy.exp(rate * hy.time))
    else:
        model.add_force_actuator(0, 0.0, hy.exp(rate * hy.time), 0.0)
    return model


def test_failure_isolation_diverged_and_ok():
    model = _pushed_bar(pinned=False)
    res = qv.sweep(model, {"rate": [1.0, 100.0, 2.0]}, 10.0, n_points=11, progress=False)
    assert list(res.status) == ["ok", "diverged", "ok"], res.message
    assert 2.0 < res.t_status[1] < 7.2 and "non-finite" in res.message[1]
    assert res.scalar[1] == "non-finite state" and res.scalar[0] is None
    before = res.t <= res.t_status[1]
    assert np.isfinite(res.q[1, before]).all() and np.isnan(res.q[1, ~before]).all()
    assert np.isnan(res.final_state[1]).all()
    with pytest.raises(qv.SingularConfigurationError) as exc:
        m = _pushed_bar(pinned=False)
        m.set_parameter("rate", 100.0)
        m.simulate(10.0, n_points=11, purpose="long")
    assert res.t_status[1] == exc.value.t
    # ok variants: the exact motion x(t) = x0 + (exp(r t) - 1 - r t) / (m r²)
    for i, r in ((0, 1.0), (2, 2.0)):
        x = 0.5 + (np.exp(r * res.t) - 1.0 - r * res.t) / (r * r)
        np.testing.assert_allclose(res.q[i, :, 0], x, rtol=1e-13)
        assert res.energy_error[i] < 1e-12


def test_failure_isolation_budget_and_ok():
    model = _pushed_bar(pinned=True)
    res = qv.sweep(model, {"rate": [0.5, 10.0]}, 3.0, n_points=11, progress=False,
                   max_steps=3000)
    assert list(res.status) == ["ok", "budget"]
    assert "max_steps = 3000" in res.message[1] and 0.5 < res.t_status[1] < 3.0
    # the spun bar: θ(t) = (exp(r t) - 1 - r t) / (r² I_end), I_end = m L² / 3
    theta = 3.0 * (np.exp(0.5 * res.t) - 1.0 - 0.5 * res.t) / 0.25
    np.testing.assert_allclose(res.q[0, :, 2], theta, rtol=1e-12, atol=1e-14)


def test_failure_isolation_singular_and_ok():
    model = scissor(2)
    res = qv.sweep(model, {"g": [9.81, 0.0, 3.0]}, 2.0, n_points=21, progress=False)
    assert list(res.status) == ["singular", "ok", "singular"]
    assert res.scalar[0] == "singular pose met"
    assert res.scalar[1] is None and res.scalar[2] == "singular pose met"
    traj = model.simulate(2.0, n_points=21, purpose="long")
    first = [e["t"] for e in traj.events if e["what"] == "singular pose"][0]
    assert res.t_status[0] == pytest.approx(first, abs=1e-12)
    # a lighter pull reaches the flat pose later: t ∝ 1/sqrt(g) for the same motion
    assert res.t_status[2] == pytest.approx(first * math.sqrt(9.81 / 3.0), rel=1e-6)
    np.testing.assert_allclose(res.q[1], np.repeat(res.q[1, :1], 21, axis=0), atol=1e-12)
    stop = qv.sweep(model, {"g": [9.81]}, 2.0, n_points=21, progress=False, singular="stop")
    assert stop.status[0] == "singular" and np.isnan(stop.final_state[0]).all()
    assert stop.t_status[0] == pytest.approx(first, abs=1e-9)


def test_results_do_not_depend_on_blocks_and_xarray_pandas():
    values = {"bar1.mass": np.linspace(2.0, 4.0, 7), "g": np.linspace(5.0, 12.0, 7)}
    a = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False, block_size=3, workers=2)
    b = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False, block_size=8, workers=1)
    assert np.array_equal(a.q, b.q) and np.array_equal(a.max_abs_lambda, b.max_abs_lambda)
    ds = a.to_xarray()
    assert dict(ds.sizes) == {"variant": 7, "time": 11, "coordinate": 9, "velocity": 9,
                              "constraint": 8}
    assert np.array_equal(ds["bar1.mass"].values, values["bar1.mass"])
    assert np.array_equal(ds["q"].sel(variant=3).values, a.q[3])
    df = a.to_pandas()
    assert list(df["g"]) == list(values["g"]) and (df["status"] == "ok").all()
    assert np.array_equal(df["final th0"].values, a.final_state[:, 2])
    assert np.array_equal(df[f"max|λ| {a.constraint_labels[0]}"].values,
                          a.max_abs_lambda[:, 0])


@pytest.mark.slow
def test_dask_local_cluster_equals_threads_bitwise():
    import distributed

    values = {"bar0.mass": np.linspace(0.8, 1.6, 6), "bar0.theta": np.linspace(0.6, 1.4, 6)}
    threaded = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False, block_size=4)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False,
                          block_size=4, executor=client.get_executor())
        workers = client.run(lambda: __import__("os").getpid())
    assert len(set(workers.values())) == 2 and remote.attrs["n_tasks"] == 2
    for name in ("q", "qd", "final_state", "max_abs_lambda", "energy_error"):
        assert np.array_equal(getattr(threaded, name), getattr(remote, name)), name
    assert list(remote.status) == ["ok"] * 6


class _InterruptAtSecondSubmit(cf.Executor):
    """A thread pool where Ctrl-C comes while the second task is submitted, once the first
    is done (a KeyboardInterrupt in the main thread, as Python raises it on SIGINT)."""

    def __init__(self):
        self.pool = cf.ThreadPoolExecutor(max_workers=1)
        self.futures = []

    def submit(self, fn, /, *args, **kwargs):
        if len(self.futures) == 1:
            self.futures[0].result()
            raise KeyboardInterrupt
        f = self.pool.submit(fn, *args, **kwargs)
        self.futures.append(f)
        return f

    def shutdown(self, wait=True, *, cancel_futures=False):
        self.pool.shutdown(wait=wait, cancel_futures=cancel_futures)


def test_ctrl_c_returns_what_finished():
    values = {"bar0.mass": np.linspace(0.8, 1.6, 24)}
    ex = _InterruptAtSecondSubmit()
    res = qv.sweep(four_bar(), values, 3.0, n_points=11, progress=False, block_size=4,
                   executor=ex)
    ex.shutdown()
    assert res.attrs["interrupted"]
    done = res.status == "ok"
    assert done.sum() == 4 and set(res.status[~done]) == {"cancelled"}
    assert np.all(np.isfinite(res.final_state[done])) and np.all(np.isnan(res.q[~done]))


def test_ctrl_c_in_threads_stops_running_blocks(monkeypatch):
    """Ctrl-C while the threads run: the blocks running stop between integrator steps, those
    not started are cancelled, what finished is returned."""
    class Bar:  # updated in the main thread when a block is done: Ctrl-C comes there
        def update(self, n=1):
            raise KeyboardInterrupt

        def close(self):
            pass

    monkeypatch.setattr(sweep_distributed, "progress_bar", lambda total, enabled: Bar())
    res = qv.sweep(four_bar(), {"bar0.mass": np.linspace(0.8, 1.6, 40)}, 20.0, n_points=11,
                   block_size=4, workers=2)
    assert res.attrs["interrupted"] and "cancelled" in set(res.status)
    assert (res.status == "ok").sum() >= 4


def test_progress_bar_is_tqdm():
    from tqdm.auto import tqdm

    bar = sweep_distributed.progress_bar(10, True)
    assert isinstance(bar, tqdm)
    bar.close()


def test_bad_inputs_name_what_to_fix_and_leave_the_model():
    model = four_bar()
    before = model.to_dict()
    with pytest.raises(ValueError, match=r"unknown key 'bar0.mas'.*did you mean 'bar0.mass'"
                       r".*valid keys.*bar2\.omega"):
        qv.sweep(model, {"bar0.mas": [1.0]}, 1.0, progress=False)
    with pytest.raises(ValueError, match="same number of values"):
        qv.sweep(model, {"bar0.mass": [1.0, 2.0], "g": [1.0]}, 1.0, progress=False)
    with pytest.raises(ValueError, match=r"values\[1\]: keys"):
        qv.sweep(model, [{"g": 1.0}, {"bar0.mass": 1.0}], 1.0, progress=False)
    with pytest.raises(TypeError, match="mapping"):
        qv.sweep(model, 3.0, 1.0, progress=False)
    with pytest.raises(ValueError, match="variant 1: bar 0: mass must be positive"):
        qv.sweep(model, {"bar0.mass": [1.0, -2.0]}, 1.0, progress=False)
    with pytest.raises(TypeError, match="'bar0.theta' of variant 0 must be a real number, got 'a'"):
        qv.sweep(model, {"bar0.theta": ["a"]}, 1.0, progress=False)
    with pytest.raises(ValueError, match="variant 0: the constraints cannot be met"):
        qv.sweep(model, {"bar1.length": [50.0]}, 1.0, progress=False)
    with pytest.raises(ValueError, match="outputs: unknown"):
        qv.sweep(model, {"g": [1.0]}, 1.0, outputs=["lambda"], progress=False)
    with pytest.raises(TypeError, match="executor"):
        qv.sweep(model, {"g": [1.0]}, 1.0, executor="dask", progress=False)
    with pytest.raises(ValueError, match="t_end"):
        qv.sweep(model, {"g": [1.0]}, -1.0, progress=False)
    with pytest.raises(TypeError, match="bar_joint_model"):
        qv.sweep(model, {"model": [model, "four_bar"]}, 1.0, progress=False)
    with pytest.raises(TypeError, match="model must be"):
        qv.sweep({"bars": []}, {"g": [1.0]}, 1.0, progress=False)
    with pytest.raises(ValueError, match="axis 'g' is empty"):
        qv.grid(g=[])
    with pytest.raises(ValueError, match="no variants"):
        qv.sweep(model, {"g": []}, 1.0, progress=False)
    assert model.to_dict() == before
    sprung, _ = _sprung_scissor(30.0, 0.0)
    with pytest.raises(ValueError, match="variant 1: pivot 0: k"):
        qv.sweep(sprung, {"pivot 0.k": [10.0, -1.0]}, 1.0, progress=False)
    with pytest.raises(ValueError, match="unknown key 'pivot 0.phi'"):
        qv.sweep(sprung, {"pivot 0.phi": [0.1]}, 1.0, progress=False)
    assert len(qv.grid({"bar0.mass": [1, 2]}, g=[1, 2, 3])) == 6


def test_a_bar_and_a_particle_in_free_fall():
    """A free bar and a free particle (3 + 2 coordinates): every variant falls as
    y = y0 - g t²/2, x and θ unchanged; the model is left as it was."""
    m = qv.BarJointModel()
    m.add_bar_at_attitude(0.0, 0.0, 0.3, 1.0, 1.0)
    m.add_particle(2.0, 0.5, 1.0)
    before = m.to_dict()
    res = qv.sweep(m, {"g": [1.0, 2.0]}, 0.4, n_points=5, progress=False)
    assert m.to_dict() == before and res.q.shape == (2, 5, 5)
    for i, g in enumerate((1.0, 2.0)):
        fall = 0.5 * g * res.t**2
        np.testing.assert_allclose(res.q[i, :, 1], 0.0 - fall, atol=1e-12)
        np.testing.assert_allclose(res.q[i, :, 4], 0.5 - fall, atol=1e-12)
        np.testing.assert_allclose(res.q[i, :, [0, 2, 3]], [[0.0] * 5, [0.3] * 5, [2.0] * 5],
                                   atol=1e-12)


def _disc_pendulum(kind="body", g=9.81, mass=1.5, inertia=0.2):
    """A disc pinned at a rim point (kind "body") or a point mass on a link ("particle")."""
    m = qv.BarJointModel()
    m.set_g(g)
    x, y = 0.8 * math.sin(0.6), -0.8 * math.cos(0.6)
    if kind == "body":
        b = m.add_body(x, y, 0.0, mass, inertia, points={"rim": (-x, -y)})
        m.add_pin(None, (0.0, 0.0), b, "rim")
    else:
        b = m.add_particle(x, y, mass)
        m.add_distance(None, (0.0, 0.0), b, 0.0, 0.8, name="link")
    return m


@pytest.mark.parametrize("kind", ["body", "particle"])
def test_rigid_bodies_and_particles_equal_simulate(kind):
    """Variants of models with a rigid body (its own inertia, named points) or a particle (2
    coordinates) give what model.simulate gives for each (the bodies used to be rebuilt as
    bars: a crash on named points, and the bar's inertia m L²/12 instead of I)."""
    values = {"g": [9.81, 5.0, 9.81], "bar0.mass": [1.5, 1.5, 3.0]}
    if kind == "body":
        values["bar0.inertia"] = [0.2, 0.2, 0.05]
    else:  # a consistent start (on the link's circle), swept as a whole
        values["bar0.x"] = [0.8 * math.sin(a) for a in (0.6, 0.3, 0.6)]
        values["bar0.y"] = [-0.8 * math.cos(a) for a in (0.6, 0.3, 0.6)]
    res = qv.sweep(_disc_pendulum(kind), values, 0.7, n_points=8, progress=False)
    n = 3 if kind == "body" else 2
    assert res.q.shape == (3, 8, n)
    for i in range(3):
        m = _disc_pendulum(kind, g=values["g"][i], mass=values["bar0.mass"][i],
                           **({"inertia": values["bar0.inertia"][i]} if kind == "body" else {}))
        if kind == "particle":
            m.set_initial_state([values["bar0.x"][i], values["bar0.y"][i], 0.0, 0.0])
        tr = m.simulate(0.7, n_points=8)
        assert res.status[i] == "ok"
        np.testing.assert_allclose(res.q[i], tr.q, rtol=0, atol=1e-9)
    assert np.max(np.abs(res.q[0] - res.q[1])) > 1e-3   # g changes the motion
    if kind == "particle":   # the mass does not (Galileo)
        np.testing.assert_allclose(res.q[2], res.q[0], rtol=0, atol=1e-12)
    else:                    # a disc's mass and inertia do
        assert np.max(np.abs(res.q[0] - res.q[2])) > 1e-3
    with pytest.raises(ValueError, match="unknown key 'bar0.length'"):
        qv.sweep(_disc_pendulum(kind), {"bar0.length": [1.0]}, 0.1, progress=False)
    if kind == "particle":
        with pytest.raises(ValueError, match="unknown key 'bar0.theta'"):
            qv.sweep(_disc_pendulum(kind), {"bar0.theta": [1.0]}, 0.1, progress=False)

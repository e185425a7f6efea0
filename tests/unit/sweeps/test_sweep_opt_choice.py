"""``quivira.sweep(purpose="auto")``: which batch code a sweep compiles.

* The probe's step rate agrees with the step count of ``model.simulate`` on the same variant
  (an independent integrator: the scalar one, at the same tolerance).
* The rule: a few variants take the quick-to-build code (``opt_level`` 0) and give the same
  numbers bit for bit as ``purpose="interactive"``; a workload large enough to pay for the
  opt_level-1 compile takes it and agrees with ``purpose="long"``.
"""

from __future__ import annotations

import numpy as np
import pytest

import quivira as qv
from quivira.examples import four_bar
from quivira.model.symbolic import topology_key
from quivira.sweeps import opt_choice
from quivira.sweeps.batch import Preparer, batch_size, context


def _probe_context(model, t_end: float):
    lanes = batch_size()
    settings = {"t_end": t_end, "n_points": 11, "tol": None, "purpose": "interactive",
                "singular": "pass", "singular_threshold": 1e-8, "max_steps": 10**6,
                "max_wall_s": 60.0, "outputs": ("energy_error",), "batch_size": lanes,
                "scalar": False, "heyoka_cache_dir": None, "tolerance": model.tolerance,
                "solver": model.solver}
    key = (topology_key(model._data), None, "interactive", model.solver, False, lanes, None)
    prep = Preparer(model.to_dict(), [], settings, key=key)
    prepared = prep.prepare([{}], [0])
    ctx = context(model.to_dict(), key, settings)
    pars = np.array([ctx.cs.parameters(prepared.base[0])])
    states = np.zeros((1, ctx.ta.dim))
    states[:, :prepared.state0.shape[1]] = prepared.state0
    return ctx, pars, states


def test_probe_step_rate_matches_the_scalar_integrator():
    model = four_bar()
    t_end = 0.5
    ctx, pars, states = _probe_context(model, t_end)
    rate = opt_choice.probe_step_rate(ctx, pars, states, t_end)
    # the scalar integrator at the same tolerance over the probe's span
    span = opt_choice.PROBE_STEPS / rate
    traj = model.simulate(span, n_points=3)
    assert traj.info["tol"] == ctx.cs.tol or ctx.cs.tol is None
    scalar_rate = traj.info["steps"] / span
    assert 0.7 < rate / scalar_rate < 1.4, (rate, scalar_rate)
    # the rule: one variant never pays for opt_level 1, a million do
    few = opt_choice.choose_opt_level(ctx, pars, states, 10.0, 1, 2)
    many = opt_choice.choose_opt_level(ctx, pars, states, 10.0, 10**6, 2)
    assert few.opt_level == 0 and many.opt_level == 1
    assert many.opt0_work_s == few.opt0_work_s * (10**6 / batch_size())
    assert "opt_level 1" in many.describe()


def test_auto_small_sweep_is_the_interactive_code_bitwise():
    values = {"bar1.mass": np.linspace(2.0, 4.0, 3)}
    auto = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False, workers=1)
    inter = qv.sweep(four_bar(), values, 1.0, n_points=11, progress=False, workers=1,
                     purpose="interactive")
    assert auto.attrs["opt_choice"].startswith("opt_level 0")
    for name in ("q", "qd", "max_abs_lambda", "energy_error"):
        assert np.array_equal(getattr(auto, name), getattr(inter, name)), name


@pytest.mark.slow
def test_auto_large_sweep_takes_the_code_quick_to_run():
    n = 4 * batch_size()
    values = {"bar0.mass": np.linspace(0.6, 1.8, n)}
    t_end = 90.0
    auto = qv.sweep(four_bar(), values, t_end, n_points=11, progress=False, workers=1,
                    outputs=["final_state", "energy_error"])
    assert auto.attrs["opt_choice"].startswith("opt_level 1"), auto.attrs["opt_choice"]
    long = qv.sweep(four_bar(), values, t_end, n_points=11, progress=False, workers=1,
                    purpose="long", outputs=["final_state", "energy_error"])
    assert list(auto.status) == ["ok"] * n
    np.testing.assert_allclose(auto.final_state, long.final_state, rtol=0, atol=1e-9)
    assert np.nanmax(auto.energy_error) < 1e-10


def test_bad_purpose_names_the_choices():
    import pytest

    for bad, exc in (("fast", ValueError), (3, TypeError)):
        with pytest.raises(exc, match="'auto', 'interactive' or 'long'"):
            qv.sweep(four_bar(), {"g": [9.81]}, 1.0, purpose=bad, progress=False)

"""Smoke test of the benchmark suite: ``python -m benchmarks.run --quick`` in a subprocess.

Not a timing test: it checks that every tool ran every case it should, and that the records
are complete and plausible (finite, non-negative times that add up, small energy errors and
residuals, the tools agreeing on the motion). The run's own plausibility check decides its exit
status; this test repeats the essentials on the JSON it writes (here into ``tmp_path``, so the
repository's ``benchmarks/results/quick.json`` is left alone), along with the markdown table
and the plot written beside it.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = {
    "chain-2": {"quivira", "sympy_scipy", "exudyn_h1e-3"},
    "chain-4": {"quivira", "sympy_scipy", "exudyn_h1e-3"},
    "chain-8": {"quivira", "exudyn_h1e-3"},
    "four_bar": {"quivira", "sympy_scipy", "exudyn_h1e-3"},
    "scissor-2": {"quivira", "sympy_scipy", "exudyn_h1e-3"},
}


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "quick.json"
    proc = subprocess.run([sys.executable, "-m", "benchmarks.run", "--quick", "--output", str(out)],
                          capture_output=True, text=True, cwd=str(ROOT), timeout=600)
    return proc, out


def _finite(x):
    return isinstance(x, (int, float)) and math.isfinite(x)


@pytest.mark.timeout(700)
def test_quick_run_exits_zero(quick_run):
    proc, out = quick_run
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert out.exists()
    assert out.with_suffix(".md").read_text().startswith("# Benchmark results")
    assert out.with_name("quick_scaling.png").stat().st_size > 1000


@pytest.mark.timeout(700)
def test_quick_records_complete_and_plausible(quick_run):
    _, out = quick_run
    doc = json.loads(out.read_text())
    assert doc["meta"]["quick"] is True
    assert doc["plausibility"] == {"ok": True, "problems": []}
    have = {}
    for r in doc["records"]:
        have.setdefault(r["case"], set()).add(r["tool"])
    assert have == EXPECTED
    for r in doc["records"]:
        what = f"{r['case']}/{r['tool']}"
        assert r["status"] == "ok", what
        assert r["n_coordinates"] == 3 * r["n_bars"], what
        for k in ("build_s", "compile_s", "integrate_s", "total_s"):
            assert _finite(r[k]) and r[k] >= 0, (what, k, r[k])
        parts = r["build_s"] + r["compile_s"] + r["integrate_s"]
        assert parts == pytest.approx(r["total_s"], rel=1e-6, abs=1e-6), what
        assert _finite(r["energy_error"]) and 0 <= r["energy_error"] < 1e-3, what
        assert _finite(r["residual"]) and 0 <= r["residual"] < 1e-6, what
        assert r["t_reached"] == pytest.approx(r["t_end"]), what
        if r["tool"] == "quivira":
            assert r["energy_error"] <= 1e-10, what
        else:
            assert _finite(r["time_ratio_quivira_over_peer"]), what
            assert _finite(r["energy_error_ratio_quivira_over_peer"]), what
            assert r["last_bar_deviation_from_quivira"] < 1e-3, what


def test_exudyn_a03_peer_converges_to_the_reference():
    """The Exudyn model of Andrews' mechanism (benchmark peer of IFToMM A03) is the oracle's
    mechanism: its body angles approach the independent 7-angle reference as h² (error 100x
    smaller for a 10x smaller step), to 1e-5 rad at h = 2e-6."""
    from quivira_oracles.peers import exudyn_a03, iftomm
    errors = {}
    for h in (2e-5, 2e-6):
        r = exudyn_a03.run(h=h, states=True)
        assert r["settings"]["max_output_time_offset"] <= 1e-12
        errors[h] = iftomm.reference_errors("a03", r["t"], r["q"], r["qd"])["reference_error"]
        # the torque's work goes into kinetic and spring energy
        assert iftomm.a03_energy_balance_error(r["q"], r["qd"]) < 1e3 * h
    assert errors[2e-6] < 1e-5
    assert 30.0 < errors[2e-5] / errors[2e-6] < 300.0

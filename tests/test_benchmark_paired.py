"""``benchmarks/paired.py``: the default call against the best swept setting, side by side.

Fake runners stand in for the fresh processes, so the choice of setting, the alternation and
the ratio of medians are checked against numbers worked out by hand.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import paired  # noqa: E402

ROWS = [  # the sweep: the 0.05 s row is too inaccurate, the 0.10 s one is the fastest good one
    {"purpose": "interactive", "tol": 1e-9, "status": "ok", "total_s": 0.05,
     "energy_error": 1e-9},
    {"purpose": "interactive", "tol": 1e-11, "status": "ok", "total_s": 0.10,
     "energy_error": 1e-12},
    {"purpose": "long", "tol": 1e-13, "status": "ok", "total_s": 0.20, "energy_error": 1e-14},
    {"purpose": "long", "tol": None, "status": "timeout", "total_s": 0.01,
     "energy_error": None},
]


def test_fastest_setting_reaching_the_bound():
    assert paired.fastest_setting(ROWS, 1e-10)["tol"] == 1e-11
    assert paired.fastest_setting(ROWS, 1e-8)["tol"] == 1e-9
    assert paired.fastest_setting(ROWS, 1e-16) is None


def test_alternates_and_takes_the_ratio_of_medians():
    calls = []
    best_times = iter([0.10, 0.30, 0.11, 0.09, 0.12])  # median 0.11
    default_times = iter([0.13, 0.12, 0.50, 0.14, 0.12])  # median 0.13

    def run_best(setting):
        calls.append(("best", setting["tol"]))
        return {"status": "ok", "total_s": next(best_times), "energy_error": 1e-12}

    def run_default():
        calls.append(("default", None))
        return {"status": "ok", "total_s": next(default_times), "energy_error": 3e-14}

    res = paired.paired_default(ROWS, 1e-10, run_best, run_default)
    assert calls == [("best", 1e-11), ("default", None)] * 5  # 0.10 s < 1 s: five pairs
    assert res["status"] == "ok"
    assert abs(res["ratio"] - 0.13 / 0.11) < 1e-12
    assert res["default_energy_error"] == 3e-14
    assert res["setting"] == {"purpose": "interactive", "tol": 1e-11}


def test_a_failed_run_is_reported_not_averaged():
    def run_default():
        return {"status": "timeout", "total_s": 300.0}

    res = paired.paired_default(
        ROWS, 1e-10, lambda s: {"status": "ok", "total_s": 0.1, "energy_error": 0.0},
        run_default)
    assert res["status"] == "timeout" and "ratio" not in res


def test_fewer_pairs_for_long_runs():
    assert [paired.repeats(t) for t in (0.5, 5.0, 30.0)] == [5, 3, 1]

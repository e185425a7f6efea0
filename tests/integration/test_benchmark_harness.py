"""``benchmarks/harness``: a case in a fresh process, and the median of repeated runs.

The subprocess runs call small functions of the harness itself, so what comes back can be
compared with the same call made here; the repeated runs use fake runners whose totals are
worked out by hand.
"""

from __future__ import annotations

import json
import os

from benchmarks.harness import median, median_of_runs, run_in_process, write_results


def test_a_function_runs_in_a_fresh_process_and_its_record_comes_back():
    rec = run_in_process("benchmarks.harness.machine", "versions", {"packages": ("numpy",)},
                         cutoff=120.0, preload=("numpy",))
    assert rec["status"] == "ok", rec
    import numpy

    assert rec["numpy"] == numpy.__version__
    assert 0.0 <= rec["import_s"] < rec["wall_s"]
    assert rec["peak_rss_mb"] > 0.0


def test_an_exception_in_the_child_is_an_error_record_naming_it():
    rec = run_in_process("benchmarks.harness.machine", "versions", {"bogus": 1}, cutoff=120.0)
    assert rec["status"] == "error" and "bogus" in rec["error"]


def test_a_run_past_the_cutoff_is_a_timeout_with_the_cutoff_as_lower_bound():
    rec = run_in_process("benchmarks.harness.machine", "machine_info", cutoff=1e-3)
    assert rec == {"status": "timeout", "wall_s": rec["wall_s"], "total_s": 1e-3,
                   "total_is_lower_bound": True}


def test_the_process_wall_time_can_go_under_another_name():
    rec = run_in_process("benchmarks.harness.machine", "machine_info", cutoff=120.0,
                         wall_key="process_wall_s")
    assert rec["status"] == "ok" and "wall_s" not in rec and rec["process_wall_s"] > 0.0
    assert rec["cpus"] == os.cpu_count()


def _runner(totals):
    it = iter(totals)
    calls = []

    def run():
        calls.append(1)
        return {"status": "ok", "total_s": next(it)}

    return run, calls


def test_a_short_run_is_repeated_and_the_median_record_kept():
    run, calls = _runner([1.2, 0.9, 3.0])
    rec = median_of_runs(run, short_s=5.0)
    assert len(calls) == 3
    assert rec["total_s"] == 1.2 and rec["repeats_s"] == [0.9, 1.2, 3.0]


def test_a_long_run_or_no_repeat_runs_once():
    run, calls = _runner([6.0])
    assert median_of_runs(run, short_s=5.0)["total_s"] == 6.0 and len(calls) == 1
    run, calls = _runner([1.0])
    assert "repeats_s" not in median_of_runs(run, short_s=5.0, repeat=False)
    assert len(calls) == 1


def test_a_failed_repeat_is_returned_not_averaged():
    it = iter([{"status": "ok", "total_s": 1.0}, {"status": "timeout", "total_s": 300.0},
               {"status": "ok", "total_s": 1.1}])
    assert median_of_runs(lambda: next(it), short_s=5.0)["status"] == "timeout"


def test_median_of_odd_and_even_counts():
    assert median([3.0, 1.0, 2.0]) == 2.0
    assert median([4.0, 1.0, 3.0, 2.0]) == 2.5


def test_results_are_json_with_nan_as_null_and_markdown_beside(tmp_path):
    written = write_results(tmp_path / "x.json", {"a": float("nan"), "b": [1.0, float("inf")]},
                            "# table\n")
    assert written == [tmp_path / "x.json", tmp_path / "x.md"]
    assert json.loads((tmp_path / "x.json").read_text()) == {"a": None, "b": [1.0, None]}
    assert (tmp_path / "x.md").read_text() == "# table\n"

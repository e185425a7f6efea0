"""How much of quivira's time is heyoka/LLVM building the integrator itself.

For the cases where the benchmark's latency targets are missed, this measures, each in a fresh
process, the construction of ``hy.taylor_adaptive`` for quivira's first-order system of the
case, at the fastest settings (compact mode, ``opt_level=0``, the default tolerance):

* ``ode_cold_s``: the ODE alone (no events), heyoka's disk cache off — a lower bound of the
  first-time cost of *any* simulate call of this system;
* ``events_cold_s``: with the singularity monitor's events, as ``simulate`` compiles it;
* ``ode_warm_s``: the ODE alone with a warm disk cache (filled by an earlier process): heyoka
  still decomposes the system and generates its LLVM IR to look the object code up, so this
  is a lower bound of a user's second session;

each cold and warm figure the median of three fresh processes, with heyoka's own timings of its
phases (its trace log: decomposition, LLVM IR, code generation or cache lookup) and the number
of LLVM modules its compact mode splits the code into; IFToMM A03 is floored the
same way against Exudyn at the step that reaches the 1e-3 threshold (from the full run's
``results/latest.json``);

and, in the same run, Exudyn's total at h = 1e-3 (small cases; for the large ones Exudyn's
h = 1e-4 total is also run, or read from ``results/latest.json`` with ``--exudyn-from-latest``).
The table gives each floor as a multiple of what the targets allow: warm <= Exudyn h = 1e-3,
first time <= 2x Exudyn h = 1e-3, large models >= 25x faster than Exudyn h = 1e-4. A ratio above
1 means the target cannot be met by anything quivira does around the integrator.

Run: ``python -m benchmarks.compile_floor`` (writes ``results/compile_floor.{json,md}``).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import UTC, datetime

from benchmarks import run as bench  # the benchmark's workers and cases
from benchmarks.harness import RESULTS, load_average, run_in_process, versions, write_results

SMALL = ("four_bar", "scissor-2", "scissor-4", "scissor-8")
LARGE = ("scissor-32", "scissor-64", "chain-128", "wall-16x16")
#: the IFToMM case whose speed target is missed: Andrews' mechanism, against Exudyn at
#: the step that reaches the 1e-3 threshold (read from results/latest.json)
IFTOMM = ("a03",)


def integrator_build(case: str, events: bool, cache: str | None) -> dict:
    """Build the Taylor integrator ``simulate`` compiles for ``case`` (its system, tolerance,
    options and, with ``events``, the monitor's events) and time it; heyoka's disk cache off,
    or in folder ``cache``. heyoka's trace of its phases goes to this process's output."""
    import heyoka as hy

    from quivira_oracles.peers import integrator_recipe

    if cache:
        hy.llvm_state.set_diskcache_path(cache)
        hy.llvm_state.set_diskcache_enabled(True)
    else:
        hy.llvm_state.set_diskcache_enabled(False)
    model, cs, sys_, kwargs = integrator_recipe(case)
    if not events:
        kwargs = {**kwargs, "t_events": [], "nt_events": []}
    hy.set_logger_level_trace()  # heyoka's own timings of its phases (its log: stdout)
    t0 = time.perf_counter()
    ta = hy.taylor_adaptive(sys_, [0.0] * len(sys_), **kwargs)
    t1 = time.perf_counter()
    return {"s": t1 - t0, "decomposition": len(ta.decomposition), "order": ta.order,
            "events": len(kwargs["t_events"]), "modules": len(ta.llvm_state.ir),
            "options": [kwargs.get("compact_mode"), kwargs.get("opt_level")]}


#: heyoka's trace lines (``hy.set_logger_level_trace()``) -> phase of the construction
PHASES = {"Taylor decomposition construction runtime": "decompose",
          "Taylor CSE runtime": "decompose",
          "Taylor topological sort runtime": "decompose",
          "Taylor decomposition segment runtime": "decompose",
          "Taylor IR creation compact mode runtime": "ir",
          "Taylor LLVM compilation runtime": "llvm"}


def phases(log: str) -> dict:
    """Seconds per phase of heyoka's construction, and the number of segments, from its trace.

    ``decompose``: Taylor decomposition, CSE, topological sort, segmentation; ``ir``: LLVM IR
    of the compact-mode Taylor code (one LLVM module per ~20 operations: heyoka's
    ``max_n_evalf``); ``llvm``: optimisation and code generation, or the cache lookup and
    linking of the cached object code. The first integrator's phases only (the events'
    functions are not in them).
    """
    out = {"decompose": 0.0, "ir": 0.0, "llvm": 0.0, "segments": None}
    seen = set()
    for line in log.splitlines():
        if "N of segments:" in line and out["segments"] is None:
            out["segments"] = int(line.rsplit(":", 1)[1])
        for text, phase in PHASES.items():
            if text + ":" in line and text not in seen:
                seen.add(text)
                out[phase] += float(line.rsplit(":", 1)[1])
    return out


def child(case: str, events: bool, cache: str | None) -> dict:
    """:func:`integrator_build` in a fresh process, with the phases of heyoka's trace."""
    rec = run_in_process("benchmarks.compile_floor", "integrator_build",
                         {"case": case, "events": events, "cache": cache}, log=True)
    if rec["status"] != "ok":
        raise RuntimeError(f"{case}: {rec.get('error', rec['status'])}")
    return {**rec, "phases": phases(rec.pop("log"))}


def _median_run(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["s"])[len(runs) // 2]


def floors(case: str, repeats: int = 3) -> dict:
    """The case's floors; cold and warm figures are the median of ``repeats`` processes."""
    cold = _median_run([child(case, False, None) for _ in range(repeats)])
    with_events = child(case, True, None)
    with tempfile.TemporaryDirectory(prefix="quivira-floor-cache-") as folder:
        child(case, False, folder)  # fills the cache
        warm = _median_run([child(case, False, folder) for _ in range(repeats)])
    return {"ode_cold_s": cold["s"], "events_cold_s": with_events["s"],
            "ode_warm_s": warm["s"], "decomposition": cold["decomposition"],
            "order": cold["order"], "n_events": with_events["events"],
            "modules": cold["modules"], "segments": cold["phases"]["segments"],
            "cold_phases": cold["phases"], "warm_phases": warm["phases"]}


def iftomm_threshold_run(case: str) -> dict:
    """Exudyn's run at the coarsest step reaching the IFToMM 1e-3 threshold, from
    ``results/latest.json`` (the full benchmark run on this machine)."""
    doc = json.loads((RESULTS / "latest.json").read_text())
    runs = [r for r in doc["iftomm"] if r["case"] == case and r.get("reaches_threshold")]
    if not runs:
        raise RuntimeError(f"{case}: no Exudyn run reaching the threshold in latest.json")
    return runs[0]


#: fresh Exudyn processes per figure below 1 s (their median): single sub-second runs vary by
#: up to 2x on a 2-core machine; see docs/design/benchmark-method.md
EXUDYN_RUNS_SHORT = 5


def exudyn_total(case: str, h: float) -> float:
    """Exudyn's total at step ``h``: one fresh process, the median of EXUDYN_RUNS_SHORT when
    the first takes under a second."""
    totals = []
    while True:
        rec = bench.spawn("exudyn", case, {"h": h}, 600.0)
        if rec.get("status") != "ok":
            raise RuntimeError(f"exudyn {case} h={h}: {rec}")
        totals.append(float(rec["total_s"]))
        if totals[0] >= 1.0 or len(totals) == EXUDYN_RUNS_SHORT:
            return sorted(totals)[len(totals) // 2]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--exudyn-from-latest", action="store_true",
                    help="large cases: Exudyn h = 1e-4 from results/latest.json, not run")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite results/compile_floor.md from its .json")
    args = ap.parse_args(argv)
    if args.render:
        out = RESULTS / "compile_floor.json"
        out.with_suffix(".md").write_text(markdown(json.loads(out.read_text())))
        return 0
    start = datetime.now(UTC).isoformat(timespec="seconds")
    t0 = time.perf_counter()
    latest = {}
    if args.exudyn_from_latest:
        doc = json.loads((RESULTS / "latest.json").read_text())
        latest = {(r["case"], r["tool"]): r for r in doc["records"]}
    rows = []
    for case in SMALL + LARGE + IFTOMM:
        row = {"case": case, **floors(case)}
        if case in IFTOMM:  # warm total <= Exudyn at the step reaching 1e-3
            thr = iftomm_threshold_run(case)
            row["exudyn_threshold_s"], row["exudyn_threshold_h"] = thr["total_s"], thr["h"]
            row["warm_vs_target"] = row["ode_warm_s"] / thr["total_s"]
            rows.append(row)
            print(json.dumps(row), flush=True)
            continue
        row["exudyn_h1e-3_s"] = exudyn_total(case, 1e-3)
        row["warm_vs_target"] = row["ode_warm_s"] / row["exudyn_h1e-3_s"]
        row["cold_vs_target"] = row["ode_cold_s"] / (2.0 * row["exudyn_h1e-3_s"])
        if case in LARGE:
            if args.exudyn_from_latest:
                row["exudyn_h1e-4_s"] = float(latest[(case, "exudyn_h1e-4")]["total_s"])
                row["exudyn_h1e-4_source"] = "results/latest.json"
            else:
                row["exudyn_h1e-4_s"] = exudyn_total(case, 1e-4)
                row["exudyn_h1e-4_source"] = "this run"
            allowed = row["exudyn_h1e-4_s"] / 25.0
            row["large_cold_vs_target"] = row["ode_cold_s"] / allowed
            row["large_warm_vs_target"] = row["ode_warm_s"] / allowed
        rows.append(row)
        print(json.dumps(row), flush=True)
    doc = {"start": start, "wall_s": time.perf_counter() - t0, "load": load_average(),
           "versions": versions(), "rows": rows}
    write_results(RESULTS / "compile_floor.json", doc, markdown(doc))
    return 0


def markdown(doc: dict) -> str:
    lines = ["# The floor under quivira's latency: heyoka building the integrator", "",
             f"`python -m benchmarks.compile_floor` — {doc['start']}, wall {doc['wall_s']:.0f} s,"
             f" load average at the end {doc['load']}; heyoka {doc['versions'].get('heyoka')},"
             f" exudyn {doc['versions'].get('exudyn')}.", "",
             "Each figure is one fresh process: `hy.taylor_adaptive` of quivira's first-order "
             "system of the case, compact mode, `opt_level=0`, default tolerance. *ODE cold*: "
             "no events, disk cache off; *with events*: the singularity monitor as `simulate` "
             "compiles it; *ODE warm*: no events, disk cache filled by an earlier process. "
             "*Floor / allowed*: the floor divided by what the target allows for the "
             "whole run (warm <= Exudyn h = 1e-3; first time <= 2x Exudyn h = 1e-3; large "
             "models: Exudyn h = 1e-4 / 25). Above 1: the integrator's construction alone "
             "exceeds the target.", "",
             "| case | decomposition | order | events | ODE cold s | with events s | ODE warm s "
             "| Exudyn h=1e-3 s | warm floor / allowed | first-time floor / allowed "
             "| Exudyn h=1e-4 s | large: cold floor / allowed | large: warm floor / allowed |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in doc["rows"]:
        if r["case"] in IFTOMM:
            continue
        big = r["case"] in LARGE
        lines.append(
            f"| {r['case']} | {r['decomposition']} | {r['order']} | {r['n_events']} | "
            f"{r['ode_cold_s']:.3f} | {r['events_cold_s']:.3f} | {r['ode_warm_s']:.3f} | "
            f"{r['exudyn_h1e-3_s']:.4f} | {r['warm_vs_target']:.2f} | "
            f"{r['cold_vs_target']:.2f} | "
            + (f"{r['exudyn_h1e-4_s']:.2f} | {r['large_cold_vs_target']:.1f} | "
               f"{r['large_warm_vs_target']:.1f} |" if big else "– | – | – |"))
    ift = [r for r in doc["rows"] if r["case"] in IFTOMM]
    if ift:
        lines += ["", "IFToMM: the warm floor against Exudyn's total at the coarsest "
                  "step that reaches the 1e-3 threshold (`results/latest.json`).", "",
                  "| case | decomposition | order | events | ODE cold s | with events s "
                  "| ODE warm s | Exudyn at threshold s (h) | warm floor / allowed |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in ift:
            lines.append(f"| {r['case']} | {r['decomposition']} | {r['order']} | "
                         f"{r['n_events']} | {r['ode_cold_s']:.3f} | {r['events_cold_s']:.3f} | "
                         f"{r['ode_warm_s']:.3f} | {r['exudyn_threshold_s']:.4f} "
                         f"({r['exudyn_threshold_h']:g}) | {r['warm_vs_target']:.2f} |")
    if all("warm_phases" in r for r in doc["rows"]):
        lines += ["", "## Where heyoka's construction goes", "",
                  "heyoka's own trace (`hy.set_logger_level_trace()`) of the same "
                  "constructions, the median process: *decompose* (Taylor decomposition, CSE, "
                  "topological sort, segments), *IR* (the LLVM IR of the compact-mode Taylor "
                  "code: heyoka starts a new LLVM module, each with its own target machine, "
                  "after every ~20 operations, `max_n_evalf` in its `taylor_02.cpp`), *LLVM* "
                  "(code generation when cold; the cache lookup and linking of the cached "
                  "object code when warm). A warm construction still decomposes and generates "
                  "the IR of every module to look the object code up.", "",
                  "| case | decomposition | segments | LLVM modules | cold: decompose / IR / "
                  "LLVM s | warm: decompose / IR / LLVM s | warm total s |",
                  "|---|---:|---:|---:|---|---|---:|"]
        for r in doc["rows"]:
            c, w = r["cold_phases"], r["warm_phases"]
            lines.append(f"| {r['case']} | {r['decomposition']} | {r['segments']} | "
                         f"{r['modules']} | {c['decompose']:.3f} / {c['ir']:.3f} / "
                         f"{c['llvm']:.3f} | {w['decompose']:.3f} / {w['ir']:.3f} / "
                         f"{w['llvm']:.3f} | {r['ode_warm_s']:.3f} |")
    sources = {r.get("exudyn_h1e-4_source") for r in doc["rows"]} - {None}
    if sources:
        lines += ["", "Exudyn h = 1e-4 totals: " + ", ".join(sorted(sources))
                  + " (the full benchmark run on this machine; the h = 1e-3 totals were run "
                  "here, beside the floors)."]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    raise SystemExit(main())

"""The same linkages in quivira, SymPy mechanics + SciPy, and Exudyn, in one run.

Run from the repository root::

    python -m benchmarks.run            # full run (~14 min on 2 cores): results/latest.*
    python -m benchmarks.run --quick    # smoke test for CI (~25 s): results/quick.json

Cases: chains of N uniform bars (``quivira.examples.chain(N)``: L = 1, m = 1, g = 9.81, pinned
at the origin, released from rest at -0.3 rad) for N = 2 … 64, the four-bar linkage
``four_bar()``, and scissor lattices ``scissor(C)`` of C = 2, 4, 8 cells. All tools use maximal
coordinates, (x, y, θ) of each bar's centre. Chains and the four-bar are simulated for 10 s;
scissors only for 0.3 s, since they fall to their flat, singular pose in well under 10 s.

The cases and the tools are the tables of :mod:`benchmarks.cases`; the tools are the functions
of :mod:`quivira_oracles.peers`, each run by the harness (:mod:`benchmarks.harness`). Tools:
``quivira`` (``model.simulate``, heyoka Taylor integrator,
compile included), ``sympy_scipy`` (``LagrangesMethod`` with ``hol_coneqs``,
``lambdify(cse=True)``, a ``numpy.linalg.solve`` per right-hand side, ``solve_ivp`` DOP853 at
rtol = atol = 1e-12) and Exudyn (``ObjectRigidBody2D`` + ``RevoluteJoint2D``, implicit
generalized-α at h = 1e-3 and h = 1e-4). Every case of every tool runs in a fresh subprocess,
killed at the cut-off (``--cutoff``, default 300 s); such a run is recorded as ``timeout`` with
the cut-off as a lower bound of its time. A fresh process also keeps heyoka's in-memory cache of
compiled code from hiding compile time.

Per case the peers run first; then a sweep over quivira's ``purpose`` ("interactive",
"long") and ``tol`` (1e-9 ... 1e-13, None = machine epsilon) finds the fastest setting whose
energy error is <= 1e-10 and at least 100 times smaller than the most accurate peer's (the most
accurate setting if none is), so that the time ratios compare quivira at a clearly better
accuracy than every peer's; the main quivira record of the case is a fresh run with it.

A run shorter than 5 s (15 s for the table's own rows: the tools, and quivira's chosen,
default and warm calls; not the sweep) is repeated in two more fresh processes and the median
of the three is recorded (``repeats_s``): totals of a few seconds vary by 10-50 % between
processes.

Figures (same numpy code for every tool, from q and q̇ at 101 output times): build, compile and
integration time, their total (imports excluded, reported apart as ``import_s``), the energy
error max|E - E0| / max(|E0|, max T), the constraint residual max|F(q)| at the end, and per case
the ratios quivira / peer of total time and of energy error. The "targets" section checks the
benchmark's goals. Exit status: 1 if a record is missing or implausible (an error, a
non-finite figure, an incomplete run; in ``--quick`` also any timeout), else 0 (2 with
``--require-targets`` when a target is missed).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from benchmarks import iftomm_section
from benchmarks.cases import PEERS, TOOLS, WORKERS, case_names, tools_of
from benchmarks.harness import (
    clean,
    finite,
    fmt_e,
    fmt_s,
    load_average,
    machine_info,
    median_of_runs,
    paired,
    run_in_process,
    write_results,
)

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

#: above this many bars the settings sweep is interactive only (first-time compiles in
#: "long" mode take tens of seconds each there, and never win for a 1 s run)
SWEEP_LONG_MAX_BARS = 64
QUICK_T_END = 1.0
ENERGY_GOAL = 1e-10
#: quivira's setting must be at least this many times more accurate than the best peer
ACCURACY_MARGIN = 100.0
PURPOSES = ("interactive", "long")
TOLS = (1e-9, 1e-10, 1e-11, 1e-12, 1e-13, None)
DEFAULT_SETTING = {"purpose": "interactive", "tol": 1e-12}
#: largest difference of the last bar's final (x, y, θ) from quivira's accepted on the quick
#: run (1 s simulated; over 10 s the chains are chaotic and the tools drift apart)
AGREEMENT = {"sympy_scipy": 1e-8, "exudyn_h1e-3": 1e-3, "exudyn_h1e-4": 1e-4}
#: cases of the IFToMM section (iftomm_section.py), not of the main table
IFTOMM_PREFIXES = ("a02", "a03")
SCISSOR_NOTE = ("simulated 0.3 s, not 10 s: a scissor lattice collapses to its flat, singular "
                "pose in well under 10 s")


# ---------------------------------------------------------------------------------- helpers
def case_info(case: str) -> dict:
    from quivira_oracles.peers import mechanism

    mech = mechanism(case)
    return {"n_coordinates": mech.n_coordinates, "n_constraints": mech.n_constraints,
            "n_bars": len(mech.bars)}


def spawn(tool: str, case: str, kwargs: dict, cutoff: float) -> dict:
    """Run one case of a worker tool (:data:`benchmarks.cases.WORKERS`) in a fresh process;
    return its record (status ok / error / timeout)."""
    worker = WORKERS[tool]
    return run_in_process(worker.module, worker.function, {"case": case, **kwargs}, cutoff,
                          worker.preload)


#: runs shorter than this (total seconds) are repeated; the record is the median of 3: single
#: runs of 1-5 s can be off by up to 50 %; see docs/design/benchmark-method.md
SHORT_RUN_S = 5.0
#: the same for the table's own rows (each tool, and quivira's chosen, default and warm
#: calls; not the sweep of settings): single runs of 5-15 s, the large targets' Exudyn totals
#: among them, vary as much; see docs/design/benchmark-method.md
HEADLINE_RUN_S = 15.0


def spawn_median(tool: str, case: str, kwargs: dict, cutoff: float, repeat: bool,
                 short_s: float = SHORT_RUN_S) -> dict:
    """:func:`spawn`, and for a run shorter than ``short_s`` two more: the median
    (:func:`benchmarks.harness.median_of_runs`; ``repeats_s`` lists the totals)."""
    return median_of_runs(lambda: spawn(tool, case, kwargs, cutoff), short_s, repeat)


def _label(tool: str, kwargs: dict) -> str:
    if tool == "exudyn":
        return f"exudyn_h{kwargs['h']:.0e}".replace("e-0", "e-")
    return tool


# ---------------------------------------------------------------------------------- plan
def plan(quick: bool) -> dict:
    cases = case_names(quick)
    tools = {c: tools_of(c, case_info(c)["n_bars"], quick) for c in cases}
    if quick:
        sweep = {"chain-2": [{"purpose": p, "tol": 1e-12} for p in PURPOSES]}
    else:
        grid = [{"purpose": p, "tol": t} for p in PURPOSES for t in TOLS]
        sweep = {c: grid if case_info(c)["n_bars"] <= SWEEP_LONG_MAX_BARS
                 else [s for s in grid if s["purpose"] == "interactive"] for c in cases}
    return {"cases": cases, "tools": tools, "sweep": sweep}


def t_end_for(case: str, quick: bool) -> float | None:
    if case.startswith(("scissor", "wall")):
        return None  # the peers' default, 0.3 s (1 s for large lattices)
    return QUICK_T_END if quick else None


def default_records(case: str, run_record) -> list[dict]:
    """The call a user makes, ``model.simulate(t_end, n_points=101)`` with every default
    (the singularity monitor included): first-time (heyoka's disk cache off) and with a warm
    disk cache (a fresh cache folder, filled by the same call in an earlier process)."""
    import tempfile

    out = [run_record(case, "quivira_default")]
    with tempfile.TemporaryDirectory(prefix="quivira-bench-cache-") as folder:
        out.append(run_record(case, "quivira_warm", {"cache_dir": folder}))
    return out


#: the peer of the latency targets, and the largest allowed ratio of each quivira call
PEER = "exudyn_h1e-3"
PEER_BOUNDS = {"quivira_warm": 1.0, "quivira_default": 2.0}
#: the peer of the large-model target (models of at least LARGE_BARS bars): the default call
#: at least LARGE_SPEEDUP times faster, i.e. a ratio quivira / peer of at most 1/LARGE_SPEEDUP
LARGE_PEER, LARGE_SPEEDUP, LARGE_BARS = "exudyn_h1e-4", 25.0, 32
LARGE_BOUNDS = {"quivira_default": 1.0 / LARGE_SPEEDUP, "quivira": 1.0 / LARGE_SPEEDUP}
#: the latency targets hold at an energy error at least this many times smaller than Exudyn's
LATENCY_ACCURACY = 1e4


def beside_peer(case: str, records: list[dict], quick: bool, cutoff: float,
                peer: str = PEER, bounds: dict | None = None,
                setting: dict | None = None) -> dict | None:
    """``peer`` and quivira's calls of ``case`` (``bounds``: Exudyn h = 1e-3 with the default
    and warm calls) again, in rounds, where a headline ratio is close to its bound
    (:func:`paired.peer_side_by_side`); ``"quivira"`` runs the case's chosen ``setting``."""
    import tempfile

    bounds = PEER_BOUNDS if bounds is None else bounds
    have = {r["tool"]: r for r in records if r["case"] == case and r.get("status") == "ok"}
    headline = {t: have[t]["total_s"] for t in (peer, *bounds) if t in have}
    with tempfile.TemporaryDirectory(prefix="quivira-bench-cache-") as folder:
        settings = {"quivira_warm": {"cache_dir": folder}, "quivira": setting}
        runners = {t: (lambda t=t: spawn(*_spec(t, case, quick, settings.get(t)), cutoff))
                   for t in headline}
        return paired.peer_side_by_side(peer, headline, bounds, runners)


def _spec(tool: str, case: str, quick: bool, setting: dict | None = None) -> tuple:
    """``(worker tool, case, kwargs)`` for :func:`spawn`."""
    name, kw = tool_kwargs(tool, case, quick, setting)
    return name, case, kw


def tool_kwargs(tool: str, case: str, quick: bool, setting: dict | None = None) -> tuple:
    t_end = t_end_for(case, quick)
    base = {} if t_end is None else {"t_end": t_end}
    if tool == "quivira_default":
        return "quivira", {**base, "defaults": True}
    if tool == "quivira_warm":
        return "quivira", {**base, "defaults": True, "warm_up": True, **(setting or {})}
    if tool == "quivira":
        return "quivira", {**base, **(setting or DEFAULT_SETTING)}
    worker, fixed = PEERS[tool]
    return worker, {**base, **fixed}


# ---------------------------------------------------------------------------------- run
def energy_goal(peer_records: list[dict]) -> tuple[float, str]:
    """The energy error quivira's setting must reach in a case: ENERGY_GOAL, and at least
    ACCURACY_MARGIN times smaller than the most accurate peer's (so that the time ratios
    compare quivira at a clearly better accuracy than every peer's)."""
    peers = [r for r in peer_records if r["status"] == "ok" and finite(r.get("energy_error"))
             and r["energy_error"] > 0]
    if not peers:
        return ENERGY_GOAL, f"<= {ENERGY_GOAL:g}"
    best = min(peers, key=lambda r: r["energy_error"])
    goal = min(ENERGY_GOAL, best["energy_error"] / ACCURACY_MARGIN)
    return goal, (f"<= {goal:.2g} ({ACCURACY_MARGIN:g}x smaller than {best['tool']}'s "
                  f"{best['energy_error']:.2g})" if goal < ENERGY_GOAL else f"<= {goal:g}")


def choose_setting(rows: list[dict], goal: float = ENERGY_GOAL,
                   goal_text: str | None = None) -> tuple[dict, str]:
    """The fastest sweep setting with energy error <= goal; if none reaches it, the most
    accurate one."""
    done = [r for r in rows if r["status"] == "ok" and finite(r.get("energy_error"))]
    if not done:
        return dict(DEFAULT_SETTING), "no sweep run finished; default setting"
    ok = [r for r in done if r["energy_error"] <= goal]
    text = goal_text or f"<= {goal:g}"
    if ok:
        best = min(ok, key=lambda r: r["total_s"])
        why = (f"fastest of {len(rows)} settings with energy error {text} "
               f"(sweep total {best['total_s']:.3g} s)")
    else:
        best = min(done, key=lambda r: (r["energy_error"], r["total_s"]))
        why = (f"no setting reached energy error {text}: the most accurate of {len(rows)} "
               f"({best['energy_error']:.2g})")
    s = best["settings"]
    return {"purpose": s["purpose"], "tol": s["tol"]}, why


def make_record(case: str, tool: str, info: dict, t_end: float, raw: dict, cutoff: float) -> dict:
    rec = {"case": case, "tool": tool, **info, "t_end": t_end, "status": raw.get("status"),
           "build_s": None, "compile_s": None, "integrate_s": None, "total_s": None,
           "energy_error": None, "residual": None}
    rec.update({k: v for k, v in raw.items() if k != "status"})
    notes = []
    if case.startswith("scissor"):
        notes.append(SCISSOR_NOTE)
    if rec["status"] == "timeout":
        notes.append(f"no result within the cut-off of {cutoff:g} s (wall time of its process, "
                     f"imports included): total_s = {cutoff:g} is a lower bound")
    if rec["status"] == "error":
        notes.append(rec.get("error", "error"))
    rec["notes"] = "; ".join(notes)
    return rec


def add_ratios(records: list[dict]) -> None:
    """Per case: quivira / peer of total time and of energy error, on the peer records."""
    q = {r["case"]: r for r in records if r["tool"] == "quivira" and r["status"] == "ok"}
    for r in records:
        if r["tool"].startswith("quivira") or r["case"] not in q:
            continue
        qr = q[r["case"]]
        if finite(r.get("total_s")) and r["total_s"] > 0:
            r["time_ratio_quivira_over_peer"] = qr["total_s"] / r["total_s"]
            r["time_ratio_is_upper_bound"] = r["status"] == "timeout"
        if r["status"] == "ok" and finite(r.get("energy_error")) and r["energy_error"] > 0:
            r["energy_error_ratio_quivira_over_peer"] = qr["energy_error"] / r["energy_error"]
        a, b = r.get("last_bar_end"), qr.get("last_bar_end")
        if r["status"] == "ok" and a and b and all(finite(v) for v in a + b):
            r["last_bar_deviation_from_quivira"] = max(abs(x - y) for x, y in zip(a, b))


def check_plausible(records: list[dict], expected: dict, quick: bool) -> list[str]:
    problems = []
    have = {(r["case"], r["tool"]): r for r in records}
    for case, tools in expected.items():
        for tool in tools:
            r = have.get((case, tool))
            if r is None:
                problems.append(f"{case}/{tool}: no record")
                continue
            st = r["status"]
            if st == "timeout":
                if quick or tool == "quivira":
                    problems.append(f"{case}/{tool}: timeout")
                continue
            if st != "ok":
                problems.append(f"{case}/{tool}: {st}: {r.get('error', '')}")
                continue
            for k in ("build_s", "compile_s", "integrate_s", "total_s", "energy_error",
                      "residual"):
                if not finite(r.get(k)) or r[k] < 0:
                    problems.append(f"{case}/{tool}: {k} = {r.get(k)!r} is not a finite "
                                    "non-negative number")
            if finite(r.get("total_s")) and all(finite(r.get(k)) for k in
                                                 ("build_s", "compile_s", "integrate_s")):
                parts = r["build_s"] + r["compile_s"] + r["integrate_s"]
                if abs(parts - r["total_s"]) > 1e-6 + 1e-6 * r["total_s"]:
                    problems.append(f"{case}/{tool}: parts {parts:.4g} s != total "
                                    f"{r['total_s']:.4g} s")
            if finite(r.get("t_reached")) and abs(r["t_reached"] - r["t_end"]) > 1e-9:
                problems.append(f"{case}/{tool}: stopped at t = {r['t_reached']} < {r['t_end']}")
            if r.get("n_outputs") != 101:
                problems.append(f"{case}/{tool}: {r.get('n_outputs')} outputs, expected 101")
            if finite(r.get("energy_error")) and r["energy_error"] > 1e-2:
                problems.append(f"{case}/{tool}: energy error {r['energy_error']:.3g} > 1e-2")
            if finite(r.get("residual")) and r["residual"] > 1e-6:
                problems.append(f"{case}/{tool}: residual {r['residual']:.3g} > 1e-6")
            if tool == "quivira" and finite(r.get("energy_error")) \
                    and r["energy_error"] > ENERGY_GOAL:
                problems.append(f"{case}/quivira: energy error {r['energy_error']:.3g} > "
                                f"{ENERGY_GOAL:g}")
            dev = r.get("last_bar_deviation_from_quivira")
            limit = AGREEMENT.get(tool)
            if quick and limit is not None and not (finite(dev) and dev <= limit):
                problems.append(f"{case}/{tool}: the last bar ends {dev} away from quivira's "
                                f"pose (allowed {limit:g})")
            off = (r.get("settings") or {}).get("max_output_time_offset")
            if off is not None and not (finite(off) and off <= 1e-9):
                problems.append(f"{case}/{tool}: outputs off the step times by {off}")
    return problems


def check_targets(records: list[dict], beside_large: dict | None = None) -> list[dict]:
    """The first version's targets; a speed-up against Exudyn h = 1e-4 reads the chosen
    setting's side-by-side rounds of ``beside_large`` (:func:`beside_peer`) where it has them."""
    have = {(r["case"], r["tool"]): r for r in records}
    beside_large = beside_large or {}

    def get(case, tool):
        return have.get((case, tool), {})

    out = []

    def not_run(what, *keys):
        missing = [f"{c}/{t}" for c, t in keys if (c, t) not in have]
        if missing:
            out.append({"target": what, "status": "NOT RUN",
                        "figures": "no record of " + ", ".join(missing)})
        return bool(missing)

    q64 = get("chain-64", "quivira")
    t, e = q64.get("total_s"), q64.get("energy_error")
    ok = q64.get("status") == "ok" and finite(t) and t <= 4.0 and finite(e) and e <= 1e-10
    what = "chain of 64 bars, build + compile + 10 s, <= 4 s with energy error <= 1e-10"
    if not not_run(what, ("chain-64", "quivira")):
        out.append({"target": what, "status": "OK" if ok else "MISSED",
                    "figures": f"total {fmt_s(t)} s, energy error {fmt_e(e)}"})

    def versus(case, peer, speed_goal, acc_goal, what):
        if not_run(what, (case, "quivira"), (case, peer)):
            return None
        qr, pr = get(case, "quivira"), get(case, peer)
        qt, pt = qr.get("total_s"), pr.get("total_s")
        qe, pe = qr.get("energy_error"), pr.get("energy_error")
        bound = pr.get("status") == "timeout"
        speed = pt / qt if finite(pt) and finite(qt) and qt > 0 else None
        side = (beside_large.get(case) or {}) if peer == LARGE_PEER else {}
        how = ""
        if "quivira" in side.get("ratios", {}) and side["ratios"]["quivira"] > 0:
            med = side["medians"]
            qt, pt, bound = med["quivira"], med[peer], False
            speed, how = 1.0 / side["ratios"]["quivira"], _side_text(side, "quivira")
        acc = pe / qe if finite(pe) and finite(qe) and qe > 0 else None
        speed_ok = speed is not None and speed >= speed_goal
        acc_ok = acc is not None and acc >= acc_goal
        figs = (f"quivira {fmt_s(qt)} s vs {peer} {'>= ' if bound else ''}{fmt_s(pt)} s: "
                f"{'>= ' if bound else ''}{speed:.1f}x faster{how}; " if speed is not None
                else f"quivira {fmt_s(qt)} s vs {peer} {fmt_s(pt)} s; ")
        figs += (f"energy error {fmt_e(qe)} vs {fmt_e(pe)}: {acc:.2g}x smaller"
                 if acc is not None else f"energy error {fmt_e(qe)} vs {fmt_e(pe)} "
                 "(peer figure unknown)")
        return {"target": what, "status": "OK" if speed_ok and acc_ok else "MISSED",
                "figures": figs}

    for args in (("chain-16", "sympy_scipy", 50, 100,
                  "chain of 16 bars: >= 50x faster end to end than SymPy/scipy, >= 100x "
                  "smaller energy error"),
                 ("chain-64", "exudyn_h1e-4", 25, 1e5,
                  "chain of 64 bars: >= 25x faster than Exudyn at h = 1e-4, >= 1e5x smaller "
                  "energy error")):
        r = versus(*args)
        if r is not None:
            out.append(r)
    return out


def default_targets(records: list[dict], sweep: dict, pairs: dict | None = None,
                    beside: dict | None = None, beside_large: dict | None = None) -> list[dict]:
    """The targets on the default call (first time and warm cache) and large models.

    The default call against the best swept setting reads the side-by-side medians of
    ``pairs`` (:mod:`paired`) where a case has them, else the sweep's minimum; the calls
    against Exudyn h = 1e-3 read those of ``beside`` (:func:`beside_peer`) where a case has
    them, and the large-model speed-up against Exudyn h = 1e-4 those of ``beside_large``,
    else the headline records.
    """
    have = {(r["case"], r["tool"]): r for r in records}
    pairs = pairs or {}
    beside = beside or {}
    beside_large = beside_large or {}
    out = []

    def line(what, rows, ok):
        if not rows:
            out.append({"target": what, "status": "NOT RUN", "figures": "no records"})
        else:
            out.append({"target": what, "status": "OK" if ok else "MISSED",
                        "figures": "; ".join(rows)})

    rows, ok = [], True
    for case, sw in sweep.items():
        pair = pairs.get(case)
        if pair is not None:
            e = pair.get("default_energy_error")
            good = pair["status"] == "ok" and finite(e)
            ok &= good and pair["ratio"] <= 1.2 and e <= ENERGY_GOAL
            rows.append(f"{case} {pair['ratio']:.2f}x (E {e:.1e}; side by side)" if good
                        else f"{case}: paired runs {pair['status']}")
            continue
        d = have.get((case, "quivira_default"), {})
        good = [r["total_s"] for r in sw if r["status"] == "ok" and finite(r.get("energy_error"))
                and r["energy_error"] <= ENERGY_GOAL]
        if d.get("status") != "ok" or not good:
            ok = False
            rows.append(f"{case}: no figure")
            continue
        ratio = d["total_s"] / min(good)
        ok &= ratio <= 1.2 and d["energy_error"] <= ENERGY_GOAL
        rows.append(f"{case} {ratio:.2f}x (E {d['energy_error']:.1e})")
    line("default call within 1.2x of the fastest swept setting with energy error <= 1e-10, "
         "its own energy error <= 1e-10", rows, ok)
    for tool, what in (("quivira_warm", "warm disk cache: total <= Exudyn h = 1e-3's total"),
                       ("quivira_default", "first time (cache off): total <= 2x Exudyn "
                        "h = 1e-3's total")):
        factor = PEER_BOUNDS[tool]
        rows, ok = [], True
        for (case, t), r in have.items():
            ex = have.get((case, PEER), {})
            if t != tool or r.get("status") != "ok" or not finite(ex.get("total_s")):
                continue
            ratio, how = _ratio_to_peer(beside.get(case) or {}, tool, r, ex)
            if ratio is None:
                ok = False
                rows.append(f"{case}: {how}")
                continue
            acc = _energy_factor(ex, r)
            rows.append(f"{case} {ratio:.2f}x{how}, energy error {acc:.1e}x smaller")
            ok &= ratio <= factor and acc >= LATENCY_ACCURACY
        line(what + f", energy error >= {LATENCY_ACCURACY:.0e}x smaller", rows, ok)
    s64 = have.get(("scissor-64", "quivira_default"), {})
    line("scissor-64, 1 s simulated, end to end with the defaults <= 5 s",
         [f"{fmt_s(s64.get('total_s'))} s"] if s64 else [],
         finite(s64.get("total_s")) and s64["total_s"] <= 5.0)
    rows, ok = [], True
    for (case, t), r in have.items():
        ex = have.get((case, LARGE_PEER), {})
        if t != "quivira_default" or r.get("status") != "ok" or not finite(ex.get("total_s")) \
                or case_info(case)["n_bars"] < LARGE_BARS:
            continue
        ratio, how = _ratio_to_peer(beside_large.get(case) or {}, "quivira_default", r, ex)
        if ratio is None:
            ok = False
            rows.append(f"{case}: {how}")
            continue
        speed, acc = 1.0 / ratio, _energy_factor(ex, r)
        ok &= speed >= LARGE_SPEEDUP and acc >= 1e5
        rows.append(f"{case} {speed:.1f}x faster{how}, {acc:.1e}x smaller energy error")
    line("large models (>= 32 bars): default call >= 25x faster than Exudyn h = 1e-4 at an "
         "energy error >= 1e5x smaller", rows, ok)
    for family in ("chain", "scissor"):
        pts = [(case_info(c)["n_bars"], r["total_s"]) for (c, t), r in have.items()
               if t == "quivira_default" and c.startswith(family) and r.get("status") == "ok"
               and case_info(c)["n_bars"] >= 16]
        if len(pts) >= 2:
            x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
            slope = float(np.polyfit(x, y, 1)[0])
            line(f"growth exponent of the default call's total time in the number of bars "
                 f"({family}s of >= 16 bars) <= 1.5", [f"{slope:.2f} over {len(pts)} sizes"],
                 slope <= 1.5)
    return out


def _ratio_to_peer(side: dict, tool: str, rec: dict, peer: dict) -> tuple[float | None, str]:
    """Return ``(quivira / peer total, how)`` of ``tool``: the ratio of the side-by-side medians
    where ``side`` (:func:`beside_peer`) has it (``how`` says so), else of the headline records
    ``rec`` and ``peer`` (``how`` empty); ``(None, why)`` when the side-by-side runs failed."""
    if tool in side.get("ratios", {}):
        return side["ratios"][tool], _side_text(side, tool)
    if tool in side.get("totals", {}):
        return None, f"side-by-side runs failed ({side.get('failed')}: {side['status']})"
    return rec["total_s"] / peer["total_s"], ""


def _side_text(side: dict, tool: str) -> str:
    """How ``tool``'s side-by-side figure was taken: medians of the rounds, or of more runs of
    ``tool`` where it ran several times per round (:data:`paired.SHORT_BESIDE_LONG`)."""
    runs = len(side.get("totals", {}).get(tool, [])) or side["rounds"]
    if runs == side["rounds"]:
        return f" (side by side, medians of {side['rounds']})"
    return f" (side by side, {side['rounds']} round(s); quivira's median of {runs} runs)"


def _energy_factor(peer: dict, rec: dict) -> float:
    """How many times smaller ``rec``'s energy error is than ``peer``'s (0 without figures)."""
    if not (finite(peer.get("energy_error")) and finite(rec.get("energy_error"))):
        return 0.0
    return peer["energy_error"] / max(rec["energy_error"], 1e-300)


# ---------------------------------------------------------------------------------- output
def markdown(doc: dict) -> str:
    meta = doc["meta"]
    lines = ["# Benchmark results", "",
             f"`{meta['command']}` — {meta['date']}, {meta['machine']['cpu']} "
             f"({meta['machine']['cpus']} CPUs), load average (1, 5, 15 min) "
             f"{meta['load_average_start']} at the start, {meta['load_average_end']} at the end; "
             f"cut-off {meta['cutoff_s']:g} s per run; wall time of the run "
             f"{meta['wall_s']:.0f} s.", "",
             "Versions: " + ", ".join(f"{k} {v}" for k, v in meta["versions"].items()), "",
             "Times in seconds, imports excluded. Energy error max|E - E0| / max(|E0|, max T) "
             "over 101 outputs; residual max|F(q)| at the end. Ratios are quivira / peer "
             "(below 1: quivira faster or more accurate); `<=` when the peer hit the cut-off. "
             "Chains and four-bar: 10 s simulated (quick run: 1 s); scissors 0.3 s (they "
             "collapse to a singular flat pose in well under 10 s), 1 s from 32 cells on; the "
             "wall of scissor masts (wall-MxC: M masts of C cells pinned at their tops, one "
             "degree of freedom) 1 s.", "",
             "`quivira` is the fastest swept setting that meets the case's energy goal (no "
             "singularity monitor); `quivira_default` is `model.simulate(t_end, n_points=101)` "
             "with every default, heyoka's disk cache off (first time); `quivira_warm` the same "
             "call with a warm disk cache (a fresh cache folder, filled by the same call in an "
             "earlier process: a user's second session). Peak RSS: the tool's process, build + "
             "compile + simulate (imports included).", "",
             "| case | coords | tool | build | compile | integrate | total | energy error "
             "| residual | time ratio | energy ratio | peak RSS MB | status |",
             "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in doc["records"]:
        tr = r.get("time_ratio_quivira_over_peer")
        er = r.get("energy_error_ratio_quivira_over_peer")
        trs = "" if tr is None else ("<= " if r.get("time_ratio_is_upper_bound") else "") \
            + f"{tr:.3g}"
        ers = "" if er is None else f"{er:.2g}"
        total = fmt_s(r.get("total_s"))
        if r["status"] == "timeout":
            total = f">= {total}"
        status = r["status"]
        if r["tool"] == "quivira" and r.get("settings"):
            s = r["settings"]
            status += f" ({s['purpose']}, tol {s['tol']})"
        elif r["tool"].startswith("quivira_") and r.get("settings"):
            s = r["settings"]
            status += f" (defaults: tol {s['tol']:.0e}, monitor {s['singularity_monitor']})"
        if r["tool"].startswith("exudyn") and r.get("settings"):
            status += f" ({r['settings']['linear_solver']})"
        lines.append(f"| {r['case']} | {r['n_coordinates']} | {r['tool']} | "
                     f"{fmt_s(r.get('build_s'))} | {fmt_s(r.get('compile_s'))} | "
                     f"{fmt_s(r.get('integrate_s'))} | {total} | "
                     f"{fmt_e(r.get('energy_error'))} | {fmt_e(r.get('residual'))} | "
                     f"{trs} | {ers} | {fmt_s(r.get('peak_rss_mb'))} | {status} |")
    lines += ["", "## Targets", ""]
    if doc["targets"]:
        for t in doc["targets"]:
            lines.append(f"- **{t['status']}** — {t['target']}: {t['figures']}")
    else:
        lines.append("- not checked on a `--quick` run")
    lines += ["", "## quivira settings (fresh process each; total s / energy error)", "",
              f"The chosen setting is the fastest whose energy error is at most {ENERGY_GOAL:g} "
              f"and {ACCURACY_MARGIN:g} times smaller than the most accurate peer's in the case "
              "(the energy goal); if none reaches it, the most accurate.", "",
              "| case | energy goal | "
              + " | ".join(f"{p}, tol {t}" for p in PURPOSES for t in TOLS)
              + " | chosen |", "|---|---:|" + "---:|" * (len(PURPOSES) * len(TOLS)) + "---|"]
    for case, rows in doc["quivira_settings_sweep"].items():
        cells = []
        for p in PURPOSES:
            for t in TOLS:
                r = next((x for x in rows if x["purpose"] == p and x["tol"] == t), None)
                if r is None:
                    cells.append("")
                elif r["status"] != "ok":
                    cells.append(r["status"])
                else:
                    cells.append(f"{r['total_s']:.3g} / {r['energy_error']:.1e}")
        ch = doc["chosen_settings"].get(case, {})
        lines.append(f"| {case} | {fmt_e(ch.get('energy_goal'))} | " + " | ".join(cells)
                     + f" | {ch.get('purpose')}, tol {ch.get('tol')} |")
    if doc.get("default_vs_best"):
        lines += default_vs_best_markdown(doc["default_vs_best"])
    if doc.get("beside_exudyn"):
        lines += beside_exudyn_markdown(doc["beside_exudyn"])
    if doc.get("beside_exudyn_large"):
        lines += beside_exudyn_markdown(doc["beside_exudyn_large"], large=True)
    if doc.get("iftomm"):
        lines += iftomm_section.markdown(doc["iftomm"], [t for t in doc["targets"]
                                                         if t["target"].startswith("IFToMM")])
    lines += ["", "## Plausibility", ""]
    probs = doc["plausibility"]["problems"]
    lines.append("- all records complete and plausible" if not probs
                 else "\n".join(f"- {p}" for p in probs))
    return "\n".join(lines) + "\n"


def default_vs_best_markdown(pairs: dict) -> list[str]:
    """The section of the paired runs (:mod:`paired`): the default call beside the best
    swept setting."""
    lines = ["", "## The default call beside the best setting", "",
             "The fastest swept setting with energy error <= 1e-10 and the default call "
             "(`quivira_default`), run alternately in fresh processes "
             f"({paired.repeats(0.0)} pairs below {paired.SHORT_S:g} s, "
             f"{paired.repeats(paired.SHORT_S)} below {paired.LONG_S:g} s, else 1; disk cache "
             "off): the ratio of their medians is what the "
             "target reads (the sweep's minimum of up to twelve runs is biased low; "
             "`benchmarks/paired.py`).", "",
             "| case | best setting | its runs (s) | default runs (s) | ratio of medians |",
             "|---|---|---|---|---:|"]
    for case, p in pairs.items():
        if p is None:
            continue
        ratio = f"{p['ratio']:.2f}" if p.get("status") == "ok" else p.get("status")
        lines.append(f"| {case} | {p['setting']['purpose']}, tol {p['setting']['tol']} | "
                     + ", ".join(f"{x:.3g}" for x in p["best_s"]) + " | "
                     + ", ".join(f"{x:.3g}" for x in p["default_s"]) + f" | {ratio} |")
    return lines


def beside_exudyn_markdown(beside: dict, large: bool = False) -> list[str]:
    """The section of the side-by-side rounds against Exudyn (:func:`beside_peer`): h = 1e-3,
    or with ``large`` h = 1e-4 for the large-model target."""
    rounds = (f"({paired.repeats(0.0)} rounds below {paired.SHORT_S:g} s, "
              f"{paired.repeats(paired.SHORT_S)} below {paired.LONG_S:g} s, else 1)")
    if large:
        head = ["", "## quivira beside Exudyn h = 1e-4 (large models)", "",
                f"Where the headline speed-up over Exudyn h = 1e-4 of the default call or of "
                f"the chosen setting (`quivira`) on a model of at least {LARGE_BARS} bars was "
                f"within {paired.CLOSE:g}x of {LARGE_SPEEDUP:g}x, either side, they ran again "
                f"in rounds, one fresh process each per round, Exudyn first {rounds}; a "
                f"quivira call shorter than {paired.SHORT_S:g} s beside an Exudyn run of "
                f"{paired.LONG_S:g} s or more ran {paired.SHORT_BESIDE_LONG} times in its "
                "round: the targets read the ratio of their medians (`benchmarks/paired.py`).",
                ""]
    else:
        head = ["", "## quivira beside Exudyn h = 1e-3", "",
                "Where a headline ratio of the default call (bound 2) or of the warm call "
                f"(bound 1) to Exudyn h = 1e-3 was within {paired.CLOSE:g}x of its bound, "
                "either side, the three ran again in rounds, one fresh process each per "
                f"round, Exudyn first {rounds}: the target reads the ratio of their medians, "
                "so that a slow phase of the machine falls on both tools "
                "(`benchmarks/paired.py`).", ""]
    lines = head + ["| case | tool | runs (s) | median (s) | ratio to Exudyn |",
                    "|---|---|---|---:|---:|"]
    for case, side in beside.items():
        med, ratios = side.get("medians", {}), side.get("ratios", {})
        for tool, totals in side["totals"].items():
            ratio = f"{ratios[tool]:.2f}" if tool in ratios else ""
            median = fmt_s(med.get(tool)) if tool in med else \
                f"{side.get('failed')}: {side['status']}"
            lines.append(f"| {case} | {tool} | " + ", ".join(f"{x:.3g}" for x in totals)
                         + f" | {median} | {ratio} |")
    return lines


def plot(doc: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colours = {"quivira": "C0", "quivira_default": "C4", "sympy_scipy": "C1",
               "exudyn_h1e-3": "C2", "exudyn_h1e-4": "C3"}
    fig, ax = plt.subplots(figsize=(9.0, 5.2))
    for tool, col in colours.items():
        for family, style, marker in (("chain", "-", "o"), ("scissor", "--", "s"),
                                      ("wall", "", "D"), ("four_bar", "", "^")):
            rows = [r for r in doc["records"] if r["tool"] == tool
                    and r["case"].startswith(family) and finite(r.get("total_s"))]
            rows.sort(key=lambda r: r["n_coordinates"])
            if not rows:
                continue
            x = [r["n_coordinates"] for r in rows]
            y = [r["total_s"] for r in rows]
            label = f"{tool}, {family.replace('_', '-')}{'s' if family != 'four_bar' else ''}"
            ax.plot(x, y, style or "none", marker=marker, color=col, label=label,
                    markerfacecolor=col if family == "chain" else "white")
            for xi, r in zip(x, rows):
                if r["status"] == "timeout":
                    ax.annotate("", xy=(xi, r["total_s"] * 2.2), xytext=(xi, r["total_s"]),
                                arrowprops={"arrowstyle": "->", "color": col})
    cutoff = doc["meta"]["cutoff_s"]
    if any(r["status"] == "timeout" for r in doc["records"]):
        ax.axhline(cutoff, color="0.5", lw=0.8, ls=":")
        ax.annotate(f"cut-off {cutoff:g} s (arrows: lower bounds)", xy=(0.99, cutoff),
                    xycoords=("axes fraction", "data"), ha="right", va="bottom",
                    color="0.4", fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if any(r["status"] == "timeout" for r in doc["records"]):
        ax.set_ylim(top=cutoff * 4)
    ticks = sorted({r["n_coordinates"] for r in doc["records"]})
    ax.set_xticks(ticks)
    ax.set_xticklabels([str(x) for x in ticks])
    ax.minorticks_off()
    ax.set_xlabel("number of coordinates (3 per bar)")
    ax.set_ylabel("total time, build + compile + integrate [s]")
    t = "1 s" if doc["meta"]["quick"] else "10 s"
    ax.set_title(f"End to end, {t} simulated (scissors 0.3 s, 1 s from 32 cells; walls 1 s)",
                 fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# ---------------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: N <= 8, 1 s simulated, SymPy for small cases only, "
                         "Exudyn h = 1e-3; writes results/quick.json")
    ap.add_argument("--cutoff", type=float, default=None,
                    help="seconds before a run is killed and recorded as a timeout "
                         "(default 300; 120 with --quick)")
    ap.add_argument("--cases", nargs="*", help="only these cases (e.g. chain-16 four_bar); "
                                               "nothing is written unless --output is given")
    ap.add_argument("--tools", nargs="*", choices=TOOLS, help="only these tools")
    ap.add_argument("--no-sweep", action="store_true",
                    help="skip the quivira settings sweep (use interactive, tol 1e-12)")
    ap.add_argument("--output", type=Path, help="write the JSON here (and .md, .png beside)")
    ap.add_argument("--require-targets", action="store_true",
                    help="exit 2 when a target is missed (full run)")
    args = ap.parse_args(argv)

    quick = args.quick
    cutoff = args.cutoff or (120.0 if quick else 300.0)
    t_run = time.perf_counter()
    load_start = load_average()
    print(f"quivira benchmarks ({'quick' if quick else 'full'} run), cut-off {cutoff:g} s, "
          f"load average {load_start}", flush=True)
    p = plan(quick)
    filtered = bool(args.cases or args.tools)
    iftomm_cases = [c for c in (args.cases or ([] if quick else iftomm_section.FULL_CASES))
                    if c.startswith(IFTOMM_PREFIXES)]
    cases = [c for c in p["cases"] if not args.cases or c in args.cases]
    if args.cases:
        cases += [c for c in args.cases if c not in cases and not c.startswith(IFTOMM_PREFIXES)]
    expected = {c: [t for t in p["tools"].get(c, list(TOOLS))
                    if not args.tools or t in args.tools] for c in cases}
    infos = {c: case_info(c) for c in cases}

    def run_record(case: str, tool: str, setting: dict | None = None, why: str = "") -> dict:
        name, kw = tool_kwargs(tool, case, quick, setting)
        raw = spawn_median(name, case, kw, cutoff, not quick, HEADLINE_RUN_S)
        from quivira_oracles.peers import t_end_of

        t_end = t_end_of(case, kw.get("t_end"))
        rec = make_record(case, tool, infos[case], t_end, raw, cutoff)
        if setting is not None and "purpose" in setting:
            extra = f"setting {setting['purpose']}, tol {setting['tol']}: {why}"
            rec["notes"] = "; ".join(x for x in (rec["notes"], extra) if x)
        print(f"  {case:11s} {tool:13s} {rec['status']:7s} build {fmt_s(rec['build_s']):>6s}"
              f"  compile {fmt_s(rec['compile_s']):>6s}  integrate "
              f"{fmt_s(rec['integrate_s']):>6s}  total "
              f"{('>=' if rec['status'] == 'timeout' else '') + fmt_s(rec['total_s']):>7s} s"
              f"  energy {fmt_e(rec['energy_error'])}  residual {fmt_e(rec['residual'])}"
              + (f"  [{rec.get('error')}]" if rec["status"] == "error" else ""), flush=True)
        return rec

    # per case: 1. the peers, 2. the quivira settings sweep (the accuracy goal depends on the
    # peers' results), 3. the main quivira record with the chosen setting
    records = []
    sweep: dict[str, list] = {}
    chosen: dict[str, dict] = {}
    pairs: dict[str, dict | None] = {}
    beside: dict[str, dict] = {}
    beside_large: dict[str, dict] = {}
    for case in cases:
        print(f"\n== {case}", flush=True)
        peers = [run_record(case, tool) for tool in expected[case] if tool != "quivira"]
        records += peers
        if "quivira" not in expected[case]:
            continue
        goal, goal_text = energy_goal(peers)
        grid = [] if args.no_sweep else p["sweep"].get(case, [])
        rows = []
        for setting in grid:
            tool, kw = tool_kwargs("quivira", case, quick, setting)
            raw = spawn_median(tool, case, kw, cutoff, not quick)
            rows.append({**setting, "status": raw["status"],
                         **{k: raw.get(k) for k in ("build_s", "compile_s", "integrate_s",
                                                    "total_s", "energy_error", "residual")},
                         "settings": raw.get("settings", setting)})
            print(f"    sweep {setting['purpose']:11s} tol {setting['tol']!s:6s}: "
                  f"{raw['status']:7s} total {fmt_s(raw.get('total_s')):>6s} s "
                  f"(compile {fmt_s(raw.get('compile_s'))} s), energy error "
                  f"{fmt_e(raw.get('energy_error'))}", flush=True)
        if rows:
            sweep[case] = rows
            setting, why = choose_setting(rows, goal, goal_text)
        else:
            setting, why = dict(DEFAULT_SETTING), "default setting (no sweep)"
        chosen[case] = {**setting, "why": why, "energy_goal": goal}
        print(f"    -> {setting['purpose']}, tol {setting['tol']} ({why})", flush=True)
        records.append(run_record(case, "quivira", setting, why))
        if not quick:
            records += default_records(case, run_record)
            side = beside_peer(case, records, quick, cutoff)
            if side is not None:
                beside[case] = side
            if case_info(case)["n_bars"] >= LARGE_BARS:
                side = beside_peer(case, records, quick, cutoff, LARGE_PEER, LARGE_BOUNDS,
                                   setting)
                if side is not None:
                    beside_large[case] = side
            if rows:
                pairs[case] = paired.paired_default(
                    rows, ENERGY_GOAL,
                    lambda s, case=case: spawn(*_spec("quivira", case, quick, s), cutoff),
                    lambda case=case: spawn(*_spec("quivira_default", case, quick), cutoff))
    add_ratios(records)

    iftomm_rows, iftomm_targets = [], []
    if iftomm_cases and (not args.tools or set(args.tools) & {"quivira", "exudyn_h1e-4"}):
        print("\n== IFToMM problems (quivira's default call; Exudyn from coarse to fine steps)",
              flush=True)
        for case in iftomm_cases:
            rows = iftomm_section.run_case(case, spawn_median, cutoff,
                                           lambda text: print(text, flush=True))
            iftomm_rows += rows
            iftomm_targets.append(iftomm_section.target(rows))

    problems = check_plausible(records, expected, quick) + iftomm_section.plausibility(iftomm_rows)
    targets = [] if quick else (check_targets(records, beside_large)
                                 + default_targets(records, sweep, pairs, beside,
                                                   beside_large))
    targets += iftomm_targets
    machine = machine_info()
    doc = {
        "meta": {
            "command": "python -m benchmarks.run" + (" --quick" if quick else "")
                       + (f" --cutoff {cutoff:g}" if args.cutoff else ""),
            "date": machine["date"],
            "quick": quick, "cutoff_s": cutoff,
            "machine": {k: machine[k] for k in ("cpu", "cpus", "platform")},
            "load_average_start": load_start, "load_average_end": machine["load_average"],
            "versions": machine["versions"], "wall_s": time.perf_counter() - t_run,
            "energy_goal": ENERGY_GOAL, "accuracy_margin": ACCURACY_MARGIN,
        },
        "records": records,
        "iftomm": iftomm_rows,
        "quivira_settings_sweep": sweep,
        "chosen_settings": chosen,
        "default_vs_best": pairs,
        "beside_exudyn": beside,
        "beside_exudyn_large": beside_large,
        "targets": targets,
        "plausibility": {"ok": not problems, "problems": problems},
    }
    doc = clean(doc)

    print("\n== targets" + (" (checked on the full run only)" if quick else ""), flush=True)
    for t in targets:
        print(f"  {t['status']:6s} {t['target']}\n         {t['figures']}", flush=True)
    print("\n== plausibility: " + ("OK, all records complete and plausible" if not problems
                                   else "FAILED"), flush=True)
    for pr in problems:
        print(f"  {pr}", flush=True)

    out = args.output
    if out is None and not filtered:
        out = RESULTS / ("quick.json" if quick else "latest.json")
    if out is not None:
        tables = not quick or args.output is not None
        written = write_results(out, doc, markdown(doc) if tables else None)
        if tables:
            png = out.with_name(
                "scaling.png" if out.name == "latest.json" else out.stem + "_scaling.png")
            plot(doc, png)
            written.append(png)
        print("\nwrote " + ", ".join(str(w) for w in written), flush=True)
    print(f"wall time {time.perf_counter() - t_run:.0f} s, load average {load_average()}",
          flush=True)
    if problems:
        return 1
    if args.require_targets and any(t["status"] == "MISSED" for t in targets):
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

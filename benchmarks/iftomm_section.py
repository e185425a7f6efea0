"""The IFToMM section of ``benchmarks/run.py``: A02 (N = 40, 20 s) and A03 against Exudyn.

Per case (``quivira_oracles/peers/iftomm.py`` builds and measures both tools):

1. quivira: the call a user makes, ``model.simulate(t_end, n_points)`` with every default
   (singular poses passed), in a fresh process: first time (heyoka's disk cache off) and with
   a warm disk cache (a fresh cache folder filled by the same call in an earlier process: a
   user's second session). Runs under 1 s are the median of three processes.
2. Exudyn, generalized-α at a ladder of fixed steps from coarse to fine: the first step whose
   error against the reference is within the IFToMM threshold (1e-3) is *the step that reaches
   the threshold*; the ladder stops there, except that h = 1e-4 always runs (the target asks
   for both). A run whose full span would exceed :data:`BUDGET_S` (estimated from a pilot over
   :data:`PILOT_S` of the case) simulates a first part (while searching the threshold step at
   least :data:`MIN_SPAN_S`; A02: past its first two flat poses, at 0.72 s and 1.24 s) and
   extrapolates its time; its error over
   that part is a lower bound of the full span's, so the step it calls "reaching the threshold"
   is at least as coarse, and as fast, as the true one.

Target: quivira faster than Exudyn at the threshold step, with an error at least
:data:`ERROR_MARGIN` times smaller over the span both simulated (quivira's error is recorded
as it grows, output by output). The speed is judged on the warm-cache call, as the default
call's latency target is (A03 runs 0.03 s: its first-time total is mostly heyoka compiling, which
the record shows beside it).
"""

from __future__ import annotations

import math
import tempfile

#: Exudyn's fixed steps, coarse to fine, each dividing the output spacing (0.05 s, 1 ms) so
#: that every output is a step time (A03 is stiff: its spring and light links need ~µs). A03's
#: rungs are close (1 ms / 10, 20, 30, 40, 50, ...): its error falls as h², so a wide gap would
#: let the threshold step be much finer, and slower, than the coarsest that reaches 1e-3
LADDERS = {"a02": (1e-3, 5e-4, 2.5e-4, 1e-4),
           "a03": (1e-4, 5e-5, 1e-3 / 30, 2.5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6)}
#: the step always run beside the threshold step
FINE_H = 1e-4
#: the longest Exudyn run simulated in full (estimated wall seconds); longer ones stop early
BUDGET_S = 150.0
#: simulated seconds of the pilot run that estimates a step's cost, per problem
PILOT_S = {"a02": 0.02, "a03": 0.003}
#: an early-stopped run of the threshold search simulates at least this long (A02: its first
#: two flat poses); the h = 1e-4 run after the threshold step keeps to the budget
MIN_SPAN_S = {"a02": 1.5, "a03": 0.03}
THRESHOLD = 1e-3
ERROR_MARGIN = 1e4
FULL_CASES = ("a02-40", "a03")


def _finite(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def exudyn_label(h: float) -> str:
    """The record's tool name of Exudyn at the step ``h``: ``exudyn_h2e-5``, ``exudyn_h3.33e-5``."""
    mantissa, exponent = f"{h:.2e}".split("e")
    return f"exudyn_h{mantissa.rstrip('0').rstrip('.')}e{int(exponent)}"


def run_case(case: str, spawn, cutoff: float, log=print) -> list[dict]:
    """The records of one case: quivira's default call (first time, warm) and Exudyn's ladder.

    ``spawn(tool, case, kwargs, cutoff, repeat)`` runs one fresh worker process and returns
    its record (``repeat``: the median of three when it is shorter than a second).
    """
    from quivira_oracles.peers.iftomm import span

    kind = case.split("-")[0]
    t_end, n_points = span(case)
    dt_out = t_end / (n_points - 1)
    rows = []

    def record(tool: str, raw: dict, h: float | None = None) -> dict:
        rec = {"case": case, "tool": tool, "h": h, "t_end": t_end, **raw}
        rows.append(rec)
        part = "" if not raw.get("extrapolated") else \
            f" (simulated {raw['t_reached']:.3g} s, time extrapolated)"
        log(f"  {case:7s} {tool:16s} {raw.get('status', '?'):7s} total "
            f"{raw.get('total_s', float('nan')):8.3g} s  error "
            f"{raw.get('reference_error', float('nan')):.2e}  energy "
            f"{raw.get('energy_error', float('nan')) or float('nan'):.1e}{part}"
            + (f"  [{raw.get('error')}]" if raw.get("status") == "error" else ""))
        return rec

    record("quivira_default", spawn("iftomm_quivira", case, {}, cutoff, True))
    with tempfile.TemporaryDirectory(prefix="quivira-iftomm-cache-") as folder:
        spawn("iftomm_quivira", case, {"cache_dir": folder}, cutoff, False)  # fills the cache
        record("quivira_warm", spawn("iftomm_quivira", case, {"cache_dir": folder}, cutoff, True))
    reached = False
    for h in LADDERS[kind]:
        if reached and h != FINE_H:
            continue
        if reached and FINE_H not in LADDERS[kind]:
            break
        pilot = spawn("iftomm_exudyn", case, {"h": h, "t_stop": PILOT_S[kind]}, cutoff, False)
        kw = {"h": h}
        if pilot.get("status") == "ok":
            per_second = pilot["measured_s"] / PILOT_S[kind]
            if per_second * t_end > BUDGET_S:
                stop = BUDGET_S / per_second
                if not reached:
                    stop = max(MIN_SPAN_S[kind], stop)
                kw["t_stop"] = min(t_end, max(1, math.floor(stop / dt_out + 1e-9)) * dt_out)
        raw = spawn("iftomm_exudyn", case, kw, max(cutoff, 4 * BUDGET_S), True)
        rec = record(exudyn_label(h), raw, h)
        ok = rec.get("status") == "ok" and _finite(rec.get("reference_error"))
        if ok and not reached and rec["reference_error"] <= THRESHOLD:
            rec["reaches_threshold"] = reached = True
    if FINE_H not in LADDERS[kind] and not any(r.get("h") == FINE_H for r in rows):
        record(exudyn_label(FINE_H),
               spawn("iftomm_exudyn", case, {"h": FINE_H}, cutoff, True), FINE_H)
    q, warm = rows[0], rows[1]
    for r in rows[2:]:
        if q.get("status") == "ok" and r.get("status") == "ok":
            r["time_ratio_quivira_over_peer"] = q["total_s"] / r["total_s"]
            if warm.get("status") == "ok":
                r["time_ratio_quivira_warm_over_peer"] = warm["total_s"] / r["total_s"]
            if r.get("reference_error"):
                r["error_ratio_quivira_over_peer"] = q["reference_error"] / r["reference_error"]
    return rows


def target(rows: list[dict]) -> dict:
    """The IFToMM target for one case, with its figures."""
    case = rows[0]["case"]
    q, warm = rows[0], rows[1]
    what = (f"IFToMM {case}: quivira (default call; warm disk cache, a user's second session) "
            f"faster than Exudyn at the step that reaches the {THRESHOLD:g} threshold, error >= "
            f"{ERROR_MARGIN:g}x smaller")
    ex = [r for r in rows[2:] if r.get("status") == "ok" and _finite(r.get("reference_error"))]
    if q.get("status") != "ok" or warm.get("status") != "ok" or not ex:
        return {"target": what, "status": "NOT RUN", "figures": "no records"}
    thr = next((r for r in ex if r.get("reaches_threshold")), None)
    note = ""
    if thr is None:  # no step reached it: compare with the most accurate Exudyn run
        thr = min(ex, key=lambda r: r["reference_error"])
        note = f" (no step of the ladder reached {THRESHOLD:g}; the most accurate shown)"
    from quivira_oracles.peers.iftomm import error_until

    speed = thr["total_s"] / warm["total_s"]
    first = thr["total_s"] / q["total_s"]
    # the errors over the span both simulated (Exudyn's first part when it stopped early)
    q_err = max(error_until(q, thr["t_reached"]), error_until(warm, thr["t_reached"]))
    acc = thr["reference_error"] / max(q_err, 1e-300)
    ok = speed > 1.0 and acc >= ERROR_MARGIN
    ext = " (extrapolated from its first " \
          f"{thr['t_reached']:.3g} s; its error there is a lower bound)" \
        if thr.get("extrapolated") else ""
    span = f" over the first {thr['t_reached']:.3g} s" if thr.get("extrapolated") else ""
    figs = (f"quivira warm {warm['total_s']:.3g} s (first time {q['total_s']:.3g} s), error "
            f"{q_err:.1e}{span} ({q['reference_error']:.1e} over the whole run); Exudyn h = "
            f"{thr['h']:g}{note}: {thr['total_s']:.4g} s{ext}, error "
            f"{thr['reference_error']:.1e}: {speed:.3g}x faster warm ({first:.3g}x first "
            f"time), {acc:.2g}x smaller error")
    return {"target": what, "status": "OK" if ok else "MISSED", "figures": figs}


def plausibility(rows: list[dict]) -> list[str]:
    """Problems of the section: a failed quivira run, an inaccurate one, a failed Exudyn run."""
    out = []
    for r in rows:
        tag = f"{r['case']}/{r['tool']}"
        if r.get("status") != "ok":
            out.append(f"{tag}: {r.get('status')}: {r.get('error', '')}")
            continue
        if r["tool"].startswith("quivira"):
            if not (_finite(r.get("reference_error")) and r["reference_error"] <= 1e-6):
                out.append(f"{tag}: error {r.get('reference_error')} against the reference "
                           "> 1e-6")
            if abs(r.get("t_reached", 0.0) - r["t_end"]) > 1e-9:
                out.append(f"{tag}: stopped at t = {r.get('t_reached')}")
        off = (r.get("settings") or {}).get("max_output_time_offset")
        if off is not None and not (_finite(off) and off <= 1e-9):
            out.append(f"{tag}: outputs off the step times by {off}")
    return out


def markdown(rows: list[dict], targets: list[dict]) -> list[str]:
    lines = ["", "## IFToMM problems", "",
             "A02: the N-four-bar, N = 40 (81 bars), 20 s, 400 output steps; error = max |B0's "
             "x, y, ẋ, ẏ − closed form| (the IFToMM 'high precision' bound is 1e-3). A03: "
             "Andrews' squeezing mechanism, 0.03 s, 30 output steps; error = max |body angle − "
             "test-set angle| (rad; the reference is a DOP853 integration at 1e-13 in the 7 "
             "minimal angles). quivira: the default call, first-time compile. Exudyn: "
             "generalized-α (ρ∞ = 0.8, full Newton), dense solver (A02 with "
             "`ignoreSingularJacobian`: the sparse solver stops at the first flat pose), "
             "steps from coarse to fine until one reaches 1e-3, and h = 1e-4. A run whose "
             f"full span would take over {BUDGET_S:g} s simulates its first part only (the "
             "'simulated' column): its time is extrapolated in proportion, its error is that of "
             "the part (a lower bound).", "",
             "| case | tool | h | simulated s | total s | error | energy error | time ratio "
             "| warm time ratio | error ratio | |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in rows:
        def f(k, fmt, r=r):
            v = r.get(k)
            return format(v, fmt) if _finite(v) else "–"

        mark = "reaches 1e-3" if r.get("reaches_threshold") else ""
        total = f("total_s", ".4g") + (" (extrapolated)" if r.get("extrapolated") else "")
        lines.append(f"| {r['case']} | {r['tool']} | {f('h', 'g')} | {f('t_reached', '.3g')} | "
                     f"{total} | {f('reference_error', '.1e')} | {f('energy_error', '.1e')} | "
                     f"{f('time_ratio_quivira_over_peer', '.3g')} | "
                     f"{f('time_ratio_quivira_warm_over_peer', '.3g')} | "
                     f"{f('error_ratio_quivira_over_peer', '.2g')} | {mark or r['status']} |")
    lines.append("")
    for t in targets:
        lines.append(f"- **{t['status']}** — {t['target']}: {t['figures']}")
    return lines

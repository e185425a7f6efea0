"""Medians of fresh runs, and comparisons whose sides are both noisy, measured side by side.

:func:`median_of_runs` repeats a short run in fresh processes and keeps the median one.
*The default call against the best swept setting* (:func:`paired_default`), and *quivira
against Exudyn at h = 1e-3* where the headline figures are close to the bound
(:func:`peer_side_by_side`).

The settings sweep of ``benchmarks/run.py`` runs each setting once (the median of three fresh
processes below 5 s) and its fastest setting is the minimum over up to twelve such figures.
That minimum is biased low: with sub-second totals varying 10-25 % between processes, the
luckiest of twelve draws beats a typical run of the *same* code (measurements in
``docs/design/benchmark-method.md``). So once the sweep has chosen the fastest setting, it and
the default call run again, alternately in fresh processes (:func:`repeats` pairs), and the
ratio of their medians is the figure the target reads. Alternating also spreads a slow phase of
the machine over both.

The same holds against the peer: each headline figure is the median of three fresh processes
run back to back, so a slow phase of a minute or two can fall on one tool's three runs and not
on the other's (see ``docs/design/benchmark-method.md``). Where a headline ratio is within
:data:`CLOSE` of its bound, Exudyn and the quivira calls run again in rounds, one process each
per round, and the target reads the ratio of their medians.
"""

from __future__ import annotations

from collections.abc import Callable

from .results import finite as _finite

#: pairs for a best setting shorter than this many seconds: 9; below LONG_S: 3; else 1.
#: Nine up to 4 s: there the totals of fresh processes vary by 10-25 % on a 2-core machine,
#: and medians of five still move by 20 %; see docs/design/benchmark-method.md
SHORT_S, LONG_S = 4.0, 20.0
#: beside a peer run of at least LONG_S seconds (one round), a quivira call shorter than SHORT_S
#: runs this many times in the round and enters with its median: the peer's long run averages
#: the machine's slow phases over its length, a short process does not
SHORT_BESIDE_LONG = 3

#: a headline ratio within this factor of its bound, either side, is decided side by side:
#: the totals of fresh processes vary by 10-50 %, so farther ones cannot flip
CLOSE = 1.5


def repeats(total_s: float) -> int:
    """Pairs of runs for a best setting of ``total_s`` seconds (fewer for long runs)."""
    if total_s < SHORT_S:
        return 9
    return 3 if total_s < LONG_S else 1


def fastest_setting(rows: list[dict], bound: float) -> dict | None:
    """The sweep row with the smallest total among those with energy error <= ``bound``."""
    good = [r for r in rows if r.get("status") == "ok" and _finite(r.get("energy_error"))
            and r["energy_error"] <= bound and _finite(r.get("total_s"))]
    return min(good, key=lambda r: r["total_s"]) if good else None


def median(xs: list[float]) -> float:
    """The median of ``xs`` (the mean of the middle two for an even count)."""
    s = sorted(xs)
    k = len(s)
    return s[k // 2] if k % 2 else 0.5 * (s[k // 2 - 1] + s[k // 2])


def median_of_runs(run: Callable[[], dict], short_s: float, repeat: bool = True,
                   runs: int = 3) -> dict:
    """``run()`` once, and where it took under ``short_s`` seconds (``total_s``) ``runs - 1``
    more times: the record of the median total, with ``repeats_s`` the sorted totals.

    Totals of a few seconds vary by 10-50 % from one fresh process to the next (scheduling of
    the compile threads, page faults, the machine's slow phases), as much as the differences
    the targets compare; the median keeps one hiccup from deciding a ratio. A failed run (not
    ``status`` "ok") is returned as it is; without ``repeat`` the first record is.
    """
    first = run()
    if not repeat or first.get("status") != "ok" or not first.get("total_s", 1e9) < short_s:
        return first
    records = [first] + [run() for _ in range(runs - 1)]
    if any(r.get("status") != "ok" for r in records):
        return next(r for r in records if r.get("status") != "ok")
    records.sort(key=lambda r: r["total_s"])
    out = records[len(records) // 2]
    out["repeats_s"] = [r["total_s"] for r in records]
    return out


def paired_default(rows: list[dict], bound: float, run_best: Callable[[dict], dict],
                   run_default: Callable[[], dict]) -> dict | None:
    """Run the fastest swept setting and the default call alternately; their medians.

    ``run_best(setting)`` and ``run_default()`` each run one fresh process and return its
    record (``status``, ``total_s``, ``energy_error``). Returns ``{"setting", "best_s",
    "default_s", "ratio", "default_energy_error", "status"}``, or None without a setting
    that reaches ``bound``; ``status`` is not "ok" when a run failed.
    """
    best = fastest_setting(rows, bound)
    if best is None:
        return None
    setting = {"purpose": best["purpose"], "tol": best["tol"]}
    runs = side_by_side({"best": lambda: run_best(setting), "default": run_default},
                        repeats(best["total_s"]))
    best_s, default_s = runs["totals"]["best"], runs["totals"]["default"]
    res = {"setting": setting, "status": runs["status"], "best_s": best_s,
           "default_s": default_s}
    if runs["status"] != "ok":
        return res
    energies = runs["energy_errors"]["default"]
    finite = [e for e in energies if _finite(e)]
    med = runs["medians"]
    res["ratio"] = med["default"] / med["best"]
    res["default_energy_error"] = max(finite) if len(finite) == len(energies) else None
    print(f"    paired: default {med['default']:.3g} s vs {setting['purpose']}, tol "
          f"{setting['tol']} {med['best']:.3g} s (medians of {len(best_s)}): "
          f"{res['ratio']:.2f}x", flush=True)
    return res


def close_to_bound(ratio: float, bound: float) -> bool:
    """True when ``ratio`` lies within a factor :data:`CLOSE` of ``bound``, either side."""
    return _finite(ratio) and bound / CLOSE <= ratio <= bound * CLOSE


def side_by_side(runners: dict[str, Callable[[], dict]], rounds: int,
                 samples: dict[str, int] | None = None) -> dict:
    """Run every runner once per round (``samples[name]`` times, back to back, where given),
    in the order given, for ``rounds`` rounds.

    ``runners`` maps a name to a function that runs one fresh process and returns its record
    (``status``, ``total_s``, ``energy_error``). Returns ``{"status": "ok", "totals": {name:
    [s, ...]}, "energy_errors": {name: [...]}, "medians": {name: s}}``; at the first failed
    run it stops, with that run's ``status``, ``"failed"`` the runner's name and no medians.
    """
    totals: dict[str, list[float]] = {name: [] for name in runners}
    energies: dict[str, list] = {name: [] for name in runners}
    samples = samples or {}
    for _ in range(rounds):
        for name, run in runners.items():
            for _ in range(samples.get(name, 1)):
                rec = run()
                if rec.get("status") != "ok" or not _finite(rec.get("total_s")):
                    return {"status": rec.get("status", "error"), "failed": name,
                            "totals": totals, "energy_errors": energies}
                totals[name].append(float(rec["total_s"]))
                energies[name].append(rec.get("energy_error"))
    return {"status": "ok", "totals": totals, "energy_errors": energies,
            "medians": {name: median(v) for name, v in totals.items()}}


def peer_side_by_side(peer: str, headline: dict[str, float], bounds: dict[str, float],
                      runners: dict[str, Callable[[], dict]]) -> dict | None:
    """quivira's calls beside the peer, in rounds, where a headline ratio is close to its bound.

    ``headline`` holds the headline totals of ``peer`` and of each quivira call,
    ``bounds[call]`` the largest allowed ratio call / peer, ``runners`` one fresh run of each
    (``peer`` among them). The calls whose headline ratio is within :data:`CLOSE` of its
    bound run in :func:`repeats` rounds of the longest headline total, each round the peer
    first; returns :func:`side_by_side`'s result with ``"ratios"`` (median of the call over
    median of the peer) and ``"rounds"``, or None when no ratio is close.
    """
    base = headline.get(peer)
    close = [c for c, b in bounds.items() if _finite(base) and _finite(headline.get(c))
             and close_to_bound(headline[c] / base, b)]
    if not close:
        return None
    rounds = repeats(max(headline[n] for n in [peer, *close]))
    samples = {c: SHORT_BESIDE_LONG for c in close
               if headline[peer] >= LONG_S and headline[c] < SHORT_S}
    res = side_by_side({n: runners[n] for n in [peer, *close]}, rounds, samples)
    res["rounds"] = rounds
    if res["status"] == "ok":
        med = res["medians"]
        res["ratios"] = {c: med[c] / med[peer] for c in close}
        print("    side by side with " + peer + ": " + ", ".join(
            f"{c} {med[c]:.3g} s / {med[peer]:.3g} s = {res['ratios'][c]:.2f}x" for c in close)
            + f" (medians of {rounds} round(s)"
            + (f"; {', '.join(samples)}: {SHORT_BESIDE_LONG} runs a round)" if samples else ")"),
            flush=True)
    return res

"""Speed of the widgets: redraw after an edit, one animation frame, value edit → new motion.

Run from the repository root::

    python -m benchmarks.widgets_speed [--repeat 15]

Prints a table and writes ``benchmarks/results/widgets_speed.json``. Targets:

* redraw after an edit of a 50-bar model (``chain(50)``) ≤ 50 ms;
* one animation frame update of a 20-bar model (``scissor(10)``) ≤ 30 ms;
* value edit (a bar's mass typed into the editor of a whole Studio) → new trajectory of the
  20-bar lattice over 0.3 s ≤ 0.2 s, compiled code reused.

The redraw and frame cases run twice: on the plain models, and with force elements drawn too
(``chain(50)`` with a torsional spring at every joint and a spring-damper from every fifth bar
to ground; ``scissor(10)`` with a torsional spring-damper at every joint, spring-dampers and a
motor), where a frame also moves the zigzags, pistons, coils and arrows and the cursor of the
energy-ledger plot.

What is timed is the kernel's work, for both ways of showing figures:

* ``static``: Agg rendering encoded into an ``ipywidgets.Image`` (PNG for full draws, JPEG
  for the blitted animation layer).
* ``ipympl``: ipympl's canvas widget after a (simulated) browser connected: a blit renders
  the moving layer and ipympl encodes the changed pixels; a full draw is deferred to the
  browser's request (``draw_idle``), so for full draws the synchronous Agg render is timed
  separately.

Numbers are medians over ``--repeat`` runs (min in brackets), in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import heyoka as hy  # noqa: E402
import ipywidgets  # noqa: E402
import numpy as np  # noqa: E402

import quivira  # noqa: E402
from benchmarks.harness import load_average, machine_info, write_results  # noqa: E402
from quivira.examples import chain, scissor  # noqa: E402
from quivira_widgets import ModelView, MotionPlayer, Studio  # noqa: E402
from quivira_widgets._figure import ipympl_available  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "widgets_speed.json"
TARGETS_MS = {"redraw_50_bars": 50.0, "frame_20_bars": 30.0, "value_edit_20_bars": 200.0}


def with_springs(m):
    """``m`` with force elements: a torsional spring-damper at every joint (between its first
    two bars), a spring-damper from every fifth bar's end to a ground point above it, and a
    sinusoidal motor on bar 0."""
    for jt in m.joints:
        m.add_torsional_spring(jt.bars[0], jt.bars[1], k=2.0, c=0.02)
    for i in range(0, m.n_bars, 5):
        x, y = m.bars[i].point(0.5)
        m.add_spring_damper(i, 0.5, None, k=20.0, c=0.5, ground_point=(x + 0.3, y + 1.0))
    A = m.add_parameter("motor_A", 1.0)
    m.add_torque_actuator(0, A * hy.sin(2.0 * hy.time), name="motor")
    return m


def timed(fn, repeat: int, warmup: int = 2) -> dict:
    """Median and min wall time of ``fn()`` in ms."""
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        ts.append(1e3 * (time.perf_counter() - t0))
    return {"median_ms": statistics.median(ts), "min_ms": min(ts), "n": repeat}


def connect(pane) -> None:
    """Make an ipympl canvas behave as if a browser were showing it: the message its front
    end sends when it is displayed, through ipywidgets' message protocol."""
    canvas = pane.figure.canvas
    canvas._handle_msg({"content": {"data": {"method": "custom",
                                             "content": {"type": "initialized"}}},
                        "buffers": []})
    canvas.draw()


def bench_redraw(backend: str, repeat: int, springs: bool = False) -> dict:
    m = with_springs(chain(50)) if springs else chain(50)
    view = ModelView(m, backend=backend)
    if backend == "ipympl":
        connect(view.pane)
    out = {}
    masses = iter(np.linspace(1.0, 2.0, 10 * repeat + 10))
    out["view_refresh_after_edit"] = timed(lambda: m.set_bar_mass(10, next(masses)), repeat)
    # the same, minus the core's own commit: the view's redraw alone
    out["view_redraw_only"] = timed(view.refresh, repeat)
    lengths = iter(np.linspace(1.0, 1.05, 10 * repeat + 10))
    out["length_edit"] = timed(lambda: m.set_bar_length(49, next(lengths)), repeat)
    m_alone = with_springs(chain(50)) if springs else chain(50)
    out["core_edit_alone"] = timed(lambda: m_alone.set_bar_mass(10, next(masses)), repeat)
    # worst case: the limits change, everything is drawn again (synchronous Agg render)
    def full():
        view.fit()
        view.pane.render_now()
    out["full_redraw"] = timed(full, max(3, repeat // 3))
    out["n_bars"] = m.n_bars
    view.close()
    return out


def bench_frame(backend: str, repeat: int, springs: bool = False) -> dict:
    m = with_springs(scissor(10)) if springs else scissor(10)
    p = MotionPlayer(m, backend=backend, t_end=0.3, n_frames=61)
    if p.simulate() is None:
        raise RuntimeError(p.status.text)
    if backend == "ipympl":
        connect(p.view.pane)
        connect(p.pane)
        connect(p.ledger.pane)
    frames = iter(list(range(1, 61)) * (repeat + 3))
    out = {"frame_update": timed(lambda: setattr(p.slider, "value", next(frames)), repeat),
           "view_only": timed(lambda: p.view.show_state(p.trajectory.q[next(frames)]), repeat),
           "n_bars": m.n_bars}
    p.close()
    return out


def bench_value_edit(backend: str, repeat: int) -> dict:
    """In a whole Studio (editor with its undo history, view, player, inspector): the mass
    field of bar 3 edited as a user types it."""
    m = scissor(10)
    studio = Studio(m, backend=backend, t_end=0.3, n_frames=31)
    ed, p = studio.editor, studio.player
    t0 = time.perf_counter()
    p.simulate()
    first = time.perf_counter() - t0
    if backend == "ipympl":
        connect(p.view.pane)
        connect(p.pane)
    ed.bar_select.value = 3
    masses = iter(np.linspace(1.0, 1.5, repeat + 4))
    runs = []

    def edit():
        ed.bar_mass.text.value = repr(float(next(masses)))  # typed, parsed in the kernel
        runs.append(dict(p.run_info))

    total = timed(edit, repeat)
    runs = runs[-repeat:]
    traj_ms = [1e3 * (r["compile_s"] + r["integrate_s"]) for r in runs]
    out = {"edit_to_drawn_motion": total,
           "edit_to_trajectory": {"median_ms": statistics.median(traj_ms),
                                  "min_ms": min(traj_ms), "n": len(traj_ms)},
           "all_reused": all(r["reused"] for r in runs),
           "first_run_with_compile_s": first, "n_bars": m.n_bars,
           "trajectory_points": runs[-1]["n_points"] if runs else None}
    studio.close()
    return out


def fmt(d: dict) -> str:
    return f"{d['median_ms']:7.1f} ms  [{d['min_ms']:.1f}]"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    backends = ["static"] + (["ipympl"] if ipympl_available() else [])
    machine = machine_info()
    results: dict = {"machine": {"python": machine["versions"]["python"], **machine},
                     "versions": {"quivira": quivira.__version__,
                                  "ipywidgets": ipywidgets.__version__,
                                  "matplotlib": matplotlib.__version__},
                     "targets_ms": TARGETS_MS, "backends": {}}
    for be in backends:
        print(f"== backend {be}", flush=True)
        r = {"redraw": bench_redraw(be, args.repeat)}
        print(f"  redraw after an edit, {r['redraw']['n_bars']} bars: "
              f"{fmt(r['redraw']['view_refresh_after_edit'])} (view alone "
              f"{fmt(r['redraw']['view_redraw_only'])}; core edit alone "
              f"{fmt(r['redraw']['core_edit_alone'])}; full redraw "
              f"{fmt(r['redraw']['full_redraw'])})", flush=True)
        r["frame"] = bench_frame(be, args.repeat)
        print(f"  animation frame, {r['frame']['n_bars']} bars: "
              f"{fmt(r['frame']['frame_update'])} (view alone {fmt(r['frame']['view_only'])})",
              flush=True)
        r["redraw_springs"] = bench_redraw(be, args.repeat, springs=True)
        rs = r["redraw_springs"]
        print(f"  with springs: redraw after an edit, {rs['n_bars']} bars: "
              f"{fmt(rs['view_refresh_after_edit'])} (view alone "
              f"{fmt(rs['view_redraw_only'])})", flush=True)
        r["frame_springs"] = bench_frame(be, args.repeat, springs=True)
        fs = r["frame_springs"]
        print(f"  with springs: animation frame, {fs['n_bars']} bars: "
              f"{fmt(fs['frame_update'])} (view alone {fmt(fs['view_only'])})", flush=True)
        r["value_edit"] = bench_value_edit(be, max(5, args.repeat // 2))
        ve = r["value_edit"]
        print(f"  value edit → new trajectory, {ve['n_bars']} bars, 0.3 s: "
              f"{fmt(ve['edit_to_trajectory'])}; drawn {fmt(ve['edit_to_drawn_motion'])}; "
              f"compiled code reused: {ve['all_reused']} (first run with compiling "
              f"{ve['first_run_with_compile_s']:.2f} s)", flush=True)
        r["verdict"] = {
            "redraw_50_bars": r["redraw"]["view_refresh_after_edit"]["median_ms"]
            <= TARGETS_MS["redraw_50_bars"],
            "frame_20_bars": r["frame"]["frame_update"]["median_ms"]
            <= TARGETS_MS["frame_20_bars"],
            "redraw_50_bars_with_springs": rs["view_refresh_after_edit"]["median_ms"]
            <= TARGETS_MS["redraw_50_bars"],
            "frame_20_bars_with_springs": fs["frame_update"]["median_ms"]
            <= TARGETS_MS["frame_20_bars"],
            "value_edit_20_bars": ve["edit_to_trajectory"]["median_ms"]
            <= TARGETS_MS["value_edit_20_bars"] and ve["all_reused"],
        }
        print(f"  targets met: {r['verdict']}", flush=True)
        results["backends"][be] = r
    results["machine"]["load_average_after"] = load_average()
    write_results(RESULTS, results)
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

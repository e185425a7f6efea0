"""Exudyn: Andrews' squeezing mechanism (IFToMM A03) with rigid bodies, generalized-α.

The mechanism is read from the independent oracle ``quivira_oracles/iftomm.py``
(``a03_model()``: 7 bodies with their masses, centroidal inertias and named points in body
frames relative to the mass centre; 10 pins; the ground points O, A, B, C; the spring from
BDE's point D to C; the torque on the crank OF; no gravity), and built the way
``exudyn_peer.py`` builds bar linkages:

* a ``NodeRigidBody2D`` at each mass centre (coordinates ``(x, y, θ)``, the oracle's body
  frames), starting from the test set's consistent pose at rest (``a03_maximal_state`` of
  ``A03_Q0``), with an ``ObjectRigidBody2D`` of the body's mass and inertia;
* each pin an ``ObjectJointRevolute2D`` between ``MarkerBodyPosition`` markers at the body
  points (a ground point on the ``ObjectGround``);
* the spring an ``ObjectConnectorSpringDamper`` (stiffness ``c0``, reference length ``l0``,
  no damping) from D to C: Exudyn's ``f = k (L - L0)`` is a tension, as the oracle's
  potential ``c0 (L - l0)²/2``;
* the torque a ``LoadTorqueVector`` ``[0, 0, τ]`` on a ``MarkerBodyRigid`` of OF
  (counter-clockwise positive, as the oracle).

Implicit generalized-α with spectral radius 0.8, full Newton, consistent initial
accelerations, fixed step ``h``, the dense solver (21 coordinates, 20 constraint rows).
Outputs: node coordinates and velocities stored by sensors at the output times.

Times: ``build_s`` = creating the system and ``mbs.Assemble()``; ``integrate_s`` =
``exu.SolveDynamic`` plus reading the sensors (nothing is compiled).
"""

from __future__ import annotations

import time

import numpy as np

from . import exudyn_peer


def _oracle():
    from .. import iftomm

    return iftomm


def build(n_points: int, t_end: float):
    """``(exu, mbs, q_sensors, v_sensors, x0)``: the assembled system and its start state."""
    import exudyn as exu
    from exudyn import itemInterface as ii

    o = _oracle()
    model = o.a03_model()
    x0, _ = o.a03_maximal_state(o.A03_Q0, np.zeros(7))
    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    nodes, bodies = [], []
    for b, body in enumerate(model.bodies):
        n = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=list(x0[3 * b:3 * b + 3]),
                                           initialVelocities=[0.0, 0.0, 0.0]))
        nodes.append(n)
        bodies.append(mbs.AddObject(ii.ObjectRigidBody2D(nodeNumber=n, mass=body.mass,
                                                         inertia=body.inertia)))

    def at(body: int | None, name: str):
        if body is None:
            gx, gy = model.ground[name]
            return mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground,
                                                       localPosition=[gx, gy, 0.0]))
        u, v = model.bodies[body].points[name]
        return mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[body],
                                                   localPosition=[u, v, 0.0]))

    for pin in model.pins:
        mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[at(pin.body_b, pin.point),
                                                              at(pin.body_a, pin.point)]))
    for sp in model.springs:
        mbs.AddObject(ii.ObjectConnectorSpringDamper(
            markerNumbers=[at(None, sp.ground_point), at(sp.body_a, sp.point_a)],
            stiffness=sp.stiffness, referenceLength=sp.rest_length, damping=0.0))
    for body, tau in model.torques:
        mr = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=bodies[body],
                                              localPosition=[0.0, 0.0, 0.0]))
        mbs.AddLoad(ii.LoadTorqueVector(markerNumber=mr, loadVector=[0.0, 0.0, tau]))
    q_sensors, v_sensors = exudyn_peer.node_sensors(mbs, nodes)
    mbs.Assemble()
    return exu, mbs, q_sensors, v_sensors, x0


def run(h: float = 1e-5, t_end: float = 0.03, n_points: int = 31,
        spectral_radius: float = 0.8, states: bool = False) -> dict:
    """Simulate ``[0, t_end]`` at the fixed step ``h``; times and, if ``states``, ``q``, ``qd``
    (``n_points`` × 21, per body ``(x, y, θ)`` of its mass centre, the oracle's frames)."""
    n_steps = int(round(t_end / h))
    t0 = time.perf_counter()
    exu, mbs, q_sensors, v_sensors, x0 = build(n_points, t_end)
    t1 = time.perf_counter()
    exudyn_peer.solve(exu, mbs, h, t_end, n_points, "EXUdense",
                      spectral_radius=spectral_radius)
    t_out = np.linspace(0.0, t_end, n_points)
    q, qd, off_grid = exudyn_peer.read_states(mbs, q_sensors, v_sensors, x0, t_out)
    t2 = time.perf_counter()
    extra = {"t": t_out, "q": q, "qd": qd} if states else {}
    return {**extra, "build_s": t1 - t0, "compile_s": 0.0, "integrate_s": t2 - t1,
            "total_s": t2 - t0,
            "settings": {"h": h, "n_steps": n_steps, "spectral_radius": spectral_radius,
                         "newton": "full", "linear_solver": "EXUdense",
                         "max_output_time_offset": off_grid}}


if __name__ == "__main__":  # the error by step: python -m quivira_oracles.peers.exudyn_a03
    from .iftomm import a03_energy_balance_error, reference_errors

    print("| h | angle error (rad) | rate error (rad/s) | energy balance | total s |")
    print("|---:|---:|---:|---:|---:|")
    for h in (1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6):
        r = run(h=h, states=True)
        e = reference_errors("a03", r["t"], r["q"], r["qd"])
        print(f"| {h:g} | {e['reference_error']:.2e} | {e['rate_error']:.2e} | "
              f"{a03_energy_balance_error(r['q'], r['qd']):.1e} | {r['total_s']:.3f} |",
              flush=True)

"""Exudyn: ``ObjectRigidBody2D`` bars, ``RevoluteJoint2D`` pins, implicit generalized-α.

Each bar is a ``NodeRigidBody2D`` (coordinates ``(x, y, θ)`` of its centre, i.e. the same
maximal coordinates as quivira) carrying an ``ObjectRigidBody2D`` of mass ``m`` and inertia
``m L²/12``, with gravity as a ``LoadMassProportional``. Pins between bars and pins to the
ground are ``ObjectJointRevolute2D`` between ``MarkerBodyPosition`` markers; a roller (a support
free in x or y) is an ``ObjectJointPrismatic2D`` without rotation constraint between a rigid
marker of the bar and one of the ground, with the normal of the sliding axis fixed in the
ground frame. As in ``quivira_oracles/exudyn_planar.py`` (which this module imitates): implicit
generalized-α with spectral radius 0.8 (clean index-3 multipliers), full Newton
(``useModifiedNewton = False``), consistent initial accelerations, fixed step ``h``; Newton
tolerances are Exudyn's defaults (relative 1e-8, absolute 1e-10) unless given: the energy
error is set by ``h`` (measured: Newton tolerance 1e-12 gives the same figures, 1.8x slower).
The linear solver is the faster one for the size (``solver="auto"``, see ``DENSE_UP_TO``):
Exudyn's default dense solver would make the 64-bar chain at ``h = 1e-4`` about 30x slower.
Modified Newton would be about 1.8x faster on the 64-bar chain at the same energy error; it is
not used, following the oracle's finding for clean forces (``run(..., full_newton=False)``).

Outputs: node coordinates and velocities stored by sensors at the output times.

Times: ``build_s`` = creating the system (nodes, bodies, markers, joints, sensors) and
``mbs.Assemble()``; ``compile_s`` = 0 (nothing is generated); ``integrate_s`` =
``exu.SolveDynamic`` plus reading the sensors.
"""

from __future__ import annotations

import time

import numpy as np

from . import figures, mechanism, output_times

SOLVERS = ("auto", "EXUdense", "EigenSparse", "EigenDense")
#: "auto" takes the dense solver up to this many coordinates, the sparse one above: measured
#: (10 s chains, h = 1e-4) dense is 2x faster up to 4 bars and equal at 8 bars, while for 64
#: bars it takes 92 s per simulated 0.5 s against 3.1 s for EigenSparse
DENSE_UP_TO = 24


def build(mech, n_points: int = 101):
    """``(exu, mbs, ref, q_sensors, v_sensors)``: the assembled Exudyn system."""
    import exudyn as exu
    from exudyn import itemInterface as ii

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    ref = mech.q0()
    nodes, bodies = [], []
    for i, (x, y, th, length, mass) in enumerate(mech.bars):
        v0 = [0.0, 0.0, 0.0] if mech.velocities is None else list(mech.velocities[i])
        n = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=[x, y, th],
                                           initialVelocities=v0))
        b = mbs.AddObject(ii.ObjectRigidBody2D(nodeNumber=n, mass=mass,
                                               inertia=mass * length**2 / 12.0))
        nodes.append(n)
        bodies.append(b)
        if mech.g != 0.0:
            mm = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=b))
            mbs.AddLoad(ii.LoadMassProportional(markerNumber=mm, loadVector=[0.0, -mech.g, 0.0]))

    def local(i, s):
        return [s * mech.bars[i][3], 0.0, 0.0]

    for a, sa, b, sb in mech.joints:
        m0 = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[a], localPosition=local(a, sa)))
        m1 = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[b], localPosition=local(b, sb)))
        mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[m0, m1]))
    for bar, s, free_x, free_y, x0, y0 in mech.supports:
        if free_x and free_y:
            continue
        if not free_x and not free_y:
            mg = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=ground,
                                                     localPosition=[x0, y0, 0.0]))
            mb = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[bar],
                                                     localPosition=local(bar, s)))
            mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[mg, mb]))
            continue
        # roller: (p_ground - p_bar) . n = 0 with the normal n fixed in the ground frame
        mb = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=bodies[bar], localPosition=local(bar, s)))
        mg = mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=ground, localPosition=[x0, y0, 0.0]))
        normal = [0.0, 1.0, 0.0] if free_x else [1.0, 0.0, 0.0]
        axis = [1.0, 0.0, 0.0] if free_x else [0.0, 1.0, 0.0]
        mbs.AddObject(ii.ObjectJointPrismatic2D(markerNumbers=[mb, mg], axisMarker0=axis,
                                                normalMarker1=normal, constrainRotation=False))

    q_sensors, v_sensors = node_sensors(mbs, nodes)
    mbs.Assemble()
    return exu, mbs, ref, q_sensors, v_sensors


def run(case: str, h: float = 1e-4, t_end: float | None = None, n_points: int = 101,
        spectral_radius: float = 0.8, full_newton: bool = True, solver: str = "auto",
        newton_tol: float | None = None, states: bool = False,
        ignore_singular_jacobian: bool = False) -> dict:
    if solver not in SOLVERS:
        raise ValueError(f"solver must be one of {SOLVERS}, got {solver!r}")
    mech = mechanism(case, t_end)
    if solver == "auto":
        solver = "EXUdense" if mech.n_coordinates <= DENSE_UP_TO else "EigenSparse"
    n_steps = int(round(mech.t_end / h))
    t0 = time.perf_counter()
    exu, mbs, ref, q_sensors, v_sensors = build(mech, n_points)
    t1 = time.perf_counter()

    solve(exu, mbs, h, mech.t_end, n_points, solver, spectral_radius=spectral_radius,
          full_newton=full_newton, newton_tol=newton_tol,
          ignore_singular_jacobian=ignore_singular_jacobian)
    t_out = output_times(mech, n_points)
    q, qd, off_grid = read_states(mbs, q_sensors, v_sensors, ref, t_out)
    t2 = time.perf_counter()
    extra = {"t": t_out, "q": q, "qd": qd} if states else {}
    return {
        **extra,
        "build_s": t1 - t0,
        "compile_s": 0.0,
        "integrate_s": t2 - t1,
        "total_s": t2 - t0,
        **figures(mech, t_out, q, qd),
        "settings": {"h": h, "n_steps": n_steps, "spectral_radius": spectral_radius,
                     "newton": "full" if full_newton else "modified",
                     "newton_tol": newton_tol or "default (1e-8 rel, 1e-10 abs)",
                     "linear_solver": solver,
                     "max_output_time_offset": off_grid},
    }


def node_sensors(mbs, nodes: list) -> tuple[list, list]:
    """Sensors of the coordinates and velocities of ``nodes``, stored in memory."""
    import exudyn as exu
    from exudyn import itemInterface as ii

    def sensor(n, what):
        return mbs.AddSensor(ii.SensorNode(nodeNumber=n, outputVariableType=what,
                                           storeInternal=True))

    ovt = exu.OutputVariableType
    return [sensor(n, ovt.Coordinates) for n in nodes], [sensor(n, ovt.Coordinates_t)
                                                         for n in nodes]


def solve(exu, mbs, h: float, t_end: float, n_points: int, solver: str,
          spectral_radius: float = 0.8, full_newton: bool = True,
          newton_tol: float | None = None, ignore_singular_jacobian: bool = False) -> None:
    """Generalized-α at the fixed step ``h`` over ``[0, t_end]``, sensors written at the
    ``n_points`` output times; raises RuntimeError when Exudyn's solver fails."""
    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = int(round(t_end / h))
    ti.endTime = float(t_end)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = float(spectral_radius)
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = not full_newton
    if newton_tol is not None:
        ti.newton.relativeTolerance = float(newton_tol)
        ti.newton.absoluteTolerance = float(newton_tol)
    ss.linearSolver.solverType = getattr(exu.LinearSolverType, solver)
    # passing singular poses (IFToMM A02): the dense LU with full pivoting skips dependent rows
    ss.linearSolver.ignoreSingularJacobian = bool(ignore_singular_jacobian)
    ss.solution.file.write = False
    # a hair under the output spacing, so rounding of the step times never skips an output
    # (0.999 x the spacing drifts: a write is due at "last write + period")
    ss.solution.sensors.writePeriod = (1.0 - 1e-7) * t_end / (n_points - 1)
    ss.show.statistics = False
    ss.show.computationTime = False
    if not exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha):
        raise RuntimeError("Exudyn dynamic solver failed")


def read_states(mbs, q_sensors: list, v_sensors: list, ref: np.ndarray,
                t_out: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """``(q, qd, offset)``: the nodes' coordinates (``ref`` added) and velocities resampled at
    ``t_out``, and the largest distance of an output time from the stored step times (0 when
    every output falls on a step, as it should)."""
    q = np.empty((len(t_out), 3 * len(q_sensors)))
    qd = np.empty_like(q)

    def resample(sensor):
        d = np.asarray(mbs.GetSensorStoredData(sensor), dtype=float)
        ts, vals = d[:, 0], d[:, 1:]
        keep = np.append(np.diff(ts) > 0.0, True)  # drop repeated time stamps
        ts, vals = ts[keep], vals[keep]
        return np.column_stack([np.interp(t_out, ts, vals[:, c]) for c in range(3)]), ts

    sampled = None
    for i, (qs, vs) in enumerate(zip(q_sensors, v_sensors)):
        q[:, 3 * i: 3 * i + 3] = resample(qs)[0] + ref[3 * i: 3 * i + 3]
        qd[:, 3 * i: 3 * i + 3], sampled = resample(vs)
    return q, qd, float(np.max(np.min(np.abs(t_out[:, None] - sampled[None, :]), axis=1)))

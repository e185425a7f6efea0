"""Independent Exudyn oracle for springs, dampers and actuators on planar bar linkages.

This module does not use Quivira. It builds the mechanism of a *spec* (the plain-dict model
description of :mod:`oracles.force_elements_sympy`: bars, joints, ground pins, springs,
torsional springs, actuators) in Exudyn (https://github.com/jgerstmayr/EXUDYN, exudyn
1.13.6) with ``NodeRigidBody2D`` + ``ObjectRigidBody2D`` bars and ``ObjectJointRevolute2D``
pins, and integrates it with Exudyn's implicit generalized-alpha solver (index-3
constraints, full Newton), exactly as :mod:`oracles.exudyn_planar` does.

Conventions (the same as Quivira's)
-----------------------------------
Bar ``i``: centre ``(x_i, y_i)``, angle ``theta_i``; point ``s`` is
``centre + s*L*(cos theta, sin theta)``; inertia ``m L^2/12``; gravity ``g`` along ``-y``.
``q`` is ABSOLUTE ``[x_0, y_0, theta_0, x_1, ...]`` (Exudyn stores displacements from the
reference configuration; the reference is added back here). Initial velocities must be
consistent with the pins (Exudyn does not project them).

What Exudyn computes (exudyn 1.13.6; docs/RST/items/*.rst and
main/src/Objects/CObjectConnectorTorsionalSpringDamper.cpp of the Exudyn repository; the
signs below were also verified numerically on a free bar with this very version)
---------------------------------------------------------------------------------------
* ``ObjectConnectorSpringDamper`` (markers m0, m1 = ``MarkerBodyPosition``): with
  ``Delta p = p_m1 - p_m0``, ``L = |Delta p|``, ``v_f = Delta p / L`` (SysError if
  ``L = 0``),
  ``f_SD = k (L - L0) + d (dL/dt - velocityOffset) + force``,
  ``dL/dt = (v_m1 - v_m0) . v_f``. The force on m1 is ``-f_SD v_f`` and on m0 ``+f_SD v_f``
  (the generalized forces ``+-f_SD J_pos^T v_f`` are left-hand-side terms), so ``f_SD > 0``
  is TENSION. ``referenceLength`` = ``l0``, ``stiffness`` = ``k``, ``damping`` = ``c``;
  ``force`` (a constant tension added, like shortening ``L0`` by ``force/k``) and
  ``velocityOffset`` are left at 0. ``OutputVariableType.ForceLocal`` is ``f_SD``,
  ``Distance`` is ``L``.
  Verified: a bar centre at ``(1.2, 0)`` tied to the origin with ``k = 100``, ``L0 = 1``
  gives ``ForceLocal = +20`` and ``a_x = -20/m``.
* ``ObjectConnectorTorsionalSpringDamper`` (markers m0, m1 = ``MarkerBodyRigid``, the
  only torsional element for 2-D rigid bodies in 1.13.6; there is no
  ``ObjectConnectorRotationalSpringDamper``): relative rotation ``Delta theta`` = the
  z-angle of ``A_m0^T A_m1``, which for planar bodies is ``theta_m1 - theta_m0`` WRAPPED to
  ``(-pi, pi]`` -- unless a ``NodeGenericData`` with one coordinate is attached
  (``nodeNumber``), which then tracks the continuous angle (initialised here to the
  initial ``theta_b - theta_a``, so it equals Quivira's unwrapped ``phi``).
  ``Delta omega = omega_m1 - omega_m0``,
  ``tau_SD = k (Delta theta - offset) + d (Delta omega - velocityOffset) + torque``;
  the torque on the body of m1 is ``-tau_SD`` and on m0 ``+tau_SD``. So ``offset`` is the
  rest angle ``phi0`` and the ``torque`` parameter is a preload ``tau0`` acting like the rest
  angle ``phi0 - tau0/k``. ``TorqueLocal`` is ``tau_SD``, ``Rotation`` is ``Delta theta``.
  Verified on a free bar (``I = 0.5``, ``k = 10``, angle 0.3 to ground): angular
  acceleration ``-6`` (``-8`` with ``torque = 1``, ``-4`` with ``offset = 0.1``); at angle 4
  without the generic node it gives ``+45.66 = -10 (4 - 2 pi)/0.5`` (wrapped), with it
  ``-80``.
* Actuators: ``LoadForceVector`` (global ``loadVector = [fx, fy, 0]``, ``bodyFixed =
  False``) on a ``MarkerBodyPosition`` at bar point ``s``; ``LoadTorqueVector``
  ``[0, 0, tau]`` on a ``MarkerBodyRigid`` (counter-clockwise positive); a torque between
  bars ``a`` and ``b`` is ``+tau`` on ``b`` and ``-tau`` on ``a`` (two loads). Time laws
  use ``loadVectorUserFunction(mbs, t, loadVector)`` (Python, evaluated at the solver's
  stage times).

Mapping to the spec (so Quivira can match): spring end ``a`` -> marker 0, end ``b`` ->
marker 1, ``spring_force`` = ``f_SD`` (tension positive); torsional ``a`` (or ground) ->
marker 0, ``b`` -> marker 1, ``offset = phi0``, ``torque = tau0``, ``torsional_torque`` =
``tau_SD = k (phi - phi0) + c dphi/dt + tau0`` with ``phi = theta_b - theta_a``
(generalized force ``-tau_SD`` on ``theta_b``, ``+tau_SD`` on ``theta_a``).

Energy: ``kinetic``; ``gravity = sum(m g y)``; ``elastic = sum k (L - l0)^2/2 +
sum [k_theta (phi - phi0)^2/2 + tau0 (phi - phi0)]`` (the preload's potential is counted
here); ``energy`` is their sum (constant without dampers and actuators).

Accuracy to expect (measured, spectral radius 0.8)
--------------------------------------------------
Reference: ``solve_ivp`` (DOP853, ``rtol = atol = 1e-12``) of the SymPy model of the same
spec (:func:`oracles.force_elements_sympy.simulate_sympy`); max abs error over 201 output
times. Second order in ``h`` everywhere: every error below drops by 100x from
``h = 1e-3`` to ``h = 1e-4``. ``q``: positions [m] and angles [rad]; ``F``: spring tension
[N]; ``tau``: torsional element torque [N m]; ``pin``: ground-pin force [N] (compared with
the SymPy multipliers, which therefore have the same sign).

* Spring pendulum (``spring_pendulum_spec``: ``m = 2``, ``L = 1.5``, ``theta = -0.4``,
  spring ``k = 60``, ``l0 = 0.5`` from ``(1.2, 0.6)`` to the tip; tension up to 42 N):

  - ``c = 0.8``, 2 s (and the same over 5 s): ``h = 1e-3``: q ``1.7e-5``, F ``1.4e-3``,
    pin ``9.1e-4``; ``h = 1e-4``: q ``1.7e-7``, qd ``1.5e-6``, F ``1.4e-5``, pin ``1.3e-5``.
  - ``c = 0``, 2 s: ``h = 1e-3``: q ``4.8e-5``, F ``3.8e-3``; ``h = 1e-4``: q ``4.8e-7``,
    F ``3.8e-5``, pin ``3.7e-5``, ``max |E - E0|`` ``5.3e-7`` J (of 8.9 J). Over 5 s the
    undamped errors grow linearly (phase error): ``h = 1e-4``: q ``1.2e-6``, F ``1.0e-4``,
    pin ``1.0e-4``.
* Two-bar chain (``two_bar_chain_spec``: masses ``(2, 1.2)``, lengths ``(1.5, 1.0)``,
  angles ``(-0.9, 0.3)``, joint spring ``k = 20``, ``phi0 = 0``, ``c = 0.5``; torque up
  to 24 N m), 2 s (same over 5 s): ``h = 1e-3``: q ``7.4e-5``, tau ``1.9e-3``, pin
  ``1.0e-2`` (start-up transient of the multipliers, see ``exudyn_planar``);
  ``h = 1e-4``: q ``7.4e-7``, qd ``9.7e-6``, tau ``1.9e-5``, phi ``9.3e-7``, pin ``1.0e-4``.
  Adding a ground spring ``k = 10``, ``phi0 = -0.5``, ``c = 0.3``, ``tau0 = -2`` and joint
  preload ``tau0 = 1``: ``h = 1e-4``: q ``8.1e-7``, tau ``2.1e-5``, pin ``1.2e-4``. With the
  relative angle beyond ``pi`` (``phi`` from 3.2 to 3.8 rad, the generic node at work):
  q ``7.9e-8``, tau ``1.2e-6``.
* Actuated two-bar chain (joint torque ``3 sin(4 t)`` on top of the joint spring) and
  force-actuated pendulum (``fx = 1 + 5 sin(3 t + 0.2)``, ``fy = -2``, bar torque
  ``sin(2 t)``), ``h = 1e-4``: q ``7.0e-7`` and ``5.8e-8`` (2 s) / ``2.5e-7`` (5 s).

Suggested tolerances at ``h = 1e-4`` for models of this size, over up to 5 s: ``1e-5`` for
positions and angles, ``1e-4`` for velocities, ``5e-4`` N or N m for spring forces and
torques, ``1e-3`` N for pin forces (5-10x the measured errors above).

Run time (exudyn 1.13.6, at ``h = 1e-4``): 0.2 s (2 s) / 0.4 s (5 s) for the spring
pendulum, 0.6 s / 1.1 s for the two-bar chain, 1.3 s / 2.3 s when time laws need Python
user functions.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = [
    "simulate_force_elements_exudyn",
    "simulate_spring_pendulum_exudyn",
    "simulate_two_bar_torsional_exudyn",
]


def _bar_point(bar, s):
    c, sn = math.cos(bar["theta"]), math.sin(bar["theta"])
    return np.array([bar["x"] + s * bar["length"] * c, bar["y"] + s * bar["length"] * sn])


def _law_parts(law):
    if isinstance(law, dict):
        return (
            float(law["A"]),
            float(law["omega"]),
            float(law.get("phase", 0.0)),
            float(law.get("offset", 0.0)),
        )
    return 0.0, 0.0, 0.0, float(law)


def _is_constant(law):
    return not isinstance(law, dict) or float(law["A"]) == 0.0


def _law_value(law, t):
    a, w, p, c = _law_parts(law)
    return c + a * math.sin(w * t + p)


def simulate_force_elements_exudyn(
    spec: dict,
    *,
    t_end: float = 2.0,
    h: float = 1e-4,
    times: int | Sequence[float] = 201,
    spectral_radius: float = 0.8,
    newton_tol: float = 1e-12,
) -> dict[str, np.ndarray]:
    """Simulate a spec (bars, pins, springs, torsional springs, actuators) in Exudyn.

    Parameters
    ----------
    spec : dict
        Model description, see :mod:`oracles.force_elements_sympy` (``bars``, ``joints``,
        ``ground_pins``, ``springs``, ``torsional_springs``, ``forces``, ``torques``,
        ``relative_torques``, ``g``).
    t_end, h : float
        End time and fixed step [s]; ``round(t_end/h)`` steps are taken.
    times : int or sequence of float
        Output times or their number (``linspace(0, t_end, times)``). Times that are not
        step times are linearly interpolated between steps.
    spectral_radius : float
        Generalized-alpha spectral radius at infinity (0.8 as in ``exudyn_planar``).
    newton_tol : float
        Relative and absolute Newton tolerance (full Newton).

    Returns
    -------
    dict
        ``t`` (nt,); ``q``, ``qd`` (nt, 3*nbars) absolute ``[x, y, theta]`` and
        ``[vx, vy, omega]``; ``spring_force`` (nt, nsprings) tension
        ``k (L - l0) + c dL/dt`` [N]; ``spring_length`` (nt, nsprings) [m];
        ``torsional_torque`` (nt, ntors) ``k (phi - phi0) + c dphi/dt + tau0`` [N m];
        ``torsional_angle`` (nt, ntors) continuous ``phi = theta_b - theta_a`` [rad];
        ``joint_forces`` (nt, njoints, 2) force of joint ``(a, s_a, b, s_b)`` ON bar ``b``;
        ``pin_forces`` (nt, npins, 2) force of the ground pin ON the bar;
        ``kinetic``, ``gravity``, ``elastic``, ``energy`` (nt,) [J].
    """
    import exudyn as exu
    from exudyn import itemInterface as ii

    bars = spec["bars"]
    nb = len(bars)
    g = float(spec.get("g", 9.81))
    n_steps = int(round(t_end / h))
    if n_steps < 1:
        raise ValueError("t_end/h must be at least 1")

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    OVT = exu.OutputVariableType

    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    ref = np.zeros(3 * nb)
    masses, inertias = np.zeros(nb), np.zeros(nb)
    nodes, bodies = [], []
    for i, b in enumerate(bars):
        m, L = float(b["mass"]), float(b["length"])
        r = [float(b["x"]), float(b["y"]), float(b["theta"])]
        ref[3 * i : 3 * i + 3] = r
        masses[i], inertias[i] = m, m * L * L / 12.0
        v0 = [float(b.get("vx", 0.0)), float(b.get("vy", 0.0)), float(b.get("omega", 0.0))]
        n = mbs.AddNode(ii.NodeRigidBody2D(referenceCoordinates=r, initialVelocities=v0))
        body = mbs.AddObject(ii.ObjectRigidBody2D(nodeNumber=n, mass=m, inertia=inertias[i]))
        nodes.append(n)
        bodies.append(body)
        if g != 0.0:
            mm = mbs.AddMarker(ii.MarkerBodyMass(bodyNumber=body))
            mbs.AddLoad(ii.LoadMassProportional(markerNumber=mm, loadVector=[0.0, -g, 0.0]))

    def bar_marker(i, s):
        if i is None or not 0 <= i < nb:
            raise ValueError(f"no bar {i}")
        return mbs.AddMarker(
            ii.MarkerBodyPosition(
                bodyNumber=bodies[i], localPosition=[s * float(bars[i]["length"]), 0.0, 0.0]
            )
        )

    def ground_marker(p):
        return mbs.AddMarker(
            ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[p[0], p[1], 0.0])
        )

    def rigid_marker(i):
        body = ground if i is None else bodies[i]
        return mbs.AddMarker(ii.MarkerBodyRigid(bodyNumber=body, localPosition=[0.0] * 3))

    def sensor(obj, var):
        return mbs.AddSensor(ii.SensorObject(objectNumber=obj, outputVariableType=var,
                                             storeInternal=True))

    joints = list(spec.get("joints", ()))
    pins = list(spec.get("ground_pins", ()))
    scale = 1.0 + max((abs(float(b["x"])) + abs(float(b["y"])) for b in bars), default=0.0)
    joint_sensors = []
    for a, sa, bb, sb in joints:
        pa, pb = _bar_point(bars[a], sa), _bar_point(bars[bb], sb)
        if np.linalg.norm(pa - pb) > 1e-9 * scale:
            raise ValueError(f"joint points do not coincide: {pa} vs {pb}")
        jo = mbs.AddObject(
            ii.ObjectJointRevolute2D(markerNumbers=[bar_marker(a, sa), bar_marker(bb, sb)])
        )
        joint_sensors.append(sensor(jo, OVT.Force))  # force on marker 0 = bar a
    pin_sensors = []
    for i, s in pins:
        jo = mbs.AddObject(
            ii.ObjectJointRevolute2D(
                markerNumbers=[ground_marker(_bar_point(bars[i], s)), bar_marker(i, s)]
            )
        )
        pin_sensors.append(sensor(jo, OVT.Force))  # force on marker 0 = ground

    springs = list(spec.get("springs", ()))
    spring_k, spring_l0 = [], []
    spring_f_sensors, spring_l_sensors = [], []
    for sd in springs:
        k, c, l0 = float(sd["k"]), float(sd.get("c", 0.0)), float(sd["l0"])
        if k < 0.0 or c < 0.0:
            raise ValueError("negative stiffness or damping")
        markers = []
        for end in ("a", "b"):
            if sd.get(end) is None:
                markers.append(ground_marker([float(v) for v in sd[f"point_{end}"]]))
            else:
                markers.append(bar_marker(sd[end], float(sd[f"s_{end}"])))
        so = mbs.AddObject(
            ii.ObjectConnectorSpringDamper(
                markerNumbers=markers, referenceLength=l0, stiffness=k, damping=c
            )
        )
        spring_f_sensors.append(sensor(so, OVT.ForceLocal))
        spring_l_sensors.append(sensor(so, OVT.Distance))
        spring_k.append(k)
        spring_l0.append(l0)

    tors = list(spec.get("torsional_springs", ()))
    tors_par = []
    tors_t_sensors, tors_a_sensors = [], []
    for ts in tors:
        a, b = ts["a"], ts["b"]
        k, c = float(ts["k"]), float(ts.get("c", 0.0))
        phi0, tau0 = float(ts["phi0"]), float(ts.get("tau0", 0.0))
        if k < 0.0 or c < 0.0:
            raise ValueError("negative stiffness or damping")
        phi_init = float(bars[b]["theta"]) - (0.0 if a is None else float(bars[a]["theta"]))
        nd = mbs.AddNode(
            ii.NodeGenericData(initialCoordinates=[phi_init], numberOfDataCoordinates=1)
        )
        to = mbs.AddObject(
            ii.ObjectConnectorTorsionalSpringDamper(
                markerNumbers=[rigid_marker(a), rigid_marker(b)],
                nodeNumber=nd,
                stiffness=k,
                damping=c,
                offset=phi0,
                torque=tau0,
            )
        )
        tors_t_sensors.append(sensor(to, OVT.TorqueLocal))
        tors_a_sensors.append(sensor(to, OVT.Rotation))
        tors_par.append((k, phi0, tau0))

    def add_load(cls, marker, vec_of_t, law_list):
        if all(_is_constant(w) for w in law_list):
            mbs.AddLoad(cls(markerNumber=marker, loadVector=list(vec_of_t(0.0))))
        else:
            mbs.AddLoad(
                cls(
                    markerNumber=marker,
                    loadVector=[0.0, 0.0, 0.0],
                    loadVectorUserFunction=lambda mbs_, t, lv: list(vec_of_t(t)),
                )
            )

    for fa in spec.get("forces", ()):
        fx, fy = fa["fx"], fa["fy"]
        add_load(
            ii.LoadForceVector,
            bar_marker(fa["bar"], float(fa["s"])),
            lambda t, fx=fx, fy=fy: (_law_value(fx, t), _law_value(fy, t), 0.0),
            [fx, fy],
        )
    for ta in spec.get("torques", ()):
        law = ta["tau"]
        add_load(
            ii.LoadTorqueVector,
            rigid_marker(ta["bar"]),
            lambda t, law=law: (0.0, 0.0, _law_value(law, t)),
            [law],
        )
    for ta in spec.get("relative_torques", ()):
        law = ta["tau"]
        add_load(
            ii.LoadTorqueVector,
            rigid_marker(ta["b"]),
            lambda t, law=law: (0.0, 0.0, _law_value(law, t)),
            [law],
        )
        if ta["a"] is not None:
            add_load(
                ii.LoadTorqueVector,
                rigid_marker(ta["a"]),
                lambda t, law=law: (0.0, 0.0, -_law_value(law, t)),
                [law],
            )

    q_sensors = [
        mbs.AddSensor(
            ii.SensorNode(nodeNumber=n, outputVariableType=OVT.Coordinates, storeInternal=True)
        )
        for n in nodes
    ]
    v_sensors = [
        mbs.AddSensor(
            ii.SensorNode(nodeNumber=n, outputVariableType=OVT.Coordinates_t, storeInternal=True)
        )
        for n in nodes
    ]

    mbs.Assemble()

    ss = exu.SimulationSettings()
    ti = ss.timeIntegration
    ti.numberOfSteps = n_steps
    ti.endTime = float(t_end)
    ti.verboseMode = 0
    ti.generalizedAlpha.spectralRadius = float(spectral_radius)
    ti.generalizedAlpha.computeInitialAccelerations = True
    ti.newton.useModifiedNewton = False
    ti.newton.relativeTolerance = float(newton_tol)
    ti.newton.absoluteTolerance = float(newton_tol)
    ss.solution.file.write = False
    ss.solution.sensors.writePeriod = float(t_end) / n_steps * 0.5  # store every step
    ss.show.statistics = False
    ss.show.computationTime = False

    if not exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha):
        raise RuntimeError("Exudyn dynamic solver failed")

    if isinstance(times, int):
        t_out = np.linspace(0.0, float(t_end), times)
    else:
        t_out = np.asarray(times, dtype=float)

    def resample(sens, cols):
        d = np.asarray(mbs.GetSensorStoredData(sens), dtype=float)
        ts, vals = d[:, 0], d[:, 1:]
        keep = np.append(np.diff(ts) > 0.0, True)  # last value stored at a time
        ts, vals = ts[keep], vals[keep]
        return np.column_stack([np.interp(t_out, ts, vals[:, c]) for c in cols])

    nt = t_out.size
    q = np.empty((nt, 3 * nb))
    qd = np.empty((nt, 3 * nb))
    for i in range(nb):
        q[:, 3 * i : 3 * i + 3] = resample(q_sensors[i], (0, 1, 2)) + ref[3 * i : 3 * i + 3]
        qd[:, 3 * i : 3 * i + 3] = resample(v_sensors[i], (0, 1, 2))

    def cols(sensors):
        if not sensors:
            return np.zeros((nt, 0))
        return np.column_stack([resample(s, (0,))[:, 0] for s in sensors])

    spring_force, spring_length = cols(spring_f_sensors), cols(spring_l_sensors)
    tors_torque, tors_angle = cols(tors_t_sensors), cols(tors_a_sensors)
    joint_forces = np.empty((nt, len(joints), 2))
    for j, s in enumerate(joint_sensors):
        joint_forces[:, j, :] = -resample(s, (0, 1))  # force on marker 1 = bar b
    pin_forces = np.empty((nt, len(pins), 2))
    for p, s in enumerate(pin_sensors):
        pin_forces[:, p, :] = -resample(s, (0, 1))  # force on marker 1 = the bar

    kinetic = 0.5 * (
        masses * (qd[:, 0::3] ** 2 + qd[:, 1::3] ** 2) + inertias * qd[:, 2::3] ** 2
    ).sum(axis=1)
    gravity = (masses * g * q[:, 1::3]).sum(axis=1)
    elastic = np.zeros(nt)
    for j, (k, l0) in enumerate(zip(spring_k, spring_l0)):
        elastic += 0.5 * k * (spring_length[:, j] - l0) ** 2
    for j, (k, phi0, tau0) in enumerate(tors_par):
        dphi = tors_angle[:, j] - phi0
        elastic += 0.5 * k * dphi**2 + tau0 * dphi

    return {
        "t": t_out,
        "q": q,
        "qd": qd,
        "spring_force": spring_force,
        "spring_length": spring_length,
        "torsional_torque": tors_torque,
        "torsional_angle": tors_angle,
        "joint_forces": joint_forces,
        "pin_forces": pin_forces,
        "kinetic": kinetic,
        "gravity": gravity,
        "elastic": elastic,
        "energy": kinetic + gravity + elastic,
    }


def simulate_spring_pendulum_exudyn(
    *,
    mass: float = 2.0,
    length: float = 1.5,
    theta: float = -0.4,
    omega: float = 0.0,
    anchor: Sequence[float] = (1.2, 0.6),
    k: float = 60.0,
    l0: float | None = 0.5,
    c: float = 0.8,
    s_spring: float = 0.5,
    pivot: Sequence[float] = (0.0, 0.0),
    g: float = 9.81,
    t_end: float = 2.0,
    h: float = 1e-4,
    times: int | Sequence[float] = 201,
) -> dict[str, np.ndarray]:
    """Bar pendulum with a point-to-point spring-damper to a ground point, in Exudyn.

    The bar is pinned to ground at its ``s = -0.5`` end (at ``pivot``), starts at angle
    ``theta`` with angular velocity ``omega``; the spring-damper runs from ``anchor``
    (marker 0) to bar point ``s_spring`` (marker 1): tension
    ``f = k (d - l0) + c dd/dt`` (``l0 = None``: the initial distance).

    Returns
    -------
    dict
        As :func:`simulate_force_elements_exudyn`, plus ``spec`` (the model description).
    """
    from .force_elements_sympy import spring_pendulum_spec

    spec = spring_pendulum_spec(
        mass=mass, length=length, theta=theta, omega=omega, anchor=anchor, k=k, l0=l0, c=c,
        s_spring=s_spring, pivot=pivot, g=g,
    )
    out = simulate_force_elements_exudyn(spec, t_end=t_end, h=h, times=times)
    out["spec"] = spec
    return out


def simulate_two_bar_torsional_exudyn(
    *,
    masses: Sequence[float] = (2.0, 1.2),
    lengths: Sequence[float] = (1.5, 1.0),
    thetas: Sequence[float] = (-0.9, 0.3),
    omegas: Sequence[float] = (0.0, 0.0),
    k_theta: float = 20.0,
    phi0: float | None = 0.0,
    c_theta: float = 0.5,
    tau0: float = 0.0,
    ground_spring: dict | None = None,
    joint_torque: float | dict | None = None,
    pivot: Sequence[float] = (0.0, 0.0),
    g: float = 9.81,
    t_end: float = 2.0,
    h: float = 1e-4,
    times: int | Sequence[float] = 201,
) -> dict[str, np.ndarray]:
    """Two-bar chain with a torsional spring-damper at the joint, in Exudyn.

    Bar 0 is pinned to ground at its ``s = -0.5`` end (``pivot``), bar 1's ``s = -0.5``
    end is pinned to bar 0's ``s = +0.5`` end. The joint element has
    ``tau = k_theta (phi - phi0) + c_theta dphi/dt + tau0``, ``phi = theta_1 - theta_0``
    (``phi0 = None``: the initial relative angle), torque ``-tau`` on bar 1 and ``+tau`` on
    bar 0. ``ground_spring = {k, phi0=None, c=0, tau0=0}`` adds a torsional spring-damper
    between ground and bar 0 at the ground pin (``phi = theta_0``); ``joint_torque`` (a time
    law) an actuator torque ``+tau(t)`` on bar 1, ``-tau(t)`` on bar 0.

    Returns
    -------
    dict
        As :func:`simulate_force_elements_exudyn` (torsional columns: joint spring first,
        then the ground spring), plus ``spec``.
    """
    from .force_elements_sympy import two_bar_chain_spec

    spec = two_bar_chain_spec(
        masses=masses, lengths=lengths, thetas=thetas, omegas=omegas,
        joint_spring={"k": k_theta, "phi0": phi0, "c": c_theta, "tau0": tau0},
        ground_spring=ground_spring, joint_torque=joint_torque, pivot=pivot, g=g,
    )
    out = simulate_force_elements_exudyn(spec, t_end=t_end, h=h, times=times)
    out["spec"] = spec
    return out

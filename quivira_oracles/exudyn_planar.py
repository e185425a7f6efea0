"""Independent Exudyn oracle for planar pin-jointed bar linkages.

This module does not use Quivira at all: it builds the same mechanism in Exudyn
(https://github.com/jgerstmayr/EXUDYN, tested with exudyn 1.13.6) and integrates it with
Exudyn's implicit generalized-alpha solver (index-3 constraints, full Newton).

Conventions (the same as Quivira's)
-----------------------------------
* Bar ``i`` has mass ``m``, length ``L``, centre ``(x, y)`` and angle ``theta`` (from +x,
  counter-clockwise). A point on the bar is ``centre + s*L*(cos theta, sin theta)`` with
  ``s`` in ``[-0.5, 0.5]``. Inertia about the centre is ``m*L**2/12``.
* Gravity ``g`` acts along ``-y`` (force ``(0, -m*g)`` at every centre).
* ``q`` is the ABSOLUTE coordinate vector ``[x_0, y_0, theta_0, x_1, y_1, theta_1, ...]``.
  (Exudyn's ``NodeRigidBody2D`` stores displacements from its reference coordinates; the
  reference, i.e. the initial configuration, is added back here.)

Sign of the reaction forces (all in the global frame)
-----------------------------------------------------
Exudyn's ``ObjectJointRevolute2D`` reports ``OutputVariableType.Force`` = the force acting
on the body of marker 0 (global frame, verified also for a tilted bar). This module
converts it so that

* ``joint_forces[k, j]`` is the force that joint ``j`` exerts ON ``bar_b`` (the bar named
  third in the joint tuple); the force on ``bar_a`` is its negative;
* ``pin_forces[k, p]`` is the force that the ground pin exerts ON the bar.

Static checks (``m = 2``, ``L = 1.5``, ``g = 9.81``): a bar hanging at rest from a top pin
gives ``pin_forces = (0, +m*g)`` exactly; a bar released horizontal from rest gives
``(0, +m*g/4)`` at ``t = 0`` (the initial accelerations are consistent, so ``t = 0`` is
exact).

``cc_forces[c]`` is Exudyn's Lagrange multiplier vector ``lambda`` of coordinate constraint
``c`` (``n_out x nrows``). The constraint reads ``X1 @ q_bar1 - X0 @ q_bar0 - offset = 0``
with ``q_bar = [x, y, theta]`` ABSOLUTE (``MarkerNodeCoordinates`` includes the reference
values). The generalized constraint force is ``-X1.T @ lambda`` on ``bar1`` and
``+X0.T @ lambda`` on ``bar0`` (same sign convention as the joints: the multiplier is the
force on marker 0). Example: two unit masses tied by ``X0 = X1 = I``, ``offset = [1, 0, 0]``
with ``bar0`` pushed by 2 N along ``x`` give ``lambda = (-1, 0, 0)`` and a displacement of
0.5 at ``t = 1``.

Energy
------
``energy`` = kinetic + gravitational potential ``sum(m*g*y)``. The constant ``forces`` are
not included in it; their potential ``-sum(f . (r - r_initial))`` is returned separately as
``force_potential``, so ``energy + force_potential`` is conserved in every case.

Accuracy to expect (measured with the default spectral radius 0.8)
-----------------------------------------------------------------
Second order in ``h`` for ``q``, velocities, energy and (after a start-up transient) forces.

* Pendulum ``m = 2``, ``L = 1.5`` released horizontal, 1 s, versus ``solve_ivp`` at
  ``rtol = 1e-13``: angle error ``8.5e-6`` rad (``h = 1e-3``) / ``8.5e-8`` rad (``h = 1e-4``);
  pin force error ``3.2e-4`` N / ``1.2e-5`` N on forces of about 20 N.
* Small-amplitude period (``L = 1.5``): relative error ``8.6e-7`` (``h = 1e-3``) /
  ``8.6e-9`` (``h = 1e-4``) versus the exact elliptic-integral period, i.e.
  ``(omega*h)**2/12``; versus ``2*pi*sqrt(2L/(3g))`` the amplitude correction
  ``amp**2/16`` dominates unless ``amp <~ 1e-3``.
* 3-bar chain released from a bent pose, 1 s: ``max|E - E0|`` = ``1.3e-3`` J (``h = 1e-3``) /
  ``1.3e-5`` J (``h = 1e-4``), i.e. ``5e-7`` of the peak kinetic energy (26 J) at
  ``h = 1e-4``; it is a bounded O(h^2) fluctuation, not a secular drift.
* Four-bar (crank spinning at 5 rad/s), versus an ``h = 2e-5`` run: ``q`` error ``7.6e-5`` /
  ``7.2e-7``; force error ``3.3e-4`` N on 230 N at ``h = 1e-4``. With ``h = 1e-3`` the forces
  carry an alternating parasitic transient (up to 0.45 N, gone by ``t ~ 0.05``): compare
  forces only after the first ~50 steps, or use ``h <= 1e-4``.
* Roundoff floor of the multipliers: about ``1e-6`` relative at ``h = 1e-4`` (it grows like
  ``1/h**2``, so ``h`` much below ``1e-4`` does not make forces more accurate).

Why not spectral radius 1: the positions are then marginally better (period error
``8.2e-9`` instead of ``8.6e-9``), but the index-3 multipliers are undamped; their
step-to-step oscillation grows and the four-bar reaction forces become garbage (errors of
1500 N). With 0.9 they are fine at ``h = 1e-4`` but the ``h = 1e-3`` start-up transient is
twice as large as with 0.8.

Run time (exudyn 1.13.6, 1 s at ``h = 1e-4``): ~0.07 s for one bar, 0.2-0.3 s for a 3-bar
chain or a four-bar.

The initial velocities must be consistent with the joints (Exudyn does not project them).
"""

from __future__ import annotations

import numpy as np

__all__ = ["simulate_bars_exudyn"]


def _bar_point(bar, s):
    c, sn = np.cos(bar["theta"]), np.sin(bar["theta"])
    return np.array([bar["x"] + s * bar["length"] * c, bar["y"] + s * bar["length"] * sn])


def _matrix(a, ncols=3):
    a = np.atleast_2d(np.asarray(a, dtype=float))
    if a.shape[1] != ncols:
        raise ValueError(f"coordinate-constraint matrix must have {ncols} columns, got {a.shape}")
    return a


def simulate_bars_exudyn(
    bars,
    joints,
    ground_pins,
    *,
    g=9.81,
    t_end=1.0,
    h=1e-4,
    n_out=101,
    coordinate_constraints=(),
    forces=(),
    spectral_radius=0.8,
    newton_tol=1e-12,
):
    """Simulate planar bars with revolute joints in Exudyn.

    Parameters
    ----------
    bars : list of dict
        ``{x, y, theta, length, mass, vx=0, vy=0, omega=0}``; centre, angle, velocities.
    joints : list of ``(bar_a, s_a, bar_b, s_b)``
        Revolute joint between two bar points; they must coincide initially.
    ground_pins : list of ``(bar, s)``
        Revolute joint of a bar point to ground at that point's initial location.
    g : float
        Gravity along ``-y``.
    t_end, h : float
        End time and (fixed) step size; ``round(t_end/h)`` steps are taken.
    n_out : int
        Number of output times, ``linspace(0, t_end, n_out)``. They are exact step times when
        ``n_out - 1`` divides the number of steps, else linear interpolation between steps.
    coordinate_constraints : list of dict
        ``{bar0: int|None, bar1: int|None, X0, X1, offset}``: Exudyn
        ``ObjectConnectorCoordinateVector`` with equations
        ``X1 @ q_bar1 - X0 @ q_bar0 - offset = 0``, where ``q_bar = [x, y, theta]`` is the
        ABSOLUTE coordinate vector of the bar (reference included). ``None`` means ground:
        its term (and its ``X``, which may be omitted) is dropped.
    forces : list of ``(bar, fx, fy)``
        Constant global forces at bar centres.
    spectral_radius : float
        Generalized-alpha spectral radius at infinity (see the module docstring).
    newton_tol : float
        Relative and absolute Newton tolerance (full Newton).

    Returns
    -------
    dict with
        ``t`` (n_out,);
        ``q`` (n_out, 3*nbars) absolute ``[x_i, y_i, theta_i]``;
        ``qd`` (n_out, 3*nbars) velocities ``[vx_i, vy_i, omega_i]``;
        ``joint_forces`` (n_out, njoints, 2): global force of joint j ON ``bar_b``;
        ``pin_forces`` (n_out, npins, 2): global force of the ground pin ON the bar;
        ``cc_forces``: list of (n_out, nrows) Lagrange multipliers (force on marker 0 /
        ``bar0``: generalized force ``+X0.T @ lam`` on bar0, ``-X1.T @ lam`` on bar1);
        ``energy`` (n_out,): kinetic + gravitational potential ``sum(m g y)``;
        ``kinetic``, ``potential`` (n_out,): the two parts;
        ``force_potential`` (n_out,): ``-sum(f . (r - r0))`` of the constant ``forces``.
    """
    import exudyn as exu
    from exudyn import itemInterface as ii

    nb = len(bars)
    n_steps = int(round(t_end / h))
    if n_steps < 1:
        raise ValueError("t_end/h must be at least 1")

    sc = exu.SystemContainer()
    mbs = sc.AddSystem()
    OVT = exu.OutputVariableType

    ground = mbs.AddObject(ii.ObjectGround(referencePosition=[0.0, 0.0, 0.0]))
    ref = np.zeros(3 * nb)
    masses = np.zeros(nb)
    inertias = np.zeros(nb)
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
        return mbs.AddMarker(
            ii.MarkerBodyPosition(
                bodyNumber=bodies[i], localPosition=[s * float(bars[i]["length"]), 0.0, 0.0]
            )
        )

    scale = 1.0 + max((abs(float(b["x"])) + abs(float(b["y"])) for b in bars), default=0.0)
    joint_sensors = []
    for a, sa, bb, sb in joints:
        pa, pb = _bar_point(bars[a], sa), _bar_point(bars[bb], sb)
        if np.linalg.norm(pa - pb) > 1e-9 * scale:
            raise ValueError(f"joint points do not coincide: {pa} vs {pb}")
        # marker 0 = bar_a, marker 1 = bar_b; Exudyn's Force is the force on marker 0.
        jo = mbs.AddObject(
            ii.ObjectJointRevolute2D(markerNumbers=[bar_marker(a, sa), bar_marker(bb, sb)])
        )
        joint_sensors.append(
            mbs.AddSensor(
                ii.SensorObject(objectNumber=jo, outputVariableType=OVT.Force, storeInternal=True)
            )
        )

    pin_sensors = []
    for i, s in ground_pins:
        p = _bar_point(bars[i], s)
        mg = mbs.AddMarker(
            ii.MarkerBodyPosition(bodyNumber=ground, localPosition=[p[0], p[1], 0.0])
        )
        # marker 0 = ground, so Exudyn's Force is the force on the ground.
        jo = mbs.AddObject(ii.ObjectJointRevolute2D(markerNumbers=[mg, bar_marker(i, s)]))
        pin_sensors.append(
            mbs.AddSensor(
                ii.SensorObject(objectNumber=jo, outputVariableType=OVT.Force, storeInternal=True)
            )
        )

    cc_sensors, cc_rows = [], []
    ground_coord_marker = None
    for cc in coordinate_constraints:
        b0, b1 = cc.get("bar0"), cc.get("bar1")
        if b0 is None and b1 is None:
            raise ValueError("a coordinate constraint needs at least one bar")
        offset = np.atleast_1d(np.asarray(cc.get("offset", 0.0), dtype=float))
        X0 = None if b0 is None else _matrix(cc["X0"])
        X1 = None if b1 is None else _matrix(cc["X1"])
        nrows = (X0 if X0 is not None else X1).shape[0]
        if X0 is None:
            X0 = np.zeros((nrows, 0))
        if X1 is None:
            X1 = np.zeros((nrows, 0))
        if X0.shape[0] != X1.shape[0]:
            raise ValueError("X0 and X1 must have the same number of rows")
        if offset.size == 1 and nrows > 1:
            offset = np.full(nrows, offset[0])
        if offset.size != nrows:
            raise ValueError("offset must have one entry per constraint row")
        markers = []
        for bi in (b0, b1):
            if bi is None:
                if ground_coord_marker is None:
                    gn = mbs.AddNode(ii.NodePointGround())
                    ground_coord_marker = mbs.AddMarker(ii.MarkerNodeCoordinates(nodeNumber=gn))
                markers.append(ground_coord_marker)
            else:
                markers.append(mbs.AddMarker(ii.MarkerNodeCoordinates(nodeNumber=nodes[bi])))
        co = mbs.AddObject(
            ii.ObjectConnectorCoordinateVector(
                markerNumbers=markers,
                scalingMarker0=X0,
                scalingMarker1=X1,
                offset=offset.tolist(),
            )
        )
        cc_sensors.append(
            mbs.AddSensor(
                ii.SensorObject(objectNumber=co, outputVariableType=OVT.Force, storeInternal=True)
            )
        )
        cc_rows.append(nrows)

    fvec = np.zeros((nb, 2))
    for i, fx, fy in forces:
        fvec[i] += (float(fx), float(fy))
        mf = mbs.AddMarker(ii.MarkerBodyPosition(bodyNumber=bodies[i], localPosition=[0.0] * 3))
        mbs.AddLoad(ii.LoadForceVector(markerNumber=mf, loadVector=[float(fx), float(fy), 0.0]))

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
    ss.displayStatistics = False
    ss.displayComputationTime = False

    ok = exu.SolveDynamic(mbs, ss, solverType=exu.DynamicSolverType.GeneralizedAlpha)
    if not ok:
        raise RuntimeError("Exudyn dynamic solver failed")

    def stored(sensor):
        d = np.asarray(mbs.GetSensorStoredData(sensor), dtype=float)
        return d[:, 0], d[:, 1:]

    t_out = np.linspace(0.0, float(t_end), n_out)

    def resample(sensor, cols):
        ts, vals = stored(sensor)
        # drop duplicate time stamps (keep the last value stored at a time)
        keep = np.append(np.diff(ts) > 0.0, True)
        ts, vals = ts[keep], vals[keep]
        return np.column_stack([np.interp(t_out, ts, vals[:, c]) for c in cols])

    q = np.empty((n_out, 3 * nb))
    qd = np.empty((n_out, 3 * nb))
    for i in range(nb):
        q[:, 3 * i : 3 * i + 3] = resample(q_sensors[i], (0, 1, 2)) + ref[3 * i : 3 * i + 3]
        qd[:, 3 * i : 3 * i + 3] = resample(v_sensors[i], (0, 1, 2))

    joint_forces = np.empty((n_out, len(joints), 2))
    for j, s in enumerate(joint_sensors):
        joint_forces[:, j, :] = -resample(s, (0, 1))  # force on marker 1 = bar_b
    pin_forces = np.empty((n_out, len(ground_pins), 2))
    for p, s in enumerate(pin_sensors):
        pin_forces[:, p, :] = -resample(s, (0, 1))  # force on marker 1 = the bar
    cc_forces = [resample(s, tuple(range(nr))) for s, nr in zip(cc_sensors, cc_rows)]

    vx, vy, om = qd[:, 0::3], qd[:, 1::3], qd[:, 2::3]
    kinetic = 0.5 * (masses * (vx**2 + vy**2) + inertias * om**2).sum(axis=1)
    potential = (masses * g * q[:, 1::3]).sum(axis=1)
    dx, dy = q[:, 0::3] - ref[0::3], q[:, 1::3] - ref[1::3]
    force_potential = -(fvec[:, 0] * dx + fvec[:, 1] * dy).sum(axis=1)

    return {
        "t": t_out,
        "q": q,
        "qd": qd,
        "joint_forces": joint_forces,
        "pin_forces": pin_forces,
        "cc_forces": cc_forces,
        "energy": kinetic + potential,
        "kinetic": kinetic,
        "potential": potential,
        "force_potential": force_potential,
    }

"""Ready-made linkages for lessons, benchmarks and tests.

Each function returns a new :class:`~quivira.bar_joint_model` whose initial pose satisfies
its constraints exactly (up to rounding) and whose bars are at rest.
"""

from __future__ import annotations

import math

from ._repr import short_repr
from .model import bar_joint_model
from .model.elements import SpringDamper, TorqueActuator


def chain(n_bars: int, *, length: float = 1.0, mass: float = 1.0, angle: float = -0.3,
          g: float = 9.81) -> bar_joint_model:
    """Build a chain of ``n_bars`` uniform bars pinned to the origin.

    Bar 0 is pinned to the origin at its ``s = -0.5`` end; consecutive bars are joined end to
    end, all at ``angle`` (radians from the +x axis).
    """
    if not isinstance(n_bars, int) or n_bars < 1:
        raise ValueError(f"n_bars must be a positive integer, got {short_repr(n_bars)}")
    m = bar_joint_model()
    m.set_g(g)
    c, s = math.cos(angle), math.sin(angle)
    for i in range(n_bars):
        m.add_bar_at_attitude((i + 0.5) * length * c, (i + 0.5) * length * s, angle, length, mass)
    m.add_support(0, -0.5, False, False, 0.0, 0.0)
    for i in range(n_bars - 1):
        m.add_joint([i, i + 1], [0.5, -0.5])
    return m


def four_bar(crank: float = 1.0, coupler: float = 3.0, rocker: float = 2.5,
             ground: float = 3.0, crank_angle: float = math.pi / 3, *,
             mass_per_length: float = 1.0, g: float = 9.81) -> bar_joint_model:
    """Build a four-bar linkage in its "elbow-up" assembly.

    Ground pins at ``(0, 0)`` and ``(ground, 0)``; bar 0 is the crank, bar 1 the coupler,
    bar 2 the rocker.

    The defaults form a Grashof crank-rocker (shortest + longest ≤ sum of the other two,
    with the crank the shortest link).
    """
    ax, ay = crank * math.cos(crank_angle), crank * math.sin(crank_angle)
    bx, by = ground, 0.0
    d = math.hypot(bx - ax, by - ay)
    if d > coupler + rocker or d < abs(coupler - rocker):
        raise ValueError("four_bar: the links cannot close at this crank angle "
                         f"(distance {d:.4g} between crank tip and rocker pivot)")
    # circle intersection: crank tip A, rocker pivot B; point C at |AC| = coupler, |BC| = rocker
    a = (coupler ** 2 - rocker ** 2 + d ** 2) / (2 * d)
    h = math.sqrt(max(coupler ** 2 - a ** 2, 0.0))
    ex, ey = (bx - ax) / d, (by - ay) / d
    cx, cy = ax + a * ex - h * ey, ay + a * ey + h * ex
    m = bar_joint_model()
    m.set_g(g)
    m.add_bar_from_point_pair((0.0, 0.0), (ax, ay), mass_per_length)
    m.add_bar_from_point_pair((ax, ay), (cx, cy), mass_per_length)
    m.add_bar_from_point_pair((bx, by), (cx, cy), mass_per_length)
    m.add_support(0, -0.5, False, False)
    m.add_support(2, -0.5, False, False)
    m.add_joint([0, 1], [0.5, -0.5])
    m.add_joint([1, 2], [0.5, 0.5])
    return m


def scissor(cells: int, *, length: float = 1.0, angle: float = 0.6,
            mass_per_length: float = 1.0, g: float = 9.81) -> bar_joint_model:
    """Build a vertical scissor lattice of ``cells`` X-cells of bars of ``length`` at ``angle``.

    Bar ``2c`` rises to the right and bar ``2c + 1`` to the left in cell ``c``; joints are found
    by :meth:`~quivira.bar_joint_model.infer_joints` (centres and cell corners). Bar 0's lower
    end is pinned, bar 1's lower end is on a roller free in x, so the lattice has one degree
    of freedom and collapses under gravity towards the flat (singular) pose.
    """
    if not isinstance(cells, int) or cells < 1:
        raise ValueError(f"cells must be a positive integer, got {short_repr(cells)}")
    m = bar_joint_model()
    m.set_g(g)
    h, w = length * math.sin(angle), length * math.cos(angle)
    for c in range(cells):
        y0 = c * h
        m.add_bar_from_point_pair((0.0, y0), (w, y0 + h), mass_per_length)
        m.add_bar_from_point_pair((w, y0), (0.0, y0 + h), mass_per_length)
    m.infer_joints()
    m.add_support(0, -0.5, False, False)
    m.add_support(1, -0.5, True, False)
    return m


def iftomm_a01(*, length: float = 1.0, mass: float = 1.0, g: float = 9.81) -> bar_joint_model:
    r"""Build IFToMM benchmark A01, the simple pendulum.

    A point mass on a massless link of ``length`` pinned at the origin, released from rest
    with the link horizontal (the mass at :math:`(L, 0)`). Body 0 is the particle; the link is
    the distance constraint "link" (its multiplier is the tension). The IFToMM problem runs
    2000 s; the exact period is :math:`4K(\sin^2(θ_0/2))\sqrt{L/g}` with :math:`θ_0 = π/2`.

    References: IFToMM Technical Committee for Multibody Dynamics, library of benchmark
    problems (problem A01).
    """
    m = bar_joint_model()
    m.set_g(g)
    p = m.add_particle(length, 0.0, mass)
    m.add_distance(None, (0.0, 0.0), p, 0.0, length, name="link")
    return m


def iftomm_a02(n: int = 40, *, length: float = 1.0, mass: float = 1.0, g: float = 9.81,
               v0: float = 1.0) -> bar_joint_model:
    r"""IFToMM benchmark A02, the N-four-bar mechanism: ``n`` parallelogram loops in a row.

    ``2n + 1`` uniform bars of ``length`` and ``mass``: bar ``2i`` is crank ``i`` from the
    ground pin :math:`A_i = (i L, 0)` (its ``s = -0.5`` end) up to :math:`B_i = (i L, L)`,
    bar ``2i + 1`` the coupler from :math:`B_i` to :math:`B_{i+1}` (horizontal). Initial
    velocity: :math:`\dot x_{B_0} = v_0` (every crank turns at :math:`-v_0/L`, the couplers
    translate). The mechanism has one degree of freedom except when it is flat (every bar on
    :math:`y = 0`), where the rank of J drops by ``n``: it passes those poses (see
    ``simulate(..., singular="pass")``). The IFToMM problem is ``n = 40``, 20 s, with the
    error of :math:`B_0`'s position and velocity ≤ 1e-3 as "high precision".

    References: IFToMM Technical Committee for Multibody Dynamics, library of benchmark
    problems (problem A02); M. González et al., Multibody Syst. Dyn. 16 (2006) 179-190.
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be a positive integer, got {short_repr(n)}")
    m = bar_joint_model()
    m.set_g(g)
    for i in range(n + 1):
        m.add_bar_at_attitude(i * length, 0.5 * length, 0.5 * math.pi, length, mass)
        m.set_init_bar_velocities(2 * i, 0.5 * v0, 0.0, -v0 / length)
        if i < n:
            m.add_bar_at_attitude((i + 0.5) * length, length, 0.0, length, mass)
            m.set_init_bar_velocities(2 * i + 1, v0, 0.0, 0.0)
    for i in range(n + 1):
        m.add_support(2 * i, -0.5, False, False)
    for i in range(n):
        m.add_joint([2 * i, 2 * i + 1], [0.5, -0.5])
        m.add_joint([2 * i + 1, 2 * i + 2], [0.5, 0.5])
    return m


def double_four_bar_redundant(*, length: float = 1.0, mass: float = 1.0, g: float = 9.81,
                              v0: float = 1.0) -> bar_joint_model:
    r"""Build the double parallelogram with its redundant link.

    Three vertical cranks of ``length`` and ``mass`` are pinned to the ground at
    :math:`(0, 0)`, :math:`(L, 0)`, :math:`(2L, 0)` and to one coupler of length :math:`2L` and
    mass :math:`2m` (at its ends and its centre).

    Grübler's count gives 0 degrees of freedom (12 pin rows for 12 coordinates), but one row
    is redundant (the middle crank repeats what the outer two impose): the mechanism moves
    with one degree of freedom, exactly as IFToMM A02 with ``n = 2`` (the coupler only
    translates). Bars 0, 1, 2 are the cranks, bar 3 the coupler; initial velocity
    :math:`\dot x = v_0` of the crank tips.
    """
    m = bar_joint_model()
    m.set_g(g)
    for i in range(3):
        m.add_bar_at_attitude(i * length, 0.5 * length, 0.5 * math.pi, length, mass)
        m.set_init_bar_velocities(i, 0.5 * v0, 0.0, -v0 / length)
        m.add_support(i, -0.5, False, False)
    m.add_bar_at_attitude(length, length, 0.0, 2 * length, 2 * mass)
    m.set_init_bar_velocities(3, v0, 0.0, 0.0)
    for i, s in enumerate((-0.5, 0.0, 0.5)):
        m.add_joint([i, 3], [0.5, s])
    return m


#: Andrews' squeezing mechanism (IFToMM A03), the data of Hairer & Wanner, *Solving ODEs II*,
#: Sect. VII.7, and of the Test Set for IVP Solvers (problem "andrews"): masses (kg), centroidal
#: inertias (kg m²), ground points, lengths and mass-centre offsets (m), spring (N/m, m),
#: driving torque (N m)
ANDREWS = {
    "m": (0.04325, 0.00365, 0.02373, 0.00706, 0.07050, 0.00706, 0.05498),
    "I": (2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5),
    "xa": -0.06934, "ya": -0.00227, "xb": -0.03635, "yb": 0.03273, "xc": 0.014, "yc": 0.072,
    "d": 28e-3, "da": 115e-4, "e": 2e-2, "ea": 1421e-5, "rr": 7e-3, "ra": 92e-5,
    "ss": 35e-3, "sa": 1874e-5, "sb": 1043e-5, "sc": 18e-3, "sd": 2e-2,
    "ta": 2308e-5, "tb": 916e-5, "u": 4e-2, "ua": 1228e-5, "ub": 449e-5,
    "zf": 2e-2, "zt": 4e-2, "fa": 1421e-5, "c0": 4530.0, "l0": 7785e-5, "mom": 33e-3,
    #: consistent initial angles (β, Θ, γ, Φ, δ, Ω, ε) of the test set; velocities zero
    "q0": (-0.0617138900142764496, 0.0, 0.455279819163070380, 0.222668390165885885,
           0.487364979543842550, -0.222668390165885885, 1.23054744454982119),
}


def iftomm_a03() -> bar_joint_model:
    """Build IFToMM benchmark A03, Andrews' squeezing mechanism.

    7 rigid bodies, 10 pins (one degree of freedom), a spring (c₀ = 4530 N/m,
    ℓ₀ = 0.07785 m) from point D of the triangle BDE to the ground point C, a constant torque
    of 0.033 N m on the crank OF, no gravity; at rest in the consistent pose of the Test Set
    for IVP Solvers. The IFToMM / test-set problem runs 0.03 s.

    Bodies (indices): 0 OF (crank), 1 FE, 2 BDE, 3 GE, 4 AG, 5 HE, 6 AH, each with its named
    points (body frames of Hairer & Wanner; BDE's frame is turned so that D lies on its axis,
    where the spring attaches). Pins: "O", "F", "B", "A5", "A7", "G", "H", "E2", "E4", "E6".

    References: IFToMM Technical Committee for Multibody Dynamics, library of benchmark
    problems (A03); E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*,
    Sect. VII.7; F. Mazzia et al., Test Set for IVP Solvers (Univ. of Bari), "andrews".
    """
    p = ANDREWS
    beta, Theta, gamma, Phi, delta, Omega, eps = p["q0"]
    angles = [beta, beta + Theta, gamma, Phi + delta, delta, Omega + eps, eps]
    # D in BDE's frame of Hairer & Wanner; BDE's body frame is turned by psi to put D on x
    dx, dy = p["sd"] - p["sb"], p["sa"] - p["sc"]
    psi = math.atan2(dy, dx)
    cp, sp = math.cos(psi), math.sin(psi)

    def turn(u: float, v: float) -> tuple[float, float]:  # coordinates in the turned frame
        return (cp * u + sp * v, -sp * u + cp * v)

    points = [
        {"O": (-p["ra"], 0.0), "F": (p["rr"] - p["ra"], 0.0)},
        {"F": (p["da"], 0.0), "E": (p["da"] - p["d"], 0.0)},
        {"B": turn(-p["sb"], p["sa"]), "D": turn(dx, dy), "E": turn(-p["sb"], p["sa"] - p["ss"])},
        {"G": (0.0, p["e"] - p["ea"]), "E": (0.0, -p["ea"])},
        {"A": (-p["ta"], -p["tb"]), "G": (p["zt"] - p["ta"], -p["tb"])},
        {"H": (p["fa"] - p["zf"], 0.0), "E": (p["fa"], 0.0)},
        {"A": (p["ub"], p["ua"]), "H": (p["ub"], p["ua"] - p["u"])},
    ]
    angles[2] += psi

    def rot(th: float, uv: tuple[float, float]) -> tuple[float, float]:
        c, s = math.cos(th), math.sin(th)
        return (c * uv[0] - s * uv[1], s * uv[0] + c * uv[1])

    ground = {"O": (0.0, 0.0), "A": (p["xa"], p["ya"]), "B": (p["xb"], p["yb"]),
              "C": (p["xc"], p["yc"])}
    centre: dict[int, tuple[float, float]] = {}

    def place(body: int, at: tuple[float, float], name: str) -> None:  # r = J - R(θ) p_J
        r = rot(angles[body], points[body][name])
        centre[body] = (at[0] - r[0], at[1] - r[1])

    def point(body: int, name: str) -> tuple[float, float]:
        r = rot(angles[body], points[body][name])
        return (centre[body][0] + r[0], centre[body][1] + r[1])

    place(0, ground["O"], "O")
    place(1, point(0, "F"), "F")
    place(2, ground["B"], "B")
    place(4, ground["A"], "A")
    place(3, point(4, "G"), "G")
    place(6, ground["A"], "A")
    place(5, point(6, "H"), "H")
    m = bar_joint_model()
    m.set_g(0.0)
    lengths = [None, None, 2.0 * math.hypot(dx, dy), None, None, None, None]
    for b in range(7):
        m.add_body(*centre[b], angles[b], p["m"][b], p["I"][b], points=points[b],
                   length=lengths[b])
    m.add_pin(None, ground["O"], 0, "O", name="O")
    m.add_pin(0, "F", 1, "F", name="F")
    m.add_pin(None, ground["B"], 2, "B", name="B")
    m.add_pin(None, ground["A"], 4, "A", name="A5")
    m.add_pin(None, ground["A"], 6, "A", name="A7")
    m.add_pin(4, "G", 3, "G", name="G")
    m.add_pin(6, "H", 5, "H", name="H")
    for b, nm in ((2, "E2"), (3, "E4"), (5, "E6")):
        m.add_pin(1, "E", b, "E", name=nm)
    # the spring from D (BDE, on its axis: s = 1/2 of the reference length 2|D|) to C
    m.add(SpringDamper(bar_a=2, s_a=0.5, bar_b=None, ground=ground["C"], k=p["c0"],
                       l0=p["l0"], name="spring"))
    m.add(TorqueActuator(bar=0, torque=p["mom"], name="drive"))
    return m

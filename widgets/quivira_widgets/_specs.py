"""What each field of the panels accepts: units, limits that keep a run within budget, warnings.

The hard limits are the Studio's budget for an interactive run on a laptop: a simulated time
of at most :data:`MAX_T_END` seconds and at most :data:`MAX_FRAMES` output frames (beyond, a
run can take minutes or gigabytes), lengths, masses, positions and loads within ranges where a
run of a few seconds stays fast and accurate. Values inside the hard limits but far from the
usual (``g < 0``, a 10⁷ N load) are accepted with a warning.
"""

from __future__ import annotations

from ._fields import NumberSpec

#: longest simulated time the Studio accepts (s)
MAX_T_END = 1e4
#: most output frames the Studio accepts
MAX_FRAMES = 100_000
#: largest example size (bars of a chain, cells of a scissor lattice)
MAX_EXAMPLE_N = 40

_SIZE = "larger models are slow or inaccurate to simulate"

COORD_X = NumberSpec("x", "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE)
COORD_Y = NumberSpec("y", "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE)
ANGLE = NumberSpec("θ", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")
LENGTH = NumberSpec("length", "m", positive=True, lo=1e-6, hi=1e6, warn_lo=1e-3, warn_hi=1e4,
                    why=_SIZE)
MASS = NumberSpec("mass", "kg", positive=True, lo=1e-6, hi=1e9, warn_lo=1e-3, warn_hi=1e6,
                  why="such masses make the equations badly scaled")
INERTIA = NumberSpec("inertia I", "kg·m²", positive=True, lo=1e-12, hi=1e9, warn_lo=1e-8,
                     warn_hi=1e6, why="such inertias make the equations badly scaled")
POINT_S = NumberSpec("point s", "", lo=-0.5, hi=0.5,
                     expected="a number from -0.5 (start) to 0.5 (end of the bar)")
FORCE_X = NumberSpec("fx", "N", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6,
                     why="such loads make the motion too fast to integrate in the budget")
FORCE_Y = NumberSpec("fy", "N", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6,
                     why="such loads make the motion too fast to integrate in the budget")
TORQUE = NumberSpec("torque", "N·m", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6,
                    why="such loads make the motion too fast to integrate in the budget")
GRAVITY = NumberSpec("g", "m/s²", lo=-1e3, hi=1e3, warn_lo=0.0, warn_hi=100.0,
                     warn_below="g < 0: gravity points up (+y); is that what you want?",
                     warn_above="g above 100 m/s²: far stronger than on any planet",
                     why="stronger gravity makes the motion too fast to integrate")
TIME = NumberSpec("time", "s", positive=True, hi=MAX_T_END, warn_hi=300.0,
                  warn_above="a long run: it may take a while (interrupt the kernel to stop it)",
                  why="the Studio's simulation budget")
FRAMES = NumberSpec("frames", "", integer=True, lo=2, hi=MAX_FRAMES, warn_hi=20_000,
                    expected=f"a whole number from 2 to {MAX_FRAMES}",
                    warn_above="many frames: drawing and exporting get slow",
                    why="the Studio's output budget")
EXAMPLE_N = NumberSpec("n", "", integer=True, lo=1, hi=MAX_EXAMPLE_N,
                       expected=f"a whole number from 1 to {MAX_EXAMPLE_N}",
                       why="larger examples take long to compile")

# ---------------------------------------------------------------- springs, dampers, actuators
_STIFF = "stiffer springs make the motion too fast to integrate in the budget"
_LOAD = "such loads make the motion too fast to integrate in the budget"
STIFFNESS = NumberSpec("k", "N/m", lo=0.0, hi=1e9, warn_hi=1e6, why=_STIFF, why_lo="",
                       expected="a number from 0 (no spring) to 1e+09")
DAMPING = NumberSpec("c", "N·s/m", lo=0.0, hi=1e9, warn_hi=1e5, why=_STIFF, why_lo="",
                     expected="a number from 0 (no damper) to 1e+09")
REST_LENGTH = NumberSpec("l0", "m", lo=0.0, hi=1e6, warn_hi=1e4, why=_SIZE, why_lo="",
                         expected="a number from 0 to 1e+06, or empty for the initial distance")
TORSION_K = NumberSpec("k_θ", "N·m/rad", lo=0.0, hi=1e9, warn_hi=1e6, why=_STIFF, why_lo="",
                       expected="a number from 0 (no spring) to 1e+09")
TORSION_C = NumberSpec("c_θ", "N·m·s/rad", lo=0.0, hi=1e9, warn_hi=1e5, why=_STIFF,
                       why_lo="",
                       expected="a number from 0 (no damper) to 1e+09")
REST_ANGLE = NumberSpec("φ0", "°", lo=-1e6, hi=1e6,
                        expected="an angle in degrees, or empty for the initial angle")
PRELOAD = NumberSpec("preload", "N·m", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6, why=_LOAD)
LAW_FORCE = NumberSpec("offset", "N", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6, why=_LOAD)
LAW_TORQUE = NumberSpec("offset", "N·m", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6, why=_LOAD)
AMPLITUDE_FORCE = NumberSpec("amplitude", "N", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6,
                             why=_LOAD)
AMPLITUDE_TORQUE = NumberSpec("amplitude", "N·m", lo=-1e9, hi=1e9, warn_lo=-1e6, warn_hi=1e6,
                              why=_LOAD)
OMEGA = NumberSpec("ω", "rad/s", lo=0.0, hi=1e4, warn_hi=1e3, why_lo="",
                   warn_above="a fast oscillation: the run needs many steps",
                   why="faster oscillations need more steps than the budget allows")
PHASE = NumberSpec("phase", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")
DIRECTION = NumberSpec("direction α", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")

# ---------------------------------------------------------------- sliders, latches, stops, contact
OFFSET = NumberSpec("offset", "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE)
GUIDE_ANGLE = NumberSpec("guide angle", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")
LOCK_ANGLE = NumberSpec("locked φ0", "°", lo=-1e6, hi=1e6,
                        expected="an angle in degrees, or empty for the initial angle")
LATCH_ANGLE = NumberSpec("latch φ", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")
LIMIT_ANGLE = NumberSpec("limit φ", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")
RESTITUTION = NumberSpec("restitution e", "", lo=0.0, hi=1.0,
                         expected="a number from 0 (plastic) to 1 (elastic)")
REST_SPEED_LIN = NumberSpec("rest speed", "m/s", lo=0.0, hi=1e6, why_lo="",
                            expected="a number from 0 to 1e+06")
REST_SPEED_ANG = NumberSpec("rest speed", "rad/s", lo=0.0, hi=1e6, why_lo="",
                            expected="a number from 0 to 1e+06")
HEIGHT = NumberSpec("height h", "m", lo=-1e6, hi=1e6, warn_lo=-1e4, warn_hi=1e4, why=_SIZE)
NORMAL_ANGLE = NumberSpec("normal α", "°", lo=-1e6, hi=1e6, why="give an angle in degrees")

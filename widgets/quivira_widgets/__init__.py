"""Quivira widgets: Jupyter panels over a quivira model.

Panels, each usable alone on a :class:`quivira.BarJointModel` and composed in
:class:`Studio`:

* :class:`ModelEditor` — add, edit and delete bars, joints, supports, springs and dampers,
  slots, prismatic joints, ground sliders, latches, angle stops and contacts (floors, walls),
  loads and actuators (constant or sinusoidal laws); g; assemble; undo/redo, new model,
  examples; save, load, upload and download (JSON).
* :class:`ModelView` — the model drawn live (springs as zigzags, dampers as pistons,
  torsional springs as coils, actuators as arrows, slots as grooves, sliders on hatched
  rails, stops as wedges, latches as rays that lock during the motion, floors as hatched
  lines), particles sized by mass, rigid bodies by shape (discs with a radius line, plates)
  with their named points, welds, distance links, rolling lines and circles, joint motors;
  trajectory frames, constraint forces, bars coloured by axial force, mode shapes.
* :class:`StaticsPanel` — the equilibrium (pose, verdict, member forces, reactions) and the
  N/V/M diagrams of a bar.
* :class:`SensitivityPanel` — the derivatives of a chosen output (a coordinate, a multiplier
  or its peak, an energy) with respect to each parameter, as a bar chart (raw, relative or
  scaled by a tolerance).
* :class:`MatrixInspector` — M, J, W and λ at a state: structure, rank, conditioning,
  formulas, colour bars in their units.
* :class:`MotionPlayer` — simulate with progress, play in real time at 0.1×–4×, plot
  multipliers, reactions, energy and residuals, the energy ledger (stacked, with its balance)
  and the forces of springs and actuators; the events of a run (latches, impacts, contacts
  resting and releasing) on the timeline, in the plots and in an event log; export
  GIF/MP4/CSV with a download.

Panel state is held in traitlets (``model``, ``trajectory``, ``frame``, ``selection``) and
wired with ``link``/``dlink``. Inputs are parsed in the kernel: a value that cannot be used is
refused with a message next to its field. They depend on quivira, ipywidgets and matplotlib
(ipympl's canvas widget when installed); install them with ``pip install "quivira[widgets]"``.
Both packages ship in one distribution and share its version.
"""

import quivira

from ._figure import FigurePane
from ._files import WorkFolder
from .editor import ModelEditor
from .inspector import MatrixInspector
from .player import MotionPlayer
from .sensitivity import SensitivityPanel
from .statics import StaticsPanel
from .studio import Studio
from .view import ModelView

__version__ = quivira.__version__

__all__ = [
    "FigurePane",
    "MatrixInspector",
    "ModelEditor",
    "ModelView",
    "MotionPlayer",
    "SensitivityPanel",
    "StaticsPanel",
    "Studio",
    "WorkFolder",
    "__version__",
]

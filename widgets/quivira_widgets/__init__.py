"""Quivira widgets: Jupyter panels over a quivira model.

Panels, each usable alone on a :class:`quivira.bar_joint_model` and composed in
:class:`Studio`:

* :class:`ModelEditor` — add, edit and delete bars, joints, supports and loads; g; assemble;
  save and load (JSON).
* :class:`ModelView` — the model drawn live; trajectory states and mode shapes.
* :class:`MatrixInspector` — M, J, W and λ at a state: structure, rank, conditioning,
  formulas.
* :class:`MotionPlayer` — simulate with progress, animate, plot multipliers, reactions,
  energy and residuals, export GIF/MP4.

They depend on quivira, ipywidgets and matplotlib (ipympl's canvas widget when installed);
install them with ``pip install "quivira[widgets]"``. Both packages ship in one distribution
and share its version.
"""

import quivira

from ._figure import FigurePane
from .editor import ModelEditor
from .inspector import MatrixInspector
from .player import MotionPlayer
from .studio import Studio
from .view import ModelView

__version__ = quivira.__version__

__all__ = [
    "FigurePane",
    "MatrixInspector",
    "ModelEditor",
    "ModelView",
    "MotionPlayer",
    "Studio",
    "__version__",
]

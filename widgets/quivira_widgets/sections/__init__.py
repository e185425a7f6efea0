"""The sections of :class:`quivira_widgets.ModelEditor`, one class each.

* :class:`BarsSection`, :class:`JointsSection`, :class:`SupportsSection`,
  :class:`SpringsSection`, :class:`SlidersSection` (slots, prismatic joints, ground sliders,
  latches, angle stops, contacts), :class:`LoadsSection`, :class:`ActuatorsSection` — lists of items
  with a "+ new …" template, Add and Delete;
* :class:`BodiesSection` (particles, discs, plates) and :class:`BodyJointsSection` (welds,
  distance links, body pins, rolling contacts, joint motors) — lists with Add and Delete, too;
* :class:`ElementsSection` — any kind of the model's registry, with a form built from the
  kind's declared fields;
* :class:`ModelSection` — gravity, *Assemble*, the model's summary;
* :class:`FilesSection` — working folder, save, load, upload, download;
* :class:`Toolbar` — undo, redo, new model, examples.

They share :class:`~quivira_widgets.sections.base.Section` (message line, guarded edits,
syncing) and :class:`~quivira_widgets.sections.base.ItemSection` (selector, Add, Delete).
"""

from .actuators import ActuatorsSection
from .bars import BarsSection
from .base import NEW, ItemSection, Section
from .bodies import BodiesSection
from .body_joints import BodyJointsSection
from .elements import ElementsSection
from .files import FilesSection
from .joints import JointsSection
from .loads import LoadsSection
from .model import ModelSection
from .sliders import SlidersSection
from .springs import SpringsSection
from .supports import SupportsSection
from .toolbar import Toolbar

__all__ = ["NEW", "ActuatorsSection", "BarsSection", "BodiesSection", "BodyJointsSection",
           "ElementsSection",            "FilesSection", "ItemSection",
           "JointsSection", "LoadsSection", "ModelSection", "Section", "SlidersSection",
           "SpringsSection", "SupportsSection", "Toolbar"]

"""The element kinds of the bar model, one class each, and their registry.

Every kind is one class, in a module of its own or with close relatives (see :mod:`.base`
for what a class provides):

========================  =====================  ==========================================
class                     module                 what it adds
========================  =====================  ==========================================
:class:`PinJoint`         ``pin_joint``          rows keeping bar points together
:class:`Support`          ``support``            rows holding a bar point in x and/or y
:class:`CoordinateConstraint` ``coordinate``     Exudyn-style coordinate-vector rows
:class:`UserConstraint`   ``user``               rows given as heyoka expressions
:class:`KnifeEdge`        ``knife_edge``         a velocity row (no sideways slip)
:class:`PointLoad`        ``point_load``         a constant force and torque on a bar
:class:`SpringDamper`     ``spring_damper``      a spring-damper between two points
:class:`TorsionalSpring`  ``torsional_spring``   a torsional spring-damper on a relative angle
:class:`ForceActuator`    ``actuators``          a force given by a law of time and state
:class:`TorqueActuator`   ``actuators``          a torque given by a law of time and state
:class:`Parameter`        ``actuators``          a named runtime parameter of the laws
:class:`PinInSlot`        ``sliders``            a bar point kept on the line of another bar
:class:`PrismaticJoint`   ``sliders``            a bar sliding along another, rotation locked
:class:`GroundSlider`     ``sliders``            a bar point on a ground line at any angle
:class:`Weld`             ``weld``               two bodies (or body and ground) welded
:class:`Distance`         ``distance``           a massless link between two body points
:class:`BodyPin`          ``body_pin``           a pin between any two body points
:class:`RollingOnLine`    ``rolling``            a disc rolling on a ground line
:class:`RollingOnDisc`    ``rolling``            a disc rolling on/inside another disc
:class:`JointMotor`       ``joint_motor``        a relative angle driven by a law of time
:class:`GearPair`         ``gear_pair``          two bodies' angles coupled by meshing gears
:class:`Latch`            ``switching``          locks a hinge when it reaches an angle
:class:`AngleStop`        ``switching``          a one-sided angle limit with restitution
:class:`Contact`          ``switching``          a bar point above a ground line (floor, wall)
:class:`UserEvent`        ``user_event``         a recorded (or terminal) event of the user
========================  =====================  ==========================================

**Adding a kind** = writing one class (a subclass of :class:`~.base.Constraint` or
:class:`~.base.Load`, in a module of its own) decorated with ``@register(rank=...)``
(:mod:`.registry`), and importing its module below (see ``docs/contributing.md``). The
model's data, parameter layout, topology key, both assembly paths, labels, reactions,
persistence, bar removal, the summary and the formula symbols all iterate over
:data:`KINDS`; the model class gains at most a façade method (``add_...``) that validates the
arguments through the class and appends the element.

:data:`KINDS`, :data:`BY_COLLECTION` and :data:`BY_KIND` are built from the registrations,
by the rank each kind declares. The order of :data:`KINDS` is the order of the constraint
rows (holonomic rows of every kind first, then velocity rows, each in this order), of the
runtime parameters and of the lists in model files: a kind's rank never changes.
"""

from __future__ import annotations

from .actuators import ForceActuator, Parameter, TorqueActuator
from .base import Constraint, Element, Load, LoadContext, Row, RowContext
from .body_pin import BodyPin
from .coordinate import CoordinateConstraint
from .distance import Distance
from .gear_pair import GearPair
from .joint_motor import JointMotor
from .knife_edge import KnifeEdge
from .pin_joint import PinJoint
from .point_load import PointLoad
from .registry import REGISTRY, register
from .rolling import RollingOnDisc, RollingOnLine
from .sliders import GroundSlider, PinInSlot, PrismaticJoint
from .spring_damper import SpringDamper
from .support import Support
from .switching import AngleStop, Contact, Latch
from .torsional_spring import TorsionalSpring
from .user import UserConstraint
from .user_event import UserEvent
from .weld import Weld

#: the registered element kinds, in row / parameter / file order (by rank, :mod:`.registry`)
KINDS: tuple[type[Element], ...] = REGISTRY.kinds()

#: kind class by collection name (the key of its list in model data and files)
BY_COLLECTION: dict[str, type[Element]] = {k.collection: k for k in KINDS}
#: kind class by short kind key (parameter keys, row owners)
BY_KIND: dict[str, type[Element]] = {k.kind: k for k in KINDS}

__all__ = [
    "BY_COLLECTION",
    "BY_KIND",
    "KINDS",
    "BodyPin",
    "Constraint",
    "CoordinateConstraint",
    "Distance",
    "Element",
    "AngleStop",
    "Contact",
    "ForceActuator",
    "GearPair",
    "GroundSlider",
    "JointMotor",
    "Latch",
    "KnifeEdge",
    "Load",
    "LoadContext",
    "Parameter",
    "PinInSlot",
    "PinJoint",
    "PrismaticJoint",
    "PointLoad",
    "RollingOnDisc",
    "RollingOnLine",
    "Row",
    "RowContext",
    "SpringDamper",
    "Support",
    "TorqueActuator",
    "TorsionalSpring",
    "UserConstraint",
    "UserEvent",
    "Weld",
    "register",
]

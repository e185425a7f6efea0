"""The bodies and element kinds of a model, for ``model.add(...)``.

Every kind is a dataclass whose fields are declared once, with their unit, range and roles
(:mod:`quivira.model.elements.fields`); build one with keywords and add it::

    import quivira
    from quivira.elements import Bar, Contact, SpringDamper

    model = quivira.bar_joint_model()
    model.add(Bar(length=1.0, mass=1.0, pose=(0.0, 0.5, 0.0)))      # 'bar0'
    model.add(Contact(bar=0, s=-0.5, restitution=0.5))              # 'contact0'
    model.add(SpringDamper(bar_a=0, s_a=0.5, bar_b=None, ground=(1.0, 1.0), k=50.0))

``model.set(name, field=value)`` edits it, ``model.remove(name)`` removes it,
``model.element(name)`` reads it; :func:`fields_of` lists a kind's fields with their units
and roles (the table of the docs).
"""

from __future__ import annotations

from .model.data import Bar, Particle, RigidBody
from .model.elements import (
    KINDS,
    AngleStop,
    BodyPin,
    Contact,
    CoordinateConstraint,
    Distance,
    Element,
    ForceActuator,
    GearPair,
    GroundSlider,
    JointMotor,
    KnifeEdge,
    Latch,
    Parameter,
    PinInSlot,
    PinJoint,
    PointLoad,
    PrismaticJoint,
    RollingOnDisc,
    RollingOnLine,
    SpringDamper,
    Support,
    TorqueActuator,
    TorsionalSpring,
    UserConstraint,
    UserEvent,
    Weld,
)
from .model.elements.fields import table as _table


def fields_of(kind: type) -> list[dict]:
    """Return the declared fields of an element kind: name, label, unit, range and roles.

    Examples
    --------
    >>> from quivira.elements import Contact, fields_of
    >>> [(f["field"], f["unit"]) for f in fields_of(Contact)][:4]
    [('bar', ''), ('s', ''), ('normal_angle', 'rad'), ('height', 'm')]
    """
    if not isinstance(kind, type) or kind not in KINDS:
        raise TypeError(f"fields_of: expected an element kind of quivira.elements, got "
                        f"{kind!r}")
    return _table(kind)


__all__ = ["KINDS", "AngleStop", "Bar", "BodyPin", "Contact", "CoordinateConstraint",
           "Distance", "Element", "ForceActuator", "GearPair", "GroundSlider", "JointMotor",
           "KnifeEdge",
           "Latch", "Parameter", "Particle", "PinInSlot", "PinJoint", "PointLoad",
           "PrismaticJoint", "RigidBody", "RollingOnDisc", "RollingOnLine", "SpringDamper",
           "Support", "TorqueActuator", "TorsionalSpring", "UserConstraint", "UserEvent",
           "Weld", "fields_of"]

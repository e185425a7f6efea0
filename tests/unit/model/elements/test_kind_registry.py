"""The element kinds register with a decorator; their order is the one results depend on."""

from dataclasses import dataclass

import pytest

import quivira.elements as public
from quivira.model import elements
from quivira.model.elements import BY_COLLECTION, BY_KIND, KINDS
from quivira.model.elements.base import Constraint
from quivira.model.elements.knife_edge import KnifeEdge
from quivira.model.elements.registry import REGISTRY, Registry

#: the order of the kinds when they were listed by hand: constraint rows, runtime parameters
#: and the lists of model files follow it, so it must never change
HAND_LISTED = (
    "Parameter", "PinJoint", "Support", "CoordinateConstraint", "UserConstraint",
    "KnifeEdge", "PinInSlot", "PrismaticJoint", "GroundSlider", "Weld", "Distance",
    "BodyPin", "RollingOnLine", "RollingOnDisc", "JointMotor", "Latch", "AngleStop",
    "Contact", "PointLoad", "SpringDamper", "TorsionalSpring", "ForceActuator",
    "TorqueActuator", "UserEvent",
)


def test_registered_kinds_keep_the_hand_listed_order():
    names = [k.__name__ for k in KINDS]
    assert [n for n in names if n in HAND_LISTED] == list(HAND_LISTED)
    assert len(set(KINDS)) == len(KINDS)


def test_maps_are_built_from_the_registrations():
    assert list(BY_COLLECTION.values()) == list(KINDS)
    assert list(BY_KIND.values()) == list(KINDS)
    assert all(BY_COLLECTION[k.collection] is k and BY_KIND[k.kind] is k for k in KINDS)
    ranks = [REGISTRY.rank(k) for k in KINDS]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)


def test_every_kind_module_class_is_registered_and_public():
    """A kind class of the package that is not registered would be missing from files."""
    for name in elements.__all__:
        cls = getattr(elements, name)
        if isinstance(cls, type) and getattr(cls, "collection", ""):
            assert cls in KINDS, name
            assert getattr(public, name) is cls, name


def _kind(kind: str, collection: str) -> type:
    @dataclass
    class Fake(Constraint):
        def bars_used(self):
            return ()

        def topology(self):
            return ()

        def reindexed(self, removed_bar):
            return self

        def describe(self, position):
            return ""

        def rows(self, ctx):
            return []

    Fake.kind, Fake.collection = kind, collection
    return Fake


def test_duplicates_are_rejected_and_leave_the_registry_unchanged():
    reg = Registry()
    first = reg.register(rank=10)(_kind("gadget", "gadgets"))
    for rank, kind, collection, what in ((10, "other", "others", "rank 10"),
                                         (20, "gadget", "others", "kind key 'gadget'"),
                                         (30, "other", "gadgets", "collection name 'gadgets'")):
        with pytest.raises(ValueError, match=f"{what} is already taken by Fake"):
            reg.register(rank=rank)(_kind(kind, collection))
    assert reg.kinds() == (first,)


def test_a_kind_already_in_quivira_cannot_register_twice():
    reg = Registry()
    reg.register(rank=1)(KnifeEdge)
    with pytest.raises(ValueError, match="kind key 'knife' is already taken by KnifeEdge"):
        reg.register(rank=2)(_kind("knife", "blades"))


def test_bad_registrations():
    reg = Registry()
    with pytest.raises(TypeError, match="rank must be an int"):
        reg.register(rank=1.5)
    with pytest.raises(TypeError, match="expected an Element subclass"):
        reg.register(rank=1)(int)
    with pytest.raises(ValueError, match="must declare its kind key and collection"):
        reg.register(rank=1)(_kind("", "things"))
    with pytest.raises(ValueError, match="not a registered element kind"):
        reg.rank(KnifeEdge)


def test_registering_after_the_kinds_are_built_is_an_error():
    """KINDS is fixed once built: a late kind would be missing from models and files."""
    with pytest.raises(RuntimeError, match="already built"):
        REGISTRY.register(rank=99999)(_kind("late", "lates"))
    assert KINDS == REGISTRY.kinds()

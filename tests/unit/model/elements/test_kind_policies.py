"""Impact and switching behaviour is asked of the element, declared by its kind."""

from __future__ import annotations

import pytest

from quivira.model.elements import KINDS, AngleStop, Contact, CoordinateConstraint, Latch


class _Ctx:
    """The one thing switching kinds ask of the row context when listing their events."""

    @staticmethod
    def global_par(name: str) -> int:
        return 0


def _switching_elements():
    return [Latch(bar_a=None, bar_b=0, angle=0.5),
            AngleStop(bar_a=None, bar_b=0, limit=0.5, restitution=0.5, rest_speed=0.01),
            Contact(bar=0, s=0.0, restitution=0.5, rest_speed=0.01)]


def test_only_unilateral_and_locking_kinds_join_impacts():
    joining = [k.__name__ for k in KINDS if k.unilateral or k.locking]
    assert joining == ["Latch", "AngleStop", "Contact"]
    for el in _switching_elements():
        assert el.joins_impacts
    assert [k.__name__ for k in KINDS if k.switchable] == [
        "CoordinateConstraint", "Latch", "AngleStop", "Contact"]
    assert not CoordinateConstraint.unilateral and not CoordinateConstraint.locking


def test_the_closing_role_is_one_the_element_watches():
    """The role dispatched at the start of a run must be an event role of the element."""
    roles = {type(el).__name__: (el.closing_role, [e.role for e in el.events(_Ctx())])
             for el in _switching_elements()}
    assert roles == {"Latch": ("lock", ["lock"]),
                     "AngleStop": ("close", ["close", "release"]),
                     "Contact": ("close", ["close", "release"])}


@pytest.mark.parametrize("speed, floor, expected", [
    (1.0, 0.0, 0.5),       # e·v = 0.5 above the rest speed 0.01: it bounces
    (0.019, 0.0, 0.0),     # e·v = 0.0095 below the rest speed: at rest
    (0.02, 0.0, 0.5),      # e·v = rest speed exactly: bounces
    (1.0, 0.6, 0.0),       # the run's floor above e·v: at rest
])
def test_unilateral_companions_bounce_above_the_rest_speed(speed, floor, expected):
    for el in _switching_elements()[1:]:
        assert el.restitution_at(speed, floor) == expected


def test_locking_and_bilateral_companions_are_plastic():
    latch = _switching_elements()[0]
    assert latch.restitution_at(10.0, 0.0) == 0.0


class _Recorder:
    def __init__(self):
        self.values = {}

    def set_value(self, name, value):
        self.values[name] = value


def test_a_redundant_latch_moves_its_angle_out_of_reach():
    act = _Recorder()
    _switching_elements()[0].on_redundant_lock(act)
    assert act.values == {"angle": 0.5 + 1e6}
    act = _Recorder()
    _switching_elements()[2].on_redundant_lock(act)  # a contact never locks: nothing
    assert act.values == {}

"""Batches of edits, replacing a model in place, failing observers, topology keys."""

import warnings

import pytest

import quivira as qv
from quivira.examples import chain, four_bar


def test_batch_notifies_once_and_applies_all_edits():
    m = four_bar()
    seen = []
    m.observe(seen.append)
    with m.batch():
        m.set_init_bar_attitude(1, 1.8, 1.7, 0.6)
        m.set_bar_length(1, 3.1)
    assert len(seen) == 1 and seen[0] == "batch: bar pose, bar length"
    b = m.bars[1]
    assert b.pose == (1.8, 1.7, 0.6) and b.length == 3.1


def test_batch_with_failing_edit_keeps_earlier_edits_and_notifies():
    m = four_bar()
    seen = []
    m.observe(seen.append)
    with pytest.raises(ValueError, match="length must be positive"), m.batch():
        m.set_bar_mass(0, 5.0)
        m.set_bar_length(0, -1.0)
    assert m.bars[0].mass == 5.0 and seen == ["batch: bar mass"]


def test_replace_with_keeps_object_observers_and_cache():
    m = chain(2)
    m.simulate(0.1, 3)
    seen = []
    m.observe(seen.append)
    other = qv.bar_joint_model.from_dict(chain(2, mass=3.0).to_dict())
    m.replace_with(other)
    assert seen == ["replaced"] and m.bars[0].mass == 3.0
    assert m.is_compiled()  # same topology: the compiled code is reused
    assert m.to_dict() == other.to_dict()
    with pytest.raises(TypeError, match="expected a bar_joint_model"):
        m.replace_with({"bars": []})


def test_failing_observer_warns_and_edit_stands():
    m = chain(1)
    m.observe(lambda what: 1 / 0)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        m.set_bar_mass(0, 2.0)
    assert m.bars[0].mass == 2.0
    assert any("observer" in str(x.message) and "ZeroDivisionError" in str(x.message) for x in w)


def test_topology_key_ignores_values_not_structure():
    m = four_bar()
    k0 = m.topology_key()
    m.set_bar_mass(0, 7.0)
    m.set_g(1.62)
    assert m.topology_key() == k0
    m.add_external_force(1, 0.0, 1.0, 0.0)
    assert m.topology_key() != k0
    assert not m.is_compiled()
    m.compiled(dynamics=True)
    assert m.is_compiled()

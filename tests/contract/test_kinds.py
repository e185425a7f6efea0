"""The contract every element kind of :data:`quivira.elements.KINDS` keeps, kind by kind.

For each registered kind, one small model holding one element of that kind (the table
:data:`BUILDERS`; a kind missing from it fails :func:`test_every_kind_has_a_builder`, so a new
kind cannot be forgotten):

* files: ``to_dict``/``from_dict`` gives the same dict, the same elements, the same parameters
  and the same constraint rows;
* reindexing: removing an earlier element of the same kind keeps the element's name and fields;
* topology stability: editing a runtime field with ``model.set`` keeps the topology key and
  the compiled code (no recompile);
* rows: the element contributes the rows it declares, and the Jacobian ``J`` of
  :meth:`~quivira.bar_joint_model.matrices` equals central finite differences of the position
  residuals ``F(q, t)`` (holonomic rows) or of the velocity residuals ``g(q, q̇)`` in ``q̇``
  (velocity rows) at a random pose; ``J q̇ + ∂F/∂t`` is the velocity residual of a holonomic
  row;
* the widget editor has a form for the kind that shows the element's fields.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable
from dataclasses import dataclass

import heyoka as hy
import numpy as np
import pytest

import quivira as qv
from quivira import elements as qe

# ------------------------------------------------------------------------------------------
# bodies the builders stand the elements on
# ------------------------------------------------------------------------------------------


def _bar(m, x: float, y: float, theta: float) -> int:
    return m.add_bar_at_attitude(x, y, theta, 1.0, 1.0)


def _two_bars(m) -> None:
    """Bar 0 from (0, 0) to (1, 0), bar 1 from (1, 0) to (1, -1)."""
    _bar(m, 0.5, 0.0, 0.0)
    _bar(m, 1.0, -0.5, -math.pi / 2)


def _hinged_pair(m) -> None:
    """Bar 0 hanging from a support at the origin, bar 1 hinged to its lower end."""
    _bar(m, 0.0, -0.5, -math.pi / 2)
    _bar(m, 0.0, -1.5, -math.pi / 2)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add_joint([0, 1], [0.5, -0.5])


def _pinned_pair(m) -> None:
    """Bars 0 and 1 pinned to the ground at their centres, 0.7 apart."""
    _bar(m, 0.0, 0.0, 0.0)
    _bar(m, 0.7, 0.0, 0.3)
    m.add_support(0, 0.0, fixed_x=True, fixed_y=True)
    m.add_support(1, 0.0, fixed_x=True, fixed_y=True)


def _guide_and_runner(m) -> None:
    """Bar 0 along the x axis held at both ends, bar 1 standing on its centre."""
    _bar(m, 0.5, 0.0, 0.0)
    m.add_support(0, -0.5, fixed_x=True, fixed_y=True)
    m.add_support(0, 0.5, fixed_x=False, fixed_y=True)
    _bar(m, 0.5, 0.0, math.pi / 2)


def _disc(m, x: float, y: float, radius: float = 0.2) -> int:
    m.add(qe.RigidBody(1.0, 0.5 * radius ** 2, (x, y, 0.0),
                    shape={"kind": "disc", "radius": radius}))
    return len(m.bodies) - 1


# ------------------------------------------------------------------------------------------
# one builder per kind
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """How to stand one element of a kind in a small model, and what it must contribute.

    ``bodies(m)`` adds the bodies (and any supports) the element needs; ``element(m)``
    returns the element (not yet added). ``rows`` is ``(holonomic, velocity)`` rows of the
    element; ``runtime`` is a ``model.set`` edit of runtime fields only (None when the kind
    declares no editable runtime field).
    """

    bodies: Callable
    element: Callable
    rows: tuple[int, int]
    runtime: dict | None


def _x0(m):
    return m.variables(0)[0][0]


BUILDERS: dict[type, Case] = {
    qe.Parameter: Case(
        _two_bars, lambda m: qe.Parameter(name="A", value=0.3),
        (0, 0), {"value": 0.7}),
    qe.PinJoint: Case(
        _two_bars, lambda m: qe.PinJoint(bars=[0, 1], s=[0.5, -0.5]),
        (2, 0), {"s": [0.4, -0.5]}),
    qe.Support: Case(
        _two_bars, lambda m: qe.Support(bar=0, s=-0.5),
        (2, 0), {"x": 0.1}),
    qe.CoordinateConstraint: Case(
        _two_bars, lambda m: qe.CoordinateConstraint(bar0=None, bar1=0, X1=[[0, 1, 0]],
                                                     offset=[0.0]),
        (1, 0), {"offset": [0.2]}),
    qe.UserConstraint: Case(
        _two_bars, lambda m: qe.UserConstraint(exprs=[_x0(m) ** 2 - 0.25]),
        (1, 0), None),
    qe.KnifeEdge: Case(
        _two_bars, lambda m: qe.KnifeEdge(bar=0, s=0.25),
        (0, 1), {"s": 0.1}),
    qe.PinInSlot: Case(
        _guide_and_runner, lambda m: qe.PinInSlot(bar_a=0, bar_b=1, s_b=0.0),
        (1, 0), {"offset": 0.1}),
    qe.PrismaticJoint: Case(
        _guide_and_runner, lambda m: qe.PrismaticJoint(bar_a=0, bar_b=1),
        (2, 0), {"phi0": 1.4}),
    qe.GroundSlider: Case(
        _two_bars, lambda m: qe.GroundSlider(bar=0, s=0.5),
        (1, 0), {"s": -0.25}),
    qe.Weld: Case(
        _two_bars, lambda m: qe.Weld(body_a=None, body_b=0, point_b=(-0.5, 0.0)),
        (3, 0), {"phi0": 0.2}),
    qe.Distance: Case(
        _two_bars, lambda m: qe.Distance(body_a=None, point_a=(0.0, 1.0), body_b=0,
                                         point_b=-0.5),
        (1, 0), {"length": 0.8}),
    qe.BodyPin: Case(
        _two_bars, lambda m: qe.BodyPin(body_a=None, point_a=(0.0, 0.0), body_b=0,
                                        point_b=-0.5),
        (2, 0), {"point_a": (0.1, 0.0)}),
    # rolling on a straight line integrates: both rows are holonomic
    qe.RollingOnLine: Case(
        lambda m: _disc(m, 0.0, 0.2), lambda m: qe.RollingOnLine(body=0),
        (2, 0), {"radius": 0.3}),
    qe.RollingOnDisc: Case(
        lambda m: _disc(m, 1.2 * math.sin(0.1), 1.2 * math.cos(0.1)),
        lambda m: qe.RollingOnDisc(body_a=None, body_b=0, radius_a=1.0, centre_a=(0.0, 0.0)),
        (1, 1), {"radius_b": 0.25}),
    qe.JointMotor: Case(
        _two_bars, lambda m: qe.JointMotor(body_a=None, body_b=0, law=0.3 + 0.5 * hy.time),
        (1, 0), None),
    # the switching kinds keep their row when inactive (a zero row); active, it constrains
    qe.Latch: Case(
        _hinged_pair, lambda m: qe.Latch(bar_a=0, bar_b=1, angle=0.3, active=True),
        (1, 0), {"angle": 0.4}),
    qe.AngleStop: Case(
        _two_bars, lambda m: qe.AngleStop(bar_a=None, bar_b=0, limit=-1.0, restitution=0.5,
                                          active=True),
        (1, 0), {"limit": -0.8, "restitution": 0.3}),
    qe.Contact: Case(
        _two_bars, lambda m: qe.Contact(bar=0, s=0.0, restitution=0.5, active=True),
        (1, 0), {"height": -0.1, "restitution": 0.3}),
    qe.PointLoad: Case(
        _two_bars, lambda m: qe.PointLoad(bar=0, s=0.5, fx=1.0, fy=-2.0),
        (0, 0), {"fx": 3.0, "torque": 0.5}),
    qe.SpringDamper: Case(
        _two_bars, lambda m: qe.SpringDamper(bar_a=0, s_a=0.5, bar_b=None, ground=(1.0, 1.0),
                                             k=50.0),
        (0, 0), {"k": 80.0, "c": 0.5}),
    qe.TorsionalSpring: Case(
        _two_bars, lambda m: qe.TorsionalSpring(bar_a=0, bar_b=1, k=5.0),
        (0, 0), {"k": 7.0, "preload": 0.1}),
    qe.ForceActuator: Case(
        _two_bars, lambda m: qe.ForceActuator(bar=0, s=0.5, fx=hy.sin(hy.time), fy=0.0),
        (0, 0), {"s": 0.25}),
    qe.TorqueActuator: Case(
        _two_bars, lambda m: qe.TorqueActuator(bar=0, torque=hy.cos(hy.time)),
        (0, 0), None),
    qe.GearPair: Case(
        _pinned_pair, lambda m: qe.GearPair(body_a=0, body_b=1, radius_a=0.2, radius_b=0.5),
        (1, 0), {"radius_a": 0.25, "angle_b0": 0.1}),
    qe.UserEvent: Case(
        _two_bars, lambda m: qe.UserEvent(expr=_x0(m) - 0.7, direction="down"),
        (0, 0), None),
}


def _case(kind: type) -> Case:
    case = BUILDERS.get(kind)
    if case is None:
        pytest.fail(f"{kind.__name__} is a registered element kind without a builder in "
                    f"tests/contract/test_kinds.py BUILDERS: add one")
    return case


def _build(kind: type, earlier: bool = False) -> tuple[qv.bar_joint_model, str]:
    """The model of ``kind``'s case and the element's name (after an earlier twin if asked)."""
    case = _case(kind)
    m = qv.bar_joint_model()
    case.bodies(m)
    el = case.element(m)
    if earlier:
        twin = el.name + "_earlier" if el.name else None
        m.add(dataclasses.replace(el, name=twin))
    return m, m.add(el)


def _runtime_fields(kind: type) -> set[str]:
    return {f["field"] for f in qe.fields_of(kind)
            if "editable" in f["roles"] and "topology" not in f["roles"]}


kinds = pytest.mark.parametrize("kind", qe.KINDS, ids=lambda k: k.__name__)


def test_every_kind_has_a_builder():
    missing = [k.__name__ for k in qe.KINDS if k not in BUILDERS]
    assert not missing, f"registered kinds without a builder in BUILDERS: {missing}"
    stale = [k.__name__ for k in BUILDERS if k not in qe.KINDS]
    assert not stale, f"BUILDERS has kinds that are not registered: {stale}"


@kinds
def test_round_trip(kind):
    m, name = _build(kind)
    back = qv.bar_joint_model.from_dict(m.to_dict())
    assert back.to_dict() == m.to_dict()
    assert back.element(name) == m.element(name)
    assert list(back.elements) == list(m.elements)
    assert [(p.name, p.value) for p in back.parameters()] == \
        [(p.name, p.value) for p in m.parameters()]
    assert back.constraint_labels == m.constraint_labels
    assert back.topology_key() == m.topology_key()
    state = m.get_initial_state()
    a, b = m.check_constraint_fulfillment(state), back.check_constraint_fulfillment(state)
    np.testing.assert_array_equal(a.position, b.position)
    np.testing.assert_array_equal(a.velocity, b.velocity)


@kinds
def test_removing_an_earlier_element_keeps_names(kind):
    m, name = _build(kind, earlier=True)
    kept = m.element(name)
    first = next(nm for nm, el in m.elements.items() if type(el) is kind and nm != name)
    m.remove(first)
    assert first not in m.elements
    assert m.element(name) == kept
    assert [nm for nm, el in m.elements.items() if type(el) is kind] == [name]


@kinds
def test_runtime_edit_keeps_the_compiled_code(kind):
    case = _case(kind)
    runtime = _runtime_fields(kind)
    if case.runtime is None:
        assert not runtime, (f"{kind.__name__} declares runtime fields {sorted(runtime)}: "
                             "give its case a runtime edit")
        return
    assert set(case.runtime) <= runtime, f"not runtime fields: {set(case.runtime) - runtime}"
    m, name = _build(kind)
    key = m.topology_key()
    m.compiled()
    m.set(name, **case.runtime)
    el = m.element(name)
    for field, value in case.runtime.items():
        got = getattr(el, field)
        assert (list(got) if isinstance(got, (list, tuple)) else got) == \
            (list(value) if isinstance(value, (list, tuple)) else value), field
    assert m.topology_key() == key
    assert m.is_compiled(), f"editing {sorted(case.runtime)} of {name} forces a recompile"


def _random_state(m, rng) -> np.ndarray:
    n = m.n_coordinates
    return np.concatenate([rng.uniform(-0.8, 0.8, n), rng.uniform(-1.0, 1.0, n)])


@kinds
def test_rows_and_jacobian_against_finite_differences(kind):
    case = _case(kind)
    base = qv.bar_joint_model()
    case.bodies(base)
    m, _ = _build(kind)
    n_rows = len(m.constraint_labels) - len(base.constraint_labels)
    assert n_rows == sum(case.rows), m.constraint_labels
    if not m.constraint_labels:
        return
    rng = np.random.default_rng(7)
    n = m.n_coordinates
    m_total = len(m.constraint_labels)
    n_hol = m_total - case.rows[1]
    h = 1e-6
    for _ in range(2):
        x = _random_state(m, rng)
        t = float(rng.uniform(0.0, 1.0))
        J = m.matrices(x, t).J
        assert J.shape == (m_total, n)

        def residuals(state, time=t):
            c = m.check_constraint_fulfillment(state, time)
            return np.asarray(c.position), np.asarray(c.velocity)

        dF = np.empty((m_total, n))
        dg = np.empty((m_total, n))
        for j in range(n):
            e = np.zeros(2 * n)
            e[j] = h
            dF[:, j] = (residuals(x + e)[0] - residuals(x - e)[0]) / (2 * h)
            e = np.zeros(2 * n)
            e[n + j] = h
            dg[:, j] = (residuals(x + e)[1] - residuals(x - e)[1]) / (2 * h)
        np.testing.assert_allclose(J[:n_hol], dF[:n_hol], rtol=1e-6, atol=1e-7)
        np.testing.assert_allclose(J[n_hol:], dg[n_hol:], rtol=1e-6, atol=1e-7)
        dFdt = (residuals(x, t + h)[0] - residuals(x, t - h)[0]) / (2 * h)
        v = residuals(x)[1]
        np.testing.assert_allclose(v[:n_hol], J[:n_hol] @ x[n:] + dFdt[:n_hol], rtol=1e-6,
                                   atol=1e-7)
        np.testing.assert_array_equal(residuals(x)[0][n_hol:], 0.0)


@pytest.fixture(scope="module")
def editor(tmp_path_factory):
    """One widget editor, its model replaced by each kind's (building one takes seconds)."""
    from quivira_widgets._files import WorkFolder
    from quivira_widgets.editor import ModelEditor

    ed = ModelEditor(qv.bar_joint_model(),
                     workdir=WorkFolder(path=str(tmp_path_factory.mktemp("work"))))
    yield ed
    ed.close()


#: kinds whose generic form does not yet give back the element it shows


@pytest.mark.parametrize("kind", qe.KINDS, ids=lambda k: k.__name__)
def test_the_editor_has_a_form_for_the_kind(kind, editor):
    m, name = _build(kind)
    editor.model.replace_with(m)  # as loading a file does: the editor follows its model
    el = editor.model.element(name)
    form = editor.elements  # the generic form, one editor per declared field
    assert kind in [k for _, k in form.kind.options], \
        f"the widget editor has no form for {kind.__name__}"
    form.kind.value = kind
    form.select.value = name
    declared = [f["field"] for f in qe.fields_of(kind)]
    assert list(form.editors) == declared
    assert form.message.kind != "error", form.message.text
    shown = {f: ed.read(editor.model) for f, ed in form.editors.items()}
    # what the form shows rebuilds the element: the same model once re-added from it
    rebuilt = qv.bar_joint_model.from_dict(editor.model.to_dict())
    rebuilt.remove(name)
    assert rebuilt.add(kind(**shown)) == name
    assert rebuilt.element(name) == el
    assert rebuilt.to_dict() == editor.model.to_dict()

"""The Studio's sensitivity panel: the bars it draws against central finite
differences of ``model.simulate`` (independent of the sensitivities code: perturbed models are
re-simulated, bar lengths with the lattice reassembled by hand), hostile inputs shown as
messages with the model unchanged, and the Studio's tab.

The model: a two-cell scissor lattice with a torsional spring-damper in each centre pin,
released from rest at 0.35 rad while the springs are relaxed at 0.9 rad, so that it deploys
upwards against gravity (the lattice of lesson 14).
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import ipywidgets  # noqa: E402, F401  (a test dependency: no skip)
import numpy as np  # noqa: E402
import pytest  # noqa: E402

import quivira as qv  # noqa: E402
from quivira.examples import scissor  # noqa: E402
from quivira_widgets import SensitivityPanel, Studio, _guard  # noqa: E402
from quivira_widgets import sensitivity as sens_module  # noqa: E402
from quivira_widgets._modelinfo import by_collection

ALPHA0, ALPHA_REST, K, C = 0.35, 0.9, 25.0, 2.0
T_END = 0.6
#: the selection: gravity, a mass, a length (moves the initial pose), spring data
WRT = ["g", "bar0.mass", "bar1.length", "hinge 0.k", "hinge 1.phi0", "hinge 0.c"]
#: central differences: O(h²) truncation and rounding / h stay below 1e-7 of the largest bar
RTOL = 1e-6


def lattice() -> qv.BarJointModel:
    """The deploying two-cell lattice (module docstring)."""
    m = scissor(2, angle=ALPHA0)
    for c in range(2):
        m.add_torsional_spring(2 * c, 2 * c + 1, K, phi0=math.pi - 2 * ALPHA_REST, c=C,
                               name=f"hinge {c}")
    return m


@pytest.fixture(autouse=True)
def _no_unexpected():
    _guard.UNEXPECTED.clear()
    yield
    assert _guard.UNEXPECTED == [], _guard.UNEXPECTED


# ---------------------------------------------------------------- the oracle
def _unit(theta: float) -> np.ndarray:
    return np.array([math.cos(theta), math.sin(theta)])


def _assemble(model: qv.BarJointModel, alpha: float) -> None:
    """Put the two-cell lattice's initial pose on its constraints with bar 0 at ``alpha``,
    by hand (circle intersections), whatever its bar lengths: what a perturbed length means
    to the sensitivities, which keep the independent coordinate th0 and move the others."""
    L = [b.length for b in model.bars]
    c0 = 0.5 * L[0] * _unit(alpha)
    th1 = math.pi - math.asin(2 * c0[1] / L[1])              # bar 1's lower end on y = 0
    A = c0 + 0.5 * L[0] * _unit(alpha)                       # upper end of bar 0
    B = c0 + 0.5 * L[1] * _unit(th1)                         # upper end of bar 1
    rA, rB, d = 0.5 * L[3], 0.5 * L[2], float(np.linalg.norm(B - A))
    e = (B - A) / d
    a = (rA ** 2 - rB ** 2 + d ** 2) / (2 * d)
    h = math.sqrt(rA ** 2 - a ** 2)
    cands = [A + a * e + s * h * np.array([-e[1], e[0]]) for s in (1.0, -1.0)]
    C2 = max(cands, key=lambda p: p[1])                      # the upper crossing
    poses = [(c0, alpha), (c0, th1), (C2, math.atan2(*(C2 - B)[::-1])),
             (C2, math.atan2(*(C2 - A)[::-1]))]
    for i, (c, th) in enumerate(poses):
        model.set_init_bar_attitude(i, float(c[0]), float(c[1]), float(th))


def _set(model: qv.BarJointModel, name: str, value: float) -> None:
    if name == "g":
        model.set_g(value)
    elif name.endswith(".mass"):
        model.set_bar_mass(int(name[3:-5]), value)
    elif name.endswith(".length"):
        model.set_bar_length(int(name[3:-7]), value)
        _assemble(model, ALPHA0)
    else:
        spring, _, key = name.rpartition(".")
        model.set_spring(spring, **{key: value})


def _value(model: qv.BarJointModel, name: str) -> float:
    if name == "g":
        return model.g
    if name.endswith(".mass"):
        return model.bars[int(name[3:-5])].mass
    if name.endswith(".length"):
        return model.bars[int(name[3:-7])].length
    spring, _, key = name.rpartition(".")
    el = next(e for e in by_collection(model)["torsional_springs"] if e.name == spring)
    return float(getattr(el, key))


def central_differences(output) -> dict[str, float]:
    """``{name: (y(p + h) - y(p - h)) / 2h}`` of ``output(trajectory)`` over :data:`WRT`,
    from re-simulations of a fresh lattice."""
    probe = lattice()
    out = {}
    for name in WRT:
        p0 = _value(probe, name)
        h = 1e-4 * max(abs(p0), 1.0)
        ys = []
        for step in (h, -h):
            _set(probe, name, p0 + step)
            ys.append(output(probe.simulate(T_END, n_points=sens_module.N_POINTS)))
        _set(probe, name, p0)
        out[name] = (ys[0] - ys[1]) / (2 * h)
    return out


def drawn_bars(panel: SensitivityPanel) -> dict[str, float]:
    """The bars as drawn: tick label (the parameter, without its unit) → bar width."""
    ax = panel.axes
    labels = [t.get_text().split(" [")[0] for t in ax.get_yticklabels()]
    widths = [p.get_width() for p in ax.patches]
    ys = [p.get_y() + 0.5 * p.get_height() for p in ax.patches]
    ticks = list(ax.get_yticks())
    return {labels[ticks.index(round(y))]: w for y, w in zip(ys, widths)}


@pytest.fixture(scope="module")
def model() -> qv.BarJointModel:
    return lattice()


def _panel(model: qv.BarJointModel) -> SensitivityPanel:
    p = SensitivityPanel(model, backend="static")
    p.t_end.text.value = f"{T_END}"
    p.parameters.value = tuple(WRT)
    return p


# ---------------------------------------------------------------- the bars are the physics
def test_defaults_are_every_runtime_parameter(model):
    p = SensitivityPanel(model, backend="static")
    assert "hinge 1.k" in p.parameters.value and "g" in p.parameters.value
    assert not any(n in p.parameters.value for n in ("bar0.theta", "bar1.x", "bar3.omega"))
    assert "bar0.theta" in p.parameters.options          # initial-state entries can be added
    assert p.output_kind.value == "coordinate" and p.output_name.value == "y0"
    assert p.bars is None and p.result is None
    p.close()


def test_coordinate_bars_equal_central_differences(model):
    before = model.to_dict()
    p = _panel(model)
    p.output_name.value = "y2"
    p.compute_button.click()
    assert p.message.kind == "ok", p.message.text
    fd = central_differences(lambda tr: tr.q[-1, 7])   # y2: the top hinge
    bars = drawn_bars(p)
    assert set(bars) == set(WRT)
    scale = max(abs(v) for v in fd.values())
    for name in WRT:
        assert bars[name] == pytest.approx(fd[name], abs=RTOL * scale), name
        assert p.result["gradient"][p.result["names"].index(name)] == pytest.approx(
            fd[name], abs=RTOL * scale)
    # largest on top, the units of y per unit of p on the axis and the ticks
    assert [abs(v) for v in p.bars["values"]] == sorted(abs(v) for v in p.bars["values"])[::-1]
    assert "[m/unit of p]" in p.axes.get_xlabel()
    ticks = [t.get_text() for t in p.axes.get_yticklabels()]
    assert "hinge 0.k [N m/rad]" in ticks and "g [m/s²]" in ticks
    assert p.result["value"] == pytest.approx(model.simulate(T_END, n_points=2).q[-1, 7],
                                              rel=1e-12)
    assert model.to_dict() == before
    p.close()


@pytest.mark.slow
def test_peak_force_bars_relative_and_tolerance_scaling(model):
    before = model.to_dict()
    p = _panel(model)
    p.output_kind.value = "peak"
    p.output_name.value = "support0.y"
    p.scaling.value = "relative"
    p.compute_button.click()
    assert p.message.kind == "ok", p.message.text

    def peak(tr):
        return np.max(np.abs(tr.lambda_mult[:, tr.constraint_labels.index("support0.y")]))

    fd = central_differences(peak)
    point = {n: _value(model, n) for n in WRT}
    bars = drawn_bars(p)
    scale = max(abs(fd[n] * point[n]) for n in WRT)
    for name in WRT:
        assert bars[name] == pytest.approx(fd[name] * point[name], abs=RTOL * scale), name
    assert p.axes.get_xlabel().endswith("[N]")
    assert p.result["value"] == pytest.approx(peak(model.simulate(
        T_END, n_points=sens_module.N_POINTS)), rel=1e-12)
    # a tolerance of 3 %: the same bars times 0.03, redrawn without computing again
    wall = p.result["wall_s"]
    p.scaling.value = "tolerance"
    p.tolerance.text.value = "3"
    assert p.result["wall_s"] == wall
    tol_bars = drawn_bars(p)
    for name in WRT:
        assert tol_bars[name] == pytest.approx(0.03 * bars[name], rel=1e-12, abs=1e-15)
    assert "+3 % of p" in p.axes.get_xlabel()
    assert model.to_dict() == before
    p.close()


# ---------------------------------------------------------------- hostile inputs
def test_hostile_inputs_give_messages_and_leave_the_model_alone(model):
    before = model.to_dict()
    p = _panel(model)
    p.parameters.value = ()
    p.compute_button.click()
    assert p.message.kind == "error" and "select at least one parameter" in p.message.text
    assert p.result is None and p.bars is None
    p.parameters.value = ("g",)
    for text in ("abc", "0", "-1", "", "1e400", "1,5"):
        p.t_end.text.value = text
        assert p.t_end.error, text
        p.compute_button.click()
        assert p.message.kind == "error" and "t_end" in p.message.text, (text, p.message.text)
        assert p.result is None
    p.t_end.text.value = "0.2"
    p.scaling.value = "tolerance"
    p.tolerance.text.value = "lots"
    assert p.tolerance.error
    p.compute_button.click()
    assert p.message.kind == "error" and "tol" in p.message.text
    p.tolerance.text.value = "5"
    p.compute_button.click()
    assert p.message.kind == "ok"
    # the bar: +5 % of g moves y0 at t = 0.2 s by 0.05 g ∂y0/∂g, ∂y0/∂g by central differences
    g, h = model.g, 1e-4 * model.g
    probe = lattice()
    ys = []
    for step in (h, -h):
        probe.set_g(g + step)
        ys.append(probe.simulate(0.2, n_points=sens_module.N_POINTS).q[-1, 1])
    fd = (ys[0] - ys[1]) / (2 * h)
    assert abs(fd) > 1e-4
    assert drawn_bars(p)["g"] == pytest.approx(0.05 * g * fd, rel=1e-6)
    assert "Traceback" not in p.message.widget.value
    assert model.to_dict() == before
    p.close()


def test_refused_models_and_edits():
    m = qv.BarJointModel()
    p = SensitivityPanel(m, backend="static")
    p.compute_button.click()                       # no bars: no output, no parameter
    assert p.message.kind == "error"
    m.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 1.0)
    m.add_support(0, 0.5, False, False)
    m.set_init_bar_velocities(0, 0.5, 0.0, -1.0)   # a pendulum, swinging
    m.add_particle(1.0, 0.0, 0.5)                  # a free particle: falls with g
    p.set_model(m)
    p.parameters.value = ("g", "particle1.mass")
    p.output_kind.value = "coordinate"
    p.output_name.value = "y1"                     # the particle: y1 = -g t²/2
    p.t_end.text.value = "0.3"
    p.compute_button.click()
    assert p.message.kind == "ok"
    grad = dict(zip(p.result["names"], p.result["gradient"]))
    assert p.result["value"] == pytest.approx(-0.5 * 9.81 * 0.3**2, rel=1e-10)
    assert grad["g"] == pytest.approx(-0.5 * 0.3**2, rel=1e-10)
    assert grad["particle1.mass"] == pytest.approx(0.0, abs=1e-12)   # free fall: no mass
    # a start off the constraints is refused by the API: a message, the model unchanged
    m.set_init_bar_attitude(0, 0.3, -0.5, -math.pi / 2)   # the bar leaves its pin
    before = m.to_dict()
    p.compute_button.click()
    assert p.message.kind == "error"
    assert "violate" in p.message.text and "cannot compute" in p.message.text
    assert "Traceback" not in p.message.widget.value
    assert p.result is None and m.to_dict() == before
    # a bars-only model works; an edit afterwards invalidates the result
    m2 = qv.BarJointModel()
    m2.add_bar_at_attitude(0.0, -0.5, -math.pi / 2, 1.0, 1.0)
    m2.add_support(0, 0.5, False, False)
    m2.set_init_bar_velocities(0, 0.5, 0.0, -1.0)
    p.set_model(m2)
    assert "bar0.mass" in p.parameters.value
    p.output_kind.value = "energy"
    p.output_name.value = "total"
    p.compute_button.click()
    assert p.message.kind == "ok", p.message.text
    # energy is conserved, E = T + V: dE/dm = E/m at any time (T and V are both ∝ m)
    r = p.result
    E = r["value"]
    assert r["unit"] == "J"
    assert r["gradient"][r["names"].index("bar0.mass")] == pytest.approx(E / 1.0, rel=1e-9)
    m2.set_g(9.0)
    assert p.result is None and p.bars is None and "changed" in p.message.text
    p.close()


# ---------------------------------------------------------------- the Studio
@pytest.mark.slow
def test_studio_has_the_sensitivity_tab(model):
    import quivira_widgets

    assert "SensitivityPanel" in quivira_widgets.__all__
    s = Studio(model, backend="static")
    titles = [s.tabs.get_title(i) for i in range(len(s.tabs.children))]
    assert "Sensitivity" in titles
    k = titles.index("Sensitivity")
    assert s.tabs.children[k] is s.sensitivity
    assert isinstance(s.sensitivity, SensitivityPanel)
    assert titles[k - 1].startswith("Statics")
    s.tabs.selected_index = k
    s.sensitivity.parameters.value = ("hinge 0.k",)
    s.sensitivity.t_end.text.value = "0.2"
    s.sensitivity.compute_button.click()
    assert s.sensitivity.message.kind == "ok", s.sensitivity.message.text
    assert list(drawn_bars(s.sensitivity)) == ["hinge 0.k"]
    other = lattice()
    s.set_model(other)
    assert s.sensitivity.model is other and s.sensitivity.result is None
    s.close()

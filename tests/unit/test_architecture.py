"""Architecture rules of the ``quivira`` package, read from the source with :mod:`ast`.

* Outside ``quivira/model/`` no code reaches into private members: no attribute ``X._name``
  (one leading underscore) unless ``X`` is ``self`` or ``cls``, and no ``from quivira.model…
  import _name``. Studies use the declared engine API (``model.engine``,
  :mod:`quivira.model.engine_api`).
* The model does not import a study: no module of ``quivira.model`` imports
  ``quivira.sensitivity``, ``quivira.sweeps`` or ``quivira_widgets``, at module level or
  inside a function.
* The import graph of ``quivira`` has no cycle. An edge ``A → B`` is any import in ``A``
  (module level or inside a function; imports under ``if TYPE_CHECKING:`` excluded) whose
  target resolves to the module ``B`` of the package: ``from P import n`` goes to ``P.n`` if
  that is a module, else to ``P``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
STUDIES = ("quivira.sensitivity", "quivira.sweeps", "quivira_widgets")


def package_modules(root: Path, package: str = "quivira") -> dict[str, tuple[Path, bool]]:
    """Return ``{dotted name: (path, is_package)}`` of every module under ``root/package``."""
    mods = {}
    for path in sorted((root / package).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts.pop()
        mods[".".join(parts)] = (path, is_pkg)
    return mods


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Return every import statement of ``tree`` that runs (not under ``if TYPE_CHECKING``)."""
    found = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def imported_modules(node: ast.Import | ast.ImportFrom, module: str,
                     is_pkg: bool) -> list[str]:
    """Return the absolute dotted names ``node`` (in ``module``) imports, as written."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if node.level:
        base = (module if is_pkg else module.rpartition(".")[0]).split(".")
        base = base[:len(base) - (node.level - 1)]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    return [target] + [f"{target}.{a.name}" for a in node.names]


def import_graph(mods: dict[str, tuple[Path, bool]]) -> dict[str, dict[str, int]]:
    """Return ``{module: {imported module of the package: line}}`` (see the module notes)."""
    graph: dict[str, dict[str, int]] = {}
    for name, (path, is_pkg) in mods.items():
        edges: dict[str, int] = {}
        for node in runtime_imports(ast.parse(path.read_text(), str(path))):
            targets = imported_modules(node, name, is_pkg)
            if isinstance(node, ast.ImportFrom):
                base, subs = targets[0], targets[1:]
                hits = [s for s in subs if s in mods]
                if len(hits) < len(subs) and base in mods:
                    hits.append(base)
            else:
                hits = [t for t in targets if t in mods]
            for t in hits:
                edges.setdefault(t, node.lineno)
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """Return one cycle ``[a, b, …, a]`` of ``graph`` (depth-first search), or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    path: list[str] = []

    def visit(v: str) -> list[str] | None:
        state[v] = 1
        path.append(v)
        for w in sorted(graph.get(v, {})):
            if state.get(w) == 1:
                return path[path.index(w):] + [w]
            if w not in state and (cycle := visit(w)) is not None:
                return cycle
        path.pop()
        state[v] = 2
        return None

    for v in sorted(graph):
        if v not in state and (cycle := visit(v)) is not None:
            return cycle
    return None


def private_accesses(path: Path, module: str, is_pkg: bool) -> list[str]:
    """Return ``"file:line: code"`` for each private access in ``path`` (module notes)."""
    tree = ast.parse(path.read_text(), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
                continue
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom):
            source = imported_modules(node, module, is_pkg)[0]
            if source == "quivira.model" or source.startswith("quivira.model."):
                found += [f"{path.name}:{node.lineno}: from {source} import {a.name}"
                          for a in node.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    return found


# ---------------------------------------------------------------- the rules, on quivira

MODS = package_modules(ROOT)


def test_the_package_is_found():
    assert {"quivira", "quivira.model", "quivira.model.core", "quivira.sweeps.batch",
            "quivira.sensitivity.analysis"} <= set(MODS)


def test_no_private_access_outside_the_model():
    bad = []
    for name, (path, is_pkg) in MODS.items():
        if name == "quivira.model" or name.startswith("quivira.model."):
            continue
        bad += [f"{path.parent.relative_to(ROOT)}/{f}"
                for f in private_accesses(path, name, is_pkg)]
    assert not bad, "private access outside quivira/model/ (use model.engine):\n" + \
        "\n".join(bad)


def test_widgets_benchmarks_and_oracles_use_no_private_member_of_the_model():
    """The widgets, the benchmarks and the oracles reach the engine through model.engine."""
    engine_privates = {"_data", "_simulator", "_editor", "_lock"}
    bad = []
    for folder in ("widgets/quivira_widgets", "benchmarks", "quivira_oracles"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), str(path))
            bad += [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}"
                    for node in ast.walk(tree)
                    if isinstance(node, ast.Attribute) and node.attr in engine_privates
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in ("self", "cls"))]
    assert not bad, "private engine access (use model.engine):\n" + "\n".join(bad)


def test_the_model_imports_no_study():
    bad = []
    for name, (path, is_pkg) in MODS.items():
        if not (name == "quivira.model" or name.startswith("quivira.model.")):
            continue
        for node in runtime_imports(ast.parse(path.read_text())):
            for target in imported_modules(node, name, is_pkg):
                if any(target == s or target.startswith(s + ".") for s in STUDIES):
                    bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: imports {target}")
    assert not bad, "the model imports a study:\n" + "\n".join(sorted(set(bad)))


def test_the_import_graph_has_no_cycle():
    graph = import_graph(MODS)
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(
        f"{a} (line {graph[a][b]})" for a, b in zip(cycle, cycle[1:])) + f" -> {cycle[-1]}"


# ---------------------------------------------------------------- the checks can fail


@pytest.fixture
def toy(tmp_path):
    """A package ``quivira`` whose ``a`` imports ``b`` lazily and ``b`` imports ``a``."""
    pkg = tmp_path / "quivira"
    (pkg / "model").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "model" / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from .model import b\n")
    (pkg / "model" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..sweeps import x\n"
        "from .. import a\n")
    (pkg / "c.py").write_text("from .model.b import _hidden\nm._data\nself._ok\n")
    return tmp_path


def test_a_lazy_import_cycle_is_found(toy):
    graph = import_graph(package_modules(toy))
    assert graph["quivira.a"] == {"quivira.model.b": 2}
    assert graph["quivira.model.b"] == {"quivira.a": 4}  # the TYPE_CHECKING import is not
    assert find_cycle(graph) == ["quivira.a", "quivira.model.b", "quivira.a"]


def test_private_accesses_are_found(toy):
    found = private_accesses(toy / "quivira" / "c.py", "quivira.c", False)
    assert found == ["c.py:1: from quivira.model.b import _hidden", "c.py:2: m._data"]


# ---------------------------------------------------------------- the engine API


def _one_bar_model():
    import quivira

    model = quivira.bar_joint_model()
    model.add_bar_at_attitude(0.5, 0.0, 0.0, 1.0, 2.0)
    return model


def test_engine_data_is_the_current_snapshot():
    model = _one_bar_model()
    before = model.engine.data
    model.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 5.0)
    assert [b.mass for b in before.bars] == [2.0]  # a snapshot: later edits do not touch it
    assert [b.mass for b in model.engine.data.bars] == [2.0, 5.0]
    assert model.engine.data.n_coordinates() == model.n_coordinates == 6


def test_engine_simulator_is_the_models():
    model = _one_bar_model()
    other = "lu" if model.solver != "lu" else "ordered"
    model.solver = other
    assert model.engine.simulator.solver == other
    assert model.engine.simulator is model.engine.simulator


def test_engine_commit_is_one_edit_with_observers():
    source = _one_bar_model()
    source.add_bar_at_attitude(1.5, 0.0, 0.0, 1.0, 5.0)
    scratch = _one_bar_model()
    seen = []
    scratch.observe(seen.append)
    revision = scratch.revision
    scratch.engine.commit(source.engine.data, "variant")
    assert seen == ["variant"] and scratch.revision == revision + 1
    assert [b.mass for b in scratch.bodies] == [2.0, 5.0]
    with pytest.raises(TypeError, match="expected ModelData, got dict"):
        scratch.engine.commit({}, "bad")


def test_model_methods_of_a_study_call_the_registered_study(monkeypatch):
    from quivira.model import engine_api

    model = _one_bar_model()
    calls = []
    monkeypatch.setitem(engine_api._STUDIES, "sensitivities",
                        lambda *args, **kw: calls.append((args, kw)) or "jets")
    assert model.sensitivities(2.0, "g", n_points=5) == "jets"
    (args, kw), = calls
    assert args[:6] == (model, 2.0, "g", 1, ("state", "energy"), 5) and kw["tol"] is None
    with pytest.raises(LookupError, match="no study 'nothing' is registered"):
        engine_api.study("nothing")
    with pytest.raises(TypeError, match="register_study: expected a name"):
        engine_api.register_study("x", 3)


def test_engine_parameter_layout_is_the_vector_the_integrator_takes():
    """Each hy.par[j] named by parameter_layout holds the datum its key names (g, masses), and
    the expanded equations read no parameter beyond it."""
    import heyoka as hy

    from quivira.examples import four_bar

    model = four_bar()
    model.set_g(7.5)
    layout = model.engine.parameter_layout()
    table = dict(layout)
    assert table[("g",)] == 7.5
    for i, bar in enumerate(model.bodies):
        assert table[("bar", i, "mass")] == bar.mass
        assert table[("bar", i, "inv_mass")] == 1.0 / bar.mass
    cs = model.engine.simulator.compiled(model.engine.data)
    used = {int(str(p)[1:]) for _, rhs in cs.ode_system(expand_parameters=True)
            for p in hy.get_params(rhs)}
    assert used and max(used) < len(layout)

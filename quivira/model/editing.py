"""The model's data with its edits and observers: one object, copy-on-write.

Every edit works on a copy of the current :class:`~quivira.model.data.ModelData`, validates,
and only then replaces the data (a *commit*): a failed edit leaves the model as it was, and
any data object once committed is never changed again (results may keep a reference to it).
After a commit the observers are told what changed (once per :meth:`ModelEditor.batch`).
Element kinds are edited generically: :meth:`ModelEditor.add` appends a validated element,
:meth:`ModelEditor.replace` swaps one, :meth:`ModelEditor.remove` deletes one, and
:meth:`ModelEditor.remove_bar` asks every element how it is re-indexed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import numbers
from collections.abc import Callable, Iterator
from typing import Any

import heyoka as hy

from .._repr import short_repr
from .._warnings import warn_caller
from . import persistence
from .data import Bar, ModelData
from .elements import KINDS, Element
from .validation import bar_index, check_index

#: marks an argument that was not given (the default value of ``bar_joint_model.set``)
UNSET = object()


class ModelEditor:
    """Data, edits and observers of a model (see the module docstring)."""

    def __init__(self, data: ModelData | None = None) -> None:
        self.data = ModelData() if data is None else data
        self.revision = 0
        self._observers: list[Callable[[str], None]] = []
        self._batch_depth = 0
        self._batch_changes: list[str] = []

    # ------------------------------------------------------------------ observers
    def observe(self, callback: Callable[[str], None]) -> None:
        """Call ``callback(what)`` after every change (``what`` names it)."""
        if not callable(callback):
            raise TypeError(f"observe: expected a callable, got {short_repr(callback)}")
        if callback not in self._observers:
            self._observers.append(callback)

    def unobserve(self, callback: Callable[[str], None]) -> None:
        """Stop calling ``callback`` on changes."""
        if callback in self._observers:
            self._observers.remove(callback)

    def _notify(self, what: str) -> None:
        for cb in list(self._observers):
            try:
                cb(what)
            except Exception as exc:  # an observer's bug must not undo or hide the edit
                warn_caller(f"model observer {cb!r} failed on {what!r}: {exc!r}",
                            RuntimeWarning)

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Group edits: observers are told once, at the end (``what`` = ``"batch: ..."``).

        If an edit inside raises, the edits made before it are kept (each edit is validated
        on its own) and observers are still told.
        """
        self._batch_depth += 1
        try:
            yield
        finally:
            self._batch_depth -= 1
            if not self._batch_depth and self._batch_changes:
                changes, self._batch_changes = self._batch_changes, []
                self._notify("batch: " + ", ".join(dict.fromkeys(changes)))

    # ------------------------------------------------------------------ commits
    def draft(self, shallow: bool = False) -> ModelData:
        """Return a copy of the data to edit.

        With ``shallow`` the items are shared: for edits that only append, replace or remove
        whole items (see :meth:`ModelData.shallow_copy`).
        """
        return self.data.shallow_copy() if shallow else self.data.copy()

    def commit(self, data: ModelData, what: str) -> None:
        """Make ``data`` the model's data and tell the observers."""
        self.data = data
        self.revision += 1
        if self._batch_depth:
            self._batch_changes.append(what)
            return
        self._notify(what)

    def edit(self, what: str, change: Callable[[ModelData], Any], *,
             shallow: bool = False) -> Any:
        """Apply ``change`` to a draft and commit it; return what ``change`` returned.

        If ``change`` raises, nothing is committed.
        """
        data = self.draft(shallow)
        result = change(data)
        self.commit(data, what)
        return result

    # ------------------------------------------------------------------ bars
    def check_bar(self, i: Any, what: str) -> int:
        """Return ``bar`` checked as a valid bar index of the current data."""
        return bar_index(i, len(self.data.bars), what)

    def posed_bar(self, i: int, what: str) -> Bar:
        """Bar ``i``, which must have an initial pose."""
        b = self.data.bars[i]
        if b.pose is None:
            raise ValueError(
                f"{what}: bar {i} has no initial pose yet; call set_init_bar_attitude({i}, x0, "
                "y0, theta0) first")
        return b

    def add_bar(self, bar: Bar) -> int:
        """Append a (validated) bar; returns its index."""
        def change(data):
            data.bars.append(bar)
            return len(data.bars) - 1

        return self.edit("bar added", change, shallow=True)

    def set_bar(self, i: Any, what: str, **values: Any) -> None:
        """Set fields of bar ``i`` (values validated by the caller); ``what`` names the edit."""
        i = self.check_bar(i, "bar_index")

        def change(data):
            b = data.bars[i]
            for k, v in values.items():
                setattr(b, k, v)

        self.edit(what, change)

    def set_value(self, name: str, value: Any) -> None:
        """Set a model-wide value (``g``, ``stabilization``; validated by the caller)."""
        self.edit(name, lambda data: setattr(data, name, value))

    def remove_bar(self, i: Any) -> dict:
        """Remove a bar and what depends on it; higher bar indices shift down by one.

        Every element is asked how it is re-indexed (:meth:`Element.reindexed`); those that
        cannot exist without the bar are removed. Returns what was removed: ``{"bar": i,
        <collection>: [indices], ..., "constraints": [names of named elements]}``.
        """
        data = self.draft()
        i = bar_index(i, len(data.bars), "bar_index")
        removed: dict = {"bar": i}
        removed.update({k.collection: [] for k in KINDS if not k.named})
        removed["constraints"] = []
        del data.bars[i]
        for kind in KINDS:
            kept = []
            for pos, el in enumerate(data.of(kind)):
                new = el.reindexed(i)
                if new is None:
                    (removed["constraints"].append(el.name) if kind.named
                     else removed[kind.collection].append(pos))
                else:
                    kept.append(new)
            data.elements[kind.collection] = kept
        self.commit(data, "bar removed")
        return removed

    # ------------------------------------------------------------------ elements
    def add(self, make: Callable[[ModelData, int], Element], kind: type[Element]) -> int:
        """Append the element ``make(draft, position)`` (which validates); returns its index.

        The expressions of the model may have at most
        :data:`~quivira.model.persistence.MAX_EXPRESSION_NODES` nodes together, the most that
        :meth:`~quivira.model.core.bar_joint_model.load` reads by default, so that every
        model that saves also loads (ValueError otherwise).
        """
        data = self.draft(shallow=True)
        pos = len(data.of(kind))
        el = make(data, pos)
        if el.expression_nodes():
            total = sum(e.expression_nodes() for _, _, e in data.items()) + \
                el.expression_nodes()
            limit = persistence.MAX_EXPRESSION_NODES
            if total > limit:
                raise ValueError(
                    f"the model's expressions would have {total} nodes in total, more than "
                    f"{limit} (the most a model file holds: max_expression_nodes of load and "
                    "from_dict); use fewer or smaller expressions")
        data.of(kind).append(el)
        self.commit(data, f"{kind.title} added")
        return pos

    def replace(self, kind: type[Element], position: Any,
                make: Callable[[ModelData, Element, int], Element],
                what: str | None = None) -> None:
        """Replace element ``position`` of a kind by ``make(draft, old, position)``.

        ``what`` names the change for the observers (default: the kind's title).
        """
        data = self.draft(shallow=True)
        items = data.of(kind)
        k = check_index(position, len(items), kind.title)
        items[k] = make(data, items[k], k)
        self.commit(data, what or kind.title)

    def remove(self, kind: type[Element], position: Any) -> None:
        """Remove element ``position`` of a kind (later ones shift down by one)."""
        data = self.draft(shallow=True)
        items = data.of(kind)
        del items[check_index(position, len(items), kind.title)]
        self.commit(data, f"{kind.title} removed")

    # ------------------------------------------------------------------ named elements
    def unique_name(self, name: Any, default: str, data: ModelData) -> str:
        """``name`` (or ``default``) if no named element has it yet."""
        from .validation import check_name

        return check_name(default if name is None else name, data.all_names())

    def find_name(self, name: Any, what: str = "element") -> tuple[type[Element], int]:
        """Return the kind and position of the element (constraint, load, parameter) ``name``."""
        if not isinstance(name, str):
            raise TypeError(f"{what}: expected a name (a string), got {short_repr(name)}")
        for kind, pos, el in self.data.items():
            if kind.has_name and el.name == name:
                return kind, pos
        names = sorted(self.data.all_names())
        raise ValueError(f"no {what} named {name!r}; names are {names}")

    def find_named(self, key: Any) -> tuple[type[Element], int]:
        """Return the kind and position of a named element, by name or by index.

        The index counts all named elements (in registry order).
        """
        named = self.data.named()
        names = [e.name for _, _, e in named]
        if isinstance(key, str):
            if key not in names:
                raise ValueError(f"no constraint named {key!r}; constraints are {names}")
            kind, pos, _ = named[names.index(key)]
            return kind, pos
        if isinstance(key, numbers.Integral) and not isinstance(key, bool) \
                and 0 <= key < len(named):
            kind, pos, _ = named[key]
            return kind, pos
        raise ValueError(f"constraint: expected a name or an index in [0, {len(named)}), got "
                         f"{short_repr(key)}")

    # ------------------------------------------------------------------ by name
    def add_item(self, item: Any) -> str:
        """Add a body or an element (checked as its kind declares it); return its name."""
        from . import names
        from .data import _Body

        if isinstance(item, _Body):
            i = len(self.data.bars)
            body = persistence.body_from_dict(persistence.body_to_dict(item),
                                              names.body_name(i, item))
            self.add_bar(body)
            return names.body_name(i, body)
        kind = type(item)
        if not isinstance(item, Element) or kind not in KINDS:
            raise TypeError(f"add: expected a body or an element of quivira.elements, got "
                            f"{short_repr(item)}")
        if "name" not in kind.specs():
            raise TypeError(f"add: a {kind.title} is added with its own method")
        out: list[str] = []

        def make(data: ModelData, pos: int) -> Element:
            given = item.name
            nm = (names.default_name(data, kind.prefix or kind.kind) if given is None
                  else names.check_new_name(data, given))
            el = dataclasses.replace(item, name=nm)
            out.append(nm)
            el = el.checked(data.bars, nm, parameter_names(data))
            el.check_model(data, nm)
            return el

        self.add(make, kind)
        return out[0]

    def item(self, name: Any) -> Any:
        """Return the body or element called ``name`` (the model's own object: do not change)."""
        from . import names

        if not isinstance(name, str):
            raise TypeError(f"expected a name (a string), got {short_repr(name)}")
        owners = names.owners(self.data)
        if name not in owners:
            raise ValueError(f"the model has no body or element called {name!r}; its names "
                             f"are {list(owners)}")
        where, key = owners[name]
        if where == "body":
            return self.data.bars[key]
        kind, pos = key
        return self.data.of(kind)[pos]

    def named_items(self) -> dict[str, Element]:
        """Return ``{name: element}`` of every element, in row order."""
        from . import names

        return {names.element_name(el, pos): el for _, pos, el in self.data.items()}

    def remove_by_name(self, name: Any) -> dict | None:
        """Remove the body (see :meth:`remove_bar`) or element called ``name``."""
        from . import names

        self.item(name)
        where, key = names.owners(self.data)[name]
        if where == "body":
            return self.remove_bar(key)
        if key[0].kind == "param":
            users = parameter_users(self.data, name)
            if users:
                raise ValueError(f"parameter {name!r} is used by {users}; remove them first")
        self.remove(*key)
        return None

    def set_by_name(self, name: Any, value: Any, values: dict) -> None:
        """Set values by name: ``("spring0", _, {"k": 2})`` or ``("spring0.k", 2, {})``.

        See :meth:`quivira.bar_joint_model.set`. Checked like an addition; a failed edit
        changes nothing.
        """
        from . import names
        from .validation import check_positive, check_real, check_stabilization

        if not isinstance(name, str):
            raise TypeError(f"set: expected a name (a string), got {short_repr(name)}")
        if value is not UNSET:
            if values:
                raise TypeError("set: give one value after a name 'owner.field', or "
                                "field=value pairs after an owner's name, not both")
            if name in ("g", "stabilization"):
                owner, fieldname = "", name
            else:
                info = names.lookup(self.data, name, "set")
                owner, fieldname = info.owner, info.field
            if owner == "" and fieldname not in ("g", "stabilization"):
                owner = name
            values = {fieldname: value}
            name = owner or fieldname
        if name in ("g", "stabilization"):
            if set(values) - {name}:
                raise TypeError(f"set: {name!r} takes one value: model.set({name!r}, value)")
            v = values[name]
            self.set_value(name, check_real(v, "g") if name == "g" else check_stabilization(v))
            return
        owners = names.owners(self.data)
        if name not in owners:
            self.item(name)  # the error lists the names
        where, key = owners[name]
        if where == "body":
            self._set_body(key, values, check_positive, check_real)
            return
        kind, pos = key
        if kind.kind == "param":
            if set(values) - {"value"}:
                raise ValueError(f"set: a named parameter has one field, 'value'; got "
                                 f"{sorted(values)}")
            values = {"value": values["value"]}

        def make(data: ModelData, old: Element, k: int) -> Element:
            return old.with_values(**values).checked(data.bars, name, parameter_names(data))

        shown = ", ".join(f"{f} = {short_repr(v)}" for f, v in values.items())
        self.replace(kind, pos, make, f"{kind.title} {name!r}: {shown}")

    def _set_body(self, i: int, values: dict, check_positive, check_real) -> None:
        """Set a body's mass, length, inertia, initial pose or velocity fields."""
        from . import names

        b = self.data.bars[i]
        bn = names.body_name(i, b)
        allowed = {"bar": ("mass", "length"), "particle": ("mass",),
                   "body": ("mass", "inertia")}[b.body_kind]
        state = [f for f, (_, j) in names.STATE_FIELDS.items() if j < b.n_coordinates]
        unknown = sorted(set(values) - set(allowed) - set(state))
        if unknown:
            raise ValueError(f"set: {bn} has no field {unknown[0]!r}; its fields are "
                             f"{list(allowed) + state}")
        changes: dict = {f: check_positive(values[f], f"{bn}.{f}") for f in allowed
                         if f in values}
        if any(f in values for f in state):
            if b.pose is None and any(names.STATE_FIELDS[f][0] == 0 for f in values
                                      if f in state):
                pose = [0.0, 0.0, 0.0]
            else:
                pose = list(b.pose) if b.pose is not None else None
            vel = list(b.velocity)
            for f in state:
                if f in values:
                    block, j = names.STATE_FIELDS[f]
                    (pose if block == 0 else vel)[j] = check_real(values[f], f"{bn}.{f}")
            if pose is not None:
                changes["pose"] = tuple(pose)
            changes["velocity"] = tuple(vel)
        self.set_bar(i, f"{bn} changed", **changes)


def parameter_names(data: ModelData) -> list[str]:
    """Return the names of the model's named parameters (the laws may use them)."""
    return [el.name for kind, _, el in data.items() if kind.kind == "param"]


def parameter_users(data: ModelData, name: str) -> list[str]:
    """Return the names of the elements whose laws use the named parameter ``name``."""
    from . import names
    from .elements.actuators import parameter_variable

    var = parameter_variable(name)
    return [names.element_name(el, pos) for kind, pos, el in data.items()
            if kind.kind != "param" and any(
                isinstance(v, hy.expression) and var in hy.get_variables(v)
                for v in vars(el).values())]

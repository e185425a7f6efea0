r"""What every element kind of the bar model provides, and the context its rows are written in.

An element is anything of a model that is not a body: a constraint (a pin joint, a support,
...) or a load. Each kind is one class,
a subclass of :class:`Constraint` or :class:`Load`, that knows everything about itself:

* its **runtime parameters** (:meth:`Element.parameters`): numeric data that enter the
  compiled code as ``hy.par[k]``, so that editing them re-simulates without recompiling; the
  parameter key is ``(kind, index, *name)``, e.g. ``("joint", 2, 1, "sL")``;
* its **rows** (:meth:`Constraint.rows`) or **generalized forces and potential**
  (:meth:`Load.generalized_forces`, :meth:`Load.potential`), written once, as sums of monomials
  (:mod:`quivira.model.monomials`) in the factors of :class:`RowContext` — or, for rows given
  by the user, as heyoka expressions. Both assembly paths are generated from this one
  definition: the fast monomial assembly of the compiled integrator
  (:mod:`quivira.model.assembly`) and the term-by-term heyoka expressions of
  ``build_lagrange_eom`` (:mod:`quivira.model.symbolic`);
* its **labels**, the bars it touches, the **reactions** its multipliers give;
* its **topology key** part (what compiled code depends on), ``to_dict``/``from_dict``, how it
  is **re-indexed** when a bar is removed, its line in the model summary, and the **symbols**
  its parameters are shown with in formulas.

Sign conventions: a constraint row :math:`F_k(q, t) = 0` (holonomic) or
:math:`g_k(q, \dot q, t) = 0` (velocity level) has the multiplier :math:`\lambda_k`, and
:math:`J^T\lambda` is the generalized constraint force; a load adds :math:`Q` to the
generalized forces and its potential :math:`V` to the mechanical energy when it is
conservative.
"""

from __future__ import annotations

import copy
import functools
from abc import ABC, abstractmethod
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

import heyoka as hy

from ...expression_codec import NodeBudget, decode_expression
from .. import monomials as mo
from .fields import Spec
from .fields import specs as _specs

#: one factor of a parameter's symbol: ``(name, power)``, e.g. ``("m_2", -1)`` for 1/m₂
SymbolFactor = tuple[str, int]


@dataclass(frozen=True)
class Row:
    r"""One constraint row as written by its element.

    Attributes
    ----------
    value : Poly or heyoka.expression
        :math:`F(q, t)` of a holonomic row, :math:`g(q, \dot q, t)` of a velocity row; a
        :data:`~quivira.model.monomials.Poly` in the factors of :class:`RowContext`, or a
        heyoka expression of the coordinate variables (user rows).
    label : str
        Readable label ``<element>.<row>``, e.g. ``"joint2.bar3.x"``.
    bar : int or None
        The bar the row's multiplier acts on as a force (reactions), if any.
    axis : str or int
        ``"x"``/``"y"`` for force rows, the row number otherwise.
    velocity : bool
        A velocity-level row (non-holonomic).
    """

    value: Any
    label: str
    bar: int | None
    axis: str | int
    velocity: bool = False


class RowContext:
    r"""The factors and parameters an element writes its rows and forces with.

    Factor names of monomials: ``q{j}`` the coordinate :math:`q_j`, ``v{j}`` the velocity
    :math:`\dot q_j`, ``c{i}``/``s{i}`` :math:`\cos θ_i`/:math:`\sin θ_i` of bar ``i``
    (:math:`θ_i = q_{3i+2}`). Parameters are referred to by their index in the model's
    parameter vector.
    """

    def __init__(self, index: dict[tuple, int], kind: str, position: int,
                 values: list[float] | None = None, n_bars: int = 0) -> None:
        self._index = index
        self.kind = kind
        #: the element's index in its collection
        self.position = position
        #: parameter values: expressions then use them as constants instead of ``hy.par``
        self._values = values
        self.n_bars = n_bars

    # ----------------------------------------------------------- heyoka expressions
    def P(self, *name: Any) -> hy.expression:
        """Return one of this element's parameters as an expression.

        ``hy.par[k]``, or its value when the equations are built with numbers as constants.
        """
        return self._expr(self.par(*name))

    def bar_P(self, bar: int, name: str) -> hy.expression:
        """Return a bar parameter as an expression."""
        return self._expr(self.bar_par(bar, name))

    def _expr(self, k: int) -> hy.expression:
        return hy.par[k] if self._values is None else hy.expression(self._values[k])

    def user_parameters(self) -> dict[str, hy.expression]:
        """Return ``{"par_<name>": expression}`` of the model's named parameters.

        For :func:`heyoka.subs` on user expressions.
        """
        return {f"par_{key[2]}": self._expr(k) for key, k in self._index.items()
                if key[0] == "param" and len(key) == 3}

    def variables(self) -> tuple[list, list]:
        """Return the coordinate and velocity variables ``x{i}, y{i}, th{i}`` / ``vx{i}, ...``."""
        q = [hy.expression(f"{c}{i}") for i in range(self.n_bars) for c in ("x", "y", "th")]
        qd = [hy.expression(f"{c}{i}") for i in range(self.n_bars) for c in ("vx", "vy", "om")]
        return q, qd

    def point_expr(self, bar: int, sl: hy.expression) -> tuple:
        """Return the position ``(x, y)`` and velocity ``(vx, vy)`` of a bar point as expressions.

        ``sl`` is the expression of :math:`sL`.
        """
        q, qd = self.variables()
        x, y, th = q[3 * bar:3 * bar + 3]
        vx, vy, om = qd[3 * bar:3 * bar + 3]
        c, s = hy.cos(th), hy.sin(th)
        return (x + sl * c, y + sl * s), (vx - sl * s * om, vy + sl * c * om), (sl * c, sl * s)

    def par(self, *name: Any) -> int:
        """Index of one of this element's parameters, e.g. ``ctx.par("sL")``."""
        return self._index[(self.kind, self.position, *name)]

    def bar_par(self, bar: int, name: str) -> int:
        """Index of a bar parameter (``"mass"``, ``"inertia"``, ``"inv_mass"``, ...)."""
        return self._index[("bar", bar, name)]

    def global_par(self, name: str) -> int:
        """Index of a model-wide parameter (``"g"``, ``"stabilization"``)."""
        return self._index[(name,)]

    @staticmethod
    def q(j: int) -> str:
        """Factor name of the coordinate :math:`q_j`."""
        return f"q{j}"

    @staticmethod
    def v(j: int) -> str:
        r"""Factor name of the velocity :math:`\dot q_j`."""
        return f"v{j}"

    @staticmethod
    def cos(bar: int) -> str:
        r"""Factor name of :math:`\cos θ_i`."""
        return f"c{bar}"

    @staticmethod
    def sin(bar: int) -> str:
        r"""Factor name of :math:`\sin θ_i`."""
        return f"s{bar}"

    def point(self, bar: int, sl: int | None, axis: int, sign: float = 1.0) -> mo.Poly:
        r"""Return ``sign`` times the x (``axis=0``) or y (``axis=1``) coordinate of a bar point.

        The coordinate is :math:`x_i + sL\cos θ_i` or :math:`y_i + sL\sin θ_i`, with ``sl`` the
        index of the parameter :math:`sL`; ``sl=None`` is the centre itself, :math:`x_i` or
        :math:`y_i`.
        """
        centre = mo.monomial((self.q(3 * bar + axis),), sign)
        if sl is None:
            return centre
        trig = self.cos(bar) if axis == 0 else self.sin(bar)
        return mo.add(centre, mo.monomial((trig,), sign, sl))

    def point_velocity(self, bar: int, sl: int, axis: int, sign: float = 1.0) -> mo.Poly:
        r"""Return ``sign`` times the x or y velocity of a bar point.

        The velocity is :math:`\dot x_i - sL\sin θ_i\,\dot θ_i` or
        :math:`\dot y_i + sL\cos θ_i\,\dot θ_i`.
        """
        om = self.v(3 * bar + 2)
        if axis == 0:
            return mo.add(mo.monomial((self.v(3 * bar),), sign),
                          mo.monomial((self.sin(bar), om), -sign, sl))
        return mo.add(mo.monomial((self.v(3 * bar + 1),), sign),
                      mo.monomial((self.cos(bar), om), sign, sl))


@dataclass(frozen=True)
class LoadContext:
    """What :meth:`Element.from_dict` checks against.

    The number of bars, the names taken, the file's format version and the total of nodes
    its expressions may have together.
    """

    n_bars: int
    names: set
    version: int = 2
    #: the model's bodies (read before the elements)
    bodies: list = field(default_factory=list)
    #: the position of the element being read in its kind's list
    position: int = 0
    #: names of the named parameters read so far (laws may use them)
    parameters: set = field(default_factory=set)
    #: nodes that all the expressions of the file may have together
    budget: NodeBudget = field(default_factory=NodeBudget)

    def expression(self, tree: Any, where: str, allowed: Iterable[str]) -> hy.expression:
        """Decode an expression of the file, charging its nodes to the file's budget.

        Parameters
        ----------
        tree : Any
            The JSON tree (see :mod:`quivira.expression_codec`).
        where : str
            Its place in the file, for messages.
        allowed : iterable of str
            The variables it may use.

        Returns
        -------
        heyoka.expression
            The expression, to be checked further as the API checks it.

        Raises
        ------
        ValueError
            A malformed tree, or the file's expressions have more nodes than its budget.
        """
        return decode_expression(tree, allowed_variables=allowed, where=where,
                                 budget=self.budget)


@dataclass(frozen=True)
class EventSpec:
    """An event an element watches during a simulation.

    It is located exactly by heyoka on the Taylor series of ``value``.

    Attributes
    ----------
    role : str
        What it means to its element (passed back to :meth:`Element.on_event`).
    value : Poly, heyoka.expression or tuple
        The event function, zero at the event: a poly or expression of the state and time,
        ``("row", r)`` for the element's own row ``r`` (before any switching), or
        ``("lambda", r)`` for the multiplier of its row ``r``.
    direction : {"any", "up", "down"}
        Which zero crossings count (``"down"``: the function decreases through zero).
    when : {"always", "inactive", "active"}
        For switchable elements: watched only while their rows are switched off / on (the
        function is replaced by 1 otherwise, so it cannot trigger).
    terminal : bool
        Stop the integration at the event (to switch constraints or apply an impulse) or
        only record it.
    offset : int or None
        Index of a runtime parameter added to the function (e.g. the model's
        ``("event_gap",)``: :meth:`RowContext.global_par`).
    """

    role: str
    value: Any
    direction: str = "any"
    when: str = "always"
    terminal: bool = True
    offset: int | None = None


class EventActions(ABC):
    """What an element may do when one of its events triggers.

    Given to :meth:`Element.on_event` by the simulator, whose ``_Actions`` implements every
    method.
    """

    @abstractmethod
    def is_active(self) -> bool:
        """Whether the element's rows are switched on now."""
        ...

    @abstractmethod
    def impact(self, restitution: float, activate: bool) -> dict:
        """Apply Newton's impact law to the element's rows, then switch them on if ``activate``.

        The impulse goes through the Delassus matrix of the active rows and the element's rows
        and makes their velocity :math:`-e` times the approach velocity (other active rows keep
        their velocity; no unilateral impulse pulls). Returns ``{"approach_speed", "impulse",
        "kinetic_energy_lost", "rests"}`` (``rests``: whether the element's rows are on after
        it, which for a unilateral element only holds if they push).
        """
        ...

    @abstractmethod
    def adds_rank(self) -> bool:
        """Whether the element's rows, switched on now, would constrain anything new.

        False: the active rows already hold what they would (they are redundant at this pose).
        """
        ...

    @abstractmethod
    def set_value(self, name: str, value: float) -> None:
        """Set one of the element's runtime parameters for the rest of this run."""
        ...

    @abstractmethod
    def approach_speed(self) -> float:
        r"""How fast the element's row closes now, :math:`-J\dot q \ge 0` (m/s or rad/s)."""
        ...

    @abstractmethod
    def speed_tolerance(self) -> float:
        """Return the speed (m/s or rad/s) below which a row's rate is rounding, not motion."""
        ...

    @abstractmethod
    def time_since_last(self) -> float:
        """Time (s) since this element's previous event in this run (inf if none)."""
        ...

    @abstractmethod
    def switch(self, active: bool) -> None:
        """Switch the element's rows on or off (no impulse)."""
        ...

    @abstractmethod
    def record(self, what: str, **info: Any) -> None:
        """Record the event on the trajectory (``traj.events``)."""
        ...

    @abstractmethod
    def stop(self) -> None:
        """End the simulation here (the trajectory so far is returned)."""
        ...



@functools.cache
def _list_fields(cls: type) -> tuple[str, ...]:
    """Return the dataclass field names of an element class (cached: ``fields`` is slow)."""
    return tuple(f.name for f in fields(cls))

class Element(ABC):
    """Base of every element kind (see the module docstring).

    Subclasses are dataclasses; their fields are numbers, bools, strings, tuples and lists of
    those (and heyoka expressions, which are immutable), so :meth:`copy` is one level deep.
    A kind declares its fields once, with their meaning (:mod:`.fields`); checking, files,
    edits, names, sweeps, sensitivities, the widget form and the docs table are derived from
    that declaration (:meth:`specs`, :meth:`checked`, :meth:`to_dict`, :meth:`from_dict`,
    :meth:`with_values`).
    """

    #: prefix of default names, e.g. ``"joint"`` gives ``joint0``, ``joint1``, ...
    prefix: ClassVar[str] = ""

    #: short key of the kind: parameter keys, row owners, reactions (e.g. ``"joint"``)
    kind: ClassVar[str] = ""
    #: name of the list in the model data and in model files (e.g. ``"joints"``)
    collection: ClassVar[str] = ""
    #: what the kind is called in messages and the summary (e.g. ``"joint"``)
    title: ClassVar[str] = ""
    #: whether elements of the kind are constraints addressed by a unique ``name``
    named: ClassVar[bool] = False
    #: whether elements of the kind have a ``name`` (unique among all names of a model)
    has_name: ClassVar[bool] = False
    #: whether the rows are one-sided, :math:`g \\ge 0` with a multiplier that can only push
    #: (:math:`\\lambda \\ge 0`): contacts and stops. Every path that switches such rows on at
    #: an instant decides it by the sign conditions of :mod:`quivira.model.complementarity`
    unilateral: ClassVar[bool] = False
    #: whether the rows lock for good when the element's event triggers (latches): they take
    #: part, with target velocity 0, in an impact at the same instant
    locking: ClassVar[bool] = False
    #: whether the element has an ``("active",)`` parameter switching its rows on and off
    #: without recompiling: an inactive row reads :math:`\\lambda_k = 0`
    #: (row scaled by the flag :math:`a`, :math:`W_{kk}` shifted by :math:`1 - a`)
    switchable: ClassVar[bool] = False
    #: the role of the event dispatched when the element's rows are found closing at the
    #: start of a run (:func:`quivira.model.contacts.start`): one of its :meth:`events` roles
    closing_role: ClassVar[str] = "close"

    # ------------------------------------------------------------------ impact policies
    @property
    def joins_impacts(self) -> bool:
        """Whether the element's rows, switched off and closing, take part in an impact.

        Unilateral rows (contacts, stops) and locking rows (latches) do; the engine asks
        this instead of the element's kind.
        """
        return self.unilateral or self.locking

    def restitution_at(self, speed: float, floor: float) -> float:
        """Return the restitution of the element's rows in an impact they join as companions.

        ``speed`` is their approach speed (m/s or rad/s), ``floor`` the run's rest-speed floor
        below which an impact ends at rest. The default, 0, is a plastic impact.
        """
        return 0.0

    def on_redundant_lock(self, act: EventActions) -> None:
        """Act when the element locks together with others but its rows would be redundant.

        Its rows stay off (:meth:`EventActions.adds_rank` is false); the default does
        nothing more.
        """
        return None

    # ------------------------------------------------------------------ declared fields
    @classmethod
    def specs(cls) -> dict[str, Spec]:
        """Return ``{field: Spec}``: the kind's declared fields, in order (:mod:`.fields`)."""
        return _specs(cls)

    def checked(self, bodies: list, where: str, parameters: list[str] | None = None
                ) -> Element:
        """Return the element with every declared field checked and normalized.

        Each field by its :class:`~.fields.Spec` (TypeError/ValueError naming ``where`` and
        the field; laws by :meth:`law_from_api`, against ``parameters``, the names of the
        model's named parameters), then the kind's own checks across fields and against the
        model's bodies (:meth:`check`). The name is checked by the model (it must be unique).
        """
        values = {}
        for fname, spec in self.specs().items():
            if spec.what == "name":
                continue
            w = f"{where}: {fname}"
            if spec.what == "law":
                values[fname] = self.law_from_api(getattr(self, fname), w, len(bodies),
                                                  parameters)
            else:
                values[fname] = spec.check(getattr(self, fname), w, len(bodies))
        return replace(self, **values).check(bodies, where)

    def check(self, bodies: list, where: str) -> Element:
        """Return the element after the checks across its fields (and derived defaults).

        ``bodies`` are the model's bodies (their poses give derived defaults, e.g. a
        support's ground position). The default checks nothing more.
        """
        return self

    def check_model(self, data: Any, where: str) -> None:
        """Check the element against the rest of the model when it is added.

        ``data`` is the model's :class:`~quivira.model.data.ModelData` (e.g. a latch needs a
        joint between its bars). The default checks nothing.
        """
        return None

    def with_values(self, **values: Any) -> Element:
        """Return a copy with new values of editable fields (checked by :meth:`checked`).

        Raises
        ------
        ValueError
            A field the kind does not have, or one that cannot be edited (its bodies, its
            name, a law: remove the element and add a new one).
        """
        specs = self.specs()
        who = getattr(self, "name", None) or self.title
        for key in values:
            spec = specs.get(key)
            if spec is None:
                raise ValueError(f"{who}: a {self.title} has no field {key!r}; its fields are "
                                 f"{list(specs)}")
            if not spec.editable:
                raise ValueError(f"{who}: {key!r} cannot be edited (remove the {self.title} "
                                 "and add a new one)")
        return replace(self, **values)

    # ------------------------------------------------------------------ data
    def copy(self) -> Element:
        """Return an independent copy (lists copied, immutable values shared)."""
        c = copy.copy(self)
        for name in _list_fields(type(self)):
            v = getattr(c, name)
            if isinstance(v, list):
                object.__setattr__(c, name, [list(x) if isinstance(x, list) else x for x in v])
        return c

    def expression_nodes(self) -> int:
        """Return the number of nodes of the element's heyoka expressions (0 if it has none).

        heyoka's ``len``, the size of the tree that a model file stores.
        """
        n = 0
        for name in _list_fields(type(self)):
            v = getattr(self, name)
            for e in v if isinstance(v, list) else (v,):
                if isinstance(e, hy.expression):
                    n += len(e)
        return n

    @abstractmethod
    def bars_used(self) -> tuple[int, ...]:
        """Return the bars the element touches."""
        ...

    def parameters(self, bars: list) -> list[tuple[tuple, float]]:
        """Return the runtime parameters ``[(name, value), ...]``.

        ``name`` is a tuple (the parameter key is ``(kind, index, *name)``); ``bars`` are the
        model's bar records.
        """
        return []

    def parameter_symbols(self, position: int, bars: list) -> dict[tuple, list[SymbolFactor]]:
        """Return the symbol of each parameter as factors ``[(name, power), ...]`` (LaTeX names).

        For formulas, e.g. ``{("sL",): [("s_{S0}", 1), ("L_2", 1)]}``.
        """
        return {}

    @abstractmethod
    def topology(self) -> Hashable:
        """Return what compiled code depends on (connectivity, counts), never numeric values."""
        ...

    @abstractmethod
    def reindexed(self, removed_bar: int) -> Element | None:
        """Return the element after bar ``removed_bar`` is deleted.

        Higher indices shift down by one; None if the element cannot exist without that bar.
        """
        ...

    @abstractmethod
    def describe(self, position: int) -> str:
        """One line of the model summary."""
        ...

    def events(self, ctx: RowContext) -> list[EventSpec]:
        """Return the events the element watches during a simulation (none by default)."""
        return []

    def on_event(self, role: str, act: EventActions) -> None:
        """Act when the event ``role`` triggers (see :class:`EventActions`)."""
        return None  # kinds without events never get here

    def label_prefix(self, position: int) -> str:
        """How the element is named in messages, e.g. ``"support 2"`` or its name."""
        return self.name if self.has_name else f"{self.title} {position}"

    # ------------------------------------------------------------------ persistence
    def to_dict(self) -> dict:
        """Return plain JSON-ready data: one key per declared field (laws encoded)."""
        out = {}
        for fname, spec in self.specs().items():
            v = getattr(self, fname)
            if spec.what == "law":
                from ...expression_codec import encode_expression

                v = encode_expression(v)
            elif isinstance(v, (tuple, list)):  # a copy: the data never shares the element's
                v = copy.deepcopy(list(v))
            out[fname] = v
        return out

    @classmethod
    def from_dict(cls, d: Any, where: str, ctx: LoadContext) -> Element:
        """Validate file data and build the element; ValueError naming ``where`` on errors.

        Every declared field is read and checked as :meth:`checked` checks it (laws by
        :meth:`law_from_file`); a file of a version before the kind stored its name
        (:attr:`named_since`) gets the default name of the element's position.
        """
        from ..validation import check_name, field

        if not isinstance(d, dict):
            raise ValueError(f"{where}: expected an object, got {type(d).__name__}")
        values = {}
        for fname, spec in cls.specs().items():
            if spec.what == "name":
                if "name" not in d and ctx.version < cls.named_since:
                    values[fname] = f"{cls.prefix or cls.kind}{ctx.position}"
                else:
                    values[fname] = check_name(field(d, fname, where), ctx.names,
                                               f"{where}.name")
                continue
            v = field(d, fname, where)
            if spec.what == "law":
                values[fname] = cls.law_from_file(v, f"{where}.{fname}", ctx)
            else:
                values[fname] = spec.check(v, f"{where}.{fname}", ctx.n_bars)
        return cls(**values).check(ctx.bodies, where)

    @classmethod
    def law_from_file(cls, tree: Any, where: str, ctx: LoadContext) -> hy.expression:
        """Read a law field of a file (kinds with laws say how they are checked)."""
        raise ValueError(f"{where}: {cls.title} has no laws")

    @classmethod
    def law_from_api(cls, value: Any, where: str, n_bars: int,
                     parameters: list[str] | None) -> hy.expression:
        """Check a law field given through the API (kinds with laws say how).

        ``parameters``: the names of the model's named parameters the law may use (None: not
        checked, for an element whose laws were checked when it was added).
        """
        raise ValueError(f"{where}: {cls.title} has no laws")

    #: the file format version from which the kind's elements store their name (older files
    #: get the default name of their position)
    named_since: ClassVar[int] = 2


def shift_bar(b: int, removed: int) -> int:
    """Return a bar index after bar ``removed`` is deleted (``b != removed``)."""
    return b - 1 if b > removed else b


class OnOneBar:
    """Mixin for elements attached to one bar (a ``bar`` field).

    It gives the bars they use and their re-indexing (removed with their bar).
    """

    def bars_used(self) -> tuple[int, ...]:
        """Return the indices of the bodies the element touches."""
        return (self.bar,)

    def reindexed(self, removed_bar: int):
        """Return the element after bar ``removed_bar`` is deleted (None if it used it)."""
        if self.bar == removed_bar:
            return None
        c = self.copy()
        c.bar = shift_bar(self.bar, removed_bar)
        return c


class Constraint(Element):
    """An element that adds constraint rows (see :class:`Row`)."""

    @abstractmethod
    def rows(self, ctx: RowContext) -> list[Row]:
        """Return the element's rows, holonomic and/or velocity level (see :class:`Row`)."""
        ...

    def reaction_terms(self, position: int, rows: list[tuple[int, Row]]
                       ) -> list[tuple[tuple, int, int, float]]:
        """Return how multipliers become forces on bars.

        ``[((kind, index, bar), column, axis, sign), ...]`` means
        ``force[:, axis] += sign * lambda[:, column]`` on that bar (axis 0 = x, 1 = y). ``rows``
        are the element's rows with their columns. Default: none (the element's multipliers are
        not point forces).
        """
        return []

    def group(self) -> dict:
        """Return the data recorded on trajectories for :meth:`Trajectory.constraint_output`.

        For named constraints: at least ``velocity_level``.
        """
        return {"velocity_level": False}

    @property
    def is_active(self) -> bool:
        """Whether the rows are switched on (always, unless the kind is switchable)."""
        return bool(getattr(self, "active", True))


class Load(Element):
    r"""An element that adds generalized forces :math:`Q`.

    Its force splits into a conservative part :math:`-\partial V/\partial q`, a dissipative
    part (dissipating the power :math:`P_d \ge 0`) and a driving part (supplying the power
    :math:`P_{in}`), so that along any motion :math:`\frac{d}{dt}(T + V) = P_{in} - P_d`
    (the energy ledger). Terms are polys or heyoka expressions (see :class:`Row`).
    """

    #: parameter names that are inputs ``u`` of a linearization (columns of ``B``)
    inputs: ClassVar[tuple[str, ...]] = ()
    #: whether the kind can supply power (an actuator) / dissipate it (a damper): such
    #: elements add the integrated work and dissipation to the equations (topology)
    drives: ClassVar[bool] = False
    dissipates: ClassVar[bool] = False
    #: whether :meth:`potential` is an elastic energy reported per element
    elastic: ClassVar[bool] = False

    @abstractmethod
    def generalized_forces(self, ctx: RowContext) -> list[tuple[int, Any]]:
        """``[(coordinate index, Q term), ...]``."""
        ...

    def potential(self, ctx: RowContext) -> Any:
        """Return the potential energy :math:`V` of the load's conservative part.

        Its negative gradient is the conservative part of the load (``{}`` if none).
        """
        return {}

    def power_in(self, ctx: RowContext) -> Any:
        """Power :math:`P_{in}` supplied by the driving part (``{}`` if none)."""
        return {}

    def dissipation(self, ctx: RowContext) -> Any:
        r"""Power :math:`P_d \ge 0` dissipated by the damping part (``{}`` if none)."""
        return {}

    def force_outputs(self, ctx: RowContext) -> list[tuple[str, Any]]:
        """Return the element's own force along a motion, ``[(label, term), ...]``.

        For example the tension of a spring, for :meth:`Trajectory.element_force`; none by
        default.
        """
        return []


def is_expression(value: Any) -> bool:
    """Whether a row value is a heyoka expression (an opaque user row) rather than a poly."""
    return isinstance(value, hy.expression)


def expression_text(e: Any, width: int = 60) -> str:
    """Return ``str(e)`` cut to ``width`` characters (for summaries and messages)."""
    text = str(e)
    return text if len(text) <= width else text[: width - 3] + "..."

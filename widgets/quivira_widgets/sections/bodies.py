"""The *Bodies* section: add, edit and delete particles and rigid bodies (discs, plates).

* a **particle** is a point mass at ``(x, y)`` (m) of mass m (kg): two coordinates, no angle
  (``model.add_particle``);
* a **rigid body** has its mass centre at ``(x, y)``, an angle θ (degrees in the field,
  radians in the model), a mass m and a moment of inertia I about its mass centre (kg·m²),
  and a drawing shape: a **disc** of radius R (also the radius its rolling contacts use), a
  **plate** of width w and height h, or no shape (``model.add_body``). An empty *inertia I*
  is the inertia of the uniform shape: :math:`m R^2/2` for a disc,
  :math:`m (w^2 + h^2)/12` for a plate (a body without a shape needs a number).

Bodies share one index with the bars (the *Bars* section lists them too). With a body
selected, a change of x, y, θ, m or I edits that body at once (``set_init_bar_attitude``,
``set_bar_mass``, ``set_body_inertia``; mass and inertia are runtime parameters, so the motion
re-simulates without compiling). The kind and the shape are fixed once the body exists
(delete it and add a new one). *Delete body* removes the body and every element attached to
it (``model.remove_bar``); higher body numbers move down by one.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel
from quivira.elements import Particle, RigidBody

from .. import _specs as spec
from .._fields import NumberField, NumberSpec, OptionalNumberField
from .._modelinfo import add_body, body_name, nice
from .base import NEW, ItemSection, hint, row

_SIZE = "larger models are slow or inaccurate to simulate"

#: the kinds of a new body: (label, key)
KINDS = (("particle", "particle"), ("disc", "disc"), ("plate", "plate"), ("no shape", "none"))

RADIUS = NumberSpec("radius R", "m", positive=True, lo=1e-6, hi=1e6, warn_lo=1e-3,
                    warn_hi=1e4, why=_SIZE)
WIDTH = NumberSpec("width w", "m", positive=True, lo=1e-6, hi=1e6, warn_lo=1e-3, warn_hi=1e4,
                   why=_SIZE)
HEIGHT = NumberSpec("height h", "m", positive=True, lo=1e-6, hi=1e6, warn_lo=1e-3,
                    warn_hi=1e4, why=_SIZE)
BODY_INERTIA = NumberSpec("inertia I", "kg·m²", positive=True, lo=1e-12, hi=1e9,
                          warn_lo=1e-8, warn_hi=1e6,
                          why="such inertias make the equations badly scaled",
                          expected="a positive number up to 1e+09, or empty for the uniform "
                                   "shape's inertia")


def uniform_inertia(kind: str, mass: float, radius: float, width: float,
                    height: float) -> float | None:
    """Return the inertia (kg·m²) of a uniform disc or plate about its centre.

    Parameters
    ----------
    kind : {"disc", "plate", "none", "particle"}
        The shape.
    mass : float
        The mass (kg).
    radius, width, height : float
        The disc's radius, the plate's width and height (m).

    Returns
    -------
    float or None
        :math:`m R^2/2` for a disc, :math:`m (w^2 + h^2)/12` for a plate, None otherwise.
    """
    if kind == "disc":
        return 0.5 * mass * radius ** 2
    if kind == "plate":
        return mass * (width ** 2 + height ** 2) / 12.0
    return None


def body_label(i: int, b) -> str:
    """Return the short name of body ``i``: ``"bar 0"``, ``"particle 1"``, ``"disc 2"``.

    Parameters
    ----------
    i : int
        The body's index.
    b : object
        The body record (``model.bodies[i]``).
    """
    kind = getattr(b, "body_kind", "bar")
    if kind == "body":
        shape = b.shape.get("kind", "none")
        return f"{'body' if shape == 'none' else shape} {i}"
    return f"{kind} {i}"


class BodiesSection(ItemSection):
    """Particles and rigid bodies of the model (see the module docstring).

    Parameters
    ----------
    model : quivira.BarJointModel
        The model edited.

    Attributes
    ----------
    center : tuple of float
        Where a new body goes (the view's centre in a Studio; a trait).
    kind : ipywidgets.ToggleButtons
        ``"particle"``, ``"disc"``, ``"plate"`` or ``"none"`` (a rigid body without a
        shape) — of a new body.
    x, y : NumberField
        The position of the particle or of the body's mass centre (m).
    theta : NumberField
        The body's angle (°; a particle has none).
    mass : NumberField
        The mass (kg).
    inertia : OptionalNumberField
        The moment of inertia about the mass centre (kg·m²); empty: the uniform shape's.
    radius, width, height : NumberField
        The disc's radius, the plate's width and height (m).
    """

    noun = "body"
    title = "Bodies"
    center = traitlets.Tuple(traitlets.Float(), traitlets.Float(), default_value=(0.0, 0.0))

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self.add_button.tooltip = "add a particle or a rigid body from the fields"
        self.select.description = "body"
        self.kind = widgets.ToggleButtons(options=list(KINDS), value="disc",
                                          style={"button_width": "auto"},
                                          tooltip="the kind of the new body")
        self.kind.add_class("quivira-body-kind")
        self.x = NumberField(spec.COORD_X, 0.0, tooltip="x of the particle or of the body's "
                             "mass centre")
        self.y = NumberField(spec.COORD_Y, 0.0, tooltip="y of the particle or of the body's "
                             "mass centre")
        self.theta = NumberField(spec.ANGLE, 0.0, tooltip="angle of the body frame from the "
                                 "+x axis, counter-clockwise, in degrees")
        self.mass = NumberField(spec.MASS, 1.0, tooltip="mass of the particle or body")
        self.inertia = OptionalNumberField(BODY_INERTIA, None, "uniform",
                                           tooltip="moment of inertia about the mass centre; "
                                           "empty: a uniform disc's m R²/2 or plate's "
                                           "m (w² + h²)/12")
        self.radius = NumberField(RADIUS, 0.2, tooltip="radius of the disc (also the radius "
                                  "its rolling contacts use)")
        self.width = NumberField(WIDTH, 0.4, tooltip="width of the plate, along the body's "
                                 "x axis")
        self.height = NumberField(HEIGHT, 0.2, tooltip="height of the plate, along the "
                                  "body's y axis")
        self.fields = {"x": self.x, "y": self.y, "theta": self.theta, "mass": self.mass,
                       "inertia": self.inertia, "radius": self.radius, "width": self.width,
                       "height": self.height}
        for name in ("x", "y", "theta"):
            self.on_change(self.fields[name], lambda name=name: self._on_pose(name))
        self.on_change(self.mass, self._on_mass)
        self.on_change(self.inertia, self._on_inertia)
        for f in (self.radius, self.width, self.height):
            self.on_change(f, self._show_kind)
        self.on_change(self.kind, self._show_kind)
        self.hint = hint("")
        self._disc_row = row(self.radius)
        self._plate_row = row(self.width, self.height)
        self.children = [self.select, self.kind, row(self.x, self.y), row(self.theta),
                         self._disc_row, self._plate_row, row(self.mass, self.inertia),
                         self.hint, row(self.add_button, self.delete_button),
                         self.message.widget]
        self.observe(self._on_center, names="center")
        self.fresh_defaults()

    def _on_center(self, change) -> None:
        if self.selected == NEW and not getattr(self, "_touched", False):
            self.fresh_defaults()

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the particles and rigid bodies as ``(index, body)`` pairs."""
        return [(i, b) for i, b in enumerate(self.model.bodies)
                if getattr(b, "body_kind", "bar") in ("particle", "body")]

    def item_label(self, k: int, item) -> str:
        """Return the selector's text of body ``item = (index, body)``."""
        i, b = item
        where = "" if b.pose is None else f" at ({b.pose[0]:.4g}, {b.pose[1]:.4g})"
        if b.body_kind == "particle":
            return f"particle {i}{where}: m = {b.mass:.4g} kg"
        size = ", ".join(f"{key[0]} = {v:.4g}" for key, v in b.shape.items() if key != "kind")
        size = f" ({size} m)" if size else ""
        return (f"{body_label(i, b)}{size}{where}: m = {b.mass:.4g} kg, "
                f"I = {b.inertia:.4g} kg·m²")

    def selected_body(self) -> int | None:
        """Return the model index of the selected body, None for "+ new body"."""
        k = self.selected
        items = self.items()
        return None if k == NEW or k >= len(items) else items[k][0]

    def fill_from(self, item, force: bool) -> None:
        """Show body ``item = (index, body)`` in the fields."""
        _, b = item
        kind = "particle" if b.body_kind == "particle" else b.shape.get("kind", "none")
        self.put(self.kind, kind, force)
        if b.pose is not None:
            self.put(self.x, nice(b.pose[0]), force)
            self.put(self.y, nice(b.pose[1]), force)
            self.put(self.theta, nice(math.degrees(b.pose[2])), force)
        self.put(self.mass, nice(b.mass), force)
        self.put(self.inertia, None if kind == "particle" else nice(b.inertia), force)
        if kind == "disc":
            self.put(self.radius, nice(b.shape["radius"]), force)
        elif kind == "plate":
            self.put(self.width, nice(b.shape["width"]), force)
            self.put(self.height, nice(b.shape["height"]), force)
        self._show_kind()

    def fill_defaults(self) -> None:
        """Fill in a uniform disc of radius 0.2 m and 1 kg at the view's centre.

        The disc is moved down while it would sit on an existing body's centre.
        """
        cx, cy = (float(f"{v:.3g}") for v in self.center)
        taken = {(round(b.pose[0], 9), round(b.pose[1], 9)) for b in self.model.bodies
                 if b.pose is not None}
        for _ in range(50):
            if (round(cx, 9), round(cy, 9)) not in taken:
                break
            cy = float(f"{cy - 0.5:.6g}")
        with self.syncing():
            for f, v in ((self.x, cx), (self.y, cy), (self.theta, 0.0), (self.mass, 1.0),
                         (self.inertia, None), (self.radius, 0.2), (self.width, 0.4),
                         (self.height, 0.2)):
                f.set_quietly(nice(v) if v is not None else None)
        self._show_kind()

    def after_select(self, k: int) -> None:
        """Enable the fields an existing body can change (not its kind or shape)."""
        new = k == NEW
        for w in (self.kind, self.radius, self.width, self.height):
            w.disabled = not new
        self.kind.tooltip = ("the kind of the new body" if new else "the kind and shape of a "
                             "body are fixed: delete it and add a new one")
        self._show_kind()

    def _show_kind(self) -> None:
        kind = self.kind.value
        self._disc_row.layout.display = None if kind == "disc" else "none"
        self._plate_row.layout.display = None if kind == "plate" else "none"
        particle = kind == "particle"
        for f in (self.theta, self.inertia):
            f.layout.display = "none" if particle else None
        self.hint.value = '<span class="quivira-hint">' + self._hint_text(kind) + "</span>"

    def _hint_text(self, kind: str) -> str:
        if kind == "particle":
            return ("a point mass: two coordinates (x, y), no angle; links, pins and supports "
                    "attach at its position")
        if self.inertia.value is not None or kind == "none":
            extra = "" if kind != "none" else " · a body without a shape needs its inertia I"
            return "I about the mass centre" + extra
        try:
            value = uniform_inertia(kind, self.mass.value, self.radius.value,
                                    self.width.value, self.height.value)
        except TypeError:
            return ""
        formula = "m R²/2" if kind == "disc" else "m (w² + h²)/12"
        return f"empty I: a uniform {kind}'s {formula} = {value:.4g} kg·m²"

    # ------------------------------------------------------------------ edits
    def _on_pose(self, name: str) -> None:
        field = self.fields[name]
        i = self.selected_body()
        if i is None or field.error:
            return
        b = self.model.bodies[i]
        old = b.pose if b.pose is not None else (self.x.value, self.y.value, 0.0)
        x, y, th = old
        if name == "x":
            x = self.x.value
        elif name == "y":
            y = self.y.value
        else:
            th = math.radians(self.theta.value)
        shown = {"x": old[0], "y": old[1], "theta": math.degrees(old[2])}[name]
        self.apply(lambda: self.model.set_init_bar_attitude(i, x, y, th),
                   f"{body_label(i, b)}: pose set", field, nice(shown))

    def _on_mass(self) -> None:
        i = self.selected_body()
        if i is None or self.mass.error:
            self._show_kind()
            return
        m = self.mass.value
        old = self.model.bodies[i].mass
        name = body_name(self.model, i)
        self.apply(lambda: self.model.set(name, mass=m), f"body {i}: mass {m:g} kg",
                   self.mass, nice(old))

    def _on_inertia(self) -> None:
        i = self.selected_body()
        if i is None or self.inertia.error:
            self._show_kind()
            return
        b = self.model.bodies[i]
        if b.body_kind != "body":
            return
        value = self.inertia.value
        note = ""
        if value is None:
            value = uniform_inertia(b.shape.get("kind", "none"), b.mass,
                                    b.shape.get("radius", 0.0), b.shape.get("width", 0.0),
                                    b.shape.get("height", 0.0))
            if value is None:
                self.inertia.show_error("inertia I: a body without a shape needs a number")
                self.message.error(f"body {i}: a body without a shape needs a number for its "
                                   "inertia I")
                return
            note = " (the uniform shape's)"
        self.apply(lambda: self.model.set(body_name(self.model, i), inertia=value),
                   f"body {i}: inertia {value:.6g} kg·m²{note}", self.inertia, nice(b.inertia))

    def add(self) -> int | None:
        """Add a particle or a rigid body from the fields.

        Returns
        -------
        int or None
            The new body's index (bodies and bars share one index), None when refused.
        """
        if self.selected != NEW:
            self.message.error("choose '+ new body' to add a body")
            return None
        kind = self.kind.value
        fields = [self.x, self.y, self.mass]
        if kind != "particle":
            fields += [self.theta, self.inertia]
        fields += {"disc": [self.radius], "plate": [self.width, self.height]}.get(kind, [])
        if self.refused(*fields):
            return None
        x, y, m = self.x.value, self.y.value, self.mass.value
        if kind == "particle":
            def action() -> int:
                return add_body(self.model, Particle(mass=m, pose=(x, y, 0.0)))
        else:
            th = math.radians(self.theta.value)
            shape = {"disc": {"kind": "disc", "radius": self.radius.value},
                     "plate": {"kind": "plate", "width": self.width.value,
                               "height": self.height.value}}.get(kind)
            I = self.inertia.value
            if I is None:
                I = uniform_inertia(kind, m, self.radius.value, self.width.value,
                                    self.height.value)
            if I is None:
                msg = "inertia I: a body without a shape needs a number (kg·m²)"
                self.inertia.show_error(msg)
                self.message.error(msg)
                return None

            def action() -> int:
                return add_body(self.model, RigidBody(
                    mass=m, inertia=I, pose=(x, y, th), shape=shape or {"kind": "none"}))
        ok, i = self.apply(action, lambda i: (
            f"added {body_label(i, self.model.bodies[i])} — it is free: pin, weld or link it "
            "(Body joints & motors), or it will fall"))
        if ok:
            self.fresh_defaults()
        return i if ok else None

    def delete(self) -> None:
        """Delete the selected body and the elements attached to it."""
        if self.selected == NEW:
            self.message.error("select a body to delete")
            return
        super().delete()

    def remove(self, k: int) -> dict:
        """Remove the ``k``-th listed body (``model.remove_bar``); what was removed."""
        return self.model.remove(body_name(self.model, self.items()[k][0]))

    def removed_text(self, k: int, result) -> str:
        """Return the message after a deletion."""
        extra = []
        for key, value in result.items():
            if key == "bar" or not value:
                continue
            extra.append(", ".join(value) if key == "constraints"
                         else f"{len(value)} {key.replace('_', ' ')}")
        return (f"deleted body {result['bar']}" + (f" (and {', '.join(extra)})" if extra
                                                   else "")
                + "; higher body numbers moved down by one")

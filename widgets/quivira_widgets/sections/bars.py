"""The *Bars* section: add, edit and delete bars, by attitude or by end points.

A bar is given by its centre ``(x, y)`` (m), angle θ (degrees in the field, radians in the
model) and length (m), or by its two ends (the ``s = -0.5`` and ``s = +0.5`` points), and its
mass (kg). Particles and rigid bodies (``model.add_particle``, ``model.add_body``) are listed
with the bars (one index for all bodies): their mass is edited here (``model.set_bar_mass``),
and a rigid body's moment of inertia about its mass centre in the *inertia I* field (kg·m²,
``model.set_body_inertia``; a bar's inertia follows from its mass and length, m L²/12, and a
particle has none). With "+ new bar" selected the fields describe the next bar: a fresh one near the
centre of the view (:attr:`BarsSection.center`), of the model's typical length, horizontal —
never a copy of the bar selected before. Its mass is :data:`MASS_PER_LENGTH` times its length,
as in ``model.add_bar_from_point_pair``: the *mass* field follows the length (typed, or given by
the ends) until a mass is typed, and then keeps that mass. With a bar selected, a change of a
field edits that bar at once.
"""

from __future__ import annotations

import math

import ipywidgets as widgets
import numpy as np
import traitlets

from quivira import BarJointModel

from .. import _geometry as geo
from .. import _specs as spec
from .._fields import NumberField
from .._modelinfo import body_name, n_bodies, nice
from .base import NEW, ItemSection, row

#: mass per length (kg/m) of a new bar whose mass is not typed (``add_bar_from_point_pair``'s)
MASS_PER_LENGTH = 1.0


class BarsSection(ItemSection):
    """Bars of the model (see the module docstring).

    Attributes
    ----------
    center : tuple of float
        Where a new bar goes (the view's centre in a Studio; a trait).
    mode : ipywidgets.ToggleButtons
        ``"attitude"`` (centre, angle, length) or ``"endpoints"``.
    x, y, theta, length, x1, y1, x2, y2, mass : NumberField
        The fields (θ in degrees). For a new bar, *mass* follows its length
        (:data:`MASS_PER_LENGTH`) until a mass is typed.
    inertia : NumberField
        The moment of inertia (kg·m²) of the selected rigid body (disabled for bars and
        particles).
    """

    noun = "bar"
    title = "Bars"
    center = traitlets.Tuple(traitlets.Float(), traitlets.Float(), default_value=(0.0, 0.0))

    def __init__(self, model: BarJointModel) -> None:
        super().__init__(model)
        self._mass_typed = False
        self.mode = widgets.ToggleButtons(options=[("by attitude", "attitude"),
                                                   ("by endpoints", "endpoints")],
                                          value="attitude", style={"button_width": "110px"})
        self.x = NumberField(spec.COORD_X, 0.0, tooltip="x of the bar's centre")
        self.y = NumberField(spec.COORD_Y, 0.0, tooltip="y of the bar's centre")
        self.theta = NumberField(spec.ANGLE, 0.0, tooltip="angle from the +x axis, "
                                 "counter-clockwise, in degrees")
        self.length = NumberField(spec.LENGTH, 1.0, tooltip="length of the bar")
        self.x1 = NumberField(spec.COORD_X, -0.5, "x₁", "x of the start (s = -0.5)")
        self.y1 = NumberField(spec.COORD_Y, 0.0, "y₁", "y of the start (s = -0.5)")
        self.x2 = NumberField(spec.COORD_X, 0.5, "x₂", "x of the end (s = +0.5)")
        self.y2 = NumberField(spec.COORD_Y, 0.0, "y₂", "y of the end (s = +0.5)")
        self.mass = NumberField(spec.MASS, 1.0, tooltip="mass of the bar (uniform)")
        self.inertia = NumberField(spec.INERTIA, 1.0, tooltip="moment of inertia of a rigid "
                                   "body about its mass centre (a bar's is m L²/12)")
        self.inertia.disabled = True
        self._attitude_box = widgets.VBox([row(self.x, self.y), row(self.theta, self.length)])
        self._endpoint_box = widgets.VBox([row(self.x1, self.y1), row(self.x2, self.y2)])
        self._endpoint_box.layout.display = "none"
        self.mode.observe(self._on_mode, names="value")
        for f, name in ((self.x, "x"), (self.y, "y"), (self.theta, "theta")):
            self.on_change(f, lambda name=name: self._on_attitude(name))
        for f in (self.x1, self.y1, self.x2, self.y2):
            self.on_change(f, lambda f=f: self._on_endpoint(f))
        self.on_change(self.length, self._on_length)
        self.on_change(self.mass, self._on_mass)
        self.on_change(self.inertia, self._on_inertia)
        self.children = [self.select, self.mode, self._attitude_box, self._endpoint_box,
                         row(self.mass, self.inertia), row(self.add_button, self.delete_button),
                         self.message.widget]
        self.observe(self._on_center, names="center")
        self.fresh_defaults()

    def _on_center(self, change) -> None:
        if self.selected == NEW and not getattr(self, "_touched", False):
            self.fresh_defaults()

    # ------------------------------------------------------------------ items
    def items(self) -> list:
        """Return the bars of the model listed by the section."""
        return self.model.bodies

    def item_label(self, k: int, b) -> str:
        """Return the selector's text of item ``k``."""
        kind = getattr(b, "body_kind", "bar")
        if kind == "particle":
            return f"particle {k}: m = {b.mass:.4g} kg"
        if kind == "body":
            return (f"body {k} ({b.shape.get('kind', 'none')}): m = {b.mass:.4g} kg, "
                    f"I = {b.inertia:.4g} kg·m²")
        return f"bar {k}: L = {b.length:.4g} m, m = {b.mass:.4g} kg"

    def fill_from(self, b, force: bool) -> None:
        """Show ``item`` in the fields (``force``: also over refused input)."""
        self.put(self.length, nice(b.length), force)
        self.put(self.mass, nice(b.mass), force)
        self.put(self.inertia, nice(b.inertia), force)
        if b.pose is not None:
            x, y, th = b.pose
            self.put(self.x, nice(x), force)
            self.put(self.y, nice(y), force)
            self.put(self.theta, nice(math.degrees(th)), force)
            self._show_endpoints(x, y, th, b.length, force)

    def fill_defaults(self) -> None:
        """Fill in a fresh horizontal bar at the view's centre.

        Moved down while it would lie on an existing bar's centre; of the model's median length
        and :data:`MASS_PER_LENGTH` kg per m of it (the mass follows the length until typed).
        """
        bars = self.model.bodies
        lengths = [b.length for b in bars]
        L = float(np.median(lengths)) if lengths else 1.0
        cx, cy = (float(f"{v:.3g}") for v in self.center)  # a round number to read
        taken = {(round(b.pose[0], 9), round(b.pose[1], 9)) for b in bars if b.pose is not None}
        for _ in range(50):
            if (round(cx, 9), round(cy, 9)) not in taken:
                break
            cy -= 0.25 * L
        self._mass_typed = False
        with self.syncing():
            for f, v in ((self.x, cx), (self.y, cy), (self.theta, 0.0), (self.length, L),
                         (self.mass, MASS_PER_LENGTH * L)):
                f.set_quietly(nice(v))
        self._show_endpoints(cx, cy, 0.0, L, True)

    def _template_mass(self, length: float) -> None:
        """Show the new bar's mass for ``length`` (m), unless a mass was typed."""
        if not self._mass_typed:
            with self.syncing():
                self.mass.set_quietly(nice(MASS_PER_LENGTH * length))

    def _show_endpoints(self, x, y, th, L, force: bool = True) -> None:
        ends = geo.endpoints_from_pose(x, y, th, L)
        for f, v in zip((self.x1, self.y1, self.x2, self.y2), ends):
            self.put(f, nice(v), force)

    def _on_mode(self, change) -> None:
        attitude = change["new"] == "attitude"
        self._attitude_box.layout.display = None if attitude else "none"
        self._endpoint_box.layout.display = "none" if attitude else None

    # ------------------------------------------------------------------ edits
    def _template_from_attitude(self) -> None:
        self._show_endpoints(self.x.value, self.y.value, math.radians(self.theta.value),
                             self.length.value)

    def _on_attitude(self, name: str) -> None:
        field = {"x": self.x, "y": self.y, "theta": self.theta}[name]
        i = self.selected
        if i == NEW:
            if not field.error:
                self._template_from_attitude()
            return
        old = self.model.bodies[i].pose
        shown = None if old is None else {"x": nice(old[0]), "y": nice(old[1]),
                                          "theta": nice(math.degrees(old[2]))}[name]
        if field.error:
            if shown is not None:
                self.put(field, shown)
            return
        x, y, th = old if old is not None else (self.x.value, self.y.value,
                                                math.radians(self.theta.value))
        # only the edited coordinate changes: the others keep their exact values
        if name == "x":
            x = self.x.value
        elif name == "y":
            y = self.y.value
        else:
            th = math.radians(self.theta.value)
        self.apply(lambda: self.model.set_init_bar_attitude(i, x, y, th),
                   f"bar {i}: pose set", field, shown)

    def _on_endpoint(self, field: NumberField) -> None:
        order = (self.x1, self.y1, self.x2, self.y2)
        if field.error:
            return
        i = self.selected
        if i == NEW:
            ends = [f.value for f in order]
            x, y, th, L = geo.pose_from_endpoints(*ends)
            with self.syncing():
                for f, v in ((self.x, x), (self.y, y), (self.theta, math.degrees(th))):
                    f.set_quietly(nice(v))
                if L > 0:
                    self.length.set_quietly(nice(L))
            if L > 0:
                self._template_mass(L)
            return
        b = self.model.bodies[i]
        if b.pose is None:
            ends = [f.value for f in order]
        else:
            ends = list(geo.endpoints_from_pose(*b.pose, b.length))
        ends[order.index(field)] = field.value
        x, y, th, L = geo.pose_from_endpoints(*ends)
        if not L > 0:
            field.show_error("the two ends coincide (zero length): move one end")
            self.message.error(f"bar {i}: the two ends coincide (zero length); move one end")
            return

        def edit():
            with self.model.batch():  # one change, one undo step
                self.model.set_init_bar_attitude(i, x, y, th)
                if abs(L - b.length) > 1e-15 * max(1.0, L):
                    self.model.set(body_name(self.model, i), length=L)
        self.apply(edit, f"bar {i}: ends set (length {L:.6g} m)", field)

    def _on_length(self) -> None:
        i = self.selected
        if self.length.error:
            return
        if i == NEW:
            self._template_from_attitude()
            self._template_mass(self.length.value)
            return
        L = self.length.value
        old = self.model.bodies[i].length
        name = body_name(self.model, i)
        self.apply(lambda: self.model.set(name, length=L), f"bar {i}: length {L:g} m",
                   self.length, nice(old))

    def _on_mass(self) -> None:
        i = self.selected
        if self.mass.error:
            return
        if i == NEW:
            self._mass_typed = True  # the new bar keeps this mass, whatever its length
            return
        m = self.mass.value
        old = self.model.bodies[i].mass
        name = body_name(self.model, i)
        self.apply(lambda: self.model.set(name, mass=m), f"bar {i}: mass {m:g} kg",
                   self.mass, nice(old))

    def after_select(self, k: int) -> None:
        """Enable or disable the controls for the selection ``k``."""
        body = k != NEW and k < n_bodies(self.model) \
            and getattr(self.model.bodies[k], "body_kind", "bar") == "body"
        self.inertia.disabled = not body

    def _on_inertia(self) -> None:
        i = self.selected
        if i == NEW or self.inertia.error:
            return
        if getattr(self.model.bodies[i], "body_kind", "bar") != "body":
            self.inertia.show_error("only a rigid body has an inertia to set: a bar's is "
                                    "m L²/12 (edit its mass or length), a particle has none")
            return
        value = self.inertia.value
        old = self.model.bodies[i].inertia
        self.apply(lambda: self.model.set(body_name(self.model, i), inertia=value),
                   f"body {i}: inertia {value:g} kg·m²", self.inertia, nice(old))

    def add(self) -> int | None:
        """Add a bar from the fields (by attitude or by endpoints); returns its index."""
        if self.selected != NEW:
            self.message.error("choose '+ new bar' to add a bar")
            return None
        # a typed mass as typed; else the mass per length, times the length of this bar
        mass = self.mass.value if self._mass_typed else None
        if self.mode.value == "attitude":
            if self.refused(self.x, self.y, self.theta, self.length, self.mass):
                return None
            x, y, th = self.x.value, self.y.value, math.radians(self.theta.value)
            L = self.length.value
            m = MASS_PER_LENGTH * L if mass is None else mass

            def action():
                return self.model.add_bar_at_attitude(x, y, th, L, m)
        else:
            if self.refused(self.x1, self.y1, self.x2, self.y2, self.mass):
                return None
            p1 = (self.x1.value, self.y1.value)
            p2 = (self.x2.value, self.y2.value)
            L = math.hypot(p2[0] - p1[0], p2[1] - p1[1])
            if not L > 0:
                self.message.error("the two ends coincide (zero length): move one end")
                return None

            def action():
                if mass is None:
                    return self.model.add_bar_from_point_pair(p1, p2, MASS_PER_LENGTH)
                return self.model.add_bar_from_point_pair(p1, p2, mass=mass)
        ok, i = self.apply(action, lambda i: (
            f"added bar {i} — it is free: join it (Joints) or support it, or it will fall"))
        if ok:
            self.fresh_defaults()
        return i if ok else None

    def remove(self, k: int):
        """Remove item ``k`` from the model."""
        return self.model.remove(body_name(self.model, k))

    def removed_text(self, k: int, rem) -> str:
        """Return the message shown after item ``k`` is deleted."""
        extra = [f"{len(rem[key])} {key[:-1] if len(rem[key]) == 1 else key}"
                 for key in ("joints", "supports", "forces") if rem.get(key)]
        extra = [e.replace("force", "load") for e in extra]
        return (f"deleted bar {k}" + (f" (and {', '.join(extra)})" if extra else "")
                + "; higher bar numbers moved down by one")

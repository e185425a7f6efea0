"""`ModelEditor`: the sections that edit a model, with undo/redo, examples and files.

The editor composes one class per section (:mod:`quivira_widgets.sections`): a toolbar (undo,
redo, new model, examples), then *Bars*, *Bodies* (particles, discs, plates), *Joints*, *Body
joints & motors* (welds, distance links, body pins, rolling contacts, joint motors),
*Supports*, *Springs & dampers*, *Sliders, stops & contact* (slots, prismatic joints, ground
sliders, latches, angle stops, floors), *Loads* (constant loads, and actuators whose value
follows a law of time), *Any element* (every kind of the model's registry, with a form built
from the kind's declared fields) and *Model & files* in an accordion. Every control calls
the model's public API; the model validates every edit and is unchanged when it refuses one,
and the editor shows why next to the field concerned.

Each list section has a selector whose first entry is "+ new …": the fields are then a
template for *Add*, filled with fresh defaults; with an existing item selected, a change of a
field edits that item at once (text fields apply on Enter or when leaving the field).
"""

from __future__ import annotations

import ipywidgets as widgets
import traitlets

from quivira import BarJointModel

from ._files import WorkFolder
from ._guard import report
from ._modelinfo import counts_line
from ._theme import style_widget
from ._widgets import close_tree
from .sections import (
    ActuatorsSection,
    BarsSection,
    BodiesSection,
    BodyJointsSection,
    ElementsSection,
    FilesSection,
    JointsSection,
    LoadsSection,
    ModelSection,
    SlidersSection,
    SpringsSection,
    SupportsSection,
    Toolbar,
)
from .sections.base import title

SECTIONS = ("bars", "bodies", "joints", "body_joints", "supports", "springs", "sliders", "forces",
            "elements", "model")
_TITLES = ("Bars", "Bodies", "Joints", "Body joints & motors", "Supports", "Springs & dampers",
           "Sliders, stops & contact", "Loads", "Any element", "Model & files")


class ModelEditor(widgets.VBox):
    """Build and edit a :class:`quivira.BarJointModel` with widgets.

    Parameters
    ----------
    model : quivira.BarJointModel
        The model to edit (observed: the editor follows changes made elsewhere, too).
    workdir : WorkFolder, optional
        Where saves go (default: ``quivira-work/`` next to the notebook).

    Attributes
    ----------
    model : quivira.BarJointModel
        The model edited (a trait; loading a file replaces its content, not the object).
    center : tuple of float
        Where a new bar goes (a trait; the Studio links it to the view's centre).
    toolbar : Toolbar
        Undo, redo, new model, examples; ``toolbar.history`` holds the undo stack.
    bars, bodies, joints, body_joints, supports, springs, sliders : Section
        The sections of the bodies and of what joins them.
    elements : ElementsSection
        *Any element*: a generic form for every kind of ``quivira.elements.KINDS``.
    loads, actuators, model_section, files : Section
        The other sections (``actuators`` is shown in *Loads*, below the constant loads).
    messages : dict of str to Message
        The message line of each section: ``"bars"``, ``"bodies"``, ``"joints"``,
        ``"body_joints"``, ``"supports"``,
        ``"springs"``, ``"sliders"``, ``"forces"``, ``"actuators"``, ``"elements"``, ``"model"``,
        ``"files"``,
        ``"toolbar"``.
    summary : ipywidgets.HTML
        The counts line, e.g. "3 bars · 2 joints · …".
    sections : ipywidgets.Accordion
        The sections, titled Bars, Bodies, Joints, Body joints & motors, Supports, Springs &
        dampers, Sliders, stops & contact, Loads, Any element, Model & files.

    Notes
    -----
    The controls are also attributes of the editor, named by section as in earlier versions:
    ``bar_select``, ``bar_mode``, ``bar_x``, ``bar_y``, ``bar_theta`` (degrees),
    ``bar_length``, ``bar_x1`` … ``bar_y2``, ``bar_mass``, ``add_bar_button``,
    ``delete_bar_button``; ``joint_select``, ``joint_bars``, ``joint_s``,
    ``add_joint_button``, ``delete_joint_button``, ``infer_joints_button``;
    ``support_select``, ``support_bar``, ``support_s``, ``support_free_x``,
    ``support_free_y``, ``support_at_point``, ``support_x``, ``support_y``,
    ``add_support_button``, ``delete_support_button``; ``force_select``, ``force_bar``,
    ``force_s``, ``force_fx``, ``force_fy``, ``force_torque``, ``add_force_button``,
    ``delete_force_button``; ``spring_select``, ``spring_kind``, ``spring_bar_a``,
    ``spring_s_a``, ``spring_end_b``, ``spring_s_b``, ``spring_ground_x``, ``spring_ground_y``,
    ``spring_k``, ``spring_l0``, ``spring_c``, ``torsion_a``, ``torsion_b``, ``torsion_k``,
    ``torsion_phi0`` (degrees), ``torsion_c``, ``torsion_preload``, ``add_spring_button``,
    ``delete_spring_button``; ``actuator_select``, ``actuator_kind``, ``actuator_law``,
    ``actuator_bar``, ``actuator_s``, ``actuator_frame``, ``actuator_reaction``,
    ``actuator_offset``, ``actuator_amplitude``, ``actuator_omega``, ``actuator_phase``
    (degrees), ``actuator_direction`` (degrees), ``add_actuator_button``,
    ``delete_actuator_button``; ``slider_select``, ``slider_kind``, ``slider_bar_a``,
    ``slider_bar_b``, ``add_slider_button``, ``delete_slider_button`` (the other fields of
    *Sliders, stops & contact* are attributes of ``sliders``); ``g``, ``assemble_button``;
    ``path`` (the file name),
    ``folder``, ``save_button``, ``load_button``, ``upload``; ``undo_button``,
    ``redo_button``, ``new_button``. The fields of *Bodies* and *Body joints & motors* are
    attributes of ``bodies`` and ``body_joints`` (e.g. ``bodies.kind``, ``bodies.x``,
    ``body_joints.body_a``, ``body_joints.add_button``). Number fields are
    :class:`~quivira_widgets._fields.NumberField`: set ``.value`` to a number, or type into
    ``.text.value``.
    """

    model = traitlets.Instance(BarJointModel)
    center = traitlets.Tuple(traitlets.Float(), traitlets.Float(), default_value=(0.0, 0.0))

    def __init__(self, model: BarJointModel, *, workdir: WorkFolder | None = None) -> None:
        super().__init__()
        self.model = model
        self.workdir = workdir or WorkFolder()
        self.toolbar = Toolbar(model)
        self.bars = BarsSection(model)
        self.bodies = BodiesSection(model)
        self.joints = JointsSection(model)
        self.body_joints = BodyJointsSection(model)
        self.supports = SupportsSection(model)
        self.springs = SpringsSection(model)
        self.sliders = SlidersSection(model)
        self.loads = LoadsSection(model)
        self.actuators = ActuatorsSection(model)
        self.elements = ElementsSection(model)
        self.model_section = ModelSection(model)
        self.files = FilesSection(model, self.workdir)
        self._sections = (self.toolbar, self.bars, self.bodies, self.joints, self.body_joints,
                          self.supports, self.springs, self.sliders, self.loads, self.actuators,
                          self.elements, self.model_section, self.files)
        self._links = [traitlets.dlink((self, "model"), (s, "model")) for s in self._sections]
        self._links.append(traitlets.dlink((self, "center"), (self.bars, "center")))
        self._links.append(traitlets.dlink((self, "center"), (self.bodies, "center")))
        self.messages = {"bars": self.bars.message, "bodies": self.bodies.message,
                         "joints": self.joints.message,
                         "body_joints": self.body_joints.message,
                         "supports": self.supports.message, "springs": self.springs.message,
                         "sliders": self.sliders.message,
                         "forces": self.loads.message, "actuators": self.actuators.message,
                         "elements": self.elements.message,
                         "model": self.model_section.message, "files": self.files.message,
                         "toolbar": self.toolbar.message}
        self.summary = widgets.HTML()
        self.summary.add_class("quivira-summary")
        files_box = widgets.VBox([self.model_section, title("Files"), self.files])
        loads_box = widgets.VBox([title("Constant loads"), self.loads,
                                  title("Actuators — forces and torques with a law of time"),
                                  self.actuators])
        self.sections = widgets.Accordion(
            children=[self.bars, self.bodies, self.joints, self.body_joints, self.supports,
                      self.springs, self.sliders, loads_box, self.elements, files_box],
            titles=_TITLES, selected_index=0)
        self.children = [style_widget(), self.summary, self.toolbar, self.sections]
        self.add_class("quivira-editor")
        self.add_class("quivira-root")
        self._aliases()
        self.model.observe(self._on_model_change)
        self.refresh()

    def _aliases(self) -> None:
        b, j, s, f = self.bars, self.joints, self.supports, self.loads
        self.bar_select, self.bar_mode, self.bar_mass = b.select, b.mode, b.mass
        self.bar_x, self.bar_y, self.bar_theta, self.bar_length = b.x, b.y, b.theta, b.length
        self.bar_x1, self.bar_y1, self.bar_x2, self.bar_y2 = b.x1, b.y1, b.x2, b.y2
        self.add_bar_button, self.delete_bar_button = b.add_button, b.delete_button
        self.joint_select, self.joint_bars, self.joint_s = j.select, j.bars, j.s
        self.add_joint_button, self.delete_joint_button = j.add_button, j.delete_button
        self.infer_joints_button = j.infer_button
        self.support_select, self.support_bar, self.support_s = s.select, s.bar, s.s
        self.support_free_x, self.support_free_y = s.free_x, s.free_y
        self.support_at_point, self.support_x, self.support_y = s.at_point, s.x, s.y
        self.support_kind = s.kind
        self.add_support_button, self.delete_support_button = s.add_button, s.delete_button
        self.force_select, self.force_bar, self.force_s = f.select, f.bar, f.s
        self.force_fx, self.force_fy, self.force_torque = f.fx, f.fy, f.torque
        self.add_force_button, self.delete_force_button = f.add_button, f.delete_button
        sp, a = self.springs, self.actuators
        self.spring_select, self.spring_kind = sp.select, sp.kind
        self.spring_bar_a, self.spring_s_a, self.spring_end_b = sp.bar_a, sp.s_a, sp.end_b
        self.spring_s_b, self.spring_ground_x, self.spring_ground_y = (sp.s_b, sp.ground_x,
                                                                       sp.ground_y)
        self.spring_k, self.spring_l0, self.spring_c = sp.k, sp.l0, sp.c
        self.torsion_a, self.torsion_b = sp.torsion_a, sp.torsion_b
        self.torsion_k, self.torsion_phi0 = sp.k_theta, sp.phi0
        self.torsion_c, self.torsion_preload = sp.c_theta, sp.preload
        self.add_spring_button, self.delete_spring_button = sp.add_button, sp.delete_button
        self.actuator_select, self.actuator_kind, self.actuator_law = (a.select, a.kind,
                                                                       a.law_kind)
        self.actuator_bar, self.actuator_s, self.actuator_frame = a.bar, a.s, a.frame
        self.actuator_reaction = a.reaction
        self.actuator_offset, self.actuator_amplitude = a.offset, a.amplitude
        self.actuator_omega, self.actuator_phase = a.omega, a.phase
        self.actuator_direction = a.direction
        self.add_actuator_button, self.delete_actuator_button = (a.add_button,
                                                                 a.delete_button)
        sl = self.sliders
        self.slider_select, self.slider_kind = sl.select, sl.kind
        self.slider_bar_a, self.slider_bar_b = sl.bar_a, sl.bar_b
        self.add_slider_button, self.delete_slider_button = sl.add_button, sl.delete_button
        self.g, self.assemble_button = self.model_section.g, self.model_section.assemble_button
        self.details = self.model_section.details
        self.path, self.folder = self.files.name, self.files.folder
        self.save_button, self.load_button = self.files.save_button, self.files.load_button
        self.upload, self.download = self.files.upload, self.files.download
        t = self.toolbar
        self.undo_button, self.redo_button, self.new_button = (t.undo_button, t.redo_button,
                                                               t.new_button)

    # ------------------------------------------------------------------ actions
    def add_bar(self) -> int | None:
        """Add a bar from the fields; its index or None (see :class:`BarsSection`)."""
        return self.bars.add()

    def add_body(self) -> int | None:
        """Add a particle or rigid body from the fields of *Bodies*; its index or None."""
        return self.bodies.add()

    def add_joint(self) -> int | None:
        """Add a joint from the fields; its index or None."""
        return self.joints.add()

    def add_body_joint(self) -> str | None:
        """Add a weld, distance link, body pin, rolling contact or joint motor.

        Returns
        -------
        str or None
            The new element's name (from the fields of *Body joints & motors*), or None.
        """
        return self.body_joints.add()

    def add_support(self) -> int | None:
        """Add a support from the fields; its index or None."""
        return self.supports.add()

    def add_force(self) -> int | None:
        """Add a load from the fields; its index or None."""
        return self.loads.add()

    def add_spring(self) -> str | None:
        """Add a spring-damper or torsional spring from the fields; its name or None."""
        return self.springs.add()

    def add_slider(self) -> str | None:
        """Add a slot, prismatic joint, ground slider, latch, stop or contact.

        Returns
        -------
        str or None
            The new element's name (from the fields of *Sliders, stops & contact*), or None.
        """
        return self.sliders.add()

    def add_actuator(self) -> str | None:
        """Add a force or torque actuator from the fields; its name or None."""
        return self.actuators.add()

    def assemble(self):
        """Assemble the initial pose (``model.assemble()``); the report or None."""
        return self.model_section.assemble()

    def undo(self) -> None:
        """Undo the last edit."""
        self.toolbar.undo()

    def redo(self) -> None:
        """Redo the last undone edit."""
        self.toolbar.redo()

    # ------------------------------------------------------------------ refresh
    def _on_model_change(self, what: str) -> None:
        try:
            self.refresh()
        except Exception as exc:  # noqa: BLE001 - an observer must never break the edit
            report(exc, self.messages["model"].error, "ModelEditor.refresh")

    def refresh(self) -> None:
        """Show the model again in every section."""
        self.summary.value = f'<b class="quivira-counts">{counts_line(self.model)}</b>'
        for s in self._sections:
            s.refresh()

    def set_model(self, model: BarJointModel) -> None:
        """Edit another model object from now on."""
        if model is self.model:
            return
        self.model.unobserve(self._on_model_change)
        self.model = model
        model.observe(self._on_model_change)
        for s in (self.bars, self.bodies, self.joints, self.body_joints, self.supports,
                  self.springs, self.sliders, self.loads, self.actuators):
            with s.syncing():
                s.select.options = [(f"+ new {s.noun}", -1)]
                s.select.value = -1
        self.refresh()

    def close(self) -> None:
        """Stop observing the model and close the widgets."""
        if getattr(self, "_closed", False):
            return
        self._closed = True
        self.model.unobserve(self._on_model_change)
        for link in self._links:
            link.unlink()
        self._links = []
        for s in self._sections:
            s.close()
        close_tree(self)
        super().close()

r"""Linearization about an operating point and vibration modes of a bar model.

Coordinate partitioning: at the operating point :math:`q_0`, Gaussian elimination with
complete pivoting on :math:`J(q_0)` picks :math:`r = \operatorname{rank} J` dependent
coordinates :math:`q_d` (the pivot columns); the others are the independent coordinates
:math:`z = q_i`. Perturbations on the constraint manifold are :math:`δq = T δz + O(δz^2)` with

.. math:: T:\; δq_i = δz, \qquad δq_d = -J_d^{-1} J_i\, δz .

With the exact derivatives of the accelerations of the equations of motion,
:math:`A_q = \partial\ddot q/\partial q`,
:math:`A_{\dot q} = \partial\ddot q/\partial\dot q`,
:math:`B_u = \partial\ddot q/\partial u` (``hy.diff_tensors``; :math:`u` are the applied
input parameters of the loads, e.g. ``fx, fy, torque`` of every point load, in order), and
:math:`S` selecting the
independent rows,

.. math:: \frac{d}{dt}\begin{bmatrix} δz \\ δ\dot z \end{bmatrix}
   = \underbrace{\begin{bmatrix} 0 & I \\ S A_q T & S A_{\dot q} T \end{bmatrix}}_{A}
     \begin{bmatrix} δz \\ δ\dot z \end{bmatrix}
   + \underbrace{\begin{bmatrix} 0 \\ S B_u \end{bmatrix}}_{B} δu .

At an equilibrium (at rest, :math:`\ddot q = 0`) the reduced system is
:math:`M_z \ddot z + K_z z = 0` with :math:`M_z = T^T M T` and :math:`K_z = -M_z S A_q T`;
the modes solve :math:`K_z v = ω^2 M_z v` and are mapped back to all coordinates as
:math:`T v`.

Treatment of other operating points: a state that violates the constraints is an error; a
state that is not an equilibrium is an error unless ``allow_nonequilibrium=True``, which
gives the tangent linear model of the motion through that state (``modes`` always requires
an equilibrium). With :math:`\dot z_0 \ne 0` the position block gains
:math:`S A_{\dot q}\,\partial(T\dot z_0)/\partial z` (the tangent basis turns along the
manifold), evaluated by central differences (relative accuracy about 1e-8). Velocity
constraints and driven constraints are not supported (a clear error).
"""

from __future__ import annotations

from dataclasses import dataclass

import heyoka as hy
import numpy as np

from .compiled import CompiledSystem, evaluate_dynamics, evaluate_geometry, evaluate_outputs
from .validation import real_array


def partition(J: np.ndarray, rel_tol: float = 1e-10) -> tuple[list[int], list[int]]:
    """Dependent (pivot) and independent columns of ``J`` by complete pivoting."""
    A = np.array(J, dtype=float)
    m, n = A.shape
    rows, cols = list(range(m)), list(range(n))
    dep: list[int] = []
    scale = np.max(np.abs(A)) if A.size else 0.0
    for _ in range(min(m, n)):
        sub = np.abs(A[np.ix_(rows, cols)]) if rows and cols else np.zeros((0, 0))
        if sub.size == 0 or sub.max() <= rel_tol * max(scale, 1e-300):
            break
        r, c = np.unravel_index(np.argmax(sub), sub.shape)
        pr, pc = rows[r], cols[c]
        A[rows, :] -= np.outer(A[rows, pc] / A[pr, pc], A[pr, :]) * (np.array(rows) != pr)[:, None]
        dep.append(pc)
        rows.remove(pr)
        cols.remove(pc)
    return sorted(dep), sorted(cols)


def tangent_basis(J: np.ndarray, dep: list[int], ind: list[int]) -> np.ndarray:
    """:math:`T` (n × len(ind)) with identity on ``ind`` and :math:`-J_d^{+} J_i` on ``dep``."""
    n = J.shape[1]
    T = np.zeros((n, len(ind)))
    T[ind, np.arange(len(ind))] = 1.0
    if dep:
        T[dep, :] = -np.linalg.lstsq(J[:, dep], J[:, ind], rcond=None)[0]
    return T


@dataclass(frozen=True)
class Linearization:
    """The linear model of :meth:`bar_joint_model.linearize`; unpacks as ``A, B``.

    Attributes
    ----------
    A, B : numpy.ndarray
        State and input matrices in ``x = (z, ż)``.
    coordinates : list of str
        Names of the independent coordinates ``z`` (chosen by coordinate partitioning).
    independent, dependent : list of int
        Their indices in ``q``, and those of the dependent coordinates.
    T : numpy.ndarray
        Tangent basis, ``δq = T δz``.
    inputs : list of str
        What the columns of ``B`` are, e.g. ``"force0.fx"`` (``<load>.<field>``).
    q_op, qd_op : numpy.ndarray
        The operating point.
    """

    A: np.ndarray
    B: np.ndarray
    coordinates: list
    independent: list
    dependent: list
    T: np.ndarray
    inputs: list
    q_op: np.ndarray
    qd_op: np.ndarray

    def __iter__(self):
        """Iterate over ``(A, B)``, so that ``A, B = model.linearize()`` unpacks."""
        return iter((self.A, self.B))

    def __len__(self) -> int:
        """Return 2, the length of ``(A, B)``."""
        return 2

    def __getitem__(self, i):
        """Return ``(A, B)[i]``."""
        return (self.A, self.B)[i]


@dataclass(frozen=True)
class Modes:
    r"""Vibration modes about an equilibrium.

    Attributes
    ----------
    omega_squared : numpy.ndarray (d,)
        Eigenvalues :math:`ω^2` of :math:`K_z v = ω^2 M_z v`, ascending (negative: unstable).
    omega : numpy.ndarray (d,)
        Natural angular frequencies :math:`\sqrt{ω^2}` (0 where :math:`ω^2 \le 0`; see
        ``stable``).
    stable : numpy.ndarray of bool (d,)
        :math:`ω^2 > 0`.
    shapes : numpy.ndarray (n, d)
        Mode shapes on all bar coordinates (:math:`T v`, scaled to a largest entry of 1).
    linearization : Linearization
        The linear model they come from.
    """

    omega_squared: np.ndarray
    omega: np.ndarray
    stable: np.ndarray
    shapes: np.ndarray
    linearization: Linearization

    @property
    def frequencies_hz(self) -> np.ndarray:
        """:math:`ω / 2π`."""
        return self.omega / (2 * np.pi)

    def __len__(self) -> int:
        """Return the number of modes."""
        return self.omega.shape[0]


def _jacobian_function(cs: CompiledSystem, input_pars: list):
    r"""Compiled :math:`\partial\ddot q/\partial(q, \dot q, u)` (cached on ``cs``)."""
    key = ("linearization", tuple(str(p) for p in input_pars))
    cache = cs.extra
    if key not in cache:
        parts = cs.parts
        # derived parameters expanded: q̈ then depends on the inputs only through the base
        # parameters that are differentiated here
        qdd = cs.expand_parameters(parts.qdd)
        args = [*parts.q, *parts.qd, *input_pars]
        dt = hy.diff_tensors(qdd, diff_args=args, diff_order=1)
        jac = np.asarray(dt.jacobian, dtype=object)
        cf = hy.cfunc(list(jac.ravel()), vars=[*parts.q, *parts.qd], **cs.cfunc_options)
        cache[key] = (cf, jac.shape)
    return cache[key]


@dataclass(frozen=True)
class Linearizer:
    """Linearization and modes of a compiled system at given parameter values.

    Everything it needs is given explicitly (see :meth:`quivira.bar_joint_model.linearize`
    for how the model fills it in).

    Attributes
    ----------
    system : CompiledSystem
        The compiled equations.
    pars : numpy.ndarray
        Their runtime parameters, with the Baumgarte rate 0 (the exact equations).
    active : numpy.ndarray of bool
        The constraint rows that are switched on.
    mass_diag : numpy.ndarray
        The diagonal of M.
    tolerance : float
        Largest residual accepted at the operating point.
    q_default : numpy.ndarray
        The operating point's coordinates when none is given (the initial pose).
    inputs : list of (int, str)
        Parameter index and name of every input ``u`` (columns of ``B``).
    coordinate_names : list of str
        Names of the coordinates.
    parameter_scale : float
        Size of the model's data (``max(1, max |parameter|)``), the scale of the equilibrium
        test.
    """

    system: CompiledSystem
    pars: np.ndarray
    active: np.ndarray
    mass_diag: np.ndarray
    tolerance: float
    q_default: np.ndarray
    inputs: list
    coordinate_names: list
    parameter_scale: float

    def geometry(self, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(F, J)`` of the holonomic rows at ``q``.

        Parameters
        ----------
        q : numpy.ndarray
            Coordinates.
        """
        k = self.system.n_holonomic
        F, J = evaluate_geometry(self.system, q, self.pars)
        return F[:k], J[:k]

    def linearize(self, q_op=None, qd_op=None, *, allow_nonequilibrium: bool = False,
                  equilibrium_tol: float = 1e-8) -> Linearization:
        r"""Return the linear model about ``(q_op, qd_op)`` (see the module docstring).

        Parameters
        ----------
        q_op, qd_op : array_like, optional
            Operating point (default: :attr:`q_default`, at rest).
        allow_nonequilibrium : bool
            Accept an operating point that is not an equilibrium.
        equilibrium_tol : float
            Largest :math:`|\ddot q|` (relative to :attr:`parameter_scale`) of an
            equilibrium.
        """
        cs, pars = self.system, self.pars
        labels = cs.labels
        if cs.n_holonomic < cs.m:
            raise ValueError("linearize: velocity (non-holonomic) constraints are not "
                             "supported; remove the velocity-level rows first: "
                             + ", ".join(labels[cs.n_holonomic:]))
        n = cs.n
        q0 = self.q_default if q_op is None else real_array(q_op, "q_op").reshape(-1)
        qd0 = np.zeros(n) if qd_op is None else real_array(qd_op, "qd_op").reshape(-1)
        if q0.shape != (n,) or qd0.shape != (n,):
            raise ValueError(f"q_op and qd_op must have {n} entries each, got {q0.shape} and "
                             f"{qd0.shape}")
        if cs.outputs.is_time_dependent if cs.m else False:
            raise ValueError("linearize: driven (time-dependent) constraints are not supported")
        F, J = evaluate_geometry(cs, q0, pars)
        if F.size and np.max(np.abs(F)) > self.tolerance:
            k = int(np.argmax(np.abs(F)))
            raise ValueError(f"linearize: the operating point violates {labels[k]} by "
                             f"{F[k]:.3g}; pass a consistent q_op (see model.assemble())")
        x0 = np.concatenate([q0, qd0])
        v = evaluate_outputs(cs, x0[None, :], pars)["velocity_residual"][0]
        if v.size and np.max(np.abs(v)) > self.tolerance:
            k = int(np.argmax(np.abs(v)))
            raise ValueError(f"linearize: qd_op violates {labels[k]} (J qd = {v[k]:.3g})")
        Ja = J[self.active]
        dep, ind = partition(Ja)
        if len(dep) < Ja.shape[0]:
            raise ValueError("linearize: the constraints are redundant at the operating point "
                             f"(rank {len(dep)} < {Ja.shape[0]} rows)")
        if not ind:
            raise ValueError("linearize: the model has no degree of freedom at this pose")
        T = tangent_basis(Ja, dep, ind)
        qdd0 = evaluate_dynamics(cs, x0[None, :], pars)["qdd"][0]
        if np.max(np.abs(qdd0)) > equilibrium_tol * self.parameter_scale \
                and not allow_nonequilibrium:
            k = int(np.argmax(np.abs(qdd0)))
            raise ValueError(
                f"linearize: the operating point is not an equilibrium (qdd[{k}] = "
                f"{qdd0[k]:.3g}); pass allow_nonequilibrium=True for the tangent linear model "
                "of the motion through this state")
        cf, shape = _jacobian_function(cs, [hy.par[i] for i, _ in self.inputs])
        jac = cf(x0, pars=pars[: cf.nparams]).reshape(shape)
        Aq, Aqd, Bu = jac[:, :n], jac[:, n:2 * n], jac[:, 2 * n:]
        d = len(ind)
        A = np.zeros((2 * d, 2 * d))
        A[:d, d:] = np.eye(d)
        A[d:, :d] = Aq[ind] @ T
        if np.any(qd0 != 0.0):
            # qd = T(q) ż: moving along δz also turns the velocity, δqd ∋ (∂(T ż0)/∂z) δz
            A[d:, :d] += Aqd[ind] @ self._dT_zdot(q0, qd0[ind], ind, dep)
        A[d:, d:] = Aqd[ind] @ T
        B = np.zeros((2 * d, len(self.inputs)))
        B[d:, :] = Bu[ind]
        names = list(self.coordinate_names)
        return Linearization(
            A, B, coordinates=[names[i] for i in ind], independent=ind, dependent=dep, T=T,
            inputs=[name for _, name in self.inputs], q_op=q0, qd_op=qd0)

    def _dT_zdot(self, q0, zd0, ind, dep, rel_h: float = 1e-5) -> np.ndarray:
        r"""Differentiate :math:`T(q(z))\,\dot z_0` with respect to :math:`z` numerically.

        By central differences; each perturbed pose is put back on the constraints by Newton
        steps on the dependent coordinates.

        Each perturbed pose is put back on the constraints by Newton steps on the dependent
        coordinates.
        """
        active = self.active[: self.system.n_holonomic]

        def T_zd(z_shift: np.ndarray) -> np.ndarray:
            q = q0.copy()
            q[ind] += z_shift
            for _ in range(30):
                F, J = self.geometry(q)
                F, J = F[active], J[active]
                if F.size == 0 or np.max(np.abs(F)) < 1e-14:
                    break
                q[dep] -= np.linalg.lstsq(J[:, dep], F, rcond=None)[0]
            _, J = self.geometry(q)
            return tangent_basis(J[active], dep, ind) @ zd0

        d = len(ind)
        out = np.zeros((q0.shape[0], d))
        for k in range(d):
            h = rel_h * max(1.0, abs(q0[ind[k]]))
            e = np.zeros(d)
            e[k] = h
            out[:, k] = (T_zd(e) - T_zd(-e)) / (2 * h)
        return out

    def modes(self, q_op=None) -> Modes:
        """Vibration modes about an equilibrium (see the module docstring).

        Parameters
        ----------
        q_op : array_like, optional
            The equilibrium pose (default: :attr:`q_default`).
        """
        lin = self.linearize(q_op, None)
        d = len(lin.independent)
        T = lin.T
        Mz = T.T @ (self.mass_diag[:, None] * T)
        Kz = -Mz @ lin.A[d:, :d]
        Kz = 0.5 * (Kz + Kz.T)
        Lc = np.linalg.cholesky(Mz)
        Li = np.linalg.inv(Lc)
        w2, Y = np.linalg.eigh(Li @ Kz @ Li.T)
        V = Li.T @ Y
        shapes = T @ V
        shapes /= np.max(np.abs(shapes), axis=0, keepdims=True)
        stable = w2 > 0
        return Modes(w2, np.sqrt(np.where(stable, w2, 0.0)), stable, shapes, lin)

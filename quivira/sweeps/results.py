"""The results of a sweep: numpy arrays per variant, as an xarray ``Dataset`` or a pandas table.

Dimensions: ``variant`` × ``time`` × ``coordinate`` (the coordinates ``x0, y0, th0, ...``;
velocities ``vx0, vy0, om0, ...`` under the ``velocity`` dimension) and ``constraint`` (one
label per constraint row). Variants of different topologies in one sweep are padded with NaN
to the largest model; constraint labels are the union of all groups' labels.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: statuses of a variant
STATUSES = ("ok", "singular", "diverged", "budget", "error", "cancelled")


@dataclass
class SweepResult:
    r"""Per-variant outputs of :func:`quivira.sweep`.

    Attributes
    ----------
    keys : list of str
        The swept keys.
    values : dict
        Per key its value in every variant (``"model"``: the index of the model in
        ``attrs["models"]``).
    t : ndarray (n_points,)
        Output times (s).
    q, qd : ndarray (n_variants, n_points, n) or None
        Coordinates and velocities at the output times (``"trajectory"`` output); NaN after
        a variant stopped.
    final_state : ndarray (n_variants, 2n)
        ``[q, qd]`` at ``t_end`` (NaN for a variant that stopped earlier).
    max_abs_lambda : ndarray (n_variants, n_constraints)
        :math:`\max_t |\lambda_k|` over the output times, per constraint row (N, or N m).
    energy_error : ndarray (n_variants,)
        ``Trajectory.relative_energy_error()`` of each variant.
    status : ndarray of str (n_variants,)
        ``"ok"``; ``"singular"`` (a singular pose was met at ``t_status``: passed, or stopped
        with ``singular="stop"``); ``"diverged"`` (non-finite state at ``t_status``);
        ``"budget"`` (``max_steps`` / ``max_wall_s`` used up); ``"error"``; ``"cancelled"``
        (not run: the sweep was interrupted).
    t_status : ndarray (n_variants,)
        Time of the singular pose, divergence or stop (NaN for ``"ok"``).
    message : ndarray of str
        What happened, for statuses other than ``"ok"``.
    events : list of list of dict
        Per variant the events of the motion (``t``, ``name``, ``what``).
    scalar : list
        Per variant why it ran in the scalar simulator, or None (batch mode).
    attrs : dict
        Settings and figures of the run (``n_variants``, ``batch_size``, ``workers``,
        ``executor``, ``wall_s``, ``variants_per_s``, ``fallback`` notes, ...).
    """

    keys: list
    values: dict
    t: np.ndarray
    coordinate_names: list
    velocity_names: list
    constraint_labels: list
    q: np.ndarray | None
    qd: np.ndarray | None
    final_state: np.ndarray
    max_abs_lambda: np.ndarray
    energy_error: np.ndarray
    status: np.ndarray
    t_status: np.ndarray
    message: np.ndarray
    events: list
    scalar: list
    attrs: dict = field(default_factory=dict)

    def __len__(self) -> int:
        """Return the number of variants."""
        return len(self.status)

    @property
    def n_variants(self) -> int:
        """Number of variants."""
        return len(self.status)

    @property
    def ok(self) -> np.ndarray:
        """Mask of the variants whose status is ``"ok"``."""
        return self.status == "ok"

    def variant(self, i: int) -> dict:
        """Return the swept values of variant ``i``."""
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"variant index must be an integer, got {i!r}")
        if not 0 <= i < self.n_variants:
            raise ValueError(f"variant index {i} out of range (0 to {self.n_variants - 1})")
        return {k: self.values[k][i] for k in self.keys}

    def to_pandas(self):
        """Return the scalar outputs as a ``pandas.DataFrame`` indexed by variant.

        The swept values, ``status``, ``t_status``, ``message``, ``energy_error``, ``n_events``,
        the final state (``final x0``, ..., ``final vx0``, ...) and ``max|λ| <label>`` per
        constraint row.
        """
        import pandas as pd

        cols: dict = {k: self.values[k] for k in self.keys}
        cols.update(status=self.status, t_status=self.t_status, message=self.message,
                    energy_error=self.energy_error,
                    n_events=np.array([len(e) for e in self.events]),
                    scalar=np.array([s or "" for s in self.scalar], dtype=object))
        names = self.coordinate_names + self.velocity_names
        for j, nm in enumerate(names):
            cols[f"final {nm}"] = self.final_state[:, j]
        for j, label in enumerate(self.constraint_labels):
            cols[f"max|λ| {label}"] = self.max_abs_lambda[:, j]
        df = pd.DataFrame(cols, index=pd.RangeIndex(self.n_variants, name="variant"))
        df.attrs.update({k: v for k, v in self.attrs.items() if _plain(v)})
        return df

    def to_xarray(self):
        """Return the results as an ``xarray.Dataset`` (xarray is an optional dependency).

        Data variables: ``q`` (variant, time, coordinate), ``qd`` (variant, time, velocity),
        ``final_q`` (variant, coordinate), ``final_qd`` (variant, velocity),
        ``max_abs_lambda`` (variant, constraint), ``energy_error``, ``status``, ``t_status``,
        ``message``, ``n_events`` (variant). Coordinates: ``variant``, ``time``,
        ``coordinate``, ``velocity``, ``constraint`` and every swept key along ``variant``.
        """
        try:
            import xarray as xr
        except ImportError:  # pragma: no cover - depends on the environment
            raise ImportError("to_xarray needs xarray: pip install xarray (or "
                              "quivira[sweeps])") from None
        n = len(self.coordinate_names)
        data = {
            "final_q": (("variant", "coordinate"), self.final_state[:, :n]),
            "final_qd": (("variant", "velocity"), self.final_state[:, n:]),
            "max_abs_lambda": (("variant", "constraint"), self.max_abs_lambda),
            "energy_error": ("variant", self.energy_error),
            "status": ("variant", self.status.astype(str)),
            "t_status": ("variant", self.t_status),
            "message": ("variant", self.message.astype(str)),
            "n_events": ("variant", np.array([len(e) for e in self.events])),
        }
        if self.q is not None:
            data["q"] = (("variant", "time", "coordinate"), self.q)
            data["qd"] = (("variant", "time", "velocity"), self.qd)
        coords = {"variant": np.arange(self.n_variants), "time": self.t,
                  "coordinate": self.coordinate_names, "velocity": self.velocity_names,
                  "constraint": self.constraint_labels}
        for k in self.keys:
            coords[k] = ("variant", np.asarray(self.values[k]))
        ds = xr.Dataset(data, coords=coords)
        ds.attrs.update({k: v for k, v in self.attrs.items() if _plain(v)})
        ds["time"].attrs["units"] = "s"
        ds["energy_error"].attrs["long_name"] = "relative energy error"
        ds["max_abs_lambda"].attrs["long_name"] = "max over time of |lambda| per row"
        return ds

    @property
    def dataset(self):
        """Same as :meth:`to_xarray`."""
        return self.to_xarray()

    def summary(self) -> str:
        """One line: variants, statuses, wall time and rate."""
        counts = {s: int(np.sum(self.status == s)) for s in STATUSES
                  if np.any(self.status == s)}
        a = self.attrs
        return (f"{self.n_variants} variants: "
                + ", ".join(f"{v} {k}" for k, v in counts.items())
                + f"; {a.get('wall_s', float('nan')):.3g} s, "
                f"{a.get('variants_per_s', float('nan')):.4g} variants/s")

    def __repr__(self) -> str:
        """Return ``<SweepResult ...>`` with the summary."""
        return f"<SweepResult {self.summary()}>"


def _plain(v) -> bool:
    return isinstance(v, (str, int, float, bool, np.integer, np.floating))

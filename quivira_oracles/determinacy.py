"""The constraint Jacobian a quivira model analyses, for numpy's SVD to be compared with it.

``model.determinacy()`` works on J evaluated by the model's compiled geometry at its initial
state, the rows switched on only; :func:`model_jacobian` returns that J, so that a dense SVD
(rank, null spaces) can be set beside the model's analysis by the determinacy benchmark.
"""

from __future__ import annotations

import numpy as np


def model_jacobian(model) -> np.ndarray:
    """The model's J at its initial state, by its compiled code, active rows only."""
    from quivira.model.compiled import evaluate_geometry

    sim, data = model.engine.simulator, model.engine.data
    cs = sim.compiled(data)
    x = np.asarray(model.get_initial_state())
    n = data.n_coordinates()
    _, J = evaluate_geometry(cs, x[:n], sim.parameters(data, cs, stabilized=False), 0.0,
                             qd=x[n:])
    return J[np.nonzero(sim.active_rows(data, cs))[0]]

"""Every TypeError / ValueError / ZeroDivisionError of the function API, with its message
checked: TypeError for an argument or entry of the wrong type, ValueError for a wrong value
(shape, length, an expression that is not a variable), ZeroDivisionError for a structurally
zero pivot."""

import heyoka as hy
import numpy as np
import pytest

import quivira as qv

x, y, vx, vy = hy.make_vars("x", "y", "vx", "vy")


def _unchanged(arr):
    return [[e for e in row] for row in arr]


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: qv.create_block_diagonal([[[1.0, 2.0]]]), ValueError, r"blocks\[0\].*square"),
        (lambda: qv.create_block_diagonal([[1.0, 2.0]]), ValueError, r"blocks\[0\].*2-D"),
        (lambda: qv.gaussian_elimination([[1.0, 2.0]], [1.0]), ValueError, r"S.*square"),
        (lambda: qv.gaussian_elimination([1.0, 2.0], [1.0]), ValueError, r"S.*2-D"),
        (lambda: qv.gaussian_elimination(np.eye(2), [1.0]), ValueError, r"b.*2 entries.*got 1"),
        (lambda: qv.gaussian_elimination(np.eye(2), [1.0, 2.0, 3.0]), ValueError, r"b.*got 3"),
        (lambda: qv.gaussian_elimination([[0.0, 1.0], [1.0, 0.0]], [1.0, 1.0]), ZeroDivisionError,
         r"structurally zero pivot at position 0"),
        (lambda: qv.gaussian_elimination([[1.0, 1.0], [1.0, 1.0]], [1.0, 1.0]),
         ZeroDivisionError, r"zero pivot at position 1"),
        (lambda: qv.invert_matrix([[1.0, 2.0, 3.0]]), ValueError, r"matrix.*square"),
        (lambda: qv.invert_matrix([[0.0, 1.0], [1.0, 0.0]]), ZeroDivisionError, r"zero pivot"),
        (lambda: qv.gaussian_elimination([["a", 1.0], [0.0, 1.0]], [1.0, 1.0]), TypeError,
         r"S: entries must be real numbers or heyoka expressions, got str"),
        (lambda: qv.gaussian_elimination(np.eye(2), [1.0, object()]), TypeError, r"b: entries"),
        (lambda: qv.gaussian_solve_factored("not a factorization", [1.0]), TypeError,
         r"factorization: expected the result of gaussian_factorize"),
        (lambda: qv.gaussian_solve_factored(qv.gaussian_factorize(np.eye(3)), [1.0]), ValueError,
         r"b: expected 3 entries"),
    ],
)
def test_linalg_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_wrong_entry_type_is_a_plain_type_error():
    with pytest.raises(TypeError, match="got str") as info:
        qv.gaussian_elimination([["a"]], [1.0])
    assert not isinstance(info.value, ValueError)


def test_inputs_not_modified():
    S = np.array([[x, 1.0, 0.0], [2.0, y, 1.0], [0.0, 3.0, x + y]], dtype=object)
    b = np.array([1.0, x, 0.0], dtype=object)
    S0, b0 = _unchanged(S), list(b)
    qv.gaussian_elimination(S, b)
    qv.invert_matrix(S)
    qv.gaussian_solve_factored(qv.gaussian_factorize(S), b)
    assert all(e == f for r, r0 in zip(S, S0, strict=True) for e, f in zip(r, r0, strict=True))
    assert all(e == f for e, f in zip(b, b0, strict=True))


L_pend = 0.5 * (vx * vx + vy * vy) - 9.81 * y
F_pend = [x * x + y * y - 1.0]


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: qv.lagrange_eom(L_pend, F_pend, [x, y], [vx]), ValueError,
         r"qd: expected 2 velocities to match q, got 1"),
        (lambda: qv.lagrange_eom(L_pend, F_pend, [x, y], [vx, vy], Q_nc=[1.0]), ValueError,
         r"Q_nc: expected 2 entries, got 1"),
        (lambda: qv.lagrange_eom(L_pend, F_pend, [x, x * y], [vx, vy]), ValueError,
         r"q: entry 1 must be a heyoka variable"),
        (lambda: qv.lagrange_eom(L_pend, F_pend, [x, y], [x, vy]), ValueError,
         r"q and qd must be different variables"),
        (lambda: qv.lagrange_eom(L_pend, F_pend, [x, x], [vx, vy]), ValueError,
         r"q: variables must be distinct"),
        (lambda: qv.lagrange_eom("L", F_pend, [x, y], [vx, vy]), TypeError,
         r"lagrangian: expected a scalar heyoka expression, got str"),
        (lambda: qv.lagrange_eom(L_pend, [x, "y"], [x, y], [vx, vy]), TypeError, r"F: entries"),
        (lambda: qv.lagrange_eom(L_pend, x, [x, y], [vx, vy]), TypeError,
         r"F: expected a sequence"),
        (lambda: qv.lagrange_eom(-9.81 * y + vx * vx, [], [x, y], [vx, vy]), ZeroDivisionError,
         r"mass matrix.*singular"),
        (lambda: qv.lagrange_eom(L_pend, [x - 1.0, x - 1.0], [x, y], [vx, vy]),
         ZeroDivisionError, r"Delassus matrix W"),
        (lambda: qv.build_constraint_jacobian(F_pend, [x, 2.0]), TypeError,
         r"q: entry 1 must be a heyoka variable"),
        (lambda: qv.build_Jdqd([[2 * x, 2 * y]], [x, y], [vx]), ValueError,
         r"qd: expected 2 velocities"),
        (lambda: qv.build_Jdqd([[2 * x, 2 * y, 1.0]], [x, y], [vx, vy]), ValueError,
         r"J: expected 2 columns"),
        (lambda: qv.build_mass_matrix(L_pend, [vx, 3]), TypeError, r"qd: entry 1"),
    ],
)
def test_lagrangian_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


M2 = np.diag([1.0, 1.0]).astype(object)
J2 = np.array([[2 * x, 2 * y]], dtype=object)


@pytest.mark.parametrize(
    ("args", "kwargs", "exc", "match"),
    [
        (([0.0, -9.81, 0.0], J2, M2, [0.0]), {}, ValueError,
         r"qdd_free: expected 2 entries, got 3"),
        (([0.0, -9.81], J2, [[1.0, 0.0]], [0.0]), {}, ValueError, r"M: expected a square matrix"),
        (([0.0, -9.81], [[2 * x, 2 * y, 0.0]], M2, [0.0]), {}, ValueError,
         r"J: expected 2 columns"),
        (([0.0, -9.81], J2, M2, [0.0, 1.0]), {}, ValueError, r"Jdqd: expected 1 entries, got 2"),
        (([0.0, -9.81], J2, M2, [0.0]), {"Q_nc": [1.0]}, ValueError,
         r"Q_nc: expected 2 entries, got 1"),
        (([0.0, -9.81], J2, M2, [0.0]), {"Q_nc": [1.0, None]}, TypeError, r"Q_nc: entries"),
    ],
)
def test_find_constrained_accelerations_errors(args, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        qv.find_constrained_accelerations(*args, **kwargs)


def test_return_shapes():
    sys = qv.lagrange_eom(L_pend, F_pend, [x, y], [vx, vy])
    assert isinstance(sys, list) and len(sys) == 4
    assert [str(v) for v, _ in sys] == ["x", "y", "vx", "vy"]
    sys2, lam = qv.lagrange_eom(L_pend, F_pend, [x, y], [vx, vy], return_multipliers=True)
    assert lam.shape == (1,)
    sys3, W = qv.lagrange_eom(L_pend, F_pend, [x, y], [vx, vy], return_W=True)
    assert W.shape == (1, 1)
    sys4, lam4, W4 = qv.lagrange_eom(L_pend, F_pend, [x, y], [vx, vy], return_multipliers=True,
                                     return_W=True)
    assert lam4.shape == (1,) and W4.shape == (1, 1)
    # W = J M^-1 J^T = 4x^2 + 4y^2 for a unit mass
    cf = hy.cfunc([W4[0, 0]], [x, y])
    assert cf([0.3, 0.4])[0] == pytest.approx(4 * (0.09 + 0.16), rel=1e-14)
    qdd, lam_ = qv.find_constrained_accelerations([0.0, -9.81], J2, M2, [2 * vx * vx + 2 * vy * vy])
    assert qdd.shape == (2,) and lam_.shape == (1,)
    out = qv.find_constrained_accelerations([0.0, -9.81], J2, M2, [0.0], return_W=True)
    assert len(out) == 3 and out[2].shape == (1, 1)


def test_free_dynamics_empty_constraints():
    sys, lam, W = qv.lagrange_eom(L_pend, [], [x, y], [vx, vy], return_multipliers=True,
                                  return_W=True)
    assert lam.shape == (0,) and W.shape == (0, 0)
    cf = hy.cfunc([rhs for _, rhs in sys], [x, y, vx, vy])
    np.testing.assert_allclose(cf([0.1, 0.2, 0.3, 0.4]), [0.3, 0.4, 0.0, -9.81], rtol=1e-15)


def test_block_diagonal_empty_and_zero_entries():
    B = qv.create_block_diagonal([])
    assert B.shape == (0, 0) and B.dtype == object
    B = qv.create_block_diagonal([[[x]], np.eye(2)])
    assert isinstance(B[0, 1], hy.expression) and B[0, 1] == hy.expression(0.0)
    assert B[0, 0] == x and B[2, 1] == 0.0
    assert qv.identity(B) is B

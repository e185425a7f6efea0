"""Tests of :mod:`quivira.expression_codec`, the JSON encoding of heyoka expressions, and a
mutation fuzz of model files decoded in child processes (``tests/fuzz_model_files.py``).
"""

from __future__ import annotations

import json
import math
import operator
import os
import pickle
import re
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import fuzz_model_files
import heyoka as hy
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quivira.expression_codec import (
    DEFAULT_LIMITS,
    FUNCTIONS,
    Limits,
    check_storable,
    decode_expression,
    encode_expression,
)

TESTS = Path(__file__).resolve().parents[1]  # tests/, where fuzz_model_files.py is
x0, y0, th0, vx0, x1, y1, t_var = hy.make_vars("x0", "y0", "th0", "vx0", "x1", "y1", "t")
E = hy.expression


def roundtrip(expr: hy.expression, limits: Limits = DEFAULT_LIMITS) -> hy.expression:
    """Encode, go through JSON text, decode; check identity and a stable re-encoding."""
    tree = encode_expression(expr, limits=limits)
    text = json.dumps(tree, allow_nan=False)
    decoded = decode_expression(json.loads(text), limits=limits)
    assert decoded == expr
    assert encode_expression(decoded, limits=limits) == tree
    return decoded


def chain(depth: int, leaf: list | None = None, op: str = "sin") -> list:
    """A JSON tree of ``depth`` levels: op(op(...op(leaf)))."""
    node = leaf if leaf is not None else ["var", "x0"]
    for _ in range(depth - 1):
        node = [op, node]
    return node


def assert_same_bits(a: hy.expression, b: hy.expression, seed: int) -> None:
    """Compile both expressions and compare the bits of their values at random points."""
    names = sorted(set(hy.get_variables(a)) | set(hy.get_variables(b)))
    variables = [hy.expression(n) for n in names]
    rng = np.random.default_rng(seed)
    n = 16
    inputs = rng.uniform(-3.0, 3.0, size=(len(variables), n))
    inputs[:, 0] = 0.0
    inputs[:, 1] = -0.0
    time = rng.uniform(-5.0, 5.0, size=n)
    cf_a, cf_b = hy.cfunc([a], variables), hy.cfunc([b], variables)
    assert cf_a.nparams == cf_b.nparams
    pars = rng.uniform(-2.0, 2.0, size=(cf_a.nparams, n))
    out_a = cf_a(inputs, pars=pars, time=time)
    out_b = cf_b(inputs, pars=pars, time=time)
    assert np.array_equal(out_a.view(np.uint64), out_b.view(np.uint64))


# ------------------------------------------------------------------------------------------
# Random expressions over the whitelist
# ------------------------------------------------------------------------------------------

SPECIAL_FLOATS = [0.1, 1e-300, 5e-324, 1.7976931348623157e308, -0.0, 0.0, 1.0, -1.0, 2.0, 0.5,
                  -5e-324, 2.2250738585072014e-308, 2.225073858507201e-308, 1 / 3, math.pi,
                  -1e300, 123456789.123456789, 3.0]
floats = st.one_of(st.sampled_from(SPECIAL_FLOATS),
                   st.floats(allow_nan=False, allow_infinity=False, width=64))
leaves = st.one_of(
    st.sampled_from([x0, y0, th0, vx0, t_var, hy.time, hy.pi, hy.par[0], hy.par[2]]),
    st.builds(hy.expression, floats),
)
unary = st.sampled_from([f for f, arity in FUNCTIONS.values() if arity == 1]
                        + [operator.neg, hy.sqrt])
binary = st.sampled_from([operator.add, operator.sub, operator.mul, operator.truediv,
                          operator.pow, hy.atan2])


def _apply(f, *args):
    """f(*args), or None where heyoka refuses the construction (x ** 1e300: "bad numeric
    conversion")."""
    try:
        return f(*args)
    except (RuntimeError, ValueError, OverflowError):
        return None


def _extend(children: st.SearchStrategy) -> st.SearchStrategy:
    return st.one_of(
        st.builds(_apply, unary, children),
        st.builds(_apply, binary, children, children),
        st.builds(_apply, binary, children, floats),
        st.builds(hy.sum, st.lists(children, min_size=2, max_size=5)),
        st.builds(hy.prod, st.lists(children, min_size=2, max_size=5)),
    ).filter(lambda e: e is not None)


expressions = st.recursive(leaves, _extend, max_leaves=30)


def encode_or_nonfinite(expr: hy.expression) -> list | None:
    """The tree, or None when heyoka folded constants into inf/nan (refused by design)."""
    try:
        return encode_expression(expr)
    except ValueError as exc:
        assert "is not finite" in str(exc), str(exc)
        return None


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
@pytest.mark.slow
def test_random_expressions_round_trip_structurally(expr):
    tree = encode_or_nonfinite(expr)
    if tree is None:
        return
    decoded = decode_expression(json.loads(json.dumps(tree, allow_nan=False)))
    assert decoded == expr
    # The encoder reads the exact bits of every number, so equal trees mean equal bits (heyoka's
    # == alone does not distinguish -0.0 from 0.0).
    assert encode_expression(decoded) == tree


@pytest.mark.filterwarnings("ignore:Generating overly large repr")
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions, st.integers(0, 2**32 - 1))
@pytest.mark.slow
def test_random_expressions_evaluate_to_identical_bits(expr, seed):
    tree = encode_or_nonfinite(expr)
    if tree is None:
        return
    decoded = decode_expression(json.loads(json.dumps(tree)))
    assert decoded == expr
    assert_same_bits(expr, decoded, seed)


def test_bit_comparison_can_fail():
    # The evaluation check distinguishes expressions that differ in the last bit.
    with pytest.raises(AssertionError):
        assert_same_bits(x0 * 0.1, x0 * math.nextafter(0.1, 1.0), 1)


# ------------------------------------------------------------------------------------------
# Exact numbers and the format
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", SPECIAL_FLOATS + [-2.5e-310, 1e22, 9007199254740993.0])
def test_numbers_are_exact(value):
    assert encode_expression(E(value)) == ["num", repr(value)]
    for expr in (E(value), hy.atan2(y0, E(value))):
        decoded = roundtrip(expr)
        # heyoka's == does not distinguish -0.0 from 0.0: compare the serialized bits too.
        assert pickle.dumps(decoded) == pickle.dumps(expr)


def test_negative_zero_keeps_its_sign():
    tree = encode_expression(hy.atan2(y0, E(-0.0)))
    assert tree == ["atan2", ["var", "y0"], ["num", "-0.0"]]
    decoded = decode_expression(tree)
    plus = decode_expression(["atan2", ["var", "y0"], ["num", "0.0"]])
    assert pickle.dumps(decoded) == pickle.dumps(hy.atan2(y0, E(-0.0)))
    assert pickle.dumps(decoded) != pickle.dumps(plus)


@pytest.mark.parametrize(("text", "value"), [
    ("0x1.8p+0", 1.5), ("-0x0.0000000000001p-1022", -5e-324), ("0x1.fffffffffffffp+1023",
                                                               1.7976931348623157e308),
    ("1e-320", 1e-320), (".5", 0.5), ("+2.", 2.0), ("-0", -0.0), ("1E3", 1000.0),
])
def test_numbers_accept_decimal_and_hex_strings(text, value):
    expr = decode_expression(["num", text])
    assert pickle.dumps(expr) == pickle.dumps(E(value))


def test_format_is_stable():
    assert encode_expression(th0 - 2 * hy.time) == [
        "sum", ["var", "th0"], ["prod", ["num", "-1.0"], ["prod", ["num", "2.0"], ["time"]]]]
    assert encode_expression(x0 / y0) == ["prod", ["var", "x0"], ["pow", ["var", "y0"],
                                                                  ["num", "-1.0"]]]
    assert encode_expression(hy.sqrt(x0)) == ["pow", ["var", "x0"], ["num", "0.5"]]
    assert encode_expression(hy.par[3] * hy.pi) == ["prod", ["par", 3], ["pi"]]
    text = '["sum", ["num", "-1.5"], ["pow", ["sum", ["var", "x0"], ["var", "y0"]], ["num", "2"]]]'
    assert decode_expression(json.loads(text)) == (x0 + y0) ** 2 - 1.5


def test_names_that_print_alike_stay_distinct():
    # str() prints hy.time and a variable named t both as "t", par[3] and a variable p3 as "p3".
    p3 = hy.make_vars("p3")
    assert str(hy.time) == str(t_var) and str(hy.par[3]) == str(p3)
    assert roundtrip(th0 - 2 * hy.time) != roundtrip(th0 - 2 * t_var)
    assert encode_expression(hy.par[3] + p3) == ["sum", ["par", 3], ["var", "p3"]]
    # Terms keep their order even where str() reorders them.
    assert str(hy.sum([-y0, x0])) == str(hy.sum([x0, -y0]))
    assert roundtrip(hy.sum([-y0, x0])) != roundtrip(hy.sum([x0, -y0]))


def test_every_function_of_the_whitelist():
    for name, (function, arity) in FUNCTIONS.items():
        expr = function(*[x0, y0][:arity])
        assert encode_expression(expr)[0] == name
        roundtrip(expr)
    for expr in (hy.time, hy.pi, hy.par[9999], x0 ** y0, hy.sum([x0, y0, th0]),
                 hy.prod([x0, y0, th0]), -x0, x0 - y0, hy.exp(-x0) * hy.atan2(y0, x0)):
        roundtrip(expr)


def test_real_constraints_round_trip():
    exprs = [hy.sqrt((x0 - x1) ** 2 + (y0 - y1) ** 2) - 1.5, th0 - 2 * hy.time,
             x1 + 0.25 * th0 - 0.5, vx0 + 0.25 * hy.par[0], hy.diff(hy.sqrt(x0**2 + y0**2), x0)]
    for expr in exprs:
        decoded = roundtrip(expr)
        assert_same_bits(expr, decoded, 7)


def test_shared_subexpressions_are_written_out():
    expr = x0
    for _ in range(10):
        expr = expr * expr
    tree = encode_expression(expr)
    assert len(json.dumps(tree)) > 2**10
    assert decode_expression(tree) == expr
    # No list object appears twice, so that editing the tree cannot change it elsewhere.
    seen, stack = set(), [tree]
    while stack:
        node = stack.pop()
        assert id(node) not in seen
        seen.add(id(node))
        stack.extend(child for child in node[1:] if isinstance(child, list))
    assert len(seen) == len(expr) == 2**11 - 1


def test_concurrent_encoding_from_threads():
    expr = hy.sum([hy.sin(x0 * float(k)) for k in range(1, 40)])  # > 64 nodes: helper thread
    expected = encode_expression(expr)
    with ThreadPoolExecutor(4) as pool:
        trees = list(pool.map(lambda _: encode_expression(expr), range(16)))
    assert all(tree == expected for tree in trees)


# ------------------------------------------------------------------------------------------
# Limits
# ------------------------------------------------------------------------------------------


def test_limits_defaults_and_validation():
    assert (DEFAULT_LIMITS.max_depth, DEFAULT_LIMITS.max_nodes, DEFAULT_LIMITS.max_string_length,
            DEFAULT_LIMITS.max_param_index) == (200, 10_000, 100, 9_999)
    with pytest.raises(ValueError, match=r"max_depth must be in 1\.\.2000, got 0"):
        Limits(max_depth=0)
    with pytest.raises(ValueError, match="max_nodes"):
        Limits(max_nodes=10**7)
    with pytest.raises(TypeError, match="max_depth must be an int"):
        Limits(max_depth=True)
    with pytest.raises(TypeError, match="max_string_length must be an int"):
        Limits(max_string_length=10.0)
    with pytest.raises(TypeError, match="Limits instance"):
        decode_expression(["var", "x0"], limits={"max_depth": 3})


def test_depth_limit_message():
    decode_expression(chain(200))
    steps = re.escape("[1]" * 4)
    with pytest.raises(ValueError, match=rf"^expression{steps}\.\.\.{steps} \(level 201\): "
                                         r"expression deeper than 200 levels "
                                         r"\(limit max_depth=200\)$"):
        decode_expression(chain(201))
    with pytest.raises(ValueError, match=r"^expression\[1\]\[2\]\[1\]: expression deeper than 3 "
                                         r"levels \(limit max_depth=3\)$"):
        decode_expression(["sum", ["sum", X, ["sin", X]], X], limits=Limits(max_depth=3))
    small = Limits(max_depth=5)
    with pytest.raises(ValueError, match=r"deeper than 5 levels \(limit max_depth=5\)"):
        decode_expression(chain(6), limits=small)
    deep = hy.sin(hy.sin(hy.sin(hy.sin(hy.sin(x0)))))
    with pytest.raises(ValueError, match=r"deeper than 5 levels \(limit max_depth=5\)"):
        encode_expression(deep, limits=small)
    assert decode_expression(encode_expression(deep, limits=Limits(max_depth=6))) == deep


def test_very_deep_trees_are_refused_quickly():
    # 10**5 nested lists: refused at level 201, no recursion anywhere.
    with pytest.raises(ValueError, match="deeper than 200 levels"):
        decode_expression(chain(100_000))


def test_node_limit_message():
    wide = ["sum"] + [["var", "x0"]] * 10_000
    with pytest.raises(ValueError, match=r"^expression has more than 10000 nodes \(limit "
                                         r"max_nodes=10000\)$"):
        decode_expression(wide)
    with pytest.raises(ValueError, match=r"more than 10 nodes \(limit max_nodes=10\)"):
        decode_expression(["sum"] + [["var", "x0"]] * 10, limits=Limits(max_nodes=10))
    decode_expression(["sum"] + [["var", "x0"]] * 9, limits=Limits(max_nodes=10))
    names = hy.make_vars(*[f"v{k}" for k in range(10_000)])
    with pytest.raises(ValueError, match=r"has 10001 nodes, more than 10000 nodes \(limit "
                                         r"max_nodes=10000\)"):
        check_storable(hy.sum(names))


def test_exponentially_large_trees_are_refused_without_hanging():
    expr = x0
    for _ in range(60):
        expr = expr * expr
    with pytest.raises(ValueError, match=r"has 2305843009213693951 nodes, more than 10000"):
        check_storable(expr)
    for _ in range(10):  # len() overflows: heyoka reports 0
        expr = expr * expr
    with pytest.raises(ValueError, match=r"has more than 10000 nodes"):
        check_storable(expr)


def test_string_length_limits():
    with pytest.raises(ValueError, match=r"variable name longer than 100 characters \(limit "
                                         r"max_string_length=100\)"):
        decode_expression(["var", "x" * 101])
    decode_expression(["var", "x" * 100])
    with pytest.raises(ValueError, match=r"number string longer than 100 characters \(limit "
                                         r"max_string_length=100\)"):
        decode_expression(["num", "1" * 101])
    with pytest.raises(ValueError, match=r"longer than 100 characters \(limit "
                                         r"max_string_length=100\)"):
        check_storable(hy.make_vars("x" * 101))
    with pytest.raises(ValueError, match=r"unknown operation 'sss"):
        decode_expression(["s" * 10**6, ["var", "x0"]])


def test_parameter_index_limit():
    with pytest.raises(ValueError, match=r"parameter index 10000 out of range 0\.\.9999 \(limit "
                                         r"max_param_index=9999\)"):
        decode_expression(["par", 10_000])
    with pytest.raises(ValueError, match=r"parameter index 10000 is too large \(limit "
                                         r"max_param_index=9999\)"):
        check_storable(hy.par[10_000])
    assert decode_expression(["par", 5], limits=Limits(max_param_index=5)) == hy.par[5]


def test_deep_expression_built_through_the_api_is_refused():
    expr = x0
    for _ in range(3000):
        expr = hy.sin(expr)
    with pytest.raises(ValueError, match=r"^cannot store expression: expression deeper than 200 "
                                         r"levels \(limit max_depth=200\)$"):
        check_storable(expr)


@pytest.mark.slow
def test_encoding_never_crashes_on_deep_expressions_in_small_stacks():
    # heyoka's serializer recurses about 1.4 KiB of C++ stack per level: 9000 levels overflow
    # an 8 MiB main thread (and 700 a 1 MiB thread). The encoder serializes in a helper thread
    # with a stack sized for the expression, so both calls below must raise, not crash.
    code = textwrap.dedent("""
        import threading, heyoka as hy
        from quivira.expression_codec import check_storable
        e = hy.make_vars("x0")
        for _ in range(9000):
            e = hy.sin(e)
        def run():
            try:
                check_storable(e)
            except ValueError as exc:
                print("refused:", exc)
        run()
        threading.stack_size(1 << 20)
        t = threading.Thread(target=run)
        t.start()
        t.join()
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("refused: cannot store expression: expression deeper than 200") == 2


# ------------------------------------------------------------------------------------------
# Malformed trees and refused expressions
# ------------------------------------------------------------------------------------------

X = ["var", "x0"]


@pytest.mark.parametrize(("tree", "message"), [
    (5, r"^expression: expected a JSON array \[operation, arguments...\], got 5$"),
    ({"op": "sin"}, r"expected a JSON array .*got a JSON object"),
    ("x0", r"expected a JSON array"),
    (None, r"expected a JSON array"),
    (1.5, r"expected a JSON array"),
    (True, r"expected a JSON array"),
    ([], r"^expression: empty array"),
    ([1, X], r"the operation must be a JSON string, got 1"),
    ([["sin"], X], r"the operation must be a JSON string"),
    (["foo", X], r"^expression: unknown operation 'foo'$"),
    (["sqrt", X], r"unknown operation 'sqrt'"),
    (["kepE", X, X], r"unknown operation 'kepE'"),
    (["sin"], r"operation 'sin' takes 1 argument, got 0"),
    (["sin", X, X], r"operation 'sin' takes 1 argument, got 2"),
    (["atan2", X], r"operation 'atan2' takes 2 arguments, got 1"),
    (["sum", X], r"operation 'sum' takes 2 or more arguments, got 1"),
    (["prod"], r"operation 'prod' takes 2 or more arguments, got 0"),
    (["pow", X], r"operation 'pow' takes 2 arguments, got 1"),
    (["time", X], r"operation 'time' takes no arguments, got 1"),
    (["pi", X], r"operation 'pi' takes no arguments, got 1"),
    (["num"], r"operation 'num' takes 1 argument, got 0"),
    (["var", "x0", "y0"], r"operation 'var' takes 1 argument, got 2"),
    (["num", 1.5], r"a number must be a JSON string .*got float"),
    (["num", None], r"a number must be a JSON string"),
    (["num", "nan"], r"'nan' is not a number"),
    (["num", "inf"], r"'inf' is not a number"),
    (["num", "Infinity"], r"is not a number"),
    (["num", "1e999"], r"number '1e999' is not finite"),
    (["num", "-1e400"], r"is not finite"),
    (["num", "0x1p+1024"], r"number '0x1p\+1024' is not finite"),
    (["num", "1_000"], r"is not a number"),
    (["num", "\u0661"], r"is not a number"),
    (["num", " 1"], r"is not a number"),
    (["num", ""], r"is not a number"),
    (["num", "0x"], r"is not a number"),
    (["num", "1.0.0"], r"is not a number"),
    (["var", 1], r"a variable name must be a JSON string, got int"),
    (["var", "1x"], r"'1x' is not a valid variable name"),
    (["var", "x y"], r"is not a valid variable name"),
    (["var", ""], r"is not a valid variable name"),
    (["var", "\u00e9"], r"is not a valid variable name"),
    (["var", "x0\u0000"], r"is not a valid variable name"),
    (["par", "1"], r"a parameter index must be a JSON integer, got str"),
    (["par", True], r"a parameter index must be a JSON integer, got bool"),
    (["par", 1.0], r"a parameter index must be a JSON integer, got float"),
    (["par", -1], r"parameter index -1 out of range"),
    (["par", 10**30], r"parameter index 1000000000000000000000000000000 out of range"),
    (["sum", X, ["sin", ["foo"]]], r"^expression\[2\]\[1\]: unknown operation 'foo'$"),
    (["sum", X, ["prod", X, ["num", "x"]]], r"^expression\[2\]\[2\]: 'x' is not a number"),
])
def test_malformed_trees(tree, message):
    with pytest.raises(ValueError, match=message):
        decode_expression(tree)


def test_constructions_heyoka_refuses_are_value_errors():
    with pytest.raises(ValueError, match=r"^expression: heyoka cannot build this 'pow': bad "
                                         r"numeric conversion"):
        decode_expression(["pow", X, ["num", "1e300"]])
    with pytest.raises(ValueError, match=r"^cannot store expression: expression: heyoka cannot "
                                         r"build this 'pow'"):
        check_storable(hy.subs(x0 ** y0, {"y0": E(1e300)}))


def test_error_positions_use_the_given_name():
    with pytest.raises(ValueError, match=r"^user_constraints\[0\]\.exprs\[1\]\[2\]: unknown "
                                         r"operation 'bar'$"):
        decode_expression(["sum", X, ["bar"]], where="user_constraints[0].exprs[1]")


def test_allowed_variables():
    assert decode_expression(X, allowed_variables=["x0", "y0"]) == x0
    with pytest.raises(ValueError, match=r"^expression\[2\]: variable 'z' is not allowed here "
                                         r"\(allowed: x0, y0\)$"):
        decode_expression(["sum", X, ["var", "z"]], allowed_variables=("x0", "y0"))
    with pytest.raises(ValueError, match=r"\(allowed: none\)"):
        decode_expression(X, allowed_variables=[])


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
              st.sampled_from(["num", "var", "par", "sum", "prod", "pow", "sin", "atan2",
                               "time", "pi", "x0", "1.5", "-0.0"])),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.text(max_size=3), children, max_size=3)),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(json_values)
@pytest.mark.slow
def test_arbitrary_json_gives_an_expression_or_a_value_error(value):
    try:
        result = decode_expression(value)
    except ValueError:
        return
    assert isinstance(result, hy.expression)


@pytest.mark.parametrize(("expr", "message"), [
    (hy.kepE(x0, y0), r"operation 'kepE' is not storable \(storable: numbers, variables"),
    (hy.leaky_relu(0.1)(x0), r"operation 'relu_.*' is not storable"),
    (hy.relu(x0), r"operation 'relu' is not storable"),
    (hy.eq(x0, y0), r"is not storable"),
    (hy.select(x0, y0, th0), r"operation 'select' is not storable"),
    (E(float("nan")) * x0, r"the number nan is not finite"),
    (E(float("inf")) + x0, r"the number inf is not finite"),
    (E(np.float32(1.5)) * x0, r"a number of type float is not storable"),
    (hy.make_vars("x y"), r"the variable name 'x y' is not allowed"),
    (hy.subs(hy.exp(x0) * y0, {"x0": E(1.0)}),
     r"rebuild it differently .* at \[1\], exp\(1\.0\), is rebuilt as 2\.718281828459045$"),
    (hy.subs(x0 + y0, {"y0": E(2.0)}),
     r"\(the whole expression\), sum\(x0, 2\.0\), is rebuilt as sum\(2\.0, x0\)$"),
])
def test_refused_expressions(expr, message):
    with pytest.raises(ValueError, match="^cannot store expression: .*" + message):
        check_storable(expr)
    with pytest.raises(ValueError, match=message):
        encode_expression(expr)


def test_non_expressions_are_type_errors():
    with pytest.raises(TypeError, match="expected a heyoka expression, got float"):
        encode_expression(1.5)
    with pytest.raises(TypeError, match="expected a heyoka expression, got str"):
        check_storable("x0")


# ------------------------------------------------------------------------------------------
# Mutation fuzz of model files, decoded in child processes
# ------------------------------------------------------------------------------------------


def test_seed_documents_load(tmp_path):
    seeds = fuzz_model_files.seed_documents()
    assert len(seeds) >= 3
    names = set()
    for k, data in enumerate(seeds):
        doc = json.loads(data)
        names |= {c["name"] for c in doc["user_constraints"]}
        path = tmp_path / f"seed{k}.json"
        path.write_bytes(data)
        loaded = fuzz_model_files.load_user_constraints(str(path))
        assert [len(exprs) for exprs in loaded] == [len(c["exprs"])
                                                    for c in doc["user_constraints"]]
        assert all(isinstance(e, hy.expression) for exprs in loaded for e in exprs)
    assert {"distance", "crank", "rolling"} <= names
    path = tmp_path / "bad.json"
    path.write_bytes(seeds[0].replace(b'"x0"', b'"x7"', 1))
    with pytest.raises(ValueError, match="variable 'x7' is not allowed here"):
        fuzz_model_files.load_user_constraints(str(path))


@pytest.mark.slow
def test_mutation_fuzz_of_model_files():
    report = fuzz_model_files.run_fuzz(300, 20240611, batch=150, timeout=20.0, memory_mb=1024,
                                       strict=True)
    print(report.summary())
    assert report.ok, report.summary()
    counts = report.counts
    assert counts["loaded"] + counts["rejected"] == 300
    assert counts["loaded"] >= 5 and counts["rejected"] >= 200
    messages = " ".join(r.detail for r in report.results)
    for fragment in ("deeper than 200 levels (limit max_depth=200)", "JSON nested too deeply",
                     "unknown operation 'kepE'", "more than 10000 nodes", "Exceeds the limit",
                     "more than 100000 nodes in total",
                     "is not finite", "UnicodeDecodeError", "JSONDecodeError"):
        assert fragment in messages


@pytest.mark.slow
def test_fuzz_harness_detects_and_attributes_failures():
    inputs = [b"LOADED", b"x", b"CRASH", b"LOADED", b"HANG", b"MEMORY", b"TYPEERROR",
              b"STATEFUL", b"STATEFUL", b"STATEFUL", b"LOADED"]
    cases = [(k, data, "selftest") for k, data in enumerate(inputs)]
    report = fuzz_model_files.run_cases(cases, loader="fuzz_model_files.selftest_loader",
                                        batch=20, timeout=2.0, memory_mb=256)
    outcomes = [r.outcome for r in report.results]
    assert outcomes == ["loaded", "rejected", "crash", "loaded", "timeout", "memory",
                        "exception", "rejected", "rejected", "crash-in-batch", "loaded"]
    assert "SIGSEGV" in report.results[2].detail
    assert not report.ok
    assert [r.index for r in report.failures] == [2, 4, 5, 9]
    strict = fuzz_model_files.FuzzReport(report.results, report.elapsed, report.children, True)
    assert [r.index for r in strict.failures] == [2, 4, 5, 6, 9]


def test_fuzz_harness_reports_a_loader_that_cannot_be_imported():
    with pytest.raises(RuntimeError, match="(?s)did not start .*cannot import a module from "
                                           "'no_such_module.load'"):
        fuzz_model_files.run_cases([(0, b"{}", "")], loader="no_such_module.load")


@pytest.mark.slow
def test_fuzz_command_line(tmp_path):
    script = str(TESTS / "fuzz_model_files.py")
    ok = subprocess.run([sys.executable, script, "--cases", "40", "--seed", "3"],
                        capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "40 cases in" in ok.stdout and "OK: no crash" in ok.stdout
    # A loader given by dotted name that crashes the process on every file.
    (tmp_path / "crashing_loader.py").write_text(
        "import os, signal\n\ndef load(path):\n    os.kill(os.getpid(), signal.SIGSEGV)\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    crash = subprocess.run([sys.executable, script, "--cases", "2", "--first", "30", "--loader",
                            "crashing_loader.load", "--save-failures", str(tmp_path / "saved")],
                           capture_output=True, text=True, timeout=300, env=env)
    assert crash.returncode == 1, crash.stdout + crash.stderr
    assert "FAILED case 30" in crash.stdout and "SIGSEGV" in crash.stdout
    assert sorted(p.name for p in (tmp_path / "saved").iterdir()) == ["case-0-30.json",
                                                                      "case-0-31.json"]

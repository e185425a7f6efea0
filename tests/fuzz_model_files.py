"""Mutation fuzzing of model files: every load runs in a child process.

Seed documents are JSON model-file fragments whose ``user_constraints`` hold the encoded
expressions (:mod:`quivira.expression_codec`) of real constraints: a distance constraint, a
driven crank, a rolling constraint and a few more. Each case mutates the JSON text of a seed
(byte flips, insertions, deletions, duplicated spans, truncation, nesting bombs such as
``[[[[...``, huge numbers, long strings, wide nodes and structure-aware edits of the trees) and
hands it to a loader in a child process with a memory limit (``resource.setrlimit``) and a
timeout. Many cases run in one child for speed; when a child dies or hangs, the case it was
working on is run again alone, and if that does not reproduce the failure, every case of the
batch up to it is run alone, so that each failure is attributed to a case.

Cases 0 to 26 of every run are hand-made (:func:`fixed_cases`: laws, events and motors with
raw ``["par", k]``, coordinate-constraint matrices with entries beyond 1e50, an int of 401
digits and nesting 900 levels deep, the rows of a constraint repeated to 120,000 nodes, the
unmodified seed, chains of 201 and 10,000 levels, a million open brackets, 10^5 digits, a name
of 10^6 characters, a sum of 20,000 terms, non-standard and out-of-range numbers, truncated,
empty and invalid UTF-8 files); the others are random.

Command line::

    python tests/fuzz_model_files.py --cases 2000 --seed 7
    python tests/fuzz_model_files.py --cases 1 --seed 7 --first 1234 --show   # one case
    python tests/fuzz_model_files.py --loader quivira.bar_joint_model.load \\
        --seed-file fourbar.json --seed-file slider.json --cases 5000

The exit status is 0 if no child crashed (killed by a signal), hung or ran out of memory
(``--strict``: and no loader raised an exception other than ValueError), 1 otherwise; a
summary is printed. Case ``i`` of seed ``S`` is generated from ``random.Random(f"{S}:{i}")``,
so any case can be regenerated alone with ``--first i --cases 1``.

The loader is given by a dotted name (``package.module.function`` or ``module:function``);
the default, :func:`load_user_constraints`, reads the file, parses it with ``json.loads``
and decodes every entry of ``exprs`` of every ``user_constraints`` item with
:func:`quivira.expression_codec.decode_expression`.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import json
import math
import os
import random
import re
import resource
import selectors
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

DEFAULT_LOADER = "fuzz_model_files.load_user_constraints"
#: Largest file the default loader reads (bytes).
MAX_FILE_BYTES = 50 * 1024 * 1024
_HERE = os.path.dirname(os.path.abspath(__file__))
_RESULT_PREFIX = "@@fuzz-result "
_READY = "@@fuzz-ready"
# Seconds a child may take to start (import heyoka, read its input) before its first result.
_STARTUP_SECONDS = 60.0


# --------------------------------------------------------------------------------------------
# The default loader
# --------------------------------------------------------------------------------------------


def _reject_constant(name: str) -> float:
    raise ValueError(f"non-standard JSON number {name}")


def model_variables(n_bars: int) -> list[str]:
    """Names of the coordinates and velocities of ``n_bars`` bars (x0, y0, th0, vx0, ...)."""
    return [f"{p}{i}" for i in range(n_bars) for p in ("x", "y", "th", "vx", "vy", "om")]


def load_user_constraints(path: str) -> list:
    """Load the user-constraint expressions of a model file (the harness's default loader).

    Reads at most :data:`MAX_FILE_BYTES` from ``path``, parses it with ``json.loads``
    (refusing ``NaN``/``Infinity``) and decodes every entry of ``exprs`` of every item of
    ``user_constraints`` with ``decode_expression``, all within one ``NodeBudget`` (the
    default total of nodes of a file); variables must be coordinates or velocities of the
    ``bars`` listed in the file.

    Parameters
    ----------
    path : str
        The file.

    Returns
    -------
    list
        One list of heyoka expressions per user constraint.

    Raises
    ------
    ValueError
        For every kind of malformed file.
    """
    from quivira.expression_codec import NodeBudget, decode_expression

    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"{path}: larger than {MAX_FILE_BYTES} bytes")
    text = data.decode("utf-8")  # UnicodeDecodeError is a ValueError
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError(f"{path}: JSON nested too deeply") from None
    if not isinstance(doc, dict):
        raise ValueError("model file: expected a JSON object")
    bars = doc.get("bars", [])
    if not isinstance(bars, list):
        raise ValueError("model file: 'bars' must be a list")
    allowed = model_variables(len(bars))
    constraints = doc.get("user_constraints", [])
    if not isinstance(constraints, list):
        raise ValueError("model file: 'user_constraints' must be a list")
    out = []
    budget = NodeBudget()
    for i, item in enumerate(constraints):
        if not isinstance(item, dict):
            raise ValueError(f"user_constraints[{i}]: expected an object")
        exprs = item.get("exprs")
        if not isinstance(exprs, list):
            raise ValueError(f"user_constraints[{i}].exprs: expected a list")
        out.append([decode_expression(tree, allowed_variables=allowed,
                                      where=f"user_constraints[{i}].exprs[{j}]", budget=budget)
                    for j, tree in enumerate(exprs)])
    return out


_SELFTEST_CALLS: list[str] = []


def selftest_loader(path: str) -> None:
    """A loader that misbehaves on purpose, to test the harness itself.

    Files containing ``CRASH`` kill the process with SIGSEGV, ``HANG`` sleep forever,
    ``MEMORY`` allocate until the memory limit, ``TYPEERROR`` raise TypeError, ``LOADED``
    return normally; the third file containing ``STATEFUL`` loaded by one process kills it
    (a crash that depends on earlier cases); anything else raises ValueError.
    """
    with open(path, "rb") as f:
        data = f.read()
    if b"STATEFUL" in data:
        _SELFTEST_CALLS.append(path)
        if len(_SELFTEST_CALLS) >= 3:
            os.kill(os.getpid(), signal.SIGSEGV)
    if b"CRASH" in data:
        os.kill(os.getpid(), signal.SIGSEGV)
    if b"HANG" in data:
        while True:
            time.sleep(1)
    if b"MEMORY" in data:
        blocks = []
        while True:
            blocks.append(bytearray(64 << 20))
    if b"TYPEERROR" in data:
        raise TypeError("selftest")
    if b"LOADED" in data:
        return
    raise ValueError("selftest")


# --------------------------------------------------------------------------------------------
# Seeds and mutations
# --------------------------------------------------------------------------------------------


def seed_documents() -> list[bytes]:
    """JSON texts of model-file fragments with the encoded expressions of real constraints."""
    import heyoka as hy

    from quivira.expression_codec import encode_expression

    x0, y0, th0, vx0, vy0, om0, x1, y1, th1, x2, y2, om2 = hy.make_vars(
        "x0", "y0", "th0", "vx0", "vy0", "om0", "x1", "y1", "th1", "x2", "y2", "om2")
    radius, length = 0.25, 1.2
    constraints = {
        "distance": [hy.sqrt((x0 - x1) ** 2 + (y0 - y1) ** 2) - 1.5],
        "crank": [th0 - 2.0 * hy.time],
        "rolling": [x2 + radius * (hy.atan2(hy.sin(th1), hy.cos(th1)) - 0.5),
                    vx0 + radius * om0],
        "slot": [(y1 + 0.5 * length * hy.sin(th1)) * math.cos(0.3) - (x1 - 2.0) * 0.1],
        "misc": [hy.exp(-x0) * hy.atan2(y0, x0) + hy.par[0] * hy.tanh(vy0) - 1e-300,
                 x2 / y2 + om2 ** 3 - hy.pi * 5e-324 - 1.7976931348623157e308 * 1e-310],
    }
    docs = []
    names = list(constraints)
    for k in range(len(names)):
        chosen = names[k:] + names[:k]
        doc = {
            "format": "quivira.bar_joint_model", "format_version": 2, "tolerance": 1e-10,
            "g": 9.81, "bars": [{"length": 1.5, "mass": 1.0}] * 3,
            "user_constraints": [
                {"name": name, "velocity_level": name == "rolling",
                 "exprs": [encode_expression(e) for e in constraints[name]]}
                for name in chosen[: 2 + k % 3]],
        }
        docs.append(json.dumps(doc, indent=None if k % 2 else 1).encode())
    return docs


_TOKENS = [b"[", b"]", b"{", b"}", b'"', b",", b":", b"-", b"0", b"1e999", b"-1e-999", b"NaN",
           b"Infinity", b"-Infinity", b"null", b"true", b"false", b"\\u0000", b"\\ud800",
           b'"sin"', b'"var"', b'"num"', b'"par"', b'"time"', b'"pi"', b'"sum"', b'"prod"',
           b'"pow"', b'"atan2"', b'"exprs"', b'"user_constraints"', b"4294967296",
           b"1" * 5000, b"0x1p+1024", b'"0x1p+1024"', b'"1e308"', b'"nan"', b'"inf"',
           b'"1_0"', b"\xff", b"\xc3\x28", b"\x00", b" " * 100]
_OPS = ["num", "var", "par", "time", "pi", "sum", "prod", "pow", "sin", "cos", "atan2", "exp",
        "log", "sqrt", "kepE", "eval", "__import__", "", "SUM", "sin ", None, 1, ["sin"]]


def _mutate_tree(rng: random.Random, tree: Any, depth: int = 0) -> Any:
    """A structure-aware edit of a JSON tree (recursion bounded by the seeds' depth)."""
    if isinstance(tree, list) and tree and depth < 40 and rng.random() < 0.7:
        i = rng.randrange(len(tree))
        tree = list(tree)
        tree[i] = _mutate_tree(rng, tree[i], depth + 1)
        return tree
    choice = rng.randrange(12)
    if choice == 0:
        return [rng.choice(_OPS)] + (tree[1:] if isinstance(tree, list) else [tree])
    if choice == 1:
        return tree[:-1] if isinstance(tree, list) else []
    if choice == 2:
        return (tree + [tree[-1]]) if isinstance(tree, list) and tree else [tree, tree]
    if choice == 3:
        return rng.choice([1.5, -0.0, 10**400, True, None, {"a": 1}, "", "x" * 10**5, 2**32,
                           -1, 1e308, [], [[]], {"num": "1"}, float("nan")])
    if choice == 4:
        return ["num", rng.choice(["1e999", "-1e999", "nan", "inf", "0x1p+1024", "1" * 500,
                                   "1.0.0", " 1", "1_000", "\u0661", "0x", "+.5", "-0x1.8p-1074",
                                   "4.9406564584124654e-324", "1e-400", 1.5, None])]
    if choice == 5:
        return ["var", rng.choice(["x9", "t", "x0 ", "0x", "é", "x" * 101, "", "__class__",
                                   "x0\u0000", 1, None, "th0", "om2", "vx1"])]
    if choice == 6:
        return ["par", rng.choice([-1, 0, 2**32, 10**30, 1.0, True, "0", None, 9999, 10000])]
    if choice == 7:  # deep valid-looking chain, spliced in as text (json.dumps would recurse)
        return f"@@deep:{rng.choice([150, 199, 250, 1000, 5000, 20000])}:{rng.randrange(1000)}@@"
    if choice == 8:  # wide node
        return ["sum"] + [["var", "x0"]] * rng.choice([10, 5000, 20000])
    if choice == 9:
        return ["pow", tree, tree]
    if choice == 10:
        return {"op": "sum", "args": [tree]}
    return "sin"


def _deep_chain(depth: int, salt: int) -> str:
    """JSON text of a chain of ``depth`` nested sin/exp/sum nodes around ``["var", "x0"]``."""
    rng = random.Random(salt)
    heads, tails = [], []
    for _ in range(depth):
        op = rng.choice(["sin", "exp", "sum"])
        heads.append(f'["{op}", ')
        tails.append(', ["num", "1.0"]]' if op == "sum" else "]")
    return "".join(heads) + '["var", "x0"]' + "".join(reversed(tails))


def _splice_bytes(rng: random.Random, data: bytes) -> bytes:
    n = len(data)
    kind = rng.randrange(9)
    pos = rng.randrange(n + 1)
    if kind == 0:  # flip bits
        buf = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            if buf:
                buf[rng.randrange(len(buf))] ^= 1 << rng.randrange(8)
        return bytes(buf)
    if kind == 1:  # insert random bytes
        return data[:pos] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 16))) + \
            data[pos:]
    if kind == 2:  # insert JSON-ish tokens
        return data[:pos] + b"".join(rng.choice(_TOKENS) for _ in range(rng.randint(1, 6))) + \
            data[pos:]
    if kind == 3:  # delete a span
        end = min(n, pos + rng.randint(1, 64))
        return data[:pos] + data[end:]
    if kind == 4:  # duplicate a span
        start = rng.randrange(n + 1)
        span = data[start:start + rng.randint(1, 200)]
        return data[:pos] + span * rng.randint(1, 50) + data[pos:]
    if kind == 5:  # truncate
        return data[:pos]
    if kind == 6:  # nesting bomb
        depth = rng.choice([1000, 10**4, 10**5, 10**6])
        closing = b"]" * depth if rng.random() < 0.5 else b""
        return data[:pos] + b"[" * depth + closing + data[pos:]
    if kind == 7:  # huge number
        digits = rng.choice([400, 4301, 10**5])
        return data[:pos] + rng.choice([b"9", b"1"]) * digits + rng.choice([b"", b"e999", b".5"]) \
            + data[pos:]
    # long string
    length = rng.choice([10**3, 10**5, 10**6])
    return data[:pos] + b'"' + b"a" * length + b'"' + data[pos:]


_STRING_RE = re.compile(rb'"(?:[^"\\]|\\.)*"')
_NUMBER_RE = re.compile(rb"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_STRINGS = [b'"sin"', b'"cos"', b'"sum"', b'"prod"', b'"pow"', b'"num"', b'"var"', b'"par"',
            b'"time"', b'"pi"', b'"atan2"', b'"kepE"', b'"x0"', b'"x9"', b'"t"', b'"th1"',
            b'"1e999"', b'"nan"', b'"-0.0"', b'"5e-324"', b'"0x1.fffffffffffffp+1023"', b'""',
            b'"\\u0000"', b'"\\ud800"', b'"' + b"x" * 5000 + b'"', b"[]", b"null", b"{}",
            b"0", b"-1", b"1e999", b"4294967296", b"true"]


def _token_edit(rng: random.Random, data: bytes) -> bytes:
    """Replace one string or number token by another token, mostly keeping valid JSON."""
    regex = _STRING_RE if rng.random() < 0.7 else _NUMBER_RE
    matches = list(regex.finditer(data))
    if not matches:
        return data
    m = rng.choice(matches)
    if rng.random() < 0.2:  # duplicate the token as an extra array element
        return data[:m.end()] + b", " + m.group() + data[m.end():]
    return data[:m.start()] + rng.choice(_STRINGS) + data[m.end():]


def _expression_lists(doc: Any) -> list[list]:
    """The ``exprs`` lists of a model document (empty if it has none)."""
    items = doc.get("user_constraints") if isinstance(doc, dict) else None
    if not isinstance(items, list):
        return []
    return [item["exprs"] for item in items
            if isinstance(item, dict) and isinstance(item.get("exprs"), list) and item["exprs"]]


def _replace_first_tree(seed: bytes, text: str) -> bytes:
    """``seed`` with its first expression tree replaced by the JSON ``text``.

    A seed without expressions gets a ``user_constraints`` entry holding ``text``.
    """
    doc = json.loads(seed)
    lists = _expression_lists(doc)
    if lists:
        lists[0][0] = "@@tree@@"
    elif isinstance(doc, dict):
        doc["user_constraints"] = [{"name": "fuzz", "velocity_level": False,
                                    "exprs": ["@@tree@@"]}]
    else:
        return text.encode()
    return json.dumps(doc).replace('"@@tree@@"', text).encode()


def _with_entries(seed: bytes, entries: dict[str, list], splice: dict[str, str] | None = None
                  ) -> bytes:
    """``seed`` with the lists ``entries`` added to its top level (a seed that is not a JSON
    object is returned unchanged); strings ``"@@k@@"`` in them become the raw JSON text
    ``splice[k]`` (for values that ``json.dumps`` would not write, such as deep nesting)."""
    doc = json.loads(seed)
    if not isinstance(doc, dict):
        return seed
    doc.update(entries)
    text = json.dumps(doc)
    for key, raw in (splice or {}).items():
        text = text.replace(f'"@@{key}@@"', raw)
    return text.encode()


def _tree_nodes(tree: Any) -> int:
    """Number of nodes (JSON arrays) of an expression tree, counted iteratively."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            count += 1
            stack.extend(node[1:])
    return count


def _many_rows(seed: bytes, total: int) -> bytes:
    """``seed`` with the rows of its first expression list repeated to ``total`` nodes."""
    doc = json.loads(seed)
    lists = _expression_lists(doc)
    if not lists:
        return seed
    tree = lists[0][0]
    lists[0][:] = [tree] * (total // max(_tree_nodes(tree), 1) + 10)
    return json.dumps(doc).encode()


def _law_cases(base: bytes) -> list[tuple[bytes, str]]:
    """Laws, events and motors holding raw ``["par", k]`` (refused: the API forbids them) and
    coordinate constraints beyond the limit of every number."""
    push = {"name": "fuzz-push", "bar": 0, "s": 0.0, "frame": "ground", "fx": ["par", 1],
            "fy": ["num", "0.0"], "fx_text": "", "fy_text": ""}
    event = {"name": "fuzz-event", "expr": ["sum", ["var", "th0"], ["par", 0]], "text": "",
             "direction": "any", "terminal": False}
    motor = {"name": "fuzz-motor", "body_a": None, "body_b": 0, "law": ["par", 9999],
             "law_text": ""}

    def cc(**values: Any) -> dict:
        return {"coordinate_constraints": [{
            "bar0": 0, "bar1": None, "X0": [[1.0, 0.0, 0.0]], "X1": None, "Y0": None,
            "Y1": None, "offset": [0.0], "velocity_level": False, "active": True,
            "name": "fuzz-cc"} | values]}

    return [
        (_with_entries(base, {"force_actuators": [push]}), "fixed:raw-par-force"),
        (_with_entries(base, {"events": [event]}), "fixed:raw-par-event"),
        (_with_entries(base, {"joint_motors": [motor]}), "fixed:raw-par-9999-motor"),
        (_with_entries(base, cc(X0=[[1e60, 0.0, 0.0]])), "fixed:matrix-1e60"),
        (_with_entries(base, cc(offset=[-1e300])), "fixed:offset-1e300"),
        (_with_entries(base, cc(X0=[["@@int@@", 0, 0]]), {"int": "1" + "0" * 400}),
         "fixed:matrix-int-401-digits"),
        (_with_entries(base, {"g": "@@g@@"}, {"g": "[" * 900 + "1.0" + "]" * 900}),
         "fixed:g-nested-900"),
        (_with_entries(base, cc(X0="@@m@@"), {"m": "[" * 900 + "]" * 900}),
         "fixed:matrix-nested-900"),
        (_many_rows(base, 120_000), "fixed:rows-of-120000-nodes"),
    ]


def fixed_cases(seeds: Sequence[bytes]) -> list[tuple[bytes, str]]:
    """Hand-made cases of every kind, run first in every fuzz run (whatever the seed)."""
    base = seeds[0]
    half = len(base) // 2
    return _law_cases(base) + [
        (base, "fixed:unmodified"),
        (_replace_first_tree(base, _deep_chain(201, 0)), "fixed:chain-201"),
        (_replace_first_tree(base, _deep_chain(10_000, 1)), "fixed:chain-10000"),
        (_replace_first_tree(base, "[" * 10**6), "fixed:open-brackets-1e6"),
        (b"[" * 10**5 + b"]" * 10**5, "fixed:balanced-brackets-1e5"),
        (_replace_first_tree(base, '["par", ' + "9" * 10**5 + "]"), "fixed:digits-1e5"),
        (_replace_first_tree(base, '["var", "' + "a" * 10**6 + '"]'), "fixed:name-1e6"),
        (_replace_first_tree(base, '["sum"' + ', ["var", "x0"]' * 20_000 + "]"),
         "fixed:sum-of-20000"),
        (_replace_first_tree(base, '["num", 1e999]'), "fixed:json-number-1e999"),
        (_replace_first_tree(base, '["num", NaN]'), "fixed:json-NaN"),
        (_replace_first_tree(base, '["num", "1e999"]'), "fixed:string-1e999"),
        (_replace_first_tree(base, '["num", "' + "1" * 101 + '"]'), "fixed:number-101-chars"),
        (_replace_first_tree(base, '["par", 18446744073709551616]'), "fixed:par-2**64"),
        (_replace_first_tree(base, '["var", "x9"]'), "fixed:unknown-variable"),
        (_replace_first_tree(base, '["kepE", ["var", "x0"], ["var", "y0"]]'), "fixed:kepE"),
        (base[:half], "fixed:truncated"),
        (b"", "fixed:empty"),
        (base[:half] + b"\xff\xfe" + base[half:], "fixed:invalid-utf8"),
    ]


def make_case(seed: int, index: int, seeds: Sequence[bytes],
              fixed: Sequence[tuple[bytes, str]] | None = None) -> tuple[bytes, str]:
    """The JSON text of case ``index`` of ``seed`` and a description of its mutations.

    Cases ``0 .. len(fixed_cases()) - 1`` are the hand-made :func:`fixed_cases` (pass them as
    ``fixed`` to avoid rebuilding them); the others are random mutations of the seeds.
    """
    if fixed is None:
        fixed = fixed_cases(seeds)
    if index < len(fixed):
        return fixed[index]
    rng = random.Random(f"{seed}:{index}")
    data = rng.choice(seeds)
    steps = []
    kind = rng.random()
    doc = json.loads(data) if kind < 0.45 else None
    if kind < 0.45 and _expression_lists(doc):  # structure-aware edits of the trees
        for _ in range(rng.choice([1, 1, 2])):
            exprs = rng.choice(_expression_lists(doc))
            j = rng.randrange(len(exprs))
            exprs[j] = _mutate_tree(rng, exprs[j])
            steps.append("tree")
        text = json.dumps(doc, allow_nan=True)
        while (start := text.find('"@@deep:')) >= 0:
            end = text.index('@@"', start) + 3
            _, depth, salt = text[start + 1:end - 3].split(":")
            text = text[:start] + _deep_chain(int(depth), int(salt)) + text[end:]
        data = text.encode()
    elif kind < 0.7:
        for _ in range(rng.choice([1, 1, 2, 3])):
            data = _token_edit(rng, data)
            steps.append("token")
    n_bytes = rng.choice([0, 0, 1]) if steps else rng.choice([1, 1, 2, 3])
    for _ in range(n_bytes):
        data = _splice_bytes(rng, data)
        steps.append("bytes")
    return data, "+".join(steps)


# --------------------------------------------------------------------------------------------
# Running cases in child processes
# --------------------------------------------------------------------------------------------

#: Outcomes that make a run fail (always), and that are the loader behaving as it may.
FAILURES = frozenset({"crash", "timeout", "memory", "crash-in-batch"})


@dataclasses.dataclass
class CaseResult:
    """What happened to one case."""

    index: int
    outcome: str  # loaded, rejected, exception, memory, crash, timeout, crash-in-batch
    detail: str = ""
    description: str = ""


@dataclasses.dataclass
class FuzzReport:
    """Results of a fuzz run."""

    results: list[CaseResult]
    elapsed: float
    children: int
    strict: bool = False

    @property
    def counts(self) -> Counter:
        return Counter(r.outcome for r in self.results)

    @property
    def failures(self) -> list[CaseResult]:
        return [r for r in self.results if r.outcome in FAILURES
                or (self.strict and r.outcome == "exception")]

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        n = len(self.results)
        rate = n / self.elapsed if self.elapsed > 0 else float("inf")
        lines = [f"{n} cases in {self.elapsed:.1f} s ({rate:.0f} cases/s, "
                 f"{self.children} child processes)"]
        for outcome, count in sorted(self.counts.items()):
            lines.append(f"  {outcome:15s} {count}")
        exceptions = Counter(r.detail.split(":")[0] for r in self.results
                             if r.outcome == "exception")
        if exceptions:
            lines.append("  unexpected exception types: " + ", ".join(
                f"{k} ({v})" for k, v in exceptions.most_common()))
        for r in self.failures[:20]:
            lines.append(f"  FAILED case {r.index} [{r.description}]: {r.outcome} {r.detail}")
        lines.append("OK: no crash, hang or memory exhaustion" if self.ok else
                     f"FAILED: {len(self.failures)} failing cases")
        return "\n".join(lines)


def _resolve(dotted: str) -> Callable:
    """The object named ``module:attr.attr`` or ``package.module.attr.attr``.

    Without a colon, the longest importable prefix is the module, so that
    ``quivira.bar_joint_model.load`` finds the method ``load`` of the class ``bar_joint_model``.
    """
    if ":" in dotted:
        module, _, name = dotted.partition(":")
        obj: Any = importlib.import_module(module)
        attrs = name.split(".")
    else:
        parts = dotted.split(".")
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ModuleNotFoundError:
                continue
            attrs = parts[i:]
            break
        else:
            raise ValueError(f"cannot import a module from {dotted!r}")
    for attr in attrs:
        obj = getattr(obj, attr)
    return obj


def _read_cases(stream) -> list[tuple[int, bytes]]:
    cases = []
    while True:
        head = stream.read(16)
        if not head:
            return cases
        index, size = struct.unpack(">QQ", head)
        cases.append((index, stream.read(size)))


def _child_main(args: argparse.Namespace) -> int:
    """Run the cases read from stdin, writing one result line per case."""
    out = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything the loader prints goes to stderr
    sys.stdout = sys.stderr
    loader = _resolve(args.loader)
    cases = _read_cases(sys.stdin.buffer)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    with open("/proc/self/statm") as f:
        baseline = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    limit = baseline + args.memory_mb * (1 << 20)
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    allowed = tuple(_resolve(f"builtins.{name}") for name in args.allowed_exceptions.split(","))
    out.write(_READY + "\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model.json")
        for index, data in cases:
            result: dict[str, Any] = {"i": index}
            try:
                if args.input == "path":
                    with open(path, "wb") as f:
                        f.write(data)
                    loader(path)
                elif args.input == "bytes":
                    loader(data)
                else:
                    loader(data.decode("utf-8", "surrogateescape"))
                result["outcome"] = "loaded"
            except MemoryError:
                result.update(outcome="memory", detail="MemoryError")
            except allowed as exc:
                result.update(outcome="rejected", detail=f"{type(exc).__name__}: {exc}"[:1000])
            except BaseException as exc:  # noqa: BLE001 - every other exception is reported
                result.update(outcome="exception", detail=f"{type(exc).__name__}: {exc}"[:1000])
            out.write(_RESULT_PREFIX + json.dumps(result) + "\n")
    return 0


@dataclasses.dataclass
class _Options:
    loader: str
    input: str
    timeout: float
    memory_mb: int
    allowed_exceptions: str


def _run_child(cases: list[tuple[int, bytes]], opts: _Options) -> tuple[dict[int, dict], str]:
    """Run cases in one child; returns (results by index, "" or how the child ended early)."""
    cmd = [sys.executable, os.path.join(_HERE, "fuzz_model_files.py"), "--child",
           "--loader", opts.loader, "--input", opts.input, "--memory-mb", str(opts.memory_mb),
           "--allowed-exceptions", opts.allowed_exceptions]
    with tempfile.TemporaryFile() as payload, tempfile.TemporaryFile() as errors:
        for index, data in cases:
            payload.write(struct.pack(">QQ", index, len(data)) + data)
        payload.seek(0)
        proc = subprocess.Popen(cmd, stdin=payload, stdout=subprocess.PIPE, stderr=errors,
                                cwd=_HERE)
        results: dict[int, dict] = {}
        ended = ""
        ready = False
        buffer = b""
        sel = selectors.DefaultSelector()
        sel.register(proc.stdout, selectors.EVENT_READ)
        deadline = time.monotonic() + _STARTUP_SECONDS  # until the child is ready
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not sel.select(timeout=remaining):
                    ended = "timeout"
                    proc.kill()
                    break
                chunk = os.read(proc.stdout.fileno(), 1 << 16)
                if not chunk:
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    text = line.decode("utf-8", "replace")
                    if text == _READY:
                        ready = True
                        deadline = time.monotonic() + opts.timeout
                    elif text.startswith(_RESULT_PREFIX):
                        item = json.loads(text[len(_RESULT_PREFIX):])
                        results[item["i"]] = item
                        deadline = time.monotonic() + opts.timeout
        finally:
            sel.close()
            code = proc.wait()
            proc.stdout.close()
        if not ready:
            errors.seek(0)
            tail = errors.read()[-2000:].decode("utf-8", "replace").strip()
            raise RuntimeError(f"the fuzz child process did not start ({ended or code}): {tail}")
        if not ended and len(results) < len(cases):
            if code < 0:
                ended = f"crash (signal {signal.Signals(-code).name})"
            else:
                errors.seek(0)
                tail = errors.read()[-500:].decode("utf-8", "replace").strip()
                ended = f"crash (exit status {code}: {tail})"
    return results, ended


def _classify(ended: str) -> str:
    return "timeout" if ended == "timeout" else "crash"


def run_cases(cases: Sequence[tuple[int, bytes, str]], *, loader: str = DEFAULT_LOADER,
              input_kind: str = "path", batch: int = 250, timeout: float = 10.0,
              memory_mb: int = 1024, allowed_exceptions: str = "ValueError",
              strict: bool = False) -> FuzzReport:
    """Run cases (index, data, description) through ``loader`` in child processes.

    Parameters
    ----------
    cases : sequence of (int, bytes, str)
        Case index, file contents and a description of the mutations.
    loader : str
        Dotted name of the loader function.
    input_kind : {"path", "bytes", "text"}
        Whether the loader receives the path of a file holding the case, its bytes or its text.
    batch : int
        Cases per child process.
    timeout : float
        Seconds a case may take.
    memory_mb : int
        Address space a child may add to what it uses after start-up (``RLIMIT_AS``).
    allowed_exceptions : str
        Comma-separated builtin exception names that count as a clean rejection.
    strict : bool
        Whether other exceptions make the run fail.

    Returns
    -------
    FuzzReport
        The outcome of each case.
    """
    opts = _Options(loader, input_kind, timeout, memory_mb, allowed_exceptions)
    described = {index: description for index, _, description in cases}
    results: dict[int, CaseResult] = {}
    children = 0
    start = time.monotonic()

    def record(item: dict) -> None:
        index = item["i"]
        results[index] = CaseResult(index, item["outcome"], item.get("detail", ""),
                                    described[index])

    pending = [(index, data) for index, data, _ in cases]
    while pending:
        chunk, pending = pending[:batch], pending[batch:]
        while chunk:
            got, ended = _run_child(chunk, opts)
            children += 1
            for item in got.values():
                record(item)
            if not ended or len(got) == len(chunk):
                break
            done = [i for i, _ in chunk if i in got]
            suspect = next(k for k, (i, _) in enumerate(chunk) if i not in got)
            index, data = chunk[suspect]
            alone, alone_ended = _run_child([(index, data)], opts)
            children += 1
            if alone_ended:
                results[index] = CaseResult(index, _classify(alone_ended), alone_ended,
                                            described[index])
            else:
                record(alone[index])
                # Not reproducible alone: run the batch up to the suspect case by case.
                culprit = None
                for i, d in chunk[:suspect]:
                    _, e = _run_child([(i, d)], opts)
                    children += 1
                    if e:
                        culprit = i
                        results[i] = CaseResult(i, _classify(e), e, described[i])
                        break
                if culprit is None:
                    results[index] = CaseResult(
                        index, "crash-in-batch",
                        f"{ended} while running case {index} after cases {done[:10]}; not "
                        "reproducible case by case", described[index])
            chunk = chunk[suspect + 1:]
    ordered = [results[index] for index, _, _ in cases]
    return FuzzReport(ordered, time.monotonic() - start, children, strict)


def run_fuzz(cases: int, seed: int, *, first: int = 0, seeds: Sequence[bytes] | None = None,
             **kwargs: Any) -> FuzzReport:
    """Generate ``cases`` mutated files (indices ``first``...) and run them (see run_cases).

    ``seeds`` are the JSON texts to mutate (default: :func:`seed_documents`).
    """
    start = time.monotonic()
    seeds = seed_documents() if seeds is None else seeds
    fixed = fixed_cases(seeds)
    generated = []
    for index in range(first, first + cases):
        data, description = make_case(seed, index, seeds, fixed)
        generated.append((index, data, description))
    report = run_cases(generated, **kwargs)
    report.elapsed = time.monotonic() - start  # generation included
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=500, help="number of cases (500)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (0)")
    parser.add_argument("--first", type=int, default=0, help="index of the first case (0)")
    parser.add_argument("--loader", default=DEFAULT_LOADER,
                        help=f"dotted name of the loader function ({DEFAULT_LOADER})")
    parser.add_argument("--input", choices=("path", "bytes", "text"), default="path",
                        help="what the loader receives: a file path (default), bytes or text")
    parser.add_argument("--batch", type=int, default=250, help="cases per child process (250)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds per case (10)")
    parser.add_argument("--memory-mb", type=int, default=1024,
                        help="address space a child may add after start-up, MiB (1024)")
    parser.add_argument("--allowed-exceptions", default="ValueError",
                        help="exceptions that count as a clean rejection (ValueError)")
    parser.add_argument("--strict", action="store_true",
                        help="fail also when the loader raises another exception")
    parser.add_argument("--seed-file", action="append", default=[], metavar="PATH",
                        help="a JSON model file to mutate instead of the built-in seeds "
                             "(repeatable)")
    parser.add_argument("--show", action="store_true", help="print the generated cases")
    parser.add_argument("--save-failures", metavar="DIR",
                        help="write the input of every failing case to DIR")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return _child_main(args)
    seeds = [open(path, "rb").read() for path in args.seed_file] or seed_documents()
    fixed = fixed_cases(seeds)
    if args.show:
        for index in range(args.first, args.first + args.cases):
            data, description = make_case(args.seed, index, seeds, fixed)
            print(f"case {index} [{description}] ({len(data)} bytes): {data[:2000]!r}")
        return 0
    report = run_fuzz(args.cases, args.seed, first=args.first, seeds=seeds, loader=args.loader,
                      input_kind=args.input, batch=args.batch, timeout=args.timeout,
                      memory_mb=args.memory_mb, allowed_exceptions=args.allowed_exceptions,
                      strict=args.strict)
    print(report.summary())
    if args.save_failures and report.failures:
        os.makedirs(args.save_failures, exist_ok=True)
        for r in report.failures:
            data, _ = make_case(args.seed, r.index, seeds, fixed)
            with open(os.path.join(args.save_failures, f"case-{args.seed}-{r.index}.json"),
                      "wb") as f:
                f.write(data)
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

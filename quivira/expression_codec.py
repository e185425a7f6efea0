"""A safe, portable JSON encoding of heyoka expressions.

Quivira's model files store the expressions of user constraints. Pickles of heyoka
expressions are neither safe (heyoka's binary deserializer runs on the bytes of the file, and
mutated or very deep inputs crash the process) nor portable (the bytes depend on the heyoka
and Boost versions). This module replaces them by a JSON tree of a whitelist of operations,
decoded by an iterative parser with limits on depth, size and string lengths, so that no file
can crash, hang or exhaust the memory of the process that loads it.

The tree
--------
Every node is a JSON array whose first element names the operation::

    ["num", "1.5"]          a double-precision number, as an exact decimal string
                            (Python's shortest round-trip repr; hex floats such as
                            "0x1.8p+0" are accepted on input)
    ["var", "x0"]           a variable (names match ``[A-Za-z_][A-Za-z0-9_]*``)
    ["par", 3]              the runtime parameter ``hy.par[3]``
    ["time"]                ``hy.time``
    ["pi"]                  ``hy.pi``
    ["sum", a, b, ...]      heyoka's n-ary sum (two or more arguments)
    ["prod", a, b, ...]     heyoka's n-ary product (two or more arguments)
    ["pow", a, b]           a ** b
    ["sin", a], ...         the elementary functions of :data:`FUNCTIONS`

Subtraction, negation and division have no nodes of their own because heyoka has none:
``x - y`` is ``["sum", x, ["prod", ["num", "-1.0"], y]]``, ``x / y`` is
``["prod", x, ["pow", y, ["num", "-1.0"]]]`` and ``hy.sqrt(x)`` is ``["pow", x, ["num", "0.5"]]``.
The tree reproduces heyoka's structure exactly: decoding an encoded expression gives an
expression that is ``==`` to the original (heyoka's ``==`` is structural) and that evaluates
bit for bit the same.

How the encoder sees the structure
----------------------------------
heyoka.py 7.13 offers no Python API to walk an expression, ``str()`` truncates at about
1000 characters and hides structure (``x - y`` and ``-y + x`` print alike), and
``hy.to_sympy`` reorders terms. The encoder therefore reads heyoka's own serialization of the
expression (``expression.__getstate__``, a Boost binary archive produced in this process, never
read from a file) with an iterative walker that understands exactly the classes of the
whitelist, follows shared sub-expressions and refuses anything else. Every encoding is then
decoded and compared with the original; an expression that does not come back identical is
refused with a ValueError, so the walker can never silently write a wrong tree. The JSON tree
itself does not depend on heyoka or Boost versions.

Limits
------
:class:`Limits` bounds the depth, the number of nodes, string lengths and parameter
indices. The defaults are generous for constraints (a distance constraint
``sqrt((x0-x1)**2 + (y0-y1)**2) - 1.5`` has 19 nodes and depth 7) and far below the depths at
which heyoka's recursive C++ code overflows the stack. Measured with heyoka.py 7.13.2 on
chains ``sin(sin(...(x)))`` (nested sums: the same within 15 %) in subprocesses, main
thread with an 8 MiB stack: unpickling crashes at about 2,800 levels, pickling at about
5,800, ``==`` at about 87,000, and destroying the expression at about 100,000, which bounds
everything else: ``str()`` (it stops after 1000 characters), ``hy.get_variables``, ``len()``,
``hy.subs`` and ``hy.diff`` (iterative) all reach it; ``hy.cfunc`` compiles 30,000 levels.
The stack used per level is constant, so a thread with a 1 MiB stack crashes pickling at about
730 levels, ``==`` at about 10,600 and destruction at about 12,600 (256 KiB: about 3,100).
The default ``max_depth=200`` is safe for all of these even in a 256 KiB thread; encoding
runs heyoka's serializer in a helper thread with a stack sized for the expression.
"""

from __future__ import annotations

import dataclasses
import math
import re
import struct
import threading
from collections.abc import Iterable
from typing import Any

import heyoka as hy

from ._repr import short_repr

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_TOTAL_NODES",
    "FUNCTIONS",
    "Limits",
    "NodeBudget",
    "check_storable",
    "decode_expression",
    "encode_expression",
]


@dataclasses.dataclass(frozen=True)
class Limits:
    """Bounds that a stored expression must respect.

    Parameters
    ----------
    max_depth : int, default 200
        Maximum number of levels of the tree (a single number or variable has depth 1,
        ``sin(x)`` depth 2). Real constraints are rarely deeper than 20; heyoka's recursive
        C++ code crashes at a few thousand levels in small thread stacks.
    max_nodes : int, default 10000
        Maximum number of nodes of the tree, counting a shared sub-expression once per
        occurrence (heyoka's ``len(expr)``). This bounds the work and memory of encoding and
        decoding, and refuses expressions such as ``e = e * e`` repeated 60 times whose tree is
        exponentially larger than their graph.
    max_string_length : int, default 100
        Maximum length of variable names and of the strings of numbers.
    max_param_index : int, default 9999
        Largest index ``i`` accepted for the runtime parameter ``par[i]`` (heyoka allocates
        an array of ``i + 1`` parameters when compiling).

    Raises
    ------
    TypeError
        If a field is not an int (bools are refused).
    ValueError
        If a field is out of its range: ``max_depth`` 1..2000 (heyoka's recursive destructor
        needs about 80 bytes of stack per level, so much deeper expressions can crash threads
        with small stacks), ``max_nodes`` 1..1000000, ``max_string_length`` 1..10000,
        ``max_param_index`` 0..4294967295.
    """

    max_depth: int = 200
    max_nodes: int = 10_000
    max_string_length: int = 100
    max_param_index: int = 9_999

    def __post_init__(self) -> None:
        """Check that every limit is an int within its allowed range."""
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"Limits.{field.name} must be an int, got {type(value).__name__}")
            low, high = _LIMIT_RANGES[field.name]
            if not low <= value <= high:
                raise ValueError(f"Limits.{field.name} must be in {low}..{high}, got {value}")


_LIMIT_RANGES = {"max_depth": (1, 2_000), "max_nodes": (1, 1_000_000),
                 "max_string_length": (1, 10_000), "max_param_index": (0, 2**32 - 1)}


#: The default limits (see :class:`Limits`).
DEFAULT_LIMITS = Limits()

#: Default number of nodes that all the expressions of one model file may have together (a
#: :class:`NodeBudget`): decoding an expression and the model's checks of it cost about 30 µs
#: per node (100,000 nodes: 2.7 s), so this bounds loading to a few seconds, while real
#: models have tens of nodes per expression.
DEFAULT_TOTAL_NODES = 100_000


class NodeBudget:
    """A number of nodes that several decodings share, such as all expressions of one file.

    :class:`Limits` bounds each expression; without a total, a file of hundreds of
    expressions, each within the limits, takes minutes and gigabytes to load.
    :func:`decode_expression` charges every node it reads to the budget and stops at the node
    that exceeds it, so the work ends early.

    Parameters
    ----------
    max_nodes : int, default :data:`DEFAULT_TOTAL_NODES`
        Total number of nodes allowed (at least 1).
    name : str, optional
        Name of the limit in messages (the argument that sets it).
    fix : str, optional
        What to do about it, ending the message.

    Raises
    ------
    TypeError
        If ``max_nodes`` is not an int.
    ValueError
        If ``max_nodes`` is below 1.
    """

    def __init__(self, max_nodes: int = DEFAULT_TOTAL_NODES, *, name: str = "max_total_nodes",
                 fix: str = "") -> None:
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, int):
            raise TypeError(f"{name} must be an int, got {type(max_nodes).__name__}")
        if max_nodes < 1:
            raise ValueError(f"{name} must be at least 1, got {max_nodes}")
        self.max_nodes = max_nodes
        self.used = 0
        self.name = name
        self.fix = fix

    @property
    def left(self) -> int:
        """Nodes still available."""
        return self.max_nodes - self.used

    def error(self, where: str) -> ValueError:
        """Return the error for the node at ``where`` that exceeds the budget."""
        n = self.max_nodes
        return ValueError(f"{where}: the expressions read so far have more than {n} nodes in "
                          f"total (limit {self.name}={n}){self.fix}")

#: Elementary functions of the whitelist: JSON name -> (heyoka function, number of arguments).
FUNCTIONS: dict[str, tuple[Any, int]] = {
    "sin": (hy.sin, 1),
    "cos": (hy.cos, 1),
    "tan": (hy.tan, 1),
    "asin": (hy.asin, 1),
    "acos": (hy.acos, 1),
    "atan": (hy.atan, 1),
    "atan2": (hy.atan2, 2),
    "sinh": (hy.sinh, 1),
    "cosh": (hy.cosh, 1),
    "tanh": (hy.tanh, 1),
    "asinh": (hy.asinh, 1),
    "acosh": (hy.acosh, 1),
    "atanh": (hy.atanh, 1),
    "exp": (hy.exp, 1),
    "expm1": (hy.expm1, 1),
    "log": (hy.log, 1),
    "log1p": (hy.log1p, 1),
    "erf": (hy.erf, 1),
    "erfc": (hy.erfc, 1),
    "sigmoid": (hy.sigmoid, 1),
}

_LEAVES = frozenset({"num", "var", "par", "time", "pi"})
_NARY = frozenset({"sum", "prod"})
_OPERATIONS = _LEAVES | _NARY | {"pow"} | FUNCTIONS.keys()

_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_DECIMAL_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_HEX_RE = re.compile(
    r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?", re.ASCII)


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _depth_error(limits: Limits) -> ValueError:
    d = limits.max_depth
    return ValueError(f"expression deeper than {d} levels (limit max_depth={d})")


def _nodes_error(limits: Limits, what: str = "expression", count: int | None = None) -> ValueError:
    n = limits.max_nodes
    has = "more than" if count is None else f"{count} nodes, more than"
    return ValueError(f"{what} has {has} {n} nodes (limit max_nodes={n})")


def _cap_error(limits: Limits, budget: NodeBudget | None, where: str) -> ValueError:
    """Return the error for a tree beyond its cap (the limit, or what the budget has left)."""
    if budget is None or limits.max_nodes <= budget.left:
        return _nodes_error(limits, where)
    return budget.error(where)


def _short(value: Any) -> str:
    """Return a bounded repr of a value of a file (never deep, never long)."""
    return short_repr(value, 40)


# --------------------------------------------------------------------------------------------
# Decoding: JSON tree -> heyoka expression
# --------------------------------------------------------------------------------------------


def _location(where: str, path: list[int]) -> str:
    """``where[2][1]``; long paths keep their first and last four steps and the level."""
    if len(path) <= 10:
        return where + "".join(f"[{i}]" for i in path)
    head = "".join(f"[{i}]" for i in path[:4])
    tail = "".join(f"[{i}]" for i in path[-4:])
    return f"{where}{head}...{tail} (level {len(path) + 1})"


def _parse_number(text: Any, limits: Limits, loc: str) -> float:
    if not isinstance(text, str):
        raise ValueError(f"{loc}: a number must be a JSON string (such as \"1.5\"), "
                         f"got {type(text).__name__}")
    if len(text) > limits.max_string_length:
        raise ValueError(f"{loc}: number string longer than {limits.max_string_length} "
                         f"characters (limit max_string_length={limits.max_string_length})")
    if _DECIMAL_RE.fullmatch(text):
        value = float(text)
    elif _HEX_RE.fullmatch(text):
        try:
            value = float.fromhex(text)
        except OverflowError:
            value = math.inf
    else:
        raise ValueError(f"{loc}: {_short(text)} is not a number (expected a decimal string "
                         "such as \"-1.5e-3\" or a hex float such as \"0x1.8p+0\")")
    if not math.isfinite(value):
        raise ValueError(f"{loc}: number {_short(text)} is not finite (out of the range of "
                         "double precision)")
    return value


def _leaf(op: str, node: list, limits: Limits, allowed: frozenset[str] | None, where: str,
          path: list[int]) -> hy.expression:
    """Return the expression of a leaf node (arity already checked) at ``where`` + ``path``."""
    if op == "time":
        return hy.time
    if op == "pi":
        return hy.pi
    loc = _location(where, path)  # leaves are short: building the location is cheap enough
    if op == "num":
        return hy.expression(_parse_number(node[1], limits, loc))
    if op == "var":
        name = node[1]
        if not isinstance(name, str):
            raise ValueError(f"{loc}: a variable name must be a JSON string, "
                             f"got {type(name).__name__}")
        if len(name) > limits.max_string_length:
            raise ValueError(f"{loc}: variable name longer than {limits.max_string_length} "
                             f"characters (limit max_string_length={limits.max_string_length})")
        if not _NAME_RE.fullmatch(name):
            raise ValueError(f"{loc}: {_short(name)} is not a valid variable name (letters, "
                             "digits and '_', not starting with a digit)")
        if allowed is not None and name not in allowed:
            names = ", ".join(sorted(allowed)[:12]) + (", ..." if len(allowed) > 12 else "")
            raise ValueError(f"{loc}: variable {name!r} is not allowed here (allowed: "
                             f"{names or 'none'})")
        return hy.expression(name)
    if op == "par":
        index = node[1]
        if isinstance(index, bool) or not isinstance(index, int):
            raise ValueError(f"{loc}: a parameter index must be a JSON integer, "
                             f"got {type(index).__name__}")
        if not 0 <= index <= limits.max_param_index:
            raise ValueError(f"{loc}: parameter index {_short(index)} out of range 0.."
                             f"{limits.max_param_index} (limit max_param_index="
                             f"{limits.max_param_index})")
        return hy.par[index]


def _arity_error(op: str, n_args: int) -> str | None:
    if op in ("num", "var", "par"):
        expected, ok = "1 argument", n_args == 1
    elif op in ("time", "pi"):
        expected, ok = "no arguments", n_args == 0
    elif op in _NARY:
        expected, ok = "2 or more arguments", n_args >= 2
    elif op == "pow":
        expected, ok = "2 arguments", n_args == 2
    else:
        arity = FUNCTIONS[op][1]
        expected, ok = _plural(arity, "argument"), n_args == arity
    return None if ok else f"operation {op!r} takes {expected}, got {n_args}"


def _build(op: str, args: list[hy.expression]) -> hy.expression:
    if op == "sum":
        return hy.sum(args)
    if op == "prod":
        return hy.prod(args)
    if op == "pow":
        return args[0] ** args[1]
    return FUNCTIONS[op][0](*args)


def decode_expression(tree: Any, *, limits: Limits = DEFAULT_LIMITS,
                      allowed_variables: Iterable[str] | None = None,
                      where: str = "expression",
                      budget: NodeBudget | None = None) -> hy.expression:
    """Build the heyoka expression of a JSON tree made by :func:`encode_expression`.

    The tree is walked with an explicit stack (no recursion, neither in Python nor in heyoka)
    and validated completely; anything unexpected is a ValueError whose message names its
    position, such as ``"expression[2][1]: unknown operation 'foo'"``.

    Parameters
    ----------
    tree : Any
        The tree, as returned by ``json.loads`` (lists, strings, ints).
    limits : Limits, optional
        Bounds on depth, number of nodes, string lengths and parameter indices.
    allowed_variables : iterable of str, optional
        If given, the only variable names allowed in the tree.
    where : str, optional
        Name of the tree in error messages (for example ``"user_constraints[0].exprs[1]"``).
    budget : NodeBudget, optional
        A total shared with other trees (those of the same file): every node is charged to
        it, and decoding stops at the first node beyond it.

    Returns
    -------
    heyoka.expression
        The expression, built with heyoka's own constructors (``hy.sum``, ``hy.prod``, ``**``,
        ``hy.sin``, ...).

    Raises
    ------
    ValueError
        If the tree is malformed: a node that is not a non-empty list, an unknown operation,
        a wrong number of arguments, a number that is not a finite decimal or hex string, an
        invalid or disallowed variable name, a parameter index out of range, a JSON value of
        the wrong type, or a tree deeper than ``limits.max_depth``, larger than
        ``limits.max_nodes`` or with strings longer than ``limits.max_string_length``; or a
        tree with more nodes than ``budget`` has left.
    """
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits instance, got {type(limits).__name__}")
    if budget is not None and not isinstance(budget, NodeBudget):
        raise TypeError(f"budget must be a NodeBudget, got {type(budget).__name__}")
    # nodes this tree may have: the per-expression limit, or what the shared budget has left
    cap = limits.max_nodes if budget is None else min(limits.max_nodes, budget.left)
    allowed = None
    if allowed_variables is not None:
        allowed = frozenset(allowed_variables)
        if not all(isinstance(v, str) for v in allowed):
            raise TypeError("allowed_variables must be strings")
    # Each frame: [node, operation, list of built arguments, path].
    stack: list[list] = []
    path: list[int] = []
    n_nodes = 0
    node: Any = tree
    result: hy.expression | None = None
    while True:
        # Visit `node` (at `path`): a leaf is built at once, an operation opens a frame.
        n_nodes += 1
        if n_nodes > cap:
            raise _cap_error(limits, budget, where)
        if len(stack) + 1 > limits.max_depth:
            raise ValueError(f"{_location(where, path)}: {_depth_error(limits)}")
        if not isinstance(node, list):
            raise ValueError(f"{_location(where, path)}: expected a JSON array [operation, "
                             "arguments...], got "
                             f"{'a JSON object' if isinstance(node, dict) else _short(node)}")
        if not node:
            raise ValueError(f"{_location(where, path)}: empty array (expected [operation, "
                             "arguments...])")
        op = node[0]
        if not isinstance(op, str):
            raise ValueError(f"{_location(where, path)}: the operation must be a JSON string, "
                             f"got {_short(op)}")
        if op not in _OPERATIONS:
            raise ValueError(f"{_location(where, path)}: unknown operation {_short(op)}")
        n_args = len(node) - 1
        error = _arity_error(op, n_args)
        if error is not None:
            raise ValueError(f"{_location(where, path)}: {error}")
        built: hy.expression | None = None
        if op in _LEAVES:
            built = _leaf(op, node, limits, allowed, where, path)
        else:
            if n_nodes + n_args > cap:
                raise _cap_error(limits, budget, where)
            stack.append([node, op, [], list(path)])
            path.append(1)
            node = node[1]
            continue
        # Deliver `built` to the enclosing frames, closing every frame that is complete.
        while True:
            if not stack:
                result = built
                if budget is not None:
                    budget.used += n_nodes
                break
            frame = stack[-1]
            frame[2].append(built)
            if len(frame[2]) < len(frame[0]) - 1:
                index = len(frame[2]) + 1
                path = frame[3] + [index]
                node = frame[0][index]
                break
            stack.pop()
            try:
                built = _build(frame[1], frame[2])
            except MemoryError:
                raise
            except Exception as exc:  # heyoka refuses, e.g. x ** 1e300: "bad numeric conversion"
                raise ValueError(f"{_location(where, frame[3])}: heyoka cannot build this "
                                 f"{frame[1]!r}: {exc}") from None
        if result is not None:
            return result


# --------------------------------------------------------------------------------------------
# Encoding: heyoka expression -> JSON tree, through heyoka's own (trusted) serialization
# --------------------------------------------------------------------------------------------


class _LayoutError(Exception):
    """heyoka's serialization did not have the expected layout."""


class _Refused(Exception):
    """The expression uses something outside the whitelist (message for the user)."""


# heyoka function classes of the whitelist: C++ class name -> JSON operation.
_IMPLS = {f"{name}_impl": name for name in FUNCTIONS} | {
    "sum_impl": "sum", "prod_impl": "prod", "pow_impl": "pow", "time_impl": "time"}
# Classes whose serialization has a trailing bool after the arguments (sin/cos "combined").
_TRAILING_BOOL = frozenset({"sin", "cos"})
_FUNC_KEY_RE = re.compile(r"heyoka::func@heyoka::(?:detail::)?(\w+?)(?:_impl)?#ref")
_PI_KEY = "heyoka::callable<true, std::string, unsigned>@heyoka::detail::pi_constant_func#val"
_HEADER = (b"\x16\x00\x00\x00\x00\x00\x00\x00serialization::archive")


class _ArchiveWalker:
    """Iterative reader of the Boost binary archive of one heyoka expression.

    The layout (Boost 1.91, heyoka 7.13): a by-value object writes its class information
    (tracking flag u8, version u32) the first time its class appears, then an object id u32 if
    the class is tracked; a polymorphic pointer writes a class id i16, and for a new class its
    export key and class information, then an object id u32 (an id already seen is a
    reference to a shared object). Containers write a u64 count and a u32 item version,
    variants a u64 index, strings a u64 length.
    """

    def __init__(self, data: bytes, limits: Limits) -> None:
        self.data = data
        self.pos = 0
        self.limits = limits
        self.types: dict[str, tuple[int, bool]] = {}  # by-value class -> (class id, tracked)
        self.n_classes = 0
        self.pointer_classes: dict[int, tuple[str, bool]] = {}  # class id -> (key, tracked)
        self.n_objects = 0
        self.objects: dict[int, Any] = {}  # object id -> (node, height) once complete
        self.shared = False  # whether some sub-tree is referenced more than once

    # -- primitives ------------------------------------------------------------------------
    def _take(self, n: int) -> bytes:
        end = self.pos + n
        if end > len(self.data):
            raise _LayoutError(f"truncated at byte {self.pos}")
        chunk = self.data[self.pos:end]
        self.pos = end
        return chunk

    def u8(self) -> int:
        return self._take(1)[0]

    def i16(self) -> int:
        return struct.unpack("<h", self._take(2))[0]

    def u32(self) -> int:
        return struct.unpack("<I", self._take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self._take(8))[0]

    def f64(self) -> float:
        return struct.unpack("<d", self._take(8))[0]

    def string(self, max_length: int) -> bytes:
        n = self.u64()
        if n > max_length:
            raise _LayoutError(f"string of {n} bytes at byte {self.pos}")
        return self._take(n)

    def by_value(self, cls: str) -> None:
        """Class information and object id of an object saved by value."""
        if cls not in self.types:
            tracked = self.u8()
            self.u32()  # class version
            if tracked > 1:
                raise _LayoutError(f"tracking flag {tracked} at byte {self.pos}")
            self.types[cls] = (self.n_classes, bool(tracked))
            self.n_classes += 1
        if self.types[cls][1]:
            oid = self.u32()
            if oid != self.n_objects:
                raise _LayoutError(f"unexpected object reference {oid} for {cls}")
            self.n_objects += 1

    def pointer(self, static_cls: str | None) -> tuple[str, int | None, bool]:
        """Read a pointer's preamble: (class key, object id, is a reference to a known object).

        ``static_cls`` is the pointee's class for non-polymorphic pointers (no export key),
        ``None`` for polymorphic ones.
        """
        cid = self.i16()
        if cid == -1:
            raise _LayoutError("null pointer")
        if static_cls is not None:
            if static_cls in self.types:
                if cid != self.types[static_cls][0]:
                    raise _LayoutError(f"class id {cid} for {static_cls}")
            else:
                if cid != self.n_classes:
                    raise _LayoutError(f"new class id {cid}, expected {self.n_classes}")
                tracked = self.u8()
                self.u32()
                self.types[static_cls] = (cid, bool(tracked))
                self.n_classes += 1
            key, tracked = static_cls, self.types[static_cls][1]
        elif cid in self.pointer_classes:
            key, tracked = self.pointer_classes[cid]
        else:
            if cid != self.n_classes:
                raise _LayoutError(f"new class id {cid}, expected {self.n_classes}")
            key = self.string(300).decode("ascii", "replace")
            tracked = bool(self.u8())
            self.u32()
            self.pointer_classes[cid] = (key, tracked)
            self.n_classes += 1
        if not tracked:
            return key, None, False
        oid = self.u32()
        if oid < self.n_objects:
            return key, oid, True
        if oid != self.n_objects:
            raise _LayoutError(f"object id {oid}, expected {self.n_objects}")
        self.n_objects += 1
        return key, oid, False

    def header(self) -> None:
        if not self.data.startswith(_HEADER):
            raise _LayoutError("not a Boost serialization archive")
        self.pos = len(_HEADER)
        self.u8()  # library version (u16)
        self.u8()
        sizes = self._take(4)
        if sizes != b"\x04\x08\x04\x08" or self.u32() != 1:
            raise _LayoutError("archive of a platform with other type sizes or byte order")

    # -- heyoka classes ----------------------------------------------------------------------
    def expression_start(self) -> tuple[str, Any]:
        """Read an expression up to its arguments.

        Returns ``("node", (tree, height))`` for a leaf or a shared function seen before, or
        ``("func", frame)`` for a new function whose arguments follow.
        """
        self.by_value("expression")
        self.by_value("expression::variant")
        kind = self.u64()
        if kind == 0:  # number
            self.by_value("number")
            self.by_value("number::variant")
            ntype = self.u64()
            if ntype != 1:
                names = {0: "float", 2: "long double", 3: "real128", 4: "real"}
                raise _Refused(f"a number of type {names.get(ntype, ntype)} is not storable "
                               "(only double precision numbers are)")
            value = self.f64()
            if not math.isfinite(value):
                raise _Refused(f"the number {value} is not finite")
            return "node", (["num", repr(value)], 1)
        if kind == 1:  # variable
            self.by_value("variable")
            raw = self.string(1 << 20)
            name = raw.decode("utf-8", "replace")
            if len(name) > self.limits.max_string_length:
                raise _Refused(f"a variable name is longer than {self.limits.max_string_length} "
                               "characters (limit max_string_length="
                               f"{self.limits.max_string_length})")
            if not _NAME_RE.fullmatch(name):
                raise _Refused(f"the variable name {_short(name)} is not allowed (names "
                               "consist of letters, digits and '_', not starting with a digit)")
            return "node", (["var", name], 1)
        if kind == 3:  # param
            self.by_value("param")
            index = self.u32()
            if index > self.limits.max_param_index:
                raise _Refused(f"the parameter index {index} is too large (limit max_param_index="
                               f"{self.limits.max_param_index})")
            return "node", (["par", index], 1)
        if kind != 2:
            raise _LayoutError(f"expression kind {kind}")
        self.by_value("func")
        self.by_value("func::wrap")
        self.by_value("func::shared_ptr")
        key, oid, shared = self.pointer(None)
        if shared:
            if oid not in self.objects:
                raise _LayoutError(f"reference to incomplete object {oid}")
            self.shared = True
            return "node", self.objects[oid]
        m = _FUNC_KEY_RE.fullmatch(key)
        if m is None:
            raise _LayoutError(f"function class {key!r}")
        impl = m.group(1)
        self.by_value("func::value_iface")
        self.by_value("impl:" + impl)
        self.by_value("func_base")
        name = self.string(1000).decode("utf-8", "replace")
        self.string(1000)  # LLVM name ("prod_neg" for negations)
        op = "pi" if impl == "constant" and name == "pi" else _IMPLS.get(impl + "_impl")
        if op is None or (op != "pi" and name != op):
            raise _Refused(f"operation {_short(name)} is not storable (storable: numbers, "
                           "variables, par[i], time, pi, sum, prod, pow, "
                           f"{', '.join(FUNCTIONS)})")
        self.by_value("func_args")
        self.by_value("func_args::variant")
        shared_args = self.u64()
        args_oid = None
        if shared_args == 0:
            self.by_value("vector<expression>")
        elif shared_args == 1:
            self.by_value("func_args::shared_ptr")
            _, args_oid, is_ref = self.pointer("vector<expression>")
            if is_ref:
                if args_oid not in self.objects:
                    raise _LayoutError(f"reference to incomplete arguments {args_oid}")
                self.shared = True
                args, height = self.objects[args_oid]
                return "func", [op, oid, None, list(args), 0, height]
        else:
            raise _LayoutError(f"func_args kind {shared_args}")
        count = self.u64()
        self.u32()  # item version
        if count > self.limits.max_nodes:
            raise _Refused(f"a {op} with {count} arguments is too large (limit max_nodes="
                           f"{self.limits.max_nodes})")
        # frame: [op, holder oid, args oid, arguments, arguments still to read, max height]
        return "func", [op, oid, args_oid, [], count, 0]

    def function_end(self, frame: list) -> tuple[list, int]:
        """Read what follows the arguments of a function and return (tree, height)."""
        op, oid, args_oid, args, _, height = frame
        if args_oid is not None:
            self.objects[args_oid] = (args, height)
        if op in _TRAILING_BOOL:
            if self.u8() != 0:
                raise _Refused(f"a combined {op} (an internal form of heyoka) is not storable")
        elif op == "pi":
            self._pi_tail()
        node = [op, *args]
        result = (node, height + 1)
        if oid is not None:
            self.objects[oid] = result
        return result

    def _pi_tail(self) -> None:
        self.by_value("callable")  # a tanuki wrap with value semantics
        self.u8()  # its storage type (static or dynamic)
        key, _, shared = self.pointer(None)
        if key != _PI_KEY or shared:
            raise _Refused("a constant other than pi is not storable")
        self.by_value("callable::value_iface")
        self.by_value("pi_constant_func")
        self.by_value("optional<string>")
        if self.u8():
            self.string(100)

    def walk(self) -> list:
        """Return the JSON tree of the whole archive."""
        limits = self.limits
        self.header()
        frames: list[list] = []
        while True:
            if len(frames) + 1 > limits.max_depth:
                raise _Refused(str(_depth_error(limits)))
            kind, item = self.expression_start()
            if kind == "func":
                if item[4] > 0:
                    frames.append(item)
                    continue
                node, height = self.function_end(item)
            else:
                node, height = item
            while True:
                if height > limits.max_depth:
                    raise _Refused(str(_depth_error(limits)))
                if not frames:
                    if self.pos != len(self.data):
                        raise _LayoutError(f"{len(self.data) - self.pos} bytes left over")
                    return _copy_tree(node, limits) if self.shared else node
                top = frames[-1]
                top[3].append(node)
                top[5] = max(top[5], height)
                top[4] -= 1
                if top[4] > 0:
                    break
                frames.pop()
                node, height = self.function_end(top)


def _copy_tree(tree: list, limits: Limits) -> list:
    """Copy a tree so that no list appears twice (iteratively), at most ``limits.max_nodes`` nodes.

    A tree of shared sub-trees can be exponentially larger than its archive.
    """
    root: list = []
    stack = [(tree, root)]
    count = 0
    while stack:
        count += 1
        if count > limits.max_nodes:
            raise _Refused(str(_nodes_error(limits)))
        source, target = stack.pop()
        target.append(source[0])
        if source[0] in _LEAVES:
            target.extend(source[1:])
            continue
        for child in source[1:]:
            copy: list = []
            target.append(copy)
            stack.append((child, copy))
    return root


_STACK_LOCK = threading.Lock()
# C++ stack per level of nesting that heyoka's serializer needs (measured: about 1.4 KiB),
# with a margin, plus a base; expressions of at most _SMALL_EXPRESSION nodes (so at most that
# deep: under 100 KiB of stack) are serialized in the calling thread.
_STACK_PER_NODE = 3 << 10
_STACK_BASE = 1 << 20
_STACK_MAX = 1 << 30
_SMALL_EXPRESSION = 64


def _serialized(expr: hy.expression, n_nodes: int) -> bytes:
    """Heyoka's serialization of ``expr``, in a thread whose stack fits its depth.

    Boost's serializer recurses once per level and the depth is at most ``n_nodes``, so the
    work runs in a helper thread with a stack of ``n_nodes * 3 KiB + 1 MiB``, whatever the
    stack of the calling thread.
    """
    if n_nodes <= _SMALL_EXPRESSION:
        return expr.__getstate__()[0]
    out: list = []

    def run() -> None:
        try:
            out.append(expr.__getstate__()[0])
        except BaseException as exc:  # pragma: no cover - re-raised below
            out.append(exc)

    size = min(_STACK_MAX, (n_nodes * _STACK_PER_NODE + _STACK_BASE) & ~0xFFFF)
    with _STACK_LOCK:
        old = threading.stack_size(size)
        try:
            thread = threading.Thread(target=run, name="quivira-expression-codec")
            thread.start()
        finally:
            threading.stack_size(old)
    thread.join()
    if isinstance(out[0], BaseException):  # pragma: no cover
        raise out[0]
    return out[0]


def _format_tree(tree: Any, max_chars: int = 60) -> str:
    """Return a short function-call text of a (valid) tree, such as ``exp(prod(-1.0, x))``."""
    parts: list[str] = []
    stack: list[Any] = [tree]
    length = 0
    while stack and length <= max_chars:
        item = stack.pop()
        if isinstance(item, str):
            text = item
        elif item[0] == "num":
            text = item[1]
        elif item[0] == "var":
            text = item[1]
        elif item[0] == "par":
            text = f"par[{item[1]}]"
        elif item[0] in ("time", "pi"):
            text = item[0]
        else:
            text = item[0] + "("
            stack.append(")")
            for i in range(len(item) - 1, 0, -1):
                stack.append(item[i])
                if i > 1:
                    stack.append(", ")
        parts.append(text)
        length += len(text)
    text = "".join(parts)
    return text if not stack and len(text) <= max_chars else text[:max_chars] + "..."


def _trees_differ(a: list, b: list) -> bool:
    """Whether two valid trees differ (iteratively: trees may be deeper than Python's stack)."""
    stack: list[tuple[list, list]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x[0] != y[0] or len(x) != len(y):
            return True
        if x[0] in _LEAVES:
            if x != y:
                return True
            continue
        stack.extend(zip(x[1:], y[1:]))
    return False


def _tree_of(expr: hy.expression, limits: Limits) -> list | None:
    """Return the walker's tree of ``expr`` without verification, or None if it cannot be walked."""
    n_nodes = len(expr)
    if n_nodes == 0 or n_nodes > limits.max_nodes:
        return None
    try:
        return _ArchiveWalker(_serialized(expr, n_nodes), limits).walk()
    except (_Refused, _LayoutError, struct.error):
        return None


def _not_reproducible(tree: list, limits: Limits) -> ValueError:
    """Return the error for a tree that heyoka's constructors rebuild differently.

    Finds the first node (in post-order) that its constructor, applied to its own arguments,
    builds in another form, such as ``exp(-1.0)`` left unevaluated by ``hy.subs`` (heyoka's
    ``hy.exp`` folds it into a number) or a sum whose constant is not its first term.
    """
    message = ("cannot store expression: heyoka's constructors rebuild it differently (it was "
               "probably made by hy.subs or another transformation that leaves, for example, "
               "functions of constants unevaluated), so it would not load back identical")
    # Frames: [node, path, built arguments].
    stack: list[list] = [[tree, [], []]]
    while stack:
        node, path, built = stack[-1]
        if node[0] in _LEAVES or len(built) == len(node) - 1:
            stack.pop()
            if node[0] in _LEAVES:
                expr = decode_expression(node, limits=limits)
            else:
                expr = _build(node[0], built)
                rebuilt = _tree_of(expr, limits)
                if rebuilt is None or _trees_differ(node, rebuilt):
                    where = "".join(f"[{i}]" for i in path)
                    where = f"at {where}" if where else "(the whole expression)"
                    new = "something else" if rebuilt is None else _format_tree(rebuilt)
                    return ValueError(f"{message}; the sub-expression {where}, "
                                      f"{_format_tree(node)}, is rebuilt as {new}")
            if stack:
                stack[-1][2].append(expr)
            continue
        index = len(built) + 1
        stack.append([node[index], path + [index], []])
    return ValueError(message)  # pragma: no cover - the whole tree differs somewhere


def encode_expression(expr: hy.expression, *, limits: Limits = DEFAULT_LIMITS) -> list:
    """Return the JSON tree of a heyoka expression (see the module documentation for the format).

    The tree reproduces heyoka's structure exactly; the encoding is verified by decoding it
    and comparing with ``expr`` (heyoka's structural ``==``), so a returned tree always decodes
    to an expression identical to ``expr``.

    Parameters
    ----------
    expr : heyoka.expression
        The expression, made of double-precision numbers, variables with names matching
        ``[A-Za-z_][A-Za-z0-9_]*``, runtime parameters, ``hy.time``, ``hy.pi``, sums,
        products, powers and the functions of :data:`FUNCTIONS`, in the form heyoka's
        constructors and operators build.
    limits : Limits, optional
        Bounds on depth, number of nodes, string lengths and parameter indices.

    Returns
    -------
    list
        The tree: nested lists of strings and ints, ready for ``json.dumps``. Shared
        sub-expressions are written out at each occurrence.

    Raises
    ------
    TypeError
        If ``expr`` is not a heyoka expression.
    ValueError
        Starting with "cannot store expression: ", if the expression uses an operation outside
        the whitelist (the message names it), a number that is not a finite double, a variable
        name that is not allowed, exceeds a limit (the message names it), or would not decode
        back identical (the message names the first sub-expression that differs).
    """
    if not isinstance(expr, hy.expression):
        raise TypeError(f"expected a heyoka expression, got {type(expr).__name__}")
    if not isinstance(limits, Limits):
        raise TypeError(f"limits must be a Limits instance, got {type(limits).__name__}")
    # heyoka counts the nodes of the tree iteratively, a shared sub-expression once per
    # occurrence; 0 means that the count overflowed.
    n_nodes = len(expr)
    if n_nodes == 0 or n_nodes > limits.max_nodes:
        error = _nodes_error(limits, count=n_nodes or None)
        raise ValueError(f"cannot store expression: {error}")
    data = _serialized(expr, n_nodes)
    try:
        tree = _ArchiveWalker(data, limits).walk()
    except _Refused as exc:
        raise ValueError(f"cannot store expression: {exc}") from None
    except (_LayoutError, struct.error) as exc:
        raise ValueError(f"cannot store expression: heyoka's serialization has an unexpected "
                         f"layout ({exc}); heyoka.py {hy.__version__} may be unsupported"
                         ) from None
    try:
        decoded = decode_expression(tree, limits=limits)
    except ValueError as exc:
        raise ValueError(f"cannot store expression: {exc}") from None
    if not decoded == expr:
        raise _not_reproducible(tree, limits)
    return tree


def check_storable(expr: hy.expression, limits: Limits = DEFAULT_LIMITS) -> None:
    """Raise ValueError unless ``expr`` can be stored and loaded back identical.

    This is :func:`encode_expression` (which decodes its result and compares it with the
    original) without the result; call it when an expression enters a model, so that every
    model that saves also loads.

    Parameters
    ----------
    expr : heyoka.expression
        The expression.
    limits : Limits, optional
        The limits the stored expression must respect.

    Raises
    ------
    TypeError
        If ``expr`` is not a heyoka expression.
    ValueError
        With the reason, if the expression cannot be stored.
    """
    encode_expression(expr, limits=limits)


def tree_from_legacy_pickle(data: bytes, *, limits: Limits = DEFAULT_LIMITS) -> list:
    """Read the JSON tree of an expression from quivira's version-1 model files.

    Those files store a pickle of a heyoka expression; it is read **without unpickling**.

    The pickle's opcodes are only listed (:func:`pickletools.genops` executes nothing); it must
    be exactly the pickle of one ``heyoka._core.expression`` whose state is one byte string,
    and those bytes are read by the same iterative, limited walker as heyoka's own
    serialization. Anything else is a ValueError.
    """
    import pickletools

    if not isinstance(data, bytes):
        raise ValueError("expected the bytes of a pickle")
    if len(data) > 16 * limits.max_nodes * 64 + 4096:
        raise ValueError(f"pickled expression of {len(data)} bytes is too large")
    names, states = [], []
    allowed = {"PROTO", "FRAME", "SHORT_BINUNICODE", "BINUNICODE", "MEMOIZE", "STACK_GLOBAL",
               "EMPTY_TUPLE", "NEWOBJ", "BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "EMPTY_DICT",
               "TUPLE2", "BUILD", "STOP", "BINPUT", "BINGET", "MARK", "TUPLE"}
    try:
        for op, arg, _ in pickletools.genops(data):
            if op.name not in allowed:
                raise ValueError(f"unexpected pickle operation {op.name}")
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE"):
                names.append(arg)
            elif op.name in ("BINBYTES", "SHORT_BINBYTES", "BINBYTES8"):
                states.append(arg)
    except ValueError:
        raise
    except Exception as exc:  # a malformed pickle of any kind
        raise ValueError(f"not a pickled expression ({type(exc).__name__})") from None
    if names != ["heyoka._core", "expression"] or len(states) != 1:
        raise ValueError("not the pickle of one heyoka expression")
    try:
        return _ArchiveWalker(states[0], limits).walk()
    except _Refused as exc:
        raise ValueError(str(exc)) from None
    except (_LayoutError, struct.error, UnicodeDecodeError, OverflowError, MemoryError) as exc:
        raise ValueError(f"not a heyoka expression archive ({exc})") from None

"""The side-by-side benchmark's cases and peers, as data.

:data:`FAMILIES` lists the mechanisms (their quivira builder, the sizes of the full and the
quick run, which peers run them and for how long); :data:`PEERS` lists the tools, each a
function of :mod:`quivira_oracles.peers` run in a fresh process by
:func:`benchmarks.harness.run_in_process`, with what it imports before its clock starts. A case
name is ``FAMILY-SIZE`` (``four_bar`` has no size); the mechanism of a case is read from its
quivira model by :func:`quivira_oracles.peers.mechanism` and handed to each peer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

#: the modules every worker imports first: the peers' shared pieces and the quivira examples
#: the mechanisms are read from (imports are excluded from every tool's figures)
_COMMON = ("quivira_oracles.peers",)
_EXAMPLES = ("quivira.examples",)


@dataclass(frozen=True)
class Peer:
    """A tool of the benchmark: ``module.function(case, **kwargs)`` returns its record."""

    module: str
    function: str
    preload: tuple[str, ...]
    kwargs: dict = field(default_factory=dict)


#: the worker tools: a tool of the table (``exudyn_h1e-3``) is a worker with fixed arguments
WORKERS = {
    "quivira": Peer("quivira_oracles.peers.quivira_peer", "run",
                    _COMMON + ("quivira",) + _EXAMPLES),
    "sympy_scipy": Peer("quivira_oracles.peers.sympy_scipy", "run",
                        _COMMON + ("sympy.physics.mechanics", "scipy.integrate") + _EXAMPLES),
    "exudyn": Peer("quivira_oracles.peers.exudyn_peer", "run",
                   _COMMON + ("exudyn", "exudyn.itemInterface") + _EXAMPLES),
    "iftomm_quivira": Peer("quivira_oracles.peers.iftomm", "run_quivira",
                           _COMMON + ("quivira_oracles.iftomm", "scipy.integrate", "quivira")
                           + _EXAMPLES),
    "iftomm_exudyn": Peer("quivira_oracles.peers.iftomm", "run_exudyn",
                          _COMMON + ("quivira_oracles.iftomm", "scipy.integrate", "exudyn",
                                     "exudyn.itemInterface") + _EXAMPLES),
}

#: the tools of the table: quivira and its peers (name -> worker, fixed keyword arguments)
PEERS = {
    "quivira": ("quivira", {}),
    "sympy_scipy": ("sympy_scipy", {}),
    "exudyn_h1e-3": ("exudyn", {"h": 1e-3}),
    "exudyn_h1e-4": ("exudyn", {"h": 1e-4}),
}
TOOLS = tuple(PEERS)


@dataclass(frozen=True)
class Family:
    """Mechanisms of one kind: ``builder`` (in :mod:`quivira.examples` or
    :mod:`quivira_oracles.peers`) at each size; ``simulated`` says for how long."""

    name: str
    builder: str
    full: tuple
    quick: tuple
    simulated: str


FAMILIES = (
    Family("chain", "quivira.examples.chain(N)", (2, 4, 8, 16, 32, 64, 128), (2, 4, 8),
           "10 s (quick run 1 s)"),
    Family("four_bar", "quivira.examples.four_bar()", (None,), (None,), "10 s (quick run 1 s)"),
    Family("scissor", "quivira.examples.scissor(C)", (2, 4, 8, 32, 64), (2,),
           "0.3 s, 1 s from 32 cells"),
    Family("wall", "quivira_oracles.peers.scissor_wall(M, C)", ("16x16",), (), "1 s"),
)

#: cases larger than this many bars skip SymPy (it passes the cut-off from chain-64 on)
SYMPY_MAX_BARS = 64
#: the quick run's SymPy cases (its other cases run quivira and Exudyn h = 1e-3 only)
SYMPY_QUICK = ("chain-2", "chain-4", "four_bar", "scissor-2")
QUICK_PEERS = ("quivira", "exudyn_h1e-3")


def case_names(quick: bool) -> list[str]:
    """The cases of the full or the quick run, in the table's order."""
    out = []
    for fam in FAMILIES:
        for size in fam.quick if quick else fam.full:
            out.append(fam.name if size is None else f"{fam.name}-{size}")
    return out


def tools_of(case: str, n_bars: int, quick: bool) -> list[str]:
    """The tools that run ``case`` (of ``n_bars`` bars)."""
    if quick:
        return list(QUICK_PEERS) + (["sympy_scipy"] if case in SYMPY_QUICK else [])
    return [t for t in TOOLS if t != "sympy_scipy" or n_bars <= SYMPY_MAX_BARS]

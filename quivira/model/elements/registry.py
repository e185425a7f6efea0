"""The registry of element kinds: each kind class registers itself with a declared rank.

A kind module decorates its class::

    @register(rank=1100)
    @dataclass
    class Distance(TwoBodies, Constraint):
        kind = "distance"
        collection = "distances"
        ...

and :mod:`quivira.model.elements` imports the module, then builds ``KINDS``, ``BY_COLLECTION``
and ``BY_KIND`` from the registrations (:meth:`Registry.kinds`).

**The rank is the kind's place in** ``KINDS``, which is the order of the constraint rows
(holonomic rows of every kind first, then velocity rows, each in kind order), of the
runtime parameters and of the lists in model files. Results and files depend on it, so a
kind's rank never changes. Ranks are spaced by 100 so that a new kind takes a free rank
between two others without renumbering them (constraints before loads, events last).

Registration rejects a class that is not an element, a kind key, collection name or rank
that another kind already has, and any registration after ``KINDS`` was built (the kind
would be missing from models, files and parameters).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from .base import Element

E = TypeVar("E", bound=type[Element])


class Registry:
    """The element kinds registered so far, by rank (see the module docstring)."""

    def __init__(self) -> None:
        self._by_rank: dict[int, type[Element]] = {}
        self._frozen = False

    def register(self, rank: int) -> Callable[[E], E]:
        """Return a class decorator that registers an element kind at ``rank``.

        Parameters
        ----------
        rank : int
            The kind's place in ``KINDS`` (smaller first); unique among kinds.

        Returns
        -------
        callable
            The decorator; it returns the class unchanged.

        Raises
        ------
        TypeError
            ``rank`` is not an int, or the decorated object is not a subclass of
            :class:`~.base.Element`.
        ValueError
            The class has no ``kind``/``collection``, or its rank, kind key or collection
            name is taken by another registered kind.
        RuntimeError
            ``KINDS`` was already built from this registry.
        """
        if isinstance(rank, bool) or not isinstance(rank, int):
            raise TypeError(f"register: rank must be an int, got {rank!r}")

        def decorate(cls: E) -> E:
            self._add(cls, rank)
            return cls

        return decorate

    def _add(self, cls: type, rank: int) -> None:
        """Check ``cls`` against the registered kinds, then register it at ``rank``."""
        if not (isinstance(cls, type) and issubclass(cls, Element)):
            raise TypeError(f"register: expected an Element subclass, got {cls!r}")
        who = cls.__name__
        if self._frozen:
            raise RuntimeError(f"register({who}): the element kinds are already built; a kind "
                               "registers when its module is imported by "
                               "quivira.model.elements")
        if not cls.kind or not cls.collection:
            raise ValueError(f"register({who}): the class must declare its kind key and "
                             f"collection name, got kind={cls.kind!r}, "
                             f"collection={cls.collection!r}")
        for other_rank, other in self._by_rank.items():
            for attr, mine, theirs in (("rank", rank, other_rank),
                                       ("kind key", cls.kind, other.kind),
                                       ("collection name", cls.collection, other.collection)):
                if mine == theirs:
                    raise ValueError(f"register({who}): {attr} {mine!r} is already taken by "
                                     f"{other.__name__}; choose another")
        self._by_rank[rank] = cls

    def kinds(self) -> tuple[type[Element], ...]:
        """Return the registered kinds by rank, and close the registry to new kinds."""
        self._frozen = True
        return tuple(self._by_rank[r] for r in sorted(self._by_rank))

    def rank(self, cls: type[Element]) -> int:
        """Return the rank a kind was registered with (ValueError if it is not registered)."""
        for r, k in self._by_rank.items():
            if k is cls:
                return r
        raise ValueError(f"{cls!r} is not a registered element kind")


#: the registry of quivira's element kinds
REGISTRY = Registry()
#: the decorator registering a kind in :data:`REGISTRY`: ``@register(rank=...)``
register = REGISTRY.register

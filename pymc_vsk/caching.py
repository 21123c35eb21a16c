"""Compiled functions cached with the object they belong to.

Compiling a pytensor function costs far more than calling it, and the models of this package
are fitted, predicted from and evaluated many times. Every compiled function is therefore
kept with its owner (a ``pm.Model``, a GP, a scaling function), in an attribute of the owner
(or, for an owner without one, in a weak cache): the entry lives as long as the owner does,
even when the compiled function refers to its owner, and a different set of options (the
``key``) gets its own entry. A copy or a pickle of the owner starts with no entries.
Compiled functions read data containers when called, so data swapped with ``pm.set_data``
are seen without recompiling.

The first entry built in a process starts the announcement of compilations
(:func:`pymc_vsk.progress.announce_compilation`): compiling a model takes seconds to a
minute on a first run, which the command line (or :func:`pymc_vsk.progress.show`) says.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable

from pymc_vsk.progress import announce_compilation

__all__ = ["cache_entries", "cached", "is_cached", "model_structure"]

#: Name of the attribute that holds an owner's entries.
_ATTRIBUTE = "_pymc_vsk_cache"

#: Entries of owners that take no attribute (no ``__dict__``). A value that refers to its owner
#: keeps the owner alive here; with the attribute, owner and entries are a cycle that the
#: garbage collector frees.
_STORE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


class _Entries(dict):
    """An owner's cached values; a copy or a pickle of the owner gets an empty one."""

    def __reduce__(self) -> tuple:
        return _Entries, ()

    def __copy__(self) -> _Entries:
        return _Entries()

    def __deepcopy__(self, memo: dict) -> _Entries:
        return _Entries()


def _entries(owner: object, create: bool) -> dict:
    """The entries of ``owner`` (an empty dict when it has none and ``create`` is False)."""
    attributes = getattr(owner, "__dict__", None)
    if isinstance(attributes, dict):
        entries = attributes.get(_ATTRIBUTE)
        if entries is None and create:
            entries = attributes[_ATTRIBUTE] = _Entries()
        return {} if entries is None else entries
    if create:
        return _STORE.setdefault(owner, {})
    return _STORE.get(owner, {})


def cached[T](owner: object, kind: str, key: Hashable, build: Callable[[], T]) -> T:
    """Return the cached value for ``(kind, key)`` of ``owner``, building it on first use.

    Parameters
    ----------
    owner : object
        The object the value belongs to, not kept alive by the cache; it must take
        attributes or support weak references.
    kind : str
        What is cached (e.g. ``"objective"``, ``"predictor"``), so that one owner can hold
        several kinds of compiled functions.
    key : hashable
        The options the value depends on (e.g. a compilation mode, a jitter).
    build : callable
        ``build() -> value``, called once per ``(owner, kind, key)``.

    Returns
    -------
    object
        The value returned by ``build``.
    """
    per_owner = _entries(owner, create=True)
    if (kind, key) not in per_owner:
        announce_compilation()
        per_owner[kind, key] = build()
    return per_owner[kind, key]


def is_cached(owner: object, kind: str, key: Hashable) -> bool:
    """Whether :func:`cached` holds a value for ``(kind, key)`` of ``owner``.

    Parameters
    ----------
    owner : object
    kind : str
    key : hashable

    Returns
    -------
    bool
    """
    return (kind, key) in _entries(owner, create=False)


def model_structure(model: object) -> tuple[str, ...]:
    """The names of a model's variables, in the order they were added: a cache key part.

    A function compiled from a ``pm.Model`` stays right when the model's data change
    (it reads its data containers when called), but not when variables are added to the
    model afterwards (a ``pm.Potential``, another observed variable, a ``pm.Deterministic``):
    the compiled function would go on without them. Every variable added changes this key.

    Parameters
    ----------
    model : pm.Model

    Returns
    -------
    tuple of str
    """
    return tuple(model.named_vars)


def cache_entries(owner: object, kind: str) -> list:
    """The values cached for ``owner`` under ``kind``, in the order they were built.

    Parameters
    ----------
    owner : object
    kind : str

    Returns
    -------
    list
    """
    return [value for (k, _), value in _entries(owner, create=False).items() if k == kind]

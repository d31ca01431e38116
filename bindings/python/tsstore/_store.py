"""The store: one class, Store, made of the parts that each hold one concern (opening,
adding, reading, catalog queries, changes, associations, upkeep)."""
from __future__ import annotations

from typing import Any

from ._adding import Adding, Batch
from ._associations import Associations
from ._catalog import Catalog
from ._editing import Editing
from ._lifecycle import Lifecycle
from ._maintenance import Maintenance
from ._reading import Reading

__all__ = ["Store", "Batch"]


class Store(Lifecycle, Adding, Reading, Catalog, Editing, Associations, Maintenance):
    """An open store: <name>.nc (the arrays) and <name>.nc.sqlite (the catalog).

    Make one with Store.create, Store.open or Store.in_memory; close() (safe twice) or a with
    block releases it. Threads may share a store: the library serialises calls on it. A closed
    store raises InvalidHandleError on every call.
    """


def _functions(value: Any) -> list:
    """The functions behind a class attribute: a method, the one a classmethod, staticmethod
    or property holds, and those a decorator wrapped (functools.wraps' __wrapped__)."""
    if isinstance(value, (classmethod, staticmethod)):
        value = value.__func__
    elif isinstance(value, property):
        return [f for f in (value.fget, value.fset, value.fdel) if f is not None]
    out = []
    while callable(value) and hasattr(value, "__qualname__"):
        out.append(value)
        value = getattr(value, "__wrapped__", None)
    return out


def _named_as_store(cls: type) -> None:
    """Names the methods Store takes from its parts Store.<name>, as when they were written
    in one class: Python words the TypeError of a bad call with that name ("Store.get_many()
    missing 1 required positional argument"), and help() and reprs show it."""
    for part in cls.__mro__[1:-1]:
        for name, value in vars(part).items():
            for fn in _functions(value):
                fn.__qualname__ = f"{cls.__name__}.{name}"


_named_as_store(Store)

"""Transactions and upkeep of a store: transaction, compact and verify_integrity."""
from __future__ import annotations

import contextlib
from typing import Any, Iterator, TypeVar

from ._ffi import byref, check, lib, raw, sizeof
from ._cstructs import handle_out, strings_of
from ._handle import StoreHandle

# The class these calls are made on, Store (which imports this module), as help() shows it.
Store = TypeVar("Store", bound="Maintenance")


class Maintenance(StoreHandle):
    """Store's transactions and upkeep."""

    @contextlib.contextmanager
    def transaction(self: "Store") -> Iterator["Store"]:
        """A transaction: committed when the block ends (durably when it is the outermost),
        rolled back — rows, arrays and removals — if it raises. Nests."""
        h = self._handle()
        check(lib.tsstore_begin(h))
        try:
            yield self
        except BaseException:
            if self._h:  # a store closed inside the block rolled the transaction back itself
                check(lib.tsstore_rollback(h))
            raise
        check(lib.tsstore_commit(h))

    def compact(self, rewrite: bool = False) -> dict[str, int]:
        """Commits pending writes and deletes unreferenced feature sets; reports
        slots_reclaimed, datasets_dropped, feature_sets_reclaimed and dead_standalone.

        With ``rewrite=True`` it then writes the live series into a new pair of files and
        replaces the old pair with it atomically, giving back the space of removed series
        (the report counts what the old pair held). The store stays open on the new pair."""
        if not isinstance(rewrite, bool):
            raise TypeError(f"compact: rewrite must be True or False, not {rewrite!r}")
        rep = raw.tsstore_compact_report()
        rep.struct_size = sizeof(rep)
        call = lib.tsstore_compact_rewrite if rewrite else lib.tsstore_compact
        check(call(self._handle(), byref(rep)))
        return {name: getattr(rep, name) for name in
                ("slots_reclaimed", "datasets_dropped", "feature_sets_reclaimed", "dead_standalone")}

    def verify_integrity(self) -> dict[str, Any]:
        """Rehashes every array and checks every row: {'arrays_checked': n, 'problems':
        [one description per problem]} (an empty list: the store is sound)."""
        rep = raw.tsstore_integrity_report()
        rep.struct_size = sizeof(rep)
        out = handle_out()
        check(lib.tsstore_verify_integrity(self._handle(), byref(rep), byref(out)))
        try:
            return {"arrays_checked": rep.arrays_checked, "problems": strings_of(out)}
        finally:
            lib.tsstore_strings_free(out)

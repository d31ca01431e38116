"""Opening, closing and setting up a store: create, open, in_memory, close, flush, persist,
the write buffer and the read cache."""
from __future__ import annotations

import errno
import os
from typing import Any, TypeVar

from . import _convert as cv
from ._args import int64_arg, path_arg
from ._errors import IncompatibleFormatError, IntegrityError, TsStoreError, TsStoreIOError, in_operation, operation
from ._ffi import byref, check, lib, raw, text
from ._cstructs import handle_out
from ._handle import StoreHandle

# The class these calls are made on, Store (which this module cannot import: Store imports
# it), named so that help() shows what they return.
Store = TypeVar("Store", bound="Lifecycle")


class Lifecycle(StoreHandle):
    """Store's calls that open, close and set up a store."""

    @classmethod
    def _opened(cls: type["Store"], call: Any, *args: Any) -> "Store":
        out = handle_out()
        check(call(*args, byref(out)))
        return cls(out.value)

    @classmethod
    def create(cls: type["Store"], path: "str | bytes | os.PathLike[Any]", *,
               compression: str = "deflate:3:shuffle") -> "Store":
        """Creates a new store at path (path and path + '.sqlite' must not exist); path is a
        str, bytes or os.PathLike. compression: "none", "deflate:N:shuffle" or
        "deflate:N:noshuffle" (N 0–9). A missing directory raises FileNotFoundError."""
        try:
            p = path_arg(path)
            directory = os.path.dirname(os.path.abspath(os.fsdecode(p))) or "."
            if not os.path.isdir(directory):
                raise FileNotFoundError(errno.ENOENT, "Store.create: no such directory",
                                        directory)
            return cls._opened(lib.tsstore_create, p, cv.text_arg(compression, "compression"))
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "Store.create") from None

    @classmethod
    def open(cls: type["Store"], path: "str | bytes | os.PathLike[Any]", *, read_only: bool = False) -> "Store":
        """Opens an existing store (path: str, bytes or os.PathLike); read_only needs no
        write permission and refuses writes with ReadOnlyError. A file that is not a
        tsstore store raises IntegrityError saying so; a store that cannot be written raises
        TsStoreIOError saying that (open it with read_only=True)."""
        try:
            p = path_arg(path)
            try:
                return cls._opened(lib.tsstore_open, p, 1 if read_only else 0)
            except (IncompatibleFormatError, TsStoreIOError) as e:
                raise _open_error(e, os.fsdecode(p), read_only) from None
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "Store.open") from None

    @classmethod
    def in_memory(cls: type["Store"], *, compression: str = "deflate:3:shuffle") -> "Store":
        """A store that lives in memory until persist() writes it out."""
        return cls._opened(lib.tsstore_open_in_memory, cv.text_arg(compression, "compression"))

    def close(self) -> None:
        """Commits pending writes and closes the store; closing twice is harmless."""
        with self._lock:
            h, self._h = self._h, None
        if h:
            check(lib.tsstore_close(h))

    def __enter__(self: "Store") -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A store never closed is closed when collected, committing what was pending. The
        # finaliser may run between any two calls of any thread: nothing the library hands
        # out lives in a thread, so closing here changes nothing another call reads.
        h, self._h = getattr(self, "_h", None), None
        if h:
            lib.tsstore_close(h)

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return not self._h

    @property
    def last_error(self) -> str:
        """The message of the last failed call on this store, from any thread."""
        return text(lib.tsstore_store_last_error, self._handle())

    @property
    def recovered(self) -> str:
        """What opening the store rolled back ("" if nothing): a writer that died in the middle
        of a write leaves a hot journal beside the NetCDF file, and the next writable open
        restores the file from it to its last commit."""
        return text(lib.tsstore_store_recovered, self._handle())

    def flush(self) -> None:
        """Makes every write so far durable (outside a transaction)."""
        check(lib.tsstore_flush(self._handle()))

    @operation("persist")
    def persist(self, path: "str | bytes | os.PathLike[Any]") -> None:
        """Writes an in-memory store to path and path + '.sqlite'."""
        check(lib.tsstore_persist(self._handle(), path_arg(path)))

    def set_write_buffer(self, nbytes: int) -> None:
        """How many bytes of added arrays the store holds before writing them out (default
        256 MiB); one-at-a-time adds are written in blocks of this size."""
        check(lib.tsstore_set_write_buffer(self._handle(), int64_arg(nbytes, "nbytes")))

    def set_read_cache(self, nbytes: int) -> None:
        """How many bytes of decoded columns the store keeps for one-at-a-time reads (default
        64 MiB; 0 turns it off). Reading one SingleTimeSeries decompresses every chunk of its
        packed dataset, so the store keeps the neighbouring columns it decoded with it: a
        loop of get_time_series over many components then costs a few passes, not one each."""
        check(lib.tsstore_set_read_cache(self._handle(), int64_arg(nbytes, "nbytes")))


def _open_error(e: TsStoreError, path: str, read_only: bool) -> TsStoreError:
    """What an open's failure means to the user: a file without the store's version
    attribute is not a store at all; a store that cannot be opened for writing, where it
    can be read, is not writable (never "damaged")."""
    if isinstance(e, IncompatibleFormatError) and "unspecified" in str(e):
        return IntegrityError(f"Store.open: {path!r} is not a tsstore store (it is a NetCDF file without the "
                              "data_format_version attribute every store carries)", raw.TSSTORE_E_INTEGRITY)
    if isinstance(e, TsStoreIOError) and not read_only:
        unwritable = [f for f in (path, path + ".sqlite") if os.path.exists(f) and not _writable(f)]
        if unwritable:
            return TsStoreIOError(f"Store.open: {unwritable[0]!r} is not writable; open the store with "
                                  "read_only=True, or give the process write permission (the store itself is "
                                  "not damaged)", e.status)
    return e


def _writable(path: str) -> bool:
    """Whether this process can open path for writing (os.access answers for root without
    asking the file system, so the file is opened)."""
    try:
        with open(path, "r+b"):
            return True
    except OSError:
        return False

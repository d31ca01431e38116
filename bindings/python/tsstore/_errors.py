"""Exceptions: one class per status of the C library, all under TsStoreError."""
from __future__ import annotations


class TsStoreError(Exception):
    """Base of every error the library reports; ``status`` is its C status code and the
    message is the library's own."""

    status = -1

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidParameterError(TsStoreError, ValueError):
    """A bad argument; the message names it and its value."""
    status = 1


class NotFoundError(TsStoreError, KeyError):
    """No such series, array or association."""
    status = 2

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DuplicateTimeSeriesError(TsStoreError):
    """The key is already stored."""
    status = 3


class DuplicateAssociationError(TsStoreError):
    """The pair is already associated."""
    status = 4


class IntegrityError(TsStoreError):
    """The two files of the store disagree with each other."""
    status = 5


class ReadOnlyError(TsStoreError):
    """A write on a store opened read-only."""
    status = 6


class TsStoreIOError(TsStoreError, OSError):
    """netcdf-c, HDF5, SQLite or the operating system failed."""
    status = 7


class IncompatibleFormatError(TsStoreError):
    """The store's data_format_version is not the one this library reads."""
    status = 8


class InternalError(TsStoreError):
    """A bug in tsstore: please report the message."""
    status = 9


class BufferTooSmallError(TsStoreError):
    """A buffer was too small (the binding sizes its buffers, so this means a bug)."""
    status = 10


class InvalidHandleError(TsStoreError):
    """A handle was used after it was closed or freed."""
    status = 11


_BY_STATUS = {cls.status: cls for cls in (
    InvalidParameterError, NotFoundError, DuplicateTimeSeriesError, DuplicateAssociationError,
    IntegrityError, ReadOnlyError, TsStoreIOError, IncompatibleFormatError, InternalError,
    BufferTooSmallError, InvalidHandleError)}


def error_for(status: int, message: str) -> TsStoreError:
    """The exception for a status, carrying the library's message."""
    cls = _BY_STATUS.get(status, TsStoreError)
    return cls(message, status)

"""Exceptions: one class per status of the C library, all under TsStoreError."""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


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


# The C library names struct fields ("desc.shape[0]", "descs[3].features_json",
# "which.name"); a Python caller gave arguments. What each field was called in Python:
_DESC_FIELDS = {"features_json": "features", "timestamps_ms": "ts.timestamps", "shape": "ts.data",
                "data": "ts.data", "nbytes": "ts.data", "dtype": "ts.data", "name": "ts.name",
                "resolution": "ts.resolution", "horizon": "ts.horizon", "interval": "ts.interval",
                "count": "ts.count", "percentiles": "ts.percentiles", "n_percentiles": "ts.percentiles",
                "initial_ms": "ts.initial_timestamp", "series_type": "ts"}
_LOOKUP_FIELDS = {"features_json": "features", "series_type": "time_series_type", "owner_id": "owner"}
_LIB_OP = re.compile(r"^tsstore: (?:[a-z_]+: )?")
_FIELD = re.compile(r"\b(descs?|which|lookup|filter)(\[\d+\])?\.(\w+)")


def _python_field(m: "re.Match[str]") -> str:
    struct, index, field = m.group(1), m.group(2) or "", m.group(3)
    if struct.startswith("desc"):
        return (f"items{index}: " if index else "") + _DESC_FIELDS.get(field, field)
    return (f"keys{index}: " if index else "") + _LOOKUP_FIELDS.get(field, field)


def pythonic(message: str) -> str:
    """The library's message with C struct fields renamed to the Python arguments."""
    return _ELEMENT.sub(_python_element, _FIELD.sub(_python_field, message))


# An element named whole ("descs[5]: … is also item 3 of this batch").
_ELEMENT = re.compile(r"\b(descs|which)(\[\d+\]):")


def _python_element(m: "re.Match[str]") -> str:
    return ("items" if m.group(1) == "descs" else "keys") + m.group(2) + ":"


def in_operation(e: BaseException, op: str, message: "str | None" = None) -> BaseException:
    """An exception of e's class whose message starts with the operation and names Python
    arguments (e itself when it already does)."""
    text = pythonic(str(e) if message is None else message)
    # "tsstore: add: desc.name: …" → "add_time_series: name: …"
    text = _LIB_OP.sub("", text, count=1)
    if not text.startswith(op + ":"):
        text = f"{op}: {text}"
    if text == str(e):
        return e
    if isinstance(e, TsStoreError):
        new: BaseException = type(e)(text, e.status)
    elif isinstance(e, OSError) and e.errno is not None:
        new = type(e)(e.errno, text, e.filename)
    else:
        try:
            new = type(e)(text)
        except TypeError:
            return e
    return new


def operation(op: str) -> Callable[[F], F]:
    """Decorates a method so its errors start with op and name Python arguments."""
    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def named(*args: Any, **kwargs: Any) -> Any:
            try:
                return fn(*args, **kwargs)
            except (TsStoreError, TypeError, ValueError) as e:
                raise in_operation(e, op) from None
        return named  # type: ignore[return-value]
    return wrap

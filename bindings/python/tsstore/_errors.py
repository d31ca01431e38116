"""Exceptions: one class per status of the C library (the header's table, raw.STATUSES), all
under TsStoreError."""
from __future__ import annotations

import functools
import re
from typing import Any, Callable, TypeVar

from . import _raw as raw

F = TypeVar("F", bound=Callable[..., Any])


class TsStoreError(Exception):
    """Base of every error the library reports; ``status`` is its C status code and the
    message is the library's own. ``arg`` is the TSSTORE_ARG_* code of the argument the
    library blamed (0: none), ``item`` the failing element of a list argument (None for
    none), ``detail`` what within the argument (a feature's name, an axis)."""

    status = -1
    arg: int = 0
    item: "int | None" = None
    detail: str = ""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status


class InvalidParameterError(TsStoreError, ValueError):
    """A bad argument; the message names it and its value."""
    status = raw.TSSTORE_E_INVALID_PARAMETER


class NotFoundError(TsStoreError, KeyError):
    """No such series, array or association."""
    status = raw.TSSTORE_E_NOT_FOUND

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DuplicateTimeSeriesError(TsStoreError):
    """The key is already stored."""
    status = raw.TSSTORE_E_DUPLICATE_TIME_SERIES


class DuplicateAssociationError(TsStoreError):
    """The pair is already associated."""
    status = raw.TSSTORE_E_DUPLICATE_ASSOCIATION


class IntegrityError(TsStoreError):
    """The two files of the store disagree with each other."""
    status = raw.TSSTORE_E_INTEGRITY


class ReadOnlyError(TsStoreError):
    """A write on a store opened read-only."""
    status = raw.TSSTORE_E_READ_ONLY


class TsStoreIOError(TsStoreError, OSError):
    """netcdf-c, HDF5, SQLite or the operating system failed."""
    status = raw.TSSTORE_E_IO


class IncompatibleFormatError(TsStoreError):
    """The store's data_format_version is not the one this library reads."""
    status = raw.TSSTORE_E_INCOMPATIBLE_FORMAT


class InternalError(TsStoreError):
    """A bug in tsstore: please report the message."""
    status = raw.TSSTORE_E_INTERNAL


class BufferTooSmallError(TsStoreError):
    """A buffer was too small (the binding sizes its buffers, so this means a bug)."""
    status = raw.TSSTORE_E_BUFFER_TOO_SMALL


class InvalidHandleError(TsStoreError):
    """A handle was used after it was closed or freed."""
    status = raw.TSSTORE_E_INVALID_HANDLE


_BY_STATUS = {cls.status: cls for cls in (
    InvalidParameterError, NotFoundError, DuplicateTimeSeriesError, DuplicateAssociationError,
    IntegrityError, ReadOnlyError, TsStoreIOError, IncompatibleFormatError, InternalError,
    BufferTooSmallError, InvalidHandleError)}
_unmapped = [name for code, name, _ in raw.STATUSES if code != raw.TSSTORE_OK and code not in _BY_STATUS]
if _unmapped:  # the header grew a status: this binding must give it a class
    raise ImportError(f"tsstore: no exception class for the header's {', '.join(_unmapped)}")


def error_for(status: int, message: str, arg: int = 0, item: "int | None" = None,
              detail: str = "") -> TsStoreError:
    """The exception for a status, carrying the library's message and what it blamed."""
    cls = _BY_STATUS.get(status, TsStoreError)
    e = cls(message, status)
    e.arg, e.item, e.detail = arg, item, detail
    return e


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
        new.arg, new.item, new.detail = e.arg, e.item, e.detail  # type: ignore[attr-defined]
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

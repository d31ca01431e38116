"""Exceptions: one class per status of the C library (the header's table, raw.STATUSES), all
under TsStoreError."""
from __future__ import annotations

import functools
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
    #: The blamed argument as Python spells it ("items[3]: ts.data"), and the library's why
    #: without it: the parts a message is worded from (in_operation).
    where: str = ""
    reason: str = ""
    operation: str = ""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        if status is not None:
            self.status = status

    def __init_subclass__(cls, status: int | None = None, **kwargs: Any) -> None:
        """A subclass names the status it stands for (class X(TsStoreError, status=...)):
        error_for then raises it for that status."""
        super().__init_subclass__(**kwargs)
        if status is not None:
            cls.status = status
            _BY_STATUS[status] = cls


# status → its class, filled as each class below is defined.
_BY_STATUS: dict[int, type[TsStoreError]] = {}


class InvalidParameterError(TsStoreError, ValueError, status=raw.TSSTORE_E_INVALID_PARAMETER):
    """A bad argument; the message names it and its value."""


class NotFoundError(TsStoreError, KeyError, status=raw.TSSTORE_E_NOT_FOUND):
    """No such series, array or association."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0])


class DuplicateTimeSeriesError(TsStoreError, status=raw.TSSTORE_E_DUPLICATE_TIME_SERIES):
    """The key is already stored."""


class DuplicateAssociationError(TsStoreError, status=raw.TSSTORE_E_DUPLICATE_ASSOCIATION):
    """The pair is already associated."""


class IntegrityError(TsStoreError, status=raw.TSSTORE_E_INTEGRITY):
    """The two files of the store disagree with each other."""


class ReadOnlyError(TsStoreError, status=raw.TSSTORE_E_READ_ONLY):
    """A write on a store opened read-only."""


class TsStoreIOError(TsStoreError, OSError, status=raw.TSSTORE_E_IO):
    """netcdf-c, HDF5, SQLite or the operating system failed."""


class IncompatibleFormatError(TsStoreError, status=raw.TSSTORE_E_INCOMPATIBLE_FORMAT):
    """The store's data_format_version is not the one this library reads."""


class InternalError(TsStoreError, status=raw.TSSTORE_E_INTERNAL):
    """A bug in tsstore: please report the message."""


class BufferTooSmallError(TsStoreError, status=raw.TSSTORE_E_BUFFER_TOO_SMALL):
    """A buffer was too small (the binding sizes its buffers, so this means a bug)."""


class InvalidHandleError(TsStoreError, status=raw.TSSTORE_E_INVALID_HANDLE):
    """A handle was used after it was closed or freed."""


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


def reported(status: int, operation: str, arg: int, item: "int | None", detail: str, reason: str) -> TsStoreError:
    """The exception of what the library reported of a failure (tsstore_last_error): its
    message names the argument as a Python caller wrote it, from the argument's code."""
    where = python_argument(operation, arg, item, detail)
    e = error_for(status, _joined(operation, where, reason), arg, item, detail)
    e.where, e.reason, e.operation = where, reason, operation
    return e


def _joined(*parts: str) -> str:
    return ": ".join(p for p in parts if p)


_A = raw
# The operations of the library that add series: there the library's series fields are the
# parts of the series ts, and a list argument is the items of a bulk add.
_ADDS = frozenset(("add_time_series", "add_time_series_batch", "batch_add"))
_IN_AN_ADD = {_A.TSSTORE_ARG_SERIES: "ts", _A.TSSTORE_ARG_SERIES_TYPE: "ts", _A.TSSTORE_ARG_NAME: "ts.name",
              _A.TSSTORE_ARG_DTYPE: "ts.data", _A.TSSTORE_ARG_SHAPE: "ts.data", _A.TSSTORE_ARG_DATA: "ts.data",
              _A.TSSTORE_ARG_INITIAL_TIMESTAMP: "ts.initial_timestamp",
              _A.TSSTORE_ARG_RESOLUTION: "ts.resolution", _A.TSSTORE_ARG_TIMESTAMPS: "ts.timestamps",
              _A.TSSTORE_ARG_HORIZON: "ts.horizon", _A.TSSTORE_ARG_INTERVAL: "ts.interval",
              _A.TSSTORE_ARG_COUNT: "ts.count", _A.TSSTORE_ARG_PERCENTILES: "ts.percentiles"}
# Elsewhere: the keywords of get_time_series, list_keys, the readers and the rest. An
# argument the binding fills itself (a buffer, an out pointer) keeps the library's name: it
# can only be blamed for a bug, which the message should show as the library saw it.
_IN_A_CALL = {_A.TSSTORE_ARG_PATH: "path", _A.TSSTORE_ARG_COMPRESSION: "compression",
              _A.TSSTORE_ARG_SERIES_TYPE: "time_series_type", _A.TSSTORE_ARG_OWNER_ID: "owner_id",
              _A.TSSTORE_ARG_OWNER_CATEGORY: "owner_category", _A.TSSTORE_ARG_OWNER_TYPE: "owner_type",
              _A.TSSTORE_ARG_NAME: "name", _A.TSSTORE_ARG_RESOLUTION: "resolution",
              _A.TSSTORE_ARG_INTERVAL: "interval", _A.TSSTORE_ARG_FEATURES: "features", _A.TSSTORE_ARG_UNITS: "units",
              _A.TSSTORE_ARG_EXT: "ext", _A.TSSTORE_ARG_START: "start", _A.TSSTORE_ARG_END: "end",
              _A.TSSTORE_ARG_LOOKUP: "", _A.TSSTORE_ARG_SERIES: "", _A.TSSTORE_ARG_FILTER: "",
              _A.TSSTORE_ARG_KEYS: "keys", _A.TSSTORE_ARG_STEP: "step", _A.TSSTORE_ARG_HASH: "data_hash",
              _A.TSSTORE_ARG_NEW_NAME: "name", _A.TSSTORE_ARG_NEW_ID: "new_id", _A.TSSTORE_ARG_GROUP: "group",
              _A.TSSTORE_ARG_BYTES: "nbytes", _A.TSSTORE_ARG_A_TYPE: "rows", _A.TSSTORE_ARG_B_TYPE: "rows",
              _A.TSSTORE_ARG_A_IDS: "a_ids", _A.TSSTORE_ARG_B_IDS: "b_ids", _A.TSSTORE_ARG_TABLE: "table",
              _A.TSSTORE_ARG_FIELD: "field"}
_C_NAMES = {code: comment.split(",")[0].split(" (")[0] for code, _name, comment in raw.ARGS}


def python_argument(operation: str, arg: int, item: "int | None", detail: str) -> str:
    """The Python spelling of what a failure blames: ``items[3]: ts.data``,
    ``features['zone']``, ``keys[2]``."""
    adding = operation in _ADDS
    name = _IN_AN_ADD.get(arg) if adding else None
    if name is None:
        name = _IN_A_CALL.get(arg, _C_NAMES.get(arg, ""))
    if arg == _A.TSSTORE_ARG_FEATURES and detail and not detail.isdigit():
        name = f"features[{detail!r}]"
    elif arg == _A.TSSTORE_ARG_NONE:
        name = detail  # a catalog column of a damaged store, or nothing
    elif arg == _A.TSSTORE_ARG_OUT:
        name = detail or "out"
    if item is None:
        return name
    whole = arg in (_A.TSSTORE_ARG_LOOKUP, _A.TSSTORE_ARG_SERIES) or not name
    return f"{'items' if adding else 'keys'}[{item}]" + ("" if whole else f": {name}")


def renamed(e: TsStoreError, reason: str) -> TsStoreError:
    """e with another reason (the same failure, worded as the caller wrote its values)."""
    new = type(e)(_joined(e.operation, e.where, reason), e.status)
    _carry(e, new)
    new.reason = reason
    return new


def _carry(old: TsStoreError, new: BaseException) -> None:
    for field in ("arg", "item", "detail", "where", "reason", "operation"):
        setattr(new, field, getattr(old, field))


def in_operation(e: BaseException, op: str, message: "str | None" = None) -> BaseException:
    """An exception of e's class whose message starts with the operation and names Python
    arguments (e itself when it already does). A failure the library reported is worded
    again from its parts; another gets op in front of its message."""
    if isinstance(e, TsStoreError) and e.reason and message is None:
        text = _joined(op, e.where, e.reason)
    else:
        text = str(e) if message is None else message
        if not text.startswith(op + ":"):
            text = f"{op}: {text}"
    if text == str(e):
        return e
    if isinstance(e, TsStoreError):
        new: BaseException = type(e)(text, e.status)
        _carry(e, new)
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

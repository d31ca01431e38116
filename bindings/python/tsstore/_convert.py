"""Conversions between Python values and the C library's: periods, timestamps, arrays,
features. Units only: the period grammar and every step or calendar computation are the
library's (tsstore_period_parse / _format, tsstore_timeline)."""
from __future__ import annotations

import datetime as _dt
import functools
import json
from typing import Any

import numpy as np

from ._errors import InvalidParameterError
from ._ffi import byref, check, lib, raw, text

UTC = _dt.timezone.utc
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)
_MS = _dt.timedelta(milliseconds=1)

#: numpy dtype of each dtype code (little-endian, as stored).
DTYPES: list[np.dtype] = [np.dtype("<f8"), np.dtype("<f4"), np.dtype("<i8"), np.dtype("<i4"), np.dtype("<u8"), np.dtype("bool")]

#: A period that is not there: unit TSSTORE_PERIOD_NONE.
NO_PERIOD = raw.tsstore_period()


#: The code of each stored dtype exactly (as_array's fast path; byte order included).
_CODE_OF = {dt: code for code, dt in enumerate(DTYPES)}


def dtype_code(dtype: np.dtype) -> int:
    """The dtype code of a numpy dtype; other dtypes are refused, not converted silently."""
    dt = np.dtype(dtype)
    for code, known in enumerate(DTYPES):
        if dt.kind == known.kind and dt.itemsize == known.itemsize:
            return code
    raise TypeError(f"tsstore stores f64, f32, i64, i32, u64 and bool arrays, not {dt}; convert it first "
                    "(data.astype(...)) and it reads back as the stored dtype")


def as_array(data: Any) -> np.ndarray:
    """A C-contiguous little-endian copy-if-needed of data, in a dtype the store holds."""
    if type(data) is np.ndarray and data.ndim and data.flags.c_contiguous and data.dtype in _CODE_OF:
        return data  # already what the store takes (the checks below would return it as is)
    if np.ma.isMaskedArray(data):
        raise TypeError("a masked array has no stored form: fill its masked values first (data.filled(...))")
    arr = np.asarray(data)
    if arr.ndim == 0:
        raise ValueError("data must have at least one axis (time, or the forecast layout of docs/format.md)")
    code = dtype_code(arr.dtype)
    return np.ascontiguousarray(arr, dtype=DTYPES[code])


def period(value: Any, field: str = "period") -> Any:
    """A tsstore_period from a timedelta, a numpy timedelta64 or ISO-8601 text (parsed by the
    library); calendar periods come as text ("P1M") or timedelta64 in months or years. field
    names the argument in errors."""
    if isinstance(value, raw.tsstore_period):
        return value
    if type(value) is str:
        known = _PERIODS.get(value)
        if known is not None:
            return known
    if isinstance(value, str):
        try:
            return _parsed(value)
        except InvalidParameterError:
            raise InvalidParameterError(f"{field}: {value!r} is not an ISO-8601 duration such as 'PT1H', 'P1D' or "
                                        "'P1M'", 1) from None
    if isinstance(value, np.timedelta64):
        if np.isnat(value):
            raise ValueError(f"{field}: a period cannot be NaT")
        unit, count = np.datetime_data(value.dtype)
        if unit in ("M", "Y"):  # calendar units stay calendar periods
            months = int(value.astype(np.int64)) * count * (12 if unit == "Y" else 1)
            return raw.tsstore_period(months, raw.TSSTORE_PERIOD_MONTHS)
        us = value.astype("timedelta64[us]")
        if us.astype(value.dtype) != value:
            raise ValueError(f"{field}: {value} is not whole milliseconds (periods are)")
        value = _dt.timedelta(microseconds=int(us.astype(np.int64)))
    if isinstance(value, _dt.timedelta):
        ms, sub_ms = divmod(value, _MS)
        if sub_ms:
            raise ValueError(f"{field}: {value} is not whole milliseconds (periods are)")
        return raw.tsstore_period(ms, raw.TSSTORE_PERIOD_MILLIS)
    raise TypeError(f"{field}: a period is a datetime.timedelta or an ISO-8601 string, not {type(value).__name__}")


@functools.lru_cache(maxsize=256)
def _parsed(iso: str) -> Any:
    out = raw.tsstore_period()
    check(lib.tsstore_period_parse(iso.encode("utf-8"), byref(out)))
    if type(iso) is str and len(_PERIODS) < 256:
        _PERIODS[iso] = out
    return out


#: Texts parsed before, looked up without lru_cache's call (period() on every item of a bulk
#: add). The structs are shared: callers only read them.
_PERIODS: dict = {}


def optional_period(value: Any, field: str = "period") -> Any:
    """period(value), or the absent period for None."""
    return NO_PERIOD if value is None else period(value, field)


def period_text(p: Any) -> str | None:
    """The canonical ISO-8601 text of a tsstore_period (None when absent), from the library."""
    if p is NO_PERIOD:
        return None
    if p.unit == raw.TSSTORE_PERIOD_NONE:
        return None
    return _formatted(p.value, p.unit)


@functools.lru_cache(maxsize=256)
def _formatted(value: int, unit: int) -> str:
    return text(lib.tsstore_period_format, byref(raw.tsstore_period(value, unit)))


_last_millis: tuple = (None, 0)


def millis(value: Any) -> int:
    """Unix milliseconds of a datetime (naive: UTC) or numpy.datetime64."""
    global _last_millis
    if type(value) is _dt.datetime:
        # The series of a bulk add usually share one start: the last datetime converted is
        # remembered (a datetime is immutable, and the reference keeps its id from reuse).
        last, ms = _last_millis
        if value is last:
            return ms
        ms = (value.replace(tzinfo=UTC) if value.tzinfo is None else value) - _EPOCH
        ms = ms // _MS
        _last_millis = (value, ms)
        return ms
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise ValueError("a timestamp cannot be NaT")
        return int(value.astype("datetime64[ms]").astype(np.int64))
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return (value - _EPOCH) // _MS
    if isinstance(value, _dt.date):
        return millis(_dt.datetime(value.year, value.month, value.day))
    raise TypeError(f"a timestamp is a datetime or numpy.datetime64, not {type(value).__name__}")


def from_millis(ms: int) -> _dt.datetime:
    """An aware UTC datetime."""
    return _EPOCH + _dt.timedelta(milliseconds=ms)


def timeline(initial_ms: int, step: Any, n: int) -> np.ndarray:
    """The n timestamps initial + i × step as datetime64[ms], computed by the library."""
    out = np.empty(n, dtype="datetime64[ms]")
    if n:
        check(lib.tsstore_timeline(initial_ms, byref(period(step, "resolution")), 0, n, out.ctypes.data))
    return out


_encoded: dict = {}


def text_arg(value: Any, field: str) -> bytes:
    """A str argument as the NUL-terminated UTF-8 the library reads; a NUL inside would cut
    it short, so it is refused, as is anything but str."""
    if type(value) is str:
        # Owner types and names repeat across the series of a bulk add: each distinct text
        # is checked and encoded once (a bounded cache; str and bytes are immutable).
        b = _encoded.get(value)
        if b is not None:
            return b
    if not isinstance(value, str):
        raise TypeError(f"{field}: a str is needed, not {type(value).__name__} ({value!r})")
    if "\0" in value:
        raise InvalidParameterError(f"{field}: text {value!r} contains a NUL character", 1)
    b = value.encode("utf-8")
    if type(value) is str:
        if len(_encoded) >= 4096:
            _encoded.clear()
        _encoded[value] = b
    return b


def opt_text(value: Any, field: str) -> bytes | None:
    """text_arg, or NULL for None."""
    return None if value is None else text_arg(value, field)


def enum_arg(cls: Any, value: Any, field: str) -> Any:
    """value as a member of an IntEnum, refused by name when it is none of them."""
    try:
        return cls(value)
    except (ValueError, TypeError):
        names = ", ".join(f"{m.name} ({m.value})" for m in cls)
        raise InvalidParameterError(f"{field}: {value!r} is not one of {names}", 1) from None


def features_json(features: dict | None) -> bytes | None:
    """The JSON object the library takes; ints, floats, bools and strings only."""
    if not features:
        return None
    for k, v in features.items():
        if not isinstance(k, str) or not isinstance(v, (bool, int, float, str)):
            raise TypeError(f"feature {k!r}: values are int, float, bool or str, not {type(v).__name__}")
    return json.dumps(features).encode("utf-8")

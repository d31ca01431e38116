"""Conversions between Python values and the C library's: periods, timestamps, arrays,
features. Units only: the period grammar and every step or calendar computation are the
library's (tsstore_period_parse / _format, tsstore_timeline)."""
from __future__ import annotations

import datetime as _dt
import functools
import json
import math
import re
from typing import Any

import numpy as np

from ._errors import InvalidParameterError
from ._ffi import byref, c_int32, check, lib, raw, text

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


class Period:
    """A calendar period: a whole number of months, as the store keeps P1M, P3M or P1Y
    (which no timedelta can say: a month has no fixed length). Fixed periods are
    datetime.timedelta; a store hands back every calendar period as a Period.

    ``Period("P1Y")`` parses ISO-8601 text and ``Period(months=3)`` counts months; ``str()``
    is the canonical ISO-8601 text (``P1Y``, ``P3M``), formatted by the library. Two periods
    are equal when they are the same number of months (``Period("P12M") == Period("P1Y")``);
    they hash alike and order by length. Where a period is taken, a Period, a timedelta and
    ISO text all work."""

    __slots__ = ("months",)
    months: int

    def __init__(self, text: "str | None" = None, *, months: "int | None" = None) -> None:
        if (text is None) == (months is None):
            raise TypeError("Period takes ISO-8601 text (Period('P1M')) or months= (Period(months=1)), one of them")
        if text is not None:
            p = period(text, "Period")
            if p.unit != raw.TSSTORE_PERIOD_MONTHS:
                raise ValueError(f"Period: {text!r} is a fixed period; use datetime.timedelta for it "
                                 "(Period holds months and years)")
            months = int(p.value)
        if isinstance(months, bool) or not isinstance(months, int):
            raise TypeError(f"Period: months is an int, not {type(months).__name__}")
        if months < 0:
            raise ValueError(f"Period: months={months} is negative")
        object.__setattr__(self, "months", months)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Period is immutable")

    def __str__(self) -> str:
        return _formatted(self.months, raw.TSSTORE_PERIOD_MONTHS)

    def __repr__(self) -> str:
        return f"Period({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Period) and other.months == self.months

    def __lt__(self, other: "Period") -> bool:
        if not isinstance(other, Period):
            return NotImplemented
        return self.months < other.months

    def __hash__(self) -> int:
        return hash(("tsstore.Period", self.months))

    def __reduce__(self) -> Any:
        return (_period_of_months, (self.months,))


def _period_of_months(months: int) -> Period:
    return Period(months=months)




def period(value: Any, field: str = "period") -> Any:
    """A tsstore_period from a timedelta, a Period, a numpy timedelta64 or ISO-8601 text
    (parsed by the library); calendar periods come as Period, text ("P1M") or timedelta64 in
    months or years. field names the argument in errors."""
    if isinstance(value, raw.tsstore_period):
        return value
    if isinstance(value, Period):
        return raw.tsstore_period(value.months, raw.TSSTORE_PERIOD_MONTHS)
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
    raise TypeError(f"{field}: a period is a datetime.timedelta, a tsstore.Period or an ISO-8601 string, not "
                    f"{type(value).__name__} ({value!r})")


def _parsed(iso: str) -> Any:
    out = raw.tsstore_period()
    check(lib.tsstore_period_parse(iso.encode("utf-8"), byref(out)))
    if type(iso) is str and len(_PERIODS) < 256:
        _PERIODS[iso] = out
    return out


#: Texts parsed before (period() runs on every item of a bulk add), at most 256. The structs
#: are shared: callers only read them.
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


def period_value(p: Any) -> "_dt.timedelta | Period | None":
    """The Python value of a tsstore_period: a timedelta for a fixed period, a Period for a
    calendar one, None when absent."""
    return _value_of(p.value, p.unit)


@functools.lru_cache(maxsize=256)
def _value_of(value: int, unit: int) -> "_dt.timedelta | Period | None":
    # Both kinds are immutable, so one object per period serves every read.
    if unit == raw.TSSTORE_PERIOD_MILLIS:
        return _dt.timedelta(milliseconds=value)
    if unit == raw.TSSTORE_PERIOD_MONTHS:
        return Period(months=int(value))
    return None


def as_period_value(value: Any, field: str) -> "_dt.timedelta | Period | None":
    """Any period argument (None too) as the value a store hands back for it."""
    if value is None or isinstance(value, Period):
        return value
    if isinstance(value, _dt.timedelta):
        period(value, field)  # whole milliseconds, or refused
        return value
    return period_value(period(value, field))


def spelled(value: Any) -> str:
    """A period as the user gave it, for messages: text as written, a Period as its text, a
    timedelta in the largest of hours, minutes, seconds or milliseconds that is whole (a
    horizon of 48 hours reads "timedelta(hours=48)", never "P2D")."""
    if isinstance(value, str):
        return value
    if isinstance(value, _dt.timedelta):
        ms = value // _MS
        for unit, size in (("hours", 3_600_000), ("minutes", 60_000), ("seconds", 1000)):
            if ms % size == 0:
                return f"timedelta({unit}={ms // size})"
        return f"timedelta(milliseconds={ms})"
    return str(value)


def respell(message: str, *given: Any) -> str:
    """message with each period of given (the caller's arguments, None skipped) as the
    caller wrote it instead of the library's canonical text: a horizon of 48 hours must not
    read "P2D" in an error."""
    for value in given:
        if value is None or isinstance(value, raw.tsstore_period):
            continue
        try:
            canon = period_text(period(value))
        except (TypeError, ValueError):
            continue
        user = spelled(value)
        if canon and user != canon:
            message = re.sub(rf"(?<![\w]){re.escape(canon)}(?![\w])", user, message)
    return message


def respelled(e: Exception, *given: Any) -> Exception:
    """e, or an exception of its class whose message respell rewrote."""
    from ._errors import TsStoreError, renamed
    if not isinstance(e, TsStoreError):
        return e
    if e.reason:
        reason = respell(e.reason, *given)
        return e if reason == e.reason else renamed(e, reason)
    text = respell(str(e), *given)
    return e if text == str(e) else type(e)(text, e.status)


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


@functools.lru_cache(maxsize=1024)
def from_millis(ms: int) -> _dt.datetime:
    """An aware UTC datetime. Reads of many series share a few start times, and a datetime is
    immutable: each is made once (0.1 µs from the cache, 0.4 made)."""
    return _EPOCH + _dt.timedelta(0, ms // 1000, ms % 1000 * 1000)


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


def features_json(features: dict | None, field: str = "features") -> bytes | None:
    """The JSON object the library takes; ints, floats, bools and strings only. ±Inf and NaN,
    which JSON lacks, go as {"$float": "+Inf"} / {"$float": "-Inf"} / {"$float": "NaN"}, the
    spelling the library reads and writes (core/features.go). A NaN names a series another
    writer stored in a lookup; the library refuses to write one (docs/format.md §13.3)."""
    if not features:
        return None
    out: dict[str, Any] = {}
    for k, v in features.items():
        if not isinstance(k, str):
            raise TypeError(f"{field}: feature names are str, not {type(k).__name__} ({k!r})")
        if isinstance(v, np.generic):
            v = v.item()
        if not isinstance(v, (bool, int, float, str)):
            raise TypeError(f"{field}[{k!r}]: values are int, float, bool or str, not {type(v).__name__} ({v!r})")
        if isinstance(v, float) and not math.isfinite(v):
            v = {"$float": "NaN" if math.isnan(v) else "+Inf" if v > 0 else "-Inf"}
        elif isinstance(v, int) and not isinstance(v, bool) and not INT64_MIN <= v <= INT64_MAX:
            raise InvalidParameterError(f"{field}[{k!r}]: {v} does not fit a signed 64-bit integer", 1)
        out[k] = v
    return json.dumps(out, allow_nan=False).encode("utf-8")


def _special_float(obj: dict) -> Any:
    if len(obj) == 1 and "$float" in obj:
        return float(obj["$float"])
    return obj


def features_from_json(text: bytes | str | None) -> dict:
    """The features dict of the library's JSON, ±Inf and NaN as Python floats."""
    if not text:
        return {}
    return json.loads(text, object_hook=_special_float)


INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1  # the range of a C int64_t


def infer_resolution(stamps_ms: np.ndarray) -> Any:
    """The regular step of increasing Unix-ms timestamps, by the library
    (tsstore_infer_resolution): a timedelta, a Period, or None when they are irregular."""
    arr = np.ascontiguousarray(stamps_ms, dtype=np.int64)
    regular, out = c_int32(), raw.tsstore_period()
    check(lib.tsstore_infer_resolution(arr.ctypes.data, len(arr), byref(regular), byref(out)))
    return period_value(out) if regular.value else None


def millis_array(values: Any, field: str = "timestamps") -> np.ndarray:
    """Unix milliseconds (int64) of a sequence of timestamps: a datetime64 array converts at
    once (NaT refused), anything else element by element (naive datetimes are UTC)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "M":
        if np.isnat(values).any():
            raise ValueError(f"{field}: a timestamp cannot be NaT")
        return values.astype("datetime64[ms]").astype(np.int64)  # finer parts dropped, as for a datetime
    return np.array([millis(t) for t in values], dtype=np.int64)

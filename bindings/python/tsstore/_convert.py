"""Conversions between Python values and the C library's: periods, timestamps, arrays."""
from __future__ import annotations

import datetime as _dt
import json
from typing import Any

import numpy as np

UTC = _dt.timezone.utc
_EPOCH = _dt.datetime(1970, 1, 1, tzinfo=UTC)

#: numpy dtype of each dtype code of format-details §1 (little-endian, as stored).
DTYPES: list[np.dtype] = [np.dtype("<f8"), np.dtype("<f4"), np.dtype("<i8"), np.dtype("<i4"), np.dtype("<u8"), np.dtype("bool")]


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
    if np.ma.isMaskedArray(data):
        raise TypeError("a masked array has no stored form: fill its masked values first (data.filled(...))")
    arr = np.asarray(data)
    if arr.ndim == 0:
        raise ValueError("data must have at least one axis (time, or the forecast layout of format-details §6)")
    code = dtype_code(arr.dtype)
    return np.ascontiguousarray(arr, dtype=DTYPES[code])


def period(value: Any) -> str:
    """An ISO-8601 duration from a timedelta or a string (calendar periods: strings only)."""
    if isinstance(value, str):
        return value
    if isinstance(value, np.timedelta64):
        if np.isnat(value):
            raise ValueError("a period cannot be NaT")
        unit, count = np.datetime_data(value.dtype)
        if unit in ("M", "Y"):  # calendar units stay calendar periods
            return f"P{int(value.astype(np.int64)) * count}{unit}"
        us = value.astype("timedelta64[us]")
        if us.astype(value.dtype) != value:
            raise ValueError(f"period {value}: periods are whole milliseconds")
        value = _dt.timedelta(microseconds=int(us.astype(np.int64)))
    if isinstance(value, _dt.timedelta):
        ms, sub_ms = divmod(value, _dt.timedelta(milliseconds=1))
        if sub_ms:
            raise ValueError(f"period {value}: periods are whole milliseconds")
        if ms < 0:
            return "-" + period(_dt.timedelta(milliseconds=-ms))
        days, rest = divmod(ms, 86_400_000)
        hours, rest = divmod(rest, 3_600_000)
        minutes, rest = divmod(rest, 60_000)
        seconds, millis = divmod(rest, 1000)
        out = "P" + (f"{days}D" if days else "")
        time = (f"{hours}H" if hours else "") + (f"{minutes}M" if minutes else "")
        if seconds or millis:
            time += f"{seconds}.{millis:03d}".rstrip("0").rstrip(".") + "S"
        if time:
            out += "T" + time
        return out if out != "P" else "PT0S"
    raise TypeError(f"a period is a datetime.timedelta or an ISO-8601 string, not {type(value).__name__}")


def millis(value: Any) -> int:
    """Unix milliseconds of a datetime (naive: UTC) or numpy.datetime64."""
    if isinstance(value, np.datetime64):
        if np.isnat(value):
            raise ValueError("a timestamp cannot be NaT")
        return int(value.astype("datetime64[ms]").astype(np.int64))
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return (value - _EPOCH) // _dt.timedelta(milliseconds=1)
    if isinstance(value, _dt.date):
        return millis(_dt.datetime(value.year, value.month, value.day))
    raise TypeError(f"a timestamp is a datetime or numpy.datetime64, not {type(value).__name__}")


def from_millis(ms: int) -> _dt.datetime:
    """An aware UTC datetime."""
    return _EPOCH + _dt.timedelta(milliseconds=ms)


def features_json(features: dict | None) -> bytes | None:
    """The JSON object the library takes; ints, floats, bools and strings only."""
    if not features:
        return None
    for k, v in features.items():
        if not isinstance(k, str) or not isinstance(v, (bool, int, float, str)):
            raise TypeError(f"feature {k!r}: values are int, float, bool or str, not {type(v).__name__}")
    return json.dumps(features).encode("utf-8")

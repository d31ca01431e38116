"""Python arguments as the C library takes them: integers, paths, hashes, id lists, series
types, and the lookup and filter structs the keywords of Store's calls make."""
from __future__ import annotations

import operator
import os
from typing import Any, Iterable

import numpy as np

from . import _convert as cv
from ._errors import InvalidParameterError
from ._ffi import byref, raw, sizeof
from ._series import (Deterministic, Key, NonSequentialTimeSeries, OwnerCategory, Probabilistic, Scenarios,
                      SeriesType, SingleTimeSeries, shared_template)

INT64_MIN, INT64_MAX = cv.INT64_MIN, cv.INT64_MAX
_FILTER_SIZE = sizeof(raw.tsstore_filter)


def int64_arg(value: Any, name: str) -> int:
    """value as an int64 argument, refused (never wrapped) when it does not fit."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: an integer is needed, not {type(value).__name__} ({value!r})") from None
    if not INT64_MIN <= v <= INT64_MAX:
        raise InvalidParameterError(f"{name}: {v} does not fit a signed 64-bit integer", 1)
    return v


def path_arg(path: Any, field: str = "path") -> bytes:
    """A path argument: str, bytes or os.PathLike, as os.fsdecode reads it."""
    try:
        p = os.fsdecode(path)
    except TypeError:
        raise TypeError(f"{field}: a path is a str, bytes or os.PathLike, not {type(path).__name__}") from None
    return cv.text_arg(p, field)


def hash_bytes(data_hash: str | bytes) -> bytes:
    """A content hash as its 32 bytes, from 64 hexadecimal digits or the bytes themselves."""
    if isinstance(data_hash, str):
        try:
            raw_hash = bytes.fromhex(data_hash)
        except ValueError:
            raw_hash = b""
        if len(raw_hash) != 32:
            raise ValueError(f"data_hash: {data_hash!r} is not 64 hexadecimal digits")
        return raw_hash
    if len(data_hash) != 32:
        raise ValueError(f"data_hash: {bytes(data_hash)!r} is not 32 bytes")
    return bytes(data_hash)


def ids_arg(values: Iterable[int] | None) -> tuple[np.ndarray | None, int]:
    """An id list for a filter: (array, length); None matches everything, an empty list
    nothing (a non-NULL pointer of length 0). The caller keeps the array for the call."""
    if values is None:
        return None, 0
    ids = [int64_arg(v, f"ids[{i}]") for i, v in enumerate(values)]
    return np.ascontiguousarray(ids or [0], dtype=np.int64), len(ids)


def address(arr: np.ndarray | None) -> int | None:
    """The address of an array's data, NULL for None."""
    return None if arr is None else arr.ctypes.data


_CLASS_TYPES = {SingleTimeSeries: SeriesType.SINGLE_TIME_SERIES,
                NonSequentialTimeSeries: SeriesType.NON_SEQUENTIAL_TIME_SERIES,
                Deterministic: SeriesType.DETERMINISTIC, Probabilistic: SeriesType.PROBABILISTIC,
                Scenarios: SeriesType.SCENARIOS}
_TYPE_NAMES = {str(t): t for t in SeriesType}


def type_code(value: Any) -> int:
    """The series_type of a lookup: a series class, a SeriesType (or its name, as
    "Deterministic"), or None for any type."""
    if value is None:
        return raw.TSSTORE_ANY_TYPE
    if isinstance(value, type) and value in _CLASS_TYPES:
        return int(_CLASS_TYPES[value])
    if isinstance(value, str) and value in _TYPE_NAMES:
        return int(_TYPE_NAMES[value])
    if isinstance(value, SeriesType) or (isinstance(value, int) and not isinstance(value, bool)):
        return int(cv.enum_arg(SeriesType, value, "time_series_type"))
    shown = value.__name__ if isinstance(value, type) else repr(value)
    raise TypeError(f"time_series_type: {shown} is not a series type; give SingleTimeSeries, "
                    "NonSequentialTimeSeries, Deterministic, Probabilistic, Scenarios, a tsstore.SeriesType or None")


def lookup_of(op: str, owner: Any, name: Any, time_series_type: Any, owner_category: Any, resolution: Any,
              interval: Any, features: dict | None, feature_values: dict) -> tuple[Any, Key | None]:
    """The tsstore_lookup of an owner-and-name call of op (get, has, remove), and the Key
    when owner is one."""
    if isinstance(owner, Key):
        if name is not None or feature_values or features is not None or resolution is not None \
                or interval is not None or time_series_type is not SingleTimeSeries:
            raise TypeError(f"a Key names one series: give it alone ({op}(key)), or give the owner id and "
                            "the name with the rest as keywords")
        return owner.lookup(), owner
    if name is None:
        raise TypeError(f"name: give the series' name ({op}(owner_id, name, ...)) or a Key")
    if features is None and not feature_values:
        return _templated_lookup(int64_arg(owner, "owner"), name, time_series_type, owner_category, resolution,
                                 interval), None
    feats = dict(features or {})
    clash = set(feats) & set(feature_values)
    if clash:
        raise TypeError(f"features: {sorted(clash)[0]!r} given both in features= and as a keyword")
    feats.update(feature_values)
    q = _owner_lookup(int64_arg(owner, "owner"), name, type_code(time_series_type), owner_category,
                      resolution, interval, feats if (features is not None or feature_values) else None)
    return q, None


_NAMED: dict = {}


def named_template(name: str) -> tuple:
    """The template of the lookup of a call by owner and name (a str) with every keyword at
    its default, found by the name alone: the group tuple of _templated_lookup took 0.25 µs
    to build, a fifth of what a call by name may add to the call by Key (issue 32)."""
    t = _NAMED.get(name)
    if t is None:
        t = shared_template(("by name", name), _checked_owner_lookup, name, SingleTimeSeries, OwnerCategory.COMPONENT,
                            None, None)
        if len(_NAMED) >= 256:
            _NAMED.clear()
        _NAMED[name] = t
    return t


def named_lookup(owner: int, name: str) -> Any:
    """The lookup named_template stands for, with owner's id written in."""
    return _template_copy(named_template(name), int64_arg(owner, "owner"), name)


def _templated_lookup(owner_id: int, name: Any, time_series_type: Any, owner_category: Any, resolution: Any,
                      interval: Any) -> Any:
    """The lookup of _owner_lookup without features, copied from the template its name, type,
    category and periods share (_series.shared_template): a loop over owners copies bytes
    instead of converting five arguments (2 µs a call; issue 32 wants a call by owner and
    name within 2 µs of the same call with a Key)."""
    group = ("by owner", name, type(name), time_series_type, type(time_series_type), owner_category,
             type(owner_category), resolution, type(resolution), interval, type(interval))
    t = shared_template(group, _checked_owner_lookup, name, time_series_type, owner_category, resolution, interval)
    return _template_copy(t, owner_id, name)


def _template_copy(t: tuple, owner_id: int, name: Any) -> Any:
    """A lookup copied from template t with owner_id written in, keeping t alive."""
    q = raw.tsstore_lookup.from_buffer_copy(t[3][0])  # the checked struct: cheaper than joining bytes
    q.owner_id = owner_id
    q._template = t  # the bytes its name pointer points at stay alive with it
    q._name = name  # as given: a read names its series so without reading the struct back
    return q


def _checked_owner_lookup(name: Any, time_series_type: Any, owner_category: Any, resolution: Any,
                          interval: Any) -> tuple:
    """The template of _templated_lookup: owner 0, no features, every argument checked."""
    return (_owner_lookup(0, name, type_code(time_series_type), owner_category, resolution, interval, None),)


def _owner_lookup(owner_id: int, name: Any, series_type: int, owner_category: Any, resolution: Any, interval: Any,
                  features: dict | None) -> Any:
    """A tsstore_lookup from the keywords of get / has / remove (ctypes keeps the bytes its
    char * fields point at alive with the struct)."""
    q = raw.tsstore_lookup()
    q.struct_size = sizeof(raw.tsstore_lookup)
    q.series_type = series_type
    q.owner_id = owner_id
    q.owner_category = (raw.TSSTORE_OWNER_ANY if owner_category is None else
                        cv.enum_arg(OwnerCategory, owner_category, "owner_category"))
    q.name = cv.text_arg(name, "name")
    q.resolution = cv.optional_period(resolution, "resolution")
    q.interval = cv.optional_period(interval, "interval")
    q.features_json = None if features is None else (cv.features_json(features) or b"")
    return q


_FILTER_NAMES = ("owner_id", "owner_category", "series_type", "name", "name_glob", "owner_type", "resolution",
                 "interval", "features")


def filter_args(filters: dict) -> dict:
    """The keywords of a listing given as **filters, every filter named (None: not given)."""
    unknown = set(filters) - set(_FILTER_NAMES)
    if unknown:
        raise TypeError(f"unknown filter {sorted(unknown)[0]!r}; filters are {', '.join(_FILTER_NAMES)}")
    return {n: filters.get(n) for n in _FILTER_NAMES}


class Filter:
    """A tsstore_filter and the bytes its pointers name."""

    def __init__(self, owner_id: int | None, owner_category: OwnerCategory | None, series_type: SeriesType | None,
                 name: str | None, name_glob: str | None, owner_type: str | None, resolution: Any, interval: Any,
                 features: dict | None) -> None:
        f = raw.tsstore_filter()
        f.struct_size = _FILTER_SIZE
        f.match_owner_id = 0 if owner_id is None else 1
        f.owner_id = 0 if owner_id is None else int64_arg(owner_id, "owner_id")
        f.owner_category = (raw.TSSTORE_OWNER_ANY if owner_category is None else
                            cv.enum_arg(OwnerCategory, owner_category, "owner_category"))
        f.series_type = raw.TSSTORE_ANY_TYPE if series_type is None else cv.enum_arg(SeriesType, series_type, "series_type")
        self._keep = [cv.opt_text(name, "name"), cv.opt_text(name_glob, "name_glob"),
                      cv.opt_text(owner_type, "owner_type"), cv.features_json(features)]
        f.name, f.name_glob, f.owner_type, f.features_json = self._keep
        f.resolution, f.interval = cv.optional_period(resolution, "resolution"), cv.optional_period(interval, "interval")
        self.f = f

    def ref(self) -> Any:
        return byref(self.f)

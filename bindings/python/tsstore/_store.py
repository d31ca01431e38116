"""Stores, keys and series: the Python face of the C library."""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import datetime as _dt
import enum
import json
import threading
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from . import _convert as cv
from ._errors import InvalidHandleError, TsStoreError
from ._ffi import byref, c_double, c_int32, c_int64, c_size_t, c_void_p, call, check, encode, lib, read_string


class OwnerCategory(enum.IntEnum):
    """Who owns a series (format-details §2)."""
    COMPONENT = 0
    SUPPLEMENTAL_ATTRIBUTE = 1


class SeriesType(enum.IntEnum):
    """Time-series types with their stable codes; ABSTRACT_DETERMINISTIC is request-only."""
    SINGLE_TIME_SERIES = 0
    NON_SEQUENTIAL_TIME_SERIES = 1
    DETERMINISTIC = 2
    DETERMINISTIC_SINGLE_TIME_SERIES = 3
    PROBABILISTIC = 4
    SCENARIOS = 5
    ABSTRACT_DETERMINISTIC = 6


@dataclasses.dataclass(frozen=True)
class Key:
    """The identity of a stored series."""
    owner_id: int
    owner_category: OwnerCategory
    series_type: SeriesType
    name: str
    resolution: str | None = None
    interval: str | None = None
    features: dict = dataclasses.field(default_factory=dict, hash=False)

    def _handle(self) -> "_Handle":
        out = c_void_p()
        check(lib.tsstore_key_new(self.owner_id, int(self.owner_category), int(self.series_type), encode(self.name),
                                  encode(self.resolution), encode(self.interval), cv.features_json(self.features),
                                  byref(out)))
        return _Handle(out.value, lib.tsstore_key_free)

    @classmethod
    def _from_handle(cls, h: int) -> "Key":
        owner, cat, typ = c_int64(), c_int32(), c_int32()
        check(lib.tsstore_key_owner(h, byref(owner), byref(cat)))
        check(lib.tsstore_key_series_type(h, byref(typ)))
        name = read_string(lib.tsstore_key_name, h)
        res = read_string(lib.tsstore_key_resolution, h) or None
        iv = read_string(lib.tsstore_key_interval, h) or None
        features = json.loads(read_string(lib.tsstore_key_features, h))
        return cls(owner.value, OwnerCategory(cat.value), SeriesType(typ.value), name, res, iv, features)


class _Handle:
    """Owns one C handle and frees it exactly once."""

    def __init__(self, value: int | None, free):
        self.value, self._free = value, free

    def close(self) -> None:
        if self.value:
            self._free(self.value)
            self.value = None

    def __enter__(self) -> int:
        return self.value

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


# ---- Series ------------------------------------------------------------------------------

@dataclasses.dataclass
class SingleTimeSeries:
    """A regular series: data's first axis is time, one step per resolution."""
    name: str
    initial_timestamp: Any
    resolution: Any
    data: Any

    series_type = SeriesType.SINGLE_TIME_SERIES

    def timestamps(self) -> list[_dt.datetime]:
        """The timestamp of every step: t0 + i × resolution, computed from t0 in one jump
        (calendar periods clamp to month ends: Jan 31 + P1M is Feb 29)."""
        t0 = cv.from_millis(cv.millis(self.initial_timestamp))
        return _steps(t0, cv.period(self.resolution), len(self.data))

    def to_pandas(self):
        """A pandas Series (scalar steps) or DataFrame (one column per element) indexed by the
        timestamps. Needs pandas."""
        return _to_pandas(self.timestamps(), np.asarray(self.data), self.name)


@dataclasses.dataclass
class NonSequentialTimeSeries:
    """An irregular series: one strictly increasing timestamp per step."""
    name: str
    timestamps: Sequence[Any]
    data: Any

    series_type = SeriesType.NON_SEQUENTIAL_TIME_SERIES

    def to_pandas(self):
        """A pandas Series or DataFrame indexed by the timestamps. Needs pandas."""
        return _to_pandas([cv.from_millis(cv.millis(t)) for t in self.timestamps], np.asarray(self.data), self.name)


@dataclasses.dataclass
class Deterministic:
    """A point forecast: data is [H, count, *E] with H = horizon / resolution."""
    name: str
    initial_timestamp: Any
    resolution: Any
    horizon: Any
    interval: Any
    count: int
    data: Any

    series_type = SeriesType.DETERMINISTIC


@dataclasses.dataclass
class Probabilistic:
    """A quantile forecast: data is [P, H, count, *E], one layer per percentile."""
    name: str
    initial_timestamp: Any
    resolution: Any
    horizon: Any
    interval: Any
    count: int
    percentiles: Sequence[float]
    data: Any

    series_type = SeriesType.PROBABILISTIC


@dataclasses.dataclass
class Scenarios:
    """A scenario forecast: data is [S, H, count, *E]."""
    name: str
    initial_timestamp: Any
    resolution: Any
    horizon: Any
    interval: Any
    count: int
    data: Any

    series_type = SeriesType.SCENARIOS


def _steps(t0: _dt.datetime, iso: str, n: int) -> list[_dt.datetime]:
    import re
    m = re.fullmatch(r"P(\d+)([MY])", iso)
    if not m:
        step = _parse_fixed(iso)
        return [t0 + i * step for i in range(n)]
    months = int(m.group(1)) * (12 if m.group(2) == "Y" else 1)
    out = []
    for i in range(n):
        idx = t0.year * 12 + t0.month - 1 + i * months
        y, mo = divmod(idx, 12)
        import calendar
        day = min(t0.day, calendar.monthrange(y, mo + 1)[1])
        out.append(t0.replace(year=y, month=mo + 1, day=day))
    return out


def _to_pandas(times, data: np.ndarray, name: str):
    try:
        import pandas as pd
    except ImportError as e:  # pandas is optional
        raise ImportError("to_pandas() needs pandas (pip install pandas)") from e
    index = pd.DatetimeIndex(times, name="timestamp")
    if data.ndim == 1:
        return pd.Series(data, index=index, name=name or None)
    return pd.DataFrame(data.reshape(len(times), -1), index=index)


def _parse_fixed(iso: str) -> _dt.timedelta:
    import re
    m = re.fullmatch(r"P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?", iso)
    if not m:
        raise ValueError(f"{iso} is a calendar period; its steps have no fixed length")
    d, h, mi, s = (float(x) if x else 0.0 for x in m.groups())
    return _dt.timedelta(days=d, hours=h, minutes=mi, seconds=s)


def _series_from_handle(h: int) -> Any:
    typ, dtype, ndim, initial, count = c_int32(), c_int32(), c_size_t(), c_int64(), c_int64()
    check(lib.tsstore_series_info(h, byref(typ), byref(dtype), byref(ndim), byref(initial), byref(count)))
    shape = (c_int64 * max(ndim.value, 1))()
    check(lib.tsstore_series_shape(h, shape, ndim.value, byref(ndim)))
    arr = np.empty(tuple(shape[: ndim.value]), dtype=cv.DTYPES[dtype.value])
    needed = c_size_t()
    check(lib.tsstore_series_data(h, arr.ctypes.data if arr.nbytes else None, arr.nbytes, byref(needed)))
    t = typ.value
    if t == -1:
        return arr
    res = read_string(lib.tsstore_series_resolution, h)
    if t == SeriesType.SINGLE_TIME_SERIES:
        return SingleTimeSeries("", cv.from_millis(initial.value), res, arr)
    if t == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
        n = c_size_t()
        check(lib.tsstore_series_timestamps(h, None, 0, byref(n)))
        stamps = (c_int64 * max(n.value, 1))()
        check(lib.tsstore_series_timestamps(h, stamps, n.value, byref(n)))
        return NonSequentialTimeSeries("", [cv.from_millis(s) for s in stamps[: n.value]], arr)
    hor, iv = read_string(lib.tsstore_series_horizon, h), read_string(lib.tsstore_series_interval, h)
    t0 = cv.from_millis(initial.value)
    if t == SeriesType.PROBABILISTIC:
        n = c_size_t()
        check(lib.tsstore_series_percentiles(h, None, 0, byref(n)))
        ps = (c_double * max(n.value, 1))()
        check(lib.tsstore_series_percentiles(h, ps, n.value, byref(n)))
        return Probabilistic("", t0, res, hor, iv, count.value, list(ps[: n.value]), arr)
    if t == SeriesType.SCENARIOS:
        return Scenarios("", t0, res, hor, iv, count.value, arr)
    return Deterministic("", t0, res, hor, iv, count.value, arr)


# ---- Store -------------------------------------------------------------------------------

class Store:
    """An open store: <name>.nc and <name>.nc.sqlite. Use Store.create / Store.open /
    Store.in_memory; close() (safe twice) or a with block releases it. A store may be shared
    by threads: the library serialises calls on it."""

    def __init__(self, handle: int):
        self._h = handle
        self._lock = threading.Lock()

    @classmethod
    def create(cls, path: str, *, compression: str = "deflate:3:shuffle") -> "Store":
        """Creates a new store at path (neither file may exist)."""
        out = c_void_p()
        check(lib.tsstore_create(encode(str(path)), encode(compression), byref(out)))
        return cls(out.value)

    @classmethod
    def open(cls, path: str, *, read_only: bool = False) -> "Store":
        """Opens an existing store; read_only needs no write permission and refuses writes."""
        out = c_void_p()
        check(lib.tsstore_open(encode(str(path)), 1 if read_only else 0, byref(out)))
        return cls(out.value)

    @classmethod
    def in_memory(cls, *, compression: str = "deflate:3:shuffle") -> "Store":
        """A store that lives in memory; persist() writes it out."""
        out = c_void_p()
        check(lib.tsstore_open_in_memory(encode(compression), byref(out)))
        return cls(out.value)

    def _handle(self) -> int:
        h = self._h
        if not h:
            raise InvalidHandleError("the store is closed", 11)
        return h

    def close(self) -> None:
        """Commits pending writes and closes the store; closing twice is harmless."""
        with self._lock:
            h, self._h = self._h, None
        if h:
            check(lib.tsstore_close(h))

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except TsStoreError:
            pass

    @property
    def closed(self) -> bool:
        return not self._h

    def flush(self) -> None:
        """Makes every write so far durable."""
        call("tsstore_flush", self._handle())

    def persist(self, path: str) -> None:
        """Writes an in-memory store to path and path + '.sqlite'."""
        call("tsstore_persist", self._handle(), encode(str(path)))

    # -- adding --------------------------------------------------------------------------

    def add_time_series(self, ts: Any, *, owner_id: int, owner_type: str,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
                        units: str | None = None, ext: str | None = None) -> Key:
        """Stores a series for an owner and returns its key."""
        out = c_void_p()
        self._add(lib.tsstore_add_single, lib.tsstore_add_nonsequential, lib.tsstore_add_forecast, self._handle(),
                  ts, owner_id, owner_type, owner_category, features, units, ext, byref(out))
        with _Handle(out.value, lib.tsstore_key_free) as h:
            return Key._from_handle(h)

    @staticmethod
    def _add(single, nonseq, forecast, target, ts, owner_id, owner_type, owner_category, features, units, ext, *key_out):
        arr = cv.as_array(ts.data)
        shape = (c_int64 * arr.ndim)(*arr.shape)
        data = arr.ctypes.data if arr.nbytes else None
        common_tail = (cv.features_json(features), encode(units), encode(ext)) + key_out
        head = (target, int(owner_id), encode(owner_type), int(owner_category), encode(ts.name))
        if isinstance(ts, SingleTimeSeries):
            check(single(*head, cv.millis(ts.initial_timestamp), encode(cv.period(ts.resolution)),
                         cv.dtype_code(arr.dtype), shape, arr.ndim, data, arr.nbytes, *common_tail))
        elif isinstance(ts, NonSequentialTimeSeries):
            stamps = (c_int64 * max(len(ts.timestamps), 1))(*[cv.millis(t) for t in ts.timestamps])
            check(nonseq(*head, stamps, len(ts.timestamps), cv.dtype_code(arr.dtype), shape, arr.ndim, data,
                         arr.nbytes, *common_tail))
        elif isinstance(ts, (Deterministic, Probabilistic, Scenarios)):
            pct = list(getattr(ts, "percentiles", []) or [])
            ps = (c_double * max(len(pct), 1))(*pct)
            check(forecast(*head, int(ts.series_type), cv.millis(ts.initial_timestamp), encode(cv.period(ts.resolution)),
                           encode(cv.period(ts.horizon)), encode(cv.period(ts.interval)), int(ts.count), ps, len(pct),
                           cv.dtype_code(arr.dtype), shape, arr.ndim, data, arr.nbytes, *common_tail))
        else:
            raise TypeError(f"{type(ts).__name__} is not a tsstore series type")

    def add_time_series_bulk(self, items: Iterable[dict]) -> list[Key]:
        """Adds many series in one call, all or nothing. Each item is a dict of the arguments
        of add_time_series (ts=…, owner_id=…, owner_type=…, …)."""
        with self.bulk_add() as batch:
            for item in items:
                batch.add(**item)
        return batch.keys

    @contextlib.contextmanager
    def bulk_add(self) -> Iterator["Batch"]:
        """Collects series with batch.add(...) and adds them all when the block ends (nothing if
        it raises)."""
        batch = Batch(self)
        try:
            yield batch
        except BaseException:
            batch._discard()
            raise
        batch._commit()

    # -- reading -------------------------------------------------------------------------

    def get_time_series(self, key: Key, *, start: Any = None, end: Any = None) -> Any:
        """Reads a series, or part of a static one (SingleTimeSeries: floor(start)…ceil(end);
        NonSequential: [start, end)); forecasts read whole here and by window through
        get_windows. A DeterministicSingleTimeSeries reads as a Deterministic."""
        out = c_void_p()
        with key._handle() as kh:
            if start is None and end is None:
                check(lib.tsstore_get(self._handle(), kh, byref(out)))
            else:
                check(lib.tsstore_get_range(self._handle(), kh, cv.millis(start), cv.millis(end), byref(out)))
        with _Handle(out.value, lib.tsstore_series_free) as h:
            ts = _series_from_handle(h)
        ts.name = key.name
        return ts

    def get_windows(self, key: Key, first: Any, last: Any | None = None) -> Any:
        """Reads the forecast windows starting in [first, last] (both window starts)."""
        out = c_void_p()
        with key._handle() as kh:
            check(lib.tsstore_get_windows(self._handle(), kh, cv.millis(first), cv.millis(first if last is None else last),
                                          byref(out)))
        with _Handle(out.value, lib.tsstore_series_free) as h:
            ts = _series_from_handle(h)
        ts.name = key.name
        return ts

    def has_time_series(self, key: Key) -> bool:
        """Whether a series with exactly this key is stored."""
        found = c_int32()
        with key._handle() as kh:
            check(lib.tsstore_has(self._handle(), kh, byref(found)))
        return bool(found.value)

    def remove_time_series(self, key: Key) -> None:
        """Removes one series (its array is freed once no other series uses it)."""
        with key._handle() as kh:
            check(lib.tsstore_remove(self._handle(), kh))

    def list_keys(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                  series_type: SeriesType | None = None, name: str | None = None, name_glob: str | None = None,
                  owner_type: str | None = None, resolution: Any = None, interval: Any = None,
                  features: dict | None = None) -> list[Key]:
        """The keys of the series matching every given filter, in insertion order."""
        f = c_void_p()
        check(lib.tsstore_filter_new(byref(f)))
        with _Handle(f.value, lib.tsstore_filter_free) as fh:
            if owner_id is not None:
                check(lib.tsstore_filter_owner(fh, owner_id, int(owner_category or 0)))
            if series_type is not None:
                check(lib.tsstore_filter_series_type(fh, int(series_type)))
            for fn, v in ((lib.tsstore_filter_name, name), (lib.tsstore_filter_name_glob, name_glob),
                          (lib.tsstore_filter_owner_type, owner_type)):
                if v is not None:
                    check(fn(fh, encode(v)))
            for fn, v in ((lib.tsstore_filter_resolution, resolution), (lib.tsstore_filter_interval, interval)):
                if v is not None:
                    check(fn(fh, encode(cv.period(v))))
            if features:
                check(lib.tsstore_filter_features(fh, cv.features_json(features)))
            out = c_void_p()
            check(lib.tsstore_list_keys_where(self._handle(), fh, byref(out)))
        return _keys_from_list(out.value)

    def get_many(self, keys: Sequence[Key]) -> list[Any]:
        """Reads many whole series, one pass per packed dataset; results in key order."""
        import ctypes
        from ._readers import key_array
        arr, handles = key_array(keys)
        outs = (c_void_p * max(len(keys), 1))()
        try:
            check(lib.tsstore_get_many(self._handle(), arr, len(keys), outs))
        finally:
            for h in handles:
                h.close()
        result = []
        for k, h in zip(keys, outs[: len(keys)]):
            with _Handle(h, lib.tsstore_series_free) as sh:
                ts = _series_from_handle(sh)
            ts.name = k.name
            result.append(ts)
        return result

    def static_reader(self, resolution: Any, keys: Sequence[Key]):
        """A StaticReader over SingleTimeSeries keys on one grid (see tsstore.StaticReader)."""
        from ._readers import open_static
        return open_static(self, resolution, keys)

    def forecast_reader(self, series_type: SeriesType, resolution: Any, keys: Sequence[Key]):
        """A ForecastReader over forecast keys sharing a window timeline."""
        from ._readers import open_forecast
        return open_forecast(self, series_type, resolution, keys)

    # -- associations --------------------------------------------------------------------

    SUPPLEMENTAL, PARENT_CHILD = 0, 1

    def add_supplemental_attribute_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Attaches attributes to components, all or nothing: rows of (component_id,
        component_type, attribute_id, attribute_type)."""
        self._add_associations(self.SUPPLEMENTAL, rows)

    def add_parent_child_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Adds directed edges, all or nothing: rows of (parent_id, parent_type, child_id,
        child_type)."""
        self._add_associations(self.PARENT_CHILD, rows)

    def _add_associations(self, table: int, rows) -> None:
        rows = list(rows)
        n = len(rows)
        a = (c_int64 * max(n, 1))(*[r[0] for r in rows])
        b = (c_int64 * max(n, 1))(*[r[2] for r in rows])
        at = (ctypes.c_char_p * max(n, 1))(*[encode(r[1]) for r in rows])
        bt = (ctypes.c_char_p * max(n, 1))(*[encode(r[3]) for r in rows])
        check(lib.tsstore_add_associations(self._handle(), table, n, a, at, b, bt))

    def has_supplemental_attribute_association(self, component_id: int, attribute_id: int) -> bool:
        """Whether the attribute is attached to the component."""
        return self._has_association(self.SUPPLEMENTAL, component_id, attribute_id)

    def has_parent_child_association(self, parent_id: int, child_id: int) -> bool:
        """Whether the edge parent → child exists."""
        return self._has_association(self.PARENT_CHILD, parent_id, child_id)

    def _has_association(self, table, a, b) -> bool:
        found = c_int32()
        check(lib.tsstore_has_association(self._handle(), table, a, b, byref(found)))
        return bool(found.value)

    def _filter_args(self, a_ids, b_ids, a_type, b_type):
        def ids(v):
            if v is None:
                return None, 0
            v = list(v)
            return (c_int64 * max(len(v), 1))(*v), len(v)
        (a, na), (b, nb) = ids(a_ids), ids(b_ids)
        return a, na, b, nb, encode(a_type), encode(b_type)

    def list_supplemental_attribute_associations(self, *, component_ids=None, attribute_ids=None,
                                                 component_type=None, attribute_type=None) -> list[tuple]:
        """Rows of (component_id, component_type, attribute_id, attribute_type); None filters
        nothing, an empty list matches nothing."""
        return self._list_associations(self.SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def list_parent_child_associations(self, *, parent_ids=None, child_ids=None, parent_type=None,
                                       child_type=None) -> list[tuple]:
        """Rows of (parent_id, parent_type, child_id, child_type)."""
        return self._list_associations(self.PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _list_associations(self, table, a_ids, b_ids, a_type, b_type) -> list[tuple]:
        out = c_void_p()
        check(lib.tsstore_list_associations(self._handle(), table, *self._filter_args(a_ids, b_ids, a_type, b_type),
                                            byref(out)))
        with _Handle(out.value, lib.tsstore_associations_free) as h:
            n = c_size_t()
            check(lib.tsstore_associations_len(h, byref(n)))
            rows = []
            for i in range(n.value):
                a, b = c_int64(), c_int64()
                check(lib.tsstore_associations_ids(h, i, byref(a), byref(b)))
                rows.append((a.value, read_string(lib.tsstore_associations_type, h, i, 0), b.value,
                             read_string(lib.tsstore_associations_type, h, i, 1)))
            return rows

    def remove_supplemental_attribute_associations(self, *, component_ids=None, attribute_ids=None,
                                                   component_type=None, attribute_type=None) -> int:
        """Removes the matching rows (no filter: all of them) and returns how many."""
        return self._remove_associations(self.SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def remove_parent_child_associations(self, *, parent_ids=None, child_ids=None, parent_type=None,
                                         child_type=None) -> int:
        """Removes the matching edges and returns how many."""
        return self._remove_associations(self.PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _remove_associations(self, table, a_ids, b_ids, a_type, b_type) -> int:
        n = c_int64()
        check(lib.tsstore_remove_associations(self._handle(), table, *self._filter_args(a_ids, b_ids, a_type, b_type),
                                              byref(n)))
        return n.value

    def children_of(self, parent_id: int) -> list[int]:
        """The children of a component, ascending."""
        return sorted({r[2] for r in self.list_parent_child_associations(parent_ids=[parent_id])})

    def parents_of(self, child_id: int) -> list[int]:
        """The parents of a component, ascending."""
        return sorted({r[0] for r in self.list_parent_child_associations(child_ids=[child_id])})

    # -- queries and owner moves ---------------------------------------------------------

    def get_metadata(self, key: Key) -> dict:
        """The catalog record of a series: type, dtype, length, count, initial timestamp,
        element shape, owner type, units, ext, periods and the two hashes (hex)."""
        out = c_void_p()
        with key._handle() as kh:
            check(lib.tsstore_get_metadata(self._handle(), kh, byref(out)))
        with _Handle(out.value, lib.tsstore_metadata_free) as h:
            typ, dtype, length, count, initial = c_int32(), c_int32(), c_int64(), c_int64(), c_int64()
            check(lib.tsstore_metadata_info(h, byref(typ), byref(dtype), byref(length), byref(count), byref(initial)))
            ndim = c_size_t()
            check(lib.tsstore_metadata_element_shape(h, None, 0, byref(ndim)))
            shape = (c_int64 * max(ndim.value, 1))()
            check(lib.tsstore_metadata_element_shape(h, shape, ndim.value, byref(ndim)))
            text = [read_string(lib.tsstore_metadata_text, h, i) or None for i in range(6)]
            hashes = []
            for which in (0, 1):
                buf = (ctypes.c_uint8 * 32)()
                check(lib.tsstore_metadata_hash(h, which, buf))
                hashes.append(bytes(buf).hex())
        return {"series_type": SeriesType(typ.value), "dtype": cv.DTYPES[dtype.value], "length": length.value,
                "count": count.value, "initial_timestamp": cv.from_millis(initial.value) if initial.value else None,
                "element_shape": tuple(shape[: ndim.value]), "owner_type": text[0], "units": text[1], "ext": text[2],
                "resolution": text[3], "horizon": text[4], "interval": text[5], "data_hash": hashes[0],
                "features_hash": hashes[1]}

    def counts_by_type(self) -> dict:
        """The number of series of each type present."""
        counts = (c_int64 * 7)()
        check(lib.tsstore_counts_by_type(self._handle(), counts))
        return {SeriesType(i): counts[i] for i in range(6) if counts[i]}

    def _distinct(self, field: int) -> list[str]:
        out = c_void_p()
        check(lib.tsstore_list_distinct(self._handle(), field, byref(out)))
        with _Handle(out.value, lib.tsstore_strings_free) as h:
            n = c_size_t()
            check(lib.tsstore_strings_len(h, byref(n)))
            return [read_string(lib.tsstore_strings_get, h, i) for i in range(n.value)]

    def list_names(self) -> list[str]:
        """Distinct series names."""
        return self._distinct(0)

    def list_owner_types(self) -> list[str]:
        """Distinct owner type names."""
        return self._distinct(1)

    def list_resolutions(self) -> list[str]:
        """Distinct resolutions, shortest first."""
        return self._distinct(2)

    def list_intervals(self) -> list[str]:
        """Distinct forecast intervals, shortest first."""
        return self._distinct(3)

    def forecast_parameters(self) -> list[dict]:
        """One dict per distinct set of forecast window parameters."""
        text = read_string(lib.tsstore_forecast_parameters, self._handle())
        out = []
        for line in text.splitlines():
            t, t0, res, hor, iv, count, n = line.split()
            out.append({"series_type": SeriesType(int(t)), "initial_timestamp": cv.from_millis(int(t0)),
                        "resolution": res, "horizon": hor, "interval": iv, "count": int(count), "series": int(n)})
        return out

    def copy_time_series(self, key: Key, *, owner_id: int, owner_type: str,
                         owner_category: OwnerCategory = OwnerCategory.COMPONENT, name: str | None = None) -> Key:
        """Attaches a stored series to another owner too (the array is shared)."""
        out = c_void_p()
        with key._handle() as kh:
            check(lib.tsstore_copy_series(self._handle(), kh, owner_id, encode(owner_type), int(owner_category),
                                          encode(name), byref(out)))
        with _Handle(out.value, lib.tsstore_key_free) as h:
            return Key._from_handle(h)

    def rename_time_series(self, key: Key, name: str) -> Key:
        """Renames a stored series and returns its new key."""
        out = c_void_p()
        with key._handle() as kh:
            check(lib.tsstore_rename_series(self._handle(), kh, encode(name), byref(out)))
        with _Handle(out.value, lib.tsstore_key_free) as h:
            return Key._from_handle(h)

    def replace_owner_id(self, old: int, new: int, *, owner_category: OwnerCategory = OwnerCategory.COMPONENT) -> int:
        """Moves every series of one owner to another id; returns how many moved."""
        n = c_int64()
        check(lib.tsstore_replace_owner_id(self._handle(), int(owner_category), old, new, byref(n)))
        return n.value

    # -- transactions and maintenance ----------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Store"]:
        """A transaction: committed when the block ends, rolled back if it raises. Nests."""
        call("tsstore_begin", self._handle())
        try:
            yield self
        except BaseException:
            call("tsstore_rollback", self._handle())
            raise
        call("tsstore_commit", self._handle())

    def transform_single_time_series(self, horizon: Any, interval: Any, *,
                                     owner_category: OwnerCategory | None = None, resolution: Any = None) -> int:
        """Derives DeterministicSingleTimeSeries views; returns how many were added."""
        added = c_int64()
        check(lib.tsstore_transform_single_time_series(
            self._handle(), encode(cv.period(horizon)), encode(cv.period(interval)),
            -1 if owner_category is None else int(owner_category),
            None if resolution is None else encode(cv.period(resolution)), byref(added)))
        return added.value

    def compact(self) -> dict:
        """Deletes unreachable feature sets; reports reclaimable space."""
        vals = [c_int64() for _ in range(4)]
        check(lib.tsstore_compact(self._handle(), *[byref(v) for v in vals]))
        names = ("slots_reclaimed", "datasets_dropped", "feature_sets_reclaimed", "dead_standalone")
        return {n: v.value for n, v in zip(names, vals)}

    def verify_integrity(self) -> dict:
        """Rehashes every array and checks every row: {'arrays_checked', 'problems': [...]}."""
        checked, problems, needed = c_int64(), c_int64(), c_size_t()
        buf = None
        size = 1 << 16
        while True:
            import ctypes
            buf = ctypes.create_string_buffer(size)
            status = lib.tsstore_verify_integrity(self._handle(), byref(checked), byref(problems), buf, size, byref(needed))
            if status == 10:  # buffer too small: grow and run again
                size = needed.value
                continue
            check(status)
            break
        lines = [line for line in buf.value.decode("utf-8").split("\n") if line]
        return {"arrays_checked": checked.value, "problems": lines}


class Batch:
    """Series collected by Store.bulk_add(); added together when the block ends."""

    def __init__(self, store: Store):
        out = c_void_p()
        check(lib.tsstore_batch_new(store._handle(), byref(out)))
        self._h = _Handle(out.value, lib.tsstore_batch_free)
        self.keys: list[Key] = []

    def add(self, ts: Any, *, owner_id: int, owner_type: str, owner_category: OwnerCategory = OwnerCategory.COMPONENT,
            features: dict | None = None, units: str | None = None, ext: str | None = None) -> None:
        """Queues one series (checked now, added at the end of the block)."""
        Store._add(lib.tsstore_batch_add_single, lib.tsstore_batch_add_nonsequential, lib.tsstore_batch_add_forecast,
                   self._h.value, ts, owner_id, owner_type, owner_category, features, units, ext)

    def _commit(self) -> None:
        out = c_void_p()
        try:
            check(lib.tsstore_batch_commit(self._h.value, byref(out)))
            self.keys = _keys_from_list(out.value)
        finally:
            self._h.close()

    def _discard(self) -> None:
        self._h.close()


def _keys_from_list(handle: int) -> list[Key]:
    with _Handle(handle, lib.tsstore_keys_free) as lh:
        n = c_size_t()
        check(lib.tsstore_keys_len(lh, byref(n)))
        keys = []
        for i in range(n.value):
            k = c_void_p()
            check(lib.tsstore_keys_get(lh, i, byref(k)))
            with _Handle(k.value, lib.tsstore_key_free) as kh:
                keys.append(Key._from_handle(kh))
        return keys

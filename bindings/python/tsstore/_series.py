"""Series types, keys and their codes, and their conversion from the library's structs."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
from typing import Any, Iterable, Sequence

import numpy as np

from . import _convert as cv
from ._ffi import addressof, byref, c_size_t, c_uint8, check, gc_untrack, lib, raw, sizeof, string_at

_LOOKUP_SIZE = sizeof(raw.tsstore_lookup)


class _Named(enum.IntEnum):
    """An IntEnum that prints for people: repr ``SeriesType.DETERMINISTIC``, str the name
    the format and IS.jl / infrasys use (``Deterministic``)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return "".join(part.capitalize() for part in (self.name or "").split("_"))

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)


class OwnerCategory(_Named):
    """Who owns a series."""
    COMPONENT = 0
    SUPPLEMENTAL_ATTRIBUTE = 1


class SeriesType(_Named):
    """Time-series types with their stable codes; ABSTRACT_DETERMINISTIC is request-only
    (it selects Deterministic and DeterministicSingleTimeSeries together)."""
    SINGLE_TIME_SERIES = 0
    NON_SEQUENTIAL_TIME_SERIES = 1
    DETERMINISTIC = 2
    DETERMINISTIC_SINGLE_TIME_SERIES = 3
    PROBABILISTIC = 4
    SCENARIOS = 5
    ABSTRACT_DETERMINISTIC = 6


_CATEGORIES = list(OwnerCategory)
_TYPES = list(SeriesType)


#: The capacity of a key never read: its first read asks the size (a shared object, never
#: changed: a key that learns its size gets its own).
_NO_CAPACITY = (0, c_size_t(0), c_uint8 * 0)


def _cache(default: Any = None) -> Any:
    """A Key slot that caches what the library needs of it; not part of its identity."""
    return dataclasses.field(default=default, init=False, repr=False, compare=False)


@dataclasses.dataclass(frozen=True, slots=True)
class Key:
    """The identity of a stored series: owner, type, name, the periods that belong to the
    identity (resolution; interval for forecasts) and the features. Keys compare equal when
    every part does; features do not take part in the hash. Treat a Key as immutable: it
    caches the lookup struct the library reads.

    Slots, not a __dict__: a key is then one object the cyclic collector tracks, not three
    (key, dict, cached tuple), and a bulk add of 100,000 keys no longer sets off full
    collections that walk every object of the process (docs/benchmarks.md, "Keys without
    a dict")."""
    owner_id: int
    owner_category: OwnerCategory
    series_type: SeriesType
    name: str
    resolution: Any = None
    interval: Any = None
    features: dict = dataclasses.field(default_factory=dict, hash=False)
    _id: int = _cache(0)  # the series' id in the catalog: a hint the library checks
    _template: Any = _cache()  # the shared lookup template of its group (shared_template)
    _lookup_bytes: Any = _cache()  # its tsstore_lookup as bytes, pointing into _keep
    _keep: Any = _cache()  # what _lookup_bytes' pointers name (a checked lookup)
    _lookup_ref: Any = _cache()  # byref of its tsstore_lookup structure
    _nbytes: int = _cache(0)  # the size of its last whole read
    # (_nbytes, the c_size_t a read passes, the ctypes array type of that size): one slot, so
    # that a read on another thread never pairs a buffer of one size with another capacity.
    _capacity: Any = _cache(_NO_CAPACITY)
    _start: Any = _cache()  # (initial ms, datetime) of its last read

    def __post_init__(self) -> None:
        # Codes as their enums, so a Key prints and compares as a listed one does.
        for field, cls in (("owner_category", OwnerCategory), ("series_type", SeriesType)):
            v = getattr(self, field)
            if not isinstance(v, cls) and isinstance(v, int) and not isinstance(v, bool) and v in set(cls):
                object.__setattr__(self, field, cls(v))
        # Periods as a store hands them back (timedelta / Period), whatever spelling was
        # given, so a Key built from "PT1H" equals the one listed.
        for field in ("resolution", "interval"):
            v = getattr(self, field)
            if v is not None and not isinstance(v, (_dt.timedelta, cv.Period)):
                object.__setattr__(self, field, cv.as_period_value(v, f"key.{field}"))

    def __getstate__(self) -> dict:
        # The cached lookup (and read size) hold ctypes memory, which neither pickles nor
        # means anything in another process: a Key travels as its fields (to dask workers,
        # say) and builds its lookup again there.
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.init}

    def __setstate__(self, state: dict) -> None:
        for f in dataclasses.fields(self):
            object.__setattr__(self, f.name, state[f.name] if f.init else f.default)

    def lookup(self) -> Any:
        """The tsstore_lookup naming exactly this series, its feature set included (built once
        per Key; it keeps the bytes its pointers name alive). Keys that differ only in owner id
        and id hint share one checked template (_key_lookup_bytes), so a key fresh from
        list_keys costs a copy of bytes here, not a ctypes structure built field by field."""
        return self.lookup_ref()._obj

    def lookup_ref(self) -> Any:
        """byref(self.lookup()), made once per Key: a loop of has_time_series over the same
        keys then converts nothing but the call's own arguments. The structure points into
        self._keep, which the key holds."""
        ref = self._lookup_ref
        if ref is None:
            c = self._lookup_bytes
            if c is None:
                c = _key_lookup_bytes(self)
            ref = byref(raw.tsstore_lookup.from_buffer_copy(c))
            object.__setattr__(self, "_lookup_ref", ref)
        return ref

    def _sized(self, nbytes: int) -> None:
        """Keeps the size of the key's last whole read, the buffer its next read offers: as
        an int, the c_size_t the call takes and the ctypes array type to make (looking up
        c_uint8 * n costs 65 ns of a 3 µs bar)."""
        object.__setattr__(self, "_capacity", (nbytes, c_size_t(nbytes), c_uint8 * nbytes))
        object.__setattr__(self, "_nbytes", nbytes)

    def _hint(self, series_id: int) -> None:
        """Keeps the id a read found as the key's hint (include/tsstore.h, tsstore_lookup's
        series_id): its next call is then read without a search of the catalog, 0.9 µs of a
        4.5 µs get. The library checks a hint, so one gone stale costs that search only."""
        object.__setattr__(self, "_id", series_id)
        self.lookup().series_id = series_id

    @classmethod
    def from_lookup(cls, q: Any) -> "Key":
        """The key a tsstore_lookup filled by the library holds, with the series' id as its
        hint (a lookup by it reads the row without a search; the library checks it)."""
        k = cls(q.owner_id, _CATEGORIES[q.owner_category], _TYPES[q.series_type], q.name.decode("utf-8"),
                cv.period_value(q.resolution), cv.period_value(q.interval), cv.features_from_json(q.features_json))
        object.__setattr__(k, "_id", q.series_id)
        return k

    @classmethod
    def _stored(cls, qs: np.ndarray) -> "list[Key]":
        """The keys of a tsstore_lookup array the library filled (numpy's view of it): what an
        add stored, or a listing found, ids included. Its strings and feature sets are the store's, one copy
        each, so each distinct pointer is read once however many keys share it. (A bulk add's
        keys of one group are made later, when asked for: _keylist.stored_keys.)"""
        names: dict = {}
        feats: dict = {}

        def text(addr: int) -> str:
            v = names.get(addr)
            if v is None:
                v = names[addr] = string_at(addr).decode("utf-8")
            return v

        def features(addr: int) -> dict:
            v = feats.get(addr)
            if v is None:
                v = feats[addr] = cv.features_from_json(string_at(addr)) if addr else {}
            return v

        out: list[Key] = []
        templates: dict = {}
        untrack = gc_untrack
        cols = (qs["owner_id"].tolist(), qs["owner_category"].tolist(), qs["series_type"].tolist(),
                qs["name"].tolist(), qs["resolution"]["unit"].tolist(), qs["resolution"]["value"].tolist(),
                qs["interval"]["unit"].tolist(), qs["interval"]["value"].tolist(), qs["features_json"].tolist(),
                qs["series_id"].tolist())
        for oid, cat, typ, name, ru, rv, iu, iv, fj, sid in zip(*cols):
            # Keys of one name, type, periods and feature set share the template of their
            # lookup, so their first has / get builds no ctypes structure (_key_lookup_bytes).
            group = (cat, typ, name, ru, rv, iu, iv, fj)
            t = templates.get(group)
            f = features(fj)
            k: Any = _KeyParts(oid, _CATEGORIES[cat], _TYPES[typ], text(name), cv._value_of(rv, ru), cv._value_of(iv, iu),
                               dict(f) if f else {}, sid, t)
            k.__class__ = cls
            if t is None:
                t = templates[group] = _template(k)
                object.__setattr__(k, "_template", t)
            untrack(k)
            out.append(k)
        return out


# The lookup fields keys of one group share: all but the owner id and the series id.
_GROUP_FIELDS = (("owner_category",), ("series_type",), ("name",), ("resolution", "unit"), ("resolution", "value"),
                 ("interval", "unit"), ("interval", "value"), ("features_json",))


def _one_group(qs: np.ndarray) -> bool:
    """Whether every lookup of qs has the first one's group fields (texts compared by
    address: the library hands out one copy of each)."""
    for path in _GROUP_FIELDS:
        col = qs[path[0]]
        for part in path[1:]:
            col = col[part]
        if not (col == col[0]).all():
            return False
    return True


class _KeyParts:
    """A Key under construction: Key's slots, set by plain assignments, then given the class
    Key (the layouts are the same), which its frozen __setattr__ would not allow. A bulk add's
    100,000 keys cost 0.27 µs each so, against 0.65 through object.__setattr__."""
    __slots__ = Key.__slots__

    def __init__(self, owner_id: int, owner_category: OwnerCategory, series_type: SeriesType, name: str,
                 resolution: Any, interval: Any, features: dict, series_id: int, template: Any) -> None:
        self.owner_id, self.owner_category, self.series_type, self.name = owner_id, owner_category, series_type, name
        self.resolution, self.interval, self.features = resolution, interval, features
        self._id, self._template, self._lookup_bytes, self._keep = series_id, template, None, None
        self._lookup_ref, self._nbytes, self._capacity, self._start = None, 0, _NO_CAPACITY, None


def _owner_id(value: Any) -> int:
    if not isinstance(value, int) or not cv.INT64_MIN <= value <= cv.INT64_MAX:
        from ._errors import InvalidParameterError
        raise InvalidParameterError(f"key.owner_id: {value!r} is not a signed 64-bit integer", 1)
    return value


def _no_pandas(data: Any, cls: str) -> None:
    """A pandas object given as data would lose its index: refused, pointing at from_pandas."""
    if type(data).__module__.split(".")[0] == "pandas" and hasattr(data, "index"):
        raise TypeError(f"{cls}: data is a pandas {type(data).__name__}; its index would be lost. Use "
                        f"{cls}.from_pandas(obj, name) (or tsstore.from_pandas), or pass obj.to_numpy() with the "
                        "timestamps yourself")


class _Static:
    """What the two series without windows share: data that is not a pandas object (its
    index would be lost), and to_pandas over the steps' timestamps."""
    name: str
    data: Any
    timestamps: Any  # a field of one, a property of the other
    series_type: SeriesType

    def __post_init__(self) -> None:
        _no_pandas(self.data, str(self.series_type))

    def to_pandas(self) -> Any:
        """A pandas Series (scalar steps) or DataFrame (one column per element) indexed by a
        UTC DatetimeIndex of the timestamps. Needs pandas."""
        return _static_pandas(self.timestamps, np.asarray(self.data), self.name)


@dataclasses.dataclass
class SingleTimeSeries(_Static):
    """A regular series: data's first axis is time, one step per resolution; further axes
    are the element shape (a [8760, 3] array is a year of hourly 3-vectors). resolution is a
    timedelta, a tsstore.Period or ISO-8601 text; a store hands it back as a timedelta or a
    Period."""
    name: str
    initial_timestamp: Any
    resolution: Any
    data: Any

    series_type = SeriesType.SINGLE_TIME_SERIES

    @classmethod
    def _of(cls, name: str, initial_timestamp: Any, resolution: Any, data: np.ndarray) -> "SingleTimeSeries":
        """A series from the parts a read made (numpy arrays, converted times and periods), its
        fields set as __init__ would set them; __init__'s check is for a caller's data. A bulk
        read makes 10,000 (map over _of: 0.36 µs each, 0.7 through __init__)."""
        s = object.__new__(cls)
        s.__dict__ = {"name": name, "initial_timestamp": initial_timestamp, "resolution": resolution, "data": data}
        return s

    @classmethod
    def _each_of(cls, names: Iterable[str], starts: Iterable, resolutions: Iterable,
                 rows: Iterable[np.ndarray]) -> list:
        """_of of each (name, start, resolution, row), in one loop: a call of _of per series
        cost a bulk read of 10,000 series 0.17 µs a series more (1.02 against 0.85 µs)."""
        new = object.__new__
        out: list = []
        append = out.append
        for name, start, resolution, data in zip(names, starts, resolutions, rows):
            s = new(cls)
            s.__dict__ = {"name": name, "initial_timestamp": start, "resolution": resolution, "data": data}
            append(s)
        return out

    @property
    def timestamps(self) -> np.ndarray:
        """The timestamp of every step as numpy.datetime64[ms] (UTC): t0 + i × resolution,
        computed by the library from t0 in one jump (calendar periods clamp to month ends:
        Jan 31 + P1M is Feb 29)."""
        return cv.timeline(cv.millis(self.initial_timestamp), self.resolution, len(self.data))

    @classmethod
    def from_pandas(cls, obj: Any, name: str | None = None, *, resolution: Any = None) -> "SingleTimeSeries":
        """A SingleTimeSeries from a pandas Series or DataFrame with a DatetimeIndex (naive:
        UTC; aware: converted to UTC). The resolution is inferred by the library from the
        index (a timedelta, or a Period for months and years) unless given; a DataFrame of
        several columns is one series whose element is a row. name defaults to the Series'
        name. An irregular index is refused: use NonSequentialTimeSeries.from_pandas (or
        tsstore.from_pandas, which chooses)."""
        stamps, data, name = _from_static_pandas(obj, name, "SingleTimeSeries.from_pandas")
        if resolution is None:
            if len(stamps) < 2:
                raise ValueError("SingleTimeSeries.from_pandas: one timestamp says no resolution; pass resolution=")
            resolution = cv.infer_resolution(stamps)
            if resolution is None:
                raise ValueError("SingleTimeSeries.from_pandas: the index is irregular; use "
                                 "NonSequentialTimeSeries.from_pandas or tsstore.from_pandas")
        return cls(name, cv.from_millis(int(stamps[0])), resolution, data)


@dataclasses.dataclass
class NonSequentialTimeSeries(_Static):
    """An irregular series: one strictly increasing timestamp per step of data. timestamps
    may be given as datetimes or numpy.datetime64; the attribute is always a
    numpy.datetime64[ms] array (UTC)."""
    name: str
    timestamps: Any
    data: Any

    series_type = SeriesType.NON_SEQUENTIAL_TIME_SERIES

    def __post_init__(self) -> None:
        super().__post_init__()
        if type(self.timestamps).__module__.split(".")[0] == "pandas" and hasattr(self.timestamps, "tz_convert"):
            self.timestamps = _index_millis(self.timestamps)
        self.timestamps = cv.millis_array(self.timestamps).view("datetime64[ms]")

    @classmethod
    def from_pandas(cls, obj: Any, name: str | None = None) -> "NonSequentialTimeSeries":
        """A NonSequentialTimeSeries from a pandas Series or DataFrame with a DatetimeIndex
        (regular or not), as SingleTimeSeries.from_pandas takes it."""
        stamps, data, name = _from_static_pandas(obj, name, "NonSequentialTimeSeries.from_pandas")
        return cls(name, stamps.view("datetime64[ms]"), data)


@dataclasses.dataclass
class _Forecast:
    """The window timeline every forecast has: count windows of horizon / resolution steps,
    one every interval from initial_timestamp."""
    name: str
    initial_timestamp: Any
    resolution: Any
    horizon: Any
    interval: Any
    count: int

    _layer_name = ""

    def __post_init__(self) -> None:
        _no_pandas(getattr(self, "data", None), type(self).__name__)

    @property
    def timestamps(self) -> np.ndarray:
        """The start of every window as numpy.datetime64[ms] (UTC), computed by the library."""
        return cv.timeline(cv.millis(self.initial_timestamp), self.interval, int(self.count))

    def window_starts(self) -> np.ndarray:
        """The start of every window (the timestamps property)."""
        return self.timestamps

    def _layers(self) -> list | None:
        return None

    def to_pandas(self) -> Any:
        """A pandas object indexed by (window_start, timestamp): one row per step of every
        window, windows in order. A Deterministic of scalar steps is a Series; element
        shapes, percentiles (Probabilistic: one column per percentile) and scenarios
        (Scenarios: columns 1 … S) make a DataFrame, with a (layer, element) column
        MultiIndex when there are both. Needs pandas."""
        pd = _pandas()
        arr = np.asarray(getattr(self, "data"))
        layers = self._layers()
        if layers is None:
            arr = arr[None]
        n_layers, h, count = arr.shape[:3]
        elem = arr.shape[3:]
        starts = self.timestamps
        steps = np.empty((count, h), dtype="datetime64[ms]")
        res = cv.period(self.resolution, "resolution")
        for w in range(count):  # each window's steps, by the library's calendar
            check(lib.tsstore_timeline(int(starts[w].astype(np.int64)), byref(res), 0, h, steps[w].ctypes.data))
        index = pd.MultiIndex.from_arrays([_utc_index(np.repeat(starts, h)), _utc_index(steps.reshape(-1))],
                                          names=["window_start", "timestamp"])
        # [L, H, count, *E] -> rows (window, step), columns (layer, element)
        values = np.moveaxis(arr, (0, 1, 2), (2, 1, 0)).reshape(count * h, n_layers, -1)
        n_elem = values.shape[2]
        if layers is None and not elem:
            return pd.Series(values[:, 0, 0], index=index, name=self.name or None)
        if layers is None:
            return pd.DataFrame(values[:, 0, :], index=index)
        if not elem:
            return pd.DataFrame(values[:, :, 0], index=index, columns=pd.Index(layers, name=self._layer_name))
        cols = pd.MultiIndex.from_product([layers, range(n_elem)], names=[self._layer_name, "element"])
        return pd.DataFrame(values.reshape(count * h, -1), index=index, columns=cols)

    @classmethod
    def _parts_from_pandas(cls, obj: Any, name: str | None, resolution: Any, interval: Any,
                           layered: bool) -> tuple:
        """(name, t0, resolution, horizon, interval, count, data [L?, H, count, *E], layer
        labels) of what to_pandas made."""
        op = f"{cls.__name__}.from_pandas"
        pd = _pandas()
        idx = getattr(obj, "index", None)
        if not isinstance(idx, pd.MultiIndex) or idx.nlevels != 2:
            raise TypeError(f"{op}: needs a Series or DataFrame indexed by (window_start, timestamp), as "
                            "to_pandas makes")
        starts_all = _index_millis(idx.get_level_values(0))
        stamps_all = _index_millis(idx.get_level_values(1))
        starts, first_rows = np.unique(starts_all, return_index=True)
        count = len(starts)
        if len(starts_all) % count:
            raise ValueError(f"{op}: windows of unequal length")
        h = len(starts_all) // count
        if not np.array_equal(starts_all, np.repeat(starts, h)):
            raise ValueError(f"{op}: rows must be grouped by window, windows in order, {h} steps each")
        if resolution is None:
            if h < 2:
                raise ValueError(f"{op}: windows of one step say no resolution; pass resolution=")
            resolution = cv.infer_resolution(stamps_all[:h])
            if resolution is None:
                raise ValueError(f"{op}: the steps of the first window are irregular")
        if interval is None:
            if count < 2:
                raise ValueError(f"{op}: one window says no interval; pass interval=")
            interval = cv.infer_resolution(starts)
            if interval is None:
                raise ValueError(f"{op}: the window starts are irregular")
        res = cv.period(resolution, "resolution")
        horizon = cv.period_value(raw.tsstore_period(res.value * h, res.unit))  # H steps of one resolution
        if name is None:
            name = getattr(obj, "name", None) if obj.ndim == 1 else None
        if not isinstance(name, str):
            raise TypeError(f"{op}: pass name= (the Series has no str name)")
        values = obj.to_numpy()
        labels = None
        if layered:
            if obj.ndim != 2:
                raise TypeError(f"{op}: needs a DataFrame with one column per {cls._layer_name}")
            cols = obj.columns
            if isinstance(cols, pd.MultiIndex):
                labels = list(dict.fromkeys(cols.get_level_values(0)))
            else:
                labels = list(cols)
            n_layers = len(labels)
            values = values.reshape(count, h, n_layers, -1)
            if not isinstance(cols, pd.MultiIndex):
                values = values[..., 0]
            data = np.moveaxis(values, (0, 1, 2), (2, 1, 0))
        else:
            values = values.reshape((count, h) + values.shape[1:])
            data = np.swapaxes(values, 0, 1)
        return name, cv.from_millis(int(starts[0])), resolution, horizon, interval, count, np.ascontiguousarray(data), labels


@dataclasses.dataclass
class Deterministic(_Forecast):
    """A point forecast: data is [H, count, *E] with H = horizon / resolution steps per
    window and count windows, one every interval from initial_timestamp."""
    data: Any

    series_type = SeriesType.DETERMINISTIC

    @classmethod
    def from_pandas(cls, obj: Any, name: str | None = None, *, resolution: Any = None,
                    interval: Any = None) -> "Deterministic":
        """A Deterministic from what to_pandas makes: rows indexed by (window_start,
        timestamp), grouped by window; a Series (scalar steps) or a DataFrame (one column per
        element). Resolution and interval are inferred by the library unless given; the
        horizon is the window's steps × resolution."""
        n, t0, res, hor, iv, count, data, _ = cls._parts_from_pandas(obj, name, resolution, interval, False)
        return cls(n, t0, res, hor, iv, count, data)


@dataclasses.dataclass
class Probabilistic(_Forecast):
    """A quantile forecast: data is [P, H, count, *E], one layer per (strictly increasing)
    percentile."""
    percentiles: Sequence[float]
    data: Any

    series_type = SeriesType.PROBABILISTIC
    _layer_name = "percentile"

    def _layers(self) -> list | None:
        return [float(p) for p in self.percentiles]

    @classmethod
    def from_pandas(cls, obj: Any, name: str | None = None, *, resolution: Any = None,
                    interval: Any = None) -> "Probabilistic":
        """A Probabilistic from what to_pandas makes: a DataFrame indexed by (window_start,
        timestamp) with one column per percentile (the column labels)."""
        n, t0, res, hor, iv, count, data, labels = cls._parts_from_pandas(obj, name, resolution, interval, True)
        return cls(n, t0, res, hor, iv, count, [float(p) for p in labels], data)


@dataclasses.dataclass
class Scenarios(_Forecast):
    """A scenario forecast: data is [S, H, count, *E], one layer per scenario."""
    data: Any

    series_type = SeriesType.SCENARIOS
    _layer_name = "scenario"

    def _layers(self) -> list | None:
        return list(range(1, np.shape(self.data)[0] + 1))

    @classmethod
    def from_pandas(cls, obj: Any, name: str | None = None, *, resolution: Any = None,
                    interval: Any = None) -> "Scenarios":
        """A Scenarios from what to_pandas makes: a DataFrame indexed by (window_start,
        timestamp) with one column per scenario, in order."""
        n, t0, res, hor, iv, count, data, _ = cls._parts_from_pandas(obj, name, resolution, interval, True)
        return cls(n, t0, res, hor, iv, count, data)


#: Anything add_time_series takes.
Series = SingleTimeSeries | NonSequentialTimeSeries | Deterministic | Probabilistic | Scenarios


def from_pandas(obj: Any, name: str | None = None) -> "SingleTimeSeries | NonSequentialTimeSeries":
    """A static series from a pandas Series or DataFrame with a DatetimeIndex: a
    SingleTimeSeries when the library finds the index regular (tsstore_infer_resolution),
    else a NonSequentialTimeSeries. Aware indexes convert to UTC, naive ones are UTC; a
    DataFrame of several columns is one series whose element is a row."""
    stamps, data, name = _from_static_pandas(obj, name, "from_pandas")
    res = cv.infer_resolution(stamps) if len(stamps) >= 2 else None
    if res is None:
        return NonSequentialTimeSeries(name, stamps.view("datetime64[ms]"), data)
    return SingleTimeSeries(name, cv.from_millis(int(stamps[0])), res, data)


def _pandas() -> Any:
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError as e:  # pandas is optional
        raise ImportError("pandas is needed here (pip install pandas, or tsstore[pandas])") from e
    return pd


def _utc_index(stamps: np.ndarray, name: str | None = None) -> Any:
    """A UTC DatetimeIndex over datetime64[ms] values, built from the array at once."""
    pd = _pandas()
    return pd.DatetimeIndex(stamps.astype("datetime64[ms]", copy=False), name=name).tz_localize("UTC")


def _index_millis(index: Any) -> np.ndarray:
    """Unix milliseconds of a DatetimeIndex (aware: converted to UTC; naive: taken as UTC)."""
    pd = _pandas()
    if not isinstance(index, pd.DatetimeIndex):
        raise TypeError(f"the index must be a DatetimeIndex, not {type(index).__name__}")
    if index.tz is not None:
        index = index.tz_convert("UTC").tz_localize(None)
    if index.hasnans:
        raise ValueError("the index holds NaT")
    return index.to_numpy().astype("datetime64[ms]").astype(np.int64)


def _from_static_pandas(obj: Any, name: str | None, op: str) -> tuple[np.ndarray, np.ndarray, str]:
    pd = _pandas()
    if not isinstance(obj, (pd.Series, pd.DataFrame)):
        raise TypeError(f"{op}: needs a pandas Series or DataFrame, not {type(obj).__name__}")
    try:
        stamps = _index_millis(obj.index)
    except (TypeError, ValueError) as e:
        raise type(e)(f"{op}: {e}") from None
    if name is None:
        name = obj.name if isinstance(obj, pd.Series) else None
    if not isinstance(name, str):
        raise TypeError(f"{op}: pass name= (the {type(obj).__name__} has no str name)")
    data = obj.to_numpy()
    if isinstance(obj, pd.DataFrame) and data.shape[1] == 1:
        data = data[:, 0]
    return stamps, data, name


def _static_pandas(stamps: np.ndarray, data: np.ndarray, name: str) -> Any:
    pd = _pandas()
    index = _utc_index(stamps, "timestamp")
    if data.ndim == 1:
        return pd.Series(data, index=index, name=name or None, copy=False)
    return pd.DataFrame(data.reshape(len(stamps), -1), index=index, copy=False)


def array_view(buf: Any, info: Any) -> np.ndarray:
    """The array info describes, over the bytes the library wrote at the start of buf (a
    numpy array of bytes or a ctypes buffer). One numpy call for the common 1-D series."""
    dt = cv.DTYPES[info.dtype]
    arr = np.frombuffer(buf, dtype=dt, count=info.nbytes // dt.itemsize)
    return arr if info.ndim == 1 else arr.reshape(tuple(info.shape[: info.ndim]))


def series_of(info: Any, key: Any, arr: np.ndarray, name: str, stamps: Any = None, percentiles: Any = None) -> Any:
    """The Python series a read returned: info describes it (key is its info.key, read once by
    the caller: each access makes a ctypes object), arr holds its values."""
    typ = key.series_type
    res = cv.period_value(key.resolution)
    if typ == SeriesType.SINGLE_TIME_SERIES:  # the loop's case: no __init__, whose check is for a caller's data
        return SingleTimeSeries._of(name, cv.from_millis(info.initial_ms), res, arr)
    if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
        return NonSequentialTimeSeries(name, stamps.view("datetime64[ms]"), arr)
    t0, hor, iv = cv.from_millis(info.initial_ms), cv.period_value(info.horizon), cv.period_value(key.interval)
    if typ == SeriesType.PROBABILISTIC:
        return Probabilistic(name, t0, res, hor, iv, info.count, [float(p) for p in percentiles], arr)
    if typ == SeriesType.SCENARIOS:
        return Scenarios(name, t0, res, hor, iv, info.count, arr)
    return Deterministic(name, t0, res, hor, iv, info.count, arr)


_OWNER_OFF = raw.tsstore_lookup.owner_id.offset
_ID_OFF = raw.tsstore_lookup.series_id.offset


def _checked_lookup(k: Key) -> tuple:
    """k's tsstore_lookup built field by field, every field checked as Key.lookup promises,
    with the bytes objects its pointers name (which must outlive it)."""
    name = cv.text_arg(k.name, "key.name")
    feats = cv.features_json(k.features, "key.features") or b""
    q = raw.tsstore_lookup(_LOOKUP_SIZE, cv.enum_arg(SeriesType, k.series_type, "key.series_type"),
                           _owner_id(k.owner_id), cv.enum_arg(OwnerCategory, k.owner_category, "key.owner_category"),
                           raw.TSSTORE_LOOKUP_EXACT_FEATURES,
                           name, cv.optional_period(k.resolution, "key.resolution"),
                           cv.optional_period(k.interval, "key.interval"), feats,
                           series_id=k._id)
    return q, name, feats


# The checked templates shared by lookups that differ only in owner id and id hint: keys of
# one name, type, periods and features (Key.lookup), and lookups by owner and name without
# features (_args.lookup_of). Emptied when it grows past _MAX_TEMPLATES (each lookup keeps
# what its bytes point to).
_TEMPLATES: dict = {}
_MAX_TEMPLATES = 4096


def _template(k: Key) -> tuple:
    """The lookup bytes of k around its owner id and id hint, and what they point to: the
    shared part of every key of k's name, type, periods and features."""
    return _split(_checked_lookup(k))


def _split(checked: tuple) -> tuple:
    """A checked lookup's bytes before its owner id, between it and the id hint, and after
    the hint, with the checked lookup (what those bytes point to)."""
    raw_bytes = string_at(addressof(checked[0]), _LOOKUP_SIZE)
    return raw_bytes[:_OWNER_OFF], raw_bytes[_OWNER_OFF + 8:_ID_OFF], raw_bytes[_ID_OFF + 8:], checked


def shared_template(group: Any, make: Any, *args: Any) -> tuple:
    """The template of a group of lookups (a tuple of each part and its type: values that
    compare equal but convert differently, 1 and 1.0 and True, must not share one), made from
    make(*args), a checked lookup tuple, on its first use; an unhashable group is not kept."""
    try:
        t = _TEMPLATES.get(group)
    except TypeError:
        return _split(make(*args))
    if t is None:
        t = _split(make(*args))
        if len(_TEMPLATES) >= _MAX_TEMPLATES:
            _TEMPLATES.clear()
        _TEMPLATES[group] = t
    return t


def lookup_bytes(t: tuple, owner_id: int, hint: int) -> bytes:
    """A template's lookup with an owner id and an id hint written in."""
    return t[0] + owner_id.to_bytes(8, "little", signed=True) + t[1] + hint.to_bytes(8, "little", signed=True) + t[2]


def _key_lookup_bytes(k: Key) -> bytes:
    """k's lookup bytes, kept on k with what they point to: its group's template with its own
    owner id and id hint written in."""
    t = k._template
    if t is not None and type(k.owner_id) is int:  # its group's template: from the library or lookup_array
        return _kept(k, lookup_bytes(t, k.owner_id, k._id), t)
    t = group_template(k)
    return _kept(k, lookup_bytes(t, owner_of(k), k._id), t)


def group_template(k: Key) -> tuple:
    """The checked template of k's group: its name, type, periods and features."""
    st, oc, res, iv, f = k.series_type, k.owner_category, k.resolution, k.interval, k.features
    try:
        g: Any = (type(st), st, type(oc), oc, k.name, type(res), res, type(iv), iv,
                  tuple(sorted((a, type(b), b) for a, b in f.items())) if f else type(f))
    except TypeError:  # unorderable features: a group that is not kept (a list), the key's own lookup
        g = [k]
    return shared_template(g, _checked_lookup, k)


def same_parts(a: Key, b: Key) -> bool:
    """Whether two keys without features are of one group by a test at least as strict as
    group_template's tuple (each part the same object, or of one type and equal; the type
    and category the same member): a run of such keys shares a template found without
    building and hashing the tuple."""
    x, y = a.name, b.name
    if not (a.series_type is b.series_type and a.owner_category is b.owner_category and
            (x is y or (type(x) is type(y) and x == y))):
        return False
    x, y = a.resolution, b.resolution
    if not (x is y or (type(x) is type(y) and x == y)):
        return False
    x, y = a.interval, b.interval
    if not (x is y or (type(x) is type(y) and x == y)):
        return False
    return type(a.features) is type(b.features) and not a.features and not b.features


def owner_of(k: Key) -> int:
    """k's owner id as the lookup holds it; what Key.lookup refuses raises here, as it says
    (a bool passes)."""
    o = k.owner_id
    if type(o) is not int or not cv.INT64_MIN <= o <= cv.INT64_MAX:
        _checked_lookup(k)
        o = int(o)
    return o



def _kept(k: Key, lookup: bytes, t: tuple) -> bytes:
    """lookup, made from template t, kept on k with what its pointers name."""
    setattr_ = object.__setattr__
    setattr_(k, "_lookup_bytes", lookup)
    setattr_(k, "_keep", t[3])
    return lookup

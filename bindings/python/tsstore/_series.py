"""Series types, keys and their codes, and their conversion from the library's structs."""
from __future__ import annotations

import dataclasses
import datetime as _dt
import enum
import json
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._ffi import raw, sizeof

_LOOKUP_SIZE = sizeof(raw.tsstore_lookup)


class OwnerCategory(enum.IntEnum):
    """Who owns a series."""
    COMPONENT = 0
    SUPPLEMENTAL_ATTRIBUTE = 1


class SeriesType(enum.IntEnum):
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


@dataclasses.dataclass(frozen=True)
class Key:
    """The identity of a stored series: owner, type, name, the periods that belong to the
    identity (resolution; interval for forecasts) and the features. Keys compare equal when
    every part does; features do not take part in the hash. Treat a Key as immutable: it
    caches the lookup struct the library reads."""
    owner_id: int
    owner_category: OwnerCategory
    series_type: SeriesType
    name: str
    resolution: str | None = None
    interval: str | None = None
    features: dict = dataclasses.field(default_factory=dict, hash=False)

    def lookup(self) -> Any:
        """The tsstore_lookup naming exactly this series (built once per Key; it keeps the
        bytes its pointers name alive)."""
        cached = self.__dict__.get("_lookup")
        if cached is not None:
            return cached[0]
        name = cv.text_arg(self.name, "key.name")
        feats = cv.features_json(self.features) or b""
        q = raw.tsstore_lookup(_LOOKUP_SIZE, cv.enum_arg(SeriesType, self.series_type, "key.series_type"),
                               _owner_id(self.owner_id), cv.enum_arg(OwnerCategory, self.owner_category, "key.owner_category"), 0,
                               name, cv.optional_period(self.resolution, "key.resolution"),
                               cv.optional_period(self.interval, "key.interval"), feats)
        object.__setattr__(self, "_lookup", (q, name, feats))
        return q

    @classmethod
    def _of(cls, owner_id: int, owner_category: OwnerCategory, series_type: SeriesType, name: str,
            resolution: str | None, interval: str | None, features: dict) -> "Key":
        """A key from parts already checked and converted (a bulk add makes 100,000): the
        fields set directly, as the frozen dataclass's __init__ would set them."""
        k = object.__new__(cls)
        k.__dict__.update(owner_id=owner_id, owner_category=owner_category, series_type=series_type, name=name,
                          resolution=resolution, interval=interval, features=features)
        return k

    @classmethod
    def from_lookup(cls, q: Any) -> "Key":
        """The key a tsstore_lookup filled by the library holds (its strings are read now)."""
        feats = q.features_json
        return cls(q.owner_id, _CATEGORIES[q.owner_category], _TYPES[q.series_type], q.name.decode("utf-8"),
                   cv.period_text(q.resolution), cv.period_text(q.interval), json.loads(feats) if feats else {})


def _owner_id(value: Any) -> int:
    if not isinstance(value, int) or not -(1 << 63) <= value < (1 << 63):
        from ._errors import InvalidParameterError
        raise InvalidParameterError(f"key.owner_id: {value!r} is not a signed 64-bit integer", 1)
    return value


@dataclasses.dataclass
class SingleTimeSeries:
    """A regular series: data's first axis is time, one step per resolution; further axes
    are the element shape (a [8760, 3] array is a year of hourly 3-vectors)."""
    name: str
    initial_timestamp: Any
    resolution: Any
    data: Any

    series_type = SeriesType.SINGLE_TIME_SERIES

    def timestamps(self) -> list[_dt.datetime]:
        """The timestamp of every step: t0 + i × resolution, computed by the library from t0
        in one jump (calendar periods clamp to month ends: Jan 31 + P1M is Feb 29)."""
        return _datetimes(cv.timeline(cv.millis(self.initial_timestamp), self.resolution, len(self.data)))

    def to_pandas(self) -> Any:
        """A pandas Series (scalar steps) or DataFrame (one column per element) indexed by the
        timestamps. Needs pandas."""
        stamps = cv.timeline(cv.millis(self.initial_timestamp), self.resolution, len(self.data))
        return _to_pandas(stamps, np.asarray(self.data), self.name)


@dataclasses.dataclass
class NonSequentialTimeSeries:
    """An irregular series: one strictly increasing timestamp per step of data."""
    name: str
    timestamps: Sequence[Any]
    data: Any

    series_type = SeriesType.NON_SEQUENTIAL_TIME_SERIES

    def to_pandas(self) -> Any:
        """A pandas Series or DataFrame indexed by the timestamps. Needs pandas."""
        stamps = np.array([cv.millis(t) for t in self.timestamps], dtype=np.int64).astype("datetime64[ms]")
        return _to_pandas(stamps, np.asarray(self.data), self.name)


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

    def window_starts(self) -> list[_dt.datetime]:
        """The start of every window, computed by the library."""
        return _datetimes(cv.timeline(cv.millis(self.initial_timestamp), self.interval, int(self.count)))


@dataclasses.dataclass
class Deterministic(_Forecast):
    """A point forecast: data is [H, count, *E] with H = horizon / resolution steps per
    window and count windows, one every interval from initial_timestamp."""
    data: Any

    series_type = SeriesType.DETERMINISTIC


@dataclasses.dataclass
class Probabilistic(_Forecast):
    """A quantile forecast: data is [P, H, count, *E], one layer per (strictly increasing)
    percentile."""
    percentiles: Sequence[float]
    data: Any

    series_type = SeriesType.PROBABILISTIC


@dataclasses.dataclass
class Scenarios(_Forecast):
    """A scenario forecast: data is [S, H, count, *E], one layer per scenario."""
    data: Any

    series_type = SeriesType.SCENARIOS


#: Anything add_time_series takes.
Series = SingleTimeSeries | NonSequentialTimeSeries | Deterministic | Probabilistic | Scenarios


def _datetimes(stamps: np.ndarray) -> list[_dt.datetime]:
    return [cv.from_millis(int(ms)) for ms in stamps.astype(np.int64)]


def _to_pandas(stamps: np.ndarray, data: np.ndarray, name: str) -> Any:
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError as e:  # pandas is optional
        raise ImportError("to_pandas() needs pandas (pip install pandas)") from e
    index = pd.DatetimeIndex(stamps, name="timestamp").tz_localize("UTC")
    if data.ndim == 1:
        return pd.Series(data, index=index, name=name or None)
    return pd.DataFrame(data.reshape(len(stamps), -1), index=index)


def array_view(buf: np.ndarray, info: Any) -> np.ndarray:
    """The array info describes, over the bytes the library wrote into buf."""
    shape = tuple(info.shape[: info.ndim])
    return buf[: info.nbytes].view(cv.DTYPES[info.dtype]).reshape(shape)


def series_of(info: Any, arr: np.ndarray, name: str, stamps: Any = None, percentiles: Any = None) -> Any:
    """The Python series a read returned: info describes it, arr holds its values."""
    typ = info.key.series_type
    res = cv.period_text(info.key.resolution)
    if typ == SeriesType.SINGLE_TIME_SERIES:
        return SingleTimeSeries(name, cv.from_millis(info.initial_ms), res, arr)
    if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
        return NonSequentialTimeSeries(name, _datetimes(stamps), arr)
    t0, hor, iv = cv.from_millis(info.initial_ms), cv.period_text(info.horizon), cv.period_text(info.key.interval)
    if typ == SeriesType.PROBABILISTIC:
        return Probabilistic(name, t0, res, hor, iv, info.count, [float(p) for p in percentiles], arr)
    if typ == SeriesType.SCENARIOS:
        return Scenarios(name, t0, res, hor, iv, info.count, arr)
    return Deterministic(name, t0, res, hor, iv, info.count, arr)

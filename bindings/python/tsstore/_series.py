"""Series types, keys and the codes of format-details §1–§2, and their conversion from the
library's handles."""
from __future__ import annotations

import calendar
import dataclasses
import datetime as _dt
import enum
import json
import re
from typing import Any, Callable, Sequence

import numpy as np

from . import _convert as cv
from ._ffi import api


class OwnerCategory(enum.IntEnum):
    """Who owns a series (format-details §2)."""
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


class Handle:
    """Owns one C handle and frees it exactly once (close, a with block, or collection)."""

    def __init__(self, value: int | None, free: Callable[[int], None]) -> None:
        self.value: int = value or 0  # 0 is NULL: every call refuses it with INVALID_HANDLE
        self._free = free

    def close(self) -> None:
        """Frees the handle; closing twice is harmless."""
        value, self.value = self.value, 0
        if value:
            self._free(value)

    def __enter__(self) -> int:
        return self.value

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


@dataclasses.dataclass(frozen=True)
class Key:
    """The identity of a stored series: owner, type, name, the periods that belong to the
    identity (resolution; interval for forecasts) and the features. Keys compare equal when
    every part does; features do not take part in the hash."""
    owner_id: int
    owner_category: OwnerCategory
    series_type: SeriesType
    name: str
    resolution: str | None = None
    interval: str | None = None
    features: dict = dataclasses.field(default_factory=dict, hash=False)

    def handle(self) -> Handle:
        """A C key handle for this key (for one call; close it after)."""
        res = None if self.resolution is None else cv.period(self.resolution)
        iv = None if self.interval is None else cv.period(self.interval)
        h = api.key_new(self.owner_id, int(self.owner_category), int(self.series_type), self.name, res, iv,
                        cv.features_json(self.features))
        return Handle(h, api.key_free)

    @classmethod
    def from_handle(cls, h: int) -> "Key":
        """The key a C key handle holds."""
        owner, cat = api.key_owner(h)
        return cls(owner, OwnerCategory(cat), SeriesType(api.key_series_type(h)), api.key_name(h),
                   api.key_resolution(h) or None, api.key_interval(h) or None, json.loads(api.key_features(h)))


def keys_from_list(handle: int) -> list[Key]:
    """The keys of a C key list, which this frees."""
    with Handle(handle, api.keys_free) as lh:
        keys = []
        for i in range(api.keys_len(lh)):
            with Handle(api.keys_get(lh, i), api.key_free) as kh:
                keys.append(Key.from_handle(kh))
        return keys


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
        """The timestamp of every step: t0 + i × resolution, computed from t0 in one jump
        (calendar periods clamp to month ends: Jan 31 + P1M is Feb 29)."""
        t0 = cv.from_millis(cv.millis(self.initial_timestamp))
        return steps(t0, cv.period(self.resolution), len(self.data))

    def to_pandas(self) -> Any:
        """A pandas Series (scalar steps) or DataFrame (one column per element) indexed by the
        timestamps. Needs pandas."""
        return _to_pandas(self.timestamps(), np.asarray(self.data), self.name)


@dataclasses.dataclass
class NonSequentialTimeSeries:
    """An irregular series: one strictly increasing timestamp per step of data."""
    name: str
    timestamps: Sequence[Any]
    data: Any

    series_type = SeriesType.NON_SEQUENTIAL_TIME_SERIES

    def to_pandas(self) -> Any:
        """A pandas Series or DataFrame indexed by the timestamps. Needs pandas."""
        return _to_pandas([cv.from_millis(cv.millis(t)) for t in self.timestamps], np.asarray(self.data), self.name)


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
        """The start of every window."""
        return steps(cv.from_millis(cv.millis(self.initial_timestamp)), cv.period(self.interval), int(self.count))


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


def steps(t0: _dt.datetime, iso: str, n: int) -> list[_dt.datetime]:
    """n timestamps from t0 every iso period (calendar periods by month arithmetic)."""
    m = re.fullmatch(r"P(\d+)([MY])", iso)
    if not m:
        step = _parse_fixed(iso)
        return [t0 + i * step for i in range(n)]
    months = int(m.group(1)) * (12 if m.group(2) == "Y" else 1)
    out = []
    for i in range(n):
        y, mo = divmod(t0.year * 12 + t0.month - 1 + i * months, 12)
        out.append(t0.replace(year=y, month=mo + 1, day=min(t0.day, calendar.monthrange(y, mo + 1)[1])))
    return out


def _parse_fixed(iso: str) -> _dt.timedelta:
    m = re.fullmatch(r"P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:([\d.]+)S)?)?", iso)
    if not m:
        raise ValueError(f"{iso}: the steps of a period with months or years are computed by month "
                         "arithmetic, and mixed calendar periods are not supported here")
    w, d, h, mi, s = (float(x) if x else 0.0 for x in m.groups())
    return _dt.timedelta(weeks=w, days=d, hours=h, minutes=mi, seconds=s)


def _to_pandas(times: list[_dt.datetime], data: np.ndarray, name: str) -> Any:
    try:
        import pandas as pd  # type: ignore[import-untyped]
    except ImportError as e:  # pandas is optional
        raise ImportError("to_pandas() needs pandas (pip install pandas)") from e
    index = pd.DatetimeIndex(times, name="timestamp")
    if data.ndim == 1:
        return pd.Series(data, index=index, name=name or None)
    return pd.DataFrame(data.reshape(len(times), -1), index=index)


def array_from_handle(h: int, dtype_code: int, ndim: int | None = None) -> np.ndarray:
    """A series handle's array, read straight into a numpy array allocated for it. ndim, when
    the caller has it from series_info, saves the call that asks for it."""
    if ndim is None:
        ndim = api.series_shape(h, None)
    shape = np.empty(max(ndim, 1), dtype=np.int64)
    api.series_shape(h, shape)
    arr = np.empty(tuple(int(d) for d in shape[:ndim]), dtype=cv.DTYPES[dtype_code])
    api.series_data(h, arr)
    return arr


def _filled(fn: Callable[..., int], h: int, dtype: Any) -> np.ndarray:
    n = fn(h, None)
    buf = np.zeros(max(n, 1), dtype=dtype)
    fn(h, buf)
    return buf[:n]


def series_from_handle(h: int, name: str) -> Any:
    """The series a C series handle holds (a bare array for get_array's type -1)."""
    typ, dtype, ndim, initial, count = api.series_info(h)
    arr = array_from_handle(h, dtype, ndim)
    if typ == -1:
        return arr
    res = api.series_resolution(h)
    if typ == SeriesType.SINGLE_TIME_SERIES:
        return SingleTimeSeries(name, cv.from_millis(initial), res, arr)
    if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
        stamps = _filled(api.series_timestamps, h, np.int64)
        return NonSequentialTimeSeries(name, [cv.from_millis(int(s)) for s in stamps], arr)
    t0, hor, iv = cv.from_millis(initial), api.series_horizon(h), api.series_interval(h)
    if typ == SeriesType.PROBABILISTIC:
        pct = [float(p) for p in _filled(api.series_percentiles, h, np.float64)]
        return Probabilistic(name, t0, res, hor, iv, count, pct, arr)
    if typ == SeriesType.SCENARIOS:
        return Scenarios(name, t0, res, hor, iv, count, arr)
    return Deterministic(name, t0, res, hor, iv, count, arr)

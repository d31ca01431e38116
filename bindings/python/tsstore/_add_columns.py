"""The one set of rules every added series is checked by (add_time_series, a Batch and
add_time_series_bulk alike), and the descriptor columns the checked series make."""
from __future__ import annotations

import operator
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._args import INT64_MAX, INT64_MIN, int64_arg
from ._errors import InvalidParameterError
from ._series import (Deterministic, NonSequentialTimeSeries, OwnerCategory, Probabilistic, Scenarios, Series,
                      SeriesType, SingleTimeSeries)

_FORECASTS = (Deterministic, Probabilistic, Scenarios)
_SERIES_TYPES = (SingleTimeSeries, NonSequentialTimeSeries) + _FORECASTS
# Codes by enum member or int alike (an IntEnum hashes as its value).
_CATEGORY_CODE = {c.value: c.value for c in OwnerCategory}
_TYPE_CODE = {t: t.value for t in SeriesType}
_COMPONENT = OwnerCategory.COMPONENT
_UNSET = object()  # what no item holds: the first item is converted
_FIELDS = [operator.itemgetter(i) for i in range(10)]  # a row's fields, in order


class Columns:
    """The descriptor columns of the series of one add, in order. append() checks a series
    and its owner and keeps what its descriptor holds; fields() hands the columns over."""

    __slots__ = ("rows", "series", "rare", "_seen")

    def __init__(self) -> None:
        # One tuple an item, in the order fields() unpacks: a bulk add keeps a row where ten
        # lists would take ten appends, and fields() turns the rows into columns at once.
        # A row holds ints, bytes and the array only, none of which the cyclic collector
        # tracks, so it stops tracking the row at its first collection: 100,000 rows held
        # until the add ends then set off no full collection of the process.
        self.rows: list[tuple] = []
        self.series: list[Series] = []  # each item's series, for its periods as written
        # Fields a SingleTimeSeries without features, units or ext leaves unset (every item of
        # the usual bulk add): field → {index: value} of the items that set them.
        self.rare: dict[str, dict[int, Any]] = {}
        # The last item's (dtype, code, owner type, its bytes, name, its bytes, initial
        # timestamp, its milliseconds, resolution, its period's value and unit): see append.
        self._seen: tuple = (None, 0, _UNSET, b"", _UNSET, b"", _UNSET, 0, _UNSET, 0, 0)

    def __len__(self) -> int:
        return len(self.series)

    def append(self, ts: Series, owner_id: int, owner_type: str, owner_category: Any = _COMPONENT,
               features: dict | None = None, units: str | None = None, ext: str | None = None) -> None:
        """Checks one series and its owner (the arguments of add_time_series) and appends
        them; a refusal raises naming the argument and appends nothing.

        A bulk add repeats the same dtype, owner type, name, timestamp and resolution objects
        (all immutable): one the last item had is taken as it was checked and converted then.
        That is why this is one function: a call per part costs a bulk add's 100,000 items
        more than the conversions themselves."""
        if not isinstance(ts, _SERIES_TYPES):
            raise TypeError(f"ts: {type(ts).__name__} is not a tsstore series type")
        if type(owner_id) is not int or not INT64_MIN <= owner_id <= INT64_MAX:
            owner_id = int64_arg(owner_id, "owner_id")
        category = _CATEGORY_CODE.get(owner_category) if type(owner_category) in (int, OwnerCategory) else None
        if category is None:
            category = cv.enum_arg(OwnerCategory, owner_category, "owner_category").value
        dtype, code, ot, ot_b, name, name_b, t, ms, r, rv, ru = self._seen
        arr = ts.data
        if type(arr) is not np.ndarray or arr.dtype is not dtype or not arr.ndim or not arr.flags.c_contiguous \
                or 0 in arr.shape:
            arr = _stored_array(arr)
            dtype, code = arr.dtype, cv._CODE_OF[arr.dtype]
        if owner_type is not ot:
            ot, ot_b = owner_type, cv.text_arg(owner_type, "owner_type")
        if ts.name is not name:
            name, name_b = ts.name, cv.text_arg(ts.name, "name")
        texts = _texts(features, units, ext) if features or units is not None or ext is not None else None
        if type(ts) is SingleTimeSeries:  # the common case, first
            if ts.initial_timestamp is not t:
                t, ms = ts.initial_timestamp, cv.millis(ts.initial_timestamp)
            if ts.resolution is not r:
                r, res = ts.resolution, cv.period(ts.resolution, "ts.resolution")
                rv, ru = res.value, res.unit
            initial, value, unit, timeline = ms, rv, ru, None
        else:
            initial, res, timeline = _timeline(ts, arr)
            value, unit = res.value, res.unit
        self._seen = (dtype, code, ot, ot_b, name, name_b, t, ms, r, rv, ru)
        if texts or timeline:
            self._set_rare(len(self.rows), texts, timeline)
        self.rows.append((_TYPE_CODE[ts.series_type], owner_id, category, code, initial, value, unit, arr, ot_b, name_b))
        self.series.append(ts)

    def _set_rare(self, i: int, texts: tuple | None, timeline: dict | None) -> None:
        fields = dict(zip(("features_json", "units", "ext"), texts or ()), **(timeline or {}))
        for field, value in fields.items():
            if value is not None:
                self.rare.setdefault(field, {})[i] = value

    def respell(self, i: int, message: str) -> str:
        """message with item i's periods as the caller wrote them, not the library's
        canonical text (a horizon given as 48 hours must not read "P2D")."""
        ts = self.series[i]
        return cv.respell(message, *(getattr(ts, f, None) for f in ("resolution", "horizon", "interval")))

    def fields(self) -> dict:
        """The columns by descriptor field (_descriptors); a column of one value is given as
        that value, which numpy sets at once, not item by item. Hands over the rows appended
        since the last call: they are dropped here (a bulk add's 100,000 tuples, 14 MB, need
        not live through the C call), the series kept for respell, whose indexes count
        every item appended."""
        n = len(self.rows)
        # A column at a time: zip(*rows) would make an iterator per row, 100,000 objects for
        # the collector to count, which set off a full collection of the process.
        rows, self.rows = self.rows, []
        rare, self.rare = self.rare, {}  # the next fields() hands over the rows appended after these
        types, owner_ids, categories, codes, initial, res_values, res_units, arrs, owner_types, names = (
            list(map(get, rows)) for get in _FIELDS)
        none = (None,) * n
        return dict(series_type=_one_or_all(types), owner_id=owner_ids,
                    owner_category=_one_or_all(categories), dtype=_one_or_all(codes),
                    initial_ms=_one_or_all(initial), count=_rare(rare, "count", 0, n) or 0,
                    resolution=(_one_or_all(res_values), _one_or_all(res_units)),
                    horizon=_rare(rare, "horizon", cv.NO_PERIOD, n) or [cv.NO_PERIOD] * n,
                    interval=_rare(rare, "interval", cv.NO_PERIOD, n) or [cv.NO_PERIOD] * n, arrs=arrs,
                    stamps=_rare(rare, "stamps", None, n), pct=_rare(rare, "pct", None, n),
                    strs=(owner_types, names, _rare(rare, "features_json", None, n) or none,
                          _rare(rare, "units", None, n) or none, _rare(rare, "ext", None, n) or none))


def _rare(rare: dict, field: str, default: Any, n: int) -> list | None:
    """A rare field as a column of n (default where an item leaves it unset); None when no
    item sets it."""
    values = rare.get(field)
    if not values:
        return None
    return [values.get(i, default) for i in range(n)]


def _stored_array(data: Any) -> np.ndarray:
    """ts.data as the store takes it, refused when it has an empty axis."""
    try:
        arr = cv.as_array(data)
    except (TypeError, ValueError) as e:
        raise type(e)(f"ts.data: {e}") from None
    if 0 in arr.shape:
        raise InvalidParameterError(f"ts.data: shape {arr.shape} has an empty axis {arr.shape.index(0)}; a series "
                                    "holds at least one step, window and element", 1)
    return arr


def _texts(features: dict | None, units: str | None, ext: str | None) -> tuple:
    """The features JSON, units and ext of an item (None where not given)."""
    return (cv.features_json(features) if features else None,
            None if units is None else cv.text_arg(units, "units"),
            None if ext is None else cv.text_arg(ext, "ext"))


def _timeline(ts: Series, arr: np.ndarray) -> tuple[int, Any, dict]:
    """The initial timestamp and resolution of a series other than a SingleTimeSeries, and
    the rare fields it sets: a forecast's horizon, interval and count, percentiles, the
    timestamps of a NonSequentialTimeSeries."""
    rare: dict = {}
    if isinstance(ts, NonSequentialTimeSeries):
        stamps = rare["stamps"] = cv.millis_array(ts.timestamps, "ts.timestamps")
        if len(stamps) != arr.shape[0]:
            raise InvalidParameterError(f"timestamps: {len(stamps)} timestamps for {arr.shape[0]} steps of data", 1)
        return 0, cv.NO_PERIOD, rare
    initial, res = cv.millis(ts.initial_timestamp), cv.period(ts.resolution, "ts.resolution")
    if isinstance(ts, _FORECASTS):
        rare["horizon"], rare["interval"] = cv.period(ts.horizon, "ts.horizon"), cv.period(ts.interval, "ts.interval")
        rare["count"] = int64_arg(ts.count, "ts.count")
    if isinstance(ts, Probabilistic):
        rare["pct"] = np.ascontiguousarray(ts.percentiles, dtype=np.float64)
    return initial, res, rare


def _one_or_all(values: Sequence) -> Any:
    """values[0] when every value is it, else values."""
    return values[0] if values.count(values[0]) == len(values) else values


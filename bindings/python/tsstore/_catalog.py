"""Queries of the catalog: listings of keys and records, counts, distinct names and
periods, forecast parameters and static grids."""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _convert as cv
from ._args import Filter, filter_args, hash_bytes
from ._errors import operation
from ._ffi import byref, c_int32, c_int64, c_size_t, check, cstr, lib, numpy_dtype, raw, sizeof
from ._cstructs import handle_out, new_info, new_infos, strings_of
from ._handle import StoreHandle
from ._keylist import KeyList, stored_keys
from ._series import Key, OwnerCategory, SeriesType

_TOO_SMALL = raw.TSSTORE_E_BUFFER_TOO_SMALL


class Catalog(StoreHandle):
    """Store's queries of the catalog."""

    @operation("list_keys")
    def list_keys(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                  series_type: SeriesType | None = None, name: str | None = None, name_glob: str | None = None,
                  owner_type: str | None = None, resolution: Any = None, interval: Any = None,
                  features: dict | None = None) -> KeyList:
        """The keys of the series matching every given filter, in insertion order. name_glob
        is a SQLite GLOB ("max_*"); features match as a subset; owner_id without
        owner_category matches the id under either category."""
        f = Filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval, features)
        return self._listed(_keys_of, lib.tsstore_list_keys, f.ref())

    def _listed(self, convert: Any, call: Any, *args: Any) -> Any:
        """convert(infos, n) of the n entries of a listing (three C calls; the strings the
        infos point at live as long as the list, so they are read here)."""
        out = handle_out()
        check(call(self._handle(), *args, byref(out)))
        try:
            n = c_size_t()
            check(lib.tsstore_keys_len(out, byref(n)))
            infos = new_infos(n.value)
            check(lib.tsstore_keys_get(out, 0, n.value, infos))
            return convert(infos, n.value)
        finally:
            lib.tsstore_keys_free(out)

    @operation("list_metadata")
    def list_metadata(self, **filters: Any) -> list[dict]:
        """The catalog record (get_metadata) of every series list_keys(**filters) selects."""
        f = Filter(**filter_args(filters))
        return self._listed(_records, lib.tsstore_list_keys, f.ref())

    def keys_by_hash(self, data_hash: str | bytes) -> KeyList:
        """The keys of every series that references the array with this content hash."""
        return self._listed(_keys_of, lib.tsstore_keys_by_hash, hash_bytes(data_hash))

    @operation("get_metadata")
    def get_metadata(self, key: Key) -> dict:
        """The catalog record of a series: key, series_type, dtype, length (first axis of the
        stored array), count (windows), initial_timestamp, element_shape, owner_type, units,
        ext, resolution, horizon, interval, data_hash and features_hash (hex)."""
        info = new_info()
        check(lib.tsstore_get_info(self._handle(), byref(key.lookup()), byref(info)))
        return _record(info)

    def counts_by_type(self) -> dict[SeriesType, int]:
        """The number of series of each type present."""
        counts = _counts()
        check(lib.tsstore_counts_by_type(self._handle(), byref(counts)))
        return _by_type(counts)

    def count_arrays(self) -> int:
        """The number of distinct stored arrays (series sharing content share one)."""
        n = c_int64()
        check(lib.tsstore_count_arrays(self._handle(), byref(n)))
        return n.value

    def count_by_hash(self, data_hash: str | bytes) -> dict[SeriesType, int]:
        """How many series of each type reference the array with this hash."""
        counts = _counts()
        check(lib.tsstore_count_by_hash(self._handle(), hash_bytes(data_hash), byref(counts)))
        return _by_type(counts)

    def shared_arrays(self) -> dict[str, list[Key]]:
        """The arrays more than one series references: data_hash (hex) → keys."""
        groups: dict[str, list[Key]] = {}
        for meta in self.list_metadata():
            groups.setdefault(meta["data_hash"], []).append(meta["key"])
        return {h: ks for h, ks in groups.items() if len(ks) > 1}

    def _distinct(self, field: int) -> list[str]:
        out = handle_out()
        check(lib.tsstore_list_distinct(self._handle(), field, byref(out)))
        try:
            return strings_of(out)
        finally:
            lib.tsstore_strings_free(out)

    def list_names(self) -> list[str]:
        """Distinct series names, sorted."""
        return self._distinct(raw.TSSTORE_FIELD_NAME)

    def list_owner_types(self) -> list[str]:
        """Distinct owner type names, sorted."""
        return self._distinct(raw.TSSTORE_FIELD_OWNER_TYPE)

    def list_resolutions(self) -> list[Any]:
        """Distinct resolutions, shortest first (timedelta, or Period for calendar ones)."""
        return [cv.as_period_value(t, "resolution") for t in self._distinct(raw.TSSTORE_FIELD_RESOLUTION)]

    def list_intervals(self) -> list[Any]:
        """Distinct forecast intervals, shortest first (timedelta or Period)."""
        return [cv.as_period_value(t, "interval") for t in self._distinct(raw.TSSTORE_FIELD_INTERVAL)]

    def forecast_parameters(self) -> list[dict]:
        """One dict per distinct set of forecast window parameters: series_type,
        initial_timestamp, resolution, horizon, interval, count, and how many series."""
        return [{"series_type": SeriesType(p.series_type), "initial_timestamp": cv.from_millis(p.initial_ms),
                 "resolution": cv.period_value(p.resolution), "horizon": cv.period_value(p.horizon),
                 "interval": cv.period_value(p.interval), "count": p.count, "series": p.n_series}
                for p in self._records(lib.tsstore_forecast_parameters, raw.tsstore_forecast_params)]

    def static_summary(self) -> list[dict]:
        """One dict per grid of the SingleTimeSeries: resolution, initial_timestamp, length,
        how many series and how many owners."""
        return [{"resolution": cv.period_value(g.resolution), "initial_timestamp": cv.from_millis(g.initial_ms),
                 "length": g.length, "series": g.n_series, "owners": g.n_owners}
                for g in self._records(lib.tsstore_static_summary, raw.tsstore_static_grid)]

    def _records(self, call: Any, struct: Any) -> list[Any]:
        n = c_size_t()
        check(call(self._handle(), None, 0, byref(n)))
        for _ in range(3):  # another thread may add a set in between
            arr = (struct * max(n.value, 1))()
            arr[0].struct_size = sizeof(struct)
            st = call(self._handle(), arr, n.value, byref(n))
            if st != _TOO_SMALL:
                check(st)
                return list(arr[: n.value])
        check(st)
        return []

    def check_static_consistency(self) -> bool:
        """Whether, at every resolution, all SingleTimeSeries share one grid (first timestamp
        and length), as a StaticReader over all of them needs."""
        ok = c_int32()
        check(lib.tsstore_check_static_consistency(self._handle(), byref(ok)))
        return bool(ok.value)


def _counts() -> Any:
    c = raw.tsstore_type_counts()
    c.struct_size = sizeof(c)
    return c


def _by_type(c: Any) -> dict[SeriesType, int]:
    values = (c.single_time_series, c.non_sequential_time_series, c.deterministic,
              c.deterministic_single_time_series, c.probabilistic, c.scenarios)
    return {SeriesType(i): v for i, v in enumerate(values) if v}


# The key of each tsstore_series_info of an array, as numpy sees it.
_INFO_KEYS = np.dtype({"names": ["key"], "formats": [numpy_dtype(raw.tsstore_lookup)],
                       "offsets": [raw.tsstore_series_info.key.offset], "itemsize": sizeof(raw.tsstore_series_info)})


def _keys_of(infos: Any, n: int) -> KeyList:
    """The keys of the first n infos (stored_keys)."""
    return stored_keys(np.frombuffer(infos, dtype=_INFO_KEYS, count=n)["key"]) if n else KeyList()


def _records(infos: Any, n: int) -> list[dict]:
    return [_record(info) for info in infos[:n]]


def _record(info: Any) -> dict:
    """The get_metadata dict of a series_info."""
    key = Key.from_lookup(info.key)
    typ = SeriesType(info.key.series_type)
    return {
        "key": key, "series_type": typ, "dtype": cv.DTYPES[info.dtype], "length": info.length, "count": info.count,
        "initial_timestamp": None if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES else cv.from_millis(info.initial_ms),
        "element_shape": _element_shape(info),
        "owner_type": cstr(info.owner_type) or None, "units": cstr(info.units) or None, "ext": cstr(info.ext) or None,
        "resolution": key.resolution, "horizon": cv.period_value(info.horizon), "interval": key.interval,
        "data_hash": bytes(info.data_hash).hex(), "features_hash": bytes(info.features_hash).hex()}


def _element_shape(info: Any) -> tuple[int, ...]:
    """The catalog's element_shape: the stored array is [length, *element_shape]. A
    DeterministicSingleTimeSeries is described as its windows read, [H, count, *E], while
    it stores (and its column holds) its source's E."""
    skip = 2 if info.key.series_type == SeriesType.DETERMINISTIC_SINGLE_TIME_SERIES else 1
    return tuple(int(d) for d in info.shape[skip: info.ndim])

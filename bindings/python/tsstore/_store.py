"""The store: adding, reading, querying and maintaining series through the C library."""
from __future__ import annotations

import contextlib
import operator
import datetime as _dt
import threading
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from . import _convert as cv
from ._errors import InvalidHandleError, TsStoreError
from ._ffi import api, null_handles
from ._series import (Deterministic, Handle, Key, NonSequentialTimeSeries, OwnerCategory, Probabilistic, Scenarios,
                      Series, SeriesType, SingleTimeSeries, array_from_handle, keys_from_list, series_from_handle)

_SUPPLEMENTAL, _PARENT_CHILD = 0, 1  # association tables (include/tsstore.h)
_META_TEXT = ("owner_type", "units", "ext", "resolution", "horizon", "interval")
_STATUS_CLOSED = 11  # TSSTORE_E_INVALID_HANDLE
# The widest range a timestamp may take (format-details §5: RFC 3339, years 0001–9999).
_MIN_MS = cv.millis(_dt.datetime(1, 1, 1))
_MAX_MS = cv.millis(_dt.datetime(9999, 12, 31, 23, 59, 59, 999000))


def _hash_bytes(data_hash: str | bytes) -> bytes:
    if isinstance(data_hash, str):
        try:
            raw = bytes.fromhex(data_hash)
        except ValueError:
            raw = b""
        if len(raw) != 32:
            raise ValueError(f"data_hash: {data_hash!r} is not 64 hexadecimal digits")
        return raw
    return bytes(data_hash)


class Store:
    """An open store: <name>.nc (the arrays) and <name>.nc.sqlite (the catalog).

    Make one with Store.create, Store.open or Store.in_memory; close() (safe twice) or a with
    block releases it. Threads may share a store: the library serialises calls on it. A closed
    store raises InvalidHandleError on every call.
    """

    def __init__(self, handle: int) -> None:
        self._h: int | None = handle
        self._lock = threading.Lock()

    @classmethod
    def create(cls, path: str, *, compression: str = "deflate:3:shuffle") -> "Store":
        """Creates a new store at path (path and path + '.sqlite' must not exist).
        compression: "none", "deflate:N:shuffle" or "deflate:N:noshuffle" (N 0–9)."""
        return cls(api.create(str(path), compression))

    @classmethod
    def open(cls, path: str, *, read_only: bool = False) -> "Store":
        """Opens an existing store; read_only needs no write permission and refuses writes
        with ReadOnlyError."""
        return cls(api.open(str(path), 1 if read_only else 0))

    @classmethod
    def in_memory(cls, *, compression: str = "deflate:3:shuffle") -> "Store":
        """A store that lives in memory until persist() writes it out."""
        return cls(api.open_in_memory(compression))

    def _handle(self) -> int:
        h = self._h
        if not h:
            raise InvalidHandleError("the store is closed", _STATUS_CLOSED)
        return h

    def close(self) -> None:
        """Commits pending writes and closes the store; closing twice is harmless."""
        with self._lock:
            h, self._h = self._h, None
        if h:
            api.close(h)

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except TsStoreError:
            pass

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return not self._h

    @property
    def last_error(self) -> str:
        """The message of the last failed call on this store, from any thread."""
        return api.store_last_error(self._handle())

    @property
    def recovered(self) -> str:
        """What opening the store rolled back ("" if nothing): a writer that died in the middle
        of a write leaves a hot journal beside the NetCDF file, and the next writable open
        restores the file from it to its last commit."""
        return api.store_recovered(self._handle())

    def flush(self) -> None:
        """Makes every write so far durable (outside a transaction)."""
        api.flush(self._handle())

    def persist(self, path: str) -> None:
        """Writes an in-memory store to path and path + '.sqlite'."""
        api.persist(self._handle(), str(path))

    def set_write_buffer(self, nbytes: int) -> None:
        """How many bytes of added arrays the store holds before writing them out (default
        256 MiB); one-at-a-time adds are written in blocks of this size."""
        api.set_write_buffer(self._handle(), nbytes)

    def set_read_cache(self, nbytes: int) -> None:
        """How many bytes of decoded columns the store keeps for one-at-a-time reads (default
        64 MiB; 0 turns it off). Reading one SingleTimeSeries decompresses every chunk of its
        packed dataset, so the store keeps the neighbouring columns it decoded with it: a
        loop of get_time_series over many components then costs a few passes, not one each."""
        api.set_read_cache(self._handle(), nbytes)

    # -- adding --------------------------------------------------------------------------

    def add_time_series(self, ts: Series, *, owner_id: int, owner_type: str,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
                        units: str | None = None, ext: str | None = None) -> Key:
        """Stores a series for an owner and returns its key. features: str / int / float /
        bool values that tell apart series of one name; units and ext are free text.
        Raises DuplicateTimeSeriesError for a stored key, InvalidParameterError naming the
        field for bad input."""
        h = _add(("add_single", "add_nonsequential", "add_forecast"), self._handle(), ts, owner_id, owner_type,
                 owner_category, features, units, ext)
        with Handle(h, api.key_free) as kh:
            return Key.from_handle(kh)

    def add_time_series_bulk(self, items: Iterable[dict]) -> list[Key]:
        """Adds many series in one call, all or nothing. Each item is a dict of the arguments
        of add_time_series (ts=…, owner_id=…, owner_type=…, …); keys come back in order."""
        with self.bulk_add() as batch:
            for item in items:
                batch.add(**item)
        return batch.keys

    @contextlib.contextmanager
    def bulk_add(self) -> Iterator["Batch"]:
        """Collects series with batch.add(...) and adds them all when the block ends (nothing
        if it raises, or if any of them is refused); batch.keys then holds their keys."""
        batch = Batch(self)
        try:
            yield batch
        except BaseException:
            batch.discard()
            raise
        batch.commit()

    # -- reading -------------------------------------------------------------------------

    def get_time_series(self, key: Key, *, start: Any = None, end: Any = None) -> Any:
        """Reads a series, or part of a static one (SingleTimeSeries: the steps from
        floor(start) to ceil(end); NonSequential: timestamps in [start, end)). Forecasts read
        whole here and by window through get_windows; a DeterministicSingleTimeSeries reads
        as a Deterministic."""
        with key.handle() as kh:
            if start is None and end is None:
                h = api.get(self._handle(), kh)
            else:
                # An open end reaches past the series (ranges are clamped to it).
                lo = _MIN_MS if start is None else cv.millis(start)
                hi = _MAX_MS if end is None else cv.millis(end)
                h = api.get_range(self._handle(), kh, lo, hi)
        with Handle(h, api.series_free) as sh:
            return series_from_handle(sh, key.name)

    def get_windows(self, key: Key, first: Any, last: Any | None = None) -> Any:
        """Reads the forecast windows starting in [first, last] (both window starts; last
        defaults to first)."""
        with key.handle() as kh:
            h = api.get_windows(self._handle(), kh, cv.millis(first), cv.millis(first if last is None else last))
        with Handle(h, api.series_free) as sh:
            return series_from_handle(sh, key.name)

    def get_many(self, keys: Sequence[Key]) -> list[Any]:
        """Reads many whole series, one pass per packed dataset; results in key order."""
        handles = [k.handle() for k in keys]
        out = null_handles(len(keys))
        try:
            api.get_many(self._handle(), [h.value for h in handles], out)
        finally:
            for h in handles:
                h.close()
        owned = [Handle(int(h), api.series_free) for h in out[: len(keys)]]  # all freed, even on error
        try:
            return [series_from_handle(h.value, k.name) for k, h in zip(keys, owned)]
        finally:
            for h in owned:
                h.close()

    def get_array(self, data_hash: str | bytes) -> np.ndarray:
        """A stored array by its content hash (64 hex digits or 32 bytes), as stored."""
        with Handle(api.get_array(self._handle(), _hash_bytes(data_hash)), api.series_free) as sh:
            info = api.series_info(sh)
            return array_from_handle(sh, info[1], info[2])

    def has_time_series(self, key: Key) -> bool:
        """Whether a series with exactly this key is stored."""
        with key.handle() as kh:
            return bool(api.has(self._handle(), kh))

    def remove_time_series(self, key: Key) -> None:
        """Removes one series (its array is freed once no other series uses it)."""
        with key.handle() as kh:
            api.remove(self._handle(), kh)

    def static_reader(self, resolution: Any, keys: Sequence[Key]) -> Any:
        """A StaticReader over SingleTimeSeries keys on one grid (see tsstore.StaticReader)."""
        from ._readers import open_static
        return open_static(self, resolution, keys)

    def forecast_reader(self, series_type: SeriesType, resolution: Any, keys: Sequence[Key]) -> Any:
        """A ForecastReader over forecast keys sharing a window timeline (see
        tsstore.ForecastReader); ABSTRACT_DETERMINISTIC mixes Deterministic and
        DeterministicSingleTimeSeries."""
        from ._readers import open_forecast
        return open_forecast(self, series_type, resolution, keys)

    # -- queries -------------------------------------------------------------------------

    def _filter(self, owner_id: int | None, owner_category: OwnerCategory | None, series_type: SeriesType | None,
                name: str | None, name_glob: str | None, owner_type: str | None, resolution: Any, interval: Any,
                features: dict | None) -> Handle:
        fh = Handle(api.filter_new(), api.filter_free)
        if owner_id is not None:  # -1: the id under either category
            api.filter_owner(fh.value, owner_id, -1 if owner_category is None else int(owner_category))
        elif owner_category is not None:
            api.filter_owner_category(fh.value, int(owner_category))
        if series_type is not None:
            api.filter_series_type(fh.value, int(series_type))
        for fn, v in ((api.filter_name, name), (api.filter_name_glob, name_glob), (api.filter_owner_type, owner_type)):
            if v is not None:
                fn(fh.value, v)
        for fn, v in ((api.filter_resolution, resolution), (api.filter_interval, interval)):
            if v is not None:
                fn(fh.value, cv.period(v))
        if features:
            api.filter_features(fh.value, cv.features_json(features))
        return fh

    def list_keys(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                  series_type: SeriesType | None = None, name: str | None = None, name_glob: str | None = None,
                  owner_type: str | None = None, resolution: Any = None, interval: Any = None,
                  features: dict | None = None) -> list[Key]:
        """The keys of the series matching every given filter, in insertion order. name_glob
        is a SQLite GLOB ("max_*"); features match as a subset; owner_id without
        owner_category matches the id under either category."""
        with self._filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                          features) as fh:
            return keys_from_list(api.list_keys_where(self._handle(), fh))

    def remove_time_series_where(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                                 series_type: SeriesType | None = None, name: str | None = None,
                                 name_glob: str | None = None, owner_type: str | None = None, resolution: Any = None,
                                 interval: Any = None, features: dict | None = None) -> int:
        """Removes every series list_keys with the same filters selects, all or nothing, and
        returns how many; with no filter at all it removes every series."""
        with self._filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval,
                          features) as fh:
            return api.remove_where(self._handle(), fh)

    def list_metadata(self, **filters: Any) -> list[dict]:
        """The catalog record (get_metadata) of every series list_keys(**filters) selects."""
        return [self.get_metadata(k) for k in self.list_keys(**filters)]

    def keys_by_hash(self, data_hash: str | bytes) -> list[Key]:
        """The keys of every series that references the array with this content hash."""
        return keys_from_list(api.keys_by_hash(self._handle(), _hash_bytes(data_hash)))

    def get_metadata(self, key: Key) -> dict:
        """The catalog record of a series: key, series_type, dtype, length (first axis of the
        stored array), count (windows), initial_timestamp, element_shape, owner_type, units,
        ext, resolution, horizon, interval, data_hash and features_hash (hex)."""
        with key.handle() as kh:
            mh = api.get_metadata(self._handle(), kh)
        with Handle(mh, api.metadata_free) as h:
            typ, dtype, length, count, initial = api.metadata_info(h)
            ndim = api.metadata_element_shape(h, None)
            shape = np.zeros(max(ndim, 1), dtype=np.int64)
            api.metadata_element_shape(h, shape)
            record: dict[str, Any] = {
                "series_type": SeriesType(typ), "dtype": cv.DTYPES[dtype], "length": length, "count": count,
                "initial_timestamp": None if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES else cv.from_millis(initial),
                "element_shape": tuple(int(d) for d in shape[:ndim])}
            for i, field in enumerate(_META_TEXT):
                record[field] = api.metadata_text(h, i) or None
            record["data_hash"] = api.metadata_hash(h, 0).hex()
            record["features_hash"] = api.metadata_hash(h, 1).hex()
            with Handle(api.metadata_key(h), api.key_free) as kh2:
                record["key"] = Key.from_handle(kh2)
        return record

    def counts_by_type(self) -> dict[SeriesType, int]:
        """The number of series of each type present."""
        counts = api.counts_by_type(self._handle())
        return {SeriesType(i): counts[i] for i in range(6) if counts[i]}

    def count_arrays(self) -> int:
        """The number of distinct stored arrays (series sharing content share one)."""
        return api.count_arrays(self._handle())

    def count_by_hash(self, data_hash: str | bytes) -> dict[SeriesType, int]:
        """How many series of each type reference the array with this hash."""
        counts = api.count_by_hash(self._handle(), _hash_bytes(data_hash))
        return {SeriesType(i): counts[i] for i in range(6) if counts[i]}

    def shared_arrays(self) -> dict[str, list[Key]]:
        """The arrays more than one series references: data_hash (hex) → keys."""
        groups: dict[str, list[Key]] = {}
        for meta in self.list_metadata():
            groups.setdefault(meta["data_hash"], []).append(meta["key"])
        return {h: ks for h, ks in groups.items() if len(ks) > 1}

    def _distinct(self, field: int) -> list[str]:
        with Handle(api.list_distinct(self._handle(), field), api.strings_free) as h:
            return [api.strings_get(h, i) for i in range(api.strings_len(h))]

    def list_names(self) -> list[str]:
        """Distinct series names, sorted."""
        return self._distinct(0)

    def list_owner_types(self) -> list[str]:
        """Distinct owner type names, sorted."""
        return self._distinct(1)

    def list_resolutions(self) -> list[str]:
        """Distinct resolutions, shortest first."""
        return self._distinct(2)

    def list_intervals(self) -> list[str]:
        """Distinct forecast intervals, shortest first."""
        return self._distinct(3)

    def forecast_parameters(self) -> list[dict]:
        """One dict per distinct set of forecast window parameters: series_type,
        initial_timestamp, resolution, horizon, interval, count, and how many series."""
        out = []
        for line in api.forecast_parameters(self._handle()).splitlines():
            t, t0, res, hor, iv, count, n = line.split()
            out.append({"series_type": SeriesType(int(t)), "initial_timestamp": cv.from_millis(int(t0)),
                        "resolution": res, "horizon": hor, "interval": iv, "count": int(count), "series": int(n)})
        return out

    def static_summary(self) -> list[dict]:
        """One dict per grid of the SingleTimeSeries: resolution, initial_timestamp, length,
        how many series and how many owners."""
        out = []
        for line in api.static_summary(self._handle()).splitlines():
            res, t0, length, n, owners = line.split()
            out.append({"resolution": res, "initial_timestamp": cv.from_millis(int(t0)), "length": int(length),
                        "series": int(n), "owners": int(owners)})
        return out

    def check_static_consistency(self) -> bool:
        """Whether, at every resolution, all SingleTimeSeries share one grid (first timestamp
        and length), as a StaticReader over all of them needs."""
        return bool(api.check_static_consistency(self._handle()))

    # -- owner moves ---------------------------------------------------------------------

    def copy_time_series(self, key: Key, *, owner_id: int, owner_type: str,
                         owner_category: OwnerCategory = OwnerCategory.COMPONENT, name: str | None = None) -> Key:
        """Attaches a stored series to another owner too, optionally renamed (the array is
        shared, not copied); returns the new key."""
        with key.handle() as kh:
            h = api.copy_series(self._handle(), kh, owner_id, owner_type, int(owner_category), name)
        with Handle(h, api.key_free) as nk:
            return Key.from_handle(nk)

    def rename_time_series(self, key: Key, name: str) -> Key:
        """Renames a stored series and returns its new key."""
        with key.handle() as kh:
            h = api.rename_series(self._handle(), kh, name)
        with Handle(h, api.key_free) as nk:
            return Key.from_handle(nk)

    def replace_owner_id(self, old: int, new: int, *, owner_category: OwnerCategory = OwnerCategory.COMPONENT) -> int:
        """Moves every series of one owner to another id, all or nothing; returns how many."""
        return api.replace_owner_id(self._handle(), int(owner_category), old, new)

    # -- associations --------------------------------------------------------------------

    def add_supplemental_attribute_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Attaches attributes to components, all or nothing: rows of (component_id,
        component_type, attribute_id, attribute_type). A stored (component, attribute) pair,
        whatever its type names, is DuplicateAssociationError."""
        self._add_associations(_SUPPLEMENTAL, rows)

    def add_parent_child_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Adds directed edges, all or nothing: rows of (parent_id, parent_type, child_id,
        child_type)."""
        self._add_associations(_PARENT_CHILD, rows)

    def _add_associations(self, table: int, rows: Iterable[tuple[int, str, int, str]]) -> None:
        rows = list(rows)
        api.add_associations(self._handle(), table, len(rows), [r[0] for r in rows], [r[1] for r in rows],
                             [r[2] for r in rows], [r[3] for r in rows])

    def has_supplemental_attribute_association(self, component_id: int, attribute_id: int) -> bool:
        """Whether the attribute is attached to the component."""
        return bool(api.has_association(self._handle(), _SUPPLEMENTAL, component_id, attribute_id))

    def has_parent_child_association(self, parent_id: int, child_id: int) -> bool:
        """Whether the edge parent → child exists."""
        return bool(api.has_association(self._handle(), _PARENT_CHILD, parent_id, child_id))

    def list_supplemental_attribute_associations(
            self, *, component_ids: Iterable[int] | None = None, attribute_ids: Iterable[int] | None = None,
            component_type: str | None = None, attribute_type: str | None = None) -> list[tuple[int, str, int, str]]:
        """Rows of (component_id, component_type, attribute_id, attribute_type) matching every
        filter; an id filter of None matches everything, an empty one nothing."""
        return self._list_associations(_SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def list_parent_child_associations(
            self, *, parent_ids: Iterable[int] | None = None, child_ids: Iterable[int] | None = None,
            parent_type: str | None = None, child_type: str | None = None) -> list[tuple[int, str, int, str]]:
        """Rows of (parent_id, parent_type, child_id, child_type) matching every filter."""
        return self._list_associations(_PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _list_associations(self, table: int, a_ids: Any, b_ids: Any, a_type: str | None,
                           b_type: str | None) -> list[tuple[int, str, int, str]]:
        h = api.list_associations(self._handle(), table, _ids(a_ids), _ids(b_ids), a_type, b_type)
        with Handle(h, api.associations_free) as rh:
            rows = []
            for i in range(api.associations_len(rh)):
                a, b = api.associations_ids(rh, i)
                rows.append((a, api.associations_type(rh, i, 0), b, api.associations_type(rh, i, 1)))
            return rows

    def list_component_ids_with_attributes(self, *, attribute_ids: Iterable[int] | None = None,
                                           attribute_type: str | None = None) -> list[int]:
        """The distinct components carrying the given attributes (all: None), ascending."""
        rows = self.list_supplemental_attribute_associations(attribute_ids=attribute_ids,
                                                             attribute_type=attribute_type)
        return sorted({r[0] for r in rows})

    def list_attribute_ids_of_components(self, *, component_ids: Iterable[int] | None = None,
                                         attribute_type: str | None = None) -> list[int]:
        """The distinct attributes attached to the given components (all: None), ascending."""
        rows = self.list_supplemental_attribute_associations(component_ids=component_ids,
                                                             attribute_type=attribute_type)
        return sorted({r[2] for r in rows})

    def remove_supplemental_attribute_associations(
            self, *, component_ids: Iterable[int] | None = None, attribute_ids: Iterable[int] | None = None,
            component_type: str | None = None, attribute_type: str | None = None) -> int:
        """Removes the matching rows (no filter: all of them) and returns how many."""
        return api.remove_associations(self._handle(), _SUPPLEMENTAL, _ids(component_ids), _ids(attribute_ids),
                                       component_type, attribute_type)

    def remove_parent_child_associations(
            self, *, parent_ids: Iterable[int] | None = None, child_ids: Iterable[int] | None = None,
            parent_type: str | None = None, child_type: str | None = None) -> int:
        """Removes the matching edges and returns how many."""
        return api.remove_associations(self._handle(), _PARENT_CHILD, _ids(parent_ids), _ids(child_ids), parent_type,
                                       child_type)

    def replace_association_component_id(self, old: int, new: int) -> int:
        """Replaces a component id in the supplemental-attribute associations; returns how
        many rows changed."""
        return api.replace_association_id(self._handle(), _SUPPLEMENTAL, old, new)

    def replace_parent_child_id(self, old: int, new: int) -> int:
        """Replaces an id at both ends of the parent/child edges; returns how many changed."""
        return api.replace_association_id(self._handle(), _PARENT_CHILD, old, new)

    def supplemental_attribute_association_counts(self) -> dict[str, int]:
        """{'rows', 'components', 'attributes'}: rows and distinct ids at each end."""
        rows, a, b = api.association_counts(self._handle(), _SUPPLEMENTAL)
        return {"rows": rows, "components": a, "attributes": b}

    def parent_child_association_counts(self) -> dict[str, int]:
        """{'rows', 'parents', 'children'}."""
        rows, a, b = api.association_counts(self._handle(), _PARENT_CHILD)
        return {"rows": rows, "parents": a, "children": b}

    def children_of(self, parent_id: int) -> list[int]:
        """The children of a component, ascending."""
        return sorted({r[2] for r in self.list_parent_child_associations(parent_ids=[parent_id])})

    def parents_of(self, child_id: int) -> list[int]:
        """The parents of a component, ascending."""
        return sorted({r[0] for r in self.list_parent_child_associations(child_ids=[child_id])})

    # -- transactions and maintenance ----------------------------------------------------

    @contextlib.contextmanager
    def transaction(self) -> Iterator["Store"]:
        """A transaction: committed when the block ends (durably when it is the outermost),
        rolled back — rows, arrays and removals — if it raises. Nests."""
        h = self._handle()
        api.begin(h)
        try:
            yield self
        except BaseException:
            if self._h:  # a store closed inside the block rolled the transaction back itself
                api.rollback(h)
            raise
        api.commit(h)

    def transform_single_time_series(self, horizon: Any, interval: Any, *,
                                     owner_category: OwnerCategory | None = None, resolution: Any = None) -> int:
        """Derives a DeterministicSingleTimeSeries view of every stored SingleTimeSeries
        (optionally of one owner category / resolution), all or nothing; returns how many
        were added (0 when run again with the same horizon)."""
        return api.transform_single_time_series(
            self._handle(), cv.period(horizon), cv.period(interval), -1 if owner_category is None else int(owner_category),
            None if resolution is None else cv.period(resolution))

    def compact(self) -> dict[str, int]:
        """Commits pending writes and deletes unreferenced feature sets; reports
        slots_reclaimed, datasets_dropped, feature_sets_reclaimed and dead_standalone."""
        names = ("slots_reclaimed", "datasets_dropped", "feature_sets_reclaimed", "dead_standalone")
        return dict(zip(names, api.compact(self._handle())))

    def verify_integrity(self) -> dict[str, Any]:
        """Rehashes every array and checks every row: {'arrays_checked': n, 'problems':
        [one description per problem]} (an empty list: the store is sound)."""
        checked, _n, text = api.verify_integrity(self._handle())
        return {"arrays_checked": checked, "problems": [line for line in text.split("\n") if line]}


def _ids(values: Iterable[int] | None) -> list[int] | None:
    return None if values is None else [operator.index(v) for v in values]


def _add(names: tuple[str, str, str], target: int, ts: Series, owner_id: int, owner_type: str,
         owner_category: OwnerCategory, features: dict | None, units: str | None, ext: str | None) -> Any:
    """Calls the add (or batch-add) function for ts's type; returns what it returns."""
    single, nonseq, forecast = (getattr(api, n) for n in names)
    arr = cv.as_array(ts.data)
    head = (target, owner_id, owner_type, int(owner_category), ts.name)
    tail = (cv.dtype_code(arr.dtype), list(arr.shape), arr, cv.features_json(features), units, ext)
    if isinstance(ts, SingleTimeSeries):
        return single(*head, cv.millis(ts.initial_timestamp), cv.period(ts.resolution), *tail)
    if isinstance(ts, NonSequentialTimeSeries):
        return nonseq(*head, [cv.millis(t) for t in ts.timestamps], *tail)
    if isinstance(ts, (Deterministic, Probabilistic, Scenarios)):
        pct = list(getattr(ts, "percentiles", []) or [])
        return forecast(*head, int(ts.series_type), cv.millis(ts.initial_timestamp), cv.period(ts.resolution),
                        cv.period(ts.horizon), cv.period(ts.interval), int(ts.count), pct, *tail)
    raise TypeError(f"{type(ts).__name__} is not a tsstore series type")


class Batch:
    """Series collected by Store.bulk_add(); added together, all or nothing, when the block
    ends. keys holds their keys afterwards."""

    def __init__(self, store: Store) -> None:
        self._h = Handle(api.batch_new(store._handle()), api.batch_free)
        self.keys: list[Key] = []

    def add(self, ts: Series, *, owner_id: int, owner_type: str,
            owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
            units: str | None = None, ext: str | None = None) -> None:
        """Queues one series (its arguments are checked now, its key at the end)."""
        _add(("batch_add_single", "batch_add_nonsequential", "batch_add_forecast"), self._live(), ts, owner_id,
             owner_type, owner_category, features, units, ext)

    def __len__(self) -> int:
        """How many series are queued."""
        return api.batch_len(self._live())

    def _live(self) -> int:
        if not self._h.value:
            raise InvalidHandleError("the batch was committed or discarded", _STATUS_CLOSED)
        return self._h.value

    def commit(self) -> list[Key]:
        """Adds every queued series, all or nothing, and returns their keys."""
        try:
            self.keys = keys_from_list(api.batch_commit(self._live()))
        finally:
            self._h.close()
        return self.keys

    def discard(self) -> None:
        """Drops what is queued; harmless after commit."""
        self._h.close()

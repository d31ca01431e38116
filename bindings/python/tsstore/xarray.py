"""An xarray engine for tsstore stores: ``xr.open_dataset("system.nc", engine="tsstore", ...)``.

The Dataset has one variable per *family*: the series of one type, name and resolution (and,
for forecasts, interval) across their owners. Which families, is chosen with the keywords of
``open_dataset`` (see ``TsStoreBackendEntrypoint.open_dataset``):

    ds = xr.open_dataset("system.nc", engine="tsstore", name="max_active_power", resolution="PT1H")
    ds.max_active_power.sel(component=17)                  # one owner's series, read lazily

Static series (SingleTimeSeries) have the dimensions ``time`` × ``component`` (+ element
dimensions); forecasts (Deterministic and DeterministicSingleTimeSeries, Probabilistic,
Scenarios) ``window`` × ``step`` × ``component`` (+ ``percentile`` / ``scenario`` and element
dimensions). ``component`` is the owner id. Values are read through the store, lazily:
a StaticReader (ForecastReader) step per timestamp (window) asked for, or get_many for a few
whole columns. With ``chunks=`` xarray wraps the same arrays in dask; the arrays pickle as
the store's path and reopen it read-only once per process (``shared_store``).
"""
from __future__ import annotations

import dataclasses
import functools
import datetime as _dt
import os
import threading
import uuid
from collections import OrderedDict
from typing import Any, Iterable, Sequence

import numpy as np
import numpy.typing as npt
import xarray as xr
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.core import indexing

from . import _convert as cv
from ._errors import BufferTooSmallError, InvalidHandleError
from ._ffi import byref, c_size_t, check, lib
from ._series import Key, OwnerCategory, SeriesType
from ._store import Store

__all__ = ["TsStoreBackendEntrypoint", "open_dataset", "families", "shared_store", "close_shared_stores"]

_STATIC = (SeriesType.SINGLE_TIME_SERIES,)
_DETERMINISTIC = (SeriesType.DETERMINISTIC, SeriesType.DETERMINISTIC_SINGLE_TIME_SERIES)
_LAYERED = {SeriesType.PROBABILISTIC: "percentile", SeriesType.SCENARIOS: "scenario"}
_TYPE_NAMES = {"SingleTimeSeries": SeriesType.SINGLE_TIME_SERIES, "Deterministic": SeriesType.DETERMINISTIC,
               "DeterministicSingleTimeSeries": SeriesType.DETERMINISTIC_SINGLE_TIME_SERIES,
               "Probabilistic": SeriesType.PROBABILISTIC, "Scenarios": SeriesType.SCENARIOS}
_CATEGORY_TEXT = {OwnerCategory.COMPONENT: "Component", OwnerCategory.SUPPLEMENTAL_ATTRIBUTE: "SupplementalAttribute"}


# -- periods, whatever type the package returns them as ------------------------------------

def period_iso(value: Any) -> str | None:
    """The canonical ISO-8601 text of a period given as text, a timedelta or any period type
    the package returns (None stays None), spelled by the library."""
    if value is None:
        return None
    try:
        p = cv.period(value, "period")
    except TypeError:  # a period type this module does not know: its text form
        p = cv.period(str(value), "period")
    return cv.period_text(p)


def _fixed_ms(value: Any) -> int | None:
    """A fixed period's milliseconds; None for a calendar period."""
    p = cv.period(period_iso(value), "period")
    return int(p.value) if p.unit == _raw_millis() else None


def _raw_millis() -> int:
    from ._ffi import raw
    return int(raw.TSSTORE_PERIOD_MILLIS)


def _as_ns(ms: np.ndarray) -> np.ndarray:
    """datetime64[ms] as datetime64[ns] when every value fits (years 1678–2261), else as is."""
    lo, hi = np.datetime64("1678-01-01", "ms"), np.datetime64("2261-12-31", "ms")
    if ms.size == 0 or (ms.min() >= lo and ms.max() <= hi):
        return ms.astype("datetime64[ns]")
    return ms


# -- one store per path and process ----------------------------------------------------------

_shared_lock = threading.Lock()
_shared: dict[str, tuple[int, tuple[int, int, int], Store]] = {}
_users: dict[str, int] = {}


def _identity(path: str) -> tuple[int, int, int]:
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_mtime_ns


def shared_store(path: str) -> Store:
    """This process's read-only handle on the store at path, opened on first use and kept
    (a dask worker opens each store once, whatever the number of tasks). A handle inherited
    across fork, or one on a file replaced since, is not reused."""
    real = os.path.realpath(path)
    ident = _identity(real)
    stale: list[Any] = []
    with _shared_lock:
        hit = _shared.get(real)
        if hit is not None and hit[0] == os.getpid() and hit[1] == ident and not hit[2].closed:
            return hit[2]
        if hit is not None and hit[0] == os.getpid():
            stale = _take_readers(real) + [hit[2]]
        store = Store.open(real, read_only=True)
        _shared[real] = (os.getpid(), ident, store)
    _close(stale)
    return store


def _release(path: str) -> None:
    """A Dataset over path was closed: the handle closes when no open Dataset uses it (the
    arrays reopen it if they are read after that)."""
    real = os.path.realpath(path)
    with _shared_lock:
        _users[real] = _users.get(real, 1) - 1
        if _users[real] > 0:
            return
        del _users[real]
        hit = _shared.pop(real, None)
        stale = _take_readers(real)
    if hit is not None and hit[0] == os.getpid():
        stale.append(hit[2])
    _close(stale)


def close_shared_stores() -> None:
    """Closes every handle shared_store opened in this process (and the readers over them)."""
    with _shared_lock:
        stale = [r for k, r in _readers.items() if k[2] == os.getpid()]
        stale += [s for pid, _, s in _shared.values() if pid == os.getpid()]
        _readers.clear()
        _shared.clear()
        _users.clear()
    _close(stale)


def _close(handles: list[Any]) -> None:
    """Closes readers, then stores (a reader must not outlive its store): each reader under
    its lock, so that a thread in the middle of a read finishes it first."""
    for h in handles:
        lock = getattr(h, "lock", None)
        if lock is not None:
            with lock:
                h.close()
        else:
            h.close()


# Readers cost a lookup per key to make: the last few stay open, per (array, columns).
_readers: "OrderedDict[tuple, Any]" = OrderedDict()
_READERS_KEPT = 8


def _take_readers(real: str) -> list[Any]:
    """Removes the cached readers over the store at real (under _shared_lock) for closing."""
    return [_readers.pop(k) for k in [k for k in _readers if k[0] == real]]


def _reader(real: str, token: str, cols: np.ndarray, make: Any) -> Any:
    ck = (real, token, os.getpid(), cols.tobytes())
    with _shared_lock:
        r = _readers.get(ck)
        if r is not None and not r._store.closed:
            _readers.move_to_end(ck)
            return r
    r = make()
    evicted = []
    with _shared_lock:
        _readers[ck] = r
        while len(_readers) > _READERS_KEPT:
            evicted.append(_readers.popitem(last=False)[1])
    _close(evicted)
    return r


def _keep_reader(arr: "_StoreArray", reader: Any) -> None:
    """The reader open_dataset made over every key of a family (to learn its grid) is the one
    a read of every component in this process uses: kept, not made twice."""
    axis = (3 if arr.series_type in _LAYERED else 2) if isinstance(arr, ForecastArray) else 1
    n_c = arr.shape[axis]
    ck = (arr.path, arr.token, os.getpid(), np.arange(n_c).tobytes())
    with _shared_lock:
        _readers[ck] = reader
        evicted = []
        while len(_readers) > _READERS_KEPT:
            evicted.append(_readers.popitem(last=False)[1])
    _close(evicted)


def _use_reader(real: str, token: str, cols: np.ndarray, make: Any, use: Any) -> None:
    """use(reader) under the reader's lock, with the cached reader for these columns; if
    another thread evicted and closed it in between, with a reader of its own."""
    try:
        reader = _reader(real, token, cols, make)
        with reader.lock:
            use(reader)
        return
    except InvalidHandleError:
        pass
    reader = make()
    try:
        with reader.lock:
            use(reader)
    finally:
        reader.close()


# -- families ---------------------------------------------------------------------------------

@dataclasses.dataclass
class Family:
    """The series of one type, name and resolution (interval for forecasts) that a filter
    selected, one per owner."""
    series_type: SeriesType
    name: str
    resolution: str | None
    interval: str | None
    records: list[dict]

    @property
    def kind(self) -> str:
        if self.series_type in _STATIC:
            return "SingleTimeSeries"
        if self.series_type in _DETERMINISTIC:
            return "Deterministic"
        return self.series_type.name.title().replace("_", "")

    def describe(self) -> str:
        r0 = self.records[0]
        where = f"name={self.name!r}, series_type={self.kind!r}, resolution={self.resolution!r}"
        if self.interval:
            where += f", interval={self.interval!r}"
        grids = {(str(r["initial_timestamp"]), r["length"] if self.series_type in _STATIC else r["count"])
                 for r in self.records}
        grid = "; ".join(f"from {t} × {n}" for t, n in sorted(grids))
        return (f"{where}: {len(self.records)} series ({len(grids)} grid{'s' if len(grids) > 1 else ''}: {grid}), "
                f"dtype {r0['dtype']}")


def _family_key(rec: dict) -> tuple:
    key: Key = rec["key"]
    typ = SeriesType(key.series_type)
    if typ in _DETERMINISTIC:
        typ = SeriesType.DETERMINISTIC
    return (int(typ), key.name, period_iso(key.resolution), period_iso(key.interval))


def _select(store: Store, name: str | Sequence[str] | None, series_type: Any, resolution: Any, interval: Any,
            owner_type: str | None, owner_category: Any, features: dict | None) -> list[Family]:
    types = _series_types(series_type)
    names: list[str | None] = [name] if name is None or isinstance(name, str) else list(name)
    category = None if owner_category is None else _category(owner_category)
    records: list[dict] = []
    for typ in types:
        for n in names:
            records += store.list_metadata(series_type=typ, name=n, resolution=resolution, interval=interval,
                                           owner_type=owner_type, owner_category=category, features=features)
    fams: dict[tuple, Family] = {}
    for rec in records:
        fk = _family_key(rec)
        fam = fams.get(fk)
        if fam is None:
            fam = fams[fk] = Family(SeriesType(fk[0]), fk[1], fk[2], fk[3], [])
        fam.records.append(rec)
    return list(fams.values())


def _series_types(value: Any) -> list[SeriesType]:
    if value is None:
        return [SeriesType.SINGLE_TIME_SERIES]
    if isinstance(value, str):
        if value not in _TYPE_NAMES:
            raise ValueError(f"series_type {value!r}: one of {', '.join(_TYPE_NAMES)}")
        value = _TYPE_NAMES[value]
    typ = SeriesType(value)
    if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
        raise ValueError("NonSequentialTimeSeries have no shared time axis: read them with Store.get_time_series "
                         "(series.to_pandas())")
    if typ in (SeriesType.DETERMINISTIC, SeriesType.ABSTRACT_DETERMINISTIC):
        return list(_DETERMINISTIC)
    return [typ]


def _category(value: Any) -> OwnerCategory:
    if isinstance(value, str):
        for cat, text in _CATEGORY_TEXT.items():
            if value == text:
                return cat
        raise ValueError(f"owner_category {value!r}: 'Component' or 'SupplementalAttribute'")
    return OwnerCategory(value)


def families(path_or_store: str | os.PathLike[str] | Store, **filters: Any) -> list[Family]:
    """The families (type, name, resolution[, interval]) the filters of open_dataset select,
    with their series' catalog records: what open_dataset can make variables of."""
    if isinstance(path_or_store, Store):
        return _select(path_or_store, **_filters(filters))
    with Store.open(os.fspath(path_or_store), read_only=True) as store:
        return _select(store, **_filters(filters))


def _filters(f: dict) -> dict:
    names = ("name", "series_type", "resolution", "interval", "owner_type", "owner_category", "features")
    unknown = set(f) - set(names)
    if unknown:
        raise TypeError(f"unknown selection {sorted(unknown)[0]!r}; select with {', '.join(names)}")
    return {n: f.get(n) for n in names}


# -- lazy arrays --------------------------------------------------------------------------------

def _axis(idx: Any, n: int) -> tuple[np.ndarray, Any]:
    """The sorted distinct positions an outer indexer reads on an axis of length n, and the
    indexer that takes the asked-for positions, in the asked-for order, out of them."""
    if isinstance(idx, slice):
        pos = np.arange(n)[idx]
        if idx.step is None or idx.step > 0:
            return pos, slice(None)
        uniq, inv = np.unique(pos, return_inverse=True)
        return uniq, inv
    if isinstance(idx, (int, np.integer)):
        i = int(idx) + (n if idx < 0 else 0)
        return np.array([i]), 0
    arr = np.asarray(idx, dtype=np.int64)
    arr = np.where(arr < 0, arr + n, arr)
    uniq, inv = np.unique(arr, return_inverse=True)
    return uniq, inv.reshape(arr.shape)


def _outer(arr: np.ndarray, post: Sequence[Any]) -> np.ndarray:
    """Outer indexing, one axis at a time from the last (an int drops its axis)."""
    for ax in range(len(post) - 1, -1, -1):
        p = post[ax]
        if isinstance(p, slice) and p == slice(None):
            continue
        arr = arr[(slice(None),) * ax + (p,)]
    return arr


def _whole_columns(n_steps: int, steps: int, n_cols: int, cols: int) -> bool:
    """Whether get_many of whole columns beats a reader step per step asked. A packed chunk
    is one step of every column of its dataset, so a step costs one chunk decoded whatever
    the number of columns, and a whole column costs every chunk: both decode the same when
    most steps are asked. get_many then wins for a few columns (one call, no per-step
    copies); the reader wins for many (measured: 10,000 × 1,460 read whole in 1.3 s by
    steps, 2.4–2.8 s by get_many) and whenever few steps are asked."""
    return 2 * n_steps >= steps and 4 * n_cols <= cols


class _StoreArray(BackendArray):
    """What the two array kinds share: the store's path (reopened per process), the keys in
    component order, the family's reading parameters. Pickles without ctypes state."""

    def __init__(self, path: str, keys: Sequence[Key], resolution: Any, shape: tuple[int, ...], dtype: np.dtype,
                 series_type: SeriesType) -> None:
        self.path = os.path.realpath(path)
        self.keys = [dataclasses.replace(k) for k in keys]
        self.resolution = resolution
        self.shape = shape
        self.dtype = dtype
        self.series_type = series_type
        self.token = uuid.uuid4().hex

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["keys"] = [dataclasses.replace(k) for k in self.keys]  # without the cached ctypes lookups
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> npt.ArrayLike:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.OUTER, self._read)

    def _read(self, key: tuple) -> np.ndarray:
        raise NotImplementedError


class StaticArray(_StoreArray):
    """(time, component, *element) of one SingleTimeSeries family, read lazily."""

    def _read(self, key: tuple) -> np.ndarray:
        n_t, n_c = self.shape[0], self.shape[1]
        steps, t_post = _axis(key[0], n_t)
        cols, c_post = _axis(key[1], n_c)
        elem = self.shape[2:]
        out = np.empty((len(steps), len(cols)) + elem, dtype=self.dtype)
        if len(steps) and len(cols):
            store = shared_store(self.path)
            keys = self.keys if len(cols) == n_c else [self.keys[i] for i in cols]
            if _whole_columns(len(steps), n_t, len(cols), n_c):
                for j, ts in enumerate(store.get_many(keys)):
                    out[:, j] = np.asarray(ts.data)[steps]
            else:
                def sweep(reader: Any) -> None:
                    for j, i in enumerate(steps):
                        out[j] = reader.read_step(int(i))
                _use_reader(self.path, self.token, cols, lambda: store.static_reader(self.resolution, keys), sweep)
        return _outer(out, (t_post, c_post) + tuple(key[2:]))


class ForecastArray(_StoreArray):
    """(window, [layer,] step, component, *element) of one forecast family, read lazily."""

    def _read(self, key: tuple) -> np.ndarray:
        layered = self.series_type in _LAYERED
        lead = 3 if layered else 2  # window, [layer,] step
        n_w, n_c = self.shape[0], self.shape[lead]
        wins, w_post = _axis(key[0], n_w)
        cols, c_post = _axis(key[lead], n_c)
        inner = self.shape[1:lead]  # ([L,] H)
        elem = self.shape[lead + 1:]
        out = np.empty((len(wins),) + inner + (len(cols),) + elem, dtype=self.dtype)
        if len(wins) and len(cols):
            store = shared_store(self.path)
            keys = self.keys if len(cols) == n_c else [self.keys[i] for i in cols]
            if _whole_columns(len(wins), n_w, len(cols), n_c):
                for j, ts in enumerate(store.get_many(keys)):
                    data = np.asarray(ts.data)  # ([L,] H, count, *E)
                    out[(slice(None),) * lead + (j,)] = np.moveaxis(data, lead - 1, 0)[wins]
            else:
                rtype = SeriesType.ABSTRACT_DETERMINISTIC if self.series_type in _DETERMINISTIC else self.series_type
                def sweep(reader: Any) -> None:
                    for j, i in enumerate(wins):
                        vals = reader.read_window(int(i))  # (n, [L,] H, *E)
                        out[j] = np.moveaxis(vals, 0, lead - 1)
                _use_reader(self.path, self.token, cols, lambda: store.forecast_reader(rtype, self.resolution, keys),
                            sweep)
        post = (w_post,) + tuple(key[1:lead]) + (c_post,) + tuple(key[lead + 1:])
        return _outer(out, post)


# -- the Dataset ----------------------------------------------------------------------------------

_RESERVED = {"time", "component", "window", "step", "valid_time", "percentile", "scenario", "owner_type",
             "owner_category", "units", "ext"}


def _owner_coords(fam: Family) -> tuple[np.ndarray, dict[str, tuple]]:
    ids = np.array([r["key"].owner_id for r in fam.records], dtype=np.int64)
    cats = [_CATEGORY_TEXT[OwnerCategory(r["key"].owner_category)] for r in fam.records]
    pairs = list(zip(ids.tolist(), cats))
    if len(set(pairs)) != len(pairs):
        dup = sorted({p for p in pairs if pairs.count(p) > 1})[:5]
        feats = sorted({str(r["key"].features) for r in fam.records if (r["key"].owner_id, _CATEGORY_TEXT[
            OwnerCategory(r["key"].owner_category)]) in dup})
        raise ValueError(f"family {fam.describe()} has several series for one owner {dup} (feature sets {feats}): "
                         "pass features={...} (or owner_type=, owner_category=) to pick one series per owner")
    coords: dict[str, tuple] = {
        "owner_type": ("component", np.array([r["owner_type"] or "" for r in fam.records], dtype=str)),
        "owner_category": ("component", np.array(cats, dtype=str)),
    }
    return ids, coords


def _series_coords(fam: Family, prefix: str) -> tuple[dict[str, tuple], dict[str, Any]]:
    """Per-series coordinates along component (units, ext, one per feature name) and the
    variable attributes (units when every series has the same)."""
    recs = fam.records
    coords: dict[str, tuple] = {}
    attrs: dict[str, Any] = {"tsstore_series_type": fam.kind, "tsstore_name": fam.name}
    if fam.resolution:
        attrs["tsstore_resolution"] = fam.resolution
    if fam.interval:
        attrs["tsstore_interval"] = fam.interval
    units = [r["units"] for r in recs]
    if len(set(units)) == 1 and units[0]:
        attrs["units"] = units[0]
    if any(units):
        coords[prefix + "units"] = ("component", np.array([u or "" for u in units], dtype=str))
    exts = [r["ext"] for r in recs]
    if any(exts):
        coords[prefix + "ext"] = ("component", np.array([e or "" for e in exts], dtype=str))
    names = sorted({f for r in recs for f in r["key"].features})
    for f in names:
        vals = [r["key"].features.get(f) for r in recs]
        kinds = {type(v) for v in vals}
        cname = prefix + (("feature_" + f) if f in _RESERVED else f)
        # Text coordinates are fixed-width str (not object), so that chunks="auto" can size them.
        if len(kinds) == 1 and kinds <= {int, float, bool}:
            coords[cname] = ("component", np.array(vals))
        elif kinds <= {int, float, type(None)}:
            coords[cname] = ("component", np.array([np.nan if v is None else v for v in vals], dtype=float))
        else:
            coords[cname] = ("component", np.array(["" if v is None else str(v) for v in vals], dtype=str))
    return coords, attrs


def _static_variable(store: Store, path: str, fam: Family, elem_dims: Any) -> tuple[xr.Variable, np.ndarray]:
    keys = [r["key"] for r in fam.records]
    res = keys[0].resolution
    reader = _one_group(fam, lambda: store.static_reader(res, keys))
    t0, steps = reader.grid()
    values = reader.groups[0].values
    elem = tuple(values.shape[1:])
    shape = (int(steps), len(keys)) + elem
    arr = StaticArray(path, keys, res, shape, values.dtype, fam.series_type)
    _keep_reader(arr, reader)
    times = _as_ns(cv.timeline(cv.millis(t0), period_iso(res), int(steps)))
    dims = ("time", "component") + tuple(elem_dims(len(elem)))
    return _variable(arr, dims, shape, values.dtype), times


def _forecast_variable(store: Store, path: str, fam: Family, elem_dims: Any) -> tuple[xr.Variable, dict, Any]:
    keys = [r["key"] for r in fam.records]
    res, typ = keys[0].resolution, fam.series_type
    rtype = SeriesType.ABSTRACT_DETERMINISTIC if typ in _DETERMINISTIC else typ
    reader = _one_group(fam, lambda: store.forecast_reader(rtype, res, keys))
    first, count = reader.grid()
    values = reader.groups[0].values  # (n, [L,] H, *E)
    layered = typ in _LAYERED
    lead = (values.shape[1], values.shape[2]) if layered else (values.shape[1],)
    elem = tuple(values.shape[1 + len(lead):])
    shape = (int(count),) + lead + (len(keys),) + elem
    arr = ForecastArray(path, keys, res, shape, values.dtype, SeriesType.DETERMINISTIC if typ in _DETERMINISTIC else typ)
    _keep_reader(arr, reader)
    dims = ("window",) + ((_LAYERED[typ],) if layered else ()) + ("step", "component") + tuple(elem_dims(len(elem)))
    horizon = lead[-1]
    interval = fam.interval
    starts = cv.timeline(cv.millis(first), period_iso(interval), int(count))
    coords: dict[str, Any] = {"window": _as_ns(starts)}
    step_ms = _fixed_ms(res)
    if step_ms is not None:
        coords["step"] = (np.arange(horizon, dtype=np.int64) * step_ms).astype("timedelta64[ms]").astype("timedelta64[ns]")
    else:
        coords["step"] = np.arange(horizon)
    valid = np.empty((int(count), horizon), dtype="datetime64[ms]")
    for i, s in enumerate(starts):
        valid[i] = cv.timeline(int(s.astype(np.int64)), period_iso(res), horizon)
    coords["valid_time"] = (("window", "step"), _as_ns(valid))
    if typ == SeriesType.PROBABILISTIC:
        coords["percentile"] = _percentiles(store, fam)
    elif typ == SeriesType.SCENARIOS:
        coords["scenario"] = np.arange(lead[0])
    return _variable(arr, dims, shape, values.dtype), coords, (first, count, horizon)


def _percentiles(store: Store, fam: Family) -> np.ndarray:
    got = None
    for r in fam.records:
        p = _percentiles_of(store, r["key"])
        if got is not None and not np.array_equal(got, p):
            raise ValueError(f"family {fam.describe()}: the series have different percentiles ({got} and {p}): "
                             "select them apart (owner_type=, features=)")
        got = p
    return got if got is not None else np.empty(0)


def _percentiles_of(store: Store, key: Key) -> np.ndarray:
    """A Probabilistic series' percentiles, from the library (the buffer grows until they fit)."""
    size = 16
    while True:
        out = np.empty(size, dtype=np.float64)
        n = c_size_t()
        try:
            check(lib.tsstore_get_percentiles(store._handle(), byref(key.lookup()), out.ctypes.data, len(out),
                                              byref(n)))
        except BufferTooSmallError:
            size = max(size * 4, int(n.value))
            continue
        if n.value <= size:
            return out[: n.value].copy()
        size = int(n.value)


def _one_group(fam: Family, make: Any) -> Any:
    try:
        reader = make()
    except Exception as e:  # another grid, another window timeline: the library names the series
        raise ValueError(f"family {fam.describe()} cannot be one variable: {e}. Narrow the selection "
                         "(owner_type=, features=, owner_category=)") from e
    if len(reader.groups) != 1:
        reader.close()
        raise ValueError(f"family {fam.describe()} mixes dtypes or element shapes; narrow the selection "
                         "(owner_type=, features=)")
    return reader


def _variable(arr: _StoreArray, dims: tuple[str, ...], shape: tuple[int, ...], dtype: np.dtype) -> xr.Variable:
    data = indexing.LazilyIndexedArray(arr)
    # A packed chunk is one step of every column of its dataset, and a reader's unit is one
    # step (window) of every series: the preferred chunks are 1 along time (window) and whole
    # along every other dimension. chunks="auto" then picks blocks of whole steps; a chunk
    # that splits components makes each of its tasks decode whole steps for a part of them.
    preferred = {d: (1 if i == 0 else n) for i, (d, n) in enumerate(zip(dims, shape))}
    return xr.Variable(dims, data, encoding={"preferred_chunks": preferred, "dtype": dtype})


def _element_dims(name: str, ndim: int, several: bool) -> list[str]:
    base = f"{name}_element" if several else "element"
    return [base] if ndim == 1 else [f"{base}_{i}" for i in range(ndim)]


def _listing(fams: Iterable[Family]) -> str:
    return "\n  ".join(f.describe() for f in fams)


def open_dataset(path: str | os.PathLike[str], *, name: str | Sequence[str] | None = None, series_type: Any = None,
                 resolution: Any = None, interval: Any = None, owner_type: str | None = None,
                 owner_category: Any = None, features: dict | None = None,
                 drop_variables: str | Iterable[str] | None = None) -> xr.Dataset:
    """The Dataset of the families the filters select (see the module's docstring and
    TsStoreBackendEntrypoint.open_dataset); lazy, not chunked. xr.open_dataset(path,
    engine="tsstore", ...) is this plus xarray's chunking and caching."""
    path = os.path.realpath(os.fspath(path))
    store = shared_store(path)
    fams = _select(store, name, series_type, resolution, interval, owner_type, owner_category, features)
    if drop_variables is not None:
        drop = {drop_variables} if isinstance(drop_variables, str) else set(drop_variables)
        fams = [f for f in fams if f.name not in drop]
    if not fams:
        every = _select(store, None, None, None, None, None, None, None)
        for t in (SeriesType.DETERMINISTIC, SeriesType.PROBABILISTIC, SeriesType.SCENARIOS):
            every += _select(store, None, t, None, None, None, None, None)
        raise ValueError("no series match the selection; the store's families are:\n  " + _listing(every))
    names = [f.name for f in fams]
    if len(set(names)) != len(names) or len({(f.kind, f.resolution, f.interval) for f in fams}) != 1:
        raise ValueError("the selection holds families of different types, resolutions or intervals; a Dataset has "
                         "one time axis. Pick with name=, series_type=, resolution= (interval=) among:\n  "
                         + _listing(fams))
    several = len(fams) > 1
    variables: dict[str, xr.Variable] = {}
    coords: dict[str, Any] = {}
    component: np.ndarray | None = None
    axis: Any = None
    for fam in fams:
        ids, owner = _owner_coords(fam)
        if component is not None and not np.array_equal(ids, component):
            order = {int(o): i for i, o in enumerate(ids)}
            if sorted(order) != sorted(component.tolist()):
                raise ValueError("the selected families have different owners, so they cannot share the component "
                                 "dimension; open them one at a time (name=):\n  " + _listing(fams))
            fam.records = [fam.records[order[int(o)]] for o in component]
            ids, owner = _owner_coords(fam)
        component = ids
        coords.update(owner)
        extra, attrs = _series_coords(fam, f"{fam.name}_" if several else "")
        coords.update(extra)
        edims = functools.partial(_element_dims, fam.name, several=several)
        if fam.series_type in _STATIC:
            var, times = _static_variable(store, path, fam, edims)
            if axis is not None and not np.array_equal(axis, times):
                raise ValueError("the selected families are on different grids; open them one at a time (name=):\n  "
                                 + _listing(fams))
            axis = times
            coords["time"] = times
        else:
            var, fc, grid = _forecast_variable(store, path, fam, edims)
            if axis is not None and axis != grid:
                raise ValueError("the selected forecasts have different window timelines; open them one at a time "
                                 "(name=):\n  " + _listing(fams))
            axis = grid
            coords.update(fc)
        var.attrs.update(attrs)
        variables[fam.name] = var
    coords["component"] = component
    ds = xr.Dataset(variables, coords=coords)
    ds.attrs["tsstore_path"] = path
    with _shared_lock:
        _users[path] = _users.get(path, 0) + 1
    ds.set_close(lambda: _release(path))
    return ds


class TsStoreBackendEntrypoint(BackendEntrypoint):
    """xarray's engine "tsstore": ``xr.open_dataset("system.nc", engine="tsstore", name=...,
    series_type=..., resolution=..., interval=..., owner_type=..., owner_category=...,
    features={...})``.

    Every keyword filters as in Store.list_keys; name may be a list. The families selected
    (type, name, resolution, interval) become one variable each, named after the series
    name; they must share one time axis (or window timeline) and one set of owners. With no
    filter, every SingleTimeSeries family is taken, which works when they share a grid and
    owners and otherwise raises a ValueError listing the families to choose from."""

    description = "tsstore time-series stores (<name>.nc + <name>.nc.sqlite)"
    url = "https://github.com/tsstore/tsstore/blob/main/bindings/python/README.md"
    open_dataset_parameters = ("filename_or_obj", "drop_variables", "name", "series_type", "resolution", "interval",
                               "owner_type", "owner_category", "features")

    def open_dataset(self, filename_or_obj: Any, *, drop_variables: str | Iterable[str] | None = None,
                     name: str | Sequence[str] | None = None, series_type: Any = None, resolution: Any = None,
                     interval: Any = None, owner_type: str | None = None, owner_category: Any = None,
                     features: dict | None = None) -> xr.Dataset:
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            raise TypeError(f"engine 'tsstore' opens a path to a store's .nc file, not {type(filename_or_obj).__name__}")
        return open_dataset(filename_or_obj, name=name, series_type=series_type, resolution=resolution,
                            interval=interval, owner_type=owner_type, owner_category=owner_category,
                            features=features, drop_variables=drop_variables)

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            return False
        path = os.fspath(filename_or_obj)
        return str(path).endswith(".nc") and os.path.isfile(str(path) + ".sqlite")

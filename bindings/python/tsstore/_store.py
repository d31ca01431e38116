"""The store: adding, reading, querying and maintaining series through the C library."""
from __future__ import annotations

import contextlib
import errno
import gc
import itertools
import os
import operator
import datetime as _dt
import threading
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from . import _convert as cv
from ._errors import (IncompatibleFormatError, IntegrityError, InvalidHandleError, InvalidParameterError, TsStoreError,
                      TsStoreIOError, in_operation, operation, renamed)
from ._ffi import numpy_dtype, c_uint8, byref, c_char_p, c_int32, c_int64, c_size_t, c_void_p, check, cstr, error, lib, raw, sizeof, text
from ._readers import open_forecast, open_static
from ._series import (Deterministic, Key, lookup_array, NonSequentialTimeSeries, OwnerCategory, Probabilistic, Scenarios,
                      Series, SeriesType, SingleTimeSeries, array_view, series_of)

_SUPPLEMENTAL, _PARENT_CHILD = raw.TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, raw.TSSTORE_PARENT_CHILD_ASSOCIATIONS
_STATUS_CLOSED = raw.TSSTORE_E_INVALID_HANDLE
_TOO_SMALL = raw.TSSTORE_E_BUFFER_TOO_SMALL
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# The widest range a timestamp may take (docs/format.md: RFC 3339, years 0001–9999).
_MIN_MS = cv.millis(_dt.datetime(1, 1, 1))
_MAX_MS = cv.millis(_dt.datetime(9999, 12, 31, 23, 59, 59, 999000))
_INFO_SIZE = sizeof(raw.tsstore_series_info)
_DESC_SIZE = sizeof(raw.tsstore_series_desc)
_FILTER_SIZE = sizeof(raw.tsstore_filter)
_ASSOC_SIZE = sizeof(raw.tsstore_association)


def _hash_bytes(data_hash: str | bytes) -> bytes:
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


def _info() -> Any:
    info = raw.tsstore_series_info()
    info.struct_size = _INFO_SIZE
    return info


_per_thread = threading.local()


def _thread_info() -> tuple:
    """This thread's own tsstore_series_info and its byref, for reads that use it and drop it
    before their next call (a get's info is read into Python values at once)."""
    try:
        return _per_thread.info  # type: ignore[no-any-return]
    except AttributeError:
        info = _info()
        _per_thread.info = (info, byref(info))
        return _per_thread.info  # type: ignore[no-any-return]


def _infos(n: int) -> Any:
    arr = (raw.tsstore_series_info * max(n, 1))()
    arr[0].struct_size = _INFO_SIZE
    return arr


# Byte offsets of the tsstore_series_info fields get_many reads column-wise, with their dtypes.
_KEY_OFF = raw.tsstore_series_info.key.offset
_NBYTES = (raw.tsstore_series_info.nbytes.offset, np.uint64)
_DTYPE = (raw.tsstore_series_info.dtype.offset, np.int32)
_NDIM = (raw.tsstore_series_info.ndim.offset, np.int32)
_GUESS_FLOOR = 64 << 20
_INITIAL = (raw.tsstore_series_info.initial_ms.offset, np.int64)
_TYPE = (_KEY_OFF + raw.tsstore_lookup.series_type.offset, np.int32)
_RES_VALUE = (_KEY_OFF + raw.tsstore_lookup.resolution.offset + raw.tsstore_period.value.offset, np.int64)
_RES_UNIT = (_KEY_OFF + raw.tsstore_lookup.resolution.offset + raw.tsstore_period.unit.offset, np.int32)
_LOOKUP_SIZE = sizeof(raw.tsstore_lookup)


def _info_column(infos: Any, n: int, field: tuple) -> np.ndarray:
    """One field of infos[n] as a numpy array (a copy), read without a ctypes object per item."""
    off, dtype = field
    return np.ndarray((n,), dtype=dtype, buffer=infos, offset=off, strides=(_INFO_SIZE,)).copy()


def _found_keys(infos: Any, n: int) -> np.ndarray:
    """The keys of infos[n] (their series ids set) as one contiguous tsstore_lookup array."""
    rows = np.frombuffer(infos, dtype=np.uint8, count=n * _INFO_SIZE).reshape(n, _INFO_SIZE)
    return np.ascontiguousarray(rows[:, _KEY_OFF:_KEY_OFF + _LOOKUP_SIZE])


def _single_series(keys: Sequence[Key], infos: Any, n: int, block: np.ndarray, offsets: np.ndarray,
                   nbytes: np.ndarray) -> list | None:
    """The SingleTimeSeries of a get_many whose series are all SingleTimeSeries of one dtype
    and one length of scalars, at evenly spaced offsets in block (the usual bulk read), built
    column-wise from infos; None otherwise (the caller then builds each from its info)."""
    types = _info_column(infos, n, _TYPE)
    if (types != SeriesType.SINGLE_TIME_SERIES).any():
        return None
    dtypes, ndims = _info_column(infos, n, _DTYPE), _info_column(infos, n, _NDIM)
    nb = int(nbytes[0])
    stride = int(offsets[1]) if n > 1 else nb
    if ((dtypes != dtypes[0]).any() or (ndims != 1).any() or (nbytes != nb).any() or stride < nb or
            (offsets != np.arange(n, dtype=np.uint64) * np.uint64(stride)).any()):
        return None
    dtype = cv.DTYPES[int(dtypes[0])]
    rows = list(block[: n * stride].reshape(n, stride)[:, :nb].view(dtype))
    starts = _converted(cv.from_millis, _info_column(infos, n, _INITIAL))
    res = _converted(lambda v, u: cv.period_value(raw.tsstore_period(v, u)),
                     _info_column(infos, n, _RES_VALUE), _info_column(infos, n, _RES_UNIT))
    return list(map(SingleTimeSeries._of, [k.name for k in keys], starts, res, rows))


def _converted(convert: Any, *columns: np.ndarray) -> Any:
    """convert of each item's values in columns, each distinct tuple of them converted once:
    the one result repeated when every item has the same (a bulk read's series usually share
    their start and resolution), else a list."""
    if all((c == c[0]).all() for c in columns):
        return itertools.repeat(convert(*(c[0].item() for c in columns)), len(columns[0]))
    values = list(zip(*(c.tolist() for c in columns)))
    done = {v: convert(*v) for v in set(values)}
    return [done[v] for v in values]


# has_time_series' C function, bound once: a loop of has calls looks nothing up by name.
_tsstore_has = lib.tsstore_has


def _handle_out() -> Any:
    return c_void_p()


class Store:
    """An open store: <name>.nc (the arrays) and <name>.nc.sqlite (the catalog).

    Make one with Store.create, Store.open or Store.in_memory; close() (safe twice) or a with
    block releases it. Threads may share a store: the library serialises calls on it. A closed
    store raises InvalidHandleError on every call.
    """

    def __init__(self, handle: int) -> None:
        self._h: int | None = handle
        self._lock = threading.Lock()
        # The size of the last read by owner and name of each (name, type, whole or part): the buffer
        # the next such read offers, so that it is one C call (_read).
        self._sizes: dict = {}

    @classmethod
    def _opened(cls, call: Any, *args: Any) -> "Store":
        out = _handle_out()
        check(call(*args, byref(out)))
        return cls(out.value)

    @classmethod
    def create(cls, path: "str | bytes | os.PathLike[Any]", *, compression: str = "deflate:3:shuffle") -> "Store":
        """Creates a new store at path (path and path + '.sqlite' must not exist); path is a
        str, bytes or os.PathLike. compression: "none", "deflate:N:shuffle" or
        "deflate:N:noshuffle" (N 0–9). A missing directory raises FileNotFoundError."""
        try:
            p = _path(path)
            directory = os.path.dirname(os.path.abspath(os.fsdecode(p))) or "."
            if not os.path.isdir(directory):
                raise FileNotFoundError(errno.ENOENT, "Store.create: no such directory",
                                        directory)
            return cls._opened(lib.tsstore_create, p, cv.text_arg(compression, "compression"))
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "Store.create") from None

    @classmethod
    def open(cls, path: "str | bytes | os.PathLike[Any]", *, read_only: bool = False) -> "Store":
        """Opens an existing store (path: str, bytes or os.PathLike); read_only needs no
        write permission and refuses writes with ReadOnlyError. A file that is not a
        tsstore store raises IntegrityError saying so; a store that cannot be written raises
        TsStoreIOError saying that (open it with read_only=True)."""
        try:
            p = _path(path)
            try:
                return cls._opened(lib.tsstore_open, p, 1 if read_only else 0)
            except (IncompatibleFormatError, TsStoreIOError) as e:
                raise _open_error(e, os.fsdecode(p), read_only) from None
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "Store.open") from None

    @classmethod
    def in_memory(cls, *, compression: str = "deflate:3:shuffle") -> "Store":
        """A store that lives in memory until persist() writes it out."""
        return cls._opened(lib.tsstore_open_in_memory, cv.text_arg(compression, "compression"))

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
            check(lib.tsstore_close(h))

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        # A store never closed is closed when collected, committing what was pending. The
        # finaliser may run between any two calls of any thread: nothing the library hands
        # out lives in a thread, so closing here changes nothing another call reads.
        h, self._h = getattr(self, "_h", None), None
        if h:
            lib.tsstore_close(h)

    @property
    def closed(self) -> bool:
        """Whether close() was called."""
        return not self._h

    @property
    def last_error(self) -> str:
        """The message of the last failed call on this store, from any thread."""
        return text(lib.tsstore_store_last_error, self._handle())

    @property
    def recovered(self) -> str:
        """What opening the store rolled back ("" if nothing): a writer that died in the middle
        of a write leaves a hot journal beside the NetCDF file, and the next writable open
        restores the file from it to its last commit."""
        return text(lib.tsstore_store_recovered, self._handle())

    def flush(self) -> None:
        """Makes every write so far durable (outside a transaction)."""
        check(lib.tsstore_flush(self._handle()))

    @operation("persist")
    def persist(self, path: "str | bytes | os.PathLike[Any]") -> None:
        """Writes an in-memory store to path and path + '.sqlite'."""
        check(lib.tsstore_persist(self._handle(), _path(path)))

    def set_write_buffer(self, nbytes: int) -> None:
        """How many bytes of added arrays the store holds before writing them out (default
        256 MiB); one-at-a-time adds are written in blocks of this size."""
        check(lib.tsstore_set_write_buffer(self._handle(), _int64(nbytes, "nbytes")))

    def set_read_cache(self, nbytes: int) -> None:
        """How many bytes of decoded columns the store keeps for one-at-a-time reads (default
        64 MiB; 0 turns it off). Reading one SingleTimeSeries decompresses every chunk of its
        packed dataset, so the store keeps the neighbouring columns it decoded with it: a
        loop of get_time_series over many components then costs a few passes, not one each."""
        check(lib.tsstore_set_read_cache(self._handle(), _int64(nbytes, "nbytes")))

    # -- adding --------------------------------------------------------------------------

    def add_time_series(self, ts: Series, *, owner_id: int, owner_type: str,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
                        units: str | None = None, ext: str | None = None) -> Key:
        """Stores a series for an owner and returns its key. features: str / int / float /
        bool values that tell apart series of one name; units and ext are free text.
        Raises DuplicateTimeSeriesError for a stored key, InvalidParameterError naming the
        field for bad input."""
        try:
            return _add_items(self, [_Item(ts, owner_id, owner_type, owner_category, features, units, ext)])[0]
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "add_time_series") from None

    def add_time_series_bulk(self, items: Iterable[dict]) -> list[Key]:
        """Adds many series in one call, all or nothing. Each item is a dict of the arguments
        of add_time_series (ts=…, owner_id=…, owner_type=…, …); keys come back in order."""
        with _gc_paused():
            return self._add_bulk(items)

    def _add_bulk(self, items: Iterable[dict]) -> list[Key]:
        items = items if type(items) is list else list(items)
        cols = _plain_columns(items)
        if cols is not None:
            try:
                return _add_plain(self, items, cols)
            except TsStoreError as e:
                raise in_operation(e, "add_time_series_bulk") from None
        batch = Batch(self, "add_time_series_bulk")
        for i, item in enumerate(items):
            try:
                if not isinstance(item, dict):
                    raise TypeError(f"an item is a dict of add_time_series' arguments, not {type(item).__name__}")
                batch._items.append(_Item(**item))
            except (TsStoreError, TypeError, ValueError) as e:
                raise in_operation(e, "add_time_series_bulk", f"items[{i}]: {e}") from None
        return batch.commit()

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

    def get_time_series(self, owner: "int | Key", name: str | None = None, *,
                        time_series_type: Any = SingleTimeSeries,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, resolution: Any = None,
                        interval: Any = None, start: Any = None, stop: Any = None, length: int | None = None,
                        count: int | None = None, features: dict | None = None, **feature_values: Any) -> Any:
        """Reads a series, named infrasys style or by a Key.

        ``get_time_series(owner_id, name, time_series_type=Deterministic, scenario="high")``:
        owner is the owner's id (owner_category says which kind, a component by default),
        name the series' name, and every other argument narrows the choice: the type (a
        series class such as SingleTimeSeries, the default; or a SeriesType; None: any), the
        resolution and interval, and the features, as keywords or as features={...}. When
        several series match, the InvalidParameterError lists them. A Key names one series
        exactly: ``get_time_series(key)``.

        Part of a series: for SingleTimeSeries / NonSequentialTimeSeries, start and stop
        (SingleTimeSeries: the steps from floor(start) to ceil(stop); NonSequential: [start,
        stop)) or start and length (steps); for forecasts, the windows starting in [start,
        stop], or count windows from start. A DeterministicSingleTimeSeries reads as a
        Deterministic. (stop is the name C and Julia use too; Julia cannot say end.)"""
        try:
            if "end" in feature_values:  # the argument's name before the three bindings agreed
                raise TypeError("end: the last point of a range is stop=; a feature named 'end' goes in features={...}")
            q, key = self._lookup_of("get_time_series", owner, name, time_series_type, owner_category,
                                     resolution, interval, features, feature_values)
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "get_time_series") from None
        try:
            if start is None and stop is None and length is None and count is None:
                return self._read(q, key, lib.tsstore_get)
            return self._read_part(q, key, start, stop, length, count)
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(cv.respelled(e, resolution, interval), "get_time_series") from None

    def _lookup_of(self, op: str, owner: Any, name: Any, time_series_type: Any, owner_category: Any,
                   resolution: Any, interval: Any, features: dict | None,
                   feature_values: dict) -> tuple[Any, Key | None]:
        """The tsstore_lookup of an owner-and-name call (and the Key when owner is one)."""
        if isinstance(owner, Key):
            if name is not None or feature_values or features is not None or resolution is not None \
                    or interval is not None or time_series_type is not SingleTimeSeries:
                raise TypeError(f"a Key names one series: give it alone ({op}(key)), or give the owner id and "
                                "the name with the rest as keywords")
            return owner.lookup(), owner
        if name is None:
            raise TypeError(f"name: give the series' name ({op}(owner_id, name, ...)) or a Key")
        feats = dict(features or {})
        clash = set(feats) & set(feature_values)
        if clash:
            raise TypeError(f"features: {sorted(clash)[0]!r} given both in features= and as a keyword")
        feats.update(feature_values)
        q = _OwnerLookup(_int64(owner, "owner"), name, _type_code(time_series_type), owner_category,
                         resolution, interval, feats if (features is not None or feature_values) else None)
        return q, None

    def _read_part(self, q: Any, key: Key | None, start: Any, stop: Any, length: int | None,
                   count: int | None) -> Any:
        """A range of a static series or some windows of a forecast."""
        if length is not None and stop is not None:
            raise TypeError("give stop or length, not both")
        if count is not None and stop is not None:
            raise TypeError("give stop or count, not both")
        info = _info()
        check(lib.tsstore_get_info(self._handle(), byref(q), byref(info)))
        typ = info.key.series_type
        static = typ in (SeriesType.SINGLE_TIME_SERIES, SeriesType.NON_SEQUENTIAL_TIME_SERIES)
        if static:
            if count is not None:
                raise TypeError("count counts forecast windows; a static series takes start with stop or length")
            lo = _MIN_MS if start is None else cv.millis(start)
            hi = _MAX_MS if stop is None else cv.millis(stop)
            if length is not None and typ == SeriesType.SINGLE_TIME_SERIES and operator.index(length) >= 1:
                # Only the steps asked for are read, not the rest of the series: the last is
                # length - 1 steps after the first, on the series' grid.
                first = info.initial_ms if start is None else lo
                hi = int(cv.timeline(first, info.key.resolution, operator.index(length))[-1].astype(np.int64))
            ts = self._read(q, key, lib.tsstore_get_range, lo, hi)
            if length is not None:
                n = operator.index(length)
                if n < 1 or n > len(ts.data):
                    raise ValueError(f"length: {n} steps from start, where the series has {len(ts.data)}")
                ts.data = ts.data[:n]
                if isinstance(ts, NonSequentialTimeSeries):
                    ts.timestamps = ts.timestamps[:n]
            return ts
        if length is not None:
            raise TypeError("length counts steps of a static series; a forecast takes start with stop or count "
                            "(windows)")
        first = info.initial_ms if start is None else cv.millis(start)
        if stop is not None:
            last = cv.millis(stop)
        elif count is not None:
            n = operator.index(count)
            if n < 1:
                raise ValueError(f"count: {n} windows; at least one")
            last = int(cv.timeline(first, info.key.interval, n)[-1].astype(np.int64))
        else:
            last = first
        return self._read(q, key, lib.tsstore_get_windows, first, last)

    @operation("get_windows")
    def get_windows(self, key: Key, first: Any, last: Any | None = None) -> Any:
        """Reads the forecast windows starting in [first, last] (both window starts; last
        defaults to first)."""
        lo = cv.millis(first)
        return self._read(key.lookup(), key, lib.tsstore_get_windows, lo, lo if last is None else cv.millis(last))

    def _read(self, lookup: Any, key: Key | None, call: Any, *bounds: int) -> Any:
        """One read into a numpy array: one C call when the buffer offered holds the answer,
        the usual case in a loop. A Key offers the size of its own last read; a lookup by
        owner and name the size of the last read of that name and type. When the answer does
        not fit, a second call names the series by the key the first one returned, whose id
        spares a second search of the catalog. NonSequential timestamps and percentiles take
        one more call each, by that key too. The info struct is this thread's: it is read
        into Python values before the next read of the thread."""
        h, (info, info_ref) = self._handle(), _thread_info()
        if key is None:
            slot = (lookup.name, lookup.series_type, len(bounds))  # a guess: a wrong one costs a call
            q, guess = byref(lookup), self._sizes.get(slot, 0)
        else:  # lookup is key's own: its byref is made once per Key
            q, guess = key.lookup_ref(), key.__dict__.get("_nbytes", 0)
        # A ctypes buffer that numpy then views: passing it costs less than asking numpy for
        # an array's address (arr.ctypes.data, a few microseconds a call).
        cbuf = (c_uint8 * guess)()
        st = call(h, q, *bounds, cbuf, guess, info_ref)
        if st == _TOO_SMALL:
            found = raw.tsstore_lookup.from_buffer_copy(info.key)
            cbuf = (c_uint8 * info.nbytes)()
            st = call(h, byref(found), *bounds, cbuf, info.nbytes, info_ref)
        check(st)
        if info.nbytes != guess:
            if key is None:
                self._sizes[slot] = info.nbytes
            elif not bounds:
                object.__setattr__(key, "_nbytes", info.nbytes)
        return self._series(info, array_view(cbuf, info), bounds, None if key is None else key.name)

    def _series(self, info: Any, arr: np.ndarray, bounds: tuple = (), name: str | None = None) -> Any:
        key = info.key  # a new ctypes object at each access
        typ = key.series_type
        stamps = pct = None
        if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
            lo, hi = bounds if len(bounds) == 2 else (_INT64_MIN, _INT64_MAX)
            stamps = self._timestamps(key, lo, hi, int(info.shape[0]))
        elif typ == SeriesType.PROBABILISTIC:
            pct = np.empty(info.n_layers, dtype=np.float64)
            n = c_size_t()
            check(lib.tsstore_get_percentiles(self._handle(), byref(key), pct.ctypes.data, len(pct), byref(n)))
        return series_of(info, key, arr, name or key.name.decode("utf-8"), stamps, pct)

    def _timestamps(self, lookup: Any, lo: int, hi: int, n: int) -> np.ndarray:
        out = np.empty(max(n, 1), dtype=np.int64)
        got = c_size_t()
        check(lib.tsstore_get_timestamps(self._handle(), byref(lookup), lo, hi, out.ctypes.data, len(out), byref(got)))
        return out[: got.value]

    @operation("get_many")
    def get_many(self, keys: Sequence[Key]) -> list[Any]:
        """Reads many whole series, one pass per packed dataset; results in key order. One C
        call however many keys when every series fits the size of the largest one the last
        get_many read (the usual case; a store's first get_many guesses the first key's size,
        asked by one small call), else two (sizes, then values by the keys the first call
        returned, whose ids spare a second search): the arrays are views into one block of
        memory the library fills."""
        with _gc_paused():  # a series object per key, none cyclic: as a bulk add's keys
            return self._get_many(keys)

    def _get_many(self, keys: Sequence[Key]) -> list[Any]:
        n = len(keys)
        if n == 0:
            return []
        lookups = lookup_array(keys)
        which = lookups.ctypes.data
        infos = _infos(n)
        h = self._handle()
        # Every item sized as the largest of the last get_many, while that asks for no more than
        # twice what the last one read (at least 64 MiB); else a sizing call first.
        guess = self._many_guess or self._first_guess(h, which, infos)
        if n * guess > max(2 * self._many_total, _GUESS_FLOOR):
            guess = 0
        block, offsets, st = self._get_many_into(h, which, n, infos, np.full(n, guess, dtype=np.uint64))
        if st == _TOO_SMALL:  # again by the keys the library resolved: their ids spare a search
            found = _found_keys(infos, n)
            block, offsets, st = self._get_many_into(h, found.ctypes.data, n, infos, _info_column(infos, n, _NBYTES))
        check(st)
        nbytes = _info_column(infos, n, _NBYTES)
        self._many_guess, self._many_total = int(nbytes.max()), int(nbytes.sum())
        fast = _single_series(keys, infos, n, block, offsets, nbytes)
        if fast is not None:
            return fast
        out = []
        for i, k in enumerate(keys):
            info = infos[i]
            lo = int(offsets[i])
            out.append(self._series(info, array_view(block[lo: lo + info.nbytes], info), (), k.name))
        return out

    _many_guess = _many_total = 0

    @staticmethod
    def _first_guess(h: int, which: Any, infos: Any) -> int:
        """The size of the first key's series, the guess for every item of a store's first
        get_many: one small call that spares the sizing call of a batch of like series."""
        return int(infos[0].nbytes) if lib.tsstore_get_info(h, which, infos) == 0 else 0

    @staticmethod
    def _get_many_into(h: int, which: Any, n: int, infos: Any, nbytes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        # Each array starts 8-byte aligned, so every dtype's view of it is aligned.
        sizes = (nbytes + 7) // 8 * 8
        offsets = np.zeros(n, dtype=np.uint64)
        np.cumsum(sizes[:-1], out=offsets[1:])
        block = np.empty(int(sizes.sum()) or 1, dtype=np.uint8)
        dst = (offsets + np.uint64(block.ctypes.data)).astype(np.uintp)
        caps = nbytes.astype(np.uintp)
        st = lib.tsstore_get_many(h, which, n, dst.ctypes.data, caps.ctypes.data, infos)
        return block, offsets, st

    def get_array(self, data_hash: str | bytes) -> np.ndarray:
        """A stored array by its content hash (64 hex digits or 32 bytes), as stored."""
        h, digest, info = self._handle(), _hash_bytes(data_hash), _info()
        st = lib.tsstore_get_array(h, digest, None, 0, byref(info))
        if st != _TOO_SMALL and st:
            raise error(st)
        buf = np.empty(info.nbytes, dtype=np.uint8)
        check(lib.tsstore_get_array(h, digest, buf.ctypes.data, info.nbytes, byref(info)))
        return array_view(buf, info)

    def has_time_series(self, owner: "int | Key", name: str | None = None, *,
                        time_series_type: Any = SingleTimeSeries,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, resolution: Any = None,
                        interval: Any = None, features: dict | None = None, **feature_values: Any) -> bool:
        """Whether a series matches: has_time_series(owner_id, name, ...) takes the arguments
        of get_time_series (any number of matches is True); has_time_series(key) asks for
        exactly that key."""
        found = c_int32()
        try:
            q, key = self._lookup_of("has_time_series", owner, name, time_series_type, owner_category,
                                     resolution, interval, features, feature_values)
            # A Key's lookup and its byref are made once: a loop over keys converts nothing else.
            ref = byref(q) if key is None else key.lookup_ref()
            check(_tsstore_has(self._handle(), ref, byref(found)))
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "has_time_series") from None
        return bool(found.value)

    @operation("remove_time_series")
    def remove_time_series(self, owner: "int | Key", name: str | None = None, *,
                           time_series_type: Any = SingleTimeSeries,
                           owner_category: OwnerCategory = OwnerCategory.COMPONENT, resolution: Any = None,
                           interval: Any = None, features: dict | None = None, **feature_values: Any) -> None:
        """Removes the one series a Key or the arguments of get_time_series name (its array is
        freed once no other series uses it); several matches are refused, listing them."""
        q, _ = self._lookup_of("remove_time_series", owner, name, time_series_type, owner_category, resolution,
                               interval, features, feature_values)
        check(lib.tsstore_remove(self._handle(), byref(q)))

    @operation("static_reader")
    def static_reader(self, resolution: Any, keys: Sequence[Key]) -> Any:
        """A StaticReader over SingleTimeSeries keys on one grid (see tsstore.StaticReader)."""
        try:
            return open_static(self, resolution, keys)
        except TsStoreError as e:
            raise cv.respelled(e, resolution) from None

    @operation("forecast_reader")
    def forecast_reader(self, series_type: SeriesType, resolution: Any, keys: Sequence[Key]) -> Any:
        """A ForecastReader over forecast keys sharing a window timeline (see
        tsstore.ForecastReader); ABSTRACT_DETERMINISTIC mixes Deterministic and
        DeterministicSingleTimeSeries."""
        try:
            return open_forecast(self, series_type, resolution, keys)
        except TsStoreError as e:
            raise cv.respelled(e, resolution) from None

    # -- queries -------------------------------------------------------------------------

    @operation("list_keys")
    def list_keys(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                  series_type: SeriesType | None = None, name: str | None = None, name_glob: str | None = None,
                  owner_type: str | None = None, resolution: Any = None, interval: Any = None,
                  features: dict | None = None) -> list[Key]:
        """The keys of the series matching every given filter, in insertion order. name_glob
        is a SQLite GLOB ("max_*"); features match as a subset; owner_id without
        owner_category matches the id under either category."""
        f = _Filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval, features)
        return self._listed(_key_of, lib.tsstore_list_keys, f.ref())

    def _listed(self, convert: Any, call: Any, *args: Any) -> list[Any]:
        """convert(info) of every entry of a listing (three C calls; the strings the infos
        point at live as long as the list, so they are read here)."""
        out = _handle_out()
        check(call(self._handle(), *args, byref(out)))
        try:
            n = c_size_t()
            check(lib.tsstore_keys_len(out, byref(n)))
            infos = _infos(n.value)
            check(lib.tsstore_keys_get(out, 0, n.value, infos))
            return [convert(info) for info in infos[: n.value]]
        finally:
            lib.tsstore_keys_free(out)

    @operation("remove_time_series_where")
    def remove_time_series_where(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                                 series_type: SeriesType | None = None, name: str | None = None,
                                 name_glob: str | None = None, owner_type: str | None = None, resolution: Any = None,
                                 interval: Any = None, features: dict | None = None) -> int:
        """Removes every series list_keys with the same filters selects, all or nothing, and
        returns how many; with no filter at all it removes every series."""
        f = _Filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval, features)
        removed = c_int64()
        check(lib.tsstore_remove_where(self._handle(), f.ref(), byref(removed)))
        return removed.value

    @operation("list_metadata")
    def list_metadata(self, **filters: Any) -> list[dict]:
        """The catalog record (get_metadata) of every series list_keys(**filters) selects."""
        f = _Filter(**_filter_args(filters))
        return self._listed(_record, lib.tsstore_list_keys, f.ref())

    def keys_by_hash(self, data_hash: str | bytes) -> list[Key]:
        """The keys of every series that references the array with this content hash."""
        return self._listed(_key_of, lib.tsstore_keys_by_hash, _hash_bytes(data_hash))

    @operation("get_metadata")
    def get_metadata(self, key: Key) -> dict:
        """The catalog record of a series: key, series_type, dtype, length (first axis of the
        stored array), count (windows), initial_timestamp, element_shape, owner_type, units,
        ext, resolution, horizon, interval, data_hash and features_hash (hex)."""
        info = _info()
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
        check(lib.tsstore_count_by_hash(self._handle(), _hash_bytes(data_hash), byref(counts)))
        return _by_type(counts)

    def shared_arrays(self) -> dict[str, list[Key]]:
        """The arrays more than one series references: data_hash (hex) → keys."""
        groups: dict[str, list[Key]] = {}
        for meta in self.list_metadata():
            groups.setdefault(meta["data_hash"], []).append(meta["key"])
        return {h: ks for h, ks in groups.items() if len(ks) > 1}

    def _distinct(self, field: int) -> list[str]:
        out = _handle_out()
        check(lib.tsstore_list_distinct(self._handle(), field, byref(out)))
        try:
            return _strings(out)
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

    # -- owner moves ---------------------------------------------------------------------

    @operation("copy_time_series")
    def copy_time_series(self, key: Key, *, owner_id: int, owner_type: str,
                         owner_category: OwnerCategory = OwnerCategory.COMPONENT, name: str | None = None) -> Key:
        """Attaches a stored series to another owner too, optionally renamed (the array is
        shared, not copied); returns the new key."""
        check(lib.tsstore_copy_series(self._handle(), byref(key.lookup()), _int64(owner_id, "owner_id"),
                                      cv.text_arg(owner_type, "owner_type"),
                                      cv.enum_arg(OwnerCategory, owner_category, "owner_category"), _opt(name, "name")))
        return Key(owner_id, OwnerCategory(owner_category), key.series_type, key.name if name is None else name,
                   key.resolution, key.interval, dict(key.features))

    @operation("rename_time_series")
    def rename_time_series(self, key: Key, name: str) -> Key:
        """Renames a stored series and returns its new key."""
        check(lib.tsstore_rename_series(self._handle(), byref(key.lookup()), cv.text_arg(name, "name")))
        return Key(key.owner_id, key.owner_category, key.series_type, name, key.resolution, key.interval,
                   dict(key.features))

    @operation("replace_owner_id")
    def replace_owner_id(self, old: int, new: int, *, owner_category: OwnerCategory = OwnerCategory.COMPONENT) -> int:
        """Moves every series of one owner to another id, all or nothing; returns how many."""
        moved = c_int64()
        check(lib.tsstore_replace_owner_id(self._handle(), _int64(old, "old"),
                                           cv.enum_arg(OwnerCategory, owner_category, "owner_category"),
                                           _int64(new, "new"), byref(moved)))
        return moved.value

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
        arr = (raw.tsstore_association * max(len(rows), 1))()
        keep = []
        for i, (a, at, b, bt) in enumerate(rows):
            ab, bb = cv.text_arg(at, f"rows[{i}][1]"), cv.text_arg(bt, f"rows[{i}][3]")
            keep += [ab, bb]
            e = arr[i]
            e.struct_size, e.a_id, e.a_type, e.b_id, e.b_type = _ASSOC_SIZE, _int64(a, f"rows[{i}][0]"), ab, _int64(b, f"rows[{i}][2]"), bb
        check(lib.tsstore_add_associations(self._handle(), table, arr, len(rows)))

    def has_supplemental_attribute_association(self, component_id: int, attribute_id: int) -> bool:
        """Whether the attribute is attached to the component."""
        return self._has_association(_SUPPLEMENTAL, component_id, attribute_id)

    def has_parent_child_association(self, parent_id: int, child_id: int) -> bool:
        """Whether the edge parent → child exists."""
        return self._has_association(_PARENT_CHILD, parent_id, child_id)

    def _has_association(self, table: int, a: int, b: int) -> bool:
        found = c_int32()
        check(lib.tsstore_has_association(self._handle(), table, _int64(a, "a_id"), _int64(b, "b_id"), byref(found)))
        return bool(found.value)

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
        out = _handle_out()
        (a, na), (b, nb) = _ids(a_ids), _ids(b_ids)
        check(lib.tsstore_list_associations(self._handle(), table, _ptr(a), na, _ptr(b), nb, _opt(a_type, "type"),
                                            _opt(b_type, "type"), byref(out)))
        try:
            n = c_size_t()
            check(lib.tsstore_associations_len(out, byref(n)))
            arr = (raw.tsstore_association * max(n.value, 1))()
            arr[0].struct_size = _ASSOC_SIZE
            check(lib.tsstore_associations_get(out, 0, n.value, arr))
            return [(r.a_id, cstr(r.a_type), r.b_id, cstr(r.b_type)) for r in arr[: n.value]]
        finally:
            lib.tsstore_associations_free(out)

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
        return self._remove_associations(_SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def remove_parent_child_associations(
            self, *, parent_ids: Iterable[int] | None = None, child_ids: Iterable[int] | None = None,
            parent_type: str | None = None, child_type: str | None = None) -> int:
        """Removes the matching edges and returns how many."""
        return self._remove_associations(_PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _remove_associations(self, table: int, a_ids: Any, b_ids: Any, a_type: str | None, b_type: str | None) -> int:
        removed = c_int64()
        (a, na), (b, nb) = _ids(a_ids), _ids(b_ids)
        check(lib.tsstore_remove_associations(self._handle(), table, _ptr(a), na, _ptr(b), nb, _opt(a_type, "type"),
                                              _opt(b_type, "type"), byref(removed)))
        return removed.value

    def replace_association_component_id(self, old: int, new: int) -> int:
        """Replaces a component id in the supplemental-attribute associations; returns how
        many rows changed."""
        return self._replace_association_id(_SUPPLEMENTAL, old, new)

    def replace_parent_child_id(self, old: int, new: int) -> int:
        """Replaces an id at both ends of the parent/child edges; returns how many changed."""
        return self._replace_association_id(_PARENT_CHILD, old, new)

    def _replace_association_id(self, table: int, old: int, new: int) -> int:
        changed = c_int64()
        check(lib.tsstore_replace_association_id(self._handle(), table, _int64(old, "old"), _int64(new, "new"),
                                                 byref(changed)))
        return changed.value

    def _association_counts(self, table: int) -> tuple[int, int, int]:
        c = raw.tsstore_association_tally()
        c.struct_size = sizeof(c)
        check(lib.tsstore_association_counts(self._handle(), table, byref(c)))
        return c.rows, c.distinct_a, c.distinct_b

    def supplemental_attribute_association_counts(self) -> dict[str, int]:
        """{'rows', 'components', 'attributes'}: rows and distinct ids at each end."""
        rows, a, b = self._association_counts(_SUPPLEMENTAL)
        return {"rows": rows, "components": a, "attributes": b}

    def parent_child_association_counts(self) -> dict[str, int]:
        """{'rows', 'parents', 'children'}."""
        rows, a, b = self._association_counts(_PARENT_CHILD)
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
        check(lib.tsstore_begin(h))
        try:
            yield self
        except BaseException:
            if self._h:  # a store closed inside the block rolled the transaction back itself
                check(lib.tsstore_rollback(h))
            raise
        check(lib.tsstore_commit(h))

    @operation("transform_single_time_series")
    def transform_single_time_series(self, horizon: Any, interval: Any, *,
                                     owner_category: OwnerCategory | None = None, resolution: Any = None) -> int:
        """Derives a DeterministicSingleTimeSeries view of every stored SingleTimeSeries
        (optionally of one owner category / resolution), all or nothing; returns how many
        were added (0 when run again with the same horizon)."""
        added = c_int64()
        category = raw.TSSTORE_OWNER_ANY if owner_category is None else int(owner_category)
        res = None if resolution is None else byref(cv.period(resolution, "resolution"))
        st = lib.tsstore_transform_single_time_series(self._handle(), byref(cv.period(horizon, "horizon")),
                                                      byref(cv.period(interval, "interval")), category, res, byref(added))
        if st:
            raise cv.respelled(error(st), horizon, interval, resolution)
        return added.value

    def compact(self, rewrite: bool = False) -> dict[str, int]:
        """Commits pending writes and deletes unreferenced feature sets; reports
        slots_reclaimed, datasets_dropped, feature_sets_reclaimed and dead_standalone.

        With ``rewrite=True`` it then writes the live series into a new pair of files and
        replaces the old pair with it atomically, giving back the space of removed series
        (the report counts what the old pair held). The store stays open on the new pair."""
        if not isinstance(rewrite, bool):
            raise TypeError(f"compact: rewrite must be True or False, not {rewrite!r}")
        rep = raw.tsstore_compact_report()
        rep.struct_size = sizeof(rep)
        call = lib.tsstore_compact_rewrite if rewrite else lib.tsstore_compact
        check(call(self._handle(), byref(rep)))
        return {name: getattr(rep, name) for name in
                ("slots_reclaimed", "datasets_dropped", "feature_sets_reclaimed", "dead_standalone")}

    def verify_integrity(self) -> dict[str, Any]:
        """Rehashes every array and checks every row: {'arrays_checked': n, 'problems':
        [one description per problem]} (an empty list: the store is sound)."""
        rep = raw.tsstore_integrity_report()
        rep.struct_size = sizeof(rep)
        out = _handle_out()
        check(lib.tsstore_verify_integrity(self._handle(), byref(rep), byref(out)))
        try:
            return {"arrays_checked": rep.arrays_checked, "problems": _strings(out)}
        finally:
            lib.tsstore_strings_free(out)


_CLASS_TYPES = {SingleTimeSeries: SeriesType.SINGLE_TIME_SERIES,
                NonSequentialTimeSeries: SeriesType.NON_SEQUENTIAL_TIME_SERIES,
                Deterministic: SeriesType.DETERMINISTIC, Probabilistic: SeriesType.PROBABILISTIC,
                Scenarios: SeriesType.SCENARIOS}
_TYPE_NAMES = {str(t): t for t in SeriesType}


def _type_code(value: Any) -> int:
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


def _OwnerLookup(owner_id: int, name: Any, series_type: int, owner_category: Any, resolution: Any, interval: Any,
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


def _open_error(e: TsStoreError, path: str, read_only: bool) -> TsStoreError:
    """What an open's failure means to the user: a file without the store's version
    attribute is not a store at all; a store that cannot be opened for writing, where it
    can be read, is not writable (never "damaged")."""
    if isinstance(e, IncompatibleFormatError) and "unspecified" in str(e):
        return IntegrityError(f"Store.open: {path!r} is not a tsstore store (it is a NetCDF file without the "
                              "data_format_version attribute every store carries)", raw.TSSTORE_E_INTEGRITY)
    if isinstance(e, TsStoreIOError) and not read_only:
        unwritable = [f for f in (path, path + ".sqlite") if os.path.exists(f) and not _writable(f)]
        if unwritable:
            return TsStoreIOError(f"Store.open: {unwritable[0]!r} is not writable; open the store with "
                                  "read_only=True, or give the process write permission (the store itself is "
                                  "not damaged)", e.status)
    return e


def _writable(path: str) -> bool:
    """Whether this process can open path for writing (os.access answers for root without
    asking the file system, so the file is opened)."""
    try:
        with open(path, "r+b"):
            return True
    except OSError:
        return False


def _path(path: Any, field: str = "path") -> bytes:
    """A path argument: str, bytes or os.PathLike, as os.fsdecode reads it."""
    try:
        p = os.fsdecode(path)
    except TypeError:
        raise TypeError(f"{field}: a path is a str, bytes or os.PathLike, not {type(path).__name__}") from None
    return cv.text_arg(p, field)


def _opt(value: str | None, field: str = "text") -> bytes | None:
    return cv.opt_text(value, field)


def _int64(value: Any, name: str) -> int:
    """value as an int64 argument, refused (never wrapped) when it does not fit."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{name}: an integer is needed, not {type(value).__name__} ({value!r})") from None
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise InvalidParameterError(f"{name}: {v} does not fit a signed 64-bit integer", 1)
    return v


def _ids(values: Iterable[int] | None) -> tuple[np.ndarray | None, int]:
    """An id list for a filter: (array, length); None matches everything, an empty list
    nothing (a non-NULL pointer of length 0). The caller keeps the array for the call."""
    if values is None:
        return None, 0
    ids = [_int64(v, f"ids[{i}]") for i, v in enumerate(values)]
    return np.ascontiguousarray(ids or [0], dtype=np.int64), len(ids)


def _ptr(arr: np.ndarray | None) -> int | None:
    return None if arr is None else arr.ctypes.data


def _strings(handle: Any) -> list[str]:
    n = c_size_t()
    check(lib.tsstore_strings_len(handle, byref(n)))
    out = []
    p = c_char_p()
    for i in range(n.value):
        check(lib.tsstore_strings_get(handle, i, byref(p)))
        out.append(cstr(p.value))
    return out


def _counts() -> Any:
    c = raw.tsstore_type_counts()
    c.struct_size = sizeof(c)
    return c


def _by_type(c: Any) -> dict[SeriesType, int]:
    values = (c.single_time_series, c.non_sequential_time_series, c.deterministic,
              c.deterministic_single_time_series, c.probabilistic, c.scenarios)
    return {SeriesType(i): v for i, v in enumerate(values) if v}


def _key_of(info: Any) -> Key:
    return Key.from_lookup(info.key)


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


def _filter_args(filters: dict) -> dict:
    names = ("owner_id", "owner_category", "series_type", "name", "name_glob", "owner_type", "resolution",
             "interval", "features")
    unknown = set(filters) - set(names)
    if unknown:
        raise TypeError(f"unknown filter {sorted(unknown)[0]!r}; filters are {', '.join(names)}")
    return {n: filters.get(n) for n in names}


class _Filter:
    """A tsstore_filter and the bytes its pointers name."""

    def __init__(self, owner_id: int | None, owner_category: OwnerCategory | None, series_type: SeriesType | None,
                 name: str | None, name_glob: str | None, owner_type: str | None, resolution: Any, interval: Any,
                 features: dict | None) -> None:
        f = raw.tsstore_filter()
        f.struct_size = _FILTER_SIZE
        f.match_owner_id = 0 if owner_id is None else 1
        f.owner_id = 0 if owner_id is None else _int64(owner_id, "owner_id")
        f.owner_category = (raw.TSSTORE_OWNER_ANY if owner_category is None else
                            cv.enum_arg(OwnerCategory, owner_category, "owner_category"))
        f.series_type = raw.TSSTORE_ANY_TYPE if series_type is None else cv.enum_arg(SeriesType, series_type, "series_type")
        self._keep = [_opt(name, "name"), _opt(name_glob, "name_glob"), _opt(owner_type, "owner_type"),
                      cv.features_json(features)]
        f.name, f.name_glob, f.owner_type, f.features_json = self._keep
        f.resolution, f.interval = cv.optional_period(resolution, "resolution"), cv.optional_period(interval, "interval")
        self.f = f

    def ref(self) -> Any:
        return byref(self.f)


_FORECASTS = (Deterministic, Probabilistic, Scenarios)
_SERIES_TYPES = (SingleTimeSeries, NonSequentialTimeSeries) + _FORECASTS


class _Item:
    """One series to add, checked and converted: what its descriptor will hold."""

    __slots__ = ("ts", "owner_id", "owner_category", "features", "arr", "code", "strs", "initial", "res", "hor", "iv",
                 "count", "stamps", "pct")

    def __init__(self, ts: Series, owner_id: int, owner_type: str,
                 owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
                 units: str | None = None, ext: str | None = None) -> None:
        if not isinstance(ts, _SERIES_TYPES):
            raise TypeError(f"ts: {type(ts).__name__} is not a tsstore series type")
        if type(owner_id) is not int or not _INT64_MIN <= owner_id <= _INT64_MAX:
            owner_id = _int64(owner_id, "owner_id")
        self.ts, self.owner_id, self.features = ts, owner_id, features
        cat = _CATEGORY_OF.get(owner_category) if type(owner_category) in (int, OwnerCategory) else None
        self.owner_category = cat if cat is not None else cv.enum_arg(OwnerCategory, owner_category, "owner_category")
        try:
            self.arr = cv.as_array(ts.data)
        except (TypeError, ValueError) as e:
            raise type(e)(f"ts.data: {e}") from None
        if 0 in self.arr.shape:
            raise InvalidParameterError(f"ts.data: shape {self.arr.shape} has an empty axis "
                                        f"{self.arr.shape.index(0)}; a series holds at least one step, window "
                                        "and element", 1)
        self.code = cv._CODE_OF[self.arr.dtype]
        self.strs = (cv.text_arg(owner_type, "owner_type"), cv.text_arg(ts.name, "name"),
                     cv.features_json(features) if features else None,
                     None if units is None else cv.text_arg(units, "units"),
                     None if ext is None else cv.text_arg(ext, "ext"))
        self.hor, self.iv, self.count, self.stamps, self.pct = cv.NO_PERIOD, cv.NO_PERIOD, 0, None, None
        if type(ts) is SingleTimeSeries:  # the common case, first
            self.initial, self.res = cv.millis(ts.initial_timestamp), cv.period(ts.resolution, "ts.resolution")
            return
        self.initial, self.res = 0, cv.NO_PERIOD
        if isinstance(ts, NonSequentialTimeSeries):
            self.stamps = cv.millis_array(ts.timestamps, "ts.timestamps")
            if len(self.stamps) != self.arr.shape[0]:
                raise InvalidParameterError(
                    f"timestamps: {len(self.stamps)} timestamps for {self.arr.shape[0]} steps of data", 1)
        else:
            self.initial, self.res = cv.millis(ts.initial_timestamp), cv.period(ts.resolution, "ts.resolution")
        if isinstance(ts, _FORECASTS):
            self.hor, self.iv = cv.period(ts.horizon, "ts.horizon"), cv.period(ts.interval, "ts.interval")
            self.count = _int64(ts.count, "ts.count")
        if isinstance(ts, Probabilistic):
            self.pct = np.ascontiguousarray(ts.percentiles, dtype=np.float64)

    def respell(self, message: str) -> str:
        """message with this item's periods as the caller wrote them, not the library's
        canonical text (a horizon given as 48 hours must not read "P2D")."""
        return cv.respell(message, *(getattr(self.ts, f, None) for f in ("resolution", "horizon", "interval")))


_CATEGORY_OF = {c.value: c for c in OwnerCategory}


_DESC_DTYPE = numpy_dtype(raw.tsstore_series_desc)
_LOOKUP_DTYPE = numpy_dtype(raw.tsstore_lookup)


def _descriptors(cols: dict) -> tuple[np.ndarray, list]:
    """The descriptor array of a batch from its columns (_item_columns, _plain_columns):
    every item's values, shape, timestamps, percentiles and strings go into one block each,
    and the descriptors point into them. The blocks are returned too: they must outlive the
    add."""
    arrs = cols["arrs"]
    n = len(arrs)
    d = np.zeros(n, dtype=_DESC_DTYPE)
    d["struct_size"] = _DESC_SIZE
    for field in ("series_type", "owner_id", "owner_category", "dtype", "initial_ms", "count"):
        d[field] = cols[field]
    for field in ("resolution", "horizon", "interval"):
        periods = cols[field]
        if periods.count(periods[0]) == n:  # one period object for all (structs compare by identity): one value
            d[field]["value"], d[field]["unit"] = periods[0].value, periods[0].unit
        else:
            d[field]["value"] = [p.value for p in periods]
            d[field]["unit"] = [p.unit for p in periods]
    keep: list = []
    nbytes = np.array([a.nbytes for a in arrs], dtype=np.uint64)
    d["nbytes"] = nbytes
    d["data"] = _data_addresses(arrs, nbytes, keep)
    ndims = np.array([a.ndim for a in arrs], dtype=np.uint64)
    shapes = np.fromiter(itertools.chain.from_iterable(a.shape for a in arrs), dtype=np.int64, count=int(ndims.sum()))
    keep.append(shapes)
    d["shape"], d["ndim"] = _starts(ndims * 8, shapes.ctypes.data), ndims
    if cols["stamps"] is not None:
        d["timestamps_ms"], _ = _block(cols["stamps"], np.int64, keep)
    if cols["pct"] is not None:
        d["percentiles"], d["n_percentiles"] = _block(cols["pct"], np.float64, keep)
    for i, field in enumerate(("owner_type", "name", "features_json", "units", "ext")):
        d[field] = _strings_block(cols["strs"][i], keep)
    return d, keep


# Arrays up to this size are joined into one block for a batch (one C loop, where asking each
# its address costs about a microsecond); larger ones are handed over where they are, so that
# the library's copy is the only one (a year of hourly f64 is 70 KB).
_JOIN_BYTES = 16 << 10


def _data_addresses(arrs: list, nbytes: np.ndarray, keep: list) -> np.ndarray:
    """The address of each array's bytes (they are C-contiguous): small ones in one joined
    block kept in keep, large ones their own buffers (the items hold them through the add)."""
    big = nbytes > _JOIN_BYTES
    if not big.any():
        data = np.frombuffer(b"".join(arrs) or b"\0", dtype=np.uint8)  # type: ignore[arg-type]  # ndarray is a buffer
        keep.append(data)
        return _starts(nbytes, data.ctypes.data)
    addrs = np.zeros(len(arrs), dtype=np.uint64)
    small = np.flatnonzero(~big)
    if len(small):
        data = np.frombuffer(b"".join([arrs[i] for i in small]), dtype=np.uint8)
        keep.append(data)
        addrs[small] = _starts(nbytes[small], data.ctypes.data)
    for i in np.flatnonzero(big):
        addrs[i] = arrs[i].__array_interface__["data"][0]
    return addrs


def _starts(sizes: np.ndarray, base: int) -> np.ndarray:
    """The address of each part of a block of consecutive parts of the given sizes."""
    starts = np.zeros(len(sizes), dtype=np.uint64)
    np.cumsum(sizes[:-1], out=starts[1:])
    return starts + np.uint64(base)


def _block(parts: list, dtype: Any, keep: list) -> tuple[np.ndarray, np.ndarray]:
    """One contiguous block of parts (None: none) and, per part, its address (0 for None)
    and its length in elements."""
    lengths = np.array([0 if p is None else len(p) for p in parts], dtype=np.int64)
    present = [p for p in parts if p is not None]
    block = np.concatenate(present).astype(dtype, copy=False) if present else np.zeros(1, dtype=dtype)
    keep.append(block)
    starts = np.zeros(len(parts), dtype=np.uint64)
    np.cumsum(lengths[:-1] * block.itemsize, out=starts[1:])
    addrs = np.where([p is not None for p in parts], starts + np.uint64(block.ctypes.data), 0).astype(np.uint64)
    return addrs, lengths


def _strings_block(values: Sequence[bytes | None], keep: list) -> np.ndarray:
    """The addresses of NUL-terminated copies of values (0 for None). Each distinct value is
    copied once and every item holding it points at that copy (a bulk add's owner types and
    names repeat; the library reads a text equal to the previous item's only once)."""
    if values.count(None) == len(values):
        return np.zeros(len(values), dtype=np.uint64)
    distinct = [v for v in dict.fromkeys(values) if v is not None]
    block = np.frombuffer(b"".join(v + b"\0" for v in distinct) or b"\0", dtype=np.uint8)
    keep.append(block)
    addr: dict = {None: 0}
    at = block.ctypes.data
    for v in distinct:
        addr[v] = at
        at += len(v) + 1
    return np.fromiter(map(addr.__getitem__, values), dtype=np.uint64, count=len(values))


class _Pauses:
    """The pauses under way in every thread: the first one records whether the collector
    was on, the last one to end turns it back on. (Each pause reading and restoring the
    state itself left it off for good when a second thread read it while a first one had
    it paused, and restored that after the first ended.)"""
    lock = threading.Lock()
    depth = 0
    was_enabled = False


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a bulk add converts its items and
    makes their keys, or a bulk read makes its series: those allocate a few objects per
    series, none of them cyclic, and the collections they set off (each full one walking
    every object of the process) cost more than the conversion itself (3 of 5 µs a series
    of a 100,000 add; 5-7 µs a series of a 10,000 read after that add, docs/benchmarks.md).
    When the last pause of all threads ends, it is enabled again, unless it was disabled
    when the first began."""
    with _Pauses.lock:
        if _Pauses.depth == 0:
            _Pauses.was_enabled = gc.isenabled()
            gc.disable()
        _Pauses.depth += 1
    try:
        yield
    finally:
        with _Pauses.lock:
            _Pauses.depth -= 1
            if _Pauses.depth == 0 and _Pauses.was_enabled:
                gc.enable()


def _add_items(store: "Store", items: list[_Item], batch: bool = False) -> list[Key]:
    """Adds items in one C call: tsstore_add for a single add, tsstore_add_batch for a batch
    (whose arrays get datasets sized to it)."""
    if not items:
        return []
    return _send(store, _item_columns(items), len(items), batch, items.__getitem__)


def _send(store: "Store", cols: dict, n: int, batch: bool, item_at: Any) -> list[Key]:
    """Adds the n items of descriptor columns cols in one C call (tsstore_add_batch for a
    batch, tsstore_add for one item) and returns the keys the library reports it stored;
    a refusal is raised with the periods of the item it names (item_at(i) gives its _Item)
    as the caller wrote them."""
    descs, keep = _descriptors(cols)
    stored = np.zeros(n, dtype=_LOOKUP_DTYPE)
    stored["struct_size"] = _LOOKUP_SIZE
    h, out = store._handle(), stored.ctypes.data
    st = lib.tsstore_add_batch(h, descs.ctypes.data, n, out) if batch else lib.tsstore_add(h, descs.ctypes.data, out)
    del keep  # the library copied what the descriptors point at
    if not st:
        return Key._stored(stored)
    e = error(st)
    i = e.item if e.item is not None and e.item < n else 0 if n == 1 else None
    if i is not None:
        e = renamed(e, item_at(i).respell(e.reason))
    raise e


_PLAIN_KEYS = frozenset(("ts", "owner_id", "owner_type", "owner_category"))
_PLAIN_NEEDS = frozenset(("ts", "owner_id", "owner_type"))
_UNSET = object()


def _plain_columns(items: list) -> "dict | None":
    """The descriptor columns of a bulk add whose every item is the plain case, and the
    names and resolutions its keys hold, in one pass:
    a dict of ts (a SingleTimeSeries over a C-contiguous ndarray of a stored dtype),
    owner_id (an int), owner_type and perhaps owner_category, and nothing else. Timestamps,
    periods and texts are converted once per distinct object (a bulk add repeats them; all
    are immutable). None when any item is something else: the general path (_Item) then
    checks every item and words any refusal."""
    n = len(items)
    if n == 0:
        return None
    owner_ids, cats, codes, initial, res, arrs = [], [], [], [], [], []
    types, names = [], []
    last_t = last_r = last_ot = last_name = last_dt = _UNSET
    t_ms = r_p = ot_b = name_b = code = None
    sts, component = SingleTimeSeries, OwnerCategory.COMPONENT
    try:
        for item in items:
            if type(item) is not dict or not _PLAIN_NEEDS <= item.keys() <= _PLAIN_KEYS:
                return None
            ts, oid, ot = item["ts"], item["owner_id"], item["owner_type"]
            cat = item.get("owner_category", component)
            if type(ts) is not sts or type(oid) is not int or not _INT64_MIN <= oid <= _INT64_MAX:
                return None
            cat = _CATEGORY_OF.get(cat) if type(cat) in (int, OwnerCategory) else None
            a = ts.data
            if cat is None or type(a) is not np.ndarray or not a.ndim or not a.flags.c_contiguous or 0 in a.shape:
                return None
            if a.dtype is not last_dt:
                code, last_dt = cv._CODE_OF.get(a.dtype), a.dtype
                if code is None:
                    return None
            t, r, name = ts.initial_timestamp, ts.resolution, ts.name
            if t is not last_t:
                t_ms, last_t = cv.millis(t), t
            if r is not last_r:
                r_p, last_r = cv.period(r, "ts.resolution"), r
            if ot is not last_ot:
                ot_b, last_ot = cv.text_arg(ot, "owner_type"), ot
            if name is not last_name:
                name_b, last_name = cv.text_arg(name, "name"), name
            owner_ids.append(oid)
            cats.append(cat)
            codes.append(code)
            initial.append(t_ms)
            res.append(r_p)
            arrs.append(a)
            types.append(ot_b)
            names.append(name_b)
    except (TsStoreError, TypeError, ValueError):
        return None  # the general path raises it, naming the item
    none = [None] * n
    # A column of one value is given as that value: numpy sets it at once, not item by item.
    return dict(series_type=int(SeriesType.SINGLE_TIME_SERIES), owner_id=owner_ids,
                owner_category=_one_or_all(cats), dtype=_one_or_all(codes), initial_ms=_one_or_all(initial),
                count=0, resolution=res, horizon=[cv.NO_PERIOD] * n, interval=[cv.NO_PERIOD] * n, arrs=arrs,
                stamps=None, pct=None, strs=(types, names, none, none, none))


def _one_or_all(values: list) -> Any:
    """values[0] when every value is it, else values."""
    return values[0] if values.count(values[0]) == len(values) else values


def _add_plain(store: "Store", items: list, cols: dict) -> list[Key]:
    """Adds a batch _plain_columns described, in one C call; the keys it stored."""
    return _send(store, cols, len(items), True, lambda i: _Item(**items[i]))


def _item_columns(items: list[_Item]) -> dict:
    """The descriptor columns of checked items."""
    return dict(series_type=[int(it.ts.series_type) for it in items],  # int(): numpy converts an enum member slowly
                owner_id=[it.owner_id for it in items], owner_category=[it.owner_category for it in items],
                dtype=[it.code for it in items], initial_ms=[it.initial for it in items],
                count=[it.count for it in items], resolution=[it.res for it in items],
                horizon=[it.hor for it in items], interval=[it.iv for it in items], arrs=[it.arr for it in items],
                stamps=[it.stamps for it in items] if any(it.stamps is not None for it in items) else None,
                pct=[it.pct for it in items] if any(it.pct is not None for it in items) else None,
                strs=tuple([it.strs[i] for it in items] for i in range(5)))


class Batch:
    """Series collected by Store.bulk_add(); added together, all or nothing, when the block
    ends (one C call for the whole batch). keys holds their keys afterwards."""

    def __init__(self, store: Store, op: str = "bulk_add") -> None:
        self._store: Store | None = store
        self._op = op
        self._items: list[_Item] = []
        self.keys: list[Key] = []

    def add(self, ts: Series, *, owner_id: int, owner_type: str,
            owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
            units: str | None = None, ext: str | None = None) -> None:
        """Queues one series (checked against the store when the batch commits)."""
        self._live()
        try:
            self._items.append(_Item(ts, owner_id, owner_type, owner_category, features, units, ext))
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, self._op, f"items[{len(self._items)}]: {e}") from None

    def __len__(self) -> int:
        """How many series are queued."""
        self._live()
        return len(self._items)

    def _live(self) -> Store:
        if self._store is None:
            raise InvalidHandleError("the batch was committed or discarded", _STATUS_CLOSED)
        return self._store

    def commit(self) -> list[Key]:
        """Adds every queued series, all or nothing, and returns their keys."""
        store = self._live()
        items, self._items, self._store = self._items, [], None
        try:
            self.keys = _add_items(store, items, batch=True)
        except TsStoreError as e:
            raise in_operation(e, self._op) from None
        return self.keys

    def discard(self) -> None:
        """Drops what is queued; harmless after commit."""
        self._items, self._store = [], None

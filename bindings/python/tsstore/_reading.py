"""Reading series: one by Key or by owner and name (whole, a range, some windows), many at
once (get_many), an array by its hash, has_time_series, and the readers."""
from __future__ import annotations

import datetime as _dt
import functools
import operator
from typing import Any, Callable, Sequence, TypeVar, cast

import numpy as np

from . import _bulk_read as bulk
from . import _convert as cv
from ._args import INT64_MAX, INT64_MIN, hash_bytes, int64_arg, lookup_of, named_lookup, named_template
from ._cstructs import INFO_HEAD, new_info, new_infos, thread_found, thread_read
from ._errors import InvalidHandleError, TsStoreError, in_operation, operation
from ._ffi import byref, c_size_t, c_uint8, check, error, fast, lib, raw
from ._handle import STATUS_CLOSED, StoreHandle
from ._keylist import lookup_array, names_of
from ._readers import open_forecast, open_static
from ._series import Key, NonSequentialTimeSeries, OwnerCategory, SeriesType, SingleTimeSeries, array_view, series_of

_TOO_SMALL = raw.TSSTORE_E_BUFFER_TOO_SMALL
_SINGLE = SeriesType.SINGLE_TIME_SERIES  # a module name: the enum's attribute costs 0.06 µs a read
# The widest range a timestamp may take (docs/format.md: RFC 3339, years 0001–9999).
_MIN_MS = cv.millis(_dt.datetime(1, 1, 1))
_MAX_MS = cv.millis(_dt.datetime(9999, 12, 31, 23, 59, 59, 999000))


_F = TypeVar("_F", bound=Callable[..., Any])


def _plain_calls_first(op: str, by_key: Callable, by_name: Callable) -> Callable[[_F], _F]:
    """A Store call (get_time_series, has_time_series) as a loop makes it, op(key) or
    op(owner_id, name) with no keyword, answered by by_key(store, key) or by_name(store,
    owner_id, name) before Python binds the full call's keyword-only defaults (0.35 µs of
    a 7 µs get; issue 31's bar is C + 3 µs). Every other call is the full one's; help(),
    inspect and type checkers see its signature."""
    def decorate(full: _F) -> _F:
        @functools.wraps(full)
        def plain_first(self: "Reading", owner: Any, name: Any = None, **options: Any) -> Any:
            if not options:
                try:
                    if name is None:
                        if isinstance(owner, Key):
                            return by_key(self, owner)
                    elif type(owner) is int and type(name) is str:
                        return by_name(self, owner, name)
                except (TsStoreError, TypeError, ValueError) as e:
                    raise in_operation(e, op) from None
            return full(self, owner, name, **options)
        return cast(_F, plain_first)
    return decorate


class Reading(StoreHandle):
    """Store's calls that read series."""

    def _get_key(self, key: Key) -> Any:
        """get_time_series(key) of a whole series, the call a simulation loop makes: _read's
        work for a held key in one frame (each Python call costs about 0.1 µs of a 5 µs get,
        issue 31's bar being C + 3 µs), through the unchecked tsstore_get (0.8 µs less than
        ctypes converting its arguments), the SingleTimeSeries made from the key's own name
        and resolution. Anything but a 1-D SingleTimeSeries is made by _series."""
        if not self._h:
            raise InvalidHandleError("the store is closed", STATUS_CLOSED)
        info, info_ref, view = thread_read()
        guess, capacity, buffer_type = key._capacity
        cbuf: Any = buffer_type()
        st = fast.tsstore_get(self._hv, key._lookup_ref or key.lookup_ref(), cbuf, capacity, info_ref)
        if st == _TOO_SMALL:  # it grew since the key's last read: again by the key found, sized
            cbuf, st = self._read_found(info, info_ref, lib.tsstore_get)
        if st:
            raise error(st)
        dtype, _, _, sid, ndim, nbytes, ims = INFO_HEAD.unpack_from(view)
        if nbytes != guess:
            key._sized(nbytes)
        if sid != key._id:
            key._hint(sid)
        if ndim != 1 or key.series_type is not _SINGLE or key.resolution is None:
            return self._series(info, array_view(cbuf, info), (), key.name)
        # The start kept on the key while it stays the same.
        start = key._start
        if start is None or start[0] != ims:
            start = (ims, cv.from_millis(ims))
            object.__setattr__(key, "_start", start)
        dt = cv.DTYPES[dtype]  # _single_of's two lines, without its frame
        return SingleTimeSeries._of(key.name, start[1], key.resolution, np.frombuffer(cbuf, dt, nbytes // dt.itemsize))

    def _read_found(self, info: Any, info_ref: Any, call: Any, *bounds: int) -> tuple:
        """A read again, when the buffer offered was too small: by the key the first call
        found (its id spares a second search), into a buffer of the size it reported."""
        found = raw.tsstore_lookup.from_buffer_copy(info.key)
        cbuf = (c_uint8 * info.nbytes)()
        return cbuf, call(self._h, byref(found), *bounds, cbuf, info.nbytes, info_ref)

    def _read(self, lookup: Any, key: Key | None, call: Any, *bounds: int) -> Any:
        """One read into a numpy array: one C call when the buffer offered holds the answer,
        the usual case in a loop. A Key offers the size of its own last read; a lookup by
        owner and name the size of the last read of that name and type. When the answer does
        not fit, a second call names the series by the key the first one returned, whose id
        spares a second search of the catalog. NonSequential timestamps and percentiles take
        one more call each, by that key too. The info struct is this thread's: it is read
        into Python values before the next read of the thread."""
        h, (info, info_ref, view) = self._handle(), thread_read()
        if key is None:
            # A guess: a wrong one costs a call. A templated lookup's template stands for its
            # name, type, category and periods (reading them back from the struct cost 0.15
            # µs); by its id, as it holds a ctypes struct (a reused id is a wrong guess).
            t = lookup.__dict__.get("_template")
            slot = (lookup.name, lookup.series_type, len(bounds)) if t is None else (id(t), len(bounds))
            q, guess = byref(lookup), self._sizes.get(slot, 0)
        else:  # lookup is key's own: its byref is made once per Key
            q, guess = key._lookup_ref or key.lookup_ref(), key._nbytes
        # A ctypes buffer that numpy then views: passing it costs less than asking numpy for
        # an array's address (arr.ctypes.data, a few microseconds a call).
        cbuf = (c_uint8 * guess)()
        if bounds or call is not lib.tsstore_get:
            st = call(h, q, *bounds, cbuf, guess, info_ref)
        else:  # a whole read: the unchecked call, as _get_key's
            st = fast.tsstore_get(self._hv, q, cbuf, c_size_t(guess), info_ref)
        if st == _TOO_SMALL:
            cbuf, st = self._read_found(info, info_ref, call, *bounds)
        if st:
            raise error(st)
        if key is None:  # by owner and name
            head = INFO_HEAD.unpack_from(view)
            _, _, _, _, ndim, nbytes, _ = head
            if nbytes != guess:
                self._sizes[slot] = nbytes
            if not bounds and ndim == 1 and lookup.series_type == _SINGLE:
                return _single_of_lookup(lookup, cbuf, head)
        return self._series(info, array_view(cbuf, info), bounds, None if key is None else key.name)

    def _get_named(self, owner: int, name: str) -> Any:
        """get_time_series(owner_id, name) of a whole series: _read's work for a lookup by
        owner and name in one frame, the lookup copied from the name's template and the
        buffer sized by the last read through that template (the slot _read keeps too)."""
        t = named_template(name)
        if not INT64_MIN <= owner <= INT64_MAX:
            int64_arg(owner, "owner")  # refuses it, naming the argument
        q = raw.tsstore_lookup.from_buffer_copy(t[3][0])  # t, held here, keeps its name's bytes
        q.owner_id = owner
        if not self._h:
            raise InvalidHandleError("the store is closed", STATUS_CLOSED)
        info, info_ref, view = thread_read()
        slot = (id(t), 0)
        guess = self._sizes.get(slot, 0)
        cbuf = (c_uint8 * guess)()
        st = fast.tsstore_get(self._hv, byref(q), cbuf, c_size_t(guess), info_ref)
        if st == _TOO_SMALL:
            cbuf, st = self._read_found(info, info_ref, lib.tsstore_get)
        if st:
            raise error(st)
        dtype, res_value, res_unit, _, ndim, nbytes, ims = INFO_HEAD.unpack_from(view)
        if nbytes != guess:
            self._sizes[slot] = nbytes
        if ndim != 1:
            return self._series(info, array_view(cbuf, info), (), name)
        return _single_of(cbuf, dtype, nbytes, name, cv.from_millis(ims), cv._value_of(res_value, res_unit))

    def _has_key(self, key: Key) -> bool:
        """has_time_series(key), through the unchecked tsstore_has."""
        return self._has_lookup(key._lookup_ref or key.lookup_ref())

    def _has_named(self, owner: int, name: str) -> bool:
        """has_time_series(owner_id, name)."""
        return self._has_lookup(byref(named_lookup(owner, name)))

    def _has_lookup(self, ref: Any) -> bool:
        if not self._h:
            raise InvalidHandleError("the store is closed", STATUS_CLOSED)
        found, found_ref = thread_found()
        st = fast.tsstore_has(self._hv, ref, found_ref)
        if st:
            raise error(st)
        return bool(found.value)

    @_plain_calls_first("get_time_series", _get_key, _get_named)
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
            q, key = lookup_of("get_time_series", owner, name, time_series_type, owner_category,
                               resolution, interval, features, feature_values)
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "get_time_series") from None
        try:
            if start is None and stop is None and length is None and count is None:
                return self._read(q, key, lib.tsstore_get)
            return self._read_part(q, key, start, stop, length, count)
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(cv.respelled(e, resolution, interval), "get_time_series") from None

    def _read_part(self, q: Any, key: Key | None, start: Any, stop: Any, length: int | None,
                   count: int | None) -> Any:
        """A range of a static series or some windows of a forecast."""
        if length is not None and stop is not None:
            raise TypeError("give stop or length, not both")
        if count is not None and stop is not None:
            raise TypeError("give stop or count, not both")
        info = new_info()
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

    def _series(self, info: Any, arr: np.ndarray, bounds: tuple = (), name: str | None = None) -> Any:
        key = info.key  # a new ctypes object at each access
        typ = key.series_type
        stamps = pct = None
        if typ == SeriesType.NON_SEQUENTIAL_TIME_SERIES:
            lo, hi = bounds if len(bounds) == 2 else (INT64_MIN, INT64_MAX)
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
        n = len(keys)
        if n == 0:
            return []
        lookups = lookup_array(keys)
        which = lookups.ctypes.data
        infos = new_infos(n)
        h = self._handle()
        # Every item sized as the largest of the last get_many, while that asks for no more than
        # twice what the last one read (at least 64 MiB); else a sizing call first.
        guess = self._many_guess or bulk.first_guess(h, which, infos)
        if n * guess > max(2 * self._many_total, bulk.GUESS_FLOOR):
            guess = 0
        block, offsets, st = bulk.get_many_into(h, which, n, infos, np.full(n, guess, dtype=np.uint64))
        if st == _TOO_SMALL:  # again by the keys the library resolved: their ids spare a search
            found = bulk.found_keys(infos, n)
            sizes = bulk.info_column(infos, n, bulk.NBYTES)
            block, offsets, st = bulk.get_many_into(h, found.ctypes.data, n, infos, sizes)
        check(st)
        nbytes = bulk.info_column(infos, n, bulk.NBYTES)
        self._many_guess, self._many_total = int(nbytes.max()), int(nbytes.sum())
        fast = bulk.single_series(keys, infos, n, block, offsets, nbytes)
        if fast is not None:
            return fast
        out = []
        for i, name in enumerate(names_of(keys)):
            info = infos[i]
            lo = int(offsets[i])
            out.append(self._series(info, array_view(block[lo: lo + info.nbytes], info), (), name))
        return out

    _many_guess = _many_total = 0

    def get_array(self, data_hash: str | bytes) -> np.ndarray:
        """A stored array by its content hash (64 hex digits or 32 bytes), as stored."""
        h, digest, info = self._handle(), hash_bytes(data_hash), new_info()
        st = lib.tsstore_get_array(h, digest, None, 0, byref(info))
        if st != _TOO_SMALL and st:
            raise error(st)
        buf = np.empty(info.nbytes, dtype=np.uint8)
        check(lib.tsstore_get_array(h, digest, buf.ctypes.data, info.nbytes, byref(info)))
        return array_view(buf, info)

    @_plain_calls_first("has_time_series", _has_key, _has_named)
    def has_time_series(self, owner: "int | Key", name: str | None = None, *,
                        time_series_type: Any = SingleTimeSeries,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, resolution: Any = None,
                        interval: Any = None, features: dict | None = None, **feature_values: Any) -> bool:
        """Whether a series matches: has_time_series(owner_id, name, ...) takes the arguments
        of get_time_series (any number of matches is True); has_time_series(key) asks for
        exactly that key."""
        try:
            q, key = lookup_of("has_time_series", owner, name, time_series_type, owner_category,
                               resolution, interval, features, feature_values)
            # A Key's lookup and its byref are made once: a loop over keys converts nothing else.
            return self._has_lookup(byref(q) if key is None else key.lookup_ref())
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "has_time_series") from None

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


def _single_of_lookup(lookup: Any, cbuf: Any, head: tuple) -> SingleTimeSeries:
    """The SingleTimeSeries a read by owner and name wrote into cbuf (head: the info's
    INFO_HEAD fields): the name the lookup asked for, the resolution the library found."""
    dtype, res_value, res_unit, _, _, nbytes, ims = head
    name = lookup.__dict__.get("_name")
    return _single_of(cbuf, dtype, nbytes, name if type(name) is str else lookup.name.decode("utf-8"),
                      cv.from_millis(ims), cv._value_of(res_value, res_unit))


def _single_of(cbuf: Any, dtype: int, nbytes: int, name: str, start: Any, resolution: Any) -> SingleTimeSeries:
    """A 1-D SingleTimeSeries over the nbytes of dtype (its code) at the start of cbuf; the
    array is made by its constructor, which costs half what np.frombuffer does."""
    dt = cv.DTYPES[dtype]
    return SingleTimeSeries._of(name, start, resolution, np.ndarray((nbytes // dt.itemsize,), dt, cbuf))

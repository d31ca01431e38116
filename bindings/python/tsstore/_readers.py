"""Readers for simulation loops: numpy arrays allocated once, filled in place by every read."""
from __future__ import annotations

import datetime as _dt
import threading
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._errors import InvalidHandleError
from ._ffi import api
from ._series import Key, SeriesType


class Group:
    """The keys of a reader that share a dtype and shape, and their values of the last read.

    keys: their indices into the reader's key list. values: [len(keys), …] in that order, one
    array the library fills in place on every read (copy it to keep a step)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.keys = keys
        self.values = values


class _Reader:
    """What both readers share: the groups, the key-order view and the handle's lifetime."""

    _prefix = ""

    def __init__(self, store: Any, handle: int, keys: Sequence[Key]) -> None:
        self._store = store  # keeps the store open while the reader lives
        self._h: int | None = handle
        #: Reads take this lock (a read is two library calls: the step, then each group's
        #: copy). Threads sharing a reader also hold it while they use a read's result,
        #: which the next read overwrites: ``with reader.lock: x = reader.read_step(i).copy()``.
        self.lock = threading.RLock()
        self.keys = list(keys)
        self.groups: list[Group] = []
        for g in range(self._call("groups")):
            dtype, nkeys, shape = self._group_shape(g)
            idx = np.empty(nkeys, dtype=np.int64)
            self._call("group_keys", g, idx)
            self.groups.append(Group(idx, np.empty((nkeys,) + shape, dtype=cv.DTYPES[dtype])))
        # One group whose keys are in the caller's order (the usual case) is returned as is;
        # otherwise every read scatters into one array in key order, also allocated once.
        self._in_order = (len(self.groups) == 1 and
                          np.array_equal(self.groups[0].keys, np.arange(len(self.keys))))
        self._ordered = None
        if len(self.groups) == 1 and not self._in_order:
            self._ordered = np.empty_like(self.groups[0].values)

    def _call(self, name: str, *args: Any) -> Any:
        if not self._h:
            raise InvalidHandleError("the reader is closed", 11)
        return getattr(api, self._prefix + name)(self._h, *args)

    def _group_shape(self, g: int) -> tuple[int, int, tuple[int, ...]]:
        raise NotImplementedError

    def _fill(self) -> np.ndarray | None:
        for g, grp in enumerate(self.groups):
            self._call("group_values", g, grp.values)
        if self._in_order:
            return self.groups[0].values
        if self._ordered is not None:
            self._ordered[self.groups[0].keys] = self.groups[0].values
            return self._ordered
        return None

    def values(self) -> np.ndarray:
        """The last read, in the order of the reader's keys (one group only: keys of several
        dtypes or shapes are read through .groups)."""
        if len(self.groups) != 1:
            raise ValueError("the keys fall into several groups (dtype / shape); read .groups")
        if self._in_order or self._ordered is None:
            return self.groups[0].values
        return self._ordered

    def close(self) -> None:
        """Releases the reader; closing twice is harmless."""
        h, self._h = self._h, None
        if h:
            getattr(api, self._prefix + "free")(h)

    def __enter__(self) -> "_Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class StaticReader(_Reader):
    """Reads one timestamp of many SingleTimeSeries sharing one grid.

    read(t) / read_step(i) fill every group's values ([n_keys, *element_shape]) and return
    them in key order when the keys form one group (else None: read .groups). The returned
    array is the same object on every read."""

    _prefix = "static_reader_"

    def _group_shape(self, g: int) -> tuple[int, int, tuple[int, ...]]:
        dtype, nkeys, ndim = self._call("group_info", g, None)
        shape = np.zeros(max(ndim, 1), dtype=np.int64)
        self._call("group_info", g, shape)
        return dtype, nkeys, tuple(int(d) for d in shape[:ndim])

    def grid(self) -> tuple[_dt.datetime, int]:
        """(initial timestamp, number of steps)."""
        t0, n = self._call("grid")
        return cv.from_millis(t0), n

    def read(self, t: Any) -> np.ndarray | None:
        """Reads the step at timestamp t (a grid point: never rounded)."""
        with self.lock:
            self._call("read", cv.millis(t))
            return self._fill()

    def read_step(self, i: int) -> np.ndarray | None:
        """Reads step i of the grid."""
        with self.lock:
            self._call("read_step", i)
            return self._fill()


class ForecastReader(_Reader):
    """Reads one window of many forecasts sharing a window timeline.

    read(start) / read_window(i) fill every group's values ([n_keys, H, *E]; Probabilistic
    and Scenarios [n_keys, layers, H, *E]) and return them in key order when the keys form
    one group. The returned array is the same object on every read."""

    _prefix = "forecast_reader_"

    def __init__(self, store: Any, handle: int, keys: Sequence[Key], layered: bool) -> None:
        self._layered = layered
        super().__init__(store, handle, keys)

    def _group_shape(self, g: int) -> tuple[int, int, tuple[int, ...]]:
        dtype, nkeys, layers, steps, ndim = self._call("group_info", g, None)
        shape = np.zeros(max(ndim, 1), dtype=np.int64)
        self._call("group_info", g, shape)
        extra = (layers, steps) if self._layered else (steps,)
        return dtype, nkeys, extra + tuple(int(d) for d in shape[:ndim])

    def grid(self) -> tuple[_dt.datetime, int]:
        """(first window start, number of windows)."""
        t0, n = self._call("grid")
        return cv.from_millis(t0), n

    def read(self, start: Any) -> np.ndarray | None:
        """Reads the window starting at start (a window start: never rounded)."""
        with self.lock:
            self._call("read", cv.millis(start))
            return self._fill()

    def read_window(self, i: int) -> np.ndarray | None:
        """Reads window i."""
        with self.lock:
            self._call("read_window", i)
            return self._fill()


def _with_key_handles(keys: Sequence[Key], fn: Any) -> Any:
    handles = [k.handle() for k in keys]
    try:
        return fn([h.value for h in handles])
    finally:
        for h in handles:
            h.close()


def open_static(store: Any, resolution: Any, keys: Sequence[Key]) -> StaticReader:
    """A StaticReader over keys (Store.static_reader)."""
    h = _with_key_handles(keys, lambda hs: api.static_reader_new(store._handle(), cv.period(resolution), hs))
    return StaticReader(store, h, keys)


def open_forecast(store: Any, series_type: SeriesType, resolution: Any, keys: Sequence[Key]) -> ForecastReader:
    """A ForecastReader over keys (Store.forecast_reader)."""
    h = _with_key_handles(keys, lambda hs: api.forecast_reader_new(store._handle(), int(series_type),
                                                                   cv.period(resolution), hs))
    layered = int(series_type) in (SeriesType.PROBABILISTIC, SeriesType.SCENARIOS)
    return ForecastReader(store, h, keys, layered)

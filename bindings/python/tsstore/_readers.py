"""Readers for simulation loops, filling numpy arrays the binding allocates once."""
from __future__ import annotations

import datetime as _dt
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._ffi import byref, c_int32, c_int64, c_size_t, c_void_p, check, encode, lib


class _Group:
    """One group of a reader: the keys (their indices in the reader's key list) and the
    values of the last read, an array reused by every read."""

    def __init__(self, keys: np.ndarray, values: np.ndarray):
        self.keys = keys
        self.values = values


class _Reader:
    _new = _free = _groups = _group_keys = _group_values = None

    def __init__(self, store, handle: int, keys: Sequence[Any]):
        self._store = store  # keeps the store open while the reader lives
        self._h = handle
        self.keys = list(keys)
        n = c_size_t()
        check(self._groups(handle, byref(n)))
        self.groups: list[_Group] = []
        for g in range(n.value):
            dtype, nkeys, shape, extra = self._group_shape(g)
            idx = np.empty(nkeys, dtype=np.int64)
            needed = c_size_t()
            check(self._group_keys(handle, g, idx.ctypes.data, nkeys, byref(needed)))
            self.groups.append(_Group(idx, np.empty((nkeys,) + extra + shape, dtype=cv.DTYPES[dtype])))

    def _fill(self) -> None:
        needed = c_size_t()
        for g, grp in enumerate(self.groups):
            check(self._group_values(self._h, g, grp.values.ctypes.data, grp.values.nbytes, byref(needed)))

    def values(self) -> np.ndarray:
        """The last read as one array in the order of the reader's keys (a single group only)."""
        if len(self.groups) != 1:
            raise ValueError("the keys fall into several groups (dtype / shape); use .groups")
        g = self.groups[0]
        out = np.empty_like(g.values)
        out[g.keys] = g.values
        return out

    def close(self) -> None:
        """Releases the reader; closing twice is harmless."""
        h, self._h = self._h, None
        if h:
            type(self)._free(h)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self) -> None:
        self.close()


class StaticReader(_Reader):
    """Reads one timestamp of many SingleTimeSeries sharing one grid: read(t) fills every
    group's values ([n_keys, *element_shape]) and returns the reader's values() when the keys
    form one group."""

    _free = staticmethod(lambda h: lib.tsstore_static_reader_free(h))
    _groups = staticmethod(lambda h, n: lib.tsstore_static_reader_groups(h, n))
    _group_keys = staticmethod(lambda *a: lib.tsstore_static_reader_group_keys(*a))
    _group_values = staticmethod(lambda *a: lib.tsstore_static_reader_group_values(*a))

    def _group_shape(self, g):
        dtype, nkeys, ndim = c_int32(), c_size_t(), c_size_t()
        check(lib.tsstore_static_reader_group_info(self._h, g, byref(dtype), byref(nkeys), None, 0, byref(ndim)))
        shape = (c_int64 * max(ndim.value, 1))()
        check(lib.tsstore_static_reader_group_info(self._h, g, byref(dtype), byref(nkeys), shape, ndim.value, byref(ndim)))
        return dtype.value, nkeys.value, tuple(shape[: ndim.value]), ()

    def grid(self) -> tuple[_dt.datetime, int]:
        """(initial timestamp, number of steps)."""
        t0, n = c_int64(), c_int64()
        check(lib.tsstore_static_reader_grid(self._h, byref(t0), byref(n)))
        return cv.from_millis(t0.value), n.value

    def read(self, t: Any) -> np.ndarray | None:
        """Reads the step at timestamp t (a grid point: never clamped)."""
        check(lib.tsstore_static_reader_read(self._h, cv.millis(t)))
        self._fill()
        return self.values() if len(self.groups) == 1 else None

    def read_step(self, i: int) -> np.ndarray | None:
        """Reads step i."""
        check(lib.tsstore_static_reader_read_step(self._h, i))
        self._fill()
        return self.values() if len(self.groups) == 1 else None


class ForecastReader(_Reader):
    """Reads one window of many forecasts sharing a window timeline: read(t) fills every
    group's values ([n_keys, H, *E], or [n_keys, layers, H, *E] for Probabilistic and
    Scenarios)."""

    _free = staticmethod(lambda h: lib.tsstore_forecast_reader_free(h))
    _groups = staticmethod(lambda h, n: lib.tsstore_forecast_reader_groups(h, n))
    _group_keys = staticmethod(lambda *a: lib.tsstore_forecast_reader_group_keys(*a))
    _group_values = staticmethod(lambda *a: lib.tsstore_forecast_reader_group_values(*a))

    def __init__(self, store, handle, keys, layered: bool):
        self._layered = layered
        super().__init__(store, handle, keys)

    def _group_shape(self, g):
        dtype, nkeys, ndim, layers, steps = c_int32(), c_size_t(), c_size_t(), c_int64(), c_int64()
        check(lib.tsstore_forecast_reader_group_info(self._h, g, byref(dtype), byref(nkeys), byref(layers),
                                                     byref(steps), None, 0, byref(ndim)))
        shape = (c_int64 * max(ndim.value, 1))()
        check(lib.tsstore_forecast_reader_group_info(self._h, g, byref(dtype), byref(nkeys), byref(layers),
                                                     byref(steps), shape, ndim.value, byref(ndim)))
        extra = (layers.value, steps.value) if self._layered else (steps.value,)
        return dtype.value, nkeys.value, tuple(shape[: ndim.value]), extra

    def grid(self) -> tuple[_dt.datetime, int]:
        """(first window start, number of windows)."""
        t0, n = c_int64(), c_int64()
        check(lib.tsstore_forecast_reader_grid(self._h, byref(t0), byref(n)))
        return cv.from_millis(t0.value), n.value

    def read(self, start: Any) -> np.ndarray | None:
        """Reads the window starting at start (a window start)."""
        check(lib.tsstore_forecast_reader_read(self._h, cv.millis(start)))
        self._fill()
        return self.values() if len(self.groups) == 1 else None

    def read_window(self, i: int) -> np.ndarray | None:
        """Reads window i."""
        check(lib.tsstore_forecast_reader_read_window(self._h, i))
        self._fill()
        return self.values() if len(self.groups) == 1 else None


def key_array(keys):
    """A C array of key handles, and the handles to free afterwards."""
    handles = [k._handle() for k in keys]
    arr = (c_void_p * max(len(handles), 1))(*[h.value for h in handles])
    return arr, handles


def open_static(store, resolution, keys):
    arr, handles = key_array(keys)
    out = c_void_p()
    try:
        check(lib.tsstore_static_reader_new(store._handle(), encode(cv.period(resolution)), arr, len(keys), byref(out)))
    finally:
        for h in handles:
            h.close()
    return StaticReader(store, out.value, keys)


def open_forecast(store, series_type, resolution, keys):
    arr, handles = key_array(keys)
    out = c_void_p()
    try:
        check(lib.tsstore_forecast_reader_new(store._handle(), int(series_type), encode(cv.period(resolution)), arr,
                                              len(keys), byref(out)))
    finally:
        for h in handles:
            h.close()
    return ForecastReader(store, out.value, keys, int(series_type) in (4, 5))

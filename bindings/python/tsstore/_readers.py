"""Readers for simulation loops: numpy arrays allocated once and bound to the reader, so the
library writes every read straight into them (one C call per step)."""
from __future__ import annotations

import datetime as _dt
import threading
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._errors import InvalidHandleError
from ._ffi import byref, c_size_t, c_void_p, check, lib, raw, sizeof
from ._keylist import KeyList, lookup_array
from ._series import Key, SeriesType


class Group:
    """The keys of a reader that share a dtype and shape, and their values of the last read.

    keys: their indices into the reader's key list. values: [len(keys), …] in that order, one
    array the library fills in place on every read (copy it to keep a step)."""

    def __init__(self, keys: np.ndarray, values: np.ndarray) -> None:
        self.keys = keys
        self.values = values


class _Reader:
    """What both readers share: the groups bound to arrays, the key-order view and the
    handle's lifetime."""

    _by_index: str  # the C read of step / window i

    _prefix = ""
    _layered = False

    def __init__(self, store: Any, handle: int, keys: Sequence[Key]) -> None:
        self._store = store  # keeps the store open while the reader lives
        self._h: int | None = handle
        #: Reads take this lock. Threads sharing a reader also hold it while they use a
        #: read's result, which the next read overwrites:
        #: ``with reader.lock: x = reader.read_step(i).copy()``.
        self.lock = threading.RLock()
        # The reader's own copy of the keys; a KeyList's is one that makes no key until asked
        # for (2,000 keys made here cost 1.6 ms of a week of steps).
        self.keys = keys._snapshot() if type(keys) is KeyList else list(keys)
        self._fn = {name: getattr(lib, "tsstore_" + self._prefix + name) for name in
                    ("info", "group", "group_keys", "bind", self._by_index, "read_at", "free")}
        info = raw.tsstore_reader_info()
        info.struct_size = sizeof(info)
        check(self._fn["info"](handle, byref(info)))
        self._info = info
        self.groups: list[Group] = []
        for g in range(info.n_groups):
            self.groups.append(self._bound_group(handle, g))
        # One group whose keys are in the caller's order (the usual case) is returned as is;
        # otherwise every read scatters into one array in key order, also allocated once.
        self._in_order = (len(self.groups) == 1 and
                          np.array_equal(self.groups[0].keys, np.arange(len(self.keys))))
        self._ordered = None
        if len(self.groups) == 1 and not self._in_order:
            self._ordered = np.empty_like(self.groups[0].values)
        # A step is the hot path of a simulation loop (issue 17's bar: C + 1 µs): it calls
        # these directly rather than through _fn, _live, check and _result.
        self._read = self._fn[self._by_index]
        self._values = self.groups[0].values if self._in_order else None

    def _bound_group(self, handle: int, g: int) -> Group:
        gi = raw.tsstore_group_info()
        gi.struct_size = sizeof(gi)
        check(self._fn["group"](handle, g, byref(gi)))
        idx = np.empty(max(gi.n_keys, 1), dtype=np.int64)
        n = c_size_t()
        check(self._fn["group_keys"](handle, g, idx.ctypes.data, len(idx), byref(n)))
        lead = (gi.layers, gi.steps) if self._layered else (gi.steps,) if self._prefix == "forecast_reader_" else ()
        shape = (gi.n_keys,) + lead + tuple(gi.element_shape[: gi.element_ndim])
        values = np.zeros(shape, dtype=cv.DTYPES[gi.dtype])
        check(self._fn["bind"](handle, g, values.ctypes.data, values.nbytes))
        return Group(idx[: n.value], values)

    def _live(self) -> int:
        if not self._h:
            raise InvalidHandleError("the reader is closed", raw.TSSTORE_E_INVALID_HANDLE)
        return self._h

    def _result(self) -> np.ndarray | None:
        if self._in_order:
            return self.groups[0].values
        if self._ordered is not None:
            self._ordered[self.groups[0].keys] = self.groups[0].values
            return self._ordered
        return None

    def _step(self, i: int) -> np.ndarray | None:
        """Reads step (window) i of the grid."""
        with self.lock:
            status = self._read(self._h or self._live(), i)
            if status:
                check(status)
            values = self._values
            return values if values is not None else self._result()

    def _at(self, t: Any) -> np.ndarray | None:
        with self.lock:
            check(self._fn["read_at"](self._live(), cv.millis(t)))
            return self._result()

    def grid(self) -> tuple[_dt.datetime, int]:
        """(first step or window start, number of steps or windows)."""
        return cv.from_millis(self._info.initial_ms), self._info.steps

    def values(self) -> np.ndarray:
        """The last read, in the order of the reader's keys (one group only: keys of several
        dtypes or shapes are read through .groups)."""
        if len(self.groups) != 1:
            raise ValueError("the keys fall into several groups (dtype / shape); read .groups")
        if self._in_order or self._ordered is None:
            return self.groups[0].values
        return self._ordered

    def close(self) -> None:
        """Releases the reader; closing twice is harmless. The group arrays stay readable."""
        h, self._h = self._h, None
        if h:
            self._fn["free"](h)

    def __enter__(self) -> "_Reader":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        h, self._h = getattr(self, "_h", None), None
        if h:  # nothing the library hands out lives in the thread, so a finaliser may free it
            self._fn["free"](h)


class StaticReader(_Reader):
    """Reads one timestamp of many SingleTimeSeries sharing one grid.

    read_at(t) / read_step(i) fill every group's values ([n_keys, *element_shape]) and return
    them in key order when the keys form one group (else None: read .groups). The returned
    array is the same object on every read."""

    _prefix, _by_index = "static_reader_", "read_step"

    def read_at(self, t: Any) -> np.ndarray | None:
        """Reads the step at timestamp t (a grid point: never rounded)."""
        return self._at(t)

    # Reads step i of the grid: _step itself, one Python call less per step.
    read_step = _Reader._step


class ForecastReader(_Reader):
    """Reads one window of many forecasts sharing a window timeline.

    read_at(start) / read_window(i) fill every group's values ([n_keys, H, *E]; Probabilistic
    and Scenarios [n_keys, layers, H, *E]) and return them in key order when the keys form
    one group. The returned array is the same object on every read."""

    _prefix, _by_index = "forecast_reader_", "read_window"

    def __init__(self, store: Any, handle: int, keys: Sequence[Key], layered: bool) -> None:
        self._layered = layered
        super().__init__(store, handle, keys)

    def read_at(self, start: Any) -> np.ndarray | None:
        """Reads the window starting at start (a window start: never rounded)."""
        return self._at(start)

    # Reads window i: _step itself, one Python call less per window.
    read_window = _Reader._step


def _lookups(keys: Sequence[Key]) -> np.ndarray:
    """The keys' lookups in one buffer, as get_many builds them (keys differing only in owner
    share one checked template, kept on each key)."""
    return lookup_array(keys)


def open_static(store: Any, resolution: Any, keys: Sequence[Key]) -> StaticReader:
    """A StaticReader over keys (Store.static_reader)."""
    out = c_void_p()
    which = _lookups(keys)  # held until the call returns: the library reads it in the call
    check(lib.tsstore_static_reader_new(store._handle(), byref(cv.period(resolution, "resolution")), which.ctypes.data, len(keys),
                                        byref(out)))
    return StaticReader(store, out.value or 0, keys)


def open_forecast(store: Any, series_type: SeriesType, resolution: Any, keys: Sequence[Key]) -> ForecastReader:
    """A ForecastReader over keys (Store.forecast_reader)."""
    out = c_void_p()
    which = _lookups(keys)  # held until the call returns
    check(lib.tsstore_forecast_reader_new(store._handle(), int(series_type), byref(cv.period(resolution, "resolution")),
                                          which.ctypes.data, len(keys), byref(out)))
    layered = int(series_type) in (SeriesType.PROBABILISTIC, SeriesType.SCENARIOS)
    return ForecastReader(store, out.value or 0, keys, layered)

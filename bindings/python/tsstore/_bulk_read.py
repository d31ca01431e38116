"""get_many's parts: the one C call that reads many series into one block, and the
SingleTimeSeries of a usual bulk read built column-wise from the infos it filled."""
from __future__ import annotations

import itertools
from typing import Any, Sequence

import numpy as np

from . import _convert as cv
from ._cstructs import INFO_SIZE
from ._ffi import lib, raw, sizeof
from ._keylist import names_of
from ._series import Key, SeriesType, SingleTimeSeries

# Byte offsets of the tsstore_series_info fields get_many reads column-wise, with their dtypes.
_KEY_OFF = raw.tsstore_series_info.key.offset
NBYTES = (raw.tsstore_series_info.nbytes.offset, np.uint64)
_DTYPE = (raw.tsstore_series_info.dtype.offset, np.int32)
_NDIM = (raw.tsstore_series_info.ndim.offset, np.int32)
GUESS_FLOOR = 64 << 20
_INITIAL = (raw.tsstore_series_info.initial_ms.offset, np.int64)
_TYPE = (_KEY_OFF + raw.tsstore_lookup.series_type.offset, np.int32)
_RES_VALUE = (_KEY_OFF + raw.tsstore_lookup.resolution.offset + raw.tsstore_period.value.offset, np.int64)
_RES_UNIT = (_KEY_OFF + raw.tsstore_lookup.resolution.offset + raw.tsstore_period.unit.offset, np.int32)
_LOOKUP_SIZE = sizeof(raw.tsstore_lookup)


def info_column(infos: Any, n: int, field: tuple) -> np.ndarray:
    """One field of infos[n] as a numpy array (a copy), read without a ctypes object per item."""
    off, dtype = field
    return np.ndarray((n,), dtype=dtype, buffer=infos, offset=off, strides=(INFO_SIZE,)).copy()


def found_keys(infos: Any, n: int) -> np.ndarray:
    """The keys of infos[n] (their series ids set) as one contiguous tsstore_lookup array."""
    rows = np.frombuffer(infos, dtype=np.uint8, count=n * INFO_SIZE).reshape(n, INFO_SIZE)
    return np.ascontiguousarray(rows[:, _KEY_OFF:_KEY_OFF + _LOOKUP_SIZE])


def single_series(keys: Sequence[Key], infos: Any, n: int, block: np.ndarray, offsets: np.ndarray,
                   nbytes: np.ndarray) -> list | None:
    """The SingleTimeSeries of a get_many whose series are all SingleTimeSeries of one dtype
    and one length of scalars, at evenly spaced offsets in block (the usual bulk read), built
    column-wise from infos; None otherwise (the caller then builds each from its info)."""
    types = info_column(infos, n, _TYPE)
    if (types != SeriesType.SINGLE_TIME_SERIES).any():
        return None
    dtypes, ndims = info_column(infos, n, _DTYPE), info_column(infos, n, _NDIM)
    nb = int(nbytes[0])
    stride = int(offsets[1]) if n > 1 else nb
    if ((dtypes != dtypes[0]).any() or (ndims != 1).any() or (nbytes != nb).any() or stride < nb or
            (offsets != np.arange(n, dtype=np.uint64) * np.uint64(stride)).any()):
        return None
    dtype = cv.DTYPES[int(dtypes[0])]
    rows = list(block[: n * stride].reshape(n, stride)[:, :nb].view(dtype))
    starts = _converted(cv.from_millis, info_column(infos, n, _INITIAL))
    res = _converted(lambda v, u: cv.period_value(raw.tsstore_period(v, u)),
                     info_column(infos, n, _RES_VALUE), info_column(infos, n, _RES_UNIT))
    return SingleTimeSeries._each_of(names_of(keys), starts, res, rows)


def _converted(convert: Any, *columns: np.ndarray) -> Any:
    """convert of each item's values in columns, each distinct tuple of them converted once:
    the one result repeated when every item has the same (a bulk read's series usually share
    their start and resolution), else a list."""
    if all((c == c[0]).all() for c in columns):
        return itertools.repeat(convert(*(c[0].item() for c in columns)), len(columns[0]))
    values = list(zip(*(c.tolist() for c in columns)))
    done = {v: convert(*v) for v in set(values)}
    return [done[v] for v in values]


def first_guess(h: int, which: Any, infos: Any) -> int:
    """The size of the first key's series, the guess for every item of a store's first
    get_many: one small call that spares the sizing call of a batch of like series."""
    return int(infos[0].nbytes) if lib.tsstore_get_info(h, which, infos) == 0 else 0


def get_many_into(h: int, which: Any, n: int, infos: Any, nbytes: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """One tsstore_get_many of n series into a new block, each offered nbytes[i]: the block,
    each series' offset in it, and the call's status."""
    # Each array starts 8-byte aligned, so every dtype's view of it is aligned.
    sizes = (nbytes + 7) // 8 * 8
    offsets = np.zeros(n, dtype=np.uint64)
    np.cumsum(sizes[:-1], out=offsets[1:])
    block = np.empty(int(sizes.sum()) or 1, dtype=np.uint8)
    dst = (offsets + np.uint64(block.ctypes.data)).astype(np.uintp)
    caps = nbytes.astype(np.uintp)
    st = lib.tsstore_get_many(h, which, n, dst.ctypes.data, caps.ctypes.data, infos)
    return block, offsets, st

"""The one C call that adds series: the descriptor array of an add's columns, and the call."""
from __future__ import annotations

import itertools
import operator
from typing import Any, Callable, Sequence

import numpy as np

from ._add_columns import Columns
from ._errors import renamed
from ._ffi import buffer_addresses, c_void_p, error, lib, numpy_dtype, raw, sizeof
from ._handle import StoreHandle
from ._keylist import KeyList, stored_keys

_DESC_SIZE = sizeof(raw.tsstore_series_desc)
_LOOKUP_SIZE = sizeof(raw.tsstore_lookup)
_DESC_DTYPE = numpy_dtype(raw.tsstore_series_desc)
_LOOKUP_DTYPE = numpy_dtype(raw.tsstore_lookup)
_NBYTES, _NDIM, _SHAPE = (operator.attrgetter(a) for a in ("nbytes", "ndim", "shape"))
_STOPPED = raw.TSSTORE_E_INVALID_PARAMETER  # what the callback returns when a check raised


def send(store: StoreHandle, columns: Columns, batch: bool) -> KeyList:
    """Adds the items of columns in one C call (tsstore_add_batch for a batch, whose arrays
    get datasets sized to it; tsstore_add for one item) and returns the keys the library
    reports it stored; a refusal is raised with the periods of the item it names as the
    caller wrote them."""
    n = len(columns)
    descs, keep = descriptors(columns.fields())
    stored = np.zeros(n, dtype=_LOOKUP_DTYPE)
    stored["struct_size"] = _LOOKUP_SIZE
    h, out = store._handle(), stored.ctypes.data
    st = lib.tsstore_add_batch(h, descs.ctypes.data, n, out) if batch else lib.tsstore_add(h, descs.ctypes.data, out)
    del descs, keep  # the library copied what they point at: gone before the keys are made
    if not st:
        return stored_keys(stored)
    e = error(st)
    i = e.item if e.item is not None and e.item < n else 0 if n == 1 else None
    if i is not None:
        e = renamed(e, columns.respell(i, e.reason))
    raise e


def send_each(store: StoreHandle, items: Sequence, check: Callable[[Columns, int, Any], None]) -> KeyList:
    """Adds items in one C call (tsstore_add_batch_from) that asks for their descriptors a
    slice at a time: check(columns, i, items[i]) appends item i, and each slice's
    descriptors are made while the library adds the slice before (the callback runs on its
    thread, the GIL taken while it does). A bulk add of small series then costs Python's
    checks or the library's add, whichever is longer, not both (docs/benchmarks.md). The
    first exception check raises stops the add, which changes nothing, and is raised here;
    a refusal by the library is raised as send's."""
    n = len(items)
    columns = Columns()
    stored = np.zeros(n, dtype=_LOOKUP_DTYPE)
    stored["struct_size"] = _LOOKUP_SIZE
    kept: list = []  # every slice's descriptors and what they point at, until the call returns
    raised: list = []  # the item whose check raised, and what it raised

    def fill(_user: Any, first: int, count: int, out: int) -> int:
        i = first
        try:
            for i in range(first, first + count):
                check(columns, i, items[i])
            descs, keep = descriptors(columns.fields())
            kept.append((descs, keep))
            c_void_p.from_address(out).value = descs.ctypes.data
            return 0
        except BaseException as e:  # carried to the caller's thread and raised there
            raised[:] = [i, e]
            return _STOPPED

    callback = raw.tsstore_desc_fill(fill)  # held until the call returns
    st = lib.tsstore_add_batch_from(store._handle(), callback, None, n, stored.ctypes.data)
    del kept
    if not st:
        return stored_keys(stored)
    e = error(st)
    # The fault of the lowest item wins, whichever side found it: the library may refuse a
    # slice it adds while the check of a later one raises (a stop by fill names no item).
    if raised and (e.item is None or e.item > raised[0]):
        raise raised[1]
    if e.item is not None and e.item < n:
        e = renamed(e, columns.respell(e.item, e.reason))
    raise e


def descriptors(cols: dict) -> tuple[np.ndarray, list]:
    """The descriptor array of a batch from its columns (Columns.fields()):
    every item's values, shape, timestamps, percentiles and strings go into one block each,
    and the descriptors point into them. The blocks are returned too: they must outlive the
    add."""
    arrs = cols["arrs"]
    n = len(arrs)
    d = np.zeros(n, dtype=_DESC_DTYPE)
    d["struct_size"] = _DESC_SIZE
    for field in ("series_type", "owner_id", "owner_category", "dtype", "initial_ms", "count"):
        d[field] = cols[field]
    d["resolution"]["value"], d["resolution"]["unit"] = cols["resolution"]
    for field in ("horizon", "interval"):
        periods = cols[field]
        if periods.count(periods[0]) == n:  # one period object for all (structs compare by identity): one value
            d[field]["value"], d[field]["unit"] = periods[0].value, periods[0].unit
        else:
            d[field]["value"] = [p.value for p in periods]
            d[field]["unit"] = [p.unit for p in periods]
    keep: list = []
    d["nbytes"] = np.fromiter(map(_NBYTES, arrs), dtype=np.uint64, count=n)
    # Each array where it is: the library's copy into its row bands is the one copy between
    # the caller's array and the file's chunks (issue 31). Joining the small ones into one
    # block first cost 0.09 µs an array against 0.14 for reading each its address, but held a
    # second copy of every array (19 MB for 100,000 × 24 f64) through the call.
    d["data"] = buffer_addresses(arrs)
    keep.append(arrs)  # with the copies append made of arrays it had to convert
    ndims = np.fromiter(map(_NDIM, arrs), dtype=np.uint64, count=n)
    total = int(ndims.sum())
    if total == n:  # all 1-D (a bulk add of SingleTimeSeries): a shape is a length, and len() makes no tuple
        shapes = np.fromiter(map(len, arrs), dtype=np.int64, count=n)
    else:
        shapes = np.fromiter(itertools.chain.from_iterable(map(_SHAPE, arrs)), dtype=np.int64, count=total)
    keep.append(shapes)
    d["shape"], d["ndim"] = _starts(ndims * 8, shapes.ctypes.data), ndims
    if cols["stamps"] is not None:
        d["timestamps_ms"], _ = _block(cols["stamps"], np.int64, keep)
    if cols["pct"] is not None:
        d["percentiles"], d["n_percentiles"] = _block(cols["pct"], np.float64, keep)
    for i, field in enumerate(("owner_type", "name", "features_json", "units", "ext")):
        d[field] = _strings_block(cols["strs"][i], keep)
    return d, keep


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

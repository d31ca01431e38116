"""The C structs and handles Store's calls fill: series infos, out handles, string lists."""
from __future__ import annotations

import struct
import threading
from typing import Any

from ._ffi import byref, c_char_p, c_int32, c_size_t, c_void_p, check, cstr, lib, raw, sizeof

INFO_SIZE = sizeof(raw.tsstore_series_info)


def new_info() -> Any:
    """A tsstore_series_info, its struct_size set."""
    info = raw.tsstore_series_info()
    info.struct_size = INFO_SIZE
    return info


def new_infos(n: int) -> Any:
    """An array of n tsstore_series_info (at least one), its first struct_size set."""
    arr = (raw.tsstore_series_info * max(n, 1))()
    arr[0].struct_size = INFO_SIZE
    return arr


_per_thread = threading.local()


def _head_format() -> str:
    """The struct format that reads, in one call, the fields of a tsstore_series_info a read
    of a whole series needs: dtype, the resolution's value and unit and the series id (in its
    key), ndim, nbytes and initial_ms, at their offsets in the struct, the bytes between
    skipped."""
    info, key, period = raw.tsstore_series_info, raw.tsstore_lookup, raw.tsstore_period
    fields = [(info.dtype.offset, "i"), (info.key.offset + key.resolution.offset + period.value.offset, "q"),
              (info.key.offset + key.resolution.offset + period.unit.offset, "i"),
              (info.key.offset + key.series_id.offset, "q"), (info.ndim.offset, "i"),
              (info.nbytes.offset, "Q"), (info.initial_ms.offset, "q")]
    assert fields == sorted(fields), "INFO_HEAD's fields must follow the struct's order"
    out, at = "<", 0
    for offset, code in fields:
        out += f"{offset - at}x{code}"
        at = offset + struct.calcsize("<" + code)
    return out


#: (dtype, resolution value, resolution unit, series id, ndim, nbytes, initial_ms) of an
#: info's bytes: one unpack_from where seven ctypes field reads made seven objects (three
#: for the nested ones).
INFO_HEAD = struct.Struct(_head_format())


def thread_read() -> tuple:
    """thread_info's struct and byref, and a memoryview of the struct for INFO_HEAD."""
    try:
        return _per_thread.read  # type: ignore[no-any-return]
    except AttributeError:
        info, ref = thread_info()
        _per_thread.read = (info, ref, memoryview(info).cast("B"))
        return _per_thread.read  # type: ignore[no-any-return]


def thread_info() -> tuple:
    """This thread's own tsstore_series_info and its byref, for reads that use it and drop it
    before their next call (a get's info is read into Python values at once)."""
    try:
        return _per_thread.info  # type: ignore[no-any-return]
    except AttributeError:
        info = new_info()
        _per_thread.info = (info, byref(info))
        return _per_thread.info  # type: ignore[no-any-return]


def thread_found() -> tuple:
    """This thread's own int32 for tsstore_has to write, and its byref."""
    try:
        return _per_thread.found  # type: ignore[no-any-return]
    except AttributeError:
        found = c_int32()
        _per_thread.found = (found, byref(found))
        return _per_thread.found  # type: ignore[no-any-return]


def handle_out() -> Any:
    """Where a call writes the handle it returns."""
    return c_void_p()


def strings_of(handle: Any) -> list[str]:
    """The texts of a tsstore_strings handle (the caller frees it)."""
    n = c_size_t()
    check(lib.tsstore_strings_len(handle, byref(n)))
    out = []
    p = c_char_p()
    for i in range(n.value):
        check(lib.tsstore_strings_get(handle, i, byref(p)))
        out.append(cstr(p.value))
    return out

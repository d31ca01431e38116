"""The one module that loads the C library. The raw declarations of every function, struct
and constant of include/tsstore.h are generated into _raw.py by scripts/gen-bindings; this
module finds libtsstore.so, binds them (``lib.tsstore_get(...)`` is the C function itself),
and turns a failure status into the exception of its class, carrying the thread's report of
it (tsstore_last_error). The rest of the package uses ``lib``, the structs of ``raw`` and
``check``; only this module and _raw import ctypes.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import pathlib
import sys
import threading
from typing import Any, Callable, Iterator

from . import _errors
from . import _raw as raw

#: What this binding was written for: the library's version must match in major.minor.
EXPECTED_VERSION = raw.TSSTORE_VERSION_NUMBER

# What the rest of the package needs of ctypes, so that no other module imports it.
byref, sizeof, addressof, memmove, cast, string_at = (ctypes.byref, ctypes.sizeof, ctypes.addressof, ctypes.memmove,
                                                      ctypes.cast, ctypes.string_at)
c_int32, c_int64, c_size_t, c_char_p, c_void_p = ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p
c_uint8 = ctypes.c_uint8


def _candidates() -> list[pathlib.Path]:
    here = pathlib.Path(__file__).resolve().parent
    found = []
    env = os.environ.get("TSSTORE_LIBRARY")
    if env:
        found.append(pathlib.Path(env))
    found.append(here / "_lib" / "libtsstore.so")
    return found


def _load() -> ctypes.CDLL:
    tried = []
    for path in _candidates():
        if path.is_file():
            try:
                return ctypes.CDLL(str(path))
            except OSError as e:
                tried.append(f"{path}: {e}")
        else:
            tried.append(f"{path}: not found")
    raise ImportError(
        "tsstore: cannot load the C library libtsstore.so. Tried:\n  " + "\n  ".join(tried) +
        "\nReinstall the package (pip install ./bindings/python builds it with the Go toolchain; it "
        "needs Go, gcc and netcdf-c / HDF5 development files), or set TSSTORE_LIBRARY to a built "
        "libtsstore.so (cmake --build build/cmake writes build/cmake/lib/libtsstore.so)."
    )


_cdll = _load()
#: The C functions under their C names, with argtypes and restype from the header. Every
#: module calls them through this one namespace, at call time (never a function bound at
#: import), so that count_calls sees each call.
lib = raw.bind(_cdll)
#: The same functions without argtypes (raw.bind_unchecked), for the few calls a loop makes
#: per item (a get, has): their callers pass ctypes objects of the declared types, which
#: verify_unchecked checks under the tests. Reached at call time too, as lib is.
fast = raw.bind_unchecked(_cdll)


@contextlib.contextmanager
def _wrapped(wrap: Callable[[Any, str, Callable], Callable]) -> Iterator[None]:
    """Every function of lib and fast replaced by wrap(namespace, name, function) inside the
    block."""
    saved = [(ns, dict(vars(ns))) for ns in (lib, fast)]
    for ns, fns in saved:
        for name, fn in fns.items():
            setattr(ns, name, wrap(ns, name, fn))
    try:
        yield
    finally:
        for ns, fns in saved:
            vars(ns).update(fns)


@contextlib.contextmanager
def count_calls() -> Iterator[list]:
    """The names of the C functions called inside the with block, in order: what the
    boundary tests and the calls benchmark count a Python call's crossings with."""
    names: list = []

    def counted(_ns: Any, name: str, fn: Callable) -> Callable:
        def call(*args: Any) -> Any:
            names.append(name)
            return fn(*args)
        return call
    with _wrapped(counted):
        yield names


_POINTERS = (type(None), ctypes.c_void_p, type(ctypes.byref(ctypes.c_int())), ctypes.Array, ctypes._Pointer)


def unchecked_mistake(name: str, args: tuple) -> str | None:
    """What is wrong with args for fast.<name>, or None: a pointer argument must be a
    c_void_p, byref(), a ctypes array or pointer (or None), every other argument an
    instance of exactly its declared ctypes type."""
    argtypes = raw.SIGNATURES[name][1]
    if len(args) != len(argtypes):
        return f"{name}: {len(args)} arguments, declared {len(argtypes)}"
    for i, (a, t) in enumerate(zip(args, argtypes)):
        if t is ctypes.c_void_p:
            ok = isinstance(a, _POINTERS)
        else:  # bytes pass as a char * unconverted
            ok = type(a) is t or (t is ctypes.c_char_p and type(a) is bytes)
        if not ok:
            return f"{name}: argument {i} is {type(a).__name__}, declared {t.__name__}"
    return None


@contextlib.contextmanager
def verify_unchecked() -> Iterator[None]:
    """Inside the block, a call through fast with an argument ctypes would have to convert
    raises TypeError instead of passing it unconverted (the test suite runs under it)."""
    def verified(ns: Any, name: str, fn: Callable) -> Callable:
        if ns is not fast:
            return fn

        def call(*args: Any) -> Any:
            mistake = unchecked_mistake(name, args)
            if mistake:
                raise TypeError("unchecked call: " + mistake)
            return fn(*args)
        return call
    with _wrapped(verified):
        yield


#: The library's version, checked against what this binding was generated for.
VERSION: int = lib.tsstore_version()
if VERSION // 100 != EXPECTED_VERSION // 100:
    raise ImportError(f"tsstore: libtsstore version {VERSION} is not the {EXPECTED_VERSION // 10000}."
                      f"{EXPECTED_VERSION // 100 % 100} this binding was generated for")

def last_error() -> str:
    """The calling thread's last error message from the library."""
    needed = c_size_t(0)
    check(lib.tsstore_last_error_message(None, 0, byref(needed)))
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    check(lib.tsstore_last_error_message(buf, len(buf), None))  # cut to fit should it have grown
    return buf.value.decode("utf-8", "replace")


def error(status: int) -> _errors.TsStoreError:
    """The exception of a failure status, from the library's report of the calling thread's
    last failure (tsstore_last_error): the status, the blamed argument's code, the failing
    element of a list argument, the detail within the argument and the reason. Its strings
    are copied out of the error handle, which this thread owns and frees."""
    h = c_void_p()
    info = raw.tsstore_error_info(struct_size=sizeof(raw.tsstore_error_info))
    if lib.tsstore_last_error(byref(h)):
        return _errors.error_for(status, "(the library gave no report of this failure)")
    try:
        if lib.tsstore_error_get(h, byref(info)):
            return _errors.error_for(status, "(the library gave no report of this failure)")
        return _errors.reported(status, cstr(info.operation), info.arg, None if info.item < 0 else info.item,
                                cstr(info.detail), cstr(info.reason))
    finally:
        lib.tsstore_error_free(h)




def check(status: int) -> None:
    """Raises the exception of a non-zero status."""
    if status:
        raise error(status)


def text(buf_fn: Callable[..., int], *args: Any) -> str:
    """The string a (buf, capacity, *needed) function writes, sized by a first try."""
    cap = 256
    for _ in range(4):
        buf = ctypes.create_string_buffer(cap)
        needed = c_size_t(0)
        st = buf_fn(*args, buf, cap, byref(needed))
        if st != raw.TSSTORE_E_BUFFER_TOO_SMALL:
            check(st)
            return buf.value.decode("utf-8")
        cap = max(needed.value, 1) * 2  # room to spare, should another thread lengthen it
    check(st)
    return ""


_NP_SCALARS = {ctypes.c_int32: "<i4", ctypes.c_uint32: "<u4", ctypes.c_int64: "<i8", ctypes.c_uint64: "<u8",
               ctypes.c_size_t: "<u8", ctypes.c_double: "<f8", ctypes.c_uint8: "u1", ctypes.c_char_p: "<u8",
               ctypes.c_void_p: "<u8"}


def numpy_dtype(struct: Any) -> Any:
    """The numpy dtype with the exact layout of a ctypes Structure, pointers as uint64
    addresses: an array of structs can then be filled column by column from numpy."""
    import numpy as np
    names, formats, offsets = [], [], []
    for field in struct._fields_:
        name, ctype = field[0], field[1]
        names.append(name)
        offsets.append(getattr(struct, name).offset)
        if isinstance(ctype, type) and issubclass(ctype, ctypes.Structure):
            formats.append(numpy_dtype(ctype))
        elif isinstance(ctype, type) and issubclass(ctype, ctypes.Array):
            element: Any = ctype._type_
            formats.append((np.dtype(_NP_SCALARS[element]), (ctype._length_,)))
        elif ctype in _NP_SCALARS:
            formats.append(_NP_SCALARS[ctype])
        else:  # a typed pointer: an address
            formats.append("<u8")
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ctypes.sizeof(struct)})


def cstr(value: bytes | None) -> str:
    """A char * field read from a struct: bytes, or None for NULL."""
    return "" if value is None else value.decode("utf-8")


# Every log callback ever installed from Python stays alive: a call already running on
# another thread may still deliver a line to the one just replaced (include/tsstore.h), and a
# freed ctypes thunk would crash it. One small object per installation.
_log_lock = threading.Lock()
_log_callbacks: list[Any] = []
_LOG_FN = ctypes.CFUNCTYPE(None, ctypes.c_char_p, ctypes.c_void_p)


def set_log_callback(fn: Callable[[str], None] | None) -> None:
    """Installs fn(line) for the library's debug log lines; None uninstalls it. The library
    calls it on the thread that logs, so it must be quick and must not call into tsstore."""
    with _log_lock:
        cb = None if fn is None else _LOG_FN(lambda line, _user: fn(line.decode("utf-8", "replace")))
        if cb is not None:
            _log_callbacks.append(cb)
        check(lib.tsstore_set_log_callback(cast(cb, c_void_p) if cb else None, None))


__all__ = ["lib", "fast", "raw", "check", "error", "last_error", "text", "cstr", "set_log_callback", "VERSION", "byref",
           "sizeof", "addressof", "memmove", "numpy_dtype", "c_uint8", "c_int32", "c_int64", "c_size_t", "c_char_p", "c_void_p",
           "gc_untrack", "buffer_addresses"]


def _gc_untrack() -> Any:
    """CPython's PyObject_GC_UnTrack, which takes an object out of the cyclic collector's
    lists (a no-op on another Python). For objects that can be part of no cycle only: the
    keys a store hands back (_series.Key._stored), which refer to strings, numbers, enum
    members, a dict of features and shared lookup templates, none of which refers back to a
    key. Left tracked, the 100,000 keys of a bulk add set off full collections, each walking
    every object of the process (about 2 µs a series of the add, docs/benchmarks.md, "Keys
    without a dict"). Reference counting still frees them."""
    try:
        f = ctypes.pythonapi.PyObject_GC_UnTrack
    except AttributeError:
        return lambda obj: None
    f.argtypes, f.restype = [ctypes.py_object], None
    return f


gc_untrack = _gc_untrack()


def _data_pointer_offset() -> int | None:
    """Where a numpy array object holds its data pointer, in CPython: numpy's C API documents
    the array object as a PyObject header followed by ``char *data`` (PyArrayObject_fields,
    read by the PyArray_DATA every compiled extension uses), and CPython's id() is the
    object's address. Checked once here against the array interface; None on another
    Python or layout, where buffer_addresses asks each array its array interface."""
    import platform

    import numpy as np
    if platform.python_implementation() != "CPython":
        return None
    off = object.__basicsize__
    probe = np.arange(3.0)
    return off if ctypes.c_void_p.from_address(id(probe) + off).value == probe.__array_interface__["data"][0] else None


_DATA_OFFSET = _data_pointer_offset()


def buffer_addresses(arrays: list) -> list:
    """The address of the first byte of each numpy array (or other object with an array
    interface), which the caller holds while the addresses are used. An exact ndarray's is
    read from the array object (0.14 µs an array): asking through the buffer protocol
    (ctypes' from_buffer, 0.31 µs) makes numpy cache a description of the buffer on the
    array for as long as it lives, 7 MB over a bulk add of 100,000 arrays that the caller
    keeps (docs/benchmarks.md, "Keys made when asked for")."""
    import numpy as np
    if _DATA_OFFSET is None:
        return [a.__array_interface__["data"][0] for a in arrays]
    pointer, off, ndarray = ctypes.c_void_p.from_address, _DATA_OFFSET, np.ndarray
    # Exact ndarrays only (the adds hand over no other): anything else through its interface.
    return [(pointer(id(a) + off).value or 0) if type(a) is ndarray else a.__array_interface__["data"][0]
            for a in arrays]

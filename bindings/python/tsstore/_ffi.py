"""The one module that talks to the C library: every function of include/tsstore.h declared
once (argument and result types), the library located and loaded, and statuses turned into
exceptions. Nothing else in the package imports ctypes.
"""
from __future__ import annotations

import ctypes
import os
import pathlib
import threading
from ctypes import POINTER, byref, c_char_p, c_double, c_int32, c_int64, c_size_t, c_uint8, c_void_p
from typing import Callable

from . import _errors

#: Short names for the declaration table (P: any pointer or handle, passed as c_void_p).
P, I32, I64, SZ = c_void_p, c_int32, c_int64, c_size_t
STR = c_char_p

#: (name, result type, argument types) of every function in include/tsstore.h, in its order.
#: tests/test_ffi.py compares this table with the header, so a signature drift fails.
DECLARATIONS = [
    ("tsstore_version", I32, []),
    ("tsstore_status_name", STR, [I32]),
    ("tsstore_last_error", I32, [P, SZ, P]),
    ("tsstore_set_log_callback", I32, [P, P]),
    ("tsstore_create", I32, [P, P, P]),
    ("tsstore_open", I32, [P, I32, P]),
    ("tsstore_open_in_memory", I32, [P, P]),
    ("tsstore_close", I32, [P]),
    ("tsstore_flush", I32, [P]),
    ("tsstore_persist", I32, [P, P]),
    ("tsstore_store_last_error", I32, [P, P, SZ, P]),
    ("tsstore_key_new", I32, [I64, I32, I32, P, P, P, P, P]),
    ("tsstore_key_free", None, [P]),
    ("tsstore_key_owner", I32, [P, P, P]),
    ("tsstore_key_series_type", I32, [P, P]),
    ("tsstore_key_name", I32, [P, P, SZ, P]),
    ("tsstore_key_resolution", I32, [P, P, SZ, P]),
    ("tsstore_key_interval", I32, [P, P, SZ, P]),
    ("tsstore_key_features", I32, [P, P, SZ, P]),
    ("tsstore_add_single", I32, [P, I64, P, I32, P, I64, P, I32, P, SZ, P, SZ, P, P, P, P]),
    ("tsstore_add_nonsequential", I32, [P, I64, P, I32, P, P, SZ, I32, P, SZ, P, SZ, P, P, P, P]),
    ("tsstore_add_forecast", I32, [P, I64, P, I32, P, I32, I64, P, P, P, I64, P, SZ, I32, P, SZ, P, SZ, P, P, P, P]),
    ("tsstore_has", I32, [P, P, P]),
    ("tsstore_get", I32, [P, P, P]),
    ("tsstore_get_range", I32, [P, P, I64, I64, P]),
    ("tsstore_get_windows", I32, [P, P, I64, I64, P]),
    ("tsstore_series_free", None, [P]),
    ("tsstore_series_info", I32, [P, P, P, P, P, P]),
    ("tsstore_series_shape", I32, [P, P, SZ, P]),
    ("tsstore_series_data", I32, [P, P, SZ, P]),
    ("tsstore_series_timestamps", I32, [P, P, SZ, P]),
    ("tsstore_series_resolution", I32, [P, P, SZ, P]),
    ("tsstore_series_horizon", I32, [P, P, SZ, P]),
    ("tsstore_series_interval", I32, [P, P, SZ, P]),
    ("tsstore_series_percentiles", I32, [P, P, SZ, P]),
    ("tsstore_remove", I32, [P, P]),
    ("tsstore_list_keys", I32, [P, I32, I64, I32, I32, P, P, P, P]),
    ("tsstore_filter_new", I32, [P]),
    ("tsstore_filter_free", None, [P]),
    ("tsstore_filter_owner", I32, [P, I64, I32]),
    ("tsstore_filter_series_type", I32, [P, I32]),
    ("tsstore_filter_name", I32, [P, P]),
    ("tsstore_filter_name_glob", I32, [P, P]),
    ("tsstore_filter_owner_type", I32, [P, P]),
    ("tsstore_filter_resolution", I32, [P, P]),
    ("tsstore_filter_interval", I32, [P, P]),
    ("tsstore_filter_features", I32, [P, P]),
    ("tsstore_list_keys_where", I32, [P, P, P]),
    ("tsstore_keys_by_hash", I32, [P, P, P]),
    ("tsstore_keys_len", I32, [P, P]),
    ("tsstore_keys_get", I32, [P, SZ, P]),
    ("tsstore_keys_free", None, [P]),
    ("tsstore_begin", I32, [P]),
    ("tsstore_commit", I32, [P]),
    ("tsstore_rollback", I32, [P]),
    ("tsstore_set_write_buffer", I32, [P, I64]),
    ("tsstore_batch_new", I32, [P, P]),
    ("tsstore_batch_add_single", I32, [P, I64, P, I32, P, I64, P, I32, P, SZ, P, SZ, P, P, P]),
    ("tsstore_batch_add_nonsequential", I32, [P, I64, P, I32, P, P, SZ, I32, P, SZ, P, SZ, P, P, P]),
    ("tsstore_batch_add_forecast", I32, [P, I64, P, I32, P, I32, I64, P, P, P, I64, P, SZ, I32, P, SZ, P, SZ, P, P, P]),
    ("tsstore_batch_len", I32, [P, P]),
    ("tsstore_batch_commit", I32, [P, P]),
    ("tsstore_batch_free", None, [P]),
    ("tsstore_transform_single_time_series", I32, [P, P, P, I32, P, P]),
    ("tsstore_get_many", I32, [P, P, SZ, P]),
    ("tsstore_static_reader_new", I32, [P, P, P, SZ, P]),
    ("tsstore_static_reader_grid", I32, [P, P, P]),
    ("tsstore_static_reader_read", I32, [P, I64]),
    ("tsstore_static_reader_read_step", I32, [P, I64]),
    ("tsstore_static_reader_groups", I32, [P, P]),
    ("tsstore_static_reader_group_info", I32, [P, SZ, P, P, P, SZ, P]),
    ("tsstore_static_reader_group_keys", I32, [P, SZ, P, SZ, P]),
    ("tsstore_static_reader_group_values", I32, [P, SZ, P, SZ, P]),
    ("tsstore_static_reader_free", None, [P]),
    ("tsstore_forecast_reader_new", I32, [P, I32, P, P, SZ, P]),
    ("tsstore_forecast_reader_grid", I32, [P, P, P]),
    ("tsstore_forecast_reader_read", I32, [P, I64]),
    ("tsstore_forecast_reader_read_window", I32, [P, I64]),
    ("tsstore_forecast_reader_groups", I32, [P, P]),
    ("tsstore_forecast_reader_group_info", I32, [P, SZ, P, P, P, P, P, SZ, P]),
    ("tsstore_forecast_reader_group_keys", I32, [P, SZ, P, SZ, P]),
    ("tsstore_forecast_reader_group_values", I32, [P, SZ, P, SZ, P]),
    ("tsstore_forecast_reader_free", None, [P]),
    ("tsstore_get_metadata", I32, [P, P, P]),
    ("tsstore_metadata_free", None, [P]),
    ("tsstore_metadata_info", I32, [P, P, P, P, P, P]),
    ("tsstore_metadata_element_shape", I32, [P, P, SZ, P]),
    ("tsstore_metadata_text", I32, [P, I32, P, SZ, P]),
    ("tsstore_metadata_hash", I32, [P, I32, P]),
    ("tsstore_metadata_key", I32, [P, P]),
    ("tsstore_list_distinct", I32, [P, I32, P]),
    ("tsstore_strings_len", I32, [P, P]),
    ("tsstore_strings_get", I32, [P, SZ, P, SZ, P]),
    ("tsstore_strings_free", None, [P]),
    ("tsstore_counts_by_type", I32, [P, P]),
    ("tsstore_count_arrays", I32, [P, P]),
    ("tsstore_count_by_hash", I32, [P, P, P]),
    ("tsstore_get_array", I32, [P, P, P]),
    ("tsstore_forecast_parameters", I32, [P, P, SZ, P]),
    ("tsstore_static_summary", I32, [P, P, SZ, P]),
    ("tsstore_copy_series", I32, [P, P, I64, P, I32, P, P]),
    ("tsstore_rename_series", I32, [P, P, P, P]),
    ("tsstore_replace_owner_id", I32, [P, I32, I64, I64, P]),
    ("tsstore_add_associations", I32, [P, I32, SZ, P, P, P, P]),
    ("tsstore_has_association", I32, [P, I32, I64, I64, P]),
    ("tsstore_list_associations", I32, [P, I32, P, SZ, P, SZ, P, P, P]),
    ("tsstore_remove_associations", I32, [P, I32, P, SZ, P, SZ, P, P, P]),
    ("tsstore_replace_association_id", I32, [P, I32, I64, I64, P]),
    ("tsstore_association_counts", I32, [P, I32, P, P, P]),
    ("tsstore_associations_len", I32, [P, P]),
    ("tsstore_associations_ids", I32, [P, SZ, P, P]),
    ("tsstore_associations_type", I32, [P, SZ, I32, P, SZ, P]),
    ("tsstore_associations_free", None, [P]),
    ("tsstore_compact", I32, [P, P, P, P, P]),
    ("tsstore_verify_integrity", I32, [P, P, P, P, SZ, P]),
    ("tsstore_check_static_consistency", I32, [P, P]),
]


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


lib = _load()
for _name, _restype, _argtypes in DECLARATIONS:
    _fn = getattr(lib, _name)
    _fn.restype = _restype
    _fn.argtypes = _argtypes

#: The library's version, checked against what this binding was written for.
VERSION = lib.tsstore_version()
if VERSION // 100 != 1:
    raise ImportError(f"tsstore: libtsstore version {VERSION} is not the 0.1 this binding expects")


def last_error() -> str:
    """The calling thread's last error message from the library."""
    needed = c_size_t(0)
    lib.tsstore_last_error(None, 0, byref(needed))
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    lib.tsstore_last_error(buf, len(buf), byref(needed))
    return buf.value.decode("utf-8", "replace")


def check(status: int) -> None:
    """Raises the exception of a non-zero status, carrying the library's message."""
    if status != 0:
        raise _errors.error_for(status, last_error())


def call(name: str, *args) -> None:
    """Calls a library function and raises on failure."""
    check(getattr(lib, name)(*args))


def read_string(fn: Callable[..., int], *args) -> str:
    """Runs a (buf, capacity, *needed) call twice: once for the size, once to fill."""
    needed = c_size_t(0)
    check(fn(*args, None, 0, byref(needed)))
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    check(fn(*args, buf, len(buf), byref(needed)))
    return buf.value.decode("utf-8")


def encode(s: str | None) -> bytes | None:
    return None if s is None else s.encode("utf-8")


# Keep-alive for the log callback installed from Python.
_log_lock = threading.Lock()
_log_callback = None
LOG_FN = ctypes.CFUNCTYPE(None, c_char_p, c_void_p)


def set_log_callback(fn: Callable[[str], None] | None) -> None:
    """Installs fn for the library's debug log lines (None uninstalls)."""
    global _log_callback
    with _log_lock:
        cb = None if fn is None else LOG_FN(lambda line, _user: fn(line.decode("utf-8", "replace")))
        check(lib.tsstore_set_log_callback(ctypes.cast(cb, c_void_p) if cb else None, None))
        _log_callback = cb


__all__ = ["lib", "check", "call", "read_string", "encode", "last_error", "DECLARATIONS", "POINTER",
           "byref", "c_char_p", "c_double", "c_int32", "c_int64", "c_size_t", "c_uint8", "c_void_p"]

"""The one module that talks to the C library. Every function of include/tsstore.h is declared
here once, in DECLARATIONS, with a small signature language that says what each C parameter
is for; from it this module builds both the ctypes prototype and a Python wrapper that takes
Python values, returns the outputs and raises on a failure status. The wrappers live on
``api`` under the C name without its ``tsstore_`` prefix (``api.create(path, compression)``
returns the new store handle). Nothing else in the package imports ctypes.

Signature tokens, one per Python argument or result (the C parameters each one stands for):

    h    a handle or other opaque pointer in (int or None)     T *
    s    a string in (str, bytes or None: NULL)                 const char *
    i l z   an int32_t / int64_t / size_t in
    x    a 32-byte hash in (bytes)                              const uint8_t[32]
    L    an int64 list in (sequence or None: NULL, 0)           const int64_t *, size_t
    L0   an int64 list in, its length passed separately         const int64_t *
    D    a float64 list in                                      const double *, size_t
    S0   a list of strings in, its length passed separately     const char *const *
    K    a list of handles in                                   const T *const *, size_t
    A    a numpy array's bytes in (any layout: made contiguous) const void *, size_t
    W    a writable uintp numpy array the call fills, no size   T **
    B    a numpy array the call fills, capacity in bytes, or    void *, size_t, size_t *
         None to ask the size; returns *needed
    E F  the same for an int64 / float64 array, capacity in     int64_t * / double *, size_t,
         elements                                               size_t *
    >h >i >l >z   a handle / int32 / int64 / size_t out         T ** / int32_t * / ...
    >x   a 32-byte hash out (bytes)                             uint8_t[32]
    >7   seven int64 counts out (list)                          int64_t[7]
    >T   a string out (str), sized and filled by this module    char *, size_t, size_t *

tests/test_ffi.py expands every declaration into C parameter types and compares them with
the header, so a signature drift fails there.
"""
from __future__ import annotations

import ctypes
import operator
import os
import pathlib
import threading
import types
from typing import Any, Callable

import numpy as np

from . import _errors

#: status codes the wrappers treat specially (include/tsstore.h)
OK, BUFFER_TOO_SMALL = 0, 10

#: (C name, result, signature). result: "status" (checked), "value" (an int32 returned as
#: is), "text" (a static const char *), "void".
DECLARATIONS: list[tuple[str, str, str]] = [
    ("tsstore_version", "value", ""),
    ("tsstore_status_name", "text", "i"),
    ("tsstore_last_error", "status", ">T"),
    ("tsstore_set_log_callback", "status", "h h"),
    ("tsstore_create", "status", "s s >h"),
    ("tsstore_open", "status", "s i >h"),
    ("tsstore_open_in_memory", "status", "s >h"),
    ("tsstore_close", "status", "h"),
    ("tsstore_flush", "status", "h"),
    ("tsstore_persist", "status", "h s"),
    ("tsstore_store_last_error", "status", "h >T"),
    ("tsstore_store_recovered", "status", "h >T"),
    ("tsstore_key_new", "status", "l i i s s s s >h"),
    ("tsstore_key_free", "void", "h"),
    ("tsstore_key_owner", "status", "h >l >i"),
    ("tsstore_key_series_type", "status", "h >i"),
    ("tsstore_key_name", "status", "h >T"),
    ("tsstore_key_resolution", "status", "h >T"),
    ("tsstore_key_interval", "status", "h >T"),
    ("tsstore_key_features", "status", "h >T"),
    ("tsstore_add_single", "status", "h l s i s l s i L A s s s >h"),
    ("tsstore_add_nonsequential", "status", "h l s i s L i L A s s s >h"),
    ("tsstore_add_forecast", "status", "h l s i s i l s s s l D i L A s s s >h"),
    ("tsstore_has", "status", "h h >i"),
    ("tsstore_get", "status", "h h >h"),
    ("tsstore_get_range", "status", "h h l l >h"),
    ("tsstore_get_windows", "status", "h h l l >h"),
    ("tsstore_series_free", "void", "h"),
    ("tsstore_series_info", "status", "h >i >i >z >l >l"),
    ("tsstore_series_shape", "status", "h E"),
    ("tsstore_series_data", "status", "h B"),
    ("tsstore_series_timestamps", "status", "h E"),
    ("tsstore_series_resolution", "status", "h >T"),
    ("tsstore_series_horizon", "status", "h >T"),
    ("tsstore_series_interval", "status", "h >T"),
    ("tsstore_series_percentiles", "status", "h F"),
    ("tsstore_remove", "status", "h h"),
    ("tsstore_list_keys", "status", "h i l i i s s s >h"),
    ("tsstore_filter_new", "status", ">h"),
    ("tsstore_filter_free", "void", "h"),
    ("tsstore_filter_owner", "status", "h l i"),
    ("tsstore_filter_owner_category", "status", "h i"),
    ("tsstore_filter_series_type", "status", "h i"),
    ("tsstore_filter_name", "status", "h s"),
    ("tsstore_filter_name_glob", "status", "h s"),
    ("tsstore_filter_owner_type", "status", "h s"),
    ("tsstore_filter_resolution", "status", "h s"),
    ("tsstore_filter_interval", "status", "h s"),
    ("tsstore_filter_features", "status", "h s"),
    ("tsstore_list_keys_where", "status", "h h >h"),
    ("tsstore_remove_where", "status", "h h >l"),
    ("tsstore_keys_by_hash", "status", "h x >h"),
    ("tsstore_keys_len", "status", "h >z"),
    ("tsstore_keys_get", "status", "h z >h"),
    ("tsstore_keys_free", "void", "h"),
    ("tsstore_begin", "status", "h"),
    ("tsstore_commit", "status", "h"),
    ("tsstore_rollback", "status", "h"),
    ("tsstore_set_write_buffer", "status", "h l"),
    ("tsstore_set_read_cache", "status", "h l"),
    ("tsstore_batch_new", "status", "h >h"),
    ("tsstore_batch_add_single", "status", "h l s i s l s i L A s s s"),
    ("tsstore_batch_add_nonsequential", "status", "h l s i s L i L A s s s"),
    ("tsstore_batch_add_forecast", "status", "h l s i s i l s s s l D i L A s s s"),
    ("tsstore_batch_len", "status", "h >z"),
    ("tsstore_batch_commit", "status", "h >h"),
    ("tsstore_batch_free", "void", "h"),
    ("tsstore_transform_single_time_series", "status", "h s s i s >l"),
    ("tsstore_get_many", "status", "h K W"),
    ("tsstore_static_reader_new", "status", "h s K >h"),
    ("tsstore_static_reader_grid", "status", "h >l >l"),
    ("tsstore_static_reader_read", "status", "h l"),
    ("tsstore_static_reader_read_step", "status", "h l"),
    ("tsstore_static_reader_groups", "status", "h >z"),
    ("tsstore_static_reader_group_info", "status", "h z >i >z E"),
    ("tsstore_static_reader_group_keys", "status", "h z E"),
    ("tsstore_static_reader_group_values", "status", "h z B"),
    ("tsstore_static_reader_free", "void", "h"),
    ("tsstore_forecast_reader_new", "status", "h i s K >h"),
    ("tsstore_forecast_reader_grid", "status", "h >l >l"),
    ("tsstore_forecast_reader_read", "status", "h l"),
    ("tsstore_forecast_reader_read_window", "status", "h l"),
    ("tsstore_forecast_reader_groups", "status", "h >z"),
    ("tsstore_forecast_reader_group_info", "status", "h z >i >z >l >l E"),
    ("tsstore_forecast_reader_group_keys", "status", "h z E"),
    ("tsstore_forecast_reader_group_values", "status", "h z B"),
    ("tsstore_forecast_reader_free", "void", "h"),
    ("tsstore_get_metadata", "status", "h h >h"),
    ("tsstore_metadata_free", "void", "h"),
    ("tsstore_metadata_info", "status", "h >i >i >l >l >l"),
    ("tsstore_metadata_element_shape", "status", "h E"),
    ("tsstore_metadata_text", "status", "h i >T"),
    ("tsstore_metadata_hash", "status", "h i >x"),
    ("tsstore_metadata_key", "status", "h >h"),
    ("tsstore_list_distinct", "status", "h i >h"),
    ("tsstore_strings_len", "status", "h >z"),
    ("tsstore_strings_get", "status", "h z >T"),
    ("tsstore_strings_free", "void", "h"),
    ("tsstore_counts_by_type", "status", "h >7"),
    ("tsstore_count_arrays", "status", "h >l"),
    ("tsstore_count_by_hash", "status", "h x >7"),
    ("tsstore_get_array", "status", "h x >h"),
    ("tsstore_forecast_parameters", "status", "h >T"),
    ("tsstore_static_summary", "status", "h >T"),
    ("tsstore_copy_series", "status", "h h l s i s >h"),
    ("tsstore_rename_series", "status", "h h s >h"),
    ("tsstore_replace_owner_id", "status", "h i l l >l"),
    ("tsstore_add_associations", "status", "h i z L0 S0 L0 S0"),
    ("tsstore_has_association", "status", "h i l l >i"),
    ("tsstore_list_associations", "status", "h i L L s s >h"),
    ("tsstore_remove_associations", "status", "h i L L s s >l"),
    ("tsstore_replace_association_id", "status", "h i l l >l"),
    ("tsstore_association_counts", "status", "h i >l >l >l"),
    ("tsstore_associations_len", "status", "h >z"),
    ("tsstore_associations_ids", "status", "h z >l >l"),
    ("tsstore_associations_type", "status", "h z i >T"),
    ("tsstore_associations_free", "void", "h"),
    ("tsstore_compact", "status", "h >l >l >l >l"),
    ("tsstore_verify_integrity", "status", "h >l >l >T"),
    ("tsstore_check_static_consistency", "status", "h >i"),
]

P, I32, I64, SZ = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_size_t

#: The ctypes argument types each token stands for.
TOKEN_CTYPES: dict[str, list[Any]] = {
    "h": [P], "s": [ctypes.c_char_p], "i": [I32], "l": [I64], "z": [SZ], "x": [ctypes.c_char_p],
    "L": [P, SZ], "L0": [P], "D": [P, SZ], "S0": [P], "K": [P, SZ], "A": [P, SZ], "W": [P],
    "B": [P, SZ, P], "E": [P, SZ, P], "F": [P, SZ, P],
    ">h": [P], ">i": [P], ">l": [P], ">z": [P], ">x": [P], ">7": [P], ">T": [P, SZ, P],
}
_RESULT_CTYPES = {"status": I32, "value": I32, "text": ctypes.c_char_p, "void": None}
_OUT_SCALARS = {">h": P, ">i": I32, ">l": I64, ">z": SZ}
_TEXT_FIRST_TRY = 256  # bytes: names, periods and most feature sets fit, so most text reads are one call
# Calls that run a whole job to produce their text get room for a long answer at once: asked
# again, they would redo the job (verify_integrity rehashes the whole store).
_TEXT_FIRST_TRY_BY_NAME = {"tsstore_verify_integrity": 1 << 20}
_INT_RANGES = {"i": (-(1 << 31), (1 << 31) - 1, "int32"), "l": (-(1 << 63), (1 << 63) - 1, "int64"),
               "z": (0, (1 << (8 * ctypes.sizeof(SZ))) - 1, "size_t")}


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


_lib = _load()


def last_error() -> str:
    """The calling thread's last error message from the library."""
    fn = _lib.tsstore_last_error
    needed = SZ(0)
    fn(None, 0, ctypes.byref(needed))
    buf = ctypes.create_string_buffer(max(needed.value, 1))
    fn(buf, len(buf), ctypes.byref(needed))
    return buf.value.decode("utf-8", "replace")


def check(status: int) -> None:
    """Raises the exception of a non-zero status, carrying the library's message."""
    if status != OK:
        raise _errors.error_for(status, last_error())


def _encode(value: Any, where: str = "") -> bytes | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = value.encode("utf-8")
    elif not isinstance(value, bytes):
        raise TypeError(f"{where}: a text argument must be str, not {type(value).__name__} ({value!r})")
    if b"\0" in value:
        raise _errors.InvalidParameterError(f"{where}: text {value!r} contains a NUL character", 1)
    return value


def _integer(value: Any, tok: str, where: str) -> int:
    """value as a C integer of the token's type, refused (never wrapped) when out of range."""
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"{where}: an integer argument must be an int, not {type(value).__name__} ({value!r})") from None
    lo, hi, ctype = _INT_RANGES[tok]
    if not lo <= v <= hi:
        raise _errors.InvalidParameterError(f"{where}: {v} does not fit the library's {ctype}", 1)
    return v


def _int64s(values: Any) -> tuple[np.ndarray, int]:
    # A non-NULL pointer even for an empty list: the C filters tell "no list" (NULL) from
    # "an empty list" (matches nothing).
    vals = np.ascontiguousarray(values, dtype=np.int64).ravel()
    return vals if vals.size else np.zeros(1, dtype=np.int64), len(vals)


def _buffer(arr: Any, dtype: Any | None, per_element: bool) -> tuple[int | None, int]:
    if arr is None:
        return None, 0
    if not isinstance(arr, np.ndarray) or not arr.flags.c_contiguous or not arr.flags.writeable:
        raise ValueError("a buffer to fill must be a writable, C-contiguous numpy array")
    if dtype is not None and arr.dtype != dtype:
        raise ValueError(f"a buffer to fill must have dtype {np.dtype(dtype)}, not {arr.dtype}")
    return (arr.ctypes.data if arr.size else None), (arr.size if per_element else arr.nbytes)


_SIMPLE_TOKENS = {"h", "i", "l", "z", "s", ">h", ">i", ">l", ">z", ">T"}
_OUT_NAMES = {">h": "P", ">i": "I32", ">l": "I64", ">z": "SZ"}


def _compile_simple(name: str, result: str, tokens: list[str], fn: Any, first_try: int) -> Callable[..., Any] | None:
    """A wrapper written out as straight-line code for a signature of scalars and strings only
    (most calls: key parts, counts, handles in and out), about half the cost of the general
    one. None for any other signature."""
    if not set(tokens) <= _SIMPLE_TOKENS or tokens.count(">T") > 1:
        return None
    params, body, c_args, rets = [], [], [], []
    for pos, tok in enumerate(tokens):
        where = f"{name} argument {pos + 1}"
        if tok == "h":
            params.append(f"a{pos}")
            c_args.append(f"a{pos}")
        elif tok in _INT_RANGES:
            params.append(f"a{pos}")
            body.append(f"a{pos} = _integer(a{pos}, {tok!r}, {where!r})")
            c_args.append(f"a{pos}")
        elif tok == "s":
            params.append(f"a{pos}")
            body.append(f"a{pos} = _encode(a{pos}, {where!r})")
            c_args.append(f"a{pos}")
        elif tok == ">T":
            c_args += ["b", "cap", "byref(n)"]
            rets.append("b.value.decode('utf-8')")
        else:
            c_args.append(f"byref(o{pos})")
            rets.append(f"o{pos}.value")
    outs = [f"o{pos} = {_OUT_NAMES[tok]}()" for pos, tok in enumerate(tokens) if tok in _OUT_NAMES]
    call = f"st = fn({', '.join(c_args)})"
    lines = [f"def wrapper({', '.join(params)}):"] + ["    " + x for x in body]
    if ">T" in tokens:
        lines += ["    cap = first_try", "    for _ in range(4):", "        b = create_string_buffer(cap)",
                  "        n = SZ(0)"] + ["        " + o for o in outs] + [
                  "        " + call,
                  "        if st != BUFFER_TOO_SMALL:", "            break",
                  "        cap = max(n.value, 1) * 2  # room to spare, should another thread lengthen it"]
    else:
        lines += ["    " + o for o in outs] + ["    " + call]
    if result == "status":
        lines.append("    if st:")
        lines.append("        check(st)")
        lines.append("    return " + ("None" if not rets else rets[0] if len(rets) == 1 else "(" + ", ".join(rets) + ")"))
    elif result == "text":
        lines.append("    return None if st is None else st.decode('utf-8')")
    elif result == "value":
        lines.append("    return st")
    else:
        lines.append("    return None")
    scope = {"fn": fn, "check": check, "_integer": _integer, "_encode": _encode, "P": P, "I32": I32, "I64": I64,
             "SZ": SZ, "byref": ctypes.byref, "create_string_buffer": ctypes.create_string_buffer,
             "BUFFER_TOO_SMALL": BUFFER_TOO_SMALL, "first_try": first_try}
    exec("\n".join(lines), scope)  # noqa: S102 - the source is built above from the fixed table
    return scope["wrapper"]


def _bind(name: str, result: str, signature: str) -> Callable[..., Any]:
    """The Python wrapper of one C function (see the module docstring for the tokens)."""
    fn = getattr(_lib, name)
    tokens = signature.split()
    fn.argtypes = [t for tok in tokens for t in TOKEN_CTYPES[tok]]
    fn.restype = _RESULT_CTYPES[result]
    fast = _compile_simple(name, result, tokens, fn, _TEXT_FIRST_TRY_BY_NAME.get(name, _TEXT_FIRST_TRY))
    if fast is not None:
        fast.__name__ = fast.__qualname__ = name[len("tsstore_"):]
        fast.__doc__ = f"{name}({signature}) -> {result}; see include/tsstore.h."
        return fast
    text_at = tokens.index(">T") if ">T" in tokens else -1
    first_try = _TEXT_FIRST_TRY_BY_NAME.get(name, _TEXT_FIRST_TRY)

    def marshal(args: tuple, text_capacity: int) -> tuple[list[Any], list[Any], list[Any]]:
        c_args: list[Any] = []
        outs: list[Any] = []
        keep: list[Any] = []  # Python objects whose memory the call reads
        it = iter(args)
        for pos, tok in enumerate(tokens):
            where = f"{name} argument {pos + 1}"
            if tok == "h":
                c_args.append(next(it))
            elif tok in _INT_RANGES:
                c_args.append(_integer(next(it), tok, where))
            elif tok == "s":
                c_args.append(_encode(next(it), where))
            elif tok == "x":
                v = next(it)
                if not isinstance(v, bytes) or len(v) != 32:
                    raise ValueError(f"{name}: a hash is 32 bytes, not {v!r}")
                c_args.append(v)
            elif tok in ("L", "L0", "D"):
                v = next(it)
                if v is None:
                    c_args += [None, 0] if tok != "L0" else [None]
                    continue
                if tok == "D":
                    arr = np.ascontiguousarray(v, dtype=np.float64).ravel()
                    n = len(arr)
                    arr = arr if n else np.zeros(1)
                else:
                    arr, n = _int64s(v)
                keep.append(arr)
                c_args += [arr.ctypes.data, n] if tok != "L0" else [arr.ctypes.data]
            elif tok == "S0":
                strs = [_encode(s, where) for s in next(it)]
                c_strs = (ctypes.c_char_p * max(len(strs), 1))(*strs)
                keep.append(c_strs)
                c_args.append(ctypes.cast(c_strs, P))
            elif tok == "K":
                hs = list(next(it))
                c_hs = (P * max(len(hs), 1))(*hs)
                keep.append(c_hs)
                c_args += [ctypes.cast(c_hs, P), len(hs)]
            elif tok == "A":
                arr = next(it)
                arr = np.ascontiguousarray(arr)
                keep.append(arr)
                c_args += [arr.ctypes.data if arr.nbytes else None, arr.nbytes]
            elif tok == "W":
                arr = next(it)
                if not isinstance(arr, np.ndarray) or arr.dtype != np.uintp or not arr.flags.c_contiguous:
                    raise ValueError(f"{name}: the output array must be a contiguous uintp numpy array")
                c_args.append(arr.ctypes.data)
            elif tok in ("B", "E", "F"):
                ptr, cap = _buffer(next(it), {"B": None, "E": np.int64, "F": np.float64}[tok], tok != "B")
                needed = SZ(0)
                outs.append(needed)
                c_args += [ptr, cap, ctypes.byref(needed)]
            elif tok in _OUT_SCALARS:
                scalar = _OUT_SCALARS[tok]()
                outs.append(scalar)
                c_args.append(ctypes.byref(scalar))
            elif tok in (">x", ">7"):
                block: Any = (ctypes.c_uint8 * 32)() if tok == ">x" else (I64 * 7)()
                outs.append(block)
                c_args.append(ctypes.cast(block, P))
            elif tok == ">T":
                buf = ctypes.create_string_buffer(text_capacity)
                needed = SZ(0)
                outs.append(buf)
                c_args += [buf, text_capacity, ctypes.byref(needed)]
                outs.append(needed)
        return c_args, outs, keep

    def results(outs: list[Any]) -> Any:
        values = []
        it = iter(outs)
        for tok in tokens:
            if tok in _OUT_SCALARS or tok in ("B", "E", "F"):
                values.append(next(it).value)
            elif tok == ">x":
                values.append(bytes(next(it)))
            elif tok == ">7":
                values.append(list(next(it)))
            elif tok == ">T":
                buf = next(it)
                next(it)
                values.append(buf.value.decode("utf-8"))
        if not values:
            return None
        return values[0] if len(values) == 1 else tuple(values)

    def wrapper(*args: Any) -> Any:
        c_args, outs, keep = marshal(args, first_try)
        status = fn(*c_args)
        if result != "status":
            return status.decode("utf-8") if result == "text" and status is not None else status
        for _ in range(3):
            if status != BUFFER_TOO_SMALL or text_at < 0:
                break
            # The string was longer than the buffer: ask again with room for it (and some to
            # spare, should another thread lengthen it in between, as a store's last error can).
            needed = [o for o in outs if isinstance(o, SZ)][-1].value
            c_args, outs, keep = marshal(args, max(needed, 1) * 2)
            status = fn(*c_args)
        del keep
        check(status)
        return results(outs)

    wrapper.__name__ = name[len("tsstore_"):]
    wrapper.__qualname__ = wrapper.__name__
    wrapper.__doc__ = f"{name}({signature}) -> {result}; see include/tsstore.h."
    return wrapper


#: The wrapper of every C function, under its C name without the prefix.
api = types.SimpleNamespace(**{name[len("tsstore_"):]: _bind(name, result, sig) for name, result, sig in DECLARATIONS})

#: The library's version, checked against what this binding was written for.
VERSION: int = api.version()
if VERSION // 100 != 1:
    raise ImportError(f"tsstore: libtsstore version {VERSION} is not the 0.1 this binding expects")


def null_handles(n: int) -> np.ndarray:
    """An array of n NULL handles for a call (W) to fill."""
    return np.zeros(max(n, 1), dtype=np.uintp)


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
        api.set_log_callback(ctypes.cast(cb, P).value if cb else None, None)


__all__ = ["api", "check", "last_error", "null_handles", "set_log_callback", "DECLARATIONS", "TOKEN_CTYPES",
           "VERSION", "OK", "BUFFER_TOO_SMALL"]

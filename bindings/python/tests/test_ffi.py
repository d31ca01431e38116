"""The bound library matches include/tsstore.h (the raw layer is generated from it; its
layout and the generator's output are checked in test_raw_layout.py and by
scripts/gen-bindings --check): every function is bound, the package's other modules never
import ctypes, and a failure raises the class of its status with the thread's message."""
import pathlib
import platform
import re

import numpy as np
import pytest

import tsstore
from tsstore import _ffi

HEADER = pathlib.Path(__file__).resolve().parents[3] / "include" / "tsstore.h"


def header_functions() -> set[str]:
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    return set(re.findall(r"TSSTORE_API\s+[^;(]*?\b(tsstore_[a-z0-9_]+)\s*\(", text))


def test_every_header_function_is_bound():
    names = header_functions()
    assert len(names) > 70
    for name in names:
        assert callable(getattr(_ffi.lib, name)), name


def test_only_the_ffi_modules_import_ctypes():
    package = pathlib.Path(_ffi.__file__).parent
    for module in package.glob("*.py"):
        if module.name not in ("_ffi.py", "_raw.py"):
            assert not re.search(r"^\s*(import ctypes|from ctypes)", module.read_text(), re.M), module.name


def test_library_version_matches_header():
    text = HEADER.read_text()
    major = int(re.search(r"TSSTORE_VERSION_MAJOR (\d+)", text).group(1))
    minor = int(re.search(r"TSSTORE_VERSION_MINOR (\d+)", text).group(1))
    assert _ffi.VERSION // 100 == major * 100 + minor
    assert tsstore.__version__.startswith(f"{major}.{minor}.")


def test_a_failure_raises_its_class_with_the_thread_message():
    with pytest.raises(tsstore.InvalidHandleError, match="handle"):
        _ffi.check(_ffi.lib.tsstore_flush(987654321))
    assert "handle" in _ffi.last_error()
    name = _ffi.lib.tsstore_status_name(2)
    assert (name if isinstance(name, bytes) else _ffi.string_at(name)) == b"TSSTORE_E_NOT_FOUND"


def test_a_buffer_too_small_is_its_own_status_and_writes_nothing(tmp_path):
    path = str(tmp_path / "s.nc")
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(tsstore.SingleTimeSeries("p", np.datetime64("2024-01-01"), "PT1H", np.arange(24.0)),
                              owner_id=1, owner_type="G")
        buf = np.full(10, 7, dtype=np.uint8)
        info = _ffi.raw.tsstore_series_info()
        info.struct_size = _ffi.sizeof(info)
        st = _ffi.lib.tsstore_get(s._handle(), _ffi.byref(k.lookup()), buf.ctypes.data, 9, _ffi.byref(info))
        assert st == _ffi.raw.TSSTORE_E_BUFFER_TOO_SMALL
        assert info.nbytes == 24 * 8 and (buf == 7).all()
        with pytest.raises(tsstore.BufferTooSmallError, match="192"):
            _ffi.check(st)


def test_unchecked_calls_refuse_what_ctypes_would_convert():
    """_ffi.fast passes its arguments unconverted: a Python int for a size_t would go as a C
    int. verify_unchecked (on for every test, conftest.py) names the argument instead."""
    from ctypes import byref, c_size_t, c_uint8, c_void_p
    info = tsstore._cstructs.new_info()
    buf = (c_uint8 * 8)()
    assert _ffi.unchecked_mistake("tsstore_get", (c_void_p(1), byref(info), buf, c_size_t(8), byref(info))) is None
    assert f"argument 3 is int, declared {c_size_t.__name__}" in _ffi.unchecked_mistake(
        "tsstore_get", (c_void_p(1), byref(info), buf, 8, byref(info)))
    assert "argument 0 is int" in _ffi.unchecked_mistake("tsstore_get", (1, byref(info), buf, c_size_t(8), byref(info)))
    assert "2 arguments" in _ffi.unchecked_mistake("tsstore_get", (c_void_p(1), None))
    with pytest.raises(TypeError, match="unchecked call: tsstore_get: argument 3"):
        _ffi.fast.tsstore_get(c_void_p(1), byref(info), buf, 8, byref(info))


def test_get_time_series_shows_its_keywords():
    """The plain calls are answered before the keywords are bound, and help() still shows them."""
    import inspect
    params = inspect.signature(tsstore.Store.get_time_series).parameters
    assert {"time_series_type", "resolution", "start", "stop", "length", "count", "features"} <= set(params)
    assert "named infrasys style or by a Key" in tsstore.Store.get_time_series.__doc__


def test_buffer_addresses_are_where_numpy_keeps_the_data():
    # Read from the array object (_ffi._DATA_OFFSET) for exact ndarrays, through the array
    # interface for a subclass: the address numpy gives, for views and read-only arrays too.
    base = np.arange(40.0)
    read_only = np.arange(5, dtype=np.int32)
    read_only.flags.writeable = False

    class Sub(np.ndarray):
        pass

    if platform.python_implementation() == "CPython":
        assert _ffi._DATA_OFFSET is not None  # the fast path is the one checked
    arrays = [base, base[3:], base[::1].reshape(8, 5)[2], read_only, np.arange(6.0).view(Sub), np.zeros(1, np.int8)]
    assert _ffi.buffer_addresses(arrays) == [a.__array_interface__["data"][0] for a in arrays]

"""The FFI table matches include/tsstore.h: every function, once, each signature token standing
for C parameters of exactly the types the header gives — so a signature drift in the header
(or a wrong token here) fails this test."""
import pathlib
import re

import numpy as np
import pytest

from tsstore import _ffi

HEADER = pathlib.Path(__file__).resolve().parents[3] / "include" / "tsstore.h"

HANDLE = r"(const )?tsstore_[a-z_]+\*"
#: The C parameter types (normalised: no names, no spaces around '*', arrays as '*') each
#: token stands for, as regular expressions.
TOKEN_TYPES = {
    "h": [rf"{HANDLE}|void\*|tsstore_log_fn"], "s": [r"const char\*"], "i": ["int32_t"], "l": ["int64_t"],
    "z": ["size_t"], "x": [r"const uint8_t\*"], "L": [r"const int64_t\*", "size_t"], "L0": [r"const int64_t\*"],
    "D": [r"const double\*", "size_t"], "S0": [r"const char\*const\*"], "K": [r"const tsstore_key\*const\*", "size_t"],
    "A": [r"const void\*", "size_t"], "W": [r"tsstore_[a-z_]+\*\*"], "B": [r"void\*", "size_t", r"size_t\*"],
    "E": [r"int64_t\*", "size_t", r"size_t\*"], "F": [r"double\*", "size_t", r"size_t\*"],
    ">h": [r"tsstore_[a-z_]+\*\*"], ">i": [r"int32_t\*"], ">l": [r"int64_t\*"], ">z": [r"size_t\*"],
    ">x": [r"uint8_t\*"], ">7": [r"int64_t\*"], ">T": [r"char\*", "size_t", r"size_t\*"],
}
RESULTS = {"status": "int32_t", "value": "int32_t", "text": "const char *", "void": "void"}


def normalise(param: str) -> str:
    m = re.match(r"^(.*?)\b([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\d*\s*\])?$", param.strip())
    ctype = m.group(1) + ("*" if m.group(3) else "")
    ctype = re.sub(r"\s*\*\s*", "*", " ".join(ctype.split()))
    return ctype.strip()


def header_decls():
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    out = {}
    for ret, name, params in re.findall(r"TSSTORE_API\s+([^;(]*?)\b(tsstore_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", text, re.S):
        types = [normalise(p) for p in params.split(",") if p.strip() not in ("", "void")]
        out[name] = (" ".join(ret.split()), types)
    return out


def test_every_function_declared_once_with_its_signature():
    header = header_decls()
    names = [d[0] for d in _ffi.DECLARATIONS]
    assert len(set(names)) == len(names), "a function is declared twice"
    assert set(names) == set(header)
    for name, result, signature in _ffi.DECLARATIONS:
        ret, params = header[name]
        assert ret == RESULTS[result], name
        expected = [pattern for tok in signature.split() for pattern in TOKEN_TYPES[tok]]
        assert len(expected) == len(params), f"{name}: {len(params)} C parameters, the tokens stand for {len(expected)}"
        for i, (pattern, ctype) in enumerate(zip(expected, params)):
            assert re.fullmatch(pattern, ctype), f"{name} parameter {i}: header has {ctype!r}, token wants {pattern}"


def test_every_function_has_a_wrapper_and_only_ffi_imports_ctypes():
    for name, _, _ in _ffi.DECLARATIONS:
        assert callable(getattr(_ffi.api, name[len("tsstore_"):]))
    package = pathlib.Path(_ffi.__file__).parent
    for module in package.glob("*.py"):
        if module.name != "_ffi.py":
            assert "ctypes" not in module.read_text(), f"{module.name} uses ctypes"


def test_library_version_matches_header():
    text = HEADER.read_text()
    major = int(re.search(r"TSSTORE_VERSION_MAJOR (\d+)", text).group(1))
    minor = int(re.search(r"TSSTORE_VERSION_MINOR (\d+)", text).group(1))
    assert _ffi.VERSION // 100 == major * 100 + minor


def test_wrappers_raise_with_the_library_message_and_name_statuses():
    with pytest.raises(_ffi._errors.InvalidHandleError, match="handle"):
        _ffi.api.flush(987654321)
    assert _ffi.api.status_name(2) == "TSSTORE_E_NOT_FOUND"
    assert "handle" in _ffi.last_error()


def test_buffers_are_checked_before_the_call():
    with pytest.raises(ValueError, match="dtype int64"):
        _ffi.api.series_shape(1, np.zeros(3, dtype=np.int32))
    with pytest.raises(ValueError, match="C-contiguous"):
        _ffi.api.series_data(1, np.zeros((4, 4))[:, 1])
    with pytest.raises(ValueError, match="32 bytes"):
        _ffi.api.get_array(1, b"short")

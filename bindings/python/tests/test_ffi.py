"""The FFI table matches include/tsstore.h: every function, once, with the right arity and
argument classes — so a signature drift in the header fails here."""
import pathlib
import re

from tsstore import _ffi

HEADER = pathlib.Path(__file__).resolve().parents[3] / "include" / "tsstore.h"


def header_decls():
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    out = {}
    for ret, name, params in re.findall(r"TSSTORE_API\s+([^;(]*?)\b(tsstore_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", text, re.S):
        classes = []
        for p in params.split(","):
            p = p.strip()
            if p in ("", "void"):
                continue
            m = re.match(r"^(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\d*\s*\])?$", p)
            t = " ".join((m.group(1) + ("*" if m.group(3) else "")).replace("const", "").split())
            classes.append("P" if "*" in t or t == "tsstore_log_fn" else {"int64_t": "I64", "int32_t": "I32", "size_t": "SZ"}[t])
        out[name] = (ret.strip(), classes)
    return out


def cls(ctype):
    return {_ffi.P: "P", _ffi.I32: "I32", _ffi.I64: "I64", _ffi.SZ: "SZ"}[ctype]


def test_every_function_declared_once_with_its_signature():
    header = header_decls()
    table = {name: (res, [cls(a) for a in args]) for name, res, args in _ffi.DECLARATIONS}
    assert len(table) == len(_ffi.DECLARATIONS), "a function is declared twice"
    assert set(table) == set(header)
    for name, (ret, params) in header.items():
        assert table[name][1] == params, name
        want = {"void": None, "int32_t": _ffi.I32, "const char *": _ffi.STR}[ret]
        assert table[name][0] is want, name


def test_library_version_matches_header():
    text = HEADER.read_text()
    major = int(re.search(r"TSSTORE_VERSION_MAJOR (\d+)", text).group(1))
    minor = int(re.search(r"TSSTORE_VERSION_MINOR (\d+)", text).group(1))
    assert _ffi.VERSION // 100 == major * 100 + minor

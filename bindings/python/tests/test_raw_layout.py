"""The generated raw layers have the header's exact ABI, checked against the C compiler.

scripts/gen-bindings --layout-c emits a C program over include/tsstore.h that statically
asserts every signature and field type the generator parsed (so the parse is the header),
then prints every constant, struct size and alignment, field offset and size, argument and
result size and kind, and the bytes of every _INIT macro. It is compiled with the system C
compiler ($CC, else cc) and its output compared with:

  - bindings/python/tsstore/_raw.py, loaded by path (no library needed): ctypes sizes,
    alignments, offsets, argtypes and restypes, constants, the TSSTORE_*_INIT() functions;
  - bindings/julia/src/LibTsStore.jl, read as text (no Julia needed): the layout Julia gives
    each isbits struct (C's rules: each field at its alignment, the struct padded to its
    largest), computed here from the field types the file declares; each ccall's argument
    and result types; the constants; and the defaults of the keyword constructors, evaluated
    and laid out as bytes.

Runs under pytest (python_binding in ctest) and as a script (bindings_layout in ctest, label
abi): `python3 bindings/python/tests/test_raw_layout.py`.
"""
from __future__ import annotations

import ctypes
import functools
import importlib.util
import os
import pathlib
import re
import shutil
import struct as pystruct
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[3]
GEN = ROOT / "scripts" / "gen-bindings"
RAW = ROOT / "bindings" / "python" / "tsstore" / "_raw.py"
JL = ROOT / "bindings" / "julia" / "src" / "LibTsStore.jl"


class Skip(Exception):
    pass


def skip(why: str) -> None:
    try:
        import pytest
    except ImportError:
        raise Skip(why)
    pytest.skip(why)


# ---- the C side ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def c_facts() -> dict:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        skip("no C compiler (cc, gcc or $CC)")
    prog = subprocess.run([sys.executable, str(GEN), "--layout-c"], check=True, capture_output=True, text=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = pathlib.Path(tmp) / "layout.c", pathlib.Path(tmp) / "layout"
        src.write_text(prog)
        r = subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "include"), str(src),
                            "-o", str(exe)], capture_output=True, text=True)
        assert r.returncode == 0, "the layout program does not compile against the header:\n" + r.stderr
        out = subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout
    facts: dict = {"const": {}, "struct": {}, "field": {}, "func": {}, "arg": {}, "init": {}}
    for line in out.splitlines():
        kind, rest = line.split(" ", 1)
        if kind == "const":
            name, typ, value = rest.split(" ", 2)
            facts["const"][name] = int(value) if typ == "int" else value
        elif kind == "struct":
            name, size, align = rest.split()
            facts["struct"][name] = (int(size), int(align))
            facts["field"][name] = []
        elif kind == "field":
            s, f, off, size = rest.split()
            facts["field"][s].append((f, int(off), int(size)))
        elif kind == "func":
            name, n = rest.split()
            facts["func"][name] = int(n)
        elif kind == "arg":
            fn, i, k, size, signed = rest.split()
            facts["arg"][(fn, int(i))] = (k, int(size), bool(int(signed)))
        elif kind == "init":
            name, hexbytes = rest.split()
            facts["init"][name] = bytes.fromhex(hexbytes)
        else:
            raise AssertionError(f"unexpected line {line!r}")
    assert facts["struct"] and facts["func"], "the layout program printed nothing"
    return facts


# ---- Python ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def raw():
    spec = importlib.util.spec_from_file_location("tsstore_raw_under_test", RAW)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def py_kind(t) -> tuple[str, int, bool]:
    if t is None:
        return ("void", 0, False)
    if t in (ctypes.c_void_p, ctypes.c_char_p) or (isinstance(t, type) and issubclass(t, ctypes._Pointer)):
        return ("ptr", ctypes.sizeof(t), False)
    if isinstance(t, type) and issubclass(t, ctypes.Structure):
        return ("struct", ctypes.sizeof(t), False)
    if t in (ctypes.c_double, ctypes.c_float):
        return ("float", ctypes.sizeof(t), True)
    return ("int", ctypes.sizeof(t), t(-1).value < 0)


def test_python_constants():
    c = c_facts()["const"]
    r = raw()
    for name, value in c.items():
        assert getattr(r, name) == value, name
    mine = {n for n in dir(r) if n.startswith("TSSTORE_") and not n.endswith("_INIT")}
    assert mine == set(c), mine ^ set(c)


def test_python_struct_layout():
    facts, r = c_facts(), raw()
    assert [s.__name__ for s in r.STRUCTS] == list(facts["struct"])
    for s in r.STRUCTS:
        size, align = facts["struct"][s.__name__]
        assert (ctypes.sizeof(s), ctypes.alignment(s)) == (size, align), s.__name__
        got = [(name, getattr(s, name).offset, getattr(s, name).size) for name, *_ in s._fields_]
        assert got == facts["field"][s.__name__], s.__name__


def test_python_signatures():
    facts, r = c_facts(), raw()
    assert list(r.SIGNATURES) == list(facts["func"])
    for name, (restype, argtypes) in r.SIGNATURES.items():
        assert len(argtypes) == facts["func"][name], name
        for i, t in [(-1, restype)] + list(enumerate(argtypes)):
            k, size, signed = facts["arg"][(name, i)]
            pk = py_kind(t)
            assert pk[:2] == (k, size), f"{name} argument {i}: C {k} of {size} bytes, ctypes {t}"
            if k == "int":
                assert pk[2] == signed, f"{name} argument {i}: signedness"


def test_python_initialisers_are_the_macros():
    facts, r = c_facts(), raw()
    assert facts["init"], "no _INIT macros seen"
    for s in r.STRUCTS:
        macro = s.__name__.upper() + "_INIT"
        if macro in facts["init"]:
            assert bytes(getattr(r, macro)()) == facts["init"][macro], macro
        else:
            assert not hasattr(r, macro), macro


def test_bind_sets_every_function():
    r = raw()

    class Fn:
        restype = argtypes = None

    class Lib:
        _name = "fake"

        def __init__(self) -> None:
            self.made: dict = {}

        def __getattr__(self, name: str):
            return self.made.setdefault(name, Fn())

    lib = Lib()
    ns = r.bind(lib)
    for name, (restype, argtypes) in r.SIGNATURES.items():
        f = getattr(ns, name)
        assert f.restype is restype and tuple(f.argtypes) == tuple(argtypes), name


# ---- Julia -----------------------------------------------------------------------------------

JL_PRIMITIVES = {
    "Int8": (1, True), "UInt8": (1, False), "Cchar": (1, True), "Bool": (1, False),
    "Int16": (2, True), "UInt16": (2, False), "Int32": (4, True), "UInt32": (4, False), "Cint": (4, True),
    "Int64": (8, True), "UInt64": (8, False), "Csize_t": (8, False), "Int": (8, True), "UInt": (8, False),
}
JL_FLOATS = {"Cfloat": 4, "Float32": 4, "Cdouble": 8, "Float64": 8}


@functools.lru_cache(maxsize=None)
def jl_source() -> str:
    return JL.read_text()


@functools.lru_cache(maxsize=None)
def jl_structs() -> dict[str, list[tuple[str, str]]]:
    """name → [(field, Julia type)], in file order."""
    out = {}
    for m in re.finditer(r"^struct (\w+)\n(.*?)^end$", jl_source(), re.S | re.M):
        fields = []
        for line in m.group(2).splitlines():
            fm = re.match(r"\s+(\w+)::(\S+)", line)
            assert fm, f"struct {m.group(1)}: cannot read {line!r}"
            fields.append((fm.group(1), fm.group(2)))
        out[m.group(1)] = fields
    return out


@functools.lru_cache(maxsize=None)
def jl_aliases() -> dict[str, str]:
    return dict(re.findall(r"^const (\w+) = (Ptr\{\w+\})$", jl_source(), re.M))


def jl_handles() -> set[str]:
    return set(re.findall(r"^mutable struct (\w+) end", jl_source(), re.M))


def split_top(s: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in s:
        depth += ch in "({[" 
        depth -= ch in ")}]"
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


def jl_layout(t: str) -> tuple[int, int]:
    """(size, alignment) of a Julia field type under Julia's (= C's) isbits layout."""
    t = jl_aliases().get(t, t)
    if t in JL_PRIMITIVES:
        return JL_PRIMITIVES[t][0], JL_PRIMITIVES[t][0]
    if t in JL_FLOATS:
        return JL_FLOATS[t], JL_FLOATS[t]
    if re.fullmatch(r"Ptr\{.*\}|Cstring", t):
        return 8, 8
    m = re.fullmatch(r"NTuple\{(\d+),(.*)\}", t)
    if m:
        size, align = jl_layout(m.group(2))
        return int(m.group(1)) * size, align
    if t in jl_structs():
        return struct_layout(t)[:2]
    raise AssertionError(f"no layout for Julia type {t}")


def struct_layout(name: str) -> tuple[int, int, list[tuple[str, int, int]]]:
    off, align, fields = 0, 1, []
    for fname, ftype in jl_structs()[name]:
        size, a = jl_layout(ftype)
        off = (off + a - 1) // a * a
        fields.append((fname, off, size))
        off += size
        align = max(align, a)
    return (off + align - 1) // align * align, align, fields


def jl_kind(t: str) -> tuple[str, int, bool]:
    t = jl_aliases().get(t, t)
    if t == "Cvoid":
        return ("void", 0, False)
    if re.fullmatch(r"Ptr\{(.*)\}|Cstring", t):
        inner = t[4:-1] if t.startswith("Ptr") else "Cchar"
        inner = re.sub(r"^(Ptr\{)+|\}+$", "", inner)
        assert inner in JL_PRIMITIVES or inner in JL_FLOATS or inner in jl_structs() or inner in jl_handles() \
            or inner in jl_aliases() or inner == "Cvoid", f"Ptr to unknown type {inner}"
        return ("ptr", 8, False)
    if t in JL_FLOATS:
        return ("float", JL_FLOATS[t], True)
    if t in JL_PRIMITIVES:
        return ("int", *JL_PRIMITIVES[t])
    if t in jl_structs():
        return ("struct", struct_layout(t)[0], False)
    raise AssertionError(f"unknown ccall type {t}")


@functools.lru_cache(maxsize=None)
def jl_ccalls() -> dict[str, tuple[str, list[str], list[str], list[str]]]:
    """name → (result type, argument types, the wrapper's parameters, the values passed)."""
    out = {}
    pat = re.compile(r"^(\w+)\((.*?)\) =\n    ccall\(SYMBOLS\.(\w+)\[\], (.*)\)$", re.M)
    for m in pat.finditer(jl_source()):
        wrapper, params, target, rest = m.groups()
        assert wrapper == target, f"{wrapper} calls {target}"
        parts = split_top(rest)
        tup = parts[1]
        assert tup.startswith("(") and tup.endswith(")"), tup
        out[wrapper] = (parts[0], split_top(tup[1:-1]), split_top(params), parts[2:])
    return out


def test_julia_constants():
    c = c_facts()["const"]
    got = {}
    for name, value in re.findall(r"^const (TSSTORE_\w+) = (.*?)(?:  #.*)?$", jl_source(), re.M):
        m = re.fullmatch(r"Int(32|64)\((-?\d+)\)", value)
        if m:
            v = int(m.group(2))
            assert m.group(1) == "32" or not -2**31 <= v < 2**31, name
            got[name] = v
        else:
            assert re.fullmatch(r'"[^"\\$]*"', value), f"{name} = {value}"
            got[name] = value[1:-1]
    assert got == c


def test_julia_struct_layout():
    facts = c_facts()
    assert list(jl_structs()) == list(facts["struct"])
    for name in jl_structs():
        size, align, fields = struct_layout(name)
        assert (size, align) == facts["struct"][name], name
        assert fields == facts["field"][name], name


def test_julia_signatures():
    facts = c_facts()
    calls = jl_ccalls()
    assert list(calls) == list(facts["func"]), "one wrapper per header function, in header order"
    symbols = re.search(r"^const SYMBOLS = \(\n(.*?)^\)", jl_source(), re.S | re.M).group(1)
    assert re.findall(r"^    (\w+) = Ref\{Ptr\{Cvoid\}\}\(C_NULL\),$", symbols, re.M) == list(facts["func"])
    for name, (ret, types, params, passed) in calls.items():
        n = facts["func"][name]
        assert len(types) == len(params) == len(passed) == n, name
        assert params == passed, f"{name} passes {passed} for its parameters {params}"
        for i, t in [(-1, ret)] + list(enumerate(types)):
            k, size, signed = facts["arg"][(name, i)]
            jk = jl_kind(t)
            assert jk[:2] == (k, size), f"{name} argument {i}: C {k} of {size} bytes, Julia {t}"
            if k == "int":
                assert jk[2] == signed, f"{name} argument {i}: signedness"


# The keyword constructors' defaults, evaluated: integers, constants, sizeof(T), C_NULL,
# zero(T), ntuple(_ -> v, n) or ntuple(_ -> v, Val(n)), and nested constructors, positional
# or keyword.

def jl_eval(expr: str, consts: dict):
    expr = expr.strip()
    if re.fullmatch(r"-?\d+", expr):
        return int(expr)
    if expr == "C_NULL":
        return 0
    if expr in consts:
        return consts[expr]
    m = re.fullmatch(r"sizeof\((\w+)\)", expr)
    if m:
        return struct_layout(m.group(1))[0]
    if re.fullmatch(r"zero\(\w+\)", expr):
        return 0
    m = re.fullmatch(r"ntuple\(_ -> (.*), (?:Val\((\d+)\)|(\d+))\)", expr)
    if m:
        return [jl_eval(m.group(1), consts)] * int(m.group(2) or m.group(3))
    m = re.fullmatch(r"(\w+)\((.*)\)", expr)
    if m and m.group(1) in jl_structs():
        return jl_construct(m.group(1), m.group(2), consts)
    raise AssertionError(f"cannot evaluate the Julia default {expr!r}")


@functools.lru_cache(maxsize=None)
def jl_kwdefaults() -> dict[str, str]:
    return dict(re.findall(r"^(\w+)\(; (.*)\) =$", jl_source(), re.M))


def jl_construct(name: str, args: str, consts: dict) -> dict:
    fields = [f for f, _ in jl_structs()[name]]
    defaults = {}
    for kv in split_top(jl_kwdefaults()[name]):
        k, v = kv.split(" = ", 1)
        defaults[k] = v
    assert list(defaults) == fields, f"{name}(; ...) names {list(defaults)}, the struct {fields}"
    values = dict(defaults)
    parts = split_top(args)
    if parts and all(" = " not in p for p in parts):  # positional: every field
        assert len(parts) == len(fields), f"{name}({args})"
        values = dict(zip(fields, parts))
    else:
        for kv in parts:
            k, v = kv.split(" = ", 1)
            assert k in values, f"{name} has no field {k}"
            values[k] = v
    return {f: jl_eval(values[f], consts) for f in fields}


def jl_pack(t: str, value) -> bytes:
    t = jl_aliases().get(t, t)
    size, _ = jl_layout(t)
    m = re.fullmatch(r"NTuple\{(\d+),(.*)\}", t)
    if m:
        return b"".join(jl_pack(m.group(2), v) for v in value)
    if t in jl_structs():
        out = bytearray(size)
        _, _, layout = struct_layout(t)
        for (fname, ftype), (_, off, fsize) in zip(jl_structs()[t], layout):
            out[off:off + fsize] = jl_pack(ftype, value[fname])
        return bytes(out)
    if t in JL_FLOATS:
        return pystruct.pack("<d" if size == 8 else "<f", value)
    signed = JL_PRIMITIVES.get(t, (8, False))[1]
    return int(value).to_bytes(size, "little", signed=signed)


def test_julia_keyword_constructors_are_the_macros():
    facts = c_facts()
    consts = {k: v for k, v in facts["const"].items() if isinstance(v, int)}
    assert set(jl_kwdefaults()) == set(jl_structs()), "every struct has a keyword constructor"
    for name in jl_structs():
        macro = name.upper() + "_INIT"
        value = jl_construct(name, "", consts)
        if macro in facts["init"]:
            assert jl_pack(name, value) == facts["init"][macro], macro
        else:
            assert set(jl_pack(name, value)) <= {0}, f"{name}() without an _INIT is all zeros"


# ---- the generated files are current -----------------------------------------------------------

def test_generated_files_are_current():
    r = subprocess.run([sys.executable, str(GEN), "--check"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr


def main() -> int:
    tests = [(n, f) for n, f in sorted(globals().items()) if n.startswith("test_") and callable(f)]
    failed = 0
    for name, fn in tests:
        try:
            fn()
            print(f"ok      {name}")
        except Skip as e:
            print(f"skipped {name}: {e}")
            return 77
        except AssertionError as e:
            failed += 1
            print(f"FAILED  {name}: {e}")
    print(f"{len(tests) - failed}/{len(tests)} layout checks passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks the Julia binding against include/tsstore.h without a Julia runtime.

Every `ccall` in bindings/julia/src is parsed and compared with the header: the symbol exists,
each header function is called exactly once, the argument count and each argument's C type
match (Int32 ↔ int32_t, Csize_t ↔ size_t, Ptr{UInt8} ↔ uint8_t * or char *, Ptr{tsstore_key}
↔ tsstore_key *, Ref{T} as Ptr{T}, …), the return type matches, and the call passes as many
values as it declares types. Exit status 1 and one line per problem on any mismatch.

`--self-test` also checks that the checker catches drift: it mutates the sources in memory
(a wrong argument type, a missing function, a wrong return type, a dropped argument, an
unknown symbol) and fails unless every mutation is reported.
"""
from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
HEADER = ROOT / "include" / "tsstore.h"
SOURCES = ROOT / "bindings" / "julia" / "src"

# The C type (normalised: no const, no names, no spaces; arrays as pointers) that each Julia
# base type may stand for in a ccall.
JULIA_BASE = {
    "Int32": {"int32_t"}, "Cint": {"int32_t"}, "Int64": {"int64_t"}, "Clonglong": {"int64_t"},
    "Csize_t": {"size_t"}, "UInt": {"size_t"}, "Float64": {"double"}, "Cdouble": {"double"},
    "UInt8": {"uint8_t", "char"}, "Cchar": {"char"}, "Cvoid": {"void"}, "Nothing": {"void"},
}


def split_top(s: str, sep: str = ",") -> list[str]:
    """Splits s at sep outside (), {} and []."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def c_types_of(jtype: str) -> set[str]:
    """The normalised C types a Julia ccall type may declare."""
    jtype = jtype.strip()
    if jtype == "Cstring":
        return {"char*"}
    m = re.fullmatch(r"(Ptr|Ref)\{(.*)\}", jtype)
    if m:
        inner = m.group(2)
        out = {t + "*" for t in c_types_of(inner)}
        if inner == "Cvoid":
            out.add("tsstore_log_fn")  # a C function pointer
        return out
    if re.fullmatch(r"tsstore_[a-z_]+", jtype):
        return {jtype}
    return set(JULIA_BASE.get(jtype, set()))


def normalise_c(param: str) -> str:
    m = re.match(r"^(.*?)\b([A-Za-z_][A-Za-z0-9_]*)\s*(\[\s*\d*\s*\])?$", param.strip())
    ctype = (m.group(1) + ("*" if m.group(3) else "")) if m.group(1).strip() else m.group(2)
    ctype = ctype.replace("const", " ")
    return re.sub(r"\s+", "", ctype)


def header_functions() -> dict[str, tuple[str, list[str]]]:
    text = re.sub(r"/\*.*?\*/", "", HEADER.read_text(), flags=re.S)
    out = {}
    for ret, name, params in re.findall(r"TSSTORE_API\s+([^;(]*?)\b(tsstore_[a-z0-9_]+)\s*\(([^)]*)\)\s*;", text, re.S):
        ps = [p for p in params.split(",") if p.strip() not in ("", "void")]
        out[name] = (re.sub(r"\s+", "", ret.replace("const", " ")), [normalise_c(p) for p in ps])
    return out


def ccalls(text: str) -> list[str]:
    """The argument text of every ccall(...) in Julia source (comments and strings stripped)."""
    text = re.sub(r"#=.*?=#", "", text, flags=re.S)
    text = re.sub(r"#.*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    calls = []
    for m in re.finditer(r"\bccall\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        calls.append(text[m.end():i - 1])
    if "@ccall" in text:
        calls.append("@ccall is not supported by this checker")
    return calls


def check(sources: dict[str, str]) -> list[str]:
    header = header_functions()
    problems, seen = [], {}
    for fname, text in sources.items():
        for call in ccalls(text):
            parts = split_top(call)
            if len(parts) < 3:
                problems.append(f"{fname}: cannot read ccall({call[:60]}…)")
                continue
            m = re.fullmatch(r"sym\(:(\w+)\)|\(\s*:(\w+)\s*,.*\)", parts[0])
            if not m:
                problems.append(f"{fname}: ccall target {parts[0]!r} is not sym(:name)")
                continue
            name = m.group(1) or m.group(2)
            seen[name] = seen.get(name, 0) + 1
            if name not in header:
                problems.append(f"{fname}: {name} is not in include/tsstore.h")
                continue
            cret, cparams = header[name]
            if cret not in c_types_of(parts[1]):
                problems.append(f"{name}: returns {cret}, the ccall says {parts[1]}")
            tup = parts[2].strip()
            if not (tup.startswith("(") and tup.endswith(")")):
                problems.append(f"{name}: argument types {tup!r} are not a tuple")
                continue
            jtypes = split_top(tup[1:-1])
            if len(jtypes) != len(cparams):
                problems.append(f"{name}: {len(cparams)} C parameters, the ccall declares {len(jtypes)}")
            for i, (jt, ct) in enumerate(zip(jtypes, cparams)):
                if ct not in c_types_of(jt):
                    problems.append(f"{name}: parameter {i + 1} is {ct} in the header, {jt} in the ccall")
            if len(parts) - 3 != len(jtypes):
                problems.append(f"{name}: declares {len(jtypes)} argument types but passes {len(parts) - 3} values")
    for name in header:
        if seen.get(name, 0) == 0:
            problems.append(f"{name}: no ccall wraps it")
        elif seen[name] > 1:
            problems.append(f"{name}: {seen[name]} ccalls (want one, in the raw layer)")
    return problems


def raw_calls(sources: dict[str, str]) -> list[str]:
    """Calls into the raw layer (`L.tsstore_x(...)` outside it) must pass as many arguments as
    the C function takes — Julia would only say so at run time. Calls that splat are skipped
    (their arity is not in the text), and so are functions passed by name."""
    header = header_functions()
    types = set(re.findall(r"typedef\s+struct\s+(tsstore_[a-z_]+)", HEADER.read_text()))
    problems = []
    for fname, text in sources.items():
        if fname.endswith("LibTsStore.jl"):
            continue
        text = re.sub(r"#.*", "", text)
        for m in re.finditer(r"\bL\.(tsstore_[a-z0-9_]+)(\()?", text):
            name = m.group(1)
            if name in types and not m.group(2):
                continue  # a handle type, Ptr{L.tsstore_store}
            if name not in header:
                problems.append(f"{fname}: L.{name} is not in include/tsstore.h")
                continue
            if not m.group(2):
                continue
            depth, i = 1, m.end()
            while depth and i < len(text):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            args = split_top(text[m.end():i - 1])
            if any(a.endswith("...") for a in args):
                continue
            want = len(header[name][1])
            if len(args) != want:
                line = text[:m.start()].count("\n") + 1
                problems.append(f"{fname}:{line}: L.{name} takes {want} arguments, the call passes {len(args)}")
    return problems


def load_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in sorted(SOURCES.rglob("*.jl"))}


MUTATIONS = [
    ("a wrong argument type", "(Ptr{tsstore_store}, Int64)", "(Ptr{tsstore_store}, Int32)", "set_write_buffer"),
    ("a wrong return type", "ccall(sym(:tsstore_flush), Int32", "ccall(sym(:tsstore_flush), Int64", "returns"),
    ("a missing function", "ccall(sym(:tsstore_rollback)", "identity((:tsstore_rollback)", "no ccall"),
    ("an unknown symbol", "sym(:tsstore_commit)", "sym(:tsstore_comit)", "not in include"),
    ("a dropped argument", "(Ptr{tsstore_store}, Int64), store, bytes)", "(Ptr{tsstore_store}, Int64), store)",
     "passes"),
]


def self_test(sources: dict[str, str]) -> list[str]:
    failures = []
    for what, old, new, expect in MUTATIONS:
        hits = [f for f, t in sources.items() if old in t]
        if not hits:
            failures.append(f"self-test: the sources no longer contain {old!r} ({what})")
            continue
        mutated = dict(sources)
        mutated[hits[0]] = mutated[hits[0]].replace(old, new, 1)
        if not any(expect in p for p in check(mutated)):
            failures.append(f"self-test: {what} was not reported")
    user = [f for f, t in sources.items() if "L.tsstore_flush(handle(s))" in t]
    if not user:
        failures.append("self-test: the sources no longer contain L.tsstore_flush(handle(s))")
    else:
        mutated = dict(sources)
        mutated[user[0]] = mutated[user[0]].replace("L.tsstore_flush(handle(s))", "L.tsstore_flush(handle(s), 1)", 1)
        if not any("tsstore_flush takes 1" in p for p in raw_calls(mutated)):
            failures.append("self-test: a raw call with an extra argument was not reported")
    return failures


def main() -> int:
    sources = load_sources()
    if not sources:
        print(f"no Julia sources under {SOURCES}")
        return 1
    problems = check(sources) + raw_calls(sources)
    if "--self-test" in sys.argv:
        problems += self_test(sources)
    for p in problems:
        print(p)
    n = sum(len(ccalls(t)) for t in sources.values())
    print(f"{n} ccalls checked against {len(header_functions())} header functions: "
          f"{'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Checks the Julia user layer's calls into the generated raw layer, without a Julia runtime.

src/LibTsStore.jl is generated from include/tsstore.h (scripts/gen-bindings; `--check` proves
it current, and bindings/python/tests/test_raw_layout.py proves its layout against the C
compiler). What Julia would only find at run time is in the hand-written files, and this
script finds it from their text:
  - no `ccall`, `@ccall` or `cglobal` outside LibTsStore.jl: every C call goes through it
    (a call into the Julia runtime itself, `ccall(:jl_…, …)`, as compat.jl's stand-ins make,
    is not a call into the library);
  - every `L.name` names something LibTsStore.jl defines (a function, struct, constant,
    handle or type alias);
  - every call `L.f(...)` of a function passes as many arguments as f takes (calls that
    splat are skipped, and so are functions passed by name);
  - every struct built as `L.tsstore_x(...)` gets either no positional arguments and only
    keywords naming its fields, or one positional argument per field.
Strings (but not their interpolations), characters and comments are blanked first. Exit status
1 and one line per problem on any mismatch.

`--self-test` also checks that the checker catches drift: it mutates the sources in memory (an
extra argument, a missing argument, an unknown function, an unknown constant, an unknown
keyword field, a positional struct with too few fields, a ccall in the user layer naming the
library and one naming a bare symbol) and fails unless every mutation is reported.
"""
from __future__ import annotations

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[3]
SOURCES = ROOT / "bindings" / "julia" / "src"
RAW = SOURCES / "LibTsStore.jl"


def code_only(text: str) -> str:
    """text with comments, character literals and the literal parts of strings replaced by
    spaces (newlines kept), and string interpolations `$(...)` kept as code."""
    out = []
    i, n = 0, len(text)

    def blank(s: str) -> str:
        return re.sub(r"[^\n]", " ", s)

    while i < n:
        if text.startswith("#=", i):
            j = text.find("=#", i + 2)
            j = n if j < 0 else j + 2
            out.append(blank(text[i:j]))
            i = j
        elif text[i] == "#":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(blank(text[i:j]))
            i = j
        elif text[i] == '"':
            quote = '"""' if text.startswith('"""', i) else '"'
            out.append(" " * len(quote))
            i += len(quote)
            while i < n and not text.startswith(quote, i):
                if text[i] == "\\":
                    out.append(blank(text[i:i + 2]))
                    i += 2
                elif text.startswith("$(", i):
                    depth, j = 1, i + 2
                    while j < n and depth:
                        depth += {"(": 1, ")": -1}.get(text[j], 0)
                        j += 1
                    out.append(" (" + code_only(text[i + 2:j - 1]) + ")")
                    i = j
                else:
                    out.append(blank(text[i]))
                    i += 1
            out.append(" " * len(quote))
            i += len(quote)
        elif text[i] == "'" and (i == 0 or not re.match(r"[\w)\]}.']", text[i - 1])):
            m = re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:])
            if not m:
                out.append(text[i])
                i += 1
                continue
            out.append(" " * len(m.group(0)))
            i += len(m.group(0))
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def split_top(s: str) -> list[str]:
    """Splits a call's argument text at commas and semicolons outside brackets; a ';' entry
    marks where keywords start."""
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch in ",;" and depth == 0:
            parts.append("".join(cur).strip())
            if ch == ";":
                parts.append(";")
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return [p for p in parts if p]


def call_args(code: str, start: int) -> tuple[str, int]:
    """The text between the parenthesis at start and its match."""
    depth, i = 1, start + 1
    while depth and i < len(code):
        depth += {"(": 1, ")": -1}.get(code[i], 0)
        i += 1
    return code[start + 1:i - 1], i


def raw_layer(text: str) -> dict:
    """What the generated LibTsStore.jl defines."""
    defs = {"function": {}, "struct": {}, "const": set(), "handle": set(), "alias": set()}
    for name, params in re.findall(r"^(tsstore_\w+)\(([^;)]*)\) =\n    ccall\(", text, re.M):
        defs["function"][name] = len([p for p in params.split(",") if p.strip()])
    for name, body in re.findall(r"^struct (\w+)\n(.*?)^end$", text, re.S | re.M):
        defs["struct"][name] = re.findall(r"^\s+(\w+)::", body, re.M)
    defs["const"] = set(re.findall(r"^const (TSSTORE_\w+|[A-Z][A-Z_]+) = ", text, re.M))  # and the code tables
    defs["handle"] = set(re.findall(r"^mutable struct (\w+) end", text, re.M))
    defs["alias"] = set(re.findall(r"^const (tsstore_\w+) = ", text, re.M))
    return defs


def positional_and_keywords(args: list[str]) -> tuple[list[str], list[str]]:
    pos, kws, after_semicolon = [], [], False
    for a in args:
        if a == ";":
            after_semicolon = True
            continue
        m = re.fullmatch(r"(\w+)\s*=(?!=)\s*(.*)", a, re.S)
        if after_semicolon or m:
            kws.append(m.group(1) if m else a)
        else:
            pos.append(a)
    return pos, kws


def check(sources: dict[str, str]) -> list[str]:
    raw_name = str(RAW.relative_to(ROOT))
    defs = raw_layer(sources[raw_name])
    if not defs["function"] or not defs["struct"]:
        return [f"{raw_name}: no functions or structs found (is it generated?)"]
    known = set(defs["function"]) | set(defs["struct"]) | defs["const"] | defs["handle"] | defs["alias"]
    problems = []
    for fname, text in sources.items():
        if fname == raw_name:
            continue
        code = code_only(text)
        for m in re.finditer(r"@ccall\b|\bccall\s*\(|\bcglobal\s*\(", code):
            if re.match(r"ccall\s*\(\s*:jl_\w+\s*,", code[m.start():]):
                continue
            line = code.count("\n", 0, m.start()) + 1
            problems.append(f"{fname}:{line}: {m.group(0).strip('( ')} outside LibTsStore.jl (call the raw layer)")
        for m in re.finditer(r"\bL\.(\w+)(\s*\()?", code):
            name, line = m.group(1), code.count("\n", 0, m.start()) + 1
            where = f"{fname}:{line}"
            if name not in known:
                problems.append(f"{where}: L.{name} is not defined by LibTsStore.jl")
                continue
            if not m.group(2):
                continue  # a value: a constant, a type, a function passed by name
            args, _ = call_args(code, m.end() - 1)
            parts = split_top(args)
            if any(p.endswith("...") for p in parts):
                continue
            pos, kws = positional_and_keywords(parts)
            if name in defs["function"]:
                want = defs["function"][name]
                if kws:
                    problems.append(f"{where}: L.{name} takes no keyword arguments ({', '.join(kws)})")
                if len(pos) != want:
                    problems.append(f"{where}: L.{name} takes {want} arguments, the call passes {len(pos)}")
            elif name in defs["struct"]:
                fields = defs["struct"][name]
                if pos and (kws or len(pos) != len(fields)):
                    problems.append(f"{where}: L.{name}(...) has {len(fields)} fields; the call passes {len(pos)} "
                                    "positional arguments (give all of them, or keywords only)")
                for k in kws:
                    if k not in fields:
                        problems.append(f"{where}: L.{name} has no field {k}")
            else:
                problems.append(f"{where}: L.{name} is not a function or a struct, but it is called")
    return problems


def load_sources() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text() for p in sorted(SOURCES.rglob("*.jl"))}


MUTATIONS = [
    # (what, old text, new text, expected in a problem)
    ("an extra argument", "L.tsstore_flush(handle(s))", "L.tsstore_flush(handle(s), 1)", "tsstore_flush takes 1"),
    ("a missing argument", "check(L.tsstore_count_arrays(handle(s), n))", "check(L.tsstore_count_arrays(handle(s)))",
     "tsstore_count_arrays takes 2"),
    ("an unknown function", "L.tsstore_commit(h)", "L.tsstore_comit(h)", "L.tsstore_comit is not defined"),
    ("an unknown constant", "L.TSSTORE_OWNER_ANY", "L.TSSTORE_OWNER_NONE", "L.TSSTORE_OWNER_NONE is not defined"),
    ("an unknown keyword field", "match_owner_id = owner_id", "match_owner = owner_id", "has no field match_owner"),
    ("a positional struct short of fields", "L.tsstore_reader_info()", "L.tsstore_reader_info(1, 2)",
     "tsstore_reader_info(...) has 6 fields"),
    ("a ccall in the user layer", "library_version() = Int(L.tsstore_version())",
     "library_version() = Int(ccall((:tsstore_version, \"libtsstore\"), Int32, ()))", "ccall outside"),
    ("a bare-symbol ccall into the library", "library_version() = Int(L.tsstore_version())",
     "library_version() = Int(ccall(:tsstore_version, Int32, ()))", "ccall outside"),
]


def self_test(sources: dict[str, str]) -> list[str]:
    failures = []
    for what, old, new, expect in MUTATIONS:
        hits = [f for f, t in sources.items() if old in t and not f.endswith("LibTsStore.jl")]
        if not hits:
            failures.append(f"self-test: the user layer no longer contains {old!r} ({what})")
            continue
        mutated = dict(sources)
        mutated[hits[0]] = mutated[hits[0]].replace(old, new, 1)
        if not any(expect in p for p in check(mutated)):
            failures.append(f"self-test: {what} was not reported")
    # Text inside strings and comments is not code.
    probe = {str(RAW.relative_to(ROOT)): sources[str(RAW.relative_to(ROOT))],
             "probe.jl": '# L.tsstore_nothing(1)\nx = "L.tsstore_nothing(2) ccall("\ny = \'(\'\n'}
    if check(probe):
        failures.append(f"self-test: strings and comments were read as code: {check(probe)}")
    return failures


def main() -> int:
    sources = load_sources()
    if str(RAW.relative_to(ROOT)) not in sources:
        print(f"no {RAW}")
        return 1
    problems = check(sources)
    if "--self-test" in sys.argv:
        problems += self_test(sources)
    for p in problems:
        print(p)
    defs = raw_layer(sources[str(RAW.relative_to(ROOT))])
    user = "".join(code_only(t) for f, t in sources.items() if not f.endswith("LibTsStore.jl"))
    used = set(re.findall(r"\bL\.(tsstore_\w+)", user)) & set(defs["function"])
    calls = len(re.findall(r"\bL\.\w+\s*\(", user))
    unused = sorted(set(defs["function"]) - used)
    print(f"user layer: {calls} calls into LibTsStore.jl checked; {len(used)} of {len(defs['function'])} raw functions used"
          + (f" (not: {', '.join(unused)})" if unused else "")
          + f"; {'OK' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

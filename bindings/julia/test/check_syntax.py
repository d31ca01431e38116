#!/usr/bin/env python3
"""Parses every Julia file of the binding with tree-sitter-julia (no Julia runtime needed) and
fails on any syntax error or missing token, printing file:line and the line. Needs the
`tree-sitter` and `tree-sitter-julia` Python packages (make pyenv installs them)."""
import pathlib
import sys

import tree_sitter
import tree_sitter_julia

ROOT = pathlib.Path(__file__).resolve().parents[1]


def problems(path: pathlib.Path, parser: tree_sitter.Parser) -> list[str]:
    src = path.read_bytes()
    lines = src.splitlines()
    out, stack = [], [parser.parse(src).root_node]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            line = node.start_point[0] + 1
            what = f"missing {node.type}" if node.is_missing else "syntax error"
            out.append(f"{path.relative_to(ROOT)}:{line}: {what}: {lines[line - 1].decode()[:100]}")
        stack.extend(node.children)
    return out


def main() -> int:
    parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_julia.language()))
    files = sorted(ROOT.rglob("*.jl"))
    found = [p for f in files for p in problems(f, parser)]
    # The checker must catch a broken file, or a clean run means nothing.
    broken = parser.parse(b"function f(x)\n    y = (x +\nend\n").root_node
    if not broken.has_error:
        found.append("self-test: a broken snippet parsed clean")
    for p in found:
        print(p)
    print(f"{len(files)} Julia files parsed: {'OK' if not found else f'{len(found)} problems'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

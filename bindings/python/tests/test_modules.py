"""The package's modules import one another without a cycle, lazy imports inside functions
included: each module can be read on its own terms, from the bottom (_raw, _ffi) up."""
import ast
import pathlib

import tsstore

PACKAGE = pathlib.Path(tsstore.__file__).parent


def imports_of(path: pathlib.Path) -> set:
    """The sibling modules a module imports (from . import x, from ._x import y), anywhere."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module.split(".")[0])
            else:
                out.update(alias.name for alias in node.names)
    return out


def test_no_module_imports_itself_through_others():
    graph = {p.stem: imports_of(p) for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    # Store's parts (each concern its module, _store the class made of them) and the rest.
    assert {"_store", "_handle", "_lifecycle", "_adding", "_add_columns", "_descriptors", "_reading", "_bulk_read",
            "_catalog", "_editing", "_associations", "_maintenance", "_args", "_cstructs", "_readers",
            "_series", "_convert", "_errors", "_ffi"} <= graph.keys()

    def cycle_from(start):
        stack, seen = [(start, [start])], set()
        while stack:
            node, path = stack.pop()
            for nxt in graph.get(node, ()):
                if nxt == start:
                    return path + [nxt]
                if nxt not in seen and nxt in graph:
                    seen.add(nxt)
                    stack.append((nxt, path + [nxt]))
        return None

    cycles = [c for c in (cycle_from(m) for m in graph) if c]
    assert not cycles, f"import cycles: {cycles}"

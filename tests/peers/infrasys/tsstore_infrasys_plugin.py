"""A pytest plugin that runs infrasys's own test suite (unchanged, outside this repository)
with tsstore as its time-series storage.

Loaded with ``-p tsstore_infrasys_plugin`` (this directory on PYTHONPATH) by
scripts/test-infrasys.sh. It

- registers the backend with infrasys (``tsstore.infrasys.register(default=True)``): the
  "tsstore" storage type, and tsstore as the storage of every system that names none;
- adds a "tsstore" case to every test parametrized over infrasys's storage types (the
  modules' ``TS_STORAGE_OPTIONS``): a parameter list holding storage types, or tuples led by
  one, gets the same cases with "tsstore" in that place;
- skips the tests listed in skip.txt beside this file, each with its reason (a listed test
  that is not collected is an error: the list stays exact);
- counts the tsstore-backed tests, those that made or called a tsstore storage (a system, a
  deserialization, a conversion, an add, a read) or carry a "tsstore" parameter, plus the skipped ones, and
  ends the run with the line ``N passed, M failed, K skipped`` for them (and lists them, with
  their outcomes, in the file $TSSTORE_INFRASYS_BACKED_LIST names, when set).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

import tsstore.infrasys as tsi

SKIP_FILE = Path(__file__).with_name("skip.txt")
TSSTORE = tsi.STORAGE_TYPE


def _skip_list() -> dict[str, str]:
    """test id (file.py::name[params]) → reason, from lines "<id>  # <reason>"."""
    out = {}
    for line in SKIP_FILE.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        test, sep, reason = line.partition("#")
        if not sep or not reason.strip():
            raise pytest.UsageError(f"{SKIP_FILE}: no reason for {test.strip()!r}")
        out[test.strip()] = reason.strip()
    return out


def pytest_configure(config: pytest.Config) -> None:
    tsi.register(default=True)
    config._tsstore_skips = _skip_list()  # type: ignore[attr-defined]
    config._tsstore_outcomes = {}  # type: ignore[attr-defined]


def _is_storage_type(v: object) -> bool:
    from infrasys.time_series_models import TimeSeriesStorageType
    return isinstance(v, TimeSeriesStorageType)


def _with_tsstore(values: list) -> list | None:
    """values plus their tsstore variants, or None when values are not storage types."""
    added = []
    for v in values:
        if _is_storage_type(v):
            added.append(TSSTORE)
        elif isinstance(v, tuple) and v and _is_storage_type(v[0]):
            added.append((TSSTORE,) + v[1:])
        else:
            return None
    fresh = []
    for a in added:
        if a not in fresh and a not in values:
            fresh.append(a)
    return list(values) + fresh if fresh else None


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    markers = metafunc.definition.own_markers
    for i, mark in enumerate(markers):
        if mark.name != "parametrize" or len(mark.args) < 2:
            continue
        extended = _with_tsstore(list(mark.args[1]))
        if extended is not None:
            markers[i] = pytest.mark.parametrize(mark.args[0], extended, *mark.args[2:], **mark.kwargs).mark


def _test_id(item: pytest.Item) -> str:
    return f"{Path(str(item.fspath)).name}::{item.name}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    skips = config._tsstore_skips  # type: ignore[attr-defined]
    seen = set()
    for item in items:
        tid = _test_id(item)
        if tid in skips:
            seen.add(tid)
            item.add_marker(pytest.mark.skip(reason=f"tsstore: {skips[tid]}"))
            item._tsstore_backed = True  # type: ignore[attr-defined]
    missing = sorted(set(skips) - seen)
    if missing:
        raise pytest.UsageError(f"{SKIP_FILE} lists tests that were not collected: {missing}")


_results: dict[str, str] = {}   # nodeid → passed / failed / skipped
_backed: list[str] = []         # nodeids of the tsstore-backed tests, in run order


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """One outcome per test: failed if any phase failed, else skipped, else passed."""
    prev = _results.get(report.nodeid)
    if report.failed:
        _results[report.nodeid] = "failed"
    elif report.skipped and prev is None:
        _results[report.nodeid] = "skipped"
    elif report.when == "call" and report.passed and prev is None:
        _results[report.nodeid] = "passed"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):  # type: ignore[no-untyped-def]
    cls = tsi.TsStoreTimeSeriesStorage
    before = (cls.instances_created, cls.calls)
    yield
    made = (cls.instances_created, cls.calls) != before
    spec = getattr(item, "callspec", None)
    with_param = spec is not None and any(_names_tsstore(v) for v in spec.params.values())
    if made or with_param or getattr(item, "_tsstore_backed", False):
        _backed.append(item.nodeid)


def _names_tsstore(value: object) -> bool:
    if isinstance(value, str):
        return value == TSSTORE
    return isinstance(value, tuple) and any(isinstance(v, str) and v == TSSTORE for v in value)


def pytest_terminal_summary(terminalreporter, exitstatus: int, config: pytest.Config) -> None:  # type: ignore[no-untyped-def]
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failed = []
    for nodeid in _backed:
        outcome = _results.get(nodeid, "failed")
        counts[outcome] += 1
        if outcome == "failed":
            failed.append(nodeid)
    listing = os.environ.get("TSSTORE_INFRASYS_BACKED_LIST")
    if listing:  # every tsstore-backed test with its outcome, one a line
        Path(listing).write_text("".join(f"{_results.get(n, 'failed')} {n}\n" for n in _backed))
    tr = terminalreporter
    tr.section("tsstore-backed tests")
    for nodeid in failed:
        tr.write_line(f"FAILED {nodeid}")
    tr.write_line(f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped")

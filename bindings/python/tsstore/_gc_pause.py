"""Python's cyclic garbage collector paused across the bulk calls, in every thread at once."""
from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator


class _Pauses:
    """The pauses under way in every thread: the first one records whether the collector
    was on, the last one to end turns it back on. (Each pause reading and restoring the
    state itself left it off for good when a second thread read it while a first one had
    it paused, and restored that after the first ended.)"""
    lock = threading.Lock()
    depth = 0
    was_enabled = False


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused while a bulk add converts its items and
    makes their keys, or a bulk read makes its series: those allocate a few objects per
    series, none of them cyclic, and the collections they set off (each full one walking
    every object of the process) cost more than the conversion itself (3 of 5 µs a series
    of a 100,000 add; 5-7 µs a series of a 10,000 read after that add, docs/benchmarks.md).
    When the last pause of all threads ends, it is enabled again, unless it was disabled
    when the first began."""
    with _Pauses.lock:
        if _Pauses.depth == 0:
            _Pauses.was_enabled = gc.isenabled()
            gc.disable()
        _Pauses.depth += 1
    try:
        yield
    finally:
        with _Pauses.lock:
            _Pauses.depth -= 1
            if _Pauses.depth == 0 and _Pauses.was_enabled:
                gc.enable()

"""The Python side of tsbench's "python-bulk" workload: a durable batch add of N × LENGTH
f64 series, then (on a second store of M × READ_LENGTH) a get_many of every series, through
the binding. Prints add_us, get_many_us (repeated on one open store) and first_get_many_us
(the first get_many after opening read-only, keys never read before), per series, best of
REPEATS.

    python bulk.py DIR N LENGTH M READ_LENGTH REPEATS
"""
import datetime as dt
import os
import shutil
import sys
import time

import numpy as np

import tsstore

T0 = dt.datetime(2030, 1, 1)


def series(n, length):
    base = np.arange(length, dtype=np.float64)
    return [dict(ts=tsstore.SingleTimeSeries("max_active_power", T0, "PT1H", base + i), owner_id=i,
                 owner_type="PowerLoad") for i in range(n)]


def fresh(path):
    for p in (path, path + ".sqlite"):
        if os.path.exists(p):
            os.remove(p)
    return path


def timed_add(path, items):
    fresh(path)
    with tsstore.Store.create(path) as s:
        t = time.perf_counter()
        keys = s.add_time_series_bulk(items)
        s.flush()
        took = time.perf_counter() - t
    return took, keys


def main(folder, n, length, m, read_length, repeats):
    os.makedirs(folder, exist_ok=True)
    items = series(n, length)
    add = min(timed_add(os.path.join(folder, "py_add.nc"), items)[0] for _ in range(repeats))
    read_path = os.path.join(folder, "py_read.nc")
    _, keys = timed_add(read_path, series(m, read_length))
    best = first = None
    for _ in range(repeats):
        # The first get_many after opening read-only, with keys never read before (their
        # lookups not built yet): what a script that opens a store and reads it pays.
        fresh_keys = [tsstore.Key(k.owner_id, k.owner_category, k.series_type, k.name, k.resolution, k.interval,
                                  dict(k.features)) for k in keys]
        with tsstore.Store.open(read_path, read_only=True) as s:
            t = time.perf_counter()
            got = s.get_many(fresh_keys)
            took = time.perf_counter() - t
            first = took if first is None else min(first, took)
            check(got)
    with tsstore.Store.open(read_path, read_only=True) as s:
        for _ in range(repeats):
            t = time.perf_counter()
            got = s.get_many(keys)
            took = time.perf_counter() - t
            best = took if best is None else min(best, took)
        check(got)
    shutil.rmtree(folder, ignore_errors=True)
    print(f"add_us={add / n * 1e6:.3f}\nget_many_us={best / m * 1e6:.3f}\nfirst_get_many_us={first / m * 1e6:.3f}")


def check(got):
    for i in (0, 17 % len(got), len(got) - 1):
        if got[i].data[3] != 3 + i or got[i].data.shape != got[0].data.shape:
            sys.exit("bulk.py: get_many read a wrong value")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:7]))

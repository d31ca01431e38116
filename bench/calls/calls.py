"""The Python side of tsbench's "calls" workload: the same calls as calls.c, through the
binding, on the store calls.c made. Prints get_us, step_us and has_us (medians, µs), the get
by owner and name (get_by_name_us) and how many C calls that get makes once its size is known
(get_by_name_c_calls).

    python calls.py STORE.nc N LENGTH REPEATS
"""
import math
import sys
import time

import tsstore
from tsstore import OwnerCategory, SeriesType


def median(v):
    return sorted(v)[len(v) // 2]


def main(path, n, length, repeats):
    keys = [tsstore.Key(i, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "max_active_power", "PT1H")
            for i in range(n)]
    clock = time.perf_counter
    with tsstore.Store.open(path, read_only=True) as s:
        # Warm-up: every key read once, as a simulation loop that rereads its series has done;
        # a key's first read is two C calls (its size is not known yet), the others one.
        for k in keys:
            s.get_time_series(k)
        took = []
        for r in range(repeats):
            i = (r * 7919) % n
            t = clock()
            ts = s.get_time_series(keys[i])
            took.append(clock() - t)
            if abs(ts.data[1] - (50 + 30 * math.sin((1 + i) / 24))) > 1e-12:
                sys.exit(f"calls.py: series {i} read back a wrong value")
            del ts  # freed outside the timing, as calls.c frees its buffer
        get_us = median(took) * 1e6
        took = []
        for i in range(n):  # the infrasys-style call, by owner and name: each name's first
            t = clock()
            s.get_time_series(i, "max_active_power")
            took.append(clock() - t)
        get_by_name_first_us = median(took) * 1e6
        took = []
        for r in range(repeats):  # and again, as a loop that rereads its series by name
            i = (r * 7919) % n
            t = clock()
            ts = s.get_time_series(i, "max_active_power")
            took.append(clock() - t)
            if abs(ts.data[1] - (50 + 30 * math.sin((1 + i) / 24))) > 1e-12:
                sys.exit(f"calls.py: series {i} read by name back a wrong value")
            del ts
        get_by_name_us = median(took) * 1e6
        by_name_calls = c_calls(s, lambda: s.get_time_series(n // 2, "max_active_power"))
        took = []
        with s.static_reader("PT1H", keys) as rd:
            for r in range(repeats):
                t = clock()
                rd.read_step(r % length)
                took.append(clock() - t)
        step_us = median(took) * 1e6
        took = []
        for r in range(repeats):
            k = keys[(r * 7919) % n]
            t = clock()
            found = s.has_time_series(k)
            took.append(clock() - t)
            if not found:
                sys.exit("calls.py: has missed a stored key")
        has_us = median(took) * 1e6
    print(f"get_us={get_us:.3f}\nstep_us={step_us:.3f}\nhas_us={has_us:.3f}")
    print(f"get_by_name_us={get_by_name_us:.3f}\nget_by_name_c_calls={by_name_calls}")
    print(f"get_by_name_first_us={get_by_name_first_us:.3f}")
    print(f"to_pandas_ms={to_pandas_ms():.4f}")


def c_calls(store, call):
    """How many C functions call() enters, counted on the binding's bound library."""
    from tsstore import _ffi
    with _ffi.count_calls() as names:
        call()
    return len(names)


def to_pandas_ms():
    """The best of 20 to_pandas() of a year of hourly steps, in ms (issue 18: under 5 ms)."""
    import datetime as dt
    import numpy as np
    ts = tsstore.SingleTimeSeries("load", dt.datetime(2030, 1, 1), dt.timedelta(hours=1), np.arange(8760.0))
    ts.to_pandas()  # pandas imported, caches warm
    best = None
    for _ in range(20):
        t = time.perf_counter()
        got = ts.to_pandas()
        took = time.perf_counter() - t
        best = took if best is None else min(best, took)
    if got.iloc[-1] != 8759.0:
        sys.exit("calls.py: to_pandas read a wrong value")
    return best * 1e3


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))

"""One run of tsbench's "python-peer" workload for one side: the same work through tsstore's
Python package (SIDE=tsstore) or through infrastore, the other implementation of the format
(SIDE=infrastore, `pip install infrastore==0.15.1`; this script only calls it). tsbench runs
the two sides in separate processes, alternately, and takes the median of each figure.

    python peer.py SIDE DIR ADD_CASES READ_CASE HAS_CALLS FORECAST_CASE SINGLE_CASES

ADD_CASES is "100000x24,10000x168" (N series × steps), READ_CASE "10000x168", FORECAST_CASE
"1000x365" (forecasts × daily windows of 24 hourly steps) or "0x0" to skip it, SINGLE_CASES
"1000x168,10000x168" (series stored × steps of each series added) or "" to skip them. Prints
key=value lines, times in µs:

    add_<N>x<L>_us        durable bulk add, per series (timed: the batch add and what makes
                          it durable, below)
    add_<N>x<L>_own_us    infrastore only: the same without the fsync of the array file that
                          its flush() leaves out
    read_us               bulk read of every series of READ_CASE, per series
    has_hit_us            has on a stored key, median per call over HAS_CALLS calls
    has_miss_us           has on a key not stored (an owner id past the stored ones)
    sweep_us              StaticReader over READ_CASE, per step (every series at one step)
    forecast_us           ForecastReader over FORECAST_CASE, per window (every forecast)
    single_<N>x<L>_us     durable single add into a store of N series added in bulk: one
                          series of L steps added and made durable, median of 20 adds
    add_<N>x<L>_rss_mib   peak RSS of the process once the first add case is done: the
                          interpreter, its imports, the items built and the add (printed
                          for the first case only; a later case would include it)

The calls on each side:

    workload        tsstore                              infrastore
    bulk add        add_time_series_bulk + flush()       add_time_series_bulk + flush()
                                                         + os.fsync of the .h5 file
    bulk read       get_many(keys)                       read_by_ids(ids)
    has             has_time_series(key)                 has_exact_time_series(owner_id=…,
                                                         owner_category, name, type,
                                                         resolution, interval=None,
                                                         features={})
    static sweep    static_reader("PT1H", keys),         build_static_reader("PT1H"),
                    read_step(i) (returns the values)    static_read(reader, t_i)
    forecast read   forecast_reader(DETERMINISTIC,       build_forecast_reader(Deterministic,
                    "PT1H", keys), read_window(i)        "PT1H"), forecast_read(reader, t_i)
    single add      add_time_series + flush()            add_time_series + flush()
                                                         + os.fsync of the .h5 file

Durability. tsstore's flush() ends with fdatasync of the NetCDF file (and of its journal
when written) and a committed SQLite transaction (rollback journal, SQLite's default
synchronous FULL), so the batch survives a power loss. infrastore 0.15.1's
add_time_series_bulk writes the arrays into the HDF5 file and commits the catalog into
SQLite's WAL without an fsync; its flush() checkpoints the WAL with an fsync of the WAL and
of the catalog, but no call of its (add, flush, close) fsyncs the HDF5 file (strace: no
fsync or fdatasync on it), so its arrays sit in the page cache, safe from a process crash
but not from a power loss. To compare equal durability, the infrastore figure adds os.fsync
of the .h5 file after flush(); its own figure without it is printed too (add_..._own_us).

Both sides get the same data: series i holds arange(L) + i (f64), hourly from
2030-01-01T00:00Z (aware UTC datetimes), owner i of type PowerLoad, name max_active_power;
forecast i holds arange(24 × W).reshape(24, W) + i, daily windows of 24 h. Store creation,
building the inputs, reopening read-only and building readers are not timed, except one
figure: the read-only open of the forecast store alone (open_fc_ms, best of 3 in a process
that has the file in the page cache). The reads run
on stores reopened read-only; the bulk read is the first read after the open. The reader
figures time only the call that reads a step or window: tsstore's returns the values as one
numpy array, while infrastore's fills its buffers and hands them over by a further
group_values / entry_values call, left out of its time. Every read is checked against the
values written.
"""
import datetime as dt
import os
import resource
import shutil
import sys
import time

import numpy as np

T0 = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
NAME = "max_active_power"
clock = time.perf_counter


def median(v):
    return sorted(v)[len(v) // 2]


def cases(text):
    out = []
    for c in filter(None, text.split(",")):
        n, length = c.lower().split("x")
        out.append((int(n), int(length)))
    return out


def fresh(path):
    for p in (path, path + ".sqlite", path + "-journal", path + ".sqlite-wal", path + ".sqlite-shm"):
        if os.path.exists(p):
            os.remove(p)
    return path


def fail(msg):
    sys.exit(f"peer.py: {msg}")


class TsStore:
    """tsstore's Python package."""

    def __init__(self):
        import tsstore
        self.ts = tsstore

    def items(self, n, length):
        base = np.arange(length, dtype=np.float64)
        return [dict(ts=self.ts.SingleTimeSeries(NAME, T0, "PT1H", base + i), owner_id=i, owner_type="PowerLoad")
                for i in range(n)]

    def add(self, path, items):
        """Times the batch add and the flush that makes it durable; returns (µs, None, keys)."""
        with self.ts.Store.create(fresh(path)) as s:
            t = clock()
            keys = s.add_time_series_bulk(items)
            s.flush()
            took = clock() - t
        return took, None, keys

    def open(self, path):
        return self.ts.Store.open(path, read_only=True)

    def read(self, s, keys):
        t = clock()
        got = s.get_many(keys)
        took = clock() - t
        return took, [g.data for g in got]

    def has_args(self, owner_ids):
        k = self.ts
        return [k.Key(i, k.OwnerCategory.COMPONENT, k.SeriesType.SINGLE_TIME_SERIES, NAME, "PT1H") for i in owner_ids]

    def has_once(self, s, a):
        t = clock()
        found = s.has_time_series(a)
        return clock() - t, found

    def sweep(self, s, keys, length):
        took = []
        with s.static_reader("PT1H", keys) as rd:
            for i in range(length):
                t = clock()
                v = rd.read_step(i)
                took.append(clock() - t)
                if v[17] != i + 17:
                    fail(f"tsstore StaticReader read a wrong value at step {i}")
        return sum(took)

    def single_adds(self, path, first, length, adds):
        """Times adds durable single adds of owners first, first + 1, …; returns their times."""
        base, took = np.arange(length, dtype=np.float64), []
        with self.ts.Store.open(path) as s:
            for i in range(first, first + adds):
                ts = self.ts.SingleTimeSeries(NAME, T0, "PT1H", base + i)
                t = clock()
                s.add_time_series(ts, owner_id=i, owner_type="PowerLoad")
                s.flush()
                took.append(clock() - t)
            if s.get_time_series(first + adds - 1, NAME).data[3] != first + adds - 1 + 3:
                fail("tsstore read a single add back wrong")
        return took

    def forecast_store(self, path, n, windows):
        base = np.arange(24 * windows, dtype=np.float64).reshape(24, windows)
        with self.ts.Store.create(fresh(path)) as s:
            keys = s.add_time_series_bulk(
                dict(ts=self.ts.Deterministic("wind", T0, "PT1H", dt.timedelta(hours=24), "P1D", windows, base + i),
                     owner_id=i, owner_type="RenewableDispatch") for i in range(n))
        return keys

    def forecast_sweep(self, path, keys, windows):
        took = []
        with self.open(path) as s, s.forecast_reader(self.ts.SeriesType.DETERMINISTIC, "PT1H", keys) as rd:
            for w in range(windows):
                t = clock()
                v = rd.read_window(w)
                took.append(clock() - t)
                if v[7, 5] != 5 * windows + w + 7:
                    fail(f"tsstore ForecastReader read a wrong value in window {w}")
        return sum(took)


class InfraStore:
    """infrastore 0.15.1 (the other implementation), called, never copied."""

    def __init__(self):
        import infrastore
        self.I = infrastore

    def items(self, n, length):
        I, base = self.I, np.arange(length, dtype=np.float64)
        return [dict(owner_id=i, owner_type="PowerLoad", owner_category=I.OwnerCategory.Component,
                     time_series=I.SingleTimeSeries(T0, "PT1H", base + i, NAME)) for i in range(n)]

    def add(self, path, items):
        """Times the batch add, its flush and the fsync of the array file that flush leaves
        out; returns (µs with the fsync, µs without, ids)."""
        s = self.I.Store.create(fresh(path))
        try:
            t = clock()
            ids = s.add_time_series_bulk(items)
            s.flush()
            own = clock() - t
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
            took = clock() - t
        finally:
            s.close()
        return took, own, ids

    def open(self, path):
        return self.I.Store.open(path, read_only=True)

    def read(self, s, ids):
        t = clock()
        got = s.read_by_ids(ids)
        took = clock() - t
        return took, [g.data for g in got]

    def has_args(self, owner_ids):
        I = self.I
        return [dict(owner_id=i, owner_category=I.OwnerCategory.Component, name=NAME,
                     time_series_type=I.TimeSeriesType.SingleTimeSeries, resolution="PT1H", interval=None,
                     features={}) for i in owner_ids]

    def has_once(self, s, a):
        t = clock()
        found = s.has_exact_time_series(**a)
        return clock() - t, found

    def sweep(self, s, ids, length):
        rd = s.build_static_reader("PT1H")
        col = rd.groups()[0]["ids"].index(ids[17])
        when = [T0 + dt.timedelta(hours=i) for i in range(length)]
        took = []
        for i in range(length):
            t = clock()
            s.static_read(rd, when[i])
            took.append(clock() - t)
            if rd.group_values(0)[col] != i + 17:
                fail(f"infrastore StaticReader read a wrong value at step {i}")
        return sum(took)

    def single_adds(self, path, first, length, adds):
        """Times adds durable single adds, each with the fsync of the array file that flush
        leaves out (as add does); returns their times."""
        I, base, took = self.I, np.arange(length, dtype=np.float64), []
        s = I.Store.open(path)
        fd = os.open(path, os.O_RDONLY)
        try:
            for i in range(first, first + adds):
                ts = I.SingleTimeSeries(T0, "PT1H", base + i, NAME)
                t = clock()
                s.add_time_series(i, "PowerLoad", I.OwnerCategory.Component, ts)
                s.flush()
                os.fsync(fd)
                took.append(clock() - t)
            if not s.has_exact_time_series(**self.has_args([first + adds - 1])[0]):
                fail("infrastore lost a single add")
        finally:
            os.close(fd)
            s.close()
        return took

    def forecast_store(self, path, n, windows):
        I = self.I
        base = np.arange(24 * windows, dtype=np.float64).reshape(24, windows)
        s = I.Store.create(fresh(path))
        try:
            ids = s.add_time_series_bulk([
                dict(owner_id=i, owner_type="RenewableDispatch", owner_category=I.OwnerCategory.Component,
                     time_series=I.Deterministic(T0, "PT1H", dt.timedelta(hours=24), "P1D", windows, base + i, "wind"))
                for i in range(n)])
            s.flush()
        finally:
            s.close()
        return ids

    def forecast_sweep(self, path, ids, windows):
        I = self.I
        s = self.open(path)
        try:
            rd = s.build_forecast_reader(I.TimeSeriesType.Deterministic, "PT1H")
            entry = rd.entries().index(ids[5])
            when = [T0 + dt.timedelta(days=w) for w in range(windows)]
            took = []
            for w in range(windows):
                t = clock()
                s.forecast_read(rd, when[w])
                took.append(clock() - t)
                if rd.entry_values(entry)[7] != 7 * windows + w + 5:
                    fail(f"infrastore ForecastReader read a wrong value in window {w}")
        finally:
            s.close()
        return sum(took)


def has_timed(side, impl, s, args, want):
    """The median time of one has call over args, each of which must be answered want.

    Each side's has_once times its call alone, so that what is timed on either side is the
    call the table names and nothing of this loop's."""
    for a in args:  # warm-up: builds each key's lookup once, as a loop that reuses keys has
        if impl.has_once(s, a)[1] != want:
            fail(f"{side} has answered {not want} for a key it should answer {want}")
    took = []
    for a in args:
        t, found = impl.has_once(s, a)
        took.append(t)
        if found != want:
            fail(f"{side} has answered wrong")
    return median(took)


def main(side, folder, add_cases, read_case, has_calls, forecast_case, single_cases):
    impl = {"tsstore": TsStore, "infrastore": InfraStore}[side]()
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    ext = ".nc" if side == "tsstore" else ".h5"
    out = {}
    stores = {}
    for n, length in cases(add_cases):
        path = os.path.join(folder, f"add_{n}x{length}{ext}")
        items = impl.items(n, length)
        took, own, keys = impl.add(path, items)
        del items
        if len(keys) != n:
            fail(f"{side} added {len(keys)} series of {n}")
        out[f"add_{n}x{length}_us"] = took / n * 1e6
        if not stores:  # ru_maxrss only grows: the first case's peak is its own
            out[f"add_{n}x{length}_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if own is not None:
            out[f"add_{n}x{length}_own_us"] = own / n * 1e6
        stores[(n, length)] = (path, keys)
    (n, length), = cases(read_case)
    if (n, length) not in stores:
        path = os.path.join(folder, f"read_{n}x{length}{ext}")
        _, _, keys = impl.add(path, impl.items(n, length))
        stores[(n, length)] = (path, keys)
    path, keys = stores[(n, length)]
    s = impl.open(path)
    try:
        took, data = impl.read(s, keys)
        for i in (0, 17 % n, n - 1):
            if data[i].shape != (length,) or data[i][3] != 3 + i or data[i][-1] != length - 1 + i:
                fail(f"{side} bulk read returned a wrong series {i}")
        del data
        out["read_us"] = took / n * 1e6
        calls = max(has_calls, 1)
        out["has_hit_us"] = has_timed(side, impl, s, impl.has_args([(r * 7919) % n for r in range(calls)]), True) * 1e6
        out["has_miss_us"] = has_timed(side, impl, s, impl.has_args([n + (r * 7919) % n for r in range(calls)]), False) * 1e6
        out["sweep_us"] = impl.sweep(s, keys, length) / length * 1e6
    finally:
        s.close()
    for n, length in cases(single_cases):
        path = os.path.join(folder, f"single_{n}x{length}{ext}")
        impl.add(path, impl.items(n, length))
        out[f"single_{n}x{length}_us"] = median(impl.single_adds(path, n, length, 20)) * 1e6
    (fn, windows), = cases(forecast_case)
    if fn > 0 and windows > 0:
        path = os.path.join(folder, f"forecast{ext}")
        keys = impl.forecast_store(path, fn, windows)
        opens = []
        for _ in range(3):
            t = clock()
            s = impl.open(path)
            opens.append(clock() - t)
            s.close()
        out["open_fc_ms"] = min(opens) * 1e3
        out["forecast_us"] = impl.forecast_sweep(path, keys, windows) / windows * 1e6
    shutil.rmtree(folder, ignore_errors=True)
    print("\n".join(f"{k}={v:.4f}" for k, v in out.items()))


if __name__ == "__main__":
    if len(sys.argv) != 8:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), sys.argv[6], sys.argv[7])

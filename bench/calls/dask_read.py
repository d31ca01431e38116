"""The Python side of tsbench's "python-dask" workload: N hourly f64 series of LENGTH steps
(written in batches of 2,000, so 1 packed dataset per batch), then the same read three ways,
each reading every value once and summing every series over time:

  sweep   one process, a StaticReader over every key, read_step for every step;
  dask-1  xr.open_dataset(engine="tsstore", chunks={"time": BLOCK}) on a LocalCluster of one
          worker process (one thread), .sum("time").compute();
  dask-2  the same on two worker processes.

Each is timed REPEATS times and the best kept; the clusters are started before timing and
their workers keep the store and their readers open between computes, as a long-lived
cluster does (cold_s: the first compute, which opens them). Prints key=value lines.

    python dask_read.py DIR N LENGTH BLOCK REPEATS
"""
import datetime as dt
import os
import shutil
import sys
import time

import numpy as np

import tsstore

T0 = dt.datetime(2030, 1, 1)


def write(path, n, length):
    rng = np.random.default_rng(5)
    with tsstore.Store.create(path) as s:
        for lo in range(0, n, 2000):
            hi = min(n, lo + 2000)
            block = rng.random((hi - lo, length)) * 100
            s.add_time_series_bulk(dict(ts=tsstore.SingleTimeSeries("demand", T0, "PT1H", block[i - lo]),
                                        owner_id=i, owner_type="PowerLoad") for i in range(lo, hi))


def sweep(path):
    with tsstore.Store.open(path, read_only=True) as s:
        keys = s.list_keys(name="demand")
        t = time.perf_counter()
        with s.static_reader("PT1H", keys) as r:
            _, steps = r.grid()
            total = np.zeros(len(keys))
            for i in range(steps):
                total += r.read_step(i)
        return time.perf_counter() - t, total


def dask_sum(path, workers, block, repeats):
    import xarray as xr
    from dask.distributed import Client, LocalCluster
    times = []
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      memory_limit=0) as cluster, Client(cluster):
        ds = xr.open_dataset(path, engine="tsstore", name="demand", chunks={"time": block})
        for _ in range(repeats + 1):
            t = time.perf_counter()
            total = ds.demand.sum("time").values
            times.append(time.perf_counter() - t)
        ds.close()
    return times[0], min(times[1:]), total


def main(folder, n, length, block, repeats):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "dask.nc")
    t = time.perf_counter()
    write(path, n, length)
    print(f"write_s={time.perf_counter() - t:.3f}")
    mb = n * length * 8 / 1e6
    best = None
    for _ in range(repeats):
        took, expected = sweep(path)
        best = took if best is None else min(best, took)
    print(f"sweep_s={best:.3f}\nsweep_mbps={mb / best:.1f}")
    for workers in (1, 2):
        cold, warm, total = dask_sum(path, workers, block, repeats)
        if not np.allclose(total, expected, rtol=1e-9):
            sys.exit(f"dask_read.py: {workers} workers summed other values than the sweep")
        print(f"dask{workers}_cold_s={cold:.3f}\ndask{workers}_s={warm:.3f}\ndask{workers}_mbps={mb / warm:.1f}")
    print(f"mb={mb:.1f}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:6]))

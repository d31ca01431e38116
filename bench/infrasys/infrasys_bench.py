"""One side of the infrasys benchmark (bench/infrasys.go runs it): infrasys 1.1.2 with one
time-series storage, on the workloads an infrasys user runs, printed as key=value lines.

    python infrasys_bench.py BACKEND DIR N STEPS FORECASTS WINDOWS

BACKEND is tsstore (its default compression, deflate 3 + shuffle), tsstore-none (no
compression, as Arrow writes), arrow or hdf5 (gzip 5, infrasys's setting); every backend gets the same calls, all through infrasys's
public System API, so the figures differ only by the storage:

- add_us: N SingleTimeSeries of STEPS hourly f64 values, one per component, added in one
  ``system.open_time_series_store()`` block (infrasys's bulk idiom; the block ends durable
  on tsstore: one commit), per series;
- read_us: ``system.get_time_series(component, name)`` of every one of them, per series;
- fc_add_us / fc_read_us: FORECASTS Deterministic forecasts of WINDOWS daily windows of 24
  hourly steps, added in one block and then each read whole, per forecast;
- serialize_s / deserialize_s: ``system.to_json`` of the whole system (N + FORECASTS series;
  saved_mb is what it wrote, JSON and metadata database included) and ``System.from_json`` of it (a writable copy, the default), then one series read from
  the copy to prove it.
"""
import shutil
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import numpy as np
from infrasys import Component, System
from infrasys.time_series_models import Deterministic, SingleTimeSeries, TimeSeriesStorageType


class Load(Component):
    """A component to hang series on."""


def storage_type(backend: str):
    if backend in ("tsstore", "tsstore-none"):
        import tsstore.infrasys
        tsstore.infrasys.register(compression="none" if backend == "tsstore-none" else None)
        return tsstore.infrasys.STORAGE_TYPE
    return {"arrow": TimeSeriesStorageType.ARROW, "hdf5": TimeSeriesStorageType.HDF5}[backend]


def main() -> None:
    backend, out, n, steps, n_fc, windows = sys.argv[1], Path(sys.argv[2]), *map(int, sys.argv[3:7])
    shutil.rmtree(out, ignore_errors=True)
    (out / "ts").mkdir(parents=True)
    stype = storage_type(backend)
    system = System(name="bench", time_series_storage_type=stype, time_series_directory=out / "ts")
    loads = [Load(name=f"load{i}") for i in range(n)]
    system.add_components(*loads)
    t0 = datetime(2030, 1, 1)
    hour = timedelta(hours=1)
    rng = np.random.default_rng(1)
    series = [SingleTimeSeries.from_array(rng.random(steps), "max_active_power", t0, hour) for _ in range(n)]

    t = time.perf_counter()
    with system.open_time_series_store():
        for load, ts in zip(loads, series):
            system.add_time_series(ts, load)
    figs = {"add_us": (time.perf_counter() - t) / n * 1e6}

    t = time.perf_counter()
    total = 0.0
    for load in loads:
        total += float(system.get_time_series(load, "max_active_power").data[0])
    figs["read_us"] = (time.perf_counter() - t) / n * 1e6

    if n_fc > 0:
        gens = [Load(name=f"wind{i}") for i in range(n_fc)]
        system.add_components(*gens)
        forecasts = [Deterministic.from_array(rng.random((windows, 24)), "max_active_power", t0, hour,
                                              timedelta(hours=24), timedelta(days=1), windows) for _ in range(n_fc)]
        t = time.perf_counter()
        with system.open_time_series_store():
            for gen, fc in zip(gens, forecasts):
                system.add_time_series(fc, gen)
        figs["fc_add_us"] = (time.perf_counter() - t) / n_fc * 1e6
        t = time.perf_counter()
        for gen in gens:
            total += float(system.get_time_series(gen, "max_active_power", time_series_type=Deterministic).data[0, 0])
        figs["fc_read_us"] = (time.perf_counter() - t) / n_fc * 1e6

    sysfile = out / "saved" / "system.json"
    t = time.perf_counter()
    system.to_json(sysfile)
    figs["serialize_s"] = time.perf_counter() - t
    figs["saved_mb"] = sum(f.stat().st_size for f in sysfile.parent.rglob("*") if f.is_file()) / 1e6
    t = time.perf_counter()
    system2 = System.from_json(sysfile, time_series_directory=out / "ts")
    figs["deserialize_s"] = time.perf_counter() - t
    back = system2.get_time_series(system2.get_component(Load, "load0"), "max_active_power").data
    if not np.array_equal(np.asarray(back), series[0].data):
        raise SystemExit(f"{backend}: the deserialized system reads other values")
    system2.close()
    system.close()
    for k, v in figs.items():
        print(f"{k}={v:.6g}")


if __name__ == "__main__":
    main()

"""The Python side of tsbench's "modeller" workload: what a power-system modeller's script
does with a store, phase by phase, through the binding. bench/modeller.go does the same work
through the Go core; each phase prints its time in seconds (best of REPEATS).

Phases (sizes from the command line; make bench's defaults in brackets):
  loads       one batch of BUSES [2,000] hourly SingleTimeSeries of a year (8,760 f64), flushed
  costs       one batch of GENS [300] daily cost curves of a year, [365, 3] f64, flushed
  forecasts   one batch of FORECASTS [100] Deterministic: 48 h horizon, one window a day, 365
              windows ([48, 365] f64), flushed
  week        on a read-only open: a StaticReader over every load, 168 hourly steps
  windows     a ForecastReader over every forecast, all 365 windows

    python modeller.py DIR BUSES GENS FORECASTS REPEATS
"""
import datetime as dt
import os
import shutil
import sys
import time

import numpy as np

import tsstore

T0 = dt.datetime(2030, 1, 1)
HOUR, DAY = dt.timedelta(hours=1), dt.timedelta(days=1)
YEAR_H, WINDOWS, HORIZON = 8760, 365, 48


def load_values(i):
    return np.arange(YEAR_H, dtype=np.float64) % 24 + i


def cost_values(i):
    return np.tile(np.array([1.0, 20.0, 0.01]) * (1 + i), (WINDOWS, 1))


def forecast_values(i):
    return (np.arange(HORIZON * WINDOWS, dtype=np.float64) + i).reshape(HORIZON, WINDOWS)


def write(path, buses, gens, forecasts):
    """The three write phases on a fresh store; returns their times and the keys."""
    for p in (path, path + ".sqlite"):
        if os.path.exists(p):
            os.remove(p)
    took = {}
    # Each phase builds its items before its clock starts, as modeller.go and modeller.jl do:
    # the phases time the store's work, not numpy making the values (a year's `% 24` for
    # 2,000 loads alone took 180 ms).
    with tsstore.Store.create(path) as s:
        items = [dict(ts=tsstore.SingleTimeSeries("max_active_power", T0, HOUR, load_values(i)), owner_id=i,
                      owner_type="PowerLoad", units="MW") for i in range(buses)]
        t = time.perf_counter()
        loads = s.add_time_series_bulk(items)
        s.flush()
        took["loads"] = time.perf_counter() - t
        items = [dict(ts=tsstore.SingleTimeSeries("variable_cost", T0, DAY, cost_values(i)), owner_id=100_000 + i,
                      owner_type="ThermalStandard") for i in range(gens)]
        t = time.perf_counter()
        s.add_time_series_bulk(items)
        s.flush()
        took["costs"] = time.perf_counter() - t
        items = [dict(ts=tsstore.Deterministic("max_active_power", T0, HOUR, dt.timedelta(hours=HORIZON), DAY,
                                               WINDOWS, forecast_values(i)),
                      owner_id=200_000 + i, owner_type="RenewableDispatch") for i in range(forecasts)]
        t = time.perf_counter()
        winds = s.add_time_series_bulk(items)
        s.flush()
        took["forecasts"] = time.perf_counter() - t
    return took, loads, winds


def read(path, loads, winds):
    took = {}
    with tsstore.Store.open(path, read_only=True) as s:
        t = time.perf_counter()
        with s.static_reader(HOUR, loads) as rd:
            for h in range(168):
                step = rd.read_step(h)
        took["week"] = time.perf_counter() - t
        if step[7] != 167 % 24 + 7:
            sys.exit("modeller.py: the StaticReader read a wrong value")
        t = time.perf_counter()
        with s.forecast_reader(tsstore.SeriesType.DETERMINISTIC, HOUR, winds) as rd:
            for w in range(WINDOWS):
                window = rd.read_window(w)
        took["windows"] = time.perf_counter() - t
        i = min(3, len(winds) - 1)  # a forecast the run has, however few it was given
        if window[i][5] != 5 * WINDOWS + (WINDOWS - 1) + i:
            sys.exit("modeller.py: the ForecastReader read a wrong value")
    return took


def main(folder, buses, gens, forecasts, repeats):
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "py_modeller.nc")
    best = {}
    for _ in range(repeats):
        took, loads, winds = write(path, buses, gens, forecasts)
        took.update(read(path, loads, winds))
        for k, v in took.items():
            best[k] = min(best.get(k, v), v)
    shutil.rmtree(folder, ignore_errors=True)
    for k, v in best.items():
        print(f"{k}={v:.6f}")


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:6]))

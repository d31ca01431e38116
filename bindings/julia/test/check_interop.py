"""Interoperability of TsStore.jl, judged by other tools.

1. Julia reads the conformance store (written by an independent writer, ../shared/conformance)
   and prints every series; each must equal the fixture's expected values, value for value.
2. Julia writes a store of every series type; the Python binding, netCDF4-python (netcdf-c)
   and the library's own integrity and grid checks must read it back as written.

    python check_interop.py JULIA [SHARED_DIR]

Run by bindings/julia/test/run.sh with the project's Python (.venv: tsstore, numpy, netCDF4).
Without the conformance store part 1 is skipped, or fails when CI is set.
"""
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[2]


def julia(exe: str, *args: str) -> str:
    cmd = [exe, "--startup-file=no", f"--project={ROOT / 'bindings' / 'julia'}", str(HERE / "interop.jl"), *args]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def same(name: str, got, want) -> list:
    """Where got and want differ (nested lists; None in want is NaN)."""
    g, w = np.array(got, dtype=float), np.array([math.nan if v is None else v for v in np.ravel(want)], dtype=float)
    w = w.reshape(np.shape(want))
    if g.shape != w.shape:
        return [f"{name}: shape {g.shape}, expected {w.shape}"]
    bad = ~((g == w) | (np.isnan(g) & np.isnan(w)))
    return [f"{name}: {int(bad.sum())} values differ, first at {tuple(np.argwhere(bad)[0])}: "
            f"{g[tuple(np.argwhere(bad)[0])]!r} != {w[tuple(np.argwhere(bad)[0])]!r}"] if bad.any() else []


def check_conformance(exe: str, shared: pathlib.Path) -> list:
    src = shared / "conformance"
    with tempfile.TemporaryDirectory() as d:
        for f in ("independent.nc", "independent.nc.sqlite"):
            shutil.copy(src / f, d)  # the fixture is read-only input: never opened in place
        got = json.loads(julia(exe, "read", os.path.join(d, "independent.nc")))
    want = json.loads((src / "independent.nc.expected.json").read_text())
    load0 = np.array(want["load"][0])
    view = np.stack([load0[12 * i: 12 * i + 24] for i in range(3)], axis=1)  # [H, count]
    problems = []
    for k in range(3):
        problems += same(f"load[{k}]", got[f"load{k}"], want["load"][k])
    problems += same("attribute 10", got["attribute10"], want["load"][0])
    for name in ("cost", "cost2", "outage", "det", "monthly", "flags", "grid", "prob", "scen"):
        problems += same(name, got[name], want[name])
    problems += same("the DeterministicSingleTimeSeries view", got["view"], view.tolist())
    problems += same("percentiles", got["percentiles"], [0.1, 0.5, 0.9])
    stamps = [t.replace(".000Z", "Z") for t in got["timestamps"]]
    if stamps != want["timestamps"]:
        problems.append(f"timestamps {stamps}, expected {want['timestamps']}")
    print(f"interop: the conformance store read from Julia: {len(got)} series, "
          f"{'equal to the fixture' if not problems else f'{len(problems)} differences'}")
    return problems


def check_written(exe: str) -> list:
    import netCDF4
    import tsstore
    problems = []
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "from_julia.nc")
        julia(exe, "write", path)
        with tsstore.Store.open(path, read_only=True) as s:
            report = s.verify_integrity()
            if report["problems"]:
                problems.append(f"verify_integrity: {report['problems']}")
            if s.check_static_consistency():
                problems.append(f"check_static_consistency: {s.check_static_consistency()}")
            counts = {str(t): n for t, n in s.counts_by_type().items()}
            if counts != {"SingleTimeSeries": 8, "NonSequentialTimeSeries": 1, "Deterministic": 1, "Probabilistic": 1}:
                problems.append(f"counts {counts}")
            for k in range(1, 6):
                ts = s.get_time_series(k, "load")
                problems += same(f"load of {k}", ts.data, [k + t / 1000 for t in range(48)])
                if ts.resolution.total_seconds() != 3600 or s.list_metadata(owner_id=k, name="load")[0]["units"] != "MW":
                    problems.append(f"load of {k}: resolution {ts.resolution}")
            cost = s.get_time_series(1, "cost", curve="quadratic")
            if cost.data.dtype != np.float32:
                problems.append(f"cost: dtype {cost.data.dtype}")
            problems += same("cost", cost.data, [[c * d for c in range(1, 4)] for d in range(1, 8)])  # [T, 3]
            inflow = s.get_time_series(2, "inflow")
            problems += same("inflow", inflow.data, list(range(1, 13)))
            if str(inflow.resolution) != "P1M" or str(inflow.timestamps[1]) != "2030-02-28T00:00:00.000":
                problems.append(f"inflow: {inflow.resolution}, {inflow.timestamps[:2]}")
            outage = s.get_time_series(3, "outage", time_series_type=tsstore.NonSequentialTimeSeries)
            problems += same("outage", outage.data, [1.0, 0.0, 1.0])
            wind = s.get_time_series(4, "wind", time_series_type=tsstore.Deterministic)
            problems += same("wind", wind.data, [[w + h / 100 for w in range(1, 5)] for h in range(24)])  # [H, count]
            prob = s.get_time_series(5, "wind", time_series_type=tsstore.Probabilistic)
            problems += same("probabilistic wind", prob.data,
                             [[[w + h / 10 + p for w in (1, 2)] for h in range(6)] for p in (1, 2, 3)])
            flags = s.get_time_series(6, "must_run", owner_category=tsstore.OwnerCategory.SUPPLEMENTAL_ATTRIBUTE)
            problems += same("must_run", flags.data, [t % 2 == 1 for t in range(1, 25)])
        # netcdf-c, through netCDF4-python, reads the file as any netCDF-4 file.
        with netCDF4.Dataset(path) as nc:
            if nc.data_format_version != "0.11.0" or nc.compression != "deflate:4:shuffle":
                problems.append(f"root attributes {nc.data_format_version!r}, {nc.compression!r}")
            packed = nc["time_series/single/sts_f64_s_48_PT1H"]
            problems += same("the packed loads through netCDF4", packed[:, :5].T.tolist(),
                             [[k + t / 1000 for t in range(48)] for k in range(1, 6)])
            if packed.filters().get("zlib") is not True or packed.filters().get("complevel") != 4:
                problems.append(f"filters {packed.filters()}")
    print(f"interop: a store written from Julia: {'read back as written' if not problems else f'{len(problems)} differences'}")
    return problems


def main() -> int:
    exe = sys.argv[1]
    shared = pathlib.Path(sys.argv[2] if len(sys.argv) > 2 else os.environ.get("TSSTORE_SHARED", ROOT.parent / "shared"))
    problems = []
    if (shared / "conformance" / "independent.nc").exists():
        problems += check_conformance(exe, shared)
    elif os.environ.get("CI"):
        problems.append(f"no conformance store under {shared}")
    else:
        print(f"interop: no conformance store under {shared}: its part is skipped (set TSSTORE_SHARED)")
    problems += check_written(exe)
    for p in problems:
        print("interop:", p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

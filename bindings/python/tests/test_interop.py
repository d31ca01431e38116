"""Stores written through the binding, read back by tools this project did not write:
netCDF4, h5py, xarray (lazy, dask-backed) for the arrays, the sqlite3 module for the catalog.
Every packed column and standalone array is checked against the values written."""
import datetime as dt
import sqlite3

import numpy as np
import pytest

import tsstore

netCDF4 = pytest.importorskip("netCDF4")
h5py = pytest.importorskip("h5py")
xr = pytest.importorskip("xarray")
pytest.importorskip("dask")

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A store with packed series of two families (one spilling), an irregular series and
    three forecasts; returns its path and {data_hash hex: values written}."""
    path = str(tmp_path_factory.mktemp("interop") / "system.nc")
    expected = {}
    rng = np.random.default_rng(3)
    with tsstore.Store.create(path) as s:
        items = []
        for i in range(12):
            v = rng.random(48)
            items.append(dict(ts=tsstore.SingleTimeSeries("load", T0, "PT1H", v), owner_id=i, owner_type="PowerLoad"))
        for i in range(3):
            v = rng.integers(-1000, 1000, size=(30, 3))
            items.append(dict(ts=tsstore.SingleTimeSeries("cost", T0, "P1D", v), owner_id=100 + i, owner_type="Gen"))
        keys = s.add_time_series_bulk(items)
        keys.append(s.add_time_series(tsstore.NonSequentialTimeSeries(
            "outage", [T0, T0 + dt.timedelta(hours=5)], np.array([0.5, 1.0])), owner_id=200, owner_type="Line"))
        det = rng.random((24, 7))
        prob = rng.random((3, 24, 7)).astype(np.float32)
        keys.append(s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", "P1D", "P1D", 7, det), owner_id=300,
                                      owner_type="Wind"))
        keys.append(s.add_time_series(tsstore.Probabilistic("f", T0, "PT1H", "P1D", "P1D", 7, [0.1, 0.5, 0.9], prob),
                                      owner_id=301, owner_type="Wind"))
        keys.append(s.add_time_series(tsstore.Scenarios("f", T0, "PT1H", "P1D", "P1D", 7, prob * 2), owner_id=302,
                                      owner_type="Wind"))
        written_values = [np.asarray(item["ts"].data) for item in items] + [np.array([0.5, 1.0]), det, prob, prob * 2]
        for k, values in zip(keys, written_values):  # the inputs, not what the store reads back
            expected[s.get_metadata(k)["data_hash"]] = values
    return path, expected


def packed_columns(get_var, names):
    """{hash: column values} from every sts_… dataset and its _h companion."""
    out = {}
    names = list(names)
    for name in names:
        # (h5py also lists netCDF's dimension-scale datasets, {ds}_t / {ds}_c / arr_…_d0.)
        if name.startswith("sts_") and name + "_h" in names:
            data, slots = get_var(name), get_var(name + "_h")
            for col, h in enumerate(slots):
                h = h.decode() if isinstance(h, bytes) else str(h)
                if h:
                    out[h] = np.asarray(data[:, col])
    return out


def standalone_arrays(get_var, names):
    return {n[4:]: np.asarray(get_var(n)[...]) for n in names if n.startswith("arr_") and len(n) == 4 + 64}


def check_all(found, expected):
    assert set(found) == set(expected)
    for h, values in expected.items():
        np.testing.assert_array_equal(found[h], values, err_msg=h)


def netcdf4_arrays(path):
    """{hash: values} of every array in the store at path, read by netCDF4."""
    with netCDF4.Dataset(path) as ds:
        g = ds["time_series"]["single"]
        g.set_auto_mask(False)
        found = packed_columns(lambda n: g[n][...], g.variables)
        found.update(standalone_arrays(lambda n: g[n], g.variables))
    return found


def h5py_arrays(path):
    """The same, read by h5py."""
    with h5py.File(path, "r") as f:
        g = f["time_series/single"]
        names = [n for n in g if isinstance(g[n], h5py.Dataset)]
        found = packed_columns(lambda n: g[n][...] if not n.endswith("_h") else g[n].asstr()[...], names)
        found.update(standalone_arrays(lambda n: g[n], names))
    return found


def xarray_arrays(path, lazy):
    """The same, read by xarray (lazily through dask when lazy, which it checks)."""
    with xr.open_dataset(path, group="time_series/single", chunks={} if lazy else None,
                         mask_and_scale=False) as ds:
        if lazy:
            data_vars = [n for n in ds.data_vars if not n.endswith("_h")]
            assert all(hasattr(ds[n].data, "dask") for n in data_vars)  # lazy until computed
        found = packed_columns(lambda n: ds[n].values, list(ds.data_vars))
        found.update(standalone_arrays(lambda n: ds[n].values, list(ds.data_vars)))
    return found


def test_netcdf4_reads_every_array(written):
    path, expected = written
    with netCDF4.Dataset(path) as ds:
        assert ds.getncattr("data_format_version") == "0.11.0"
    check_all(netcdf4_arrays(path), expected)


def test_h5py_reads_every_array(written):
    path, expected = written
    check_all(h5py_arrays(path), expected)


def test_xarray_reads_lazily_with_dask(written):
    path, expected = written
    check_all(xarray_arrays(path, lazy=True), expected)


def test_sqlite3_reads_the_catalog(written):
    path, expected = written
    db = sqlite3.connect(f"file:{path}.sqlite?mode=ro", uri=True)
    rows = db.execute("SELECT time_series_type, hex(data_hash), length, element_shape, dtype FROM "
                      "time_series_associations").fetchall()
    assert len(rows) == 19
    assert {h.lower() for _, h, *_ in rows} == set(expected)
    types = {t for t, *_ in rows}
    assert types == {"SingleTimeSeries", "NonSequentialTimeSeries", "Deterministic", "Probabilistic", "Scenarios"}
    assert ("Probabilistic", 3, "[24,7]", "f32") in {(t, n, e, d) for t, _, n, e, d in rows}


def test_rows_and_forecasts_coded_by_plane_read_everywhere(tmp_path):
    """Rows of 4,200 smooth float series and a year of daily forecast windows are chunks of at
    least 4,096 elements whose low mantissa planes the store codes with Huffman codes alone
    and the rest with string matching, in one zlib stream (docs/format.md §7.9); netCDF4,
    h5py and xarray, each with their own HDF5 and zlib, read every value back."""
    path = str(tmp_path / "wide.nc")
    expected = {}
    steps = np.arange(12)
    with tsstore.Store.create(path) as s:
        items = [dict(ts=tsstore.SingleTimeSeries("load", T0, "PT1H", 50 + 30 * np.sin((steps + i) / 24)),
                      owner_id=i, owner_type="PowerLoad") for i in range(4200)]
        keys = s.add_time_series_bulk(items)
        det = 40 + 20 * np.sin(np.arange(24 * 365).reshape(24, 365) / 7)
        keys.append(s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", "P1D", "P1D", 365, det), owner_id=9,
                                      owner_type="Wind"))
        for k, values in zip(keys, [it["ts"].data for it in items] + [det]):
            expected[s.get_metadata(k)["data_hash"]] = values
    for found in (netcdf4_arrays(path), h5py_arrays(path), xarray_arrays(path, lazy=False)):
        check_all(found, expected)


def rewrite_dataset(f, path, dtype=None, **layout):
    """Writes the dataset at path again as another HDF5 writer may: same values, attributes
    and dimension scales, in dtype (default: as it was) and with layout's h5py options
    (chunks, compression, shuffle, …) in place of its own. chunks=None writes it contiguous."""
    old = f[path]
    parent, name = old.parent, old.name.rsplit("/", 1)[1]
    scales = [dim[0] for dim in old.dims]
    data, attrs = old[...], {k: v for k, v in old.attrs.items() if k != "DIMENSION_LIST"}
    kw = dict(chunks=old.chunks, compression=old.compression, compression_opts=old.compression_opts,
              shuffle=old.shuffle, maxshape=old.maxshape)
    kw.update(layout)
    if kw["chunks"] is None:  # contiguous: no filters, a fixed shape
        kw = {}
    elif kw["compression"] is None:
        kw.pop("compression_opts")
    del parent[name]
    new = parent.create_dataset(name, data=data, dtype=dtype or data.dtype, **kw)
    for k, v in attrs.items():
        new.attrs[k] = v
    for i, scale in enumerate(scales):
        new.dims[i].attach_scale(scale)
    return new


def two_dim_datasets(f):
    """The paths of a file's 2-D datasets: packed series and forecasts."""
    arrays = []
    f.visititems(lambda n, o: arrays.append(n) if isinstance(o, h5py.Dataset) and o.ndim == 2 else None)
    return arrays


def loads_and_forecast(path):
    """A store of six packed hourly series of 48 steps and a Deterministic of 3 windows;
    returns (the loads, the windows)."""
    loads = [np.arange(48.0) * (i + 1) + 0.5 for i in range(6)]
    windows = np.arange(72.0).reshape(24, 3) - 7.25
    with tsstore.Store.create(path) as s:
        s.add_time_series_bulk([dict(ts=tsstore.SingleTimeSeries("p", T0, "PT1H", v), owner_id=i, owner_type="G")
                                for i, v in enumerate(loads)])
        s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", "P1D", "P1D", 3, windows), owner_id=9,
                          owner_type="G")
    return loads, windows


def check_every_read_path(path, loads, windows):
    """Every read path gives the values written: whole, bulk, range, StaticReader steps
    (across the chunks of another layout too), forecast and its windows; nothing is damaged."""
    with tsstore.Store.open(path, read_only=True) as s:
        keys = s.list_keys(name="p")
        np.testing.assert_array_equal(s.get_time_series(3, "p").data, loads[3])
        for got, want in zip(s.get_many(keys), loads):
            np.testing.assert_array_equal(got.data, want)
        part = s.get_time_series(2, "p", start=T0 + dt.timedelta(hours=5), length=4).data
        np.testing.assert_array_equal(part, loads[2][5:9])
        with s.static_reader("PT1H", keys) as rd:
            for step in (0, 4, 5, 7, 47):
                np.testing.assert_array_equal(rd.read_step(step), [v[step] for v in loads])
        fc = s.get_time_series(9, "f", time_series_type=tsstore.Deterministic)
        np.testing.assert_array_equal(fc.data, windows)
        with s.forecast_reader(tsstore.SeriesType.DETERMINISTIC, "PT1H", s.list_keys(name="f")) as rd:
            for w in range(3):
                np.testing.assert_array_equal(np.asarray(rd.read_window(w)).ravel(), windows[:, w])
        assert s.verify_integrity()["problems"] == []


def test_big_endian_datasets_of_another_writer_read_right(tmp_path):
    # The format writes little-endian types; HDF5 converts another byte order on a hyperslab
    # read, but a chunk read hands the bytes over as stored. Every read path must give the
    # values h5py reads: no range or reader step may come back byte-swapped, and no whole
    # read may call the file damaged.
    path = str(tmp_path / "be.nc")
    loads, windows = loads_and_forecast(path)
    with h5py.File(path, "r+") as f:
        arrays = two_dim_datasets(f)
        assert len(arrays) == 2  # the packed loads and the forecast
        for name in arrays:
            old = f[name]
            assert rewrite_dataset(f, name, dtype=old.dtype.newbyteorder(">")).dtype.byteorder == ">"
    check_every_read_path(path, loads, windows)


@pytest.mark.parametrize("packed, forecast", [
    (dict(chunks=(5, 6)), dict(chunks=(24, 1))),  # several timestamps a chunk, as later formats write
    (dict(chunks=(48, 6)), dict(chunks=(24, 3))),  # one chunk for all
    (dict(chunks=(1, 2)), dict(chunks=(5, 2))),  # narrower than the columns, blocks across windows
    (dict(chunks=(7, 4)), dict(chunks=(7, 2))),  # chunks that overhang both axes
    (dict(chunks=(5, 6), shuffle=False), dict(chunks=(24, 1), shuffle=False)),
    (dict(chunks=(5, 6), compression=None, shuffle=False), dict(chunks=(24, 1), compression=None, shuffle=False)),
    (dict(chunks=None), dict(chunks=None)),  # contiguous
    (dict(fletcher32=True), dict(fletcher32=True)),
], ids=["5x6", "whole", "1x2", "7x4", "no-shuffle", "no-filters", "contiguous", "fletcher32"])
def test_datasets_laid_out_by_another_writer_read_right(tmp_path, packed, forecast):
    # The format fixes the layout this project writes (format-details §7), but the chunk
    # shapes and filters of a file are HDF5's to describe: a file another writer laid out
    # otherwise must read the same by every path, chunk reads and reader caches included.
    path = str(tmp_path / "layout.nc")
    loads, windows = loads_and_forecast(path)
    with h5py.File(path, "r+") as f:
        for name in two_dim_datasets(f):
            rewrite_dataset(f, name, **(packed if "sts_" in name else forecast))
    check_every_read_path(path, loads, windows)

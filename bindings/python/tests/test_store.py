"""The Python API over a real store: round trips through a close and reopen, exceptions
from real bad input, lifetime and threads."""
import dataclasses
import datetime as dt
import functools
import sqlite3
import threading

import numpy as np
import pytest

import tsstore
from tsstore import OwnerCategory, SeriesType

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "system.nc")


def hourly(name, values):
    return tsstore.SingleTimeSeries(name, T0, dt.timedelta(hours=1), np.asarray(values))


@pytest.mark.parametrize("dtype", ["<f8", ">f8", "<f4", "<i8", ">i4", "<u8", "bool"])
@pytest.mark.parametrize("eshape", [(), (3,)])
def test_every_dtype_and_shape_round_trips(path, dtype, eshape):
    rng = np.random.default_rng(7)
    data = (rng.random((48,) + eshape) * 1000).astype(dtype)
    if data.dtype.kind == "f":
        data.flat[0] = np.nan
    data = np.asfortranarray(data) if eshape else data  # any memory layout is accepted
    with tsstore.Store.create(path) as s:
        key = s.add_time_series(hourly("p", data), owner_id=1, owner_type="G", units="MW")
    with tsstore.Store.open(path, read_only=True) as s:
        ts = s.get_time_series(key)
    assert ts.data.shape == data.shape
    assert ts.data.dtype.kind == np.dtype(dtype).kind and ts.data.dtype.itemsize == np.dtype(dtype).itemsize
    np.testing.assert_array_equal(ts.data, data)  # NaN equals NaN here
    assert ts.initial_timestamp == T0 and ts.resolution == dt.timedelta(hours=1)


def test_keys_features_ranges_and_lists(path):
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly("max_active_power", np.arange(48.0)), owner_id=7, owner_type="PowerLoad",
                              features={"scenario": "high", "model_year": 2030})
        assert k == tsstore.Key(7, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "max_active_power", "PT1H",
                                None, {"scenario": "high", "model_year": 2030})
        assert s.has_time_series(k)
        part = s.get_time_series(k, start=T0 + dt.timedelta(hours=2), stop=dt.datetime(2024, 1, 1, 4))  # naive = UTC
        np.testing.assert_array_equal(part.data, [2.0, 3.0, 4.0])
        stamps = [np.datetime64("2024-01-01T00:00"), np.datetime64("2024-01-01T07:30:00.250")]
        s.add_time_series(tsstore.NonSequentialTimeSeries("outage", stamps, np.array([1.0, 0.5])), owner_id=9,
                          owner_type="Line")
        s.add_time_series(hourly("other", np.ones(24)), owner_id=8, owner_type="ThermalStandard")
        assert [x.owner_id for x in s.list_keys(owner_type="PowerLoad")] == [7]
        assert [x.name for x in s.list_keys(name_glob="max_*")] == ["max_active_power"]
        assert len(s.list_keys(features={"scenario": "high"})) == 1
        assert len(s.list_keys(series_type=SeriesType.NON_SEQUENTIAL_TIME_SERIES)) == 1
        ns = s.get_time_series(s.list_keys(owner_id=9)[0])
        assert ns.timestamps[1] == np.datetime64("2024-01-01T07:30:00.250", "ms")
        s.remove_time_series(k)
        assert not s.has_time_series(k)


def test_forecasts_whole_and_by_window(path):
    det = np.arange(4 * 5, dtype=float).reshape(4, 5)
    prob = np.arange(3 * 4 * 5, dtype=float).reshape(3, 4, 5)
    with tsstore.Store.create(path) as s:
        dk = s.add_time_series(tsstore.Deterministic("p", T0, "PT1H", dt.timedelta(hours=4), "PT2H", 5, det),
                               owner_id=1, owner_type="Wind")
        pk = s.add_time_series(tsstore.Probabilistic("p", T0, "PT1H", "PT4H", "PT2H", 5, [0.1, 0.5, 0.9], prob),
                               owner_id=2, owner_type="Wind")
        sk = s.add_time_series(tsstore.Scenarios("p", T0, "PT1H", "PT4H", "PT2H", 5, prob), owner_id=3,
                               owner_type="Wind")
    with tsstore.Store.open(path) as s:
        w = s.get_windows(dk, T0 + dt.timedelta(hours=2), T0 + dt.timedelta(hours=4))
        np.testing.assert_array_equal(w.data, det[:, 1:3])
        assert w.count == 2 and w.horizon == dt.timedelta(hours=4) and w.interval == dt.timedelta(hours=2)
        p = s.get_time_series(pk)
        assert p.percentiles == [0.1, 0.5, 0.9]
        np.testing.assert_array_equal(p.data, prob)
        assert isinstance(s.get_time_series(sk), tsstore.Scenarios)
        with pytest.raises(tsstore.InvalidParameterError, match="window"):
            s.get_windows(dk, T0 + dt.timedelta(hours=1))


def test_bulk_transactions_transform_and_maintenance(path):
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(48.0) + i), owner_id=i, owner_type="PowerLoad") for i in range(20)])
        assert [k.owner_id for k in keys] == list(range(20))
        with pytest.raises(tsstore.DuplicateTimeSeriesError):
            with s.bulk_add() as b:
                b.add(hourly("p", np.zeros(48)), owner_id=100, owner_type="PowerLoad")
                b.add(hourly("p", np.zeros(48)), owner_id=0, owner_type="PowerLoad")
        assert not s.list_keys(owner_id=100)
        with pytest.raises(RuntimeError):
            with s.transaction():
                s.add_time_series(hourly("t", np.zeros(24)), owner_id=500, owner_type="X")
                raise RuntimeError("roll back")
        assert not s.list_keys(owner_id=500)
        with s.transaction():
            s.add_time_series(hourly("t", np.zeros(24)), owner_id=501, owner_type="X")
        assert s.transform_single_time_series("P1D", dt.timedelta(hours=12), resolution="PT1H") == 21
        view = s.get_time_series(tsstore.Key(3, OwnerCategory.COMPONENT, SeriesType.ABSTRACT_DETERMINISTIC, "p", "PT1H",
                                             "PT12H"))
        np.testing.assert_array_equal(view.data[:, 1], np.arange(12, 36) + 3.0)
        report = s.verify_integrity()
        assert report["problems"] == [] and report["arrays_checked"] == 21
        assert s.compact()["datasets_dropped"] == 0
    db = sqlite3.connect(path + ".sqlite")
    assert db.execute("SELECT count(*) FROM time_series_associations WHERE time_series_type = "
                      "'DeterministicSingleTimeSeries'").fetchone() == (21,)


def test_bulk_add_of_mixed_items_round_trips(path):
    """The bulk path's shortcuts (texts shared by consecutive items, features parsed once, one
    block of arrays) against every kind of item: mixed dtypes and shapes, repeated and distinct
    texts, features, units, ext, a NonSequential and a forecast among SingleTimeSeries."""
    t0 = dt.datetime(2030, 1, 1)
    items = []
    for i in range(12):
        data = (np.arange(24 * (1 + i % 3)).reshape(24, -1) + i).astype(["<f8", "<f4", "bool", ">i4"][i % 4])
        if i % 4 == 2:
            data = data % 2 == 0
        items.append(dict(ts=tsstore.SingleTimeSeries("p" if i < 8 else f"p{i}", t0 if i % 2 else T0, "PT1H",
                                                      data[:, 0] if i % 3 == 0 else data),
                          owner_id=i, owner_type="Gen" if i < 6 else "Load",
                          features={"s": "hi"} if i in (3, 4, 9) else ({"n": i} if i == 10 else None),
                          units="MW" if i % 5 == 0 else None, ext='{"a": 1}' if i == 7 else None))
    stamps = [dt.datetime(2030, 1, 1, h) for h in (0, 3, 4)]
    items.append(dict(ts=tsstore.NonSequentialTimeSeries("ns", stamps, np.array([1.0, 2.0, 3.0])), owner_id=50,
                      owner_type="Gen"))
    items.append(dict(ts=tsstore.Deterministic("f", T0, "PT1H", dt.timedelta(hours=4), "PT2H", 3,
                                               np.arange(12.0).reshape(4, 3)), owner_id=51, owner_type="Gen"))
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(items)
    with tsstore.Store.open(path, read_only=True) as s:
        for item, key in zip(items, keys):
            ts = item["ts"]
            assert key == tsstore.Key(item["owner_id"], OwnerCategory.COMPONENT, ts.series_type, ts.name,
                                      None if isinstance(ts, tsstore.NonSequentialTimeSeries) else "PT1H",
                                      "PT2H" if isinstance(ts, tsstore.Deterministic) else None,
                                      dict(item.get("features") or {}))
            assert key.features == (item.get("features") or {})
            got = s.get_time_series(key)
            np.testing.assert_array_equal(got.data, np.asarray(ts.data))
            meta = s.get_metadata(key)
            assert meta["owner_type"] == item["owner_type"]
            assert meta["units"] == item.get("units") and meta["ext"] == item.get("ext")
        assert s.get_time_series(keys[1]).initial_timestamp == t0.replace(tzinfo=dt.timezone.utc)


def test_remove_where_removes_only_what_the_filter_selects(path):
    with tsstore.Store.create(path) as s:
        for i in range(6):
            s.add_time_series(hourly("load", np.full(24, float(i))), owner_id=i,
                              owner_type="PowerLoad" if i % 2 else "ThermalStandard")
        assert s.remove_time_series_where(owner_type="PowerLoad") == 3
        assert s.remove_time_series_where(name="absent") == 0
        with pytest.raises(tsstore.InvalidParameterError, match="resolution"):
            s.remove_time_series_where(resolution="hourly")
    db = sqlite3.connect(path + ".sqlite")
    assert db.execute("SELECT owner_id FROM time_series_associations ORDER BY owner_id").fetchall() == [(0,), (2,), (4,)]


def test_exceptions_from_real_bad_input(path):
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly("p", np.arange(4.0)), owner_id=1, owner_type="G")
        with pytest.raises(tsstore.DuplicateTimeSeriesError, match="already stored"):
            s.add_time_series(hourly("p", np.arange(4.0)), owner_id=1, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError, match="resolution"):
            s.add_time_series(tsstore.SingleTimeSeries("p", T0, "1 hour", np.arange(4.0)), owner_id=2, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError, match="units"):
            s.add_time_series(hourly("p", np.arange(4.0)), owner_id=2, owner_type="G", features={"units": "MW"})
        with pytest.raises(TypeError):
            s.add_time_series(hourly("p", np.array(["a", "b"])), owner_id=2, owner_type="G")
        with pytest.raises(tsstore.NotFoundError):
            s.get_time_series(tsstore.Key(9, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H"))
        assert isinstance(tsstore.NotFoundError("x"), KeyError)
    with tsstore.Store.open(path, read_only=True) as s:
        with pytest.raises(tsstore.ReadOnlyError):
            s.remove_time_series(k)
    with pytest.raises(tsstore.InvalidParameterError, match="already exists"):
        tsstore.Store.create(path)
    with pytest.raises(tsstore.NotFoundError, match="no such file"):
        tsstore.Store.open(path + ".missing")


def test_closed_store_refuses_calls(path):
    s = tsstore.Store.create(path)
    s.close()
    s.close()
    assert s.closed
    with pytest.raises(tsstore.InvalidHandleError, match="closed"):
        s.list_keys()


def test_threads_share_one_store(path):
    errors = []
    with tsstore.Store.create(path) as s:
        def work(t):
            try:
                for i in range(30):
                    k = s.add_time_series(hourly("p", np.arange(24.0) + t * 100 + i), owner_id=t * 1000 + i,
                                          owner_type="G")
                    assert s.get_time_series(k).data[0] == t * 100 + i
            except Exception as e:  # noqa: BLE001 - collected for the assertion below
                errors.append(e)
        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not errors
        assert len(s.list_keys()) == 180


def test_in_memory_persist(tmp_path):
    with tsstore.Store.in_memory() as s:
        k = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
        s.persist(str(tmp_path / "out.nc"))
    with tsstore.Store.open(str(tmp_path / "out.nc"), read_only=True) as s:
        np.testing.assert_array_equal(s.get_time_series(k).data, np.arange(24.0))


def test_compact_rewrite_gives_space_back(path):
    """compact(rewrite=True) replaces the pair with one holding only the live series: smaller,
    every survivor the same, the store still open on the new files; bad values of rewrite
    are refused by name."""
    import os
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(168.0) + i), owner_id=i, owner_type="PowerLoad") for i in range(500)])
        s.flush()
        for k in keys[50:]:
            s.remove_time_series(k)
        s.flush()
        before = os.path.getsize(path) + os.path.getsize(path + ".sqlite")
        report = s.compact(rewrite=True)
        assert report["slots_reclaimed"] == 450
        after = os.path.getsize(path) + os.path.getsize(path + ".sqlite")
        assert after < before / 3
        for i, k in enumerate(keys[:50]):
            np.testing.assert_array_equal(s.get_time_series(k).data, np.arange(168.0) + i)
        s.add_time_series(hourly("q", np.zeros(24)), owner_id=1, owner_type="PowerLoad")
        with pytest.raises(TypeError, match="rewrite"):
            s.compact(rewrite="yes")
    assert not os.path.exists(path + ".compacting")
    with tsstore.Store.open(path, read_only=True) as s:
        assert len(s.list_keys()) == 51
        assert s.verify_integrity()["problems"] == []
    with tsstore.Store.in_memory() as s:
        with pytest.raises(tsstore.InvalidParameterError, match="rewrite"):
            s.compact(rewrite=True)


def test_readers_fill_reused_arrays(path):
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(72.0) + 1000 * i), owner_id=i, owner_type="PowerLoad") for i in range(30)])
        whole = s.get_many(keys)
        assert [w.data[1] for w in whole[:3]] == [1.0, 1001.0, 2001.0]
        with s.static_reader("PT1H", keys) as rd:
            assert rd.grid() == (T0, 72)
            buf = rd.groups[0].values
            for h in range(72):
                np.testing.assert_array_equal(rd.read_at(T0 + dt.timedelta(hours=h)), np.arange(30) * 1000.0 + h)
                assert rd.groups[0].values is buf  # reused, not reallocated
            with pytest.raises(tsstore.InvalidParameterError):
                rd.read_at(T0 + dt.timedelta(minutes=30))
        assert s.transform_single_time_series("PT24H", "PT24H") == 30
        fkeys = [tsstore.Key(i, OwnerCategory.COMPONENT, SeriesType.ABSTRACT_DETERMINISTIC, "p", "PT1H", "P1D")
                 for i in range(30)]
        with s.forecast_reader(SeriesType.ABSTRACT_DETERMINISTIC, "PT1H", fkeys) as fr:
            assert fr.grid() == (T0, 3)
            w = fr.read_at(T0 + dt.timedelta(days=2))
            assert w.shape == (30, 24)
            np.testing.assert_array_equal(w[5], np.arange(48, 72) + 5000.0)


def test_associations_queries_and_moves(path):
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly("max_active_power", np.arange(24.0)), owner_id=1, owner_type="ThermalStandard",
                              units="MW", features={"zone": 2})
        s.add_supplemental_attribute_associations([(1, "ThermalStandard", 10, "GeographicInfo"),
                                                   (2, "PowerLoad", 10, "GeographicInfo")])
        with pytest.raises(tsstore.DuplicateAssociationError):
            s.add_supplemental_attribute_associations([(1, "Other", 10, "Other")])
        assert s.has_supplemental_attribute_association(2, 10)
        assert [r[0] for r in s.list_supplemental_attribute_associations(attribute_ids=[10])] == [1, 2]
        assert s.list_supplemental_attribute_associations(component_ids=[]) == []
        s.add_parent_child_associations([(40, "ThermalStandard", 99, "ACBus")])
        assert s.children_of(40) == [99] and s.parents_of(99) == [40]
        assert s.remove_supplemental_attribute_associations(component_type="PowerLoad") == 1
        meta = s.get_metadata(k)
        assert meta["units"] == "MW" and meta["length"] == 24 and meta["series_type"] == SeriesType.SINGLE_TIME_SERIES
        assert len(meta["data_hash"]) == 64
        copy = s.copy_time_series(k, owner_id=7, owner_type="ACBus")
        assert copy.owner_id == 7 and copy.features == {"zone": 2}
        renamed = s.rename_time_series(copy, "p2")
        assert s.replace_owner_id(7, 70) == 1
        assert s.counts_by_type() == {SeriesType.SINGLE_TIME_SERIES: 2}
        assert s.list_names() == ["max_active_power", "p2"] and s.list_owner_types() == ["ACBus", "ThermalStandard"]
        assert s.list_resolutions() == [dt.timedelta(hours=1)]
        s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", "PT2H", "PT2H", 2, np.zeros((2, 2))), owner_id=3,
                          owner_type="Wind")
        (params,) = s.forecast_parameters()
        assert params["count"] == 2 and params["horizon"] == dt.timedelta(hours=2) and params["initial_timestamp"] == T0
        assert not s.has_time_series(renamed)  # its owner moved to 70


def test_to_pandas_and_calendar_steps(path):
    pd = pytest.importorskip("pandas")
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(tsstore.SingleTimeSeries("inflow", dt.datetime(2024, 1, 31), "P1M", np.arange(3.0)),
                              owner_id=1, owner_type="Hydro")
        c = s.add_time_series(hourly("cost", np.arange(12).reshape(4, 3)), owner_id=2, owner_type="Gen")
        monthly = s.get_time_series(k)
        assert monthly.resolution == tsstore.Period("P1M")
        assert monthly.timestamps.astype("datetime64[D]").astype(str).tolist() == [
            "2024-01-31", "2024-02-29", "2024-03-31"]  # clamped from t0 in one jump
        series = monthly.to_pandas()
        assert isinstance(series, pd.Series) and series.index[1] == pd.Timestamp("2024-02-29", tz="UTC")
        frame = s.get_time_series(c).to_pandas()
        assert frame.shape == (4, 3) and frame.iloc[3, 2] == 11


KILLED_WRITER = """
import os, signal, sys
import datetime as dt
import numpy as np
import tsstore
T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)
s = tsstore.Store.open(sys.argv[1])
s.set_write_buffer(0)  # every array goes into the file as it is added
with s.transaction():
    for i in range(100, 140):
        s.add_time_series(tsstore.SingleTimeSeries("p", T0, dt.timedelta(hours=1), np.arange(168.0) + i),
                          owner_id=i, owner_type="PowerLoad")
        if i % 10 == 9:  # a new dataset: its define phase flushes HDF5 mid-unit
            s.add_time_series(tsstore.SingleTimeSeries(f"q{i}", T0, dt.timedelta(hours=1), np.zeros(24 + i % 7)),
                              owner_id=i, owner_type="PowerLoad")
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_writer_killed_mid_write_is_rolled_back_on_open(path):
    import os
    import signal
    import subprocess
    import sys
    with tsstore.Store.create(path) as s:
        for i in range(20):
            s.add_time_series(hourly("p", np.arange(168.0) + i), owner_id=i, owner_type="PowerLoad")
    # A 4 KiB journal overlay, and HDF5 flushed at each define (as netcdf-c's route did): the
    # killed unit writes committed pages into the file.
    env = dict(os.environ, TSSTORE_JOURNAL_SPILL="4096", TSSTORE_HDF5_FLUSH_AT_DEFINE="1")
    proc = subprocess.run([sys.executable, "-c", KILLED_WRITER, path], env=env, capture_output=True, text=True)
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert os.path.exists(path + "-journal")
    with pytest.raises(tsstore.TsStoreIOError, match="hot journal"):
        tsstore.Store.open(path, read_only=True)
    with tsstore.Store.open(path) as s:
        assert "rolled" in s.recovered
        for i in range(20):
            key = tsstore.Key(i, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
            np.testing.assert_array_equal(s.get_time_series(key).data, np.arange(168.0) + i)
        assert not s.list_keys(owner_id=100)
        assert s.verify_integrity()["problems"] == []
    with tsstore.Store.open(path) as s:
        assert s.recovered == ""
    assert not os.path.exists(path + "-journal")


def test_a_collected_store_is_closed_by_the_collector(path):
    """A store and a reader in reference cycles are finalised by the garbage collector, in
    either order, possibly between a C call of another store and the reading of what it
    returned: the finalisers close and free them at once, the store's pending write is
    committed, and the other store's answers are untouched."""
    import gc
    with tsstore.Store.create(path + ".other") as other:
        kept = other.add_time_series(hourly("kept", np.arange(3.0)), owner_id=5, owner_type="G")
        s = tsstore.Store.create(path)
        key = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
        cycle = [s]
        cycle.append(cycle)
        reader = s.static_reader("PT1H", [key])
        reader_cycle = [reader, None]
        reader_cycle[1] = reader_cycle
        del s, cycle, reader, reader_cycle
        listed = other.list_keys()  # its strings read, then the collector runs the finalisers
        gc.collect()
        assert listed == [kept] and listed[0].name == "kept"
        assert other.get_metadata(kept)["owner_type"] == "G"
    with tsstore.Store.open(path, read_only=True) as again:  # closed: its write committed
        np.testing.assert_array_equal(again.get_time_series(key).data, np.arange(24.0))


def test_get_many_mixed_keys_equal_single_reads(path):
    """get_many over keys of several names, features, resolutions, dtypes and types (its
    column-wise fast path and the per-series one) reads what get_time_series reads; keys whose
    fields compare equal but convert differently are not conflated; bad keys fail as a single
    read's do."""
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G") for i in range(20)])
        keys.append(s.add_time_series(hourly("p", np.arange(24.0) + 100), owner_id=3, owner_type="G",
                                      features={"a": 1}))
        keys.append(s.add_time_series(hourly("p", np.arange(24.0) + 200), owner_id=3, owner_type="G",
                                      features={"a": 1.0}))
        keys.append(s.add_time_series(hourly("p", np.arange(24.0) + 250), owner_id=3, owner_type="G",
                                      features={"a": True}))
        keys.append(s.add_time_series(hourly("q", np.arange(12, dtype=np.int32)), owner_id=4, owner_type="G"))
        keys.append(s.add_time_series(tsstore.SingleTimeSeries("p", T0, "P1D", np.arange(5.0) + 300), owner_id=4,
                                      owner_type="G"))
        keys.append(s.add_time_series(tsstore.NonSequentialTimeSeries(
            "ns", [T0, T0 + dt.timedelta(hours=5)], np.array([1.0, 2.0])), owner_id=5, owner_type="G"))
        keys.append(s.add_time_series(hourly("p", np.arange(48.0).reshape(16, 3)), owner_id=26, owner_type="G"))
        singles = keys[:20]
        for batch in (keys, singles, singles[::-1] + singles[:2], keys[20:23]):
            got = s.get_many(batch)
            assert len(got) == len(batch)
            for k, g in zip(batch, got):
                want = s.get_time_series(k)
                assert type(g) is type(want) and g.name == want.name
                np.testing.assert_array_equal(g.data, want.data)
                assert g.data.dtype == want.data.dtype
                if isinstance(g, tsstore.SingleTimeSeries):
                    assert g.initial_timestamp == want.initial_timestamp and g.resolution == want.resolution
        assert [g.data[0] for g in s.get_many(keys[20:23])] == [100.0, 200.0, 250.0]
        fresh = [tsstore.Key(i, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H") for i in range(20)]
        assert [g.data[0] for g in s.get_many(fresh)] == list(range(20))
        missing = fresh[:3] + [tsstore.Key(99, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")]
        with pytest.raises(tsstore.NotFoundError, match=r"^get_many: keys\[3\]: "):
            s.get_many(missing)
        for bad in (1.0, 1 << 64, np.int64(2)):
            k = tsstore.Key(bad, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
            with pytest.raises(Exception) as single:
                s.get_time_series(k)
            with pytest.raises(type(single.value)):
                s.get_many(fresh[:2] + [k])
        k = tsstore.Key(True, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
        assert s.get_many([k])[0].data[0] == s.get_time_series(k).data[0] == 1.0


def test_get_many_of_keys_built_by_hand_tells_neighbouring_groups_apart(path):
    """Keys built by hand are written group by group, a run of keys of one group sharing its
    template: neighbours that differ in one part only (name, resolution, features, and
    feature values that compare equal across types) each read their own series."""
    key = functools.partial(tsstore.Key, owner_category=OwnerCategory.COMPONENT,
                            series_type=SeriesType.SINGLE_TIME_SERIES)
    with tsstore.Store.create(path) as s:
        for owner in (3, 4):
            s.add_time_series(hourly("p", np.arange(24.0) + owner), owner_id=owner, owner_type="G")
        for i, f in enumerate(({"a": 1}, {"a": 1.0}, {"a": True})):
            s.add_time_series(hourly("p", np.arange(24.0) + 100 * (i + 1)), owner_id=3, owner_type="G", features=f)
        s.add_time_series(hourly("q", np.arange(24.0) + 50), owner_id=4, owner_type="G")
        s.add_time_series(tsstore.SingleTimeSeries("p", T0, "P1D", np.arange(5.0) + 400), owner_id=4,
                          owner_type="G")
    with tsstore.Store.open(path, read_only=True) as s:
        fresh = [key(owner_id=4, name="p", resolution="P1D"), key(owner_id=4, name="p", resolution="PT1H"),
                 key(owner_id=4, name="q", resolution="PT1H"), key(owner_id=3, name="p", resolution="PT1H"),
                 key(owner_id=3, name="p", resolution="PT1H", features={"a": 1}),
                 key(owner_id=3, name="p", resolution="PT1H", features={"a": 1.0}),
                 key(owner_id=3, name="p", resolution="PT1H", features={"a": True}),
                 key(owner_id=3, name="p", resolution=dt.timedelta(hours=1)), key(owner_id=4, name="p", resolution="P1D")]
        assert [float(g.data[0]) for g in s.get_many(fresh)] == [400, 4, 50, 3, 100, 200, 300, 3, 400]


def test_get_many_keeps_each_keys_template_and_shares_only_fresh_ones(path, monkeypatch):
    """A key's kept template is never replaced (the lookups get_many passes point into it, so
    a replaced one could be freed before the call), even for an owner id given as a bool and
    with the shared templates emptied between its two places in a list; and a key's kept
    template, which may predate a change to its features, is never lent to the next key."""
    key = functools.partial(tsstore.Key, owner_category=OwnerCategory.COMPONENT,
                            series_type=SeriesType.SINGLE_TIME_SERIES, resolution="PT1H")
    with tsstore.Store.create(path) as s:
        s.add_time_series(hourly("v", np.arange(24.0) + 100), owner_id=1, owner_type="G", features={"a": 1})
        s.add_time_series(hourly("p", np.arange(24.0) + 300), owner_id=1, owner_type="G", features={"a": 1})
        s.add_time_series(hourly("o", np.arange(24.0) + 10), owner_id=2, owner_type="G")
        s.add_time_series(hourly("p", np.arange(24.0) + 200), owner_id=2, owner_type="G")
        s.add_time_series(hourly("p", np.arange(24.0) + 201), owner_id=2, owner_type="G", features={"a": 1})
    with tsstore.Store.open(path, read_only=True) as s:
        monkeypatch.setattr(tsstore._series, "_MAX_TEMPLATES", 1)  # every new group empties them
        kb = key(owner_id=True, name="v", features={"a": 1})
        assert [float(g.data[0]) for g in s.get_many([kb])] == [100]
        kept = kb._template
        got = s.get_many([kb, key(owner_id=2, name="o"), kb])
        assert kb._template is kept and [float(g.data[0]) for g in got] == [100, 10, 100]
        listed, = [k for k in s.list_keys(owner_id=1) if k.name == "p"]
        listed.features.clear()  # its kept template still names {"a": 1}
        assert float(s.get_many([listed, key(owner_id=2, name="p")])[1].data[0]) == 200


def test_a_batch_of_small_and_large_arrays_reads_back_each(path):
    """A batch hands the library each array where it is: writable ones, read-only ones (their
    address taken another way) and the copies the add made of arrays it had to convert (a
    strided view, a list), which must live until the call ends. Mixed in any order, every
    series reads back its own values."""
    rng = np.random.default_rng(3)
    read_only = np.frombuffer(np.arange(48.0).tobytes())
    datas = [rng.random(8760), rng.random(24), rng.random((3000, 3)), np.arange(5, dtype=np.int32),
             read_only, [1.5, 2.5, 3.5], rng.random(2048)] + [rng.random(48)[::2] for _ in range(300)]
    assert not read_only.flags.writeable
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(dict(ts=hourly("p", d), owner_id=i, owner_type="G") for i, d in enumerate(datas))
    with tsstore.Store.open(path, read_only=True) as s:
        for k, d in zip(keys, datas):
            np.testing.assert_array_equal(s.get_time_series(k).data, np.asarray(d))


def test_get_many_after_a_long_series_does_not_size_every_item_by_it(path):
    """get_many sizes its items by the largest series of the last one; after one long series,
    many short ones must not each get that much memory (2,000 × 800 KB asked for 384 KB)."""
    import tracemalloc
    with tsstore.Store.create(path) as s:
        long = s.add_time_series(hourly("long", np.arange(100_000.0)), owner_id=0, owner_type="G")
        short = s.add_time_series_bulk(dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G")
                                       for i in range(1, 2001))
    with tsstore.Store.open(path, read_only=True) as s:
        s.get_many([long])
        tracemalloc.start()
        try:
            got = s.get_many(short)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert [g.data[0] for g in got[:3]] == [1.0, 2.0, 3.0]
    assert peak < 64 << 20, f"get_many of 2,000 × 24 f64 allocated {peak >> 20} MiB"


def test_first_get_many_of_a_store_guesses_from_its_first_key(path):
    """A store's first get_many sizes every item as its first key's series (test_boundary
    counts the calls). A first key smaller than the others (the read is refused and sized
    again), larger (gaps in the block), or missing still reads right or fails naming it."""
    with tsstore.Store.create(path) as s:
        like = s.add_time_series_bulk(dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G")
                                      for i in range(50))
        wide = s.add_time_series(hourly("w", np.arange(240.0)), owner_id=0, owner_type="G")
    for batch in (like, like[:3] + [wide], [wide] + like[:3]):
        with tsstore.Store.open(path, read_only=True) as s:
            got = s.get_many(batch)
            for k, g in zip(batch, got):
                np.testing.assert_array_equal(g.data, s.get_time_series(k).data)
    missing = tsstore.Key(999, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
    with tsstore.Store.open(path, read_only=True) as s:
        with pytest.raises(tsstore.NotFoundError, match=r"^get_many: keys\[0\]: "):
            s.get_many([missing] + like[:2])
        assert [g.data[0] for g in s.get_many(like[:2])] == [0.0, 1.0]


def test_get_many_gives_each_series_its_own_start_and_resolution(path):
    """A bulk read of like arrays whose starts and resolutions differ (a calendar one among
    them) gives each series its own; one whose series share them gives each the same."""
    periods = ["PT1H", "PT30M", tsstore.Period(months=1), "PT1H", "P1D"]
    starts = [T0, T0 + dt.timedelta(days=3), T0, T0 + dt.timedelta(hours=7), T0]
    with tsstore.Store.create(path) as s:
        mixed = [s.add_time_series(tsstore.SingleTimeSeries("p", t, r, np.arange(12.0) + i), owner_id=i,
                                   owner_type="G") for i, (t, r) in enumerate(zip(starts, periods))]
        same = s.add_time_series_bulk(dict(ts=hourly("q", np.arange(12.0)), owner_id=i, owner_type="G")
                                      for i in range(4))
        for batch in (mixed, same, mixed[::-1] + same):
            for k, g in zip(batch, s.get_many(batch)):
                want = s.get_time_series(k)
                assert (g.initial_timestamp, g.resolution) == (want.initial_timestamp, want.resolution)
                np.testing.assert_array_equal(g.data, want.data)
                # made as __init__ makes a series: the same fields, nothing more
                assert vars(g).keys() == vars(want).keys() == vars(hourly("q", np.arange(3.0))).keys()
        got = s.get_many(mixed)
        assert [g.resolution for g in got] == [dt.timedelta(hours=1), dt.timedelta(minutes=30),
                                               tsstore.Period(months=1), dt.timedelta(hours=1), dt.timedelta(days=1)]
        assert [g.initial_timestamp.replace(tzinfo=None) for g in got] == [t.replace(tzinfo=None) for t in starts]


def test_bulk_calls_leave_the_collector_alone_and_keys_untracked(path):
    """A bulk add and a bulk read run with the cyclic collector on, as the process left it.
    The keys a store hands back are not tracked by it (no key can be part of a cycle), and a
    bulk read's series are one tracked object each (their dicts hold nothing it tracks).
    Three tracked objects a series made a bulk add of 100,000 set off full collections that
    walked the whole process, and the binding once paused the collector to avoid them."""
    import gc
    n = 300
    seen_on = []

    def items(name):
        for i in range(n):
            seen_on.append(gc.isenabled())
            yield dict(ts=hourly(name, np.arange(24.0) + i), owner_id=i, owner_type="G")

    def tracked():
        gc.collect()
        return len(gc.get_objects())
    with tsstore.Store.create(path) as s:
        s.get_many(s.add_time_series_bulk(items("p")))  # the store's own first-use objects made
        before = tracked()
        keys = s.add_time_series_bulk(items("q"))
        added = tracked() - before
        got = s.get_many(keys)
        read = tracked() - before - added
        assert all(seen_on) and gc.isenabled()
        assert added < 20 and n <= read < n + 20, (added, read)
        assert not any(map(gc.is_tracked, keys)) and not hasattr(keys[0], "__dict__")
        assert not gc.is_tracked(vars(got[0]))
        del got
        gc.collect()  # untracked keys stay whole and usable; listed keys are untracked too
        assert [g.data[0] for g in s.get_many(keys[-2:])] == [n - 2, n - 1] and s.has_time_series(keys[5])
        assert not any(map(gc.is_tracked, s.list_keys()))


def test_has_over_keys_reuses_their_lookup_and_still_checks_them(path):
    """has_time_series(key) converts a Key's lookup once; a copy made by pickle builds its
    own, and a Key whose field is bad is refused naming the field."""
    import pickle
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=3, owner_type="Bus")
        assert s.has_time_series(k) and s.has_time_series(k)
        copy = pickle.loads(pickle.dumps(k))
        assert copy._lookup_ref is None and s.has_time_series(copy)
        other = tsstore.Key(4, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
        assert not s.has_time_series(other) and not s.has_time_series(other)
        bad = dataclasses.replace(k)
        object.__setattr__(bad, "owner_id", "3")
        with pytest.raises(tsstore.InvalidParameterError, match=r"has_time_series.*key\.owner_id: '3'"):
            s.has_time_series(bad)


def _plain_batch():
    """Plain items (ts, owner_id, owner_type, owner_category) whose timestamps, periods, texts
    and dtypes change from item to item, some as equal objects that are not the same object."""
    t1, res = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc), ["PT1H", dt.timedelta(hours=1), "PT30M"]
    items = []
    for i in range(40):
        data = (np.arange(24 * (1 + i % 2)).reshape(24, -1) + i).astype(["<f8", "<f4", "<i8"][i % 3])
        items.append(dict(ts=tsstore.SingleTimeSeries("p" if i % 5 else "q", [T0, t1, T0.replace()][i % 3],
                                                      res[i // 7 % 3], data[:, 0].copy() if i % 4 else data),
                          owner_id=i, owner_type=["G", "L"][i // 10 % 2],
                          **({"owner_category": [OwnerCategory.SUPPLEMENTAL_ATTRIBUTE, 0][i % 2]} if i % 6 == 0 else {})))
    return items


def _mixed_batch():
    """_plain_batch with items of every other kind among them: features, units and ext,
    lists and big-endian arrays, and every series type."""
    h = dt.timedelta(hours=1)
    items = _plain_batch()
    items[3].update(features={"zone": 2, "scenario": "high"}, units="MW", ext='{"a": 1}')
    items[7]["ts"] = tsstore.SingleTimeSeries("l", T0, "PT1H", [1.0, 2.0, 3.0])
    items[11]["ts"] = tsstore.SingleTimeSeries("b", T0, "PT1H", np.arange(5.0).astype(">f8"))
    items[13]["ts"] = tsstore.NonSequentialTimeSeries("n", [T0, T0 + h, T0 + 5 * h], np.arange(3.0))
    items[17]["ts"] = tsstore.Deterministic("d", T0, "PT1H", dt.timedelta(hours=48), "PT24H", 2, np.zeros((48, 2)))
    items[19]["ts"] = tsstore.Probabilistic("r", T0, "PT1H", "PT4H", "PT2H", 3, [0.1, 0.5, 0.9], np.ones((3, 4, 3)))
    items[23]["ts"] = tsstore.Scenarios("s", T0, "PT1H", "PT2H", "PT1H", 2, np.full((3, 2, 2), 7, dtype="<i4"))
    items[29].update(units="kV")
    return items


def _catalog_rows(path):
    db = sqlite3.connect(path + ".sqlite")
    cols = [r[1] for r in db.execute("PRAGMA table_info(time_series_associations)") if r[1] != "id"]
    return db.execute(f"SELECT {', '.join(cols)} FROM time_series_associations ORDER BY owner_id, name").fetchall()


def _added_one_by_one(s, items):
    return [s.add_time_series(**item) for item in items]


def _added_in_a_block(s, items):
    with s.bulk_add() as batch:
        for item in items:
            batch.add(**item)
    return batch.keys


@pytest.mark.parametrize("make", [_plain_batch, _mixed_batch])
def test_every_add_stores_the_same_series(tmp_path, make):
    """add_time_series_bulk (from a list or any iterable), bulk_add and add_time_series one
    at a time check their items by one set of rules: the same items give equal keys,
    catalog rows and arrays whichever way they are added."""
    items = make()
    ways = {"bulk": lambda s: s.add_time_series_bulk(items), "iter": lambda s: s.add_time_series_bulk(iter(items)),
            "block": lambda s: _added_in_a_block(s, items), "single": lambda s: _added_one_by_one(s, items)}
    keys, rows = {}, {}
    for way, add in ways.items():
        path = str(tmp_path / f"{way}.nc")
        with tsstore.Store.create(path) as s:
            keys[way] = add(s)
        rows[way] = _catalog_rows(path)
    for way in ways:
        assert keys[way] == keys["bulk"] and [hash(k) for k in keys[way]] == [hash(k) for k in keys["bulk"]]
        assert [k.features for k in keys[way]] == [k.features for k in keys["bulk"]]
        assert rows[way] == rows["bulk"], way
    assert keys["bulk"][3].features == ({"zone": 2, "scenario": "high"} if make is _mixed_batch else {})
    with tsstore.Store.open(str(tmp_path / "bulk.nc"), read_only=True) as s:
        for item, key in zip(items, keys["bulk"]):
            got, want = s.get_time_series(key), np.asarray(item["ts"].data)
            np.testing.assert_array_equal(got.data, want)
            assert got.data.dtype.kind == want.dtype.kind and s.has_time_series(key)


# Each bad item 5, and how every add refuses it: the exception, then the message after the
# operation and the item (a bulk add's items[5]: , a block's items[5]: ; add_time_series none).
_REFUSALS = [
    (dict(owner_id="7"), TypeError, "owner_id: an integer is needed, not str ('7')"),
    (dict(owner_type=7), TypeError, "owner_type: a str is needed, not int (7)"),
    (dict(owner_category="Bus"), tsstore.InvalidParameterError,
     "owner_category: 'Bus' is not one of COMPONENT (0), SUPPLEMENTAL_ATTRIBUTE (1)"),
    (dict(ts_resolution="hourly"), tsstore.InvalidParameterError,
     "ts.resolution: 'hourly' is not an ISO-8601 duration such as 'PT1H', 'P1D' or 'P1M'"),
    (dict(ts_data=np.zeros(0)), tsstore.InvalidParameterError,
     "ts.data: shape (0,) has an empty axis 0; a series holds at least one step, window and element"),
    (dict(ts_data=np.array(["a"] * 24)), TypeError,
     "ts.data: tsstore stores f64, f32, i64, i32, u64 and bool arrays, not <U1; convert it first "
     "(data.astype(...)) and it reads back as the stored dtype"),
    (dict(ts="a series"), TypeError, "ts: str is not a tsstore series type"),
    (dict(features={"units": 1}), tsstore.InvalidParameterError, "features['units']: "),
    (dict(units=5), TypeError, "units: a str is needed, not int (5)"),
    (dict(ts_name="a\0b"), tsstore.InvalidParameterError, "name: text 'a\\x00b' contains a NUL character"),
]


def _with_bad_item(bad):
    items = _plain_batch()[:10]
    ts = items[5]["ts"]
    for k, v in bad.items():
        if k.startswith("ts_"):
            setattr(ts, k[3:], v)
        else:
            items[5][k] = v
    return items


@pytest.mark.parametrize("bad, cls, why", _REFUSALS)
def test_every_add_refuses_a_bad_item_alike(tmp_path, bad, cls, why):
    """A bad item is refused with the same exception and words by a bulk add, a bulk_add
    block and add_time_series, the batches naming its index; nothing is stored."""
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        with pytest.raises(cls) as e:
            s.add_time_series_bulk(_with_bad_item(bad))
        assert str(e.value).startswith("add_time_series_bulk: items[5]: " + why) and "descs" not in str(e.value)
        with pytest.raises(cls) as e:
            _added_in_a_block(s, _with_bad_item(bad))
        assert str(e.value).startswith("bulk_add: items[5]: " + why)
        assert s.list_keys() == []
        with pytest.raises(cls) as e:
            s.add_time_series(**_with_bad_item(bad)[5])
        assert str(e.value).startswith("add_time_series: " + why)
        if isinstance(e.value, tsstore.TsStoreError) and e.value.reason:  # the library refused it
            assert (e.value.item, e.value.detail) == (None, "units")


@pytest.mark.parametrize("item, why", [
    (5, "an item is a dict of add_time_series' arguments, not int"),
    ({"ts": None, "owner_id": 1}, "missing 1 required positional argument: 'owner_type'"),
    ({"ts": None, "owner_id": 1, "owner_type": "G", "colour": 1}, "got an unexpected keyword argument 'colour'"),
])
def test_a_bulk_item_that_is_not_add_time_series_arguments_is_refused(path, item, why):
    with tsstore.Store.create(path) as s:
        items = _plain_batch()[:3] + [item]
        with pytest.raises(TypeError, match=r"^add_time_series_bulk: items\[3\]: .*" + why):
            s.add_time_series_bulk(items)
        assert s.list_keys() == []


def test_a_duplicate_in_a_batch_is_refused_naming_both(path):
    with tsstore.Store.create(path) as s:
        items = _plain_batch()[:10]
        items[5] = dict(items[3])
        with pytest.raises(tsstore.DuplicateTimeSeriesError) as e:
            s.add_time_series_bulk(items)
        assert e.value.item == 5 and str(e.value).startswith("add_time_series_bulk: items[5]: ")
        assert s.list_keys() == []


def _many_items(n):
    return [dict(ts=hourly("p", np.arange(3.0) + i), owner_id=i, owner_type="G") for i in range(n)]


@pytest.mark.parametrize("at", [8191, 8192, 9000, 16500])
@pytest.mark.parametrize("fault, cls, why", [
    ("check", TypeError, "units: a str is needed, not int (5)"),
    ("duplicate", tsstore.DuplicateTimeSeriesError, ""),
    ("not an item", TypeError, "an item is a dict of add_time_series' arguments, not int"),
])
def test_a_bulk_add_refused_in_a_later_slice_stores_nothing(path, at, fault, cls, why):
    """add_time_series_bulk checks its items a slice of 8,192 at a time while the library adds
    the slice before: a fault found by Python's checks or by the library in a later slice
    names the item and undoes the slices already added, and the store goes on working."""
    items = _many_items(17000)
    if fault == "check":
        items[at]["units"] = 5
    elif fault == "duplicate":
        items[at] = dict(items[3])
    else:
        items[at] = 5
    with tsstore.Store.create(path) as s:
        with pytest.raises(cls) as e:
            s.add_time_series_bulk(iter(items))
        assert str(e.value).startswith(f"add_time_series_bulk: items[{at}]: {why}")
        assert s.list_keys() == []
        keys = s.add_time_series_bulk(_many_items(10))
    with tsstore.Store.open(path, read_only=True) as s:
        assert s.list_keys() == keys
        assert s.get_time_series(keys[9]).data.tolist() == [9.0, 10.0, 11.0]


@pytest.mark.parametrize("late", [600, 2000, 9000])
def test_a_bulk_add_with_two_faults_names_the_first(path, late):
    """A duplicate the library finds at item 100 and a non-item Python finds later: the
    refusal names item 100 wherever the second fault is, though Python may check the later
    slice while the library is still adding the first."""
    items = _many_items(10000)
    items[100] = dict(items[3])
    items[late] = 5
    with tsstore.Store.create(path) as s:
        with pytest.raises(tsstore.DuplicateTimeSeriesError) as e:
            s.add_time_series_bulk(items)
        assert e.value.item == 100 and str(e.value).startswith("add_time_series_bulk: items[100]: ")
        assert s.list_keys() == []


def test_a_bulk_add_of_several_slices_keeps_every_items_own_fields(path):
    """Items of three slices, whose features, units and types change within and across the
    slices, read back each with its own."""
    items = _many_items(20000)
    for i in (5, 8191, 8192, 12000, 19999):
        items[i]["features"] = {"scenario": f"s{i}"}
        items[i]["units"] = f"u{i}"
    items[8193]["ts"] = tsstore.NonSequentialTimeSeries("n", [T0, T0 + dt.timedelta(hours=2)], np.array([1.0, 2.0]))
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(items)
    featured = (5, 8191, 8192, 12000, 19999)
    with tsstore.Store.open(path, read_only=True) as s:
        listed = {k.owner_id: k for k in s.list_keys()}
        assert len(listed) == 20000
        for i in range(20000):
            assert dict(listed[i].features) == ({"scenario": f"s{i}"} if i in featured else {}), i
            assert listed[i] == keys[i]
        for i in (0, 5, 8191, 8192, 8193, 8197, 12000, 16383, 19998, 19999):
            assert s.get_metadata(keys[i])["units"] == (f"u{i}" if i in featured else None), i
            got = s.get_time_series(keys[i]).data.tolist()
            assert got == ([1.0, 2.0] if i == 8193 else [i, i + 1.0, i + 2.0])


def test_a_key_reads_right_through_its_remembered_size(tmp_path):
    """get_time_series(key) reads into a buffer of the size the key's last read had: the same
    Key read from a store where its series is longer, then shorter, then from the first
    again, and keys of other types read twice, each return their own values."""
    short, long_ = str(tmp_path / "short.nc"), str(tmp_path / "long.nc")
    stamps = [dt.datetime(2024, 1, 1, h, tzinfo=dt.timezone.utc) for h in (0, 5, 7)]
    with tsstore.Store.create(short) as s:
        key = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
        ns = s.add_time_series(tsstore.NonSequentialTimeSeries("n", stamps, np.array([1.0, 2.0, 3.0])),
                               owner_id=1, owner_type="G")
        fc = s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", dt.timedelta(hours=4), "PT2H", 3,
                                                     np.arange(12.0).reshape(4, 3)), owner_id=1, owner_type="G")
    with tsstore.Store.create(long_) as s:
        s.add_time_series(hourly("p", np.arange(48.0) + 100), owner_id=1, owner_type="G")
    with tsstore.Store.open(short, read_only=True) as a, tsstore.Store.open(long_, read_only=True) as b:
        for store, want in ((a, np.arange(24.0)), (a, np.arange(24.0)), (b, np.arange(48.0) + 100),
                            (a, np.arange(24.0)), (b, np.arange(48.0) + 100)):
            got = store.get_time_series(key)
            np.testing.assert_array_equal(got.data, want)
            assert got.initial_timestamp == T0 and got.resolution == dt.timedelta(hours=1) and got.name == "p"
        for _ in range(2):
            got = a.get_time_series(ns)
            np.testing.assert_array_equal(got.data, [1.0, 2.0, 3.0])
            assert list(got.timestamps.astype("datetime64[h]").astype(int) % 24) == [0, 5, 7]
            got = a.get_time_series(fc)
            assert isinstance(got, tsstore.Deterministic) and got.data.shape == (4, 3) and got.count == 3
            np.testing.assert_array_equal(got.data, np.arange(12.0).reshape(4, 3))


def test_listed_keys_share_lookup_templates_that_name_each_series(path):
    """Keys from list_keys build their lookups from a template per name, type, periods and
    features: each one's struct names its own owner and id, with the strings a Key built by
    hand converts to, and reads back its own series."""
    with tsstore.Store.create(path) as s:
        for i in range(6):
            s.add_time_series(hourly("p" if i < 4 else "q", np.arange(24.0) + i), owner_id=i, owner_type="Bus",
                              features={"scenario": "high"} if i % 2 else None)
        listed = s.list_keys()
        assert len({id(k._template) for k in listed}) == 4  # p, p+high, q, q+high
        for k in listed:
            q = k.lookup()
            by_hand = tsstore.Key(k.owner_id, k.owner_category, k.series_type, k.name, k.resolution,
                                  features=dict(k.features)).lookup()
            assert (q.owner_id, q.name, q.features_json, q.resolution.value) == \
                   (by_hand.owner_id, by_hand.name, by_hand.features_json, by_hand.resolution.value)
            assert q.series_id == k._id != 0
            assert s.has_time_series(k)
            assert s.get_time_series(k).data[0] == k.owner_id

"""The rest of the public API: hash queries, summaries, association counts and id moves,
batches, readers in any key order, every exception class reached through real bad input or a
store damaged with tools we did not write, and the docstring / type-hint contract."""
import datetime as dt
import inspect
import os
import sqlite3

import numpy as np
import pytest

import tsstore
from tsstore import OwnerCategory, SeriesType
from tsstore._ffi import byref, check, lib

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def hourly(name, values, t0=T0):
    return tsstore.SingleTimeSeries(name, t0, "PT1H", np.asarray(values))


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "system.nc")


def test_hash_queries_and_summaries(path):
    with tsstore.Store.create(path) as s:
        a = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
        b = s.add_time_series(hourly("q", np.arange(24.0)), owner_id=2, owner_type="G")  # same content: shared
        s.add_time_series(hourly("p", np.ones(48), T0 + dt.timedelta(days=1)), owner_id=3, owner_type="L")
        meta = s.get_metadata(a)
        assert meta["key"] == a
        assert s.count_arrays() == 2
        assert s.count_by_hash(meta["data_hash"]) == {SeriesType.SINGLE_TIME_SERIES: 2}
        assert s.keys_by_hash(meta["data_hash"]) == [a, b]
        assert s.keys_by_hash(bytes.fromhex(meta["data_hash"])) == [a, b]
        assert s.shared_arrays() == {meta["data_hash"]: [a, b]}
        np.testing.assert_array_equal(s.get_array(meta["data_hash"]), np.arange(24.0))
        with pytest.raises(ValueError, match="64 hexadecimal"):
            s.get_array("abc")
        with pytest.raises(tsstore.NotFoundError):
            s.get_array("00" * 32)
        assert [m["key"] for m in s.list_metadata(owner_type="L")] == [s.list_keys(owner_id=3)[0]]
        summary = s.static_summary()
        assert [(g["initial_timestamp"], g["length"], g["series"], g["owners"]) for g in summary] == [
            (T0, 24, 2, 2), (T0 + dt.timedelta(days=1), 48, 1, 1)]
        assert not s.check_static_consistency()  # two grids at PT1H
        s.remove_time_series(s.list_keys(owner_id=3)[0])
        assert s.check_static_consistency()


def test_association_counts_and_id_moves(path):
    with tsstore.Store.create(path) as s:
        s.add_supplemental_attribute_associations([(1, "Gen", 10, "Geo"), (2, "Gen", 10, "Geo"), (2, "Gen", 11, "Outage")])
        s.add_parent_child_associations([(5, "Area", 1, "Bus"), (5, "Area", 2, "Bus"), (1, "Bus", 7, "Gen")])
        assert s.supplemental_attribute_association_counts() == {"rows": 3, "components": 2, "attributes": 2}
        assert s.parent_child_association_counts() == {"rows": 3, "parents": 2, "children": 3}
        assert s.list_component_ids_with_attributes(attribute_ids=[10]) == [1, 2]
        assert s.list_attribute_ids_of_components(component_ids=[2]) == [10, 11]
        assert s.list_attribute_ids_of_components(attribute_type="Outage") == [11]
        assert s.replace_association_component_id(2, 20) == 2
        assert s.list_component_ids_with_attributes() == [1, 20]
        assert s.replace_parent_child_id(1, 100) == 2  # as a child of 5 and as the parent of 7
        assert s.children_of(5) == [2, 100] and s.parents_of(7) == [100]
        assert s.has_parent_child_association(5, 100) and not s.has_parent_child_association(100, 5)
        assert s.remove_parent_child_associations(parent_type="Area") == 2
        assert s.remove_supplemental_attribute_associations() == 3


def test_batch_object_write_buffer_and_last_error(path):
    with tsstore.Store.create(path) as s:
        s.set_write_buffer(1 << 20)
        with s.bulk_add() as batch:
            for i in range(5):
                batch.add(hourly("p", np.full(24, float(i))), owner_id=i, owner_type="G")
            assert len(batch) == 5
        assert [k.owner_id for k in batch.keys] == list(range(5))
        with pytest.raises(tsstore.InvalidHandleError, match="committed"):
            batch.add(hourly("p", np.zeros(24)), owner_id=9, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError):
            s.set_write_buffer(-1)
        assert "write" in s.last_error or "-1" in s.last_error
        s.set_read_cache(0)
        with pytest.raises(tsstore.InvalidParameterError, match="bytes"):
            s.set_read_cache(-1)
        s.set_read_cache(8 << 20)
        for i in range(200):  # one-at-a-time adds under a 1 MiB write buffer spill as they go
            s.add_time_series(hourly("one", np.arange(8760.0) + i), owner_id=i, owner_type="G")
        s.flush()
        for i in (199, 0, 198, 1):  # neighbours read from the decoded block of the first
            np.testing.assert_array_equal(s.get_time_series(s.list_keys(name="one", owner_id=i)[0]).data[:2], [i, i + 1])


def test_reader_in_another_key_order_and_after_close(path):
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(24.0) + 100 * i), owner_id=i, owner_type="G") for i in range(6)])
        order = keys[::-1]
        with s.static_reader("PT1H", order) as rd:
            first = rd.read_step(3)
            np.testing.assert_array_equal(first, [503.0, 403.0, 303.0, 203.0, 103.0, 3.0])
            assert rd.read_step(4) is first  # the same array, refilled
            np.testing.assert_array_equal(first, [504.0, 404.0, 304.0, 204.0, 104.0, 4.0])
        with pytest.raises(tsstore.InvalidHandleError, match="closed"):
            rd.read_step(0)
        mixed = keys[:2] + [s.add_time_series(hourly("v", np.zeros((24, 3))), owner_id=9, owner_type="G")]
        with s.static_reader("PT1H", mixed) as rd:
            assert rd.read_step(0) is None and len(rd.groups) == 2
            by_shape = {g.values.shape: g for g in rd.groups}
            np.testing.assert_array_equal(by_shape[(2,)].values, [0.0, 100.0])
            assert by_shape[(1, 3)].keys.tolist() == [2]
            with pytest.raises(ValueError, match="groups"):
                rd.values()


def test_probabilistic_reader_and_window_starts(path):
    data = np.arange(3 * 4 * 5, dtype=float).reshape(3, 4, 5)
    f = tsstore.Probabilistic("p", T0, "PT1H", "PT4H", "P1D", 5, [0.1, 0.5, 0.9], data)
    assert f.window_starts()[-1] == np.datetime64("2024-01-05T00:00", "ms") and f.timestamps.dtype == "datetime64[ms]"
    with tsstore.Store.create(path) as s:
        keys = [s.add_time_series(f, owner_id=i, owner_type="Wind") for i in range(2)]
        with s.forecast_reader(SeriesType.PROBABILISTIC, "PT1H", keys) as rd:
            assert rd.grid() == (T0, 5)
            w = rd.read_window(2)
            assert w.shape == (2, 3, 4)
            np.testing.assert_array_equal(w[1], data[:, :, 2])
            assert rd.read_at(T0 + dt.timedelta(days=1)) is w


def test_every_exception_class_from_real_input(path):
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
        s.add_time_series(hourly("q", np.arange(24.0) * 2), owner_id=1, owner_type="G")
        s.add_supplemental_attribute_associations([(1, "G", 2, "A")])
        with pytest.raises(tsstore.DuplicateAssociationError, match="1"):
            s.add_supplemental_attribute_associations([(1, "G", 2, "A")])
        with pytest.raises(tsstore.InvalidParameterError, match="owner_type"):
            s.add_time_series(hourly("p", np.arange(24.0)), owner_id=2, owner_type="")
        buf = np.zeros(3)  # 24 values do not fit
        with pytest.raises(tsstore.BufferTooSmallError):
            check(lib.tsstore_get(s._handle(), byref(k.lookup()), buf.ctypes.data, buf.nbytes, None))
    # IntegrityError: a catalog row pointing at an array the NetCDF file does not hold.
    db = sqlite3.connect(path + ".sqlite")
    db.execute("UPDATE time_series_associations SET data_hash = ? WHERE name = 'q'", (bytes(32),))
    db.commit()
    db.close()
    with tsstore.Store.open(path, read_only=True) as s:
        with pytest.raises(tsstore.IntegrityError, match="data_hash"):
            s.get_time_series(s.list_keys(name="q")[0])
        assert s.verify_integrity()["problems"]
    # IncompatibleFormatError: the version attribute rewritten with netCDF4.
    netCDF4 = pytest.importorskip("netCDF4")
    with netCDF4.Dataset(path, "a") as ds:
        ds.setncattr("data_format_version", "9.0.0")
    with pytest.raises(tsstore.IncompatibleFormatError, match="9.0.0"):
        tsstore.Store.open(path)
    with pytest.raises(tsstore.IncompatibleFormatError, match="9.0.0"):
        tsstore.Store.open(path, read_only=True)  # read through HDF5, not netcdf-c
    # The version as NC_STRING (a variable-length string) reads as well as NC_CHAR through
    # HDF5; as an array of two strings it is refused, not read past its end.
    with netCDF4.Dataset(path, "a") as ds:
        ds.setncattr_string("data_format_version", "0.11.0")
    with tsstore.Store.open(path, read_only=True) as s:
        assert s.list_keys(name="q")
    with netCDF4.Dataset(path, "a") as ds:
        ds.setncattr_string("data_format_version", ["0.11.0", "0.11.0"])
    with pytest.raises(tsstore.TsStoreError):
        tsstore.Store.open(path, read_only=True)
    with netCDF4.Dataset(path, "a") as ds:
        ds.setncattr("data_format_version", "0.11.0")
    with pytest.raises(tsstore.NotFoundError, match="no such file"):
        tsstore.Store.open(str(path) + ".none")
    os.mkdir(str(path) + ".dir")  # a directory where the NetCDF file should be: netcdf-c fails
    with pytest.raises(tsstore.TsStoreIOError):
        tsstore.Store.open(str(path) + ".dir")


def _public():
    for name in tsstore.__all__:
        obj = getattr(tsstore, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            yield name, obj


def test_every_public_name_has_a_docstring_and_type_hints():
    missing_doc, missing_hints = [], []
    for name, obj in _public():
        if not inspect.getdoc(obj):
            missing_doc.append(name)
        members = inspect.getmembers(obj) if inspect.isclass(obj) else [(name, obj)]
        for mname, member in members:
            if mname.startswith("_") and mname not in ("__init__", "__len__") or not callable(member):
                continue
            fn = getattr(member, "__func__", member)
            if not inspect.isfunction(fn) or fn.__module__ is None or not fn.__module__.startswith("tsstore"):
                continue
            if not inspect.getdoc(fn) and mname != "__init__":
                missing_doc.append(f"{name}.{mname}")
            sig = inspect.signature(fn)
            if "return" not in fn.__annotations__ or any(
                    p.annotation is inspect.Parameter.empty for p in sig.parameters.values()
                    if p.name not in ("self", "cls") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)):
                missing_hints.append(f"{name}.{mname}")
    assert not missing_doc, missing_doc
    assert not missing_hints, '\n'.join(missing_hints)


def test_objects_outliving_their_store_fail_cleanly():
    s = tsstore.Store.in_memory()
    keys = s.add_time_series_bulk(
        dict(ts=hourly("p", np.arange(24.0)), owner_id=i, owner_type="G") for i in range(3))
    reader = s.static_reader("PT1H", keys)
    s.close()
    with pytest.raises(tsstore.TsStoreError, match="closed"):
        reader.read_step(1)
    reader.close()
    reader.close()
    other = tsstore.Store.in_memory()
    with pytest.raises(tsstore.InvalidHandleError):
        with other.bulk_add() as batch:
            batch.add(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
            other.close()


def test_the_fixed_names_and_signatures():
    def params(fn):
        return [p.name for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    base = ["name", "initial_timestamp", "resolution", "horizon", "interval", "count"]
    assert params(tsstore.SingleTimeSeries) == ["name", "initial_timestamp", "resolution", "data"]
    assert params(tsstore.NonSequentialTimeSeries) == ["name", "timestamps", "data"]
    assert params(tsstore.Deterministic) == base + ["data"]
    assert params(tsstore.Probabilistic) == base + ["percentiles", "data"]
    assert params(tsstore.Scenarios) == base + ["data"]
    assert params(tsstore.Store.create) == ["path", "compression"]
    assert inspect.signature(tsstore.Store.create).parameters["compression"].default == "deflate:3:shuffle"
    assert params(tsstore.Store.open) == ["path", "read_only"]
    assert params(tsstore.Store.add_time_series) == ["ts", "owner_id", "owner_type", "owner_category", "features",
                                                      "units", "ext"]
    # stop, not end: one name in C, Python and Julia (docs/vocabulary.md), where end is a keyword.
    assert params(tsstore.Store.get_time_series) == [
        "owner", "name", "time_series_type", "owner_category", "resolution", "interval", "start", "stop", "length",
        "count", "features", "feature_values"]
    assert inspect.signature(tsstore.Store.get_time_series).parameters["time_series_type"].default is \
        tsstore.SingleTimeSeries
    assert params(tsstore.Store.transform_single_time_series) == ["horizon", "interval", "owner_category",
                                                                   "resolution"]
    for name in ("in_memory", "close", "persist", "has_time_series", "remove_time_series", "list_keys",
                 "add_time_series_bulk", "bulk_add", "transaction", "static_reader", "forecast_reader", "compact",
                 "verify_integrity"):
        assert callable(getattr(tsstore.Store, name)), name
    for name in ("InvalidParameterError", "NotFoundError", "DuplicateTimeSeriesError", "DuplicateAssociationError",
                 "IntegrityError", "ReadOnlyError", "IncompatibleFormatError"):
        assert issubclass(getattr(tsstore, name), tsstore.TsStoreError)


def test_values_that_would_not_survive_the_call_are_refused(path):
    with tsstore.Store.create(path) as s:
        with pytest.raises(tsstore.InvalidParameterError, match="owner_id: 18446744073709551621 does not fit a signed 64-bit"):
            s.add_time_series(hourly("p", np.zeros(4)), owner_id=2**64 + 5, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError, match="owner_category: 4294967296 is not one of COMPONENT"):
            s.add_time_series(hourly("p", np.zeros(4)), owner_id=1, owner_type="G", owner_category=2**32)
        with pytest.raises(TypeError, match="int"):
            s.add_time_series(hourly("p", np.zeros(4)), owner_id=1.5, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError, match="NUL"):
            s.add_time_series(hourly("a\x00b", np.zeros(4)), owner_id=1, owner_type="G")
        with pytest.raises(TypeError, match="str"):
            s.add_supplemental_attribute_associations([(1, 5, 2, "A")])
        with pytest.raises(ValueError, match="whole milliseconds"):
            s.add_time_series(tsstore.SingleTimeSeries("p", T0, dt.timedelta(microseconds=1500), np.zeros(4)),
                              owner_id=1, owner_type="G")
        with pytest.raises(ValueError, match="at least one axis"):
            s.add_time_series(hourly("p", np.float64(3.0)), owner_id=1, owner_type="G")
        with pytest.raises(TypeError, match="masked"):
            s.add_time_series(tsstore.SingleTimeSeries("p", T0, "PT1H", np.ma.masked_array(np.zeros(4), [0, 1, 0, 0])),
                              owner_id=1, owner_type="G")
        with pytest.raises(ValueError, match="NaT"):
            s.add_time_series(tsstore.SingleTimeSeries("p", np.datetime64("NaT"), "PT1H", np.zeros(4)), owner_id=1,
                              owner_type="G")
        assert s.list_keys() == []  # nothing of the above reached the store
        monthly = s.add_time_series(tsstore.SingleTimeSeries("m", T0, np.timedelta64(1, "M"), np.zeros(3)), owner_id=1,
                                    owner_type="G")
        assert monthly.resolution == tsstore.Period("P1M")
        micro = s.add_time_series(tsstore.SingleTimeSeries("u", T0, np.timedelta64(3_600_000_000, "us"), np.zeros(3)),
                                  owner_id=1, owner_type="G")
        assert micro.resolution == dt.timedelta(hours=1)
        weekly = s.get_time_series(s.add_time_series(tsstore.SingleTimeSeries("w", T0, "P1W", np.zeros(3)),
                                                     owner_id=1, owner_type="G"))
        assert weekly.timestamps[2] == np.datetime64("2024-01-15T00:00", "ms")


def test_owner_category_filters_and_open_ranges(path):
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    with tsstore.Store.create(path) as s:
        comp = s.add_time_series(hourly("p", np.arange(48.0), epoch), owner_id=2, owner_type="Gen")
        attr = s.add_time_series(hourly("p", np.arange(48.0) + 1), owner_id=3, owner_type="Outage",
                                 owner_category=OwnerCategory.SUPPLEMENTAL_ATTRIBUTE)
        assert s.list_keys(owner_category=OwnerCategory.SUPPLEMENTAL_ATTRIBUTE) == [attr]
        assert s.list_keys(owner_category=OwnerCategory.COMPONENT) == [comp]
        assert s.list_keys(owner_id=3) == [attr]  # either category
        assert s.list_keys(owner_id=3, owner_category=OwnerCategory.COMPONENT) == []
        assert s.get_metadata(comp)["initial_timestamp"] == epoch  # 0 ms is a timestamp, not "none"
        tail = s.get_time_series(comp, start=epoch + dt.timedelta(hours=45))
        np.testing.assert_array_equal(tail.data, [45.0, 46.0, 47.0])
        head = s.get_time_series(comp, stop=epoch + dt.timedelta(hours=1))
        np.testing.assert_array_equal(head.data, [0.0, 1.0])


def test_threads_share_one_reader(path):
    import threading
    with tsstore.Store.create(path) as s:
        keys = s.add_time_series_bulk(
            [dict(ts=hourly("p", np.arange(200.0) + 1000 * i), owner_id=i, owner_type="G") for i in range(20)])
        wrong = []
        with s.static_reader("PT1H", keys) as rd:
            def sweep(offset):
                for h in range(offset, 200, 3):
                    with rd.lock:  # the result is shared: use it before another thread reads
                        if not np.array_equal(rd.read_step(h), np.arange(20) * 1000.0 + h):
                            wrong.append(h)
            threads = [threading.Thread(target=sweep, args=(k,)) for k in range(3)]
            for th in threads:
                th.start()
            for th in threads:
                th.join()
        assert wrong == []


def test_log_callback_swapped_while_other_threads_log():
    import threading
    s = tsstore.Store.in_memory()
    key = s.add_time_series(hourly("p", np.arange(24.0)), owner_id=1, owner_type="G")
    stop = threading.Event()

    def reads():
        while not stop.is_set():
            s.get_time_series(key)
    threads = [threading.Thread(target=reads) for _ in range(4)]
    for th in threads:
        th.start()
    lines = []
    try:
        for i in range(3000):
            tsstore.set_log_callback(lines.append if i % 2 == 0 else None)
            if i % 500 == 0:  # one read of our own while installed: lines cannot stay empty
                s.get_time_series(key)  # however the other threads are scheduled
    finally:
        tsstore.set_log_callback(None)
        stop.set()
        for th in threads:
            th.join()
        s.close()
    assert lines  # the callbacks ran, and none ran after being freed


def test_text_longer_than_the_first_buffer(path):
    long_name = "n" * 200 + "é" * 150  # 500 UTF-8 bytes: the text read is retried with room for it
    features = {f"f{i}": "v" * 20 for i in range(20)}
    with tsstore.Store.create(path) as s:
        k = s.add_time_series(hourly(long_name, np.zeros(4)), owner_id=1, owner_type="G", features=features)
        (listed,) = s.list_keys()
        assert listed == k and listed.name == long_name and listed.features == features
        assert s.list_names() == [long_name]

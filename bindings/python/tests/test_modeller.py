"""The API a modeller coming from infrasys / InfrastructureSystems.jl reaches for (issue 18):
lookups by owner and name, Python values out as they went in, pandas both ways for every
type, errors that name the Python argument and the operation, paths of every kind, and
non-finite float features. Every test runs against real stores."""
import datetime as dt
import math
import os
import pathlib
import pickle
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tsstore
from tsstore import OwnerCategory, Period, SeriesType

T0 = dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)
HOUR = dt.timedelta(hours=1)


def hourly(name, values, t0=T0):
    return tsstore.SingleTimeSeries(name, t0, "PT1H", np.asarray(values))


@pytest.fixture
def path(tmp_path):
    return str(tmp_path / "system.nc")


@pytest.fixture
def system(path):
    """A small system: loads with and without features, a forecast of each kind, a monthly
    series and an attribute's series."""
    with tsstore.Store.create(path) as s:
        s.add_time_series(hourly("max_active_power", np.arange(48.0)), owner_id=1, owner_type="PowerLoad")
        s.add_time_series(hourly("max_active_power", np.arange(48.0) + 100), owner_id=2, owner_type="PowerLoad",
                          features={"scenario": "high"})
        s.add_time_series(hourly("max_active_power", np.arange(48.0) + 200), owner_id=2, owner_type="PowerLoad",
                          features={"scenario": "low"})
        s.add_time_series(tsstore.Deterministic("max_active_power", T0, HOUR, dt.timedelta(hours=4), "PT2H", 5,
                                                np.arange(20.0).reshape(4, 5)), owner_id=1, owner_type="PowerLoad")
        s.add_time_series(tsstore.SingleTimeSeries("inflow", dt.datetime(2030, 1, 31), Period("P1M"), np.arange(3.0)),
                          owner_id=3, owner_type="HydroDispatch")
        s.add_time_series(hourly("outage", np.ones(24)), owner_id=1, owner_type="GeographicInfo",
                          owner_category=OwnerCategory.SUPPLEMENTAL_ATTRIBUTE)
        yield s


# -- 1. lookups by owner ------------------------------------------------------------------

def test_get_by_owner_and_name_defaults_to_single_time_series(system):
    ts = system.get_time_series(1, "max_active_power")
    assert isinstance(ts, tsstore.SingleTimeSeries)
    np.testing.assert_array_equal(ts.data, np.arange(48.0))
    f = system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic)
    assert isinstance(f, tsstore.Deterministic) and f.count == 5
    # A SeriesType or its printed name work as the type too.
    assert system.get_time_series(1, "max_active_power", time_series_type=SeriesType.DETERMINISTIC).count == 5
    assert system.get_time_series(1, "max_active_power", time_series_type="Deterministic").count == 5
    # The same series through a Key, as before.
    key = system.list_keys(owner_id=1, name="max_active_power", series_type=SeriesType.SINGLE_TIME_SERIES)[0]
    np.testing.assert_array_equal(system.get_time_series(key).data, ts.data)


def test_features_as_keywords_or_a_dict_and_the_listing_of_several(system):
    np.testing.assert_array_equal(system.get_time_series(2, "max_active_power", scenario="low").data[:2], [200, 201])
    np.testing.assert_array_equal(
        system.get_time_series(2, "max_active_power", features={"scenario": "high"}).data[:2], [100, 101])
    with pytest.raises(tsstore.InvalidParameterError) as err:
        system.get_time_series(2, "max_active_power")
    msg = str(err.value)
    assert msg.startswith("get_time_series: ") and '{"scenario":"high"}' in msg and '{"scenario":"low"}' in msg
    assert "narrow it" in msg
    with pytest.raises(tsstore.NotFoundError) as nf:
        system.get_time_series(2, "max_active_power", scenario="mid")
    assert isinstance(nf.value, KeyError) and str(nf.value).startswith("get_time_series: ")
    with pytest.raises(TypeError, match="both in features= and as a keyword"):
        system.get_time_series(2, "max_active_power", features={"scenario": "high"}, scenario="low")


def test_has_and_remove_by_owner(system):
    assert system.has_time_series(1, "max_active_power")
    assert system.has_time_series(2, "max_active_power")  # any number of matches is True
    assert not system.has_time_series(9, "max_active_power")
    assert system.has_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic)
    assert not system.has_time_series(1, "max_active_power", time_series_type=tsstore.Scenarios)
    assert system.has_time_series(3, "inflow", resolution=Period("P1M"))
    assert not system.has_time_series(3, "inflow", resolution=HOUR)
    assert not system.has_time_series(1, "outage")  # an attribute's series, not component 1's
    assert system.has_time_series(1, "outage", owner_category=OwnerCategory.SUPPLEMENTAL_ATTRIBUTE)
    assert system.has_time_series(1, "outage", owner_category=None)  # either category
    with pytest.raises(tsstore.InvalidParameterError, match="remove_time_series: .*matches several"):
        system.remove_time_series(2, "max_active_power")
    system.remove_time_series(2, "max_active_power", scenario="high")
    assert not system.has_time_series(2, "max_active_power", scenario="high")
    assert system.has_time_series(2, "max_active_power", scenario="low")
    system.remove_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic)
    assert not system.has_time_series(1, "max_active_power", time_series_type=None, resolution=HOUR,
                                      interval="PT2H")


def test_a_key_goes_alone(system):
    key = system.list_keys(owner_id=1, name="max_active_power", series_type=SeriesType.SINGLE_TIME_SERIES)[0]
    # A Key without its resolution still reads: an absent period matches any.
    loose = tsstore.Key(1, 0, 0, "max_active_power")
    assert loose.series_type is SeriesType.SINGLE_TIME_SERIES and loose.owner_category is OwnerCategory.COMPONENT
    np.testing.assert_array_equal(system.get_time_series(loose).data, np.arange(48.0))
    with pytest.raises(TypeError, match="a Key names one series"):
        system.get_time_series(key, "max_active_power")
    with pytest.raises(TypeError, match="a Key names one series"):
        system.has_time_series(key, scenario="x")
    with pytest.raises(TypeError, match="name: give the series' name"):
        system.get_time_series(1)
    with pytest.raises(TypeError, match="time_series_type: int is not a series type"):
        system.get_time_series(1, "max_active_power", time_series_type=int)


def test_start_length_end_and_count(system):
    part = system.get_time_series(1, "max_active_power", start=T0 + 3 * HOUR, length=4)
    np.testing.assert_array_equal(part.data, [3.0, 4.0, 5.0, 6.0])
    assert part.initial_timestamp == T0 + 3 * HOUR
    part = system.get_time_series(1, "max_active_power", start=T0 + 46 * HOUR)
    np.testing.assert_array_equal(part.data, [46.0, 47.0])
    part = system.get_time_series(1, "max_active_power", stop=T0 + 2 * HOUR)
    np.testing.assert_array_equal(part.data, [0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match="get_time_series: length: 5 steps from start"):
        system.get_time_series(1, "max_active_power", start=T0 + 44 * HOUR, length=5)
    with pytest.raises(TypeError, match="stop or length"):
        system.get_time_series(1, "max_active_power", start=T0, stop=T0, length=2)
    with pytest.raises(TypeError, match="get_time_series: end: the last point of a range is stop="):
        system.get_time_series(1, "max_active_power", end=T0)  # the name before the bindings agreed
    windows = system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic,
                                     start=T0 + 2 * HOUR, count=2)
    assert windows.count == 2 and windows.initial_timestamp == T0 + 2 * HOUR
    np.testing.assert_array_equal(windows.data, np.arange(20.0).reshape(4, 5)[:, 1:3])
    with pytest.raises(TypeError, match="length counts steps of a static series"):
        system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic, length=2)


# -- 2. Python values out as they went in ---------------------------------------------------

def test_periods_come_back_as_timedelta_or_period(system):
    assert system.get_time_series(1, "max_active_power").resolution == HOUR
    f = system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic)
    assert (f.resolution, f.horizon, f.interval) == (HOUR, dt.timedelta(hours=4), dt.timedelta(hours=2))
    inflow = system.get_time_series(3, "inflow")
    assert inflow.resolution == Period("P1M") and isinstance(inflow.resolution, Period)
    assert system.list_keys(owner_id=3)[0].resolution == Period(months=1)
    meta = system.get_metadata(system.list_keys(owner_id=3)[0])
    assert meta["resolution"] == Period("P1M") and meta["horizon"] is None
    assert set(system.list_resolutions()) == {Period("P1M"), HOUR}
    # A Key built from any spelling equals the listed one.
    assert tsstore.Key(3, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "inflow", "P1M") == \
        system.list_keys(owner_id=3)[0]


def test_the_period_type():
    year = Period("P1Y")
    assert str(year) == "P1Y" and repr(year) == "Period('P1Y')" and year.months == 12
    assert Period("P12M") == year and hash(Period("P12M")) == hash(year) and Period(months=12) == year
    assert Period("P1M") < Period("P3M") and {Period("P1M"), Period(months=1)} == {Period("P1M")}
    assert str(Period(months=14)) == "P14M" and Period("P1Y2M") == Period(months=14)
    assert Period("P1M") != "P1M" and Period("P1M") != dt.timedelta(days=30)
    assert pickle.loads(pickle.dumps(year)) == year
    with pytest.raises(ValueError, match="fixed period; use datetime.timedelta"):
        Period("PT1H")
    with pytest.raises(tsstore.InvalidParameterError, match="not an ISO-8601 duration"):
        Period("monthly")
    with pytest.raises(TypeError):
        Period()
    with pytest.raises(AttributeError):
        year.months = 3


def test_timestamps_is_one_datetime64_property_on_every_type(system):
    for ts in (system.get_time_series(1, "max_active_power"), system.get_time_series(3, "inflow"),
               system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic),
               tsstore.NonSequentialTimeSeries("o", [T0, T0 + HOUR], np.zeros(2)),
               tsstore.Scenarios("s", T0, HOUR, "PT2H", "PT2H", 2, np.zeros((1, 2, 2))),
               tsstore.Probabilistic("p", T0, HOUR, "PT2H", "PT2H", 2, [0.5], np.zeros((1, 2, 2)))):
        stamps = ts.timestamps
        assert isinstance(stamps, np.ndarray) and stamps.dtype == np.dtype("datetime64[ms]"), type(ts)
        assert stamps[0] == np.datetime64("2030-01-01T00:00", "ms") or isinstance(ts.resolution, Period)
    inflow = system.get_time_series(3, "inflow")
    assert inflow.timestamps.astype("datetime64[D]").astype(str).tolist() == ["2030-01-31", "2030-02-28",
                                                                              "2030-03-31"]
    f = system.get_time_series(1, "max_active_power", time_series_type=tsstore.Deterministic)
    assert f.timestamps[-1] == np.datetime64("2030-01-01T08:00", "ms")  # window starts


def test_periods_in_errors_read_as_written(path):
    with tsstore.Store.create(path) as s:
        for horizon, shown in ((dt.timedelta(hours=48), "timedelta(hours=48)"), ("PT48H", "PT48H")):
            with pytest.raises(tsstore.InvalidParameterError) as err:
                s.add_time_series(tsstore.Deterministic("f", T0, "PT1H", horizon, "P1D", 2, np.zeros((24, 2))),
                                  owner_id=1, owner_type="Wind")
            msg = str(err.value)
            assert shown in msg and "P2D" not in msg, msg
            assert msg.startswith("add_time_series: ts.data: ")
        s.add_time_series(hourly("p", np.arange(30.0)), owner_id=1, owner_type="G")
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.transform_single_time_series(dt.timedelta(hours=48), dt.timedelta(hours=24))
        assert "horizon: timedelta(hours=48) is 48 steps" in str(err.value), str(err.value)
        with pytest.raises(tsstore.NotFoundError, match="at PT120M"):
            s.get_time_series(1, "p", resolution="PT120M")


# -- 3. pandas both ways -------------------------------------------------------------------

pd = pytest.importorskip("pandas")


def _round_trip(store, ts, owner, **kw):
    """ts stored, read, to pandas and back, stored again under another owner and read: the
    two reads agree in every part."""
    first = store.get_time_series(store.add_time_series(ts, owner_id=owner, owner_type="X", **kw))
    frame = first.to_pandas()
    again = type(first).from_pandas(frame, first.name) if not isinstance(first, tsstore.NonSequentialTimeSeries) \
        else tsstore.from_pandas(frame, first.name)
    second = store.get_time_series(store.add_time_series(again, owner_id=owner + 1000, owner_type="X", **kw))
    assert type(second) is type(first)
    np.testing.assert_array_equal(second.data, first.data)
    np.testing.assert_array_equal(second.timestamps, first.timestamps)
    for attr in ("initial_timestamp", "resolution", "horizon", "interval", "count", "percentiles"):
        assert getattr(second, attr, None) == getattr(first, attr, None), attr
    return frame


def test_pandas_round_trip_of_every_type(path):
    rng = np.random.default_rng(5)
    with tsstore.Store.create(path) as s:
        frame = _round_trip(s, hourly("load", rng.random(72)), 1)
        assert isinstance(frame, pd.Series) and str(frame.index.tz) == "UTC" and frame.name == "load"
        frame = _round_trip(s, hourly("cost", rng.random((72, 3))), 2)
        assert isinstance(frame, pd.DataFrame) and frame.shape == (72, 3)
        _round_trip(s, tsstore.SingleTimeSeries("inflow", dt.datetime(2030, 1, 31), "P1M", rng.random(14)), 3)
        irregular = [T0, T0 + HOUR, T0 + 5 * HOUR, T0 + dt.timedelta(days=3)]
        _round_trip(s, tsstore.NonSequentialTimeSeries("outage", irregular, rng.random(4)), 4)
        frame = _round_trip(s, tsstore.Deterministic("wind", T0, HOUR, "PT6H", "PT3H", 4, rng.random((6, 4))), 5)
        assert isinstance(frame, pd.Series) and frame.index.names == ["window_start", "timestamp"]
        assert frame.index[7] == (pd.Timestamp("2030-01-01T03:00", tz="UTC"), pd.Timestamp("2030-01-01T04:00",
                                                                                            tz="UTC"))
        _round_trip(s, tsstore.Deterministic("wind3", T0, HOUR, "PT6H", "PT3H", 4, rng.random((6, 4, 2))), 6)
        frame = _round_trip(s, tsstore.Probabilistic("wind", T0, HOUR, "PT6H", "P1D", 3, [0.1, 0.5, 0.9],
                                                     rng.random((3, 6, 3))), 7)
        assert list(frame.columns) == [0.1, 0.5, 0.9] and frame.columns.name == "percentile"
        _round_trip(s, tsstore.Probabilistic("wind2", T0, HOUR, "PT6H", "P1D", 3, [0.1, 0.9], rng.random((2, 6, 3, 2))),
                    8)
        frame = _round_trip(s, tsstore.Scenarios("wind", T0, HOUR, "PT6H", "P1D", 3, rng.random((4, 6, 3))), 9)
        assert list(frame.columns) == [1, 2, 3, 4] and frame.columns.name == "scenario"
        # The values sit where the layout says: scenario 2, window 1, step 3.
        data = s.get_time_series(9, "wind", time_series_type=tsstore.Scenarios).data
        assert frame.loc[(pd.Timestamp("2030-01-02", tz="UTC"), pd.Timestamp("2030-01-02T03:00", tz="UTC")), 2] == \
            data[1, 3, 1]


def test_from_pandas_chooses_converts_time_zones_and_infers(path):
    idx = pd.date_range("2030-01-01T01:00", periods=24, freq="h", tz="Europe/Paris")  # 00:00 UTC
    ts = tsstore.from_pandas(pd.Series(np.arange(24.0), index=idx, name="load"))
    assert isinstance(ts, tsstore.SingleTimeSeries) and ts.resolution == HOUR and ts.initial_timestamp == T0
    monthly = tsstore.from_pandas(pd.Series(np.arange(4.0), index=pd.date_range("2030-01-01", periods=4, freq="MS")),
                                  "inflow")
    assert monthly.resolution == Period("P1M")
    irregular = pd.Series([1.0, 2.0, 3.0], index=pd.DatetimeIndex(["2030-01-01", "2030-01-02", "2030-01-05"]))
    ns = tsstore.from_pandas(irregular, "outage")
    assert isinstance(ns, tsstore.NonSequentialTimeSeries)
    with pytest.raises(ValueError, match="irregular; use NonSequentialTimeSeries"):
        tsstore.SingleTimeSeries.from_pandas(irregular, "outage")
    frame = pd.DataFrame(np.arange(12.0).reshape(4, 3), index=pd.date_range("2030-01-01", periods=4, freq="D"))
    curve = tsstore.from_pandas(frame, "cost")
    assert curve.data.shape == (4, 3) and curve.resolution == dt.timedelta(days=1)
    with pytest.raises(TypeError, match="pass name="):
        tsstore.from_pandas(frame)
    with pytest.raises(TypeError, match="DatetimeIndex"):
        tsstore.from_pandas(pd.Series([1.0, 2.0], name="x"))
    with tsstore.Store.create(path) as s:
        key = s.add_time_series(ts, owner_id=1, owner_type="PowerLoad")
        np.testing.assert_array_equal(s.get_time_series(key).data, np.arange(24.0))


def test_a_pandas_object_as_data_is_refused_not_stripped():
    series = pd.Series(np.arange(3.0), index=pd.date_range("2030-01-01", periods=3, freq="h"))
    with pytest.raises(TypeError, match="index would be lost.*from_pandas"):
        tsstore.SingleTimeSeries("load", T0, HOUR, series)
    with pytest.raises(TypeError, match="index would be lost"):
        tsstore.NonSequentialTimeSeries("load", [T0, T0 + HOUR, T0 + 2 * HOUR], series)
    with pytest.raises(TypeError, match="index would be lost"):
        tsstore.Deterministic("f", T0, HOUR, "PT1H", "PT1H", 3, series.to_frame().T)


def test_to_pandas_of_a_year_hourly(path):
    """Its time (the issue's 5 ms) is make bench's (bench/calls/calls.py), not a test's."""
    with tsstore.Store.create(path) as s:
        ts = s.get_time_series(s.add_time_series(hourly("load", np.arange(8760.0)), owner_id=1, owner_type="L"))
    s2 = ts.to_pandas()
    assert len(s2) == 8760 and s2.index[-1] == pd.Timestamp("2030-12-31T23:00", tz="UTC")
    np.testing.assert_array_equal(s2.to_numpy(), np.arange(8760.0))


# -- 4. errors name the Python argument and the operation -----------------------------------

def test_errors_name_the_argument_and_the_operation(path):
    with tsstore.Store.create(path) as s:
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.add_time_series(hourly("p", np.zeros(4)), owner_id=2**64, owner_type="G")
        assert isinstance(err.value, ValueError)
        assert str(err.value) == "add_time_series: owner_id: 18446744073709551616 does not fit a signed 64-bit integer"
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.add_time_series(hourly("p", np.zeros(0)), owner_id=1, owner_type="G")
        assert str(err.value).startswith("add_time_series: ts.data: shape (0,) has an empty axis 0")
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.add_time_series(hourly("p", np.zeros(4)), owner_id=1, owner_type="G", features={"x": float("nan")})
        assert str(err.value).startswith("add_time_series: features['x']: NaN cannot be stored as a feature value")
        with pytest.raises(tsstore.NotFoundError):  # a lookup may name NaN (docs/format.md §13.3)
            s.get_time_series(1, "p", x=float("nan"))
        with pytest.raises(tsstore.InvalidParameterError, match=r"^add_time_series_bulk: items\[1\]: owner_id: "):
            s.add_time_series_bulk([dict(ts=hourly("p", np.zeros(4)), owner_id=1, owner_type="G"),
                                    dict(ts=hourly("p", np.zeros(4)), owner_id=-2**64, owner_type="G")])
        with pytest.raises(tsstore.InvalidParameterError, match=r"^add_time_series_bulk: items\[0\]: owner_type: "):
            s.add_time_series_bulk([dict(ts=hourly("p", np.zeros(4)), owner_id=1, owner_type="")])
        with pytest.raises(tsstore.InvalidParameterError, match=r"^get_time_series: owner: "):
            s.get_time_series(2**63, "p")
        assert s.list_keys() == []
        with pytest.raises(tsstore.InvalidParameterError, match=r"^list_keys: resolution: 'hourly' is not an ISO"):
            s.list_keys(resolution="hourly")
        for msg in (str(e) for e in _errors_of(s)):
            assert "argument" not in msg and "desc" not in msg and "_json" not in msg and "tsstore_" not in msg, msg


def _errors_of(s):
    for call in (lambda: s.add_time_series(hourly("p", np.zeros(4)), owner_id=2**64, owner_type="G"),
                 lambda: s.add_time_series(hourly("p", np.zeros(0)), owner_id=1, owner_type="G"),
                 lambda: s.add_time_series(hourly("p", np.zeros(4)), owner_id=1, owner_type="G",
                                           features={"x": float("nan")}),
                 lambda: s.add_time_series(hourly("p", np.zeros(4)), owner_id=1, owner_type="G",
                                           features={"units": 1}),
                 lambda: s.add_time_series_bulk([dict(ts=hourly("p", np.zeros(4)), owner_id=1, owner_type="G",
                                                      features={"resolution": 1})])):
        with pytest.raises(Exception) as err:
            call()
        yield err.value


def test_create_in_a_missing_directory_raises_file_not_found(tmp_path):
    missing = tmp_path / "nodir"
    with pytest.raises(FileNotFoundError) as err:
        tsstore.Store.create(str(missing / "system.nc"))
    assert err.value.filename == str(missing) and "no such directory" in str(err.value)
    assert not missing.exists()


def test_a_netcdf_file_that_is_not_a_store_says_so(tmp_path):
    netCDF4 = pytest.importorskip("netCDF4")
    plain = str(tmp_path / "plain.nc")
    with netCDF4.Dataset(plain, "w") as ds:
        ds.createDimension("t", 3)
        ds.createVariable("x", "f8", ("t",))[:] = [1.0, 2.0, 3.0]
    with pytest.raises(tsstore.IntegrityError, match="is not a tsstore store") as err:
        tsstore.Store.open(plain)
    assert "regenerate" not in str(err.value) and str(err.value).startswith("Store.open: ")
    with pytest.raises(tsstore.IntegrityError, match="is not a tsstore store"):
        tsstore.Store.open(plain, read_only=True)


READ_ONLY_MOUNT = """
import subprocess, sys
import numpy as np
import tsstore
d = sys.argv[1]
with tsstore.Store.create(d + "/s.nc") as s:
    s.add_time_series(tsstore.SingleTimeSeries("p", np.datetime64("2030-01-01"), "PT1H", np.arange(3.0)),
                      owner_id=1, owner_type="G")
subprocess.run(["mount", "-o", "remount,ro", d], check=True)
try:
    tsstore.Store.open(d + "/s.nc")
except tsstore.TsStoreIOError as e:
    print("refused:", e)
with tsstore.Store.open(d + "/s.nc", read_only=True) as s:
    print("read:", s.get_time_series(1, "p").data.tolist())
"""


def test_a_store_that_cannot_be_written_says_not_writable(tmp_path):
    """As a user, a store chmod'ed read-only; as root (who writes anyway), a store on a
    file system mounted read-only in a private mount namespace."""
    if os.geteuid() != 0:
        p = str(tmp_path / "s.nc")
        with tsstore.Store.create(p) as s:
            s.add_time_series(hourly("p", np.arange(3.0)), owner_id=1, owner_type="G")
        os.chmod(p, 0o444)
        with pytest.raises(tsstore.TsStoreIOError) as err:
            tsstore.Store.open(p)
        out = f"refused: {err.value}"
    else:
        if not shutil.which("unshare"):
            pytest.skip("root without unshare: no way to make a file unwritable")
        mnt = tmp_path / "mnt"
        mnt.mkdir()
        script = f"mount -t tmpfs tmpfs {mnt} && exec {sys.executable} -c '{READ_ONLY_MOUNT}' {mnt}"
        proc = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
        if proc.returncode != 0 and "mount" in proc.stderr:
            pytest.skip(f"no private read-only mount here: {proc.stderr.strip()}")
        assert proc.returncode == 0, proc.stderr
        out = proc.stdout
        assert "read: [0.0, 1.0, 2.0]" in out
    assert "is not writable" in out and "read_only=True" in out, out
    assert "damaged" not in out.replace("not damaged", ""), out


# -- 5. paths and reprs --------------------------------------------------------------------

def test_paths_of_every_kind(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with tsstore.Store.create(b"bytes.nc") as s:
        s.add_time_series(hourly("p", np.arange(3.0)), owner_id=1, owner_type="G")
    assert sorted(os.listdir(tmp_path)) == ["bytes.nc", "bytes.nc.sqlite"]
    with tsstore.Store.open(pathlib.Path("bytes.nc"), read_only=True) as s:
        assert s.has_time_series(1, "p")
    with tsstore.Store.in_memory() as s:
        s.add_time_series(hourly("p", np.arange(3.0)), owner_id=1, owner_type="G")
        s.persist(tmp_path / "persisted.nc")
    with tsstore.Store.open(os.fsencode(tmp_path / "persisted.nc")) as s:
        assert s.has_time_series(1, "p")
    with pytest.raises(TypeError, match="path: a path is a str, bytes or os.PathLike, not int"):
        tsstore.Store.open(5)


def test_enums_print_for_people():
    assert repr(SeriesType.SINGLE_TIME_SERIES) == "SeriesType.SINGLE_TIME_SERIES"
    assert str(SeriesType.SINGLE_TIME_SERIES) == "SingleTimeSeries" and f"{SeriesType.DETERMINISTIC}" == "Deterministic"
    assert str(OwnerCategory.SUPPLEMENTAL_ATTRIBUTE) == "SupplementalAttribute"
    assert repr(OwnerCategory.COMPONENT) == "OwnerCategory.COMPONENT" and OwnerCategory.COMPONENT == 0
    key = tsstore.Key(1, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "p", "PT1H")
    assert "SeriesType.SINGLE_TIME_SERIES" in repr(key) and "<" not in repr(key)


# -- 6. non-finite float features ----------------------------------------------------------

def test_infinite_features_round_trip_as_floats(path):
    inf = float("inf")
    with tsstore.Store.create(path) as s:
        key = s.add_time_series(hourly("p", np.arange(3.0)), owner_id=1, owner_type="G",
                                features={"cap": inf, "floor": -inf, "w": 0.5})
    with tsstore.Store.open(path, read_only=True) as s:
        (listed,) = s.list_keys()
        assert listed.features == {"cap": inf, "floor": -inf, "w": 0.5} and listed == key
        assert all(type(v) is float for v in listed.features.values())
        np.testing.assert_array_equal(s.get_time_series(listed).data, np.arange(3.0))
        assert s.has_time_series(1, "p", cap=inf)
        assert not s.has_time_series(1, "p", cap=-inf)
        assert s.list_keys(features={"floor": -inf}) == [key]
        assert s.get_metadata(listed)["key"].features["cap"] == inf
        assert not s.has_time_series(1, "p", cap=float("nan"))  # a lookup may name NaN (§13.3)


def _features_hash(name, value):
    """docs/format.md §6.2 for one float feature, its bits as given (as the other
    implementation hashes -0.0)."""
    import hashlib
    import struct
    key = name.encode()
    return hashlib.sha256(b"features\0" + struct.pack("<Q", 1) + struct.pack("<Q", len(key)) + key + b"f" +
                          struct.pack("<d", value)).digest()


def test_signed_zero_features_are_two_series(path):
    """A store holding {x: 0.0} and {x: -0.0} as two series, as the other implementation can
    write it (docs/format.md §12): each reads as itself (§13.3)."""
    import sqlite3
    with tsstore.Store.create(path) as s:
        s.add_time_series(hourly("p", [1.0, 2.0]), owner_id=1, owner_type="G", features={"x": 0.0})
        s.add_time_series(hourly("p", [7.0, 8.0]), owner_id=1, owner_type="G", features={"x": 0.5})
    assert _features_hash("x", 0.0) == bytes.fromhex(
        s_meta_hash(path, 0.0)), "the §6.2 hash computed here must be the store's"
    neg = _features_hash("x", -0.0)
    db = sqlite3.connect(path + ".sqlite")
    db.execute("UPDATE time_series_associations SET features_hash = ? WHERE features_hash = ?",
               (neg, _features_hash("x", 0.5)))
    db.execute("DELETE FROM feature_sets WHERE features_hash = ?", (_features_hash("x", 0.5),))
    db.execute("INSERT INTO feature_sets (key, value_kind, value_float, features_hash) VALUES ('x', 'float', -0.0, ?)",
               (neg,))
    db.commit()
    db.close()
    with tsstore.Store.open(path, read_only=True) as s:
        keys = s.list_keys()
        signs = sorted(str(k.features["x"]) for k in keys)
        assert signs == ["-0.0", "0.0"]
        for k in keys:
            expected = [7.0, 8.0] if str(k.features["x"]) == "-0.0" else [1.0, 2.0]
            assert s.get_time_series(k).data.tolist() == expected
        assert s.get_time_series(1, "p", x=-0.0).data.tolist() == [7.0, 8.0]
        assert s.get_time_series(1, "p", x=0.0).data.tolist() == [1.0, 2.0]
        assert s.get_time_series(1, "p", x=-0.0, resolution=HOUR).data.tolist() == [7.0, 8.0]
        assert s.verify_integrity()["problems"] == []


def test_nan_feature_reads_as_its_own_series(path):
    """A store holding {x: 0.0} and a {x: NaN} set as the other implementation writes it
    (a NULL value_float under the hash of NaN, docs/format.md §12): the NaN series lists as
    NaN and reads as itself, never as the 0.0 one (§13.3)."""
    import sqlite3
    with tsstore.Store.create(path) as s:
        s.add_time_series(hourly("p", [1.0, 2.0]), owner_id=1, owner_type="G", features={"x": 0.0})
        s.add_time_series(hourly("p", [7.0, 8.0]), owner_id=1, owner_type="G", features={"x": 0.5})
    nan, half = _features_hash("x", float("nan")), _features_hash("x", 0.5)
    db = sqlite3.connect(path + ".sqlite")
    db.execute("UPDATE time_series_associations SET features_hash = ? WHERE features_hash = ?", (nan, half))
    db.execute("UPDATE feature_sets SET value_float = NULL, features_hash = ? WHERE features_hash = ?", (nan, half))
    db.commit()
    db.close()
    with tsstore.Store.open(path, read_only=True) as s:
        keys = s.list_keys()
        assert sorted(repr(k.features["x"]) for k in keys) == ["0.0", "nan"]
        for k in keys:
            expected = [7.0, 8.0] if math.isnan(k.features["x"]) else [1.0, 2.0]
            assert s.get_time_series(k).data.tolist() == expected
            assert s.has_time_series(k)
        assert s.get_time_series(1, "p", x=float("nan")).data.tolist() == [7.0, 8.0]
        assert s.get_time_series(1, "p", x=0.0).data.tolist() == [1.0, 2.0]
        assert [len(s.list_keys(features={"x": x})) for x in (float("nan"), 0.0)] == [1, 1]
        with pytest.raises(tsstore.InvalidParameterError, match="matches several series"):
            s.get_time_series(1, "p")
        assert s.verify_integrity()["problems"] == []
    with tsstore.Store.open(path) as s:
        s.remove_time_series(1, "p", x=0.0)
        with pytest.raises(tsstore.NotFoundError):
            s.get_time_series(1, "p", x=0.0)  # never the NaN series
        assert s.get_time_series(1, "p").data.tolist() == [7.0, 8.0]


def s_meta_hash(path, x):
    with tsstore.Store.open(path, read_only=True) as s:
        return s.get_metadata(s.list_keys(features={"x": x})[0])["features_hash"]

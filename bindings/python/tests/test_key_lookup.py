"""A held Key names one series exactly, its feature set included: has, get and remove never
take a series whose features only include the key's."""
import datetime as dt

import numpy as np
import pytest

import tsstore
from tsstore import OwnerCategory, SeriesType

T0 = dt.datetime(2024, 1, 1, tzinfo=dt.timezone.utc)


def test_a_key_never_takes_a_series_with_more_features(tmp_path):
    path = str(tmp_path / "system.nc")
    with tsstore.Store.create(path) as s:
        stored = s.add_time_series(
            tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(24.0)),
            owner_id=5, owner_type="PowerLoad", features={"scenario": "high", "year": 2030})
    narrow = tsstore.Key(5, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "load", "PT1H",
                         features={"scenario": "high"})
    featureless = tsstore.Key(5, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "load", "PT1H")
    with tsstore.Store.open(path) as s:
        assert s.has_time_series(stored)
        assert not s.has_time_series(narrow)
        assert not s.has_time_series(featureless)
        with pytest.raises(tsstore.NotFoundError):
            s.get_time_series(narrow)
        with pytest.raises(tsstore.NotFoundError):
            s.remove_time_series(featureless)
        assert s.has_time_series(stored)  # the refused removal changed nothing
        np.testing.assert_array_equal(s.get_time_series(stored).data, np.arange(24.0))


def test_a_used_key_pickles_and_reads_in_its_new_home(tmp_path):
    import pickle
    path = str(tmp_path / "system.nc")
    with tsstore.Store.create(path) as s:
        key = s.add_time_series(tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(24.0)),
                                owner_id=5, owner_type="PowerLoad", features={"scenario": "high"})
        s.get_time_series(key)  # caches the lookup struct and the read size in the key
    copy = pickle.loads(pickle.dumps(key))
    assert copy == key and copy.features == {"scenario": "high"}
    with tsstore.Store.open(path, read_only=True) as s:
        np.testing.assert_array_equal(s.get_time_series(copy).data, np.arange(24.0))


def test_a_held_key_reads_what_is_stored_now(tmp_path):
    """A Key read again and again keeps its last read's size and start time to spare work;
    a series removed and stored again under the same key with another start, length and
    dtype reads as the new one, and a removed one is not found."""
    key = tsstore.Key(5, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "load", "PT1H")
    with tsstore.Store.in_memory() as s:
        s.add_time_series(tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(24.0)),
                          owner_id=5, owner_type="PowerLoad")
        for _ in range(3):
            ts = s.get_time_series(key)
            assert ts.initial_timestamp == T0
            assert ts.resolution == dt.timedelta(hours=1)
            np.testing.assert_array_equal(ts.data, np.arange(24.0))
        later = T0 + dt.timedelta(days=3)
        for data in (np.arange(60, dtype=np.int32), np.arange(24.0) * 2):  # longer, then shorter again
            s.remove_time_series(key)
            with pytest.raises(tsstore.NotFoundError):
                s.get_time_series(key)
            s.add_time_series(tsstore.SingleTimeSeries("load", later, dt.timedelta(hours=1), data),
                              owner_id=5, owner_type="PowerLoad")
            ts = s.get_time_series(key)
            assert ts.initial_timestamp == later
            assert ts.data.dtype == data.dtype
            np.testing.assert_array_equal(ts.data, data)
            later += dt.timedelta(days=1)
        ts.data[0] = 99.0  # the array is the caller's own
        assert s.get_time_series(key).data[0] == 0.0


def test_calls_by_owner_and_name_read_each_owners_series():
    """Calls by owner and name without features copy one converted lookup per name, type and
    periods, with the owner id written in: each owner still reads its own series, each
    spelling of a period finds it, features still narrow the choice, and a bad argument is
    refused as before, by name."""
    with tsstore.Store.in_memory() as s:
        for i in range(4):
            s.add_time_series(tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(6.0) + i),
                              owner_id=i, owner_type="PowerLoad", features={"year": 2030 + i % 2})
        for _ in range(2):
            for i in range(4):
                for res in (None, "PT1H", dt.timedelta(hours=1)):
                    ts = s.get_time_series(i, "load", resolution=res)
                    assert ts.name == "load" and ts.resolution == dt.timedelta(hours=1)
                    np.testing.assert_array_equal(ts.data, np.arange(6.0) + i)
                    assert s.has_time_series(i, "load", resolution=res)
                assert s.get_time_series(i, "load", year=2030 + i % 2).data[0] == i
                assert not s.has_time_series(i, "load", year=2031 - i % 2)
        assert not s.has_time_series(4, "load")
        with pytest.raises(tsstore.NotFoundError):
            s.get_time_series(1, "load", resolution="PT2H")
        with pytest.raises(TypeError, match="resolution: a period is"):
            s.get_time_series(1, "load", resolution=["PT1H"])  # unhashable: converted, and refused
        with pytest.raises(TypeError, match="time_series_type: True is not a series type"):
            s.get_time_series(1, "load", time_series_type=True)


def test_a_built_key_keeps_the_id_its_read_found(tmp_path):
    """A Key built by hand learns its series' id from its first read (the hint that spares
    the catalog search, include/tsstore.h), learns the new one when the series is stored
    again, and a hint naming another series is checked, not trusted."""
    one = tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(24.0))
    built = tsstore.Key(5, OwnerCategory.COMPONENT, SeriesType.SINGLE_TIME_SERIES, "load", "PT1H")
    with tsstore.Store.in_memory() as s:
        listed = s.add_time_series(one, owner_id=5, owner_type="PowerLoad")
        other = s.add_time_series(one, owner_id=6, owner_type="PowerLoad")
        assert built._id == 0 and listed._id > 0
        s.get_time_series(built)
        assert built._id == listed._id and built.lookup().series_id == listed._id
        s.remove_time_series(built)
        again = s.add_time_series(tsstore.SingleTimeSeries("load", T0, dt.timedelta(hours=1), np.arange(5.0)),
                                  owner_id=5, owner_type="PowerLoad")
        assert again._id != listed._id
        np.testing.assert_array_equal(s.get_time_series(built).data, np.arange(5.0))
        assert built._id == again._id
        built._hint(other._id)  # owner 6's series: the library sees it is not this key's
        np.testing.assert_array_equal(s.get_time_series(built).data, np.arange(5.0))
        assert built._id == again._id

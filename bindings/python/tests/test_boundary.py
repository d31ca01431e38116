"""How many times a Python call crosses into the C library: a get is at most two crossings,
a batch add and a bulk read a constant number however many series they carry, and a reader
step one. Counted by wrapping the bound library, so a change that loops over the boundary
per item fails here."""
import datetime as dt

import numpy as np
import pytest

import tsstore
from tsstore import _ffi

T0 = dt.datetime(2024, 1, 1)


class Counting:
    """The names of the C functions called since the test began (or calls was emptied)."""

    def __init__(self, calls):
        self.calls = calls


@pytest.fixture
def counting():
    with _ffi.count_calls() as calls:
        yield Counting(calls)


def hourly(name, values):
    return tsstore.SingleTimeSeries(name, T0, "PT1H", values)


@pytest.mark.parametrize("n", [10, 1000])
def test_bulk_paths_cross_a_constant_number_of_times(tmp_path, counting, n):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        s.has_time_series(0, "p", resolution="PT1H")  # period texts are parsed once a process
        del counting.calls[:]
        keys = s.add_time_series_bulk([dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G")
                                       for i in range(n)])
        assert counting.calls == ["tsstore_add_batch_from"]
        del counting.calls[:]
        s.get_many(keys)  # the first key's size, then every value
        assert counting.calls == ["tsstore_get_info", "tsstore_get_many"]
        del counting.calls[:]
        got = s.get_many(keys)  # the sizes are known now
        assert counting.calls == ["tsstore_get_many"]
        assert got[n - 1].data[0] == n - 1
        del counting.calls[:]
        listed = s.list_keys()
        assert len(listed) == n and len(counting.calls) == 4  # list, len, get all, free


def test_a_get_crosses_at_most_twice_and_a_reader_step_once(tmp_path, counting):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        keys = [s.add_time_series(hourly("p", np.arange(24.0) * i), owner_id=i, owner_type="G") for i in range(3)]
        del counting.calls[:]
        s.get_time_series(keys[1])
        assert len(counting.calls) <= 2
        del counting.calls[:]
        np.testing.assert_array_equal(s.get_time_series(keys[1]).data, np.arange(24.0))
        assert counting.calls == ["tsstore_get"]
        with s.static_reader("PT1H", keys) as rd:
            del counting.calls[:]
            np.testing.assert_array_equal(rd.read_step(5), [0.0, 5.0, 10.0])
            assert counting.calls == ["tsstore_static_reader_read_step"]


def test_an_add_returns_the_keys_the_library_stored(tmp_path):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        one = s.add_time_series(hourly("q", np.zeros(3)), owner_id=9, owner_type="G", features={"zone": 2.5})
        bulk = s.add_time_series_bulk([dict(ts=hourly("p", np.arange(24.0)), owner_id=i, owner_type="G")
                                       for i in range(3)])
        listed = s.list_keys()
        assert [one] + bulk == listed
        # Each carries its series' id, the hint a later lookup hands back to the library.
        ids = [k._id for k in [one] + bulk]
        assert ids == [k._id for k in listed] and len(set(ids)) == 4 and min(ids) > 0
        assert one.resolution == dt.timedelta(hours=1) and one.features == {"zone": 2.5}
        # A hint never changes what a key reads: a key whose id now names another series
        # (its own removed, another added) reads its own identity or nothing.
        s.remove_time_series(bulk[0])
        readded = s.add_time_series(hourly("p", np.full(24, 7.0)), owner_id=0, owner_type="G")
        assert s.get_time_series(bulk[0]).data[0] == 7.0 and readded == bulk[0]
        stale = tsstore.Key(1, tsstore.OwnerCategory.COMPONENT, tsstore.SeriesType.SINGLE_TIME_SERIES, "p",
                            dt.timedelta(hours=1))
        object.__setattr__(stale, "_id", readded._id)  # the id of owner 0's series
        np.testing.assert_array_equal(s.get_time_series(stale).data, np.arange(24.0))


def test_keys_of_one_group_share_what_they_can_and_nothing_mutable(tmp_path):
    """The keys of a bulk add that differ only in owner (made by a two-column loop) are the
    keys a listing makes one by one: they share one lookup template, each has its own
    features dict, and each names and reads its own series."""
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        keys = s.add_time_series_bulk([dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G",
                                            features={"zone": "north"}) for i in range(5)])
        mixed = s.add_time_series_bulk([dict(ts=hourly("p", np.arange(24.0)), owner_id=9, owner_type="G"),
                                        dict(ts=hourly("q", np.arange(24.0)), owner_id=9, owner_type="G"),
                                        dict(ts=hourly("p", np.arange(24.0)), owner_id=8, owner_type="G")])
        assert keys + mixed == s.list_keys()
        assert len({id(k._template) for k in keys}) == 1 and len({id(k._template) for k in mixed}) == 2
        assert [k.owner_id for k in keys] == list(range(5)) and len({k._id for k in keys}) == 5
        keys[1].features["zone"] = "south"
        assert keys[2].features == {"zone": "north"}
        assert [s.get_time_series(k).data[0] for k in keys[2:]] == [2.0, 3.0, 4.0]


def test_a_read_by_owner_and_name_is_one_call_once_its_size_is_known(tmp_path, counting):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        for i in range(3):
            s.add_time_series(hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G")
        s.add_time_series(hourly("p", np.arange(48.0) + 3), owner_id=3, owner_type="G")
        del counting.calls[:]
        assert s.get_time_series(0, "p").data[5] == 5.0
        assert counting.calls == ["tsstore_get", "tsstore_get"]  # sized, then read by the key found
        del counting.calls[:]
        assert s.get_time_series(1, "p").data[5] == 6.0
        assert counting.calls == ["tsstore_get"]
        del counting.calls[:]
        np.testing.assert_array_equal(s.get_time_series(3, "p").data, np.arange(48.0) + 3)  # larger: two
        assert counting.calls == ["tsstore_get", "tsstore_get"]
        del counting.calls[:]
        assert len(s.get_time_series(2, "p").data) == 24  # a smaller one fits the larger buffer
        assert counting.calls == ["tsstore_get"]


def test_a_refusal_carries_the_item_and_argument_the_library_blamed(tmp_path):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.add_time_series_bulk([dict(ts=hourly("r", np.zeros(2)), owner_id=1, owner_type="G"),
                                    dict(ts=hourly("r", np.zeros(2)), owner_id=2, owner_type="G",
                                         features={"units": 1})])
        e = err.value
        assert (e.item, e.arg, e.detail) == (1, tsstore._raw.TSSTORE_ARG_FEATURES, "units")
        # Refused while the library read its arguments, before the core ran: the report still
        # names the operation, which says whose argument names apply.
        assert e.operation == "add_time_series_batch"
        assert str(e).startswith("add_time_series_bulk: items[1]: features['units']: ")
        assert "descs" not in str(e) and "features_json" not in str(e)  # the C spelling stays out
        assert s.list_keys(name="r") == []
        with pytest.raises(tsstore.InvalidParameterError) as err:
            s.get_time_series(5, "p", features={"units": 1})
        assert err.value.operation == "get_time_series" and str(err.value).startswith(
            "get_time_series: features['units']: ")
        with pytest.raises(tsstore.NotFoundError) as err:
            s.get_time_series(5, "p")
        e = err.value
        assert e.arg == tsstore._raw.TSSTORE_ARG_LOOKUP and e.item is None and "Component 5" in e.reason
        assert str(e) == "get_time_series: " + e.reason

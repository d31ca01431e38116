"""How many times a Python call crosses into the C library: a get is at most two crossings,
a batch add and a bulk read a constant number however many series they carry, and a reader
step one. Counted by wrapping the bound library, so a change that loops over the boundary
per item fails here."""
import datetime as dt

import numpy as np
import pytest

import tsstore
from tsstore import _store, _readers

T0 = dt.datetime(2024, 1, 1)


class Counting:
    """The bound library, counting every call that goes through it."""

    def __init__(self, lib):
        self._lib, self.calls = lib, []

    def __getattr__(self, name):
        fn = getattr(self._lib, name)

        def counted(*args):
            self.calls.append(name)
            return fn(*args)
        return counted


@pytest.fixture
def counting(monkeypatch):
    c = Counting(_store.lib)
    monkeypatch.setattr(_store, "lib", c)
    monkeypatch.setattr(_readers, "lib", c)
    return c


def hourly(name, values):
    return tsstore.SingleTimeSeries(name, T0, "PT1H", values)


@pytest.mark.parametrize("n", [10, 1000])
def test_bulk_paths_cross_a_constant_number_of_times(tmp_path, counting, n):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        del counting.calls[:]
        keys = s.add_time_series_bulk([dict(ts=hourly("p", np.arange(24.0) + i), owner_id=i, owner_type="G")
                                       for i in range(n)])
        assert counting.calls == ["tsstore_add_batch"]
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
            assert counting.calls == ["tsstore_static_reader_read"]

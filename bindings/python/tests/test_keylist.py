"""KeyList: the keys of a bulk add or a listing behave as a list of Key, whether they are held
as columns (one name, type, periods and features) or made at once, and the lookups read from
the columns are byte for byte the ones the keys themselves give."""
import datetime as dt
import pickle
import sys
import threading

import numpy as np
import pytest

import tsstore
from tsstore._keylist import lookup_array

T0 = dt.datetime(2024, 1, 1)


def items(n, name="p", first_owner=0, features=None):
    return [dict(ts=tsstore.SingleTimeSeries(name, T0, "PT1H", np.arange(24.0) + i), owner_id=first_owner + i,
                 owner_type="G", features=features) for i in range(n)]


@pytest.fixture
def store(tmp_path):
    with tsstore.Store.create(str(tmp_path / "s.nc")) as s:
        yield s


def plain_keys(keys):
    """Each key rebuilt from its fields, as a user would: no cached lookup, no id hint."""
    return [tsstore.Key(k.owner_id, k.owner_category, k.series_type, k.name, k.resolution, k.interval,
                        dict(k.features)) for k in keys]


def test_a_bulk_adds_keys_are_a_list_of_keys(store):
    keys = store.add_time_series_bulk(items(50, features={"model": "a"}))
    assert isinstance(keys, tsstore.KeyList) and keys._group() is not None  # held as columns
    assert len(keys) == 50
    assert keys[7] is keys[7] and keys[-1] is keys[49]  # made once, then kept
    assert keys[7].owner_id == 7 and keys[7].features == {"model": "a"} and keys[7].name == "p"
    assert [k.owner_id for k in keys[10:13]] == [10, 11, 12]
    assert keys == store.list_keys() == plain_keys(keys)
    assert store.list_keys() == keys
    with pytest.raises(IndexError):
        keys[50]


def test_a_made_key_has_its_own_features(store):
    keys = store.add_time_series_bulk(items(5, features={"model": "a"}))
    keys[1].features["model"] = "changed"  # a key's features are its own dict, as a Key's
    keys[0].features["model"] = "first"  # the first key's too, which the others are made from
    assert keys[2].features == {"model": "a"} and keys[3] == store.list_keys()[3]
    assert [k.features for k in keys] == [{"model": "first"}, {"model": "changed"}] + [{"model": "a"}] * 3


def test_a_key_list_changes_as_a_list_does(store):
    keys = store.add_time_series_bulk(items(6))
    third = keys[3]
    extra = store.add_time_series(tsstore.SingleTimeSeries("q", T0, "PT1H", np.arange(3.0)), owner_id=99,
                                  owner_type="G")
    keys.append(extra)
    assert len(keys) == 7 and keys[3] is third and keys[-1] == extra
    keys.sort(key=lambda k: -k.owner_id)
    assert [k.owner_id for k in keys] == [99, 5, 4, 3, 2, 1, 0]
    del keys[0]
    keys.reverse()
    assert [k.owner_id for k in keys] == [0, 1, 2, 3, 4, 5]
    assert keys + [extra] == plain_keys(keys) + [extra] and [extra] + keys == [extra] + plain_keys(keys)
    assert pickle.loads(pickle.dumps(keys)) == keys


def test_keys_of_many_groups_are_made_at_once(store):
    mixed = items(3) + items(3, name="q", first_owner=10) + items(2, first_owner=20, features={"f": 1})
    keys = store.add_time_series_bulk(mixed)
    assert keys._group() is None and len(keys) == 8
    assert [(k.name, k.owner_id, k.features) for k in keys] == [
        ("p", 0, {}), ("p", 1, {}), ("p", 2, {}), ("q", 10, {}), ("q", 11, {}), ("q", 12, {}),
        ("p", 20, {"f": 1}), ("p", 21, {"f": 1})]
    assert keys == store.list_keys()


@pytest.mark.parametrize("features", [None, {"model": "a", "n": 2}])
def test_lookups_from_columns_are_the_keys_own(store, features):
    keys = store.add_time_series_bulk(items(40, features=features))
    from_columns = lookup_array(keys)
    keys[5]  # one key made: the columns still give every lookup
    assert lookup_array(keys).tobytes() == from_columns.tobytes()
    assert from_columns.tobytes() == lookup_array(list(keys)).tobytes()
    # Against keys rebuilt by hand (a template of their own, no id hint): every field but the
    # hint, the strings compared by what they say.
    assert lookup_fields(from_columns, len(keys)) == lookup_fields(lookup_array(plain_keys(keys)), len(keys))


def lookup_fields(block, n):
    """Each tsstore_lookup of block as its fields, strings read, without the id hint."""
    raw = tsstore._ffi.raw
    structs = (raw.tsstore_lookup * n).from_buffer_copy(block.tobytes())
    return [(q.struct_size, q.series_type, q.owner_id, q.owner_category, q.flags, q.name,
             (q.resolution.value, q.resolution.unit), (q.interval.value, q.interval.unit), q.features_json,
             q.features, q.n_features) for q in structs]


def test_get_many_reads_a_key_list_held_as_columns_and_made(store):
    keys = store.add_time_series_bulk(items(30))
    store.flush()
    for ks in (keys, store.list_keys(), list(keys), plain_keys(keys)):
        got = store.get_many(ks)
        assert [g.name for g in got] == ["p"] * 30
        assert all((g.data == np.arange(24.0) + i).all() for i, g in enumerate(got))


def test_a_stale_id_in_the_columns_still_reads_the_series(store):
    keys = store.add_time_series_bulk(items(4))
    old_id = keys[2]._id
    store.remove_time_series(keys[2])
    store.add_time_series(tsstore.SingleTimeSeries("p", T0, "PT1H", np.arange(24.0) + 200), owner_id=2,
                          owner_type="G")
    assert store.list_keys(owner_id=2)[0]._id != old_id
    # keys' columns still hold the id the series had before its removal: the library finds it anew.
    assert keys._group() is not None
    assert [float(g.data[0]) for g in store.get_many(keys)] == [0.0, 1.0, 200.0, 3.0]


def test_a_key_list_answers_as_a_list_would(store):
    keys = store.add_time_series_bulk(items(4))
    with pytest.raises(TypeError, match="integers or slices, not float"):
        keys[1.0]
    assert keys[np.int64(2)] is keys[2] and keys[True] is keys[1]
    assert keys * 2 == 2 * keys == plain_keys(keys) * 2
    with pytest.raises(TypeError):
        keys + (1, 2)
    assert keys[:2] < keys and not keys < keys[:2] and keys >= plain_keys(keys)
    assert repr(keys) == repr(plain_keys(keys))
    twice = store.add_time_series_bulk(items(2, first_owner=50))
    twice *= 2
    assert [k.owner_id for k in twice] == [50, 51, 50, 51]


def test_threads_share_a_key_list(store):
    # Threads switching every microsecond make keys, and turn the list into a plain list,
    # at once: each index gives one Key object, and no access fails.
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for _ in range(20):
            keys = store.add_time_series_bulk(items(300, first_owner=1000 + _ * 300))
            seen, errors = [[] for _ in range(3)], []

            def index(out):
                try:
                    out.extend(keys[i] for i in range(len(keys)))
                except Exception as e:  # noqa: BLE001 - any failure is the finding
                    errors.append(e)

            threads = [threading.Thread(target=index, args=(seen[j],)) for j in range(2)]
            threads.append(threading.Thread(target=lambda: seen[2].extend(list(keys))))
            for th in threads:
                th.start()
            for th in threads:
                th.join()
            assert not errors
            assert all(a is b is c for a, b, c in zip(*seen)) and len(seen[0]) == 300
    finally:
        sys.setswitchinterval(old)


def test_a_reader_keeps_its_own_keys_without_making_them(store):
    keys = store.add_time_series_bulk(items(8))
    store.flush()
    keys[2]
    with store.static_reader("PT1H", keys) as rd:
        assert rd.keys._group() is not None  # still columns: no key made for the reader
        keys.append(keys[0])  # the caller's list changes; the reader's does not
        assert len(rd.keys) == 8 and rd.keys == keys[:8] and rd.keys[2] is keys[2]
        np.testing.assert_array_equal(rd.read_step(5), [5.0 + i for i in range(8)])

"""tsstore.infrasys beyond what infrasys's own suite checks (scripts/test-infrasys.sh runs
both): the DeterministicSingleTimeSeries view, conversions both ways, rollback of a failed
open_time_series_store block, read-only opens, and that arrays land in the store as the
module says. Skipped where infrasys is not installed."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import numpy as np
import pytest

infrasys = pytest.importorskip("infrasys")

import tsstore  # noqa: E402
import tsstore.infrasys as tsi  # noqa: E402
from infrasys import Component, System  # noqa: E402
from infrasys.exceptions import ISOperationNotAllowed  # noqa: E402
from infrasys.time_series_models import (Deterministic, DeterministicMetadata,  # noqa: E402
                                         NonSequentialTimeSeries, SingleTimeSeries)

T0 = dt.datetime(2030, 1, 1)
HOUR = dt.timedelta(hours=1)


class Load(Component):
    """A component to hang series on."""


@pytest.fixture(autouse=True)
def registered() -> None:
    tsi.register()


def _system(tmp_path: Path, n: int = 3) -> tuple[System, list[Load]]:
    system = System(name="t", time_series_storage_type=tsi.STORAGE_TYPE, time_series_directory=tmp_path)
    loads = [Load(name=f"load{i}") for i in range(n)]
    system.add_components(*loads)
    return system, loads


def test_arrays_are_series_of_the_store(tmp_path: Path) -> None:
    system, loads = _system(tmp_path)
    ts = SingleTimeSeries.from_array(np.arange(24.0), "max_active_power", T0, HOUR)
    system.add_time_series(ts, loads[0], loads[1], scenario="high")  # one array, two owners
    store = system.time_series.storage.store
    keys = store.list_keys()
    assert len(keys) == 1 and keys[0].owner_id == tsi.owner_id_of(ts.uuid) and keys[0].name == "max_active_power"
    assert store.get_metadata(keys[0])["owner_type"] == tsi.OWNER_TYPE
    got = system.get_time_series(loads[1], "max_active_power", start_time=T0 + 3 * HOUR, length=2)
    assert got.initial_timestamp == T0 + 3 * HOUR and list(got.data) == [3.0, 4.0]


def test_deterministic_single_time_series_view(tmp_path: Path) -> None:
    system, loads = _system(tmp_path)
    ts = SingleTimeSeries.from_array(np.arange(48.0), "p", T0, HOUR)
    system.add_time_series(ts, loads[0])
    storage = system.time_series.storage
    assert storage.store.transform_single_time_series(dt.timedelta(hours=8), dt.timedelta(hours=4)) == 1
    meta = DeterministicMetadata(name="p", time_series_uuid=ts.uuid, initial_timestamp=T0, resolution=HOUR,
                                 interval=dt.timedelta(hours=4), horizon=dt.timedelta(hours=8), window_count=11,
                                 type="Deterministic")
    view = storage.get_time_series(meta)
    assert isinstance(view, Deterministic) and view.data.shape == (11, 8)
    assert list(view.data[2]) == list(np.arange(8.0, 16.0))
    # The SingleTimeSeries itself still reads as one.
    assert list(system.get_time_series(loads[0], "p").data[:3]) == [0.0, 1.0, 2.0]


def test_convert_to_memory_and_back(tmp_path: Path) -> None:
    system, loads = _system(tmp_path)
    stamps = [T0, T0 + HOUR, T0 + 5 * HOUR]
    system.add_time_series(SingleTimeSeries.from_array(np.arange(10.0), "a", T0, HOUR), loads[0])
    system.add_time_series(NonSequentialTimeSeries.from_array(np.arange(3.0), stamps, "b"), loads[1])
    system.convert_storage(time_series_storage_type="memory")
    system.convert_storage(time_series_storage_type=tsi.STORAGE_TYPE, time_series_directory=tmp_path)
    assert isinstance(system.time_series.storage, tsi.TsStoreTimeSeriesStorage)
    assert list(system.get_time_series(loads[0], "a").data) == list(np.arange(10.0))
    back = system.get_time_series(loads[1], "b", time_series_type=NonSequentialTimeSeries)
    assert list(back.timestamps) == stamps


def test_failed_block_rolls_back(tmp_path: Path) -> None:
    system, loads = _system(tmp_path)
    system.add_time_series(SingleTimeSeries.from_array(np.arange(5.0), "kept", T0, HOUR), loads[0])
    with pytest.raises(RuntimeError):
        with system.open_time_series_store():
            for load in loads:
                system.add_time_series(SingleTimeSeries.from_array(np.arange(5.0), "lost", T0, HOUR), load)
            raise RuntimeError("boom")
    store = system.time_series.storage.store
    assert [k.name for k in store.list_keys()] == ["kept"]
    assert not system.has_time_series(loads[0], "lost")


def test_block_adds_are_batched_and_readable_inside(tmp_path: Path) -> None:
    system, loads = _system(tmp_path, 5)
    with system.open_time_series_store():
        for i, load in enumerate(loads):
            system.add_time_series(SingleTimeSeries.from_array(np.full(4, float(i)), "x", T0, HOUR), load)
        assert system.get_time_series(loads[3], "x").data[0] == 3.0  # drains the queue first
        system.add_time_series(Deterministic.from_array(np.arange(12.0).reshape(3, 4), "f", T0, HOUR,
                                                        4 * HOUR, HOUR, 3), loads[0])
    fc = system.get_time_series(loads[0], "f", time_series_type=Deterministic)
    assert fc.data.shape == (3, 4) and fc.data[2, 3] == 11.0
    assert len(system.time_series.storage.store.list_keys()) == 6


def test_serialize_and_read_only_open(tmp_path: Path) -> None:
    system, loads = _system(tmp_path)
    system.add_time_series(SingleTimeSeries.from_array(np.arange(6.0), "a", T0, HOUR), loads[0])
    path = tmp_path / "out" / "sys.json"
    system.to_json(path)
    ts_dir = path.parent / "sys_time_series"
    assert (ts_dir / tsi.STORE_FILE).exists() and (ts_dir / (tsi.STORE_FILE + ".sqlite")).exists()
    frozen = System.from_json(path, time_series_read_only=True)
    storage = frozen.time_series.storage
    assert storage.get_time_series_directory() == ts_dir
    assert list(frozen.get_time_series(frozen.get_component(Load, "load0"), "a").data) == list(np.arange(6.0))
    with pytest.raises(ISOperationNotAllowed):
        frozen.add_time_series(SingleTimeSeries.from_array(np.arange(3.0), "b", T0, HOUR),
                               frozen.get_component(Load, "load1"))
    with pytest.raises(tsstore.ReadOnlyError):  # the store itself refuses too
        storage.store.remove_time_series(storage.store.list_keys()[0])
    frozen.close()

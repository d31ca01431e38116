"""An infrasys time-series storage backend over one tsstore store.

infrasys (``pip install tsstore[infrasys]``) keeps its time-series metadata in its own SQLite
database and hands the arrays to a ``TimeSeriesStorageBase``. ``TsStoreTimeSeriesStorage`` is
one: every array infrasys stores (one per time-series UUID) is one series in a tsstore store,
``<directory>/time_series.nc`` and its catalog ``time_series.nc.sqlite``::

    import tsstore.infrasys
    tsstore.infrasys.register()                     # once per process
    system = System(time_series_storage_type="tsstore")
    ...
    system.to_json("out/system.json")               # the store pair goes to out/system_time_series/
    system2 = System.from_json("out/system.json")   # a writable copy, or time_series_read_only=True

How an array maps onto the store: the owner id is the top 63 bits of the time-series UUID
(owner type ``InfrasysTimeSeries``), the series name is infrasys's name, the type is the
array's (SingleTimeSeries, NonSequentialTimeSeries, Deterministic; a Deterministic's
[window, step] rows are stored as tsstore's [step, window]), and units go to the catalog.
Timestamps are kept in milliseconds, naive ones as UTC; they come back naive (UTC).
"""
from __future__ import annotations

import contextlib
import shutil
import tempfile
import uuid as _uuid
import weakref
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Generator, Iterable, Literal, Optional

import numpy as np

try:
    from infrasys.exceptions import ISNotStored
    from infrasys.time_series_models import (AbstractDeterministic, Deterministic, DeterministicMetadata,
                                             NonSequentialTimeSeries, NonSequentialTimeSeriesMetadata,
                                             SingleTimeSeries, SingleTimeSeriesMetadataBase, TimeSeriesData,
                                             TimeSeriesMetadata)
    from infrasys.time_series_storage_base import TimeSeriesStorageBase
except ImportError as e:  # infrasys is an optional dependency
    raise ImportError("tsstore.infrasys needs infrasys: pip install 'tsstore[infrasys]'") from e

from . import _series
from ._errors import DuplicateTimeSeriesError, NotFoundError
from ._series import Key, OwnerCategory, SeriesType
from ._store import Store

#: The value of infrasys's ``time_series_storage_type`` that selects this backend (in System(...)
#: and in a serialized system's JSON).
STORAGE_TYPE = "tsstore"
#: The store's file name inside the storage directory (its catalog adds ".sqlite").
STORE_FILE = "time_series.nc"
#: The owner type the store's catalog records for infrasys arrays.
OWNER_TYPE = "InfrasysTimeSeries"

_COMPONENT = OwnerCategory.COMPONENT
# Queued adds written at once when the queue reaches this many (bounding its memory, and
# so that a refusal mostly surfaces inside the block, at the add that filled it).
_QUEUE_LIMIT = 2000


def owner_id_of(time_series_uuid: _uuid.UUID | str) -> int:
    """The store owner id of an infrasys time-series UUID: its top 63 bits (non-negative)."""
    u = time_series_uuid if isinstance(time_series_uuid, _uuid.UUID) else _uuid.UUID(str(time_series_uuid))
    return u.int >> 65


def _series_type(metadata: TimeSeriesMetadata) -> SeriesType:
    if isinstance(metadata, SingleTimeSeriesMetadataBase):
        return SeriesType.SINGLE_TIME_SERIES
    if isinstance(metadata, NonSequentialTimeSeriesMetadata):
        return SeriesType.NON_SEQUENTIAL_TIME_SERIES
    if isinstance(metadata, DeterministicMetadata):
        return SeriesType.DETERMINISTIC
    raise NotImplementedError(f"tsstore storage: {type(metadata).__name__} is not supported")


def key_of(metadata: TimeSeriesMetadata, series_type: SeriesType | None = None) -> Key:
    """The store key of the array a metadata names: the owner from its time-series UUID, its
    name, its type, its resolution (and interval) and no features, every field given so that a
    lookup is one index probe."""
    typ = _series_type(metadata) if series_type is None else series_type
    res = _iso(getattr(metadata, "resolution", None))
    iv = _iso(metadata.interval) if isinstance(metadata, DeterministicMetadata) else None
    return Key(owner_id_of(metadata.time_series_uuid), _COMPONENT, typ, metadata.name, res, iv)


def _iso(period: timedelta | None) -> str | None:
    """ISO-8601 text of a whole number of milliseconds ("PT3600S"; the library parses it)."""
    if period is None:
        return None
    ms = period // timedelta(milliseconds=1)
    if timedelta(milliseconds=ms) != period or ms <= 0:
        raise ValueError(f"tsstore storage: period {period} is not a positive whole number of milliseconds")
    sec, frac = divmod(ms, 1000)
    return f"PT{sec}.{frac:03d}S" if frac else f"PT{sec}S"


def _naive_utc(t: Any) -> datetime:
    """A timestamp the store returned as a naive UTC datetime (as infrasys's other backends
    return them), whether it came as an aware datetime or a numpy datetime64."""
    if isinstance(t, np.datetime64):
        return t.astype("datetime64[us]").astype(datetime)
    if isinstance(t, datetime) and t.tzinfo is not None:
        return t.astimezone(timezone.utc).replace(tzinfo=None)
    return t


def _with_units(metadata: TimeSeriesMetadata, data: np.ndarray) -> Any:
    if metadata.units is not None:
        return metadata.units.quantity_type(data, metadata.units.units)
    return data


class TsStoreTimeSeriesStorage(TimeSeriesStorageBase):
    """Stores infrasys time-series arrays in one tsstore store in ``directory``.

    Make one with ``create_with_temp_directory`` / ``create_with_permanent_directory``, or let
    infrasys do it (``System(time_series_storage_type="tsstore")`` after ``register()``).
    ``open_time_series_store()`` is a store transaction: the adds and removals in the block
    commit together, durably, when it ends, and roll back if it raises. Its adds are queued
    and written as batches (one library call per 2,000), infrasys's bulk-add idiom made one.
    """

    #: Storage objects made, and calls on them, in this process (the peer test plugin counts
    #: the tests that use the backend with them).
    instances_created = 0
    calls = 0

    def __init__(self, directory: Path | str, *, read_only: bool = False, create: bool = True,
                 compression: str = "deflate:3:shuffle") -> None:
        self._directory = Path(directory)
        self._path = self._directory / STORE_FILE
        self._read_only = read_only
        self._init_state()
        if create and not self._path.exists():
            self._store = Store.create(str(self._path), compression=compression)
        else:
            self._store = Store.open(str(self._path), read_only=read_only)
        type(self).instances_created += 1

    def _init_state(self) -> None:
        # Keys by time-series UUID and metadata type: a Key caches its lookup struct and its array's size, so a
        # repeated read is one library call.
        self._keys: dict[tuple[_uuid.UUID, type], Key] = {}
        # Adds queued inside an open_time_series_store() block (None outside one).
        self._pending: list[dict] | None = None

    # -- construction ---------------------------------------------------------------------

    @classmethod
    def create_with_temp_directory(cls, base_directory: Path | str | None = None,
                                   **kwargs: Any) -> "TsStoreTimeSeriesStorage":
        """A new store in a temporary directory (under base_directory) removed at exit."""
        directory = Path(tempfile.mkdtemp(dir=base_directory))
        storage = cls(directory, **kwargs)
        storage._temporary()
        return storage

    @classmethod
    def create_with_permanent_directory(cls, directory: Path | str, **kwargs: Any) -> "TsStoreTimeSeriesStorage":
        """A store in directory (created if missing; an existing store there is opened)."""
        Path(directory).mkdir(parents=True, exist_ok=True)
        return cls(directory, **kwargs)

    def _temporary(self) -> None:
        """Removes the store's directory when this storage is collected or at exit, whichever
        comes first (closing the store first), as infrasys's temporary storages are."""
        weakref.finalize(self, _discard, self._store, self._directory)

    @property
    def store(self) -> Store:
        """The tsstore Store (for its own queries and readers; keep to reads)."""
        return self._store

    @property
    def path(self) -> Path:
        """The store's NetCDF file (its catalog is this path + '.sqlite')."""
        return self._path

    def close(self) -> None:
        """Commits and closes the store (infrasys calls it from System.close)."""
        self._store.close()

    def get_time_series_directory(self) -> Path:
        return self._directory

    # -- adding ---------------------------------------------------------------------------

    def add_time_series(self, metadata: TimeSeriesMetadata, time_series: TimeSeriesData,
                        context: Any = None) -> None:
        self.add_many([(metadata, time_series)])

    def add_many(self, items: Iterable[tuple[TimeSeriesMetadata, TimeSeriesData]]) -> None:
        """Stores many arrays in one all-or-nothing batch (one library call); arrays already
        stored are left as they are. Inside an open_time_series_store() block they are queued
        and written with the block's other adds, as one batch, when it ends (or before a read,
        a removal or a serialization in it)."""
        TsStoreTimeSeriesStorage.calls += 1
        batch = []
        for metadata, ts in items:
            batch.append(dict(ts=_to_store(metadata, ts), owner_id=owner_id_of(metadata.time_series_uuid),
                              owner_type=OWNER_TYPE,
                              units=metadata.units.units if metadata.units is not None else None))
        if self._pending is not None:
            self._pending.extend(batch)
            if len(self._pending) >= _QUEUE_LIMIT:
                self._drain()
            return
        self._write(batch)

    def _drain(self) -> None:
        """Writes the queued adds."""
        if self._pending:
            batch, self._pending = self._pending, []
            self._write(batch)

    def _write(self, batch: list[dict]) -> None:
        if not batch:
            return
        try:
            if len(batch) == 1:
                self._store.add_time_series(**batch[0])
            else:
                self._store.add_time_series_bulk(batch)
        except DuplicateTimeSeriesError:
            if len(batch) == 1:
                return  # already stored, as infrasys's other backends allow
            for item in batch:
                with contextlib.suppress(DuplicateTimeSeriesError):
                    self._store.add_time_series(**item)

    # -- reading --------------------------------------------------------------------------

    def get_time_series(self, metadata: TimeSeriesMetadata, start_time: datetime | None = None,
                        length: int | None = None, context: Any = None) -> TimeSeriesData:
        TsStoreTimeSeriesStorage.calls += 1
        self._drain()
        try:
            if isinstance(metadata, SingleTimeSeriesMetadataBase):
                return self._single(self._key(metadata), metadata, start_time, length)
            stored = self._read_whole(metadata)
        except NotFoundError as e:
            raise ISNotStored(f"No time series with {metadata.time_series_uuid} is stored") from e
        if isinstance(metadata, NonSequentialTimeSeriesMetadata):
            stamps = np.array([_naive_utc(t) for t in stored.timestamps], dtype=object)
            return NonSequentialTimeSeries(uuid=metadata.time_series_uuid, name=metadata.name,
                                           data=_with_units(metadata, np.asarray(stored.data)), timestamps=stamps,
                                           normalization=metadata.normalization)
        # Deterministic (or a DeterministicSingleTimeSeries the store derived): the store's
        # [step, window] back to infrasys's [window, step].
        assert isinstance(metadata, DeterministicMetadata)
        data = np.ascontiguousarray(np.swapaxes(np.asarray(stored.data), 0, 1))
        return Deterministic(uuid=metadata.time_series_uuid, name=metadata.name, resolution=metadata.resolution,
                             initial_timestamp=metadata.initial_timestamp, horizon=metadata.horizon,
                             interval=metadata.interval, window_count=metadata.window_count,
                             data=_with_units(metadata, data), normalization=metadata.normalization)

    def _key(self, metadata: TimeSeriesMetadata) -> Key:
        slot = (metadata.time_series_uuid, type(metadata))
        key = self._keys.get(slot)
        if key is None or key.name != metadata.name:
            key = self._keys[slot] = key_of(metadata)
        return key

    def _read_whole(self, metadata: TimeSeriesMetadata) -> Any:
        key = self._key(metadata)
        try:
            return self._store.get_time_series(key)
        except NotFoundError:
            if key.series_type != SeriesType.DETERMINISTIC:
                raise
        # Not a Deterministic: a DeterministicSingleTimeSeries the store derived over the
        # SingleTimeSeries of this UUID (tsstore's transform_single_time_series).
        key = key_of(metadata, SeriesType.DETERMINISTIC_SINGLE_TIME_SERIES)
        data = self._store.get_time_series(key)
        self._keys[(metadata.time_series_uuid, type(metadata))] = key
        return data

    def _single(self, key: Key, metadata: SingleTimeSeriesMetadataBase, start_time: datetime | None,
                length: int | None) -> SingleTimeSeries:
        if start_time is None and length is None:
            data = self._store.get_time_series(key).data
        else:
            index, n = metadata.get_range(start_time=start_time, length=length)
            first = metadata.initial_timestamp + index * metadata.resolution
            last = first + (n - 1) * metadata.resolution
            data = self._store.get_time_series(key, start=first, stop=last).data
        return SingleTimeSeries(uuid=metadata.time_series_uuid, name=metadata.name,
                                resolution=metadata.resolution,
                                initial_timestamp=start_time or metadata.initial_timestamp,
                                data=_with_units(metadata, np.asarray(data)), normalization=metadata.normalization)

    def get_many(self, metadata: list[TimeSeriesMetadata]) -> list[np.ndarray]:
        """The whole arrays of many stored series in one library call, in the metadata's order
        (the values only, as stored: a Deterministic as [step, window])."""
        self._drain()
        return [np.asarray(ts.data) for ts in self._store.get_many([self._key(m) for m in metadata])]

    # -- removing -------------------------------------------------------------------------

    def remove_time_series(self, metadata: TimeSeriesMetadata, context: Any = None) -> None:
        TsStoreTimeSeriesStorage.calls += 1
        self._drain()
        key = self._keys.pop((metadata.time_series_uuid, type(metadata)), None) or key_of(metadata)
        try:
            try:
                self._store.remove_time_series(key)
            except NotFoundError:
                if key.series_type != SeriesType.DETERMINISTIC:
                    raise
                self._store.remove_time_series(key_of(metadata, SeriesType.DETERMINISTIC_SINGLE_TIME_SERIES))
        except NotFoundError as e:
            raise ISNotStored(f"No time series with {metadata.time_series_uuid} is stored") from e

    # -- transactions ---------------------------------------------------------------------

    @contextlib.contextmanager
    def open_time_series_store(self, mode: Literal["r", "r+", "a", "w", "w-"] = "a") -> Generator[Any, None, None]:
        if mode == "r" or self._read_only:
            yield self._store
            return
        outer = self._pending is None
        if outer:
            self._pending = []
        try:
            with self._store.transaction():
                yield self._store
                self._drain()
        finally:
            if outer:
                self._pending = None

    # -- serialization --------------------------------------------------------------------

    def serialize(self, data: dict[str, Any], dst: Path | str, src: Optional[Path | str] = None) -> None:
        """Writes the store pair into directory dst (a copy of src's, or of this store's after a
        flush) and records the storage type in data."""
        TsStoreTimeSeriesStorage.calls += 1
        dst_dir = Path(dst)
        dst_dir.mkdir(parents=True, exist_ok=True)
        src_dir = Path(src) if src is not None else self._directory
        self._drain()
        if src is None and not self._read_only:
            self._store.flush()
        _copy_pair(src_dir / STORE_FILE, dst_dir / STORE_FILE)
        data["time_series_storage_type"] = STORAGE_TYPE
        data["time_series_file"] = STORE_FILE

    @classmethod
    def deserialize(cls, data: dict[str, Any], time_series_dir: Path, dst_time_series_directory: Path | None,
                    read_only: bool, **kwargs: Any) -> tuple["TsStoreTimeSeriesStorage", None]:
        """Opens a serialized system's store: in place when read_only, else a copy in a new
        directory (under dst_time_series_directory, or the system's temporary directory)."""
        name = data.get("time_series_file", STORE_FILE)
        src = Path(time_series_dir) / name
        if not src.exists():
            raise ISNotStored(f"no tsstore store at {src}")
        if read_only:
            storage = cls.__new__(cls)
            storage._directory, storage._path, storage._read_only = Path(time_series_dir), src, True
            storage._init_state()
            storage._store = Store.open(str(src), read_only=True)
            cls.instances_created += 1
            return storage, None
        directory = Path(tempfile.mkdtemp(dir=dst_time_series_directory))
        _copy_pair(src, directory / STORE_FILE)
        storage = cls(directory, create=False)
        storage._temporary()
        return storage, None


def _discard(store: Store, directory: Path) -> None:
    store.close()
    shutil.rmtree(directory, ignore_errors=True)


def _copy_pair(src: Path, dst: Path) -> None:
    """Copies a store pair (the .nc and its .sqlite catalog); nothing when they are the same."""
    if dst.exists() and src.exists() and src.samefile(dst):
        return
    for suffix in ("", ".sqlite"):
        shutil.copyfile(f"{src}{suffix}", f"{dst}{suffix}")


def _to_store(metadata: TimeSeriesMetadata, ts: TimeSeriesData) -> Any:
    """The tsstore series of an infrasys one."""
    if isinstance(ts, SingleTimeSeries):
        return _series.SingleTimeSeries(name=metadata.name, initial_timestamp=ts.initial_timestamp,
                                        resolution=ts.resolution, data=ts.data_array)
    if isinstance(ts, NonSequentialTimeSeries):
        return _series.NonSequentialTimeSeries(name=metadata.name, timestamps=list(ts.timestamps_array),
                                               data=ts.data_array)
    if isinstance(ts, AbstractDeterministic):
        data = np.asarray(ts.data_array)
        if data.ndim < 2:
            raise ValueError("Single-dimensional data is not supported for Deterministic time series")
        return _series.Deterministic(name=metadata.name, initial_timestamp=ts.initial_timestamp,
                                     resolution=ts.resolution, horizon=ts.horizon, interval=ts.interval,
                                     count=ts.window_count, data=np.swapaxes(data, 0, 1))
    raise NotImplementedError(f"tsstore storage: {type(ts).__name__} is not supported")


# -- registration with infrasys -----------------------------------------------------------

_original_create: Any = None
_compression = "deflate:3:shuffle"


def register(*, default: bool = False, compression: str | None = None) -> None:
    """Makes infrasys know the "tsstore" storage type: System(time_series_storage_type="tsstore"),
    convert_storage(time_series_storage_type="tsstore") and from_json of systems serialized
    with it. default=True also makes it the storage of systems that name none; compression
    ("none", "deflate:N:shuffle", "deflate:N:noshuffle"; the store's default
    "deflate:3:shuffle" until set) applies to the stores infrasys creates from then on. Safe
    to call again."""
    global _original_create, _compression
    if compression is not None:
        _compression = compression
    from infrasys import time_series_manager as tsm
    tsm.TIME_SERIES_REGISTRY[STORAGE_TYPE] = TsStoreTimeSeriesStorage  # type: ignore[index]
    if _original_create is None:
        _original_create = tsm.TimeSeriesManager.create_new_storage

        def create_new_storage(permanent: bool = False, **kwargs: Any) -> Any:
            storage_type = kwargs.get("time_series_storage_type", tsm.TIME_SERIES_KWARGS["time_series_storage_type"])
            if storage_type != STORAGE_TYPE:
                return _original_create(permanent=permanent, **kwargs)
            base = kwargs.get("time_series_directory")
            if permanent:
                if base is None:
                    raise tsm.ISInvalidParameter("Can't convert to permanent storage without a base directory")
                return TsStoreTimeSeriesStorage.create_with_permanent_directory(Path(base), compression=_compression)
            return TsStoreTimeSeriesStorage.create_with_temp_directory(base_directory=base, compression=_compression)

        tsm.TimeSeriesManager.create_new_storage = staticmethod(create_new_storage)  # type: ignore[method-assign]
    if default:
        tsm.TIME_SERIES_KWARGS["time_series_storage_type"] = STORAGE_TYPE


__all__ = ["TsStoreTimeSeriesStorage", "register", "STORAGE_TYPE", "STORE_FILE", "OWNER_TYPE", "key_of",
           "owner_id_of"]

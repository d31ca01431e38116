"""Adding series: one (add_time_series), many at once (add_time_series_bulk) or collected
in a block (bulk_add and its Batch). Every item is checked by Columns.append and the whole
add is one C call (send; send_each for add_time_series_bulk, whose items are checked a slice
at a time while the library adds the slice before)."""
from __future__ import annotations

import contextlib
from typing import Iterable, Iterator

from ._add_columns import Columns
from ._descriptors import send, send_each
from ._errors import InvalidHandleError, TsStoreError, in_operation
from ._handle import STATUS_CLOSED, StoreHandle
from ._keylist import KeyList
from ._series import Key, OwnerCategory, Series


class Adding(StoreHandle):
    """Store's calls that add series."""

    def add_time_series(self, ts: Series, *, owner_id: int, owner_type: str,
                        owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
                        units: str | None = None, ext: str | None = None) -> Key:
        """Stores a series for an owner and returns its key. features: str / int / float /
        bool values that tell apart series of one name; units and ext are free text.
        Raises DuplicateTimeSeriesError for a stored key, InvalidParameterError naming the
        field for bad input."""
        try:
            columns = Columns()
            columns.append(ts, owner_id, owner_type, owner_category, features, units, ext)
            return send(self, columns, batch=False)[0]
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, "add_time_series") from None

    def add_time_series_bulk(self, items: Iterable[dict]) -> KeyList:
        """Adds many series in one call, all or nothing. Each item is a dict of the arguments
        of add_time_series (ts=…, owner_id=…, owner_type=…, …); keys come back in order, as a
        KeyList whose keys are made when first asked for."""
        items = items if isinstance(items, (list, tuple)) else list(items)
        if not items:
            return KeyList()
        try:
            return send_each(self, items, _check_item)
        except TsStoreError as e:
            raise in_operation(e, "add_time_series_bulk") from None

    @contextlib.contextmanager
    def bulk_add(self) -> Iterator["Batch"]:
        """Collects series with batch.add(...) and adds them all when the block ends (nothing
        if it raises, or if any of them is refused); batch.keys then holds their keys."""
        batch = Batch(self)
        try:
            yield batch
        except BaseException:
            batch.discard()
            raise
        batch.commit()


def _check_item(columns: Columns, i: int, item: object) -> None:
    """Appends items[i] of add_time_series_bulk to columns, or raises naming it."""
    try:
        if not isinstance(item, dict):
            raise TypeError(f"an item is a dict of add_time_series' arguments, not {type(item).__name__}")
        columns.append(**item)
    except (TsStoreError, TypeError, ValueError) as e:
        raise in_operation(e, "add_time_series_bulk", f"items[{i}]: {e}") from None


def _committed(store: StoreHandle, columns: Columns, op: str) -> KeyList:
    """Adds a batch's checked items in one C call (none: no call) and returns their keys; a
    refusal starts with op."""
    if not len(columns):
        return KeyList()
    try:
        return send(store, columns, batch=True)
    except TsStoreError as e:
        raise in_operation(e, op) from None


class Batch:
    """Series collected by Store.bulk_add(); added together, all or nothing, when the block
    ends (one C call for the whole batch). keys holds their keys afterwards."""

    def __init__(self, store: StoreHandle, op: str = "bulk_add") -> None:
        self._store: StoreHandle | None = store
        self._op = op
        self._columns = Columns()
        self.keys = KeyList()

    def add(self, ts: Series, *, owner_id: int, owner_type: str,
            owner_category: OwnerCategory = OwnerCategory.COMPONENT, features: dict | None = None,
            units: str | None = None, ext: str | None = None) -> None:
        """Queues one series (checked against the store when the batch commits)."""
        self._live()
        try:
            self._columns.append(ts, owner_id, owner_type, owner_category, features, units, ext)
        except (TsStoreError, TypeError, ValueError) as e:
            raise in_operation(e, self._op, f"items[{len(self._columns)}]: {e}") from None

    def __len__(self) -> int:
        """How many series are queued."""
        self._live()
        return len(self._columns)

    def _live(self) -> StoreHandle:
        if self._store is None:
            raise InvalidHandleError("the batch was committed or discarded", STATUS_CLOSED)
        return self._store

    def commit(self) -> KeyList:
        """Adds every queued series, all or nothing, and returns their keys."""
        store = self._live()
        columns, self._columns, self._store = self._columns, Columns(), None
        self.keys = _committed(store, columns, self._op)
        return self.keys

    def discard(self) -> None:
        """Drops what is queued; harmless after commit."""
        self._columns, self._store = Columns(), None

"""KeyList: the keys a store hands back for many series at once, made when first asked for."""
from __future__ import annotations

import itertools
import operator
import threading
from collections.abc import MutableSequence
from typing import Any, Iterable, Iterator, Sequence, overload

import numpy as np

from ._ffi import gc_untrack
from ._convert import INT64_MAX, INT64_MIN
from ._series import _ID_OFF, _OWNER_OFF, Key, _KeyParts, _one_group, group_template, lookup_bytes, owner_of, same_parts


class KeyList(MutableSequence):
    """The keys of many series, in order: what add_time_series_bulk, Batch.keys and
    list_keys return. It is a list of Key in all but type (index, slice, iterate, compare
    with a list, append, sort); ``list(keys)`` makes a plain list.

    Keys that share their name, type, periods and features (a bulk add's usual items) are
    held as two columns of numbers, owner ids and series ids, 16 bytes a key, and each Key is
    made the first time it is asked for and kept from then on, so that a key asked for twice
    is the same object with its cached lookup. A bulk add of 100,000 series whose keys the
    caller never reads so spends nothing on them; made, they cost 0.8 µs and about 200 bytes
    each (docs/benchmarks.md, "Keys made when asked for"). get_many reads such a list's
    lookups from its columns, without making its keys. Threads may share a KeyList as they
    would a list: a key is made once, under the list's lock."""

    __slots__ = ("_made", "_cols")

    def __init__(self, keys: Iterable[Key] = ()) -> None:
        # The keys made: all of them while _cols is None; else none yet ([]) or one slot a
        # key, None where a key is not made yet.
        self._made: list = list(keys)
        self._cols: _Columns | None = None

    @classmethod
    def _of_one_group(cls, first: Key, owner_ids: np.ndarray, series_ids: np.ndarray) -> "KeyList":
        out = cls()
        out._cols = _Columns(first, owner_ids, series_ids)
        return out

    def _snapshot(self) -> "KeyList":
        """A list of the same keys that later changes to this one do not touch, as list(self)
        would be, without making the keys: a list held as columns shares them (they never
        change), and the keys made so far."""
        cols = self._cols
        if cols is None:
            return KeyList(self._made)
        with cols.lock:  # not made whole meanwhile, by another thread
            out = KeyList(self._made)
            if self._cols is not None:
                out._cols = cols
            return out

    # What get_many reads without making keys.

    def _group(self) -> Key | None:
        """The first key of a list held as columns, else None."""
        return self._cols.first if self._cols is not None else None

    def _lookups(self) -> np.ndarray | None:
        """The tsstore_lookup array of a list held as columns, from its first key's template
        and the two columns (the template's strings live as long as the first key); None
        for any other list. Keys made from the columns may since hold other id hints (a read
        found the series under another id): the column's is as good, as the library checks
        a hint."""
        c = self._cols
        if c is None:
            return None
        # The first key's template (stored_keys gives it one), each key's owner and id written in.
        one = np.frombuffer(lookup_bytes(c.first._template, 0, 0), dtype=np.uint8)
        return _with_ids(np.tile(one, (len(c.owner_ids), 1)), c.owner_ids, c.series_ids)

    # The sequence.

    def __len__(self) -> int:
        """How many keys (none made to count them)."""
        cols = self._cols
        return len(cols.owner_ids) if cols is not None else len(self._made)

    @overload
    def __getitem__(self, i: int) -> Key: ...

    @overload
    def __getitem__(self, i: slice) -> list: ...

    def __getitem__(self, i: Any) -> Any:
        cols = self._cols
        if cols is None:
            return self._made[i]
        n = len(cols.owner_ids)
        if isinstance(i, slice):
            return [self._key(cols, j) for j in range(*i.indices(n))]
        try:
            j = operator.index(i)
        except TypeError:
            raise TypeError(f"KeyList indices must be integers or slices, not {type(i).__name__}") from None
        if not -n <= j < n:
            raise IndexError("KeyList index out of range")
        return self._key(cols, j + n if j < 0 else j)

    def __iter__(self) -> Iterator[Key]:
        return iter(self._all())

    def __setitem__(self, i: Any, value: Any) -> None:
        self._all()[i] = value

    def __delitem__(self, i: Any) -> None:
        del self._all()[i]

    def insert(self, i: int, value: Key) -> None:
        """Inserts a key before index i, as list.insert (every key made)."""
        self._all().insert(i, value)

    def sort(self, *, key: Any = None, reverse: bool = False) -> None:
        """Sorts the keys in place, as list.sort (every key made)."""
        self._all().sort(key=key, reverse=reverse)

    def copy(self) -> list:
        """The keys as a plain list."""
        return list(self._all())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, KeyList)):
            return len(self) == len(other) and self._all() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable, as a list

    def _compared(self, other: Any, compare: Any) -> Any:
        return compare(self._all(), list(other)) if isinstance(other, (list, KeyList)) else NotImplemented

    def __lt__(self, other: Any) -> Any:
        return self._compared(other, operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._compared(other, operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._compared(other, operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._compared(other, operator.ge)

    def __add__(self, other: Any) -> Any:
        return self._all() + list(other) if isinstance(other, (list, KeyList)) else NotImplemented

    def __radd__(self, other: Any) -> Any:
        return list(other) + self._all() if isinstance(other, (list, KeyList)) else NotImplemented

    def __mul__(self, n: Any) -> list:
        return self._all() * n

    __rmul__ = __mul__

    def __imul__(self, n: Any) -> "KeyList":
        made = self._all()
        made *= n
        return self

    def __repr__(self) -> str:
        return repr(self._all())

    def __reduce__(self) -> tuple:
        return KeyList, (list(self._all()),)

    # Making keys.

    def _key(self, cols: "_Columns", i: int) -> Key:
        """Key i of a list held as cols, made on its first use (under the lock: one Key an
        index, whichever thread makes it)."""
        made = self._made
        if made:  # a key made before is read without the lock, as from a list
            k = made[i]
            if k is not None:
                return k
        with cols.lock:
            if self._cols is not cols:  # every key made meanwhile, by another thread
                return self._made[i]
            made = self._made
            if not made:
                made += [None] * len(cols.owner_ids)
                made[0] = cols.first
            k = made[i]
            if k is None:
                k = made[i] = cols.make(int(cols.owner_ids[i]), int(cols.series_ids[i]))
            return k

    def _all(self) -> list:
        """Every key made, and the list held as a plain list from then on."""
        cols = self._cols
        if cols is None:
            return self._made
        with cols.lock:
            if self._cols is None:
                return self._made
            oids, sids, make = cols.owner_ids.tolist(), cols.series_ids.tolist(), cols.make
            slots = self._made or [cols.first] + [None] * (len(oids) - 1)
            made = [k if k is not None else make(o, s) for k, o, s in zip(slots, oids, sids)]
            # _made first: a thread that then finds _cols gone finds every key.
            self._made = made
            self._cols = None
            return made


class _Columns:
    """The keys of one name, type, periods and feature set: the first key, made at once, a
    copy of its features as they were (a caller may change the first key's dict), and every
    key's owner id and series id."""

    __slots__ = ("first", "features", "owner_ids", "series_ids", "lock")

    def __init__(self, first: Key, owner_ids: np.ndarray, series_ids: np.ndarray) -> None:
        self.first, self.owner_ids, self.series_ids = first, owner_ids, series_ids
        self.features = dict(first.features)
        self.lock = threading.Lock()

    def make(self, owner_id: int, series_id: int) -> Key:
        """A key of the group: the first key's shared parts with this owner and id."""
        f, feats = self.first, self.features
        k: Any = _KeyParts(owner_id, f.owner_category, f.series_type, f.name, f.resolution, f.interval,
                           dict(feats) if feats else {}, series_id, f._template)
        k.__class__ = Key
        gc_untrack(k)  # refers to no key: part of no cycle (_ffi.gc_untrack)
        return k


def stored_keys(qs: np.ndarray) -> KeyList:
    """The keys of a tsstore_lookup array the library filled (numpy's view of it): what an
    add stored or a listing found, ids included. Keys of one group are held as columns and
    made when asked for (KeyList); others are made at once (Key._stored)."""
    if len(qs) <= 2 or not _one_group(qs):
        return KeyList(Key._stored(qs))
    first = Key._stored(qs[:1])[0]
    return KeyList._of_one_group(first, qs["owner_id"].astype(np.int64), qs["series_id"].astype(np.int64))


def lookup_array(keys: Sequence[Key]) -> np.ndarray:
    """The tsstore_lookup of every key, in one buffer. A KeyList held as columns gives its
    lookups from them (KeyList._lookups), without making a key. Other keys are written as
    such a list's are: each key's group template (_series.group_template: keys that differ
    only in owner id share one, built and checked once; a run of keys of one group finds it
    without a lookup), then every key's owner id and id hint in two columns. A key without a
    template keeps the one found for it, and a kept template is never replaced: each row points
    to strings its key's template holds, so the keys keep the rows valid. Built one key at a
    time this cost 2.8 µs a key the library had not handed out (2026-12-07)."""
    if type(keys) is KeyList:
        columns = keys._lookups()
        if columns is not None:
            return columns
    n = len(keys)
    if n == 0:
        return np.empty(0, dtype=np.uint8)
    owners, hints, which = [0] * n, [0] * n, [0] * n
    templates: dict = {}  # id of a template -> (its position, the template)
    setattr_ = object.__setattr__
    run = run_t = last_t = None  # run: the last key whose template this call found, and that template
    at = -1
    for i, k in enumerate(keys):
        t, o = k._template, k.owner_id
        fresh = t is None
        if fresh:
            # Only a template found from a key's parts in this call starts or continues a run: a
            # key's kept one may predate a change to its features.
            t = run_t if run is not None and same_parts(run, k) else group_template(k)
            run, run_t = k, t
        else:
            run = None
        if type(o) is not int or not INT64_MIN <= o <= INT64_MAX:
            o = owner_of(k)
        if fresh:  # kept once the owner id has passed; a kept template is never replaced
            setattr_(k, "_template", t)
        if t is not last_t:
            seen = templates.get(id(t))
            if seen is None:
                seen = templates[id(t)] = (len(templates), t)
            at, last_t = seen[0], t
        owners[i], hints[i], which[i] = o, k._id, at
    rows = np.stack([np.frombuffer(lookup_bytes(t, 0, 0), dtype=np.uint8) for _, t in templates.values()])
    rows = np.tile(rows[0], (n, 1)) if len(rows) == 1 else rows[np.array(which, dtype=np.intp)]
    return _with_ids(rows, owners, hints)


def _with_ids(rows: np.ndarray, owner_ids: Any, series_ids: Any) -> np.ndarray:
    """rows, one tsstore_lookup a row, with each row's owner id and id hint written in
    (little-endian, as lookup_bytes writes a key's own), as one flat buffer."""
    rows[:, _OWNER_OFF:_OWNER_OFF + 8] = np.asarray(owner_ids, dtype="<i8").view(np.uint8).reshape(-1, 8)
    rows[:, _ID_OFF:_ID_OFF + 8] = np.asarray(series_ids, dtype="<i8").view(np.uint8).reshape(-1, 8)
    return rows.reshape(-1)


def names_of(keys: Sequence[Key]) -> Iterable[str]:
    """The name of every key: a KeyList held as columns repeats its one name."""
    if type(keys) is KeyList:
        first = keys._group()
        if first is not None:
            return itertools.repeat(first.name, len(keys))
    return [k.name for k in keys]

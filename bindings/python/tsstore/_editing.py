"""Changes to stored series: removals, copies to other owners, renames, owner moves and
the DeterministicSingleTimeSeries transform."""
from __future__ import annotations

from typing import Any

from . import _convert as cv
from ._args import Filter, int64_arg, lookup_of
from ._errors import operation
from ._ffi import byref, c_int64, check, error, lib, raw
from ._handle import StoreHandle
from ._series import Key, OwnerCategory, SeriesType, SingleTimeSeries


class Editing(StoreHandle):
    """Store's calls that remove, copy, rename and move stored series."""

    @operation("remove_time_series")
    def remove_time_series(self, owner: "int | Key", name: str | None = None, *,
                           time_series_type: Any = SingleTimeSeries,
                           owner_category: OwnerCategory = OwnerCategory.COMPONENT, resolution: Any = None,
                           interval: Any = None, features: dict | None = None, **feature_values: Any) -> None:
        """Removes the one series a Key or the arguments of get_time_series name (its array is
        freed once no other series uses it); several matches are refused, listing them."""
        q, _ = lookup_of("remove_time_series", owner, name, time_series_type, owner_category, resolution,
                         interval, features, feature_values)
        check(lib.tsstore_remove(self._handle(), byref(q)))

    @operation("remove_time_series_where")
    def remove_time_series_where(self, *, owner_id: int | None = None, owner_category: OwnerCategory | None = None,
                                 series_type: SeriesType | None = None, name: str | None = None,
                                 name_glob: str | None = None, owner_type: str | None = None, resolution: Any = None,
                                 interval: Any = None, features: dict | None = None) -> int:
        """Removes every series list_keys with the same filters selects, all or nothing, and
        returns how many; with no filter at all it removes every series."""
        f = Filter(owner_id, owner_category, series_type, name, name_glob, owner_type, resolution, interval, features)
        removed = c_int64()
        check(lib.tsstore_remove_where(self._handle(), f.ref(), byref(removed)))
        return removed.value

    @operation("copy_time_series")
    def copy_time_series(self, key: Key, *, owner_id: int, owner_type: str,
                         owner_category: OwnerCategory = OwnerCategory.COMPONENT, name: str | None = None) -> Key:
        """Attaches a stored series to another owner too, optionally renamed (the array is
        shared, not copied); returns the new key."""
        check(lib.tsstore_copy_series(self._handle(), byref(key.lookup()), int64_arg(owner_id, "owner_id"),
                                      cv.text_arg(owner_type, "owner_type"),
                                      cv.enum_arg(OwnerCategory, owner_category, "owner_category"), cv.opt_text(name, "name")))
        return Key(owner_id, OwnerCategory(owner_category), key.series_type, key.name if name is None else name,
                   key.resolution, key.interval, dict(key.features))

    @operation("rename_time_series")
    def rename_time_series(self, key: Key, name: str) -> Key:
        """Renames a stored series and returns its new key."""
        check(lib.tsstore_rename_series(self._handle(), byref(key.lookup()), cv.text_arg(name, "name")))
        return Key(key.owner_id, key.owner_category, key.series_type, name, key.resolution, key.interval,
                   dict(key.features))

    @operation("replace_owner_id")
    def replace_owner_id(self, old: int, new: int, *, owner_category: OwnerCategory = OwnerCategory.COMPONENT) -> int:
        """Moves every series of one owner to another id, all or nothing; returns how many."""
        moved = c_int64()
        check(lib.tsstore_replace_owner_id(self._handle(), int64_arg(old, "old"),
                                           cv.enum_arg(OwnerCategory, owner_category, "owner_category"),
                                           int64_arg(new, "new"), byref(moved)))
        return moved.value

    @operation("transform_single_time_series")
    def transform_single_time_series(self, horizon: Any, interval: Any, *,
                                     owner_category: OwnerCategory | None = None, resolution: Any = None) -> int:
        """Derives a DeterministicSingleTimeSeries view of every stored SingleTimeSeries
        (optionally of one owner category / resolution), all or nothing; returns how many
        were added (0 when run again with the same horizon)."""
        added = c_int64()
        category = raw.TSSTORE_OWNER_ANY if owner_category is None else int(owner_category)
        res = None if resolution is None else byref(cv.period(resolution, "resolution"))
        st = lib.tsstore_transform_single_time_series(self._handle(), byref(cv.period(horizon, "horizon")),
                                                      byref(cv.period(interval, "interval")), category, res, byref(added))
        if st:
            raise cv.respelled(error(st), horizon, interval, resolution)
        return added.value

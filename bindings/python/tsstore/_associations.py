"""The association tables: supplemental attributes attached to components, and parent /
child edges between components."""
from __future__ import annotations

from typing import Any, Iterable

from . import _convert as cv
from ._args import address, ids_arg, int64_arg
from ._ffi import byref, c_int32, c_int64, c_size_t, check, cstr, lib, raw, sizeof
from ._cstructs import handle_out
from ._handle import StoreHandle

_SUPPLEMENTAL, _PARENT_CHILD = raw.TSSTORE_SUPPLEMENTAL_ASSOCIATIONS, raw.TSSTORE_PARENT_CHILD_ASSOCIATIONS
_ASSOC_SIZE = sizeof(raw.tsstore_association)


class Associations(StoreHandle):
    """Store's calls on the association tables."""

    def add_supplemental_attribute_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Attaches attributes to components, all or nothing: rows of (component_id,
        component_type, attribute_id, attribute_type). A stored (component, attribute) pair,
        whatever its type names, is DuplicateAssociationError."""
        self._add_associations(_SUPPLEMENTAL, rows)

    def add_parent_child_associations(self, rows: Iterable[tuple[int, str, int, str]]) -> None:
        """Adds directed edges, all or nothing: rows of (parent_id, parent_type, child_id,
        child_type)."""
        self._add_associations(_PARENT_CHILD, rows)

    def _add_associations(self, table: int, rows: Iterable[tuple[int, str, int, str]]) -> None:
        rows = list(rows)
        arr = (raw.tsstore_association * max(len(rows), 1))()
        keep = []
        for i, (a, at, b, bt) in enumerate(rows):
            ab, bb = cv.text_arg(at, f"rows[{i}][1]"), cv.text_arg(bt, f"rows[{i}][3]")
            keep += [ab, bb]
            e = arr[i]
            e.struct_size, e.a_id, e.a_type, e.b_id, e.b_type = _ASSOC_SIZE, int64_arg(a, f"rows[{i}][0]"), ab, int64_arg(b, f"rows[{i}][2]"), bb
        check(lib.tsstore_add_associations(self._handle(), table, arr, len(rows)))

    def has_supplemental_attribute_association(self, component_id: int, attribute_id: int) -> bool:
        """Whether the attribute is attached to the component."""
        return self._has_association(_SUPPLEMENTAL, component_id, attribute_id)

    def has_parent_child_association(self, parent_id: int, child_id: int) -> bool:
        """Whether the edge parent → child exists."""
        return self._has_association(_PARENT_CHILD, parent_id, child_id)

    def _has_association(self, table: int, a: int, b: int) -> bool:
        found = c_int32()
        check(lib.tsstore_has_association(self._handle(), table, int64_arg(a, "a_id"), int64_arg(b, "b_id"), byref(found)))
        return bool(found.value)

    def list_supplemental_attribute_associations(
            self, *, component_ids: Iterable[int] | None = None, attribute_ids: Iterable[int] | None = None,
            component_type: str | None = None, attribute_type: str | None = None) -> list[tuple[int, str, int, str]]:
        """Rows of (component_id, component_type, attribute_id, attribute_type) matching every
        filter; an id filter of None matches everything, an empty one nothing."""
        return self._list_associations(_SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def list_parent_child_associations(
            self, *, parent_ids: Iterable[int] | None = None, child_ids: Iterable[int] | None = None,
            parent_type: str | None = None, child_type: str | None = None) -> list[tuple[int, str, int, str]]:
        """Rows of (parent_id, parent_type, child_id, child_type) matching every filter."""
        return self._list_associations(_PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _list_associations(self, table: int, a_ids: Any, b_ids: Any, a_type: str | None,
                           b_type: str | None) -> list[tuple[int, str, int, str]]:
        out = handle_out()
        (a, na), (b, nb) = ids_arg(a_ids), ids_arg(b_ids)
        check(lib.tsstore_list_associations(self._handle(), table, address(a), na, address(b), nb, cv.opt_text(a_type, "type"),
                                            cv.opt_text(b_type, "type"), byref(out)))
        try:
            n = c_size_t()
            check(lib.tsstore_associations_len(out, byref(n)))
            arr = (raw.tsstore_association * max(n.value, 1))()
            arr[0].struct_size = _ASSOC_SIZE
            check(lib.tsstore_associations_get(out, 0, n.value, arr))
            return [(r.a_id, cstr(r.a_type), r.b_id, cstr(r.b_type)) for r in arr[: n.value]]
        finally:
            lib.tsstore_associations_free(out)

    def list_component_ids_with_attributes(self, *, attribute_ids: Iterable[int] | None = None,
                                           attribute_type: str | None = None) -> list[int]:
        """The distinct components carrying the given attributes (all: None), ascending."""
        rows = self.list_supplemental_attribute_associations(attribute_ids=attribute_ids,
                                                             attribute_type=attribute_type)
        return sorted({r[0] for r in rows})

    def list_attribute_ids_of_components(self, *, component_ids: Iterable[int] | None = None,
                                         attribute_type: str | None = None) -> list[int]:
        """The distinct attributes attached to the given components (all: None), ascending."""
        rows = self.list_supplemental_attribute_associations(component_ids=component_ids,
                                                             attribute_type=attribute_type)
        return sorted({r[2] for r in rows})

    def remove_supplemental_attribute_associations(
            self, *, component_ids: Iterable[int] | None = None, attribute_ids: Iterable[int] | None = None,
            component_type: str | None = None, attribute_type: str | None = None) -> int:
        """Removes the matching rows (no filter: all of them) and returns how many."""
        return self._remove_associations(_SUPPLEMENTAL, component_ids, attribute_ids, component_type, attribute_type)

    def remove_parent_child_associations(
            self, *, parent_ids: Iterable[int] | None = None, child_ids: Iterable[int] | None = None,
            parent_type: str | None = None, child_type: str | None = None) -> int:
        """Removes the matching edges and returns how many."""
        return self._remove_associations(_PARENT_CHILD, parent_ids, child_ids, parent_type, child_type)

    def _remove_associations(self, table: int, a_ids: Any, b_ids: Any, a_type: str | None, b_type: str | None) -> int:
        removed = c_int64()
        (a, na), (b, nb) = ids_arg(a_ids), ids_arg(b_ids)
        check(lib.tsstore_remove_associations(self._handle(), table, address(a), na, address(b), nb, cv.opt_text(a_type, "type"),
                                              cv.opt_text(b_type, "type"), byref(removed)))
        return removed.value

    def replace_association_component_id(self, old: int, new: int) -> int:
        """Replaces a component id in the supplemental-attribute associations; returns how
        many rows changed."""
        return self._replace_association_id(_SUPPLEMENTAL, old, new)

    def replace_parent_child_id(self, old: int, new: int) -> int:
        """Replaces an id at both ends of the parent/child edges; returns how many changed."""
        return self._replace_association_id(_PARENT_CHILD, old, new)

    def _replace_association_id(self, table: int, old: int, new: int) -> int:
        changed = c_int64()
        check(lib.tsstore_replace_association_id(self._handle(), table, int64_arg(old, "old"),
                                                 int64_arg(new, "new"), byref(changed)))
        return changed.value

    def _association_counts(self, table: int) -> tuple[int, int, int]:
        c = raw.tsstore_association_tally()
        c.struct_size = sizeof(c)
        check(lib.tsstore_association_counts(self._handle(), table, byref(c)))
        return c.rows, c.distinct_a, c.distinct_b

    def supplemental_attribute_association_counts(self) -> dict[str, int]:
        """{'rows', 'components', 'attributes'}: rows and distinct ids at each end."""
        rows, a, b = self._association_counts(_SUPPLEMENTAL)
        return {"rows": rows, "components": a, "attributes": b}

    def parent_child_association_counts(self) -> dict[str, int]:
        """{'rows', 'parents', 'children'}."""
        rows, a, b = self._association_counts(_PARENT_CHILD)
        return {"rows": rows, "parents": a, "children": b}

    def children_of(self, parent_id: int) -> list[int]:
        """The children of a component, ascending."""
        return sorted({r[2] for r in self.list_parent_child_associations(parent_ids=[parent_id])})

    def parents_of(self, child_id: int) -> list[int]:
        """The parents of a component, ascending."""
        return sorted({r[0] for r in self.list_parent_child_associations(child_ids=[child_id])})

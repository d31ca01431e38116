package main

// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// assocRow is one row of either association table, A end first.
type assocRow struct {
	a, b         int64
	aType, bType string
}

func tableArg(table C.int32_t) error {
	if table != 0 && table != 1 {
		return invalidArg("table: unknown code %d (0 supplemental, 1 parent/child)", table)
	}
	return nil
}

// idList reads an optional id list: NULL is nil (no filter), non-NULL of length 0 is empty.
func idList(p *C.int64_t, n C.size_t, field string) ([]int64, error) {
	if p == nil {
		if n > 0 {
			return nil, invalidArg("%s is NULL but its length is %d", field, n)
		}
		return nil, nil
	}
	if n > 1<<32 {
		return nil, invalidArg("%s: length %d is too large", field, n)
	}
	return valuesFromC[int64](unsafe.Pointer(p), int(n)), nil
}

func typeList(p *C.char) []string {
	if p == nil {
		return nil
	}
	return []string{C.GoString(p)}
}

//export tsstore_add_associations
func tsstore_add_associations(p C.uintptr_t, table C.int32_t, n C.size_t, aIDs *C.int64_t, aTypes **C.char,
	bIDs *C.int64_t, bTypes **C.char) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		if n > 1<<32 {
			return invalidArg("n: %d is too large", n)
		}
		if n > 0 && (aIDs == nil || aTypes == nil || bIDs == nil || bTypes == nil) {
			return invalidArg("a_ids, a_types, b_ids and b_types must not be NULL when n is %d", n)
		}
		as, bs := valuesFromC[int64](unsafe.Pointer(aIDs), int(n)), valuesFromC[int64](unsafe.Pointer(bIDs), int(n))
		at := valuesFromC[uintptr](unsafe.Pointer(aTypes), int(n))
		bt := valuesFromC[uintptr](unsafe.Pointer(bTypes), int(n))
		rows := make([]assocRow, n)
		for i := range rows {
			if at[i] == 0 || bt[i] == 0 {
				return invalidArg("items[%d]: a type name is NULL", i)
			}
			rows[i] = assocRow{as[i], bs[i], cString(at[i]), cString(bt[i])}
		}
		if table == 0 {
			sa := make([]core.SupplementalAssociation, len(rows))
			for i, r := range rows {
				sa[i] = core.SupplementalAssociation{ComponentID: r.a, ComponentType: r.aType, AttributeID: r.b, AttributeType: r.bType}
			}
			return s.AddSupplementalAssociations(sa)
		}
		pc := make([]core.ParentChildAssociation, len(rows))
		for i, r := range rows {
			pc[i] = core.ParentChildAssociation{ParentID: r.a, ParentType: r.aType, ChildID: r.b, ChildType: r.bType}
		}
		return s.AddParentChildAssociations(pc)
	})
}

//export tsstore_has_association
func tsstore_has_association(p C.uintptr_t, table C.int32_t, a, b C.int64_t, found *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		if found == nil {
			return invalidArg("found is NULL")
		}
		var ok bool
		var err error
		if table == 0 {
			ok, err = s.HasSupplementalAssociation(int64(a), int64(b))
		} else {
			ok, err = s.HasParentChildAssociation(int64(a), int64(b))
		}
		if err == nil {
			*found = 0
			if ok {
				*found = 1
			}
		}
		return err
	})
}

// assocFilter is the C filter arguments read once for list and remove.
type assocFilter struct {
	aIDs, bIDs   []int64
	aType, bType []string
	supplemental core.SupplementalFilter
	parentChild  core.ParentChildFilter
}

func readFilter(aIDs *C.int64_t, nA C.size_t, bIDs *C.int64_t, nB C.size_t, aType, bType *C.char) (assocFilter, error) {
	var f assocFilter
	var err error
	if f.aIDs, err = idList(aIDs, nA, "a_ids"); err != nil {
		return f, err
	}
	if f.bIDs, err = idList(bIDs, nB, "b_ids"); err != nil {
		return f, err
	}
	f.aType, f.bType = typeList(aType), typeList(bType)
	f.supplemental = core.SupplementalFilter{ComponentIDs: f.aIDs, AttributeIDs: f.bIDs, ComponentTypes: f.aType, AttributeTypes: f.bType}
	f.parentChild = core.ParentChildFilter{ParentIDs: f.aIDs, ChildIDs: f.bIDs, ParentTypes: f.aType, ChildTypes: f.bType}
	return f, nil
}

//export tsstore_list_associations
func tsstore_list_associations(p C.uintptr_t, table C.int32_t, aIDs *C.int64_t, nA C.size_t, bIDs *C.int64_t, nB C.size_t,
	aType, bType *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var rows []assocRow
	st := withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		f, err := readFilter(aIDs, nA, bIDs, nB, aType, bType)
		if err != nil {
			return err
		}
		if table == 0 {
			got, err := s.ListSupplementalAssociations(f.supplemental)
			for _, a := range got {
				rows = append(rows, assocRow{a.ComponentID, a.AttributeID, a.ComponentType, a.AttributeType})
			}
			return err
		}
		got, err := s.ListParentChildAssociations(f.parentChild)
		for _, a := range got {
			rows = append(rows, assocRow{a.ParentID, a.ChildID, a.ParentType, a.ChildType})
		}
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindAssociations, rows))
	}
	return st
}

//export tsstore_remove_associations
func tsstore_remove_associations(p C.uintptr_t, table C.int32_t, aIDs *C.int64_t, nA C.size_t, bIDs *C.int64_t, nB C.size_t,
	aType, bType *C.char, removed *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		f, err := readFilter(aIDs, nA, bIDs, nB, aType, bType)
		if err != nil {
			return err
		}
		var n int
		if table == 0 {
			n, err = s.RemoveSupplementalAssociations(f.supplemental)
		} else {
			n, err = s.RemoveParentChildAssociations(f.parentChild)
		}
		if err == nil && removed != nil {
			*removed = C.int64_t(n)
		}
		return err
	})
}

//export tsstore_replace_association_id
func tsstore_replace_association_id(p C.uintptr_t, table C.int32_t, oldID, newID C.int64_t, changed *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		var n int
		var err error
		if table == 0 {
			n, err = s.ReplaceSupplementalComponentID(int64(oldID), int64(newID))
		} else {
			n, err = s.ReplaceParentChildID(int64(oldID), int64(newID))
		}
		if err == nil && changed != nil {
			*changed = C.int64_t(n)
		}
		return err
	})
}

//export tsstore_association_counts
func tsstore_association_counts(p C.uintptr_t, table C.int32_t, rows, distinctA, distinctB *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		var c core.AssociationCounts
		var err error
		if table == 0 {
			c, err = s.SupplementalAssociationCounts()
		} else {
			c, err = s.ParentChildAssociationCounts()
		}
		if err != nil {
			return err
		}
		for _, f := range []struct {
			p *C.int64_t
			v int
		}{{rows, c.Rows}, {distinctA, c.DistinctA}, {distinctB, c.DistinctB}} {
			if f.p != nil {
				*f.p = C.int64_t(f.v)
			}
		}
		return nil
	})
}

func getAssociations(p C.uintptr_t) ([]assocRow, error) {
	v, ok := lookup(uintptr(p), kindAssociations)
	if !ok {
		return nil, badHandle("association list")
	}
	return v.([]assocRow), nil
}

//export tsstore_associations_len
func tsstore_associations_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	rows, err := getAssociations(p)
	if err == nil && n == nil {
		err = invalidArg("len is NULL")
	}
	if err == nil {
		*n = C.size_t(len(rows))
	}
	return noFail(err)
}

func assocAt(p C.uintptr_t, i C.size_t) (assocRow, error) {
	rows, err := getAssociations(p)
	if err == nil && uint64(i) >= uint64(len(rows)) {
		err = invalidArg("i: %d is outside 0–%d", i, len(rows)-1)
	}
	if err != nil {
		return assocRow{}, err
	}
	return rows[i], nil
}

//export tsstore_associations_ids
func tsstore_associations_ids(p C.uintptr_t, i C.size_t, a, b *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	r, err := assocAt(p, i)
	if err == nil {
		if a != nil {
			*a = C.int64_t(r.a)
		}
		if b != nil {
			*b = C.int64_t(r.b)
		}
	}
	return noFail(err)
}

//export tsstore_associations_type
func tsstore_associations_type(p C.uintptr_t, i C.size_t, end C.int32_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	r, err := assocAt(p, i)
	if err == nil {
		switch end {
		case 0:
			err = putString(r.aType, buf, capacity, needed)
		case 1:
			err = putString(r.bType, buf, capacity, needed)
		default:
			err = invalidArg("end: %d is not 0 (A) or 1 (B)", end)
		}
	}
	return noFail(err)
}

//export tsstore_associations_free
func tsstore_associations_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindAssociations)
}

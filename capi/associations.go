package main

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"unicode/utf8"
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
		return badArg(core.ArgTable, "unknown code %d (0 supplemental, 1 parent/child)", table)
	}
	return nil
}

// idList reads an optional id list: NULL is nil (no filter), non-NULL of length 0 is empty.
func idList(p *C.int64_t, n C.size_t, arg core.Arg) ([]int64, error) {
	if p == nil {
		if n > 0 {
			return nil, badArg(arg, "is NULL but its length is %d", n)
		}
		return nil, nil
	}
	if n > 1<<32 {
		return nil, badArg(arg, "length %d is too large", n)
	}
	return valuesFromC[int64](unsafe.Pointer(p), int(n)), nil
}

func typeList(p *C.char, arg core.Arg) ([]string, error) {
	if p == nil {
		return nil, nil
	}
	t, err := utf8String(p, one, arg)
	return []string{t}, err
}

// utf8String reads w's string arg, which must be UTF-8.
func utf8String(p *C.char, w where, arg core.Arg) (string, error) {
	if p == nil {
		return "", w.bad(arg, "", "is NULL")
	}
	s := C.GoString(p)
	if !utf8.ValidString(s) {
		return "", w.bad(arg, "", "%q is not UTF-8", s)
	}
	return s, nil
}

var associationSize = unsafe.Sizeof(C.tsstore_association{})

//export tsstore_add_associations
func tsstore_add_associations(p C.uintptr_t, table C.int32_t, in *C.tsstore_association, n C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		rows, err := associationsIn(in, n)
		if err != nil {
			return err
		}
		if table == C.TSSTORE_SUPPLEMENTAL_ASSOCIATIONS {
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

// associationsIn reads rows[n] of the caller's.
func associationsIn(in *C.tsstore_association, n C.size_t) ([]assocRow, error) {
	if n > 1<<32 {
		return nil, badArg(core.ArgKeys, "n %d is too large", n)
	}
	if n == 0 {
		return nil, nil
	}
	if in == nil {
		return nil, badArg(core.ArgKeys, "rows is NULL but n is %d", n)
	}
	stride, err := structSize(in.struct_size, associationSize, elem("items", 0), core.ArgNone, "TSSTORE_ASSOCIATION_INIT")
	if err != nil {
		return nil, err
	}
	rows := make([]assocRow, n)
	for i := range rows {
		e := element(in, stride, i)
		at, err := utf8String(e.a_type, elem("items", i), core.ArgAType)
		if err != nil {
			return nil, err
		}
		bt, err := utf8String(e.b_type, elem("items", i), core.ArgBType)
		if err != nil {
			return nil, err
		}
		rows[i] = assocRow{int64(e.a_id), int64(e.b_id), at, bt}
	}
	return rows, nil
}

//export tsstore_has_association
func tsstore_has_association(p C.uintptr_t, table C.int32_t, a, b C.int64_t, found *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		if found == nil {
			return nullOut("found")
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
	if f.aIDs, err = idList(aIDs, nA, core.ArgAIDs); err != nil {
		return f, err
	}
	if f.bIDs, err = idList(bIDs, nB, core.ArgBIDs); err != nil {
		return f, err
	}
	if f.aType, err = typeList(aType, core.ArgAType); err != nil {
		return f, err
	}
	if f.bType, err = typeList(bType, core.ArgBType); err != nil {
		return f, err
	}
	f.supplemental = core.SupplementalFilter{ComponentIDs: f.aIDs, AttributeIDs: f.bIDs, ComponentTypes: f.aType, AttributeTypes: f.bType}
	f.parentChild = core.ParentChildFilter{ParentIDs: f.aIDs, ChildIDs: f.bIDs, ParentTypes: f.aType, ChildTypes: f.bType}
	return f, nil
}

//export tsstore_list_associations
func tsstore_list_associations(p C.uintptr_t, table C.int32_t, aIDs *C.int64_t, nA C.size_t, bIDs *C.int64_t, nB C.size_t,
	aType, bType *C.char, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, nullOut("out"))
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
		*out = newAssocList(rows)
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
func tsstore_association_counts(p C.uintptr_t, table C.int32_t, counts *C.tsstore_association_tally) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if err := tableArg(table); err != nil {
			return err
		}
		if counts == nil {
			return nullOut("counts")
		}
		if _, err := outSize(counts.struct_size, unsafe.Sizeof(C.tsstore_association_tally{}), "counts", "TSSTORE_ASSOCIATION_TALLY_INIT"); err != nil {
			return err
		}
		var c core.AssociationCounts
		var err error
		if table == C.TSSTORE_SUPPLEMENTAL_ASSOCIATIONS {
			c, err = s.SupplementalAssociationCounts()
		} else {
			c, err = s.ParentChildAssociationCounts()
		}
		if err == nil {
			counts.rows, counts.distinct_a, counts.distinct_b = C.int64_t(c.Rows), C.int64_t(c.DistinctA), C.int64_t(c.DistinctB)
		}
		return err
	})
}

// assocList is a listing of association rows, the C copies of their type names owned by
// the list.
type assocList struct {
	rows []assocRow
	text interner
}

func newAssocList(rows []assocRow) C.uintptr_t {
	return C.uintptr_t(register(kindAssociations, &assocList{rows: rows}))
}

func getAssociations(p C.uintptr_t) (*assocList, error) {
	v, ok := lookup(uintptr(p), kindAssociations)
	if !ok {
		return nil, badHandle("association list")
	}
	return v.(*assocList), nil
}

//export tsstore_associations_len
func tsstore_associations_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	l, err := getAssociations(p)
	if err == nil && n == nil {
		err = nullOut("len")
	}
	if err == nil {
		*n = C.size_t(len(l.rows))
	}
	return noFail(err)
}

//export tsstore_associations_get
func tsstore_associations_get(p C.uintptr_t, first, n C.size_t, dst *C.tsstore_association) (status C.int32_t) {
	defer guard(&status)
	l, err := getAssociations(p)
	if err == nil {
		err = l.put(first, n, dst)
	}
	return noFail(err)
}

func (l *assocList) put(first, n C.size_t, dst *C.tsstore_association) error {
	if uint64(first) > uint64(len(l.rows)) || uint64(n) > uint64(len(l.rows))-uint64(first) {
		return badArg(core.ArgNone, "first %d, n %d: the list holds %d rows", first, n, len(l.rows))
	}
	if n == 0 {
		return nil
	}
	if dst == nil {
		return nullOut("dst")
	}
	stride, err := outSize(dst.struct_size, associationSize, "dst[0]", "TSSTORE_ASSOCIATION_INIT")
	if err != nil {
		return err
	}
	for i := 0; i < int(n); i++ {
		j := int(first) + i
		e := element(dst, stride, i)
		e.a_id, e.b_id = C.int64_t(l.rows[j].a), C.int64_t(l.rows[j].b)
		e.a_type, e.b_type = l.text.text(l.rows[j].aType), l.text.text(l.rows[j].bType)
	}
	return nil
}

//export tsstore_associations_free
func tsstore_associations_free(p C.uintptr_t) {
	defer guardVoid()
	if l, ok := unregister(uintptr(p), kindAssociations).(*assocList); ok {
		l.text.free()
	}
}

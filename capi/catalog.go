package main

// #include "capi.h"
import "C"

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

func getMetadata(p C.uintptr_t) (*core.Metadata, error) {
	v, ok := lookup(uintptr(p), kindMetadata)
	if !ok {
		return nil, badHandle("metadata")
	}
	return v.(*core.Metadata), nil
}

//export tsstore_get_metadata
func tsstore_get_metadata(p C.uintptr_t, key C.uintptr_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var m *core.Metadata
	st := withStore(p, func(s *core.Store) error {
		k, err := getKey(key)
		if err != nil {
			return err
		}
		m, err = s.GetMetadata(k)
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindMetadata, m))
	}
	return st
}

//export tsstore_metadata_free
func tsstore_metadata_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindMetadata)
}

func withMetadata(p C.uintptr_t, fn func(*core.Metadata) error) C.int32_t {
	m, err := getMetadata(p)
	if err == nil {
		err = fn(m)
	}
	return noFail(err)
}

//export tsstore_metadata_info
func tsstore_metadata_info(p C.uintptr_t, seriesType, dtype *C.int32_t, length, count, initialMS *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withMetadata(p, func(m *core.Metadata) error {
		if seriesType != nil {
			*seriesType = C.int32_t(m.Type)
		}
		if dtype != nil {
			*dtype = C.int32_t(m.DType)
		}
		if length != nil {
			*length = C.int64_t(m.Length)
		}
		if count != nil {
			*count = C.int64_t(m.Count)
		}
		if initialMS != nil {
			*initialMS = 0
			if !m.InitialTimestamp.IsZero() {
				*initialMS = toMillis(m.InitialTimestamp)
			}
		}
		return nil
	})
}

//export tsstore_metadata_element_shape
func tsstore_metadata_element_shape(p C.uintptr_t, shape *C.int64_t, capacity C.size_t, ndim *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withMetadata(p, func(m *core.Metadata) error { return putShape(m.ElementShape, shape, capacity, ndim) })
}

//export tsstore_metadata_text
func tsstore_metadata_text(p C.uintptr_t, field C.int32_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withMetadata(p, func(m *core.Metadata) error {
		var v string
		switch field {
		case 0:
			v = m.OwnerType
		case 1:
			v = m.Units
		case 2:
			v = m.Ext
		case 3:
			v = periodText(m.Resolution)
		case 4:
			v = periodText(m.Horizon)
		case 5:
			v = periodText(m.Interval)
		default:
			return invalidArg("field: unknown code %d (0–5)", field)
		}
		return putString(v, buf, capacity, needed)
	})
}

//export tsstore_metadata_hash
func tsstore_metadata_hash(p C.uintptr_t, which C.int32_t, hash *C.uint8_t) (status C.int32_t) {
	defer guard(&status)
	return withMetadata(p, func(m *core.Metadata) error {
		if hash == nil {
			return invalidArg("hash is NULL")
		}
		var h [32]byte
		switch which {
		case 0:
			h = m.DataHash
		case 1:
			h = m.FeaturesHash
		default:
			return invalidArg("which: unknown code %d (0 data_hash, 1 features_hash)", which)
		}
		toC(unsafe.Pointer(hash), h[:])
		return nil
	})
}

//export tsstore_metadata_key
func tsstore_metadata_key(p C.uintptr_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	m, err := getMetadata(p)
	if err != nil {
		return fail(nil, err)
	}
	*out = newKeyHandle(m.Key)
	return statusOK
}

//export tsstore_list_distinct
func tsstore_list_distinct(p C.uintptr_t, field C.int32_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var vals []string
	st := withStore(p, func(s *core.Store) error {
		var err error
		var ps []core.Period
		switch field {
		case 0:
			vals, err = s.ListNames(core.KeyFilter{})
		case 1:
			vals, err = s.ListOwnerTypes(core.KeyFilter{})
		case 2:
			ps, err = s.Resolutions(core.KeyFilter{})
		case 3:
			ps, err = s.Intervals(core.KeyFilter{})
		default:
			return invalidArg("field: unknown code %d (0 names, 1 owner types, 2 resolutions, 3 intervals)", field)
		}
		for _, p := range ps {
			vals = append(vals, p.String())
		}
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindStrings, vals))
	}
	return st
}

func getStrings(p C.uintptr_t) ([]string, error) {
	v, ok := lookup(uintptr(p), kindStrings)
	if !ok {
		return nil, badHandle("string list")
	}
	return v.([]string), nil
}

//export tsstore_strings_len
func tsstore_strings_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	vals, err := getStrings(p)
	if err == nil && n == nil {
		err = invalidArg("len is NULL")
	}
	if err == nil {
		*n = C.size_t(len(vals))
	}
	return noFail(err)
}

//export tsstore_strings_get
func tsstore_strings_get(p C.uintptr_t, i C.size_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	vals, err := getStrings(p)
	if err == nil && uint64(i) >= uint64(len(vals)) {
		err = invalidArg("i: %d is outside 0–%d", i, len(vals)-1)
	}
	if err == nil {
		err = putString(vals[i], buf, capacity, needed)
	}
	return noFail(err)
}

//export tsstore_strings_free
func tsstore_strings_free(p C.uintptr_t) {
	defer guardVoid()
	unregister(uintptr(p), kindStrings)
}

func putCounts(counts *C.int64_t, byType map[core.SeriesType]int) error {
	if counts == nil {
		return invalidArg("counts is NULL")
	}
	out := make([]int64, 7)
	for i := range out {
		out[i] = int64(byType[core.SeriesType(i)])
	}
	toC(unsafe.Pointer(counts), bytesOf(out))
	return nil
}

//export tsstore_counts_by_type
func tsstore_counts_by_type(p C.uintptr_t, counts *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		byType, err := s.CountsByType(core.KeyFilter{})
		if err != nil {
			return err
		}
		return putCounts(counts, byType)
	})
}

//export tsstore_count_arrays
func tsstore_count_arrays(p C.uintptr_t, n *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if n == nil {
			return invalidArg("n is NULL")
		}
		v, err := s.CountArrays(core.KeyFilter{})
		if err == nil {
			*n = C.int64_t(v)
		}
		return err
	})
}

func hashArg(hash *C.uint8_t) ([32]byte, error) {
	var h [32]byte
	if hash == nil {
		return h, invalidArg("hash is NULL")
	}
	copy(h[:], fromC(unsafe.Pointer(hash), 32))
	return h, nil
}

//export tsstore_count_by_hash
func tsstore_count_by_hash(p C.uintptr_t, hash *C.uint8_t, counts *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		h, err := hashArg(hash)
		if err != nil {
			return err
		}
		byType, err := s.CountByHash(h)
		if err != nil {
			return err
		}
		return putCounts(counts, byType)
	})
}

//export tsstore_get_array
func tsstore_get_array(p C.uintptr_t, hash *C.uint8_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, invalidArg("out is NULL"))
	}
	*out = 0
	var arr core.TypedArray
	st := withStore(p, func(s *core.Store) error {
		h, err := hashArg(hash)
		if err != nil {
			return err
		}
		arr, err = s.GetArray(h)
		return err
	})
	if st == statusOK {
		*out = C.uintptr_t(register(kindSeries, &seriesHandle{typ: rawArray, arr: arr}))
	}
	return st
}

//export tsstore_forecast_parameters
func tsstore_forecast_parameters(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		ps, err := s.ForecastParameters(core.KeyFilter{})
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, fp := range ps {
			fmt.Fprintf(&b, "%d %d %s %s %s %d %d\n", fp.Type, fp.InitialTimestamp.UnixMilli(), fp.Resolution,
				fp.Horizon, fp.Interval, fp.Count, fp.Series)
		}
		return putString(b.String(), buf, capacity, needed)
	})
}

//export tsstore_static_summary
func tsstore_static_summary(p C.uintptr_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		grids, err := s.StaticSummary(core.KeyFilter{})
		if err != nil {
			return err
		}
		var b strings.Builder
		for _, g := range grids {
			fmt.Fprintf(&b, "%s %d %d %d %d\n", g.Resolution, g.InitialTimestamp.UnixMilli(), g.Length, g.Series, g.Owners)
		}
		return putString(b.String(), buf, capacity, needed)
	})
}

// keyResult hands out a key when keyOut is not NULL.
func keyResult(st C.int32_t, k core.Key, keyOut *C.uintptr_t) C.int32_t {
	if st == statusOK && keyOut != nil {
		*keyOut = newKeyHandle(k)
	}
	return st
}

//export tsstore_copy_series
func tsstore_copy_series(p C.uintptr_t, key C.uintptr_t, ownerID C.int64_t, ownerType *C.char, category C.int32_t,
	newName *C.char, keyOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if keyOut != nil {
		*keyOut = 0
	}
	var nk core.Key
	st := withStore(p, func(s *core.Store) error {
		k, err := getKey(key)
		if err != nil {
			return err
		}
		if category < 0 || !core.OwnerCategory(category).Valid() {
			return invalidArg("owner_category: unknown code %d", category)
		}
		ot, err := reqString(ownerType, "owner_type")
		if err != nil {
			return err
		}
		nk, err = s.CopySeries(k, core.Owner{ID: int64(ownerID), Type: ot, Category: core.OwnerCategory(category)}, optString(newName))
		return err
	})
	return keyResult(st, nk, keyOut)
}

//export tsstore_rename_series
func tsstore_rename_series(p C.uintptr_t, key C.uintptr_t, newName *C.char, keyOut *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if keyOut != nil {
		*keyOut = 0
	}
	var nk core.Key
	st := withStore(p, func(s *core.Store) error {
		k, err := getKey(key)
		if err != nil {
			return err
		}
		n, err := reqString(newName, "new_name")
		if err != nil {
			return err
		}
		nk, err = s.RenameSeries(k, n)
		return err
	})
	return keyResult(st, nk, keyOut)
}

//export tsstore_replace_owner_id
func tsstore_replace_owner_id(p C.uintptr_t, category C.int32_t, oldID, newID C.int64_t, moved *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if category < 0 || !core.OwnerCategory(category).Valid() {
			return invalidArg("owner_category: unknown code %d", category)
		}
		n, err := s.ReplaceOwnerID(core.OwnerCategory(category), int64(oldID), int64(newID))
		if err == nil && moved != nil {
			*moved = C.int64_t(n)
		}
		return err
	})
}

//export tsstore_compact
func tsstore_compact(p C.uintptr_t, slots, datasets, featureSets, dead *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		rep, err := s.Compact()
		if err != nil {
			return err
		}
		for _, f := range []struct {
			p *C.int64_t
			v int
		}{{slots, rep.SlotsReclaimed}, {datasets, rep.DatasetsDropped}, {featureSets, rep.FeatureSetsReclaimed}, {dead, rep.DeadStandalone}} {
			if f.p != nil {
				*f.p = C.int64_t(f.v)
			}
		}
		return err
	})
}

//export tsstore_verify_integrity
func tsstore_verify_integrity(p C.uintptr_t, checked, problems *C.int64_t, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		rep, err := s.VerifyIntegrity()
		if err != nil {
			return err
		}
		var lines []string
		for _, group := range []struct {
			label string
			items []string
		}{{"hash mismatch", rep.HashMismatches}, {"unreadable", rep.Unreadable}, {"dangling row", rep.DanglingRows}, {"shape mismatch", rep.ShapeMismatches}} {
			for _, it := range group.items {
				lines = append(lines, group.label+": "+it)
			}
		}
		if checked != nil {
			*checked = C.int64_t(rep.ArraysChecked)
		}
		if problems != nil {
			*problems = C.int64_t(len(lines))
		}
		text := strings.Join(lines, "\n")
		if len(lines) > 0 {
			text += "\n"
		}
		return putString(text, buf, capacity, needed)
	})
}

//export tsstore_check_static_consistency
func tsstore_check_static_consistency(p C.uintptr_t, consistent *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if consistent == nil {
			return invalidArg("consistent is NULL")
		}
		rs, err := s.CheckStaticConsistency()
		if err != nil {
			return err
		}
		*consistent = 1
		for _, r := range rs {
			if !r.Consistent {
				*consistent = 0
			}
		}
		return nil
	})
}

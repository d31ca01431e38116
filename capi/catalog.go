package main

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// stringsHandle is a list of strings, their C copies owned by the handle.
type stringsHandle struct {
	vals []*C.char
	text interner
}

func newStringsHandle(vals []string) C.uintptr_t {
	h := &stringsHandle{vals: make([]*C.char, len(vals))}
	for i, v := range vals {
		h.vals[i] = h.text.text(v)
	}
	return C.uintptr_t(register(kindStrings, h))
}

func getStrings(p C.uintptr_t) (*stringsHandle, error) {
	v, ok := lookup(uintptr(p), kindStrings)
	if !ok {
		return nil, badHandle("string list")
	}
	return v.(*stringsHandle), nil
}

//export tsstore_list_distinct
func tsstore_list_distinct(p C.uintptr_t, field C.int32_t, out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	*out = 0
	var vals []string
	st := withStore(p, func(s *core.Store) error {
		var err error
		var ps []core.Period
		switch field {
		case C.TSSTORE_FIELD_NAME:
			vals, err = s.ListNames(core.KeyFilter{})
		case C.TSSTORE_FIELD_OWNER_TYPE:
			vals, err = s.ListOwnerTypes(core.KeyFilter{})
		case C.TSSTORE_FIELD_RESOLUTION:
			ps, err = s.Resolutions(core.KeyFilter{})
		case C.TSSTORE_FIELD_INTERVAL:
			ps, err = s.Intervals(core.KeyFilter{})
		default:
			return badArg(core.ArgField, "unknown code %d (TSSTORE_FIELD_NAME … TSSTORE_FIELD_INTERVAL, 0–3)", field)
		}
		for _, p := range ps {
			vals = append(vals, p.String())
		}
		return err
	})
	if st == statusOK {
		*out = newStringsHandle(vals)
	}
	return st
}

//export tsstore_strings_len
func tsstore_strings_len(p C.uintptr_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	h, err := getStrings(p)
	if err == nil && n == nil {
		err = nullOut("len")
	}
	if err == nil {
		*n = C.size_t(len(h.vals))
	}
	return noFail(err)
}

//export tsstore_strings_get
func tsstore_strings_get(p C.uintptr_t, i C.size_t, out **C.char) (status C.int32_t) {
	defer guard(&status)
	h, err := getStrings(p)
	switch {
	case err != nil:
	case out == nil:
		err = nullOut("out")
	case uint64(i) >= uint64(len(h.vals)):
		err = badArg(core.ArgNone, "i: %d is outside the list's %d strings", i, len(h.vals))
	default:
		*out = h.vals[i]
	}
	return noFail(err)
}

//export tsstore_strings_free
func tsstore_strings_free(p C.uintptr_t) {
	defer guardVoid()
	if h, ok := unregister(uintptr(p), kindStrings).(*stringsHandle); ok {
		h.text.free()
	}
}

var countsSize = unsafe.Sizeof(C.tsstore_type_counts{})

func putCounts(out *C.tsstore_type_counts, byType map[core.SeriesType]int) error {
	if out == nil {
		return nullOut("counts")
	}
	if _, err := outSize(out.struct_size, countsSize, "counts", "TSSTORE_TYPE_COUNTS_INIT"); err != nil {
		return err
	}
	c := func(t core.SeriesType) C.int64_t { return C.int64_t(byType[t]) }
	out.single_time_series, out.non_sequential_time_series = c(core.SingleTimeSeriesType), c(core.NonSequentialTimeSeriesType)
	out.deterministic, out.deterministic_single_time_series = c(core.DeterministicType), c(core.DeterministicSingleTimeSeriesType)
	out.probabilistic, out.scenarios = c(core.ProbabilisticType), c(core.ScenariosType)
	return nil
}

//export tsstore_counts_by_type
func tsstore_counts_by_type(p C.uintptr_t, counts *C.tsstore_type_counts) (status C.int32_t) {
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
			return nullOut("n")
		}
		v, err := s.CountArrays(core.KeyFilter{})
		if err == nil {
			*n = C.int64_t(v)
		}
		return err
	})
}

//export tsstore_count_by_hash
func tsstore_count_by_hash(p C.uintptr_t, hash *C.uint8_t, counts *C.tsstore_type_counts) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		h, err := hashIn(hash)
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

// putRecords writes vals into the caller's array of structs dst[capacity] (dst[0]'s
// struct_size is the stride), one fill per element; *n gets the count. As with every
// buffer, too small a capacity writes nothing.
func putRecords[T any, V any](dst *T, capacity C.size_t, n *C.size_t, vals []V, size func(*T) C.uint32_t, ours uintptr,
	init string, fill func(*T, V)) error {
	if n != nil {
		*n = C.size_t(len(vals))
	}
	if dst == nil {
		if capacity > 0 {
			return badArg(core.ArgBuffer, "is NULL but capacity is %d", capacity)
		}
		return nil
	}
	if uint64(capacity) < uint64(len(vals)) {
		return tooSmall(uintptr(len(vals)), "elements")
	}
	if len(vals) == 0 {
		return nil
	}
	stride, err := outSize(size(dst), ours, "dst[0]", init)
	if err != nil {
		return err
	}
	for i, v := range vals {
		fill(element(dst, stride, i), v)
	}
	return nil
}

//export tsstore_forecast_parameters
func tsstore_forecast_parameters(p C.uintptr_t, dst *C.tsstore_forecast_params, capacity C.size_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		ps, err := s.ForecastParameters(core.KeyFilter{})
		if err != nil {
			return err
		}
		return putRecords(dst, capacity, n, ps, func(d *C.tsstore_forecast_params) C.uint32_t { return d.struct_size },
			unsafe.Sizeof(C.tsstore_forecast_params{}), "TSSTORE_FORECAST_PARAMS_INIT", func(d *C.tsstore_forecast_params, fp core.ForecastParameters) {
				d.series_type, d.initial_ms = C.int32_t(fp.Type), toMillis(fp.InitialTimestamp)
				d.resolution, d.horizon, d.interval = periodOut(fp.Resolution), periodOut(fp.Horizon), periodOut(fp.Interval)
				d.count, d.n_series = C.int64_t(fp.Count), C.int64_t(fp.Series)
			})
	})
}

//export tsstore_static_summary
func tsstore_static_summary(p C.uintptr_t, dst *C.tsstore_static_grid, capacity C.size_t, n *C.size_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		grids, err := s.StaticSummary(core.KeyFilter{})
		if err != nil {
			return err
		}
		return putRecords(dst, capacity, n, grids, func(d *C.tsstore_static_grid) C.uint32_t { return d.struct_size },
			unsafe.Sizeof(C.tsstore_static_grid{}), "TSSTORE_STATIC_GRID_INIT", func(d *C.tsstore_static_grid, g core.StaticGrid) {
				d.resolution, d.initial_ms, d.length = periodOut(g.Resolution), toMillis(g.InitialTimestamp), C.int64_t(g.Length)
				d.n_series, d.n_owners = C.int64_t(g.Series), C.int64_t(g.Owners)
			})
	})
}

//export tsstore_check_static_consistency
func tsstore_check_static_consistency(p C.uintptr_t, consistent *C.int32_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		if consistent == nil {
			return nullOut("consistent")
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

//export tsstore_copy_series
func tsstore_copy_series(p C.uintptr_t, which *C.tsstore_lookup, ownerID C.int64_t, ownerType *C.char, category C.int32_t,
	newName *C.char) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		c, err := categoryIn(category, one, false)
		if err != nil {
			return err
		}
		ot, err := reqString(ownerType, core.ArgOwnerType)
		if err != nil {
			return err
		}
		m, err := s.GetMetadata(q)
		if err != nil {
			return err
		}
		_, err = s.CopySeries(m.Key, core.Owner{ID: int64(ownerID), Type: ot, Category: *c}, optString(newName))
		return err
	})
}

//export tsstore_rename_series
func tsstore_rename_series(p C.uintptr_t, which *C.tsstore_lookup, newName *C.char) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		q, err := lookupIn(which, one)
		if err != nil {
			return err
		}
		n, err := reqString(newName, core.ArgNewName)
		if err != nil {
			return err
		}
		m, err := s.GetMetadata(q)
		if err != nil {
			return err
		}
		_, err = s.RenameSeries(m.Key, n)
		return err
	})
}

//export tsstore_replace_owner_id
func tsstore_replace_owner_id(p C.uintptr_t, oldID C.int64_t, category C.int32_t, newID C.int64_t, moved *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	return withStore(p, func(s *core.Store) error {
		c, err := categoryIn(category, one, false)
		if err != nil {
			return err
		}
		n, err := s.ReplaceOwnerID(*c, int64(oldID), int64(newID))
		if err == nil && moved != nil {
			*moved = C.int64_t(n)
		}
		return err
	})
}

//export tsstore_compact
func tsstore_compact(p C.uintptr_t, report *C.tsstore_compact_report) (status C.int32_t) {
	defer guard(&status)
	return compactWith(p, nil, report)
}

//export tsstore_compact_rewrite
func tsstore_compact_rewrite(p C.uintptr_t, report *C.tsstore_compact_report) (status C.int32_t) {
	defer guard(&status)
	return compactWith(p, &core.CompactOptions{Rewrite: true}, report)
}

func compactWith(p C.uintptr_t, opts *core.CompactOptions, report *C.tsstore_compact_report) C.int32_t {
	return withStore(p, func(s *core.Store) error {
		if report != nil {
			if _, err := outSize(report.struct_size, unsafe.Sizeof(C.tsstore_compact_report{}), "report", "TSSTORE_COMPACT_REPORT_INIT"); err != nil {
				return err
			}
		}
		rep, err := s.Compact(opts)
		if err != nil || report == nil {
			return err
		}
		report.slots_reclaimed, report.datasets_dropped = C.int64_t(rep.SlotsReclaimed), C.int64_t(rep.DatasetsDropped)
		report.feature_sets_reclaimed, report.dead_standalone = C.int64_t(rep.FeatureSetsReclaimed), C.int64_t(rep.DeadStandalone)
		return nil
	})
}

//export tsstore_verify_integrity
func tsstore_verify_integrity(p C.uintptr_t, report *C.tsstore_integrity_report, problems *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if problems != nil {
		*problems = 0
	}
	var lines []string
	st := withStore(p, func(s *core.Store) error {
		if report == nil {
			return nullOut("report")
		}
		if _, err := outSize(report.struct_size, unsafe.Sizeof(C.tsstore_integrity_report{}), "report", "TSSTORE_INTEGRITY_REPORT_INIT"); err != nil {
			return err
		}
		rep, err := s.VerifyIntegrity()
		if err != nil {
			return err
		}
		report.arrays_checked, report.hash_mismatches = C.int64_t(rep.ArraysChecked), C.int64_t(len(rep.HashMismatches))
		report.unreadable, report.dangling_rows = C.int64_t(len(rep.Unreadable)), C.int64_t(len(rep.DanglingRows))
		report.shape_mismatches = C.int64_t(len(rep.ShapeMismatches))
		for _, group := range []struct {
			label string
			items []string
		}{{"hash mismatch", rep.HashMismatches}, {"unreadable", rep.Unreadable}, {"dangling row", rep.DanglingRows}, {"shape mismatch", rep.ShapeMismatches}} {
			for _, it := range group.items {
				lines = append(lines, group.label+": "+it)
			}
		}
		return nil
	})
	if st == statusOK && problems != nil {
		*problems = newStringsHandle(lines)
	}
	return st
}

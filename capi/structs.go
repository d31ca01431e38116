package main

// #include <string.h>
// #include "capi.h"
import "C"

import (
	"errors"
	"strconv"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// The structs of include/tsstore.h cross the boundary here. Every struct starts with
// struct_size, and a caller may hand us a struct from a newer header (larger): we read and
// write our prefix only, and arrays of structs advance by the caller's struct_size.

// structSize checks a struct's struct_size against this library's size and returns it (the
// caller's stride); whole is the code of the struct w as a whole (ArgSeries for a desc).
func structSize(size C.uint32_t, ours uintptr, w where, whole core.Arg, init string) (uintptr, error) {
	if uintptr(size) < ours {
		return 0, w.bad(whole, "struct_size", "%d is smaller than this library's %d; set it with %s", size, ours, init)
	}
	return uintptr(size), nil
}

// outSize is structSize for an out-parameter named name ("info", "infos[0]").
func outSize(size C.uint32_t, ours uintptr, name, init string) (uintptr, error) {
	if uintptr(size) < ours {
		return 0, one.bad(core.ArgOut, name+".struct_size", "%d is smaller than this library's %d; set it with %s", size, ours, init)
	}
	return uintptr(size), nil
}

// element is entry i of a caller array of structs with the given stride.
func element[T any](base *T, stride uintptr, i int) *T {
	return (*T)(unsafe.Add(unsafe.Pointer(base), stride*uintptr(i)))
}

// periodIn reads w's period arg; unit NONE is nil ("any" in lookups, absent in descriptors).
func periodIn(p C.tsstore_period, w where, arg core.Arg) (*core.Period, error) {
	switch p.unit {
	case C.TSSTORE_PERIOD_NONE:
		if p.value != 0 {
			return nil, w.bad(arg, "", "value %d with unit TSSTORE_PERIOD_NONE; set a unit", p.value)
		}
		return nil, nil
	case C.TSSTORE_PERIOD_MILLIS, C.TSSTORE_PERIOD_MONTHS:
		if p.value <= 0 {
			return nil, w.bad(arg, "", "%d is not a positive period", p.value)
		}
		if p.unit == C.TSSTORE_PERIOD_MONTHS {
			v := core.Months(int64(p.value))
			return &v, nil
		}
		v := core.Milliseconds(int64(p.value))
		return &v, nil
	}
	return nil, w.bad(arg, "unit", "unknown code %d (0 none, 1 milliseconds, 2 months)", p.unit)
}

// reqPeriodIn is periodIn for a period that must be given.
func reqPeriodIn(p C.tsstore_period, w where, arg core.Arg) (core.Period, error) {
	v, err := periodIn(p, w, arg)
	if err == nil && v == nil {
		err = w.bad(arg, "", "is required (unit TSSTORE_PERIOD_NONE given)")
	}
	if err != nil {
		return core.Period{}, err
	}
	return *v, nil
}

// periodArg reads a period argument arg passed by pointer (NULL: none).
func periodArg(p *C.tsstore_period, arg core.Arg) (*core.Period, error) {
	if p == nil {
		return nil, nil
	}
	return periodIn(*p, one, arg)
}

func periodOut(p core.Period) C.tsstore_period {
	switch {
	case p.IsZero():
		return C.tsstore_period{}
	case p.IsCalendar():
		return C.tsstore_period{value: C.int64_t(p.Months()), unit: C.TSSTORE_PERIOD_MONTHS}
	}
	return C.tsstore_period{value: C.int64_t(p.Millis()), unit: C.TSSTORE_PERIOD_MILLIS}
}

func categoryIn(c C.int32_t, w where, anyOK bool) (*core.OwnerCategory, error) {
	if c == C.TSSTORE_OWNER_ANY && anyOK {
		return nil, nil
	}
	if c < 0 || !core.OwnerCategory(c).Valid() {
		return nil, w.bad(core.ArgOwnerCategory, "", "unknown code %d (0 Component, 1 SupplementalAttribute%s)", c, anyText(anyOK, "TSSTORE_OWNER_ANY"))
	}
	v := core.OwnerCategory(c)
	return &v, nil
}

func typeIn(t C.int32_t, w where, anyOK bool) (*core.SeriesType, error) {
	if t == C.TSSTORE_ANY_TYPE && anyOK {
		return nil, nil
	}
	if t < 0 || !core.SeriesType(t).Valid() {
		return nil, w.bad(core.ArgSeriesType, "", "unknown code %d (0–6%s)", t, anyText(anyOK, "TSSTORE_ANY_TYPE"))
	}
	v := core.SeriesType(t)
	return &v, nil
}

func anyText(ok bool, name string) string {
	if ok {
		return ", -1 " + name
	}
	return ""
}

// featuresIn reads a features JSON object: NULL is nil (any, in lookups), "" no features.
func featuresIn(p *C.char, w where) (core.Features, error) {
	if p == nil {
		return nil, nil
	}
	s := C.GoString(p)
	if s == "" {
		return core.Features{}, nil
	}
	return parseFeatures(s, w)
}

// parseFeatures parses w's features_json; a refusal (the core's) names the feature.
func parseFeatures(s string, w where) (core.Features, error) {
	f, err := core.ParseFeaturesJSON(s)
	var e *core.Error
	if errors.As(err, &e) {
		e.Items, e.Item, e.Op = w.list, w.item, ""
	}
	return f, err
}

var lookupSize = unsafe.Sizeof(C.tsstore_lookup{})

// lookupIn reads a caller's lookup into the core's.
func lookupIn(l *C.tsstore_lookup, w where) (core.Lookup, error) {
	if l == nil {
		return core.Lookup{}, w.bad(core.ArgLookup, "", "is NULL")
	}
	if _, err := structSize(l.struct_size, lookupSize, w, core.ArgLookup, "TSSTORE_LOOKUP_INIT"); err != nil {
		return core.Lookup{}, err
	}
	var q core.Lookup
	var err error
	q.OwnerID = int64(l.owner_id)
	if l.name == nil {
		return q, w.bad(core.ArgName, "", "is NULL")
	}
	q.Name = C.GoString(l.name)
	if q.Type, err = typeIn(l.series_type, w, true); err != nil {
		return q, err
	}
	if q.OwnerCategory, err = categoryIn(l.owner_category, w, true); err != nil {
		return q, err
	}
	if q.Resolution, err = periodIn(l.resolution, w, core.ArgResolution); err != nil {
		return q, err
	}
	if q.Interval, err = periodIn(l.interval, w, core.ArgInterval); err != nil {
		return q, err
	}
	switch l.flags {
	case 0:
	case C.TSSTORE_LOOKUP_EXACT_FEATURES:
		q.ExactFeatures = true
	default:
		return q, w.bad(core.ArgLookup, "flags", "unknown flags %d (0 or TSSTORE_LOOKUP_EXACT_FEATURES)", int32(l.flags))
	}
	if l.features != nil {
		q.Features, err = featuresFromC(l.features, l.n_features, w)
	} else {
		q.Features, err = featuresIn(l.features_json, w)
	}
	q.ID = int64(l.series_id)
	return q, err
}

// lookupsIn reads which[n].
func lookupsIn(which *C.tsstore_lookup, n C.size_t) ([]core.Lookup, error) {
	if n > 1<<32 {
		return nil, badArg(core.ArgKeys, "n %d is too large", n)
	}
	if n > 0 && which == nil {
		return nil, badArg(core.ArgKeys, "is NULL but n is %d", n)
	}
	qs := make([]core.Lookup, n)
	if n == 0 {
		return qs, nil
	}
	stride, err := structSize(which.struct_size, lookupSize, elem("which", 0), core.ArgLookup, "TSSTORE_LOOKUP_INIT")
	if err != nil {
		return nil, err
	}
	var prev *C.tsstore_lookup
	for i := range qs {
		l := element(which, stride, i)
		if prev != nil && sameButOwner(l, prev) {
			// The fields and the very strings of the lookup before, decoded and checked
			// then: only the owner differs (a binding's keys of one series name usually).
			qs[i] = qs[i-1]
			qs[i].OwnerID, qs[i].ID = int64(l.owner_id), int64(l.series_id)
			continue
		}
		if qs[i], err = lookupIn(l, elem("which", i)); err != nil {
			return nil, err
		}
		prev = l
	}
	return qs, nil
}

// sameButOwner reports whether two lookups hold the same fields, their strings at the same
// addresses, but for the owner id. Lookups decoded from them may then share their pointers:
// the core only reads them.
func sameButOwner(a, b *C.tsstore_lookup) bool {
	return a.struct_size == b.struct_size && a.series_type == b.series_type && a.owner_category == b.owner_category &&
		a.flags == b.flags && a.name == b.name && a.resolution == b.resolution && a.interval == b.interval &&
		a.features_json == b.features_json && a.features == b.features && a.n_features == b.n_features
}

var filterSize = unsafe.Sizeof(C.tsstore_filter{})

// filterIn reads a listing filter (NULL: everything).
func filterIn(f *C.tsstore_filter) (core.KeyFilter, error) {
	var kf core.KeyFilter
	if f == nil {
		return kf, nil
	}
	if _, err := structSize(f.struct_size, filterSize, one, core.ArgFilter, "TSSTORE_FILTER_INIT"); err != nil {
		return kf, err
	}
	var err error
	switch f.match_owner_id {
	case 0:
	case 1:
		id := int64(f.owner_id)
		kf.OwnerID = &id
	default:
		return kf, one.badField(core.ArgOwnerID, "match_owner_id", "%d is not 0 or 1", f.match_owner_id)
	}
	if kf.OwnerCategory, err = categoryIn(f.owner_category, one, true); err != nil {
		return kf, err
	}
	if kf.Type, err = typeIn(f.series_type, one, true); err != nil {
		return kf, err
	}
	kf.Name, kf.NameGlob, kf.OwnerType = optStringPtr(f.name), optStringPtr(f.name_glob), optStringPtr(f.owner_type)
	if kf.Resolution, err = periodIn(f.resolution, one, core.ArgResolution); err != nil {
		return kf, err
	}
	if kf.Interval, err = periodIn(f.interval, one, core.ArgInterval); err != nil {
		return kf, err
	}
	if f.features != nil {
		kf.Features, err = featuresFromC(f.features, f.n_features, one)
	} else {
		kf.Features, err = featuresIn(f.features_json, one)
	}
	return kf, err
}

func optStringPtr(p *C.char) *string {
	if p == nil {
		return nil
	}
	s := C.GoString(p)
	return &s
}

var infoSize = unsafe.Sizeof(C.tsstore_series_info{})

// fillInfo builds the series_info of m (and, when ext is not nil, of what a read returned),
// its strings and features owned by in.
func fillInfo(m *core.Metadata, ext *core.Extent, in *interner) (C.tsstore_series_info, error) {
	var info C.tsstore_series_info
	info.struct_size = C.uint32_t(infoSize)
	info.dtype = C.int32_t(m.DType)
	info.key = keyOut(m, in)
	info.owner_type, info.units, info.ext = in.text(m.OwnerType), in.text(m.Units), in.text(m.Ext)
	shape, t0, count := m.StoredShape(), m.InitialTimestamp, m.Count
	if ext != nil {
		shape, t0, count = ext.Shape, ext.InitialTimestamp, ext.Count
	}
	if err := fillShape(&info, m.DType, shape); err != nil {
		return info, err
	}
	if !t0.IsZero() {
		info.initial_ms = toMillis(t0)
	}
	info.length, info.count = C.int64_t(m.Length), C.int64_t(count)
	switch m.Type {
	case core.ProbabilisticType, core.ScenariosType:
		info.n_layers = C.int32_t(m.Length)
	}
	info.horizon = periodOut(m.Horizon)
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&info.data_hash[0])), 32), m.DataHash[:])
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&info.features_hash[0])), 32), m.FeaturesHash[:])
	return info, nil
}

// keyOut is the lookup naming exactly m's series, as the header hands keys out.
func keyOut(m *core.Metadata, in *interner) C.tsstore_lookup {
	return keyOf(m.Key, m.FeaturesHash, m.ID, in)
}

// keyOf is the lookup naming exactly the series k (stored with id), as the header hands keys
// out: its features as an array and as JSON text, its series_id, strings owned by in.
// hash is the features hash of k's feature set, under which the array is kept.
func keyOf(k core.Key, hash [32]byte, id int64, in *interner) C.tsstore_lookup {
	var q C.tsstore_lookup
	q.struct_size = C.uint32_t(lookupSize)
	q.series_type, q.owner_id, q.owner_category = C.int32_t(k.Type), C.int64_t(k.OwnerID), C.int32_t(k.OwnerCategory)
	q.flags = C.TSSTORE_LOOKUP_EXACT_FEATURES // a stored key names its own feature set
	q.name = in.text(k.Name)
	q.resolution, q.interval = periodOut(k.Resolution), periodOut(k.Interval)
	fa := in.features(k.Features, hash)
	q.features, q.n_features, q.features_json = fa.p, fa.n, fa.json
	q.series_id = C.int64_t(id)
	return q
}

func fillShape(in *C.tsstore_series_info, dt core.DType, shape []int) error {
	if len(shape) > C.TSSTORE_MAX_RANK {
		return one.bad(core.ArgOut, "info", "the array has rank %d; a series_info describes at most TSSTORE_MAX_RANK (%d)", len(shape), C.TSSTORE_MAX_RANK)
	}
	in.ndim = C.int32_t(len(shape))
	n := uint64(dt.Width())
	for i, d := range shape {
		in.shape[i] = C.int64_t(d)
		n *= uint64(d)
	}
	in.nbytes = C.uint64_t(n)
	return nil
}

// putInfos writes infos into the caller's array (out[0].struct_size is the stride), their
// strings owned by in. exts may be nil (stored arrays described).
func putInfos(out *C.tsstore_series_info, field string, ms []*core.Metadata, exts []core.Extent, in *interner) error {
	if len(ms) == 0 {
		return nil
	}
	if out == nil {
		return nullOut(field)
	}
	stride, err := outSize(out.struct_size, infoSize, field, "TSSTORE_SERIES_INFO_INIT")
	if err != nil {
		return err
	}
	return writeInfos(out, stride, ms, exts, in)
}

func writeInfos(out *C.tsstore_series_info, stride uintptr, ms []*core.Metadata, exts []core.Extent, in *interner) error {
	for i, m := range ms {
		var ext *core.Extent
		if exts != nil {
			ext = &exts[i]
		}
		info, err := fillInfo(m, ext, in)
		if err != nil {
			return err
		}
		dst := element(out, stride, i)
		info.struct_size = C.uint32_t(stride)
		*dst = info
	}
	return nil
}

// checkInfoOut checks an optional single info out-parameter before a call does any work.
func checkInfoOut(info *C.tsstore_series_info) error {
	if info == nil {
		return nil
	}
	_, err := outSize(info.struct_size, infoSize, "info", "TSSTORE_SERIES_INFO_INIT")
	return err
}

func itoa(i int) string { return strconv.Itoa(i) }

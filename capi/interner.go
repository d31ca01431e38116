package main

// #include <stdlib.h>
// #include <string.h>
// #include "capi.h"
import "C"

import (
	"sort"
	"sync"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// interner owns the C copies of the strings and feature arrays a handle hands out: one copy
// of each distinct string, one array per distinct feature set, all freed with the handle. A
// store's lives until tsstore_close (the header's rule for series_info strings: a loop of
// reads of one series name makes one copy, not one per read); a key list's until the list
// is freed. Safe for concurrent use: a store's calls come from many threads.
type interner struct {
	mu     sync.Mutex
	strs   map[string]*C.char
	feats  map[[32]byte]featureArray
	allocs []unsafe.Pointer
}

// featureArray is a feature set as the header lays it out: n tsstore_feature, names and
// string values pointing at strings of the same interner, and the set's JSON text.
type featureArray struct {
	p    *C.tsstore_feature
	n    C.size_t
	json *C.char
}

// text is the C copy of s (NUL-terminated), made on first use.
func (in *interner) text(s string) *C.char {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.textLocked(s)
}

func (in *interner) textLocked(s string) *C.char {
	if p, ok := in.strs[s]; ok {
		return p
	}
	if in.strs == nil {
		in.strs = map[string]*C.char{}
	}
	p := (*C.char)(C.malloc(C.size_t(len(s) + 1)))
	if len(s) > 0 {
		C.ts_copy_out(unsafe.Pointer(p), unsafe.Pointer(unsafe.StringData(s)), C.size_t(len(s)))
	}
	*(*byte)(unsafe.Add(unsafe.Pointer(p), len(s))) = 0
	in.strs[s] = p
	in.allocs = append(in.allocs, unsafe.Pointer(p))
	return p
}

var featureSize = unsafe.Sizeof(C.tsstore_feature{})

// features is the C array of a feature set (whose features hash is hash), in byte order of
// the names (the order the hash takes them in); an empty set is a non-NULL array of 0
// elements, so that a key passed back as a lookup means "exactly none" and not "any".
func (in *interner) features(fs core.Features, hash [32]byte) featureArray {
	in.mu.Lock()
	defer in.mu.Unlock()
	if a, ok := in.feats[hash]; ok {
		return a
	}
	if in.feats == nil {
		in.feats = map[[32]byte]featureArray{}
	}
	names := make([]string, 0, len(fs))
	for k := range fs {
		names = append(names, k)
	}
	sort.Strings(names)
	p := (*C.tsstore_feature)(C.calloc(C.size_t(max(len(names), 1)), C.size_t(featureSize)))
	in.allocs = append(in.allocs, unsafe.Pointer(p))
	arr := unsafe.Slice(p, max(len(names), 1))
	for i, k := range names {
		arr[i] = in.featureLocked(k, fs[k])
	}
	a := featureArray{p, C.size_t(len(names)), in.textLocked(fs.JSON())}
	in.feats[hash] = a
	return a
}

func (in *interner) featureLocked(name string, v core.FeatureValue) C.tsstore_feature {
	f := C.tsstore_feature{struct_size: C.uint32_t(featureSize), name: in.textLocked(name)}
	switch x := v.Value().(type) {
	case int64:
		f.kind, f.int_value = C.TSSTORE_FEATURE_INT, C.int64_t(x)
	case float64:
		f.kind, f.float_value = C.TSSTORE_FEATURE_FLOAT, C.double(x)
	case bool:
		f.kind = C.TSSTORE_FEATURE_BOOL
		if x {
			f.int_value = 1
		}
	case string:
		f.kind, f.str_value = C.TSSTORE_FEATURE_STR, in.textLocked(x)
	}
	return f
}

// free releases every copy; the interner is empty (and usable) afterwards.
func (in *interner) free() {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, p := range in.allocs {
		C.free(p)
	}
	in.strs, in.feats, in.allocs = nil, nil, nil
}

// featuresFromC reads features[n] of a caller's lookup, descriptor or filter. A name or
// string value that is NULL, an unknown kind, or a name given twice is refused, naming the
// feature; the core checks the rest (reserved names, UTF-8, NaN in a write).
func featuresFromC(p *C.tsstore_feature, n C.size_t, w where) (core.Features, error) {
	if n > 1<<20 {
		return nil, w.badField(core.ArgFeatures, "n_features", "%d is too large", n)
	}
	out := make(core.Features, n)
	if n == 0 {
		return out, nil
	}
	stride, err := structSize(p.struct_size, featureSize, w, core.ArgFeatures, "TSSTORE_FEATURE_INIT")
	if err != nil {
		return nil, err
	}
	for i := 0; i < int(n); i++ {
		f := element(p, stride, i)
		if f.name == nil {
			return nil, w.bad(core.ArgFeatures, itoa(i), "features[%d].name is NULL", i)
		}
		name := C.GoString(f.name)
		if _, dup := out[name]; dup {
			return nil, w.bad(core.ArgFeatures, name, "is given twice")
		}
		switch f.kind {
		case C.TSSTORE_FEATURE_INT:
			out[name] = core.Int(int64(f.int_value))
		case C.TSSTORE_FEATURE_FLOAT:
			out[name] = core.FloatAsGiven(float64(f.float_value)) // the core decides what -0.0 and NaN mean
		case C.TSSTORE_FEATURE_BOOL:
			if f.int_value != 0 && f.int_value != 1 {
				return nil, w.bad(core.ArgFeatures, name, "bool value %d is not 0 or 1", f.int_value)
			}
			out[name] = core.BoolValue(f.int_value == 1)
		case C.TSSTORE_FEATURE_STR:
			if f.str_value == nil {
				return nil, w.bad(core.ArgFeatures, name, "string value is NULL")
			}
			out[name] = core.Str(C.GoString(f.str_value))
		default:
			return nil, w.bad(core.ArgFeatures, name, "unknown kind %d (1 int, 2 float, 3 bool, 4 str)", f.kind)
		}
	}
	return out, nil
}

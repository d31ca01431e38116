package core

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
)

// FeatureValue is one typed feature value: an int (i64), a float (f64), a bool or a string.
type FeatureValue struct {
	kind hashing.FeatureKind
	i    int64
	f    float64
	b    bool
	s    string
}

// Int, Float, Bool and Str build feature values of each kind.
func Int(v int64) FeatureValue { return FeatureValue{kind: hashing.KindInt, i: v} }

// Float normalises -0.0 to 0.0: SQLite stores both as 0.0, and the features hash must be
// computed from the value the catalog can hand back (docs/format.md §13.3). Every NaN
// becomes the one quiet NaN the hash canonicalises to, so that two NaNs are identical.
func Float(v float64) FeatureValue {
	if v == 0 {
		v = 0
	}
	return FeatureValue{kind: hashing.KindFloat, f: canonicalNaN(v)}
}

// FloatAsGiven is Float keeping the sign of a zero: a lookup of -0.0 names first the set
// another implementation wrote under -0.0's own bits (docs/format.md §13.3); a write still
// stores it as 0.0 (entries).
func FloatAsGiven(v float64) FeatureValue {
	return FeatureValue{kind: hashing.KindFloat, f: canonicalNaN(v)}
}

// canonicalNaN is v, or the quiet NaN of the hash domain (docs/format.md §6.2) for any NaN.
func canonicalNaN(v float64) float64 {
	if math.IsNaN(v) {
		return hashing.CanonicalNaN64()
	}
	return v
}
func BoolValue(v bool) FeatureValue { return FeatureValue{kind: hashing.KindBool, b: v} }
func Str(v string) FeatureValue     { return FeatureValue{kind: hashing.KindStr, s: v} }

// Value returns the value as int64, float64, bool or string.
func (v FeatureValue) Value() any {
	switch v.kind {
	case hashing.KindInt:
		return v.i
	case hashing.KindFloat:
		return v.f
	case hashing.KindBool:
		return v.b
	default:
		return v.s
	}
}

// Kind is the catalog's value_kind text: "int", "float", "bool" or "str".
func (v FeatureValue) Kind() string {
	switch v.kind {
	case hashing.KindInt:
		return "int"
	case hashing.KindFloat:
		return "float"
	case hashing.KindBool:
		return "bool"
	default:
		return "str"
	}
}

func (v FeatureValue) equal(w FeatureValue) bool {
	if v.kind != w.kind {
		return false
	}
	if v.kind == hashing.KindFloat && math.IsNaN(v.f) {
		return math.IsNaN(w.f)
	}
	return v == w
}

// identical is f equal to g value by value, floats compared by their bits (so -0.0 is not
// 0.0, and a NaN is itself): two lookups with identical features resolve alike.
func (f Features) identical(g Features) bool {
	if len(f) != len(g) {
		return false
	}
	for k, v := range f {
		w, ok := g[k]
		if !ok || v.kind != w.kind || math.Float64bits(v.f) != math.Float64bits(w.f) || v.i != w.i || v.b != w.b || v.s != w.s {
			return false
		}
	}
	return true
}

func (v FeatureValue) String() string {
	switch v.kind {
	case hashing.KindInt:
		return strconv.FormatInt(v.i, 10)
	case hashing.KindFloat:
		return formatFloatJSON(v.f)
	case hashing.KindBool:
		return strconv.FormatBool(v.b)
	default:
		return strconv.Quote(v.s)
	}
}

// Features is a feature map: extra identity of a series (a scenario name, a model year…).
// The empty map is a valid, distinct identity component.
type Features map[string]FeatureValue

// reservedFeatureNames shadow series or key fields and are refused on write
// (docs/format.md §10.2).
var reservedFeatureNames = map[string]bool{
	"count": true, "data": true, "data_hash": true, "dtype": true, "element_shape": true,
	"ext": true, "features": true, "horizon": true, "initial_timestamp": true, "interval": true,
	"length": true, "name": true, "owner_category": true, "owner_id": true, "owner_type": true,
	"percentiles": true, "resolution": true, "scenario_count": true, "time_series_type": true,
	"timestamps": true, "units": true,
}

// validateStorable is validate for a map to be written: it also refuses a NaN float. SQLite
// stores a NaN REAL as NULL, which the other implementation cannot read back (docs/format.md
// §12), so this build never writes one; it reads and looks up the NaN sets others wrote
// (§13.3), which is why validate itself lets NaN through.
func (f Features) validateStorable() error {
	if err := f.validate(); err != nil {
		return err
	}
	for k, v := range f {
		if v.kind == hashing.KindFloat && math.IsNaN(v.f) {
			return invalidIn("", ArgFeatures, k, "NaN cannot be stored as a feature value (SQLite stores it as NULL, "+
				"which other readers of the format refuse); a lookup may name NaN, to read a series another writer stored")
		}
	}
	return nil
}

// validate refuses reserved and malformed names and non-UTF-8 strings: what a lookup, a
// filter and a write all refuse.
func (f Features) validate() error {
	for k, v := range f {
		if k == "" {
			return invalid("", ArgFeatures, "a feature name is empty")
		}
		if !utf8.ValidString(k) {
			return invalid("", ArgFeatures, "feature name %q is not valid UTF-8", k)
		}
		if reservedFeatureNames[k] {
			return invalidIn("", ArgFeatures, k, "feature name %q is reserved (it shadows a series field)", k)
		}
		if v.kind == 0 {
			return invalidIn("", ArgFeatures, k, "feature value has no kind; build it with core.Int, Float, BoolValue or Str")
		}
		if v.kind == hashing.KindStr && !utf8.ValidString(v.s) {
			return invalidIn("", ArgFeatures, k, "string value is not valid UTF-8")
		}
	}
	return nil
}

// entries are the map as this build writes it: -0.0 as 0.0 (docs/format.md §13.3), so
// the feature rows and the features hash of every write are those of 0.0.
func (f Features) entries() []hashing.Feature {
	out := f.rawEntries()
	for i := range out {
		if out[i].Kind == hashing.KindFloat && out[i].Float == 0 {
			out[i].Float = 0
		}
	}
	return out
}

// rawEntries keep the sign of a zero, as a lookup asked for it.
func (f Features) rawEntries() []hashing.Feature {
	out := make([]hashing.Feature, 0, len(f))
	for k, v := range f {
		out = append(out, hashing.Feature{Key: k, Kind: v.kind, Int: v.i, Float: v.f, Bool: v.b, Str: v.s})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Hash is the features hash of the map as this build writes it (docs/format.md §6.2).
func (f Features) Hash() [32]byte { return f.hash() }

func (f Features) hash() hashing.Digest {
	if len(f) == 0 {
		return noFeaturesHash
	}
	return hashing.Features(f.entries())
}

// hasNegativeZero reports whether a float feature is -0.0, which only a lookup (or a set
// another implementation wrote) carries: Float and every write turn it into 0.0.
func (f Features) hasNegativeZero() bool {
	for _, v := range f {
		if v.kind == hashing.KindFloat && v.f == 0 && math.Signbit(v.f) {
			return true
		}
	}
	return false
}

// bitsHash is the features hash of the map with each zero's sign as given: the hash the
// other implementation records for a -0.0 feature (docs/format.md §12, §13.3).
func (f Features) bitsHash() hashing.Digest {
	if len(f) == 0 {
		return noFeaturesHash
	}
	return hashing.Features(f.rawEntries())
}

// maxSignedZeros bounds the search of featuresOfSet: 2^n hashes for n zero floats.
const maxSignedZeros = 8

// featuresOfSet is the feature map a stored set stands for. SQLite hands back -0.0 as 0.0
// (docs/format.md §12), so a set the other implementation wrote for {x: -0.0} reads as
// {x: 0.0} while its hash is that of -0.0's bits. When the rows do not hash to the set's
// hash, the signs of its zero floats are tried until they do (docs/format.md §13.3): the
// set then reads as the -0.0 it was written for, and its key is told apart from a {x: 0.0}
// series beside it. A set that matches no choice of signs reads as its rows say.
func featuresOfSet(hash []byte, entries []hashing.Feature) Features {
	f := featuresFromEntries(entries)
	if h := f.bitsHash(); len(f) == 0 || string(h[:]) == string(hash) {
		return f
	}
	var zeros []string
	for _, e := range entries {
		if e.Kind == hashing.KindFloat && e.Float == 0 {
			zeros = append(zeros, e.Key)
		}
	}
	if len(zeros) == 0 || len(zeros) > maxSignedZeros {
		return f
	}
	for mask := 1; mask < 1<<len(zeros); mask++ {
		g := make(Features, len(f))
		for k, v := range f {
			g[k] = v
		}
		for i, k := range zeros {
			if mask&(1<<i) != 0 {
				g[k] = FeatureValue{kind: hashing.KindFloat, f: math.Copysign(0, -1)}
			}
		}
		if h := g.bitsHash(); string(h[:]) == string(hash) {
			return g
		}
	}
	return f
}

// maxCachedFeatureSets bounds the feature maps a store keeps by hash (featuresOf).
const maxCachedFeatureSets = 4096

// featuresOf is the feature map r's features_hash names, which the caller must not change.
// A features hash is the hash of its map (docs/format.md §6.2), so the map stored under one
// never changes, and the store keeps the maps it has read: a bulk read of 10,000 series that
// share one reads it once (the query per series was 40% of a GetMany). A hash whose set the
// catalog lacks reads as the empty map and is not kept, so that its set, once added, is read.
func (s *Store) featuresOf(r *catalog.Row) (Features, error) {
	if f, ok := s.featureSets[string(r.FeaturesHash)]; ok {
		return f, nil
	}
	entries, err := s.cat.FeatureSet(r.FeaturesHash)
	if err != nil {
		return nil, corrupt(r, "features_hash", "%v", err)
	}
	f := featuresOfSet(r.FeaturesHash, entries)
	if len(entries) > 0 || string(r.FeaturesHash) == string(noFeaturesHash[:]) {
		if s.featureSets == nil || len(s.featureSets) >= maxCachedFeatureSets {
			s.featureSets = map[string]Features{}
		}
		s.featureSets[string(r.FeaturesHash)] = f
	}
	return f, nil
}

// noFeaturesHash is the hash of the empty feature map, which most series carry.
var noFeaturesHash = hashing.Features(nil)

func featuresFromEntries(entries []hashing.Feature) Features {
	f := make(Features, len(entries))
	for _, e := range entries {
		f[e.Key] = FeatureValue{kind: e.Kind, i: e.Int, f: e.Float, b: e.Bool, s: e.Str}
	}
	return f
}

// Equal reports whether two feature maps are the same identity.
func (f Features) Equal(g Features) bool {
	if len(f) != len(g) {
		return false
	}
	for k, v := range f {
		w, ok := g[k]
		if !ok || !v.equal(w) {
			return false
		}
	}
	return true
}

// JSON renders the map as a JSON object with keys in byte order. Integers are written
// without a decimal point and floats always with one (or an exponent), so ParseFeaturesJSON
// reads back the same kinds. Infinities, which JSON lacks, are written {"$float":"+Inf"}.
func (f Features) JSON() string {
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range f.entries() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.Key)
		b.Write(k)
		b.WriteByte(':')
		v := f[e.Key]
		switch v.kind {
		case hashing.KindStr:
			s, _ := json.Marshal(v.s)
			b.Write(s)
		case hashing.KindFloat:
			if math.IsNaN(v.f) || math.IsInf(v.f, 0) {
				fmt.Fprintf(&b, `{"$float":"%s"}`, strconv.FormatFloat(v.f, 'g', -1, 64))
			} else {
				b.WriteString(formatFloatJSON(v.f))
			}
		default:
			b.WriteString(v.String())
		}
	}
	b.WriteByte('}')
	return b.String()
}

func formatFloatJSON(x float64) string {
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") { // keep the float kind visible: 2.0, not 2
		s += ".0"
	}
	return s
}

// ParseFeaturesJSON reads a flat JSON object of feature values. A number without a decimal
// point or exponent is an int (it must fit in int64), any other number a float; true/false
// are bools; strings are strings. {"$float": "+Inf"|"-Inf"|"NaN"} spells the floats JSON
// cannot (a NaN names a set another writer stored; writing one is refused: validateStorable).
// Nested objects, arrays and null are refused, naming the key.
func ParseFeaturesJSON(s string) (Features, error) {
	const op = "parse_features"
	if strings.TrimSpace(s) == "" {
		return Features{}, nil
	}
	if !utf8.ValidString(s) {
		return nil, invalid(op, ArgFeatures, "JSON is not valid UTF-8")
	}
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var raw map[string]json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, invalid(op, ArgFeatures, "not a JSON object: %v", err)
	}
	if dec.More() {
		return nil, invalid(op, ArgFeatures, "trailing data after the JSON object")
	}
	if raw == nil {
		return nil, invalid(op, ArgFeatures, "JSON null is not a feature object")
	}
	out := make(Features, len(raw))
	for k, msg := range raw {
		v, err := parseFeatureValue(msg)
		if err != nil {
			return nil, invalidIn(op, ArgFeatures, k, "%v", err)
		}
		out[k] = v
	}
	if err := out.validate(); err != nil {
		return nil, withOp(op, err)
	}
	return out, nil
}

func parseFeatureValue(msg json.RawMessage) (FeatureValue, error) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return FeatureValue{}, fmt.Errorf("empty value")
	}
	switch msg[0] {
	case '"':
		var s string
		if err := json.Unmarshal(msg, &s); err != nil {
			return FeatureValue{}, err
		}
		return Str(s), nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(msg, &b); err != nil {
			return FeatureValue{}, err
		}
		return BoolValue(b), nil
	case '{':
		var special map[string]string
		if err := json.Unmarshal(msg, &special); err == nil && len(special) == 1 {
			if txt, ok := special["$float"]; ok {
				x, err := strconv.ParseFloat(txt, 64)
				if err == nil {
					return Float(x), nil
				}
			}
		}
		return FeatureValue{}, fmt.Errorf("value %s is an object; feature values are numbers, bools or strings", msg)
	case '[':
		return FeatureValue{}, fmt.Errorf("value %s is an array; feature values are numbers, bools or strings", msg)
	case 'n':
		return FeatureValue{}, fmt.Errorf("value is null; feature values are numbers, bools or strings")
	}
	txt := string(msg)
	if !strings.ContainsAny(txt, ".eE") {
		i, err := strconv.ParseInt(txt, 10, 64)
		if err != nil {
			return FeatureValue{}, fmt.Errorf("integer %s does not fit in 64 bits", txt)
		}
		return Int(i), nil
	}
	x, err := strconv.ParseFloat(txt, 64)
	if err != nil {
		return FeatureValue{}, fmt.Errorf("number %s is not a 64-bit float", txt)
	}
	// -0.0 keeps its sign here: a lookup of it may mean a set another implementation wrote
	// under -0.0's bits (docs/format.md §13.3); a write turns it into 0.0 (entries).
	return FloatAsGiven(x), nil
}

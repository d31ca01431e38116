package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/tsstore/tsstore/core"
)

// numberFormatHelp is the one number format every output of this tool uses, quoted in the
// --help of import and export.
const numberFormatHelp = `Numbers are written in Go's shortest round-trip form (strconv 'g', precision -1):
f64 and f32 values as the fewest digits that read back to the same value (0.1, 1e+06,
-2.5e-07, NaN, +Inf, -Inf), integers in decimal, booleans as true/false. Reading
accepts anything strconv.ParseFloat / ParseInt / ParseUint / ParseBool accepts, so a
file written in this form reads back, and exports again, byte for byte.`

// formatFloat is how the tool prints every float: the shortest decimal that reads back to
// the same float64 (13, not 12.999999999999998; 0.1, 1e+06, NaN, +Inf).
func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// formatCells renders every element of an array, row-major, in the documented format.
func formatCells(a core.TypedArray) ([]string, error) {
	switch a.DType {
	case core.F64:
		return mapValues(a, formatFloat)
	case core.F32:
		return mapValues(a, func(v float32) string { return strconv.FormatFloat(float64(v), 'g', -1, 32) })
	case core.I64:
		return mapValues(a, func(v int64) string { return strconv.FormatInt(v, 10) })
	case core.I32:
		return mapValues(a, func(v int32) string { return strconv.FormatInt(int64(v), 10) })
	case core.U64:
		return mapValues(a, func(v uint64) string { return strconv.FormatUint(v, 10) })
	case core.Bool:
		return mapValues(a, strconv.FormatBool)
	}
	return nil, fmt.Errorf("unknown dtype %v", a.DType)
}

// floatValues converts every element to float64 for plotting (booleans as 0 and 1).
func floatValues(a core.TypedArray) ([]float64, error) {
	switch a.DType {
	case core.F64:
		return mapValues(a, func(v float64) float64 { return v })
	case core.F32:
		return mapValues(a, func(v float32) float64 { return float64(v) })
	case core.I64:
		return mapValues(a, func(v int64) float64 { return float64(v) })
	case core.I32:
		return mapValues(a, func(v int32) float64 { return float64(v) })
	case core.U64:
		return mapValues(a, func(v uint64) float64 { return float64(v) })
	case core.Bool:
		return mapValues(a, func(v bool) float64 {
			if v {
				return 1
			}
			return 0
		})
	}
	return nil, fmt.Errorf("unknown dtype %v", a.DType)
}

func mapValues[T core.Element, R any](a core.TypedArray, f func(T) R) ([]R, error) {
	vals, err := core.Values[T](a)
	if err != nil {
		return nil, err
	}
	out := make([]R, len(vals))
	for i, v := range vals {
		out[i] = f(v)
	}
	return out, nil
}

// columnBuilder collects one series' cells as parsed values of one dtype.
type columnBuilder interface {
	add(cell string) error
	array() core.TypedArray
}

type typedBuilder[T core.Element] struct {
	vals  []T
	parse func(string) (T, error)
}

func (b *typedBuilder[T]) add(cell string) error {
	v, err := b.parse(cell)
	if err != nil {
		return err
	}
	b.vals = append(b.vals, v)
	return nil
}

func (b *typedBuilder[T]) array() core.TypedArray { return core.ArrayOf(b.vals) }

func newBuilder[T core.Element](capacity int, parse func(string) (T, error)) columnBuilder {
	return &typedBuilder[T]{vals: make([]T, 0, capacity), parse: parse}
}

// newColumnBuilder makes a builder of values of dtype dt, with room for capacity.
func newColumnBuilder(dt core.DType, capacity int) columnBuilder {
	switch dt {
	case core.F32:
		return newBuilder(capacity, func(s string) (float32, error) {
			v, err := strconv.ParseFloat(s, 32)
			return float32(v), numErr(err, "a number")
		})
	case core.I64:
		return newBuilder(capacity, func(s string) (int64, error) {
			v, err := strconv.ParseInt(s, 10, 64)
			return v, numErr(err, "a 64-bit integer")
		})
	case core.I32:
		return newBuilder(capacity, func(s string) (int32, error) {
			v, err := strconv.ParseInt(s, 10, 32)
			return int32(v), numErr(err, "a 32-bit integer")
		})
	case core.U64:
		return newBuilder(capacity, func(s string) (uint64, error) {
			v, err := strconv.ParseUint(s, 10, 64)
			return v, numErr(err, "an unsigned 64-bit integer")
		})
	case core.Bool:
		return newBuilder(capacity, func(s string) (bool, error) {
			v, err := strconv.ParseBool(s)
			return v, numErr(err, "true or false")
		})
	}
	return newBuilder(capacity, func(s string) (float64, error) {
		v, err := strconv.ParseFloat(s, 64)
		return v, numErr(err, "a number")
	})
}

// numErr turns a strconv error into "not <what>". An out-of-range number (1e400) is
// refused too rather than stored as ±Inf: only a cell spelled Inf means infinity.
func numErr(err error, what string) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("not %s", what)
}

// jsonNumber renders one formatted cell for JSON: numbers as numbers, booleans as
// booleans, and the non-finite floats JSON lacks as the strings "NaN", "+Inf", "-Inf".
func jsonNumber(dt core.DType, cell string) any {
	switch dt {
	case core.F64, core.F32:
		if v, err := strconv.ParseFloat(cell, 64); err == nil && (math.IsNaN(v) || math.IsInf(v, 0)) {
			return cell
		}
		return rawJSON(cell)
	case core.Bool:
		return cell == "true"
	}
	return rawJSON(cell)
}

// rawJSON is a cell already spelled as a JSON number.
type rawJSON string

func (r rawJSON) MarshalJSON() ([]byte, error) { return []byte(r), nil }

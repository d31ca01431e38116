package core

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// One sentinel per error kind of docs/format.md §11. Every error the store returns wraps
// exactly one of them, so errors.Is(err, core.ErrNotFound) and friends work on all of them.
var (
	ErrInvalidParameter     = errors.New("invalid parameter")
	ErrNotFound             = errors.New("not found")
	ErrDuplicateTimeSeries  = errors.New("duplicate time series")
	ErrDuplicateAssociation = errors.New("duplicate association")
	ErrIntegrity            = errors.New("integrity error")
	ErrReadOnly             = errors.New("store is read-only")
	ErrIO                   = errors.New("i/o error")
	ErrIncompatibleFormat   = errors.New("incompatible format")
	ErrInternal             = errors.New("internal error")
)

// Arg is the input an error blames. The codes are the C header's TSSTORE_ARG_* (capi checks
// that the two agree), so that every binding names its own argument from the code and never
// parses a message.
type Arg uint8

const (
	ArgNone Arg = iota
	ArgPath
	ArgCompression
	ArgSeries // the series argument as a whole (a nil one, a type this build lacks)
	ArgSeriesType
	ArgOwnerID
	ArgOwnerCategory
	ArgOwnerType
	ArgName
	ArgDType
	ArgShape
	ArgData
	ArgInitialTimestamp
	ArgResolution
	ArgTimestamps
	ArgHorizon
	ArgInterval
	ArgCount
	ArgPercentiles
	ArgFeatures
	ArgUnits
	ArgExt
	ArgStart
	ArgEnd
	ArgLookup // the lookup or key as a whole: it matches nothing, several series, or a stored one
	ArgKeys   // the list of keys or lookups as a whole (an empty one)
	ArgBuffer
	ArgStep // a reader's step or window, or the timestamp of one
	ArgHash
	ArgNewName
	ArgNewID // the new owner or association id of a move
	ArgAType // an association's first type (component, parent)
	ArgBType // an association's second type (attribute, child)
	ArgAIDs
	ArgBIDs
	ArgGroup
	ArgBytes
	ArgTable
	ArgField
	ArgOut    // a pointer argument given as NULL (the C interface's): Detail names it
	ArgFilter // a listing's filter as a whole
	argCount
)

// argNames are the Go spellings of the arguments, as the core's messages print them.
var argNames = [argCount]string{
	ArgNone: "", ArgPath: "path", ArgCompression: "compression", ArgSeries: "time_series",
	ArgSeriesType: "type", ArgOwnerID: "owner_id", ArgOwnerCategory: "owner_category", ArgOwnerType: "owner_type",
	ArgName: "name", ArgDType: "data.dtype", ArgShape: "data.shape", ArgData: "data",
	ArgInitialTimestamp: "initial_timestamp", ArgResolution: "resolution", ArgTimestamps: "timestamps",
	ArgHorizon: "horizon", ArgInterval: "interval", ArgCount: "count", ArgPercentiles: "percentiles",
	ArgFeatures: "features", ArgUnits: "units", ArgExt: "ext", ArgStart: "start", ArgEnd: "end",
	ArgLookup: "key", ArgKeys: "keys", ArgBuffer: "dst", ArgStep: "step", ArgHash: "hash", ArgNewName: "new_name",
	ArgNewID: "new", ArgAType: "a_type", ArgBType: "b_type", ArgAIDs: "a_ids", ArgBIDs: "b_ids",
	ArgGroup: "group", ArgBytes: "bytes", ArgTable: "table", ArgField: "field", ArgOut: "", ArgFilter: "filter",
}

// NumArgs is the number of Arg codes (for tables indexed by them).
const NumArgs = int(argCount)

// String is the argument's Go spelling ("data.shape").
func (a Arg) String() string {
	if a < argCount {
		return argNames[a]
	}
	return "arg" + itoa(int64(a))
}

// Error is the structured error every store operation returns: which operation failed,
// which input is to blame (an Arg, a detail within it, the element of a list input) and why.
// A binding builds its own message from these fields; Error() is the Go one.
type Error struct {
	Kind error  // one of the Err* sentinels
	Op   string // the public operation, e.g. "add_time_series"
	Arg  Arg    // the input to blame; ArgNone when none is (or a catalog column is: Detail)
	// Detail narrows Arg: a feature's name, an axis or element index, an association type's
	// own name ("component_type"); with ArgNone, the catalog column or dataset at fault.
	Detail string
	// Items names the list input an error is about one element of ("items", "keys",
	// "which"), and Item that element's index; Items is "" for no element.
	Items string
	Item  int
	Msg   string
	Err   error // the underlying cause (netcdf, sqlite, os), if any
}

// Field is the Go spelling of what the error blames: "items[3].data.shape[0]",
// "features.scenario", "keys[2]", or a catalog column ("data_hash").
func (e *Error) Field() string {
	var b strings.Builder
	if e.Items != "" {
		b.WriteString(e.Items + "[" + itoa(int64(e.Item)) + "]")
	}
	name, detail := e.Arg.String(), e.Detail
	switch {
	case e.Arg == ArgAType || e.Arg == ArgBType:
		// The pair's own spelling (component_type, child_type), or none where Items says it.
		name, detail = detail, ""
	case e.Arg == ArgLookup && e.Items != "":
		name = "" // "keys[3]" is the key
	}
	if name != "" {
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(name)
	}
	switch {
	case detail == "":
	case allDigits(detail) && name != "":
		b.WriteString("[" + detail + "]")
	case b.Len() > 0:
		b.WriteString("." + detail)
	default:
		b.WriteString(detail)
	}
	return b.String()
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func (e *Error) Error() string {
	s := "tsstore: " + e.Op + ": "
	if f := e.Field(); f != "" {
		s += f + ": "
	}
	s += e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s + " (" + e.Kind.Error() + ")"
}

// Unwrap exposes both the kind and the cause to errors.Is / errors.As.
func (e *Error) Unwrap() []error {
	if e.Err != nil {
		return []error{e.Kind, e.Err}
	}
	return []error{e.Kind}
}

func newErr(kind error, op string, arg Arg, format string, args ...any) *Error {
	return &Error{Kind: kind, Op: op, Arg: arg, Msg: fmt.Sprintf(format, args...)}
}

func invalid(op string, arg Arg, format string, args ...any) *Error {
	return newErr(ErrInvalidParameter, op, arg, format, args...)
}

// invalidIn is invalid about one part of arg: a feature's name, an axis.
func invalidIn(op string, arg Arg, detail, format string, args ...any) *Error {
	e := invalid(op, arg, format, args...)
	e.Detail = detail
	return e
}

// corruptAt is an integrity error about a catalog column or a dataset of the file.
func corruptAt(op, column, format string, args ...any) *Error {
	e := newErr(ErrIntegrity, op, ArgNone, format, args...)
	e.Detail = column
	return e
}

// atItem says that err is about element i of the list input items ("items", "keys",
// "which"), unless it already names an element.
func atItem(err error, items string, i int) error {
	var e *Error
	if errors.As(err, &e) && e.Items == "" {
		e.Items, e.Item = items, i
	}
	return err
}

// wrapIO classifies a failure of netcdf-c, SQLite or the OS. A failure the NetCDF layer
// already explained (ncstore.Error) keeps its kind and message.
func wrapIO(op string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	if se := fromStore(err); se != nil {
		if se.Op == "" {
			se.Op = op
		}
		return se
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: ErrIO, Op: op, Msg: fmt.Sprintf(format, args...), Err: err}
}

// storeKinds maps the NetCDF layer's error kinds to the store's sentinels.
var storeKinds = map[ncstore.Kind]error{
	ncstore.IO:                 ErrIO,
	ncstore.Integrity:          ErrIntegrity,
	ncstore.IncompatibleFormat: ErrIncompatibleFormat,
	ncstore.InvalidParameter:   ErrInvalidParameter,
}

// fromStore turns an error of the NetCDF layer into the store's Error of the same kind, or
// returns nil when err is not one.
func fromStore(err error) *Error {
	var se *ncstore.Error
	if !errors.As(err, &se) {
		return nil
	}
	e := &Error{Kind: storeKinds[se.Kind], Op: se.Op, Msg: se.Msg, Err: se.Err}
	if se.Field == "path" {
		e.Arg = ArgPath
	} else {
		e.Detail = se.Field // a dataset or attribute of the file
	}
	return e
}

// ncErr is err with an error of the NetCDF layer turned into the store's Error; other errors
// pass unchanged.
func ncErr(err error) error {
	if err == nil {
		return nil
	}
	if se := fromStore(err); se != nil {
		return se
	}
	return err
}

// withOp re-labels an error produced by a helper with the public operation that called it.
func withOp(op string, err error) error {
	if err == nil { // most calls: errors.As's target would escape, three allocations a call
		return nil
	}
	err = ncErr(err)
	var e *Error
	if errors.As(err, &e) && e.Op == "" {
		e.Op = op
	}
	return err
}

func errNoArray(d hashing.Digest) error {
	return corruptAt("", "data_hash", "catalog names array %x, which the NetCDF file does not hold", d[:])
}

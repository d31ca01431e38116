package core

import (
	"errors"
	"fmt"

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

// Error is the structured error every store operation returns: which operation failed,
// which field (if one is to blame) and why.
type Error struct {
	Kind  error  // one of the Err* sentinels
	Op    string // the public operation, e.g. "add_time_series"
	Field string // the offending field or value, when there is one
	Msg   string
	Err   error // the underlying cause (netcdf, sqlite, os), if any
}

func (e *Error) Error() string {
	s := "tsstore: " + e.Op + ": "
	if e.Field != "" {
		s += e.Field + ": "
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

func newErr(kind error, op, field, format string, args ...any) *Error {
	return &Error{Kind: kind, Op: op, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func invalid(op, field, format string, args ...any) *Error {
	return newErr(ErrInvalidParameter, op, field, format, args...)
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
	return &Error{Kind: storeKinds[se.Kind], Op: se.Op, Field: se.Field, Msg: se.Msg, Err: se.Err}
}

// ncErr is err with an error of the NetCDF layer turned into the store's Error; other errors
// pass unchanged.
func ncErr(err error) error {
	if se := fromStore(err); se != nil {
		return se
	}
	return err
}

// withOp re-labels an error produced by a helper with the public operation that called it.
func withOp(op string, err error) error {
	err = ncErr(err)
	var e *Error
	if errors.As(err, &e) && e.Op == "" {
		e.Op = op
	}
	return err
}

func errNoArray(d hashing.Digest) error {
	return newErr(ErrIntegrity, "", "data_hash", "catalog names array %x, which the NetCDF file does not hold", d[:])
}

package ncstore

import (
	"errors"
	"fmt"
)

// Kind classifies an Error the way the store's public errors are classified
// (docs/format.md §11); core maps each kind to its sentinel.
type Kind uint8

const (
	IO                 Kind = iota // netcdf-c, HDF5, the journal or the OS failed
	Integrity                      // the file disagrees with itself or with the catalog
	IncompatibleFormat             // the file records another format version
	InvalidParameter               // the caller asked for something the layout refuses
)

// Error is a failure of the NetCDF file with a message fit for the store's user: the
// operation, the field or object to blame, and the underlying cause if any. Errors that
// carry no message of their own (a netcdf-c status) are returned unwrapped.
type Error struct {
	Kind  Kind
	Op    string // the store's operation, when the file knows it ("open", "create")
	Field string
	Msg   string
	Err   error
}

func (e *Error) Error() string {
	s := e.Msg
	if e.Field != "" {
		s = e.Field + ": " + s
	}
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap exposes the cause to errors.Is / errors.As.
func (e *Error) Unwrap() error { return e.Err }

func newErr(kind Kind, op, field, format string, args ...any) *Error {
	return &Error{Kind: kind, Op: op, Field: field, Msg: fmt.Sprintf(format, args...)}
}

func invalid(op, field, format string, args ...any) *Error {
	return newErr(InvalidParameter, op, field, format, args...)
}

// wrapIO gives a failure of netcdf-c or the OS its message; an *Error passes unchanged.
func wrapIO(op string, err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Kind: IO, Op: op, Msg: fmt.Sprintf(format, args...), Err: err}
}

package main

// #include "capi.h"
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"unicode/utf8"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// Status codes of include/tsstore.h; the numbers never change.
const (
	statusOK                   = 0
	statusInvalidParameter     = 1
	statusNotFound             = 2
	statusDuplicateTimeSeries  = 3
	statusDuplicateAssociation = 4
	statusIntegrity            = 5
	statusReadOnly             = 6
	statusIO                   = 7
	statusIncompatibleFormat   = 8
	statusInternal             = 9
	statusBufferTooSmall       = 10
	statusInvalidHandle        = 11
)

var statusNames = [...]string{
	"TSSTORE_OK", "TSSTORE_E_INVALID_PARAMETER", "TSSTORE_E_NOT_FOUND", "TSSTORE_E_DUPLICATE_TIME_SERIES",
	"TSSTORE_E_DUPLICATE_ASSOCIATION", "TSSTORE_E_INTEGRITY", "TSSTORE_E_READ_ONLY", "TSSTORE_E_IO",
	"TSSTORE_E_INCOMPATIBLE_FORMAT", "TSSTORE_E_INTERNAL", "TSSTORE_E_BUFFER_TOO_SMALL", "TSSTORE_E_INVALID_HANDLE",
}

// cStatusNames holds the names as C strings for the life of the process.
var cStatusNames = func() []*C.char {
	out := make([]*C.char, len(statusNames)+1)
	for i, n := range statusNames {
		out[i] = C.CString(n)
	}
	out[len(statusNames)] = C.CString("unknown status")
	return out
}()

// kinds maps the core's error kinds onto status codes.
var kinds = []struct {
	err    error
	status C.int32_t
}{
	{core.ErrInvalidParameter, statusInvalidParameter}, {core.ErrNotFound, statusNotFound},
	{core.ErrDuplicateTimeSeries, statusDuplicateTimeSeries}, {core.ErrDuplicateAssociation, statusDuplicateAssociation},
	{core.ErrIntegrity, statusIntegrity}, {core.ErrReadOnly, statusReadOnly}, {core.ErrIO, statusIO},
	{core.ErrIncompatibleFormat, statusIncompatibleFormat}, {core.ErrInternal, statusInternal},
	{core.ErrBufferTooSmall, statusBufferTooSmall},
}

// apiError is a failure of the translation layer itself (a NULL pointer, a bad handle).
type apiError struct {
	status C.int32_t
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func invalidArg(format string, args ...any) error {
	return &apiError{statusInvalidParameter, fmt.Sprintf(format, args...)}
}

func badHandle(what string) error {
	return &apiError{statusInvalidHandle, what + " is NULL, freed, or not a handle of that kind"}
}

func tooSmall(needed uintptr, unit string) error {
	return &apiError{statusBufferTooSmall, fmt.Sprintf("the buffer is too small: %d %s needed", needed, unit)}
}

func statusOf(err error) C.int32_t {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.status
	}
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.status
		}
	}
	return statusInternal
}

// fail records err as the calling thread's last error (and the store's, when there is
// one) and returns its status.
func fail(st *storeHandle, err error) C.int32_t {
	msg := err.Error()
	if len(msg) >= C.TS_ERROR_CAP {
		msg = truncateUTF8(msg, C.TS_ERROR_CAP-1)
	}
	setThreadError(msg)
	if st != nil {
		st.setError(msg)
	}
	logf("error: %s", msg)
	return statusOf(err)
}

func setThreadError(msg string) {
	if msg == "" {
		C.ts_set_error(nil, 0)
		return
	}
	b := []byte(msg)
	C.ts_set_error((*C.char)(unsafe.Pointer(&b[0])), C.size_t(len(b)))
}

func truncateUTF8(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// guard turns a Go panic inside an exported function into TSSTORE_E_INTERNAL: no panic may
// cross into C. Use as: defer guard(&status).
func guard(status *C.int32_t) {
	if r := recover(); r != nil {
		msg := fmt.Sprintf("internal error: %v", r)
		if os.Getenv("TSSTORE_DEBUG") != "" {
			msg += "\n" + string(debug.Stack())
		}
		*status = fail(nil, &apiError{statusInternal, msg})
	}
}

// guardVoid is guard for the functions that return nothing (the free functions).
func guardVoid() {
	if r := recover(); r != nil {
		fail(nil, &apiError{statusInternal, fmt.Sprintf("internal error: %v", r)})
	}
}

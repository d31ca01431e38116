package main

/*
#include "capi.h"

// The name of each status, tied to its code by the header's macro itself (a designated
// initializer of its own stringified name), so the table cannot name a code wrongly.
#define STATUS_NAME(s) [s] = #s
static const char *const status_names[] = {
	STATUS_NAME(TSSTORE_OK), STATUS_NAME(TSSTORE_E_INVALID_PARAMETER), STATUS_NAME(TSSTORE_E_NOT_FOUND),
	STATUS_NAME(TSSTORE_E_DUPLICATE_TIME_SERIES), STATUS_NAME(TSSTORE_E_DUPLICATE_ASSOCIATION),
	STATUS_NAME(TSSTORE_E_INTEGRITY), STATUS_NAME(TSSTORE_E_READ_ONLY), STATUS_NAME(TSSTORE_E_IO),
	STATUS_NAME(TSSTORE_E_INCOMPATIBLE_FORMAT), STATUS_NAME(TSSTORE_E_INTERNAL),
	STATUS_NAME(TSSTORE_E_BUFFER_TOO_SMALL), STATUS_NAME(TSSTORE_E_INVALID_HANDLE),
};

static const char *status_name(int32_t status) {
	if (status < 0 || status >= (int32_t)(sizeof status_names / sizeof status_names[0]) || !status_names[status])
		return "unknown status";
	return status_names[status];
}
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// statusName is the header's name of a status, "unknown status" for a code it does not list.
func statusName(status C.int32_t) *C.char { return (*C.char)(unsafe.Pointer(C.status_name(status))) }

// statusOK is the status of every call that succeeds; the failures' codes are the header's
// constants, used where kinds maps the core's errors onto them.
const statusOK = C.TSSTORE_OK

// errInvalidHandle is the kind of a handle argument that names no live object of its kind;
// the core has no such kind, since it never sees handles.
var errInvalidHandle = errors.New("invalid handle")

// kinds maps the error kinds onto status codes.
var kinds = []struct {
	err    error
	status C.int32_t
}{
	{core.ErrInvalidParameter, C.TSSTORE_E_INVALID_PARAMETER}, {core.ErrNotFound, C.TSSTORE_E_NOT_FOUND},
	{core.ErrDuplicateTimeSeries, C.TSSTORE_E_DUPLICATE_TIME_SERIES},
	{core.ErrDuplicateAssociation, C.TSSTORE_E_DUPLICATE_ASSOCIATION},
	{core.ErrIntegrity, C.TSSTORE_E_INTEGRITY}, {core.ErrReadOnly, C.TSSTORE_E_READ_ONLY}, {core.ErrIO, C.TSSTORE_E_IO},
	{core.ErrIncompatibleFormat, C.TSSTORE_E_INCOMPATIBLE_FORMAT}, {core.ErrInternal, C.TSSTORE_E_INTERNAL},
	{core.ErrBufferTooSmall, C.TSSTORE_E_BUFFER_TOO_SMALL}, {errInvalidHandle, C.TSSTORE_E_INVALID_HANDLE},
}

// where is a struct argument of a call, as the header spells it: the whole argument
// ("desc", "which", "filter"), or element item of an array argument ("descs", "which",
// "rows"). The errors about its fields name it so.
type where struct {
	list string // the core's name of the list the element is of ("items", "which"): "" for one struct
	item int
}

// one is the struct argument of a call that takes one.
var one = where{}

// elem is element i of the array argument the core calls list.
func elem(list string, i int) where { return where{list, i} }

// bad is an invalid-parameter failure of arg (a field of w, or a plain argument) with an
// optional detail within it (a feature's name, an axis).
func (w where) bad(arg core.Arg, detail, format string, args ...any) error {
	return &core.Error{Kind: core.ErrInvalidParameter, Arg: arg, Detail: detail, Items: w.list, Item: w.item,
		Msg: fmt.Sprintf(format, args...)}
}

// badField is bad for a field the header spells apart from its argument's usual name
// (desc.ndim and desc.nbytes are ARG_SHAPE and ARG_DATA; filter.match_owner_id ARG_OWNER_ID).
func (w where) badField(arg core.Arg, cField, format string, args ...any) error {
	return &spelled{w.bad(arg, "", format, args...).(*core.Error), cField}
}

// spelled is a failure whose C message names the header's field cField.
type spelled struct {
	err    *core.Error
	cField string
}

func (e *spelled) Error() string { return e.err.Error() }
func (e *spelled) Unwrap() error { return e.err }

// badArg is an invalid-parameter failure of a plain argument.
func badArg(arg core.Arg, format string, args ...any) error { return one.bad(arg, "", format, args...) }

// nullOut is a required out pointer (or other pointer argument) given as NULL.
func nullOut(name string) error { return one.bad(core.ArgOut, name, "is NULL") }

func badHandle(what string) error {
	return &core.Error{Kind: errInvalidHandle, Msg: what + " is NULL, freed, or not a handle of that kind"}
}

func tooSmall(needed uintptr, unit string) error {
	return &core.Error{Kind: core.ErrBufferTooSmall, Arg: core.ArgBuffer,
		Msg: fmt.Sprintf("the buffer is too small: %d %s needed", needed, unit)}
}

func statusOf(err error) C.int32_t {
	for _, k := range kinds {
		if errors.Is(err, k.err) {
			return k.status
		}
	}
	return C.TSSTORE_E_INTERNAL
}

// maxErrorText bounds each string of an error record, so that a message quoting a huge
// argument does not make a huge record.
const maxErrorText = 4095

// fail records err as the calling thread's last error (and its message as the store's, when
// there is one) and returns its status. fn is the exported function that failed.
func fail(st *storeHandle, err error) C.int32_t {
	r := recordOf(err, callerName())
	if st != nil {
		st.setError(r.message)
	}
	logf("error: %s", r.message)
	r.store()
	return statusOf(err)
}

// errorRecord is a failure as the C interface reports it (tsstore_error_info).
type errorRecord struct {
	status                             C.int32_t
	arg                                core.Arg
	item                               int64
	operation, detail, reason, message string
}

// recordOf describes err as the header spells it: the argument named as the C function fn
// takes it ("descs[3].shape[0]", "which.features_json"), the message starting with the
// core's operation.
func recordOf(err error, fn string) errorRecord {
	r := errorRecord{status: statusOf(err), item: -1, operation: operationOf(fn), reason: err.Error(),
		message: err.Error()}
	var e *core.Error
	if !errors.As(err, &e) {
		return r
	}
	var sp *spelled
	cField := ""
	if errors.As(err, &sp) {
		cField = sp.cField
	}
	r.arg, r.detail, r.reason = e.Arg, e.Detail, e.Msg
	if e.Op != "" { // else refused while the arguments were read, before the core ran
		r.operation = e.Op
	}
	if e.Err != nil {
		r.reason += ": " + e.Err.Error()
	}
	if e.Items != "" {
		r.item = int64(e.Item)
	}
	var b strings.Builder
	b.WriteString("tsstore: ")
	if r.operation != "" {
		b.WriteString(r.operation + ": ")
	}
	if path := cPath(e, fn, cField); path != "" {
		b.WriteString(path + ": ")
	}
	b.WriteString(r.reason)
	if e.Kind != nil {
		b.WriteString(" (" + e.Kind.Error() + ")")
	}
	r.message = b.String()
	return r
}

// coreOperations names the core operation each C function that decodes a series, lookup or
// filter runs, so that a refusal of its arguments names the operation a refusal by the core
// would (the bindings word their argument names by it: a series' fields in an add).
var coreOperations = map[string]string{
	"tsstore_add": "add_time_series", "tsstore_add_batch": "add_time_series_batch",
	"tsstore_add_batch_from": "add_time_series_batch", "tsstore_has": "has_time_series",
	"tsstore_get_info": "describe_time_series", "tsstore_get": "get_time_series",
	"tsstore_get_range": "get_time_series", "tsstore_get_windows": "get_time_series",
	"tsstore_get_timestamps": "get_timestamps", "tsstore_get_percentiles": "get_metadata",
	"tsstore_get_many": "get_many", "tsstore_remove": "remove_time_series",
	"tsstore_remove_where": "remove_where", "tsstore_list_keys": "list_keys",
	"tsstore_static_reader_new": "static_reader", "tsstore_forecast_reader_new": "forecast_reader",
}

// operationOf is the operation a refusal in the C function fn names: the core's for the
// functions above, else the function's own name without its prefix.
func operationOf(fn string) string {
	if op, ok := coreOperations[fn]; ok {
		return op
	}
	return strings.TrimPrefix(fn, "tsstore_")
}

// store writes r into the calling thread's error record (capi.c).
func (r errorRecord) store() {
	texts := [C.TS_ERROR_STRINGS]string{r.operation, r.detail, r.reason, r.message}
	var lens [C.TS_ERROR_STRINGS]C.size_t
	var all []byte
	for i, t := range texts {
		if len(t) > maxErrorText {
			t = truncateUTF8(t, maxErrorText)
		}
		lens[i] = C.size_t(len(t))
		all = append(all, t...)
	}
	all = append(all, 0) // never an empty slice to take the address of
	C.ts_set_error_record(r.status, C.int32_t(r.arg), C.int64_t(r.item), (*C.char)(unsafe.Pointer(&all[0])), &lens[0])
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
		*status = fail(nil, &core.Error{Kind: core.ErrInternal, Msg: msg})
	}
}

// guardVoid is guard for the functions that return nothing (the free functions).
func guardVoid() {
	if r := recover(); r != nil {
		fail(nil, &core.Error{Kind: core.ErrInternal, Msg: fmt.Sprintf("internal error: %v", r)})
	}
}

// notFound is the header's NOT_FOUND for a missing file or directory, whatever layer saw it.
func notFound(err error) error {
	e := &core.Error{Kind: core.ErrNotFound, Arg: core.ArgPath, Msg: err.Error()}
	var ce *core.Error
	if errors.As(err, &ce) {
		e.Op, e.Msg = ce.Op, ce.Msg
		if ce.Err != nil {
			e.Msg += ": " + ce.Err.Error()
		}
	}
	return e
}

package main

// #include <stdlib.h>
// #include "capi.h"
import "C"

import (
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

// errorHandle is a copy of a thread's error record that the caller owns: its strings live
// in C memory the handle frees, so no later call (on this thread or another, a finalizer's
// included) can change them.
type errorHandle struct {
	status C.int32_t
	arg    C.int32_t
	item   C.int64_t
	text   interner
	strs   [C.TS_ERROR_STRINGS]*C.char
}

var errorInfoSize = unsafe.Sizeof(C.tsstore_error_info{})

//export tsstore_last_error
func tsstore_last_error(out *C.uintptr_t) (status C.int32_t) {
	defer guard(&status)
	if out == nil {
		return fail(nil, nullOut("out"))
	}
	r := C.ts_get_error_record()
	h := &errorHandle{status: r.status, arg: r.arg, item: r.item}
	for i := range h.strs {
		h.strs[i] = h.text.text(C.GoString(C.ts_error_string(r, C.int(i))))
	}
	*out = C.uintptr_t(register(kindError, h))
	return statusOK
}

//export tsstore_error_get
func tsstore_error_get(p C.uintptr_t, info *C.tsstore_error_info) (status C.int32_t) {
	defer guard(&status)
	v, ok := lookup(uintptr(p), kindError)
	if !ok {
		return fail(nil, badHandle("error"))
	}
	h := v.(*errorHandle)
	if info == nil {
		return fail(nil, nullOut("info"))
	}
	if _, err := outSize(info.struct_size, errorInfoSize, "info", "TSSTORE_ERROR_INFO_INIT"); err != nil {
		return fail(nil, err)
	}
	info.status, info.arg, info.item = h.status, h.arg, h.item
	info.operation, info.detail, info.reason, info.message = h.strs[0], h.strs[1], h.strs[2], h.strs[3]
	return statusOK
}

//export tsstore_error_free
func tsstore_error_free(p C.uintptr_t) {
	defer guardVoid()
	if h, ok := unregister(uintptr(p), kindError).(*errorHandle); ok {
		h.text.free()
	}
}

// headerArgs are the header's TSSTORE_ARG_* codes beside the core's Arg of the same name:
// the numbers must agree (TestArgCodesAreTheHeaders), so that the code a binding reads is
// the one the core set.
var headerArgs = []struct {
	core   core.Arg
	header C.int32_t
}{
	{core.ArgNone, C.TSSTORE_ARG_NONE}, {core.ArgPath, C.TSSTORE_ARG_PATH},
	{core.ArgCompression, C.TSSTORE_ARG_COMPRESSION}, {core.ArgSeries, C.TSSTORE_ARG_SERIES},
	{core.ArgSeriesType, C.TSSTORE_ARG_SERIES_TYPE}, {core.ArgOwnerID, C.TSSTORE_ARG_OWNER_ID},
	{core.ArgOwnerCategory, C.TSSTORE_ARG_OWNER_CATEGORY}, {core.ArgOwnerType, C.TSSTORE_ARG_OWNER_TYPE},
	{core.ArgName, C.TSSTORE_ARG_NAME}, {core.ArgDType, C.TSSTORE_ARG_DTYPE}, {core.ArgShape, C.TSSTORE_ARG_SHAPE},
	{core.ArgData, C.TSSTORE_ARG_DATA}, {core.ArgInitialTimestamp, C.TSSTORE_ARG_INITIAL_TIMESTAMP},
	{core.ArgResolution, C.TSSTORE_ARG_RESOLUTION}, {core.ArgTimestamps, C.TSSTORE_ARG_TIMESTAMPS},
	{core.ArgHorizon, C.TSSTORE_ARG_HORIZON}, {core.ArgInterval, C.TSSTORE_ARG_INTERVAL},
	{core.ArgCount, C.TSSTORE_ARG_COUNT}, {core.ArgPercentiles, C.TSSTORE_ARG_PERCENTILES},
	{core.ArgFeatures, C.TSSTORE_ARG_FEATURES}, {core.ArgUnits, C.TSSTORE_ARG_UNITS}, {core.ArgExt, C.TSSTORE_ARG_EXT},
	{core.ArgStart, C.TSSTORE_ARG_START}, {core.ArgEnd, C.TSSTORE_ARG_END}, {core.ArgLookup, C.TSSTORE_ARG_LOOKUP},
	{core.ArgKeys, C.TSSTORE_ARG_KEYS}, {core.ArgBuffer, C.TSSTORE_ARG_BUFFER}, {core.ArgStep, C.TSSTORE_ARG_STEP},
	{core.ArgHash, C.TSSTORE_ARG_HASH}, {core.ArgNewName, C.TSSTORE_ARG_NEW_NAME}, {core.ArgNewID, C.TSSTORE_ARG_NEW_ID},
	{core.ArgAType, C.TSSTORE_ARG_A_TYPE}, {core.ArgBType, C.TSSTORE_ARG_B_TYPE}, {core.ArgAIDs, C.TSSTORE_ARG_A_IDS},
	{core.ArgBIDs, C.TSSTORE_ARG_B_IDS}, {core.ArgGroup, C.TSSTORE_ARG_GROUP}, {core.ArgBytes, C.TSSTORE_ARG_BYTES},
	{core.ArgTable, C.TSSTORE_ARG_TABLE}, {core.ArgField, C.TSSTORE_ARG_FIELD}, {core.ArgOut, C.TSSTORE_ARG_OUT},
	{core.ArgFilter, C.TSSTORE_ARG_FILTER},
}

// argMismatches names the codes where the header and the core disagree, and reports a code
// of either side that the other lacks.
func argMismatches() []string {
	var out []string
	for _, a := range headerArgs {
		if int(a.core) != int(a.header) {
			out = append(out, a.core.String()+": core "+itoa(int(a.core))+", header "+itoa(int(a.header)))
		}
	}
	if len(headerArgs) != core.NumArgs {
		out = append(out, "the core has "+itoa(core.NumArgs)+" codes, the table "+itoa(len(headerArgs)))
	}
	return out
}

//export tsstore_last_error_message
func tsstore_last_error_message(buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	if buf == nil && capacity > 0 {
		return fail(nil, badArg(core.ArgBuffer, "buf is NULL but capacity is %d", capacity))
	}
	msg := C.GoString(C.ts_get_error())
	if needed != nil {
		*needed = C.size_t(len(msg) + 1)
	}
	if capacity == 0 {
		return statusOK
	}
	if len(msg) > int(capacity)-1 {
		msg = truncateUTF8(msg, int(capacity)-1)
	}
	toC(unsafe.Pointer(buf), append([]byte(msg), 0))
	return statusOK
}

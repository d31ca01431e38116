package main

// #include "capi.h"
import "C"

import (
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core"
)

//export tsstore_period_parse
func tsstore_period_parse(text *C.char, out *C.tsstore_period) (status C.int32_t) {
	defer guard(&status)
	s, err := reqString(text, core.ArgResolution)
	if err == nil && out == nil {
		err = nullOut("out")
	}
	var p core.Period
	if err == nil {
		if p, err = core.ParsePeriod(s); err != nil {
			err = badArg(core.ArgResolution, "%q is not an ISO-8601 duration (%v)", s, err)
		}
	}
	if err == nil && !p.IsPositive() {
		err = badArg(core.ArgResolution, "%q is not a positive period", s)
	}
	if err == nil {
		*out = periodOut(p)
	}
	return noFail(err)
}

//export tsstore_period_format
func tsstore_period_format(period *C.tsstore_period, buf *C.char, capacity C.size_t, needed *C.size_t) (status C.int32_t) {
	defer guard(&status)
	if period == nil {
		return fail(nil, nullOut("period"))
	}
	p, err := periodIn(*period, one, core.ArgResolution)
	if err == nil {
		text := ""
		if p != nil {
			text = p.String()
		}
		err = putString(text, buf, capacity, needed)
	}
	return noFail(err)
}

//export tsstore_timeline
func tsstore_timeline(initialMS C.int64_t, step *C.tsstore_period, first, n C.int64_t, dst *C.int64_t) (status C.int32_t) {
	defer guard(&status)
	var err error
	switch {
	case step == nil:
		err = nullOut("step")
	case n < 0 || n > 1<<32:
		err = badArg(core.ArgCount, "%d is not a count of timestamps", n)
	case first < -(1<<40) || first > 1<<40:
		err = badArg(core.ArgStart, "%d is out of range", first)
	case n > 0 && dst == nil:
		err = badArg(core.ArgBuffer, "is NULL but n is %d", n)
	}
	if err != nil {
		return noFail(err)
	}
	p, err := reqPeriodIn(*step, one, core.ArgResolution)
	if err != nil {
		return noFail(err)
	}
	stamps, err := core.Timeline(fromMillis(initialMS), p, int(first), int(n))
	if err != nil {
		return noFail(err)
	}
	return noFail(putMillis(stamps, dst, C.size_t(n), nil))
}

//export tsstore_infer_resolution
func tsstore_infer_resolution(timestamps *C.int64_t, n C.size_t, regular *C.int32_t, resolution *C.tsstore_period) (status C.int32_t) {
	defer guard(&status)
	var err error
	switch {
	case regular == nil || resolution == nil:
		err = nullOut("regular and resolution")
	case n > 1<<32:
		err = badArg(core.ArgKeys, "n %d is too large", n)
	case n > 0 && timestamps == nil:
		err = badArg(core.ArgTimestamps, "is NULL but n is %d", n)
	}
	if err != nil {
		return noFail(err)
	}
	ms := valuesFromC[int64](unsafe.Pointer(timestamps), int(n))
	if len(ms) < 2 {
		return noFail(badArg(core.ArgTimestamps, "n %d timestamps; a step needs at least two", n))
	}
	stamps := make([]time.Time, len(ms))
	for i, v := range ms {
		if i > 0 && v <= ms[i-1] {
			return noFail(one.bad(core.ArgTimestamps, itoa(i), "%d does not follow %d", v, ms[i-1]))
		}
		stamps[i] = fromMillis(C.int64_t(v))
	}
	// Input checked above, the core's refusal now means only: no regular step fits.
	p, err := core.InferResolution(stamps)
	*regular, *resolution = boolOut(err == nil), periodOut(p)
	return statusOK
}

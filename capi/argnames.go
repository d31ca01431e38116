package main

import (
	"runtime"
	"strings"

	"github.com/tsstore/tsstore/core"
)

// cArgs are the header's spellings of the arguments an error blames: a field of the call's
// struct argument (desc, which, filter, rows[i]) or a plain argument of the function.
var cArgs = [core.NumArgs]struct {
	name  string
	field bool
}{
	core.ArgPath: {"path", false}, core.ArgCompression: {"compression", false}, core.ArgSeries: {"", true},
	core.ArgSeriesType: {"series_type", true}, core.ArgOwnerID: {"owner_id", true},
	core.ArgOwnerCategory: {"owner_category", true}, core.ArgOwnerType: {"owner_type", true},
	core.ArgName: {"name", true}, core.ArgDType: {"dtype", true}, core.ArgShape: {"shape", true},
	core.ArgData: {"data", true}, core.ArgInitialTimestamp: {"initial_ms", true},
	core.ArgResolution: {"resolution", true}, core.ArgTimestamps: {"timestamps_ms", true},
	core.ArgHorizon: {"horizon", true}, core.ArgInterval: {"interval", true}, core.ArgCount: {"count", true},
	core.ArgPercentiles: {"percentiles", true}, core.ArgFeatures: {"features_json", true},
	core.ArgUnits: {"units", true}, core.ArgExt: {"ext", true}, core.ArgStart: {"start_ms", false},
	core.ArgEnd: {"end_ms", false}, core.ArgLookup: {"", true}, core.ArgKeys: {"which", false},
	core.ArgBuffer: {"dst", false}, core.ArgStep: {"step", false}, core.ArgHash: {"hash32", false},
	core.ArgNewName: {"new_name", false}, core.ArgNewID: {"new_id", false}, core.ArgAType: {"a_type", true},
	core.ArgBType: {"b_type", true}, core.ArgAIDs: {"a_ids", false}, core.ArgBIDs: {"b_ids", false},
	core.ArgGroup: {"group", false}, core.ArgBytes: {"bytes", false}, core.ArgTable: {"table", false},
	core.ArgField: {"field", false}, core.ArgOut: {"", false}, core.ArgFilter: {"", true},
}

// callShape is how a function's arguments are spelled: its one struct argument and the
// array argument whose elements the core's lists ("items") are.
type callShape struct{ single, items string }

// lookupFunctions take one lookup, which; listFunctions which[n].
var lookupFunctions = []string{"has", "get_info", "get", "get_range", "get_windows", "get_timestamps",
	"get_percentiles", "remove", "copy_series", "rename_series"}
var listFunctions = []string{"get_many", "static_reader_new", "forecast_reader_new"}

// shapes are the functions with struct arguments; the others take plain arguments only.
var shapes = func() map[string]callShape {
	m := map[string]callShape{
		"tsstore_add": {"desc", "descs"}, "tsstore_add_batch": {"descs", "descs"},
		"tsstore_add_batch_from": {"descs", "items"}, "tsstore_list_keys": {"filter", ""},
		"tsstore_remove_where": {"filter", ""}, "tsstore_add_associations": {"rows", "rows"},
	}
	for _, f := range lookupFunctions {
		m["tsstore_"+f] = callShape{"which", "which"}
	}
	for _, f := range listFunctions {
		m["tsstore_"+f] = callShape{"which", "which"}
	}
	return m
}()

// renamed are the plain arguments a function spells apart from cArgs.
var renamed = map[string]map[core.Arg]string{
	"tsstore_get_windows":                 {core.ArgStart: "first_ms", core.ArgEnd: "last_ms"},
	"tsstore_period_parse":                {core.ArgResolution: "text"},
	"tsstore_period_format":               {core.ArgResolution: "period"},
	"tsstore_timeline":                    {core.ArgResolution: "step", core.ArgStart: "first", core.ArgCount: "n"},
	"tsstore_static_reader_read_at":       {core.ArgStep: "timestamp_ms"},
	"tsstore_forecast_reader_read_window": {core.ArgStep: "window"},
	"tsstore_forecast_reader_read_at":     {core.ArgStep: "start_ms"},
}

// cPath spells what e blames as the C function fn's arguments name it: "descs[3].shape[0]",
// "which.features_json.scenario", "which[2]", "path"; cField, when not "", is the field's
// own name (desc.ndim).
func cPath(e *core.Error, fn, cField string) string {
	shape := shapes[fn]
	var b strings.Builder
	switch {
	case e.Items == "items" && shape.items != "":
		b.WriteString(shape.items)
	case e.Items == "items" || e.Items == "keys":
		b.WriteString("which")
	default:
		b.WriteString(e.Items) // which, dst
	}
	if e.Items != "" {
		b.WriteString("[" + itoa(e.Item) + "]")
	}
	name := ""
	if int(e.Arg) < len(cArgs) {
		a := cArgs[e.Arg]
		name = a.name
		if n, ok := renamed[fn][e.Arg]; ok {
			name = n
		}
		if cField != "" {
			name = cField
		}
		if e.Items == "" && a.field && shape.single != "" {
			b.WriteString(shape.single)
		}
	}
	join(&b, name, ".")
	switch {
	case e.Detail == "":
	case e.Arg == core.ArgOut || e.Arg == core.ArgNone:
		join(&b, e.Detail, ".")
	case isIndex(e.Detail):
		b.WriteString("[" + e.Detail + "]")
	default:
		join(&b, e.Detail, ".")
	}
	return b.String()
}

// join appends part to b, after sep when b holds something already.
func join(b *strings.Builder, part, sep string) {
	if part == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteString(sep)
	}
	b.WriteString(part)
}

func isIndex(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// callerName is the exported function (tsstore_…) on the calling goroutine's stack: the
// name the debug log and error messages use.
func callerName() string {
	pc := make([]uintptr, 32)
	n := runtime.Callers(2, pc)
	frames := runtime.CallersFrames(pc[:n])
	for {
		f, more := frames.Next()
		if i := strings.LastIndex(f.Function, ".tsstore_"); i >= 0 {
			name, _, _ := strings.Cut(f.Function[i+1:], ".") // not a closure's ".func1"
			return name
		}
		if !more {
			return "call"
		}
	}
}

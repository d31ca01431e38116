package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "export",
		synopsis: "tsstore export [filters] [--start T] [--end T] [--format csv|json] [--header id:name|id] [--out FILE] STORE.nc",
		summary:  "write the selected SingleTimeSeries on their shared grid as wide CSV or JSON",
		help: `Writes the SingleTimeSeries the filters select (all of them without filters), in
insertion order, as the wide CSV import reads: a "timestamp" column, then one column per
series headed OWNER_ID:NAME (--header id:name, the default) or OWNER_ID (--header id,
when every column has one name, as "import --name" reads it back). The series must
share one grid (initial timestamp, resolution and length) and be scalar; --start / --end
(RFC 3339, floored / ceiled onto the grid, inclusive) export part of it. Two series that
would get the same header (other categories or features) are refused: narrow with
--category / --features, e.g. --features '{}' --exact-features for featureless series. Timestamps are written in UTC as 2030-01-01T00:00:00Z.

--format json writes {"resolution", "initial_timestamp", "timestamps", "series": [{
"owner_id", "category", "owner_type", "name", "features", "units", "dtype", "values"}]}
with non-finite floats as the strings "NaN", "+Inf", "-Inf".

` + numberFormatHelp + `

Example:
  tsstore export --owner-type ThermalStandard --name max_active_power --out gens.csv system.nc
  tsstore import --owner-type ThermalStandard copy.nc gens.csv   # reads it back`,
		run: runExport,
	})
}

type exportFlags struct {
	filters            filterFlags
	start, end, header string
	out                string
	format             *formatFlag
}

// exportSet is the selected series read on their shared grid.
type exportSet struct {
	metas  []core.Metadata
	times  []time.Time
	cells  [][]string // [series][step]
	header []string   // column headers after "timestamp"
}

func runExport(e *env, args []string) error {
	fs := e.newFlags()
	var xf exportFlags
	xf.filters.register(fs)
	fs.StringVar(&xf.start, "start", "", "first `timestamp` (RFC 3339) to export")
	fs.StringVar(&xf.end, "end", "", "last `timestamp` (RFC 3339) to export")
	fs.StringVar(&xf.header, "header", "id:name", "CSV column `header` form: id:name or id")
	fs.StringVar(&xf.out, "out", "", "write to `file` instead of stdout")
	xf.format = addFormatFlag(fs, "csv", "json")
	pos, err := e.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := xf.format.check(); err != nil {
		return err
	}
	if xf.header != "id:name" && xf.header != "id" {
		return usagef("--header %q: want id:name or id", xf.header)
	}
	sel, err := exportSelection(&xf.filters)
	if err != nil {
		return err
	}
	from, to, err := exportRange(xf.start, xf.end)
	if err != nil {
		return err
	}
	s, err := openRead(pos[0])
	if err != nil {
		return err
	}
	defer s.Close()
	set, err := readExportSet(s, sel, from, to, xf.header)
	if err != nil {
		return err
	}
	return writeOutput(xf.out, e.stdout, func(w io.Writer) error {
		if xf.format.value == "json" {
			return writeExportJSON(w, set)
		}
		return writeExportCSV(w, set)
	})
}

// exportSelection is the selection restricted to SingleTimeSeries, the one type a wide
// table on a shared grid can hold.
func exportSelection(ff *filterFlags) (selection, error) {
	sel, err := ff.selection()
	if err != nil {
		return sel, err
	}
	sts := core.SingleTimeSeriesType
	if t := sel.filter.Type; t != nil && *t != sts {
		return sel, usagef("--type %s: export writes SingleTimeSeries only (use show for one series of another type)", *t)
	}
	sel.filter.Type = &sts
	return sel, nil
}

func exportRange(start, end string) (from, to *time.Time, err error) {
	for _, r := range []struct {
		flag, value string
		dst         **time.Time
	}{{"--start", start, &from}, {"--end", end, &to}} {
		if r.value == "" {
			continue
		}
		t, err := parseTime(r.flag, r.value)
		if err != nil {
			return nil, nil, err
		}
		*r.dst = &t
	}
	return from, to, nil
}

func readExportSet(s *core.Store, sel selection, from, to *time.Time, headerForm string) (*exportSet, error) {
	metas, err := sel.list(s)
	if err != nil {
		return nil, err
	}
	if len(metas) == 0 {
		return nil, fmt.Errorf("no SingleTimeSeries matches the filters")
	}
	if err := checkSharedGrid(metas); err != nil {
		return nil, err
	}
	header, err := exportHeaders(metas, headerForm)
	if err != nil {
		return nil, err
	}
	keys := make([]core.Key, len(metas))
	for i := range metas {
		keys[i] = metas[i].Key
	}
	var series []core.TimeSeries
	if from == nil && to == nil {
		series, err = s.GetMany(keys)
	} else {
		first, last, serr := staticSpan(s, &metas[0])
		if serr != nil {
			return nil, serr
		}
		if from == nil {
			from = &first
		}
		if to == nil {
			to = &last
		}
		series, err = s.GetManyRange(keys, *from, *to)
	}
	if err != nil {
		return nil, err
	}
	set := &exportSet{metas: metas, header: header, cells: make([][]string, len(series))}
	for i, ts := range series {
		sts := ts.(*core.SingleTimeSeries)
		if i == 0 {
			if set.times, err = gridTimes(sts); err != nil {
				return nil, err
			}
		}
		if set.cells[i], err = formatCells(sts.Data); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// checkSharedGrid refuses series that a single timestamp column cannot describe.
func checkSharedGrid(metas []core.Metadata) error {
	a := &metas[0]
	for i := range metas {
		b := &metas[i]
		if len(b.ElementShape) > 0 {
			return fmt.Errorf("%s has element shape %v: export writes scalar series only", b.Key, b.ElementShape)
		}
		if b.Resolution != a.Resolution || !b.InitialTimestamp.Equal(a.InitialTimestamp) || b.Length != a.Length {
			return fmt.Errorf("the series do not share one grid: %s is %s from %s (%d steps) but %s is %s from %s (%d steps); narrow the filters (e.g. --resolution)",
				a.Key, a.Resolution, formatTime(a.InitialTimestamp), a.Length, b.Key, b.Resolution, formatTime(b.InitialTimestamp), b.Length)
		}
	}
	return nil
}

func exportHeaders(metas []core.Metadata, form string) ([]string, error) {
	if form == "id" {
		// An id-only header reads back under one --name: several names would be lost.
		for i := range metas {
			if metas[i].Name != metas[0].Name {
				return nil, fmt.Errorf("--header id drops the series names, but the selection has %q and %q: use --header id:name or select one --name",
					metas[0].Name, metas[i].Name)
			}
		}
	}
	header := make([]string, len(metas))
	seen := map[string]int{}
	for i := range metas {
		h := strconv.FormatInt(metas[i].OwnerID, 10)
		if form == "id:name" {
			h += ":" + metas[i].Name
		}
		if j, dup := seen[h]; dup {
			hint := "narrow with --category, --features / --exact-features"
			if form == "id" {
				hint += ", --name, or use --header id:name"
			}
			return nil, fmt.Errorf("%s and %s would both be column %q: %s", metas[j].Key, metas[i].Key, h, hint)
		}
		seen[h] = i
		header[i] = h
	}
	return header, nil
}

func gridTimes(s *core.SingleTimeSeries) ([]time.Time, error) {
	times := make([]time.Time, s.Data.Len())
	for i := range times {
		var err error
		if times[i], err = s.Timestamp(i); err != nil {
			return nil, err
		}
	}
	return times, nil
}

// writeOutput sends what write produces to path, or to stdout when path is "".
func writeOutput(path string, stdout io.Writer, write func(io.Writer) error) error {
	dst := stdout
	var f *os.File
	if path != "" {
		var err error
		if f, err = os.Create(path); err != nil {
			return err
		}
		dst = f
	}
	bw := bufio.NewWriterSize(dst, 1<<16)
	err := write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func writeExportCSV(w io.Writer, set *exportSet) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"timestamp"}, set.header...))
	row := make([]string, len(set.cells)+1)
	for i, t := range set.times {
		row[0] = formatTime(t)
		for c := range set.cells {
			row[c+1] = set.cells[c][i]
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

type exportSeriesJSON struct {
	OwnerID   int64           `json:"owner_id"`
	Category  string          `json:"category"`
	OwnerType string          `json:"owner_type"`
	Name      string          `json:"name"`
	Features  json.RawMessage `json:"features"`
	Units     string          `json:"units"`
	DType     string          `json:"dtype"`
	Values    []any           `json:"values"`
}

type exportJSON struct {
	Resolution       string             `json:"resolution"`
	InitialTimestamp string             `json:"initial_timestamp"`
	Timestamps       []string           `json:"timestamps"`
	Series           []exportSeriesJSON `json:"series"`
}

func writeExportJSON(w io.Writer, set *exportSet) error {
	out := exportJSON{Resolution: set.metas[0].Resolution.String(), Timestamps: make([]string, len(set.times))}
	for i, t := range set.times {
		out.Timestamps[i] = formatTime(t)
	}
	if len(set.times) > 0 {
		out.InitialTimestamp = out.Timestamps[0]
	}
	for i := range set.metas {
		m := &set.metas[i]
		vals := make([]any, len(set.cells[i]))
		for j, c := range set.cells[i] {
			vals[j] = jsonNumber(m.DType, c)
		}
		out.Series = append(out.Series, exportSeriesJSON{OwnerID: m.OwnerID, Category: m.OwnerCategory.String(),
			OwnerType: m.OwnerType, Name: m.Name, Features: json.RawMessage(featuresJSON(m.Features)),
			Units: m.Units, DType: m.DType.String(), Values: vals})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}

package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
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
share one grid (initial timestamp, resolution and length); when the selection spans
several, the error lists them and the --resolution / --name that pick one. --start /
--end (RFC 3339, floored / ceiled onto the grid, inclusive) export part of it. Two series
that would get the same header (other categories or features) are refused: narrow with
--category / --features, e.g. --features '{}' --exact-features for featureless series.
Timestamps are written in UTC as 2030-01-01T00:00:00Z.

A series with an element shape (a cost curve of three coefficients per step, shape [3])
gets one column per element, its header suffixed with the element's index in brackets:
5000:variable_cost[0], 5000:variable_cost[1], 5000:variable_cost[2] (shape [2,3]:
NAME[0,0] … NAME[1,2], row-major). import reads such columns back as scalar series of
those names; it does not reassemble the shape.

--format json writes {"resolution", "initial_timestamp", "timestamps", "series": [{
"owner_id", "category", "owner_type", "name", "features", "units", "dtype",
"element_shape", "values"}]} with non-finite floats as the strings "NaN", "+Inf", "-Inf";
a series with an element shape has one nested array per step ([[0.01, 20, 150], …]).

` + numberFormatHelp + `

Example:
  tsstore export --owner-type ThermalStandard --name max_active_power --out gens.csv system.nc
  tsstore import --owner-type ThermalStandard copy.nc gens.csv   # reads it back`,
		run: runExport,
	})
}

// exportFlags are export's flags; check leaves what they select in sel, from and to.
type exportFlags struct {
	filters     filterFlags
	span        spanFlags
	header, out string
	format      *formatFlag
	sel         selection
	from, to    *time.Time
}

// exportSet is the selected series read on their shared grid.
type exportSet struct {
	metas   []core.Metadata
	times   []time.Time
	cells   [][]string // [series][step × elements], row-major
	columns []exportColumn
}

// exportColumn is one CSV column after "timestamp": element elem of series series.
type exportColumn struct {
	header       string
	series, elem int
}

func (xf *exportFlags) register(fs *flag.FlagSet) {
	xf.filters.register(fs)
	xf.span.register(fs, "to export")
	fs.StringVar(&xf.header, "header", "id:name", "CSV column `header` form: id:name or id")
	fs.StringVar(&xf.out, "out", "", "write to `file` instead of stdout")
	xf.format = addFormatFlag(fs, "csv", "json")
}

func (xf *exportFlags) check() (err error) {
	if xf.header != "id:name" && xf.header != "id" {
		return usagef("--header %q: want id:name or id", xf.header)
	}
	if xf.sel, err = exportSelection(&xf.filters); err != nil {
		return err
	}
	xf.from, xf.to, err = xf.span.times()
	return err
}

func runExport(e *env, args []string) error {
	fs := e.newFlags()
	var xf exportFlags
	xf.register(fs)
	s, _, err := e.parseAndOpen(fs, args, xf.format, xf.check)
	if err != nil {
		return err
	}
	defer s.Close()
	set, err := readExportSet(s, xf.sel, xf.from, xf.to, xf.header)
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
	columns, err := exportColumns(metas, headerForm)
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
		first, last, serr := spanBounds(s, &metas[0], from, to)
		if serr != nil {
			return nil, serr
		}
		series, err = s.GetManyRange(keys, first, last)
	}
	if err != nil {
		return nil, err
	}
	set := &exportSet{metas: metas, columns: columns, cells: make([][]string, len(series))}
	for i, ts := range series {
		sts := ts.(*core.SingleTimeSeries)
		if i == 0 {
			if set.times, err = sts.Timestamps(); err != nil {
				return nil, err
			}
		}
		if set.cells[i], err = formatCells(sts.Data); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// checkSharedGrid refuses series that a single timestamp column cannot describe, saying
// which grids the selection spans and how to pick one.
func checkSharedGrid(metas []core.Metadata) error {
	type grid struct {
		key   string
		names []string
		n     int
		res   core.Period
	}
	var grids []*grid
	byKey := map[string]*grid{}
	for i := range metas {
		m := &metas[i]
		k := fmt.Sprintf("%s from %s (%d steps)", m.Resolution, formatTime(m.InitialTimestamp), m.Length)
		g := byKey[k]
		if g == nil {
			g = &grid{key: k, res: m.Resolution}
			byKey[k] = g
			grids = append(grids, g)
		}
		g.n++
		if !slices.Contains(g.names, m.Name) {
			g.names = append(g.names, m.Name)
		}
	}
	if len(grids) == 1 {
		return nil
	}
	var desc, res, names []string
	for _, g := range grids {
		quoted := make([]string, len(g.names))
		for i, n := range g.names {
			quoted[i] = strconv.Quote(n)
		}
		desc = append(desc, fmt.Sprintf("%s: %d series named %s", g.key, g.n, strings.Join(quoted, ", ")))
		if !slices.Contains(res, g.res.String()) {
			res = append(res, g.res.String())
		}
		names = append(names, g.names...)
	}
	var ways []string
	if len(res) == len(grids) {
		ways = append(ways, "--resolution "+strings.Join(res, " or "))
	}
	if len(slices.Compact(slices.Sorted(slices.Values(names)))) == len(names) {
		quoted := make([]string, len(names))
		for i, n := range names {
			quoted[i] = strconv.Quote(n)
		}
		ways = append(ways, "--name "+strings.Join(quoted, " or "))
	}
	hint := "narrow the filters to one grid"
	if len(ways) > 0 {
		hint += ", with " + strings.Join(ways, ", or with ")
	}
	return fmt.Errorf("the series do not share one grid, which a wide table needs: %s; %s", strings.Join(desc, "; "), hint)
}

// exportColumns heads every column: one per series, or one per element of a series with
// an element shape (NAME[0], NAME[1], …).
func exportColumns(metas []core.Metadata, form string) ([]exportColumn, error) {
	if form == "id" {
		// An id-only header reads back under one --name: several names would be lost.
		for i := range metas {
			if metas[i].Name != metas[0].Name {
				return nil, fmt.Errorf("--header id drops the series names, but the selection has %q and %q: use --header id:name or select one --name",
					metas[0].Name, metas[i].Name)
			}
		}
	}
	var cols []exportColumn
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
		eshape := elementShape(&metas[i])
		elems := 1
		for _, d := range eshape {
			elems *= d
		}
		for e := 0; e < elems; e++ {
			cols = append(cols, exportColumn{header: h + elementSuffix(e, eshape), series: i, elem: e})
		}
	}
	return cols, nil
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
	header := []string{"timestamp"}
	for _, c := range set.columns {
		header = append(header, c.header)
	}
	cw.Write(header)
	elems := make([]int, len(set.metas))
	for s := range set.metas {
		elems[s] = len(set.cells[s]) / max(len(set.times), 1)
	}
	row := make([]string, len(set.columns)+1)
	for i, t := range set.times {
		row[0] = formatTime(t)
		for c, col := range set.columns {
			row[c+1] = set.cells[col.series][i*elems[col.series]+col.elem]
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

type exportSeriesJSON struct {
	OwnerID      int64           `json:"owner_id"`
	Category     string          `json:"category"`
	OwnerType    string          `json:"owner_type"`
	Name         string          `json:"name"`
	Features     json.RawMessage `json:"features"`
	Units        string          `json:"units"`
	DType        string          `json:"dtype"`
	ElementShape []int           `json:"element_shape"`
	Values       []any           `json:"values"`
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
		flat := make([]any, len(set.cells[i]))
		for j, c := range set.cells[i] {
			flat[j] = jsonNumber(m.DType, c)
		}
		eshape := elementShape(m)
		vals := flat
		if len(eshape) > 0 {
			vals = nestValues(flat, append([]int{len(set.times)}, eshape...))
		}
		out.Series = append(out.Series, exportSeriesJSON{OwnerID: m.OwnerID, Category: m.OwnerCategory.String(),
			OwnerType: m.OwnerType, Name: m.Name, Features: json.RawMessage(featuresJSON(m.Features)),
			Units: m.Units, DType: m.DType.String(), ElementShape: eshape, Values: vals})
	}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}

// nestValues lays a row-major flat list out as nested lists of the given shape.
func nestValues(flat []any, shape []int) []any {
	if len(shape) == 1 {
		return flat
	}
	inner := len(flat) / max(shape[0], 1)
	out := make([]any, shape[0])
	for i := range out {
		out[i] = nestValues(flat[i*inner:(i+1)*inner], shape[1:])
	}
	return out
}

package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "import",
		synopsis: "tsstore import --owner-type T [flags] STORE.nc FILE.csv|-",
		summary:  "load a CSV (wide or long) as SingleTimeSeries, in one batch (writes)",
		help: `Reads a CSV file (or stdin, "-") and adds one SingleTimeSeries per column (wide) or per
(owner_id, name) (long) to the store, all in one AddBatch: every series or none.

Wide layout: the first column holds the timestamps (any header, e.g. "timestamp"); every
other column is one series, its header naming the owner:
  OWNER_ID        the owner's id; the series is named --name
  OWNER_ID:NAME   the owner's id and the series name (split at the first ':')
Long layout: the header is exactly timestamp,owner_id,name,value and each row is one
step of one series (an empty name means --name); rows may come in any order.
--layout auto picks long when the header is exactly that, wide otherwise.

Timestamps are RFC 3339 (2030-01-01T00:00:00Z, offsets allowed). Every series must be
regular: with --resolution its timestamps must be exactly initial + i·resolution;
without it the resolution is inferred from the first two timestamps (a fixed span, or
whole calendar months when that fits the rows and the fixed span does not) and then
checked against every row. Every cell needs a value. All series get the same owner type,
category, dtype, units and features.

` + numberFormatHelp + `

A progress bar is drawn on stderr only when stderr is a terminal.

Example:
  tsstore import --create --owner-type ThermalStandard --name max_active_power system.nc gens.csv
  # gens.csv:  timestamp,17,18:min_active_power
  #            2030-01-01T00:00:00Z,101.5,20
  #            2030-01-01T01:00:00Z,99.25,20`,
		run: runImport,
	})
}

type importFlags struct {
	ownerType, category, name, resolution, dtype, units, features, layout, compression string
	create                                                                             bool
}

// importSpec is the checked form of the flags.
type importSpec struct {
	owner      core.Owner // ID filled per series
	name       string
	resolution *core.Period
	dtype      core.DType
	opts       *core.AddOptions
	layout     string
}

// parsedSeries is one series read from the file, before it becomes a batch item.
type parsedSeries struct {
	ownerID int64
	name    string
	column  string // where it came from, for messages
	times   []time.Time
	values  core.TypedArray
}

func runImport(e *env, args []string) error {
	fs := e.newFlags()
	var f importFlags
	fs.StringVar(&f.ownerType, "owner-type", "", "the owners' concrete `type` name, e.g. ThermalStandard (required)")
	fs.StringVar(&f.category, "category", "Component", "the owners' `category`: Component or SupplementalAttribute")
	fs.StringVar(&f.name, "name", "", "series `name` for columns / rows that do not give one")
	fs.StringVar(&f.resolution, "resolution", "", "the series' ISO-8601 `period`, e.g. PT1H (default: inferred and checked)")
	fs.StringVar(&f.dtype, "dtype", "f64", "element `dtype`: f64, f32, i64, i32, u64 or bool")
	fs.StringVar(&f.units, "units", "", "units `label` recorded on every series, e.g. MW")
	fs.StringVar(&f.features, "features", "", "features of every series, a flat JSON `object`, e.g. '{\"scenario\":\"high\"}'")
	fs.StringVar(&f.layout, "layout", "auto", "CSV `layout`: auto, wide or long")
	fs.BoolVar(&f.create, "create", false, "create the store when it does not exist")
	fs.StringVar(&f.compression, "compression", "", "with --create: compression `policy`, none or deflate:{0-9}:shuffle|noshuffle (default deflate:3:shuffle)")
	pos, err := e.parse(fs, args, 2, 2)
	if err != nil {
		return err
	}
	spec, err := f.spec()
	if err != nil {
		return err
	}
	createOpts, err := f.createOptions()
	if err != nil {
		return err
	}
	storePath, input := pos[0], pos[1]
	if !f.create {
		// Fail on a missing store before reading what may be a large file.
		if _, err := os.Stat(storePath); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist: pass --create to make a new store there", storePath)
		} else if err != nil {
			return err
		}
	}
	series, bar, err := readImportFile(e, input, spec)
	if err != nil {
		return err
	}
	items, err := batchItems(series, spec)
	if err != nil {
		return err
	}
	bar.stage(fmt.Sprintf("adding %d series in one batch…", len(items)))
	if err := addAll(storePath, f.create, createOpts, items); err != nil {
		return err
	}
	bar.finish()
	_, err = fmt.Fprintf(e.stdout, "imported %d series (%s) into %s\n", len(items), describeSeries(series, items), storePath)
	return err
}

func (f *importFlags) spec() (*importSpec, error) {
	if f.ownerType == "" {
		return nil, usagef("--owner-type is required: the owners' concrete type name, e.g. ThermalStandard")
	}
	cat, err := parseCategory("--category", f.category)
	if err != nil {
		return nil, err
	}
	dt, err := core.ParseDType(f.dtype)
	if err != nil {
		return nil, usagef("--dtype %q: want f64, f32, i64, i32, u64 or bool", f.dtype)
	}
	spec := &importSpec{owner: core.Owner{Type: f.ownerType, Category: cat}, name: f.name, dtype: dt,
		opts: &core.AddOptions{Units: f.units}, layout: f.layout}
	switch f.layout {
	case "auto", "wide", "long":
	default:
		return nil, usagef("--layout %q: want auto, wide or long", f.layout)
	}
	if err := parseGiven(&spec.resolution, "--resolution", f.resolution, parsePeriod); err != nil {
		return nil, err
	}
	if f.features != "" {
		if spec.opts.Features, err = parseFeatures("--features", f.features); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

func (f *importFlags) createOptions() (*core.CreateOptions, error) {
	if f.compression == "" {
		return nil, nil
	}
	if !f.create {
		return nil, usagef("--compression %q applies only with --create", f.compression)
	}
	c, err := core.ParseCompression(f.compression)
	if err != nil {
		return nil, usagef("--compression %q: want none or deflate:{0-9}:shuffle|noshuffle", f.compression)
	}
	return &core.CreateOptions{Compression: &c}, nil
}

func readImportFile(e *env, input string, spec *importSpec) ([]*parsedSeries, *progress, error) {
	var r io.Reader = e.stdin
	var size int64
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
		r = f
	}
	bar := newProgress(e.stderr, size, "reading "+input)
	cr := csv.NewReader(bar.counting(r))
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s is empty: want a header row", input)
		}
		return nil, nil, fmt.Errorf("%s: %v", input, err)
	}
	header = append([]string(nil), header...)
	header[0] = strings.TrimPrefix(header[0], "\ufeff") // the byte-order mark spreadsheets write
	var series []*parsedSeries
	if isLongHeader(header) && spec.layout != "wide" {
		series, err = readLong(cr, spec)
	} else if spec.layout == "long" {
		return nil, nil, fmt.Errorf("%s: --layout long wants the header timestamp,owner_id,name,value, not %q", input, strings.Join(header, ","))
	} else {
		series, err = readWide(cr, header, spec)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", input, err)
	}
	return series, bar, nil
}

func isLongHeader(h []string) bool {
	want := []string{"timestamp", "owner_id", "name", "value"}
	if len(h) != len(want) {
		return false
	}
	for i := range h {
		if !strings.EqualFold(strings.TrimSpace(h[i]), want[i]) {
			return false
		}
	}
	return true
}

// parseColumnHeader reads OWNER_ID or OWNER_ID:NAME.
func parseColumnHeader(h, defaultName string) (int64, string, error) {
	idText, name, hasName := strings.Cut(h, ":")
	id, err := strconv.ParseInt(strings.TrimSpace(idText), 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("want OWNER_ID or OWNER_ID:NAME")
	}
	if !hasName {
		if defaultName == "" {
			return 0, "", fmt.Errorf("names no series and --name is not given (write OWNER_ID:NAME or pass --name)")
		}
		name = defaultName
	}
	if name == "" {
		return 0, "", fmt.Errorf("has an empty series name")
	}
	return id, name, nil
}

func readWide(cr *csv.Reader, header []string, spec *importSpec) ([]*parsedSeries, error) {
	if len(header) < 2 {
		return nil, fmt.Errorf("the header has no series columns after the timestamp column")
	}
	ncol := len(header) - 1
	series := make([]*parsedSeries, ncol)
	builders := make([]columnBuilder, ncol)
	seen := map[string]int{}
	for c := range series {
		h := header[c+1]
		id, name, err := parseColumnHeader(h, spec.name)
		if err != nil {
			return nil, fmt.Errorf("column %d header %q %v", c+2, h, err)
		}
		ident := strconv.FormatInt(id, 10) + ":" + name
		if prev, dup := seen[ident]; dup {
			return nil, fmt.Errorf("column %d header %q is the same series as column %d (owner %d, name %q)", c+2, h, prev, id, name)
		}
		seen[ident] = c + 2
		series[c] = &parsedSeries{ownerID: id, name: name, column: fmt.Sprintf("column %d %q", c+2, h)}
		builders[c] = newColumnBuilder(spec.dtype, 64)
	}
	var times []time.Time
	err := eachRow(cr, func(rec []string, line int, t time.Time) error {
		times = append(times, t)
		for c, b := range builders {
			if err := addCell(b, rec[c+1]); err != nil {
				return fmt.Errorf("line %d, %s: %v", line, series[c].column, err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for c, s := range series {
		s.times = times
		s.values = builders[c].array()
	}
	return series, nil
}

// eachRow reads every data row after the header (wide and long alike), parses its
// timestamp (the first column) and hands the row, its line number and the instant to fn.
// A file with no data row is an error.
func eachRow(cr *csv.Reader, fn func(rec []string, line int, t time.Time) error) error {
	rows := 0
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		line, _ := cr.FieldPos(0)
		t, err := core.ParseTimestamp(strings.TrimSpace(rec[0]))
		if err != nil {
			return fmt.Errorf("line %d: timestamp %q is not RFC 3339", line, rec[0])
		}
		if err := fn(rec, line, t); err != nil {
			return err
		}
		rows++
	}
	if rows == 0 {
		return fmt.Errorf("no data rows after the header")
	}
	return nil
}

func addCell(b columnBuilder, cell string) error {
	cell = strings.TrimSpace(cell)
	if cell == "" {
		return fmt.Errorf("empty cell: every step needs a value")
	}
	if err := b.add(cell); err != nil {
		return fmt.Errorf("%q is %v", cell, err)
	}
	return nil
}

// longRow is one step of a long-layout series, kept until its series is sorted.
type longRow struct {
	t    time.Time
	cell string
	line int
}

func readLong(cr *csv.Reader, spec *importSpec) ([]*parsedSeries, error) {
	type group struct {
		s    *parsedSeries
		rows []longRow
	}
	var order []*group
	groups := map[string]*group{}
	err := eachRow(cr, func(rec []string, line int, t time.Time) error {
		id, err := strconv.ParseInt(strings.TrimSpace(rec[1]), 10, 64)
		if err != nil {
			return fmt.Errorf("line %d: owner_id %q is not a whole number", line, rec[1])
		}
		name := rec[2]
		if name == "" {
			if name = spec.name; name == "" {
				return fmt.Errorf("line %d: empty name and --name is not given", line)
			}
		}
		ident := strconv.FormatInt(id, 10) + ":" + name
		g, ok := groups[ident]
		if !ok {
			g = &group{s: &parsedSeries{ownerID: id, name: name, column: fmt.Sprintf("series %q of owner %d", name, id)}}
			groups[ident] = g
			order = append(order, g)
		}
		g.rows = append(g.rows, longRow{t: t, cell: rec[3], line: line})
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]*parsedSeries, len(order))
	for i, g := range order {
		if err := fillLong(g.s, g.rows, spec.dtype); err != nil {
			return nil, err
		}
		out[i] = g.s
	}
	return out, nil
}

// fillLong sorts one series' rows by time and parses its values.
func fillLong(s *parsedSeries, rows []longRow, dt core.DType) error {
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].t.Before(rows[j].t) })
	b := newColumnBuilder(dt, len(rows))
	s.times = make([]time.Time, len(rows))
	for i, r := range rows {
		if i > 0 && r.t.Equal(rows[i-1].t) {
			return fmt.Errorf("line %d: %s has timestamp %s twice (also line %d)", r.line, s.column, formatTime(r.t), rows[i-1].line)
		}
		s.times[i] = r.t
		if err := addCell(b, r.cell); err != nil {
			return fmt.Errorf("line %d, %s: %v", r.line, s.column, err)
		}
	}
	s.values = b.array()
	return nil
}

// batchItems checks each series' timeline and makes the batch.
func batchItems(series []*parsedSeries, spec *importSpec) ([]core.BatchItem, error) {
	items := make([]core.BatchItem, len(series))
	var lastTimes []time.Time
	var lastRes core.Period
	for i, s := range series {
		var res core.Period
		// Wide columns share one timeline: check it once, not once per column.
		if i > 0 && sameSlice(s.times, lastTimes) {
			res = lastRes
		} else {
			var err error
			if res, err = timelineResolution(s.times, spec.resolution); err != nil {
				return nil, fmt.Errorf("%s: %v", s.column, err)
			}
		}
		lastTimes, lastRes = s.times, res
		owner := spec.owner
		owner.ID = s.ownerID
		items[i] = core.BatchItem{Owner: owner, Options: spec.opts, Series: &core.SingleTimeSeries{
			Name: s.name, InitialTimestamp: s.times[0], Resolution: res, Data: s.values}}
	}
	return items, nil
}

func sameSlice(a, b []time.Time) bool {
	return len(a) > 0 && len(a) == len(b) && &a[0] == &b[0]
}

// timelineResolution returns the resolution of a regular timeline: the given one, checked
// against every instant, or the one core infers from the instants (core.InferResolution:
// the fixed span of the first two, or whole calendar months when only that fits).
func timelineResolution(times []time.Time, given *core.Period) (core.Period, error) {
	if given != nil {
		if err := core.CheckResolution(times, *given); err != nil {
			return core.Period{}, fmt.Errorf("%s (fix the file, or pass the --resolution it has)", coreMessage(err))
		}
		return *given, nil
	}
	if len(times) < 2 {
		return core.Period{}, fmt.Errorf("one timestamp does not give a resolution: pass --resolution")
	}
	p, err := core.InferResolution(times)
	if err != nil {
		return core.Period{}, fmt.Errorf("%s (pass --resolution or fix the file)", coreMessage(err))
	}
	return p, nil
}

// addAll opens (or creates) the store and adds every item in one AddBatch.
func addAll(path string, create bool, opts *core.CreateOptions, items []core.BatchItem) error {
	var s *core.Store
	var err error
	_, statErr := os.Stat(path)
	switch {
	case create && errors.Is(statErr, os.ErrNotExist):
		s, err = core.Create(path, opts)
	case opts != nil:
		return usagef("--compression applies only when --create makes a new store; %s exists", path)
	default:
		s, err = core.Open(path)
	}
	if err != nil {
		return err
	}
	_, err = s.AddBatch(items)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	return err
}

func describeSeries(series []*parsedSeries, items []core.BatchItem) string {
	if len(series) == 0 {
		return "none"
	}
	first := items[0].Series.(*core.SingleTimeSeries)
	for _, it := range items[1:] {
		sts := it.Series.(*core.SingleTimeSeries)
		if sts.Resolution != first.Resolution || sts.Data.Len() != first.Data.Len() || !sts.InitialTimestamp.Equal(first.InitialTimestamp) {
			return "on several grids"
		}
	}
	return fmt.Sprintf("%d steps at %s from %s", first.Data.Len(), first.Resolution, formatTime(first.InitialTimestamp))
}

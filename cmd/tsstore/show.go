package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "show",
		synopsis: "tsstore show [filters] [--start T] [--end T] [--window T] [--format table|csv|json] [--plot FILE.svg|FILE.png] STORE.nc",
		summary:  "print one series with its timestamps, a sparkline and optionally a chart",
		help: `Prints one series: the filters must select exactly one key (say which one with
--owner-id, --name, --type, --resolution, --features …). Without --type, a static series
is preferred over the DeterministicSingleTimeSeries derived from it (a transform's views
share its owner, name and resolution); pass --type DeterministicSingleTimeSeries to see
a view. When several series still match, the error lists them and the flags, with their
values, that tell them apart.

The table format prints the key, one row per step and a sparkline per column; csv
prints "timestamp,<columns>"; json prints {"key", "window", "columns", "timestamps",
"values"} with values one array per step (non-finite floats as the strings "NaN",
"+Inf", "-Inf").

A series with an element shape has one column per element (value[0], value[1], …), a
Probabilistic forecast one per percentile (p=0.1, …), Scenarios one per scenario (s1, …).

--start / --end (RFC 3339) narrow a static series: for a SingleTimeSeries both are
floored / ceiled onto its grid and inclusive, for a NonSequentialTimeSeries the range is
[start, end). A forecast shows one window: the one starting at --window, or the first.
--plot writes a line chart of the rows shown, as SVG or PNG by the file's extension: one
line per column against a time axis in UTC dates, round value ticks, the key as title,
the series name and units on the value axis, and a legend naming every column.

Example:
  tsstore show --owner-id 17 --name max_active_power --start 2030-01-01T00:00:00Z --end 2030-01-07T23:00:00Z system.nc
  tsstore show --owner-id 17 --type Deterministic --window 2030-01-08T00:00:00Z --plot day8.svg system.nc`,
		run: runShow,
	})
}

// seriesView is what show prints: one row of cells per timestamp, one column per
// element (× percentile or scenario), and the same values as floats for the plots.
type seriesView struct {
	meta    *core.Metadata
	window  time.Time // zero unless a forecast
	labels  []string
	times   []time.Time
	cells   [][]string  // [step][column]
	columns [][]float64 // [column][step]
}

// showFlags are show's flags; check leaves the filters' selection in sel.
type showFlags struct {
	filters    filterFlags
	span       spanFlags
	wind, plot string
	format     *formatFlag
	sel        selection
}

func (sf *showFlags) register(fs *flag.FlagSet) {
	sf.filters.register(fs)
	sf.span.register(fs, "of a static series")
	fs.StringVar(&sf.wind, "window", "", "start `timestamp` (RFC 3339) of the forecast window to show (default: the first)")
	fs.StringVar(&sf.plot, "plot", "", "also write a line chart to `file` (.svg or .png)")
	sf.format = addFormatFlag(fs, "table", "csv", "json")
}

func (sf *showFlags) check() (err error) {
	if err := checkPlotPath(sf.plot); err != nil {
		return err
	}
	sf.sel, err = sf.filters.selection()
	return err
}

func runShow(e *env, args []string) error {
	fs := e.newFlags()
	var sf showFlags
	sf.register(fs)
	s, _, err := e.parseAndOpen(fs, args, sf.format, sf.check)
	if err != nil {
		return err
	}
	defer s.Close()
	meta, err := selectOne(s, sf.sel)
	if err != nil {
		return err
	}
	view, err := readView(s, meta, &sf)
	if err != nil {
		return err
	}
	if sf.plot != "" {
		if err := writePlot(sf.plot, view); err != nil {
			return err
		}
	}
	switch sf.format.value {
	case "csv":
		return writeViewCSV(e.stdout, view)
	case "json":
		return writeViewJSON(e.stdout, view)
	}
	return writeViewTable(e.stdout, view)
}

func checkPlotPath(p string) error {
	if p == "" {
		return nil
	}
	switch strings.ToLower(filepath.Ext(p)) {
	case ".svg", ".png":
		return nil
	}
	return usagef("--plot %q: the file name must end in .svg or .png", p)
}

func readView(s *core.Store, m *core.Metadata, sf *showFlags) (*seriesView, error) {
	isForecast := m.Type != core.SingleTimeSeriesType && m.Type != core.NonSequentialTimeSeriesType
	if isForecast {
		if sf.span.start != "" || sf.span.end != "" {
			return nil, usagef("--start/--end select steps of a static series; %s is a forecast: use --window", m.Type)
		}
		return readWindowView(s, m, sf.wind)
	}
	if sf.wind != "" {
		return nil, usagef("--window selects a forecast window; %s is a static series: use --start/--end", m.Type)
	}
	ts, err := readStatic(s, m, &sf.span)
	if err != nil {
		return nil, err
	}
	switch v := ts.(type) {
	case *core.SingleTimeSeries:
		times, err := v.Timestamps()
		if err != nil {
			return nil, err
		}
		return newView(m, times, v.Data, 1, nil)
	case *core.NonSequentialTimeSeries:
		return newView(m, v.Timestamps, v.Data, 1, nil)
	}
	return nil, fmt.Errorf("unexpected series %T", ts)
}

// readStatic reads a whole static series, or the part --start/--end select (a missing
// end is the series' last instant, a missing start its first).
func readStatic(s *core.Store, m *core.Metadata, span *spanFlags) (core.TimeSeries, error) {
	if span.start == "" && span.end == "" {
		return s.Get(m.Key)
	}
	from, to, err := span.times()
	if err != nil {
		return nil, err
	}
	first, last, err := spanBounds(s, m, from, to)
	if err != nil {
		return nil, err
	}
	return s.GetRange(m.Key, first, last)
}

// spanBounds is the part of a static series that --start / --end select; an end not given
// is the series' own (staticSpan).
func spanBounds(s *core.Store, m *core.Metadata, from, to *time.Time) (time.Time, time.Time, error) {
	if from != nil && to != nil {
		return *from, *to, nil
	}
	first, last, err := staticSpan(s, m)
	if from != nil {
		first = *from
	}
	if to != nil {
		last = *to
	}
	return first, last, err
}

// staticSpan is a static series' first instant and an end past every step, so an open
// end includes the last step under both GetRange conventions (inclusive and half-open).
func staticSpan(s *core.Store, m *core.Metadata) (time.Time, time.Time, error) {
	if m.Type == core.SingleTimeSeriesType {
		last, err := m.Resolution.Step(m.InitialTimestamp, int64(m.Length-1))
		return m.InitialTimestamp, last, err
	}
	ts, err := s.Get(m.Key)
	if err != nil {
		return time.Time{}, time.Time{}, err
	}
	stamps := ts.(*core.NonSequentialTimeSeries).Timestamps
	return stamps[0], stamps[len(stamps)-1].Add(time.Nanosecond), nil
}

func readWindowView(s *core.Store, m *core.Metadata, window string) (*seriesView, error) {
	start := m.InitialTimestamp
	if window != "" {
		var err error
		if start, err = parseTime("--window", window); err != nil {
			return nil, err
		}
	}
	fc, err := s.GetWindow(m.Key, start)
	if err != nil {
		return nil, err
	}
	data, err := fc.Window(0)
	if err != nil {
		return nil, err
	}
	times, err := core.GridTimestamps(start, m.Resolution, fc.Grid().Steps())
	if err != nil {
		return nil, err
	}
	layers, layerLabels := 1, []string(nil)
	switch f := fc.(type) {
	case *core.Probabilistic:
		layers = len(f.Percentiles)
		for _, p := range f.Percentiles {
			layerLabels = append(layerLabels, "p="+formatFloat(p))
		}
	case *core.Scenarios:
		layers = data.Shape[0]
		for i := 0; i < layers; i++ {
			layerLabels = append(layerLabels, "s"+strconv.Itoa(i+1))
		}
	}
	v, err := newView(m, times, data, layers, layerLabels)
	if v != nil {
		v.window = start
	}
	return v, err
}

// newView lays out data as [layers, steps, *E] (layers 1 for an unlayered series).
func newView(m *core.Metadata, times []time.Time, data core.TypedArray, layers int, layerLabels []string) (*seriesView, error) {
	cells, err := formatCells(data)
	if err != nil {
		return nil, err
	}
	nums, err := floatValues(data)
	if err != nil {
		return nil, err
	}
	eshape := elementShape(m)
	elems := 1
	for _, d := range eshape {
		elems *= d
	}
	steps := len(times)
	if len(cells) != layers*steps*elems {
		return nil, fmt.Errorf("array of %d values does not hold %d layers × %d steps × %d elements", len(cells), layers, steps, elems)
	}
	v := &seriesView{meta: m, times: times, labels: columnLabels(layers, layerLabels, eshape)}
	ncol := layers * elems
	v.cells = make([][]string, steps)
	v.columns = make([][]float64, ncol)
	for c := range v.columns {
		v.columns[c] = make([]float64, steps)
	}
	for i := 0; i < steps; i++ {
		v.cells[i] = make([]string, ncol)
		for l := 0; l < layers; l++ {
			for e := 0; e < elems; e++ {
				src, c := (l*steps+i)*elems+e, l*elems+e
				v.cells[i][c] = cells[src]
				v.columns[c][i] = nums[src]
			}
		}
	}
	return v, nil
}

// columnLabels names each (layer, element) column: "value", "value[1]", "p=0.5",
// "s2[0,1]", …
func columnLabels(layers int, layerLabels []string, eshape []int) []string {
	elems := 1
	for _, d := range eshape {
		elems *= d
	}
	var out []string
	for l := 0; l < layers; l++ {
		base := "value"
		if layerLabels != nil {
			base = layerLabels[l]
		}
		for e := 0; e < elems; e++ {
			out = append(out, base+elementSuffix(e, eshape))
		}
	}
	return out
}

// elementSuffix is the multi-index of flat element e of shape eshape, e.g. "[1,2]".
func elementSuffix(e int, eshape []int) string {
	if len(eshape) == 0 {
		return ""
	}
	idx := make([]string, len(eshape))
	for d := len(eshape) - 1; d >= 0; d-- {
		idx[d] = strconv.Itoa(e % eshape[d])
		e /= eshape[d]
	}
	return "[" + strings.Join(idx, ",") + "]"
}

func writeViewCSV(w io.Writer, v *seriesView) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"timestamp"}, v.labels...))
	for i, t := range v.times {
		cw.Write(append([]string{formatTime(t)}, v.cells[i]...))
	}
	cw.Flush()
	return cw.Error()
}

type viewJSON struct {
	Key        keyRecord `json:"key"`
	Window     string    `json:"window"`
	Columns    []string  `json:"columns"`
	Timestamps []string  `json:"timestamps"`
	Values     [][]any   `json:"values"`
}

func writeViewJSON(w io.Writer, v *seriesView) error {
	out := viewJSON{Key: recordOf(v.meta), Columns: v.labels, Timestamps: make([]string, len(v.times)),
		Values: make([][]any, len(v.times))}
	if !v.window.IsZero() {
		out.Window = formatTime(v.window)
	}
	for i, t := range v.times {
		out.Timestamps[i] = formatTime(t)
		row := make([]any, len(v.cells[i]))
		for c, cell := range v.cells[i] {
			row[c] = jsonNumber(v.meta.DType, cell)
		}
		out.Values[i] = row
	}
	return writeJSON(w, out)
}

func writeViewTable(w io.Writer, v *seriesView) error {
	m := v.meta
	fmt.Fprintf(w, "%s\n", m.Key)
	fmt.Fprintf(w, "owner type %s, dtype %s", m.OwnerType, m.DType)
	if eshape := elementShape(m); len(eshape) > 0 {
		fmt.Fprintf(w, "%s", shapeJSON(eshape))
	}
	if m.Units != "" {
		fmt.Fprintf(w, ", units %s", m.Units)
	}
	fmt.Fprintf(w, ", %d steps shown\n", len(v.times))
	if !v.window.IsZero() {
		fmt.Fprintf(w, "window starting %s (%d windows from %s every %s)\n", formatTime(v.window), m.Count,
			formatTime(m.InitialTimestamp), m.Interval)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "TIMESTAMP\t%s\t\n", strings.Join(v.labels, "\t"))
	for i, t := range v.times {
		fmt.Fprintf(tw, "%s\t%s\t\n", formatTime(t), strings.Join(v.cells[i], "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return writeSparklines(w, v)
}

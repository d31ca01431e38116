package main

import (
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "ls",
		synopsis: "tsstore ls [filters] [--format table|csv|json] STORE.nc",
		summary:  "list series keys, with the library's filters",
		help: `Lists the series the filters select (all of them without filters), in insertion
order. The table shows the key and the main metadata; csv and json add the initial
timestamp, horizon, window count and element shape. length is the number of steps (of
one window, for a forecast) and element_shape the shape of one step's value. In csv and json an absent period
or timestamp is the empty string, features are a JSON object (a JSON string in csv),
and element_shape is a JSON array ([] for a scalar series).

Example:
  tsstore ls --owner-type ThermalStandard --glob 'max_*' system.nc
  tsstore ls --features '{"scenario":"high"}' --format csv system.nc > keys.csv`,
		run: runLs,
	})
}

// keyRecord is one listed series as ls writes it in every format.
type keyRecord struct {
	OwnerID          int64           `json:"owner_id"`
	Category         string          `json:"category"`
	OwnerType        string          `json:"owner_type"`
	Type             string          `json:"type"`
	Name             string          `json:"name"`
	Resolution       string          `json:"resolution"`
	Interval         string          `json:"interval"`
	Features         json.RawMessage `json:"features"`
	InitialTimestamp string          `json:"initial_timestamp"`
	Length           int             `json:"length"`
	Horizon          string          `json:"horizon"`
	Count            int             `json:"count"`
	DType            string          `json:"dtype"`
	ElementShape     []int           `json:"element_shape"`
	Units            string          `json:"units"`
}

var keyCSVHeader = []string{"owner_id", "category", "owner_type", "type", "name", "resolution", "interval",
	"features", "initial_timestamp", "length", "horizon", "count", "dtype", "element_shape", "units"}

// lsFlags are ls's flags; check leaves the filters' selection in sel.
type lsFlags struct {
	filters filterFlags
	format  *formatFlag
	sel     selection
}

func (lf *lsFlags) register(fs *flag.FlagSet) {
	lf.filters.register(fs)
	lf.format = addFormatFlag(fs, "table", "csv", "json")
}

func (lf *lsFlags) check() (err error) {
	lf.sel, err = lf.filters.selection()
	return err
}

func runLs(e *env, args []string) error {
	fs := e.newFlags()
	var lf lsFlags
	lf.register(fs)
	s, _, err := e.parseAndOpen(fs, args, lf.format, lf.check)
	if err != nil {
		return err
	}
	defer s.Close()
	metas, err := lf.sel.list(s)
	if err != nil {
		return err
	}
	recs := make([]keyRecord, len(metas))
	for i := range metas {
		recs[i] = recordOf(&metas[i])
	}
	switch lf.format.value {
	case "csv":
		return writeKeysCSV(e.stdout, recs)
	case "json":
		return writeJSON(e.stdout, recs)
	}
	return writeKeysTable(e.stdout, recs)
}

func recordOf(m *core.Metadata) keyRecord {
	r := keyRecord{OwnerID: m.OwnerID, Category: m.OwnerCategory.String(), OwnerType: m.OwnerType,
		Type: m.Type.String(), Name: m.Name, Resolution: periodText(m.Resolution), Interval: periodText(m.Interval),
		Features: json.RawMessage(featuresJSON(m.Features)), Length: stepCount(m), Horizon: periodText(m.Horizon),
		Count: m.Count, DType: m.DType.String(), ElementShape: elementShape(m), Units: m.Units}
	if !m.InitialTimestamp.IsZero() {
		r.InitialTimestamp = formatTime(m.InitialTimestamp)
	}
	return r
}

// elementShape is the shape of one step's value. core.Metadata.ElementShape is the stored
// array's shape after its first axis, which for a dense forecast still holds the window
// axes: [Count, *E] for a Deterministic ([H, Count, *E] stored), [H, Count, *E] for a
// Probabilistic or Scenarios ([P|S, H, Count, *E] stored).
func elementShape(m *core.Metadata) []int {
	shape := m.ElementShape
	switch m.Type {
	case core.DeterministicType:
		shape = shape[min(1, len(shape)):]
	case core.ProbabilisticType, core.ScenariosType:
		shape = shape[min(2, len(shape)):]
	}
	return append([]int{}, shape...)
}

// stepCount is the number of steps of a static series, or of one window of a forecast
// (core.Metadata.Length is the stored array's first axis: H, P or S, or a view's source
// length).
func stepCount(m *core.Metadata) int {
	if m.Type == core.SingleTimeSeriesType || m.Type == core.NonSequentialTimeSeriesType {
		return m.Length
	}
	h, _ := m.Horizon.Ratio(m.Resolution)
	return int(h)
}

// periodText is a period's canonical spelling, or "" for the zero period ("none").
func periodText(p core.Period) string {
	if p.IsZero() {
		return ""
	}
	return p.String()
}

func featuresJSON(f core.Features) string {
	if f == nil {
		return "{}"
	}
	return f.JSON()
}

func shapeJSON(shape []int) string {
	b, _ := json.Marshal(shape)
	return string(b)
}

func writeKeysCSV(w io.Writer, recs []keyRecord) error {
	cw := csv.NewWriter(w)
	cw.Write(keyCSVHeader)
	for _, r := range recs {
		cw.Write([]string{strconv.FormatInt(r.OwnerID, 10), r.Category, r.OwnerType, r.Type, r.Name, r.Resolution,
			r.Interval, string(r.Features), r.InitialTimestamp, strconv.Itoa(r.Length), r.Horizon,
			strconv.Itoa(r.Count), r.DType, shapeJSON(r.ElementShape), r.Units})
	}
	cw.Flush()
	return cw.Error()
}

func writeKeysTable(w io.Writer, recs []keyRecord) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "OWNER_ID\tCATEGORY\tOWNER_TYPE\tTYPE\tNAME\tRESOLUTION\tINTERVAL\tLENGTH\tDTYPE\tUNITS\tFEATURES")
	for _, r := range recs {
		dtype := r.DType
		if len(r.ElementShape) > 0 {
			dtype += shapeJSON(r.ElementShape)
		}
		feats := string(r.Features)
		if feats == "{}" {
			feats = ""
		}
		cells := []string{strconv.FormatInt(r.OwnerID, 10), r.Category, r.OwnerType, r.Type, r.Name,
			r.Resolution, r.Interval, strconv.Itoa(r.Length), dtype, r.Units, feats}
		for i, c := range cells {
			if c == "" {
				cells[i] = "-"
			}
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "%d series\n", len(recs))
	return err
}

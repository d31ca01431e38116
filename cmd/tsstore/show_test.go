package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

// showJSON is show --format json parsed back.
type showJSON struct {
	Key        keyRecord       `json:"key"`
	Window     string          `json:"window"`
	Columns    []string        `json:"columns"`
	Timestamps []string        `json:"timestamps"`
	Values     [][]json.Number `json:"values"`
}

func showArgs(path string, args ...string) []string {
	return append(append([]string{"show"}, args...), path)
}

// checkShowCSV checks show --format csv against timestamps and one column per want.
func checkShowCSV(t *testing.T, out string, columns []string, times []time.Time, want [][]float64) {
	t.Helper()
	recs := parseCSV(t, out)
	if !slices.Equal(recs[0], append([]string{"timestamp"}, columns...)) {
		t.Fatalf("csv header %v, want timestamp + %v", recs[0], columns)
	}
	if len(recs)-1 != len(times) {
		t.Fatalf("csv has %d rows, want %d", len(recs)-1, len(times))
	}
	for i, row := range recs[1:] {
		if row[0] != formatTime(times[i]) {
			t.Errorf("row %d timestamp %s, want %s", i, row[0], formatTime(times[i]))
		}
		for c := range columns {
			if row[c+1] != fmtFloat(want[c][i]) {
				t.Errorf("row %d column %s = %s, want %v", i, columns[c], row[c+1], want[c][i])
			}
		}
	}
}

func hours(from time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = from.Add(time.Duration(i) * time.Hour)
	}
	return out
}

func TestShowSingleTimeSeries(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	sel := []string{"--owner-id", "2", "--name", "max_active_power"}
	checkShowCSV(t, ok(t, showArgs(fx.path, append(sel, "--format", "csv")...)...), []string{"value"}, hours(t0, steps),
		[][]float64{fx.gens[2]})

	var js showJSON
	parseJSON(t, ok(t, showArgs(fx.path, append(sel, "--format", "json")...)...), &js)
	if js.Key.OwnerID != 2 || js.Key.Name != "max_active_power" || js.Key.Units != "MW" || js.Window != "" ||
		!slices.Equal(js.Columns, []string{"value"}) || len(js.Values) != steps {
		t.Fatalf("show json %+v", js)
	}
	for i, row := range js.Values {
		if v, _ := row[0].Float64(); v != fx.gens[2][i] || js.Timestamps[i] != formatTime(t0.Add(time.Duration(i)*time.Hour)) {
			t.Errorf("json step %d: %s %v, want %v", i, js.Timestamps[i], row, fx.gens[2][i])
		}
	}

	table := ok(t, showArgs(fx.path, sel...)...)
	for _, want := range []string{`SingleTimeSeries "max_active_power" of Component 2 at PT1H`, "units MW", "TIMESTAMP", "value",
		formatTime(t0), fmtFloat(fx.gens[2][47]), "min ", "max "} {
		if !strings.Contains(table, want) {
			t.Errorf("show table lacks %q:\n%s", want, table)
		}
	}
	if !strings.ContainsAny(table, sparkBlocks) {
		t.Errorf("show table has no sparkline:\n%s", table)
	}

	// A range is floored / ceiled onto the grid, both ends inclusive.
	rng := append(sel, "--format", "csv", "--start", "2030-01-01T02:30:00Z", "--end", "2030-01-01T05:10:00+00:00")
	checkShowCSV(t, ok(t, showArgs(fx.path, rng...)...), []string{"value"}, hours(t0.Add(2*time.Hour), 5),
		[][]float64{fx.gens[2][2:7]})
	open := append(sel, "--format", "csv", "--start", "2030-01-02T20:00:00Z")
	checkShowCSV(t, ok(t, showArgs(fx.path, open...)...), []string{"value"}, hours(t0.Add(44*time.Hour), 4),
		[][]float64{fx.gens[2][44:]})
	upTo := append(sel, "--format", "csv", "--end", "2030-01-01T01:00:00Z")
	checkShowCSV(t, ok(t, showArgs(fx.path, upTo...)...), []string{"value"}, hours(t0, 2), [][]float64{fx.gens[2][:2]})

	// Features and an element shape: one column per element.
	checkShowCSV(t, ok(t, showArgs(fx.path, "--owner-id", "1", "--features", `{"scenario":"high"}`, "--format", "csv")...),
		[]string{"value"}, hours(t0, steps), [][]float64{fx.high})
	even, odd := make([]float64, steps), make([]float64, steps)
	for i := range even {
		even[i], odd[i] = fx.cost[2*i], fx.cost[2*i+1]
	}
	checkShowCSV(t, ok(t, showArgs(fx.path, "--owner-id", "6", "--format", "csv")...), []string{"value[0]", "value[1]"},
		hours(t0, steps), [][]float64{even, odd})

	// Integers are printed as integers.
	recs := parseCSV(t, ok(t, showArgs(fx.path, "--owner-id", "5", "--format", "csv")...))
	for i, row := range recs[1:] {
		if row[1] != []string{"0", "1", "2"}[fx.status[i]] {
			t.Fatalf("status row %d = %q", i, row[1])
		}
	}
}

func TestShowNonSequential(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	sel := []string{"--owner-id", "7", "--format", "csv"}
	checkShowCSV(t, ok(t, showArgs(fx.path, sel...)...), []string{"value"}, fx.outTimes, [][]float64{fx.outVals})
	// Half-open [start, end): the step at 2030-01-01T10:00 is in, the one at 30:00 is not.
	rng := append(sel, "--start", "2030-01-01T04:00:00Z", "--end", "2030-01-02T06:00:00Z")
	checkShowCSV(t, ok(t, showArgs(fx.path, rng...)...), []string{"value"}, fx.outTimes[1:2], [][]float64{fx.outVals[1:2]})
	tail := append(sel, "--start", "2030-01-01T04:00:00Z")
	checkShowCSV(t, ok(t, showArgs(fx.path, tail...)...), []string{"value"}, fx.outTimes[1:], [][]float64{fx.outVals[1:]})
}

// window extracts window w of layer l from a stored [layers, H, count] array.
func window(data []float64, l, w, h, count int) []float64 {
	out := make([]float64, h)
	for i := range out {
		out[i] = data[(l*h+i)*count+w]
	}
	return out
}

func TestShowForecasts(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	day2 := t0.Add(24 * time.Hour)
	det := []string{"--owner-id", "1", "--type", "Deterministic", "--format", "csv"}
	checkShowCSV(t, ok(t, showArgs(fx.path, det...)...), []string{"value"}, hours(t0, 4), [][]float64{window(fx.det, 0, 0, 4, 2)})
	checkShowCSV(t, ok(t, showArgs(fx.path, append(det, "--window", "2030-01-02T00:00:00Z")...)...), []string{"value"},
		hours(day2, 4), [][]float64{window(fx.det, 0, 1, 4, 2)})
	checkShowCSV(t, ok(t, showArgs(fx.path, "--owner-id", "2", "--type", "Probabilistic", "--window", "2030-01-02T00:00:00Z", "--format", "csv")...),
		[]string{"p=0.1", "p=0.5", "p=0.9"}, hours(day2, 4),
		[][]float64{window(fx.prob, 0, 1, 4, 2), window(fx.prob, 1, 1, 4, 2), window(fx.prob, 2, 1, 4, 2)})
	checkShowCSV(t, ok(t, showArgs(fx.path, "--owner-id", "3", "--type", "Scenarios", "--format", "csv")...),
		[]string{"s1", "s2"}, hours(t0, 4), [][]float64{window(fx.scen, 0, 0, 4, 2), window(fx.scen, 1, 0, 4, 2)})

	// DeterministicSingleTimeSeries: views over a SingleTimeSeries, read as windows of it.
	dst := filepath.Join(t.TempDir(), "dst.nc")
	src := wave(4, 2*steps)
	func() {
		forkMu.Lock()
		defer forkMu.Unlock()
		s, err := core.Create(dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(gen(4), series("pq", core.ArrayOf(src, steps, 2)), nil); err != nil {
			t.Fatal(err)
		}
		if _, err := s.TransformSingleTimeSeries(core.Hours(4), core.Hours(24), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	p0, q0 := make([]float64, 4), make([]float64, 4)
	for h := range p0 {
		p0[h], q0[h] = src[2*(24+h)], src[2*(24+h)+1]
	}
	checkShowCSV(t, ok(t, showArgs(dst, "--type", "DeterministicSingleTimeSeries", "--window", "2030-01-02T00:00:00Z", "--format", "csv")...),
		[]string{"value[0]", "value[1]"}, hours(day2, 4), [][]float64{p0, q0})
	var keys []keyRecord
	parseJSON(t, ok(t, "ls", "--format", "json", "--type", "AbstractDeterministic", dst), &keys)
	if len(keys) != 1 || keys[0].Length != 4 || keys[0].Count != 2 || !slices.Equal(keys[0].ElementShape, []int{2}) {
		t.Errorf("ls of the view: %+v", keys)
	}

	var js showJSON
	parseJSON(t, ok(t, showArgs(fx.path, "--owner-id", "2", "--type", "Probabilistic", "--format", "json")...), &js)
	if js.Window != formatTime(t0) || len(js.Values) != 4 || len(js.Values[0]) != 3 || js.Key.Count != 2 || js.Key.Length != 4 {
		t.Fatalf("probabilistic json %+v", js)
	}
	for l := 0; l < 3; l++ {
		want := window(fx.prob, l, 0, 4, 2)
		for h := 0; h < 4; h++ {
			if v, _ := js.Values[h][l].Float64(); v != want[h] {
				t.Errorf("json step %d layer %d = %v, want %v", h, l, v, want[h])
			}
		}
	}
	table := ok(t, showArgs(fx.path, "--owner-id", "3", "--type", "Scenarios")...)
	for _, want := range []string{"window starting 2030-01-01T00:00:00Z", "2 windows", "s1", "s2"} {
		if !strings.Contains(table, want) {
			t.Errorf("scenarios table lacks %q:\n%s", want, table)
		}
	}
}

// TestShowPlot: SVG and PNG come from one renderer that draws text — a title naming the
// series, axis labels, dates on the time axis, round value ticks and a legend naming every
// column — and a line per column.
func TestShowPlot(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	dir := t.TempDir()
	svgPath, pngPath := filepath.Join(dir, "p.svg"), filepath.Join(dir, "p.PNG")
	ok(t, showArgs(fx.path, "--owner-id", "2", "--type", "Probabilistic", "--plot", svgPath, "--format", "csv")...)
	ok(t, showArgs(fx.path, "--owner-id", "6", "--plot", pngPath)...)

	data, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	texts, strokes := svgContent(t, data)
	joined := strings.Join(texts, "|")
	for _, want := range []string{`Probabilistic "load_quantiles" of Component 2 at PT1H every P1D`, "window from " + formatTime(t0),
		"time (UTC)", "load_quantiles", "p=0.1", "p=0.5", "p=0.9", "2030-01-01", "00:00", "03:00"} {
		if !slices.Contains(texts, want) {
			t.Errorf("svg texts %q lack %q", joined, want)
		}
	}
	checkRoundTicks(t, texts)
	// Each percentile is drawn in its own colour, as a line and as its legend sample.
	for _, c := range palette[:3] {
		if hex := fmt.Sprintf("#%02X%02X%02X", c.R, c.G, c.B); strokes[hex] < 2 {
			t.Errorf("colour %s stroked %d times, want a line and a legend sample", hex, strokes[hex])
		}
	}

	f, err := os.ReadFile(pngPath)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(f))
	if err != nil {
		t.Fatalf("plot is not a PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 600 || b.Dy() < 300 {
		t.Errorf("png is %v", b)
	}
	// Text is dark grey to black, the lines are coloured: the title band, the time axis
	// labels and the legend column all hold text, and the plot area holds both lines.
	dark := func(x0, y0, x1, y1 int) int {
		n := 0
		for y := y0; y < y1; y++ {
			for x := x0; x < x1; x++ {
				if r, g, bl, _ := img.At(x, y).RGBA(); r < 0x4000 && g < 0x4000 && bl < 0x4000 {
					n++
				}
			}
		}
		return n
	}
	w, h := b.Dx(), b.Dy()
	for _, band := range []struct {
		name           string
		x0, y0, x1, y1 int
	}{{"title", w / 4, 0, 3 * w / 4, h / 12}, {"time axis labels", w / 10, 11 * h / 12, 4 * w / 5, h}, {"legend", 5 * w / 6, 0, w, h / 4}} {
		if n := dark(band.x0, band.y0, band.x1, band.y1); n < 50 {
			t.Errorf("png %s: %d dark pixels, want text", band.name, n)
		}
	}
	colored := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			for _, c := range palette[:2] {
				if r>>8 == uint32(c.R) && g>>8 == uint32(c.G) && bl>>8 == uint32(c.B) {
					colored[c]++
				}
			}
		}
	}
	if len(colored) != 2 || colored[palette[0]] < 100 || colored[palette[1]] < 100 {
		t.Errorf("png line pixels per colour %v: want both of owner 6's cost columns drawn", colored)
	}
}

// svgContent returns every text of an SVG and how often each colour strokes a path.
func svgContent(t *testing.T, data []byte) ([]string, map[string]int) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var texts []string
	strokes := map[string]int{}
	inText := false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("plot is not XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			inText = el.Name.Local == "text"
			for _, a := range el.Attr {
				if a.Name.Local == "style" {
					if _, after, ok := strings.Cut(a.Value, "stroke:"); ok && el.Name.Local == "path" {
						strokes[strings.SplitN(after, ";", 2)[0]]++
					}
				}
			}
		case xml.CharData:
			if inText {
				texts = append(texts, string(el))
			}
		case xml.EndElement:
			inText = false
		}
	}
	return texts, strokes
}

// checkRoundTicks finds the numeric labels of the value axis: at least three, evenly
// spaced by 1, 2, 2.5 or 5 times a power of ten, each a multiple of that step.
func checkRoundTicks(t *testing.T, texts []string) {
	t.Helper()
	var vals []float64
	for _, s := range texts {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			vals = append(vals, v)
		}
	}
	if len(vals) < 3 {
		t.Fatalf("value axis labels %v: want at least three", vals)
	}
	step := vals[1] - vals[0]
	mag := math.Pow(10, math.Floor(math.Log10(step)))
	m := step / mag
	if !slices.ContainsFunc([]float64{1, 2, 2.5, 5}, func(x float64) bool { return math.Abs(m-x) < 1e-9 }) {
		t.Errorf("value ticks %v: step %v is not round", vals, step)
	}
	for i, v := range vals {
		if math.Abs(v-(vals[0]+float64(i)*step)) > step*1e-9 || math.Abs(v/step-math.Round(v/step)) > 1e-9 {
			t.Errorf("value ticks %v: %v is not on the round step %v", vals, v, step)
		}
	}
}

// The tick rules on their own: round values, and dates on round instants whose label
// says as much as the step needs.
func TestPlotTicks(t *testing.T) {
	var labels []string
	for _, tk := range (roundTicks{}).Ticks(roundRange(56.297, 62.545)) {
		labels = append(labels, tk.Label)
	}
	if got := strings.Join(labels, " "); got != "56 58 60 62 64" {
		t.Errorf("value ticks over 56.297–62.545 (the old SVG's own ticks): %s", got)
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{{0.1, 0.30000000000000004, "0.1 0.15 0.2 0.25 0.3"}, {-3, 7, "-4 -2 0 2 4 6 8"}, {0, 1, "0 0.2 0.4 0.6 0.8 1"}, {1e9, 3e9, "1e+09 1.5e+09 2e+09 2.5e+09 3e+09"}} {
		labels = labels[:0]
		for _, tk := range (roundTicks{}).Ticks(roundRange(c.lo, c.hi)) {
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != c.want {
			t.Errorf("value ticks over %v–%v: %s, want %s", c.lo, c.hi, got, c.want)
		}
	}
	at := func(s string) float64 {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return unixSeconds(tm)
	}
	for _, c := range []struct {
		from, to, first string
		n               int
	}{
		{"2030-01-01T00:00:00Z", "2030-01-07T23:00:00Z", "2030-01-01", 7},
		{"2030-01-01T00:00:00Z", "2030-01-02T23:00:00Z", "2030-01-01\n00:00", 8},
		{"2030-01-01T00:00:00Z", "2030-12-31T23:00:00Z", "2030-01", 6},
		{"2030-01-03T00:00:00Z", "2030-01-21T00:00:00Z", "2030-01-07", 3}, // weeks from Mondays
		{"2030-01-01T00:00:00Z", "2045-01-01T00:00:00Z", "2030", 4},
		{"2030-01-01T00:00:00Z", "2030-01-01T00:00:30Z", "2030-01-01\n00:00:00", 7},
	} {
		ticks := (dateTicks{}).Ticks(at(c.from), at(c.to))
		if len(ticks) != c.n || ticks[0].Label != c.first {
			var got []string
			for _, tk := range ticks {
				got = append(got, tk.Label)
			}
			t.Errorf("date ticks %s to %s: %q, want %d from %q", c.from, c.to, got, c.n, c.first)
		}
	}
}

func TestSparkline(t *testing.T) {
	t.Parallel()
	if got := sparkline([]float64{0, 1, 2, 3, 4, 5, 6, 7}, 80); got != sparkBlocks {
		t.Errorf("sparkline 0..7 = %q", got)
	}
	if got := []rune(sparkline(make([]float64, 1000), 40)); len(got) != 40 {
		t.Errorf("1000 values in 40 columns drew %d", len(got))
	}
}

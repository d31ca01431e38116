package main

import (
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The chart of show --plot: one line per column against a time axis in UTC dates, with a
// title, axis labels and a legend, drawn by gonum.org/v1/plot for SVG and PNG alike (its
// fonts are built in, so a PNG has text too).

const (
	plotWidth  = 10 * vg.Inch
	plotHeight = 5 * vg.Inch
	// maxLegend is how many columns the legend names; the rest are counted in one line.
	maxLegend = 16
)

var palette = []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}}

// writePlot writes the view's columns as a line chart; the extension (.svg or .png, any
// case) picks the format.
func writePlot(path string, v *seriesView) error {
	p, legend, err := buildChart(v)
	if err != nil {
		return err
	}
	format := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	c, err := draw.NewFormattedCanvas(plotWidth, plotHeight, format)
	if err != nil {
		return err
	}
	dc := draw.New(c)
	dc.SetColor(color.White) // the legend's column too (an SVG is transparent elsewhere)
	dc.Fill(dc.Rectangle.Path())
	// The title spans the whole width, above the plot and the legend; the legend gets a
	// column of its own at the right, so it never covers a line.
	title, titleText := fitTitle(p.Title.TextStyle, p.Title.Text, plotWidth-vg.Points(16))
	p.Title.Text = ""
	top := title.Rectangle(titleText).Size().Y + vg.Points(10)
	dc.FillText(title, vg.Point{X: plotWidth / 2, Y: plotHeight - vg.Points(4) + title.FontExtents().Descent}, titleText)
	lw := legend.Rectangle(dc).Size().X + vg.Points(16)
	p.Draw(draw.Crop(dc, 0, -lw, 0, -top))
	legend.Draw(draw.Crop(dc, plotWidth-lw+vg.Points(8), -vg.Points(8), 0, -top-vg.Points(4)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = c.WriteTo(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// buildChart lays out the plot and its legend.
func buildChart(v *seriesView) (*plot.Plot, *plot.Legend, error) {
	m := v.meta
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	p := plot.New()
	p.Title.Text = chartTitle(v)
	p.Title.TextStyle.Font.Size = vg.Points(13)
	p.X.Label.Text = "time (UTC)"
	p.Y.Label.Text = m.Name
	if m.Units != "" {
		p.Y.Label.Text += " (" + m.Units + ")"
	}
	p.Y.Label.Text = shorten(p.Y.Label.Text, maxAxisLabel)
	p.X.Tick.Marker = dateTicks{}
	p.Y.Tick.Marker = roundTicks{}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.TextStyle.Font.Size = vg.Points(11)
	legend.Padding = vg.Points(3)
	xs := make([]float64, len(v.times))
	for i, t := range v.times {
		xs[i] = unixSeconds(t)
	}
	if len(xs) > 0 {
		p.X.Min, p.X.Max = xs[0], xs[len(xs)-1]
	}
	for c, col := range v.columns {
		style := draw.LineStyle{Color: palette[c%len(palette)], Width: vg.Points(1.5)}
		if c >= len(palette) {
			style.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		var sample plot.Thumbnailer
		for _, seg := range finiteSegments(col) {
			pts := make(plotter.XYs, 0, seg[1]-seg[0])
			for i := seg[0]; i < seg[1]; i++ {
				pts = append(pts, plotter.XY{X: xs[i], Y: col[i]})
			}
			if len(pts) == 1 { // a lone finite step between gaps: a dot
				sc, err := plotter.NewScatter(pts)
				if err != nil {
					return nil, nil, err
				}
				sc.GlyphStyle = draw.GlyphStyle{Color: style.Color, Radius: vg.Points(2), Shape: draw.CircleGlyph{}}
				p.Add(sc)
				if sample == nil {
					sample = sc
				}
				continue
			}
			line, err := plotter.NewLine(pts)
			if err != nil {
				return nil, nil, err
			}
			line.LineStyle = style
			p.Add(line)
			sample = line
		}
		switch {
		case c < maxLegend && sample != nil:
			legend.Add(legendLabel(v, c), sample)
		case c < maxLegend:
			legend.Add(legendLabel(v, c) + " (no finite value)")
		case c == maxLegend:
			legend.Add(fmt.Sprintf("… and %d more", len(v.columns)-maxLegend))
		}
	}
	p.Y.Min, p.Y.Max = roundRange(p.Y.Min, p.Y.Max)
	return p, &legend, nil
}

// fitTitle fits the title to width: the font shrunk by up to 3 points, then lines broken
// between words.
func fitTitle(sty text.Style, txt string, width vg.Length) (text.Style, string) {
	for sty.Width(txt) > width && sty.Font.Size > vg.Points(10) {
		sty.Font.Size -= vg.Points(0.5)
	}
	if sty.Width(txt) <= width {
		return sty, txt
	}
	var lines []string
	for _, line := range strings.Split(txt, "\n") {
		cur := ""
		for _, word := range strings.Fields(line) {
			if cur != "" && sty.Width(cur+" "+word) > width {
				lines = append(lines, cur)
				cur = word
				continue
			}
			cur = strings.TrimPrefix(cur+" "+word, " ")
		}
		lines = append(lines, cur)
	}
	return sty, strings.Join(lines, "\n")
}

// chartTitle names the series, and the window for a forecast.
func chartTitle(v *seriesView) string {
	m := v.meta
	title := m.Key.String()
	if !v.window.IsZero() {
		title += "\nwindow from " + formatTime(v.window)
	} else if len(v.times) > 0 {
		title += fmt.Sprintf("\n%s to %s, %d steps", formatTime(v.times[0]), formatTime(v.times[len(v.times)-1]), len(v.times))
	}
	return title
}

// legendLabel is the column's label with the series name in place of the generic "value"
// (a long name shortened, keeping the element index).
func legendLabel(v *seriesView, c int) string {
	l := v.labels[c]
	if rest, ok := strings.CutPrefix(l, "value"); ok {
		return shorten(v.meta.Name, maxLegendLabel-len(rest)) + rest
	}
	return shorten(l, maxLegendLabel)
}

// Labels longer than these would squeeze the plot (the value axis's label runs along
// the axis, the legend has a column of its own); the title, which has the room, is whole.
const (
	maxAxisLabel   = 40
	maxLegendLabel = 28
)

// shorten cuts s to at most n characters, ending it with "…" when it was cut.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 2 {
		return s
	}
	return string(r[:n-1]) + "…"
}

func unixSeconds(t time.Time) float64 { return float64(t.Unix()) + float64(t.Nanosecond())/1e9 }

// finiteSegments splits a column into runs of finite values: a NaN breaks the line.
func finiteSegments(col []float64) [][2]int {
	var segs [][2]int
	start := -1
	for i, v := range col {
		finite := !math.IsNaN(v) && !math.IsInf(v, 0)
		if finite && start < 0 {
			start = i
		}
		if !finite && start >= 0 {
			segs = append(segs, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		segs = append(segs, [2]int{start, len(col)})
	}
	return segs
}

// roundTicks are ticks at the multiples of a round step (1, 2, 2.5 or 5 × a power of ten)
// that gives at most maxValueTicks intervals, each labelled with its value in shortest form.
type roundTicks struct{}

const maxValueTicks = 6

// roundScale is the smallest round step whose multiples enclose [lo, hi] in at most
// maxValueTicks intervals, and those enclosing multiples. On a range that is already such
// a pair of multiples it finds the same step again, so the ticks drawn are the ones the
// range was widened for.
func roundScale(lo, hi float64) (step, from, to float64) {
	mag := math.Pow(10, math.Floor(math.Log10((hi-lo)/maxValueTicks))-1)
	for {
		for _, m := range []float64{1, 2, 2.5, 5} {
			step = m * mag
			from, to = math.Floor(lo/step+1e-9)*step, math.Ceil(hi/step-1e-9)*step
			if (to-from)/step <= maxValueTicks+1e-9 {
				return step, from, to
			}
		}
		mag *= 10
	}
}

// roundRange widens [lo, hi] to the multiples of its round step, so that both ends are
// labelled ticks; a flat range is widened around its value first.
func roundRange(lo, hi float64) (float64, float64) {
	if math.IsInf(lo, 0) || math.IsInf(hi, 0) || math.IsNaN(lo) || math.IsNaN(hi) {
		return lo, hi
	}
	if hi <= lo {
		d := math.Max(math.Abs(lo)*0.1, 1)
		lo, hi = lo-d, hi+d
	}
	_, from, to := roundScale(lo, hi)
	return from, to
}

func (roundTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(hi-lo, 0) {
		return nil
	}
	step, _, _ := roundScale(lo, hi)
	// Enough decimals for the step (two for 2.5 × 10^k), then the shortest spelling of that.
	decimals := max(0, int(-math.Floor(math.Log10(step)+1e-9)))
	if m := step / math.Pow(10, math.Floor(math.Log10(step)+1e-9)); math.Abs(m-2.5) < 1e-9 {
		decimals++
	}
	var ticks []plot.Tick
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9; k++ {
		v := k * step
		label := strconv.FormatFloat(v, 'f', decimals, 64)
		if f, err := strconv.ParseFloat(label, 64); err == nil {
			label, v = formatFloat(f), f
		}
		if label == "-0" {
			label = "0"
		}
		ticks = append(ticks, plot.Tick{Value: v, Label: label})
	}
	return ticks
}

// dateTicks put major ticks on round instants of UTC time (every 6 hours, every day, every
// week from a Monday, the first of every month, …), at a step that gives a handful of
// labels, and label them as dates, with the time of day when the step is under a day.
type dateTicks struct{}

// tickStep is one rung of the ladder of steps: a fixed number of seconds, or of months.
type tickStep struct {
	seconds int64
	months  int
}

var tickLadder = []tickStep{
	{seconds: 1}, {seconds: 2}, {seconds: 5}, {seconds: 10}, {seconds: 15}, {seconds: 30},
	{seconds: 60}, {seconds: 120}, {seconds: 300}, {seconds: 600}, {seconds: 900}, {seconds: 1800},
	{seconds: 3600}, {seconds: 2 * 3600}, {seconds: 3 * 3600}, {seconds: 6 * 3600}, {seconds: 12 * 3600},
	{seconds: 86400}, {seconds: 2 * 86400}, {seconds: 7 * 86400}, {seconds: 14 * 86400},
	{months: 1}, {months: 2}, {months: 3}, {months: 6},
	{months: 12}, {months: 24}, {months: 60}, {months: 120}, {months: 240}, {months: 600}, {months: 1200},
}

// maxDateTicks is the most labels the time axis gets (ten-character dates on a 10-inch axis).
const maxDateTicks = 8

func (dateTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	step := tickLadder[len(tickLadder)-1]
	for _, s := range tickLadder {
		if s.months == 0 && (hi-lo)/float64(s.seconds) <= maxDateTicks ||
			s.months > 0 && (hi-lo)/(float64(s.months)*30.44*86400) <= maxDateTicks-1 {
			step = s
			break
		}
	}
	var ticks []plot.Tick
	for _, t := range tickInstants(lo, hi, step) {
		ticks = append(ticks, plot.Tick{Value: unixSeconds(t), Label: tickLabel(t, step)})
	}
	return ticks
}

// tickInstants lists the round instants of step in [lo, hi] (Unix seconds).
func tickInstants(lo, hi float64, step tickStep) []time.Time {
	from := time.Unix(int64(math.Floor(lo)), 0).UTC()
	var out []time.Time
	if step.months > 0 {
		idx := from.Year()*12 + int(from.Month()) - 1
		idx -= idx % step.months
		for ; ; idx += step.months {
			t := time.Date(idx/12, time.Month(idx%12+1), 1, 0, 0, 0, 0, time.UTC)
			if unixSeconds(t) > hi {
				return out
			}
			if unixSeconds(t) >= lo {
				out = append(out, t)
			}
		}
	}
	// Fixed steps count from a Monday (1970-01-05) so that weeks start on Mondays; every
	// shorter step divides a day, so it lands on round times of day too.
	const monday = 4 * 86400
	s := step.seconds
	first := int64(math.Ceil(lo))
	k := (first - monday) / s
	if (first-monday)%s != 0 && first > monday {
		k++
	}
	for at := monday + k*s; float64(at) <= hi; at += s {
		if float64(at) >= lo {
			out = append(out, time.Unix(at, 0).UTC())
		}
	}
	return out
}

func tickLabel(t time.Time, step tickStep) string {
	switch {
	case step.months >= 12:
		return t.Format("2006")
	case step.months > 0:
		return t.Format("2006-01")
	case step.seconds >= 86400:
		return t.Format("2006-01-02")
	case step.seconds >= 60:
		return t.Format("2006-01-02\n15:04")
	}
	return t.Format("2006-01-02\n15:04:05")
}

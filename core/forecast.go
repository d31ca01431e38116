package core

import (
	"math"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// Forecast is implemented by the dense forecast types. A read of a
// DeterministicSingleTimeSeries returns a *Deterministic (docs/format.md §4.3: reads return
// Deterministic values).
type Forecast interface {
	TimeSeries
	// Grid is the window timeline: Count windows, one every Interval from
	// InitialTimestamp, each Horizon long at Resolution.
	Grid() ForecastGrid
	// Array is the whole stored array: [H, Count, *E] for a Deterministic,
	// [P, H, Count, *E] for a Probabilistic, [S, H, Count, *E] for Scenarios.
	Array() TypedArray
	// Window extracts window i: [H, *E], [P, H, *E] or [S, H, *E].
	Window(i int) (TypedArray, error)
}

// ForecastGrid is the window timeline of a forecast.
type ForecastGrid struct {
	InitialTimestamp time.Time // start of window 0
	Resolution       Period
	Horizon          Period
	Interval         Period
	Count            int
}

// Steps is H = Horizon / Resolution, or 0 when that is not a positive whole number.
func (g ForecastGrid) Steps() int {
	h, ok := g.Horizon.Ratio(g.Resolution)
	if !ok || h <= 0 || h > math.MaxInt32 {
		return 0
	}
	return int(h)
}

// WindowStart is the start of window i: InitialTimestamp + i·Interval.
func (g ForecastGrid) WindowStart(i int) (time.Time, error) {
	return g.Interval.Step(g.InitialTimestamp, int64(i))
}

// Deterministic is a point forecast. Data is [H, Count, *E] with H = Horizon / Resolution:
// Data[h, i] is step h of window i.
type Deterministic struct {
	Name             string
	InitialTimestamp time.Time
	Resolution       Period
	Horizon          Period
	Interval         Period
	Count            int
	Data             TypedArray
}

// Probabilistic is a forecast of quantiles. Data is [P, H, Count, *E], one layer per
// percentile; Percentiles are strictly increasing.
type Probabilistic struct {
	Name             string
	InitialTimestamp time.Time
	Resolution       Period
	Horizon          Period
	Interval         Period
	Count            int
	Percentiles      []float64
	Data             TypedArray
}

// Scenarios is a forecast of S equally plausible trajectories. Data is [S, H, Count, *E].
type Scenarios struct {
	Name             string
	InitialTimestamp time.Time
	Resolution       Period
	Horizon          Period
	Interval         Period
	Count            int
	Data             TypedArray
}

// The three dense types answer the Forecast interface alike, from fields of the same names.
// Go needs a method on each type, so each answer is one line per type over the shared code
// (windowOf). An embedded struct holding the shared fields would need fewer methods, but it
// would change the struct literals callers write (Deterministic{Name: …, Count: …}) in the
// C API, the tools and users' code, for no change in behaviour.

func (f *Deterministic) SeriesType() SeriesType { return DeterministicType }
func (f *Probabilistic) SeriesType() SeriesType { return ProbabilisticType }
func (f *Scenarios) SeriesType() SeriesType     { return ScenariosType }

func (f *Deterministic) SeriesName() string { return f.Name }
func (f *Probabilistic) SeriesName() string { return f.Name }
func (f *Scenarios) SeriesName() string     { return f.Name }

func (f *Deterministic) Array() TypedArray { return f.Data }
func (f *Probabilistic) Array() TypedArray { return f.Data }
func (f *Scenarios) Array() TypedArray     { return f.Data }

func (f *Deterministic) Grid() ForecastGrid {
	return ForecastGrid{f.InitialTimestamp, f.Resolution, f.Horizon, f.Interval, f.Count}
}
func (f *Probabilistic) Grid() ForecastGrid {
	return ForecastGrid{f.InitialTimestamp, f.Resolution, f.Horizon, f.Interval, f.Count}
}
func (f *Scenarios) Grid() ForecastGrid {
	return ForecastGrid{f.InitialTimestamp, f.Resolution, f.Horizon, f.Interval, f.Count}
}

func (f *Deterministic) Window(i int) (TypedArray, error) { return windowOf(f, i) }
func (f *Probabilistic) Window(i int) (TypedArray, error) { return windowOf(f, i) }
func (f *Scenarios) Window(i int) (TypedArray, error)     { return windowOf(f, i) }

// leadAxes is the number of axes before the horizon axis (docs/format.md §4.2): none for a
// Deterministic, the percentile or scenario axis for the others. The window (count) axis
// follows the horizon axis.
func leadAxes(t SeriesType) int {
	if t == ProbabilisticType || t == ScenariosType {
		return 1
	}
	return 0
}

// forecastLayout is the shape of a forecast array around its window axis: lead × H ×
// count × E, with lead the product of the leading axes.
type forecastLayout struct {
	lead   int   // product of the leading axes (1 for a Deterministic)
	h      int   // steps per window
	count  int   // windows
	eshape []int // per-step element shape
	width  int   // bytes per element
}

func layoutOf(t SeriesType, a TypedArray) forecastLayout {
	n := leadAxes(t)
	l := forecastLayout{lead: 1, width: a.DType.Width()}
	if n == 1 {
		l.lead = a.Shape[0]
	}
	l.h, l.count = a.Shape[n], a.Shape[n+1]
	l.eshape = append([]int{}, a.Shape[n+2:]...)
	return l
}

func (l forecastLayout) stepBytes() int   { return ncstore.ElementCount(l.eshape) * l.width }
func (l forecastLayout) windowBytes() int { return l.lead * l.h * l.stepBytes() }

// extractWindow copies window j of an array laid out lead × H × n × E into out, laid out
// lead × H × E.
func (l forecastLayout) extractWindow(out, data []byte, n, j int) {
	eb := l.stepBytes()
	if eb == 8 && wordAligned(out) && wordAligned(data) { // scalar 8-byte steps: word moves
		for a := 0; a < l.lead; a++ {
			gather8(out[a*l.h*8:], data, a*l.h*n+j, n, l.h)
		}
		return
	}
	for a := 0; a < l.lead; a++ {
		for h := 0; h < l.h; h++ {
			src := ((a*l.h+h)*n + j) * eb
			dst := (a*l.h + h) * eb
			copy(out[dst:dst+eb], data[src:src+eb])
		}
	}
}

func windowOf(f Forecast, i int) (TypedArray, error) {
	arr := f.Array()
	if err := arr.validate(); err != nil {
		return TypedArray{}, err
	}
	lead := leadAxes(f.SeriesType())
	if len(arr.Shape) < lead+2 {
		return TypedArray{}, invalid("window", ArgShape, "%v has no window axis", arr.Shape)
	}
	l := layoutOf(f.SeriesType(), arr)
	if i < 0 || i >= l.count {
		return TypedArray{}, invalid("window", ArgStep, "%d is outside 0–%d", i, l.count-1)
	}
	out := ncstore.AlignedBytes(l.windowBytes())
	l.extractWindow(out, arr.Data, l.count, i)
	shape := append(append([]int{}, arr.Shape[:lead]...), l.h)
	return TypedArray{DType: arr.DType, Shape: append(shape, l.eshape...), Data: out}, nil
}

// prepareForecast validates a dense forecast against docs/format.md §4.2 and §10.4 and fills the
// row. Its array is standalone, chunked in window blocks.
func prepareForecast(p *prepared, f Forecast) error {
	g, arr, typ := f.Grid(), f.Array(), f.SeriesType()
	if err := arr.validate(); err != nil {
		return err
	}
	h, err := validateGrid(g)
	if err != nil {
		return err
	}
	lead := leadAxes(typ)
	if len(arr.Shape) < lead+2 {
		return invalid("", ArgShape, "%v has rank %d; a %s is %s", arr.Shape, len(arr.Shape), typ, layoutText(typ))
	}
	if arr.Shape[lead] != h || arr.Shape[lead+1] != g.Count {
		return invalid("", ArgShape, "%v does not match %s with H = %s / %s = %d and count = %d",
			arr.Shape, layoutText(typ), g.Horizon, g.Resolution, h, g.Count)
	}
	if pf, ok := f.(*Probabilistic); ok {
		if err := validatePercentiles(pf.Percentiles, arr.Shape[0]); err != nil {
			return err
		}
		p.row.PercentilesJSON = nullString(catalog.PercentilesJSON(pf.Percentiles))
	}
	p.arr, p.packed, p.res, p.interval = arr, false, g.Resolution, g.Interval
	p.chunks = forecastChunks(typ, arr)
	p.digest = arr.hash()
	p.row.InitialTimestamp = nullString(isotime.FormatTimestamp(g.InitialTimestamp))
	p.row.Resolution = nullString(g.Resolution.String())
	p.row.Horizon = nullString(g.Horizon.String())
	p.row.Interval = nullString(g.Interval.String())
	p.row.Count.Int64, p.row.Count.Valid = int64(g.Count), true
	return nil
}

func layoutText(t SeriesType) string {
	switch t {
	case ProbabilisticType:
		return "[P, H, count, *E]"
	case ScenariosType:
		return "[S, H, count, *E]"
	}
	return "[H, count, *E]"
}

// validateGrid checks the periods and count of a forecast and returns H.
func validateGrid(g ForecastGrid) (int, error) {
	for _, f := range []struct {
		arg Arg
		p   Period
	}{{ArgResolution, g.Resolution}, {ArgHorizon, g.Horizon}, {ArgInterval, g.Interval}} {
		if !f.p.IsPositive() {
			return 0, invalid("", f.arg, "%s is not a positive period", f.p)
		}
	}
	h := g.Steps()
	if h == 0 {
		return 0, invalid("", ArgHorizon, "%s is not a whole multiple of the resolution %s", g.Horizon, g.Resolution)
	}
	if g.Count <= 0 {
		return 0, invalid("", ArgCount, "%d windows; a forecast has at least one", g.Count)
	}
	last, err := g.WindowStart(g.Count - 1)
	if err == nil {
		_, err = g.Resolution.Step(last, int64(h-1))
	}
	if err != nil {
		return 0, invalid("", ArgInitialTimestamp, "the last window of %s is not a representable instant: %v",
			isotime.FormatTimestamp(g.InitialTimestamp), err)
	}
	return h, nil
}

func validatePercentiles(ps []float64, layers int) error {
	if len(ps) == 0 {
		return invalid("", ArgPercentiles, "is empty")
	}
	for i, v := range ps {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return invalid("", ArgPercentiles, "entry %d is %v; percentiles are finite numbers", i, v)
		}
		if i > 0 && !(v > ps[i-1]) {
			return invalid("", ArgPercentiles, "entry %d (%v) is not above entry %d (%v); they must be strictly increasing", i, v, i-1, ps[i-1])
		}
	}
	if len(ps) != layers {
		return invalid("", ArgPercentiles, "%d percentiles for %d layers of data (axis 0)", len(ps), layers)
	}
	return nil
}

// forecastChunks blocks a dense forecast along its window axis, the axis after its horizon
// axis (ncstore.WindowChunks has the rule, docs/format.md §7.5).
func forecastChunks(t SeriesType, a TypedArray) []uint64 {
	return ncstore.WindowChunks(a.DType, a.Shape, leadAxes(t)+1)
}

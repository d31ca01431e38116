package core

import (
	"slices"
	"time"

	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// forecastRow is the window geometry of a stored forecast, checked against its catalog
// row's columns (docs/format.md §4.2).
type forecastRow struct {
	grid   ForecastGrid
	h      int   // steps per window
	count  int   // windows
	lead   int   // product of the leading (percentile / scenario) axes; 1 otherwise
	step   int   // DeterministicSingleTimeSeries: source rows between window starts
	eshape []int // per-step element shape
}

func isForecast(t SeriesType) bool {
	return t == DeterministicType || t == DeterministicSingleTimeSeriesType ||
		t == ProbabilisticType || t == ScenariosType
}

// forecastRowOf decodes the geometry of a forecast row. Columns that disagree with each
// other are an IntegrityError: reading on would return the wrong bytes.
func forecastRowOf(m *Metadata) (forecastRow, error) {
	bad := func(column, format string, args ...any) (forecastRow, error) {
		e := corruptAt("", column, format, args...)
		e.Msg = m.Key.String() + ": " + e.Msg
		return forecastRow{}, e
	}
	g := ForecastGrid{m.InitialTimestamp, m.Resolution, m.Horizon, m.Interval, m.Count}
	if !g.Resolution.IsPositive() || !g.Horizon.IsPositive() || !g.Interval.IsPositive() || g.Count <= 0 || g.InitialTimestamp.IsZero() {
		return bad("horizon", "a forecast row needs a positive resolution, horizon, interval and count and an initial timestamp")
	}
	f := forecastRow{grid: g, h: g.Steps(), count: g.Count, lead: 1}
	if f.h == 0 {
		return bad("horizon", "%s is not a whole multiple of the resolution %s", g.Horizon, g.Resolution)
	}
	es := m.ElementShape
	switch m.Type {
	case DeterministicType:
		if m.Length != f.h || len(es) < 1 || es[0] != f.count {
			return bad("element_shape", "length %d and element_shape %v are not [H=%d, count=%d, *E]", m.Length, es, f.h, f.count)
		}
		f.eshape = es[1:]
	case ProbabilisticType, ScenariosType:
		if len(es) < 2 || es[0] != f.h || es[1] != f.count {
			return bad("element_shape", "element_shape %v is not [H=%d, count=%d, *E]", es, f.h, f.count)
		}
		if m.Type == ProbabilisticType && len(m.Percentiles) != m.Length {
			return bad("percentiles_json", "%d percentiles for length %d", len(m.Percentiles), m.Length)
		}
		f.lead, f.eshape = m.Length, es[2:]
	case DeterministicSingleTimeSeriesType:
		k, ok := g.Interval.Ratio(g.Resolution)
		if !ok || k <= 0 || f.h > m.Length || int64(f.count) != (int64(m.Length-f.h))/k+1 {
			return bad("count", "count %d, horizon %s and interval %s do not fit a source of %d steps at %s",
				f.count, g.Horizon, g.Interval, m.Length, g.Resolution)
		}
		f.step, f.eshape = int(k), es
	default:
		return bad("time_series_type", "%s is not a forecast", m.Type)
	}
	return f, nil
}

// layout is the in-memory layout of windows read from this forecast.
func (f forecastRow) layout(dt DType) forecastLayout {
	return forecastLayout{lead: f.lead, h: f.h, count: f.count, eshape: f.eshape, width: dt.Width()}
}

// windowIndex maps a window start onto the grid: it must be InitialTimestamp + i·Interval
// for some window i.
func (f forecastRow) windowIndex(arg Arg, t time.Time) (int, error) {
	i, ok, err := f.grid.Interval.StepsExact(f.grid.InitialTimestamp, t)
	if err != nil {
		return 0, invalid("", arg, "%v", err)
	}
	if !ok {
		return 0, invalid("", arg, "%s is not a window start: windows start at %s + k × %s",
			isotime.FormatTimestamp(t), isotime.FormatTimestamp(f.grid.InitialTimestamp), f.grid.Interval)
	}
	if i < 0 || i >= int64(f.count) {
		last, _ := f.grid.WindowStart(f.count - 1)
		return 0, invalid("", arg, "%s is window %d; the forecast has windows 0–%d (%s – %s)",
			isotime.FormatTimestamp(t), i, f.count-1, isotime.FormatTimestamp(f.grid.InitialTimestamp), isotime.FormatTimestamp(last))
	}
	return int(i), nil
}

// GetWindow reads the forecast window that starts at start, which must lie on the window
// grid. The result is a Forecast of one window.
func (s *Store) GetWindow(k Key, start time.Time) (Forecast, error) {
	return s.getWindows("get_window", k, start, start)
}

// GetWindows reads the windows whose starts lie in [first, last]; both must be window
// starts. Only the storage blocks holding those windows are read.
func (s *Store) GetWindows(k Key, first, last time.Time) (Forecast, error) {
	return s.getWindows("get_windows", k, first, last)
}

func (s *Store) getWindows(op string, k Key, first, last time.Time) (Forecast, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	_, m, err := s.lookupMetadata(k, k.Features)
	if err != nil {
		return nil, withOp(op, err)
	}
	if !isForecast(m.Type) {
		return nil, invalid(op, ArgSeriesType, "%s is a static series; windows are read from forecasts only (use GetRange)", m.Key)
	}
	g, err := forecastRowOf(m)
	if err != nil {
		return nil, withOp(op, err)
	}
	i0, err := g.windowIndex(ArgStart, first)
	if err != nil {
		return nil, withOp(op, err)
	}
	i1, err := g.windowIndex(ArgEnd, last)
	if err != nil {
		return nil, withOp(op, err)
	}
	if i1 < i0 {
		return nil, invalid(op, ArgEnd, "%s is before first %s", isotime.FormatTimestamp(last), isotime.FormatTimestamp(first))
	}
	fc, err := s.readWindows(m, g, i0, i1-i0+1, nil)
	return fc, withOp(op, err)
}

// readWindows reads windows [i0, i0+n) of a forecast. A DeterministicSingleTimeSeries reads
// only the source rows those windows cover; a dense forecast only the blocks holding them.
func (s *Store) readWindows(m *Metadata, g forecastRow, i0, n int, dst []byte) (Forecast, error) {
	var data []byte
	var err error
	if m.Type == DeterministicSingleTimeSeriesType {
		var src []byte
		if src, err = s.readRows(m, i0*g.step, (n-1)*g.step+g.h, nil); err != nil {
			return nil, err
		}
		data = synthWindows(src, g.layout(m.DType).stepBytes(), g.h, g.step, n, dst)
	} else if data, err = s.readDenseWindows(m, g, i0, n, dst); err != nil {
		return nil, err
	}
	t0, err := g.grid.WindowStart(i0)
	if err != nil {
		return nil, invalid("", ArgStart, "%v", err)
	}
	shape := []int{g.h, n}
	if leadAxes(m.Type) == 1 {
		shape = []int{g.lead, g.h, n}
	}
	arr := TypedArray{DType: m.DType, Shape: append(shape, g.eshape...), Data: data}
	gr := g.grid
	switch m.Type {
	case ProbabilisticType:
		return &Probabilistic{Name: m.Name, InitialTimestamp: t0, Resolution: gr.Resolution, Horizon: gr.Horizon,
			Interval: gr.Interval, Count: n, Percentiles: slices.Clone(m.Percentiles), Data: arr}, nil
	case ScenariosType:
		return &Scenarios{Name: m.Name, InitialTimestamp: t0, Resolution: gr.Resolution, Horizon: gr.Horizon,
			Interval: gr.Interval, Count: n, Data: arr}, nil
	}
	return &Deterministic{Name: m.Name, InitialTimestamp: t0, Resolution: gr.Resolution, Horizon: gr.Horizon,
		Interval: gr.Interval, Count: n, Data: arr}, nil
}

// denseVar finds the standalone variable of a dense forecast and checks it holds what the
// row claims.
func (s *Store) denseVar(m *Metadata) (*ncstore.Variable, error) {
	d := hashing.Digest(m.DataHash)
	sv, ok := s.nc.Variable(d)
	if !ok {
		return nil, errNoArray(d)
	}
	full := append([]int{m.Length}, m.ElementShape...)
	if !sv.Holds(m.DType, full) {
		return nil, corruptAt("", "data_hash", "row says %s %v but %s holds %s %v",
			m.DType, full, sv.Name(), sv.DType(), sv.Shape())
	}
	return sv, nil
}

func (s *Store) readDenseWindows(m *Metadata, g forecastRow, i0, n int, dst []byte) ([]byte, error) {
	if p, ok := s.pendingArray(hashing.Digest(m.DataHash), false); ok {
		full := append([]int{m.Length}, m.ElementShape...)
		if p.arr.DType != m.DType || !slices.Equal(p.arr.Shape, full) {
			return nil, corruptAt("", "data_hash", "row says %s %v but the pending array is %s %v",
				m.DType, full, p.arr.DType, p.arr.Shape)
		}
		return sliceWindows(g.layout(m.DType), p.arr.Data, i0, n, dst), nil
	}
	sv, err := s.denseVar(m)
	if err != nil {
		return nil, err
	}
	return s.nc.ReadSpan(sv, leadAxes(m.Type)+1, i0, n, dst)
}

// sliceWindows copies windows [i0, i0+n) out of a whole array laid out lead × H × count × E.
func sliceWindows(l forecastLayout, data []byte, i0, n int, dst []byte) []byte {
	eb := l.stepBytes()
	out := ncstore.Into(dst, l.lead*l.h*n*eb)
	for a := 0; a < l.lead; a++ {
		for h := 0; h < l.h; h++ {
			src := ((a*l.h+h)*l.count + i0) * eb
			dst := (a*l.h + h) * n * eb
			copy(out[dst:dst+n*eb], data[src:src+n*eb])
		}
	}
	return out
}

// synthWindows lays n windows of a DeterministicSingleTimeSeries out as [H, n, *E]: window j
// is source rows [j·step, j·step + H) of src (which starts at the first window's first row).
func synthWindows(src []byte, eb, h, step, n int, dst []byte) []byte {
	out := ncstore.Into(dst, h*n*eb)
	for j := 0; j < n; j++ {
		for i := 0; i < h; i++ {
			from := (j*step + i) * eb
			to := (i*n + j) * eb
			copy(out[to:to+eb], src[from:from+eb])
		}
	}
	return out
}

package core

import (
	"errors"
	"sort"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// ErrBufferTooSmall is returned by the reads into caller memory when the destination cannot
// hold what the read returns; the Extent returned with it says how much is needed. It is a
// condition of this library's API, not one of the format's error kinds.
var ErrBufferTooSmall = errors.New("buffer too small")

// PartKind says which part of a series a read returns.
type PartKind uint8

const (
	WholeSeries PartKind = iota // every step, or every window
	TimeRange                   // a static series from Start to End (as GetRange reads)
	WindowRange                 // the forecast windows starting in [Start, End] (as GetWindows reads)
)

// Part is the part of a series a read returns.
type Part struct {
	Kind       PartKind
	Start, End time.Time
}

// Extent describes what a read returns: the array's shape and size, its first step (or
// window start; zero for an empty NonSequential read) and, for forecasts, its windows.
type Extent struct {
	Shape            []int
	Bytes            int
	InitialTimestamp time.Time
	Count            int
}

// readPlan is a read resolved against the catalog: what it returns and where it comes from.
type readPlan struct {
	r          *catalog.Row
	m          *Metadata
	part       Part
	ext        Extent
	g          forecastRow // forecasts
	i0, window int         // forecasts: first window and how many
	stamps     []time.Time // NonSequentialTimeSeries: every timestamp, parsed once per plan
}

// Describe resolves q and says what reading part of it would return, reading no array.
func (s *Store) Describe(q Lookup, part Part) (*Metadata, Extent, error) {
	p, err := s.lockedPlan("describe_time_series", q, part)
	if err != nil {
		return nil, Extent{}, err
	}
	defer s.mu.Unlock()
	return p.m, p.ext, nil
}

// lockedPlan locks the store and plans reading part of q; when it succeeds the caller holds
// the lock and unlocks it.
func (s *Store) lockedPlan(op string, q Lookup, part Part) (*readPlan, error) {
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	p, err := s.plan(q, part)
	if err != nil {
		s.mu.Unlock()
		return nil, withOp(op, err)
	}
	return p, nil
}

// ReadInto reads part of the series q names straight into dst, which must hold Extent.Bytes
// (else ErrBufferTooSmall, with the Extent). A whole array is checked against its data_hash.
func (s *Store) ReadInto(q Lookup, part Part, dst []byte) (*Metadata, Extent, error) {
	const op = "get_time_series"
	p, err := s.lockedPlan(op, q, part)
	if err != nil {
		return nil, Extent{}, err
	}
	defer s.mu.Unlock()
	if len(dst) < p.ext.Bytes {
		return p.m, p.ext, tooSmall(op, len(dst), p.ext.Bytes)
	}
	return p.m, p.ext, withOp(op, s.readPlanned(p, dst[:p.ext.Bytes]))
}

func tooSmall(op string, have, need int) *Error {
	return newErr(ErrBufferTooSmall, op, ArgBuffer, "%d bytes cannot hold the %d the read returns", have, need)
}

// DescribeMany resolves every lookup and says what reading each whole would return.
func (s *Store) DescribeMany(qs []Lookup) ([]*Metadata, []Extent, error) {
	const op = "get_many"
	if err := s.lock(op, false); err != nil {
		return nil, nil, err
	}
	defer s.mu.Unlock()
	ps, err := s.planMany(op, qs, nil)
	if err != nil {
		return nil, nil, err
	}
	ms, exts := make([]*Metadata, len(ps)), make([]Extent, len(ps))
	for i, p := range ps {
		ms[i], exts[i] = p.m, p.ext
	}
	return ms, exts, nil
}

// ReadManyInto reads every series whole, series i into dsts[i], in one pass per packed
// dataset (as GetMany). A destination too small is ErrBufferTooSmall naming the item, before
// anything is read; the metadata and extents are returned with it.
func (s *Store) ReadManyInto(qs []Lookup, dsts [][]byte) ([]*Metadata, []Extent, error) {
	const op = "get_many"
	if len(dsts) != len(qs) {
		return nil, nil, invalid(op, ArgBuffer, "%d buffers for %d lookups", len(dsts), len(qs))
	}
	if err := s.lock(op, false); err != nil {
		return nil, nil, err
	}
	defer s.mu.Unlock()
	var ms []*Metadata
	var exts []Extent
	err := s.snapshot(func() error {
		ahead := s.rowsAhead()
		defer ahead.wait()
		ps, err := s.planMany(op, qs, ahead.hook())
		ahead.wait()
		if err != nil {
			return err
		}
		ms, exts = make([]*Metadata, len(ps)), make([]Extent, len(ps))
		found := make([]foundRow, len(ps))
		var tooSmallErr error
		for i, p := range ps {
			ms[i], exts[i], found[i] = p.m, p.ext, foundRow{p.r, p.m}
			if len(dsts[i]) < p.ext.Bytes {
				if tooSmallErr == nil {
					tooSmallErr = atItem(tooSmall(op, len(dsts[i]), p.ext.Bytes), "dst", i)
				}
				continue
			}
			dsts[i] = dsts[i][:p.ext.Bytes:p.ext.Bytes]
		}
		if tooSmallErr != nil {
			return tooSmallErr
		}
		_, err = s.getManyLocked(op, "which", found, nil, nil, dsts, ahead)
		return err
	})
	return ms, exts, err
}

// planMany resolves every lookup (the exact ones together, see findMany) and plans each
// whole read; seen is findBatch's.
func (s *Store) planMany(op string, qs []Lookup, seen func(*catalog.Row)) ([]*readPlan, error) {
	found, err := s.findMany(op, qs, seen)
	if err != nil {
		return nil, err
	}
	ps := make([]*readPlan, len(qs))
	slab := make([]readPlan, len(qs))
	for i, f := range found {
		p := &slab[i]
		if err := s.planFound(p, f.r, f.m, Part{}); err != nil {
			return nil, withOp(op, atItem(err, "which", i))
		}
		ps[i] = p
	}
	return ps, nil
}

// plan finds the series and computes what the part holds.
func (s *Store) plan(q Lookup, part Part) (*readPlan, error) {
	r, m, err := s.find(q)
	if err != nil {
		return nil, err
	}
	p := &readPlan{}
	if err := s.planFound(p, r, m, part); err != nil {
		return nil, err
	}
	return p, nil
}

// planFound fills p with what reading part of the series found (r, m) returns.
func (s *Store) planFound(p *readPlan, r *catalog.Row, m *Metadata, part Part) error {
	*p = readPlan{r: r, m: m, part: part}
	if part.Kind != WholeSeries && part.End.Before(part.Start) {
		return invalid("", ArgEnd, "%s is before start %s", isotime.FormatTimestamp(part.End), isotime.FormatTimestamp(part.Start))
	}
	forecast := isForecast(m.Type)
	var err error
	switch {
	case forecast && part.Kind == TimeRange:
		return invalid("", ArgSeriesType, "%s is a forecast; a time range reads static series only (read forecasts by window)", m.Key)
	case !forecast && part.Kind == WindowRange:
		return invalid("", ArgSeriesType, "%s is a static series; windows are read from forecasts only", m.Key)
	case forecast:
		err = p.planWindows()
	case m.Type == SingleTimeSeriesType:
		err = p.planSingle()
	default:
		err = p.planNonSequential()
	}
	if err != nil {
		return err
	}
	p.ext.Bytes = ncstore.ElementCount(p.ext.Shape) * m.DType.Width()
	return nil
}

func (p *readPlan) bounds() (start, end *time.Time) {
	if p.part.Kind == WholeSeries {
		return nil, nil
	}
	return &p.part.Start, &p.part.End
}

func (p *readPlan) planSingle() error {
	start, end := p.bounds()
	first, n, err := singleRange(p.m, start, end)
	if err != nil {
		return err
	}
	t0, err := p.m.Resolution.Step(p.m.InitialTimestamp, int64(first))
	if err != nil {
		return invalid("", ArgStart, "%v", err)
	}
	p.ext = Extent{Shape: append([]int{n}, p.m.ElementShape...), InitialTimestamp: t0}
	return nil
}

func (p *readPlan) planNonSequential() error {
	stamps, err := p.r.Timestamps()
	if err != nil {
		return columnCorrupt(p.r, err)
	}
	p.stamps = stamps
	first, last := stampRange(stamps, p.part)
	p.ext = Extent{Shape: append([]int{last - first}, p.m.ElementShape...)}
	if last > first {
		p.ext.InitialTimestamp = stamps[first]
	}
	return nil
}

// stampRange is the run [first, last) of strictly increasing stamps inside part.
func stampRange(stamps []time.Time, part Part) (first, last int) {
	if part.Kind == WholeSeries {
		return 0, len(stamps)
	}
	notBefore := func(t time.Time) int {
		return sort.Search(len(stamps), func(i int) bool { return !stamps[i].Before(t) })
	}
	return notBefore(part.Start), notBefore(part.End)
}

func (p *readPlan) planWindows() error {
	g, err := forecastRowOf(p.m)
	if err != nil {
		return err
	}
	p.g, p.i0, p.window = g, 0, g.count
	if p.part.Kind == WindowRange {
		i0, err := g.windowIndex(ArgStart, p.part.Start)
		if err != nil {
			return err
		}
		i1, err := g.windowIndex(ArgEnd, p.part.End)
		if err != nil {
			return err
		}
		p.i0, p.window = i0, i1-i0+1
	}
	t0, err := g.grid.WindowStart(p.i0)
	if err != nil {
		return invalid("", ArgStart, "%v", err)
	}
	shape := []int{g.h, p.window}
	if leadAxes(p.m.Type) == 1 {
		shape = []int{g.lead, g.h, p.window}
	}
	p.ext = Extent{Shape: append(shape, g.eshape...), InitialTimestamp: t0, Count: p.window}
	return nil
}

// readPlanned reads what p describes into dst (exactly p.ext.Bytes long).
func (s *Store) readPlanned(p *readPlan, dst []byte) error {
	if isForecast(p.m.Type) {
		_, err := s.readWindows(p.m, p.g, p.i0, p.window, dst)
		return err
	}
	start, end := p.bounds()
	_, err := s.readSeries(p.m, p.r, start, end, dst)
	return err
}

// Timestamps returns the timestamps of the series q names, all of them or (start and end
// given) those in [start, end]: the steps of a SingleTimeSeries as a TimeRange read returns
// them, the stored timestamps of a NonSequentialTimeSeries in [start, end), the window
// starts of a forecast (as a WindowRange read returns them).
func (s *Store) Timestamps(q Lookup, start, end *time.Time) ([]time.Time, error) {
	const op = "get_timestamps"
	if err := s.lock(op, false); err != nil {
		return nil, err
	}
	defer s.mu.Unlock()
	p, err := s.plan(q, Part{})
	if err == nil && start != nil {
		part := Part{Kind: TimeRange, Start: *start, End: *end}
		if isForecast(p.m.Type) {
			part.Kind = WindowRange
		}
		p, err = s.plan(q, part)
	}
	if err != nil {
		return nil, withOp(op, err)
	}
	switch {
	case p.m.Type == NonSequentialTimeSeriesType:
		first, last := stampRange(p.stamps, p.part)
		return p.stamps[first:last], nil
	case isForecast(p.m.Type):
		return Timeline(p.ext.InitialTimestamp, p.g.grid.Interval, 0, p.window)
	}
	return Timeline(p.ext.InitialTimestamp, p.m.Resolution, 0, p.ext.Shape[0])
}

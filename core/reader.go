package core

import (
	"slices"
	"time"
	"unsafe"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// ForecastReader reads one window of many forecasts at a time, as a simulation consumes
// them: Read(windowStart) fills every group's Values with that window of each of its keys.
//
// Keys that share an array — the same content, or DeterministicSingleTimeSeries views over
// one packed dataset — are read once per window. Dense forecasts are cached one storage
// block (a chunk of windows) per array, DeterministicSingleTimeSeries one band of source
// rows per packed dataset, so a sweep over the window timeline in order decompresses each
// chunk exactly once. The cache holds one block per distinct array; Close releases it.
//
// A ForecastReader is not safe for concurrent use; it takes the store's lock per Read.
type ForecastReader struct {
	s      *Store
	keys   []Key
	grid   ForecastGrid
	groups []*ForecastGroup
	dense  []*denseSource
	bands  []*bandSource
	window int           // last window read, -1 before the first
	frees  int64         // the file's free count when the reader last checked its columns
	nc     *ncstore.File // the file it was built over: a rewrite replaces it
}

// ForecastGroup holds the keys of a reader whose windows have one shape (and, for
// Probabilistic keys, one set of percentiles), and after each Read
// their windows: Values is [len(Keys), H, *E] for deterministic types and
// [len(Keys), Layers, H, *E] for Probabilistic and Scenarios. Values is reused by every
// Read; copy what must outlive the next one.
type ForecastGroup struct {
	DType        DType
	Layers       int       // percentiles or scenarios; 1 for deterministic types
	Percentiles  []float64 // Probabilistic only: the layers' percentiles, shared by the group
	Steps        int       // H, steps per window
	ElementShape []int
	Keys         []int // indices into the reader's keys
	Values       TypedArray

	own     []byte // the reader's buffer for Values, when no caller buffer is bound
	members []member
}

// member places one key's window: where it comes from and where it goes.
type member struct {
	dense *denseSource
	band  *bandSource
	hash  hashing.Digest // the data hash, to check a band column still holds it
	col   int            // the column in the dataset (the band holds columns col0 … col0+cols-1)
	h     int
	at    int // byte offset in the group's Values
}

// denseSource is one standalone forecast array and its cached block of windows.
type denseSource struct {
	sv     *ncstore.Variable
	lay    forecastLayout
	axis   int
	block  int // windows per block: the chunk width along the window axis
	loaded int // index of the cached block, -1 when none
	n      int // windows in the cached block
	buf    []byte
}

// bandSource is a packed dataset feeding DeterministicSingleTimeSeries windows: a band of
// its rows over the columns the reader needs.
type bandSource struct {
	ds         *ncstore.Packed
	col0, cols int // column range read
	step       int // source rows between window starts
	h          int // rows one window needs (the longest horizon)
	lo, hi     int // rows cached
	last       int // first row of the last window served, -1 before any
	buf, spare []byte
}

// readerBandBytes bounds the rows one band caches; consecutive windows overlap by H − step rows,
// which the band keeps rather than reading their chunks again.
const readerBandBytes = 32 << 20

// NewForecastReader prepares a reader over forecasts of one type and resolution that share a
// window timeline (initial timestamp, interval and count), each named by a lookup (Lookups
// makes them of keys): they are resolved once, in one pass, and a failure names which[i].
// typ may be the abstract deterministic type to mix Deterministic and
// DeterministicSingleTimeSeries.
func (s *Store) NewForecastReader(typ SeriesType, resolution Period, qs []Lookup) (*ForecastReader, error) {
	return buildReader(s, "forecast_reader", qs, func(keys []Key, ms []*Metadata) (*ForecastReader, error) {
		return s.newForecastReader(typ, resolution, keys, ms)
	})
}

// buildReader resolves a reader's lookups under the store's lock, in one pass and one catalog
// snapshot (resolveLookups; a failure names which[i]), and builds the reader of them.
func buildReader[R any](s *Store, op string, qs []Lookup, build func([]Key, []*Metadata) (R, error)) (R, error) {
	var r R
	if err := s.lock(op, false); err != nil {
		return r, err
	}
	defer s.mu.Unlock()
	err := s.snapshot(func() error {
		keys, ms, err := s.resolveLookups(op, qs)
		if err == nil {
			r, err = build(keys, ms)
		}
		return err
	})
	return r, withOp(op, err)
}

// newForecastReader builds the reader over keys and their records ms (resolveLookups).
func (s *Store) newForecastReader(typ SeriesType, resolution Period, keys []Key, ms []*Metadata) (*ForecastReader, error) {
	if typ == SingleTimeSeriesType || typ == NonSequentialTimeSeriesType || !typ.Valid() {
		return nil, invalid("", ArgSeriesType, "%s is not a forecast type", typ)
	}
	if err := s.readerStart(resolution, keys); err != nil {
		return nil, err
	}
	rd := &ForecastReader{s: s, nc: s.nc, keys: slices.Clone(keys), window: -1}
	groups := map[string]*ForecastGroup{}
	dense := map[hashing.Digest]*denseSource{}
	bands := map[*ncstore.Packed]*bandSource{}
	for i, k := range keys {
		if !readerAccepts(typ, k.Type) {
			return nil, atItem(invalid("", ArgSeriesType, "%s does not match the reader's type %s", k.Type, typ), "which", i)
		}
		if k.Resolution != resolution {
			return nil, atItem(invalid("", ArgResolution, "%s is not the reader's resolution %s", k.Resolution, resolution), "which", i)
		}
	}
	for i, m := range ms {
		g, err := forecastRowOf(m)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rd.grid = g.grid
		} else if !g.grid.InitialTimestamp.Equal(rd.grid.InitialTimestamp) || g.grid.Interval != rd.grid.Interval || g.count != rd.grid.Count {
			return nil, atItem(invalid("", ArgLookup, "%s has windows %s + k × %s, k < %d; which[0] has %s + k × %s, k < %d: a reader's keys share one window timeline",
				m.Key, isotime.FormatTimestamp(g.grid.InitialTimestamp), g.grid.Interval, g.count, isotime.FormatTimestamp(rd.grid.InitialTimestamp), rd.grid.Interval, rd.grid.Count), "which", i)
		}
		grp := rd.groupFor(groups, m, g)
		mem := member{h: g.h, hash: hashing.Digest(m.DataHash), at: len(grp.Keys) * g.layout(m.DType).windowBytes()}
		if m.Type == DeterministicSingleTimeSeriesType {
			if mem.band, mem.col, err = s.bandFor(bands, m, g); err != nil {
				return nil, err
			}
		} else if mem.dense, err = s.denseFor(dense, m, g); err != nil {
			return nil, err
		}
		grp.Keys = append(grp.Keys, i)
		grp.members = append(grp.members, mem)
	}
	for _, grp := range rd.groups {
		wb := grp.Layers * grp.Steps * ncstore.ElementCount(grp.ElementShape) * grp.DType.Width()
		shape := []int{len(grp.Keys)}
		if grp.Layers > 1 || typ == ProbabilisticType || typ == ScenariosType {
			shape = append(shape, grp.Layers)
		}
		shape = append(append(shape, grp.Steps), grp.ElementShape...)
		grp.own = ncstore.AlignedBytes(len(grp.Keys) * wb)
		grp.Values = TypedArray{DType: grp.DType, Shape: shape, Data: grp.own}
	}
	for _, b := range bands {
		rd.bands = append(rd.bands, b)
	}
	for _, d := range dense {
		rd.dense = append(rd.dense, d)
	}
	rd.frees = s.nc.Frees()
	return rd, nil
}

func readerAccepts(typ, key SeriesType) bool {
	if typ == AbstractDeterministicType {
		return key == DeterministicType || key == DeterministicSingleTimeSeriesType || key == AbstractDeterministicType
	}
	return key == typ
}

func (rd *ForecastReader) groupFor(groups map[string]*ForecastGroup, m *Metadata, g forecastRow) *ForecastGroup {
	// Probabilistic layers are comparable only under the same percentiles.
	id := m.DType.String() + "/" + catalog.ShapeJSON(g.eshape) + "/" + itoa(int64(g.lead)) + "/" + itoa(int64(g.h)) + "/" + catalog.PercentilesJSON(m.Percentiles)
	if grp, ok := groups[id]; ok {
		return grp
	}
	grp := &ForecastGroup{DType: m.DType, Layers: g.lead, Percentiles: slices.Clone(m.Percentiles),
		Steps: g.h, ElementShape: slices.Clone(g.eshape)}
	groups[id] = grp
	rd.groups = append(rd.groups, grp)
	return grp
}

func (s *Store) denseFor(dense map[hashing.Digest]*denseSource, m *Metadata, g forecastRow) (*denseSource, error) {
	d := hashing.Digest(m.DataHash)
	if src, ok := dense[d]; ok {
		return src, nil
	}
	sv, err := s.denseVar(m)
	if err != nil {
		return nil, err
	}
	chunks, err := s.nc.ChunkShape(sv)
	if err != nil {
		return nil, wrapIO("", err, "reading the chunking of %s", sv.Name())
	}
	axis := leadAxes(m.Type) + 1
	src := &denseSource{sv: sv, lay: g.layout(m.DType), axis: axis, loaded: -1,
		block: int(min(max(chunks[axis], 1), uint64(g.count)))}
	dense[d] = src
	return src, nil
}

func (s *Store) bandFor(bands map[*ncstore.Packed]*bandSource, m *Metadata, g forecastRow) (*bandSource, int, error) {
	slot, ok := s.nc.Column(hashing.Digest(m.DataHash))
	if !ok {
		return nil, 0, corruptAt("", "data_hash", "%s: its source array %x is not a packed column", m.Key, m.DataHash)
	}
	ds := slot.Dataset()
	if !ds.Holds(m.DType, m.Length, m.ElementShape) {
		return nil, 0, corruptAt("", "data_hash", "row says %s %d×%v but dataset %s holds %s %d×%v",
			m.DType, m.Length, m.ElementShape, ds.Name(), ds.DType(), ds.Length(), ds.ElementShape())
	}
	b, ok := bands[ds]
	if !ok {
		b = &bandSource{ds: ds, col0: slot.Column(), cols: 1, step: g.step, h: g.h, last: -1}
		bands[ds] = b
	}
	if slot.Column() < b.col0 {
		b.cols += b.col0 - slot.Column()
		b.col0 = slot.Column()
	}
	b.cols = max(b.cols, slot.Column()-b.col0+1)
	b.h = max(b.h, g.h)
	return b, slot.Column(), nil // the column is made relative once all members are known
}

// Keys are the reader's keys in the order given.
func (rd *ForecastReader) Keys() []Key { return rd.keys }

// Grid is the shared window timeline.
func (rd *ForecastReader) Grid() ForecastGrid { return rd.grid }

// Groups are the reader's groups; their Values hold the last window read.
func (rd *ForecastReader) Groups() []*ForecastGroup { return rd.groups }

// Window is the index of the last window read, -1 before the first.
func (rd *ForecastReader) Window() int { return rd.window }

// Read fills every group with the window starting at start, which must be on the timeline.
func (rd *ForecastReader) Read(start time.Time) error {
	g := forecastRow{grid: rd.grid, count: rd.grid.Count}
	i, err := g.windowIndex(ArgStart, start)
	if err != nil {
		return withOp("forecast_reader_read", err)
	}
	return rd.ReadWindow(i)
}

// ReadWindow fills every group with window i (0 ≤ i < Grid().Count).
func (rd *ForecastReader) ReadWindow(i int) error {
	const op = "forecast_reader_read"
	if rd.s == nil {
		return invalid(op, ArgNone, "the reader is closed")
	}
	if i < 0 || i >= rd.grid.Count {
		return invalid(op, ArgStep, "%d is outside 0–%d", i, rd.grid.Count-1)
	}
	if err := rd.s.lock(op, false); err != nil {
		return err
	}
	defer rd.s.mu.Unlock()
	if rd.nc != rd.s.nc {
		return errRewritten(op)
	}
	if err := rd.checkColumns(); err != nil {
		return withOp(op, err)
	}
	if err := rd.s.loadDenseBlocks(rd.dense, i); err != nil {
		return wrapIO(op, err, "reading the forecasts' blocks of window %d", i)
	}
	for _, b := range rd.bands {
		if err := rd.s.loadBand(b, i*b.step, min(i*b.step+b.h, b.ds.Length())); err != nil {
			return wrapIO(op, err, "reading rows of %s", b.ds.Name())
		}
	}
	for _, grp := range rd.groups {
		wb := grp.Layers * grp.Steps * ncstore.ElementCount(grp.ElementShape) * grp.DType.Width()
		for _, mem := range grp.members {
			out := grp.Values.Data[mem.at : mem.at+wb]
			if mem.dense != nil {
				d := mem.dense
				d.lay.extractWindow(out, d.buf, d.n, i-d.loaded*d.block)
				continue
			}
			b := mem.band
			eb := ncstore.ElementCount(grp.ElementShape) * grp.DType.Width()
			row0 := i*b.step - b.lo
			if eb == 8 {
				gather8(out, b.buf, (row0*b.cols + mem.col - b.col0), b.cols, mem.h)
				continue
			}
			for h := 0; h < mem.h; h++ {
				src := ((row0+h)*b.cols + (mem.col - b.col0)) * eb
				copy(out[h*eb:(h+1)*eb], b.buf[src:src+eb])
			}
		}
	}
	rd.window = i
	return nil
}

// checkColumns makes sure, after any packed column of the file was freed, that every band
// column still holds the array the reader was built over: a freed column may since hold
// another series. Standalone arrays are never freed in place, so they cannot change.
func (rd *ForecastReader) checkColumns() error {
	if rd.frees == rd.s.nc.Frees() {
		return nil
	}
	for _, grp := range rd.groups {
		for j, mem := range grp.members {
			if mem.band != nil && mem.band.ds.SlotHash(mem.col) != mem.hash {
				return atItem(newErr(ErrNotFound, "", ArgLookup,
					"%s: its array was freed after the reader was built; build a new reader", rd.keys[grp.Keys[j]]), "which", grp.Keys[j])
			}
		}
	}
	for _, b := range rd.bands {
		b.lo, b.hi, b.buf, b.last = 0, 0, nil, -1 // re-read: freed columns in the band are zeroed
	}
	rd.frees = rd.s.nc.Frees()
	return nil
}

// Bind makes every later Read write group g's values into dst, which must hold the group's
// bytes, instead of the reader's own buffer; nil goes back to that buffer. The caller keeps
// dst valid while it is bound.
func (rd *ForecastReader) Bind(g int, dst []byte) error {
	if g < 0 || g >= len(rd.groups) {
		return invalid("forecast_reader_bind", ArgGroup, "%d is outside 0–%d", g, len(rd.groups)-1)
	}
	return bindGroup(&rd.groups[g].Values, rd.groups[g].own, dst)
}

// Close releases the reader's caches. Closing twice is harmless.
func (rd *ForecastReader) Close() {
	rd.s, rd.dense, rd.bands = nil, nil, nil
	for _, g := range rd.groups {
		g.members = nil
	}
}

// loadDenseBlocks caches, for window i, the block holding it of every dense forecast that
// does not hold it yet (block b is windows [b·block, (b+1)·block)): one chunk each, read and
// decompressed once, on the workers when the file allows (ncstore.ReadSpans).
func (s *Store) loadDenseBlocks(dense []*denseSource, i int) error {
	var need []*denseSource
	var reads []ncstore.SpanRead
	for _, d := range dense {
		if b := i / d.block; d.loaded != b {
			first := b * d.block
			need = append(need, d)
			reads = append(reads, ncstore.SpanRead{Var: d.sv, Axis: d.axis, First: first, N: min(d.block, d.lay.count-first)})
		}
	}
	if len(reads) == 0 {
		return nil
	}
	if err := s.nc.ReadSpans(reads); err != nil {
		for _, d := range need {
			d.loaded = -1
		}
		return err
	}
	for k, d := range need {
		d.buf, d.n, d.loaded = reads[k].Out, reads[k].N, i/d.block
	}
	return nil
}

// loadBand makes rows [lo, hi) of a band's dataset available. A forward sweep keeps the rows
// it already holds and reads only new ones, each row chunk once, reading ahead as many
// windows as readerBandBytes allows; an access out of sequence reads just its own rows.
func (s *Store) loadBand(b *bandSource, lo, hi int) error {
	sequential := b.last >= 0 && lo == b.last+b.step
	b.last = lo
	if lo >= b.lo && hi <= b.hi {
		return nil
	}
	rowBytes := b.cols * b.ds.ElementBytes()
	ahead := 0
	if sequential || lo == 0 {
		ahead = max(0, (readerBandBytes/max(rowBytes, 1)-(hi-lo))/max(b.step, 1))
	}
	newHi := min(b.ds.Length(), hi+ahead*b.step)
	keep := 0
	if lo >= b.lo && lo < b.hi {
		keep = b.hi - lo
	}
	// Two buffers take turns, so a sweep allocates (and the kernel zero-fills) none after its
	// first two bands.
	need := (newHi - lo) * rowBytes
	buf := b.spare
	if cap(buf) < need {
		buf = ncstore.AlignedBytes(need)
	}
	buf = buf[:need]
	if keep > 0 {
		copy(buf, b.buf[(lo-b.lo)*rowBytes:(b.hi-b.lo)*rowBytes])
	}
	b.spare = b.buf
	if err := s.nc.ReadBand(b.ds, lo+keep, newHi-lo-keep, b.col0, b.cols, buf[keep*rowBytes:]); err != nil {
		b.lo, b.hi, b.buf = 0, 0, nil
		return err
	}
	b.lo, b.hi, b.buf = lo, newHi, buf
	return nil
}

// wordAligned says whether b starts on an 8-byte boundary, as gather8 needs (a pointer to a
// uint64 elsewhere is refused by the race detector's pointer checks, and is slow or a fault
// on some hosts).
func wordAligned(b []byte) bool {
	return len(b) == 0 || uintptr(unsafe.Pointer(&b[0]))%8 == 0
}

// gather8 copies n 8-byte values, src words first, first+stride, …, into dst: one window of
// one column from a band of rows. Word moves instead of an 8-byte copy per value (scalar
// f64/i64/u64, the common case); both buffers come from alignedBytes.
func gather8(dst, src []byte, first, stride, n int) {
	if n == 0 {
		return
	}
	d := unsafe.Slice((*uint64)(unsafe.Pointer(&dst[0])), n)
	s := unsafe.Slice((*uint64)(unsafe.Pointer(&src[0])), len(src)/8)
	_ = s[first+(n-1)*stride] // one bounds check for the loop
	for h := range d {
		d[h] = s[first+h*stride]
	}
}

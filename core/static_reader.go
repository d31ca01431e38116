package core

import (
	"slices"
	"time"

	"github.com/tsstore/tsstore/core/internal/catalog"
	"github.com/tsstore/tsstore/core/internal/hashing"
	"github.com/tsstore/tsstore/core/internal/isotime"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// StaticReader reads one timestamp of many SingleTimeSeries at a time, as a simulation loop
// does: Read(t) fills every group's Values with step t of each of its keys. The keys share one
// grid (initial timestamp, resolution, length). Each step is one hyperslab read per packed
// dataset — one chunk, since a chunk holds one timestamp across every column — into buffers
// allocated once, so a sweep allocates nothing per step.
//
// A StaticReader is not safe for concurrent use; it takes the store's lock per Read.
type StaticReader struct {
	s       *Store
	keys    []Key
	t0      time.Time
	res     Period
	length  int
	groups  []*StaticGroup
	sets    []*ncstore.RowSet
	step    int // last step read, -1 before the first
	frees   int64
	nc      *ncstore.File // the file it was built over: a rewrite replaces it
	members []staticMember
	runs    []copyRun // members merged where both sides are contiguous
}

// copyRun moves the bytes of consecutive members from a row buffer to a group's Values in one
// copy: a reader over a batch in column order copies each dataset's row whole, instead of
// one 8-byte copy per key (1.5 ms a step at 100,000 keys).
type copyRun struct {
	grp *StaticGroup
	off int // byte offset in the group's Values
	src []byte
}

// StaticGroup holds the keys of a reader with one dtype and element shape; after each Read,
// Values is [len(Keys), *E] with that step of every key. It is reused by every Read.
type StaticGroup struct {
	DType        DType
	ElementShape []int
	Keys         []int // indices into the reader's keys
	Values       TypedArray
	own          []byte // the reader's buffer for Values, when no caller buffer is bound
}

type staticMember struct {
	set  *ncstore.RowSet
	col  int
	hash hashing.Digest
}

// NewStaticReader prepares a reader over SingleTimeSeries of one resolution sharing one grid,
// each named by a lookup (Lookups makes them of keys): they are resolved once, in one pass,
// and a failure, or a series on another grid, names which[i].
func (s *Store) NewStaticReader(resolution Period, qs []Lookup) (*StaticReader, error) {
	return buildReader(s, "static_reader", qs, func(keys []Key, ms []*Metadata) (*StaticReader, error) {
		return s.newStaticReader(resolution, keys, ms)
	})
}

// readerStart checks what every reader needs of its arguments and writes the arrays still
// pending in the unit of work into the file, which the readers read.
func (s *Store) readerStart(resolution Period, keys []Key) error {
	if !resolution.IsPositive() {
		return invalid("", ArgResolution, "%s is not a positive period", resolution)
	}
	if len(keys) == 0 {
		return invalid("", ArgKeys, "is empty")
	}
	return s.writePending()
}

// newStaticReader builds the reader over keys and their records ms (resolveLookups).
func (s *Store) newStaticReader(resolution Period, keys []Key, ms []*Metadata) (*StaticReader, error) {
	if err := s.readerStart(resolution, keys); err != nil {
		return nil, err
	}
	rd := &StaticReader{s: s, nc: s.nc, keys: slices.Clone(keys), res: resolution, step: -1}
	groups := map[string]*StaticGroup{}
	sets := map[*ncstore.Packed]*ncstore.RowSet{}
	type placed struct {
		grp  *StaticGroup
		set  *ncstore.RowSet
		col  int
		hash hashing.Digest
	}
	var all []placed
	for i, k := range keys {
		if k.Type != SingleTimeSeriesType {
			return nil, atItem(invalid("", ArgSeriesType, "%s is not a SingleTimeSeries", k.Type), "which", i)
		}
		if k.Resolution != resolution {
			return nil, atItem(invalid("", ArgResolution, "%s is not the reader's resolution %s", k.Resolution, resolution), "which", i)
		}
	}
	for i, m := range ms {
		if i == 0 {
			rd.t0, rd.length = m.InitialTimestamp, m.Length
		} else if !m.InitialTimestamp.Equal(rd.t0) || m.Length != rd.length {
			return nil, atItem(invalid("", ArgLookup, "%s starts at %s with %d steps; which[0] starts at %s with %d: a reader's keys share one grid",
				m.Key, isotime.FormatTimestamp(m.InitialTimestamp), m.Length, isotime.FormatTimestamp(rd.t0), rd.length), "which", i)
		}
		slot, ok := s.nc.Column(hashing.Digest(m.DataHash))
		if !ok {
			return nil, corruptAt("", "data_hash", "%s: its array %x is not a packed column", m.Key, m.DataHash)
		}
		ds := slot.Dataset()
		if !ds.Holds(m.DType, m.Length, m.ElementShape) {
			return nil, corruptAt("", "data_hash", "row says %s %d×%v but dataset %s holds %s %d×%v",
				m.DType, m.Length, m.ElementShape, ds.Name(), ds.DType(), ds.Length(), ds.ElementShape())
		}
		set, ok := sets[ds]
		if !ok {
			set = &ncstore.RowSet{DS: ds, Col0: slot.Column(), Cols: 1}
			sets[ds] = set
			rd.sets = append(rd.sets, set)
		}
		hi := max(set.Col0+set.Cols, slot.Column()+1)
		set.Col0 = min(set.Col0, slot.Column())
		set.Cols = hi - set.Col0
		id := m.DType.String() + "/" + catalog.ShapeJSON(m.ElementShape)
		grp, ok := groups[id]
		if !ok {
			grp = &StaticGroup{DType: m.DType, ElementShape: slices.Clone(m.ElementShape)}
			groups[id] = grp
			rd.groups = append(rd.groups, grp)
		}
		grp.Keys = append(grp.Keys, i)
		all = append(all, placed{grp, set, slot.Column(), hashing.Digest(m.DataHash)})
	}
	for _, set := range rd.sets {
		set.Prepare()
	}
	for _, g := range rd.groups {
		eb := ncstore.ElementCount(g.ElementShape) * g.DType.Width()
		g.own = ncstore.AlignedBytes(len(g.Keys) * eb)
		g.Values = TypedArray{DType: g.DType, Shape: append([]int{len(g.Keys)}, g.ElementShape...), Data: g.own}
	}
	next := map[*StaticGroup]int{}
	type span struct {
		grp              *StaticGroup
		set              *ncstore.RowSet
		dst, src, nbytes int
	}
	var spans []span
	for _, p := range all {
		eb := ncstore.ElementCount(p.grp.ElementShape) * p.grp.DType.Width()
		j := next[p.grp]
		next[p.grp]++
		rd.members = append(rd.members, staticMember{set: p.set, col: p.col, hash: p.hash})
		dst, src := j*eb, (p.col-p.set.Col0)*eb
		if n := len(spans); n > 0 {
			last := &spans[n-1]
			if last.grp == p.grp && last.set == p.set && last.dst+last.nbytes == dst && last.src+last.nbytes == src {
				last.nbytes += eb
				continue
			}
		}
		spans = append(spans, span{p.grp, p.set, dst, src, eb})
	}
	for _, sp := range spans {
		rd.runs = append(rd.runs, copyRun{grp: sp.grp, off: sp.dst, src: sp.set.Buf[sp.src : sp.src+sp.nbytes]})
	}
	rd.frees = s.nc.Frees()
	return rd, nil
}

// Keys are the reader's keys in the order given.
func (rd *StaticReader) Keys() []Key { return rd.keys }

// Grid is the shared grid: step i is at InitialTimestamp + i·Resolution, 0 ≤ i < Length.
func (rd *StaticReader) Grid() (initial time.Time, resolution Period, length int) {
	return rd.t0, rd.res, rd.length
}

// Groups are the reader's groups; their Values hold the last step read.
func (rd *StaticReader) Groups() []*StaticGroup { return rd.groups }

// Step is the index of the last step read, -1 before the first.
func (rd *StaticReader) Step() int { return rd.step }

// Read fills every group with the step at t, which must be a grid point of the series:
// off the grid or outside the series is an error, never clamped.
func (rd *StaticReader) Read(t time.Time) error {
	const op = "static_reader_read"
	i, ok, err := rd.res.StepsExact(rd.t0, t)
	if err != nil {
		return invalid(op, ArgStep, "%v", err)
	}
	if !ok {
		return invalid(op, ArgStep, "%s is not on the grid %s + k × %s", isotime.FormatTimestamp(t), isotime.FormatTimestamp(rd.t0), rd.res)
	}
	if i < 0 || i >= int64(rd.length) {
		return invalid(op, ArgStep, "%s is step %d; the series have steps 0–%d", isotime.FormatTimestamp(t), i, rd.length-1)
	}
	return rd.ReadStep(int(i))
}

// ReadStep fills every group with step i (0 ≤ i < length).
func (rd *StaticReader) ReadStep(i int) error {
	const op = "static_reader_read"
	if rd.s == nil {
		return invalid(op, ArgNone, "the reader is closed")
	}
	if i < 0 || i >= rd.length {
		return invalid(op, ArgStep, "%d is outside 0–%d", i, rd.length-1)
	}
	if err := rd.s.lock(op, false); err != nil {
		return err
	}
	defer rd.s.mu.Unlock()
	if rd.nc != rd.s.nc {
		return errRewritten(op)
	}
	if rd.frees != rd.s.nc.Frees() {
		for j, m := range rd.members {
			if m.set.DS.SlotHash(m.col) != m.hash {
				return atItem(newErr(ErrNotFound, op, ArgLookup,
					"%s: its array was freed after the reader was built; build a new reader", rd.keys[j]), "which", j)
			}
		}
		rd.frees = rd.s.nc.Frees()
	}
	if err := rd.s.nc.ReadRows(rd.sets, i); err != nil {
		return wrapIO(op, err, "reading step %d", i)
	}
	for _, r := range rd.runs {
		copy(r.grp.Values.Data[r.off:], r.src)
	}
	rd.step = i
	return nil
}

// Bind makes every later Read write group g's values into dst, which must hold the group's
// bytes, instead of the reader's own buffer; nil goes back to that buffer. The caller keeps
// dst valid while it is bound.
func (rd *StaticReader) Bind(g int, dst []byte) error {
	if g < 0 || g >= len(rd.groups) {
		return invalid("static_reader_bind", ArgGroup, "%d is outside 0–%d", g, len(rd.groups)-1)
	}
	return bindGroup(&rd.groups[g].Values, rd.groups[g].own, dst)
}

// bindGroup points a reader group's Values at dst (nil: own), refusing a dst too short.
func bindGroup(values *TypedArray, own, dst []byte) error {
	if dst == nil {
		values.Data = own
		return nil
	}
	if len(dst) < len(own) {
		return newErr(ErrBufferTooSmall, "reader_bind", ArgBuffer, "%d bytes cannot hold the group's %d", len(dst), len(own))
	}
	values.Data = dst[:len(own):len(own)]
	return nil
}

// Close releases the reader's buffers. Closing twice is harmless.
func (rd *StaticReader) Close() {
	rd.s, rd.sets, rd.members, rd.runs = nil, nil, nil, nil
}

// errRewritten refuses a reader built before a compaction rewrite: its datasets, columns and
// variables are the old file's, and in the new one they hold other series.
func errRewritten(op string) error {
	return invalid(op, ArgNone, "the store was rewritten (compact with rewrite) after the reader was built; build a new reader")
}

package core

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/chunkpipe"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// A StaticReader sweep over every timestamp equals the series as written, for f64 and for
// [3]-shaped i64 series spread over several datasets (a batch and one-at-a-time adds).
func TestStaticReaderSweepEqualsWholeReads(t *testing.T) {
	s, path := newStore(t)
	const n, length = 300, 96
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*1000)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for i := 0; i < n; i++ {
		keys = append(keys, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
		arr := sampleArray(I64, length, []int{3}, i)
		keys = append(keys, mustAdd(t, s, gen(int64(i)), &SingleTimeSeries{Name: "cost", InitialTimestamp: t0, Resolution: Hours(1), Data: arr}, nil))
	}
	s = reopen(t, s, path)
	// What each key must read, from the inputs (not from the store).
	whole := make([]TimeSeries, len(keys))
	for i := 0; i < n; i++ {
		whole[2*i] = hourly("p", ramp(length, float64(i*1000)))
		whole[2*i+1] = &SingleTimeSeries{Data: sampleArray(I64, length, []int{3}, i)}
	}
	if got, err := s.GetMany(keys); err != nil || !sameArray(got[1].(*SingleTimeSeries).Data, whole[1].(*SingleTimeSeries).Data) {
		t.Fatalf("GetMany: %v", err)
	}
	rd, err := s.NewStaticReader(Hours(1), Lookups(keys))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if len(rd.Groups()) != 2 {
		t.Fatalf("%d groups, want f64 scalar and i64 [3]", len(rd.Groups()))
	}
	before := s.nc.Counters().ChunkReads
	for step := 0; step < length; step++ {
		if err := rd.Read(t0.Add(time.Duration(step) * time.Hour)); err != nil {
			t.Fatal(err)
		}
		for _, g := range rd.Groups() {
			eb := ncstore.ElementCount(g.ElementShape) * g.DType.Width()
			for j, ki := range g.Keys {
				w := whole[ki].(*SingleTimeSeries).Data.Data
				if string(g.Values.Data[j*eb:(j+1)*eb]) != string(w[step*eb:(step+1)*eb]) {
					t.Fatalf("key %d step %d differs", ki, step)
				}
			}
		}
	}
	// Two datasets (the batch's f64, the i64 family): one hyperslab each per step.
	if got := s.nc.Counters().ChunkReads - before; got != 2*length {
		t.Fatalf("the sweep read %d chunks, want %d", got, 2*length)
	}
	if allocs := testing.AllocsPerRun(50, func() { rd.ReadStep(7) }); allocs != 0 {
		t.Fatalf("a step allocates %v times", allocs)
	}
	// Keys out of column order, with a run, a gap and a repeat: each lands in its own slot.
	order := []int{10, 11, 12, 5, 6, 6, 299, 0, 1, 2, 3}
	var sel []Key
	for _, i := range order {
		sel = append(sel, keys[2*i])
	}
	rd2, err := s.NewStaticReader(Hours(1), Lookups(sel))
	if err != nil {
		t.Fatal(err)
	}
	defer rd2.Close()
	if err := rd2.ReadStep(40); err != nil {
		t.Fatal(err)
	}
	got, err := Values[float64](rd2.Groups()[0].Values)
	if err != nil {
		t.Fatal(err)
	}
	for j, i := range order {
		if want := float64(i*1000) + 40; got[j] != want {
			t.Fatalf("slot %d (series %d) = %v, want %v", j, i, got[j], want)
		}
	}
}

func TestStaticReaderRefusals(t *testing.T) {
	s, _ := newStore(t)
	k1 := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	k2 := mustAdd(t, s, gen(2), hourly("p", ramp(48, 0)), nil)
	late := mustAdd(t, s, gen(3), &SingleTimeSeries{Name: "p", InitialTimestamp: t0.Add(time.Hour), Resolution: Hours(1), Data: ArrayOf(ramp(24, 0))}, nil)
	fk := mustAdd(t, s, gen(4), sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1), nil)
	cases := []struct {
		name, field string
		res         Period
		keys        []Key
		kind        error
	}{
		{"no keys", "keys", Hours(1), nil, ErrInvalidParameter},
		{"zero resolution", "resolution", Period{}, []Key{k1}, ErrInvalidParameter},
		{"resolution mismatch", "which[0].resolution", Minutes(30), []Key{k1}, ErrInvalidParameter},
		{"other length", "which[1]", Hours(1), []Key{k1, k2}, ErrInvalidParameter},
		{"other start", "which[1]", Hours(1), []Key{k1, late}, ErrInvalidParameter},
		{"forecast key", "which[1].type", Hours(1), []Key{k1, fk}, ErrInvalidParameter},
		{"unknown key", "which[1]", Hours(1), []Key{k1, {OwnerID: 99, Name: "p", Resolution: Hours(1)}}, ErrNotFound},
	}
	for _, c := range cases {
		_, err := s.NewStaticReader(c.res, Lookups(c.keys))
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, c.kind) || e.Field() != c.field {
			t.Errorf("%s: want %v on %s, got %v", c.name, c.kind, c.field, err)
		}
	}
	rd, err := s.NewStaticReader(Hours(1), Lookups([]Key{k1}))
	if err != nil {
		t.Fatal(err)
	}
	for _, ts := range []time.Time{t0.Add(30 * time.Minute), t0.Add(24 * time.Hour), t0.Add(-time.Hour)} {
		wantKind(t, rd.Read(ts), ErrInvalidParameter) // never clamped
	}
	if err := rd.Read(t0.Add(23 * time.Hour)); err != nil || floats(t, rd.Groups()[0].Values)[0] != 23 {
		t.Fatalf("last step: %v", err)
	}
	rd.Close()
	wantKind(t, rd.ReadStep(0), ErrInvalidParameter)
}

// GetMany returns every kind of series in input order, equal to Get, and reads a packed
// dataset in one pass however many of its columns are asked for.
func TestGetManyEqualsGetInOrder(t *testing.T) {
	s, path := newStore(t)
	var keys []Key
	for i := 0; i < 50; i++ {
		keys = append(keys, mustAdd(t, s, gen(int64(i)), hourly("p", ramp(72, float64(i))), nil))
	}
	keys = append(keys,
		mustAdd(t, s, gen(100), &NonSequentialTimeSeries{Name: "o", Timestamps: []time.Time{t0, t0.Add(time.Hour)}, Data: ArrayOf([]float64{1, 2})}, nil),
		mustAdd(t, s, gen(100), sampleForecast(ScenariosType, F32, nil, 4, 3, 2, Hours(4), 1), nil),
		mustAdd(t, s, gen(100), &SingleTimeSeries{Name: "c", InitialTimestamp: t0, Resolution: Days(1), Data: sampleArray(I32, 5, []int{3}, 2)}, nil))
	// Pending (not yet flushed) and flushed series mix too.
	pending := mustAdd(t, s, gen(200), hourly("p", ramp(72, 200)), nil)
	got, err := s.GetMany(append([]Key{pending}, keys...))
	if err != nil {
		t.Fatal(err)
	}
	if !equalFloats(floats(t, got[0].(*SingleTimeSeries).Data), ramp(72, 200)) {
		t.Fatal("pending series differs")
	}
	s = reopen(t, s, path)
	order := []Key{keys[51], keys[7], keys[52], keys[0], keys[49], keys[50]}
	for i := 10; i < 40; i++ {
		order = append(order, keys[i])
	}
	before := s.nc.Counters().ChunkReads
	got, err = s.GetMany(order)
	if err != nil {
		t.Fatal(err)
	}
	// 72 row chunks of the hourly dataset, once, for its 34 columns; the daily i32 dataset's 5.
	if n := s.nc.Counters().ChunkReads - before; n > 72+5+10 {
		t.Fatalf("GetMany touched %d chunks", n)
	}
	for i, k := range order {
		one, err := s.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		if !sameSeries(one, got[i]) {
			t.Fatalf("result %d (%s) differs from Get", i, k)
		}
	}
	rng, err := s.GetManyRange([]Key{keys[3], keys[52], keys[50]}, t0.Add(2*time.Hour), t0.Add(30*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if v := floats(t, rng[0].(*SingleTimeSeries).Data); !equalFloats(v, ramp(72, 3)[2:31]) {
		t.Fatalf("range of a packed series: %v", v[:3])
	}
	if rng[1].(*SingleTimeSeries).Data.Len() != 3 || rng[2].(*NonSequentialTimeSeries).Data.Len() != 0 { // days 0–2; no stamp in [2 h, 30 h)
		t.Fatal("ranges of the daily or irregular series differ")
	}
	_, err = s.GetManyRange([]Key{keys[51]}, t0, t0)
	wantKind(t, err, ErrInvalidParameter)
	_, err = s.GetMany([]Key{keys[0], {OwnerID: 999, Name: "p", Resolution: Hours(1)}})
	wantKind(t, err, ErrNotFound)
}

func sameSeries(a, b TimeSeries) bool {
	switch x := a.(type) {
	case *SingleTimeSeries:
		y, ok := b.(*SingleTimeSeries)
		return ok && x.InitialTimestamp.Equal(y.InitialTimestamp) && x.Resolution == y.Resolution && sameArray(x.Data, y.Data)
	case *NonSequentialTimeSeries:
		y, ok := b.(*NonSequentialTimeSeries)
		return ok && len(x.Timestamps) == len(y.Timestamps) && sameArray(x.Data, y.Data)
	case Forecast:
		y, ok := b.(Forecast)
		return ok && x.Grid() == y.Grid() && sameArray(x.Array(), y.Array())
	}
	return false
}

func TestBatchObjectCommitsOrDiscards(t *testing.T) {
	s, _ := newStore(t)
	b := s.NewBatch()
	for i := 0; i < 5; i++ {
		if err := b.Add(gen(int64(i)), hourly("p", ramp(24, float64(i))), nil); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := s.Has(Key{OwnerID: 0, Name: "p", Resolution: Hours(1)}); ok || b.Len() != 5 {
		t.Fatal("a queued series is visible before Commit")
	}
	keys, err := b.Commit()
	if err != nil || len(keys) != 5 || keys[4].OwnerID != 4 {
		t.Fatalf("commit: %v %v", keys, err)
	}
	_, err = b.Commit()
	wantKind(t, err, ErrInvalidParameter)
	wantKind(t, b.Add(gen(9), hourly("p", ramp(24, 9)), nil), ErrInvalidParameter)
	d := s.NewBatch()
	d.Add(gen(7), hourly("p", ramp(24, 7)), nil)
	d.Discard()
	d.Discard()
	if ok, _ := s.Has(Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}); ok {
		t.Fatal("a discarded series was added")
	}
	// A failing commit adds none of the batch.
	f := s.NewBatch()
	f.Add(gen(20), hourly("p", ramp(24, 20)), nil)
	f.Add(gen(0), hourly("p", ramp(24, 0)), nil) // already stored
	_, err = f.Commit()
	wantKind(t, err, ErrDuplicateTimeSeries)
	if ok, _ := s.Has(Key{OwnerID: 20, Name: "p", Resolution: Hours(1)}); ok {
		t.Fatal("a failed batch added part of itself")
	}
}

// A batch larger than addSlice is prepared and committed a slice at a time inside one
// savepoint: a refusal in a later slice (a duplicate of an item of the first, or a bad item)
// names the item by its index in the whole batch and leaves nothing of the earlier slices;
// an accepted one hands back every key and id in order, and reads back.
func TestBatchAcrossSlicesIsAllOrNothing(t *testing.T) {
	s, _ := newStore(t)
	n := 2*addSlice + 5
	items := func() []BatchItem {
		out := make([]BatchItem, n)
		for i := range out {
			out[i] = BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(4, float64(i)))}
		}
		return out
	}
	wantNothing := func(what string) {
		t.Helper()
		if ks, err := s.ListKeys(KeyFilter{}); err != nil || len(ks) != 0 || s.Stats().Pending != 0 {
			t.Fatalf("%s: %d series stored, %d arrays pending after a refused batch (%v)", what, len(ks),
				s.Stats().Pending, err)
		}
	}
	dup := items()
	dup[n-1].Owner = gen(3)
	_, err := s.AddBatch(dup)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrDuplicateTimeSeries) || e.Items != "items" || e.Item != n-1 ||
		!strings.Contains(err.Error(), "also item 3 of this batch") {
		t.Fatalf("a duplicate of item 3 at item %d: %v", n-1, err)
	}
	wantNothing("duplicate")
	bad := items()
	bad[addSlice+1].Series = hourly("", ramp(4, 0))
	_, err = s.AddBatch(bad)
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalidParameter) || e.Item != addSlice+1 {
		t.Fatalf("an unnamed series at item %d: %v", addSlice+1, err)
	}
	wantNothing("bad item")
	good := items()
	keys, err := s.AddBatch(good)
	if err != nil || len(keys) != n {
		t.Fatalf("AddBatch: %d keys, %v", len(keys), err)
	}
	for _, i := range []int{0, addSlice - 1, addSlice, n - 1} {
		if keys[i].OwnerID != int64(i) || good[i].ID == 0 || (i > 0 && good[i].ID <= good[i-1].ID) {
			t.Fatalf("item %d: key %v, id %d", i, keys[i], good[i].ID)
		}
		got, err := s.Get(keys[i])
		if err != nil {
			t.Fatal(err)
		}
		if v, err := Values[float64](got.(*SingleTimeSeries).Data); err != nil || v[1] != float64(i)+1 {
			t.Fatalf("item %d reads %v, %v", i, v, err)
		}
	}
}

// rampSource is a BatchSource of n hourly series "p" of owners 0…n-1, whose Fill refuses
// item bad (-1: none) as a converting caller would; it records what the add asked and gave.
type rampSource struct {
	n, bad int
	next   int // the first item the next Fill must be asked for
	keys   []Key
	ids    []int64
	t      *testing.T
}

func (r *rampSource) Len() int { return r.n }

func (r *rampSource) Fill(dst []BatchItem, first int) error {
	if first != r.next || len(dst) == 0 || len(dst) > addSlice {
		r.t.Errorf("Fill of %d items from %d; the items before end at %d", len(dst), first, r.next)
	}
	for i := range dst {
		if dst[i] != (BatchItem{}) {
			r.t.Errorf("Fill from %d: item %d of the buffer holds %v", first, i, dst[i])
		}
		if first+i == r.bad {
			return &Error{Kind: ErrInvalidParameter, Arg: ArgName, Items: "items", Item: first + i, Msg: "refused by the source"}
		}
		dst[i] = BatchItem{Owner: gen(int64(first + i)), Series: hourly("p", ramp(4, float64(first+i)))}
	}
	r.next = first + len(dst)
	return nil
}

func (r *rampSource) Committed(first int, items []BatchItem, keys []Key) {
	if first != len(r.keys) || len(items) != len(keys) {
		r.t.Errorf("Committed %d keys from %d after %d", len(keys), first, len(r.keys))
	}
	r.keys = append(r.keys, keys...)
	for _, it := range items {
		r.ids = append(r.ids, it.ID)
	}
}

// AddBatchFrom asks its source for each slice in order into a cleared buffer, hands every
// key and id back in order, and reads back as AddBatch does; a refusal by the source in a
// later slice leaves nothing stored and names the source's item.
func TestAddBatchFromASource(t *testing.T) {
	s, _ := newStore(t)
	n := 2*addSlice + 5
	refused := &rampSource{n: n, bad: addSlice + 3, t: t}
	err := s.AddBatchFrom(refused)
	var e *Error
	if !errors.As(err, &e) || !errors.Is(err, ErrInvalidParameter) || e.Item != addSlice+3 ||
		!strings.Contains(err.Error(), "refused by the source") {
		t.Fatalf("a source refusing item %d: %v", addSlice+3, err)
	}
	if ks, err := s.ListKeys(KeyFilter{}); err != nil || len(ks) != 0 || s.Stats().Pending != 0 {
		t.Fatalf("after a refused source: %d series stored, %d arrays pending (%v)", len(ks), s.Stats().Pending, err)
	}
	if err := s.AddBatchFrom(&rampSource{n: 0, bad: -1, t: t}); err != nil {
		t.Fatalf("an empty source: %v", err)
	}
	src := &rampSource{n: n, bad: -1, t: t}
	if err := s.AddBatchFrom(src); err != nil {
		t.Fatal(err)
	}
	if len(src.keys) != n || src.next != n {
		t.Fatalf("%d keys handed back, items filled up to %d, of %d", len(src.keys), src.next, n)
	}
	for i, k := range src.keys {
		if k.OwnerID != int64(i) || src.ids[i] == 0 || (i > 0 && src.ids[i] <= src.ids[i-1]) {
			t.Fatalf("item %d: key %v, id %d", i, k, src.ids[i])
		}
	}
	for _, i := range []int{0, addSlice, n - 1} {
		got, err := s.Get(src.keys[i])
		if err != nil {
			t.Fatal(err)
		}
		if v, err := Values[float64](got.(*SingleTimeSeries).Data); err != nil || v[1] != float64(i)+1 {
			t.Fatalf("item %d reads %v, %v", i, v, err)
		}
		m, err := s.GetMetadata(src.keys[i])
		if err != nil || m.ID != src.ids[i] {
			t.Fatalf("item %d: id %d handed back, %d stored (%v)", i, src.ids[i], m.ID, err)
		}
	}
}

// panickingSource is a rampSource whose Fill panics at item at, as a bug would.
type panickingSource struct {
	rampSource
	at int
}

func (p *panickingSource) Fill(dst []BatchItem, first int) error {
	if first <= p.at && p.at < first+len(dst) {
		panic("a bug in the source")
	}
	return p.rampSource.Fill(dst, first)
}

// A panic inside an add (a bug, here in a source's second slice) goes on up, but leaves the
// store as it was and usable: the call's savepoint rolled back, the catalog out of its bulk
// mode with every index, the next bulk add and lookups working.
func TestAPanicInABatchAddLeavesTheStoreUsable(t *testing.T) {
	s, _ := newStore(t)
	if _, err := s.Add(gen(-1), hourly("q", ramp(4, 0)), nil); err != nil {
		t.Fatal(err)
	}
	pending := s.Stats().Pending
	n := 2*addSlice + 5
	func() {
		defer func() {
			if r := recover(); r != "a bug in the source" {
				t.Fatalf("recovered %v, want the source's panic", r)
			}
		}()
		s.AddBatchFrom(&panickingSource{rampSource{n: n, bad: -1, t: t}, addSlice + 7})
	}()
	if ks, err := s.ListKeys(KeyFilter{}); err != nil || len(ks) != 1 || s.Stats().Pending != pending {
		t.Fatalf("after the panic: %d series listed, %d arrays pending (%v); want the one added before", len(ks),
			s.Stats().Pending, err)
	}
	src := &rampSource{n: n, bad: -1, t: t}
	if err := s.AddBatchFrom(src); err != nil {
		t.Fatalf("the bulk add after the panic: %v", err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if ks, err := s.ListKeys(KeyFilter{OwnerID: ptr(int64(addSlice + 7))}); err != nil || len(ks) != 1 {
		t.Fatalf("owner %d after the second add: %d keys (%v)", addSlice+7, len(ks), err)
	}
	if ok, err := s.Has(Key{OwnerID: -1, Name: "q", Resolution: Hours(1)}); err != nil || !ok {
		t.Fatalf("the series added before the panic: %v, %v", ok, err)
	}
}

// committedPanicSource panics in its first Committed once the next slice's Fill has begun;
// that Fill lingers a little and records when it ends.
type committedPanicSource struct {
	rampSource
	started, proceed chan struct{}
	filled           atomic.Bool // the second Fill has returned
}

func (c *committedPanicSource) Fill(dst []BatchItem, first int) error {
	if first == 0 {
		return c.rampSource.Fill(dst, first)
	}
	close(c.started)
	<-c.proceed
	time.Sleep(20 * time.Millisecond) // not a bound on anything: time for a caller gone to be gone
	err := c.rampSource.Fill(dst, first)
	c.filled.Store(true)
	return err
}

func (c *committedPanicSource) Committed(int, []BatchItem, []Key) {
	<-c.started
	close(c.proceed)
	panic("a bug in Committed")
}

// A panic on the add's goroutine (here in Committed) leaves the add only once the next
// slice's Fill, running beside it, has returned: a caller's memory that Fill reads is never
// read after the add is over.
func TestAPanicInABatchAddWaitsForTheNextFill(t *testing.T) {
	s, _ := newStore(t)
	src := &committedPanicSource{rampSource: rampSource{n: 1000, bad: -1, t: t},
		started: make(chan struct{}), proceed: make(chan struct{})}
	func() {
		defer func() {
			if r := recover(); r != "a bug in Committed" {
				t.Fatalf("recovered %v, want Committed's panic", r)
			}
		}()
		s.AddBatchFrom(src)
	}()
	if !src.filled.Load() {
		t.Fatal("the add was over while the next slice's Fill still ran")
	}
	if ks, err := s.ListKeys(KeyFilter{}); err != nil || len(ks) != 0 {
		t.Fatalf("after the panic: %d series listed (%v)", len(ks), err)
	}
}

// A first bulk read of a read-only store, whole series through ReadManyInto and GetMany,
// reads each row chunk of the datasets it touches once, whether the datasets are decoded
// ahead while the catalog pass runs (two or more workers) or by the read itself (one), and
// reads back what was written: a batch found by one pass over the table (scanned) and
// one-at-a-time adds in another dataset (found by owner lists).
func TestFirstBulkReadsReadEachChunkOnce(t *testing.T) {
	s, path := newStore(t)
	const batch, singles, length = 300, 20, 30
	var items []BatchItem
	for i := 0; i < batch; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*1000)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	var keys []Key
	for i := 0; i < batch; i++ {
		keys = append(keys, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
	}
	for i := 0; i < singles; i++ {
		keys = append(keys, mustAdd(t, s, gen(int64(i)), hourly("q", ramp(length, float64(-i))), nil))
	}
	want := func(i int) []float64 {
		if i < batch {
			return ramp(length, float64(i*1000))
		}
		return ramp(length, float64(-(i - batch)))
	}
	s = reopenReadOnly(t, s, path)
	const datasets = 2
	for _, threads := range []int{1, 2, 4} {
		for _, call := range []string{"ReadManyInto", "GetMany"} {
			prev := chunkpipe.SetThreads(threads)
			s = reopenReadOnly(t, s, path)
			got := make([][]float64, len(keys))
			if call == "GetMany" {
				all, err := s.GetMany(keys)
				if err != nil {
					t.Fatal(err)
				}
				for i, ts := range all {
					if got[i], err = Values[float64](ts.(*SingleTimeSeries).Data); err != nil {
						t.Fatal(err)
					}
				}
			} else {
				dsts := make([][]byte, len(keys))
				for i := range dsts {
					dsts[i] = make([]byte, length*8)
				}
				if _, _, err := s.ReadManyInto(Lookups(keys), dsts); err != nil {
					t.Fatal(err)
				}
				for i, d := range dsts {
					got[i] = make([]float64, length)
					for j := range got[i] {
						got[i][j] = math.Float64frombits(binary.LittleEndian.Uint64(d[8*j:]))
					}
				}
			}
			c := s.nc.Counters()
			if c.DirectReads != datasets*length {
				t.Errorf("%s, %d threads: %d row chunks read, want each of %d once", call, threads, c.DirectReads, datasets*length)
			}
			if ahead := c.ReadAhead; (threads > 1) != (ahead == datasets*length) || (threads == 1 && ahead != 0) {
				t.Errorf("%s, %d threads: %d row chunks read ahead of the read", call, threads, ahead)
			}
			for i := range keys {
				if !slices.Equal(got[i], want(i)) {
					t.Fatalf("%s, %d threads: series %d reads %v, want %v", call, threads, i, got[i], want(i))
				}
			}
			chunkpipe.SetThreads(prev)
		}
	}
}

// A key asked for twice in one GetMany gets two arrays, whether its column was gathered
// during the catalog pass (two workers or more) or read after it: writing into one leaves
// the other as read.
func TestGetManyGivesARepeatedKeyTwoArrays(t *testing.T) {
	s, path := newStore(t)
	const n, length = 300, 12
	var items []BatchItem
	var keys []Key
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i)))})
		keys = append(keys, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	keys = append(keys, keys[7], keys[7])
	for _, threads := range []int{1, 2} {
		prev := chunkpipe.SetThreads(threads)
		s = reopenReadOnly(t, s, path)
		got, err := s.GetMany(keys)
		chunkpipe.SetThreads(prev)
		if err != nil {
			t.Fatal(err)
		}
		a, b, c := got[7].(*SingleTimeSeries).Data.Data, got[n].(*SingleTimeSeries).Data.Data, got[n+1].(*SingleTimeSeries).Data.Data
		clear(a)
		clear(c)
		if want := ramp(length, 7); !slices.Equal(mustFloats(t, got[n]), want) {
			t.Fatalf("%d threads: writing into two reads of a key changed a third: %v", threads, mustFloats(t, got[n]))
		}
		if &a[0] == &b[0] || &b[0] == &c[0] {
			t.Fatalf("%d threads: reads of one key share their memory", threads)
		}
	}
}

// mustFloats is ts's values as float64s.
func mustFloats(t *testing.T, ts TimeSeries) []float64 {
	t.Helper()
	v, err := Values[float64](ts.(*SingleTimeSeries).Data)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

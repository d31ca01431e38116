package core

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

// committedRows counts the rows another process (sqlite3) sees: only committed ones.
func committedRows(t *testing.T, path string) string {
	t.Helper()
	return strings.TrimSpace(run(t, "sqlite3", CatalogPath(path), "SELECT count(*) FROM time_series_associations"))
}

func TestNestedRollbackRestoresRemovedSeries(t *testing.T) {
	s, path := newStore(t)
	a := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	b := mustAdd(t, s, gen(2), hourly("p", ramp(24, 2)), nil)
	c := mustAdd(t, s, gen(3), hourly("p", ramp(24, 3)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(a); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(b); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Has(b); ok {
		t.Fatal("a removal inside a transaction is not visible inside it")
	}
	if err := s.Rollback(); err != nil { // the inner level: b is back
		t.Fatal(err)
	}
	if ok, _ := s.Has(b); !ok {
		t.Fatal("nested rollback did not restore the removed series")
	}
	if err := s.Commit(); err != nil {
		t.Fatal(err)
	}
	// A whole transaction rolled back loses nothing either.
	err := s.InTransaction(func() error {
		if err := s.Remove(c); err != nil {
			return err
		}
		return fmt.Errorf("changed my mind")
	})
	if err == nil || !strings.Contains(err.Error(), "changed my mind") {
		t.Fatalf("InTransaction returned %v", err)
	}
	s.Close()
	slots := hashSlots(t, path, "sts_f64_s_24_PT1H")
	if slots[0] != "" || slots[1] != hashOf(ArrayOf(ramp(24, 2))) || slots[2] != hashOf(ArrayOf(ramp(24, 3))) {
		t.Fatalf("slots after commit: %v", slots[:3])
	}
	s = openAgain(t, path)
	for k, off := range map[*Key]float64{&b: 2, &c: 3} {
		if !equalFloats(floats(t, mustGetSingle(t, s, *k).Data), ramp(24, off)) {
			t.Fatalf("%s lost its values through a rolled-back removal", *k)
		}
	}
	if ok, _ := s.Has(a); ok {
		t.Fatal("committed removal undone")
	}
}

func TestReadsInsideTransactionSeeItsWrites(t *testing.T) {
	s, path := newStore(t)
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	k := mustAdd(t, s, gen(1), hourly("p", ramp(48, 5)), nil)
	fk := mustAdd(t, s, gen(1), sampleForecast(DeterministicType, F64, []int{3}, 4, 6, 0, Hours(4), 1), nil)
	if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(48, 5)) {
		t.Fatal("pending series reads wrong values")
	}
	if r, err := s.GetRange(k, t0.Add(2*time.Hour), t0.Add(4*time.Hour)); err != nil || !equalFloats(floats(t, r.(*SingleTimeSeries).Data), ramp(48, 5)[2:5]) {
		t.Fatalf("pending range: %v", err)
	}
	want, _ := sampleForecast(DeterministicType, F64, []int{3}, 4, 6, 0, Hours(4), 1).Window(4)
	w, err := s.GetWindow(fk, t0.Add(16*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Window(0); !sameArray(got, want) {
		t.Fatal("pending forecast window differs")
	}
	// A reader writes the pending arrays to the file (uncommitted) and reads them there.
	rd, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups([]Key{fk}))
	if err != nil {
		t.Fatal(err)
	}
	if err := rd.ReadWindow(4); err != nil || !sameArray(readerWindow(rd, 0), want) {
		t.Fatalf("reader inside a transaction: %v", err)
	}
	if n := committedRows(t, path); n != "0" {
		t.Fatalf("another process sees %s rows of an open transaction", n)
	}
	wantKind(t, s.Flush(), ErrInvalidParameter)
	if err := s.Rollback(); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Has(k); ok {
		t.Fatal("rolled-back add still visible")
	}
	s.Close()
	// The column the reader made it write was taken back: no hash in any slot.
	for _, h := range hashSlots(t, path, "sts_f64_s_48_PT1H") {
		if h != "" {
			t.Fatalf("rolled-back add left hash %s in a slot", h)
		}
	}
	wantKind(t, openAgain(t, path).Commit(), ErrInvalidParameter)
}

func TestCloseRollsBackAnOpenTransaction(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	k2 := mustAdd(t, s, gen(2), hourly("p", ramp(24, 1)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAgain(t, path)
	if ok, _ := s.Has(k); !ok {
		t.Fatal("the add before Begin was lost")
	}
	if ok, _ := s.Has(k2); ok {
		t.Fatal("Close committed an open transaction")
	}
}

// Outside a transaction, writes are durable at Flush, Close — or when the write buffer
// fills, which commits on its own.
func TestWriteBufferCommits(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 10; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i))), nil)
	}
	if n := committedRows(t, path); n != "0" {
		t.Fatalf("%s rows committed before any flush point", n)
	}
	if err := s.SetWriteBuffer(1000); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(10), hourly("p", ramp(24, 10)), nil) // 11 × 192 bytes pending > 1000
	if n := committedRows(t, path); n != "11" {
		t.Fatalf("%s rows committed after the buffer filled", n)
	}
	wantKind(t, s.SetWriteBuffer(-1), ErrInvalidParameter)
}

// The batch path writes O(datasets), not O(series): 100,000 one-step series in one batch
// land in one dataset with one data write and one hash-slot write.
func TestBatchWritesPerDatasetNotPerSeries(t *testing.T) {
	if testing.Short() {
		t.Skip("100,000 series")
	}
	s, path := newStore(t)
	items := make([]BatchItem, 100_000)
	for i := range items {
		items[i] = BatchItem{Owner: gen(int64(i)), Series: hourly("p", []float64{float64(i)})}
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	before := s.nc.Counters().NCWrites
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if n := s.nc.Counters().NCWrites - before; n != 2 {
		t.Fatalf("100,000 series took %d netcdf writes", n)
	}
	s.Close()
	if hs := run(t, "ncdump", "-h", path); !strings.Contains(hs, "sts_f64_s_1_PT1H_c = 100000 ;") {
		t.Fatalf("dataset width is not the batch:\n%s", hs[:min(len(hs), 800)])
	}
	s = openAgain(t, path)
	for _, i := range []int{0, 4242, 99_999} {
		if v := floats(t, mustGetSingle(t, s, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}).Data); v[0] != float64(i) {
			t.Fatalf("series %d reads %v", i, v)
		}
	}
}

// A batch of 20,000 lands in datasets as wide as the batch, or as the 1 MiB cap allows,
// spilling into __1, __2, …; every series reads back after a reopen.
func TestBatchSizesDatasetsToTheBatch(t *testing.T) {
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < 20_000; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(24, float64(i)))})
		if i < 3000 { // [100] f64 per step: 1 MiB / 800 B = 1,310 columns per dataset
			v := make([]int64, 2*100)
			for j := range v {
				v[j] = int64(i*1000 + j)
			}
			items = append(items, BatchItem{Owner: gen(int64(i)), Series: &SingleTimeSeries{Name: "wide",
				InitialTimestamp: t0, Resolution: Days(1), Data: ArrayOf(v, 2, 100)}})
		}
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	s.Close()
	hs := run(t, "ncdump", "-h", path)
	for _, want := range []string{"sts_f64_s_24_PT1H_c = 20000 ;", "sts_i64_100_2_P1D_c = 1310 ;",
		"sts_i64_100_2_P1D__1_c = 1310 ;", "sts_i64_100_2_P1D__2_c = 380 ;"} {
		if !strings.Contains(hs, want) {
			t.Errorf("ncdump -h lacks %q", want)
		}
	}
	s = openAgain(t, path)
	for _, i := range []int{0, 1309, 1310, 2999, 19_999} {
		if !equalFloats(floats(t, mustGetSingle(t, s, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}).Data), ramp(24, float64(i))) {
			t.Fatalf("series %d reads wrong values", i)
		}
		if i < 3000 {
			v, _ := Values[int64](mustGetSingle(t, s, Key{OwnerID: int64(i), Name: "wide", Resolution: Days(1)}).Data)
			if v[0] != int64(i*1000) || v[199] != int64(i*1000+199) {
				t.Fatalf("wide series %d reads %v…%v", i, v[0], v[199])
			}
		}
	}
}

// A loop of 10,000 single adds writes each dataset in row bands at the flush point: O(chunk
// bands) netcdf writes, not O(series × chunks).
func TestLoopOfSingleAddsWritesBands(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 10_000; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i))), nil)
	}
	before := s.nc.Counters().NCWrites
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// Ten default-width datasets of 1,000 columns: one band and one slot write each.
	if n := s.nc.Counters().NCWrites - before; n != 20 {
		t.Fatalf("10,000 single adds took %d netcdf writes", n)
	}
	s.Close()
	if hs := run(t, "ncdump", "-h", path); !strings.Contains(hs, "sts_f64_s_24_PT1H__9_c = 1000 ;") {
		t.Fatal("one-at-a-time adds did not use default-width datasets")
	}
}

// A packed column or standalone variable that no row names — what a crash between writing
// arrays and committing the catalog leaves — is freed or distrusted on the next writable
// open, and an add of the same content then stores it correctly.
func TestOrphanArraysCleanedOnWritableOpen(t *testing.T) {
	s, path := newStore(t)
	kept := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	orphan := hourly("p", ramp(24, 2))
	fc := sampleForecast(DeterministicType, F64, nil, 4, 3, 0, Hours(4), 1)
	for _, ts := range []TimeSeries{orphan, fc} {
		p, err := prepareAdd(gen(2), ts, &AddOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.nc.WriteArrays([]*ncstore.Array{p.stored()}); err != nil {
			t.Fatal(err)
		}
	}
	// The forecast variable is defined and then left unfilled, as a crash mid-write would.
	p, _ := prepareAdd(gen(3), sampleForecast(ScenariosType, F64, nil, 4, 3, 2, Hours(4), 9), &AddOptions{})
	if err := s.nc.DefineOnlyForTesting(p.stored()); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if slots := hashSlots(t, path, "sts_f64_s_24_PT1H"); slots[1] == "" {
		t.Fatal("setup: the orphan column has no hash")
	}
	s = openAgain(t, path)
	s.Close()
	if slots := hashSlots(t, path, "sts_f64_s_24_PT1H"); slots[1] != "" || slots[0] != hashOf(ArrayOf(ramp(24, 1))) {
		t.Fatalf("orphan column not freed on open: %v", slots[:2])
	}
	s = openAgain(t, path)
	k := mustAdd(t, s, gen(2), orphan, nil)
	fk := mustAdd(t, s, gen(2), fc, nil)
	sk := mustAdd(t, s, gen(3), sampleForecast(ScenariosType, F64, nil, 4, 3, 2, Hours(4), 9), nil)
	s = reopen(t, s, path)
	if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(24, 2)) || !equalFloats(floats(t, mustGetSingle(t, s, kept).Data), ramp(24, 1)) {
		t.Fatal("re-added or kept series reads wrong values")
	}
	if !sameArray(mustGetForecast(t, s, fk).Array(), fc.Array()) {
		t.Fatal("forecast re-added over an orphan variable reads wrong values")
	}
	if !sameArray(mustGetForecast(t, s, sk).Array(), sampleForecast(ScenariosType, F64, nil, 4, 3, 2, Hours(4), 9).Array()) {
		t.Fatal("forecast re-added over an unfilled variable reads fill values")
	}
}

// A process killed after a flush and in the middle of more adds: on reopen every series
// committed by the flush reads back exactly and none of the later ones has a row.
func TestKilledWriterLosesOnlyUncommittedWork(t *testing.T) {
	if os.Getenv("TSSTORE_CRASH_CHILD") != "" {
		crashChild(os.Getenv("TSSTORE_CRASH_CHILD"))
		return
	}
	path := filepath.Join(t.TempDir(), "crash.nc")
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledWriterLosesOnlyUncommittedWork$")
	cmd.Env = append(os.Environ(), "TSSTORE_CRASH_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("child did not die by SIGKILL: %v\n%s", err, out)
	}
	s := openAgain(t, path)
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil || len(keys) != 100 {
		t.Fatalf("%d series after the kill, want the 100 flushed (%v)", len(keys), err)
	}
	for i := 0; i < 100; i++ {
		k := Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}
		if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(168, float64(i))) {
			t.Fatalf("committed series %d damaged", i)
		}
	}
	// The uncommitted columns were freed on open; the next writes reuse them correctly.
	s.Close()
	for i, h := range hashSlots(t, path, "sts_f64_s_168_PT1H") {
		if (i < 100) != (h != "") {
			t.Fatalf("slot %d after recovery: %q", i, h)
		}
	}
	s = openAgain(t, path)
	mustAdd(t, s, gen(150), hourly("p", ramp(168, 150)), nil)
	s = reopen(t, s, path)
	if !equalFloats(floats(t, mustGetSingle(t, s, Key{OwnerID: 150, Name: "p", Resolution: Hours(1)}).Data), ramp(168, 150)) {
		t.Fatal("write after recovery reads wrong values")
	}
}

func crashChild(path string) {
	s, err := Create(path, nil)
	if err != nil {
		panic(err)
	}
	for i := 0; i < 100; i++ {
		if _, err := s.Add(gen(int64(i)), hourly("p", ramp(168, float64(i))), nil); err != nil {
			panic(err)
		}
	}
	if err := s.Flush(); err != nil {
		panic(err)
	}
	// The next adds stay uncommitted, their arrays written to the file (as a reader or a
	// full write buffer inside a transaction would have them).
	for i := 100; i < 200; i++ {
		s.Add(gen(int64(i)), hourly("p", ramp(168, float64(i))), nil)
	}
	s.mu.Lock()
	s.writePending()
	s.nc.Sync()
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

package core

import (
	"crypto/sha256"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/lifecycle"
)

// rewriteSeries is the i-th series of the rewrite tests: SingleTimeSeries of 168 steps in
// two owner types, every tenth a Deterministic forecast.
func rewriteSeries(i int) BatchItem {
	if i%10 == 9 {
		return BatchItem{Owner: Owner{ID: int64(i), Type: "Gen", Category: Component},
			Series: sampleForecast(DeterministicType, F64, nil, 24, 7, 1, Days(1), i)}
	}
	v := make([]float64, 168)
	for k := range v {
		v[k] = float64(i) + float64(k)/1000
	}
	return BatchItem{Owner: Owner{ID: int64(i), Type: "Bus", Category: Component},
		Series: &SingleTimeSeries{Name: "load", InitialTimestamp: time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC),
			Resolution: Hours(1), Data: ArrayOf(v, 168)}}
}

// churnedStore fills a store with n series, removes 90% of them and adds n/10 new ones: the
// state a compaction rewrite is for. It returns the survivors in the order they were added.
func churnedStore(t *testing.T, path string, n int) []BatchItem {
	t.Helper()
	s, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, rewriteSeries(i))
	}
	keys, err := s.AddBatch(items)
	if err != nil {
		t.Fatal(err)
	}
	// Committed first: removing arrays still pending would only drop them from the unit.
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	var survivors []BatchItem
	for i, k := range keys {
		if i%10 == 3 {
			survivors = append(survivors, items[i])
			continue
		}
		if err := s.Remove(k); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	var more []BatchItem
	for i := n; i < n+n/10; i++ {
		more = append(more, rewriteSeries(i))
	}
	if _, err := s.AddBatch(more); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return append(survivors, more...)
}

func keyOfItem(t *testing.T, it BatchItem) Key {
	t.Helper()
	k := Key{OwnerID: it.Owner.ID, OwnerCategory: it.Owner.Category, Type: it.Series.SeriesType(), Name: it.Series.SeriesName()}
	switch v := it.Series.(type) {
	case *SingleTimeSeries:
		k.Resolution = v.Resolution
	case *Deterministic:
		k.Resolution, k.Interval = v.Resolution, v.Interval
	}
	return k
}

// checkSurvivors reads every survivor back from the store at path (read-only): the same
// bytes, and the catalog's data_hash is the hash of what was added.
func checkSurvivors(t *testing.T, path string, survivors []BatchItem) {
	t.Helper()
	s, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, it := range survivors {
		k := keyOfItem(t, it)
		want := seriesData(it.Series)
		checkSeries(t, s, k, want)
		m, err := s.GetMetadata(k)
		if err != nil {
			t.Fatal(err)
		}
		if m.DataHash != want.hash() {
			t.Fatalf("%s: data_hash %x, want %x", k, m.DataHash[:8], want.hash())
		}
	}
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != len(survivors) {
		t.Fatalf("%d series listed, want the %d survivors", len(keys), len(survivors))
	}
	rep, err := s.VerifyIntegrity()
	if err != nil || !rep.OK() {
		t.Fatalf("verify_integrity after the rewrite: %+v %v", rep, err)
	}
}

// A rewrite of a store that lost 90% of its series gives the space back: the pair it leaves
// is the size of a fresh store holding only the survivors (within 1.1×), laid out the same
// (ncdump -hs prints the same header for both), and every survivor reads back bit for bit
// with its data_hash. The Store goes on working on the new pair.
func TestCompactRewriteGivesSpaceBack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "churned.nc")
	survivors := churnedStore(t, path, 2000)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Compact(&CompactOptions{Rewrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.SlotsReclaimed == 0 || rep.DeadStandalone == 0 || rep.BytesAfter >= rep.BytesBefore || rep.BytesAfter != lifecycle.PairSize(path) {
		t.Fatalf("report %+v; the pair is %d bytes now", rep, lifecycle.PairSize(path))
	}
	// The store goes on: a write after the rewrite, then a read of it.
	extra := rewriteSeries(99999)
	if _, err := s.Add(extra.Owner, extra.Series, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(lifecycle.RewriteDir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("%s is still there: %v", lifecycle.RewriteDir(path), err)
	}
	checkSurvivors(t, path, append(survivors, extra))
	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(keyOfItem(t, extra)); err != nil {
		t.Fatal(err)
	}
	// This time the arrays reach the new file in batches of about 50 KiB: the datasets must
	// still be as wide as for the survivors in one batch.
	defer func(n int) { rewriteBatchBytes = n }(rewriteBatchBytes)
	rewriteBatchBytes = 50 << 10
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	s.Close()

	fresh := filepath.Join(dir, "fresh.nc")
	f, err := Create(fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.AddBatch(survivors); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got, base := lifecycle.PairSize(path), lifecycle.PairSize(fresh); float64(got) > 1.1*float64(base) {
		t.Fatalf("the rewritten pair is %d bytes, %.2f× a fresh store of the survivors (%d)", got, float64(got)/float64(base), base)
	}
	header := func(p string) string {
		out := run(t, "ncdump", "-hs", p)
		return out[strings.IndexByte(out, '\n'):] // past "netcdf <name> {"
	}
	if a, b := header(path), header(fresh); a != b {
		t.Fatalf("the rewritten file's layout differs from a fresh store's:\n%s\n----\n%s", a, b)
	}
	checkSurvivors(t, path, survivors)
}

// The independent writer's store survives a rewrite with every expected value.
func TestCompactRewriteOfIndependentStore(t *testing.T) {
	path := copyConformanceStore(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	checkIndependentStore(t, s)
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("verify_integrity: %+v %v", rep, err)
	}
	s.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	checkIndependentStore(t, ro)
}

// A rewrite is refused where it cannot run, and changes nothing.
func TestCompactRewriteRefusals(t *testing.T) {
	s, path := newStore(t)
	it := rewriteSeries(1)
	if _, err := s.Add(it.Owner, it.Series, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Compact(&CompactOptions{Rewrite: true})
	wantKind(t, err, ErrInvalidParameter)
	if err := s.Rollback(); err != nil {
		t.Fatal(err)
	}
	mem, err := InMemory(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	_, err = mem.Compact(&CompactOptions{Rewrite: true})
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "rewrite") {
		t.Fatalf("the error does not name the option: %v", err)
	}
	// A directory the rewrite did not make is not removed, and the rewrite says why.
	if err := os.Mkdir(lifecycle.RewriteDir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lifecycle.RewriteDir(path), "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := lifecycle.PairSize(path)
	_, err = s.Compact(&CompactOptions{Rewrite: true})
	wantKind(t, err, ErrIO)
	if !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("the error does not name the foreign file: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(lifecycle.RewriteDir(path), "notes.txt")); string(b) != "mine" || lifecycle.PairSize(path) != before {
		t.Fatal("the refused rewrite changed something")
	}
	s.Close()
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	_, err = ro.Compact(&CompactOptions{Rewrite: true})
	wantKind(t, err, ErrReadOnly)
}

const rewriteKillEnv = "TSSTORE_REWRITE_KILL_AT"

// TestRewriteKillChild is the child of TestCompactRewriteKilledAtEachStep: it rewrites the
// store and kills itself with SIGKILL at the step it is given.
func TestRewriteKillChild(t *testing.T) {
	step := os.Getenv(rewriteKillEnv)
	if step == "" {
		t.Skip("run by TestCompactRewriteKilledAtEachStep")
	}
	path := os.Getenv(rewriteKillEnv + "_PATH")
	lifecycle.StepHook = func(at string) {
		if at == step {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	s.Compact(&CompactOptions{Rewrite: true})
	t.Fatalf("the rewrite never reached step %q", step)
}

func fileDigest(t *testing.T, p string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// A rewrite killed at each of its steps leaves the old pair (before the commit point) or the
// new one (after it), whole: a read-only open refuses to finish a committed rewrite and
// changes nothing; the next writable open finishes it, or removes the cut one's files; every
// survivor reads back either way.
func TestCompactRewriteKilledAtEachStep(t *testing.T) {
	for _, step := range []string{"written", "committed", "store.nc.sqlite renamed", "store.nc renamed"} {
		t.Run(strings.ReplaceAll(step, " ", "_"), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "churned.nc")
			survivors := churnedStore(t, path, 300)
			oldNC, oldCat := fileDigest(t, path), fileDigest(t, CatalogPath(path))
			cmd := exec.Command(os.Args[0], "-test.run=^TestRewriteKillChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), rewriteKillEnv+"="+step, rewriteKillEnv+"_PATH="+path)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the child was not killed at %q: %v\n%s", step, err, out)
			}
			committed := step != "written"
			if committed {
				dirNC, dirCat := fileDigest(t, path), fileDigest(t, CatalogPath(path))
				_, err := OpenReadOnly(path)
				wantKind(t, err, ErrIO)
				if !strings.Contains(err.Error(), "open the store for writing once") {
					t.Fatalf("the read-only open does not say what to do: %v", err)
				}
				if fileDigest(t, path) != dirNC || fileDigest(t, CatalogPath(path)) != dirCat {
					t.Fatal("the refused read-only open changed the files")
				}
			}
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			s.Close()
			if _, err := os.Stat(lifecycle.RewriteDir(path)); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("%s is still there after a writable open", lifecycle.RewriteDir(path))
			}
			same := fileDigest(t, path) == oldNC && fileDigest(t, CatalogPath(path)) == oldCat
			if same == committed {
				t.Fatalf("killed at %q: the old pair is there: %v; want it %v", step, same, !committed)
			}
			checkSurvivors(t, path, survivors)
		})
	}
}

package core

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/lifecycle"
)

// A SingleTimeSeries and a NonSequentialTimeSeries with the same values share a data_hash
// but not a storage form: the file holds a packed column and a standalone variable. The
// rewrite must carry both, or the second row dangles.
func TestRewriteKeepsBothFormsOfASharedHash(t *testing.T) {
	s, _ := newStore(t)
	v := make([]float64, 24)
	ts := make([]time.Time, 24)
	for i := range v {
		v[i] = float64(i) * 1.5
		ts[i] = t0.Add(time.Duration(i*i) * time.Hour)
	}
	bus := Owner{ID: 1, Type: "Bus", Category: Component}
	if _, err := s.Add(bus, &SingleTimeSeries{Name: "a", InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Add(bus, &NonSequentialTimeSeries{Name: "b", Timestamps: ts, Data: ArrayOf(v, 24)}, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("before the rewrite: %+v %v", rep, err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("after the rewrite: %+v %v", rep, err)
	}
}

// storeOfTenRamps is a new store holding ten hourly series "p" of 24 steps, owners 0–9,
// owner i's values starting at 100·i.
func storeOfTenRamps(t *testing.T) *Store {
	t.Helper()
	s, _ := newStore(t)
	var items []BatchItem
	for i := 0; i < 10; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(24, float64(i*100)))})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	return s
}

// A StaticReader built before a rewrite holds the old file's datasets and columns; after
// the rewrite they name other bytes, so it must refuse rather than read them.
func TestRewriteStaticReaderBuiltBefore(t *testing.T) {
	s := storeOfTenRamps(t)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	// Column 0 goes: the rewrite moves every later column one to the left.
	if err := s.Remove(Key{OwnerID: 0, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	k5 := Key{OwnerID: 5, Name: "p", Resolution: Hours(1)}
	rd, err := s.NewStaticReader(Hours(1), Lookups([]Key{k5}))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	err = rd.ReadStep(3)
	if err == nil {
		t.Fatalf("%s reads %v at step 3 through a reader built before the rewrite (503 was written)", k5,
			float64frombytes(rd.Groups()[0].Values.Data))
	}
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "build a new reader") {
		t.Fatalf("the refusal does not say what to do: %v", err)
	}
}

// A ForecastReader built before a rewrite must not read the new file through the old
// file's variables either.
func TestRewriteForecastReaderBuiltBefore(t *testing.T) {
	s, _ := newStore(t)
	var keys []Key
	for i := 0; i < 4; i++ {
		f := sampleForecast(DeterministicType, F64, nil, 24, 3, 1, Days(1), i)
		k, err := s.Add(gen(int64(i)), f, nil)
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(keys[0]); err != nil {
		t.Fatal(err)
	}
	rd, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups(keys[1:2]))
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Close()
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	fresh, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups(keys[1:2]))
	if err != nil {
		t.Fatal(err)
	}
	defer fresh.Close()
	if err := fresh.ReadWindow(1); err != nil {
		t.Fatal(err)
	}
	err = rd.ReadWindow(1)
	if err == nil {
		t.Fatalf("%s reads through a reader built before the rewrite (same bytes as a new reader: %v)", keys[1],
			string(rd.Groups()[0].Values.Data) == string(fresh.Groups()[0].Values.Data))
	}
	wantKind(t, err, ErrInvalidParameter)
}

// SetReadCache(0) holds across a rewrite: the store is the same Store.
func TestRewriteKeepsReadCacheSetting(t *testing.T) {
	s := storeOfTenRamps(t)
	if err := s.SetReadCache(0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	s.nc.AssumeChunkCacheForTesting(false)
	if _, err := s.Get(Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	if n := s.nc.Counters().CacheBytes; n != 0 {
		t.Fatalf("the read cache holds %d bytes after the rewrite; SetReadCache(0) turned it off", n)
	}
}

func float64frombytes(b []byte) float64 { return math.Float64frombits(binary.NativeEndian.Uint64(b)) }

// everyRowTypeItems is one batch of every row type, dtype and element shape a store holds,
// two rows of them sharing an array.
func everyRowTypeItems() []BatchItem {
	var items []BatchItem
	o := func(id int64) Owner { return Owner{ID: id, Type: "Gen", Category: Component} }
	id := int64(0)
	for _, dt := range allDTypes {
		for _, es := range [][]int{nil, {3}} {
			id++
			items = append(items, BatchItem{Owner: o(id), Series: &SingleTimeSeries{Name: "s", InitialTimestamp: t0, Resolution: Hours(1), Data: sampleArray(dt, 48, es, int(id))}})
			items = append(items, BatchItem{Owner: o(id), Series: &SingleTimeSeries{Name: "m", InitialTimestamp: t0, Resolution: Months(1), Data: sampleArray(dt, 12, es, int(id))}})
			ts := make([]time.Time, 5)
			for i := range ts {
				ts[i] = t0.Add(time.Duration(i*i+1) * time.Hour)
			}
			items = append(items, BatchItem{Owner: o(id), Series: &NonSequentialTimeSeries{Name: "n", Timestamps: ts, Data: sampleArray(dt, 5, es, int(id))}})
			for _, typ := range []SeriesType{DeterministicType, ProbabilisticType, ScenariosType} {
				items = append(items, BatchItem{Owner: o(id), Series: sampleForecast(typ, dt, es, 6, 4, 3, Days(1), int(id))})
			}
		}
	}
	// Owner 100 shares owner 1's hourly array.
	items = append(items, BatchItem{Owner: o(100), Series: &SingleTimeSeries{Name: "s", InitialTimestamp: t0, Resolution: Hours(1), Data: sampleArray(allDTypes[0], 48, nil, 1)}})
	return items
}

// A rewrite of a store holding every row type reads back the same for every key, and the
// file is laid out as before (the store was written in one batch, as the rewrite writes).
func TestRewriteEveryRowType(t *testing.T) {
	hour := Hours(1)
	dir := t.TempDir()
	path := filepath.Join(dir, "every.nc")
	s, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if _, err := s.AddBatch(everyRowTypeItems()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TransformSingleTimeSeries(Hours(6), Hours(3), &TransformFilter{Resolution: &hour}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddParentChildAssociation(ParentChildAssociation{ParentID: 1, ParentType: "Area", ChildID: 2, ChildType: "Bus"}); err != nil {
		t.Fatal(err)
	}
	header := func() string {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		out := run(t, "ncdump", "-hs", path)
		if s, err = Open(path); err != nil {
			t.Fatal(err)
		}
		return out[strings.IndexByte(out, '\n'):]
	}
	before := header()
	keys, err := s.ListKeys(KeyFilter{})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]TimeSeries{}
	for _, k := range keys {
		ts, err := s.Get(k)
		if err != nil {
			t.Fatal(err)
		}
		want[k.String()] = ts
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	after, err := s.ListKeys(KeyFilter{})
	if err != nil || len(after) != len(keys) {
		t.Fatalf("%d keys after the rewrite, %d before: %v", len(after), len(keys), err)
	}
	for _, k := range keys {
		ts, err := s.Get(k)
		if err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !reflect.DeepEqual(fmt.Sprintf("%#v", ts), fmt.Sprintf("%#v", want[k.String()])) {
			t.Fatalf("%s reads back differently", k)
		}
	}
	if rep, err := s.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("verify_integrity: %+v %v", rep, err)
	}
	if ok, err := s.HasParentChildAssociation(1, 2); !ok || err != nil {
		t.Fatalf("the association is gone: %v", err)
	}
	if a := header(); a != before {
		t.Fatalf("the rewritten file is laid out differently:\n%s\n----\n%s", before, a)
	}
}

const vacuumKillEnv = "TSSTORE_REWRITE_VACUUM_KILL_PATH"

// TestRewriteVacuumKillChild is the child of TestCompactRewriteKilledInVacuum: it rewrites
// the store and kills itself as soon as SQLite's journal of the catalog copy appears.
func TestRewriteVacuumKillChild(t *testing.T) {
	path := os.Getenv(vacuumKillEnv)
	if path == "" {
		t.Skip("run by TestCompactRewriteKilledInVacuum")
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	_, tmpCat := lifecycle.RewriteFiles(path)
	go func() {
		for {
			if _, err := os.Lstat(tmpCat + "-journal"); err == nil {
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
			}
		}
	}()
	s.Compact(&CompactOptions{Rewrite: true})
	fmt.Println(vacuumMissed)
	os.Exit(3)
}

// vacuumMissed is what the child prints when its rewrite ended before its poller saw the
// catalog copy's journal (a busy machine can leave the poller unscheduled that long).
const vacuumMissed = "the rewrite ended before the catalog copy's journal was seen"

// VACUUM INTO keeps a rollback journal beside the catalog copy while it runs. A rewrite
// killed then leaves it in the rewrite directory: the next writable open must still clear
// the directory, and the next rewrite must run.
//
// The child kills itself from a goroutine that polls for the journal; on a machine busy
// enough to leave that goroutine unscheduled for the whole copy, the rewrite ends first and
// the child says so. Each such miss is tried again on a fresh copy of the store, up to eight
// times, so that the test fails for what the rewrite leaves, not for the machine's load.
func TestCompactRewriteKilledInVacuum(t *testing.T) {
	dir := t.TempDir()
	original := filepath.Join(dir, "churned.nc")
	survivors := churnedStore(t, original, 2000)
	var path string
	for attempt := 0; ; attempt++ {
		path = filepath.Join(dir, fmt.Sprintf("try%d.nc", attempt))
		for _, suffix := range []string{"", ".sqlite"} {
			b, err := os.ReadFile(original + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path+suffix, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestRewriteVacuumKillChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), vacuumKillEnv+"="+path)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.Sys().(syscall.WaitStatus).Signal() == syscall.SIGKILL {
			break
		}
		if !strings.Contains(string(out), vacuumMissed) || attempt == 7 {
			t.Fatalf("the child was not killed in the catalog copy (attempt %d): %v\n%s", attempt+1, err, out)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := os.Stat(lifecycle.RewriteDir(path)); !errors.Is(err, os.ErrNotExist) {
		entries, _ := os.ReadDir(lifecycle.RewriteDir(path))
		t.Errorf("%s is still there after a writable open: %v", lifecycle.RewriteDir(path), entries)
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	s.Close()
	checkSurvivors(t, path, survivors)
}

const rewriteLimitEnv = "TSSTORE_REWRITE_FSIZE"

// TestRewriteUnderLimitChild is the child of TestCompactRewriteWithoutRoom: it rewrites the
// store under RLIMIT_FSIZE, then, with the limit lifted, writes, reads and rewrites again.
func TestRewriteUnderLimitChild(t *testing.T) {
	limit, _ := strconv.ParseUint(os.Getenv(rewriteLimitEnv), 10, 64)
	path := os.Getenv(rewriteLimitEnv + "_PATH")
	if path == "" {
		t.Skip("run by TestCompactRewriteWithoutRoom")
	}
	fmt.Println(func() string {
		s, err := Open(path)
		if err != nil {
			return "open: " + err.Error()
		}
		defer s.Close()
		pair := func() string { return fmt.Sprint(fileDigest(t, path), fileDigest(t, CatalogPath(path))) }
		before := pair()
		signal.Ignore(syscall.SIGXFSZ)
		var orig syscall.Rlimit
		syscall.Getrlimit(syscall.RLIMIT_FSIZE, &orig)
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: orig.Max}); err != nil {
			return "rlimit: " + err.Error()
		}
		_, rerr := s.Compact(&CompactOptions{Rewrite: true})
		syscall.Setrlimit(syscall.RLIMIT_FSIZE, &orig)
		out := fmt.Sprintf("rewrite: %v\n", rerr)
		if _, err := os.Stat(lifecycle.RewriteDir(path)); err == nil {
			out += "the rewrite directory is left\n"
		}
		if pair() != before {
			out += "the old pair changed\n"
		}
		it := rewriteSeries(77777)
		if _, err := s.Add(it.Owner, it.Series, nil); err != nil {
			return out + "add after: " + err.Error()
		}
		if err := s.Flush(); err != nil {
			return out + "flush after: " + err.Error()
		}
		if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
			return out + "second rewrite: " + err.Error()
		}
		if _, err := s.Get(keyOfItem(t, it)); err != nil {
			return out + "get after: " + err.Error()
		}
		return out + "usable"
	}())
}

// A rewrite that runs out of room (RLIMIT_FSIZE in a child: root ignores file modes)
// while writing the new .nc, or the catalog copy, fails saying so, leaves the old pair as
// it was, and the store goes on: it writes, and a rewrite with room succeeds.
func TestCompactRewriteWithoutRoom(t *testing.T) {
	for _, c := range []struct {
		name  string
		limit uint64
		same  bool // every series has the same values: a tiny .nc and a large catalog
	}{{"nc", 64 << 10, false}, {"catalog", 256 << 10, true}} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.nc")
			s, err := Create(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			var items []BatchItem
			for i := 0; i < 3000; i++ {
				v := i
				if c.same {
					v = 0
				}
				items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(168, float64(v)))})
			}
			if _, err := s.AddBatch(items); err != nil {
				t.Fatal(err)
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0], "-test.run=^TestRewriteUnderLimitChild$", "-test.count=1")
			cmd.Env = append(os.Environ(), rewriteLimitEnv+"="+strconv.FormatUint(c.limit, 10), rewriteLimitEnv+"_PATH="+path)
			out, _ := cmd.CombinedOutput()
			// The error is the store's (ErrIO, the operation), names the file and the cause.
			first, _, _ := strings.Cut(string(out), "\n")
			if !strings.HasPrefix(first, "rewrite: tsstore: compact: ") || !strings.HasSuffix(first, "(i/o error)") ||
				!strings.Contains(first, "s.nc.compacting/store.nc") || !strings.Contains(first, "too large") {
				t.Errorf("the rewrite's error does not say what went wrong: %s", first)
			}
			if !strings.Contains(string(out), "usable") || strings.Contains(string(out), "directory is left") ||
				strings.Contains(string(out), "old pair changed") {
				t.Fatalf("the store did not go on after the failed rewrite:\n%s", out)
			}
		})
	}
}

// A second writable Open of the path in this process while a rewrite puts the new pair in
// place is refused, as any second writable handle is: it must not take the new pair from
// the store that is rewriting it (which would then fail and be left closed).
func TestRewriteSecondOpenInProcessIsRefused(t *testing.T) {
	for _, step := range []string{"committed", "store.nc.sqlite renamed", "store.nc renamed"} {
		t.Run(strings.ReplaceAll(step, " ", "_"), func(t *testing.T) {
			s, path := newStore(t)
			it := rewriteSeries(1)
			if _, err := s.Add(it.Owner, it.Series, nil); err != nil {
				t.Fatal(err)
			}
			var second *Store
			var openErr error
			defer func() { lifecycle.StepHook = nil }()
			lifecycle.StepHook = func(at string) {
				if at == step {
					second, openErr = Open(path)
				}
			}
			_, err := s.Compact(&CompactOptions{Rewrite: true})
			lifecycle.StepHook = nil
			if second != nil {
				second.Close()
				t.Errorf("a second writable handle opened at %q", step)
			} else {
				wantKind(t, openErr, ErrInvalidParameter)
			}
			if err != nil {
				t.Fatalf("the rewrite failed: %v", err)
			}
			if _, err := s.Get(keyOfItem(t, it)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// A rewrite of a store with a damaged array refuses, naming the array, and changes nothing;
// the store goes on. With the damage gone the rewrite keeps the store's compression policy.
func TestRewriteOfDamagedUncompressedStore(t *testing.T) {
	s, path := newUncompressedStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	mustAdd(t, s, gen(2), hourly("p", ramp(24, 100)), nil)
	s.Close()
	flipFloat(t, path, 117.0, 117.5)
	s = openAgain(t, path)
	before := fileDigests(t, path)
	_, err := s.Compact(&CompactOptions{Rewrite: true})
	if !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("rewrite of a damaged array: %v", err)
	}
	if _, err := os.Stat(lifecycle.RewriteDir(path)); !errors.Is(err, os.ErrNotExist) {
		t.Fatal("the refused rewrite left its directory")
	}
	mustAdd(t, s, gen(3), hourly("p", ramp(24, 200)), nil)
	if err := s.Remove(Key{OwnerID: 2, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if fileDigests(t, path) == before {
		t.Fatal("the store did not go on writing")
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	if c := s.Compression(); c.Deflate {
		t.Fatalf("the rewritten store compresses: %+v", c)
	}
	s.Close()
	if out := run(t, "ncdump", "-hs", path); strings.Contains(out, "_DeflateLevel") {
		t.Fatalf("the rewritten file deflates:\n%s", out)
	}
}

// A store opened through symbolic links to its files: a rewrite renames the new files over
// the links, so the files they pointed to would keep the old pair and the two names of the
// store would part. The rewrite refuses, saying why, and changes nothing.
func TestRewriteThroughSymlinksRefuses(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.nc")
	s, err := Create(real, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "link.nc")
	for _, p := range [][2]string{{real, link}, {CatalogPath(real), CatalogPath(link)}} {
		if err := os.Symlink(p[0], p[1]); err != nil {
			t.Fatal(err)
		}
	}
	s, err = Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.Compact(&CompactOptions{Rewrite: true})
	for _, p := range []string{link, CatalogPath(link)} {
		if fi, lerr := os.Lstat(p); lerr != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symbolic link", p)
		}
	}
	wantKind(t, err, ErrInvalidParameter)
	if !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("the refusal does not say why: %v", err)
	}
	mustAdd(t, s, gen(2), hourly("p", ramp(24, 1)), nil)
}

// The rewritten files keep the old files' permissions: a private store (0600) must not
// become world-readable, nor a group-writable one read-only to the group.
func TestRewriteKeepsFileModes(t *testing.T) {
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	modes := map[string]os.FileMode{path: 0o600, CatalogPath(path): 0o660}
	for p, m := range modes {
		if err := os.Chmod(p, m); err != nil {
			t.Fatal(err)
		}
	}
	root := os.Geteuid() == 0
	if root { // and the owner, where the process may set it
		for p := range modes {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := s.Compact(&CompactOptions{Rewrite: true}); err != nil {
		t.Fatal(err)
	}
	for p, m := range modes {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != m {
			t.Errorf("%s is %v after the rewrite, was %v", p, fi.Mode().Perm(), m)
		}
		if st := fi.Sys().(*syscall.Stat_t); root && (st.Uid != 65534 || st.Gid != 65534) {
			t.Errorf("%s is owned by %d:%d after the rewrite, was 65534:65534", p, st.Uid, st.Gid)
		}
	}
}

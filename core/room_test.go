package core

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// roomChild runs the named test in a child process with TSSTORE_ROOM_CHILD_STORE=path and
// returns its combined output (the child writes its findings to stdout).
func roomChild(t *testing.T, name, path string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TSSTORE_ROOM_CHILD_STORE="+path)
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// underFileSizeLimit sets RLIMIT_FSIZE to the size of path plus extra and returns a function
// that lifts it again.
func underFileSizeLimit(path string, extra uint64) (func(), error) {
	signal.Ignore(syscall.SIGXFSZ)
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	var orig syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &orig); err != nil {
		return nil, err
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: uint64(fi.Size()) + extra, Max: orig.Max}); err != nil {
		return nil, err
	}
	return func() { syscall.Setrlimit(syscall.RLIMIT_FSIZE, &orig) }, nil
}

// A room refusal when a call's writes overflow the write buffer undoes that call (and says
// so); the unit's earlier writes stay pending and a flush once there is room commits them.
func TestRoomRefusalInsideACallUndoesOnlyThatCall(t *testing.T) {
	if p := os.Getenv("TSSTORE_ROOM_CHILD_STORE"); p != "" {
		fmt.Println(func() string {
			s, err := Open(p)
			if err != nil {
				return "open: " + err.Error()
			}
			defer s.Close()
			if _, err := s.Add(gen(6), hourly("p", ramp(168, 6)), nil); err != nil { // pending
				return "first add: " + err.Error()
			}
			if err := s.SetWriteBuffer(0); err != nil {
				return err.Error()
			}
			lift, err := underFileSizeLimit(p, 64<<10)
			if err != nil {
				return "rlimit: " + err.Error()
			}
			_, aerr := s.Add(gen(7), hourly("p", ramp(168, 7)), nil)
			lift()
			if aerr == nil {
				return "the add past the limit succeeded"
			}
			msg := "add: " + aerr.Error()
			if err := s.Flush(); err != nil {
				return msg + "\nflush: " + err.Error()
			}
			six, _ := s.Has(Key{OwnerID: 6, Name: "p", Resolution: Hours(1)})
			seven, _ := s.Has(Key{OwnerID: 7, Name: "p", Resolution: Hours(1)})
			return msg + fmt.Sprintf("\nafter the flush: earlier %v, refused %v", six, seven)
		}())
		return
	}
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(168, 1)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := roomChild(t, "TestRoomRefusalInsideACallUndoesOnlyThatCall", path)
	if !strings.Contains(out, "not enough room") || !strings.Contains(out, "this call was undone") {
		t.Fatalf("the child did not hit the room refusal, or it did not say the call was undone:\n%s", out)
	}
	if !strings.Contains(out, "after the flush: earlier true, refused false") {
		t.Fatalf("the earlier pending write was lost or the refused call stayed:\n%s", out)
	}
}

// Close cannot keep writes pending: when they do not fit, Close writes nothing, says the
// writes since the last commit are lost, and the store reopens as it was.
func TestCloseWithoutRoomSaysTheWritesAreLost(t *testing.T) {
	if p := os.Getenv("TSSTORE_ROOM_CHILD_STORE"); p != "" {
		fmt.Println(func() string {
			s, err := Open(p)
			if err != nil {
				return "open: " + err.Error()
			}
			lift, err := underFileSizeLimit(p, 64<<10)
			if err != nil {
				return "rlimit: " + err.Error()
			}
			if _, err := s.Add(gen(7), hourly("p", ramp(168, 7)), nil); err != nil {
				lift()
				return "add: " + err.Error()
			}
			cerr := s.Close()
			lift()
			if cerr == nil {
				return "close under the limit succeeded"
			}
			return "close: " + cerr.Error()
		}())
		return
	}
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(168, 1)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	before := fileDigests(t, path)
	out := roomChild(t, "TestCloseWithoutRoomSaysTheWritesAreLost", path)
	if !strings.Contains(out, "close: ") || !strings.Contains(out, "lost with the close") {
		t.Fatalf("Close under the limit did not say the writes are lost:\n%s", out)
	}
	if fileDigests(t, path) != before {
		t.Fatal("the refused close changed the files")
	}
	r := openAgain(t, path)
	defer r.Close()
	if ok, err := r.Has(Key{OwnerID: 7, Name: "p", Resolution: Hours(1)}); ok || err != nil {
		t.Fatalf("the lost write: %v %v", ok, err)
	}
	if !equalFloats(floats(t, mustGetSingle(t, r, Key{OwnerID: 1, Name: "p", Resolution: Hours(1)}).Data), ramp(168, 1)) {
		t.Fatal("the committed series")
	}
}

// The room check's bound (writeBound, core/internal/ncstore/room.go) must count a new packed
// dataset whole, not as the bytes of its arrays only: a one-at-a-time add creates a dataset
// DefaultColsPerDataset wide, and writing its column writes every (1, 1000) chunk: in an
// uncompressed store 1000× the array. Otherwise the room check passes and the write then
// fails half way with EFBIG — the failure the check exists to prevent.
func TestRoomCheckCountsNewDatasetsWhole(t *testing.T) {
	const length = 2000 // one new dataset: 2000 rows × 1000 cols × 8 B = 16 MB
	if p := os.Getenv("TSSTORE_ROOM_CHILD_STORE"); p != "" {
		fmt.Println(func() string {
			s, err := Open(p)
			if err != nil {
				return "open: " + err.Error()
			}
			defer s.Close()
			digest := func() string {
				b, _ := os.ReadFile(p)
				c, _ := os.ReadFile(CatalogPath(p))
				return string(b) + "\x00" + string(c)
			}
			was := digest()
			need, _, _ := s.nc.Room(storedArrays([]*staged{{packed: true, arr: ArrayOf(ramp(length, 0)), res: Hours(1)}}))
			lift, err := underFileSizeLimit(p, 8<<20)
			if err != nil {
				return "rlimit: " + err.Error()
			}
			_, err = s.Add(gen(7), hourly("p", ramp(length, 7)), nil)
			if err == nil {
				err = s.Flush()
			}
			lift()
			return fmt.Sprintf("bound: %d\nflush: %v\nrefused by the room check: %v\nunchanged: %v",
				need, err, err != nil && strings.Contains(err.Error(), "not enough room"), digest() == was)
		}())
		return
	}
	path := filepath.Join(t.TempDir(), "raw.nc")
	s, err := Create(path, &CreateOptions{Compression: &Compression{}})
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	out := roomChild(t, "TestRoomCheckCountsNewDatasetsWhole", path)
	if !strings.Contains(out, "refused by the room check: true") || !strings.Contains(out, "unchanged: true") {
		t.Fatalf("a write that cannot fit passed the room check and failed half way:\n%s", out)
	}
}

// Clear on a store with no rows but leftover feature sets deletes them without bumping
// unit.changes; a later refused call then sees an "empty" unit and ends it with ROLLBACK,
// undoing the deletion Clear reported as done.
func TestRefusedCallKeepsAnEarlierClearOfFeatureSets(t *testing.T) {
	s, path := newStore(t)
	k := mustAdd(t, s, gen(1), hourly("p", ramp(24, 1)), &AddOptions{Features: Features{"scenario": Str("a")}})
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(k); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	count := func() int {
		db, err := sql.Open("sqlite3", "file:"+CatalogPath(path)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var n int
		if err := db.QueryRow("SELECT count(*) FROM feature_sets").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 1 {
		t.Fatalf("%d feature-set rows before Clear, want the leftover 1", n)
	}
	if _, err := s.Clear(); err != nil {
		t.Fatal(err)
	}
	// A refused call inside the same implicit unit.
	if err := s.Remove(k); !errors.Is(err, ErrNotFound) {
		t.Fatalf("remove of a missing key: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 0 {
		t.Fatalf("Clear deleted every feature set, but %d row(s) are back after a refused call rolled the unit back", n)
	}
}

// HDF5 opens the .nc without O_CLOEXEC and closeOnExec marks it only after nc_open returns,
// without holding syscall.ForkLock: a child started by another goroutine in between inherits
// the descriptor (and HDF5's flock), which is what the change meant to prevent.
func TestCloseOnExecHoldsAgainstConcurrentExec(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 50; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(168, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	want, _ := filepath.EvalSymlinks(path)
	var stop atomic.Bool
	var leaked, execs atomic.Int64
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				out, err := exec.Command("ls", "-l", "/proc/self/fd").Output()
				if err == nil && strings.Contains(string(out), want) {
					leaked.Add(1)
				}
				execs.Add(1)
			}
		}()
	}
	// Bounded by work done, not by time, so that a slow machine checks as much as a fast
	// one: about what 5 s gave with the two cores also busy with other work.
	const minOpens, minExecs = 500, 1500
	opens := 0
	for ; (opens < minOpens || execs.Load() < minExecs) && leaked.Load() == 0; opens++ {
		if r, err := OpenReadOnly(path); err == nil {
			r.Close()
		}
	}
	stop.Store(true)
	t.Logf("%d opens beside %d execs", opens, execs.Load())
	wg.Wait()
	if n := leaked.Load(); n > 0 {
		t.Fatalf("%d child process(es) inherited the store's .nc descriptor", n)
	}
}

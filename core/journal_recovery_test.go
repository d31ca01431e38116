package core

// Recovery of the .nc rollback journal (core/internal/journal/journal.c) against what can lie
// at the journal's path and what a writer can leave there: hostile or foreign journals, a
// replaced file, filesystems without locks, and kills and I/O errors at every sync point.
// Child processes are this test binary run with -test.run=^TestJournalRecoveryChild$ and
// TSSTORE_RECOVERY_CHILD set to a mode. Part 1, the driver against sec2 page by page, needs no
// store and is in core/internal/journal/driver_test.go.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/journal"
)

// ---- journal format (journal.c) ---------------------------------------------------------

type jrRec struct {
	off  uint64
	data []byte
}

type jrJournal struct {
	version, page uint32
	e0, nonce     uint64
	ino           uint64 // the inode of the file the journal was written for (header v2)
	recs          []jrRec
}

func jrParseJournal(t *testing.T, path string) jrJournal {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 48 || string(b[:8]) != "TSJRNL01" {
		t.Fatalf("%s is not a hot journal (%d bytes)", path, len(b))
	}
	j := jrJournal{version: binary.LittleEndian.Uint32(b[8:]), page: binary.LittleEndian.Uint32(b[12:]),
		e0: binary.LittleEndian.Uint64(b[16:]), nonce: binary.LittleEndian.Uint64(b[24:]),
		ino: binary.LittleEndian.Uint64(b[32:])}
	for at := 48; at+16 <= len(b); {
		off := binary.LittleEndian.Uint64(b[at:])
		n := int(binary.LittleEndian.Uint32(b[at+8:]))
		if n == 0 || at+16+n > len(b) {
			break
		}
		j.recs = append(j.recs, jrRec{off, append([]byte(nil), b[at+16:at+16+n]...)})
		at += 16 + n
	}
	return j
}

// jrEncode writes a journal with valid header and record checksums.
func jrEncode(j jrJournal) []byte {
	h := make([]byte, 48)
	copy(h, "TSJRNL01")
	binary.LittleEndian.PutUint32(h[8:], j.version)
	binary.LittleEndian.PutUint32(h[12:], j.page)
	binary.LittleEndian.PutUint64(h[16:], j.e0)
	binary.LittleEndian.PutUint64(h[24:], j.nonce)
	binary.LittleEndian.PutUint64(h[32:], j.ino)
	binary.LittleEndian.PutUint32(h[40:], crc32.ChecksumIEEE(h[:40]))
	out := h
	for _, r := range j.recs {
		rec := make([]byte, 16)
		binary.LittleEndian.PutUint64(rec, r.off)
		binary.LittleEndian.PutUint32(rec[8:], uint32(len(r.data)))
		var n [8]byte
		binary.LittleEndian.PutUint64(n[:], j.nonce)
		c := crc32.Update(0, crc32.IEEETable, n[:])
		c = crc32.Update(c, crc32.IEEETable, rec[:12])
		c = crc32.Update(c, crc32.IEEETable, r.data)
		binary.LittleEndian.PutUint32(rec[12:], c)
		out = append(out, rec...)
		out = append(out, r.data...)
	}
	return out
}

// ---- stores and their expected content ---------------------------------------------------

// jrBase makes a closed store of n series "p" (owners 0..n-1, 168 hourly steps) in dir.
func jrBase(t *testing.T, n int) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "system.nc")
	s, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := int64(0); i < int64(n); i++ {
		mustAdd(t, s, gen(i), hourly("p", ramp(168, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// jrContent describes the store: every key and whether its bytes are what the writers of
// these tests put there (p: ramp(168, owner); q<i>: ramp(24+i%7, 0); w: ramp(48, owner)).
func jrContent(s *Store) (keys []string, problems []string) {
	ks, err := s.ListKeys(KeyFilter{})
	if err != nil {
		return nil, []string{"list: " + err.Error()}
	}
	for _, k := range ks {
		keys = append(keys, fmt.Sprintf("%s/%d", k.Name, k.OwnerID))
		ts, err := s.Get(k)
		if err != nil {
			problems = append(problems, fmt.Sprintf("get %s/%d: %v", k.Name, k.OwnerID, err))
			continue
		}
		v, err := Values[float64](ts.(*SingleTimeSeries).Data)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		var want []float64
		switch {
		case k.Name == "p":
			want = ramp(168, float64(k.OwnerID))
		case k.Name == "w":
			want = ramp(48, float64(k.OwnerID))
		case strings.HasPrefix(k.Name, "q"):
			var i int64
			fmt.Sscan(k.Name[1:], &i)
			want = ramp(24+int(i%7), 0)
		}
		if !equalFloats(v, want) {
			problems = append(problems, fmt.Sprintf("%s/%d reads wrong values", k.Name, k.OwnerID))
		}
	}
	sort.Strings(keys)
	rep, err := s.VerifyIntegrity()
	if err != nil {
		problems = append(problems, "verify: "+err.Error())
	} else if !rep.OK() {
		problems = append(problems, fmt.Sprintf("verify: %+v", rep))
	}
	return keys, problems
}

func jrKeys(names ...string) []string { sort.Strings(names); return names }

func jrPKeys(from, to int64) []string {
	var out []string
	for i := from; i < to; i++ {
		out = append(out, fmt.Sprintf("p/%d", i))
	}
	return out
}

// ---- children ----------------------------------------------------------------------------

// jrPausedWriter starts a writer child and waits until it stops in the middle of a unit that
// has spilled (its journal hot). Writing "go\n" to stdin lets it finish; the rest of its
// output is read from stdout, the reader that consumed its first line.
func jrPausedWriter(t *testing.T, path string, env ...string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	w := jrChild(t, "pause-mid-unit", path, env...)
	stdin, _ := w.StdinPipe()
	pipe, _ := w.StdoutPipe()
	w.Stderr = os.Stderr
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Process.Kill() })
	stdout := bufio.NewReader(pipe)
	line, _ := stdout.ReadString('\n')
	if !strings.HasPrefix(line, "MID") || !jrHot(path) {
		t.Fatalf("writer: %q, journal hot: %v", line, jrHot(path))
	}
	return w, stdin, stdout
}

func jrChild(t *testing.T, mode, path string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalRecoveryChild$", "-test.count=1")
	cmd.Env = append(append(os.Environ(), "TSSTORE_RECOVERY_CHILD="+mode, "TSSTORE_RECOVERY_PATH="+path), env...)
	return cmd
}

func TestJournalRecoveryChild(t *testing.T) {
	mode, path := os.Getenv("TSSTORE_RECOVERY_CHILD"), os.Getenv("TSSTORE_RECOVERY_PATH")
	if mode == "" {
		t.Skip("runs only as the child process of the journal recovery tests (TSSTORE_RECOVERY_CHILD unset)")
	}
	say := func(format string, a ...any) { fmt.Printf(format+"\n", a...); os.Stdout.Sync() }
	switch mode {
	case "open": // open writable, report, check, close
		s, err := Open(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(0)
		}
		keys, problems := jrContent(s)
		say("OPEN-OK recovered=%q keys=%d problems=%q", s.Recovered(), len(keys), problems)
		say("KEYS %s", strings.Join(keys, ","))
		if err := s.Close(); err != nil {
			say("CLOSE-ERR %v", err)
		}
		os.Exit(0)
	case "openro": // open read-only, report
		s, err := OpenReadOnly(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(0)
		}
		keys, problems := jrContent(s)
		say("OPEN-OK keys=%d problems=%q", len(keys), problems)
		s.Close()
		os.Exit(0)
	case "pause-mid-unit": // a writer stopped in the middle of a unit that has spilled
		s, err := Open(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(2)
		}
		s.SetWriteBuffer(0)
		if err := s.Begin(); err != nil {
			say("ERR %v", err)
			os.Exit(2)
		}
		jrMidUnitAdds(s, say)
		_, spills := s.JournalStats()
		say("MID spills=%d", spills)
		bufio.NewReader(os.Stdin).ReadString('\n') // the parent says when to go on
		if err := s.Commit(); err != nil {
			say("COMMIT-ERR %v", err)
			os.Exit(2)
		}
		if err := s.Close(); err != nil {
			say("CLOSE-ERR %v", err)
			os.Exit(2)
		}
		say("DONE")
		os.Exit(0)
	case "pause-between-units": // a writer between units, then a unit that spills, then killed
		s, err := Open(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(2)
		}
		s.SetWriteBuffer(0)
		say("IDLE")
		bufio.NewReader(os.Stdin).ReadString('\n')
		s.Begin()
		jrMidUnitAdds(s, say)
		_, spills := s.JournalStats()
		say("KILLING spills=%d", spills)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "create-kill": // create a store, add a series (pending), die
		s, err := Create(path, nil)
		if err != nil {
			say("CREATE-ERR %v", err)
			os.Exit(0)
		}
		s.Add(gen(1), hourly("p", ramp(168, 1)), nil)
		say("CREATED")
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {}
	case "units": // the strace sweeps' writer: two units, then a close
		s, err := Open(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(0)
		}
		check := func(err error) {
			if err != nil {
				say("ERR %v", err)
				say("CLOSE %v", s.Close())
				os.Exit(0)
			}
		}
		s.SetWriteBuffer(0)
		check(s.Begin())
		for i := int64(100); i < 130; i++ {
			_, err := s.Add(gen(i), hourly("p", ramp(168, float64(i))), nil)
			check(err)
			if i%10 == 9 {
				_, err := s.Add(gen(i), hourly(fmt.Sprintf("q%d", i), ramp(24+int(i%7), 0)), nil)
				check(err)
			}
		}
		for i := int64(0); i < 5; i++ {
			check(s.Remove(Key{OwnerID: i, Name: "p", Resolution: Hours(1)}))
		}
		check(s.Commit())
		say("C1")
		for i := int64(200); i < 210; i++ {
			_, err := s.Add(gen(i), hourly("w", ramp(48, float64(i))), nil)
			check(err)
		}
		check(s.Flush())
		say("C2")
		check(s.Close())
		say("DONE")
		os.Exit(0)
	case "compact": // remove most series, then compact, then close
		s, err := Open(path)
		if err != nil {
			say("OPEN-ERR %v", err)
			os.Exit(0)
		}
		for i := int64(0); i < 25; i++ {
			if err := s.Remove(Key{OwnerID: i, Name: "p", Resolution: Hours(1)}); err != nil {
				say("ERR %v", err)
				os.Exit(0)
			}
		}
		if err := s.Flush(); err != nil {
			say("ERR %v", err)
			os.Exit(0)
		}
		say("C1")
		rep, err := s.Compact(nil)
		if err != nil {
			say("ERR %v", err)
			os.Exit(0)
		}
		say("C2 %+v", rep)
		if err := s.Close(); err != nil {
			say("ERR %v", err)
			os.Exit(0)
		}
		say("DONE")
		os.Exit(0)
	}
	say("unknown mode %s", mode)
	os.Exit(2)
}

// jrMidUnitAdds adds p/100..139 (filling free columns of the committed dataset) and, every
// tenth, a series of a new family, whose define phase makes netcdf-c flush HDF5 — so the unit
// spills (the chunk cache otherwise keeps the rewritten chunks until the commit).
func jrMidUnitAdds(s *Store, say func(string, ...any)) {
	for i := int64(100); i < 140; i++ {
		if _, err := s.Add(gen(i), hourly("p", ramp(168, float64(i))), nil); err != nil {
			say("ERR %v", err)
			os.Exit(2)
		}
		if i%10 == 9 {
			if _, err := s.Add(gen(i), hourly(fmt.Sprintf("q%d", i), ramp(24+int(i%7), 0)), nil); err != nil {
				say("ERR %v", err)
				os.Exit(2)
			}
		}
	}
}

func jrMidUnitKeys() string {
	k := append(jrPKeys(0, 30), jrPKeys(100, 140)...)
	k = append(k, "q109/109", "q119/119", "q129/129", "q139/139")
	return strings.Join(jrKeys(k...), ",")
}

// jrHot reports whether path's journal is hot (a header and at least one record).
func jrHot(path string) bool {
	fi, err := os.Stat(journal.Path(path))
	return err == nil && fi.Size() > 48
}

// ---- 3. hostile or damaged journals -------------------------------------------------------

// A FIFO where the journal goes: the open must end (error or success), not wait forever for
// a writer on the pipe while it holds the process-wide netcdf lock.
func TestJournalFIFODoesNotHangOpen(t *testing.T) {
	path := jrBase(t, 5)
	other := jrBase(t, 3)
	o, err := Open(other) // another store of the process, to see whether it is blocked too
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	jp := journal.Path(path)
	if err := syscall.Mkfifo(jp, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, ro := range []bool{true, false} {
		done := make(chan error, 1)
		go func() {
			var s *Store
			var err error
			if ro {
				s, err = OpenReadOnly(path)
			} else {
				s, err = Open(path)
			}
			if err == nil {
				s.Close()
			}
			done <- err
		}()
		// An open that ends passes however long it took; only one still waiting after
		// minutes (a blocked open of the FIFO never ends on its own) is a hang.
		select {
		case err := <-done:
			t.Logf("read-only=%v: open returned %v", ro, err)
			continue
		case <-time.After(fifoHangAfter):
		}
		// Is the other store blocked as well (the hang holds ncshim's lock)? A Get of a
		// small store takes milliseconds; this only words the failure.
		other := make(chan error, 1)
		go func() { _, err := o.Get(Key{OwnerID: 1, Name: "p", Resolution: Hours(1)}); other <- err }()
		otherBlocked := false
		select {
		case <-other:
		case <-time.After(30 * time.Second):
			otherBlocked = true
		}
		// Unblock it: open the pipe's write end and close it.
		w, werr := os.OpenFile(jp, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if werr == nil {
			w.Close()
		}
		<-done
		if otherBlocked {
			<-other
		}
		t.Errorf("read-only=%v: Open blocked for %v on a FIFO named %s (another store's Get blocked meanwhile: %v)", ro, fifoHangAfter, filepath.Base(jp), otherBlocked)
	}
}

// fifoHangAfter is how long an open beside a FIFO may take before it counts as blocked on
// it: minutes, so that a slow machine cannot fail the test; a real block never ends.
const fifoHangAfter = 3 * time.Minute

// openChildHang bounds an open child: an open of these small stores uses well under a
// second of CPU, so 60 s of CPU is a loop; ten minutes is a child blocked without CPU.
var openChildHang = hangLimits{cpu: 60 * time.Second, wall: 10 * time.Minute}

// runOpenChild opens path writable in a child process (wrapped in wrap, e.g. strace, when
// given) and returns its output and whether it crashed or hung.
func runOpenChild(t *testing.T, path string, wrap []string, env ...string) (string, bool) {
	t.Helper()
	cmd := jrChild(t, "open", path, env...)
	if len(wrap) > 0 {
		cmd = exec.Command(wrap[0], append(wrap[1:], cmd.Args...)...)
		cmd.Env = append(append(os.Environ(), "TSSTORE_RECOVERY_CHILD=open", "TSSTORE_RECOVERY_PATH="+path), env...)
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	hung, err := waitWatched(cmd, openChildHang)
	if hung != "" {
		return buf.String() + "\nHUNG: stopped; it " + hung, true
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		// The open child exits 0 whatever Open says; anything else is a crash (a signal, or
		// Go's "fatal error: unexpected signal" for a fault inside C).
		return buf.String(), true
	}
	return buf.String(), false
}

// A journal header with a valid checksum that claims a page size of 0xFFFFFFFF: tsj_recover
// allocates TSJ_REC_LEN + page bytes in 32-bit arithmetic (16 + 0xFFFFFFFF = 15) and then reads
// records of any length into that buffer.
func TestJournalHugePageSizeIsRefused(t *testing.T) {
	path := jrBase(t, 30)
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	e0 := uint64(fi.Size())
	data := bytes.Repeat([]byte{0x5a}, int(e0))
	j := jrJournal{version: 2, page: 0xFFFFFFFF, e0: e0, nonce: 7, ino: fi.Sys().(*syscall.Stat_t).Ino, recs: []jrRec{{0, data}}}
	if err := os.WriteFile(journal.Path(path), jrEncode(j), 0o644); err != nil {
		t.Fatal(err)
	}
	out, crashed := runOpenChild(t, path, nil)
	if crashed || !strings.Contains(out, "OPEN-ERR") {
		t.Errorf("a journal claiming page size 0xFFFFFFFF (crashed=%v): %s", crashed, jrTail(out))
	}
}

func jrTail(s string) string {
	// A crash inside C: the C library's message (the line before Go's signal dump) and the
	// C function the signal arrived in.
	if i := strings.Index(s, "\nSIG"); i >= 0 {
		head := strings.TrimSpace(s[:i])
		if k := strings.LastIndex(head, "\n"); k >= 0 {
			head = head[k+1:]
		}
		sig := strings.Fields(s[i+1:])[0]
		where := ""
		if k := strings.Index(s, "_Cfunc_"); k >= 0 {
			where = " in " + strings.SplitN(s[k:], "(", 2)[0]
		}
		return fmt.Sprintf("%q then %s%s", head, sig, where)
	}
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > 12 {
		lines = lines[len(lines)-12:]
	}
	return strings.Join(lines, "\n")
}

// hotJournal makes a store of 30 series, kills a writer in the middle of a unit (4 KiB
// overlay: many spills) and returns the store, the SHA-256 its last commit left, and the
// parsed journal.
func hotJournal(t *testing.T) (path, committed string, j jrJournal) {
	t.Helper()
	path = jrBase(t, 30)
	committed = openedSHA(t, path)
	killMidUnit(t, path, 100, 4096)
	if sha(t, path) == committed {
		t.Fatal("the killed unit changed nothing")
	}
	return path, committed, jrParseJournal(t, journal.Path(path))
}

// A journal whose header is valid but whose records cannot be played (a page size of 0, or a
// first record, checksum valid, that lies past E0) is not a journal this driver wrote. The
// recovery treats the first such record as the end of the journal, reports a rollback,
// deletes the journal and leaves the file as the killed writer left it.
func TestJournalUnplayableHotJournalIsNotSilentlyDiscarded(t *testing.T) {
	flushAtDefine(t)
	path, committed, j := hotJournal(t)
	if len(j.recs) < 2 {
		t.Fatalf("only %d records", len(j.recs))
	}
	orig, err := os.ReadFile(journal.Path(path))
	if err != nil {
		t.Fatal(err)
	}
	ncAfterKill, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]jrJournal{}
	zero := j
	zero.page = 0
	cases["page size 0"] = zero
	beyond := j
	beyond.recs = append([]jrRec{{j.e0 + 4096, make([]byte, 4096)}}, j.recs...)
	cases["first record past E0"] = beyond
	big := j
	big.page = 1 << 31 // a bigger page than the driver writes: the genuine records still fit
	cases["page size 2^31"] = big
	for name, bad := range cases {
		if err := os.WriteFile(path, ncAfterKill, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(journal.Path(path), jrEncode(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		report, err := journal.Recover(path, true)
		_, jerr := os.Stat(journal.Path(path))
		if err == nil && sha(t, path) != committed {
			t.Errorf("%s: Recover said %q, removed the journal: %v, and the file is not its last commit", name, report, errors.Is(jerr, os.ErrNotExist))
		}
	}
	// The real journal still restores the file exactly.
	os.WriteFile(path, ncAfterKill, 0o644)
	os.WriteFile(journal.Path(path), orig, 0o644)
	if _, err := journal.Recover(path, true); err != nil || sha(t, path) != committed {
		t.Fatalf("the genuine journal: %v", err)
	}
}

// The README's "the .nc was replaced" case when the replacement is the longer file: a hot
// journal of store A is left beside store B's (longer) pair — B restored from a backup into
// A's place, say. Recovery only checks that the file is at least E0 long, so it writes A's
// pages into B's file and deletes the journal before anything looks at the result.
func TestJournalHotJournalBesideALongerReplacementFileIsRefused(t *testing.T) {
	flushAtDefine(t)
	pathA, _, _ := hotJournal(t)
	pathB := jrBase(t, 200) // a bigger store, cleanly closed
	// Restored the way rsync or mv restores, a new file renamed into place. (A copy written
	// into A's own inode is not told apart: the journal names its file by inode and length —
	// a limit the README states.)
	tmp := pathA + ".restoring"
	if err := os.WriteFile(tmp, mustRead(t, pathB), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, pathA); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CatalogPath(pathA), mustRead(t, CatalogPath(pathB)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := sha(t, pathA)
	s, err := Open(pathA)
	if err == nil {
		s.Close()
	}
	_, jerr := os.Stat(journal.Path(pathA))
	if after := sha(t, pathA); after != before {
		ro, rerr := OpenReadOnly(pathA)
		state := fmt.Sprint(rerr)
		if rerr == nil {
			keys, problems := jrContent(ro)
			state = fmt.Sprintf("%d of 200 series listed, %d problems (%s)", len(keys), len(problems), first(problems))
			ro.Close()
		}
		t.Errorf("the open of B's pair beside A's hot journal wrote A's pages into B's file (open: %v; journal removed: %v); B read-only now: %s",
			err, errors.Is(jerr, os.ErrNotExist), state)
	}
}

// jrSummary shortens an "open" child's report: the open's outcome, the keys and the number
// of problems with the first one.
func jrSummary(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "OPEN-ERR") {
			return l
		}
		if strings.HasPrefix(l, "OPEN-OK") {
			if i := strings.Index(l, " problems="); i >= 0 {
				probs := l[i+len(" problems="):]
				n := strings.Count(probs, "\" \"") + 1
				if probs == "[]" {
					n = 0
				}
				if len(probs) > 160 {
					probs = probs[:160] + "…"
				}
				return fmt.Sprintf("%s, %d problems %s", l[:i], n, probs)
			}
			return l
		}
	}
	return jrTail(out)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func first(s []string) string {
	if len(s) == 0 {
		return ""
	}
	return s[0]
}

// A journal left beside a path where a new store is then created (the crashed store's two
// files were removed, its journal forgotten — or a crashed store moved away without it):
// Create does not look at it, and the new store's driver reuses the file as its journal
// without truncating it. Killed before its first spill, the new store is then refused
// (or, were it the longer file, rolled "back" with the old store's pages).
func TestJournalCreateBesideAStaleJournal(t *testing.T) {
	flushAtDefine(t)
	pathA, _, _ := hotJournal(t)
	pathB := filepath.Join(t.TempDir(), "system.nc")
	if err := os.WriteFile(journal.Path(pathB), mustRead(t, journal.Path(pathA)), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := jrChild(t, "create-kill", pathB).CombinedOutput()
	if !strings.Contains(string(out), "CREATED") {
		t.Fatalf("child: %s", out)
	}
	s, err := Open(pathB)
	if err != nil {
		t.Errorf("the store created beside a stale journal, killed before its first commit, does not open: %v", err)
		return
	}
	defer s.Close()
	if s.Recovered() != "" {
		t.Errorf("its open rolled it back with another store's journal: %s", s.Recovered())
	}
}

// The journal's name is path+"-journal", and the driver opens whatever is there (O_RDWR,
// following symlinks, no O_EXCL), writes its header at offset 0 and truncates it at the end
// of the unit; tsj_recover unlinks any file there that is not a hot journal. A store whose
// path is another store's journal name ("a.nc-journal" beside "a.nc") is destroyed by the
// first commit of "a.nc".
func TestJournalNameOfAnotherFile(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "a.nc-journal")
	o, err := Create(other, nil)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, o, gen(1), hourly("p", ramp(168, 1)), nil)
	if err := o.Close(); err != nil {
		t.Fatal(err)
	}
	before := sha(t, other)
	s, err := Create(filepath.Join(dir, "a.nc"), nil)
	switch {
	case err != nil && strings.Contains(err.Error(), "is not a journal of this library"):
		// Refused, naming the file in the way: the other store is left alone.
	case err != nil:
		t.Fatal(err)
	default:
		mustAdd(t, s, gen(2), hourly("p", ramp(168, 2)), nil)
		s.Close()
	}
	fi, err := os.Stat(other)
	if err != nil || sha(t, other) != before {
		size := int64(-1)
		if err == nil {
			size = fi.Size()
		}
		t.Errorf("creating and using a.nc destroyed the store a.nc-journal beside it (its .nc now: %v, %d bytes)", err, size)
	}
}

// ---- 4/5. locks ----------------------------------------------------------------------------

// On a filesystem without flock (it fails with ENOSYS — Lustre without -o flock, for one;
// simulated here with strace's syscall injection), drv_lock lets the writer open the file
// (it ignores ENOSYS), but tsj_recover's probe lock fails and it returns "nothing to do": the
// writable open then runs on the half-written file, and its first spill overwrites the hot
// journal with a new header. The rollback is lost.
func TestJournalHotJournalIsRecoveredWithoutFlock(t *testing.T) {
	flushAtDefine(t)
	strace := requireTool(t, "strace")
	noFlock := []string{strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=flock", "-e", "inject=flock:error=ENOSYS"}
	path, committed, _ := hotJournal(t)
	// A read-only open must refuse the hot journal; with the probe lock failing it does not
	// look at it.
	ro := jrChild(t, "openro", path)
	ro = exec.Command(noFlock[0], append(noFlock[1:], ro.Args...)...)
	ro.Env = append(os.Environ(), "TSSTORE_RECOVERY_CHILD=openro", "TSSTORE_RECOVERY_PATH="+path)
	if out, _ := ro.CombinedOutput(); !strings.Contains(string(out), "hot journal") {
		t.Errorf("a read-only open beside a hot journal, flock failing ENOSYS, did not refuse it: %s", jrSummary(string(out)))
	}
	out, crashed := runOpenChild(t, path, noFlock)
	if crashed {
		t.Fatalf("the child crashed: %s", jrTail(out))
	}
	_, jerr := os.Stat(journal.Path(path))
	if !strings.Contains(out, "recovered=\"rolled") {
		t.Errorf("with flock failing ENOSYS the writable open did not roll back the hot journal (it said %s; journal left: %v); the file equals its last commit: %v",
			strings.Fields(out)[1], jerr == nil, sha(t, path) == committed)
	}
	// The same after kills at other points of a unit (the strace sweep's writer, killed at
	// its k-th pwritev): how often is what the un-rolled-back open leaves damaged?
	template := jrBase(t, 30)
	damaged, tried := 0, 0
	for k := 2; k <= 40; k += 6 {
		p := jrCopyStore(t, template)
		if _, finished := straceKill(t, strace, "units", p, "pwritev", "signal=SIGKILL", k); finished || !jrHot(p) {
			continue
		}
		tried++
		out, crashed := runOpenChild(t, p, noFlock)
		after, crashed2 := runOpenChild(t, p, nil)
		if crashed || crashed2 || !strings.Contains(out+after, "problems=[]") || !strings.Contains(after, "OPEN-OK") {
			damaged++
			t.Logf("pwritev #%d: then an open without flock, then a normal open: %s", k, jrSummary(after))
		}
	}
	if damaged > 0 {
		t.Errorf("%d of %d kills followed by an open without flock left the store damaged", damaged, tried)
	}
}

// With HDF5_USE_FILE_LOCKING=FALSE (what HPC sites set where flock is unsupported) HDF5
// never calls the driver's lock, so a live writer holds no flock, and a writable open in
// another process rolls the live writer's file back in the middle of its unit.
func TestJournalLiveWritersJournalIsLeftAloneWithoutHDF5Locking(t *testing.T) {
	flushAtDefine(t)
	path := jrBase(t, 30)
	w, stdin, stdout := jrPausedWriter(t, path, "HDF5_USE_FILE_LOCKING=FALSE", "TSSTORE_JOURNAL_SPILL=4096")
	jp := journal.Path(path)
	var jst syscall.Stat_t
	if err := syscall.Stat(jp, &jst); err != nil {
		t.Fatal(err)
	}
	duringUnit := sha(t, path)
	// Another process opens the store for writing (HDF5 locking off there too).
	out, _ := runOpenChild(t, path, nil, "HDF5_USE_FILE_LOCKING=FALSE")
	var now syscall.Stat_t
	journalGone := syscall.Stat(jp, &now) != nil || now.Ino != jst.Ino
	touched := sha(t, path) != duringUnit
	t.Logf("second open: %s", jrTail(out))
	io.WriteString(stdin, "go\n")
	rest, _ := io.ReadAll(stdout)
	w.Wait()
	// What the writer committed: p/0..29 and p/100..139.
	s, err := Open(path)
	state := fmt.Sprint(err)
	if err == nil {
		keys, problems := jrContent(s)
		state = fmt.Sprintf("%d series (the writer committed 74: same set %v), %d problems (%s)", len(keys), strings.Join(keys, ",") == jrMidUnitKeys(), len(problems), first(problems))
		s.Close()
	}
	if journalGone || touched {
		t.Errorf("a writable open in another process, while the writer was in the middle of its unit, removed the writer's journal: %v, changed its file: %v; the writer then said %q; the store now: %s",
			journalGone, touched, strings.TrimSpace(string(rest)), state)
	}
}

// ---- 2/6. a kill at every ordering point ---------------------------------------------------

func jrCopyStore(t *testing.T, from string) string {
	t.Helper()
	to := filepath.Join(t.TempDir(), "system.nc")
	for _, suf := range []string{"", CatalogSuffix} {
		if err := os.WriteFile(to+suf, mustRead(t, from+suf), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// The states the "units" writer can leave after printing stage (0: nothing yet, 1: "C1", 2:
// "C2"): its first unit is a transaction; in its second each add commits by itself (write
// buffer 0), so any prefix of the w series may be there.
func jrUnitStates(stage int) map[string]bool {
	s0 := jrPKeys(0, 30)
	s1 := append(jrPKeys(5, 30), jrPKeys(100, 130)...)
	s1 = append(s1, "q109/109", "q119/119", "q129/129")
	out := map[string]bool{}
	add := func(k []string) { out[strings.Join(jrKeys(append([]string(nil), k...)...), ",")] = true }
	if stage == 0 {
		add(s0)
	}
	for k := 0; k <= 10; k++ {
		if stage == 2 && k < 10 {
			continue
		}
		w := append([]string(nil), s1...)
		for i := 200; i < 200+k; i++ {
			w = append(w, fmt.Sprintf("w/%d", i))
		}
		add(w)
		if stage == 0 {
			break // a kill before "C1" printed: the first unit may just have committed
		}
	}
	return out
}

// straceKill runs the "units" writer on path under strace, SIGKILLed at the n-th call of
// syscall sc; it returns the writer's output and whether it ran to the end.
func straceKill(t *testing.T, strace, mode, path, sc, action string, n int) (string, bool) {
	t.Helper()
	child := jrChild(t, mode, path, "TSSTORE_JOURNAL_SPILL=4096")
	cmd := exec.Command(strace, append([]string{"-f", "-qq", "-o", "/dev/null", "-e", "trace=" + sc,
		"-e", fmt.Sprintf("inject=%s:%s:when=%d", sc, action, n)}, child.Args...)...)
	cmd.Env = child.Env
	out, _ := cmd.CombinedOutput()
	return string(out), strings.Contains(string(out), "DONE")
}

// Kill the writer at the n-th fdatasync / fsync / ftruncate / pwritev / unlink / flock for
// every n its two units and its close make: the next writable open must find exactly the
// state of the last commit, or that of the unit the kill cut (its COMMIT was durable).
func TestJournalKillAtEverySyncPoint(t *testing.T) {
	jrSweep(t, "units", "signal=SIGKILL", func(stage int) map[string]bool { return jrUnitStates(stage) })
}

// The same points with the call failing (EIO) instead: the writer sees errors, closes, and
// the next open must again find a committed state.
func TestJournalIOErrorAtEverySyncPoint(t *testing.T) {
	jrSweep(t, "units", "error=EIO", func(stage int) map[string]bool { return jrUnitStates(stage) })
}

// A compaction (the unit that frees and moves the most, and lets HDF5 shrink the file)
// killed at every point.
func TestJournalKillCompactionAtEverySyncPoint(t *testing.T) {
	jrSweep(t, "compact", "signal=SIGKILL", func(stage int) map[string]bool {
		out := map[string]bool{strings.Join(jrPKeys(25, 30), ","): true}
		if stage == 0 {
			out[strings.Join(jrKeys(jrPKeys(0, 30)...), ",")] = true
		}
		return out
	})
}

func jrSweep(t *testing.T, mode, action string, states func(stage int) map[string]bool) {
	if testing.Short() {
		t.Skip("a sweep of a few hundred child processes")
	}
	if raceEnabled && mode == "units" {
		t.Skip("runs without the race detector (make test runs the sweeps on their own): a few hundred children under -race take minutes")
	}
	strace := requireTool(t, "strace")
	template := jrBase(t, 30)
	syscalls := []string{"fdatasync", "fsync", "ftruncate", "pwritev", "unlink"}
	if v := os.Getenv("TSSTORE_RECOVERY_SYSCALLS"); v != "" {
		syscalls = strings.Split(v, ",")
	}
	for _, sc := range syscalls {
		runs, rolled := 0, 0
		step := 1
		if v := os.Getenv("TSSTORE_RECOVERY_STEP"); v != "" {
			fmt.Sscan(v, &step)
		}
		for n := 1; n < 5000; n += step {
			path := jrCopyStore(t, template)
			out, finished := straceKill(t, strace, mode, path, sc, action, n)
			if finished {
				if n == 1 {
					t.Logf("%s: the writer: %s", mode, strings.Join(strings.Fields(out), " "))
				}
				break
			}
			runs++
			stage := 0
			if strings.Contains(out, "C2") {
				stage = 2
			} else if strings.Contains(out, "C1") {
				stage = 1
			}
			check, crashed := runOpenChild(t, path, nil)
			if strings.Contains(check, "rolled") {
				rolled++
			}
			if crashed || !strings.Contains(check, "OPEN-OK") {
				t.Errorf("%s #%d (after stage %d): the open failed: %s", sc, n, stage, jrTail(check))
				continue
			}
			if !strings.Contains(check, "problems=[]") {
				t.Errorf("%s #%d (after stage %d): %s", sc, n, stage, jrTail(check))
			}
			var keys string
			for _, l := range strings.Split(check, "\n") {
				if strings.HasPrefix(l, "KEYS ") {
					keys = strings.TrimPrefix(l, "KEYS ")
				}
			}
			if !states(stage)[keys] {
				t.Errorf("%s #%d (after stage %d): the store holds %d keys, neither the last commit's nor the cut unit's (writer: %s)", sc, n, stage, strings.Count(keys, ",")+1, jrTail(out))
			}
		}
		t.Logf("%s: %d kill points, %d opens rolled back", sc, runs, rolled)
	}
}

// With HDF5's locking on, opens beside a live writer in the middle of a unit (its journal
// hot) are refused and change nothing; the writer then commits.
func TestJournalOpensBesideALiveWritersHotJournal(t *testing.T) {
	flushAtDefine(t)
	path := jrBase(t, 30)
	w, stdin, stdout := jrPausedWriter(t, path, "TSSTORE_JOURNAL_SPILL=4096")
	jp := journal.Path(path)
	before := sha(t, path) + sha(t, jp) + sha(t, CatalogPath(path))
	if s, err := OpenReadOnly(path); err == nil {
		s.Close()
		t.Error("a read-only open beside a live writer succeeded")
	} else {
		t.Logf("read-only: %v", err)
	}
	if s, err := Open(path); err == nil {
		s.Close()
		t.Error("a writable open beside a live writer succeeded")
	} else {
		t.Logf("writable: %v", err)
	}
	out, _ := runOpenChild(t, path, nil)
	if !strings.Contains(out, "OPEN-ERR") {
		t.Errorf("a writable open in a third process: %s", jrTail(out))
	}
	if sha(t, path)+sha(t, jp)+sha(t, CatalogPath(path)) != before {
		t.Error("the refused opens changed the live writer's files")
	}
	io.WriteString(stdin, "go\n")
	rest, _ := io.ReadAll(stdout)
	w.Wait()
	if !strings.Contains(string(rest), "DONE") {
		t.Fatalf("writer: %s", rest)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	keys, problems := jrContent(s)
	if strings.Join(keys, ",") != jrMidUnitKeys() || len(problems) > 0 {
		t.Errorf("after the writer committed: %d keys, problems %q", len(keys), problems)
	}
}

// A failure (FailForTesting) in the middle of a unit that has already spilled committed
// pages into the file: the commit fails, Close closes, the journal stays hot, and a reopen in
// the same process rolls the file back to exactly its last commit.
func TestJournalFailureAfterSpillsThenReopenInProcess(t *testing.T) {
	flushAtDefine(t)
	path := jrBase(t, 30)
	committed := openedSHA(t, path)
	journal.SetSpill(4096)
	s, err := Open(path)
	journal.SetSpill(0)
	if err != nil {
		t.Fatal(err)
	}
	s.SetWriteBuffer(0)
	if err := s.Begin(); err != nil {
		t.Fatal(err)
	}
	jrMidUnitAdds(s, func(f string, a ...any) { t.Fatalf(f, a...) })
	_, spills := s.JournalStats()
	if fi, err := os.Stat(journal.Path(path)); spills < 2 || err != nil || fi.Size() <= 48 {
		t.Fatalf("the unit did not spill (%d spills, %v)", spills, err)
	}
	s.nc.FailForTesting(syscall.EIO)
	if err := s.Commit(); err == nil || !strings.Contains(err.Error(), "open it again") {
		t.Errorf("commit after the failure: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if fi, err := os.Stat(journal.Path(path)); err != nil || fi.Size() <= 48 {
		t.Fatalf("the failed unit's journal is not hot after Close: %v", err)
	}
	s2, err := Open(path)
	if err != nil {
		t.Fatalf("reopen in the same process: %v", err)
	}
	defer s2.Close()
	if !strings.Contains(s2.Recovered(), "rolled") {
		t.Errorf("the reopen did not roll back: %q", s2.Recovered())
	}
	if got := sha(t, path); got != committed {
		t.Errorf("the reopened file is not the file of the last commit")
	}
	keys, problems := jrContent(s2)
	if strings.Join(keys, ",") != strings.Join(jrKeys(jrPKeys(0, 30)...), ",") || len(problems) > 0 {
		t.Errorf("after the reopen: %d keys, problems %q", len(keys), problems)
	}
}

// Stores opened, written and closed from many goroutines at once, with in-memory stores
// persisted and read-only opens among them: every writable file is journalled, every open
// arms and disarms under the netcdf lock, nothing is left armed for the read-only or
// in-memory files, and every store reads back.
func TestJournalManyStoresFromManyGoroutines(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			fail := func(format string, a ...any) { errs <- fmt.Errorf("goroutine %d: "+format, append([]any{g}, a...)...) }
			path := filepath.Join(dir, fmt.Sprintf("s%d.nc", g))
			var s *Store
			var err error
			if g%3 == 2 { // an in-memory store, persisted
				m, err := InMemory(nil)
				if err != nil {
					fail("%v", err)
					return
				}
				for i := int64(0); i < 20; i++ {
					m.Add(gen(i), hourly("p", ramp(168, float64(i))), nil)
				}
				if m.Journalled() {
					fail("an in-memory store is journalled")
				}
				if err := m.Persist(path); err != nil {
					fail("persist: %v", err)
				}
				m.Close()
				if _, err := os.Stat(journal.Path(path)); !errors.Is(err, os.ErrNotExist) {
					fail("a journal outlived Persist: %v", err)
				}
			} else {
				if s, err = Create(path, nil); err != nil {
					fail("%v", err)
					return
				}
				for i := int64(0); i < 20; i++ {
					if _, err := s.Add(gen(i), hourly("p", ramp(168, float64(i))), nil); err != nil {
						fail("%v", err)
					}
				}
				if err := s.Close(); err != nil {
					fail("%v", err)
				}
			}
			for round := 0; round < 3; round++ {
				if s, err = Open(path); err != nil {
					fail("open: %v", err)
					return
				}
				if !s.Journalled() {
					fail("a writable store is not journalled")
				}
				for i := int64(20 + 10*round); i < int64(30+10*round); i++ {
					if _, err := s.Add(gen(i), hourly("p", ramp(168, float64(i))), nil); err != nil {
						fail("%v", err)
					}
				}
				if err := s.Flush(); err != nil {
					fail("%v", err)
				}
				if err := s.Close(); err != nil {
					fail("%v", err)
				}
				r, err := OpenReadOnly(path)
				if err != nil {
					fail("read-only: %v", err)
					return
				}
				keys, problems := jrContent(r)
				if len(keys) != 30+10*round || len(problems) > 0 || r.Journalled() {
					fail("round %d: %d keys, %q, journalled read-only: %v", round, len(keys), problems, r.Journalled())
				}
				r.Close()
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// A kill in the middle of the rollback itself (at its k-th page write, its truncation, its
// fsyncs, the journal's removal): the next recovery must still produce the last commit.
func TestJournalKillDuringRecovery(t *testing.T) {
	flushAtDefine(t)
	strace := requireTool(t, "strace")
	path, committed, j := hotJournal(t)
	hot := map[string][]byte{}
	for _, p := range []string{path, CatalogPath(path), journal.Path(path)} {
		hot[p] = mustRead(t, p)
	}
	points := map[string]int{"pwrite64": len(j.recs) + 2, "ftruncate": 1, "fsync": 2, "unlink": 1}
	tried := 0
	for sc, max := range points {
		for n := 1; n <= max; n++ {
			for p, b := range hot {
				if err := os.WriteFile(p, b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, crashed := runOpenChild(t, path, []string{strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + sc,
				"-e", fmt.Sprintf("inject=%s:signal=SIGKILL:when=%d", sc, n)})
			if !crashed {
				continue // the open got past its recovery before the n-th call
			}
			tried++
			report, err := journal.Recover(path, true)
			if err != nil || sha(t, path) != committed {
				t.Errorf("killed at %s #%d of the recovery (%s): the next recovery said %q, %v; the file is its last commit: %v",
					sc, n, jrTail(out), report, err, sha(t, path) == committed)
			}
		}
	}
	t.Logf("%d kill points inside the recovery", tried)
}

// ---- Go side -------------------------------------------------------------------------------

// JournalStats after Close reads the tsj_file that drv_close freed (ncstore.File.journal is
// never cleared): here it reports the counters of whichever file now occupies that memory.
func TestJournalStatsAfterClose(t *testing.T) {
	path := jrBase(t, 30)
	journal.SetSpill(4096)
	defer journal.SetSpill(0)
	a, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, a, gen(500), hourly("p", ramp(168, 500)), nil)
	if err := a.Flush(); err != nil {
		t.Fatal(err)
	}
	b1, s1 := a.JournalStats()
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	pathB := jrBase(t, 3)
	b, err := Open(pathB)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i := int64(600); i < 640; i++ {
		mustAdd(t, b, gen(i), hourly("p", ramp(168, float64(i))), nil)
	}
	b.Flush()
	b2, s2 := a.JournalStats()
	bb, bs := b.JournalStats()
	t.Logf("A before close %d/%d, A after close %d/%d, B %d/%d, A journalled after close: %v", b1, s1, b2, s2, bb, bs, a.Journalled())
	if b2 != b1 || s2 != s1 {
		t.Errorf("JournalStats of a closed store changed from %d bytes/%d spills to %d/%d (B has %d/%d): it reads freed memory", b1, s1, b2, s2, bb, bs)
	}
}

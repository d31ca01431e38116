package core

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fhs/go-netcdf/netcdf"

	"github.com/tsstore/tsstore/core/internal/ncshim"
	"github.com/tsstore/tsstore/core/internal/ncstore"
)

var t0 = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

func newStore(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "system.nc")
	s, err := Create(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, path
}

// reopen closes s and opens its path again, closed when the test ends.
func reopen(t *testing.T, s *Store, path string) *Store { return reopenWith(t, s, path, Open) }

// reopenReadOnly closes s and opens its path read-only, closed when the test ends.
func reopenReadOnly(t *testing.T, s *Store, path string) *Store {
	return reopenWith(t, s, path, OpenReadOnly)
}

func reopenWith(t *testing.T, s *Store, path string, open func(string) (*Store, error)) *Store {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s2.Close() })
	return s2
}

// openAgain reopens a store the test closed (for example to let ncdump read it: HDF5 locks
// a file open for writing against other processes).
func openAgain(t *testing.T, path string) *Store {
	t.Helper()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func gen(owner int64) Owner { return Owner{ID: owner, Type: "ThermalStandard", Category: Component} }

func hourly(name string, vals []float64) *SingleTimeSeries {
	return &SingleTimeSeries{Name: name, InitialTimestamp: t0, Resolution: Hours(1), Data: ArrayOf(vals)}
}

func ramp(n int, offset float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i) + offset
	}
	return v
}

func mustAdd(t *testing.T, s *Store, o Owner, ts TimeSeries, opts *AddOptions) Key {
	t.Helper()
	k, err := s.Add(o, ts, opts)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func mustGetSingle(t *testing.T, s *Store, k Key) *SingleTimeSeries {
	t.Helper()
	ts, err := s.Get(k)
	if err != nil {
		t.Fatal(err)
	}
	return ts.(*SingleTimeSeries)
}

func floats(t *testing.T, a TypedArray) []float64 {
	t.Helper()
	v, err := Values[float64](a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func equalFloats(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}

func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" || os.Getenv("TSSTORE_REQUIRE_TOOLS") != "" {
			t.Fatalf("%s is required but not on PATH", name)
		}
		t.Skipf("%s not on PATH", name)
	}
	return p
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(requireTool(t, name), args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func wantKind(t *testing.T, err error, kind error) {
	t.Helper()
	if !errors.Is(err, kind) {
		t.Fatalf("want %v, got %v", kind, err)
	}
}

// hashSlots reads the {ds}_h companion of a closed store through ncdump. ncdump prints a
// slot holding the NC_STRING fill value (the empty string) as "_"; both read as free.
func hashSlots(t *testing.T, path, ds string) []string {
	t.Helper()
	out := run(t, "ncdump", "-v", ds+"_h", path)
	i := strings.Index(out, ds+"_h =")
	if i < 0 {
		t.Fatalf("ncdump shows no data for %s_h:\n%s", ds, out)
	}
	body := out[i+len(ds+"_h ="):]
	body = body[:strings.Index(body, ";")]
	var slots []string
	for _, tok := range strings.Split(body, ",") {
		tok = strings.TrimSpace(tok)
		if tok == "_" {
			tok = `""`
		}
		slots = append(slots, strings.Trim(tok, `"`))
	}
	return slots
}

// A child process started while a store is open must not inherit its files (HDF5 opens the
// .nc without O_CLOEXEC, and the inherited descriptor carries HDF5's lock).
func TestChildProcessesDoNotInheritTheStore(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("ls", "-l", "/proc/self/fd/").CombinedOutput()
	if err != nil {
		t.Fatalf("ls: %v\n%s", err, out)
	}
	if strings.Contains(string(out), filepath.Base(path)) {
		t.Fatalf("the child holds the store's files:\n%s", out)
	}
}

// HDF5 locks the .nc file for as long as a process has it open: a store open for writing in
// one process keeps every other process out, and readers keep a writer out. The refused open
// says so (instead of netcdf-c's bare "HDF error") and changes nothing; readers share.
func TestOpenBlockedByAnotherProcessSaysSo(t *testing.T) {
	if p := os.Getenv("TSSTORE_HOLD_STORE"); p != "" {
		holdStore(p, os.Getenv("TSSTORE_HOLD_MODE") == "ro")
		return
	}
	if v := strings.ToUpper(os.Getenv("HDF5_USE_FILE_LOCKING")); v == "FALSE" || v == "0" {
		t.Skip("HDF5 file locking is off in this environment")
	}
	s, path := newStore(t)
	mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"rw", "ro"} {
		release := startHolder(t, path, mode)
		before := fileDigests(t, path)
		_, err := Open(path)
		if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "open (for reading or writing) in another process") {
			t.Fatalf("writable open while another process holds it %s: %v", mode, err)
		}
		r, err := OpenReadOnly(path)
		if mode == "rw" {
			if !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "open for writing in another process") {
				t.Fatalf("read-only open beside a writer: %v", err)
			}
		} else {
			if err != nil {
				t.Fatalf("read-only open beside a reader: %v", err)
			}
			if _, err := r.Get(Key{OwnerID: 1, Name: "p", Resolution: Hours(1)}); err != nil {
				t.Fatal(err)
			}
			r.Close()
		}
		if fileDigests(t, path) != before { // compared before the holder closes (and writes)
			t.Fatal("refused opens changed the files")
		}
		release()
	}
	// Once the other process is gone, the store opens as usual.
	s = openAgain(t, path)
	s.Close()
}

// startHolder runs this test binary as a process that opens path (mode "rw" or "ro") and
// keeps it open until the returned function is called.
func startHolder(t *testing.T, path, mode string) func() {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOpenBlockedByAnotherProcessSaysSo$")
	cmd.Env = append(os.Environ(), "TSSTORE_HOLD_STORE="+path, "TSSTORE_HOLD_MODE="+mode)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(out).ReadString('\n')
	if !strings.HasPrefix(line, "ready") {
		t.Fatalf("holder: %q", line)
	}
	return func() {
		in.Close()
		cmd.Wait()
	}
}

func holdStore(path string, readOnly bool) {
	var s *Store
	var err error
	if readOnly {
		s, err = OpenReadOnly(path)
	} else {
		s, err = Open(path)
	}
	if err != nil {
		os.Stdout.WriteString("error " + err.Error() + "\n")
		return
	}
	os.Stdout.WriteString("ready\n")
	io.ReadAll(os.Stdin)
	s.Close()
}

// A truncated .nc fails to open with an I/O error that says the file is damaged, and the
// open writes nothing.
func TestTruncatedFileSaysDamaged(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 20; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(168, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, keep := range []float64{0.5, 0.9} {
		if err := os.Truncate(path, int64(float64(fi.Size())*keep)); err != nil {
			t.Fatal(err)
		}
		before := fileDigests(t, path)
		for _, open := range []func(string) (*Store, error){Open, OpenReadOnly} {
			if _, err := open(path); !errors.Is(err, ErrIO) || !strings.Contains(err.Error(), "damaged or truncated") {
				t.Fatalf("truncated to %.0f%%: %v", keep*100, err)
			}
		}
		if fileDigests(t, path) != before {
			t.Fatal("a refused open changed the files")
		}
	}
}

// A hash slot that disagrees with the catalog (the file edited or damaged): the writable open
// refuses the pair, and through a read-only open the series whose slot changed reads as an
// integrity error while the others read back.
func TestHashSlotDisagreeingWithCatalog(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 3; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	ds, err := netcdf.OpenFile(path, netcdf.WRITE)
	if err != nil {
		t.Fatal(err)
	}
	top, err := ncshim.Group(ds, ncstore.GroupTop)
	if err == nil {
		top, err = ncshim.Group(top, ncstore.GroupSingle)
	}
	var varid int
	if err == nil {
		varid, err = ncshim.VarID(top, "sts_f64_s_24_PT1H_h")
	}
	if err == nil {
		err = ncshim.PutStrings(top, varid, 1, []string{strings.Repeat("ab", 32)})
	}
	if cerr := ds.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path); !errors.Is(err, ErrIntegrity) || !strings.Contains(err.Error(), "1 of the 3 arrays") {
		t.Fatalf("writable open: %v", err)
	}
	r, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Get(Key{OwnerID: 1, Name: "p", Resolution: Hours(1)}); !errors.Is(err, ErrIntegrity) {
		t.Fatalf("the series whose slot changed: %v", err)
	}
	for _, owner := range []int64{0, 2} {
		ts, err := r.Get(Key{OwnerID: owner, Name: "p", Resolution: Hours(1)})
		if err != nil || !equalFloats(floats(t, ts.(*SingleTimeSeries).Data), ramp(24, float64(owner))) {
			t.Fatalf("owner %d: %v", owner, err)
		}
	}
}

// Eight processes sweep one store at once, each with a StaticReader over every series and a
// ForecastReader over every forecast, and each checks every value it reads.
func TestEightReaderProcessesSweepOneStore(t *testing.T) {
	const n, length, forecasts = 400, 168, 50
	if p := os.Getenv("TSSTORE_SWEEP_STORE"); p != "" {
		if err := sweepAndCheck(p, n, length, forecasts); err != nil {
			os.Stdout.WriteString("error " + err.Error() + "\n")
			return
		}
		os.Stdout.WriteString("ok\n")
		return
	}
	s, path := newStore(t)
	var items []BatchItem
	for i := 0; i < n; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(length, float64(i*1000)))})
	}
	for i := 0; i < forecasts; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: sampleForecast(DeterministicType, F64, nil, 24, 7, 0, Hours(24), i)})
	}
	if _, err := s.AddBatch(items); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for p := 0; p < 8; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestEightReaderProcessesSweepOneStore$")
		cmd.Env = append(os.Environ(), "TSSTORE_SWEEP_STORE="+path)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, &out)
	}
	for p, cmd := range cmds {
		err := cmd.Wait()
		if err != nil || !strings.Contains(outs[p].String(), "\nok\n") && !strings.HasPrefix(outs[p].String(), "ok\n") {
			t.Fatalf("reader process %d: %v\n%s", p, err, outs[p].String())
		}
	}
}

func sweepAndCheck(path string, n, length, forecasts int) error {
	s, err := OpenReadOnly(path)
	if err != nil {
		return err
	}
	defer s.Close()
	keys := make([]Key, n)
	for i := range keys {
		keys[i] = Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}
	}
	rd, err := s.NewStaticReader(Hours(1), Lookups(keys))
	if err != nil {
		return err
	}
	defer rd.Close()
	for step := 0; step < length; step++ {
		if err := rd.ReadStep(step); err != nil {
			return err
		}
		v, err := Values[float64](rd.Groups()[0].Values)
		if err != nil {
			return err
		}
		for j, ki := range rd.Groups()[0].Keys {
			if want := float64(ki*1000 + step); v[j] != want {
				return errors.New("series " + itoa(int64(ki)) + " reads a wrong value at step " + itoa(int64(step)))
			}
		}
	}
	fkeys := make([]Key, forecasts)
	want := make([][]float64, forecasts) // [H, count] row-major, as written
	for i := range fkeys {
		fkeys[i] = forecastKey(int64(i), DeterministicType, Hours(24))
		v, err := Values[float64](sampleForecast(DeterministicType, F64, nil, 24, 7, 0, Hours(24), i).Array())
		if err != nil {
			return err
		}
		want[i] = v
	}
	fr, err := s.NewForecastReader(DeterministicType, Hours(1), Lookups(fkeys))
	if err != nil {
		return err
	}
	defer fr.Close()
	for w := 0; w < 7; w++ {
		if err := fr.ReadWindow(w); err != nil {
			return err
		}
		g := fr.Groups()[0]
		v, err := Values[float64](g.Values)
		if err != nil {
			return err
		}
		for j, ki := range g.Keys {
			for h := 0; h < 24; h++ {
				if got, exp := v[j*24+h], want[ki][h*7+w]; math.Float64bits(got) != math.Float64bits(exp) { // NaN too
					return errors.New("a forecast window reads a wrong value")
				}
			}
		}
	}
	return nil
}

// A write that would not fit (a file-size limit here; a full disk the same way) is refused
// before anything is written, with an I/O error that says so; the writes stay pending, and a
// flush once there is room commits them. (Without the check, the write failed half way and
// took every committed series of the dataset it shared with them: HDF5 left that dataset's
// metadata half flushed.)
func TestWriteBeyondAFileSizeLimitIsRefusedBeforeWriting(t *testing.T) {
	const before, more = 50, 2000
	if p := os.Getenv("TSSTORE_FSIZE_STORE"); p != "" {
		os.Stdout.WriteString(writeUnderFileSizeLimit(p, before, more) + "\n")
		return
	}
	s, path := newStore(t)
	for i := 0; i < before; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(168, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriteBeyondAFileSizeLimitIsRefusedBeforeWriting$")
	cmd.Env = append(os.Environ(), "TSSTORE_FSIZE_STORE="+path)
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "refused: ") || !strings.Contains(string(out), "not enough room") ||
		!strings.Contains(string(out), "(i/o error)") || !strings.Contains(string(out), "unchanged: true") ||
		!strings.Contains(string(out), "retry: ok") {
		t.Fatalf("the write past the limit: %s", out)
	}
	r := openAgain(t, path)
	defer r.Close()
	keys, err := r.ListKeys(KeyFilter{})
	if err != nil || len(keys) != before+more {
		t.Fatalf("%d series after the retried flush, want %d (%v)", len(keys), before+more, err)
	}
	for _, i := range []int{0, before - 1, before, before + more - 1} {
		want := ramp(168, float64(i))
		if i >= before {
			want = ramp(168, float64(i)*3.7)
		}
		if !equalFloats(floats(t, mustGetSingle(t, r, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}).Data), want) {
			t.Fatalf("series %d", i)
		}
	}
	if rep, err := r.VerifyIntegrity(); err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// writeUnderFileSizeLimit opens the store with the file-size limit at its size plus 64 KiB,
// adds far more than that and flushes (which must be refused with the files unchanged), then
// lifts the limit and flushes again.
func writeUnderFileSizeLimit(path string, before, more int) string {
	s, err := Open(path)
	if err != nil {
		return "open: " + err.Error()
	}
	lift, err := underFileSizeLimit(path, 64<<10)
	if err != nil {
		return "rlimit: " + err.Error()
	}
	var items []BatchItem
	for i := before; i < before+more; i++ {
		items = append(items, BatchItem{Owner: gen(int64(i)), Series: hourly("p", ramp(168, float64(i)*3.7))})
	}
	digest := func() string {
		b, _ := os.ReadFile(path)
		c, _ := os.ReadFile(CatalogPath(path))
		return string(b) + "\x00" + string(c)
	}
	was := digest()
	_, err = s.AddBatch(items)
	if err == nil {
		err = s.Flush()
	}
	if err == nil {
		return "the write past the limit succeeded"
	}
	if !errors.Is(err, ErrIO) {
		return "not an I/O error: " + err.Error()
	}
	report := "refused: " + err.Error() + "\nunchanged: " + fmt.Sprint(digest() == was)
	lift()
	if err := s.Close(); err != nil { // commits the pending unit
		return report + "\nretry: " + err.Error()
	}
	return report + "\nretry: ok"
}

// A hash companion whose strings HDF5 cannot read (its global heap damaged — here by
// overwriting the heap collection's signature) no longer costs the whole store: the open
// rebuilds that dataset's index from its columns' bytes, every series reads back, verify
// names the damage, and new writes go to a new dataset, never into the damaged one.
func TestUnreadableHashCompanionIsRebuiltFromColumns(t *testing.T) {
	s, path := newStore(t)
	for i := 0; i < 20; i++ {
		mustAdd(t, s, gen(int64(i)), hourly("p", ramp(24, float64(i))), nil)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The collection holding the slot strings is the last one before the first slot's text.
	at := bytes.Index(b, []byte(hashOf(ArrayOf(ramp(24, 0)))))
	gcol := bytes.LastIndex(b[:max(at, 0)], []byte("GCOL"))
	if at < 0 || gcol < 0 {
		t.Fatal("no global heap collection holding the hash slots")
	}
	copy(b[gcol:], "XCOL")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ncdump", "-v", "sts_f64_s_24_PT1H_h", path).CombinedOutput(); err == nil {
		t.Fatalf("ncdump still reads the damaged hash companion:\n%s", out)
	}
	s = openAgain(t, path)
	for i := 0; i < 20; i++ {
		if !equalFloats(floats(t, mustGetSingle(t, s, Key{OwnerID: int64(i), Name: "p", Resolution: Hours(1)}).Data), ramp(24, float64(i))) {
			t.Fatalf("series %d after the rebuild", i)
		}
	}
	rep, err := s.VerifyIntegrity()
	if err != nil || len(rep.Unreadable) != 1 || !strings.Contains(rep.Unreadable[0], "sts_f64_s_24_PT1H_h") || len(rep.HashMismatches) != 0 {
		t.Fatalf("verify: %+v %v", rep, err)
	}
	k := mustAdd(t, s, gen(50), hourly("p", ramp(24, 50)), nil)
	if err := s.Remove(Key{OwnerID: 3, Name: "p", Resolution: Hours(1)}); err != nil {
		t.Fatal(err)
	}
	s = reopen(t, s, path)
	if !equalFloats(floats(t, mustGetSingle(t, s, k).Data), ramp(24, 50)) {
		t.Fatal("the series added after the rebuild")
	}
	// (ncdump cannot open the damaged file at all; the store's index says where it went.)
	if slot, ok := s.nc.Column(ArrayOf(ramp(24, 50)).hash()); !ok || slot.Dataset().Name() != "sts_f64_s_24_PT1H__1" || slot.Dataset().Damaged() != nil {
		t.Fatalf("the new series did not go to a new dataset: %+v", slot)
	}
	if ok, err := s.Has(Key{OwnerID: 3, Name: "p", Resolution: Hours(1)}); ok || err != nil {
		t.Fatalf("the removed series: %v %v", ok, err)
	}
}

package core

// Opening mutated .nc files. HDF5 can abort or segfault the process on a damaged file
// (the crash harness saw a glibc "double free"), so no in-process test can survive every
// input: each open here runs in a child process — this test binary run again with
// -test.run=^TestMutatedNCChild$ and ncmChildEnv naming the copy to open — and the parent
// counts how the child ended.
//
// What must hold, whatever the bytes of the .nc: a read either fails or returns exactly the
// values written (a wrong value is a silent wrong read — the one outcome a user cannot
// detect), and no open, read, verify_integrity or close runs forever. What the store cannot
// promise is that HDF5 itself survives: see ncmFatal for the policy on crashes.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core/internal/ncstore"
)

const (
	ncmChildEnv = "TSSTORE_NCMUTATE_CHILD"  // path of the mutated .nc the child opens
	ncmPhaseEnv = "TSSTORE_NCMUTATE_PHASES" // the opens it runs, in order (default ncmPhases)
	ncmPhases   = "ro,rw,ro-after-rw"

	ncmStepPrefix    = "ncmutate-step "    // the child's progress lines, so a crash has a place
	ncmVerdictPrefix = "ncmutate-verdict " // the child's one-line JSON verdict

	// The template store: singles added one at a time (two units of work), one batch, one
	// Deterministic forecast.
	ncmSingles    = 20
	ncmBatchFirst = 101
	ncmBatchN     = 50
	ncmFcOwner    = 200
	ncmSteps      = 168
	ncmFcH        = 24 // forecast: 7 daily windows of 24 hourly steps
	ncmFcCount    = 7
	ncmMaxPatch   = 4096
)

// ncmHang is when a child counts as a HANG (and is killed): 20 s of CPU, four times the most
// a sound child of the fixed set used (4.9 s), or a wall bound that only a child blocked
// without using CPU reaches. Wall time is no measure of a hang here: with the machine's two
// cores busy with other work, sound children took up to 17 s, and each hung one needed
// 6.5 minutes to burn 60 s of CPU. The summary line logs the most CPU a sound child used.
var ncmHang = hangLimits{cpu: 20 * time.Second, wall: 10 * time.Minute}

// ---------------------------------------------------------------------------------------
// The template store and what reading it must return.

// ncmSeries is one series of the template: its key and the values a read must return.
type ncmSeries struct {
	key   Key
	shape []int
	want  []float64
}

// ncmValues are the values of owner's series: distinct per owner and step, not a plain ramp
// (so that shuffle + deflate leave real compressed bytes to damage).
func ncmValues(owner int64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(owner)*1000 + float64(i)*0.25 + float64((i*7+int(owner))%13)/8
	}
	return v
}

// ncmExpected is the template's content, computed rather than read back, so that a child
// knows what every read must return without the template. The parent checks that the keys
// the store hands back at Add are these.
func ncmExpected() []ncmSeries {
	var out []ncmSeries
	single := func(o int64) ncmSeries {
		return ncmSeries{key: Key{OwnerID: o, OwnerCategory: Component, Type: SingleTimeSeriesType, Name: "p", Resolution: Hours(1)},
			shape: []int{ncmSteps}, want: ncmValues(o, ncmSteps)}
	}
	for o := int64(1); o <= ncmSingles; o++ {
		out = append(out, single(o))
	}
	for o := int64(ncmBatchFirst); o < ncmBatchFirst+ncmBatchN; o++ {
		out = append(out, single(o))
	}
	out = append(out, ncmSeries{key: Key{OwnerID: ncmFcOwner, OwnerCategory: Component, Type: DeterministicType, Name: "p",
		Resolution: Hours(1), Interval: Hours(24)}, shape: []int{ncmFcH, ncmFcCount}, want: ncmValues(ncmFcOwner, ncmFcH*ncmFcCount)})
	return out
}

func ncmTimeSeries(e ncmSeries) TimeSeries {
	if e.key.Type == DeterministicType {
		return &Deterministic{Name: "p", InitialTimestamp: t0, Resolution: Hours(1), Horizon: Hours(ncmFcH), Interval: Hours(24),
			Count: ncmFcCount, Data: ArrayOf(e.want, e.shape...)}
	}
	return hourly("p", e.want)
}

type ncmTemplate struct {
	nc, cat []byte
	series  []ncmSeries
	layout  ncmMap // HDF5 structures found by signature (what the fixed set aims at)
	data    ncmMap // raw data regions from h5ls, when it is installed (labels only)
}

// label says what the byte at off of the template is.
func (t *ncmTemplate) label(off int) string {
	for _, m := range []ncmMap{t.data, t.layout} {
		for _, r := range m {
			if off >= r.start && off < r.end {
				return fmt.Sprintf("%s +%d", r.what, off-r.start)
			}
		}
	}
	return "unmapped: free space or metadata without a signature"
}

var ncmTpl struct {
	once sync.Once
	t    *ncmTemplate
	err  error
}

// ncmTemplateOnce builds the template store once per process (the fuzz coordinator and each
// worker build their own) and keeps the pair's bytes in memory.
func ncmTemplateOnce(tb testing.TB) *ncmTemplate {
	tb.Helper()
	ncmTpl.once.Do(func() { ncmTpl.t, ncmTpl.err = ncmBuildTemplate() })
	if ncmTpl.err != nil {
		tb.Fatalf("building the template store: %v", ncmTpl.err)
	}
	return ncmTpl.t
}

func ncmBuildTemplate() (*ncmTemplate, error) {
	dir, err := os.MkdirTemp("", "tsstore-ncmutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "store.nc")
	s, err := Create(path, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	exp := ncmExpected()
	// The batch first, so that it gets a dataset of its own (50 wide); then the singles in
	// two units of work (a default-width dataset, and a file with some history); then the
	// forecast (a standalone variable and its two dimension scales).
	var batch []BatchItem
	for _, e := range exp {
		if e.key.OwnerID >= ncmBatchFirst && e.key.OwnerID < ncmBatchFirst+ncmBatchN {
			batch = append(batch, BatchItem{Owner: gen(e.key.OwnerID), Series: ncmTimeSeries(e)})
		}
	}
	bkeys, err := s.AddBatch(batch)
	if err != nil {
		return nil, err
	}
	if err := s.Flush(); err != nil {
		return nil, err
	}
	got := map[string]bool{}
	for _, k := range bkeys {
		got[k.String()] = true
	}
	for _, e := range exp {
		if e.key.OwnerID >= ncmBatchFirst && e.key.OwnerID < ncmBatchFirst+ncmBatchN {
			continue
		}
		k, err := s.Add(gen(e.key.OwnerID), ncmTimeSeries(e), nil)
		if err != nil {
			return nil, err
		}
		got[k.String()] = true
		if e.key.OwnerID == ncmSingles/2 {
			if err := s.Flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := s.Close(); err != nil {
		return nil, err
	}
	if len(got) != len(exp) {
		return nil, fmt.Errorf("%d distinct keys added, %d expected", len(got), len(exp))
	}
	for _, e := range exp {
		if !got[e.key.String()] {
			return nil, fmt.Errorf("the child will ask for %s, which was not added", e.key)
		}
	}
	// The check the children run must pass on the unmutated pair (in process: it is intact).
	for _, mode := range []string{"ro", "rw"} {
		ph := ncmCheckPhase(path, mode, exp, func(string) {})
		if !ph.Opened || ph.Correct != ncmReadsPerPhase(exp) || ph.Errors != 0 || len(ph.Wrong) != 0 || !ph.VerifyOK || ph.CloseErr != "" {
			return nil, fmt.Errorf("the unmutated template does not check clean (%s): %+v", mode, ph)
		}
	}
	t := &ncmTemplate{series: exp, data: ncmH5lsLayout(path)}
	if t.nc, err = os.ReadFile(path); err != nil {
		return nil, err
	}
	t.layout = ncmLayout(t.nc)
	if t.cat, err = os.ReadFile(CatalogPath(path)); err != nil {
		return nil, err
	}
	return t, nil
}

// ncmApply returns a mutated copy of nc: patch XORed into the file at off (mod the file's
// length; bytes past the end are dropped), or, for an empty patch, the file truncated to
// off mod its length. XOR (rather than overwrite) makes every non-zero patch byte a change
// whatever the layout, so committed seeds stay mutations when the template changes.
func ncmApply(nc []byte, off uint32, patch []byte) []byte {
	o := int(off % uint32(len(nc)))
	if len(patch) == 0 {
		return append([]byte(nil), nc[:o]...)
	}
	m := append([]byte(nil), nc...)
	for i, b := range patch {
		if o+i >= len(m) {
			break
		}
		m[o+i] ^= b
	}
	return m
}

// ---------------------------------------------------------------------------------------
// The child.

// ncmPhase is what one open of the mutated pair did.
type ncmPhase struct {
	Mode           string   `json:"mode"` // ro, rw, ro-after-rw
	Opened         bool     `json:"opened"`
	OpenErr        string   `json:"open_err,omitempty"`
	Correct        int      `json:"correct"`         // series read with exactly the expected values
	Errors         int      `json:"errors"`          // read calls that returned an error
	Wrong          []string `json:"wrong,omitempty"` // reads that returned anything else
	WrongFill      int      `json:"wrong_fill"`      // of those, reads whose every wrong value is netCDF's fill value
	FirstErr       string   `json:"first_err,omitempty"`
	VerifyOK       bool     `json:"verify_ok"`
	VerifyErr      string   `json:"verify_err,omitempty"`
	VerifyFindings int      `json:"verify_findings"`
	CloseErr       string   `json:"close_err,omitempty"`
	// LeftOpen counts the process's descriptors still open on the .nc after the phase. A
	// writable open refused while reading variables leaves one, with HDF5's lock: netcdf-c's
	// nc_close of that file fails (NC_EDIMSCALE) and keeps it open, and the next open in
	// the process is then told that another process holds the file.
	LeftOpen int `json:"left_open"`
}

type ncmVerdict struct {
	Phases []ncmPhase `json:"phases"`
}

func (v *ncmVerdict) phase(mode string) *ncmPhase {
	for i := range v.Phases {
		if v.Phases[i].Mode == mode {
			return &v.Phases[i]
		}
	}
	return &ncmPhase{}
}

// ncmReadsPerPhase is the number of series values one phase compares on an intact store:
// a Get of every series, a GetMany of every series and one window of the forecast.
func ncmReadsPerPhase(exp []ncmSeries) int { return 2*len(exp) + 1 }

// TestMutatedNCChild is the child of TestMutatedNCFiles and FuzzOpenMutatedNC; run by
// itself (ncmChildEnv unset) it does nothing. It opens the pair read-only, writable (which
// runs the writer's recovery and orphan cleanup, and may write), then read-only again, and
// prints one verdict line. It never fails as a test: the parent judges the verdict.
func TestMutatedNCChild(t *testing.T) {
	path := os.Getenv(ncmChildEnv)
	if path == "" {
		t.Skip("runs only as the child process of TestMutatedNCFiles and TestRandomMutatedNC (" + ncmChildEnv + " unset)")
	}
	exp := ncmExpected()
	step := func(s string) { os.Stdout.WriteString(ncmStepPrefix + s + "\n") } // unbuffered: survives a crash
	var v ncmVerdict
	phases := os.Getenv(ncmPhaseEnv)
	if phases == "" {
		phases = ncmPhases
	}
	for _, mode := range strings.Split(phases, ",") {
		v.Phases = append(v.Phases, ncmCheckPhase(path, mode, exp, step))
	}
	line, err := json.Marshal(v)
	if err != nil {
		line = []byte(fmt.Sprintf(`{"marshal_error": %q}`, err))
	}
	os.Stdout.WriteString(ncmVerdictPrefix + string(line) + "\n")
}

func ncmCheckPhase(path, mode string, exp []ncmSeries, step func(string)) (ph ncmPhase) {
	ph.Mode = mode
	defer func() { ph.LeftOpen = ncmOpenDescriptors(path) }()
	open := OpenReadOnly
	if mode == "rw" {
		open = Open
	}
	step(mode + ":open")
	s, err := open(path)
	if err != nil {
		ph.OpenErr = ncmFirstLine(err.Error())
		return ph
	}
	ph.Opened = true
	failed := func(what string, err error) {
		ph.Errors++
		if ph.FirstErr == "" {
			ph.FirstErr = what + ": " + ncmFirstLine(err.Error())
		}
	}
	judge := func(what string, e ncmSeries, ts TimeSeries) {
		if msg := ncmCompare(e, ts); msg != "" {
			ph.Wrong = append(ph.Wrong, what+" "+e.key.String()+": "+msg)
			if ncmOnlyFill(e, ts) {
				ph.WrongFill++
			}
		} else {
			ph.Correct++
		}
	}
	step(mode + ":get")
	keys := make([]Key, len(exp))
	for i, e := range exp {
		keys[i] = e.key
		ts, err := s.Get(e.key)
		if err != nil {
			failed("get "+e.key.String(), err)
			continue
		}
		judge("get", e, ts)
	}
	step(mode + ":getmany")
	if all, err := s.GetMany(keys); err != nil {
		failed("get_many", err)
	} else if len(all) != len(exp) {
		ph.Wrong = append(ph.Wrong, fmt.Sprintf("get_many returned %d series for %d keys", len(all), len(exp)))
	} else {
		for i, e := range exp {
			judge("get_many", e, all[i])
		}
	}
	step(mode + ":window")
	fc := exp[len(exp)-1]
	const win = 3
	if w, err := s.GetWindow(fc.key, t0.Add(win*24*time.Hour)); err != nil {
		failed("get_window", err)
	} else {
		want := make([]float64, ncmFcH)
		for h := range want {
			want[h] = fc.want[h*ncmFcCount+win]
		}
		arr, err := w.Window(0)
		if err != nil {
			ph.Wrong = append(ph.Wrong, "get_window: the window read has no window 0: "+err.Error())
		} else if msg := ncmCompareArray(arr, []int{ncmFcH}, want); msg != "" {
			ph.Wrong = append(ph.Wrong, fmt.Sprintf("get_window %d of %s: %s", win, fc.key, msg))
			if ncmOnlyFillArray(arr, want) {
				ph.WrongFill++
			}
		} else {
			ph.Correct++
		}
	}
	step(mode + ":verify")
	if rep, err := s.VerifyIntegrity(); err != nil {
		ph.VerifyErr = ncmFirstLine(err.Error())
	} else {
		ph.VerifyOK = rep.OK()
		ph.VerifyFindings = len(rep.HashMismatches) + len(rep.Unreadable) + len(rep.DanglingRows) + len(rep.ShapeMismatches)
	}
	step(mode + ":close")
	if err := s.Close(); err != nil {
		ph.CloseErr = ncmFirstLine(err.Error())
	}
	return ph
}

// ncmOpenDescriptors counts this process's descriptors open on path (Linux; 0 elsewhere).
func ncmOpenDescriptors(path string) int {
	want, err := filepath.Abs(path)
	if err != nil {
		return 0
	}
	if w, err := filepath.EvalSymlinks(want); err == nil {
		want = w
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if l, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && l == want {
			n++
		}
	}
	return n
}

// ncmCompare says how ts differs from what e must read as ("" when it is exact).
func ncmCompare(e ncmSeries, ts TimeSeries) string {
	if ts == nil {
		return "a nil series without an error"
	}
	if ts.SeriesType() != e.key.Type {
		return fmt.Sprintf("a %s, not a %s", ts.SeriesType(), e.key.Type)
	}
	var arr TypedArray
	switch x := ts.(type) {
	case *SingleTimeSeries:
		if !x.InitialTimestamp.Equal(t0) || x.Resolution != Hours(1) {
			return fmt.Sprintf("timeline %v every %v, want %v every PT1H", x.InitialTimestamp, x.Resolution, t0)
		}
		arr = x.Data
	case *Deterministic:
		g := x.Grid()
		if !g.InitialTimestamp.Equal(t0) || g.Count != ncmFcCount || g.Horizon != Hours(ncmFcH) || g.Interval != Hours(24) {
			return fmt.Sprintf("grid %+v", g)
		}
		arr = x.Data
	default:
		return fmt.Sprintf("an unexpected %T", ts)
	}
	return ncmCompareArray(arr, e.shape, e.want)
}

func ncmCompareArray(arr TypedArray, shape []int, want []float64) string {
	if arr.DType != F64 || fmt.Sprint(arr.Shape) != fmt.Sprint(shape) {
		return fmt.Sprintf("%s %v, want f64 %v", arr.DType, arr.Shape, shape)
	}
	got, err := Values[float64](arr)
	if err != nil || len(got) != len(want) {
		return fmt.Sprintf("%d values (%v), want %d", len(got), err, len(want))
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
			n := 0
			for j := range want {
				if math.Float64bits(got[j]) != math.Float64bits(want[j]) {
					n++
				}
			}
			return fmt.Sprintf("%d of %d values differ; first at [%d]: read %v, written %v", n, len(want), i, got[i], want[i])
		}
	}
	return ""
}

// ncmFillDouble is netCDF's default fill value for doubles (NC_FILL_DOUBLE): what HDF5
// hands back for a chunk its chunk index does not find.
const ncmFillDouble = 9.9692099683868690e+36

// ncmOnlyFill says whether every value ts gets wrong reads as the fill value.
func ncmOnlyFill(e ncmSeries, ts TimeSeries) bool {
	if f, ok := ts.(Forecast); ok {
		return ncmOnlyFillArray(f.Array(), e.want)
	}
	if x, ok := ts.(*SingleTimeSeries); ok {
		return ncmOnlyFillArray(x.Data, e.want)
	}
	return false
}

func ncmOnlyFillArray(arr TypedArray, want []float64) bool {
	got, err := Values[float64](arr)
	if err != nil || len(got) != len(want) {
		return false
	}
	for i := range want {
		if math.Float64bits(got[i]) != math.Float64bits(want[i]) && got[i] != ncmFillDouble {
			return false
		}
	}
	return true
}

func ncmFirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// ---------------------------------------------------------------------------------------
// The parent.

// ncmOutcome is how one child ended.
type ncmOutcome struct {
	verdict  *ncmVerdict
	crash    string // "" or what ended the child: "c-signal SIGSEGV", "c-abort", "signal killed", "go-panic", "go-fatal", "race", "exit 3"
	hang     bool
	lastStep string // the child's last progress line: where it crashed or hung
	stderr   string // its first stderr line (glibc's or Go's message)
	cfunc    string // the first cgo entry point on the crashed goroutine's stack, if any
	elapsed  time.Duration
	cpu      time.Duration // user+system CPU of the child
	maxRSSKB int64
	rwAlone  string // after a crash in the first open: what a writable open alone did
}

// ncmSummary is an outcome in a few words.
func ncmSummary(o ncmOutcome) string {
	switch {
	case o.hang:
		return "hang in " + o.lastStep
	case o.crash != "":
		return o.crash + " in " + o.lastStep
	case o.verdict == nil:
		return "no verdict"
	}
	var parts []string
	for _, ph := range o.verdict.Phases {
		if !ph.Opened {
			parts = append(parts, ph.Mode+" refused: "+ph.OpenErr)
		} else {
			parts = append(parts, fmt.Sprintf("%s opened: %d correct, %d errors, %d wrong", ph.Mode, ph.Correct, ph.Errors, len(ph.Wrong)))
		}
	}
	return strings.Join(parts, "; ")
}

// ncmKnownHang says whether a hang is the one diagnosed when this test was written: a
// damaged global heap collection ("GCOL", holding the _h hash strings and the DIMENSION_LIST
// references netcdf-c reads at open) sends HDF5 1.10.8's heap parser into an endless loop
// (H5HG_read → H5C_protect) inside an open's netcdf-c calls (the first open, or the read-only
// open after a writable one: random mutations found that too), or inside the read of the
// hash strings (tsstore_strings_io) by which a read-only open, through HDF5 directly, indexes packed datasets
// (core/internal/h5). A loop inside HDF5 is out
// of the store's reach (no call into C can be interrupted), so such a hang is counted and
// logged; any other hang fails. (A second known failure — damage to a chunk B-tree node
// hiding chunks, which HDF5 then reads as the fill value with no error — was the store's to
// fix: whole reads are now checked against the row's data_hash, and every wrong read fails.)
func ncmKnownHang(o ncmOutcome) bool {
	// Any phase's open: a writable open that got through may leave the file (superblock,
	// journal) so that the read-only open after it takes another path into the same loop.
	return o.hang && strings.HasSuffix(o.lastStep, ":open") &&
		(strings.Contains(o.cfunc, "_Cfunc_nc_") || strings.Contains(o.cfunc, "h5._Cfunc_tsstore_strings_io"))
}

// ncmFatal says whether an outcome fails the test, and why.
//
// The policy on crashes, decided after measuring (TestMutatedNCFiles: 7 of 160 inputs, all
// SIGSEGV inside HDF5 during the first open, reading the _h strings or the DIMENSION_LIST
// references through a damaged global heap or damaged heap IDs; 16 since read-only opens go
// through HDF5 directly: netcdf-c's open read every variable's DIMENSION_LIST first, and
// for 9 inputs one of those reads failed cleanly before the strings' read could crash —
// the metadata reads a lazy open exists to skip): a child that HDF5 or
// glibc kills — SIGSEGV/SIGBUS inside a C call, SIGABRT from glibc's heap checks ("double
// free"), or a signal from outside (the OOM killer) — is counted and logged, not failed:
// the store cannot fix HDF5 1.10, and no caller-side check can catch a signal in C code.
// Everything the store's own code controls does fail: a wrong read, a hang, a Go panic or
// fatal error (a nil dereference, an index out of range or an allocation sized by damaged
// bytes in Go is the store's bug, whatever the file), a race report, and a child that
// ends without a verdict for no reason we can name.
func ncmFatal(o ncmOutcome) (bool, string) {
	why := ""
	switch {
	case o.hang:
		why = "HANG"
	case strings.HasPrefix(o.crash, "c-") || strings.HasPrefix(o.crash, "signal "):
		return false, ""
	case o.crash != "":
		return true, "CRASH (" + o.crash + ", not in C code: " + o.stderr + ")"
	case o.verdict == nil:
		return true, "no verdict"
	default:
		for _, ph := range o.verdict.Phases {
			if len(ph.Wrong) > 0 {
				why = "WRONG READ"
			}
		}
	}
	if why == "" || why == "HANG" && ncmKnownHang(o) {
		return false, ""
	}
	return true, why
}

var (
	ncmCfuncRE  = regexp.MustCompile(`\b(\w+\._Cfunc_\w+)`)
	ncmSignalRE = regexp.MustCompile(`(?m)^\[?signal (SIG[A-Z]+)|^(SIG[A-Z]+): `)
	ncmPanicRE  = regexp.MustCompile(`(?m)^panic: `)
)

// ncmRunChild writes the pair into dir and runs one child on it (phases: the opens it runs,
// "" for ncmPhases). An error is the harness's own failure (files, exec), not the child's.
func ncmRunChild(dir string, nc, cat []byte, phases string) (ncmOutcome, error) {
	path := filepath.Join(dir, "store.nc")
	if err := os.WriteFile(path, nc, 0o644); err != nil {
		return ncmOutcome{}, err
	}
	if err := os.WriteFile(CatalogPath(path), cat, 0o644); err != nil {
		return ncmOutcome{}, err
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestMutatedNCChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), ncmChildEnv+"="+path, ncmPhaseEnv+"="+phases, "GOTRACEBACK=single")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return ncmOutcome{}, err
	}
	// A hung child gets SIGQUIT, so that Go's runtime prints where it is (the cgo call it
	// hangs in), then it is killed.
	hung, err := waitWatched(cmd, ncmHang)
	o := ncmOutcome{elapsed: time.Since(start)}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		o.maxRSSKB = ru.Maxrss
		o.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if s, ok := strings.CutPrefix(line, ncmStepPrefix); ok {
			o.lastStep = s
		} else if s, ok := strings.CutPrefix(line, ncmVerdictPrefix); ok {
			var v ncmVerdict
			if jerr := json.Unmarshal([]byte(s), &v); jerr != nil {
				return o, fmt.Errorf("the child's verdict %q: %v", s, jerr)
			}
			o.verdict = &v
		}
	}
	errText := stderr.String()
	o.stderr = ncmFirstLine(strings.TrimSpace(errText))
	if m := ncmCfuncRE.FindStringSubmatch(errText); m != nil {
		o.cfunc = m[1]
	}
	if hung != "" {
		o.hang, o.verdict = true, nil
		return o, nil
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return o, err
	}
	if err == nil {
		return o, nil
	}
	// Go's runtime handles the signals of a crash in C code itself and exits with status 2:
	// a segfault in HDF5 shows as "SIGSEGV: segmentation violation … signal arrived during
	// cgo execution", glibc's abort() as "SIGABRT: abort". A signal the runtime could not
	// handle (SIGKILL from the OOM killer) shows in the wait status.
	o.verdict = nil
	ws, _ := exit.Sys().(syscall.WaitStatus)
	switch {
	case strings.Contains(errText, "WARNING: DATA RACE"):
		o.crash = "race"
	case ncmPanicRE.MatchString(errText):
		o.crash = "go-panic"
	case strings.Contains(errText, "SIGABRT: abort"):
		o.crash = "c-abort"
	case strings.Contains(errText, "signal arrived during cgo execution") || ncmSignalRE.MatchString(errText):
		o.crash = "c-signal"
		if m := ncmSignalRE.FindStringSubmatch(errText); m != nil {
			o.crash += " " + m[1] + m[2]
		}
	case ws.Signaled():
		o.crash = "signal " + ws.Signal().String()
	case strings.Contains(errText, "fatal error: "):
		o.crash = "go-fatal" // Go's runtime gave up (out of memory, concurrent map writes…)
	default:
		o.crash = fmt.Sprintf("exit %d", exit.ExitCode())
	}
	return o, nil
}

// ncmDescribe is one line for a log: the mutation, the HDF5 structure it hit and the outcome.
func ncmDescribe(name string, tpl *ncmTemplate, off uint32, o ncmOutcome) string {
	at := int(off % uint32(len(tpl.nc)))
	var b strings.Builder
	fmt.Fprintf(&b, "%s (offset %d, %s) [child: %v, %v CPU, %d MB]", name, at, tpl.label(at), o.elapsed.Round(time.Millisecond),
		o.cpu.Round(time.Millisecond), o.maxRSSKB/1024)
	switch {
	case o.hang:
		fmt.Fprintf(&b, ": HANG after %v of CPU in %s", o.cpu.Round(time.Millisecond), o.lastStep)
		if o.cfunc != "" {
			fmt.Fprintf(&b, " (%s)", o.cfunc)
		}
	case o.crash != "":
		fmt.Fprintf(&b, ": CRASH %s in %s", o.crash, o.lastStep)
		if o.cfunc != "" {
			fmt.Fprintf(&b, " (%s)", o.cfunc)
		}
		fmt.Fprintf(&b, ": %q", o.stderr)
		if o.rwAlone != "" {
			fmt.Fprintf(&b, "; a writable open alone: %s", o.rwAlone)
		}
	case o.verdict != nil:
		for _, ph := range o.verdict.Phases {
			if ph.LeftOpen > 0 {
				fmt.Fprintf(&b, "; %s left %d descriptor(s) open on the file", ph.Mode, ph.LeftOpen)
			}
			if !ph.Opened {
				fmt.Fprintf(&b, "; %s refused: %s", ph.Mode, ph.OpenErr)
				continue
			}
			fmt.Fprintf(&b, "; %s: %d correct, %d errors, %d wrong, verify_integrity ", ph.Mode, ph.Correct, ph.Errors, len(ph.Wrong))
			switch {
			case ph.VerifyErr != "":
				fmt.Fprintf(&b, "failed (%s)", ph.VerifyErr)
			case ph.VerifyOK:
				b.WriteString("clean")
			default:
				fmt.Fprintf(&b, "found %d", ph.VerifyFindings)
			}
			if ph.FirstErr != "" {
				fmt.Fprintf(&b, " (first error: %s)", ph.FirstErr)
			}
			for i, w := range ph.Wrong {
				if i == 3 {
					fmt.Fprintf(&b, "\n\t… and %d more", len(ph.Wrong)-i)
					break
				}
				fmt.Fprintf(&b, "\n\tWRONG %s", w)
			}
		}
	}
	return b.String()
}

// ---------------------------------------------------------------------------------------
// Where things are in the file: a map of HDF5 structures found by their signatures, good
// enough to aim the fixed set's metadata flips and to say what a mutation hit. Bytes no
// structure claims are raw data (compressed chunks, contiguous data) or free space.

type ncmRegion struct {
	start, end int
	what       string
}

type ncmMap []ncmRegion

var ncmSignatures = []string{"OHDR", "OCHK", "BTHD", "BTIN", "BTLF", "TREE", "HEAP", "GCOL", "FRHP", "FHDB", "FHIB", "FSHD", "FSSE", "SNOD", "EAHD", "EAIB", "EASB", "EADB", "FAHD", "FADB", "SMTB", "SMLI"}

// ncmLayout finds the superblock and every signature in nc. Sizes are read from the
// structures where that is simple (superblock v2/v3, OHDR, GCOL, HEAP, BTHD and its nodes,
// TREE); elsewhere a structure is taken to run to the next signature, at most 512 bytes.
func ncmLayout(nc []byte) ncmMap {
	var m ncmMap
	if len(nc) >= 48 && bytes.HasPrefix(nc, []byte("\x89HDF\r\n\x1a\n")) {
		n := 48
		if nc[8] < 2 {
			n = 96
		}
		m = append(m, ncmRegion{0, n, "superblock"})
	}
	type hit struct {
		at  int
		sig string
	}
	var hits []hit
	for _, sig := range ncmSignatures {
		for i := 0; ; {
			j := bytes.Index(nc[i:], []byte(sig))
			if j < 0 {
				break
			}
			hits = append(hits, hit{i + j, sig})
			i += j + 1
		}
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].at < hits[b].at })
	u64 := func(at, n int) int {
		if at+n > len(nc) {
			return 0
		}
		switch n {
		case 1:
			return int(nc[at])
		case 2:
			return int(binary.LittleEndian.Uint16(nc[at:]))
		case 4:
			return int(binary.LittleEndian.Uint32(nc[at:]))
		}
		return int(binary.LittleEndian.Uint64(nc[at:]))
	}
	btreeNode := 0
	for i, h := range hits {
		next := len(nc)
		if i+1 < len(hits) {
			next = hits[i+1].at
		}
		size := 0
		switch h.sig {
		case "OHDR":
			if h.at+6 <= len(nc) && nc[h.at+4] == 2 {
				flags := nc[h.at+5]
				p := h.at + 6
				if flags&0x20 != 0 {
					p += 16
				}
				if flags&0x10 != 0 {
					p += 4
				}
				w := 1 << (flags & 3)
				size = p - h.at + w + u64(p, w) + 4
			}
		case "GCOL", "HEAP":
			if h.sig == "GCOL" {
				size = u64(h.at+8, 8)
			} else {
				size = 32
			}
		case "BTHD":
			size, btreeNode = 38, u64(h.at+6, 4)
		case "BTIN", "BTLF":
			size = btreeNode
		case "TREE":
			size = ncmTreeNodeSize(nc, h.at)
		}
		if size <= 0 || h.at+size > len(nc) {
			size = min(next-h.at, 512)
		}
		m = append(m, ncmRegion{h.at, h.at + size, h.sig})
	}
	// A signature inside an earlier structure's bytes (a GCOL holding "OHDR", say) is data.
	var out ncmMap
	for _, r := range m {
		if len(out) > 0 && r.start < out[len(out)-1].end {
			continue
		}
		out = append(out, r)
	}
	return out
}

// ncmTreeNodeSize is the allocated size of the version 1 B-tree node at at: 24 bytes of
// header, 2K+1 keys and 2K child addresses. Group nodes (type 0) have K=16 and 8-byte keys;
// chunk nodes (type 1) K=32 (HDF5's default, which netcdf-c keeps) and keys of a chunk size,
// a filter mask and rank+1 offsets — the rank is the one whose keys end in a 0 offset (the
// element dimension) and point at children inside the file. 0 if it does not parse.
func ncmTreeNodeSize(nc []byte, at int) int {
	if at+24 > len(nc) {
		return 0
	}
	switch nc[at+4] {
	case 0:
		return 24 + 33*8 + 32*8
	case 1:
		used := int(binary.LittleEndian.Uint16(nc[at+6:]))
		for rank := 1; rank <= 8; rank++ {
			ks := 8 + 8*(rank+1)
			ok := used > 0 && at+24+used*(ks+8)+ks <= len(nc)
			for e := 0; ok && e < used; e++ {
				key := at + 24 + e*(ks+8)
				child := binary.LittleEndian.Uint64(nc[key+ks:])
				ok = binary.LittleEndian.Uint64(nc[key+8+8*rank:]) == 0 && child >= 48 && child < uint64(len(nc))
			}
			if ok {
				return 24 + 65*ks + 64*8
			}
		}
	}
	return 0
}

// ncmH5lsLayout labels what the signatures cannot: the raw data of every dataset (each
// chunk of a chunked one, with its row), from h5ls -v -a if it is on PATH. Only the labels
// of log lines depend on it, never which mutations run.
func ncmH5lsLayout(path string) ncmMap {
	h5ls, err := exec.LookPath("h5ls")
	if err != nil {
		return nil
	}
	out, err := exec.Command(h5ls, "-v", "-a", "-r", path).Output()
	if err != nil {
		return nil
	}
	var m ncmMap
	var ds string
	var allocated int
	var chunked bool
	dsRE := regexp.MustCompile(`^/(\S+)\s+Dataset\b`)
	storRE := regexp.MustCompile(`^\s+Storage:\s+\d+ logical bytes, (\d+) allocated bytes`)
	addrRE := regexp.MustCompile(`^\s+Address:\s+(\d+)$`)
	chunkRE := regexp.MustCompile(`^\s+0x[0-9a-f]+\s+(\d+)\s+(\d+)\s+\[(\d+)`)
	for _, line := range strings.Split(string(out), "\n") {
		var at, n int
		if g := dsRE.FindStringSubmatch(line); g != nil {
			ds, allocated, chunked = filepath.Base(g[1]), 0, false
		} else if ds == "" {
			continue
		} else if strings.HasPrefix(strings.TrimSpace(line), "Chunks:") {
			chunked = true
		} else if g := storRE.FindStringSubmatch(line); g != nil {
			fmt.Sscan(g[1], &allocated)
		} else if g := addrRE.FindStringSubmatch(line); g != nil && !chunked && allocated > 0 {
			// Contiguous data: the _h companions' heap IDs (16 bytes an element). For a
			// chunked dataset this address is its chunk B-tree, which the signatures cover.
			fmt.Sscan(g[1], &at)
			m = append(m, ncmRegion{at, at + allocated, "data of " + ds})
		} else if g := chunkRE.FindStringSubmatch(line); g != nil {
			fmt.Sscan(g[1], &n)
			fmt.Sscan(g[2], &at)
			m = append(m, ncmRegion{at, at + n, "chunk [" + g[3] + "] of " + ds})
		}
	}
	return m
}

// ---------------------------------------------------------------------------------------
// The fixed set and the fuzz target.

type ncmMutation struct {
	name  string
	off   uint32
	patch []byte // XORed in; empty: truncate to off
}

// ncmMutations is the fixed, deterministic set: single-byte flips spread evenly over the
// file, flips aimed at the HDF5 metadata the map finds, truncations at 10 lengths and
// 512-byte blocks zeroed at 20 offsets.
func ncmMutations(nc []byte, layout ncmMap) []ncmMutation {
	r := rand.New(rand.NewPCG(0x6e636d75, 0x74617465))
	n := len(nc)
	flip := func() []byte { return []byte{byte(1 + r.IntN(255))} }
	var out []ncmMutation
	const spread = 100
	for i := 0; i < spread; i++ {
		lo, hi := i*n/spread, (i+1)*n/spread
		off := lo + r.IntN(max(hi-lo, 1))
		out = append(out, ncmMutation{fmt.Sprintf("flip %d/%d", i+1, spread), uint32(off), flip()})
	}
	var meta []int // every metadata byte the map knows
	for _, reg := range layout {
		for o := reg.start; o < reg.end; o++ {
			meta = append(meta, o)
		}
	}
	const aimed = 30
	for i := 0; i < aimed && len(meta) > 0; i++ {
		off := meta[r.IntN(len(meta))]
		out = append(out, ncmMutation{fmt.Sprintf("metadata flip %d/%d", i+1, aimed), uint32(off), flip()})
	}
	for _, l := range []int{0, 8, 48, 512, 4096, n / 4, n / 2, 3 * n / 4, n - 512, n - 1} {
		out = append(out, ncmMutation{fmt.Sprintf("truncate to %d", l), uint32(l), nil})
	}
	const blocks = 20
	for i := 0; i < blocks; i++ {
		off := (i * n / blocks) &^ 511
		end := min(off+512, n)
		out = append(out, ncmMutation{fmt.Sprintf("zero 512 at %d", off), uint32(off), append([]byte(nil), nc[off:end]...)})
	}
	return out
}

// ncmTally adds outcomes up for the summary line.
type ncmTally struct {
	inputs, openedRO, openedRW, errs, correct, wrong, crashes, hangs int
	leaked                                                           int // inputs after which a phase left the file open
	elapsed                                                          []time.Duration
	maxRSSKB                                                         int64
}

func (t *ncmTally) add(o ncmOutcome) {
	t.inputs++
	t.elapsed = append(t.elapsed, o.elapsed)
	t.maxRSSKB = max(t.maxRSSKB, o.maxRSSKB)
	switch {
	case o.hang:
		t.hangs++
		return
	case o.crash != "":
		t.crashes++
		return
	case o.verdict == nil:
		return
	}
	for _, ph := range o.verdict.Phases {
		if ph.LeftOpen > 0 {
			t.leaked++
			break
		}
	}
	for _, ph := range o.verdict.Phases {
		if ph.Opened && ph.Mode == "ro" {
			t.openedRO++
		}
		if ph.Opened && ph.Mode == "rw" {
			t.openedRW++
		}
		t.errs += ph.Errors
		t.correct += ph.Correct
		t.wrong += len(ph.Wrong)
	}
}

func (t *ncmTally) String() string {
	return fmt.Sprintf("mutated nc: inputs=%d opened_ro=%d opened_rw=%d errors=%d correct_reads=%d wrong_reads=%d crashes=%d hangs=%d",
		t.inputs, t.openedRO, t.openedRW, t.errs, t.correct, t.wrong, t.crashes, t.hangs)
}

// ncmClass is an outcome in one word, for the breakdown by structure.
func ncmClass(o ncmOutcome) string {
	switch {
	case o.hang:
		return "hang"
	case o.crash != "":
		return "crash"
	case o.verdict == nil:
		return "no-verdict"
	}
	ro, rw := o.verdict.phase("ro"), o.verdict.phase("rw")
	wrong, errs, found := 0, 0, false
	for _, ph := range o.verdict.Phases {
		wrong += len(ph.Wrong)
		errs += ph.Errors
		found = found || (ph.Opened && !ph.VerifyOK)
	}
	switch {
	case wrong > 0:
		return "wrong"
	case !ro.Opened && !rw.Opened:
		return "refused"
	case errs > 0:
		return "read-errors"
	case found || !ro.Opened || !rw.Opened:
		return "detected"
	}
	return "unaffected"
}

// ncmKind is the structure a mutation starts in, without the position inside it.
func ncmKind(tpl *ncmTemplate, m ncmMutation) string {
	if len(m.patch) == 0 {
		return "truncation"
	}
	l := tpl.label(int(m.off % uint32(len(tpl.nc))))
	l = regexp.MustCompile(` \+\d+$`).ReplaceAllString(l, "")
	return regexp.MustCompile(`^chunk \[\d+\] of `).ReplaceAllString(l, "chunk of ")
}

// TestMutatedNCFiles runs the fixed set through child processes, two per core at a time
// (a hung child burns a core until it is killed; the others keep going), and prints one
// summary line. errors= counts read calls (Get, GetMany, GetWindow) that returned an
// error, correct_reads= and wrong_reads= the series they returned, over the three opens of
// each input (read-only, writable, read-only again); opened_ro= and opened_rw= count the
// inputs whose first read-only and whose writable open succeeded.
func TestMutatedNCFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ~160 child processes")
	}
	if raceEnabled {
		t.Skip("runs without the race detector (make test runs it on its own): children under -race take twice as long, and the race detector has nothing to see in a child that reads one store")
	}
	tpl := ncmTemplateOnce(t)
	muts := ncmMutations(tpl.nc, tpl.layout)
	outs, wall := ncmRunAll(t, tpl, muts)
	var tally ncmTally
	byKind := map[string]map[string]int{}
	for i, m := range muts {
		o := outs[i]
		tally.add(o)
		k := ncmKind(tpl, m)
		if byKind[k] == nil {
			byKind[k] = map[string]int{}
		}
		byKind[k][ncmClass(o)]++
		if fatal, why := ncmFatal(o); fatal {
			t.Errorf("%s: %s", why, ncmDescribe(m.name, tpl, m.off, o))
		} else if o.crash != "" || o.hang || ncmClass(o) == "wrong" {
			t.Logf("counted, not failed: %s", ncmDescribe(m.name, tpl, m.off, o))
		} else if testing.Verbose() {
			t.Logf("%s", ncmDescribe(m.name, tpl, m.off, o))
		}
	}
	kinds := make([]string, 0, len(byKind))
	for k := range byKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var table strings.Builder
	for _, k := range kinds {
		fmt.Fprintf(&table, "\n\t%-40s", k)
		for _, c := range []string{"unaffected", "detected", "read-errors", "refused", "wrong", "crash", "hang", "no-verdict"} {
			if n := byKind[k][c]; n > 0 {
				fmt.Fprintf(&table, " %s=%d", c, n)
			}
		}
	}
	el := slices.Clone(tally.elapsed)
	slices.Sort(el)
	t.Logf("template: %d bytes .nc, %d bytes catalog, %d series, %d HDF5 structures found by signature; "+
		"%d children in %v (median %v, slowest finished %v; most CPU of a finished one %v, a hang at %v), peak child RSS %d MB; %d inputs left the .nc open after a refused open or a close; outcomes by what the mutation hit:%s",
		len(tpl.nc), len(tpl.cat), len(tpl.series), len(tpl.layout), len(muts), wall.Round(time.Millisecond),
		el[len(el)/2].Round(time.Millisecond), ncmSlowestFinished(outs).Round(time.Millisecond), ncmMostCPUFinished(outs).Round(time.Millisecond),
		ncmHang.cpu, tally.maxRSSKB/1024, tally.leaked, table.String())
	t.Log(tally.String())
	fmt.Printf("%s\n", tally.String())
}

// ncmRunAll runs a child on each mutation of the template, two per core at a time (a hung
// child burns a core until it is killed; the others keep going), and returns their
// outcomes and the wall time of the whole. A child whose first open crashed is run again
// on a writable open alone. The harness's own failures (files, exec) end the test.
func ncmRunAll(t *testing.T, tpl *ncmTemplate, muts []ncmMutation) ([]ncmOutcome, time.Duration) {
	t.Helper()
	outs := make([]ncmOutcome, len(muts))
	errs := make([]error, len(muts))
	var wg sync.WaitGroup
	work := make(chan int)
	root := t.TempDir()
	for w := 0; w < 2*runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				dir := filepath.Join(root, fmt.Sprint(i))
				if errs[i] = os.Mkdir(dir, 0o755); errs[i] == nil {
					outs[i], errs[i] = ncmRunChild(dir, ncmApply(tpl.nc, muts[i].off, muts[i].patch), tpl.cat, "")
				}
				if errs[i] == nil && outs[i].crash != "" && outs[i].lastStep == "ro:open" {
					// The first open crashed, so the writable one never ran: would it?
					os.RemoveAll(dir)
					var rw ncmOutcome
					if errs[i] = os.Mkdir(dir, 0o755); errs[i] == nil {
						rw, errs[i] = ncmRunChild(dir, ncmApply(tpl.nc, muts[i].off, muts[i].patch), tpl.cat, "rw")
					}
					outs[i].rwAlone = ncmSummary(rw)
				}
				os.RemoveAll(dir)
			}
		}()
	}
	start := time.Now()
	for i := range muts {
		work <- i
	}
	close(work)
	wg.Wait()
	wall := time.Since(start)
	for i, m := range muts {
		if errs[i] != nil {
			t.Fatalf("%s: %v", m.name, errs[i])
		}
	}
	return outs, wall
}

func ncmSlowestFinished(outs []ncmOutcome) time.Duration {
	var d time.Duration
	for _, o := range outs {
		if !o.hang {
			d = max(d, o.elapsed)
		}
	}
	return d
}

// ncmMostCPUFinished is the margin check on ncmHang: the most CPU a child that ended used.
func ncmMostCPUFinished(outs []ncmOutcome) time.Duration {
	var d time.Duration
	for _, o := range outs {
		if !o.hang {
			d = max(d, o.cpu)
		}
	}
	return d
}

// FuzzOpenMutatedNC XORs patch into a copy of the template's .nc at offset (mod its length;
// an empty patch truncates the file there instead), keeps its catalog, and runs the child
// on the pair: it fails on a wrong read, a hang or a crash in the store's Go code, and logs
// a crash in HDF5 (ncmFatal). The work happens in the child, so the fuzzer's coverage
// guidance sees none of it: this is random search around the seeds. The committed corpus
// (testdata/fuzz/FuzzOpenMutatedNC, one file per structure, offsets taken from this
// template) hits the superblock, the root group's object header, a compressed chunk, the
// _h strings' global heap, the _h heap IDs and the end of the file. Seeds that hang (a
// global heap object's size field) are left to TestMutatedNCFiles: each costs ncmHang's CPU.
// make test runs the random search as TestRandomMutatedNC, not under go test -fuzz, whose
// workers fail an input that runs 10 s of wall time (a slow child, or any hang).
func FuzzOpenMutatedNC(f *testing.F) {
	tpl := ncmTemplateOnce(f)
	f.Fuzz(func(t *testing.T, off uint32, patch []byte) {
		if len(patch) > ncmMaxPatch {
			patch = patch[:ncmMaxPatch]
		}
		o, err := ncmRunChild(t.TempDir(), ncmApply(tpl.nc, off, patch), tpl.cat, "")
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("xor %x", patch)
		if len(patch) == 0 {
			name = "truncate"
		}
		desc := ncmDescribe(name, tpl, off, o)
		if fatal, why := ncmFatal(o); fatal {
			t.Fatalf("%s: %s", why, desc)
		} else if o.crash != "" || o.hang || ncmClass(o) == "wrong" {
			t.Logf("counted, not failed: %s", desc)
		} else if testing.Verbose() {
			t.Logf("%s", desc)
		}
	})
}

// An open that fails inside netcdf-c can leave the damaged file open, with HDF5's lock (its
// close fails too). A second open in the same process then says so, instead of blaming
// another process. Runs in a child: the leaked file stays in that process's HDF5.
func TestALeakedFailedOpenIsNamed(t *testing.T) {
	if p := os.Getenv("TSSTORE_LEAKED_OPEN"); p != "" {
		_, err1 := OpenReadOnly(p)
		fds := len(ncstore.DescriptorsOf(p))
		_, err2 := Open(p)
		fmt.Printf("first: %v\nheld: %d\nsecond: %v\n", err1, fds, err2)
		return
	}
	tpl := ncmTemplateOnce(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "system.nc")
	// The root group's object header, flipped (the seed root-group-object-header).
	if err := os.WriteFile(path, ncmApply(tpl.nc, 88, []byte{0x10}), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(CatalogPath(path), tpl.cat, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestALeakedFailedOpenIsNamed$", "-test.count=1")
	cmd.Env = append(os.Environ(), "TSSTORE_LEAKED_OPEN="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "first: tsstore: open") {
		t.Fatalf("the damaged file opened:\n%s", out)
	}
	if strings.Contains(string(out), "held: 0") {
		t.Skipf("netcdf-c released the file after the failed open here:\n%s", out)
	}
	if !strings.Contains(string(out), "still held by this process") || strings.Contains(string(out), "in another process") {
		t.Fatalf("the second open does not name this process as the holder:\n%s", out)
	}
}

package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

// binPath is the tsstore binary every test runs, built once by TestMain.
var binPath string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "tsstore-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Readable by everyone: the read-only test runs the binary as an unprivileged user.
	os.Chmod(dir, 0o755)
	binPath = filepath.Join(dir, "tsstore")
	build := exec.Command("go", "build", "-o", binPath, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building tsstore:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// forkMu keeps the test process from starting a child while it has a store open: netcdf-c
// and HDF5 open files without O_CLOEXEC, so a child started then inherits the descriptor
// and with it HDF5's flock on the file, and the next open of that store (in the test
// process or another child) fails with "HDF error" until that child exits.
var forkMu sync.RWMutex

// result is what one run of the binary produced.
type result struct {
	stdout, stderr string
	code           int
}

// run runs the binary with no stdin (a closed pipe: not a terminal).
func run(t *testing.T, args ...string) result {
	t.Helper()
	return runIn(t, "", args...)
}

func runIn(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Env = append(os.Environ(), "COLUMNS=80")
	cmd.Stdin = strings.NewReader(stdin)
	return runCmd(t, cmd)
}

func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := start(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %v: %v", cmd.Args, err)
	}
	return result{stdout: out.String(), stderr: errb.String(), code: code}
}

// ok runs a command that must succeed with nothing on stderr, and returns its stdout.
func ok(t *testing.T, args ...string) string {
	t.Helper()
	r := run(t, args...)
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("tsstore %v: exit %d, stderr %q", args, r.code, r.stderr)
	}
	return r.stdout
}

// fails runs a command that must fail with the given status and one stderr line naming
// the command and containing every fragment.
func fails(t *testing.T, code int, fragments []string, args ...string) result {
	t.Helper()
	r := run(t, args...)
	checkFailure(t, r, code, fragments, args)
	return r
}

func checkFailure(t *testing.T, r result, code int, fragments []string, args []string) {
	t.Helper()
	if r.code != code {
		t.Fatalf("tsstore %v: exit %d, want %d (stderr %q)", args, r.code, code, r.stderr)
	}
	line := strings.TrimSuffix(r.stderr, "\n")
	if strings.Contains(line, "\n") || line == "" {
		t.Fatalf("tsstore %v: stderr is not one line: %q", args, r.stderr)
	}
	prefix := "tsstore: "
	if len(args) > 0 && commands[args[0]] != nil {
		prefix = "tsstore " + args[0] + ": "
	}
	if !strings.HasPrefix(line, prefix) {
		t.Errorf("tsstore %v: stderr %q does not start with %q", args, line, prefix)
	}
	for _, f := range fragments {
		if !strings.Contains(line, f) {
			t.Errorf("tsstore %v: stderr %q does not mention %q", args, line, f)
		}
	}
}

// start starts a child while no store is open in the test process (see forkMu).
func start(cmd *exec.Cmd) error {
	forkMu.RLock()
	defer forkMu.RUnlock()
	return cmd.Start()
}

func parseCSV(t *testing.T, s string) [][]string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatalf("output is not CSV: %v\n%s", err, s)
	}
	return recs
}

func parseJSON(t *testing.T, s string, v any) {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
}

// fileHashes is the SHA-256 of both files of a store and the names in its directory, so
// a read-only command that wrote anything (even a journal left behind) is caught.
func fileHashes(t *testing.T, path string) string {
	t.Helper()
	var b strings.Builder
	for _, p := range []string{path, core.CatalogPath(path)} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s %s\n", filepath.Base(p), hex.EncodeToString(sum[:]))
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	b.WriteString(strings.Join(names, " "))
	return b.String()
}

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture is a store holding every series type, a shared array, a freed column and an
// unreachable feature set, and what the test put in it.
type fixture struct {
	path     string
	gens     map[int64][]float64 // max_active_power of owners 1..3 (no features)
	high     []float64           // owner 1's max_active_power with {"scenario":"high"}
	cost     []float64           // owner 6's cost, shape [48, 2]
	status   []int64             // owner 5's status
	temp     []float64           // attribute 900's temperature
	outTimes []time.Time         // owner 7's NonSequential outages
	outVals  []float64
	det      []float64 // owner 1's Deterministic [4, 2]
	prob     []float64 // owner 2's Probabilistic [3, 4, 2]
	scen     []float64 // owner 3's Scenarios [2, 4, 2]
}

const steps = 48

func gen(id int64) core.Owner {
	return core.Owner{ID: id, Type: "ThermalStandard", Category: core.Component}
}

func series(name string, data core.TypedArray) *core.SingleTimeSeries {
	return &core.SingleTimeSeries{Name: name, InitialTimestamp: t0, Resolution: core.Hours(1), Data: data}
}

func wave(id int64, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Round((100*float64(id)+10*math.Sin(float64(i)/3))*1000) / 1000
	}
	return v
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureAt(t, filepath.Join(t.TempDir(), "system.nc"))
}

func newFixtureAt(t *testing.T, path string) *fixture {
	t.Helper()
	fx := &fixture{path: path, gens: map[int64][]float64{}}
	forkMu.Lock()
	defer forkMu.Unlock()
	s, err := core.Create(fx.path, nil)
	if err != nil {
		t.Fatal(err)
	}
	must := func(_ core.Key, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	var k1 core.Key
	for id := int64(1); id <= 3; id++ {
		fx.gens[id] = wave(id, steps)
		k, err := s.Add(gen(id), series("max_active_power", core.ArrayOf(fx.gens[id])), &core.AddOptions{Units: "MW"})
		must(k, err)
		if id == 1 {
			k1 = k
		}
	}
	fx.high = wave(11, steps)
	must(s.Add(gen(1), series("max_active_power", core.ArrayOf(fx.high)),
		&core.AddOptions{Units: "MW", Features: core.Features{"scenario": core.Str("high")}}))
	fx.status = make([]int64, steps)
	for i := range fx.status {
		fx.status[i] = int64(i % 3)
	}
	must(s.Add(core.Owner{ID: 5, Type: "HydroDispatch", Category: core.Component}, series("status", core.ArrayOf(fx.status)), nil))
	fx.cost = wave(6, 2*steps)
	must(s.Add(gen(6), series("cost", core.ArrayOf(fx.cost, steps, 2)), nil))
	fx.temp = wave(9, steps)
	must(s.Add(core.Owner{ID: 900, Type: "GeographicInfo", Category: core.SupplementalAttribute},
		series("temperature", core.ArrayOf(fx.temp)), &core.AddOptions{Units: "degC"}))
	fx.outTimes = []time.Time{t0.Add(3 * time.Hour), t0.Add(10 * time.Hour), t0.Add(30 * time.Hour)}
	fx.outVals = []float64{1, 0.5, 0}
	must(s.Add(gen(7), &core.NonSequentialTimeSeries{Name: "outages", Timestamps: fx.outTimes,
		Data: core.ArrayOf(fx.outVals)}, nil))
	fx.det = wave(21, 8)
	must(s.Add(gen(1), &core.Deterministic{Name: "load_forecast", InitialTimestamp: t0, Resolution: core.Hours(1),
		Horizon: core.Hours(4), Interval: core.Hours(24), Count: 2, Data: core.ArrayOf(fx.det, 4, 2)}, nil))
	fx.prob = wave(22, 24)
	must(s.Add(gen(2), &core.Probabilistic{Name: "load_quantiles", InitialTimestamp: t0, Resolution: core.Hours(1),
		Horizon: core.Hours(4), Interval: core.Hours(24), Count: 2, Percentiles: []float64{0.1, 0.5, 0.9},
		Data: core.ArrayOf(fx.prob, 3, 4, 2)}, nil))
	fx.scen = wave(23, 16)
	must(s.Add(gen(3), &core.Scenarios{Name: "load_scenarios", InitialTimestamp: t0, Resolution: core.Hours(1),
		Horizon: core.Hours(4), Interval: core.Hours(24), Count: 2, Data: core.ArrayOf(fx.scen, 2, 4, 2)}, nil))
	// Owner 8 shares owner 1's array; owner 99's series is removed again, freeing a packed
	// column and leaving its feature set unreachable.
	must(s.CopySeries(k1, gen(8), ""))
	tmp, err := s.Add(gen(99), series("scratch", core.ArrayOf(wave(99, steps))),
		&core.AddOptions{Features: core.Features{"tmp": core.Int(1)}})
	must(tmp, err)
	if err := s.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := s.Remove(tmp); err != nil {
		t.Fatal(err)
	}
	if err := s.AddSupplementalAssociation(core.SupplementalAssociation{ComponentID: 1, ComponentType: "ThermalStandard",
		AttributeID: 900, AttributeType: "GeographicInfo"}); err != nil {
		t.Fatal(err)
	}
	if err := s.AddParentChildAssociation(core.ParentChildAssociation{ParentID: 1, ParentType: "ThermalStandard",
		ChildID: 6, ChildType: "ThermalStandard"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return fx
}

// withStore opens a store read-only for the test to compare the CLI's output with.
func withStore(t *testing.T, path string, fn func(s *core.Store)) {
	t.Helper()
	forkMu.Lock()
	defer forkMu.Unlock()
	s, err := core.OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	fn(s)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func hourly(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = t0.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)
	}
	return out
}

// writeFile writes a test input file and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

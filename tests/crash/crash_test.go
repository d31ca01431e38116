// Package crash is the crash harness: a writer in a child process (bulk adds, single adds,
// forecasts, removes, transforms, compaction, in random order, flushing after each unit)
// killed with SIGKILL at a random moment, again and again, on one store; after every kill
// the store is reopened, verified and compared with what the writer had committed.
//
//	go test ./tests/crash -trials 200 -v     # the README's test command runs this
//
// The writer keeps a journal beside the store: before each flush it lists the unit's
// changes (fsync), after it a commit mark (fsync). A unit with its mark must be in the store
// exactly; the one unit without (the kill came during it) must be there whole or not at all.
package crash

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

var (
	trials  = flag.Int("trials", 20, "kills to run (the README's test command runs 200)")
	maxWait = flag.Duration("max-wait", 400*time.Millisecond, "longest a writer runs before its kill")
	ops     = flag.String("ops", "bulk,single,remove,transform,compact,rewrite",
		"operations the writer mixes (to find which one a kind of damage comes from)")
	requireIntact = flag.Bool("require-intact", false,
		"fail when a kill cost committed arrays (HDF5 damage); off until the write protocol survives it (issue 10)")
)

const (
	childEnv = "TSSTORE_CRASH_WRITER"  // store path: run as the writer
	checkEnv = "TSSTORE_CRASH_CHECKER" // store path: run the check, print its result as JSON
	seedEnv  = "TSSTORE_CRASH_SEED"
	opsEnv   = "TSSTORE_CRASH_OPS"
	// chainTrials is the most trials one store goes through.
	chainTrials = 50
	// spillEnv is read by the store itself (core/internal/journal): the overlay budget of the journal.
	spillEnv = "TSSTORE_JOURNAL_SPILL"
	// flushAtDefineEnv is read by the store too (core/internal/ncstore/h5write.go).
	flushAtDefineEnv = "TSSTORE_HDF5_FLUSH_AT_DEFINE"
)

var t0 = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)

// change is one journal line: a series added (with its content seed) or removed.
type change struct {
	add    bool
	owner  int64
	kind   string // "s" SingleTimeSeries of length steps, "d" Deterministic [24, 7]
	length int
}

// Series content is a function of the owner, so the checker can rebuild every array.
func staticValues(owner int64, length int) []float64 {
	v := make([]float64, length)
	for h := range v {
		v[h] = float64(owner)*1000 + float64(h)
	}
	return v
}

func series(c change) core.TimeSeries {
	if c.kind == "d" {
		v := staticValues(c.owner, 24*7)
		return &core.Deterministic{Name: "fc", InitialTimestamp: t0, Resolution: core.Hours(1), Horizon: core.Hours(24),
			Interval: core.Hours(24), Count: 7, Data: core.ArrayOf(v, 24, 7)}
	}
	return &core.SingleTimeSeries{Name: "p", InitialTimestamp: t0, Resolution: core.Hours(1),
		Data: core.ArrayOf(staticValues(c.owner, c.length))}
}

func key(c change) core.Key {
	if c.kind == "d" {
		return core.Key{OwnerID: c.owner, Type: core.DeterministicType, Name: "fc", Resolution: core.Hours(1),
			Interval: core.Hours(24)}
	}
	return core.Key{OwnerID: c.owner, Name: "p", Resolution: core.Hours(1)}
}

// remove removes a journalled series. A SingleTimeSeries goes with the derived forecasts a
// transform made over it (not journalled): the store refuses to leave them without it.
func remove(s *core.Store, c change) error {
	if c.kind == "d" {
		return s.Remove(key(c))
	}
	id, name := c.owner, "p"
	n, err := s.RemoveWhere(core.KeyFilter{OwnerID: &id, Name: &name})
	if err == nil && n == 0 {
		err = fmt.Errorf("not stored")
	}
	return err
}

func owner(id int64) core.Owner {
	return core.Owner{ID: id, Type: "ThermalStandard", Category: core.Component}
}

// ---- the writer (child process) ----------------------------------------------------------

func TestMain(m *testing.M) {
	flag.Parse()
	if path := os.Getenv(checkEnv); path != "" {
		// The check runs in its own process too: netcdf-c / HDF5 can abort the process
		// opening a damaged file, and that must be counted, not end the harness.
		res := check(path)
		if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	if path := os.Getenv(childEnv); path != "" {
		seed, _ := strconv.ParseInt(os.Getenv(seedEnv), 10, 64)
		if err := writer(path, seed); err != nil {
			fmt.Fprintln(os.Stderr, "writer:", err)
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// journal appends lines to path.journal, each batch made durable before the call returns.
type journal struct{ f *os.File }

func (j *journal) write(lines ...string) error {
	if _, err := j.f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		return err
	}
	return j.f.Sync()
}

// writer runs units of work until it is killed. Each unit is a random mix of operations,
// journalled, then flushed, then marked committed.
func writer(path string, seed int64) error {
	state, _, err := readJournal(path + ".journal")
	if err != nil {
		return err
	}
	next := state.maxOwner + 1
	live := state.liveList()
	var s *core.Store
	if _, err := os.Stat(path); err == nil {
		s, err = core.Open(path)
		if err != nil {
			return err
		}
	} else if s, err = core.Create(path, nil); err != nil {
		return err
	}
	f, err := os.OpenFile(path+".journal", os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	j := &journal{f}
	rng := rand.New(rand.NewSource(seed))
	allowed := map[string]bool{}
	for _, op := range strings.Split(os.Getenv(opsEnv), ",") {
		allowed[strings.TrimSpace(op)] = true
	}
	pick := func() string {
		for {
			// Weights: bulk 3, single 3, remove 2, transform 1, compact 1, rewrite 1.
			op := []string{"bulk", "bulk", "bulk", "single", "single", "single", "remove", "remove", "transform", "compact", "rewrite"}[rng.Intn(11)]
			if allowed[op] {
				return op
			}
		}
	}
	for unit := 0; ; unit++ {
		var lines []string
		var changes []change
		newSeries := func(kind string) change {
			c := change{add: true, owner: next, kind: kind, length: []int{24, 168}[rng.Intn(2)]}
			next++
			changes = append(changes, c)
			return c
		}
		switch pick() {
		case "bulk":
			var items []core.BatchItem
			for i := rng.Intn(300) + 1; i > 0; i-- {
				kind := "s"
				if rng.Intn(8) == 0 {
					kind = "d"
				}
				c := newSeries(kind)
				items = append(items, core.BatchItem{Owner: owner(c.owner), Series: series(c)})
			}
			if _, err := s.AddBatch(items); err != nil {
				return err
			}
		case "single":
			for i := rng.Intn(40) + 1; i > 0; i-- {
				c := newSeries("s")
				if _, err := s.Add(owner(c.owner), series(c), nil); err != nil {
					return err
				}
			}
		case "remove":
			for i := rng.Intn(30) + 1; i > 0 && len(live) > 0; i-- {
				at := rng.Intn(len(live))
				c := live[at]
				live[at] = live[len(live)-1]
				live = live[:len(live)-1]
				if err := remove(s, c); err != nil {
					return fmt.Errorf("remove %v: %w", key(c), err)
				}
				changes = append(changes, change{owner: c.owner, kind: c.kind, length: c.length})
			}
		case "transform": // derived views over every SingleTimeSeries (rows only; not journalled)
			if _, err := s.TransformSingleTimeSeries(core.Hours(24), core.Hours(24), nil); err != nil {
				return err
			}
		case "compact":
			if _, err := s.Compact(nil); err != nil {
				return err
			}
		case "rewrite": // a new pair replaces the old one; the series stay what they were
			if _, err := s.Compact(&core.CompactOptions{Rewrite: true}); err != nil {
				return err
			}
		}
		lines = append(lines, fmt.Sprintf("B %d", unit))
		for _, c := range changes {
			sign := "-"
			if c.add {
				sign = "+"
				live = append(live, c)
			}
			lines = append(lines, fmt.Sprintf("%s %d %s %d", sign, c.owner, c.kind, c.length))
		}
		if err := j.write(lines...); err != nil {
			return err
		}
		if err := s.Flush(); err != nil {
			return err
		}
		if err := j.write(fmt.Sprintf("C %d", unit)); err != nil {
			return err
		}
	}
}

// ---- the journal ------------------------------------------------------------------------

// expected is what the journal says the store holds.
type expected struct {
	live     map[int64]change
	maxOwner int64
}

func (e expected) liveList() []change {
	var out []change
	for _, c := range e.live {
		out = append(out, c)
	}
	return out
}

// readJournal replays committed units into the state and returns the changes of a trailing
// unit that has no commit mark.
func readJournal(path string) (expected, []change, error) {
	e := expected{live: map[int64]change{}, maxOwner: -1}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return e, nil, nil
	}
	if err != nil {
		return e, nil, err
	}
	defer f.Close()
	var pending []change
	open := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		switch {
		case len(fields) == 2 && fields[0] == "B":
			pending, open = nil, true
		case len(fields) == 1 && fields[0] == "X": // the checker found the cut unit not applied
			pending, open = nil, false
		case len(fields) == 2 && fields[0] == "C":
			for _, c := range pending {
				if c.add {
					e.live[c.owner] = c
				} else {
					delete(e.live, c.owner)
				}
			}
			pending, open = nil, false
		case len(fields) == 4 && (fields[0] == "+" || fields[0] == "-") && open:
			id, err1 := strconv.ParseInt(fields[1], 10, 64)
			n, err2 := strconv.Atoi(fields[3])
			if err1 != nil || err2 != nil {
				return e, nil, fmt.Errorf("journal line %q", sc.Text())
			}
			pending = append(pending, change{add: fields[0] == "+", owner: id, kind: fields[2], length: n})
			e.maxOwner = max(e.maxOwner, id)
		default:
			// A line cut by the kill: the unit it belongs to has no commit mark.
		}
	}
	return e, pending, sc.Err()
}

// neverWrote reports whether the writer journal at path has no unit at all: its writer was
// killed before it began one (inside Create).
func neverWrote(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return errors.Is(err, os.ErrNotExist)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "B ") {
			return false
		}
	}
	return true
}

// ---- the harness ------------------------------------------------------------------------

type report struct {
	trials, reopened, crashed, chains int
	damaged                           int // trials after which committed arrays were unreadable or wrong
	dangling, lost, checked           int // rows failing verify_integrity; committed series lost, of checked
	torn, ghosts                      int // trials whose cut unit was half applied; with rows nobody journalled
	writerFailed                      int // writers that stopped on an error before their kill
	uncreated                         int // writers killed inside Create (no store yet)
	rolledBack                        int // reopens that rolled the NetCDF file back from its journal
	inRewrite, rewriteCommitted       int // kills inside a compaction rewrite; of them, after its commit point
	smallSpill                        int // writers run with a 64 KiB journal overlay
}

// TestCrashHarness kills writers at random moments. The catalog half of the protocol must
// hold every time (no unit half applied, no row the writer did not journal); a store that
// does not reopen, a checker that crashes and damage to committed arrays are counted and,
// with -require-intact, fail the test.
func TestCrashHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash harness runs writers for seconds")
	}
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	rep := report{chains: 1}
	path := filepath.Join(dir, "chain0.nc")
	damage := func(msg string) {
		if *requireIntact {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	for trial := 0; trial < *trials; trial++ {
		rep.trials++
		// Half the writers journal with a 64 KiB overlay, so that most of their units spill,
		// and write committed pages, in the middle of the unit rather than at its flush.
		spill := 0
		if rng.Intn(2) == 0 {
			spill = 64 << 10
			rep.smallSpill++
		}
		if err := runWriter(path, rng.Int63(), time.Duration(rng.Int63n(int64(*maxWait)))+10*time.Millisecond, spill); err != nil {
			// The writer could not go on with the store (damage the check did not see):
			// counted with the damage, and the chain starts again.
			rep.writerFailed++
			damage(fmt.Sprintf("trial %d: %v", trial, err))
			rep.chains++
			path = filepath.Join(dir, fmt.Sprintf("chain%d.nc", rep.chains-1))
			continue
		}
		res, err := runChecker(path)
		healthy := err == nil && res.Opened && len(res.Damage) == 0
		switch {
		case err != nil:
			rep.crashed++
			damage(fmt.Sprintf("trial %d: opening the store after the kill crashed the process: %v", trial, err))
		case res.Uncreated:
			// Killed inside Create, before it returned: there is no store to recover (the
			// pair is not created atomically), and the next writer creates it afresh.
			rep.uncreated++
			rep.reopened++
		case !res.Opened:
			damage(fmt.Sprintf("trial %d: %s", trial, res.OpenError))
		default:
			rep.reopened++
			if res.RolledBack {
				rep.rolledBack++
			}
			if res.InRewrite {
				rep.inRewrite++
			}
			if res.RewriteCommitted {
				rep.rewriteCommitted++
			}
			rep.dangling += res.Dangling
			rep.lost += res.Lost
			rep.checked += res.Checked
			if res.Torn {
				rep.torn++
			}
			if res.Ghosts {
				rep.ghosts++
			}
			for _, p := range res.Protocol {
				t.Errorf("trial %d: %s", trial, p)
			}
			if len(res.Damage) > 0 {
				rep.damaged++
				damage(fmt.Sprintf("trial %d: %d committed arrays damaged, e.g. %s", trial, len(res.Damage), res.Damage[0]))
			}
		}
		if !healthy || (trial+1)%chainTrials == 0 {
			// A damaged store ends its chain: the next trial starts on a new one, so every
			// trial measures its own kill. Healthy chains end after chainTrials, so that the
			// stores (and the time each check takes to read them back) stay bounded.
			rep.chains++
			path = filepath.Join(dir, fmt.Sprintf("chain%d.nc", rep.chains-1))
		}
	}
	t.Logf("crash harness: %d trials (%d with a 64 KiB journal overlay); %d stores reopened (%d rolled back from the journal, %d killed inside Create, %d inside a compaction rewrite, %d of them after its commit point), %d did not, %d crashed the opening process, %d writers stopped on a damaged store; %d trials left committed arrays damaged (%d series lost of %d checked, %d rows failing verify_integrity); %d units torn; %d trials with unjournalled rows",
		rep.trials, rep.smallSpill, rep.reopened, rep.rolledBack, rep.uncreated, rep.inRewrite, rep.rewriteCommitted, rep.trials-rep.reopened-rep.crashed-rep.writerFailed, rep.crashed, rep.writerFailed, rep.damaged, rep.lost, rep.checked, rep.dangling, rep.torn, rep.ghosts)
	fmt.Printf("crash harness: trials=%d small_spill=%d reopened=%d rolled_back=%d uncreated=%d in_rewrite=%d rewrite_committed=%d crashed=%d writer_failed=%d damaged=%d lost=%d checked=%d dangling=%d torn=%d ghosts=%d\n",
		rep.trials, rep.smallSpill, rep.reopened, rep.rolledBack, rep.uncreated, rep.inRewrite, rep.rewriteCommitted, rep.crashed, rep.writerFailed, rep.damaged, rep.lost, rep.checked, rep.dangling, rep.torn, rep.ghosts)
}

// runChecker runs check on path in a child process; an error is a checker that died.
func runChecker(path string) (result, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), checkEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := stderr.String()
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return result{}, fmt.Errorf("%v (%s)", err, msg)
	}
	var res result
	if err := json.Unmarshal(out, &res); err != nil {
		return result{}, fmt.Errorf("checker printed %q: %v", out, err)
	}
	return res, nil
}

// runWriter starts the writer on path and kills it after wait. A writer with a small
// overlay also flushes HDF5 at the end of each define phase (as the netcdf-c route did), so
// that its units write committed pages in their middle; the others write as a store does.
func runWriter(path string, seed int64, wait time.Duration, spill int) error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+path, seedEnv+"="+strconv.FormatInt(seed, 10), opsEnv+"="+*ops,
		spillEnv+"="+strconv.Itoa(spill))
	if spill > 0 {
		cmd.Env = append(cmd.Env, flushAtDefineEnv+"=1")
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	time.Sleep(wait)
	cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() {
		msg := strings.TrimSpace(stderr.String())
		if i := strings.IndexByte(msg, '\n'); i > 0 {
			msg = msg[:i]
		}
		return fmt.Errorf("the writer ended before its kill (%v): %s", err, msg)
	}
	return nil
}

// result is what one check found: protocol violations (the catalog's guarantees) and damage
// (committed arrays HDF5 could not give back), with the counts behind them.
type result struct {
	Opened           bool
	OpenError        string
	Protocol, Damage []string
	Dangling, Lost   int
	Checked          int
	Torn, Ghosts     bool
	Uncreated        bool // killed inside Create: one file of the pair, nothing committed
	RolledBack       bool // the open restored the NetCDF file from a hot journal
	// InRewrite: the kill landed inside a compaction rewrite (its directory was there);
	// RewriteCommitted: after its commit point, so the open put the new pair in place.
	InRewrite, RewriteCommitted bool
}

// check opens the store after a kill, compares it with the journal, and resolves the unit the
// kill cut (a commit mark when it was applied, an abort mark when not) so the next writer and
// check start from the truth.
func check(path string) (res result) {
	want, pending, err := readJournal(path + ".journal")
	if err != nil {
		res.Opened, res.Protocol = true, []string{err.Error()}
		return res
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		res.Opened = true // killed before the store was created
		return res
	}
	rewriteDir := path + ".compacting"
	if _, err := os.Stat(rewriteDir); err == nil {
		res.InRewrite = true
		if _, err := os.Stat(filepath.Join(rewriteDir, "commit")); err == nil {
			res.RewriteCommitted = true
		}
	}
	s, err := core.Open(path) // a writable open: the recovery of the next writer
	if err != nil && len(want.live) == 0 && len(pending) == 0 && errors.Is(err, core.ErrIntegrity) &&
		strings.Contains(err.Error(), "catalog") && strings.Contains(err.Error(), "is missing") {
		if neverWrote(path + ".journal") {
			os.Remove(path)
			os.Remove(path + "-journal")
			res.Opened, res.Uncreated = true, true
			return res
		}
	}
	if err != nil {
		// The writable open refuses a store whose rows name missing arrays; look at the
		// damage read-only.
		ro, rerr := core.OpenReadOnly(path)
		if rerr != nil {
			res.OpenError = fmt.Sprintf("the store did not reopen: %v", err)
			return res
		}
		res.Damage = append(res.Damage, fmt.Sprintf("the writable open was refused: %v", err))
		s = ro
	}
	defer s.Close()
	res.Opened = true
	res.RolledBack = s.Recovered() != ""
	if _, err := os.Stat(rewriteDir); err == nil && !s.ReadOnly() {
		// The writable open finishes a committed rewrite and removes a cut one's files.
		res.Damage = append(res.Damage, fmt.Sprintf("%s is still there after a writable open", rewriteDir))
	}
	ir, err := s.VerifyIntegrity()
	if err != nil {
		res.Damage = append(res.Damage, fmt.Sprintf("verify_integrity: %v", err))
		return res
	}
	for _, list := range [][]string{ir.HashMismatches, ir.Unreadable, ir.DanglingRows, ir.ShapeMismatches} {
		for _, p := range list {
			res.Dangling++
			res.Damage = append(res.Damage, "integrity: "+p)
		}
	}
	// The unit cut by the kill is there whole or not at all.
	applied, absent := 0, 0
	for _, c := range pending {
		has, err := s.Has(key(c))
		if err != nil {
			res.Damage = append(res.Damage, err.Error())
			return res
		}
		if has == c.add {
			applied++
		} else {
			absent++
		}
	}
	// Every committed series reads back — but a series the cut unit removed is gone when
	// that unit was applied.
	cutApplied := applied > 0 && absent == 0
	removedByCut := map[int64]bool{}
	for _, c := range pending {
		if !c.add && cutApplied {
			removedByCut[c.owner] = true
		}
	}
	for _, c := range want.live {
		if removedByCut[c.owner] {
			continue
		}
		res.Checked++
		if msg := readsBack(s, c); msg != "" {
			res.Lost++
			res.Damage = append(res.Damage, msg)
		}
	}
	res.Torn = applied > 0 && absent > 0
	if res.Torn {
		res.Protocol = append(res.Protocol, fmt.Sprintf("the unit cut by the kill is torn: %d of its %d changes applied", applied, len(pending)))
	}
	wantStored := len(want.live)
	mark := "X"
	if cutApplied {
		mark = "C resolved"
		for _, c := range pending {
			if c.add {
				wantStored++
			} else {
				wantStored--
			}
		}
	}
	if f, err := os.OpenFile(path+".journal", os.O_APPEND|os.O_WRONLY, 0); err == nil {
		(&journal{f}).write(mark)
		f.Close()
	}
	// No row beyond the journal's.
	stored := 0
	for _, typ := range []core.SeriesType{core.SingleTimeSeriesType, core.DeterministicType} {
		keys, err := s.ListKeys(core.KeyFilter{Type: &typ})
		if err != nil {
			res.Damage = append(res.Damage, err.Error())
			return res
		}
		stored += len(keys)
	}
	if stored != wantStored {
		res.Ghosts = true
		res.Protocol = append(res.Protocol, fmt.Sprintf("%d series stored, the journal accounts for %d", stored, wantStored))
	}
	return res
}

func readsBack(s *core.Store, c change) string {
	ts, err := s.Get(key(c))
	if err != nil {
		return fmt.Sprintf("committed %v: %v", key(c), err)
	}
	want := series(c)
	var got, exp core.TypedArray
	switch x := ts.(type) {
	case *core.SingleTimeSeries:
		got, exp = x.Data, want.(*core.SingleTimeSeries).Data
	case *core.Deterministic:
		got, exp = x.Data, want.(*core.Deterministic).Data
	default:
		return fmt.Sprintf("committed %v read back as %T", key(c), ts)
	}
	if string(got.Data) != string(exp.Data) || fmt.Sprint(got.Shape) != fmt.Sprint(exp.Shape) {
		return fmt.Sprintf("committed %v reads back different values", key(c))
	}
	return ""
}

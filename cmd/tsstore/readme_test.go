package main

import (
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tsstore/tsstore/core"
)

// readmeCommands are the README's command-line examples, exactly as the README spells
// them, run in a directory holding out/quickstart.nc, the store make demo writes. Each
// line is one shell command (a && b runs b only when a succeeds); check looks at what it
// printed and wrote. The first group is the README of the CLI section as the docs now
// have it (on the demo's store); the second the README's earlier examples, which named
// system.nc and owner 17, on the same store (owner 1000 is a bus, 7000 a wind plant,
// 5000 a generator).
var readmeCommands = []struct {
	line  string
	check func(t *testing.T, out string, dir string)
}{
	{`tsstore info out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantLine(t, out, "format version", "0.11.0")
		wantLine(t, out, "DeterministicSingleTimeSeries", "70") // 20 loads' views, 50 must_run views
		for _, want := range []string{"SingleTimeSeries", "DeterministicSingleTimeSeries",
			"Component PowerLoad", "Component ThermalStandard", "Component RenewableDispatch", "Component Line"} {
			wantIn(t, out, want)
		}
	}},
	{`tsstore ls --owner-type ThermalStandard --format csv out/quickstart.nc`, func(t *testing.T, out, _ string) {
		recs := parseCSV(t, out)
		// 50 generators: variable_cost, must_run, and the day-ahead view over must_run.
		if len(recs) != 1+3*qsGens || recs[0][0] != "owner_id" {
			t.Errorf("%d rows, want a header and %d", len(recs), 3*qsGens)
		}
	}},
	{`tsstore show --owner-id 1000 --type SingleTimeSeries --name max_active_power --start 2030-01-01T00:00:00Z --end 2030-01-07T23:00:00Z --plot out/week.svg out/quickstart.nc`,
		func(t *testing.T, out, dir string) { checkWeek(t, out, filepath.Join(dir, "out", "week.svg")) }},
	{`tsstore show --owner-id 7000 --type Deterministic --window 2030-01-08T00:00:00Z out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantIn(t, out, `Deterministic "max_active_power" of Component 7000 at PT1H every P1D`)
		wantIn(t, out, "window starting 2030-01-08T00:00:00Z (364 windows")
		// Window 7 of plant 0: 10 + 0.5·h + 7.
		wantRow(t, out, "2030-01-08T00:00:00Z", "17")
		wantRow(t, out, "2030-01-09T23:00:00Z", "40.5")
	}},
	{`tsstore verify out/quickstart.nc && tsstore check-grid out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantIn(t, out, "OK: every array rehashes to its name")
		wantIn(t, out, "PT1H: consistent")
		wantIn(t, out, "P1D: consistent")
	}},
	{`tsstore export --owner-type PowerLoad --type SingleTimeSeries --out out/loads.csv out/quickstart.nc`, func(t *testing.T, out, dir string) {
		recs := readCSVFile(t, filepath.Join(dir, "out", "loads.csv"))
		if len(recs) != 1+qsHours || len(recs[0]) != 1+quickstartBuses || recs[0][1] != "1000:max_active_power" ||
			recs[1][1] != fmtFloat(qsDemand(0, 0)) || recs[8][1] != fmtFloat(qsDemand(0, 7)) {
			t.Errorf("out/loads.csv: %d rows, header %v, first rows %v", len(recs), recs[0], recs[1:3])
		}
	}},
	{`tsstore import --create --owner-type PowerLoad --name max_active_power out/copy.nc out/loads.csv`, func(t *testing.T, out, dir string) {
		wantIn(t, out, "imported 20 series (8760 steps at PT1H from 2030-01-01T00:00:00Z) into out/copy.nc")
		r := runInDir(t, dir, "export", "--out", "out/again.csv", "out/copy.nc")
		if r.code != 0 {
			t.Fatalf("export of the copy: %s", r.stderr)
		}
		a, _ := os.ReadFile(filepath.Join(dir, "out", "loads.csv"))
		b, _ := os.ReadFile(filepath.Join(dir, "out", "again.csv"))
		if string(a) != string(b) {
			t.Error("the imported copy does not export back to the same CSV")
		}
	}},

	{`tsstore info --reclaimable --format json out/quickstart.nc`, func(t *testing.T, out, _ string) {
		var rep infoReport
		parseJSON(t, out, &rep)
		if rep.FormatVersion != core.DataFormatVersion || rep.Reclaimable == nil || rep.ByType["DeterministicSingleTimeSeries"] != quickstartBuses+qsGens {
			t.Errorf("info json: %+v", rep)
		}
	}},
	{`tsstore ls --owner-type PowerLoad --glob 'max_*' --format csv out/quickstart.nc`, func(t *testing.T, out, _ string) {
		if recs := parseCSV(t, out); len(recs) != 1+2*quickstartBuses {
			t.Errorf("%d rows, want a header and each bus's load and its view", len(recs))
		}
	}},
	// No --type: the load, not the day-ahead view derived over it, which has the same
	// owner, name and resolution.
	{`tsstore show --owner-id 1000 --name max_active_power --start 2030-01-01T00:00:00Z --end 2030-01-07T23:00:00Z --plot out/week2.svg out/quickstart.nc`,
		func(t *testing.T, out, dir string) { checkWeek(t, out, filepath.Join(dir, "out", "week2.svg")) }},
	{`tsstore show --owner-id 5000 --name variable_cost --start 2030-01-01T00:00:00Z --end 2030-01-03T00:00:00Z out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantRow(t, out, "TIMESTAMP", "value[0]", "value[1]", "value[2]")
		wantRow(t, out, "2030-01-03T00:00:00Z", "0.01", "22", "150")
	}},
	{`tsstore export --owner-type ThermalStandard --name variable_cost --out out/costs.csv out/quickstart.nc`, func(t *testing.T, out, dir string) {
		recs := readCSVFile(t, filepath.Join(dir, "out", "costs.csv"))
		if len(recs) != 366 || len(recs[0]) != 1+3*qsGens ||
			!slices.Equal(recs[0][:4], []string{"timestamp", "5000:variable_cost[0]", "5000:variable_cost[1]", "5000:variable_cost[2]"}) ||
			!slices.Equal(recs[2][1:4], []string{"0.01", "21", "150"}) {
			t.Errorf("out/costs.csv: %d rows, header %v, row 2 %v", len(recs), recs[0][:4], recs[2][:4])
		}
	}},
	{`tsstore compact --yes out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantIn(t, out, "deleted 0 unreachable feature sets")
	}},
	{`tsstore compact --yes --rewrite out/quickstart.nc`, func(t *testing.T, out, dir string) {
		// The demo's one-at-a-time adds left datasets of the default width part empty.
		wantIn(t, out, "rewrote the store without its 1993 free packed columns")
		if _, err := os.Stat(filepath.Join(dir, "out", "quickstart.nc.compacting")); !os.IsNotExist(err) {
			t.Errorf("the rewrite left its directory: %v", err)
		}
	}},
	{`tsstore verify out/quickstart.nc`, func(t *testing.T, out, _ string) {
		wantIn(t, out, "OK: every array rehashes to its name")
	}},
}

// readmeFailures are README forms that cannot work on the demo's store, and must say why
// and how to narrow.
var readmeFailures = []struct {
	line  string
	frags []string
}{
	// The generators' series are on two grids (hourly must_run, daily cost curves).
	{`tsstore export --owner-type ThermalStandard --out out/gens.csv out/quickstart.nc`, []string{
		"do not share one grid", `PT1H from 2030-01-01T00:00:00Z (8760 steps): 50 series named "must_run"`,
		`P1D from 2030-01-01T00:00:00Z (365 steps): 50 series named "variable_cost"`,
		`--resolution P1D or PT1H`, `--name "variable_cost" or "must_run"`}},
	// The plant has three forecasts of one name.
	{`tsstore show --owner-id 7000 --window 2030-01-08T00:00:00Z out/quickstart.nc`, []string{
		"3 series match", "--type (Deterministic, Probabilistic, Scenarios)"}},
	{`tsstore show --owner-id 1000 out/quickstart.nc.sqlite`, []string{"catalog half", "out/quickstart.nc"}},
	{`tsstore import --owner-type PowerLoad out/none.nc out/loads.csv`, []string{"out/none.nc does not exist", "--create"}},
}

func TestReadmeCommandsOnTheDemoStore(t *testing.T) {
	src := quickstartStore(t)
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "out"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{src, core.CatalogPath(src)} {
		copyFileT(t, p, filepath.Join(dir, "out", filepath.Base(p)))
	}
	for _, c := range readmeCommands {
		var out strings.Builder
		for _, cmd := range strings.Split(c.line, " && ") {
			args := shellWords(t, cmd)
			if args[0] != "tsstore" {
				t.Fatalf("%q does not run tsstore", cmd)
			}
			r := runInDir(t, dir, args[1:]...)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("%s: exit %d, stderr %q", cmd, r.code, r.stderr)
			}
			out.WriteString(r.stdout)
		}
		t.Run(c.line, func(t *testing.T) { c.check(t, out.String(), dir) })
	}
	for _, c := range readmeFailures {
		args := shellWords(t, c.line)[1:]
		r := runInDir(t, dir, args...)
		checkFailure(t, r, map[bool]int{true: 2, false: 1}[strings.HasSuffix(c.line, ".sqlite")], c.frags, args)
	}
}

// checkWeek checks show's table of bus 1000's first week and the chart beside it.
func checkWeek(t *testing.T, out, svg string) {
	t.Helper()
	wantIn(t, out, `SingleTimeSeries "max_active_power" of Component 1000 at PT1H {"scenario":"reference"}`)
	wantIn(t, out, "168 steps shown")
	wantRow(t, out, "2030-01-01T07:00:00Z", "75") // 50 + 20 (daytime) + 5 (weekday)
	wantRow(t, out, "2030-01-02T07:00:00Z", fmtFloat(qsDemand(0, 31)))
	lo, hi := math.Inf(1), math.Inf(-1)
	for h := 0; h < 168; h++ {
		lo, hi = min(lo, qsDemand(0, h)), max(hi, qsDemand(0, h))
	}
	wantIn(t, out, "min "+fmtFloat(lo)+" max "+fmtFloat(hi))
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	texts, _ := svgContent(t, data)
	for _, want := range []string{"max_active_power (MW)", "time (UTC)", "2030-01-01", "2030-01-07", "max_active_power", "50", "75"} {
		if !slices.Contains(texts, want) {
			t.Errorf("%s lacks the text %q (has %q)", svg, want, texts)
		}
	}
	checkRoundTicks(t, texts)
}

// wantRow wants a line of out whose fields are exactly these.
func wantRow(t *testing.T, out string, fields ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if slices.Equal(strings.Fields(line), fields) {
			return
		}
	}
	t.Errorf("no row %q in the output:\n%s", fields, truncate(out, 3000))
}

// wantLine wants a line of out holding every fragment, in order.
func wantLine(t *testing.T, out string, frags ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		rest, found := line, true
		for _, f := range frags {
			i := strings.Index(rest, f)
			if i < 0 {
				found = false
				break
			}
			rest = rest[i+len(f):]
		}
		if found {
			return
		}
	}
	t.Errorf("no line of the output holds %q:\n%s", frags, truncate(out, 3000))
}

func wantIn(t *testing.T, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, truncate(out, 3000))
	}
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func runInDir(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "COLUMNS=80")
	return runCmd(t, cmd)
}

func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseCSV(t, string(data))
}

func copyFileT(t *testing.T, from, to string) {
	t.Helper()
	if err := copyFile(from, to); err != nil {
		t.Fatal(err)
	}
}

// shellWords splits a command line as sh would for the README's lines: words separated by
// spaces, single quotes kept together and removed.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inQuote, inWord := false, false
	for _, r := range line {
		switch {
		case r == '\'':
			inQuote, inWord = !inQuote, true
		case r == ' ' && !inQuote:
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if inQuote {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words
}

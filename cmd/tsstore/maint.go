package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/tsstore/tsstore/core"
)

func init() {
	register(&command{
		name:     "verify",
		synopsis: "tsstore verify [--format text|json] STORE.nc",
		summary:  "rehash every array and check every catalog row (exit 1 on problems)",
		help: `Runs core's VerifyIntegrity on the store opened read-only: every stored array is
rehashed and compared with its name, and every catalog row with the array it names.
Prints what was checked and every problem (hash mismatches, unreadable arrays,
dangling rows, shape mismatches); the exit status is 1 when there is any.

Example:
  tsstore verify system.nc && echo intact`,
		run: runVerify,
	})
	register(&command{
		name:     "check-grid",
		synopsis: "tsstore check-grid [--format text|json] STORE.nc",
		summary:  "check that the SingleTimeSeries of each resolution share one grid (exit 1 if not)",
		help: `Runs core's CheckStaticConsistency: for each resolution, do all SingleTimeSeries share
one initial timestamp and length, as one StaticReader over all of them needs? Prints
the grids per resolution; the exit status is 1 when a resolution has more than one.

Example:
  tsstore check-grid --format json system.nc`,
		run: runCheckGrid,
	})
	register(&command{
		name:     "compact",
		synopsis: "tsstore compact [--yes] [--format text|json] STORE.nc",
		summary:  "delete unreachable feature sets and report reclaimable space (writes)",
		help: `Runs core's Compact on the store opened for writing: it commits pending writes, deletes
the feature sets no series references and reports the free packed columns and dead
standalone variables (format 0.11.0 cannot shrink the NetCDF file; those are reused by
later adds). It asks for confirmation on the terminal; without a terminal it refuses
unless --yes is given.

Example:
  tsstore compact --yes system.nc`,
		run: runCompact,
	})
}

func runVerify(e *env, args []string) error {
	fs := e.newFlags()
	format := addFormatFlag(fs, "text", "json")
	s, path, err := e.parseAndOpen(fs, args, format)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := s.VerifyIntegrity()
	if err != nil {
		return err
	}
	if format.value == "json" {
		err = writeJSON(e.stdout, integrityJSON(rep))
	} else {
		err = writeIntegrityText(e.stdout, rep)
	}
	if err != nil {
		return err
	}
	if n := problemCount(rep); n > 0 {
		return fmt.Errorf("%d problems found in %s (listed on stdout)", n, path)
	}
	return nil
}

func problemCount(r core.IntegrityReport) int {
	return len(r.HashMismatches) + len(r.Unreadable) + len(r.DanglingRows) + len(r.ShapeMismatches)
}

type integrityOut struct {
	OK              bool     `json:"ok"`
	ArraysChecked   int      `json:"arrays_checked"`
	HashMismatches  []string `json:"hash_mismatches"`
	Unreadable      []string `json:"unreadable"`
	DanglingRows    []string `json:"dangling_rows"`
	ShapeMismatches []string `json:"shape_mismatches"`
}

func integrityJSON(r core.IntegrityReport) integrityOut {
	nonNil := func(xs []string) []string {
		if xs == nil {
			return []string{}
		}
		return xs
	}
	return integrityOut{OK: r.OK(), ArraysChecked: r.ArraysChecked, HashMismatches: nonNil(r.HashMismatches),
		Unreadable: nonNil(r.Unreadable), DanglingRows: nonNil(r.DanglingRows), ShapeMismatches: nonNil(r.ShapeMismatches)}
}

func writeIntegrityText(w io.Writer, r core.IntegrityReport) error {
	fmt.Fprintf(w, "arrays checked: %d\n", r.ArraysChecked)
	for _, sec := range []struct {
		title string
		items []string
	}{{"hash mismatch", r.HashMismatches}, {"unreadable", r.Unreadable}, {"dangling row", r.DanglingRows},
		{"shape mismatch", r.ShapeMismatches}} {
		for _, it := range sec.items {
			fmt.Fprintf(w, "%s: %s\n", sec.title, it)
		}
	}
	if r.OK() {
		_, err := fmt.Fprintln(w, "OK: every array rehashes to its name and every row resolves to its array")
		return err
	}
	_, err := fmt.Fprintf(w, "FAILED: %d problems\n", problemCount(r))
	return err
}

type gridCheckOut struct {
	Resolution string        `json:"resolution"`
	Consistent bool          `json:"consistent"`
	Grids      []gridSummary `json:"grids"`
}

func runCheckGrid(e *env, args []string) error {
	fs := e.newFlags()
	format := addFormatFlag(fs, "text", "json")
	s, _, err := e.parseAndOpen(fs, args, format)
	if err != nil {
		return err
	}
	defer s.Close()
	checks, err := s.CheckStaticConsistency()
	if err != nil {
		return err
	}
	out := []gridCheckOut{}
	var bad []string
	for _, c := range checks {
		g := gridCheckOut{Resolution: c.Resolution.String(), Consistent: c.Consistent, Grids: []gridSummary{}}
		for _, sg := range c.Grids {
			g.Grids = append(g.Grids, gridSummary{Resolution: sg.Resolution.String(),
				InitialTimestamp: formatTime(sg.InitialTimestamp), Length: sg.Length, Series: sg.Series, Owners: sg.Owners})
		}
		if !c.Consistent {
			bad = append(bad, fmt.Sprintf("%s (%d grids)", g.Resolution, len(g.Grids)))
		}
		out = append(out, g)
	}
	if format.value == "json" {
		err = writeJSON(e.stdout, out)
	} else {
		err = writeGridText(e.stdout, out)
	}
	if err != nil {
		return err
	}
	if len(bad) > 0 {
		return fmt.Errorf("SingleTimeSeries do not share one grid at resolution %s", strings.Join(bad, ", "))
	}
	return nil
}

func writeGridText(w io.Writer, checks []gridCheckOut) error {
	if len(checks) == 0 {
		_, err := fmt.Fprintln(w, "no SingleTimeSeries")
		return err
	}
	for _, c := range checks {
		state := "consistent"
		if !c.Consistent {
			state = fmt.Sprintf("INCONSISTENT: %d grids", len(c.Grids))
		}
		fmt.Fprintf(w, "%s: %s\n", c.Resolution, state)
		for _, g := range c.Grids {
			fmt.Fprintf(w, "  from %s, %d steps: %d series, %d owners\n", g.InitialTimestamp, g.Length, g.Series, g.Owners)
		}
	}
	return nil
}

type compactOut struct {
	FeatureSetsReclaimed int `json:"feature_sets_reclaimed"`
	FreePackedColumns    int `json:"free_packed_columns"`
	DeadStandalone       int `json:"dead_standalone_variables"`
	DatasetsDropped      int `json:"datasets_dropped"`
	// Set by --rewrite: the pair's size before and after.
	BytesBefore int64 `json:"bytes_before,omitempty"`
	BytesAfter  int64 `json:"bytes_after,omitempty"`
}

func runCompact(e *env, args []string) error {
	fs := e.newFlags()
	yes := fs.Bool("yes", false, "do not ask for confirmation (needed when stdin is not a terminal)")
	rewrite := fs.Bool("rewrite", false, "also write the live series into a new pair and replace the old pair with it, giving back the space of removed series")
	format := addFormatFlag(fs, "text", "json")
	pos, err := e.parse(fs, args, 1, 1)
	if err != nil {
		return err
	}
	if err := format.check(); err != nil {
		return err
	}
	path := pos[0]
	// Both files must be there before anyone is asked: a typo should not cost a prompt.
	for _, p := range []string{path, core.CatalogPath(path)} {
		if _, err := os.Stat(p); err != nil {
			return err
		}
	}
	if !*yes {
		question := fmt.Sprintf("Compact %s? It deletes the feature sets no series references. [y/N] ", path)
		if *rewrite {
			question = fmt.Sprintf("Compact and rewrite %s? It deletes the feature sets no series references and replaces both files with a rewritten pair. [y/N] ", path)
		}
		if err := e.confirm(question); err != nil {
			return err
		}
	}
	s, err := core.Open(path)
	if err != nil {
		return err
	}
	rep, err := s.Compact(&core.CompactOptions{Rewrite: *rewrite})
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	out := compactOut{FeatureSetsReclaimed: rep.FeatureSetsReclaimed, FreePackedColumns: rep.SlotsReclaimed,
		DeadStandalone: rep.DeadStandalone, DatasetsDropped: rep.DatasetsDropped,
		BytesBefore: rep.BytesBefore, BytesAfter: rep.BytesAfter}
	if format.value == "json" {
		return writeJSON(e.stdout, out)
	}
	if *rewrite {
		_, err = fmt.Fprintf(e.stdout, "deleted %d unreachable feature sets; rewrote the store without its %d free packed columns and %d dead standalone variables: %s → %s\n",
			out.FeatureSetsReclaimed, out.FreePackedColumns, out.DeadStandalone, humanBytes(rep.BytesBefore), humanBytes(rep.BytesAfter))
		return err
	}
	_, err = fmt.Fprintf(e.stdout, "deleted %d unreachable feature sets; %d free packed columns and %d dead standalone variables remain reusable (format %s cannot shrink the file)\n",
		out.FeatureSetsReclaimed, out.FreePackedColumns, out.DeadStandalone, core.DataFormatVersion)
	return err
}

// confirm asks on the terminal; anything but y / yes, or no terminal at all, is a no.
func (e *env) confirm(question string) error {
	if !isTerminal(e.stdin) {
		return usagef("refusing to compact without confirmation: stdin is not a terminal (pass --yes)")
	}
	fmt.Fprint(e.stderr, question)
	answer, _ := bufio.NewReader(e.stdin).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return nil
	}
	return fmt.Errorf("aborted: nothing was changed")
}

package main

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tsstore/tsstore/core"
)

func TestVerify(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	if out := ok(t, "verify", fx.path); !strings.Contains(out, "OK") || !strings.Contains(out, "arrays checked: ") {
		t.Errorf("verify: %s", out)
	}
	var rep integrityOut
	parseJSON(t, ok(t, "verify", "--format", "json", fx.path), &rep)
	if !rep.OK || rep.ArraysChecked < 10 || len(rep.HashMismatches) != 0 {
		t.Errorf("verify json %+v", rep)
	}
}

// TestVerifyFindsDamage flips one value in an uncompressed store's NetCDF file: verify
// must list the hash mismatch and exit 1.
func TestVerifyFindsDamage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "damaged.nc")
	marker := math.Float64frombits(0x4142434445464748)
	values := make([]float64, 24)
	for i := range values {
		values[i] = marker
	}
	func() {
		forkMu.Lock()
		defer forkMu.Unlock()
		s, err := core.Create(path, &core.CreateOptions{Compression: &core.Compression{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Add(gen(1), series("p", core.ArrayOf(values)), nil); err != nil {
			t.Fatal(err)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pattern := binary.LittleEndian.AppendUint64(nil, math.Float64bits(marker))
	at := bytes.Index(data, pattern)
	if at < 0 {
		t.Fatal("the marker value is not in the uncompressed file")
	}
	data[at] ^= 0xff
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	r := fails(t, 1, []string{"1 problems found", "damaged.nc"}, "verify", path)
	if !strings.Contains(r.stdout, "hash mismatch: ") || !strings.Contains(r.stdout, "FAILED") {
		t.Errorf("verify stdout: %s", r.stdout)
	}
	r = fails(t, 1, []string{"problems found"}, "verify", "--format", "json", path)
	var rep integrityOut
	parseJSON(t, r.stdout, &rep)
	if rep.OK || len(rep.HashMismatches) != 1 {
		t.Errorf("verify json %+v", rep)
	}
}

func TestCheckGrid(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	if out := ok(t, "check-grid", fx.path); !strings.Contains(out, "PT1H: consistent") || !strings.Contains(out, "48 steps: 8 series, 7 owners") {
		t.Errorf("check-grid: %s", out)
	}
	var checks []gridCheckOut
	parseJSON(t, ok(t, "check-grid", "--format", "json", fx.path), &checks)
	if len(checks) != 1 || !checks[0].Consistent || checks[0].Resolution != "PT1H" || len(checks[0].Grids) != 1 ||
		checks[0].Grids[0].Length != steps || checks[0].Grids[0].InitialTimestamp != formatTime(t0) {
		t.Errorf("check-grid json %+v", checks)
	}

	// A second grid at PT1H, and one at P1D.
	func() {
		forkMu.Lock()
		defer forkMu.Unlock()
		s, err := core.Open(fx.path)
		if err != nil {
			t.Fatal(err)
		}
		late := &core.SingleTimeSeries{Name: "late", InitialTimestamp: t0.Add(time.Hour), Resolution: core.Hours(1),
			Data: core.ArrayOf(wave(3, 10))}
		daily := &core.SingleTimeSeries{Name: "daily", InitialTimestamp: t0, Resolution: core.Days(1), Data: core.ArrayOf(wave(3, 5))}
		for _, ts := range []core.TimeSeries{late, daily} {
			if _, err := s.Add(gen(3), ts, nil); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}()
	r := fails(t, 1, []string{"do not share one grid", "PT1H (2 grids)"}, "check-grid", fx.path)
	if !strings.Contains(r.stdout, "PT1H: INCONSISTENT: 2 grids") || !strings.Contains(r.stdout, "P1D: consistent") {
		t.Errorf("check-grid stdout: %s", r.stdout)
	}
	r = fails(t, 1, []string{"PT1H"}, "check-grid", "--format", "json", fx.path)
	parseJSON(t, r.stdout, &checks)
	if len(checks) != 2 || checks[0].Consistent || len(checks[0].Grids) != 2 || !checks[1].Consistent {
		t.Errorf("check-grid json %+v", checks)
	}
	// Export refuses the mixed selection, naming both grids.
	fails(t, 1, []string{"do not share one grid", `"late"`, "10 steps"}, "export", "--owner-id", "3", "--resolution", "PT1H", fx.path)
}

func TestCompact(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	before := fileHashes(t, fx.path)
	// No terminal and no --yes: refused before anything is opened, whatever stdin says.
	for _, stdin := range []string{"", "y\n"} {
		r := runIn(t, stdin, "compact", fx.path)
		checkFailure(t, r, 2, []string{"refusing to compact", "--yes"}, []string{"compact", fx.path})
	}
	if fileHashes(t, fx.path) != before {
		t.Fatal("a refused compact changed the store")
	}
	var rep compactOut
	parseJSON(t, ok(t, "compact", "--yes", "--format", "json", fx.path), &rep)
	if rep.FeatureSetsReclaimed != 1 || rep.FreePackedColumns < 1 {
		t.Errorf("compact %+v, want 1 feature set and ≥1 free column", rep)
	}
	out := ok(t, "compact", "--yes", fx.path)
	if !strings.Contains(out, "deleted 0 unreachable feature sets") {
		t.Errorf("second compact: %s", out)
	}
	ok(t, "verify", fx.path)
	// --rewrite gives the free columns' space back: the pair shrinks, and what ls lists and
	// verify checks is unchanged.
	listed := ok(t, "ls", fx.path)
	var rw compactOut
	parseJSON(t, ok(t, "compact", "--yes", "--rewrite", "--format", "json", fx.path), &rw)
	if rw.FreePackedColumns < 1 || rw.BytesAfter <= 0 || rw.BytesAfter >= rw.BytesBefore {
		t.Errorf("compact --rewrite %+v, want the pair smaller", rw)
	}
	if got := ok(t, "ls", fx.path); got != listed {
		t.Errorf("ls after the rewrite:\n%s\nbefore:\n%s", got, listed)
	}
	ok(t, "verify", fx.path)
	out = ok(t, "compact", "--yes", "--rewrite", fx.path)
	if !strings.Contains(out, "rewrote the store without its 0 free packed columns") || !strings.Contains(out, "→") {
		t.Errorf("second compact --rewrite: %s", out)
	}
}

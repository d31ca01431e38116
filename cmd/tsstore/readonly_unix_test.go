//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/tsstore/tsstore/core"
)

// TestReadOnlyCommands runs every command that does not write on a store it cannot write
// (files 0444 in a 0555 directory; as root, the commands run as nobody, whom the modes
// bind), so opening it for writing fails, and checks that both files and the directory
// are byte for byte what they were.
func TestReadOnlyCommands(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "tsstore-ro-")
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	fx := newFixtureAt(t, filepath.Join(dir, "system.nc"))
	p := fx.path
	plotDir := filepath.Join(dir, "plots")
	if err := os.Mkdir(plotDir, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(plotDir, 0o777)
	for _, f := range []string{p, core.CatalogPath(p)} {
		if err := os.Chmod(f, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	var cred *syscall.Credential
	if os.Getuid() == 0 {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	// The guard itself: a write must fail here, or the test proves nothing.
	if r := runAs(t, cred, "compact", "--yes", p); r.code != 1 {
		t.Fatalf("compact on the protected store: exit %d, stderr %q; the store is not write-protected", r.code, r.stderr)
	}
	runs := [][]string{
		{"info", p}, {"info", "--format", "json", p}, {"info", "--reclaimable", p},
		{"ls", p}, {"ls", "--format", "csv", p}, {"ls", "--format", "json", "--owner-id", "1", p},
		{"show", "--owner-id", "2", "--name", "max_active_power", p},
		{"show", "--owner-id", "2", "--name", "max_active_power", "--format", "csv", "--plot", plotDir + "/a.svg", p},
		{"show", "--owner-id", "2", "--type", "Probabilistic", "--format", "json", "--plot", plotDir + "/b.png", p},
		{"show", "--owner-id", "7", "--start", "2030-01-01T04:00:00Z", p},
		{"verify", p}, {"verify", "--format", "json", p}, {"check-grid", p}, {"check-grid", "--format", "json", p},
		{"export", "--name", "max_active_power", "--features", "{}", "--exact-features", p},
		{"export", "--format", "json", "--owner-type", "ThermalStandard", "--glob", "max_*", "--features", "{}", "--exact-features", p},
	}
	before := fileHashes(t, p)
	for _, args := range runs {
		if r := runAs(t, cred, args...); r.code != 0 || r.stderr != "" {
			t.Fatalf("tsstore %v on a read-only store: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if after := fileHashes(t, p); after != before {
			t.Fatalf("tsstore %v changed the store:\nbefore %s\nafter  %s", args, before, after)
		}
	}
}

func runAs(t *testing.T, cred *syscall.Credential, args ...string) result {
	t.Helper()
	cmd := exec.Command(binPath, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	cmd.Env = append(os.Environ(), "TMPDIR=/tmp")
	return runCmd(t, cmd)
}

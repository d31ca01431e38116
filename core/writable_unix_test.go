//go:build unix

package core

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A store this process may not write is said to be not writable, with the way out (a
// read-only open), instead of surfacing as a damaged file or a failed journal write. Root
// ignores file modes, so under root each case runs in a child process as nobody
// (65534:65534): this test binary, copied where nobody can run it, re-run on one case.
func TestUnwritableStoreSaysSo(t *testing.T) {
	if c := os.Getenv("TSSTORE_UNWRITABLE_CASE"); c != "" {
		unwritableChild(t, c, os.Getenv("TSSTORE_UNWRITABLE_PATH"))
		return
	}
	if os.Getenv("TSSTORE_UNWRITABLE_PATH") != "" {
		t.Skip("child of another case")
	}
	root := os.Geteuid() == 0
	var cred *syscall.Credential
	uid, gid := os.Getuid(), os.Getgid()
	if root {
		cred = &syscall.Credential{Uid: 65534, Gid: 65534}
		uid, gid = 65534, 65534
	}
	base, err := os.MkdirTemp("", "tsstore-unwritable-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		filepath.Walk(base, func(p string, _ os.FileInfo, _ error) error { return os.Chmod(p, 0o755) })
		os.RemoveAll(base)
	})
	os.Chmod(base, 0o755)
	bin := filepath.Join(base, "core.test")
	copyExecutable(t, os.Args[0], bin)

	for _, c := range []struct {
		name  string
		setup func(dir, path string) // the store is closed; dir and files belong to the child's user
		frags []string
	}{
		{"file", func(dir, path string) { os.Chmod(path, 0o444) },
			[]string{"system.nc is not writable by this process", "opened read-only"}},
		{"catalog", func(dir, path string) { os.Chmod(CatalogPath(path), 0o444) },
			[]string{"system.nc.sqlite is not writable by this process", "opened read-only"}},
		{"directory", func(dir, path string) {
			if root {
				os.Chown(dir, 0, 0) // root's, so nobody cannot write it; the files stay writable
				os.Chmod(path, 0o666)
				os.Chmod(CatalogPath(path), 0o666)
			}
			os.Chmod(dir, 0o555)
		}, []string{"is not writable by this process", "rollback journals there", "system.nc-journal", "opened read-only"}},
		{"directory-later", func(dir, path string) {}, nil}, // the child takes the directory's write permission itself
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(base, c.name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, "system.nc")
			s, err := Create(path, nil)
			if err != nil {
				t.Fatal(err)
			}
			mustAdd(t, s, gen(1), hourly("p", ramp(24, 0)), nil)
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			for _, p := range []string{dir, path, CatalogPath(path)} {
				if err := os.Chown(p, uid, gid); err != nil {
					t.Fatal(err)
				}
			}
			c.setup(dir, path)
			before := fileDigests(t, path)
			cmd := exec.Command(bin, "-test.run=^TestUnwritableStoreSaysSo$", "-test.v")
			cmd.Env = append(os.Environ(), "TSSTORE_UNWRITABLE_CASE="+c.name, "TSSTORE_UNWRITABLE_PATH="+path,
				"TSSTORE_UNWRITABLE_WANT="+strings.Join(c.frags, "\x1f"), "TMPDIR=/tmp", "GOCOVERDIR=")
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "--- PASS: TestUnwritableStoreSaysSo") {
				t.Fatalf("the child (uid %d) failed: %v\n%s", uid, err, out)
			}
			t.Logf("child:\n%s", out)
			if c.name != "directory-later" {
				if after := fileDigests(t, path); after != before {
					t.Error("the refused open changed the files")
				}
				for _, j := range []string{path + "-journal", CatalogPath(path) + "-journal"} {
					if _, err := os.Stat(j); err == nil && c.name == "directory" {
						t.Errorf("the refused open left %s", j)
					}
				}
			}
		})
	}
}

// unwritableChild is one case, run as the unprivileged user.
func unwritableChild(t *testing.T, name, path string) {
	k := Key{OwnerID: 1, Name: "p", Resolution: Hours(1)}
	readBack := func() {
		t.Helper()
		s, err := OpenReadOnly(path)
		if err != nil {
			t.Fatalf("the read-only open the message offers: %v", err)
		}
		defer s.Close()
		if got := floats(t, mustGetSingle(t, s, k).Data); !equalFloats(got, ramp(24, 0)) {
			t.Fatal("the read-only open reads something else")
		}
	}
	if name == "directory-later" {
		// The directory loses its write permission while the store is open, and the journal
		// then fails with a denied write: the store says the directory is not writable and
		// that a read-only open works, not to reopen for writing (which cannot work).
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Dir(path)
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		if !s.nc.Journalled() {
			t.Skip("the journal driver is not active in this build")
		}
		s.nc.FailForTesting(syscall.EACCES)
		_, err = s.Get(k)
		t.Logf("a call after the journal failed: %v", err)
		wantKind(t, err, ErrIO)
		for _, f := range []string{"the directory " + dir + " is not writable by this process", "opened read-only", "system.nc-journal"} {
			if !strings.Contains(err.Error(), f) {
				t.Errorf("%q does not say %q", err, f)
			}
		}
		if strings.Contains(err.Error(), "open it again") {
			t.Errorf("%q still says to reopen for writing", err)
		}
		s.Close()
		readBack()
		return
	}
	_, err := Open(path)
	t.Logf("writable open: %v", err)
	if err == nil {
		t.Fatal("a store this user cannot write opened for writing")
	}
	wantKind(t, err, ErrIO)
	if !errors.Is(err, os.ErrPermission) {
		t.Errorf("%v: does not wrap the permission error", err)
	}
	for _, f := range strings.Split(os.Getenv("TSSTORE_UNWRITABLE_WANT"), "\x1f") {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%q does not say %q", err, f)
		}
	}
	for _, wrong := range []string{"damaged", "truncated", "open it again"} {
		if strings.Contains(err.Error(), wrong) {
			t.Errorf("%q says %q", err, wrong)
		}
	}
	readBack()
}

func copyExecutable(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

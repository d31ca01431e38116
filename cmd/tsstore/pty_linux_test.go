package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"unsafe"
)

// openPty opens a pseudo-terminal pair: what the child writes to the terminal (tty) can
// be read from the master, and what is written to the master the child reads.
func openPty(t *testing.T) (master, tty *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	var unlock int32
	if err := ioctl(m, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		m.Close()
		t.Skipf("unlockpt: %v", err)
	}
	var n uint32
	if err := ioctl(m, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		m.Close()
		t.Skipf("ptsname: %v", err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		m.Close()
		t.Skipf("opening the pty: %v", err)
	}
	t.Cleanup(func() { m.Close(); s.Close() })
	return m, s
}

func ioctl(f *os.File, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}

// ttyRun runs the binary with stdin and stderr on a terminal, types input, and returns
// what the terminal showed, stdout and the exit status.
func ttyRun(t *testing.T, input string, args ...string) (screen, stdout string, code int) {
	t.Helper()
	master, tty := openPty(t)
	cmd := exec.Command(binPath, args...)
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, &out, tty
	if err := start(cmd); err != nil {
		t.Fatal(err)
	}
	var shown bytes.Buffer
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := make([]byte, 4096)
		for {
			n, err := master.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				return
			}
		}
	}()
	if input != "" {
		master.Write([]byte(input))
	}
	err := cmd.Wait()
	// With the child gone and our handle closed, the master reads what is left, then EIO.
	tty.Close()
	wg.Wait()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return shown.String(), out.String(), code
}

func TestCompactConfirmation(t *testing.T) {
	t.Parallel()
	fx := newFixture(t)
	before := fileHashes(t, fx.path)
	screen, _, code := ttyRun(t, "n\n", "compact", fx.path)
	if code != 1 || !strings.Contains(screen, "Compact "+fx.path+"?") || !strings.Contains(screen, "aborted: nothing was changed") {
		t.Fatalf("answering n: exit %d, terminal %q", code, screen)
	}
	if fileHashes(t, fx.path) != before {
		t.Fatal("an aborted compact changed the store")
	}
	screen, stdout, code := ttyRun(t, "yes\n", "compact", fx.path)
	if code != 0 || !strings.Contains(stdout, "deleted 1 unreachable feature sets") {
		t.Fatalf("answering yes: exit %d, stdout %q, terminal %q", code, stdout, screen)
	}
}

func TestImportProgressOnTerminal(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("timestamp,1:a,2:a\n")
	for i, ts := range hourly(steps) {
		b.WriteString(ts + "," + strconv.Itoa(i) + ",0.5\n")
	}
	in := writeFile(t, "p.csv", b.String())
	store := filepath.Join(t.TempDir(), "p.nc")
	screen, stdout, code := ttyRun(t, "", "import", "--create", "--owner-type", "T", store, in)
	if code != 0 || !strings.Contains(stdout, "imported 2 series") {
		t.Fatalf("exit %d, stdout %q, terminal %q", code, stdout, screen)
	}
	for _, want := range []string{"reading " + in, "100%", "adding 2 series in one batch", "done"} {
		if !strings.Contains(screen, want) {
			t.Errorf("terminal lacks %q: %q", want, screen)
		}
	}
	// Without a terminal stderr stays empty (ok checks it).
	ok(t, "import", "--owner-type", "T", "--name", "b", store, writeFile(t, "q.csv", strings.ReplaceAll(b.String(), ":a", "")))
}

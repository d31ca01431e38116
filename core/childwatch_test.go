package core

// Hang detection for the tests' child processes, by work done rather than by the clock: a
// child is hung when its process tree has burnt more CPU than any sound run needs (HDF5
// looping on a damaged heap), or, as a backstop for a child blocked without using CPU (an
// open waiting on a FIFO), when a wall bound of minutes has passed. A loaded machine
// stretches a child's wall time, hardly its CPU time, so neither bound fires on a slow
// but sound run.

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// hangLimits are the bounds past which a child counts as hung.
type hangLimits struct {
	cpu  time.Duration // CPU (user+system) of the child and its descendants
	wall time.Duration // generous: only for a child that waits without using CPU
}

const (
	// userHZ is the unit of /proc/<pid>/stat's times: fixed at 100 in Linux's user ABI.
	userHZ = 100
	// watchEvery is how often a child's CPU is sampled; a hang overshoots by at most this.
	watchEvery = 250 * time.Millisecond
	// quitGrace is how long a child told to quit (SIGQUIT, so that Go prints its stacks)
	// has before it is killed: enough to write the traceback on a loaded machine.
	quitGrace = 60 * time.Second
)

// waitWatched waits for the started cmd. When it crosses lim, its tree gets SIGQUIT and,
// quitGrace later, SIGKILL; hung then says which bound it crossed ("" when it ended by
// itself). err is cmd.Wait's.
func waitWatched(cmd *exec.Cmd, lim hangLimits) (hung string, err error) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pid := cmd.Process.Pid
	start := time.Now()
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for hung == "" {
		select {
		case err := <-done:
			return "", err
		case <-tick.C:
		}
		if cpu := treeCPU(pid); cpu > lim.cpu {
			hung = fmt.Sprintf("used %v of CPU (bound %v)", cpu, lim.cpu)
		} else if wall := time.Since(start); wall > lim.wall {
			hung = fmt.Sprintf("ran %v without ending, using %v of CPU (bound %v)", wall.Round(time.Second), cpu, lim.wall)
		}
	}
	signalTree(pid, syscall.SIGQUIT)
	select {
	case err := <-done:
		return hung, err
	case <-time.After(quitGrace):
	}
	signalTree(pid, syscall.SIGKILL)
	return hung, <-done
}

// treeCPU is the CPU used so far by pid and its live descendants (with the children each
// of them has already waited for). 0 where /proc cannot be read: the wall bound remains.
func treeCPU(pid int) time.Duration {
	var ticks int64
	for _, p := range treePids(pid) {
		ticks += procTicks(p)
	}
	return time.Duration(ticks) * time.Second / userHZ
}

// procTicks is utime+stime+cutime+cstime of pid from /proc/<pid>/stat.
func procTicks(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, field 2, is in parentheses and may hold spaces: count after it.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 15 {
		return 0
	}
	var n int64
	for _, v := range f[11:15] { // fields 14-17 of the line; f[0] is field 3
		x, _ := strconv.ParseInt(v, 10, 64)
		n += x
	}
	return n
}

// treePids is pid and its descendants, from /proc/<pid>/task/<tid>/children.
func treePids(pid int) []int {
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(out[i]) + "/task")
		for _, task := range tasks {
			b, _ := os.ReadFile("/proc/" + strconv.Itoa(out[i]) + "/task/" + task.Name() + "/children")
			for _, c := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(c); err == nil {
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// signalTree sends sig to pid and its descendants: under strace, the traced program is a
// grandchild, and it is the one that must print its stacks or die.
func signalTree(pid int, sig syscall.Signal) {
	for _, p := range treePids(pid) {
		syscall.Kill(p, sig)
	}
}

// The watcher itself: a loop is stopped by its CPU, also in a grandchild; a child that
// waits without using CPU is not, until the wall bound.
func TestWaitWatched(t *testing.T) {
	run := func(lim hangLimits, script string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", script)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		hung, _ := waitWatched(cmd, lim)
		return hung
	}
	if hung := run(hangLimits{cpu: time.Second, wall: time.Hour}, "while :; do :; done"); !strings.Contains(hung, "of CPU") {
		t.Errorf("a busy loop: %q", hung)
	}
	if hung := run(hangLimits{cpu: time.Second, wall: time.Hour}, `sh -c 'while :; do :; done'; :`); !strings.Contains(hung, "of CPU") {
		t.Errorf("a busy loop in a grandchild: %q", hung)
	}
	if hung := run(hangLimits{cpu: time.Second, wall: time.Hour}, "sleep 2"); hung != "" {
		t.Errorf("a child sleeping past the CPU bound: %q", hung)
	}
	if hung := run(hangLimits{cpu: time.Hour, wall: time.Second}, "sleep 600"); !strings.Contains(hung, "without ending") {
		t.Errorf("a child sleeping past the wall bound: %q", hung)
	}
}

package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// progress draws a one-line bar on stderr while a file is read, and only when stderr is
// a terminal: a log file or a pipe gets no control characters.
type progress struct {
	w     io.Writer // nil when off
	total int64     // bytes to read; 0 when unknown (stdin)
	done  int64
	last  time.Time
	label string
}

func newProgress(stderr *os.File, total int64, label string) *progress {
	p := &progress{total: total, label: label}
	if isTerminal(stderr) {
		p.w = stderr
	}
	return p
}

// counting wraps r so that every read advances the bar.
func (p *progress) counting(r io.Reader) io.Reader {
	if p.w == nil {
		return r
	}
	return &countingReader{r: r, p: p}
}

type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.advance(int64(n))
	return n, err
}

func (p *progress) advance(n int64) {
	p.done += n
	if now := time.Now(); now.Sub(p.last) >= 100*time.Millisecond {
		p.last = now
		p.draw()
	}
}

func (p *progress) draw() {
	const width = 30
	if p.total <= 0 {
		fmt.Fprintf(p.w, "\r%s %s", p.label, humanBytes(p.done))
		return
	}
	frac := min(float64(p.done)/float64(p.total), 1)
	n := int(frac * width)
	fmt.Fprintf(p.w, "\r%s [%s%s] %3.0f%%", p.label, strings.Repeat("#", n), strings.Repeat(" ", width-n), frac*100)
}

// stage replaces the bar with a message about the next, unmeasurable step.
func (p *progress) stage(msg string) {
	if p.w == nil {
		return
	}
	p.done = max(p.done, p.total)
	p.draw()
	fmt.Fprintf(p.w, "\n%s", msg)
}

// finish ends the line so that what follows starts on a clean one.
func (p *progress) finish() {
	if p.w != nil {
		fmt.Fprintln(p.w, " done")
	}
}

package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"
)

const sparkBlocks = "▁▂▃▄▅▆▇█"

// maxSparklines bounds how many columns get a sparkline, so a wide element shape does
// not flood the terminal.
const maxSparklines = 8

// writeSparklines prints one sparkline per column, downsampled to the terminal width.
func writeSparklines(w io.Writer, v *seriesView) error {
	width := terminalWidth()
	labelWidth := 0
	for _, l := range v.labels {
		labelWidth = max(labelWidth, len(l))
	}
	for c, col := range v.columns {
		if c == maxSparklines {
			_, err := fmt.Fprintf(w, "(%d more columns without a sparkline)\n", len(v.columns)-c)
			return err
		}
		lo, hi := finiteRange(col)
		suffix := fmt.Sprintf("  min %s max %s", formatFloat(lo), formatFloat(hi))
		room := max(width-labelWidth-2-len(suffix), 10)
		if _, err := fmt.Fprintf(w, "%-*s  %s%s\n", labelWidth, v.labels[c], sparkline(col, room), suffix); err != nil {
			return err
		}
	}
	return nil
}

// terminalWidth is $COLUMNS when the shell exports it, else the classic 80.
func terminalWidth() int {
	if n, err := strconv.Atoi(os.Getenv("COLUMNS")); err == nil && n > 20 {
		return n
	}
	return 80
}

// sparkline draws values as at most width block characters: each character is the mean
// of its share of the values; a share with no finite value is a space.
func sparkline(values []float64, width int) string {
	if len(values) == 0 {
		return ""
	}
	bins := downsample(values, width)
	lo, hi := finiteRange(bins)
	blocks := []rune(sparkBlocks)
	var b strings.Builder
	for _, v := range bins {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			b.WriteRune(' ')
		case hi == lo:
			b.WriteRune(blocks[len(blocks)/2])
		default:
			i := int((v - lo) / (hi - lo) * float64(len(blocks)-1))
			b.WriteRune(blocks[min(max(i, 0), len(blocks)-1)])
		}
	}
	return b.String()
}

// downsample averages the finite values of each of n equal shares (NaN for a share that
// has none); with fewer than n values it returns them as they are.
func downsample(values []float64, n int) []float64 {
	if len(values) <= n {
		return values
	}
	out := make([]float64, n)
	for i := range out {
		from, to := i*len(values)/n, (i+1)*len(values)/n
		sum, k := 0.0, 0
		for _, v := range values[from:to] {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum += v
				k++
			}
		}
		out[i] = math.NaN()
		if k > 0 {
			out[i] = sum / float64(k)
		}
	}
	return out
}

// finiteRange is the smallest and largest finite value (0, 0 when there is none).
func finiteRange(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

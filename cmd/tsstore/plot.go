package main

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
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
		suffix := fmt.Sprintf("  min %s max %s", strconv.FormatFloat(lo, 'g', 6, 64), strconv.FormatFloat(hi, 'g', 6, 64))
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

// chart is the geometry shared by the SVG and PNG plots.
type chart struct {
	width, height          int
	left, right, top, bott int // margins
	lo, hi                 float64
	n                      int // steps
}

var palette = []color.RGBA{{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255}}

func newChart(v *seriesView) chart {
	c := chart{width: 900, height: 420, left: 80, right: 170, top: 40, bott: 50, n: len(v.times)}
	c.lo, c.hi = math.Inf(1), math.Inf(-1)
	for _, col := range v.columns {
		lo, hi := finiteRange(col)
		c.lo, c.hi = min(c.lo, lo), max(c.hi, hi)
	}
	if c.lo > c.hi {
		c.lo, c.hi = 0, 0
	}
	if c.hi == c.lo {
		c.lo, c.hi = c.lo-1, c.hi+1
	}
	return c
}

func (c chart) x(i int) float64 {
	if c.n <= 1 {
		return float64(c.left)
	}
	return float64(c.left) + float64(i)*float64(c.width-c.left-c.right)/float64(c.n-1)
}

func (c chart) y(v float64) float64 {
	return float64(c.top) + (c.hi-v)/(c.hi-c.lo)*float64(c.height-c.top-c.bott)
}

// writePlot writes the view's columns as a line chart; the extension picks the format.
func writePlot(path string, v *seriesView) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if strings.HasSuffix(strings.ToLower(path), ".png") {
		err = png.Encode(f, drawPNG(v))
	} else {
		err = writeSVG(f, v)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func writeSVG(w io.Writer, v *seriesView) error {
	c := newChart(v)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		c.width, c.height, c.width, c.height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="14">%s</text>`+"\n", c.left, html.EscapeString(v.meta.Key.String()))
	x0, x1, y0, y1 := c.left, c.width-c.right, c.top, c.height-c.bott
	fmt.Fprintf(&b, `<path d="M%d %d V%d H%d" fill="none" stroke="black"/>`+"\n", x0, y0, y1, x1)
	for k := 0; k <= 4; k++ {
		val := c.lo + float64(k)*(c.hi-c.lo)/4
		y := c.y(val)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/>`+"\n", x0, y, x1, y)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", x0-6, y+4, strconv.FormatFloat(val, 'g', 5, 64))
	}
	if len(v.times) > 0 {
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", x0, y1+20, formatTime(v.times[0]))
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`+"\n", x1, y1+20, formatTime(v.times[len(v.times)-1]))
	}
	for k, col := range v.columns {
		rgb := palette[k%len(palette)]
		stroke := fmt.Sprintf("#%02x%02x%02x", rgb.R, rgb.G, rgb.B)
		for _, seg := range finiteSegments(col) {
			var pts []string
			for i := seg[0]; i < seg[1]; i++ {
				pts = append(pts, fmt.Sprintf("%.1f,%.1f", c.x(i), c.y(col[i])))
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.5"/>`+"\n", strings.Join(pts, " "), stroke)
		}
		if k < 20 {
			ly := c.top + 16*k
			fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/>`+"\n", x1+12, ly, x1+32, ly, stroke)
			fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", x1+38, ly+4, html.EscapeString(v.labels[k]))
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// finiteSegments splits a column into runs of finite values: a NaN breaks the line.
func finiteSegments(col []float64) [][2]int {
	var segs [][2]int
	start := -1
	for i, v := range col {
		finite := !math.IsNaN(v) && !math.IsInf(v, 0)
		if finite && start < 0 {
			start = i
		}
		if !finite && start >= 0 {
			segs = append(segs, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		segs = append(segs, [2]int{start, len(col)})
	}
	return segs
}

func drawPNG(v *seriesView) image.Image {
	c := newChart(v)
	img := image.NewRGBA(image.Rect(0, 0, c.width, c.height))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	x0, x1, y0, y1 := c.left, c.width-c.right, c.top, c.height-c.bott
	grid := color.RGBA{221, 221, 221, 255}
	for k := 0; k <= 4; k++ {
		y := int(math.Round(c.y(c.lo + float64(k)*(c.hi-c.lo)/4)))
		drawLine(img, x0, y, x1, y, grid)
	}
	black := color.RGBA{0, 0, 0, 255}
	drawLine(img, x0, y0, x0, y1, black)
	drawLine(img, x0, y1, x1, y1, black)
	for k, col := range v.columns {
		rgb := palette[k%len(palette)]
		for _, seg := range finiteSegments(col) {
			for i := seg[0]; i+1 < seg[1]; i++ {
				drawThick(img, c.x(i), c.y(col[i]), c.x(i+1), c.y(col[i+1]), rgb)
			}
			if seg[1]-seg[0] == 1 {
				drawThick(img, c.x(seg[0]), c.y(col[seg[0]]), c.x(seg[0]), c.y(col[seg[0]]), rgb)
			}
		}
		if k < 20 {
			ly := c.top + 16*k
			for d := -1; d <= 1; d++ {
				drawLine(img, x1+12, ly+d, x1+32, ly+d, rgb)
			}
		}
	}
	return img
}

// drawThick draws a two-pixel-wide segment.
func drawThick(img *image.RGBA, xa, ya, xb, yb float64, col color.RGBA) {
	ax, ay, bx, by := int(math.Round(xa)), int(math.Round(ya)), int(math.Round(xb)), int(math.Round(yb))
	drawLine(img, ax, ay, bx, by, col)
	drawLine(img, ax, ay+1, bx, by+1, col)
}

// drawLine is Bresenham's line between two pixels.
func drawLine(img *image.RGBA, x0, y0, x1, y1 int, col color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := 1, 1
	if x0 > x1 {
		sx = -1
	}
	if y0 > y1 {
		sy = -1
	}
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, col)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

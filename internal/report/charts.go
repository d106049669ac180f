package report

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"regexp"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette is twelve colours told apart on a white page and by most colour
// blind readers: Okabe and Ito's eight (yellow left out), then Tableau's
// brown, purple, grey, olive and cyan.
var palette = []color.RGBA{
	{0x00, 0x72, 0xb2, 0xff}, {0xd5, 0x5e, 0x00, 0xff}, {0x00, 0x9e, 0x73, 0xff}, {0xcc, 0x79, 0xa7, 0xff},
	{0xe6, 0x9f, 0x00, 0xff}, {0x56, 0xb4, 0xe9, 0xff}, {0x00, 0x00, 0x00, 0xff}, {0x8c, 0x56, 0x4b, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x7f, 0x7f, 0x7f, 0xff}, {0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff},
}

// keyColor gives every key the same colour in every chart: the palette by
// the key's position in the run's plan; beyond twelve keys (the ids
// preset's 22) each further round of the palette is its colours shaded, a
// light one darker and a dark one lighter, so that no two keys share one.
func keyColor(i int) color.Color {
	c, round := palette[i%len(palette)], i/len(palette)
	if round == 0 {
		return c
	}
	f := min(0.4*float64(round), 0.8)
	target := 0.0 // towards black
	if 0.299*float64(c.R)+0.587*float64(c.G)+0.114*float64(c.B) < 80 {
		target = 255 // a dark colour: towards white
	}
	mix := func(v uint8) uint8 { return uint8(float64(v)*(1-f) + target*f + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 0xff}
}

// lighter mixes c with white, more for a later task (0: c itself), so that
// one key's cells of two workloads share its hue and stay apart.
func lighter(c color.Color, task int) color.Color {
	if task == 0 {
		return c
	}
	f := min(0.45+0.15*float64(task-1), 0.75)
	r, g, b, _ := c.RGBA()
	mix := func(v uint32) uint8 { return uint8(float64(v>>8) + (255-float64(v>>8))*f) }
	return color.RGBA{mix(r), mix(g), mix(b), 0xff}
}

type series struct {
	name  string
	color color.Color
	ys    []float64 // one value per category (bars) or per point (lines)
	xs    []float64 // lines only
}

// points are a line's (x, y) pairs.
func (s series) points() plotter.XYs {
	pts := make(plotter.XYs, len(s.xs))
	for i := range s.xs {
		pts[i].X, pts[i].Y = s.xs[i], s.ys[i]
	}
	return pts
}

// groupedBars draws one bar per series in each category.
func groupedBars(title, yLabel string, categories []string, ss []series) (string, error) {
	p, err := barsPlot(title, yLabel, categories, ss)
	if err != nil {
		return "", err
	}
	return svg(p, ss)
}

// barsPlot lays out one bar per series in each category, the categories'
// names broken into lines at a colon (wait events: "LWLock:\nWALWrite") so
// that neighbours do not run together.
func barsPlot(title, yLabel string, categories []string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Legend.Top = true
	w := vg.Points(min(60/float64(max(len(ss), 1)), 18))
	for i, s := range ss {
		vals := make(plotter.Values, len(categories))
		copy(vals, s.ys)
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		b.Color, b.LineStyle.Width = s.color, 0
		b.Offset = w * vg.Length(float64(i)-float64(len(ss)-1)/2)
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	names := make([]string, len(categories))
	for i, c := range categories {
		names[i] = strings.Replace(c, ":", ":\n", 1)
	}
	p.NominalX(names...)
	p.Y.Min = 0
	p.Y.Max = top(ss) * 1.05
	p.Y.Tick.Marker = tidyTicks{}
	return p, nil
}

// logBars is groupedBars on a logarithmic axis, from half the smallest
// positive value: bars orders of magnitude apart stay readable.
func logBars(title, yLabel string, categories []string, ss []series) (string, error) {
	p, err := barsPlot(title, yLabel, categories, ss)
	if err != nil {
		return "", err
	}
	least := math.Inf(1)
	for _, s := range ss {
		for _, v := range s.ys {
			if v > 0 {
				least = math.Min(least, v)
			}
		}
	}
	if math.IsInf(least, 1) {
		return svg(p, ss)
	}
	p.Y.Min, p.Y.Max = least/2, top(ss)*2
	p.Y.Scale, p.Y.Tick.Marker = floorLog{}, plot.LogTicks{Prec: -1}
	return svg(p, ss)
}

// floorLog is a logarithmic scale on which a value below the axis's least
// (a bar's base at zero) sits at its foot.
type floorLog struct{}

func (floorLog) Normalize(lo, hi, x float64) float64 {
	return plot.LogScale{}.Normalize(lo, hi, math.Max(x, lo))
}

// percentBars is groupedBars of shares in percent: the axis ends at 100%
// or below.
func percentBars(title, yLabel string, categories []string, ss []series) (string, error) {
	p, err := barsPlot(title, yLabel, categories, ss)
	if err != nil {
		return "", err
	}
	p.Y.Max = min(100, p.Y.Max)
	return svg(p, ss)
}

// lines draws one line per series.
func lines(title, xLabel, yLabel string, ss []series) (string, error) {
	p, err := linesPlot(title, xLabel, yLabel, ss)
	if err != nil {
		return "", err
	}
	return svg(p, ss)
}

// logLines draws one line per series against a logarithmic x axis (ratios
// spanning orders of magnitude), each point marked.
func logLines(title, xLabel, yLabel string, ss []series) (string, error) {
	p, err := linesPlot(title, xLabel, yLabel, ss)
	if err != nil {
		return "", err
	}
	p.X.Scale, p.X.Tick.Marker = plot.LogScale{}, tidyLogTicks{}
	for _, s := range ss {
		sc, err := plotter.NewScatter(s.points())
		if err != nil {
			return "", err
		}
		sc.GlyphStyle.Color, sc.GlyphStyle.Radius = s.color, vg.Points(2.5)
		p.Add(sc)
	}
	return svg(p, ss)
}

// tidyLogTicks mark the powers of two of a logarithmic axis ("0.5×",
// "1×", "2×", …; every other power when there would be more than ten).
type tidyLogTicks struct{}

func (tidyLogTicks) Ticks(lo, hi float64) []plot.Tick {
	if lo <= 0 || hi <= lo {
		return plot.LogTicks{Prec: -1}.Ticks(math.Max(lo, 1e-9), math.Max(hi, 1e-9))
	}
	first, last := math.Floor(math.Log2(lo)), math.Ceil(math.Log2(hi))
	step := 1.0
	if last-first > 10 {
		step = 2
	}
	var ts []plot.Tick
	for e := first; e <= last; e += step {
		v := math.Pow(2, e)
		if v >= lo && v <= hi {
			ts = append(ts, plot.Tick{Value: v, Label: tickLabel(v) + "×"})
		}
	}
	return ts
}

func linesPlot(title, xLabel, yLabel string, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Add(plotter.NewGrid())
	for _, s := range ss {
		l, err := plotter.NewLine(s.points())
		if err != nil {
			return nil, err
		}
		l.Color, l.Width = s.color, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Y.Min = 0
	p.Y.Max = top(ss) * 1.05
	if strings.HasPrefix(yLabel, "%") { // an axis of percentages ends at 100%
		p.Y.Max = min(100, p.Y.Max)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = tidyTicks{}, tidyTicks{}
	return p, nil
}

// svg renders a plot as an inline <svg> element, its legend beside the
// plot rather than over the data, its text in the page's font, and a
// <desc> that names each series and its colour (for screen readers, and
// for the tests that check the colours of every chart).
func svg(p *plot.Plot, ss []series) (out string, err error) {
	// gonum panics on a range it cannot draw (a log axis reaching zero):
	// the chart is then not drawn, with the reason, and the page still is.
	defer func() {
		if v := recover(); v != nil {
			out, err = "", fmt.Errorf("could not draw: %v", v)
		}
	}()
	legend := p.Legend
	p.Legend = plot.NewLegend()
	legend.Top, legend.Left = true, true
	legend.Padding = vg.Points(2)
	pad := vg.Points(10)
	lw := vg.Length(0)
	if r := legend.Rectangle(draw.Canvas{}); r.Max.X > r.Min.X {
		// A fifth more than gonum measures: the page's font may run wider
		// than Liberation Sans, and a cut name is worse than a margin.
		lw = (r.Max.X-r.Min.X)*6/5 + pad
	}
	w, h := 8*vg.Inch+lw, 3.6*vg.Inch // every chart 8 by 3.6 inches, its legend beside it
	if r := legend.Rectangle(draw.Canvas{}); r.Max.Y > r.Min.Y {
		// A legend of many keys (the ids preset's 22) makes the chart as
		// tall as it needs, below the title: no name is cut.
		title := vg.Length(0)
		if p.Title.Text != "" {
			title = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		h = max(h, (r.Max.Y-r.Min.Y)*11/10+title+pad)
	}
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, -lw, 0, 0))
	if lw > 0 {
		title := vg.Length(0)
		if p.Title.Text != "" {
			title = p.Title.TextStyle.Rectangle(p.Title.Text).Size().Y + p.Title.Padding
		}
		legend.Draw(draw.Crop(dc, w-lw+pad/2, 0, 0, -title-pad/2))
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	if i := strings.Index(s, ">"); i >= 0 {
		s = s[:i+1] + "<desc>" + html.EscapeString(describeSeries(ss)) + "</desc>" + s[i+1:]
	}
	return pageFont.ReplaceAllString(s, "font-family:"+chartFont), nil
}

// seriesPrefix starts a chart's description of its series.
const seriesPrefix = "series: "

// describeSeries names each series and its colour: "series: uuidv4 #0072b2; bigint #d55e00".
func describeSeries(ss []series) string {
	var parts []string
	for _, s := range ss {
		parts = append(parts, s.name+" "+hexColor(s.color))
	}
	return seriesPrefix + strings.Join(parts, "; ")
}

// hexColor is c as #rrggbb.
func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// chartFont is the page's font (the report's CSS), given to the charts'
// text; gonum measures it with Liberation Sans, whose widths Arial and
// Helvetica share.
const chartFont = "system-ui, -apple-system, 'Segoe UI', Roboto, Arial, sans-serif"

var pageFont = regexp.MustCompile(`font-family:[^;"]*`)

// top is the largest value of the series (1 when none is positive).
func top(ss []series) float64 {
	m := 0.0
	for _, s := range ss {
		for _, v := range s.ys {
			m = max(m, v)
		}
	}
	if m <= 0 {
		return 1
	}
	return m
}

// tidyTicks are gonum's default ticks with labels written as short as
// they are exact: "2", not "2.00"; "250k", not "250000".
type tidyTicks struct{}

func (tidyTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label == "" {
			continue
		}
		v, err := strconv.ParseFloat(ts[i].Label, 64)
		if err != nil {
			continue
		}
		ts[i].Label = tickLabel(v)
	}
	return ts
}

// tickLabel writes v without trailing zeros, thousands as k and millions as M.
func tickLabel(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1e6 && math.Mod(a, 1e5) == 0:
		return strconv.FormatFloat(v/1e6, 'f', -1, 64) + "M"
	case a >= 1e4 && math.Mod(a, 100) == 0:
		return strconv.FormatFloat(v/1e3, 'f', -1, 64) + "k"
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

package report

import (
	"bytes"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
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
// the key's position in the run's plan (beyond twelve keys, colours repeat).
func keyColor(i int) color.Color { return palette[i%len(palette)] }

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

// groupedBars draws one bar per series in each category.
func groupedBars(title, yLabel string, categories []string, ss []series) (string, error) {
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
			return "", err
		}
		b.Color, b.LineStyle.Width = s.color, 0
		b.Offset = w * vg.Length(float64(i)-float64(len(ss)-1)/2)
		p.Add(b)
		p.Legend.Add(s.name, b)
	}
	p.NominalX(categories...)
	p.Y.Min = 0
	p.Y.Max = headroom(ss)
	return svg(p, 8, 3.6)
}

// lines draws one line per series.
func lines(title, xLabel, yLabel string, ss []series) (string, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	for _, s := range ss {
		pts := make(plotter.XYs, len(s.xs))
		for i := range s.xs {
			pts[i].X, pts[i].Y = s.xs[i], s.ys[i]
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return "", err
		}
		l.Color, l.Width = s.color, vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(s.name, l)
	}
	p.Y.Min = 0
	p.Y.Max = headroom(ss)
	return svg(p, 8, 3.6)
}

// svg renders a plot as an inline <svg> element.
func svg(p *plot.Plot, wIn, hIn float64) (string, error) {
	var buf bytes.Buffer
	wt, err := p.WriterTo(vg.Length(wIn)*vg.Inch, vg.Length(hIn)*vg.Inch, "svg")
	if err != nil {
		return "", err
	}
	if _, err := wt.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	if i := strings.Index(s, "<svg"); i >= 0 {
		s = s[i:]
	}
	return s, nil
}

// headroom is a y-axis maximum that leaves room above the data for the legend (top right).
func headroom(ss []series) float64 {
	top := 0.0
	for _, s := range ss {
		for _, v := range s.ys {
			top = max(top, v)
		}
	}
	if top <= 0 {
		return 1
	}
	return top * (1.15 + 0.07*float64(len(ss)))
}

package report

import (
	"bytes"
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// keyColor gives every key the same colour in every chart: the plotutil
// palette by the key's position in the run's plan.
func keyColor(i int) color.Color { return plotutil.Color(i) }

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

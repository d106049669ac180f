// Package histlog writes a cell's latency histograms as an HdrHistogram
// interval log (--hist-file): the format HdrHistogram's plotter and
// CockroachDB's --hist-file readers take, one interval a round, each the
// round's histogram with every client merged, in microseconds: the
// window's transactions, and in a timed window also each transaction
// still running at its end (the time it spent in the window is the
// window's latency).
package histlog

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Interval is one round's histogram and when it ran, in milliseconds
// since the run started.
type Interval struct {
	StartMS, EndMS int64
	Latency        *hdrhistogram.Histogram
}

// Write writes the intervals to path as an interval log (version 1.3,
// a legend, a comment naming what they measure), replacing any file there.
func Write(path, comment string, startUnixMS int64, intervals []Interval) error {
	var buf bytes.Buffer
	w := hdrhistogram.NewHistogramLogWriter(&buf)
	steps := []func() error{
		w.OutputLogFormatVersion,
		func() error { return w.OutputComment(comment) },
		func() error { return w.OutputStartTime(startUnixMS) },
		func() error { return w.OutputBaseTime(startUnixMS) },
		w.OutputLegend,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	for _, iv := range intervals {
		h := hdrhistogram.Import(iv.Latency.Export())
		h.SetStartTimeMs(iv.StartMS)
		h.SetEndTimeMs(iv.EndMS)
		if err := w.OutputIntervalHistogram(h); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

// FileName is a cell's log's name in the directory: its order in the run,
// its key and its workload, with what a file name cannot hold replaced.
func FileName(dir string, n int, key, workload string) string {
	clean := strings.Map(func(r rune) rune {
		if r == '/' || r == ':' || r == '=' || r == ' ' || r < 0x20 {
			return '_'
		}
		return r
	}, key+"-"+workload)
	return filepath.Join(dir, fmt.Sprintf("%02d-%s.hlog", n, clean))
}

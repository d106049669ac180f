package runner

// The progress text of a window: a bar that starts with the window's first
// second (the warm-up is a phase of its own, so the bar's ETA is the
// window's), counting seconds or transactions, with the workload's own
// line when it has one.

import (
	"fmt"

	"github.com/keybench/keybench/internal/driver"
	"github.com/keybench/keybench/internal/workload"
)

// progress is one window's progress bar.
type progress struct {
	cr      *cellRun
	win     workload.Window
	clients int
	unit    string
	bar     *Bar
	count   int64
	own     workload.Progresser
}

// progressBar is the progress of a window of win with clients clients.
func (cr *cellRun) progressBar(win workload.Window, clients int) *progress {
	unit := map[bool]string{true: "txns", false: "s"}[win.Txns > 0]
	if win.Unit != "" && win.Txns > 0 {
		unit = win.Unit
	}
	p := &progress{cr: cr, win: win, clients: clients, unit: unit}
	p.own, _ = cr.wl.(workload.Progresser)
	return p
}

// second shows a second of the window.
func (p *progress) second(s driver.Second) {
	if p.bar == nil {
		p.bar = p.cr.r.ui.Phase("  measuring", windowUnits(p.win, p.clients), p.unit)
		if p.unit == "s" {
			p.bar.Every(int64(p.cr.r.cfg.ProgressEvery))
		}
	}
	if p.win.Txns > 0 {
		p.count += s.Txns
	} else {
		p.count = int64(s.T)
	}
	if p.own != nil {
		p.bar.Set(p.count, p.own.Progress(s))
	} else {
		p.bar.Set(p.count, fmt.Sprintf("%.0f tps, p99 %.2f ms", s.TPS, s.P99ms))
	}
}

// done ends the bar, if the window had a second.
func (p *progress) done() {
	if p.bar != nil {
		p.bar.Done()
	}
}

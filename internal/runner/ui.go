package runner

// The run's progress output: lines, phases with bars on a terminal and
// plain progress lines otherwise.

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/term"
)

// UI reports progress: bars with an ETA on a terminal, plain timestamped
// lines otherwise (CI, pipes, files).
type UI struct {
	w     io.Writer
	tty   bool
	width int // a terminal's columns: lines are wrapped to them (0: not wrapped)
	mu    sync.Mutex
	p     *mpb.Progress
	// bars counts the bars and spinners drawn in p: two cells' steps run
	// at once, and the container ends only with its last bar (ending it
	// with the first left the other redrawing over lines written past it).
	bars int
}

// NewUI writes progress to w (a terminal gets bars, and lines wrapped to its width).
func NewUI(w io.Writer) *UI {
	u := &UI{w: w}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		u.tty = true
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			u.width = cols
		}
	}
	return u
}

// Logf prints one timestamped line, wrapped on a terminal to its width
// (continued lines indented under the text).
func (u *UI) Logf(format string, a ...any) {
	u.mu.Lock()
	defer u.mu.Unlock()
	line := time.Now().Format("15:04:05") + " " + fmt.Sprintf(format, a...)
	if u.width > 20 {
		line = wrapIndented(line, u.width, 9)
	}
	line += "\n"
	if u.p != nil {
		_, _ = u.p.Write([]byte(line))
		return
	}
	_, _ = io.WriteString(u.w, line)
}

// Bar is one long phase's progress.
type Bar struct {
	u     *UI
	bar   *mpb.Bar
	name  string
	unit  string
	total int64
	step  int64
	next  int64
	start time.Time
	// lines logs a line every step units on a terminal too (-P).
	lines bool
	// detail is the latest detail, shown in a terminal's bar.
	detail atomic.Value
}

// Phase starts a bar for a phase of total units; on a non-terminal it logs every tenth.
func (u *UI) Phase(name string, total int64, unit string) *Bar {
	b := &Bar{u: u, name: name, unit: unit, total: max(total, 1), start: time.Now()}
	if !u.tty {
		b.step = max(b.total/10, 1)
		b.next = b.step
		return b
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.p == nil {
		u.p = mpb.New(mpb.WithOutput(u.w), mpb.WithWidth(32), mpb.WithRefreshRate(200*time.Millisecond))
	}
	barW, detailMax := phaseLayout(u.width, name, fmt.Sprintf("%d/%d %s", b.total, b.total, unit))
	u.bars++
	b.bar = u.p.AddBar(b.total, mpb.BarWidth(barW),
		mpb.PrependDecorators(decor.Name(name+" ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d "+unit, decor.WCSyncWidth)),
		mpb.AppendDecorators(decor.Percentage(decor.WCSyncSpace), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_GO),
			decor.Any(func(decor.Statistics) string {
				if s, ok := b.detail.Load().(string); ok && s != "" {
					return "  " + fit(s, detailMax)
				}
				return ""
			})),
		mpb.BarRemoveOnComplete(),
	)
	return b
}

// A redrawn line longer than the terminal wraps, and the redraw, which
// moves up one row a bar, then overwrites the line above it: a finished
// step's line lost its end that way. So a bar's line is laid out to fit
// the width: the bar narrows, then its detail is cut (the detail is
// logged in full where it matters: the per-second lines of -P, the cell's
// summary line).

// Widths of a phase's line besides its name, counters, bar and detail:
// the blanks, the percentage (" 100 %"), " ETA " and the ETA itself.
const (
	phaseFixed  = 2 + 6 + 5 + 8
	phaseMinBar = 8
	phaseMaxBar = 32
)

// phaseLayout is a phase bar's width and the most columns its detail may
// take on a terminal of width columns (0: not a terminal, no limit).
func phaseLayout(width int, name, counters string) (barW, detailMax int) {
	if width <= 0 {
		return phaseMaxBar, 1 << 20
	}
	used := text.RuneWidthWithoutEscSequences(name) + 1 + text.RuneWidthWithoutEscSequences(counters) + phaseFixed
	barW = max(phaseMinBar, min(phaseMaxBar, width-used-1-24)) // room for 24 columns of detail where it can
	detailMax = max(0, width-used-barW-3)
	return barW, detailMax
}

// fit cuts s to n columns, its end marked, where it is longer.
func fit(s string, n int) string {
	if n <= 1 && text.RuneWidthWithoutEscSequences(s) > n {
		return "" // no room for a character and the mark
	}
	return text.Snip(s, n, "…")
}

// Every makes the bar log a line each n units (pgbench -P), also on a terminal.
func (b *Bar) Every(n int64) {
	if n > 0 {
		b.step, b.next, b.lines = n, n, true
	}
}

// Set reports progress; detail is shown in plain-line mode, and in a
// terminal's bar.
func (b *Bar) Set(done int64, detail string) {
	if b.bar != nil {
		b.detail.Store(detail)
		b.bar.SetCurrent(min(done, b.total))
		if !b.lines {
			return
		}
	}
	if done >= b.next && done < b.total {
		b.u.Logf("  %s %d/%d %s %s", b.name, done, b.total, b.unit, detail)
		for b.next <= done {
			b.next += b.step
		}
	}
}

// Done ends the bar.
func (b *Bar) Done() { b.u.release(b.bar) }

// release ends a terminal bar (nil off a terminal) and waits until it is
// removed. A bar with a total completes by itself only when it reaches it
// (mpb ignores SetTotal's completion then), so a phase cut short, by Ctrl-C
// or an error, is aborted instead: waiting for its completion would wait
// forever. The wait is bounded all the same: progress drawing must never
// keep keybench from stopping.
func (u *UI) release(bar *mpb.Bar) {
	if bar == nil {
		return
	}
	bar.Abort(true)
	u.mu.Lock()
	u.bars--
	p := u.p
	if u.bars > 0 {
		p = nil // another bar still draws in it
	} else {
		u.p = nil
	}
	u.mu.Unlock()
	if p == nil {
		return
	}
	done := make(chan struct{})
	go func() { p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		go p.Shutdown()
	}
}

// Step is a long phase of unknown length: a spinner with the elapsed time on
// a terminal, a line when it ends otherwise.
type Step struct {
	u     *UI
	bar   *mpb.Bar
	name  string
	start time.Time
}

// Step starts a phase of unknown length.
func (u *UI) Step(name string) *Step {
	st := &Step{u: u, name: name, start: time.Now()}
	if !u.tty {
		return st
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.p == nil {
		u.p = mpb.New(mpb.WithOutput(u.w), mpb.WithWidth(32), mpb.WithRefreshRate(200*time.Millisecond))
	}
	label := name
	if u.width > 0 {
		label = fit(name, u.width-stepFixed) // the spinner and the elapsed time after it
	}
	u.bars++
	st.bar = u.p.New(0, mpb.SpinnerStyle(), mpb.BarWidth(1),
		mpb.PrependDecorators(decor.Name(label+" ")),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO)),
		mpb.BarRemoveOnComplete(),
	)
	return st
}

// stepFixed is a step's line besides its name: a blank, the spinner, a
// blank and the elapsed time, with a column to spare.
const stepFixed = 1 + 1 + 1 + 8 + 1

// Done ends the phase and logs how long it took.
func (st *Step) Done() {
	st.u.release(st.bar)
	if d := time.Since(st.start); d >= time.Second {
		st.u.Logf("%s: %.1f s", st.name, d.Seconds())
	}
}

// Download returns a writer that shows a download's progress (a bar with ETA
// on a terminal, a line per tenth otherwise) and a function that ends it.
func (u *UI) Download(total int64) (io.Writer, func()) {
	b := u.Phase("  downloading", total/1024, "KiB")
	w := &progressWriter{bar: b}
	return w, b.Done
}

type progressWriter struct {
	bar *Bar
	n   int64
}

func (w *progressWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.bar.Set(w.n/1024, "")
	return len(p), nil
}

// wrapIndented breaks s into lines of width columns at most, between words
// (a word too long for a line is broken), the lines after the first
// indented by indent blanks.
func wrapIndented(s string, width, indent int) string {
	size := text.RuneWidthWithoutEscSequences
	if size(s) <= width {
		return s
	}
	var lines []string
	cur, room := "", width
	// The blanks after the first word (the timestamp) stay as they are: a
	// cell's line is indented under its group's.
	if i := strings.IndexByte(s, ' '); i > 0 {
		j := i
		for j < len(s) && s[j] == ' ' {
			j++
		}
		if j < len(s) {
			cur, s = s[:j-1], s[j:]
		}
	}
	for _, w := range strings.Fields(s) {
		if cur != "" && size(cur)+1+size(w) <= room {
			cur += " " + w
			continue
		}
		if cur != "" {
			lines, cur, room = append(lines, cur), "", width-indent
		}
		for size(w) > room {
			r := []rune(w)
			lines, w, room = append(lines, string(r[:room])), string(r[room:]), width-indent
		}
		cur = w
	}
	lines = append(lines, cur)
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat(" ", indent) + lines[i]
	}
	return strings.Join(lines, "\n")
}

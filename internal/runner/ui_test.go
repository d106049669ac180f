package runner

import (
	"fmt"
	"testing"

	"github.com/jedib0t/go-pretty/v6/text"
)

// TestProgressLinesFitTheTerminal (issue 40): a phase's redrawn line —
// name, counters, bar, percentage, ETA and detail — never takes more than
// the terminal's columns, so the redraw never wraps onto the line above;
// a cut detail ends in "…".
func TestProgressLinesFitTheTerminal(t *testing.T) {
	name, counters := "  uuidv4:as=text: prefill", fmt.Sprintf("%d/%d rows", 500000, 500000)
	for width := 40; width <= 200; width += 7 {
		barW, detailMax := phaseLayout(width, name, counters)
		detail := fit("measuring 12015/24000 txns 12015 tps, p99 1.63 ms, and more words", detailMax)
		line := text.RuneWidthWithoutEscSequences(name) + 1 + text.RuneWidthWithoutEscSequences(counters) + phaseFixed + barW + 2 + text.RuneWidthWithoutEscSequences(detail)
		if width >= 80 && line > width {
			t.Errorf("width %d: a line of %d columns (bar %d, detail %d)", width, line, barW, detailMax)
		}
		if barW < phaseMinBar || barW > phaseMaxBar {
			t.Errorf("width %d: bar %d", width, barW)
		}
	}
	if got := fit("prefilled 500000 rows in 3.0 s", 12); got != "prefilled 5…" {
		t.Errorf("fit: %q", got)
	}
	if got := fit("short", 12); got != "short" {
		t.Errorf("fit: %q", got)
	}
}

// TestWrappedLinesKeepTheirIndent: a long progress line wrapped to the
// terminal keeps the blanks after its timestamp (a cell's line indented
// under its group's) and indents its continuation.
func TestWrappedLinesKeepTheirIndent(t *testing.T) {
	got := wrapIndented("07:45:43   uuidv4:as=text: 13105 tps on average, p99 2.08 ms, 39314 rows in 3.0 s", 40, 9)
	want := "07:45:43   uuidv4:as=text: 13105 tps on\n         average, p99 2.08 ms, 39314\n         rows in 3.0 s"
	if got != want {
		t.Errorf("wrapped:\n%s\nwant:\n%s", got, want)
	}
	if got := wrapIndented("07:45:43 short", 40, 9); got != "07:45:43 short" {
		t.Errorf("short line: %q", got)
	}
}

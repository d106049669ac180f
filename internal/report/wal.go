package report

import (
	"fmt"
	"strings"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/stats"
)

// walLine is a shape's WAL verdict on the first screen, where a key's WAL
// per transaction differs from the least's (the WAL family: its own
// tests, its own error rate): each such key's ratio with its interval,
// and what a day of it comes to at the rate the shape ran — the WAL every
// standby receives, every archive keeps and every point-in-time recovery
// replays, whatever the disk costs; "" where none differs.
func walLine(sh shape, paced bool) string {
	least := sh.group(sh.WALLeast)
	if least == nil {
		return ""
	}
	var more, day []string
	for _, g := range sh.Groups {
		v := g.WAL.Versus(least.Key)
		if v == nil || !v.Significant || v.Effect <= 1 {
			continue
		}
		more = append(more, g.Key+" "+stats.RatioText(v.Effect)+" "+v.IntervalText())
		day = append(day, g.Key+" "+results.Bytes(int64(g.WAL.Mean*sh.WALRate*86400)))
	}
	if len(more) == 0 {
		return ""
	}
	line := fmt.Sprintf("WAL a transaction over %s's (its own test): %s", least.Key, strings.Join(more, ", "))
	if paced { // a day at the rate every key ran
		return line + fmt.Sprintf("; a day at %s tps: %s, %s %s — what every standby receives, every archive keeps and every recovery replays.",
			results.Kilo(sh.WALRate), strings.Join(day, ", "), least.Key, results.Bytes(int64(least.WAL.Mean*sh.WALRate*86400)))
	}
	return line + " — what every standby receives, every archive keeps and every recovery replays (a day's at your rate: project --insert-rate)."
}

package runner

import (
	"strings"
	"testing"
)

func TestWrapIndented(t *testing.T) {
	line := "14:02:01 estimated time: about 5m10s (fill 50s, windows 3m57s, evidence 18s); results in keybench-results/war-20261123-140201"
	got := wrapIndented(line, 60, 9)
	lines := strings.Split(got, "\n")
	if len(lines) < 3 {
		t.Fatalf("not wrapped:\n%s", got)
	}
	for i, l := range lines {
		if len(l) > 60 {
			t.Errorf("line %d is %d long: %q", i, len(l), l)
		}
		if i > 0 && !strings.HasPrefix(l, strings.Repeat(" ", 9)) {
			t.Errorf("line %d not indented: %q", i, l)
		}
	}
	if strings.Join(strings.Fields(got), " ") != line {
		t.Errorf("words changed:\n%s", got)
	}
	if short := "14:02:01 done"; wrapIndented(short, 40, 9) != short {
		t.Error("a short line changed")
	}
	// A word longer than a line is broken, nothing lost.
	got = wrapIndented(line, 30, 9)
	for i, l := range strings.Split(got, "\n") {
		if len(l) > 30 {
			t.Errorf("at 30: line %d is %d long: %q", i, len(l), l)
		}
	}
	if strings.Join(strings.Fields(got), "") != strings.Join(strings.Fields(line), "") {
		t.Errorf("at 30, characters changed:\n%s", got)
	}
}

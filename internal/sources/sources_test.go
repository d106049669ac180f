package sources

import (
	"strings"
	"testing"
)

func TestCited(t *testing.T) {
	for _, c := range []struct {
		text string
		want string
	}{
		{"UUID Benchmark War (001): 10 clients", "001"},
		{"bulk loads (000, 003): 1M rows", "000 003"},
		{"000's table beside the model", "000"},
		{"--against 000", "000"},
		{"50,000 rows before; 1000 rows per batch; 0.003 s; 2004; 005", ""},
		{"004: the queue", "004"},
	} {
		var got []string
		for _, s := range Cited(c.text) {
			got = append(got, s.ID)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("Cited(%q) = %v, want %q", c.text, got, c.want)
		}
	}
}

func TestLegend(t *testing.T) {
	if l := Legend("no citation, 10,000 rows"); l != "" {
		t.Errorf("legend of a text citing nothing: %q", l)
	}
	l := Legend("war (001) and growth (000)")
	if !strings.HasPrefix(l, `Write-ups cited: 000: "postgresql unordered uuid performance test"`) || !strings.Contains(l, `001: "UUID Benchmark War"`) {
		t.Errorf("legend: %q", l)
	}
	for _, s := range All {
		if ByID(s.ID) == nil || s.Title == "" || s.What == "" {
			t.Errorf("source %s is not whole", s.ID)
		}
	}
}

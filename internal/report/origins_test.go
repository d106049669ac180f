package report

import (
	"strings"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

// TestTheAnswerSpeaksInFrameworks (issue 78): a run whose keys are
// frameworks' defaults says each key's frameworks with its work over the
// least's, on its first screen.
func TestTheAnswerSpeaksInFrameworks(t *testing.T) {
	r := readCost(t, "war-busy")
	r.Plan.Origins = []results.Origin{
		{Framework: "Prisma", Key: "uuidv4:as=text"}, {Framework: "TypeORM", Key: "uuidv4"},
		{Framework: "EF Core 9", Key: "uuidv7"}, {Framework: "Rails", Key: "bigint"},
	}
	var screen strings.Builder
	Brief(r).Write(&screen, 1000)
	text := screen.String()
	for _, want := range []string{"In frameworks", "Prisma (uuidv4:as=text): 1.3", "TypeORM (uuidv4): 1.3", "EF Core 9's default", "Rails (bigint): no difference found"} {
		if !strings.Contains(text, want) {
			t.Errorf("the first screen lacks %q:\n%s", want, text)
		}
	}
}

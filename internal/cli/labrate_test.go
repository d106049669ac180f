package cli

import (
	"slices"
	"testing"
)

// TestWithoutRate: the flat-out lab is the lab's command without its rate.
func TestWithoutRate(t *testing.T) {
	got := withoutRate([]string{"run", "insert", "--rows", "100", "-R", "300", "-c", "4", "--rate=5", "--keys", "uuidv4,bigint"})
	want := []string{"run", "insert", "--rows", "100", "-c", "4", "--keys", "uuidv4,bigint"}
	if !slices.Equal(got, want) {
		t.Errorf("%v, want %v", got, want)
	}
}

package metrics

import (
	"strings"
	"testing"
)

// Nothing outside the allow-list is recorded: in particular no setting
// that may hold a connection string.
func TestSettingsAllowListHoldsNoConnectionStrings(t *testing.T) {
	for _, n := range resultSettings {
		if strings.Contains(n, "conninfo") || strings.Contains(n, "password") || strings.Contains(n, "ssl") {
			t.Errorf("the allow-list records %s", n)
		}
	}
}

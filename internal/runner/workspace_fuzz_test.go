package runner

import "testing"

// FuzzExtensionsMark reads any schema comment: only names that can be
// extensions come out of it, since each becomes a DROP EXTENSION.
func FuzzExtensionsMark(f *testing.F) {
	f.Add(schemaMarker + extensionsMark + "pg_buffercache pgstattuple")
	f.Add(schemaMarker + extensionsMark + "x; DROP SCHEMA public CASCADE")
	f.Add("not keybench's")
	f.Fuzz(func(t *testing.T, comment string) {
		for _, e := range parseExtensionsMark(comment) {
			if !validExtensionName(e) || e == "" {
				t.Fatalf("%q from %q", e, comment)
			}
			for _, c := range e {
				if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
					t.Fatalf("%q from %q", e, comment)
				}
			}
		}
	})
}

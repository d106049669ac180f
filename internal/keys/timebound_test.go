package keys

import (
	"bytes"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

// TestTimeBoundsHoldEveryValue: for each time-ordered key and storage
// (every strategy that declares its Time: the test fails on one it leaves out),
// every value made at a time in [t_i, t_i+1) sorts within the bounds made
// from t_i and t_i+1 (as stored), and its decoded time is its clock's
// millisecond.
func TestTimeBoundsHoldEveryValue(t *testing.T) {
	base := time.Date(2026, 11, 25, 6, 0, 0, 0, time.UTC)
	for _, raw := range []string{"uuidv7", "uuidv7:as=text", "uuidv7:as=bytea", "ulid", "ulid:as=text", "ulid:as=bytea", "snowflake",
		"typeid", "typeid:as=uuid", "sonyflake", "objectid", "objectid:as=bytea", "xid", "xid:as=bytea", "ksuid", "ksuid:as=bytea"} {
		s, err := Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !s.HasTimeBound() {
			t.Fatalf("%s has no time bound", raw)
		}
		var bounds [][]byte
		for i := 0; i <= 4; i++ {
			b, err := s.TimeBound(base.Add(time.Duration(i) * time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			bounds = append(bounds, s.Encode(nil, b))
		}
		if !sort.SliceIsSorted(bounds, func(i, j int) bool { return bytes.Compare(bounds[i], bounds[j]) < 0 }) {
			t.Fatalf("%s: bounds out of order", raw)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 0; n < 2000; n++ {
			at := base.Add(time.Duration(rng.Int64N(int64(4 * time.Minute))))
			g := s.NewGeneratorAt(func() time.Time { return at })
			v := make([]byte, s.Strategy.Width)
			g.Stream().Next(v)
			unit := time.Millisecond
			switch s.Strategy.Name {
			case "sonyflake":
				unit = 10 * time.Millisecond
			case "objectid", "xid", "ksuid":
				unit = time.Second
			}
			if got, _ := s.TimeOf(v); !got.Equal(at.Truncate(unit)) {
				t.Fatalf("%s: made at %v, decodes to %v", raw, at, got)
			}
			i := int(at.Sub(base) / time.Minute)
			enc := s.Encode(nil, v)
			if bytes.Compare(enc, bounds[i]) < 0 || bytes.Compare(enc, bounds[i+1]) >= 0 {
				t.Fatalf("%s: %s made at %v outside [%s, %s)", raw, s.Format(v), at, bounds[i], bounds[i+1])
			}
		}
	}
	tested := map[string]bool{}
	for _, raw := range []string{"uuidv7", "ulid", "snowflake", "typeid", "sonyflake", "objectid", "xid", "ksuid"} {
		tested[raw] = true
	}
	for _, st := range All() {
		if st.Time != nil && !tested[st.Name] {
			t.Errorf("%s declares its time, and no value of it is checked against its bounds here", st.Name)
		}
	}
	for _, raw := range []string{"uuidv4", "bigint", "seq-uuid-time", "uuidv1"} {
		s, _ := Parse(raw)
		if _, err := s.TimeBound(base); err == nil || s.HasTimeBound() {
			t.Errorf("%s has a time bound", raw)
		}
	}
}

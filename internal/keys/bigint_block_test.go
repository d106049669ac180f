package keys

import (
	"encoding/binary"
	"testing"
)

// TestBlocksPerClient: bigint:block=50 is made in keybench's clients, each
// drawing 50 consecutive values at a time, the clients' blocks
// interleaved and every value made once; gen=server is refused.
func TestBlocksPerClient(t *testing.T) {
	s, err := Parse("bigint:block=50")
	if err != nil || s.Gen != GenClient {
		t.Fatalf("bigint:block=50: %v, gen %q", err, s.Gen)
	}
	if _, err := Parse("bigint:block=50:gen=server"); err == nil {
		t.Error("bigint:block=50:gen=server is accepted")
	}
	g := s.NewGenerator()
	a, b := g.Stream(), g.Stream()
	seen := map[uint64]bool{}
	var got [4]uint64
	buf := make([]byte, 8)
	for i := range 120 {
		for j, st := range []Stream{a, b} {
			st.Next(buf)
			v := binary.BigEndian.Uint64(buf)
			if seen[v] {
				t.Fatalf("%d made twice", v)
			}
			seen[v] = true
			if i == 0 || i == 50 {
				got[j+2*(i/50)] = v
			}
		}
	}
	if got != [4]uint64{1, 51, 101, 151} {
		t.Errorf("the blocks' first values %v, want a's 1 and 101, b's 51 and 151", got)
	}
}

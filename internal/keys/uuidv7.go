package keys

import (
	"fmt"
	"time"
)

func init() {
	Register(&Strategy{
		Name:     "uuidv7",
		Made:     "uuidv7() on PostgreSQL 18+; RFC 9562 generator in keybench otherwise",
		Ordering: "time-ordered, monotonic per generator",
		Storages: uuidStorages,
		Width:    16,
		Clock:    true,
		ServerDefault: func(s *Spec, sv Server) (string, error) {
			if sv.Major < 18 {
				return "", fmt.Errorf("PostgreSQL %d has no uuidv7() (added in 18)", sv.Major)
			}
			return uuidServerDefault(s, "uuidv7()"), nil
		},
		// PostgreSQL 18's uuidv7(shift) moves the timestamp by an interval.
		ServerAt: func(s *Spec, _ Server, epochSQL string) string {
			return uuidStored(s, fmt.Sprintf("uuidv7(make_interval(secs => (%s) - extract(epoch from clock_timestamp())))", epochSQL))
		},
		NewGenerator: func(_ *Spec, clock func() time.Time) Generator { return &v7Gen{clock: clock} },
	})
}

// v7Gen follows RFC 9562 section 6.2 method 3, as PostgreSQL 18's uuidv7()
// does: 48 bits of Unix milliseconds, then 12 bits of sub-millisecond
// fraction; the 60 bits together are kept strictly increasing across all
// workers, then 62 random bits.
type v7Gen struct {
	clock func() time.Time
	mono  monotonic
}

func (g *v7Gen) Stream() Stream { return &v7Stream{g: g, r: newRandBuf()} }

type v7Stream struct {
	g *v7Gen
	r *randBuf
}

func (s *v7Stream) Next(dst []byte) {
	ns := s.g.clock().UnixNano()
	ms := uint64(ns / 1e6)
	frac := uint64(ns%1e6) * 4096 / 1e6
	v := s.g.mono.next(ms<<12 | frac)
	ts := v >> 12
	dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = byte(ts>>40), byte(ts>>32), byte(ts>>24), byte(ts>>16), byte(ts>>8), byte(ts)
	sub := v & 0xfff
	dst[6] = 0x70 | byte(sub>>8)
	dst[7] = byte(sub)
	s.r.read(dst[8:16])
	dst[8] = dst[8]&0x3f | 0x80
}

package keys

import (
	"encoding/binary"
	"fmt"
	"sync"
	"time"
)

var uuidv7Strategy = &Strategy{
	Name:     "uuidv7",
	Made:     "uuidv7() on PostgreSQL 18+; RFC 9562 generator in keybench otherwise",
	Ordering: "time-ordered, monotonic per generator",
	Storages: uuidStorages,
	Width:    16,
	Clock:    true,
	Time:     uuidv7Time,
	TextParams: []TextParamDef{{Name: "method", Default: v7SubMS,
		Doc: "RFC 9562 section 6.2: subms (12 bits below the ms, PostgreSQL 18's), counter (a 42-bit counter within the ms), random (monotonic random: the random bits increased within the ms)",
		Check: func(v string) string {
			if v != v7SubMS && v != v7Counter && v != v7Random {
				return "must be subms, counter or random"
			}
			return ""
		}}},
	Server: v7Server{},
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		switch s.Text["method"] {
		case v7Counter:
			return &v7CounterGen{clock: clock}
		case v7Random:
			return &v7RandomGen{clock: clock}
		}
		return &v7Gen{clock: clock}
	}),
	FactsFor: func(s *Spec) Facts {
		switch s.Text["method"] {
		case v7Counter:
			return Facts{Sortable: SortableYes, Reveals: "creation time to the ms, and its place in that ms", RevealsTime: true, RandomBits: 32, PerUnit: time.Millisecond}
		case v7Random:
			return Facts{Sortable: SortableYes, Reveals: "creation time to the ms", RevealsTime: true, RandomBits: 74, PerUnit: time.Millisecond}
		}
		return Facts{Sortable: SortableYes, Reveals: "creation time to 0.25 µs", RevealsTime: true, RandomBits: 62, PerUnit: time.Millisecond / 4096}
	},
}

// v7Server is PostgreSQL 18's uuidv7().
type v7Server struct{}

func (v7Server) Default(s *Spec, sv Server) (string, error) {
	if m := s.Text["method"]; m != v7SubMS {
		return "", fmt.Errorf("PostgreSQL's uuidv7() keeps 12 bits below the ms (method=subms), not method=%s", m)
	}
	if sv.Major < 18 {
		return "", fmt.Errorf("PostgreSQL %d has no uuidv7() (added in 18)", sv.Major)
	}
	return uuidServerDefault(s, "pg_catalog.uuidv7()"), nil
}

// At: PostgreSQL 18's uuidv7(shift) moves the timestamp by an interval.
func (v7Server) At(s *Spec, _ Server, epochSQL string) string {
	return uuidStored(s, fmt.Sprintf("pg_catalog.uuidv7(pg_catalog.make_interval(secs => (%s) - extract(epoch from pg_catalog.clock_timestamp())))", epochSQL))
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

// uuidv7's methods of RFC 9562 section 6.2.
const (
	v7SubMS   = "subms"   // method 3: 12 bits of sub-millisecond time
	v7Counter = "counter" // method 1: a dedicated counter
	v7Random  = "random"  // method 2: monotonic random
)

// v7CounterGen follows RFC 9562 section 6.2 method 1 as CPython 3.14's
// uuid7() does: after the 48 bits of ms, a 42-bit counter (rand_a's 12
// bits and rand_b's first 30), seeded at random with its top bit clear in
// each new ms and incremented within it, then 32 random bits; a counter
// that overflows borrows the next ms.
type v7CounterGen struct {
	clock   func() time.Time
	mu      sync.Mutex
	lastMS  uint64
	counter uint64
}

func (g *v7CounterGen) Stream() Stream { return &v7CounterStream{g: g, r: newRandBuf()} }

type v7CounterStream struct {
	g *v7CounterGen
	r *randBuf
}

func (s *v7CounterStream) Next(dst []byte) {
	ms := uint64(s.g.clock().UnixMilli())
	s.r.read(dst[8:16])
	seed := binary.BigEndian.Uint64(dst[8:16]) >> 23 // 41 random bits: the counter's top bit clear
	g := s.g
	g.mu.Lock()
	switch {
	case ms > g.lastMS:
		g.lastMS, g.counter = ms, seed
	case g.counter+1 >= 1<<42:
		g.lastMS, g.counter = g.lastMS+1, seed
	default:
		g.counter++
	}
	ms, c := g.lastMS, g.counter
	g.mu.Unlock()
	putMS48(dst, int64(ms))
	dst[6] = 0x70 | byte(c>>38)
	dst[7] = byte(c >> 30)
	dst[8] = 0x80 | byte(c>>24)&0x3f
	dst[9], dst[10], dst[11] = byte(c>>16), byte(c>>8), byte(c)
	s.r.read(dst[12:16])
}

// v7RandomGen follows RFC 9562 section 6.2 method 2 (monotonic random):
// after the 48 bits of ms, 74 random bits, which a key made in the same ms
// as the last one increases by a random step instead.
type v7RandomGen struct {
	clock  func() time.Time
	mu     sync.Mutex
	lastMS uint64
	hi     uint16 // the 12 bits of rand_a
	lo     uint64 // the 62 bits of rand_b
}

func (g *v7RandomGen) Stream() Stream { return &v7RandomStream{g: g, r: newRandBuf()} }

type v7RandomStream struct {
	g *v7RandomGen
	r *randBuf
}

func (s *v7RandomStream) Next(dst []byte) {
	ms := uint64(s.g.clock().UnixMilli())
	var b [12]byte
	s.r.read(b[:])
	hi, lo := binary.BigEndian.Uint16(b[0:2])&0xfff, binary.BigEndian.Uint64(b[2:10])>>2
	step := uint64(binary.BigEndian.Uint16(b[10:12])) + 1
	g := s.g
	g.mu.Lock()
	if ms > g.lastMS {
		g.lastMS, g.hi, g.lo = ms, hi, lo
	} else {
		g.lo += step
		if g.lo >= 1<<62 {
			g.lo -= 1 << 62
			g.hi++
			if g.hi == 1<<12 { // 74 bits used up in one ms: borrow the next ms
				g.lastMS, g.hi, g.lo = g.lastMS+1, hi, lo
			}
		}
	}
	ms, hi, lo = g.lastMS, g.hi, g.lo
	g.mu.Unlock()
	putMS48(dst, int64(ms))
	dst[6], dst[7] = 0x70|byte(hi>>8), byte(hi)
	binary.BigEndian.PutUint64(dst[8:16], lo)
	dst[8] = dst[8]&0x3f | 0x80
}

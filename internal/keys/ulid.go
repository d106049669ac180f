package keys

import (
	"encoding/binary"
	"sync"
	"time"
)

var ulidStrategy = &Strategy{
	Name:     "ulid",
	Made:     "48-bit Unix ms + 80 random bits; monotonic=1 increments the random part within a millisecond",
	Ordering: "time-ordered (strictly increasing with monotonic=1)",
	Storages: []Storage{AsUUID, AsText, AsBytea},
	Params:   []ParamDef{{Name: "monotonic", Default: 1, Min: 0, Max: 1, Doc: "1: strictly increasing within a millisecond"}},
	Width:    16,
	Text:     fixedText{26, func(dst, raw []byte) []byte { return append(dst, ulidText(raw)...) }},
	Clock:    true,
	Time:     ms48Time, // 48-bit ms, then random
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		return &ulidGen{clock: clock, monotonic: s.Params["monotonic"] == 1}
	}),
	Facts: Facts{Sortable: SortableYes, Reveals: "creation time to the ms", RevealsTime: true, RandomBits: 80, PerUnit: time.Millisecond},
}

// ulidGen makes ULIDs. The monotonic variant shares the last value under a
// mutex: 128-bit state has no lock-free update, and monotonicity needs it.
type ulidGen struct {
	clock     func() time.Time
	monotonic bool
	mu        sync.Mutex
	lastMS    uint64
	lastHi    uint16 // random bits 79..64
	lastLo    uint64 // random bits 63..0
}

func (g *ulidGen) Stream() Stream { return &ulidStream{g: g, r: newRandBuf()} }

type ulidStream struct {
	g *ulidGen
	r *randBuf
}

func (s *ulidStream) Next(dst []byte) {
	ms := uint64(s.g.clock().UnixMilli())
	s.r.read(dst[6:16])
	if s.g.monotonic {
		g := s.g
		g.mu.Lock()
		if ms <= g.lastMS {
			ms = g.lastMS
			g.lastLo++
			if g.lastLo == 0 {
				g.lastHi++
				if g.lastHi == 0 { // 80 random bits exhausted in one ms: borrow the next ms
					ms++
				}
			}
		} else {
			g.lastHi = binary.BigEndian.Uint16(dst[6:8])
			g.lastLo = binary.BigEndian.Uint64(dst[8:16])
		}
		g.lastMS = ms
		binary.BigEndian.PutUint16(dst[6:8], g.lastHi)
		binary.BigEndian.PutUint64(dst[8:16], g.lastLo)
		g.mu.Unlock()
	}
	dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// ulidText renders 128 bits as ULID's 26 Crockford base32 characters.
func ulidText(u []byte) string {
	hi := binary.BigEndian.Uint64(u[0:8])
	lo := binary.BigEndian.Uint64(u[8:16])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

package keys

import (
	"sync/atomic"
	"time"
)

// spacingParam lets v1 and v6 keys stand for keys made over a longer span
// than the run: 003's table was loaded from history, and raw v1's order
// only shows once its timestamps span more than time_low's ~7.2 minutes.
var spacingParam = ParamDef{Name: "spacing", Default: 0, Min: 0, Max: 3_600_000_000,
	Doc: "0: timestamps from the clock; N: each key's timestamp N µs after the previous one (keys made over a longer span than the run)"}

var uuidv1Strategy = gregorian("uuidv1", "RFC 9562 version 1: 60-bit 100ns timestamp split time_low|time_mid|time_hi, clock sequence, random node",
	"poor: time_low leads and wraps every ~7 minutes", putV1)

// gregorian is the strategy of a uuid of RFC 9562's Gregorian timestamp
// (versions 1 and 6), whose layout put writes.
func gregorian(name, made, ordering string, put func(dst []byte, ts uint64, seq uint16, node *[6]byte)) *Strategy {
	sortable := SortableYes
	if name == "uuidv1" {
		sortable = "no (time_low first)"
	}
	return &Strategy{Name: name, Made: made, Ordering: ordering, Storages: uuidStorages, Params: []ParamDef{spacingParam}, Width: 16, Clock: true,
		Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator { return newGregorianGen(s, clock, put) }),
		Facts: Facts{Sortable: sortable, Reveals: "creation time to 100 ns, and its node", RevealsTime: true,
			Unique: "its timestamp and clock sequence: unique on one node"}}
}

// gregorianOffset is the number of 100ns intervals from 1582-10-15 to 1970-01-01.
const gregorianOffset = 0x01B21DD213814000

// gregorianGen is the shared state of the v1 and v6 generators: a strictly
// increasing 100ns timestamp, and a clock sequence and node chosen once per
// generator (RFC 9562 allows a random node with the multicast bit set).
// With spacing, the timestamps start at the clock and step by spacing.
type gregorianGen struct {
	clock   func() time.Time
	mono    monotonic
	seq     uint16
	node    [6]byte
	put     func(dst []byte, ts uint64, seq uint16, node *[6]byte)
	start   uint64
	step    uint64 // 100ns units per key; 0: the clock
	counter atomic.Uint64
}

func newGregorianGen(s *Spec, clock func() time.Time, put func([]byte, uint64, uint16, *[6]byte)) *gregorianGen {
	g := &gregorianGen{clock: clock, put: put}
	if sp := s.Params["spacing"]; sp > 0 {
		g.step, g.start = uint64(sp)*10, uint64(clock().UnixNano()/100)+gregorianOffset
	}
	r := newRandBuf()
	var b [8]byte
	r.read(b[:])
	g.seq = (uint16(b[0])<<8 | uint16(b[1])) & 0x3fff
	copy(g.node[:], b[2:8])
	g.node[0] |= 0x01
	return g
}

func (g *gregorianGen) Stream() Stream { return g }

func (g *gregorianGen) Next(dst []byte) {
	var ts uint64
	if g.step > 0 {
		ts = g.start + (g.counter.Add(1)-1)*g.step
	} else {
		ts = g.mono.next(uint64(g.clock().UnixNano()/100) + gregorianOffset)
	}
	g.put(dst, ts, g.seq, &g.node)
}

func putClockSeqNode(dst []byte, seq uint16, node *[6]byte) {
	dst[8] = byte(seq>>8)&0x3f | 0x80
	dst[9] = byte(seq)
	copy(dst[10:16], node[:])
}

func putV1(dst []byte, ts uint64, seq uint16, node *[6]byte) {
	tl, tm, th := uint32(ts), uint16(ts>>32), uint16(ts>>48)&0x0fff|0x1000
	dst[0], dst[1], dst[2], dst[3] = byte(tl>>24), byte(tl>>16), byte(tl>>8), byte(tl)
	dst[4], dst[5] = byte(tm>>8), byte(tm)
	dst[6], dst[7] = byte(th>>8), byte(th)
	putClockSeqNode(dst, seq, node)
}

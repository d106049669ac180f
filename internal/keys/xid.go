package keys

import (
	"encoding/binary"
	"time"
)

var xidStrategy = &Strategy{
	Name:     "xid",
	Made:     "xid (rs/xid): 32-bit Unix seconds, 24-bit machine id, 16-bit process id, 24-bit counter; text: 20 base32hex characters",
	Ordering: "time-ordered to the second; in counter order within it for one process",
	Storages: []Storage{AsText, AsBytea},
	Params: []ParamDef{{Name: "machine", Default: 1, Min: 0, Max: 1<<24 - 1, Doc: "24-bit machine id"},
		{Name: "pid", Default: 1, Min: 0, Max: 1<<16 - 1, Doc: "16-bit process id"}},
	Width: 12,
	Text:  fixedText{20, appendBase32Hex},
	Clock: true,
	Time:  secondsTime(0), // 32-bit Unix seconds first; its base32hex text sorts as its bytes
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		g := &xidGen{clock: clock, machine: uint32(s.Params["machine"]), pid: uint16(s.Params["pid"])}
		g.counter.seed()
		return g
	}),
	Facts: Facts{Sortable: SortablePerNode, Reveals: "creation time to the second, machine, process", RevealsTime: true, RandomBits: 0,
		Unique: "a 24-bit counter per process: unique within a process up to 16.7M keys a second"},
}

type xidGen struct {
	clock   func() time.Time
	machine uint32
	pid     uint16
	counter counter24
}

func (g *xidGen) Stream() Stream { return g }

func (g *xidGen) Next(dst []byte) {
	binary.BigEndian.PutUint32(dst, uint32(g.clock().Unix()))
	dst[4], dst[5], dst[6] = byte(g.machine>>16), byte(g.machine>>8), byte(g.machine)
	binary.BigEndian.PutUint16(dst[7:9], g.pid)
	g.counter.put(dst[9:12])
}

const base32Hex = "0123456789abcdefghijklmnopqrstuv"

// appendBase32Hex appends raw's bits five at a time, the last group padded
// with zero bits (xid's 12 bytes in 20 characters).
func appendBase32Hex(dst, raw []byte) []byte {
	var acc uint32
	bits := 0
	for _, b := range raw {
		acc, bits = acc<<8|uint32(b), bits+8
		for bits >= 5 {
			bits -= 5
			dst = append(dst, base32Hex[(acc>>bits)&31])
		}
	}
	if bits > 0 {
		dst = append(dst, base32Hex[(acc<<(5-bits))&31])
	}
	return dst
}

package keys

import (
	"encoding/binary"
	"time"
)

// sonyflakeEpoch is Sonyflake's default start time, 2014-09-01T00:00:00Z, in Unix milliseconds.
const sonyflakeEpoch = 1409529600000

var sonyflakeStrategy = &Strategy{
	Name:     "sonyflake",
	Made:     "Sonyflake: 39-bit time in 10 ms units since 2014-09-01, 8-bit sequence, 16-bit machine id",
	Ordering: "time-ordered (to 10 ms, in sequence order within it)",
	Storages: []Storage{AsBigint},
	Params:   []ParamDef{{Name: "machine", Default: 1, Min: 0, Max: 1<<16 - 1, Doc: "16-bit machine id"}},
	Width:    8,
	Clock:    true,
	Time: &TimeLayout{
		// 39 bits of 10 ms since Sonyflake's epoch above 24 bits of
		// sequence and machine: the unit that holds the ms.
		Bound: func(ms int64, dst []byte) { binary.BigEndian.PutUint64(dst, uint64((ms-sonyflakeEpoch)/10)<<24) },
		Of: func(raw []byte) time.Time {
			return time.UnixMilli(int64(binary.BigEndian.Uint64(raw)>>24)*10 + sonyflakeEpoch)
		},
	},
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		return &sonyflakeGen{clock: clock, machine: uint64(s.Params["machine"])}
	}),
	Facts: Facts{Sortable: SortablePerNode, Reveals: "creation time to 10 ms, machine, sequence", RevealsTime: true, RandomBits: 0,
		Unique: "an 8-bit sequence per machine: unique on one machine up to 25,600 keys a second (more wait for the next 10 ms)"},
}

// sonyflakeGen keeps (time<<8 | sequence) strictly increasing across
// workers; a sequence overflow in one 10 ms unit borrows the next.
type sonyflakeGen struct {
	clock   func() time.Time
	machine uint64
	mono    monotonic
}

func (g *sonyflakeGen) Stream() Stream { return g }

func (g *sonyflakeGen) Next(dst []byte) {
	v := g.mono.next(uint64(g.clock().UnixMilli()-sonyflakeEpoch) / 10 << 8)
	binary.BigEndian.PutUint64(dst, v<<16|g.machine)
}

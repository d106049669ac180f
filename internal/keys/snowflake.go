package keys

import (
	"encoding/binary"
	"time"
)

// snowflakeEpoch is Twitter's epoch (2010-11-04T01:42:54.657Z) in Unix milliseconds.
const snowflakeEpoch = 1288834974657

var snowflakeStrategy = &Strategy{
	Name:     "snowflake",
	Made:     "41-bit ms since 2010-11-04 (Twitter's epoch), 10-bit node, 12-bit sequence",
	Ordering: "time-ordered",
	Storages: []Storage{AsBigint},
	Params:   []ParamDef{{Name: "node", Default: 1, Min: 0, Max: 1023, Doc: "10-bit node id"}},
	Width:    8,
	Clock:    true,
	Time: &TimeLayout{
		// 41-bit ms since Twitter's epoch above 22 bits of node and sequence.
		Bound: func(ms int64, dst []byte) { binary.BigEndian.PutUint64(dst, uint64(ms-snowflakeEpoch)<<22) },
		Of: func(raw []byte) time.Time {
			return time.UnixMilli(int64(binary.BigEndian.Uint64(raw)>>22) + snowflakeEpoch)
		},
	},
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		return &snowflakeGen{clock: clock, node: uint64(s.Params["node"])}
	}),
	Facts: Facts{Sortable: SortablePerNode, Reveals: "creation time to the ms, node, sequence", RevealsTime: true,
		Unique: "a 12-bit sequence per node: unique on one node up to 4,096 keys a ms"},
}

// snowflakeGen keeps (ms<<12 | sequence) strictly increasing across workers;
// a sequence overflow within one millisecond borrows the next millisecond.
type snowflakeGen struct {
	clock func() time.Time
	node  uint64
	mono  monotonic
}

func (g *snowflakeGen) Stream() Stream { return g }

func (g *snowflakeGen) Next(dst []byte) {
	v := g.mono.next(uint64(g.clock().UnixMilli()-snowflakeEpoch) << 12)
	binary.BigEndian.PutUint64(dst, (v>>12)<<22|g.node<<12|v&0xfff)
}

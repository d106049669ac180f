package keys

import (
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

func init() {
	Register(&Strategy{
		Name:     "objectid",
		Made:     "MongoDB ObjectId: 32-bit Unix seconds, 40 random bits per process, 24-bit counter; text: 24 hex digits",
		Ordering: "time-ordered to the second; in counter order within it for one process",
		Storages: []Storage{AsText, AsBytea},
		Width:    12,
		TextForm: func(_ *Spec, dst, raw []byte) []byte { return hex.AppendEncode(dst, raw) },
		TextLen:  24,
		Clock:    true,
		NewGenerator: func(_ *Spec, clock func() time.Time) Generator {
			g := &objectIDGen{clock: clock}
			var seed [8]byte
			newRandBuf().read(seed[:])
			copy(g.process[:], seed[:5])
			g.counter.Store(uint32(seed[5])<<16 | uint32(seed[6])<<8 | uint32(seed[7]))
			return g
		},
		Facts: Facts{Sortable: SortablePerNode, Reveals: "creation time to the second, and its process", RandomBits: 40,
			Unique: "a 24-bit counter per process: unique within a process up to 16.7M keys a second"},
	})
}

// objectIDGen is one process's ObjectIds: the process's random bytes and
// one counter shared by every worker, as a MongoDB driver keeps them.
type objectIDGen struct {
	clock   func() time.Time
	process [5]byte
	counter atomic.Uint32
}

func (g *objectIDGen) Stream() Stream { return g }

func (g *objectIDGen) Next(dst []byte) {
	binary.BigEndian.PutUint32(dst, uint32(g.clock().Unix()))
	copy(dst[4:9], g.process[:])
	c := g.counter.Add(1)
	dst[9], dst[10], dst[11] = byte(c>>16), byte(c>>8), byte(c)
}

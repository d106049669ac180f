package keys

import (
	"encoding/binary"
	"encoding/hex"
	"sync/atomic"
	"time"
)

var objectIDStrategy = &Strategy{
	Name:     "objectid",
	Made:     "MongoDB ObjectId: 32-bit Unix seconds, 40 random bits per process, 24-bit counter; text: 24 hex digits",
	Ordering: "time-ordered to the second; in counter order within it for one process",
	Storages: []Storage{AsText, AsBytea},
	Width:    12,
	Text:     fixedText{24, hex.AppendEncode},
	Clock:    true,
	Time:     secondsTime(0), // 32-bit Unix seconds first; its hex text sorts as its bytes
	Client: GeneratorFunc(func(_ *Spec, clock func() time.Time) Generator {
		g := &objectIDGen{clock: clock}
		newRandBuf().read(g.process[:])
		g.counter.seed()
		return g
	}),
	Facts: Facts{Sortable: SortablePerNode, Reveals: "creation time to the second, and its process", RevealsTime: true, RandomBits: 40,
		Unique: "a 24-bit counter per process: unique within a process up to 16.7M keys a second"},
}

// objectIDGen is one process's ObjectIds: the process's random bytes and
// one counter shared by every worker, as a MongoDB driver keeps them.
type objectIDGen struct {
	clock   func() time.Time
	process [5]byte
	counter counter24
}

func (g *objectIDGen) Stream() Stream { return g }

func (g *objectIDGen) Next(dst []byte) {
	binary.BigEndian.PutUint32(dst, uint32(g.clock().Unix()))
	copy(dst[4:9], g.process[:])
	g.counter.put(dst[9:12])
}

// counter24 is a process's 24-bit counter, seeded at random and shared by
// its workers: an ObjectId's and an xid's last three bytes.
type counter24 struct{ n atomic.Uint32 }

func (c *counter24) seed() {
	var b [3]byte
	newRandBuf().read(b[:])
	c.n.Store(uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2]))
}

// put writes the counter's next value, big-endian, into dst's three bytes.
func (c *counter24) put(dst []byte) {
	v := c.n.Add(1)
	dst[0], dst[1], dst[2] = byte(v>>16), byte(v>>8), byte(v)
}

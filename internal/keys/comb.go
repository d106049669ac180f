package keys

import "time"

var combStrategy = &Strategy{
	Name:     "comb",
	Made:     "COMB / sequential GUID: 10 random bytes, then 48-bit Unix ms in the last 6 bytes (SQL Server order)",
	Ordering: "random under PostgreSQL's byte order (SQL Server sorts the last bytes first)",
	Storages: uuidStorages,
	Width:    16,
	Clock:    true,
	Client: GeneratorFunc(func(_ *Spec, clock func() time.Time) Generator {
		return combGen{clock: clock}
	}),
	Facts: Facts{Sortable: "no (under PostgreSQL's byte order)", Reveals: "creation time to the ms", RevealsTime: true, RandomBits: 74, PerUnit: time.Millisecond},
}

type combGen struct{ clock func() time.Time }

func (g combGen) Stream() Stream { return &combStream{clock: g.clock, r: newRandBuf()} }

type combStream struct {
	clock func() time.Time
	r     *randBuf
}

func (s *combStream) Next(dst []byte) {
	s.r.read(dst[:10])
	setVersion(dst, 4)
	ms := uint64(s.clock().UnixMilli())
	dst[10], dst[11], dst[12], dst[13], dst[14], dst[15] = byte(ms>>40), byte(ms>>32), byte(ms>>24), byte(ms>>16), byte(ms>>8), byte(ms)
}

package keys

import (
	"fmt"
	"time"

	"github.com/keybench/keybench/internal/workspace"
)

var seqUUIDTimeStrategy = seqUUID(Strategy{
	Name:     "seq-uuid-time",
	Made:     "sequential-uuids' uuid_time_nextval: prefix = (unix seconds / interval) mod count, rest random",
	Ordering: "block-ordered (a new block every interval seconds), wraps after interval*count seconds",
	Params:   []ParamDef{{Name: "interval", Default: 60, Min: 1, Max: 1<<31 - 1, Doc: "seconds per block"}},
	Clock:    true,
	Server:   seqTimeServer{},
	Client: GeneratorFunc(func(s *Spec, clock func() time.Time) Generator {
		return &seqTimeGen{clock: clock, interval: s.Params["interval"], count: s.Params["count"]}
	}),
})

// seqTimeServer makes the values with sequential-uuids' function of the
// time.
type seqTimeServer struct{}

func (seqTimeServer) Setup(_ *Spec, sv Server) []workspace.Object {
	return []workspace.Object{seqUUIDFunction(sv.Schema)}
}

func (seqTimeServer) Default(s *Spec, sv Server) (string, error) {
	return uuidServerDefault(s, fmt.Sprintf("%s.%s(pg_catalog.floor(extract(epoch from pg_catalog.clock_timestamp()))::pg_catalog.int8, %d, %d)",
		sv.Schema, SeqUUIDFunction, s.Params["interval"], s.Params["count"])), nil
}

func (seqTimeServer) At(s *Spec, sv Server, epochSQL string) string {
	return uuidStored(s, fmt.Sprintf("%s.%s(pg_catalog.floor(%s)::pg_catalog.int8, %d, %d)", sv.Schema, SeqUUIDFunction, epochSQL, s.Params["interval"], s.Params["count"]))
}

type seqTimeGen struct {
	clock           func() time.Time
	interval, count int64
}

func (g *seqTimeGen) Stream() Stream { return &seqTimeStream{g: g, r: newRandBuf()} }

type seqTimeStream struct {
	g *seqTimeGen
	r *randBuf
}

func (s *seqTimeStream) Next(dst []byte) {
	putSeqUUID(dst, s.r, s.g.clock().Unix(), s.g.interval, s.g.count)
}

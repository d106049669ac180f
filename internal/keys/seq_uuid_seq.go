package keys

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/keybench/keybench/internal/workspace"
)

var seqUUIDSeqStrategy = seqUUID(Strategy{
	Name:     "seq-uuid-seq",
	Made:     "sequential-uuids' uuid_sequence_nextval: prefix = ((nextval-1) / block) mod count, rest random",
	Ordering: "block-ordered (a new block every block values), wraps after block*count values",
	Params:   []ParamDef{{Name: "block", Default: 65536, Min: 1, Max: 1<<31 - 1, Doc: "values per block"}},
	Server:   seqSeqServer{},
	Client: GeneratorFunc(func(s *Spec, _ func() time.Time) Generator {
		return &seqSeqGen{block: s.Params["block"], count: s.Params["count"]}
	}),
})

// seqSeqServer makes the values with sequential-uuids' function over a
// sequence of the table's own.
type seqSeqServer struct{}

func (seqSeqServer) Setup(_ *Spec, sv Server) []workspace.Object {
	seq := sv.Table + SequenceSuffix
	return []workspace.Object{seqUUIDFunction(sv.Schema), {Kind: workspace.Sequence, Name: seq, SQL: []string{"CREATE SEQUENCE " + sv.Schema + "." + seq}}}
}

func (seqSeqServer) Default(s *Spec, sv Server) (string, error) {
	return uuidServerDefault(s, fmt.Sprintf("%s.%s(pg_catalog.nextval('%s%s') - 1, %d, %d)",
		sv.Schema, SeqUUIDFunction, sv.Qualified(), SequenceSuffix, s.Params["block"], s.Params["count"])), nil
}

func (seqSeqServer) State(_ *Spec, sv Server, rows int64) []string {
	return []string{fmt.Sprintf("SELECT pg_catalog.setval('%s%s', %d)", strings.ReplaceAll(sv.Qualified(), "'", "''"), SequenceSuffix, rows)}
}

// seqSeqGen keeps the sequence in keybench: one counter shared by all workers.
type seqSeqGen struct {
	n            atomic.Int64
	block, count int64
}

func (g *seqSeqGen) Stream() Stream { return &seqSeqStream{g: g, r: newRandBuf()} }

type seqSeqStream struct {
	g *seqSeqGen
	r *randBuf
}

func (s *seqSeqStream) Next(dst []byte) {
	putSeqUUID(dst, s.r, s.g.n.Add(1)-1, s.g.block, s.g.count)
}

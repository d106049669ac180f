package keys

import (
	"strings"

	"github.com/keybench/keybench/internal/workspace"
)

// seqPrefix computes the block prefix of the sequential-uuids extension's
// generators: the smallest whole number of bytes able to number count blocks,
// the block size recomputed so that one wrap of the prefix still spans
// block*count values, and the prefix of val.
func seqPrefix(val, block, count int64) (prefix uint64, nbytes int) {
	nbytes = 1
	capacity := uint64(256)
	for capacity < uint64(count) {
		capacity <<= 8
		nbytes++
	}
	eff := max(uint64(block)*uint64(count)/capacity, 1)
	return (uint64(val) / eff) % capacity, nbytes
}

// putSeqUUID writes a version-4 uuid whose first bytes are the big-endian block prefix of val.
func putSeqUUID(dst []byte, r *randBuf, val, block, count int64) {
	r.read(dst[:16])
	p, n := seqPrefix(val, block, count)
	for i := 0; i < n; i++ {
		dst[n-1-i] = byte(p >> (8 * i))
	}
	setVersion(dst, 4)
}

// seqUUID completes the strategy of a sequential-uuids generator (by
// sequence or by time): both are uuids made by keybench unless asked
// otherwise, and take, after their own block parameter, the count of
// blocks before the prefix wraps.
func seqUUID(s Strategy) *Strategy {
	s.Storages, s.Width, s.DefaultGen = uuidStorages, 16, GenClient
	s.Params = append(s.Params, ParamDef{Name: "count", Default: 65536, Min: 1, Max: 1 << 32, Doc: "blocks before the prefix wraps"})
	reveals := "the block of rows it was made in (a count, modulo the wrap)"
	if s.Clock {
		reveals = "creation time to its block (modulo the wrap)"
	}
	s.FactsFor = func(sp *Spec) Facts {
		prefix := 1
		for c := int64(256); c < sp.Params["count"]; c *= 256 {
			prefix++
		}
		// The random bits are counted against every key: keys of one
		// block share its prefix, and a wrapped prefix is shared again.
		return Facts{Sortable: "by block, wrapping", Reveals: reveals, RandomBits: 122 - 8*prefix}
	}
	return &s
}

// The objects keys make in keybench's schema, besides the table's column:
// the sequential-uuid function, and a sequence per table named
// <table>SequenceSuffix.
const (
	SeqUUIDFunction = "kb_seq_uuid"
	SequenceSuffix  = "_kbseq"
)

// SeqUUIDArgs are the argument types of SeqUUIDFunction.
const SeqUUIDArgs = "bigint, bigint, bigint"

// seqUUIDFunction is the server-side twin of seqPrefix/putSeqUUID, in PL/pgSQL
// because the sequential-uuids extension is not part of PostgreSQL.
func seqUUIDFunction(schema string) workspace.Object {
	return workspace.Object{Kind: workspace.Function, Name: SeqUUIDFunction, Args: SeqUUIDArgs, SQL: []string{seqUUIDFunctionSQL(schema)}}
}

func seqUUIDFunctionSQL(schema string) string {
	return strings.ReplaceAll(`CREATE FUNCTION @.`+SeqUUIDFunction+`(val bigint, block_size bigint, block_count bigint)
RETURNS uuid LANGUAGE plpgsql VOLATILE AS $f$
DECLARE
  nbytes int := 1;
  cap numeric := 256;
  eff bigint;
  p bigint;
  b bytea := pg_catalog.uuid_send(pg_catalog.gen_random_uuid());
BEGIN
  WHILE cap < block_count LOOP cap := cap * 256; nbytes := nbytes + 1; END LOOP;
  eff := greatest(1, pg_catalog.div(block_size::numeric * block_count, cap)::bigint);
  p := pg_catalog.mod(pg_catalog.div(val, eff), cap)::bigint;
  FOR i IN 0..nbytes-1 LOOP
    b := pg_catalog.set_byte(b, nbytes-1-i, ((p >> (8*i)) & 255)::int);
  END LOOP;
  b := pg_catalog.set_byte(b, 6, (pg_catalog.get_byte(b, 6) & 15) | 64);
  b := pg_catalog.set_byte(b, 8, (pg_catalog.get_byte(b, 8) & 63) | 128);
  RETURN pg_catalog.encode(b, 'hex')::uuid;
END $f$`, "@", schema)
}

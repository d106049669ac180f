package workload

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
)

// PrefillChunk is how many rows one prefill statement loads; progress is reported per chunk.
const PrefillChunk = 100_000

// Prefill loads rows rows into the (index-less) table by the fastest path for
// the key: INSERT ... SELECT generate_series when the server makes the keys,
// binary COPY when keybench does. progress is called after each chunk with
// the rows loaded so far.
func Prefill(ctx context.Context, conn *pgx.Conn, t *Table, gen keys.Generator, rows int64, progress func(int64)) error {
	for lo := int64(1); lo <= rows; lo += PrefillChunk {
		hi := min(lo+PrefillChunk-1, rows)
		var err error
		if t.Key.Gen == keys.GenServer {
			_, err = conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (data, payload) SELECT %s, %s FROM generate_series(%d::bigint, %d) i",
				t.Qualified(), dataValueSQL(rows), payloadSQL(t.Payload), lo, hi))
		} else {
			src := &copySource{t: t, stream: gen.Stream(), i: lo - 1, hi: hi, n: rows, raw: make([]byte, t.Key.Strategy.Width)}
			_, err = conn.CopyFrom(ctx, pgx.Identifier{t.Schema, t.Name}, []string{"id", "data", "payload"}, src)
		}
		if err != nil {
			return fmt.Errorf("prefill rows %d-%d: %w", lo, hi, err)
		}
		if progress != nil {
			progress(hi)
		}
	}
	return nil
}

// copySource feeds COPY with rows lo..hi, keys from the cell's generator.
type copySource struct {
	t      *Table
	stream keys.Stream
	i, hi  int64
	n      int64
	raw    []byte
	row    [3]any
}

func (s *copySource) Next() bool {
	if s.i >= s.hi {
		return false
	}
	s.i++
	s.stream.Next(s.raw)
	s.row[0] = s.t.Key.Value(s.raw)
	s.row[1] = DataValue(s.i, s.n)
	s.row[2] = payloadValue(s.i, s.t.Payload)
	return true
}

func (s *copySource) Values() ([]any, error) { return s.row[:], nil }
func (s *copySource) Err() error             { return nil }

// payloadValue is payloadSQL computed on the client, so both prefill paths store the same rows.
func payloadValue(i int64, n int) any {
	if n <= 0 {
		return nil
	}
	sum := md5.Sum([]byte(strconv.FormatInt(i, 10)))
	h := hex.EncodeToString(sum[:])
	out := make([]byte, 0, n)
	for len(out) < n {
		out = append(out, h...)
	}
	return string(out[:n])
}

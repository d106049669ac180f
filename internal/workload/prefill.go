package workload

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
)

// PrefillChunk is how many rows one prefill statement loads; progress is reported per chunk.
const PrefillChunk = 100_000

// Load methods for client-made keys.
const (
	LoadCopy   = "copy"   // binary COPY through pgx
	LoadInsert = "insert" // multi-row INSERT statements of insertBatch rows
)

// insertBatch is the rows per statement of the multi-row INSERT load method.
const insertBatch = 1000

// Chunk is one timed chunk of a load (a results type).
type Chunk = results.Chunk

// HistoryRowsPerS is the rate of the history a prefilled table stands for
// when its keys depend on the clock: about the single-row insert rate 000
// measured for its sequence (1,169-1,278 tps). A prefill of N rows is made
// as if inserted over N / HistoryRowsPerS seconds ending when the prefill
// starts, so the window's keys follow a history, as in a real table: a
// sequential uuid's new rows go to the current time block's small region,
// not at random among the prefill's keys made in the same minute.
const HistoryRowsPerS = 1000

// History is the span of time a prefill stands for: row i (1-based) of
// Rows is made at Start + (i-1)/RowsPerS. It is set when the keyed table is
// made (KeyedTable), so that what depends on the rows' times — the bounds
// of partitions by time, the created_at column, a range query's window —
// reads the same history as the prefill's keys.
type History struct {
	Start    time.Time
	RowsPerS float64
	Rows     int64
	n        atomic.Int64
}

// NewHistory is the history of rows rows ending at end, over span (0: at
// HistoryRowsPerS).
func NewHistory(rows int64, span time.Duration, end time.Time) *History {
	rate := float64(HistoryRowsPerS)
	if span > 0 && rows > 0 {
		rate = float64(rows) / span.Seconds()
	}
	h := &History{RowsPerS: rate, Rows: rows}
	h.Start = end.Add(-h.Span())
	return h
}

// Span is the history's length.
func (h *History) Span() time.Duration {
	return time.Duration(float64(h.Rows) / h.RowsPerS * float64(time.Second))
}

// End is when the history ends: its last row's time, and a bit.
func (h *History) End() time.Time { return h.Start.Add(h.Span()) }

// Clock is a clock for a client generator that advances one row's time
// with each reading: generators read the clock once per value.
func (h *History) Clock() func() time.Time {
	return func() time.Time {
		i := h.n.Add(1) - 1
		return h.Start.Add(time.Duration(float64(i) / h.RowsPerS * float64(time.Second)))
	}
}

// At is row i's time (1-based), the time a history clock reads the i-th time.
func (h *History) At(i int64) time.Time {
	return h.Start.Add(time.Duration(float64(i-1) / h.RowsPerS * float64(time.Second)))
}

// RowAt is the first row made at or after t (1-based; Rows+1 when none
// is): a counter key's value at t.
func (h *History) RowAt(t time.Time) int64 {
	i := int64(math.Ceil(t.Sub(h.Start).Seconds()*h.RowsPerS)) + 1
	for i > 1 && !h.At(i-1).Before(t) { // rounding: the row before is made before t
		i--
	}
	for i <= h.Rows && h.At(i).Before(t) {
		i++
	}
	return min(max(i, 1), h.Rows+1)
}

// epochSQL is the Unix time (seconds) of row i of a generate_series column named i.
func (h *History) epochSQL() string {
	return fmt.Sprintf("(%.6f + (i - 1) / %g::float8)", float64(h.Start.UnixMicro())/1e6, h.RowsPerS)
}

// PrefillMethod names how Prefill loads the table: "copy" of the values
// keybench's generator makes (those the server would make, when it makes
// them: see keys.Resolved.FillGenerator), "insert-select" when only the
// server can make them.
func PrefillMethod(t *Table) string {
	if t.Key.Gen == keys.GenServer && t.Key.Strategy.Client == nil {
		return "insert-select"
	}
	return LoadCopy
}

// Prefill loads rows rows into the (index-less) table by the fastest path for
// the key: binary COPY of keys from gen (the server's state moved past
// them after, when it makes the keys: after), INSERT ... SELECT
// generate_series when only the server can make them (gen is nil).
// progress is called after each chunk of PrefillChunk rows with the rows
// loaded so far.
func Prefill(ctx context.Context, conn *pgx.Conn, t *Table, gen keys.Generator, after []string, rows int64, progress func(int64)) error {
	var stream keys.Stream
	if gen != nil {
		stream = gen.Stream()
	}
	for lo := int64(1); lo <= rows; lo += PrefillChunk {
		hi := min(lo+PrefillChunk-1, rows)
		if err := LoadChunk(ctx, conn, t, stream, lo, hi, rows, LoadCopy); err != nil {
			return err
		}
		if progress != nil {
			progress(hi)
		}
	}
	for _, q := range after {
		if _, err := conn.Exec(ctx, q); err != nil {
			return fmt.Errorf("after the prefill: %w", err)
		}
	}
	return nil
}

// LoadChunk loads rows lo..hi of rows: INSERT ... SELECT when the server
// makes the keys (stream is nil), else COPY or multi-row INSERT (method) of keys from
// stream. Row i gets the i-th data value of a permutation of 1..rows and
// the payload of payloadSQL.
func LoadChunk(ctx context.Context, conn *pgx.Conn, t *Table, stream keys.Stream, lo, hi, rows int64, method string) error {
	var err error
	switch {
	case stream == nil:
		data, payload := t.ownColumns()
		cols, id, born := data+", "+payload, "", ""
		if t.ServerAtHistory {
			if v, ok := t.Key.ServerValueAt(t.History.epochSQL()); ok {
				cols, id = t.KeyColumn()+", "+cols, v+", "
			}
		}
		if t.born() {
			cols, born = cols+", created_at", ", to_timestamp"+t.History.epochSQL()
		}
		_, err = conn.Exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) SELECT %s%s, %s%s FROM generate_series(%d::bigint, %d) i",
			t.Qualified(), cols, id, t.dataValueSQL(rows), payloadSQL(t.Payload), born, lo, hi))
	case method == LoadInsert:
		err = insertRows(ctx, conn, t, stream, lo, hi, rows)
	default:
		src := &copySource{t: t, stream: stream, i: lo - 1, hi: hi, n: rows, raw: make([]byte, t.Key.Strategy.Width)}
		key, data, payload := "id", "data", "payload"
		if t.Like != nil {
			key, data, payload = t.Like.KeyColumn, t.Like.DataCol, t.Like.PayloadCol
		}
		cols := []string{key, data, payload}
		if t.born() {
			cols = append(cols, "created_at")
		}
		_, err = conn.CopyFrom(ctx, pgx.Identifier{t.Schema, t.Name}, cols, src)
	}
	if err != nil {
		return fmt.Errorf("loading rows %d-%d: %w", lo, hi, err)
	}
	return nil
}

// insertRows loads rows lo..hi with multi-row INSERT statements.
func insertRows(ctx context.Context, conn *pgx.Conn, t *Table, stream keys.Stream, lo, hi, n int64) error {
	raw := make([]byte, t.Key.Strategy.Width)
	for start := lo; start <= hi; start += insertBatch {
		end := min(start+insertBatch-1, hi)
		var sql strings.Builder
		born := t.born()
		args := make([]any, 0, 4*(end-start+1))
		data, payload := t.ownColumns()
		if born {
			fmt.Fprintf(&sql, "INSERT INTO %s (%s, %s, %s, created_at) VALUES ", t.Qualified(), t.KeyColumn(), data, payload)
		} else {
			fmt.Fprintf(&sql, "INSERT INTO %s (%s, %s, %s) VALUES ", t.Qualified(), t.KeyColumn(), data, payload)
		}
		for i := start; i <= end; i++ {
			if i > start {
				sql.WriteString(", ")
			}
			k := len(args)
			stream.Next(raw)
			args = append(args, t.Key.Value(raw), t.dataValue(i, n), PayloadValue(i, t.Payload))
			if born {
				fmt.Fprintf(&sql, "($%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4)
				args = append(args, t.History.At(i))
			} else {
				fmt.Fprintf(&sql, "($%d, $%d, $%d)", k+1, k+2, k+3)
			}
		}
		if _, err := conn.Exec(ctx, sql.String(), args...); err != nil {
			return err
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
	row    [4]any
}

func (s *copySource) Next() bool {
	if s.i >= s.hi {
		return false
	}
	s.i++
	s.stream.Next(s.raw)
	s.row[0] = s.t.Key.Value(s.raw)
	s.row[1] = s.t.dataValue(s.i, s.n)
	s.row[2] = PayloadValue(s.i, s.t.Payload)
	if s.t.born() {
		s.row[3] = s.t.History.At(s.i)
	}
	return true
}

func (s *copySource) Values() ([]any, error) {
	if s.t.born() {
		return s.row[:], nil
	}
	return s.row[:3], nil
}
func (s *copySource) Err() error { return nil }

// PayloadValue is payloadSQL computed on the client, so both prefill paths store the same rows.
func PayloadValue(i int64, n int) any {
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

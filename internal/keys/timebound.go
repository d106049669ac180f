package keys

import (
	"encoding/binary"
	"fmt"
	"time"
)

// Time bounds: the smallest value a time-ordered key makes at a moment,
// so that a table can be range-partitioned on the key itself by time
// (issue 29: partitions by time with uuidv7 instead of a created_at
// column). Every value the key makes at or after t sorts at or above the
// bound at t, in each of its storages (uuid, bytea and a bigint compare
// their bytes or values in the order the raw bytes give; the text forms
// are fixed-width big-endian encodings, which sort the same way).

// TimeLayout is how a key holds its time in its leading bits: Bound
// writes into dst (Width bytes) the smallest raw value the key makes at a
// Unix millisecond, and Of reads the time a raw value holds (to the key's
// unit: keybench's decoder, the check of the bounds where the server has
// none; uuid_extract_timestamp reads only v1 and v7). A strategy declares
// its own (Strategy.Time).
type TimeLayout struct {
	Bound func(ms int64, dst []byte)
	Of    func(raw []byte) time.Time
}

// ms48Time is a key that leads with 48-bit Unix milliseconds (ulid).
var ms48Time = &TimeLayout{
	Bound: func(ms int64, dst []byte) { clear(dst); putMS48(dst, ms) },
	Of:    ms48Of,
}

// uuidv7Time is uuidv7's: 48-bit ms, then version 7 and zeros, below every
// uuidv7 of that millisecond (their sub-ms bits and variant come after).
var uuidv7Time = &TimeLayout{
	Bound: func(ms int64, dst []byte) { clear(dst); putMS48(dst, ms); dst[6] = 0x70 },
	Of:    ms48Of,
}

func ms48Of(raw []byte) time.Time {
	return time.UnixMilli(int64(raw[0])<<40 | int64(raw[1])<<32 | int64(raw[2])<<24 | int64(raw[3])<<16 | int64(raw[4])<<8 | int64(raw[5]))
}

// secondsTime is a key that leads with 32-bit seconds since epoch (Unix
// seconds: 0), then anything: its bound at a ms is the second that holds
// it, every value of that second at or above.
func secondsTime(epoch int64) *TimeLayout {
	return &TimeLayout{
		Bound: func(ms int64, dst []byte) { clear(dst); binary.BigEndian.PutUint32(dst, uint32(ms/1000-epoch)) },
		Of:    func(raw []byte) time.Time { return time.Unix(int64(binary.BigEndian.Uint32(raw))+epoch, 0) },
	}
}

func putMS48(dst []byte, ms int64) {
	u := uint64(ms)
	dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u)
}

// HasTimeBound says whether the key orders by time in a way a range
// partition on it can follow (its time in its leading bits, never wrapping).
func (s *Spec) HasTimeBound() bool { return s.Strategy.Time != nil }

// TimeBound is the smallest raw value the key makes at t (to the
// millisecond).
func (s *Spec) TimeBound(t time.Time) ([]byte, error) {
	if s.Strategy.Time == nil {
		return nil, fmt.Errorf("%s does not order by time in its leading bits: partition it by a created_at column", s.Strategy.Name)
	}
	dst := make([]byte, s.Strategy.Width)
	s.Strategy.Time.Bound(t.UnixMilli(), dst)
	return dst, nil
}

// TimeOf is the time a time-ordered key's raw value encodes (to its unit).
func (s *Spec) TimeOf(raw []byte) (time.Time, error) {
	if s.Strategy.Time == nil {
		return time.Time{}, fmt.Errorf("%s has no time to decode", s.Strategy.Name)
	}
	return s.Strategy.Time.Of(raw), nil
}

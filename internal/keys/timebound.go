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

// timeBounds are the strategies with a time bound: each writes the raw
// bound at a Unix millisecond into dst (Width bytes).
var timeBounds = map[string]func(s *Spec, ms int64, dst []byte){
	// 48-bit ms, then version 7 and zeros: below every uuidv7 of that
	// millisecond (their sub-ms bits and variant come after).
	"uuidv7": func(_ *Spec, ms int64, dst []byte) {
		clear(dst)
		putMS48(dst, ms)
		dst[6] = 0x70
	},
	// 48-bit ms, then zeros.
	"ulid": func(_ *Spec, ms int64, dst []byte) {
		clear(dst)
		putMS48(dst, ms)
	},
	// 41-bit ms since Twitter's epoch above 22 bits of node and sequence.
	"snowflake": func(_ *Spec, ms int64, dst []byte) {
		binary.BigEndian.PutUint64(dst, uint64(ms-snowflakeEpoch)<<22)
	},
	// A TypeID is a uuidv7 under a prefix the same for every value; its
	// text is fixed-width lowercase base32, which sorts as its bytes.
	"typeid": func(_ *Spec, ms int64, dst []byte) {
		clear(dst)
		putMS48(dst, ms)
		dst[6] = 0x70
	},
	// 39 bits of 10 ms since Sonyflake's epoch above 24 bits of sequence
	// and machine: the unit that holds the ms.
	"sonyflake": func(_ *Spec, ms int64, dst []byte) {
		binary.BigEndian.PutUint64(dst, uint64((ms-sonyflakeEpoch)/10)<<24)
	},
	// 32-bit Unix seconds, then zeros (hex or base32hex text sorts as the
	// bytes): the second that holds the ms, every value of it at or above.
	"objectid": secondsBound,
	"xid":      secondsBound,
}

// secondsBound is the bound of a key that leads with 32-bit Unix seconds.
func secondsBound(_ *Spec, ms int64, dst []byte) {
	clear(dst)
	binary.BigEndian.PutUint32(dst, uint32(ms/1000))
}

func putMS48(dst []byte, ms int64) {
	u := uint64(ms)
	dst[0], dst[1], dst[2], dst[3], dst[4], dst[5] = byte(u>>40), byte(u>>32), byte(u>>24), byte(u>>16), byte(u>>8), byte(u)
}

// HasTimeBound says whether the key orders by time in a way a range
// partition on it can follow (its time in its leading bits, never wrapping).
func (s *Spec) HasTimeBound() bool { _, ok := timeBounds[s.Strategy.Name]; return ok }

// TimeBound is the smallest raw value the key makes at t (to the
// millisecond).
func (s *Spec) TimeBound(t time.Time) ([]byte, error) {
	f, ok := timeBounds[s.Strategy.Name]
	if !ok {
		return nil, fmt.Errorf("%s does not order by time in its leading bits: partition it by a created_at column", s.Strategy.Name)
	}
	dst := make([]byte, s.Strategy.Width)
	f(s, t.UnixMilli(), dst)
	return dst, nil
}

// TimeOf is the time a time-ordered key's raw value encodes (to the
// millisecond): keybench's decoder, the check of the bounds where the
// server has none (uuid_extract_timestamp reads only v1 and v7).
func (s *Spec) TimeOf(raw []byte) (time.Time, error) {
	switch s.Strategy.Name {
	case "uuidv7", "ulid", "typeid":
		ms := int64(raw[0])<<40 | int64(raw[1])<<32 | int64(raw[2])<<24 | int64(raw[3])<<16 | int64(raw[4])<<8 | int64(raw[5])
		return time.UnixMilli(ms), nil
	case "snowflake":
		return time.UnixMilli(int64(binary.BigEndian.Uint64(raw)>>22) + snowflakeEpoch), nil
	case "sonyflake":
		return time.UnixMilli(int64(binary.BigEndian.Uint64(raw)>>24)*10 + sonyflakeEpoch), nil
	case "objectid", "xid":
		return time.Unix(int64(binary.BigEndian.Uint32(raw)), 0), nil
	case "ksuid":
		return time.Unix(int64(binary.BigEndian.Uint32(raw))+ksuidEpoch, 0), nil
	}
	return time.Time{}, fmt.Errorf("%s has no time to decode", s.Strategy.Name)
}

// Literal is a raw value as an SQL literal of the key's column type (for
// DDL, which takes no parameters: a partition's bounds).
func (s *Spec) Literal(raw []byte) string {
	switch s.As {
	case AsBigint, AsInt:
		return s.Format(raw)
	}
	return fmt.Sprintf("'%s'::%s", s.Format(raw), s.ColumnType())
}

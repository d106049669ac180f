package keys

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
)

// storageCodec is all of one storage type (as=) in one place, as pgx's
// pgtype keeps a codec per type: its SQL column type, the size of its
// stored datum, the wire format keybench sends it in and the bytes it
// sends, how PostgreSQL prints a stored value, the Go value pgx's COPY
// takes for the column, and how a uuid-valued SQL expression is stored in
// it (nil: the uuid family is not stored in it). raw is a value as a
// generator makes it: a uuid's 16 bytes, or an integer's 8 big-endian.
type storageCodec struct {
	column string
	oid    uint32 // the column type's, as the server names it
	stored func(s *Spec) int
	text   bool // sent in the text format, else binary
	encode func(s *Spec, dst, raw []byte) []byte
	format func(s *Spec, raw []byte) string
	value  func(raw []byte) any
	ofUUID func(expr string) string
	// integer: written bare in SQL (a partition's bounds), not quoted.
	integer bool
}

var uuidCodec = &storageCodec{
	column: "uuid", oid: 2950, stored: func(*Spec) int { return 16 },
	encode: appendRaw,
	format: func(_ *Spec, raw []byte) string { return string(appendUUIDText(nil, raw, true)) },
	value: func(raw []byte) any {
		var u [16]byte
		copy(u[:], raw)
		return u
	},
	ofUUID: func(expr string) string { return expr },
}

// codecs are the storage types' codecs; AsNative, where a spec keeps it,
// reads as uuid (the uuid family's own type).
var codecs = map[Storage]*storageCodec{
	AsNative: uuidCodec,
	AsUUID:   uuidCodec,
	AsText: {
		column: "text", oid: 25, stored: func(s *Spec) int { return 1 + s.TextLength() }, text: true,
		encode: func(s *Spec, dst, raw []byte) []byte {
			if s.Strategy.Text != nil {
				return s.Strategy.Text.AppendText(s, dst, raw)
			}
			return appendUUIDText(dst, raw, true)
		},
		ofUUID: func(expr string) string { return "(" + expr + ")::pg_catalog.text" },
	},
	AsChar32: {
		column: "char(32)", oid: 1042, stored: func(*Spec) int { return 1 + 32 }, text: true,
		encode: func(_ *Spec, dst, raw []byte) []byte { return appendUUIDText(dst, raw, false) },
		ofUUID: func(expr string) string { return "pg_catalog.replace((" + expr + ")::pg_catalog.text, '-', '')" },
	},
	AsBytea: {
		column: "bytea", oid: 17, stored: func(s *Spec) int { return 1 + s.Strategy.Width },
		encode: appendRaw,
		format: func(_ *Spec, raw []byte) string { return `\x` + hex.EncodeToString(raw) },
		value:  func(raw []byte) any { return append([]byte(nil), raw...) },
		ofUUID: func(expr string) string { return "pg_catalog.uuid_send(" + expr + ")" },
	},
	AsBigint: {
		column: "bigint", oid: 20, stored: func(*Spec) int { return 8 }, integer: true,
		encode: appendRaw,
		format: formatInteger,
		value:  func(raw []byte) any { return int64(binary.BigEndian.Uint64(raw)) },
	},
	AsInt: {
		column: "integer", oid: 23, stored: func(*Spec) int { return 4 }, integer: true,
		encode: func(_ *Spec, dst, raw []byte) []byte {
			return binary.BigEndian.AppendUint32(dst, uint32(binary.BigEndian.Uint64(raw)))
		},
		format: formatInteger,
		value:  func(raw []byte) any { return int32(binary.BigEndian.Uint64(raw)) },
	},
}

func appendRaw(_ *Spec, dst, raw []byte) []byte { return append(dst, raw...) }

func formatInteger(_ *Spec, raw []byte) string {
	return fmt.Sprint(int64(binary.BigEndian.Uint64(raw)))
}

// codec is the spec's storage type's codec.
func (s *Spec) codec() *storageCodec {
	if c, ok := codecs[s.As]; ok {
		return c
	}
	return uuidCodec
}

// ColumnType is the SQL type of the key column.
func (s *Spec) ColumnType() string { return s.codec().column }

// TypeOID is the key column type's object id (pg_type.oid), to tell
// whether a parameter the server typed otherwise can take the key in its
// wire form (WireFormat, Encode) or needs its printed one (Format).
func (s *Spec) TypeOID() uint32 { return s.codec().oid }

// StoredBytes is the size of one key value as a stored datum, varlena header
// included (what pg_column_size reports for it).
func (s *Spec) StoredBytes() int { return s.codec().stored(s) }

// WireFormat is the protocol format code keybench sends values in: 1 (binary) or 0 (text).
func (s *Spec) WireFormat() int16 {
	if s.codec().text {
		return 0
	}
	return 1
}

// Encode appends a raw value in the wire form of the spec's storage.
func (s *Spec) Encode(dst, raw []byte) []byte { return s.codec().encode(s, dst, raw) }

// Format renders a raw value as PostgreSQL prints the stored value (a
// text type's wire form is its printed form).
func (s *Spec) Format(raw []byte) string {
	if c := s.codec(); c.format != nil {
		return c.format(s, raw)
	}
	return string(s.Encode(nil, raw))
}

// Value returns a raw value as the Go value pgx's COPY encodes for the
// column type (a text type's: its printed form).
func (s *Spec) Value(raw []byte) any {
	if c := s.codec(); c.value != nil {
		return c.value(raw)
	}
	return s.Format(raw)
}

// Literal is a raw value as an SQL literal of the key's column type (for
// DDL, which takes no parameters: a partition's bounds).
func (s *Spec) Literal(raw []byte) string {
	if s.codec().integer {
		return s.Format(raw)
	}
	return fmt.Sprintf("'%s'::%s", s.Format(raw), s.ColumnType())
}

// uuidExpr is a server maker of a uuid-valued SQL expression, stored in
// the spec's storage.
type uuidExpr string

func (e uuidExpr) Default(s *Spec, _ Server) (string, error) {
	return uuidServerDefault(s, string(e)), nil
}

// uuidServerDefault wraps a uuid-valued SQL expression into the spec's storage, as a column default.
func uuidServerDefault(s *Spec, expr string) string { return "DEFAULT " + uuidStored(s, expr) }

// uuidStored converts a uuid-valued SQL expression into the spec's storage.
func uuidStored(s *Spec, expr string) string {
	if c := s.codec(); c.ofUUID != nil {
		return c.ofUUID(expr)
	}
	return expr
}

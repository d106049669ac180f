package keys

import (
	"strings"
	"time"
)

// TypeIDs (jetify's spec, in new APIs): a type prefix, an underscore, and a
// uuidv7 in 26 lowercase Crockford base32 characters — time-ordered as its
// uuidv7, and readable. as=uuid stores the uuid alone, the prefix being
// the column's: what a database gives the type.
var typeIDStrategy = &Strategy{
	Name:     "typeid",
	Made:     "TypeID: prefix_ + a uuidv7 in 26 base32 characters (lowercase Crockford); as=uuid stores the uuid alone",
	Ordering: "time-ordered, as its uuidv7",
	Storages: []Storage{AsText, AsUUID},
	TextParams: []TextParamDef{{Name: "prefix", Default: "user", Doc: "the type prefix: lowercase letters and underscores, at most 63",
		Check: func(v string) string {
			if len(v) > 63 || strings.HasPrefix(v, "_") || strings.HasSuffix(v, "_") || strings.Trim(v, "abcdefghijklmnopqrstuvwxyz_") != "" {
				return "must be at most 63 lowercase letters and underscores, not starting or ending with one"
			}
			return ""
		}}},
	Width: 16,
	Text:  typeidText{},
	Clock: true,
	Time:  uuidv7Time, // a uuidv7 under a prefix the same for every value; its text, fixed-width base32, sorts as its bytes
	Client: GeneratorFunc(func(_ *Spec, clock func() time.Time) Generator {
		return &v7Gen{clock: clock}
	}),
	Facts: Facts{Sortable: SortableYes, Reveals: "creation time to 0.25 µs, and its type", RevealsTime: true, RandomBits: 62, PerUnit: time.Millisecond / 4096},
}

// typeidText is a TypeID's text: its prefix and "_" where it has one, then
// its suffix, a ULID's base32 in lower case.
type typeidText struct{}

func (typeidText) AppendText(s *Spec, dst, raw []byte) []byte {
	if p := s.Text["prefix"]; p != "" {
		dst = append(append(dst, p...), '_')
	}
	return append(dst, strings.ToLower(ulidText(raw))...)
}

func (typeidText) TextLen(s *Spec) int {
	if p := s.Text["prefix"]; p != "" {
		return len(p) + 1 + 26
	}
	return 26
}

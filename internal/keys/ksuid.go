package keys

import (
	"encoding/binary"
	"time"
)

// ksuidEpoch is KSUID's epoch (2014-05-13T16:53:20Z) in Unix seconds.
const ksuidEpoch = 1_400_000_000

var ksuidStrategy = &Strategy{
	Name:     "ksuid",
	Made:     "KSUID (Segment): 32-bit seconds since 2014-05-13, then 128 random bits; text: 27 base62 characters",
	Ordering: "time-ordered to the second, random within it",
	Storages: []Storage{AsText, AsBytea},
	Width:    20,
	Text:     fixedText{27, func(dst, raw []byte) []byte { return appendBase62(dst, raw, 27) }},
	Clock:    true,
	Time:     secondsTime(ksuidEpoch), // 32-bit seconds since its epoch first; its fixed-width base62 text sorts as its bytes
	Client: GeneratorFunc(func(_ *Spec, clock func() time.Time) Generator {
		return ksuidGen{clock: clock}
	}),
	Facts: Facts{Sortable: SortableYes, Reveals: "creation time to the second", RevealsTime: true, RandomBits: 128, PerUnit: time.Second},
}

type ksuidGen struct{ clock func() time.Time }

func (g ksuidGen) Stream() Stream { return &ksuidStream{clock: g.clock, r: newRandBuf()} }

type ksuidStream struct {
	clock func() time.Time
	r     *randBuf
}

func (s *ksuidStream) Next(dst []byte) {
	binary.BigEndian.PutUint32(dst, uint32(s.clock().Unix()-ksuidEpoch))
	s.r.read(dst[4:20])
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// appendBase62 appends the big-endian number raw in n base62 digits,
// zeros first (KSUID's text form: 20 bytes in 27 digits).
func appendBase62(dst, raw []byte, n int) []byte {
	// Long division of 32-bit words by 62, least significant digit first.
	words := make([]uint32, 0, (len(raw)+3)/4)
	for i := 0; i < len(raw); i += 4 {
		words = append(words, binary.BigEndian.Uint32(raw[i:i+4]))
	}
	out := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		var rem uint64
		for j := range words {
			cur := rem<<32 | uint64(words[j])
			words[j], rem = uint32(cur/62), cur%62
		}
		out[i] = base62[rem]
	}
	return append(dst, out...)
}

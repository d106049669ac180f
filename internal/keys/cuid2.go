package keys

import (
	"crypto/sha3"
	"encoding/binary"
	"math/big"
	"strconv"
	"sync/atomic"
	"time"
)

// Cuid2 (Prisma's default id, @paralleldrive/cuid2): a random letter, then
// the SHA3-512 of the time, a random salt, a session counter and a host
// fingerprint, in base36: 24 characters, random in order, revealing
// nothing. keybench follows the reference's algorithm step by step, its
// random numbers the reference's (a 32-bit random integer over 2^32).
const (
	cuid2Length   = 24
	cuid2BigLen   = 32
	cuid2CountMax = 476782367
)

var cuid2Strategy = &Strategy{
	Name:     "cuid2",
	Made:     "Cuid2: a random letter, then SHA3-512 of the time, a random salt, a counter and a host fingerprint, in base36 (24 characters)",
	Ordering: "random (a hash)",
	Storages: []Storage{AsText},
	Width:    cuid2Length,
	Text:     fixedText{cuid2Length, textOnly},
	Clock:    true,
	Client: GeneratorFunc(func(_ *Spec, clock func() time.Time) Generator {
		r := newRandBuf()
		rand := func() float64 { var b [4]byte; r.read(b[:]); return float64(binary.BigEndian.Uint32(b[:])) / (1 << 32) }
		g := &cuid2Gen{clock: clock}
		g.count.Store(int64(rand() * cuid2CountMax))
		g.fingerprint = Cuid2Hash(cuid2Entropy(cuid2BigLen, rand))[:cuid2BigLen]
		return g
	}),
	Facts: Facts{Sortable: SortableNo, Reveals: "nothing", RandomBits: 119},
}

type cuid2Gen struct {
	clock       func() time.Time
	count       atomic.Int64
	fingerprint string
}

func (g *cuid2Gen) Stream() Stream {
	r := newRandBuf()
	return &cuid2Stream{g: g, rand: func() float64 { var b [4]byte; r.read(b[:]); return float64(binary.BigEndian.Uint32(b[:])) / (1 << 32) }}
}

type cuid2Stream struct {
	g    *cuid2Gen
	rand func() float64
}

func (s *cuid2Stream) Next(dst []byte) {
	copy(dst, Cuid2(s.g.clock().UnixMilli(), s.g.count.Add(1)-1, s.g.fingerprint, s.rand))
}

// Cuid2 is the reference's cuid2() at the millisecond ms with the
// counter's value count, the host fingerprint and the random numbers rand
// draws (a letter, then the salt's characters).
func Cuid2(ms, count int64, fingerprint string, rand func() float64) string {
	first := byte('a' + int(rand()*26))
	input := strconv.FormatInt(ms, 36) + cuid2Entropy(cuid2Length, rand) + strconv.FormatInt(count, 36) + fingerprint
	return string(first) + Cuid2Hash(input)[1:cuid2Length]
}

// cuid2Entropy is n base36 characters of rand's numbers.
func cuid2Entropy(n int, rand func() float64) string {
	b := make([]byte, 0, n)
	for len(b) < n {
		b = strconv.AppendInt(b, int64(rand()*36), 36)
	}
	return string(b)
}

// Cuid2Hash is the reference's hash: SHA3-512 as a number in base36, its
// first digit dropped.
func Cuid2Hash(input string) string {
	sum := sha3.Sum512([]byte(input))
	return new(big.Int).SetBytes(sum[:]).Text(36)[1:]
}

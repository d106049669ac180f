package keys

import "time"

// nanoidAlphabet is Nano ID's URL alphabet, in its own order.
const nanoidAlphabet = "useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict"

// nanoidSize is a Nano ID's default length: 21 characters of 6 bits.
const nanoidSize = 21

var nanoidStrategy = &Strategy{
	Name:     "nanoid",
	Made:     "Nano ID: 21 characters of a 64-letter URL alphabet, each 6 random bits",
	Ordering: "random",
	Storages: []Storage{AsText},
	Width:    nanoidSize,
	Text:     fixedText{nanoidSize, textOnly},
	Client: GeneratorFunc(func(*Spec, func() time.Time) Generator {
		return nanoidGen{}
	}),
	Facts: Facts{Sortable: SortableNo, Reveals: "nothing", RandomBits: 126},
}

// textOnly is the text form of a key whose raw value is its text.
func textOnly(dst, raw []byte) []byte { return append(dst, raw...) }

type nanoidGen struct{}

func (nanoidGen) Stream() Stream { return &nanoidStream{r: newRandBuf()} }

type nanoidStream struct {
	r   *randBuf
	buf [nanoidSize]byte
}

func (s *nanoidStream) Next(dst []byte) {
	s.r.read(s.buf[:])
	NanoidOf(dst, s.buf[:])
}

// NanoidOf writes the Nano ID that Nano ID's customRandom makes of 21
// random bytes (for a 64-letter alphabet it draws as many bytes as
// characters, and takes the last first, each masked to 6 bits) into dst.
func NanoidOf(dst, random []byte) {
	j := len(random)
	for i := range dst[:nanoidSize] {
		j--
		dst[i] = nanoidAlphabet[random[j]&63]
	}
}

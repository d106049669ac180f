package keys

import "crypto/rand"

// randBuf hands out cryptographically random bytes from a worker-local
// buffer refilled in large reads, so a key costs no system call.
type randBuf struct {
	buf [8192]byte
	pos int
}

func newRandBuf() *randBuf { return &randBuf{pos: len(randBuf{}.buf)} }

func (r *randBuf) read(dst []byte) {
	for len(dst) > 0 {
		if r.pos == len(r.buf) {
			_, _ = rand.Read(r.buf[:]) // crypto/rand.Read never fails on Linux (Go 1.24+)
			r.pos = 0
		}
		n := copy(dst, r.buf[r.pos:])
		r.pos += n
		dst = dst[n:]
	}
}

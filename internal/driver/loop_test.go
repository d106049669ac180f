package driver

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The event loop's framing and accounting, against a peer on a socket pair
// that answers each request with scripted protocol bytes: no database
// here, only the loop's reading of messages as they arrive in pieces.

// msg is one backend message: type, length, body.
func msg(typ byte, body []byte) []byte {
	b := []byte{typ, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], uint32(4+len(body)))
	return append(b, body...)
}

const requestSize = 8

// scripted is a Machine that sends one fixed request per transaction and
// takes the rows from CommandComplete and the error from ErrorResponse.
type scripted struct {
	sent  bool
	rows  int
	err   error
	bytes int // body bytes seen, for the large-message case
}

func (m *scripted) Next(dst []byte) []byte {
	if m.sent {
		return dst
	}
	m.sent = true
	return append(dst, "request!"[:requestSize]...)
}

func (m *scripted) Message(typ byte, body []byte) {
	m.bytes += len(body)
	switch typ {
	case 'C':
		m.rows = 1
	case 'E':
		m.err = errors.New(strings.TrimRight(string(body), "\x00"))
	}
}

func (m *scripted) Done() (Work, error) {
	rows, err := m.rows, m.err
	*m = scripted{bytes: m.bytes}
	return Work{Inserted: int64(rows)}, err
}

// peer answers every request on fd with answer(i) for the i-th request,
// written in pieces of chunk bytes; after stopAfter requests it closes.
func peer(t *testing.T, fd int, answer func(i int) []byte, chunk, stopAfter int, wg *sync.WaitGroup) {
	defer wg.Done()
	defer unix.Close(fd)
	req := make([]byte, requestSize)
	for i := 0; stopAfter == 0 || i < stopAfter; i++ {
		for got := 0; got < requestSize; {
			n, err := unix.Read(fd, req[got:])
			if err != nil || n == 0 {
				return
			}
			got += n
		}
		out := answer(i)
		for len(out) > 0 {
			k := min(chunk, len(out))
			if _, err := unix.Write(fd, out[:k]); err != nil {
				return
			}
			out = out[k:]
		}
	}
}

func pair(t *testing.T) (client, server int) {
	t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	return fds[0], fds[1]
}

func TestLoopReadsMessagesInPieces(t *testing.T) {
	big := make([]byte, 200_000) // a DataRow larger than the loop's read buffer
	ok := append(append(msg('D', big), msg('C', []byte("INSERT 0 1\x00"))...), msg('Z', []byte("I"))...)
	fail := append(msg('E', []byte("SERROR\x00boom\x00")), msg('Z', []byte("I"))...)
	var wg sync.WaitGroup
	var clients []Client
	var machines []*scripted
	for i, chunk := range []int{1, 7, 1 << 20} {
		c, s := pair(t)
		defer unix.Close(c)
		wg.Add(1)
		go peer(t, s, func(n int) []byte {
			if i == 2 && n%10 == 9 { // every tenth transaction of the third client fails
				return fail
			}
			return ok
		}, chunk, 0, &wg)
		m := &scripted{}
		machines = append(machines, m)
		clients = append(clients, Client{Machine: m, FD: c})
	}
	if eventLoops(clients) == 0 {
		t.Fatal("the clients do not run on event loops")
	}
	r, err := Run(context.Background(), Config{Duration: time.Second}, clients)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		unix.Shutdown(c.FD, unix.SHUT_RDWR)
	}
	wg.Wait()
	if r.Txns == 0 || r.Rows != r.Txns || r.Errors == 0 || len(r.ErrorSamples) != 1 || !strings.Contains(r.ErrorSamples[0], "boom") || r.ClientsLost != 0 {
		t.Errorf("txns %d, rows %d, errors %d %q, lost %d", r.Txns, r.Rows, r.Errors, r.ErrorSamples, r.ClientsLost)
	}
	if machines[0].bytes < len(big) {
		t.Errorf("the large message was not delivered whole: %d body bytes", machines[0].bytes)
	}
}

// A peer that goes away mid-window: the client is lost, with the error.
func TestLoopLosesAClosedConnection(t *testing.T) {
	ok := append(msg('C', []byte("INSERT 0 1\x00")), msg('Z', []byte("I"))...)
	var wg sync.WaitGroup
	var clients []Client
	for i := 0; i < 2; i++ {
		c, s := pair(t)
		defer unix.Close(c)
		wg.Add(1)
		stop := 0
		if i == 0 {
			stop = 50
		}
		go peer(t, s, func(int) []byte { return ok }, 1<<20, stop, &wg)
		clients = append(clients, Client{Machine: &scripted{}, FD: c})
	}
	r, err := Run(context.Background(), Config{Duration: time.Second}, clients)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range clients {
		unix.Shutdown(c.FD, unix.SHUT_RDWR)
	}
	wg.Wait()
	if r.ClientsLost != 1 || len(r.ErrorSamples) == 0 || r.Txns < 50 {
		t.Errorf("lost %d, errors %q, txns %d", r.ClientsLost, r.ErrorSamples, r.Txns)
	}
}

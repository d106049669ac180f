package driver

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Machine is a client's transaction as PostgreSQL protocol messages, so that
// the event loop can run it on a non-blocking socket: a transaction is one
// or more steps, each a group of messages that ends in Sync and is answered
// up to ReadyForQuery (one round trip, as pgbench sends a statement with -M
// prepared). A Machine is not safe for concurrent use; it must not keep a
// message body after Message returns.
type Machine interface {
	// Next appends the messages of the transaction's next step to dst and
	// returns it; dst comes back unchanged when the transaction has no
	// further step (after its last one, or after an error).
	Next(dst []byte) []byte
	// Message hands over one backend message of the current step: its type
	// byte and its body.
	Message(typ byte, body []byte)
	// Done ends the transaction: what it did to rows and its first error.
	// The machine is then ready for the next transaction.
	Done() (Work, error)
}

// The event loop is how pgbench -j runs its clients, and why it is faster
// than a thread per client on a small machine: one OS thread per core owns
// a share of the connections, sends each its next transaction as one write,
// and sleeps in epoll_wait only when none of its connections has an answer
// ready. A transaction costs a write and a read; the thread's wake-ups are
// shared by every connection that became ready meanwhile. keybench's loops
// never parse a script: a Machine appends ready-made messages.

// loopsEnv overrides the number of event loops (for experiments; 0: one per core).
const loopsEnv = "KEYBENCH_DRIVER_LOOPS"

// eventLoops is the number of event loops to run the clients on, or 0 when
// a client cannot run on one (no Machine or no socket): they then run as a
// goroutine each, in blocking system calls.
func eventLoops(clients []Client) int {
	for _, c := range clients {
		if c.Machine == nil || c.FD <= 0 {
			return 0
		}
	}
	n := runtime.NumCPU()
	if v, err := strconv.Atoi(os.Getenv(loopsEnv)); err == nil && v > 0 {
		n = v
	}
	return max(1, min(n, len(clients)))
}

// loopConn is one client's connection on an event loop.
type loopConn struct {
	w        *worker
	fd       int
	m        Machine
	rbuf     []byte // bytes read: unparsed ones are rbuf[r:n]
	r, n     int
	wbuf     []byte // the step being sent: unsent ones are wbuf[wpos:]
	wpos     int
	t0       time.Time
	measured int64
	done     bool
	broken   error // the connection failed (EOF, a read or write error)
	writing  bool  // registered for EPOLLOUT: the socket's buffer was full
}

const loopReadBuffer = 64 << 10

// startLoops runs the workers' clients on loops event loops, each a
// goroutine that holds a P (and so an OS thread) while it waits in
// epoll_wait; Run leaves spare Ps for every other goroutine.
func (win *window) startLoops(ws []*worker, loops int, wg *sync.WaitGroup) {
	for i := 0; i < loops; i++ {
		var mine []*loopConn
		for j := i; j < len(ws); j += loops {
			mine = append(mine, &loopConn{w: ws[j], fd: ws[j].c.FD, m: ws[j].c.Machine, rbuf: make([]byte, loopReadBuffer)})
		}
		wg.Go(func() {
			win.loop(mine)
		})
	}
}

// loopTick is how long a loop sleeps at most before it looks at the stop flag.
const loopTick = 20 // milliseconds

func (win *window) loop(conns []*loopConn) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		for _, c := range conns {
			win.fail(c, os.NewSyscallError("epoll_create1", err))
		}
		return
	}
	defer unix.Close(epfd)
	byFD := make(map[int32]*loopConn, len(conns))
	for _, c := range conns {
		byFD[int32(c.fd)] = c
		if err := unix.SetNonblock(c.fd, true); err != nil {
			win.fail(c, os.NewSyscallError("fcntl", err))
			continue
		}
		defer unix.SetNonblock(c.fd, false) // pgconn reads it again, blocking, after the window
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.fd)}
		if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, c.fd, &ev); err != nil {
			win.fail(c, os.NewSyscallError("epoll_ctl", err))
			continue
		}
		win.begin(epfd, c)
	}
	events := make([]unix.EpollEvent, len(conns))
	lastYield := time.Now()
	for {
		// The loop never parks as far as the runtime can tell (its waits are
		// raw system calls), so the runtime would preempt it by a signal
		// every 10 ms; yielding first starts a fresh time slice at no such
		// cost, and the goroutine is usually resumed on the same thread.
		if now := time.Now(); now.Sub(lastYield) > 8*time.Millisecond {
			runtime.Gosched()
			lastYield = now
		}
		open := 0
		for _, c := range conns {
			if !c.done {
				open++
			}
		}
		if open == 0 {
			return
		}
		n, err := epollWait(epfd, events, loopTick)
		if err != nil && err != unix.EINTR {
			for _, c := range conns {
				if !c.done {
					win.fail(c, os.NewSyscallError("epoll_wait", err))
				}
			}
			return
		}
		for i := 0; i < n; i++ {
			c := byFD[events[i].Fd]
			if c == nil || c.done {
				continue
			}
			if events[i].Events&unix.EPOLLOUT != 0 {
				win.flush(epfd, c)
			}
			if events[i].Events&(unix.EPOLLIN|unix.EPOLLERR|unix.EPOLLHUP) != 0 && !c.done {
				win.readable(epfd, c)
			}
		}
	}
}

// begin starts c's next transaction, unless the window is over.
func (win *window) begin(epfd int, c *loopConn) {
	if win.stop.Load() {
		c.done = true
		return
	}
	c.t0 = time.Now()
	c.w.busySince.Store(c.t0.UnixNano())
	c.wbuf = c.m.Next(c.wbuf[:0])
	c.wpos = 0
	win.flush(epfd, c)
}

// flush writes what is left of c's step, waiting for EPOLLOUT when the
// socket's buffer is full.
func (win *window) flush(epfd int, c *loopConn) {
	for c.wpos < len(c.wbuf) {
		n, err := rawWrite(c.fd, c.wbuf[c.wpos:])
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			if !c.writing {
				c.writing = true
				ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLOUT, Fd: int32(c.fd)}
				_ = unix.EpollCtl(epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
			}
			return
		case err != nil:
			win.end(epfd, c, &sockErr{"write", err})
			return
		}
		c.wpos += n
	}
	if c.writing {
		c.writing = false
		ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(c.fd)}
		_ = unix.EpollCtl(epfd, unix.EPOLL_CTL_MOD, c.fd, &ev)
	}
}

// readable reads what the server sent c and hands it to the machine,
// message by message; ReadyForQuery ends a step.
func (win *window) readable(epfd int, c *loopConn) {
	if c.n == len(c.rbuf) { // a message larger than the buffer: grow it
		c.rbuf = append(c.rbuf, make([]byte, len(c.rbuf))...)
	}
	n, err := rawRead(c.fd, c.rbuf[c.n:])
	switch {
	case err == unix.EAGAIN || err == unix.EINTR:
		return
	case err != nil:
		win.end(epfd, c, &sockErr{"read", err})
		return
	case n == 0:
		win.end(epfd, c, io.ErrUnexpectedEOF)
		return
	}
	c.n += n
	for !c.done && c.n-c.r >= 5 {
		typ := c.rbuf[c.r]
		size := int(uint32(c.rbuf[c.r+1])<<24 | uint32(c.rbuf[c.r+2])<<16 | uint32(c.rbuf[c.r+3])<<8 | uint32(c.rbuf[c.r+4]))
		if size < 4 {
			win.end(epfd, c, fmt.Errorf("malformed message from the server (type %q, length %d)", typ, size))
			return
		}
		if c.n-c.r < 1+size {
			break
		}
		body := c.rbuf[c.r+5 : c.r+1+size]
		c.r += 1 + size
		if typ != 'Z' {
			c.m.Message(typ, body)
			continue
		}
		// ReadyForQuery: the step is answered; send the next or end the transaction.
		if c.wbuf = c.m.Next(c.wbuf[:0]); len(c.wbuf) > 0 {
			c.wpos = 0
			win.flush(epfd, c)
			continue
		}
		win.end(epfd, c, nil)
	}
	// Keep the unparsed tail at the front of the buffer.
	if c.r == c.n {
		c.r, c.n = 0, 0
	} else if c.r > len(c.rbuf)/2 {
		c.n = copy(c.rbuf, c.rbuf[c.r:c.n])
		c.r = 0
	}
}

// end finishes c's transaction; broken is set when the connection failed.
func (win *window) end(epfd int, c *loopConn, broken error) {
	t1 := time.Now()
	work, err := c.m.Done()
	if broken != nil {
		c.broken = broken
		if err == nil {
			err = broken
		}
	}
	claimed := c.w.busySince.Load() == 0 // the driver gave up on it (see abandon)
	more := win.complete(c.w, c.t0, c.t0, t1, work, err, &c.measured)
	if broken != nil {
		c.w.lost = c.w.lost || !claimed
		c.done = true
		return
	}
	if !more {
		c.done = true
		return
	}
	win.begin(epfd, c)
}

// fail ends a connection the loop could not even start on.
func (win *window) fail(c *loopConn, err error) {
	win.noteErr(err)
	c.w.lost, c.done = true, true
}

// sockErr is a failed system call on a client's socket.
type sockErr struct {
	op  string
	err error
}

func (e *sockErr) Error() string { return e.op + ": " + e.err.Error() }
func (e *sockErr) Unwrap() error { return e.err }

// The loop's system calls bypass the scheduler's syscall bookkeeping
// (RawSyscall): the loop owns its thread and its P, and spare Ps serve every
// other goroutine, so there is no P to hand off while it waits. Through
// syscall.Syscall, each wait of epoll_wait put the P in its syscall state
// and woke the runtime's monitor thread to retake it: about 5,000 wake-ups
// a second, one more context switch for every two transactions. A signal
// (the runtime's preemption) ends epoll_wait with EINTR, and the loop's next
// function call yields if asked to.

func epollWait(epfd int, events []unix.EpollEvent, msec int) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), uintptr(msec), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func rawRead(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

func rawWrite(fd int, b []byte) (int, error) {
	r, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

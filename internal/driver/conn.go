package driver

import (
	"context"

	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Dial opens a client connection that reads and writes with blocking system
// calls, for pgx's ConnConfig.DialFunc.
//
// Go's network poller costs a client three or four system calls and a
// goroutine hand-off per round trip (a read that fails with EAGAIN, epoll,
// the read again, futex wake-ups); pgbench's threads simply block in recv.
// On a small machine, where the clients share the cores with the server, that
// difference alone made keybench 20% slower than pgbench. A blocking socket
// makes each client behave like a pgbench thread: one send, one recv.
func Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	var (
		family int
		sa     syscall.Sockaddr
	)
	switch network {
	case "unix":
		family, sa = syscall.AF_UNIX, &syscall.SockaddrUnix{Name: addr}
	case "tcp", "tcp4", "tcp6":
		// Resolve with the standard library, then connect a blocking socket to the first address.
		ips, port, err := resolveTCP(ctx, addr)
		if err != nil {
			return nil, err
		}
		var lastErr error
		for _, ip := range ips {
			c, err := dialTCP(ip, port)
			if err == nil {
				return c, nil
			}
			lastErr = err
		}
		return nil, lastErr
	default:
		return nil, fmt.Errorf("driver: unsupported network %q", network)
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := connectFD(ctx, fd, sa); err != nil {
		syscall.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: network, Addr: &net.UnixAddr{Name: addr, Net: network}, Err: err}
	}
	return &blockingConn{fd: fd, network: network, raddr: &net.UnixAddr{Name: addr, Net: network}}, nil
}

func resolveTCP(ctx context.Context, addr string) ([]net.IP, int, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, 0, err
	}
	port, err := net.DefaultResolver.LookupPort(ctx, "tcp", portStr)
	if err != nil {
		return nil, 0, err
	}
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil {
		return nil, 0, err
	}
	return ips, port, nil
}

func dialTCP(ip net.IP, port int) (net.Conn, error) {
	var (
		fd  int
		sa  syscall.Sockaddr
		err error
	)
	if ip4 := ip.To4(); ip4 != nil {
		s := &syscall.SockaddrInet4{Port: port}
		copy(s.Addr[:], ip4)
		sa = s
		fd, err = syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	} else {
		s := &syscall.SockaddrInet6{Port: port}
		copy(s.Addr[:], ip.To16())
		sa = s
		fd, err = syscall.Socket(syscall.AF_INET6, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	}
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
	if err := connectFD(context.Background(), fd, sa); err != nil {
		syscall.Close(fd)
		return nil, &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: ip, Port: port}, Err: err}
	}
	return &blockingConn{fd: fd, network: "tcp", raddr: &net.TCPAddr{IP: ip, Port: port}}, nil
}

// connectFD connects with the context's deadline as the send timeout, which bounds a blocking connect.
func connectFD(ctx context.Context, fd int, sa syscall.Sockaddr) error {
	if dl, ok := ctx.Deadline(); ok {
		tv := syscall.NsecToTimeval(max(time.Until(dl), time.Millisecond).Nanoseconds())
		_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
		defer func() {
			var zero syscall.Timeval
			_ = syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &zero)
		}()
	}
	for {
		err := syscall.Connect(fd, sa)
		if err != syscall.EINTR {
			return err
		}
	}
}

// blockingConn is a net.Conn over a socket in blocking mode. Deadlines map to
// SO_RCVTIMEO/SO_SNDTIMEO; a deadline in the past shuts the socket down, which
// is how pgconn interrupts a query (and what keybench does to unblock a client
// stuck on a dead server).
type blockingConn struct {
	fd      int
	network string
	raddr   net.Addr
	mu      sync.Mutex
	closed  bool
	dead    bool // a past deadline shut the socket down
}

func (c *blockingConn) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(c.fd, b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, os.ErrDeadlineExceeded
		case err != nil:
			return 0, c.opErr("read", err)
		case n == 0:
			if c.isDead() {
				return 0, os.ErrDeadlineExceeded
			}
			return 0, io.EOF
		}
		return n, nil
	}
}

func (c *blockingConn) Write(b []byte) (int, error) {
	written := 0
	for written < len(b) {
		n, err := syscall.Write(c.fd, b[written:])
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return written, os.ErrDeadlineExceeded
		case err != nil:
			if c.isDead() {
				return written, os.ErrDeadlineExceeded
			}
			return written, c.opErr("write", err)
		}
		written += n
	}
	return written, nil
}

func (c *blockingConn) opErr(op string, err error) error {
	return &net.OpError{Op: op, Net: c.network, Addr: c.raddr, Err: os.NewSyscallError(op, err)}
}

func (c *blockingConn) isDead() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dead
}

func (c *blockingConn) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	c.closed = true
	return syscall.Close(c.fd)
}

// FD is the socket, for the event loops (see loop.go).
func (c *blockingConn) FD() int { return c.fd }

func (c *blockingConn) LocalAddr() net.Addr  { return &net.UnixAddr{Net: c.network} }
func (c *blockingConn) RemoteAddr() net.Addr { return c.raddr }

func (c *blockingConn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

func (c *blockingConn) SetReadDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_RCVTIMEO, t)
}
func (c *blockingConn) SetWriteDeadline(t time.Time) error {
	return c.setTimeout(syscall.SO_SNDTIMEO, t)
}

func (c *blockingConn) setTimeout(opt int, t time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	var tv syscall.Timeval
	if !t.IsZero() {
		d := time.Until(t)
		if d <= 0 {
			// Only shutting the socket down wakes a thread blocked in recv or send.
			c.dead = true
			return syscall.Shutdown(c.fd, syscall.SHUT_RDWR)
		}
		tv = syscall.NsecToTimeval(max(d, time.Microsecond).Nanoseconds())
	}
	return syscall.SetsockoptTimeval(c.fd, syscall.SOL_SOCKET, opt, &tv)
}

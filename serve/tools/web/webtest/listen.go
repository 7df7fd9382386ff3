package webtest

import (
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// CountingListener counts accepted connections: SSRF tests assert that no
// refused request ever reached one.
type CountingListener struct {
	net.Listener
	n atomic.Int64
}

// Accept counts and returns the next connection.
func (l *CountingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		l.n.Add(1)
	}
	return c, err
}

// Count is how many connections were accepted so far.
func (l *CountingListener) Count() int64 { return l.n.Load() }

// StartCounting serves h on addr (such as "127.0.0.1:0" or "[::1]:0") and
// counts connections. It returns nil, nil when addr cannot be bound (no
// IPv6 on the machine, say), so callers skip that listener.
func StartCounting(t testing.TB, addr string, h http.Handler) (*httptest.Server, *CountingListener) {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil
	}
	cl := &CountingListener{Listener: ln}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = cl
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, cl
}

// Port is the TCP port srv listens on.
func Port(srv *httptest.Server) int { return srv.Listener.Addr().(*net.TCPAddr).Port }

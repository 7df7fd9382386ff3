package serve

import (
	"bufio"
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/testsnap"
)

// lockedBuffer is a log sink shared by the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestShortBody checks the two ways a body can fall short: a client that
// sends fewer bytes than its Content-Length and waits gets 408 when the
// server's read timeout fires; a client that closes its side mid-body is
// logged as gone (Info), not as a server error.
func TestShortBody(t *testing.T) {
	var logs lockedBuffer
	a := newTestApp(t, testsnap.Fixtures(t), func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	// A short read timeout so the test does not wait 30 s; what is
	// asserted is the status, not the time.
	srv := &http.Server{Handler: a.HTTP, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 300 * time.Millisecond}
	go srv.Serve(ln)
	defer srv.Close()

	send := func(closeWrite bool) (status string) {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(30 * time.Second)) // a hung server fails instead of blocking
		req := "POST /v1/alarm HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"callback_url\":"
		if _, err := c.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		if closeWrite {
			c.(*net.TCPConn).CloseWrite()
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			t.Fatalf("no response: %v", err)
		}
		return strings.TrimSpace(line)
	}

	if got := send(false); !strings.HasPrefix(got, "HTTP/1.1 408") {
		t.Errorf("slow short body: %q, want 408", got)
	}
	if got := send(true); strings.HasPrefix(got, "HTTP/1.1 5") {
		t.Errorf("client gone: %q, a server error", got)
	}
	l := logs.String()
	if !strings.Contains(l, "client went away") {
		t.Errorf("no \"client went away\" log:\n%s", l)
	}
	if strings.Contains(l, "level=ERROR") || strings.Contains(l, "status=500") {
		t.Errorf("a short body was logged as a server error:\n%s", l)
	}
}

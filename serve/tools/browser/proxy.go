package browser

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// proxy is a forward proxy on loopback (plain HTTP and CONNECT) that
// carries one call's browser traffic. Every destination goes through the
// guarded client's rules: fetch.CheckURL for names and ports, then
// fetch.Client.DialContext, whose dial-time guard refuses non-public
// addresses after DNS resolution. So a page, a sub-resource, a redirect, a
// service worker or a WebSocket (Chromium tunnels ws:// and wss:// with
// CONNECT) that aims at a private address is refused here, and the page
// sees a failed request. A nil client refuses everything (the browser-wide
// default proxy, which catches Chromium's own background requests).
type proxy struct {
	fc       *fetch.Client
	log      *slog.Logger
	maxBytes int64 // cap on bytes relayed for the call; 0: none
	ln       net.Listener
	srv      *http.Server
	tr       *http.Transport

	bytes atomic.Int64

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	blocked []Blocked
	closed  bool
}

// Blocked is a request the proxy refused.
type Blocked struct {
	// Target is host:port of the refused request (the proxy sees no paths
	// of https requests, which are tunnelled).
	Target string `json:"target"`
	// Reason: forbidden_target (not a public address, or a refused
	// name or port) or too_large (the call's byte cap was reached).
	Reason string `json:"reason"`
}

const maxBlockedKept = 50

func newProxy(fc *fetch.Client, log *slog.Logger, maxBytes int64) (*proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	p := &proxy{fc: fc, log: log, maxBytes: maxBytes, ln: ln, conns: map[net.Conn]struct{}{}}
	if fc != nil {
		p.tr = &http.Transport{
			Proxy:                 nil, // we are the proxy; the guard must see the real target
			DialContext:           fc.DialContext,
			ForceAttemptHTTP2:     false,
			MaxIdleConnsPerHost:   4,
			IdleConnTimeout:       30 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			DisableCompression:    true, // pass the browser's Accept-Encoding through
		}
	}
	p.srv = &http.Server{
		Handler:           p,
		ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(c net.Conn, s http.ConnState) {
			p.mu.Lock()
			defer p.mu.Unlock()
			switch s {
			case http.StateNew:
				p.conns[c] = struct{}{}
			case http.StateClosed:
				// A hijacked connection stays listed until its tunnel ends.
				delete(p.conns, c)
			}
		},
	}
	go p.srv.Serve(ln)
	return p, nil
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// close stops the listener and cuts every connection, tunnels included.
func (p *proxy) close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	p.srv.Close()
	for _, c := range conns {
		c.Close()
	}
	if p.tr != nil {
		p.tr.CloseIdleConnections()
	}
}

// Blocked returns the refused requests so far (at most 50).
func (p *proxy) Blocked() []Blocked {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Blocked(nil), p.blocked...)
}

// blockedHost reports whether a request to host (name or address, no
// port) was refused as a forbidden target.
func (p *proxy) blockedHost(host string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, b := range p.blocked {
		if b.Reason == "forbidden_target" && hostOf(b.Target) == host {
			return true
		}
	}
	return false
}

func hostOf(target string) string {
	h, _, err := net.SplitHostPort(target)
	if err != nil {
		return target
	}
	return h
}

// note records a refusal. Failures to connect (upstream_error) are not
// refusals and are not listed: the page sees them as failed requests, and
// Chromium's own speculative connections (a preconnect to its search
// engine) would otherwise show up as noise.
func (p *proxy) note(target, reason string) {
	if reason == "upstream_error" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.blocked) < maxBlockedKept {
		p.blocked = append(p.blocked, Blocked{Target: target, Reason: reason})
	}
}

// reason classifies a refusal for the Blocked list.
func reason(err error) string {
	if errors.Is(err, apierr.ErrForbidden) || errors.Is(err, apierr.ErrInvalidInput) {
		return "forbidden_target"
	}
	return "upstream_error"
}

func (p *proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodConnect {
		p.connect(w, r)
		return
	}
	p.forward(w, r)
}

// connect opens a tunnel (https, wss, ws) to r.Host under the guard.
func (p *proxy) connect(w http.ResponseWriter, r *http.Request) {
	target := r.Host
	if p.fc == nil {
		p.note(target, "forbidden_target")
		http.Error(w, "refused", http.StatusForbidden)
		return
	}
	if _, err := p.fc.CheckURL("https://" + target + "/"); err != nil {
		p.note(target, reason(err))
		http.Error(w, "refused", http.StatusForbidden)
		return
	}
	up, err := p.fc.DialContext(r.Context(), "tcp", r.Host)
	if err != nil {
		p.note(target, reason(err))
		http.Error(w, "refused", http.StatusForbidden)
		return
	}
	hj, ok := w.(http.Hijacker)
	if !ok {
		up.Close()
		http.Error(w, "no hijack", http.StatusInternalServerError)
		return
	}
	down, rw, err := hj.Hijack()
	if err != nil {
		up.Close()
		return
	}
	if _, err := io.WriteString(down, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		up.Close()
		down.Close()
		return
	}
	p.track(up)
	defer p.untrack(up)
	defer p.untrack(down)
	// Bytes the client sent after the CONNECT headers are already buffered.
	var done sync.WaitGroup
	done.Go(func() {
		if n := rw.Reader.Buffered(); n > 0 {
			b, _ := rw.Reader.Peek(n)
			up.Write(b)
		}
		io.Copy(up, down)
		closeWrite(up)
	})
	p.relay(down, up, target)
	closeWrite(down)
	done.Wait()
	up.Close()
	down.Close()
}

// relay copies upstream bytes to the browser, counting them against the
// call's byte cap.
func (p *proxy) relay(dst io.Writer, src io.Reader, target string) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if p.maxBytes > 0 && p.bytes.Add(int64(n)) > p.maxBytes {
				p.note(target, "too_large")
				return
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func closeWrite(c net.Conn) {
	if cw, ok := c.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
		return
	}
	c.Close()
}

func (p *proxy) track(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return
	}
	p.conns[c] = struct{}{}
}

func (p *proxy) untrack(c net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.conns, c)
}

// hopHeaders are not forwarded (RFC 9110 section 7.6.1).
var hopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate",
	"Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

// forward relays a plain-http request (absolute URI) under the guard.
func (p *proxy) forward(w http.ResponseWriter, r *http.Request) {
	if !r.URL.IsAbs() || r.URL.Scheme != "http" {
		http.Error(w, "this is a forward proxy", http.StatusBadRequest)
		return
	}
	target := r.URL.Host
	if r.URL.Port() == "" {
		target = net.JoinHostPort(r.URL.Hostname(), "80")
	}
	if p.fc == nil {
		p.note(target, "forbidden_target")
		drop(w)
		return
	}
	if _, err := p.fc.CheckURL(r.URL.String()); err != nil {
		p.note(target, reason(err))
		drop(w)
		return
	}
	out := r.Clone(r.Context())
	out.RequestURI = ""
	for _, h := range hopHeaders {
		out.Header.Del(h)
	}
	resp, err := p.tr.RoundTrip(out)
	if err != nil {
		p.note(target, reason(err))
		drop(w)
		return
	}
	defer resp.Body.Close()
	for _, h := range hopHeaders {
		resp.Header.Del(h)
	}
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	p.relay(flushWriter{w}, resp.Body, target)
}

// flushWriter flushes after every write, so a slowly streamed page reaches
// the browser as it arrives.
type flushWriter struct{ w http.ResponseWriter }

func (f flushWriter) Write(b []byte) (int, error) {
	n, err := f.w.Write(b)
	if fl, ok := f.w.(http.Flusher); ok {
		fl.Flush()
	}
	return n, err
}

// drop answers a refused plain-http request by closing the connection: an
// error status would be shown by the browser as the page itself, while a
// dropped connection is a failed request (net::ERR_EMPTY_RESPONSE), as a
// refused tunnel is.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if c, _, err := hj.Hijack(); err == nil {
			c.Close()
			return
		}
	}
	http.Error(w, "refused", http.StatusForbidden)
}

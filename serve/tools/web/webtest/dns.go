package webtest

import (
	"context"
	"net"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/miekg/dns"
)

// DNS is a DNS server on 127.0.0.1 (UDP and TCP, same port) answering from
// a zone given in presentation format. Names with no records at all are
// NXDOMAIN; a CNAME is followed for other types as a recursive resolver
// would.
type DNS struct {
	// Addr is the server's "127.0.0.1:port".
	Addr    string
	records []dns.RR
	queries atomic.Int64
}

// StartDNS serves zone (one record per line; blank lines and ; comments
// are skipped) until the test ends.
func StartDNS(t testing.TB, zone string) *DNS {
	t.Helper()
	f := &DNS{}
	for _, line := range strings.Split(zone, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, ";") {
			continue
		}
		rr, err := dns.NewRR(line)
		if err != nil {
			t.Fatalf("zone line %q: %v", line, err)
		}
		f.records = append(f.records, rr)
	}
	var pc net.PacketConn
	var ln net.Listener
	for range 20 {
		var err error
		pc, err = net.ListenPacket("udp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ln, err = net.Listen("tcp", pc.LocalAddr().String())
		if err == nil {
			break
		}
		pc.Close()
		pc = nil
	}
	if pc == nil {
		t.Fatal("no port free for UDP and TCP")
	}
	f.Addr = pc.LocalAddr().String()
	h := dns.HandlerFunc(f.serve)
	udp := &dns.Server{PacketConn: pc, Handler: h}
	tcp := &dns.Server{Listener: ln, Handler: h}
	go udp.ActivateAndServe()
	go tcp.ActivateAndServe()
	t.Cleanup(func() {
		udp.Shutdown()
		tcp.Shutdown()
	})
	return f
}

// Queries is how many questions the server has answered.
func (f *DNS) Queries() int64 { return f.queries.Load() }

func (f *DNS) serve(w dns.ResponseWriter, req *dns.Msg) {
	f.queries.Add(1)
	m := new(dns.Msg)
	m.SetReply(req)
	m.RecursionAvailable = true
	if len(req.Question) == 1 {
		q := req.Question[0]
		name := strings.ToLower(q.Name)
		exists := false
		for hops := 0; hops < 8; hops++ {
			var cname *dns.CNAME
			for _, rr := range f.records {
				if strings.ToLower(rr.Header().Name) != name {
					continue
				}
				exists = true
				if rr.Header().Rrtype == q.Qtype {
					m.Answer = append(m.Answer, rr)
				} else if c, ok := rr.(*dns.CNAME); ok {
					cname = c
				}
			}
			if cname == nil || len(m.Answer) > 0 {
				break
			}
			m.Answer = append(m.Answer, cname)
			name = strings.ToLower(cname.Target)
		}
		if !exists {
			m.Rcode = dns.RcodeNameError
		}
	}
	if _, udp := w.LocalAddr().(*net.UDPAddr); udp {
		size := dns.MinMsgSize
		if opt := req.IsEdns0(); opt != nil {
			size = int(opt.UDPSize())
		}
		m.Truncate(size)
	}
	w.WriteMsg(m)
}

// Resolver is a pure-Go net.Resolver that asks only this server, for
// fetch.Config.Resolver.
func (f *DNS) Resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, f.Addr)
		},
	}
}

package web

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/miekg/dns"

	"github.com/openshelf/openshelf/serve/fetch"
)

// newLoopbackProbe returns a Probe whose fetch client may reach loopback
// test servers, by address or as site.example.com (see siteURL).
func newLoopbackProbe(t *testing.T, fcfg fetch.Config, pcfg ProbeConfig) *Probe {
	t.Helper()
	fcfg.AllowLoopback = true
	if fcfg.Resolver == nil {
		fcfg.Resolver = startFakeDNS(t, "site.example.com. 60 IN A 127.0.0.1").resolver()
	}
	fc := fetch.New(fcfg)
	t.Cleanup(fc.Close)
	return NewProbe(fc, pcfg)
}

// fakeDNS is a DNS server on 127.0.0.1 (UDP and TCP, same port) answering
// from a zone given in presentation format. Names with no records at all
// are NXDOMAIN; a CNAME is followed for other types as a recursive
// resolver would.
type fakeDNS struct {
	addr    string
	records []dns.RR
}

func startFakeDNS(t *testing.T, zone string) *fakeDNS {
	t.Helper()
	f := &fakeDNS{}
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
	f.addr = pc.LocalAddr().String()
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

func (f *fakeDNS) serve(w dns.ResponseWriter, req *dns.Msg) {
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

// resolver is a net.Resolver that asks the fake server.
func (f *fakeDNS) resolver() *net.Resolver {
	return &net.Resolver{
		PreferGo: true,
		Dial: func(ctx context.Context, network, _ string) (net.Conn, error) {
			var d net.Dialer
			return d.DialContext(ctx, network, f.addr)
		},
	}
}

// testCA is a certificate authority made at test time.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "Openshelf Test Root CA", Organization: []string{"Openshelf Tests"}},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &testCA{cert: cert, key: key, pool: pool}
}

// leaf issues a server certificate for 127.0.0.1 and localhost valid for
// days; a nil CA makes it self-signed.
func (ca *testCA) leaf(t *testing.T, cn string, days int) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: cn},
		DNSNames:     []string{"localhost", cn},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Duration(days) * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		OCSPServer:   []string{"http://ocsp.test.example/"},
	}
	parent, signer := tmpl, any(key)
	if ca != nil {
		parent, signer = ca.cert, ca.key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, signer)
	if err != nil {
		t.Fatal(err)
	}
	chain := [][]byte{der}
	if ca != nil {
		chain = append(chain, ca.cert.Raw)
	}
	return tls.Certificate{Certificate: chain, PrivateKey: key}
}

// siteURL is srv's URL with the host name site.example.com, which the
// probes of newLoopbackProbe resolve to loopback. Input validation refuses
// literal loopback addresses, as in production, but not names.
func siteURL(srv *httptest.Server) string {
	return "http://site.example.com:" + strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
}

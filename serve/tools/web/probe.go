package web

import (
	"bufio"
	"context"
	"crypto/x509"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// ProbeConfig configures extract_tables, ping_status and domain_intel. Every
// upstream is configurable so tests point them at local fakes. The zero
// value is the production setup.
type ProbeConfig struct {
	// PingTimeout caps one ping_status call, redirects included; default
	// 20 s.
	PingTimeout time.Duration
	// RootCAs verifies certificates for ping_status; nil means the system
	// roots.
	RootCAs *x509.CertPool
	// DNSServer is the recursive resolver ("host:port") domain_intel asks;
	// default the first nameserver of /etc/resolv.conf, else 1.1.1.1:53.
	DNSServer string
	// DNSTimeout caps each DNS query; default 4 s.
	DNSTimeout time.Duration
	// RDAPBootstrapURL is the IANA RDAP bootstrap file for domains; default
	// https://data.iana.org/rdap/dns.json.
	RDAPBootstrapURL string
	// BootstrapTTL is how long the bootstrap file is kept; default 24 h.
	BootstrapTTL time.Duration
	// HomepageURL gives the page domain_intel reads for the tech check;
	// default "https://" + domain + "/" (http:// when https fails to
	// connect).
	HomepageURL func(domain string) string
	// Now is the clock (certificate days left, domain age); default
	// time.Now.
	Now func() time.Time
	// Logger receives debug records; default discards.
	Logger *slog.Logger
}

// DefaultRDAPBootstrapURL is IANA's bootstrap registry for domain names.
const DefaultRDAPBootstrapURL = "https://data.iana.org/rdap/dns.json"

// Probe serves extract_tables, ping_status and domain_intel. Every request
// to a target goes through the guarded fetch client; DNS goes to the
// configured resolver.
type Probe struct {
	fetch *fetch.Client
	cfg   ProbeConfig

	bootMu sync.Mutex
	boot   *rdapBootstrap
}

// NewProbe returns a Probe using fc for every HTTP request.
func NewProbe(fc *fetch.Client, cfg ProbeConfig) *Probe {
	if cfg.PingTimeout <= 0 {
		cfg.PingTimeout = 20 * time.Second
	}
	if cfg.DNSServer == "" {
		cfg.DNSServer = systemResolver("/etc/resolv.conf")
	}
	if cfg.DNSTimeout <= 0 {
		cfg.DNSTimeout = 4 * time.Second
	}
	if cfg.RDAPBootstrapURL == "" {
		cfg.RDAPBootstrapURL = DefaultRDAPBootstrapURL
	}
	if cfg.BootstrapTTL <= 0 {
		cfg.BootstrapTTL = 24 * time.Hour
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Probe{fetch: fc, cfg: cfg}
}

func (p *Probe) now() time.Time { return p.cfg.Now() }

// systemResolver is the first nameserver of a resolv.conf, or 1.1.1.1:53.
func systemResolver(path string) string {
	f, err := os.Open(path)
	if err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) >= 2 && fields[0] == "nameserver" {
				return net.JoinHostPort(fields[1], "53")
			}
		}
	}
	return "1.1.1.1:53"
}

// Endpoints returns the registry entries of the three tools.
func (p *Probe) Endpoints() []*registry.Endpoint {
	checkURL := func(raw string) error {
		// The client's own check (its port policy included) runs before
		// payment, so a literal private address is a 400 nobody pays for.
		_, err := p.fetch.CheckURL(raw)
		return err
	}
	return []*registry.Endpoint{
		registry.Spec[TablesInput]{
			Name: "extract_tables", Method: http.MethodPost, Path: "/v1/pdf-tables", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Extract the tables of a web page or PDF as rows and records keyed by column header.",
			Description: "HTML: every <table> with rowspan and colspan expanded into a rectangular grid, header rows " +
				"from thead or th, and the caption. PDF (up to 10 MB, 30 pages, no OCR): ruled tables from their ruling " +
				"lines and unruled tables from text aligned in columns, with the page number.",
			Output: TablesOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *TablesInput) error { return checkURL(in.URL) },
			Handle: func(ctx context.Context, in *TablesInput) (*registry.Result, error) {
				out, err := p.extractTables(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[PingInput]{
			Name: "ping_status", Method: http.MethodPost, Path: "/v1/ping-status", Group: registry.GroupTools,
			Price:   "0.0002",
			Summary: "Check whether a URL is up: status, response time, redirect chain, security headers and TLS certificate.",
			Description: "A target that cannot be reached (DNS failure, refused connection, timeout) is a normal answer " +
				"with up=false and the reason; an address that is not public is refused with 403.",
			Output: PingOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *PingInput) error { return checkURL(in.URL) },
			Handle: func(ctx context.Context, in *PingInput) (*registry.Result, error) {
				out, err := p.ping(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[DomainInput]{
			Name: "domain_intel", Method: http.MethodPost, Path: "/v1/domain", Group: registry.GroupTools,
			Price:   "0.0004",
			Summary: "Domain intelligence: registration (RDAP), DNS records with the providers behind them, and the web tech stack.",
			Description: "registration: registrar, dates, status, nameservers and DNSSEC from the registry's RDAP server. " +
				"dns: A, AAAA, MX, NS, TXT, CAA, SOA and DMARC, with DNS, mail and hosting providers. tech: technologies " +
				"detected on the homepage, each with the evidence that matched.",
			Output: DomainOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			// DomainInput.Validate already refused private names.
			Handle: func(ctx context.Context, in *DomainInput) (*registry.Result, error) {
				out, err := p.domainIntel(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
	}
}

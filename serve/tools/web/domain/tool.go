package domain

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
)

// Config configures domain_intel. Every upstream is configurable so tests
// point them at local fakes. The zero value is the production setup.
type Config struct {
	// DNSServer is the recursive resolver ("host:port") asked; default the
	// first nameserver of /etc/resolv.conf, else 1.1.1.1:53.
	DNSServer string
	// DNSTimeout caps each DNS query; default 4 s.
	DNSTimeout time.Duration
	// RDAPBootstrapURL is the IANA RDAP bootstrap file for domains;
	// default DefaultRDAPBootstrapURL.
	RDAPBootstrapURL string
	// BootstrapTTL is how long the bootstrap file is kept; default 24 h.
	BootstrapTTL time.Duration
	// HomepageURL gives the page read for the tech check; default
	// "https://" + domain + "/" (http:// when https fails to connect).
	HomepageURL func(domain string) string
	// Now is the clock (domain age, bootstrap expiry); default time.Now.
	Now func() time.Time
}

// DefaultRDAPBootstrapURL is IANA's bootstrap registry for domain names.
const DefaultRDAPBootstrapURL = "https://data.iana.org/rdap/dns.json"

// Tool serves domain_intel. Every HTTP request goes through the guarded
// fetch client; DNS goes to the configured resolver.
type Tool struct {
	fetch *fetch.Client
	cfg   Config

	bootMu sync.Mutex
	boot   *rdapBootstrap
}

// New returns the tool using fc for every HTTP request.
func New(fc *fetch.Client, cfg Config) *Tool {
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
	return &Tool{fetch: fc, cfg: cfg}
}

func (p *Tool) now() time.Time { return p.cfg.Now() }

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

// Endpoint returns the registry entry of domain_intel.
func (p *Tool) Endpoint() *registry.Endpoint {
	return registry.Spec[Input]{
		Name: "domain_intel", Method: http.MethodPost, Path: "/v1/domain", Group: registry.GroupTools,
		Price:   "0.0004",
		Summary: "Domain intelligence: registration (RDAP), DNS records with the providers behind them, and the web tech stack.",
		Description: "registration: registrar, dates, status, nameservers and DNSSEC from the registry's RDAP server. " +
			"dns: A, AAAA, MX, NS, TXT, CAA, SOA and DMARC, with DNS, mail and hosting providers. tech: technologies " +
			"detected on the homepage, each with the evidence that matched.",
		Output: Output{},
		Tool:   &registry.Tool{OpenWorld: true},
		// Input.Validate already refused private names.
		Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
			out, err := p.domainIntel(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}

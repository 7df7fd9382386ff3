package web

import (
	"crypto/x509"
	"log/slog"
	"time"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/web/domain"
	"github.com/openshelf/openshelf/serve/tools/web/ping"
	"github.com/openshelf/openshelf/serve/tools/web/tables"
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
	// Logger receives debug records; default discards. (No tool of the
	// probe logs today; the field is kept for the server's config.)
	Logger *slog.Logger
}

// DefaultRDAPBootstrapURL is IANA's bootstrap registry for domain names.
const DefaultRDAPBootstrapURL = domain.DefaultRDAPBootstrapURL

// Probe is the family of extract_tables, ping_status and domain_intel, each
// built from its own package. Every request to a target goes through the
// guarded fetch client; DNS goes to the configured resolver.
type Probe struct {
	tables *tables.Tool
	ping   *ping.Tool
	domain *domain.Tool
}

// NewProbe returns a Probe using fc for every HTTP request.
func NewProbe(fc *fetch.Client, cfg ProbeConfig) *Probe {
	return &Probe{
		tables: tables.New(fc),
		ping:   ping.New(fc, ping.Config{Timeout: cfg.PingTimeout, RootCAs: cfg.RootCAs, Now: cfg.Now}),
		domain: domain.New(fc, domain.Config{
			DNSServer:        cfg.DNSServer,
			DNSTimeout:       cfg.DNSTimeout,
			RDAPBootstrapURL: cfg.RDAPBootstrapURL,
			BootstrapTTL:     cfg.BootstrapTTL,
			HomepageURL:      cfg.HomepageURL,
			Now:              cfg.Now,
		}),
	}
}

// Endpoints returns the registry entries of the three tools.
func (p *Probe) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{p.tables.Endpoint(), p.ping.Endpoint(), p.domain.Endpoint()}
}

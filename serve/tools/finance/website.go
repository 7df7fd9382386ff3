package finance

// This is the only file that uses the web family: company_snapshot checks
// a website with the ping_status and domain_intel tools of web.Probe, called
// in process through their registry entries (not over HTTP, and without a
// payment of their own).

import (
	"context"
	"net/url"
	"strings"
	"sync"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/tools/web"
	webdomain "github.com/openshelf/openshelf/serve/tools/web/domain"
	"github.com/openshelf/openshelf/serve/tools/web/ping"
)

// Website checks company websites with a web.Probe.
type Website struct {
	ping, intel *registry.Endpoint
	urlFor      func(domain string) string
}

// NewWebsite returns a checker using p (share the server's Probe, so its
// RDAP bootstrap cache is shared too). urlFor builds the URL ping_status
// checks for the domain input; nil means "https://" + domain + "/".
func NewWebsite(p *web.Probe, urlFor func(domain string) string) *Website {
	if urlFor == nil {
		urlFor = func(d string) string { return "https://" + d + "/" }
	}
	w := &Website{urlFor: urlFor}
	for _, e := range p.Endpoints() {
		switch e.Name {
		case "ping_status":
			w.ping = e
		case "domain_intel":
			w.intel = e
		}
	}
	return w
}

// WebsiteHealth is the website part of company_snapshot: the ping_status
// and domain_intel answers for the website. A check that failed or could
// not run leaves its part null and says why in Errors; a down site is an
// answer, not an error.
type WebsiteHealth struct {
	// Domain is the host checked: the domain input, or the host of the
	// website EDGAR records (an IP address when EDGAR records one).
	Domain string `json:"domain"`
	// Source is "input" (the domain parameter) or "edgar" (the website the
	// company records).
	Source string `json:"source"`
	// URL is the URL ping_status checked: for the website EDGAR records,
	// that website as recorded (scheme, host, port and path).
	URL         string            `json:"url"`
	Up          *bool             `json:"up"`
	Ping        *ping.Output      `json:"ping"`
	DomainIntel *webdomain.Output `json:"domain_intel"`
	Errors      []string          `json:"errors"`
}

// Check runs ping_status and domain_intel on domain, the domain input.
func (w *Website) Check(ctx context.Context, domain string) *WebsiteHealth {
	h := &WebsiteHealth{Domain: domain, Source: "input", URL: w.urlFor(domain), Errors: []string{}}
	w.run(ctx, h, domain)
	return h
}

// CheckRecorded checks the website EDGAR records as recorded: ping_status
// requests its own scheme, host, port and path through the guarded client,
// which reports a private address or a port it does not allow in Errors
// (never as "no website"). domain_intel runs on the host when it is a
// public domain name; for an IP address Errors says why it did not.
func (w *Website) CheckRecorded(ctx context.Context, website string) *WebsiteHealth {
	h := &WebsiteHealth{Source: "edgar", URL: website, Errors: []string{}}
	if u, err := url.Parse(website); err == nil {
		h.Domain = strings.ToLower(u.Hostname())
	}
	d, err := normalizeDomain(h.Domain)
	switch {
	case h.Domain == "":
		h.Errors = append(h.Errors, "domain_intel: not run: the recorded website has no host name")
	case err != nil:
		h.Errors = append(h.Errors, "domain_intel: not run: "+h.Domain+" "+strings.TrimPrefix(apierr.From(err).Message, "domain: "))
	default:
		h.Domain = d
	}
	w.run(ctx, h, d)
	return h
}

// run checks h.URL with ping_status and, unless domain is "", domain with
// domain_intel, in parallel.
func (w *Website) run(ctx context.Context, h *WebsiteHealth, domain string) {
	var mu sync.Mutex
	fail := func(check string, err error) {
		mu.Lock()
		defer mu.Unlock()
		h.Errors = append(h.Errors, check+": "+apierr.From(err).Message)
	}
	var wg sync.WaitGroup
	if w.ping != nil {
		wg.Go(func() {
			in := &ping.Input{URL: h.URL, Method: "HEAD", CheckSSL: true, FollowRedirects: true}
			res, err := w.ping.Handle(ctx, in)
			if err != nil {
				fail("ping_status", err)
				return
			}
			if p, ok := res.Value.(*ping.Output); ok {
				h.Ping = p
				up := p.Up
				h.Up = &up
			}
		})
	}
	if w.intel != nil && domain != "" {
		wg.Go(func() {
			res, err := w.intel.Handle(ctx, &webdomain.Input{Domain: domain})
			if err != nil {
				fail("domain_intel", err)
				return
			}
			if d, ok := res.Value.(*webdomain.Output); ok {
				h.DomainIntel = d
			}
		})
	}
	wg.Wait()
}

// normalizeDomain applies domain_intel's rules (IDN to punycode, a URL's
// host, no private names) so a bad domain is a 400 before payment.
func normalizeDomain(s string) (string, error) {
	in := &webdomain.Input{Domain: s}
	if err := in.Validate(); err != nil {
		return "", err
	}
	return in.Domain, nil
}

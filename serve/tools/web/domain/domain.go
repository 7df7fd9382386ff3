package domain

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// Input is the input of domain_intel.
type Input struct {
	Domain string   `json:"domain" doc:"A host name such as example.com or www.bücher.de (IDN is converted to punycode); a URL's host is taken." minLength:"1" maxLength:"253"`
	Checks []string `json:"checks,omitempty" doc:"Which checks to run; default all." enum:"registration|dns|tech" default:"registration|dns|tech" maxItems:"3"`
}

// Validate normalises Domain to lower-case ASCII and refuses names that
// can only mean something inside a private network.
func (in *Input) Validate() error {
	d, err := normalizeDomain(in.Domain)
	if err != nil {
		return apierr.Invalid("domain", err.Error())
	}
	in.Domain = d
	return nil
}

var errDomain = errors.New("invalid domain")

// normalizeDomain turns user input into an ASCII host name.
func normalizeDomain(s string) (string, error) {
	s = strings.TrimSpace(s)
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Hostname() == "" {
			return "", errors.New("is not a host name or URL")
		}
		s = u.Hostname()
	}
	s = strings.TrimSuffix(s, ".")
	if s == "" {
		return "", errors.New("is empty")
	}
	if strings.ContainsAny(s, "/:@?# \t") {
		return "", errors.New("must be a host name such as example.com")
	}
	if net.ParseIP(s) != nil {
		return "", errors.New("is an IP address, not a domain name")
	}
	a, err := idna.Lookup.ToASCII(s)
	if err != nil {
		return "", errors.New("is not a valid domain name")
	}
	a = strings.ToLower(a)
	if len(a) > 253 {
		return "", errors.New("is longer than 253 characters")
	}
	labels := strings.Split(a, ".")
	if len(labels) < 2 {
		return "", errors.New("needs at least two labels, like example.com")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 {
			return "", errors.New("has an empty or over-long label")
		}
	}
	// The guard's name rules (localhost, *.internal, *.local, ...).
	if _, err := fetch.CheckURL("https://" + a + "/"); err != nil {
		var fe *fetch.Error
		if errors.As(err, &fe) {
			return "", errors.New(strings.TrimPrefix(fe.Msg, "url: "))
		}
		return "", errDomain
	}
	return a, nil
}

// Output is the answer of domain_intel. A check that fails carries
// its own error; the call fails only when every requested check does.
type Output struct {
	Domain string `json:"domain"`
	// Unicode is the name in Unicode when it differs (IDN).
	Unicode string `json:"unicode,omitempty"`
	// Registrable is the registered domain (eTLD+1) that RDAP is asked
	// about.
	Registrable  string        `json:"registrable"`
	Checks       []string      `json:"checks"`
	Registration *Registration `json:"registration,omitempty"`
	DNS          *DNSInfo      `json:"dns,omitempty"`
	Tech         *TechInfo     `json:"tech,omitempty"`
}

func (p *Tool) domainIntel(ctx context.Context, in *Input) (*Output, error) {
	domain, err := normalizeDomain(in.Domain)
	if err != nil {
		return nil, apierr.Invalid("domain", err.Error())
	}
	checks := in.Checks
	if len(checks) == 0 {
		checks = []string{"registration", "dns", "tech"}
	}
	out := &Output{Domain: domain, Registrable: registrable(domain), Checks: []string{}}
	if u, err := idna.ToUnicode(domain); err == nil && u != domain {
		out.Unicode = u
	}
	var wg sync.WaitGroup
	var failed, ran int
	var mu sync.Mutex
	note := func(errText string) {
		mu.Lock()
		defer mu.Unlock()
		ran++
		if errText != "" {
			failed++
		}
	}
	for _, c := range []string{"registration", "dns", "tech"} {
		if !slices.Contains(checks, c) {
			continue
		}
		out.Checks = append(out.Checks, c)
		switch c {
		case "registration":
			wg.Go(func() {
				out.Registration = p.registration(ctx, out.Registrable)
				note(out.Registration.Error)
			})
		case "dns":
			wg.Go(func() {
				out.DNS = p.dnsInfo(ctx, domain, out.Registrable)
				note(out.DNS.Error)
			})
		case "tech":
			wg.Go(func() {
				out.Tech = p.techStack(ctx, domain)
				note(out.Tech.Error)
			})
		}
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if ran > 0 && failed == ran {
		return nil, apierr.New(apierr.ErrUpstream, "upstream_error", "every requested check failed: "+firstErrors(out))
	}
	return out, nil
}

func firstErrors(out *Output) string {
	var parts []string
	if out.Registration != nil && out.Registration.Error != "" {
		parts = append(parts, "registration: "+out.Registration.Error)
	}
	if out.DNS != nil && out.DNS.Error != "" {
		parts = append(parts, "dns: "+out.DNS.Error)
	}
	if out.Tech != nil && out.Tech.Error != "" {
		parts = append(parts, "tech: "+out.Tech.Error)
	}
	return strings.Join(parts, "; ")
}

// registrable is the eTLD+1 of domain, or domain itself when it is a
// public suffix or unknown.
func registrable(domain string) string {
	r, err := publicsuffix.EffectiveTLDPlusOne(domain)
	if err != nil {
		return domain
	}
	return r
}

package domain

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/openrdap/rdap"

	"github.com/openshelf/openshelf/serve/fetch"
)

// Registration is the RDAP record of the registered domain.
type Registration struct {
	// Server is the RDAP base URL asked (from the IANA bootstrap).
	Server string `json:"server,omitempty"`
	// Found is false when the registry has no such domain (RDAP 404).
	Found       bool       `json:"found"`
	Handle      string     `json:"handle,omitempty"`
	Name        string     `json:"name,omitempty"`
	Registrar   *Registrar `json:"registrar,omitempty"`
	Created     string     `json:"created,omitempty"`
	Updated     string     `json:"updated,omitempty"`
	Expires     string     `json:"expires,omitempty"`
	AgeDays     *int       `json:"age_days,omitempty"`
	ExpiresDays *int       `json:"expires_in_days,omitempty"`
	Status      []string   `json:"status,omitempty"`
	Nameservers []string   `json:"nameservers,omitempty"`
	DNSSEC      *DNSSEC    `json:"dnssec,omitempty"`
	Error       string     `json:"error,omitempty"`
}

// Registrar is the sponsoring registrar.
type Registrar struct {
	Name       string `json:"name,omitempty"`
	IANAID     string `json:"iana_id,omitempty"`
	URL        string `json:"url,omitempty"`
	AbuseEmail string `json:"abuse_email,omitempty"`
	AbusePhone string `json:"abuse_phone,omitempty"`
}

// DNSSEC is the delegation's signing state.
type DNSSEC struct {
	DelegationSigned bool `json:"delegation_signed"`
	DSRecords        int  `json:"ds_records"`
}

// rdapBootstrap is the parsed IANA dns.json: TLD (or longer suffix) → base
// URLs.
type rdapBootstrap struct {
	fetched time.Time
	bases   map[string][]string
}

// maxRDAPBytes caps bootstrap and RDAP responses (dns.json is ~100 kB).
const maxRDAPBytes = 2 << 20

func (p *Tool) bootstrap(ctx context.Context) (*rdapBootstrap, error) {
	p.bootMu.Lock()
	defer p.bootMu.Unlock()
	if p.boot != nil && p.now().Sub(p.boot.fetched) < p.cfg.BootstrapTTL {
		return p.boot, nil
	}
	resp, err := p.fetch.Get(ctx, p.cfg.RDAPBootstrapURL, fetch.Options{
		MaxBytes:     maxRDAPBytes,
		IgnoreRobots: true, // a registry file, not crawling
		Header:       http.Header{"Accept": {"application/json"}},
	})
	if err != nil {
		return nil, err
	}
	if err := resp.CheckStatus(); err != nil {
		return nil, err
	}
	var doc struct {
		Services [][][]string `json:"services"`
	}
	if err := json.Unmarshal(resp.Body, &doc); err != nil {
		return nil, errors.New("the RDAP bootstrap file is not valid JSON")
	}
	b := &rdapBootstrap{fetched: p.now(), bases: map[string][]string{}}
	for _, svc := range doc.Services {
		if len(svc) < 2 {
			continue
		}
		for _, tld := range svc[0] {
			b.bases[strings.ToLower(strings.Trim(tld, "."))] = svc[1]
		}
	}
	if len(b.bases) == 0 {
		return nil, errors.New("the RDAP bootstrap file lists no services")
	}
	p.boot = b
	return b, nil
}

// base finds the RDAP base URL for a domain: the longest matching suffix
// (RFC 9224 section 4), preferring https.
func (b *rdapBootstrap) base(domain string) string {
	labels := strings.Split(domain, ".")
	for i := range labels {
		if urls, ok := b.bases[strings.Join(labels[i:], ".")]; ok && i > 0 {
			for _, u := range urls {
				if strings.HasPrefix(u, "https://") {
					return u
				}
			}
			if len(urls) > 0 {
				return urls[0]
			}
		}
	}
	return ""
}

// registration looks the registered domain up over RDAP.
func (p *Tool) registration(ctx context.Context, name string) *Registration {
	reg := &Registration{}
	boot, err := p.bootstrap(ctx)
	if err != nil {
		reg.Error = "RDAP bootstrap: " + clientMessage(err)
		return reg
	}
	base := boot.base(name)
	if base == "" {
		reg.Error = "no RDAP service is registered for ." + name[strings.LastIndexByte(name, '.')+1:]
		return reg
	}
	reg.Server = base
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	u, err := url.Parse(base)
	if err != nil {
		reg.Error = "the bootstrap lists an invalid RDAP URL"
		return reg
	}
	u = u.JoinPath("domain", name)
	resp, err := p.fetch.Get(ctx, u.String(), fetch.Options{
		MaxBytes:     maxRDAPBytes,
		IgnoreRobots: true, // an API the registry publishes for exactly this
		Header:       http.Header{"Accept": {"application/rdap+json, application/json"}},
	})
	if err != nil {
		reg.Error = clientMessage(err)
		return reg
	}
	if resp.Status == http.StatusNotFound {
		return reg // not registered (or not in this registry)
	}
	if err := resp.CheckStatus(); err != nil {
		reg.Error = clientMessage(err)
		return reg
	}
	v, err := rdap.NewDecoder(resp.Body).Decode()
	if err != nil {
		reg.Error = "the RDAP answer is not valid JSON"
		return reg
	}
	switch d := v.(type) {
	case *rdap.Domain:
		p.fillRegistration(reg, d)
	case *rdap.Error:
		reg.Error = "RDAP error " + strings.TrimSpace(strings.Join(append([]string{d.Title}, d.Description...), " "))
	default:
		reg.Error = "the RDAP answer is not a domain object"
	}
	return reg
}

func (p *Tool) fillRegistration(reg *Registration, d *rdap.Domain) {
	reg.Found = true
	reg.Handle = d.Handle
	reg.Name = strings.ToLower(d.LDHName)
	reg.Status = d.Status
	for _, ns := range d.Nameservers {
		if n := strings.TrimSuffix(strings.ToLower(ns.LDHName), "."); n != "" {
			reg.Nameservers = append(reg.Nameservers, n)
		}
	}
	now := p.now()
	for _, e := range d.Events {
		switch strings.ToLower(e.Action) {
		case "registration":
			reg.Created = e.Date
			if t, ok := parseRDAPTime(e.Date); ok {
				days := int(now.Sub(t).Hours() / 24)
				reg.AgeDays = &days
			}
		case "last changed":
			reg.Updated = e.Date
		case "expiration":
			reg.Expires = e.Date
			if t, ok := parseRDAPTime(e.Date); ok {
				days := int(t.Sub(now).Hours() / 24)
				reg.ExpiresDays = &days
			}
		}
	}
	if sd := d.SecureDNS; sd != nil {
		reg.DNSSEC = &DNSSEC{DSRecords: len(sd.DS)}
		if sd.DelegationSigned != nil {
			reg.DNSSEC.DelegationSigned = *sd.DelegationSigned
		} else {
			reg.DNSSEC.DelegationSigned = len(sd.DS) > 0 || len(sd.Keys) > 0
		}
	}
	for i := range d.Entities {
		e := &d.Entities[i]
		if !hasRole(e.Roles, "registrar") {
			continue
		}
		r := &Registrar{Name: e.Handle}
		if e.VCard != nil && e.VCard.Name() != "" {
			r.Name = e.VCard.Name()
		}
		for _, id := range e.PublicIDs {
			if strings.Contains(strings.ToLower(id.Type), "iana") {
				r.IANAID = id.Identifier
			}
		}
		for _, l := range e.Links {
			if l.Rel == "about" || (r.URL == "" && l.Rel != "self" && strings.HasPrefix(l.Href, "http")) {
				r.URL = l.Href
			}
		}
		for j := range e.Entities {
			a := &e.Entities[j]
			if hasRole(a.Roles, "abuse") && a.VCard != nil {
				r.AbuseEmail = a.VCard.Email()
				r.AbusePhone = strings.TrimPrefix(a.VCard.Tel(), "tel:")
			}
		}
		reg.Registrar = r
		break
	}
}

func hasRole(roles []string, role string) bool {
	for _, r := range roles {
		if strings.EqualFold(r, role) {
			return true
		}
	}
	return false
}

func parseRDAPTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, time.RFC3339, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// clientMessage is the client-safe message of a fetch error (it never
// names internal addresses).
func clientMessage(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Msg != "" {
		return fe.Msg
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timed out"
	}
	return err.Error()
}

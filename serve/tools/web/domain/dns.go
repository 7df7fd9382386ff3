package domain

import (
	"context"
	"errors"
	"net"
	"slices"
	"strings"
	"sync"

	"github.com/miekg/dns"
)

// DNSInfo is the dns check of domain_intel.
type DNSInfo struct {
	// NXDomain: the resolver says the name does not exist.
	NXDomain bool     `json:"nxdomain,omitempty"`
	A        []string `json:"a"`
	AAAA     []string `json:"aaaa"`
	// CNAME is the alias chain the A query followed, in order.
	CNAME []string   `json:"cname,omitempty"`
	MX    []MXRecord `json:"mx"`
	// NS and SOA are of the registered domain (the zone apex).
	NS  []string    `json:"ns"`
	TXT []string    `json:"txt"`
	CAA []CAARecord `json:"caa"`
	SOA *SOARecord  `json:"soa,omitempty"`
	// SPF is the v=spf1 TXT record, SPFIncludes its include: and redirect=
	// domains (one level; they are not resolved further).
	SPF         string   `json:"spf,omitempty"`
	SPFIncludes []string `json:"spf_includes,omitempty"`
	// DMARC is the v=DMARC1 record at _dmarc of the registered domain.
	DMARC     string     `json:"dmarc,omitempty"`
	Providers []Provider `json:"providers"`
	// Errors by record type, for queries that failed.
	Errors map[string]string `json:"errors,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// MXRecord is a mail exchanger.
type MXRecord struct {
	Preference uint16 `json:"preference"`
	Host       string `json:"host"`
}

// CAARecord is a certification authority authorisation.
type CAARecord struct {
	Flag  uint8  `json:"flag"`
	Tag   string `json:"tag"`
	Value string `json:"value"`
}

// SOARecord is the start of authority of the zone.
type SOARecord struct {
	MName   string `json:"mname"`
	RName   string `json:"rname"`
	Serial  uint32 `json:"serial"`
	Refresh uint32 `json:"refresh"`
	Retry   uint32 `json:"retry"`
	Expire  uint32 `json:"expire"`
	MinTTL  uint32 `json:"minimum"`
}

// maxRecords caps the records kept per type.
const maxRecords = 50

// dnsQuery asks the configured resolver, over UDP and again over TCP when
// the answer is truncated.
func (p *Tool) dnsQuery(ctx context.Context, name string, qtype uint16) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(dns.Fqdn(name), qtype)
	m.RecursionDesired = true
	m.SetEdns0(1232, false)
	qctx, cancel := context.WithTimeout(ctx, p.cfg.DNSTimeout)
	defer cancel()
	c := &dns.Client{Net: "udp", Timeout: p.cfg.DNSTimeout}
	r, _, err := c.ExchangeContext(qctx, m, p.cfg.DNSServer)
	if err == nil && r.Truncated {
		c.Net = "tcp"
		r, _, err = c.ExchangeContext(qctx, m, p.cfg.DNSServer)
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return nil, errors.New("the resolver did not answer in time")
		}
		return nil, errors.New("the resolver could not be queried")
	}
	if r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError {
		return nil, errors.New("the resolver answered " + dns.RcodeToString[r.Rcode])
	}
	return r, nil
}

// dnsInfo runs the record queries in parallel.
func (p *Tool) dnsInfo(ctx context.Context, name, apex string) *DNSInfo {
	info := &DNSInfo{A: []string{}, AAAA: []string{}, MX: []MXRecord{}, NS: []string{}, TXT: []string{},
		CAA: []CAARecord{}, Providers: []Provider{}}
	type query struct {
		label string
		name  string
		qtype uint16
	}
	queries := []query{
		{"A", name, dns.TypeA}, {"AAAA", name, dns.TypeAAAA}, {"MX", name, dns.TypeMX},
		{"TXT", name, dns.TypeTXT}, {"CAA", name, dns.TypeCAA},
		{"NS", apex, dns.TypeNS}, {"SOA", apex, dns.TypeSOA}, {"DMARC", "_dmarc." + apex, dns.TypeTXT},
	}
	answers := make([]*dns.Msg, len(queries))
	errs := make([]error, len(queries))
	var wg sync.WaitGroup
	for i, q := range queries {
		wg.Go(func() { answers[i], errs[i] = p.dnsQuery(ctx, q.name, q.qtype) })
	}
	wg.Wait()

	failed := 0
	for i, q := range queries {
		if errs[i] != nil {
			failed++
			if info.Errors == nil {
				info.Errors = map[string]string{}
			}
			info.Errors[q.label] = errs[i].Error()
			continue
		}
		r := answers[i]
		if r.Rcode == dns.RcodeNameError && q.name == name {
			info.NXDomain = true
		}
		for _, rr := range r.Answer {
			switch v := rr.(type) {
			case *dns.A:
				if q.qtype == dns.TypeA {
					info.A = appendCapped(info.A, v.A.String())
				}
			case *dns.AAAA:
				if q.qtype == dns.TypeAAAA {
					info.AAAA = appendCapped(info.AAAA, v.AAAA.String())
				}
			case *dns.CNAME:
				if q.qtype == dns.TypeA {
					info.CNAME = appendCapped(info.CNAME, dnsHostName(v.Target))
				}
			case *dns.MX:
				if len(info.MX) < maxRecords {
					info.MX = append(info.MX, MXRecord{Preference: v.Preference, Host: dnsHostName(v.Mx)})
				}
			case *dns.NS:
				info.NS = appendCapped(info.NS, dnsHostName(v.Ns))
			case *dns.TXT:
				txt := strings.Join(v.Txt, "")
				if q.label == "DMARC" {
					if strings.HasPrefix(strings.ToLower(txt), "v=dmarc1") {
						info.DMARC = txt
					}
					continue
				}
				info.TXT = appendCapped(info.TXT, txt)
			case *dns.CAA:
				if len(info.CAA) < maxRecords {
					info.CAA = append(info.CAA, CAARecord{Flag: v.Flag, Tag: v.Tag, Value: v.Value})
				}
			case *dns.SOA:
				info.SOA = &SOARecord{MName: dnsHostName(v.Ns), RName: dnsHostName(v.Mbox), Serial: v.Serial,
					Refresh: v.Refresh, Retry: v.Retry, Expire: v.Expire, MinTTL: v.Minttl}
			}
		}
	}
	if failed == len(queries) {
		info.Error = "DNS lookups failed: " + errs[0].Error()
		return info
	}
	slices.SortStableFunc(info.MX, func(a, b MXRecord) int { return int(a.Preference) - int(b.Preference) })
	slices.Sort(info.NS)
	for _, t := range info.TXT {
		if strings.HasPrefix(strings.ToLower(t), "v=spf1") {
			info.SPF = t
			info.SPFIncludes = spfIncludes(t)
			break
		}
	}
	info.Providers = detectProviders(info)
	return info
}

func appendCapped(list []string, s string) []string {
	if len(list) >= maxRecords || slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// hostName is a DNS name without the root dot, lower case.
func dnsHostName(s string) string { return strings.ToLower(strings.TrimSuffix(s, ".")) }

// spfIncludes lists the include: and redirect= domains of an SPF record.
func spfIncludes(spf string) []string {
	var out []string
	for _, term := range strings.Fields(spf) {
		t := strings.TrimLeft(strings.ToLower(term), "+-~?")
		var d string
		switch {
		case strings.HasPrefix(t, "include:"):
			d = t[len("include:"):]
		case strings.HasPrefix(t, "redirect="):
			d = t[len("redirect="):]
		default:
			continue
		}
		if d != "" && len(out) < maxRecords && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

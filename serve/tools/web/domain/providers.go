package domain

import (
	"net/netip"
	"strings"
)

// Provider is a company behind some of a domain's records.
type Provider struct {
	Name string `json:"name"`
	// Role is dns (name servers), email (MX or SPF), or hosting (the
	// address or alias the site points at: CDN, cloud, platform).
	Role string `json:"role"`
	// Evidence lists the record values that matched.
	Evidence []string `json:"evidence"`
}

// hostRule maps a host name suffix (or, when contains is set, a substring)
// to a provider.
type hostRule struct {
	suffix   string
	contains bool
	name     string
}

// Provider tables: a small, hand-kept list of the common operators, matched
// on the host names in NS, MX and CNAME records and the SPF includes.
var (
	nsRules = []hostRule{
		{suffix: "ns.cloudflare.com", name: "Cloudflare"},
		{suffix: "cloudflare.com", name: "Cloudflare"},
		{suffix: ".awsdns-", contains: true, name: "Amazon Route 53"},
		{suffix: "googledomains.com", name: "Google Cloud DNS"},
		{suffix: "google.com", name: "Google"},
		{suffix: "azure-dns.com", name: "Azure DNS"},
		{suffix: "azure-dns.net", name: "Azure DNS"},
		{suffix: "azure-dns.org", name: "Azure DNS"},
		{suffix: "azure-dns.info", name: "Azure DNS"},
		{suffix: "domaincontrol.com", name: "GoDaddy"},
		{suffix: "registrar-servers.com", name: "Namecheap"},
		{suffix: "nsone.net", name: "NS1"},
		{suffix: "akam.net", name: "Akamai Edge DNS"},
		{suffix: "ultradns.com", name: "UltraDNS"},
		{suffix: "ultradns.net", name: "UltraDNS"},
		{suffix: "ultradns.org", name: "UltraDNS"},
		{suffix: "ultradns.biz", name: "UltraDNS"},
		{suffix: "dynect.net", name: "Oracle Dyn"},
		{suffix: "dnsimple.com", name: "DNSimple"},
		{suffix: "digitalocean.com", name: "DigitalOcean"},
		{suffix: "linode.com", name: "Akamai Linode"},
		{suffix: "hetzner.com", name: "Hetzner"},
		{suffix: "hetzner.de", name: "Hetzner"},
		{suffix: "ovh.net", name: "OVHcloud"},
		{suffix: "gandi.net", name: "Gandi"},
		{suffix: "vercel-dns.com", name: "Vercel"},
		{suffix: "wixdns.net", name: "Wix"},
		{suffix: "squarespacedns.com", name: "Squarespace"},
		{suffix: "iana-servers.net", name: "IANA"},
	}
	mxRules = []hostRule{
		{suffix: "google.com", name: "Google Workspace"},
		{suffix: "googlemail.com", name: "Google Workspace"},
		{suffix: "mail.protection.outlook.com", name: "Microsoft 365"},
		{suffix: "outlook.com", name: "Microsoft 365"},
		{suffix: "pphosted.com", name: "Proofpoint"},
		{suffix: "mimecast.com", name: "Mimecast"},
		{suffix: "zoho.com", name: "Zoho Mail"},
		{suffix: "zoho.eu", name: "Zoho Mail"},
		{suffix: "protonmail.ch", name: "Proton Mail"},
		{suffix: "messagingengine.com", name: "Fastmail"},
		{suffix: "mailgun.org", name: "Mailgun"},
		{suffix: "sendgrid.net", name: "SendGrid"},
		{suffix: "amazonaws.com", name: "Amazon SES"},
		{suffix: "icloud.com", name: "iCloud Mail"},
		{suffix: "yandex.net", name: "Yandex Mail"},
		{suffix: "secureserver.net", name: "GoDaddy"},
		{suffix: "barracudanetworks.com", name: "Barracuda"},
		{suffix: "mx.cloudflare.net", name: "Cloudflare Email Routing"},
	}
	spfRules = []hostRule{
		{suffix: "_spf.google.com", name: "Google Workspace"},
		{suffix: "spf.protection.outlook.com", name: "Microsoft 365"},
		{suffix: "amazonses.com", name: "Amazon SES"},
		{suffix: "sendgrid.net", name: "SendGrid"},
		{suffix: "mailgun.org", name: "Mailgun"},
		{suffix: "servers.mcsv.net", name: "Mailchimp"},
		{suffix: "spf.mandrillapp.com", name: "Mailchimp Transactional"},
		{suffix: "_spf.salesforce.com", name: "Salesforce"},
		{suffix: "mail.zendesk.com", name: "Zendesk"},
		{suffix: "mktomail.com", name: "Marketo"},
		{suffix: "spf.protonmail.ch", name: "Proton Mail"},
		{suffix: "zoho.com", name: "Zoho Mail"},
		{suffix: "zoho.eu", name: "Zoho Mail"},
		{suffix: "_spf.atlassian.net", name: "Atlassian"},
		{suffix: "spf.messagingengine.com", name: "Fastmail"},
		{suffix: "_spf.mx.cloudflare.net", name: "Cloudflare Email Routing"},
		{suffix: "hubspotemail.net", name: "HubSpot"},
		{suffix: "postmarkapp.com", name: "Postmark"},
	}
	cnameRules = []hostRule{
		{suffix: "cloudfront.net", name: "Amazon CloudFront"},
		{suffix: "elb.amazonaws.com", name: "AWS Elastic Load Balancing"},
		{suffix: "s3-website", contains: true, name: "Amazon S3"},
		{suffix: "fastly.net", name: "Fastly"},
		{suffix: "fastlylb.net", name: "Fastly"},
		{suffix: "akamaiedge.net", name: "Akamai"},
		{suffix: "akamai.net", name: "Akamai"},
		{suffix: "edgekey.net", name: "Akamai"},
		{suffix: "edgesuite.net", name: "Akamai"},
		{suffix: "cdn.cloudflare.net", name: "Cloudflare"},
		{suffix: "azureedge.net", name: "Microsoft Azure CDN"},
		{suffix: "azurefd.net", name: "Azure Front Door"},
		{suffix: "azurewebsites.net", name: "Azure App Service"},
		{suffix: "trafficmanager.net", name: "Azure Traffic Manager"},
		{suffix: "herokudns.com", name: "Heroku"},
		{suffix: "herokuapp.com", name: "Heroku"},
		{suffix: "github.io", name: "GitHub Pages"},
		{suffix: "vercel-dns.com", name: "Vercel"},
		{suffix: "vercel.app", name: "Vercel"},
		{suffix: "netlify.app", name: "Netlify"},
		{suffix: "netlifyglobalcdn.com", name: "Netlify"},
		{suffix: "myshopify.com", name: "Shopify"},
		{suffix: "shops.myshopify.com", name: "Shopify"},
		{suffix: "ghs.googlehosted.com", name: "Google"},
		{suffix: "googlehosted.com", name: "Google"},
		{suffix: "wpengine.com", name: "WP Engine"},
		{suffix: "squarespace.com", name: "Squarespace"},
		{suffix: "wixdns.net", name: "Wix"},
		{suffix: "pages.dev", name: "Cloudflare Pages"},
		{suffix: "fly.dev", name: "Fly.io"},
	}
)

// ipRule maps a published address range to a hosting provider.
type ipRule struct {
	prefix netip.Prefix
	name   string
}

// A few ranges the operators publish (Cloudflare's ips-v4/ips-v6, Fastly's
// public-ip-list, GitHub Pages' documented addresses, Vercel's anycast).
var ipRules = func() []ipRule {
	table := []struct{ prefix, name string }{
		{"173.245.48.0/20", "Cloudflare"}, {"103.21.244.0/22", "Cloudflare"}, {"103.22.200.0/22", "Cloudflare"},
		{"103.31.4.0/22", "Cloudflare"}, {"141.101.64.0/18", "Cloudflare"}, {"108.162.192.0/18", "Cloudflare"},
		{"190.93.240.0/20", "Cloudflare"}, {"188.114.96.0/20", "Cloudflare"}, {"197.234.240.0/22", "Cloudflare"},
		{"198.41.128.0/17", "Cloudflare"}, {"162.158.0.0/15", "Cloudflare"}, {"104.16.0.0/13", "Cloudflare"},
		{"104.24.0.0/14", "Cloudflare"}, {"172.64.0.0/13", "Cloudflare"}, {"131.0.72.0/22", "Cloudflare"},
		{"2400:cb00::/32", "Cloudflare"}, {"2606:4700::/32", "Cloudflare"}, {"2803:f800::/32", "Cloudflare"},
		{"2405:b500::/32", "Cloudflare"}, {"2405:8100::/32", "Cloudflare"}, {"2a06:98c0::/29", "Cloudflare"},
		{"2c0f:f248::/32", "Cloudflare"},
		{"151.101.0.0/16", "Fastly"}, {"199.232.0.0/16", "Fastly"}, {"23.235.32.0/20", "Fastly"},
		{"2a04:4e40::/32", "Fastly"}, {"2a04:4e42::/32", "Fastly"},
		{"185.199.108.0/22", "GitHub Pages"}, {"2606:50c0::/32", "GitHub Pages"},
		{"76.76.21.0/24", "Vercel"},
	}
	out := make([]ipRule, len(table))
	for i, r := range table {
		out[i] = ipRule{netip.MustParsePrefix(r.prefix), r.name}
	}
	return out
}()

func matchHost(rules []hostRule, host string) string {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, r := range rules {
		if r.contains {
			if strings.Contains(h, r.suffix) {
				return r.name
			}
			continue
		}
		if h == r.suffix || strings.HasSuffix(h, "."+r.suffix) {
			return r.name
		}
	}
	return ""
}

// detectProviders maps the records of info to providers.
func detectProviders(info *DNSInfo) []Provider {
	out := []Provider{}
	add := func(name, role, evidence string) {
		if name == "" {
			return
		}
		for i := range out {
			if out[i].Name == name && out[i].Role == role {
				for _, e := range out[i].Evidence {
					if e == evidence {
						return
					}
				}
				if len(out[i].Evidence) < 10 {
					out[i].Evidence = append(out[i].Evidence, evidence)
				}
				return
			}
		}
		out = append(out, Provider{Name: name, Role: role, Evidence: []string{evidence}})
	}
	for _, ns := range info.NS {
		add(matchHost(nsRules, ns), "dns", "NS "+ns)
	}
	for _, mx := range info.MX {
		add(matchHost(mxRules, mx.Host), "email", "MX "+mx.Host)
	}
	for _, inc := range info.SPFIncludes {
		add(matchHost(spfRules, inc), "email", "SPF include:"+inc)
	}
	for _, c := range info.CNAME {
		add(matchHost(cnameRules, c), "hosting", "CNAME "+c)
	}
	for _, list := range [][]string{info.A, info.AAAA} {
		for _, s := range list {
			a, err := netip.ParseAddr(s)
			if err != nil {
				continue
			}
			for _, r := range ipRules {
				if r.prefix.Contains(a) {
					add(r.name, "hosting", "address "+s)
					break
				}
			}
		}
	}
	return out
}

package domain

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
)

// TechInfo is the tech check of domain_intel: what the homepage runs on.
type TechInfo struct {
	URL          string       `json:"url,omitempty"`
	FinalURL     string       `json:"final_url,omitempty"`
	Status       int          `json:"status,omitempty"`
	Technologies []Technology `json:"technologies"`
	Error        string       `json:"error,omitempty"`
}

// Technology is one detection with the evidence that matched.
type Technology struct {
	Name     string     `json:"name"`
	Category string     `json:"category"`
	Version  string     `json:"version,omitempty"`
	Evidence []Evidence `json:"evidence"`
}

// Evidence is one matched signal: Source is header, cookie, meta,
// script, html or implied; Key names the header, cookie or meta.
type Evidence struct {
	Source string `json:"source"`
	Key    string `json:"key,omitempty"`
	Value  string `json:"value"`
}

// techRule is one technology in the style of a Wappalyzer entry: any of
// the patterns matching detects it. Patterns are Go (RE2) regular
// expressions matched case-insensitively; the first capture group, if any,
// is the version. An empty header, cookie or meta pattern matches presence.
type techRule struct {
	name, category string
	headers        map[string]string
	cookies        map[string]string
	meta           map[string]string
	scripts        []string
	html           []string
	implies        []string
}

// techRules is the embedded rule table: a small, hand-written set of common
// technologies. It is deliberately not the Wappalyzer data set (GPL-3.0,
// see deps.md section 11).
var techRules = []techRule{
	// Web servers and proxies.
	{name: "Nginx", category: "Web server", headers: map[string]string{"Server": `nginx(?:/([\d.]+))?`}},
	{name: "OpenResty", category: "Web server", headers: map[string]string{"Server": `openresty(?:/([\d.]+))?`}, implies: []string{"Nginx"}},
	{name: "Apache HTTP Server", category: "Web server", headers: map[string]string{"Server": `apache(?:/([\d.]+))?`}},
	{name: "Microsoft IIS", category: "Web server", headers: map[string]string{"Server": `microsoft-iis(?:/([\d.]+))?`}},
	{name: "LiteSpeed", category: "Web server", headers: map[string]string{"Server": `litespeed`}},
	{name: "Caddy", category: "Web server", headers: map[string]string{"Server": `caddy`}},
	{name: "Envoy", category: "Web server", headers: map[string]string{"Server": `envoy`, "X-Envoy-Upstream-Service-Time": ``}},
	{name: "Varnish", category: "Cache", headers: map[string]string{"Via": `varnish`, "X-Varnish": ``}},
	// CDNs and platforms.
	{name: "Cloudflare", category: "CDN", headers: map[string]string{"Server": `^cloudflare$`, "Cf-Ray": ``}, cookies: map[string]string{"__cf_bm": ``, "__cfduid": ``}},
	{name: "Fastly", category: "CDN", headers: map[string]string{"X-Fastly-Request-Id": ``, "X-Served-By": `cache-[a-z0-9]+`}},
	{name: "Akamai", category: "CDN", headers: map[string]string{"X-Akamai-Transformed": ``, "Server": `akamaighost`}},
	{name: "Amazon CloudFront", category: "CDN", headers: map[string]string{"X-Amz-Cf-Id": ``, "Via": `cloudfront`}},
	{name: "Amazon S3", category: "Hosting", headers: map[string]string{"Server": `amazons3`}},
	{name: "Vercel", category: "Hosting", headers: map[string]string{"X-Vercel-Id": ``, "Server": `^vercel$`}},
	{name: "Netlify", category: "Hosting", headers: map[string]string{"X-Nf-Request-Id": ``, "Server": `^netlify$`}},
	{name: "GitHub Pages", category: "Hosting", headers: map[string]string{"Server": `^github\.com$`, "X-Github-Request-Id": ``}},
	{name: "Google Frontend", category: "Hosting", headers: map[string]string{"Server": `^(?:gws|google frontend)$`}},
	// Languages and frameworks.
	{name: "PHP", category: "Language", headers: map[string]string{"X-Powered-By": `php(?:/([\d.]+))?`}, cookies: map[string]string{"PHPSESSID": ``}},
	{name: "ASP.NET", category: "Framework", headers: map[string]string{"X-Powered-By": `asp\.net`, "X-Aspnet-Version": `([\d.]+)`}, cookies: map[string]string{"ASP.NET_SessionId": ``}},
	{name: "Express", category: "Framework", headers: map[string]string{"X-Powered-By": `^express$`}, implies: []string{"Node.js"}},
	{name: "Node.js", category: "Language"},
	{name: "Laravel", category: "Framework", cookies: map[string]string{"laravel_session": ``}, implies: []string{"PHP"}},
	{name: "Ruby on Rails", category: "Framework", meta: map[string]string{"csrf-param": `^authenticity_token$`}, headers: map[string]string{"X-Powered-By": `phusion passenger`}},
	{name: "Next.js", category: "Framework", headers: map[string]string{"X-Powered-By": `next\.js ?([\d.]+)?`}, html: []string{`<script[^>]+id="__NEXT_DATA__"`}, scripts: []string{`/_next/static/`}, implies: []string{"React"}},
	{name: "Nuxt", category: "Framework", html: []string{`window\.__NUXT__`}, scripts: []string{`/_nuxt/`}, implies: []string{"Vue.js"}},
	{name: "Gatsby", category: "Static site generator", meta: map[string]string{"generator": `gatsby ?([\d.]+)?`}, html: []string{`<div[^>]+id="___gatsby"`}, implies: []string{"React"}},
	{name: "Astro", category: "Framework", meta: map[string]string{"generator": `astro v?([\d.]+)?`}, html: []string{`<astro-island`}},
	{name: "SvelteKit", category: "Framework", html: []string{`data-sveltekit-`}, scripts: []string{`/_app/immutable/`}},
	{name: "Hugo", category: "Static site generator", meta: map[string]string{"generator": `hugo ([\d.]+)`}},
	{name: "Jekyll", category: "Static site generator", meta: map[string]string{"generator": `jekyll v?([\d.]+)`}},
	// JavaScript libraries.
	{name: "React", category: "JavaScript framework", html: []string{`data-reactroot`}, scripts: []string{`react(?:-dom)?(?:\.production)?(?:\.min)?\.js`}},
	{name: "Vue.js", category: "JavaScript framework", html: []string{`<[^>]+\sdata-v-[0-9a-f]{8}`, `data-server-rendered="true"`}, scripts: []string{`vue(?:\.runtime)?(?:\.global)?(?:\.prod)?(?:\.min)?\.js`, `vue@([\d.]+)`}},
	{name: "Angular", category: "JavaScript framework", html: []string{`ng-version="([\d.]+)"`}},
	{name: "AngularJS", category: "JavaScript framework", html: []string{`<[^>]+\sng-app`}, scripts: []string{`angular(?:\.min)?\.js`}},
	{name: "jQuery", category: "JavaScript library", scripts: []string{`jquery[.-]([\d.]+)(?:\.min)?\.js`, `jquery@([\d.]+)`, `/jquery(?:\.min)?\.js`}},
	{name: "Bootstrap", category: "UI framework", html: []string{`<link[^>]+bootstrap@([\d.]+)/`, `<link[^>]+bootstrap(?:[.-]([\d.]+))?(?:\.min)?\.css`}, scripts: []string{`bootstrap@([\d.]+)`, `bootstrap(?:\.bundle)?(?:\.min)?\.js`}},
	{name: "Font Awesome", category: "Font", html: []string{`font-?awesome(?:\.min)?\.css`}, scripts: []string{`kit\.fontawesome\.com`}},
	{name: "Google Fonts", category: "Font", html: []string{`fonts\.googleapis\.com`}},
	// Content management and shops.
	{name: "WordPress", category: "CMS", meta: map[string]string{"generator": `wordpress ?([\d.]+)?`}, html: []string{`/wp-content/`, `/wp-includes/`}, headers: map[string]string{"Link": `rel="https://api\.w\.org/"`}, implies: []string{"PHP", "MySQL"}},
	{name: "MySQL", category: "Database"},
	{name: "Drupal", category: "CMS", meta: map[string]string{"generator": `drupal ?(\d+)?`}, headers: map[string]string{"X-Generator": `drupal ?(\d+)?`, "X-Drupal-Cache": ``}, html: []string{`/sites/default/files/`}, scripts: []string{`/misc/drupal\.js`, `/core/misc/drupal\.js`}, implies: []string{"PHP"}},
	{name: "Joomla", category: "CMS", meta: map[string]string{"generator": `joomla!?`}, implies: []string{"PHP"}},
	{name: "Ghost", category: "CMS", meta: map[string]string{"generator": `ghost ?([\d.]+)?`}, implies: []string{"Node.js"}},
	{name: "Shopify", category: "Ecommerce", headers: map[string]string{"X-Shopid": ``, "X-Shopify-Stage": ``}, cookies: map[string]string{"_shopify_y": ``}, scripts: []string{`cdn\.shopify\.com`}},
	{name: "Wix", category: "Website builder", meta: map[string]string{"generator": `wix\.com`}, headers: map[string]string{"X-Wix-Request-Id": ``}},
	{name: "Squarespace", category: "Website builder", html: []string{`static\d?\.squarespace\.com`}},
	// Analytics and services.
	{name: "Google Analytics", category: "Analytics", scripts: []string{`google-analytics\.com/(?:ga|urchin|analytics)\.js`, `googletagmanager\.com/gtag/js\?id=(?:G|UA)-`}, html: []string{`gtag\(\s*['"]config['"]\s*,\s*['"](?:G|UA)-`}},
	{name: "Google Tag Manager", category: "Tag manager", scripts: []string{`googletagmanager\.com/gtm\.js`}, html: []string{`googletagmanager\.com/ns\.html`, `googletagmanager\.com/gtm\.js`}},
	{name: "Matomo", category: "Analytics", scripts: []string{`(?:matomo|piwik)\.js`}},
	{name: "Plausible", category: "Analytics", scripts: []string{`plausible\.io/js/`}},
	{name: "Hotjar", category: "Analytics", scripts: []string{`static\.hotjar\.com`}, html: []string{`static\.hotjar\.com`}},
	{name: "Stripe", category: "Payments", scripts: []string{`js\.stripe\.com`}},
	{name: "reCAPTCHA", category: "Security", scripts: []string{`(?:google|recaptcha)\.(?:com|net)/recaptcha/`}},
}

type compiledPattern struct {
	key string // header, cookie or meta name; "" for scripts and html
	re  *regexp.Regexp
}

type compiledRule struct {
	rule    *techRule
	headers []compiledPattern
	cookies []compiledPattern
	meta    []compiledPattern
	scripts []compiledPattern
	html    []compiledPattern
}

// compiledRules compiles the table once. A pattern that does not compile
// is a programming error caught by the tests.
var compiledRules = sync.OnceValue(func() []compiledRule {
	compile := func(m map[string]string) []compiledPattern {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var out []compiledPattern
		for _, k := range keys {
			out = append(out, compiledPattern{key: k, re: regexp.MustCompile(`(?i)` + m[k])})
		}
		return out
	}
	list := func(ps []string) []compiledPattern {
		var out []compiledPattern
		for _, p := range ps {
			out = append(out, compiledPattern{re: regexp.MustCompile(`(?i)` + p)})
		}
		return out
	}
	out := make([]compiledRule, len(techRules))
	for i := range techRules {
		r := &techRules[i]
		out[i] = compiledRule{rule: r, headers: compile(r.headers), cookies: compile(r.cookies),
			meta: compile(r.meta), scripts: list(r.scripts), html: list(r.html)}
	}
	return out
})

// maxTechHTML caps the HTML the patterns run over.
const maxTechHTML = 2 << 20

// techStack fetches the homepage through the guard and runs the rules.
// Failures are reported in TechInfo.Error.
func (p *Tool) techStack(ctx context.Context, domain string) *TechInfo {
	info := &TechInfo{Technologies: []Technology{}}
	target := "https://" + domain + "/"
	custom := p.cfg.HomepageURL != nil
	if custom {
		target = p.cfg.HomepageURL(domain)
	}
	info.URL = target
	opts := fetch.Options{MaxBytes: maxTechHTML, AllowTruncated: true,
		Header: http.Header{"Accept": {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}}}
	resp, err := p.fetch.Get(ctx, target, opts)
	if err != nil && !custom && errors.Is(err, fetch.ErrUpstream) && !errors.Is(err, fetch.ErrTooManyRedirects) {
		// No https (refused, or a bad certificate): try plain http.
		info.URL = "http://" + domain + "/"
		resp, err = p.fetch.Get(ctx, info.URL, opts)
	}
	if err != nil {
		info.Error = clientMessage(err)
		return info
	}
	info.FinalURL = resp.FinalURL.String()
	info.Status = resp.Status
	info.Technologies = detectTech(resp.Header, resp.Body)
	return info
}

// pageSignals is what the rules look at in a page.
type pageSignals struct {
	meta    map[string]string // lower-case name or property → content
	scripts []string
	html    string
	cookies map[string]string
}

func readSignals(h http.Header, body []byte) pageSignals {
	s := pageSignals{meta: map[string]string{}, cookies: map[string]string{}}
	for _, line := range h.Values("Set-Cookie") {
		if c, err := http.ParseSetCookie(line); err == nil {
			s.cookies[c.Name] = c.Value
		}
	}
	if len(body) > maxTechHTML {
		body = body[:maxTechHTML]
	}
	s.html = string(body)
	z := html.NewTokenizer(bytes.NewReader(body))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if (a != atom.Meta && a != atom.Script) || !hasAttr {
			continue
		}
		attrs := map[string]string{}
		for {
			k, v, more := z.TagAttr()
			attrs[strings.ToLower(string(k))] = string(v)
			if !more {
				break
			}
		}
		switch a {
		case atom.Meta:
			key := attrs["name"]
			if key == "" {
				key = attrs["property"]
			}
			if key != "" && len(s.meta) < 200 {
				s.meta[strings.ToLower(key)] = attrs["content"]
			}
		case atom.Script:
			if src := attrs["src"]; src != "" && len(s.scripts) < 500 {
				s.scripts = append(s.scripts, src)
			}
		}
	}
	return s
}

// detectTech runs every rule over the response and adds implied
// technologies.
func detectTech(h http.Header, body []byte) []Technology {
	sig := readSignals(h, body)
	found := map[string]*Technology{}
	var order []string
	hit := func(r *techRule, ev Evidence, m []string) {
		t := found[r.name]
		if t == nil {
			t = &Technology{Name: r.name, Category: r.category}
			found[r.name] = t
			order = append(order, r.name)
		}
		if t.Version == "" && len(m) > 1 && m[1] != "" {
			t.Version = m[1]
		}
		if len(t.Evidence) < 5 {
			ev.Value = page.CutBytes(ev.Value, 160)
			t.Evidence = append(t.Evidence, ev)
		}
	}
	for _, cr := range compiledRules() {
		r := cr.rule
		for _, p := range cr.headers {
			for _, v := range h.Values(p.key) {
				if m := p.re.FindStringSubmatch(v); m != nil {
					hit(r, Evidence{Source: "header", Key: strings.ToLower(p.key), Value: v}, m)
					break
				}
			}
		}
		for _, p := range cr.cookies {
			if v, ok := sig.cookies[p.key]; ok {
				if m := p.re.FindStringSubmatch(v); m != nil {
					hit(r, Evidence{Source: "cookie", Key: p.key, Value: p.key}, m)
				}
			}
		}
		for _, p := range cr.meta {
			if v, ok := sig.meta[strings.ToLower(p.key)]; ok {
				if m := p.re.FindStringSubmatch(v); m != nil {
					hit(r, Evidence{Source: "meta", Key: strings.ToLower(p.key), Value: v}, m)
				}
			}
		}
		for _, p := range cr.scripts {
			for _, src := range sig.scripts {
				if m := p.re.FindStringSubmatch(src); m != nil {
					hit(r, Evidence{Source: "script", Value: src}, m)
					break
				}
			}
		}
		for _, p := range cr.html {
			if m := p.re.FindStringSubmatch(sig.html); m != nil {
				hit(r, Evidence{Source: "html", Value: m[0]}, m)
			}
		}
	}
	// Implied technologies, transitively (Next.js → React).
	byName := map[string]*techRule{}
	for i := range techRules {
		byName[techRules[i].name] = &techRules[i]
	}
	for i := 0; i < len(order); i++ {
		r := byName[order[i]]
		for _, imp := range r.implies {
			if found[imp] != nil {
				continue
			}
			ir := byName[imp]
			if ir == nil {
				continue
			}
			found[imp] = &Technology{Name: imp, Category: ir.category,
				Evidence: []Evidence{{Source: "implied", Value: "implied by " + r.name}}}
			order = append(order, imp)
		}
	}
	out := make([]Technology, 0, len(order))
	for _, n := range order {
		out = append(out, *found[n])
	}
	return out
}

package browser

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/fetch"
)

//go:embed seo.js
var seoJS string

// AuditInput is the input of site_audit.
type AuditInput struct {
	URL        string `json:"url" doc:"The public http or https page to audit." minLength:"1" maxLength:"2048"`
	Device     string `json:"device,omitempty" doc:"Device of the performance measurement (as site_speed)." enum:"mobile|desktop" default:"mobile"`
	Screenshot bool   `json:"screenshot,omitempty" doc:"Include a 1280x800 JPEG screenshot (base64)." default:"true"`
}

// Finding is one problem found, with how to fix it.
type Finding struct {
	Category string `json:"category" doc:"performance, accessibility, seo, security or availability."`
	ID       string `json:"id" doc:"The check's id; for accessibility, the axe-core rule id."`
	// Severity: critical, high, medium or low; in seo, security and
	// availability each takes a fixed number of points off its
	// category's score (25, 12, 6, 2).
	Severity string `json:"severity" doc:"critical, high, medium or low. An accessibility finding's severity follows axe-core's impact: critical is critical, serious high, moderate medium, minor low."`
	Message  string `json:"message"`
	Fix      string `json:"fix"`
}

// Scores are the five category scores, 0 to 100.
type Scores struct {
	Performance   int `json:"performance" doc:"Web Vitals on log-normal curves (Lighthouse's shape), weighted LCP 25, TBT 30, CLS 25, FCP 10, TTFB 10."`
	Accessibility int `json:"accessibility" doc:"axe-core's WCAG 2.0-2.2 level A and AA rules run in the page: the weighted share of the applicable rules that pass, each weighing by its impact (critical 10, serious 7, moderate 3, minor 1), as Lighthouse's accessibility category weighs the axe-core rules it runs."`
	SEO           int `json:"seo" doc:"100 minus 25, 12, 6 or 2 per critical, high, medium or low SEO finding."`
	Security      int `json:"security" doc:"100 minus 25, 12, 6 or 2 per critical, high, medium or low security finding."`
	Availability  int `json:"availability" doc:"As security, capped by the document's status (3xx 70, 4xx 10, 5xx 0)."`
}

// SEOInfo is what the SEO checks read.
type SEOInfo struct {
	Title            string   `json:"title"`
	Description      string   `json:"description"`
	Canonical        string   `json:"canonical"`
	RobotsMeta       string   `json:"robots_meta"`
	Lang             string   `json:"lang"`
	Viewport         bool     `json:"viewport"`
	H1               int      `json:"h1_count"`
	Headings         int      `json:"headings"`
	Images           int      `json:"images"`
	ImagesWithoutAlt int      `json:"images_without_alt"`
	Links            int      `json:"links"`
	InternalLinks    int      `json:"internal_links"`
	ExternalLinks    int      `json:"external_links"`
	EmptyLinks       int      `json:"links_without_text"`
	StructuredData   []string `json:"structured_data"`
	OpenGraph        bool     `json:"open_graph"`
	RobotsTxt        bool     `json:"robots_txt"`
	Sitemap          string   `json:"sitemap,omitempty"`
	Words            int      `json:"words"`
}

// SecurityInfo is what the security checks read.
type SecurityInfo struct {
	HTTPS   bool              `json:"https"`
	Headers map[string]string `json:"headers"`
	Missing []string          `json:"missing_headers"`
	TLS     *AuditTLS         `json:"tls,omitempty"`
}

// AuditTLS describes the certificate and connection, as ping_status does.
type AuditTLS struct {
	Version     string    `json:"version"`
	Issuer      string    `json:"issuer"`
	Subject     string    `json:"subject"`
	NotAfter    time.Time `json:"not_after"`
	DaysLeft    int       `json:"days_left"`
	Valid       bool      `json:"valid"`
	VerifyError string    `json:"verify_error,omitempty"`
}

// AvailabilityInfo is what the availability checks read.
type AvailabilityInfo struct {
	Status    int64   `json:"status"`
	Redirects int     `json:"redirects"`
	TTFBMS    float64 `json:"ttfb_ms"`
	LoadMS    float64 `json:"load_ms"`
	Failed    int     `json:"failed_requests"`
}

// AuditScreenshot is the optional 1280x800 JPEG.
type AuditScreenshot struct {
	ContentType string `json:"content_type"`
	Width       int    `json:"width"`
	Height      int    `json:"height"`
	Bytes       int    `json:"bytes"`
	Image       string `json:"image"`
}

// AuditOutput is the answer of site_audit.
type AuditOutput struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url"`
	// Grade: A (score at least 90), B (80), C (70), D (60), F (below).
	Grade         string            `json:"grade" doc:"A (score at least 90), B (80), C (70), D (60), F (below)."`
	Score         int               `json:"score" doc:"0.25 performance + 0.20 accessibility + 0.20 SEO + 0.20 security + 0.15 availability."`
	Scores        Scores            `json:"scores"`
	Findings      []Finding         `json:"findings" doc:"Every problem found, most severe first."`
	Metrics       Vitals            `json:"metrics"`
	Requests      Requests          `json:"requests"`
	Device        Device            `json:"device"`
	Accessibility AccessibilityInfo `json:"accessibility"`
	SEO           SEOInfo           `json:"seo"`
	Security      SecurityInfo      `json:"security"`
	Availability  AvailabilityInfo  `json:"availability"`
	Screenshot    *AuditScreenshot  `json:"screenshot,omitempty"`
	Blocked       []Blocked         `json:"blocked"`
	AuditedAt     time.Time         `json:"audited_at"`
	TookMS        int64             `json:"took_ms"`
}

var severityPoints = map[string]int{"critical": 25, "high": 12, "medium": 6, "low": 2}
var severityRank = map[string]int{"critical": 0, "high": 1, "medium": 2, "low": 3}

// SiteAudit audits a page: site_speed's measurement, axe-core's
// accessibility rules and the SEO checks on the rendered page, security
// checks on its headers and certificate, robots.txt and sitemap, and a
// screenshot.
func (t *Tools) SiteAudit(ctx context.Context, in AuditInput) (*AuditOutput, error) {
	start := time.Now()
	axeSrc, err := t.axe.load()
	if err != nil {
		t.cfg.Logger.Error("browser: site_audit cannot run", "err", err)
		return nil, errAxeMissing
	}
	var sp *SpeedOutput
	var seo pageSEO
	var a11y *pageA11y
	var shot []byte
	err = t.page(ctx, in.URL, func(ctx context.Context, rec *recorder, px *proxy) error {
		var err error
		if sp, err = t.measure(ctx, rec, px, SpeedInput{URL: in.URL, Device: in.Device}); err != nil {
			return err
		}
		// The checks below read the page as it is; the measurement's CPU
		// slowdown would only make them slower.
		if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 1}); err != nil {
			return err
		}
		raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](seoJS))
		if err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(raw), &seo); err != nil {
			return err
		}
		if a11y, err = runAxe(ctx, rec.frame, axeSrc); err != nil {
			return err
		}
		if in.Screenshot {
			shot, err = auditShot(ctx)
		}
		return err
	})
	if err != nil {
		return nil, t.callError(err)
	}
	out := &AuditOutput{URL: in.URL, FinalURL: sp.FinalURL, Metrics: sp.Metrics, Requests: sp.Requests, Device: sp.Device, Blocked: sp.Blocked,
		AuditedAt: t.cfg.Now().UTC()}
	var f findings
	out.Scores.Performance = performanceScore(sp.Metrics)
	f.performance(sp.Metrics)
	out.SEO = t.seoInfo(ctx, seo, sp.FinalURL)
	f.seo(out.SEO)
	out.Security = t.securityInfo(ctx, sp)
	f.security(out.Security)
	out.Availability = AvailabilityInfo{Status: sp.Status, Redirects: len(sp.Redirects), LoadMS: sp.Timings.Load, Failed: sp.Requests.Failed}
	if sp.Metrics.TTFB.Value != nil {
		out.Availability.TTFBMS = *sp.Metrics.TTFB.Value
	}
	f.availability(out.Availability, sp.WaitTimedOut)
	out.Accessibility = accessibilityInfo(a11y)
	f.accessibility(a11y)
	out.Scores.Accessibility = accessibilityScore(a11y)
	out.Scores.SEO, out.Scores.Security = f.score("seo"), f.score("security")
	out.Scores.Availability = min(statusCeiling(sp.Status), f.score("availability"))
	out.Score = overallScore(out.Scores)
	out.Grade = grade(out.Score)
	sort.SliceStable(f.list, func(i, j int) bool { return severityRank[f.list[i].Severity] < severityRank[f.list[j].Severity] })
	out.Findings = f.list
	if out.Findings == nil {
		out.Findings = []Finding{}
	}
	if shot != nil {
		out.Screenshot = &AuditScreenshot{ContentType: "image/jpeg", Width: 1280, Height: 800, Bytes: len(shot),
			Image: base64.StdEncoding.EncodeToString(shot)}
	}
	out.TookMS = time.Since(start).Milliseconds()
	return out, nil
}

// overallScore weighs the categories: performance 25 %, accessibility,
// SEO and security 20 % each, availability 15 %.
func overallScore(s Scores) int {
	return int(math.Round(0.25*float64(s.Performance) + 0.2*float64(s.Accessibility) + 0.2*float64(s.SEO) +
		0.2*float64(s.Security) + 0.15*float64(s.Availability)))
}

// statusCeiling caps availability by the document's status: an error
// page is not available whatever else is fine.
func statusCeiling(status int64) int {
	switch {
	case status >= 500:
		return 0
	case status >= 400:
		return 10
	case status >= 300:
		return 70
	}
	return 100
}

func grade(score int) string {
	switch {
	case score >= 90:
		return "A"
	case score >= 80:
		return "B"
	case score >= 70:
		return "C"
	case score >= 60:
		return "D"
	}
	return "F"
}

// auditShot captures a 1280x800 desktop viewport as JPEG.
func auditShot(ctx context.Context) ([]byte, error) {
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: 1280, Height: 800, DeviceScaleFactor: 1}); err != nil {
		return nil, err
	}
	q := int64(75)
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, page.CaptureScreenshotParams{
		Format: page.CaptureScreenshotFormatJpeg, Quality: &q, FromSurface: new(true),
		Clip: &page.Viewport{Width: 1280, Height: 800, Scale: 1}})
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// performanceScore maps each metric on a log-normal curve whose "good"
// threshold scores 90 and "poor" threshold scores 50 (the shape of
// Lighthouse's scoring), weighted LCP 25, TBT 30, CLS 25, FCP 10, TTFB 10.
// A metric the page did not produce scores 0.
func performanceScore(v Vitals) int {
	parts := []struct {
		m Metric
		w float64
	}{{v.LCP, 25}, {v.TBT, 30}, {v.CLS, 25}, {v.FCP, 10}, {v.TTFB, 10}}
	sum := 0.0
	for _, p := range parts {
		sum += p.w * logNormalScore(p.m)
	}
	return int(math.Round(sum))
}

func logNormalScore(m Metric) float64 {
	if m.Value == nil {
		return 0
	}
	x := *m.Value
	if x <= 0 {
		return 1
	}
	mu := math.Log(m.Poor)
	sigma := (math.Log(m.Poor) - math.Log(m.Good)) / 1.2815515655446004 // Φ⁻¹(0.9)
	return 0.5 * math.Erfc((math.Log(x)-mu)/(sigma*math.Sqrt2))
}

// findings collects findings and scores categories by deduction.
type findings struct{ list []Finding }

func (f *findings) add(cat, id, sev, msg, fix string) {
	f.list = append(f.list, Finding{Category: cat, ID: id, Severity: sev, Message: msg, Fix: fix})
}

func (f *findings) score(cat string) int {
	s := 100
	for _, x := range f.list {
		if x.Category == cat {
			s -= severityPoints[x.Severity]
		}
	}
	return max(0, s)
}

func (f *findings) performance(v Vitals) {
	type check struct {
		m        Metric
		id, name string
		fix      string
	}
	for _, c := range []check{
		{v.LCP, "slow-lcp", "Largest Contentful Paint", "Serve the main image or text sooner: compress and preload the hero image, cut render-blocking CSS and JS, use a CDN."},
		{v.CLS, "layout-shift", "Cumulative Layout Shift", "Reserve space for images, ads and embeds (width/height or aspect-ratio) and do not insert content above what is shown."},
		{v.TBT, "main-thread-blocked", "Total Blocking Time", "Split long JavaScript tasks, defer non-critical scripts and remove unused code."},
		{v.FCP, "slow-fcp", "First Contentful Paint", "Inline critical CSS, defer scripts and reduce the server response time."},
		{v.TTFB, "slow-ttfb", "Time to First Byte", "Cache pages at the edge, speed up the backend, avoid redirects."},
	} {
		switch c.m.Rating {
		case "poor":
			f.add("performance", c.id, "high", fmt.Sprintf("%s is poor (%s).", c.name, metricText(c.m)), c.fix)
		case "needs-improvement":
			f.add("performance", c.id, "medium", fmt.Sprintf("%s needs improvement (%s).", c.name, metricText(c.m)), c.fix)
		case "":
			f.add("performance", c.id, "medium", c.name+" could not be measured.", c.fix)
		}
	}
}

func metricText(m Metric) string {
	if m.Unit == "ms" {
		return fmt.Sprintf("%.0f ms; good is at most %.0f ms", *m.Value, m.Good)
	}
	return fmt.Sprintf("%.3f; good is at most %.2f", *m.Value, m.Good)
}

// pageSEO is what seo.js returns.
type pageSEO struct {
	Title, Lang                string
	Description, Robots        *string
	Canonical, Viewport        *string
	OG                         bool
	Hreflang                   int
	Headings                   []int
	Images, ImagesNoAlt        int
	Links, Internal, External  int
	EmptyLinks, Nofollow       int
	LDTypes                    []string
	LDErrors, Microdata, Words int
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// seoInfo adds robots.txt and sitemap checks (through the guarded client)
// to what the page said.
func (t *Tools) seoInfo(ctx context.Context, p pageSEO, finalURL string) SEOInfo {
	s := SEOInfo{Title: p.Title, Description: str(p.Description), Canonical: str(p.Canonical), RobotsMeta: str(p.Robots),
		Lang: p.Lang, Viewport: p.Viewport != nil, Headings: len(p.Headings), Images: p.Images, ImagesWithoutAlt: p.ImagesNoAlt,
		Links: p.Links, InternalLinks: p.Internal, ExternalLinks: p.External, EmptyLinks: p.EmptyLinks,
		StructuredData: p.LDTypes, OpenGraph: p.OG, Words: p.Words}
	for _, h := range p.Headings {
		if h == 1 {
			s.H1++
		}
	}
	if s.StructuredData == nil {
		s.StructuredData = []string{}
	}
	if p.Microdata > 0 {
		s.StructuredData = append(s.StructuredData, "microdata")
	}
	u, err := url.Parse(finalURL)
	if err != nil || u.Host == "" {
		return s
	}
	origin := u.Scheme + "://" + u.Host
	var sitemaps []string
	if r, err := t.fc.Get(ctx, origin+"/robots.txt", fetch.Options{MaxBytes: 512 << 10, AllowTruncated: true}); err == nil && r.Status == 200 {
		s.RobotsTxt = true
		for _, line := range strings.Split(string(r.Body), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(strings.TrimSpace(k), "sitemap") {
				sitemaps = append(sitemaps, strings.TrimSpace(v))
			}
		}
	}
	sitemaps = append(sitemaps, origin+"/sitemap.xml")
	for _, sm := range sitemaps[:min(len(sitemaps), 3)] {
		r, err := t.fc.Get(ctx, sm, fetch.Options{MaxBytes: 64 << 10, AllowTruncated: true})
		if err == nil && r.Status == 200 && (strings.Contains(string(r.Body), "<urlset") || strings.Contains(string(r.Body), "<sitemapindex")) {
			s.Sitemap = sm
			break
		}
	}
	return s
}

func (f *findings) seo(s SEOInfo) {
	const c = "seo"
	switch n := len([]rune(s.Title)); {
	case n == 0:
		f.add(c, "missing-title", "critical", "The page has no <title>.", "Add a unique, descriptive <title> of 30 to 60 characters.")
	case n < 10 || n > 70:
		f.add(c, "title-length", "low", fmt.Sprintf("The title is %d characters long.", n), "Keep the title between 30 and 60 characters.")
	}
	switch n := len([]rune(s.Description)); {
	case n == 0:
		f.add(c, "missing-description", "high", "The page has no meta description.", `Add <meta name="description" content="..."> of 70 to 160 characters.`)
	case n < 50 || n > 170:
		f.add(c, "description-length", "low", fmt.Sprintf("The meta description is %d characters long.", n), "Keep the description between 70 and 160 characters.")
	}
	switch {
	case s.H1 == 0:
		f.add(c, "missing-h1", "medium", "The page has no <h1> heading.", "Give the page one <h1> that says what it is about.")
	case s.H1 > 1:
		f.add(c, "multiple-h1", "low", fmt.Sprintf("The page has %d <h1> headings.", s.H1), "Use one <h1> and h2-h6 for sections.")
	}
	if s.Canonical == "" {
		f.add(c, "missing-canonical", "low", "No canonical URL is declared.", `Add <link rel="canonical" href="..."> with the preferred URL.`)
	}
	if r := strings.ToLower(s.RobotsMeta); strings.Contains(r, "noindex") || strings.Contains(r, "none") {
		f.add(c, "noindex", "critical", "The robots meta tag keeps the page out of search engines ("+s.RobotsMeta+").", "Remove noindex if the page should be found.")
	}
	if s.Lang == "" {
		f.add(c, "missing-lang", "low", "The <html> element has no lang attribute.", `Declare the language, e.g. <html lang="en">.`)
	}
	if !s.Viewport {
		f.add(c, "missing-viewport", "medium", "No viewport meta tag: the page is not set up for mobile.", `Add <meta name="viewport" content="width=device-width, initial-scale=1">.`)
	}
	if s.ImagesWithoutAlt > 0 {
		f.add(c, "image-alt", "medium", fmt.Sprintf("%d of %d images have no alt text.", s.ImagesWithoutAlt, s.Images), "Describe every meaningful image in alt; use alt=\"\" for decorative ones.")
	}
	if s.EmptyLinks > 0 {
		f.add(c, "link-text", "low", fmt.Sprintf("%d links have no text.", s.EmptyLinks), "Give every link text or an aria-label that says where it goes.")
	}
	if s.Links == 0 {
		f.add(c, "no-links", "low", "The page has no links.", "Link to related pages so crawlers can find them.")
	}
	if len(s.StructuredData) == 0 {
		f.add(c, "no-structured-data", "low", "No structured data (JSON-LD or microdata).", "Describe the page with schema.org JSON-LD (Organization, Article, Product...).")
	}
	if !s.RobotsTxt {
		f.add(c, "missing-robots-txt", "low", "No robots.txt at the site root.", "Publish /robots.txt (it may allow everything) with a Sitemap line.")
	}
	if s.Sitemap == "" {
		f.add(c, "missing-sitemap", "low", "No XML sitemap was found (robots.txt Sitemap lines or /sitemap.xml).", "Publish a sitemap and list it in robots.txt.")
	}
	if !s.OpenGraph {
		f.add(c, "missing-open-graph", "low", "No OpenGraph tags: shared links get no title or image.", `Add og:title, og:description and og:image meta tags.`)
	}
}

// securityHeaders are checked on the document's response.
var securityHeaders = []struct{ name, sev, fix string }{
	{"Strict-Transport-Security", "medium", "Send Strict-Transport-Security: max-age=31536000; includeSubDomains."},
	{"Content-Security-Policy", "medium", "Send a Content-Security-Policy that limits scripts to your own origins."},
	{"X-Content-Type-Options", "low", "Send X-Content-Type-Options: nosniff."},
	{"X-Frame-Options", "low", "Send X-Frame-Options: DENY (or CSP frame-ancestors) against clickjacking."},
	{"Referrer-Policy", "low", "Send Referrer-Policy: strict-origin-when-cross-origin."},
	{"Permissions-Policy", "low", "Send a Permissions-Policy that turns off features the site does not use."},
}

func (t *Tools) securityInfo(ctx context.Context, sp *SpeedOutput) SecurityInfo {
	u, _ := url.Parse(sp.FinalURL)
	s := SecurityInfo{HTTPS: u != nil && u.Scheme == "https", Headers: map[string]string{}, Missing: []string{}}
	for _, h := range securityHeaders {
		v := headerString(sp.header, h.name)
		if h.name == "X-Frame-Options" && v == "" && strings.Contains(strings.ToLower(headerString(sp.header, "Content-Security-Policy")), "frame-ancestors") {
			v = "(CSP frame-ancestors)"
		}
		if v != "" {
			s.Headers[h.name] = cut(v, 300)
		} else if h.name != "Strict-Transport-Security" || s.HTTPS {
			s.Missing = append(s.Missing, h.name)
		}
	}
	if s.HTTPS {
		s.TLS = t.tlsInfo(ctx, sp.FinalURL, u.Hostname())
	}
	return s
}

// tlsInfo reads the certificate with the guarded client, verification off
// in the handshake and done here, so an invalid certificate is reported.
func (t *Tools) tlsInfo(ctx context.Context, rawURL, host string) *AuditTLS {
	r, err := t.fc.Do(ctx, http.MethodHead, rawURL, fetch.Options{NoFollow: true, IgnoreRobots: true, InsecureTLS: true, AllowTruncated: true, MaxBytes: 1})
	if err != nil || r.TLS == nil || len(r.TLS.PeerCertificates) == 0 {
		return nil
	}
	leaf := r.TLS.PeerCertificates[0]
	out := &AuditTLS{Version: tls.VersionName(r.TLS.Version), Issuer: leaf.Issuer.String(), Subject: leaf.Subject.String(),
		NotAfter: leaf.NotAfter.UTC(), DaysLeft: int(time.Until(leaf.NotAfter).Hours() / 24)}
	inter := x509.NewCertPool()
	for _, c := range r.TLS.PeerCertificates[1:] {
		inter.AddCert(c)
	}
	if _, err := leaf.Verify(x509.VerifyOptions{DNSName: host, Intermediates: inter}); err != nil {
		out.VerifyError = err.Error()
	} else {
		out.Valid = true
	}
	return out
}

func (f *findings) security(s SecurityInfo) {
	const c = "security"
	if !s.HTTPS {
		f.add(c, "no-https", "critical", "The page is served over plain HTTP.", "Serve the site over HTTPS and redirect http:// to https://.")
	}
	if tl := s.TLS; tl != nil {
		switch {
		case !tl.Valid:
			f.add(c, "invalid-certificate", "critical", "The TLS certificate is not valid: "+tl.VerifyError, "Install a certificate for this host name from a trusted CA, with its full chain.")
		case tl.DaysLeft < 14:
			f.add(c, "certificate-expiring", "high", fmt.Sprintf("The TLS certificate expires in %d days.", tl.DaysLeft), "Renew the certificate (automate renewal, e.g. ACME).")
		}
		if tl.Version == "TLS 1.0" || tl.Version == "TLS 1.1" {
			f.add(c, "old-tls", "high", "The server negotiated "+tl.Version+".", "Turn off TLS 1.0 and 1.1; offer TLS 1.2 and 1.3.")
		}
	}
	for _, name := range s.Missing {
		for _, h := range securityHeaders {
			if h.name == name {
				f.add(c, "missing-"+strings.ToLower(name), h.sev, "The "+name+" header is missing.", h.fix)
			}
		}
	}
}

func (f *findings) availability(a AvailabilityInfo, timedOut bool) {
	const c = "availability"
	switch {
	case a.Status >= 500:
		f.add(c, "server-error", "critical", fmt.Sprintf("The page answers HTTP %d.", a.Status), "Fix the server error; check the application and upstream logs.")
	case a.Status >= 400:
		f.add(c, "client-error", "critical", fmt.Sprintf("The page answers HTTP %d.", a.Status), "Restore the page or redirect its URL to its new place.")
	case a.Status == 0:
		f.add(c, "no-status", "medium", "The document's HTTP status could not be read.", "Check that the page is served over plain HTTP or HTTPS.")
	}
	if a.Redirects > 1 {
		f.add(c, "redirect-chain", "medium", fmt.Sprintf("The URL goes through %d redirects.", a.Redirects), "Link and redirect straight to the final URL.")
	}
	switch {
	case a.TTFBMS > 1800:
		f.add(c, "slow-response", "high", fmt.Sprintf("The server took %.0f ms to answer.", a.TTFBMS), "Speed up or cache the backend.")
	case a.TTFBMS > 800:
		f.add(c, "slow-response", "medium", fmt.Sprintf("The server took %.0f ms to answer.", a.TTFBMS), "Speed up or cache the backend.")
	}
	if timedOut {
		f.add(c, "never-idle", "medium", "The page was still loading when the measurement ended.", "Find requests that never finish (long polling, stalled resources) and defer them.")
	}
	if a.Failed > 0 {
		f.add(c, "failed-requests", "low", fmt.Sprintf("%d requests of the page failed.", a.Failed), "Remove or fix broken resource URLs.")
	}
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

package browser

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"image/jpeg"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
)

func auditSite(t *testing.T) string {
	var base string
	srv := site(t, map[string]http.HandlerFunc{
		"/robots.txt": func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, "User-agent: *\nAllow: /\nSitemap: %s/sitemap.xml\n", base)
		},
		"/sitemap.xml": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/xml")
			fmt.Fprintf(w, `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>%s/good</loc></url></urlset>`, base)
		},
		"/good": func(w http.ResponseWriter, r *http.Request) {
			h := w.Header()
			h.Set("Content-Type", "text/html")
			h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; script-src 'none'; frame-ancestors 'none'")
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("Referrer-Policy", "strict-origin-when-cross-origin")
			h.Set("Permissions-Policy", "camera=()")
			fmt.Fprintf(w, `<!doctype html><html lang="en"><head><title>Widgets for every workshop</title>
<meta name="description" content="Hand-made widgets for workshops and schools, shipped worldwide within two days.">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="canonical" href="%s/good"><meta property="og:title" content="Widgets">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Organization","name":"Widgets"}</script>
</head><body><h1>Widgets</h1><p>We make widgets.</p><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7" alt="logo"><a href="/good">Home</a></body></html>`, base)
		},
		"/bad": html(`<!doctype html><html><head><meta name="robots" content="noindex"></head>
<body style="background:rgb(255,255,0)"><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"><img src="data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"><a href="/x"></a></body></html>`),
		"/gone": func(w http.ResponseWriter, r *http.Request) { http.Error(w, "gone", http.StatusNotFound) },
	})
	base = srv.URL
	return base
}

// findingIDs maps the ids of the service's own checks to their findings
// (accessibility findings are axe-core's rule ids, which may repeat them).
func findingIDs(out *AuditOutput) map[string]Finding {
	m := map[string]Finding{}
	for _, f := range out.Findings {
		if f.Category != "accessibility" {
			m[f.ID] = f
		}
	}
	return m
}

func findingIn(out *AuditOutput, category, id string) Finding {
	for _, f := range out.Findings {
		if f.Category == category && f.ID == id {
			return f
		}
	}
	return Finding{}
}

func TestSiteAuditGoodPage(t *testing.T) {
	t.Parallel()
	base := auditSite(t)
	out, err := shared.SiteAudit(ctx(t), AuditInput{URL: base + "/good", Device: "desktop", Screenshot: true})
	if err != nil {
		t.Fatal(err)
	}
	if out.Scores.SEO != 100 {
		t.Errorf("SEO %d, findings %+v", out.Scores.SEO, out.Findings)
	}
	if !out.SEO.RobotsTxt || out.SEO.Sitemap != base+"/sitemap.xml" || out.SEO.H1 != 1 || len(out.SEO.StructuredData) != 1 {
		t.Errorf("seo %+v", out.SEO)
	}
	ids := findingIDs(out)
	// Plain http on loopback: no HTTPS is the one security problem; HSTS
	// is not asked of an http page.
	if f, ok := ids["no-https"]; !ok || f.Severity != "critical" || f.Fix == "" {
		t.Errorf("no-https finding %+v", f)
	}
	if len(out.Security.Missing) != 0 || out.Security.Headers["X-Frame-Options"] != "(CSP frame-ancestors)" {
		t.Errorf("security %+v", out.Security)
	}
	if out.Scores.Security != 75 || out.Scores.Availability != 100 || out.Availability.Status != 200 {
		t.Errorf("scores %+v availability %+v failures %+v", out.Scores, out.Availability, out.Requests)
	}
	if out.Grade == "" || out.Score < 0 || out.Score > 100 || out.Scores.Performance < 50 {
		t.Errorf("grade %q score %d perf %d", out.Grade, out.Score, out.Scores.Performance)
	}
	if out.Screenshot == nil {
		t.Fatal("no screenshot")
	}
	b, _ := base64.StdEncoding.DecodeString(out.Screenshot.Image)
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil || cfg.Width != 1280 || cfg.Height != 800 {
		t.Errorf("screenshot %v %dx%d", err, cfg.Width, cfg.Height)
	}
}

func TestSiteAuditBadPage(t *testing.T) {
	t.Parallel()
	base := auditSite(t)
	out, err := shared.SiteAudit(ctx(t), AuditInput{URL: base + "/bad", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	ids := findingIDs(out)
	for _, want := range []string{"missing-title", "missing-description", "missing-h1", "noindex", "image-alt", "link-text",
		"missing-lang", "missing-viewport", "missing-canonical", "missing-content-security-policy", "no-https"} {
		if _, ok := ids[want]; !ok {
			t.Errorf("finding %s missing; got %v", want, out.Findings)
		}
	}
	if out.SEO.ImagesWithoutAlt != 2 || out.Scores.SEO > 20 || out.Screenshot != nil {
		t.Errorf("seo %+v score %d", out.SEO, out.Scores.SEO)
	}
	if out.Findings[0].Severity != "critical" {
		t.Errorf("findings not ordered by severity: %+v", out.Findings[0])
	}

	gone, err := shared.SiteAudit(ctx(t), AuditInput{URL: base + "/gone", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	if gone.Availability.Status != 404 || gone.Scores.Availability != 10 || gone.Grade == "A" {
		t.Errorf("404 page: %+v grade %s", gone.Scores, gone.Grade)
	}
}

func TestPerformanceScoreCurve(t *testing.T) {
	m := func(name string, v float64) Metric { return metric(name, &v) }
	// At the good threshold a metric scores 0.9, at the poor one 0.5.
	if s := logNormalScore(m("lcp", 2500)); s < 0.899 || s > 0.901 {
		t.Errorf("LCP at good threshold: %v", s)
	}
	if s := logNormalScore(m("lcp", 4000)); s < 0.499 || s > 0.501 {
		t.Errorf("LCP at poor threshold: %v", s)
	}
	perfect := Vitals{LCP: m("lcp", 0), CLS: m("cls", 0), FCP: m("fcp", 0), TTFB: m("ttfb", 0), TBT: m("tbt", 0)}
	if s := performanceScore(perfect); s != 100 {
		t.Errorf("perfect %d", s)
	}
	if s := performanceScore(Vitals{}); s != 0 {
		t.Errorf("nothing measured %d", s)
	}
	for score, want := range map[int]string{95: "A", 85: "B", 75: "C", 65: "D", 10: "F"} {
		if grade(score) != want {
			t.Errorf("grade(%d) = %s", score, grade(score))
		}
	}
}

// TestAuditTLS reads a certificate the way ping_status does: an
// httptest certificate is not trusted by the system roots, so it is
// reported as invalid (a critical finding), not a failed audit.
func TestAuditTLS(t *testing.T) {
	t.Parallel()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	info := shared.tlsInfo(ctx(t), srv.URL+"/", u.Hostname())
	if info == nil {
		t.Fatal("no TLS info")
	}
	if info.Version != "TLS 1.3" || info.Valid || info.VerifyError == "" || info.DaysLeft <= 0 || info.Issuer == "" {
		t.Errorf("tls %+v", info)
	}
	var f findings
	f.security(SecurityInfo{HTTPS: true, TLS: info, Missing: []string{}})
	if len(f.list) != 1 || f.list[0].ID != "invalid-certificate" || f.list[0].Severity != "critical" {
		t.Errorf("findings %+v", f.list)
	}
	if f.score("security") != 75 {
		t.Errorf("score %d", f.score("security"))
	}
}

func TestAccessibilityScore(t *testing.T) {
	rule := func(id, impact string) a11yRule { return a11yRule{ID: id, RuleImpact: impact, Impact: impact} }
	for _, tc := range []struct {
		name               string
		pass, fail, review []a11yRule
		score, passed      int
	}{
		{"nothing applies", nil, nil, []a11yRule{rule("color-contrast", "serious")}, 100, 0},
		{"all pass", []a11yRule{rule("image-alt", "critical"), rule("document-title", "serious")}, nil, nil, 100, 2},
		// Weights 10 and 7 passed out of 10+7+7+3.
		{"weighted by declared impact", []a11yRule{rule("image-alt", "critical"), rule("html-has-lang", "serious")},
			[]a11yRule{rule("document-title", "serious"), rule("meta-viewport", "moderate")}, nil, 63, 2},
		// A rule some elements pass and one fails counts as failed.
		{"a rule passed and failed is failed", []a11yRule{rule("color-contrast", "serious"), rule("image-alt", "critical")},
			[]a11yRule{rule("color-contrast", "serious")}, []a11yRule{rule("color-contrast", "serious")}, 59, 1},
	} {
		p := &pageA11y{Version: "4.14.1", Passes: tc.pass, Violations: tc.fail, Incomplete: tc.review}
		info := accessibilityInfo(p)
		if got := accessibilityScore(p); got != tc.score || info.Passed != tc.passed || info.Applicable != tc.passed+len(tc.fail) {
			t.Errorf("%s: score %d passed %d applicable %d, want %d and %d", tc.name, got, info.Passed, info.Applicable, tc.score, tc.passed)
		}
		if len(tc.fail) == 0 && len(info.Review) != len(tc.review) {
			t.Errorf("%s: needs review %v", tc.name, info.Review)
		}
	}
}

// TestSiteAuditWithoutAxe: without axe-core installed the audit is refused
// as unavailable (never charged) before any page is loaded.
func TestSiteAuditWithoutAxe(t *testing.T) {
	tools := newTestTools(t.TempDir(), Config{AxePath: "/nonexistent/axe.min.js"})
	defer tools.Close()
	_, err := tools.SiteAudit(ctx(t), AuditInput{URL: "http://127.0.0.1:1/"})
	if e, ok := asAPI(err); !ok || e.Code != "browser_unavailable" || tools.pool.started != 0 {
		t.Errorf("error %v, browsers started %d", err, tools.pool.started)
	}
}

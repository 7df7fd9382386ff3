package browser

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
)

// a11yFaultyPage has known accessibility faults: no title, no lang, two
// images without alt text, a light grey text on white, a button and a link
// without a name and a text field without a label.
const a11yFaultyPage = `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Widgets</h1>
<img src="/a.png" width="120" height="80"><img src="/b.png" width="120" height="80">
<p style="color:#bbb;background:#fff">Light grey text on white is hard to read.</p>
<form><input type="text" name="q"><button type="submit"></button></form>
<p>More in <a href="/more"></a>.</p></main></body></html>`

// a11yCleanPage is the same content without the faults.
const a11yCleanPage = `<!doctype html><html lang="en"><head><title>Widgets for every workshop</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><main><h1>Widgets</h1>
<img src="/a.png" width="120" height="80" alt="A red widget"><img src="/b.png" width="120" height="80" alt="A blue widget">
<p style="color:#333;background:#fff">Dark text on white is easy to read.</p>
<form><label>Search <input type="text" name="q"></label><button type="submit">Search</button></form>
<p>More in <a href="/more">the catalogue</a>.</p></main></body></html>`

// lighthouseReport is the part of a Lighthouse JSON report the comparison
// reads.
type lighthouseReport struct {
	LighthouseVersion string `json:"lighthouseVersion"`
	RuntimeError      *struct{ Code, Message string }
	Environment       struct {
		Credits map[string]string `json:"credits"`
	} `json:"environment"`
	Categories map[string]struct {
		Score     *float64 `json:"score"`
		AuditRefs []struct {
			ID     string  `json:"id"`
			Weight float64 `json:"weight"`
		} `json:"auditRefs"`
	} `json:"categories"`
	Audits map[string]struct {
		Score *float64 `json:"score"`
	} `json:"audits"`
}

// lighthouseA11y runs Lighthouse (the npm package scripts/setup.sh
// installs, pinned) on Debian's chromium with its default mobile settings
// and returns the accessibility category's score (0-100), the weighted
// audits that applied and those that failed, and the axe-core version it
// ran.
func lighthouseA11y(t *testing.T, url string) (score int, applied, failed []string, axe string) {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cli := filepath.Join(webaudit, "lighthouse", "cli", "index.js")
	cmd := exec.CommandContext(c, "node", cli, url, "--only-categories=accessibility", "--output=json", "--output-path=stdout", "--quiet",
		"--chrome-flags=--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync --no-first-run")
	cmd.Env = append(os.Environ(), "CHROME_PATH=/usr/bin/chromium")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("lighthouse (installed by scripts/setup.sh): %v\n%s", err, stderr.String())
	}
	var r lighthouseReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("lighthouse report: %v", err)
	}
	cat, ok := r.Categories["accessibility"]
	if r.RuntimeError != nil || !ok || cat.Score == nil {
		t.Fatalf("lighthouse %s: runtime error %+v, accessibility %+v", r.LighthouseVersion, r.RuntimeError, cat)
	}
	for _, ref := range cat.AuditRefs {
		a := r.Audits[ref.ID]
		if ref.Weight == 0 || a.Score == nil {
			continue
		}
		applied = append(applied, ref.ID)
		if *a.Score == 0 {
			failed = append(failed, ref.ID)
		}
	}
	sort.Strings(failed)
	return int(*cat.Score*100 + 0.5), applied, failed, r.Environment.Credits["axe-core"]
}

// wcagRules lists axe-core's WCAG A and AA rules (the ones site_audit
// runs), asked of the installed package itself.
func wcagRules(t *testing.T) []string {
	t.Helper()
	script := `const axe = require(process.argv[1]);
console.log(JSON.stringify(axe.getRules(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"]).map((r) => r.ruleId)));`
	out, err := exec.Command("node", "-e", script, filepath.Join(webaudit, "axe-core", "axe.js")).Output()
	if err != nil {
		t.Fatalf("node axe-core: %v", err)
	}
	var ids []string
	if err := json.Unmarshal(out, &ids); err != nil || len(ids) < 50 {
		t.Fatalf("axe-core rules %v: %s", err, out)
	}
	return ids
}

// TestAccessibilityBesideLighthouse scores a page with known faults and
// its corrected twin with site_audit and with Lighthouse's accessibility
// category in the same run. Both run the same axe-core on the same
// emulated phone: on every rule both run they must agree, the known faults
// must be found by both, and the two scores must tell the same story.
func TestAccessibilityBesideLighthouse(t *testing.T) {
	t.Parallel()
	img := pngOf(120, 80)
	png := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write(img)
	}
	srv := site(t, map[string]http.HandlerFunc{
		"/faulty": html(a11yFaultyPage),
		"/clean":  html(a11yCleanPage),
		"/more":   html(`<!doctype html><title>More</title><p>More.</p>`),
		"/a.png":  png,
		"/b.png":  png,
	})
	scope := wcagRules(t)
	known := []string{"button-name", "color-contrast", "document-title", "html-has-lang", "image-alt", "label", "link-name"}
	for _, tc := range []struct {
		path  string
		fails []string
	}{{"/faulty", known}, {"/clean", nil}} {
		out, err := shared.SiteAudit(ctx(t), AuditInput{URL: srv.URL + tc.path})
		if err != nil {
			t.Fatal(err)
		}
		ours := []string{}
		for _, v := range out.Accessibility.Violations {
			ours = append(ours, v.Rule)
		}
		sort.Strings(ours)
		lhScore, lhApplied, lhFailed, lhAxe := lighthouseA11y(t, srv.URL+tc.path)
		t.Logf("%s: site_audit accessibility %d (%s, failed %v); Lighthouse %d (axe-core %s, failed %v)",
			tc.path, out.Scores.Accessibility, out.Accessibility.Engine, ours, lhScore, lhAxe, lhFailed)

		if out.Accessibility.Engine != "axe-core "+lhAxe {
			t.Errorf("%s: engines differ: %s and Lighthouse's axe-core %s", tc.path, out.Accessibility.Engine, lhAxe)
		}
		for _, id := range lhApplied {
			if !slices.Contains(scope, id) {
				continue // one of Lighthouse's best-practice rules
			}
			if a, b := slices.Contains(lhFailed, id), slices.Contains(ours, id); a != b {
				t.Errorf("%s: rule %s: Lighthouse failed %v, site_audit failed %v", tc.path, id, a, b)
			}
		}
		for _, id := range tc.fails {
			if !slices.Contains(ours, id) || !slices.Contains(lhFailed, id) {
				t.Errorf("%s: known fault %s: site_audit %v, Lighthouse %v", tc.path, id, ours, lhFailed)
			}
		}
		if tc.fails == nil {
			if len(ours) != 0 || out.Scores.Accessibility != 100 || lhScore != 100 {
				t.Errorf("%s: clean page: site_audit %d %v, Lighthouse %d", tc.path, out.Scores.Accessibility, ours, lhScore)
			}
			continue
		}
		// The same rules failed; the scores differ by the weights
		// (Lighthouse's are a fixed table, axe-core 4.7's impacts) and by
		// the passing rules one runs and the other does not.
		if d := out.Scores.Accessibility - lhScore; d < -15 || d > 15 || out.Scores.Accessibility >= 50 || lhScore >= 50 {
			t.Errorf("%s: site_audit %d, Lighthouse %d", tc.path, out.Scores.Accessibility, lhScore)
		}
		if f := findingIn(out, "accessibility", "image-alt"); f.Severity != "critical" || !strings.Contains(f.Message, "2 elements") || !strings.Contains(f.Fix, "alt") {
			t.Errorf("image-alt finding %+v", f)
		}
	}
}

package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/apierr"
)

//go:embed a11y.js
var a11yJS string

// DefaultAxePath is where scripts/setup.sh installs axe-core (the npm
// package, pinned in webaudit/package-lock.json), relative to the
// directory the server runs in.
const DefaultAxePath = "webaudit/node_modules/axe-core/axe.min.js"

// errAxeMissing: the accessibility engine is not installed (503, never
// charged).
var errAxeMissing = apierr.New(apierr.ErrUnavailable, "browser_unavailable", "the accessibility engine (axe-core) is not installed")

// axeScript is axe-core's script, read from disk on first use (it is
// never fetched at run time). A missing file fails the audit and is looked
// for again on the next one.
type axeScript struct {
	path string
	mu   sync.Mutex
	src  string
}

// load returns the script, ended in an expression whose value is not sent
// back.
func (a *axeScript) load() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.src == "" {
		b, err := os.ReadFile(a.path)
		if err != nil {
			return "", fmt.Errorf("browser: axe-core: %w: %w", errAxeMissing, err)
		}
		a.src = string(b) + "\n;void 0"
	}
	return a.src, nil
}

// AccessibilityInfo is what the accessibility checks found.
type AccessibilityInfo struct {
	Engine     string          `json:"engine" doc:"The engine run in the page: axe-core and its version."`
	Applicable int             `json:"rules_applicable" doc:"Rules that found something to check on the page: passed plus failed. The score is computed over them."`
	Passed     int             `json:"rules_passed"`
	Failed     int             `json:"rules_failed"`
	Review     []string        `json:"needs_review" doc:"Rules axe-core could not decide on some elements (check those by hand); undecided elements do not count in the score."`
	Violations []A11yViolation `json:"violations" doc:"Every failed rule, most severe first."`
}

// A11yViolation is one failed axe-core rule.
type A11yViolation struct {
	Rule     string   `json:"rule" doc:"The axe-core rule id, e.g. image-alt."`
	Impact   string   `json:"impact" doc:"critical, serious, moderate or minor (axe-core's impact of this failure)."`
	Help     string   `json:"help"`
	HelpURL  string   `json:"help_url"`
	WCAG     []string `json:"wcag" doc:"The rule's WCAG tags: level and success criterion, e.g. wcag2a and wcag111."`
	Elements int      `json:"elements" doc:"Elements that fail the rule."`
	Targets  []string `json:"targets" doc:"CSS selectors of the first five."`
}

// pageA11y is what a11y.js returns.
type pageA11y struct {
	Version    string
	Violations []a11yRule
	Passes     []a11yRule
	Incomplete []a11yRule
}

type a11yRule struct {
	ID         string
	RuleImpact string // the impact axe-core declares for the rule
	Help       string
	HelpURL    string
	Tags       []string
	// A failure only:
	Impact   string
	Elements int
	Targets  []string
	Summary  string
}

// impactWeight is a rule's weight in the score by its declared impact:
// the weights Lighthouse gives axe-core's impacts.
var impactWeight = map[string]float64{"critical": 10, "serious": 7, "moderate": 3, "minor": 1}

// impactSeverity maps axe-core's impact to a finding's severity.
var impactSeverity = map[string]string{"critical": "critical", "serious": "high", "moderate": "medium", "minor": "low"}

func weight(impact string) float64 {
	if w, ok := impactWeight[impact]; ok {
		return w
	}
	return impactWeight["moderate"]
}

// runAxe evaluates axe-core and the runner in an isolated world of the
// main frame: they share the page's DOM but not its JavaScript, so the
// page can neither see nor tamper with them, and its CSP does not apply.
func runAxe(ctx context.Context, frame cdp.FrameID, axeSrc string) (*pageA11y, error) {
	world, err := chromedp.Call(ctx, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: frame, WorldName: "openshelf-axe"})
	if err != nil {
		return nil, err
	}
	in := func(p *runtime.EvaluateParams) { p.ContextID = world.ExecutionContextID }
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](axeSrc, in)); err != nil {
		return nil, fmt.Errorf("browser: load axe-core: %w", err)
	}
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](a11yJS, in, chromedp.EvalAwaitPromise))
	if err != nil {
		return nil, fmt.Errorf("browser: run axe-core: %w", err)
	}
	var out pageA11y
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// accessibilityScore is the weighted share of the applicable rules that
// passed, each rule weighing by its declared impact (Lighthouse's
// method); rules needing review do not count. A page on which no rule
// applies scores 100.
func accessibilityScore(p *pageA11y) int {
	var passed, all float64
	for _, r := range p.Violations {
		all += weight(r.RuleImpact)
	}
	for _, r := range p.passed() {
		passed += weight(r.RuleImpact)
	}
	all += passed
	if all == 0 {
		return 100
	}
	return int(math.Round(100 * passed / all))
}

// passed are the rules no element failed: axe-core lists a rule among the
// passes as soon as one element passes it.
func (p *pageA11y) passed() []a11yRule {
	var out []a11yRule
	for _, r := range p.Passes {
		if !p.failed(r.ID) {
			out = append(out, r)
		}
	}
	return out
}

func (p *pageA11y) failed(id string) bool {
	for _, v := range p.Violations {
		if v.ID == id {
			return true
		}
	}
	return false
}

// accessibilityInfo summarises axe-core's results for the answer.
func accessibilityInfo(p *pageA11y) AccessibilityInfo {
	a := AccessibilityInfo{Engine: "axe-core " + p.Version, Passed: len(p.passed()), Failed: len(p.Violations),
		Review: []string{}, Violations: []A11yViolation{}}
	a.Applicable = a.Passed + a.Failed
	for _, r := range p.Incomplete {
		if !p.failed(r.ID) {
			a.Review = append(a.Review, r.ID)
		}
	}
	for _, r := range p.Violations {
		v := A11yViolation{Rule: r.ID, Impact: r.Impact, Help: r.Help, HelpURL: r.HelpURL, WCAG: r.Tags,
			Elements: r.Elements, Targets: make([]string, 0, len(r.Targets))}
		if v.WCAG == nil {
			v.WCAG = []string{}
		}
		for _, s := range r.Targets {
			v.Targets = append(v.Targets, cut(s, 200))
		}
		a.Violations = append(a.Violations, v)
	}
	rank := map[string]int{"critical": 0, "serious": 1, "moderate": 2, "minor": 3}
	sort.SliceStable(a.Violations, func(i, j int) bool { return rank[a.Violations[i].Impact] < rank[a.Violations[j].Impact] })
	return a
}

func (f *findings) accessibility(p *pageA11y) {
	for _, r := range p.Violations {
		sev := impactSeverity[r.Impact]
		if sev == "" {
			sev = "medium"
		}
		msg := r.Help
		if n := r.Elements; n > 0 && len(r.Targets) > 0 {
			msg = fmt.Sprintf("%s (%d %s, first %s).", strings.TrimSuffix(r.Help, "."), n, plural(n, "element", "elements"), cut(r.Targets[0], 120))
		}
		fix := strings.Join(strings.Fields(r.Summary), " ")
		if r.HelpURL != "" {
			fix = strings.TrimSpace(fix + " See " + r.HelpURL)
		}
		f.add("accessibility", r.ID, sev, msg, fix)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

package browser

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

//go:embed vitals.js
var vitalsJS string

// SpeedInput is the input of site_speed.
type SpeedInput struct {
	URL    string `json:"url" doc:"The public http or https page to measure." minLength:"1" maxLength:"2048"`
	Device string `json:"device,omitempty" doc:"mobile: 412x823 phone, 4x CPU slowdown, 150 ms added to each request, 1.6 Mbit/s down, 750 kbit/s up; desktop: 1350x940, no CPU slowdown, 40 ms, 10 Mbit/s. Applied in Chromium while the page loads (Lighthouse's default simulates them)." enum:"mobile|desktop" default:"mobile"`
}

// Device is an emulated device: the lab conditions of a measurement.
type Device struct {
	Name         string  `json:"name"`
	Width        int64   `json:"width"`
	Height       int64   `json:"height"`
	ScaleFactor  float64 `json:"device_scale_factor"`
	Mobile       bool    `json:"mobile"`
	CPUSlowdown  float64 `json:"cpu_slowdown"`
	LatencyMS    float64 `json:"latency_ms"`
	DownloadKbps float64 `json:"download_kbps"`
	UploadKbps   float64 `json:"upload_kbps"`
	UserAgent    string  `json:"user_agent,omitempty"`
}

// The lab profiles: the screens and the network and CPU figures of
// Lighthouse's default settings (a moto g power on slow 4G, and a desktop),
// applied in Chromium while the page loads. Lighthouse by default
// simulates these figures instead, and its own applied mode uses others
// (562.5 ms latency, 1,474.56 kbit/s); docs/tools-browser.md compares them.
var devices = map[string]Device{
	"mobile": {Name: "mobile", Width: 412, Height: 823, ScaleFactor: 1.75, Mobile: true, CPUSlowdown: 4,
		LatencyMS: 150, DownloadKbps: 1638.4, UploadKbps: 750,
		UserAgent: "Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/148.0.0.0 Mobile Safari/537.36"},
	"desktop": {Name: "desktop", Width: 1350, Height: 940, ScaleFactor: 1, CPUSlowdown: 1,
		LatencyMS: 40, DownloadKbps: 10240, UploadKbps: 10240},
}

// Metric is one measured value with its rating.
type Metric struct {
	// Value is in milliseconds, except CLS (unitless); nil when the page
	// did not produce it (no contentful paint, say).
	Value *float64 `json:"value"`
	Unit  string   `json:"unit"`
	// Rating is good, needs-improvement or poor on the published
	// thresholds, or "" without a value.
	Rating string `json:"rating,omitempty"`
	// Good and Poor are the thresholds: good at most Good, poor above Poor.
	Good float64 `json:"good"`
	Poor float64 `json:"poor"`
}

// Vitals are the page's metrics.
type Vitals struct {
	LCP  Metric `json:"lcp"`
	CLS  Metric `json:"cls"`
	FCP  Metric `json:"fcp"`
	TTFB Metric `json:"ttfb"`
	TBT  Metric `json:"tbt"`
}

// Timings come from the document's Navigation Timing entry, in ms from the
// start of navigation. Connection phases are the browser's connection to
// the server through the tool's proxy.
type Timings struct {
	Redirect         float64 `json:"redirect_ms"`
	DNS              float64 `json:"dns_ms"`
	Connect          float64 `json:"connect_ms"`
	TLS              float64 `json:"tls_ms"`
	Request          float64 `json:"request_ms"` // request sent to first byte
	Download         float64 `json:"download_ms"`
	DOMInteractive   float64 `json:"dom_interactive_ms"`
	DOMContentLoaded float64 `json:"dom_content_loaded_ms"`
	Load             float64 `json:"load_ms"`
}

// FailedRequest is a request the browser could not complete.
type FailedRequest struct {
	URL   string `json:"url"`
	Error string `json:"error"`
}

// TypeWeight is what the page loaded of one resource type.
type TypeWeight struct {
	Type     string `json:"type"`
	Requests int    `json:"requests"`
	Bytes    int64  `json:"bytes"`
}

// Requests summarises the page's network use (transfer sizes).
type Requests struct {
	Count  int `json:"count"`
	Failed int `json:"failed"`
	// Failures are the first failed requests with the browser's error.
	Failures []FailedRequest `json:"failures,omitempty"`
	Bytes    int64           `json:"bytes"`
	ByType   []TypeWeight    `json:"by_type"`
}

// SpeedOutput is the answer of site_speed.
type SpeedOutput struct {
	URL      string  `json:"url"`
	FinalURL string  `json:"final_url"`
	Status   int64   `json:"status"`
	Device   Device  `json:"device"`
	Metrics  Vitals  `json:"metrics"`
	Timings  Timings `json:"timings"`
	// LCPElement is a short selector of the largest contentful element,
	// LCPURL its image URL if it is an image.
	LCPElement   string    `json:"lcp_element,omitempty"`
	LCPURL       string    `json:"lcp_url,omitempty"`
	LayoutShifts int       `json:"layout_shifts"`
	LongTasks    int       `json:"long_tasks"`
	Requests     Requests  `json:"requests"`
	Redirects    []Hop     `json:"redirects"`
	Blocked      []Blocked `json:"blocked"`
	// WaitTimedOut: the page was still busy when measuring stopped.
	WaitTimedOut bool      `json:"wait_timed_out,omitempty"`
	MeasuredAt   time.Time `json:"measured_at"`
	TookMS       int64     `json:"took_ms"`
	// headers of the document, for site_audit.
	header network.Headers
}

// Thresholds (web.dev Core Web Vitals; TBT as Lighthouse rates it).
var thresholds = map[string][2]float64{
	"lcp": {2500, 4000}, "cls": {0.1, 0.25}, "fcp": {1800, 3000}, "ttfb": {800, 1800}, "tbt": {200, 600},
}

func metric(name string, v *float64) Metric {
	th := thresholds[name]
	m := Metric{Value: v, Unit: "ms", Good: th[0], Poor: th[1]}
	if name == "cls" {
		m.Unit = "score"
	}
	if v == nil {
		return m
	}
	switch {
	case *v <= th[0]:
		m.Rating = "good"
	case *v <= th[1]:
		m.Rating = "needs-improvement"
	default:
		m.Rating = "poor"
	}
	return m
}

// pageMetrics is what the measuring script returns.
type pageMetrics struct {
	LCP        *float64     `json:"lcp"`
	LCPElement string       `json:"lcpElement"`
	LCPURL     string       `json:"lcpURL"`
	CLS        float64      `json:"cls"`
	Shifts     int          `json:"shifts"`
	FCP        *float64     `json:"fcp"`
	LongTasks  [][2]float64 `json:"longTasks"`
	Nav        *struct {
		RedirectStart, RedirectEnd, DomainLookupStart, DomainLookupEnd, ConnectStart, ConnectEnd float64
		SecureConnectionStart, RequestStart, ResponseStart, ResponseEnd                          float64
		DomInteractive, DomContentLoadedEventEnd, LoadEventEnd                                   float64
	} `json:"nav"`
}

const readMetricsJS = `(() => {
  const m = window.__openshelfVitals || {};
  const n = performance.getEntriesByType("navigation")[0];
  return JSON.stringify(Object.assign({}, m, {nav: n ? n.toJSON() : null}));
})()`

// SiteSpeed measures a page under the device's lab conditions.
func (t *Tools) SiteSpeed(ctx context.Context, in SpeedInput) (*SpeedOutput, error) {
	var out *SpeedOutput
	err := t.page(ctx, in.URL, func(ctx context.Context, rec *recorder, px *proxy) error {
		var err error
		out, err = t.measure(ctx, rec, px, in)
		return err
	})
	if err != nil {
		return nil, t.callError(err)
	}
	return out, nil
}

func (t *Tools) measure(ctx context.Context, rec *recorder, px *proxy, in SpeedInput) (*SpeedOutput, error) {
	start := time.Now()
	if in.Device == "" {
		in.Device = "mobile"
	}
	dev := devices[in.Device]
	if err := emulate(ctx, dev); err != nil {
		return nil, err
	}
	if _, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: vitalsJS}); err != nil {
		return nil, err
	}
	ld, err := rec.navigate(ctx, px, in.URL, "networkidle0", t.cfg.WaitTimeout)
	if err != nil {
		return nil, err
	}
	settled := rec.settle(ctx, time.Now().Add(t.cfg.WaitTimeout))
	raw, err := chromedp.Run(ctx, chromedp.Evaluate[string](readMetricsJS))
	if err != nil {
		return nil, err
	}
	var pm pageMetrics
	if err := json.Unmarshal([]byte(raw), &pm); err != nil {
		return nil, err
	}
	out := &SpeedOutput{URL: in.URL, FinalURL: ld.FinalURL, Status: ld.Status, Device: dev,
		LCPElement: pm.LCPElement, LCPURL: pm.LCPURL, LayoutShifts: pm.Shifts, LongTasks: len(pm.LongTasks),
		Requests: rec.requestStats(), Redirects: rec.redirects(), Blocked: px.Blocked(),
		WaitTimedOut: ld.TimedOut || !settled, MeasuredAt: t.cfg.Now().UTC(), header: ld.Header}
	if out.Blocked == nil {
		out.Blocked = []Blocked{}
	}
	cls := round(pm.CLS, 4)
	var ttfb *float64
	if n := pm.Nav; n != nil {
		v := round(n.ResponseStart, 1)
		ttfb = &v
		out.Timings = Timings{
			Redirect: round(n.RedirectEnd-n.RedirectStart, 1), DNS: round(n.DomainLookupEnd-n.DomainLookupStart, 1),
			Connect: round(n.ConnectEnd-n.ConnectStart, 1), Request: round(n.ResponseStart-n.RequestStart, 1),
			Download: round(n.ResponseEnd-n.ResponseStart, 1), DOMInteractive: round(n.DomInteractive, 1),
			DOMContentLoaded: round(n.DomContentLoadedEventEnd, 1), Load: round(n.LoadEventEnd, 1),
		}
		if n.SecureConnectionStart > 0 {
			out.Timings.TLS = round(n.ConnectEnd-n.SecureConnectionStart, 1)
		}
	}
	tbt := totalBlockingTime(pm.FCP, pm.LongTasks)
	out.Metrics = Vitals{LCP: metric("lcp", roundPtr(pm.LCP)), CLS: metric("cls", &cls), FCP: metric("fcp", roundPtr(pm.FCP)),
		TTFB: metric("ttfb", ttfb), TBT: metric("tbt", &tbt)}
	out.TookMS = time.Since(start).Milliseconds()
	return out, nil
}

// totalBlockingTime sums the part over 50 ms of every long task that
// starts after first contentful paint (Lighthouse's definition; the window
// ends when measuring stops rather than at time to interactive).
func totalBlockingTime(fcp *float64, tasks [][2]float64) float64 {
	from := 0.0
	if fcp != nil {
		from = *fcp
	}
	sum := 0.0
	for _, t := range tasks {
		start, dur := t[0], t[1]
		if start+dur <= from {
			continue
		}
		if start < from { // only the part after FCP counts
			dur -= from - start
		}
		sum += max(0, dur-50)
	}
	return round(sum, 1)
}

// emulate applies the device: viewport, touch, user agent, CPU slowdown
// and network throttling; the cache is off.
func emulate(ctx context.Context, d Device) error {
	if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
		Width: d.Width, Height: d.Height, DeviceScaleFactor: d.ScaleFactor, Mobile: d.Mobile}); err != nil {
		return err
	}
	if d.Mobile {
		if _, err := chromedp.Call(ctx, emulation.SetTouchEmulationEnabled, emulation.SetTouchEmulationEnabledParams{Enabled: true, MaxTouchPoints: 5}); err != nil {
			return err
		}
	}
	if d.UserAgent != "" {
		if _, err := chromedp.Call(ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: d.UserAgent, Platform: "Linux armv8l"}); err != nil {
			return err
		}
	}
	if _, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: d.CPUSlowdown}); err != nil {
		return err
	}
	if _, err := chromedp.Call(ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return err
	}
	// Network.emulateNetworkConditionsByRule, sent by name: Chromium 148
	// wants "offline" at the top level, which cdproto v0.159's params
	// struct does not have (it then answers "Invalid parameters").
	err := chromedp.FromContext(ctx).Target.Call(ctx, "Network.emulateNetworkConditionsByRule", map[string]any{
		"offline": false,
		"matchedNetworkConditions": []map[string]any{{"urlPattern": "", "latency": d.LatencyMS,
			"downloadThroughput": d.DownloadKbps * 1024 / 8, "uploadThroughput": d.UploadKbps * 1024 / 8}},
	}, nil)
	if err != nil {
		return fmt.Errorf("browser: network throttling: %w", err)
	}
	return nil
}

// settle waits until the page is quiet: no request in flight and no new
// request for 750 ms, or until the deadline. It reports whether the page
// settled.
func (r *recorder) settle(ctx context.Context, deadline time.Time) bool {
	last := -1
	quietSince := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		n, pending := r.activity()
		if n != last || pending > 0 {
			last, quietSince = n, time.Now()
		}
		if time.Since(quietSince) >= 750*time.Millisecond {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}

// activity is the number of requests seen and of those not finished.
func (r *recorder) activity() (seen, pending int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, q := range r.reqs {
		if !q.finished && q.typ != network.ResourceTypeWebSocket && q.typ != network.ResourceTypeEventSource {
			pending++
		}
	}
	return len(r.reqs), pending
}

// requestStats groups the page's requests by resource type.
func (r *recorder) requestStats() Requests {
	r.mu.Lock()
	defer r.mu.Unlock()
	by := map[string]*TypeWeight{}
	var out Requests
	for _, id := range r.order {
		q := r.reqs[id]
		typ := resourceType(q.typ)
		w := by[typ]
		if w == nil {
			w = &TypeWeight{Type: typ}
			by[typ] = w
		}
		w.Requests++
		w.Bytes += int64(q.bytes)
		out.Count++
		out.Bytes += int64(q.bytes)
		if q.failed {
			out.Failed++
			if len(out.Failures) < 10 {
				out.Failures = append(out.Failures, FailedRequest{URL: cut(q.url, 300), Error: q.errText})
			}
		}
	}
	out.ByType = []TypeWeight{}
	for _, w := range by {
		out.ByType = append(out.ByType, *w)
	}
	sort.Slice(out.ByType, func(i, j int) bool {
		if out.ByType[i].Bytes != out.ByType[j].Bytes {
			return out.ByType[i].Bytes > out.ByType[j].Bytes
		}
		return out.ByType[i].Type < out.ByType[j].Type
	})
	return out
}

// resourceType names Chromium's resource types the way page-weight
// reports usually do.
func resourceType(t network.ResourceType) string {
	switch t {
	case network.ResourceTypeDocument:
		return "document"
	case network.ResourceTypeStylesheet:
		return "stylesheet"
	case network.ResourceTypeScript:
		return "script"
	case network.ResourceTypeImage:
		return "image"
	case network.ResourceTypeFont:
		return "font"
	case network.ResourceTypeMedia:
		return "media"
	case network.ResourceTypeXHR, network.ResourceTypeFetch, network.ResourceTypeEventSource, network.ResourceTypeWebSocket:
		return "xhr"
	}
	return "other"
}

func round(v float64, digits int) float64 {
	p := math.Pow(10, float64(digits))
	return math.Round(v*p) / p
}

func roundPtr(v *float64) *float64 {
	if v == nil {
		return nil
	}
	r := round(*v, 1)
	return &r
}

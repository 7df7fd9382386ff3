package browser

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"
)

func pngOf(w, h int) []byte {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		for y := range h {
			img.Set(x, y, color.RGBA{200, 50, 50, 255})
		}
	}
	var b bytes.Buffer
	png.Encode(&b, img)
	return b.Bytes()
}

// speedSite serves pages with known behaviour.
// afterPaintJS runs fn 100 ms after the first contentful paint, so the
// test pages act after it however slow the machine is.
const afterPaintJS = `<script>function afterPaint(fn) {
  new PerformanceObserver((l) => { if (l.getEntries().some((e) => e.name === "first-contentful-paint")) setTimeout(fn, 100); })
    .observe({type: "paint", buffered: true});
}</script>`

func speedSite(t *testing.T) string {
	big := pngOf(600, 400)
	srv := site(t, map[string]http.HandlerFunc{
		// The largest content is an image that arrives after 1.2 s.
		"/lcp": html(`<!doctype html><body><p>small text</p><img src="/slow.png" width="600" height="400"></body>`),
		"/slow.png": func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(1200 * time.Millisecond)
			w.Header().Set("Content-Type", "image/png")
			w.Write(big)
		},
		// Content pushed down by a banner inserted after the first paint
		// (a shift before it would not count).
		"/cls": html(`<!doctype html>` + afterPaintJS + `<body style="margin:0"><div id="c" style="height:600px;background:#ddd">content</div>
<script>afterPaint(() => { const d = document.createElement("div"); d.style.height = "300px"; d.textContent = "banner"; document.body.prepend(d); });</script></body>`),
		// A mobile-ready page that inserts a 300 px block above its 400 px
		// block right after load, as soon as it has painted (a shift before
		// the first paint is not reported).
		"/cls-after-load": html(`<!doctype html><meta name="viewport" content="width=device-width, initial-scale=1">
<body style="margin:0"><div style="height:400px;background:#ddd">content</div>
<script>addEventListener("load", () => new PerformanceObserver((l, o) => {
  if (!l.getEntries().some((e) => e.name === "first-contentful-paint")) return;
  o.disconnect();
  const d = document.createElement("div"); d.style.height = "300px"; document.body.prepend(d);
}).observe({type: "paint", buffered: true}));</script></body>`),
		"/stable": html(`<!doctype html><body><h1>Stable</h1><p>Nothing moves.</p><link rel="stylesheet" href="/s.css"><script src="/a.js"></script></body>`),
		"/s.css": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/css")
			w.Write([]byte("p{color:#333}"))
		},
		"/a.js": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/javascript")
			w.Write([]byte("var x = 1;"))
		},
		// A 400 ms task after the first contentful paint.
		"/tbt": html(`<!doctype html>` + afterPaintJS + `<body><h1>Busy</h1>
<script>afterPaint(() => { const end = performance.now() + 400; while (performance.now() < end) {} });</script></body>`),
	})
	return srv.URL
}

func TestSiteSpeedLCPLateImage(t *testing.T) {
	t.Parallel()
	base := speedSite(t)
	out, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/lcp", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	lcp := out.Metrics.LCP
	if lcp.Value == nil || *lcp.Value < 1200 {
		t.Fatalf("LCP %v, want at least the image's 1200 ms delay", lcp.Value)
	}
	if out.LCPElement != "img" || !strings.HasSuffix(out.LCPURL, "/slow.png") {
		t.Errorf("LCP element %q url %q", out.LCPElement, out.LCPURL)
	}
	if out.Metrics.FCP.Value == nil || *out.Metrics.FCP.Value >= *lcp.Value {
		t.Errorf("FCP %v should come before LCP %v (the text paints first)", out.Metrics.FCP.Value, *lcp.Value)
	}
	if out.Metrics.TTFB.Value == nil || out.Metrics.TTFB.Rating == "" {
		t.Errorf("TTFB %+v", out.Metrics.TTFB)
	}
	var img TypeWeight
	for _, w := range out.Requests.ByType {
		if w.Type == "image" {
			img = w
		}
	}
	if img.Requests != 1 || img.Bytes < int64(len(pngOf(600, 400))) {
		t.Errorf("image weight %+v", img)
	}
}

func TestSiteSpeedCLS(t *testing.T) {
	t.Parallel()
	base := speedSite(t)
	out, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/cls", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	cls := out.Metrics.CLS
	if cls.Value == nil || *cls.Value <= 0.1 || cls.Rating == "good" || out.LayoutShifts == 0 {
		t.Fatalf("CLS %+v (value %v) shifts %d, want a shift above 0.1", cls, deref(cls.Value), out.LayoutShifts)
	}
	stable, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/stable", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	if v := stable.Metrics.CLS.Value; v == nil || *v != 0 || stable.Metrics.CLS.Rating != "good" {
		t.Errorf("stable page CLS %v %q", deref(v), stable.Metrics.CLS.Rating)
	}
	if stable.Requests.Count != 3 || stable.Status != 200 {
		t.Errorf("requests %+v status %d", stable.Requests, stable.Status)
	}
	types := map[string]int{}
	for _, w := range stable.Requests.ByType {
		types[w.Type] = w.Requests
	}
	if types["document"] != 1 || types["stylesheet"] != 1 || types["script"] != 1 {
		t.Errorf("by type %v", types)
	}
}

// TestSiteSpeedCLSEveryDevice checks the value of one known shift under
// both profiles. Chromium's mobile emulation marks it hadRecentInput
// although no input was sent; it must count all the same. The 400 px
// block moves 300 px down: the impact fraction is the union of its old and
// new places (700 px) over the viewport's height, the distance fraction
// 300 px over the viewport's larger side.
func TestSiteSpeedCLSEveryDevice(t *testing.T) {
	t.Parallel()
	base := speedSite(t)
	for _, dev := range []string{"mobile", "desktop"} {
		out, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/cls-after-load", Device: dev})
		if err != nil {
			t.Fatal(err)
		}
		w, h := float64(out.Device.Width), float64(out.Device.Height)
		want := 700 / h * 300 / max(w, h) // mobile 0.310, desktop 0.1655
		cls := out.Metrics.CLS
		if cls.Value == nil || math.Abs(*cls.Value-want) > 0.005 || out.LayoutShifts != 1 {
			t.Errorf("%s: CLS %v with %d shifts, want %.4f from one shift", dev, deref(cls.Value), out.LayoutShifts, want)
		}
	}
}

func TestSiteSpeedTBT(t *testing.T) {
	t.Parallel()
	base := speedSite(t)
	out, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/tbt", Device: "desktop"})
	if err != nil {
		t.Fatal(err)
	}
	tbt := out.Metrics.TBT
	// A 400 ms task blocks for at least 350 ms beyond the 50 ms budget.
	if tbt.Value == nil || *tbt.Value < 350 || tbt.Rating == "good" || out.LongTasks < 1 {
		t.Fatalf("TBT %v rating %q long tasks %d", deref(tbt.Value), tbt.Rating, out.LongTasks)
	}
}

func TestSiteSpeedMobileEmulation(t *testing.T) {
	t.Parallel()
	base := speedSite(t)
	out, err := shared.SiteSpeed(ctx(t), SpeedInput{URL: base + "/stable"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Device.Name != "mobile" || out.Device.Width != 412 || out.Device.CPUSlowdown != 4 {
		t.Errorf("device %+v", out.Device)
	}
	// Slow 4G adds 150 ms of latency to each sub-resource, so the load
	// event (after the stylesheet and the script) comes that late at least.
	if out.Timings.Load < 150 {
		t.Errorf("load at %v ms under mobile throttling", out.Timings.Load)
	}
}

func TestRatings(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    float64
		want string
	}{
		{"lcp", 2500, "good"}, {"lcp", 2501, "needs-improvement"}, {"lcp", 4001, "poor"},
		{"cls", 0.1, "good"}, {"cls", 0.2, "needs-improvement"}, {"cls", 0.26, "poor"},
		{"tbt", 150, "good"}, {"tbt", 601, "poor"}, {"ttfb", 900, "needs-improvement"}, {"fcp", 3001, "poor"},
	} {
		if got := metric(tc.name, &tc.v).Rating; got != tc.want {
			t.Errorf("%s %v: %q, want %q", tc.name, tc.v, got, tc.want)
		}
	}
	if got := totalBlockingTime(new(100.0), [][2]float64{{50, 200}, {300, 40}, {500, 120}}); got != 170 {
		// First task: 150 ms after FCP, 100 over budget; second under 50;
		// third 70 over.
		t.Errorf("TBT %v, want 170", got)
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

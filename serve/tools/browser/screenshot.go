package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	_ "image/jpeg" // DecodeConfig of jpeg screenshots
	_ "image/png"  // and of png ones
	"math"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/apierr"
)

// MaxFullPageHeight is the tallest full-page screenshot, in CSS pixels.
const MaxFullPageHeight = 8000

// ScreenshotInput is the input of screenshot.
type ScreenshotInput struct {
	URL       string `json:"url" doc:"The public http or https page to capture." minLength:"1" maxLength:"2048"`
	Width     int    `json:"width,omitempty" doc:"Viewport width in CSS pixels." min:"320" max:"1920" default:"1920"`
	Height    int    `json:"height,omitempty" doc:"Viewport height in CSS pixels." min:"240" max:"1920" default:"1080"`
	FullPage  bool   `json:"full_page,omitempty" doc:"Capture the whole page, not only the viewport (at most 8000 px tall; taller pages are cut)."`
	Format    string `json:"format,omitempty" doc:"Image format." enum:"png|jpeg|webp" default:"png"`
	Quality   int    `json:"quality,omitempty" doc:"Compression quality for jpeg and webp (ignored for png)." min:"30" max:"100" default:"80"`
	WaitUntil string `json:"wait_until,omitempty" doc:"When the page counts as loaded: the load event, DOMContentLoaded, or no more than 0 or 2 network connections for 500 ms." enum:"load|domcontentloaded|networkidle0|networkidle2" default:"networkidle2"`
	DelayMS   int    `json:"delay_ms,omitempty" doc:"Extra wait after loading, in milliseconds." min:"0" max:"5000" default:"0"`
}

// ScreenshotOutput is the answer of screenshot.
type ScreenshotOutput struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url"`
	// Status is the HTTP status of the document (0 when unknown).
	Status      int64  `json:"status"`
	Format      string `json:"format"`
	ContentType string `json:"content_type"`
	// Width and Height are the image's pixel dimensions.
	Width  int `json:"width"`
	Height int `json:"height"`
	Bytes  int `json:"bytes"`
	// Image is the image, base64 (standard alphabet, padded).
	Image    string `json:"image"`
	FullPage bool   `json:"full_page"`
	// PageHeight is the document's full height in CSS pixels; with
	// full_page, Truncated says it was taller than 8000 px and was cut.
	PageHeight int    `json:"page_height"`
	Truncated  bool   `json:"truncated,omitempty"`
	WaitUntil  string `json:"wait_until"`
	// WaitTimedOut: the wait_until condition was not met within the wait
	// budget; the image shows the page as it was then.
	WaitTimedOut bool `json:"wait_timed_out,omitempty"`
	// Blocked lists requests of the page that were refused (private
	// addresses, the byte cap).
	Blocked   []Blocked `json:"blocked"`
	Redirects []Hop     `json:"redirects"`
	TookMS    int64     `json:"took_ms"`
}

var contentTypes = map[string]string{"png": "image/png", "jpeg": "image/jpeg", "webp": "image/webp"}

// Screenshot captures a page.
func (t *Tools) Screenshot(ctx context.Context, in ScreenshotInput) (*ScreenshotOutput, error) {
	start := time.Now()
	in = screenshotDefaults(in)
	var out *ScreenshotOutput
	err := t.page(ctx, in.URL, func(ctx context.Context, rec *recorder, px *proxy) error {
		if _, err := chromedp.Call(ctx, emulation.SetDeviceMetricsOverride, emulation.SetDeviceMetricsOverrideParams{
			Width: int64(in.Width), Height: int64(in.Height), DeviceScaleFactor: 1,
		}); err != nil {
			return err
		}
		ld, err := rec.navigate(ctx, px, in.URL, in.WaitUntil, t.cfg.WaitTimeout)
		if err != nil {
			return err
		}
		if err := sleep(ctx, time.Duration(in.DelayMS)*time.Millisecond); err != nil {
			return err
		}
		img, pageH, truncated, err := capture(ctx, in)
		if err != nil {
			return err
		}
		out = &ScreenshotOutput{URL: in.URL, FinalURL: ld.FinalURL, Status: ld.Status, Format: in.Format,
			ContentType: contentTypes[in.Format], Bytes: len(img), Image: base64.StdEncoding.EncodeToString(img),
			FullPage: in.FullPage, PageHeight: pageH, Truncated: truncated, WaitUntil: in.WaitUntil,
			WaitTimedOut: ld.TimedOut, Blocked: px.Blocked(), Redirects: rec.redirects()}
		out.Width, out.Height = imageSize(img, in, pageH)
		return nil
	})
	if err != nil {
		return nil, t.callError(err)
	}
	if out.Blocked == nil {
		out.Blocked = []Blocked{}
	}
	out.TookMS = time.Since(start).Milliseconds()
	return out, nil
}

func screenshotDefaults(in ScreenshotInput) ScreenshotInput {
	if in.Width == 0 {
		in.Width = 1920
	}
	if in.Height == 0 {
		in.Height = 1080
	}
	if in.Format == "" {
		in.Format = "png"
	}
	if in.Quality == 0 {
		in.Quality = 80
	}
	if in.WaitUntil == "" {
		in.WaitUntil = "networkidle2"
	}
	return in
}

// capture takes the screenshot: the viewport, or the page down to 8000 px.
func capture(ctx context.Context, in ScreenshotInput) (img []byte, pageH int, truncated bool, err error) {
	m, err := chromedp.Call(ctx, page.GetLayoutMetrics, struct{}{})
	if err != nil {
		return nil, 0, false, err
	}
	pageH = in.Height
	if m.CSSContentSize != nil {
		pageH = int(math.Ceil(m.CSSContentSize.Height))
	}
	p := page.CaptureScreenshotParams{Format: page.CaptureScreenshotFormat(in.Format), FromSurface: new(true)}
	if in.Format != "png" {
		q := int64(in.Quality)
		p.Quality = &q
	}
	if in.FullPage {
		h := max(pageH, in.Height)
		if h > MaxFullPageHeight {
			h, truncated = MaxFullPageHeight, true
		}
		p.Clip = &page.Viewport{Width: float64(in.Width), Height: float64(h), Scale: 1}
		p.CaptureBeyondViewport = new(true)
	}
	res, err := chromedp.Call(ctx, page.CaptureScreenshot, p)
	if err != nil {
		return nil, 0, false, err
	}
	if len(res.Data) == 0 {
		return nil, 0, false, errors.New("browser: empty screenshot")
	}
	return res.Data, pageH, truncated, nil
}

// imageSize reads the dimensions from the image (png, jpeg) or, for webp,
// from what was asked.
func imageSize(img []byte, in ScreenshotInput, pageH int) (int, int) {
	if c, _, err := image.DecodeConfig(bytes.NewReader(img)); err == nil {
		return c.Width, c.Height
	}
	if w, h, ok := webpSize(img); ok {
		return w, h
	}
	h := in.Height
	if in.FullPage {
		h = min(max(pageH, in.Height), MaxFullPageHeight)
	}
	return in.Width, h
}

// webpSize reads the canvas size of a VP8X, VP8 or VP8L WebP file.
func webpSize(b []byte) (int, int, bool) {
	if len(b) < 30 || string(b[0:4]) != "RIFF" || string(b[8:12]) != "WEBP" {
		return 0, 0, false
	}
	switch string(b[12:16]) {
	case "VP8X":
		w := 1 + int(b[24]) | int(b[25])<<8 | int(b[26])<<16
		h := 1 + int(b[27]) | int(b[28])<<8 | int(b[29])<<16
		return w, h, true
	case "VP8 ":
		w := int(b[26]) | int(b[27])<<8
		h := int(b[28]) | int(b[29])<<8
		return w & 0x3fff, h & 0x3fff, true
	case "VP8L":
		v := uint32(b[21]) | uint32(b[22])<<8 | uint32(b[23])<<16 | uint32(b[24])<<24
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1, true
	}
	return 0, 0, false
}

func (r *recorder) redirects() []Hop {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Hop{}, r.redirect...)
}

// callError makes sure what a call returns is an API error: anything the
// browser threw that is not one (a crash, a protocol error) is a 502
// browser_error, logged with its cause.
func (t *Tools) callError(err error) error {
	if _, ok := asAPI(err); ok {
		return err
	}
	t.cfg.Logger.Warn("browser: call failed", "err", err)
	return apierr.New(apierr.ErrUpstream, "browser_error", "the browser failed while handling the page")
}

func asAPI(err error) (*apierr.Error, bool) {
	var e *apierr.Error
	ok := errors.As(err, &e)
	return e, ok
}

package browser

import (
	"context"
	"net/http"

	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/schema"
)

// renderPath is where render_document's files are downloaded from.
const renderPath = "/v1/render-doc"

// DownloadInput documents the download route's path parameter (the route
// is a raw handler; the store reads the token itself).
type DownloadInput struct {
	Token string `json:"token" in:"path" doc:"The token of the download link render_document returned." pattern:"^[A-Za-z0-9_-]{43}$"`
}

// Endpoints returns the registry entries. Input Validate methods refuse
// private URLs before payment; a handler error is never charged.
func (t *Tools) Endpoints() []*registry.Endpoint {
	return []*registry.Endpoint{
		registry.Spec[ScreenshotInput]{
			Name: "screenshot", Method: http.MethodPost, Path: "/v1/screenshot", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Screenshot a web page in a real browser (Chromium): viewport or full page, PNG, JPEG or WebP, as base64.",
			Description: "The page is loaded in a fresh browser context (no cookies, cache or storage) and captured when " +
				"wait_until is reached (at most 20 s; then it is captured as it is, with wait_timed_out). Full pages " +
				"are cut at 8000 px. Requests of the page to non-public addresses are refused and listed in blocked.",
			Output: ScreenshotOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *ScreenshotInput) error { _, err := t.fc.CheckURL(in.URL); return err },
			Handle: func(ctx context.Context, in *ScreenshotInput) (*registry.Result, error) {
				out, err := t.Screenshot(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[SpeedInput]{
			Name: "site_speed", Method: http.MethodGet, Path: "/v1/site-speed", Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Measure a page's speed in a real browser: LCP, CLS, FCP, TTFB and total blocking time with ratings, timings, requests and page weight by type.",
			Description: "A lab measurement in Chromium under an emulated device: mobile (412x823 phone, 4x CPU slowdown, " +
				"150 ms and 1.6 Mbit/s applied to each request) or desktop. Metrics follow web-vitals semantics (CLS " +
				"session windows; every shift counts, the tool sends no input) and are rated good, needs-improvement or " +
				"poor on the published thresholds. Fresh browser context, cache off.",
			Output: SpeedOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *SpeedInput) error { _, err := t.fc.CheckURL(in.URL); return err },
			Handle: func(ctx context.Context, in *SpeedInput) (*registry.Result, error) {
				out, err := t.SiteSpeed(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[AuditInput]{
			Name: "site_audit", Method: http.MethodPost, Path: "/v1/site-audit", Group: registry.GroupTools,
			Price:   "0.02",
			Summary: "Audit a web page: grade A to F, scores for performance, accessibility, SEO, security and availability, and every finding with its severity and fix.",
			Description: "Loads the page in Chromium and measures it as site_speed does; runs axe-core's WCAG 2.0-2.2 A and AA " +
				"rules in the page (accessibility: the weighted share of applicable rules passed, as Lighthouse weighs " +
				"them); checks title, description, headings, canonical, robots meta, robots.txt, sitemap, alt text, links " +
				"and structured data; HTTPS, the TLS certificate and security headers; status, redirects and response " +
				"time. Optional 1280x800 JPEG screenshot.",
			Output: AuditOutput{},
			Tool:   &registry.Tool{OpenWorld: true},
			Check:  func(_ context.Context, in *AuditInput) error { _, err := t.fc.CheckURL(in.URL); return err },
			Handle: func(ctx context.Context, in *AuditInput) (*registry.Result, error) {
				out, err := t.SiteAudit(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[RenderInput]{
			Name: "render_document", Method: http.MethodPost, Path: renderPath, Group: registry.GroupTools,
			Price:   "0.001",
			Summary: "Render Markdown to PDF, DOCX or HTML and get a private download link valid for 24 hours.",
			Description: "GitHub-flavoured Markdown (tables, task lists, strikethrough, autolinks); raw HTML is dropped. " +
				"PDF is printed by Chromium (A4, Letter or Legal, optional CSS); DOCX is WordprocessingML with " +
				"headings, lists, tables, code, links and inline images. Only inline data: images are used; nothing " +
				"external is ever fetched. The link needs no payment and is deleted after 24 hours.",
			Output: RenderOutput{},
			// 200,000 characters of Markdown and 50,000 of CSS, JSON-escaped.
			MaxBody: 2 << 20,
			Tool:    &registry.Tool{},
			Handle: func(ctx context.Context, in *RenderInput) (*registry.Result, error) {
				out, err := t.Render(ctx, *in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		{
			Name: "render_download", Method: http.MethodGet, Path: renderPath + "/:token", Group: registry.GroupTools,
			Summary: "Download a file made by render_document (free; the link is the credential, valid 24 hours).",
			Description: "Answers the PDF, DOCX or HTML file as an attachment, or 404 render_not_found once the " +
				"link has expired (24 hours after rendering) or for an unknown token.",
			Input:       schema.InputOf(new(DownloadInput)),
			ContentType: "application/octet-stream",
			Raw:         t.store,
		},
	}
}

package browser

import (
	"context"
	"regexp"
	"strings"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/tools/browser/render"
)

// RenderInput is the input of render_document.
type RenderInput struct {
	Markdown string `json:"markdown" doc:"GitHub-flavoured Markdown. Raw HTML is dropped; only inline data: images (PNG, JPEG, GIF, WebP) are kept, nothing external is fetched." minLength:"1" maxLength:"200000"`
	Format   string `json:"format,omitempty" doc:"Output format." enum:"pdf|docx|html" default:"pdf"`
	CSS      string `json:"css,omitempty" doc:"Extra CSS for pdf and html (ignored for docx). url() and @import are never loaded." maxLength:"50000"`
	Title    string `json:"title,omitempty" doc:"Document title (metadata and the HTML <title>)." maxLength:"200"`
	PageSize string `json:"page_size,omitempty" doc:"Paper size of pdf and docx." enum:"A4|Letter|Legal" default:"A4"`
	Filename string `json:"filename,omitempty" doc:"File name for the download, without extension (it is added); default document." maxLength:"60"`
}

// RenderOutput is the answer of render_document.
type RenderOutput struct {
	// URL is the private download link: anyone holding it can download
	// the file, without payment, until ExpiresAt.
	URL         string    `json:"url"`
	ExpiresAt   time.Time `json:"expires_at"`
	Format      string    `json:"format"`
	ContentType string    `json:"content_type"`
	Filename    string    `json:"filename"`
	Bytes       int       `json:"bytes"`
	PageSize    string    `json:"page_size,omitempty"`
	// Pages is the page count of a PDF.
	Pages int `json:"pages,omitempty"`
}

var renderTypes = map[string]string{
	"pdf":  "application/pdf",
	"docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	"html": "text/html; charset=utf-8",
}

var pageSizes = map[string]render.PageSize{"A4": render.A4, "Letter": render.Letter, "Legal": render.Legal}

var paper = map[string]chromedp.PaperSize{"A4": chromedp.PaperA4, "Letter": chromedp.PaperLetter, "Legal": chromedp.PaperLegal}

// Render renders Markdown and stores the file behind a download link.
func (t *Tools) Render(ctx context.Context, in RenderInput) (*RenderOutput, error) {
	if in.Format == "" {
		in.Format = "pdf"
	}
	if in.PageSize == "" {
		in.PageSize = "A4"
	}
	var data []byte
	var err error
	out := &RenderOutput{Format: in.Format, ContentType: renderTypes[in.Format], Filename: cleanFilename(in.Filename) + "." + in.Format}
	switch in.Format {
	case "html":
		data, err = render.HTML(in.Markdown, render.HTMLOptions{Title: in.Title, CSS: in.CSS})
	case "docx":
		out.PageSize = in.PageSize
		data, err = render.DOCX(in.Markdown, render.DOCXOptions{Title: in.Title, Page: pageSizes[in.PageSize], Now: t.cfg.Now()})
	case "pdf":
		out.PageSize = in.PageSize
		data, err = t.pdf(ctx, in)
		out.Pages = pdfPages(data)
	default:
		return nil, apierr.Invalid("format", "must be pdf, docx or html")
	}
	if err != nil {
		return nil, err
	}
	token, m, err := t.store.put(data, out.Filename, out.ContentType)
	if err != nil {
		t.cfg.Logger.Error("browser: cannot store render", "err", err)
		return nil, apierr.New(apierr.ErrInternal, "", "the rendered file could not be stored")
	}
	out.URL = strings.TrimRight(t.cfg.BaseURL, "/") + renderPath + "/" + token
	out.ExpiresAt, out.Bytes = m.Expires, len(data)
	return out, nil
}

// pdf prints the HTML rendering with Chromium, in a tab whose proxy
// refuses every request (the HTML's CSP already forbids loads).
func (t *Tools) pdf(ctx context.Context, in RenderInput) ([]byte, error) {
	html, err := render.HTML(in.Markdown, render.HTMLOptions{Title: in.Title, CSS: in.CSS, PageSize: in.PageSize})
	if err != nil {
		return nil, err
	}
	var pdf []byte
	err = t.page(ctx, "", func(ctx context.Context, _ *recorder, _ *proxy) error {
		tree, err := chromedp.Call(ctx, page.GetFrameTree, struct{}{})
		if err != nil {
			return err
		}
		if _, err := chromedp.Call(ctx, page.SetDocumentContent, page.SetDocumentContentParams{
			FrameID: tree.FrameTree.Frame.ID, HTML: string(html)}); err != nil {
			return err
		}
		// Fonts load asynchronously even from local files.
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`document.fonts.ready.then(() => true)`, chromedp.EvalAwaitPromise)); err != nil {
			return err
		}
		pdf, err = chromedp.Run(ctx, chromedp.PrintToPDF(
			chromedp.PDFPaper(paper[in.PageSize]),
			chromedp.PDFPrintBackground(),
			chromedp.PDFMargins(0.6, 0.6, 0.6, 0.6),
		))
		return err
	})
	if err != nil {
		return nil, t.callError(err)
	}
	return pdf, nil
}

var pdfPageRE = regexp.MustCompile(`/Type\s*/Page[^s]`)

// pdfPages counts page objects; Chromium writes them uncompressed.
func pdfPages(b []byte) int {
	return len(pdfPageRE.FindAllIndex(b, -1))
}

var filenameRE = regexp.MustCompile(`[^\p{L}\p{N}._ -]+`)

// cleanFilename keeps letters, digits, dot, dash, underscore and space, and
// drops an extension the caller added.
func cleanFilename(s string) string {
	s = filenameRE.ReplaceAllString(s, "_")
	s = strings.Trim(s, " ._")
	for _, ext := range []string{".pdf", ".docx", ".html", ".htm"} {
		if strings.HasSuffix(strings.ToLower(s), ext) {
			s = strings.TrimRight(s[:len(s)-len(ext)], " ._")
		}
	}
	if s == "" {
		return "document"
	}
	return s
}

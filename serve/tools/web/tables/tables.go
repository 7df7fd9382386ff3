package tables

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
)

// maxTablesBytes caps the document extract_tables reads (HTML or PDF).
const maxTablesBytes = 10 << 20

// pdfTimeout caps the PDF analysis of one call.
const pdfTimeout = 30 * time.Second

// Input is the input of extract_tables.
type Input struct {
	URL   string `json:"url" doc:"URL of an HTML page or a PDF (at most 10 MB)." minLength:"1" maxLength:"2048"`
	Pages string `json:"pages,omitempty" doc:"PDF pages to read, like 1-3,5 or 10- (at most 30 pages); default the first 30. Ignored for HTML." maxLength:"64" pattern:"^[0-9,\\s-]*$"`
	// MaxTables caps the tables returned.
	MaxTables int `json:"max_tables,omitempty" doc:"Return at most this many tables." min:"1" max:"200" default:"50"`
}

// Validate checks the pages selection before payment. The URL is checked
// by the endpoint's Check, against the family's client and its policy.
func (in *Input) Validate() error {
	if _, err := parsePages(in.Pages); err != nil {
		return apierr.Invalid("pages", err.Error())
	}
	return nil
}

// Output is the answer of extract_tables.
type Output struct {
	URL      string `json:"url"`
	FinalURL string `json:"final_url"`
	// Type is html or pdf.
	Type string `json:"type"`
	// PageCount and Pages (the pages read) are set for PDFs.
	PageCount int     `json:"page_count,omitempty"`
	Pages     []int   `json:"pages,omitempty"`
	Tables    []Table `json:"tables"`
	// Truncated: there were more than max_tables tables.
	Truncated bool `json:"truncated,omitempty"`
	// Warnings name pages that could not be read.
	Warnings []string `json:"warnings,omitempty"`
}

// errTooLarge is the answer for a document over maxTablesBytes: the
// caller's choice of document, so a 4xx, with its own code.
func errTooLarge() error {
	return &apierr.Error{
		Status:  http.StatusRequestEntityTooLarge,
		Code:    "too_large",
		Message: "the document is larger than " + strconv.Itoa(maxTablesBytes>>20) + " MB",
		Kind:    apierr.ErrInvalidInput,
	}
}

func (p *Tool) extractTables(ctx context.Context, in *Input) (*Output, error) {
	spec, err := parsePages(in.Pages)
	if err != nil {
		return nil, apierr.Invalid("pages", err.Error())
	}
	maxTables := in.MaxTables
	if maxTables <= 0 {
		maxTables = 50
	}
	resp, err := p.fetch.Get(ctx, in.URL, fetch.Options{
		MaxBytes: maxTablesBytes,
		Header:   http.Header{"Accept": {"text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.5"}},
	})
	if errors.Is(err, fetch.ErrTooLarge) {
		return nil, errTooLarge()
	}
	if err != nil {
		return nil, err
	}
	if err := resp.CheckStatus(); err != nil {
		return nil, err
	}
	out := &Output{URL: in.URL, FinalURL: resp.FinalURL.String(), Tables: []Table{}}
	switch documentType(resp) {
	case "pdf":
		out.Type = "pdf"
		pctx, cancel := context.WithTimeout(ctx, pdfTimeout)
		defer cancel()
		res, err := extractPDFTables(pctx, resp.Body, spec, maxTables)
		switch {
		case errors.Is(err, errNotPDF):
			return nil, apierr.New(apierr.ErrInvalidInput, "unreadable_pdf", "the URL serves a PDF that cannot be read (damaged or encrypted)")
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			return nil, apierr.New(apierr.ErrUpstreamTimeout, "too_complex", "the PDF took too long to analyse; ask for fewer pages")
		case err != nil && ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			// The page selection does not fit the document.
			return nil, apierr.Invalid("pages", err.Error())
		}
		out.PageCount, out.Pages = res.pageCount, res.pages
		out.Tables = append(out.Tables, res.tables...)
		out.Truncated, out.Warnings = res.clipped, res.warnings
	case "html":
		out.Type = "html"
		r, err := charset.NewReader(bytes.NewReader(resp.Body), resp.Header.Get("Content-Type"))
		if err != nil {
			r = bytes.NewReader(resp.Body)
		}
		tabs, err := parseHTMLTables(r)
		if err != nil {
			return nil, apierr.New(apierr.ErrInvalidInput, "unreadable_html", "the page cannot be parsed as HTML")
		}
		for _, t := range tabs {
			tab, ok := htmlTableResult(t)
			if !ok {
				continue
			}
			if len(out.Tables) >= maxTables {
				out.Truncated = true
				break
			}
			tab.Index = len(out.Tables)
			out.Tables = append(out.Tables, tab)
		}
	default:
		mt := resp.MediaType()
		if mt == "" {
			mt = "unknown"
		}
		return nil, apierr.New(apierr.ErrInvalidInput, "unsupported_content_type",
			"the URL serves "+mt+"; extract_tables reads HTML and PDF")
	}
	return out, nil
}

// documentType is pdf, html or "" from the media type, or from the first
// bytes when the server does not say (or says octet-stream).
func documentType(resp *fetch.Response) string {
	head := resp.Body[:min(len(resp.Body), 1024)]
	switch mt := resp.MediaType(); {
	case mt == "application/pdf" || mt == "application/x-pdf":
		return "pdf"
	case mt == "text/html" || mt == "application/xhtml+xml":
		return "html"
	case mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream" || mt == "application/download":
		if bytes.Contains(head, []byte("%PDF-")) {
			return "pdf"
		}
		if strings.HasPrefix(http.DetectContentType(head), "text/html") {
			return "html"
		}
	}
	return ""
}

package extract

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"time"

	readability "codeberg.org/readeck/go-readability/v2"
	"codeberg.org/readeck/go-readability/v2/render"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
	"github.com/openshelf/openshelf/serve/tools/web/metadata"
)

// Input is the input of extract_webpage.
type Input struct {
	URL string `json:"url" doc:"URL of the web page (http or https)." minLength:"1" maxLength:"2048" format:"uri"`
}

// Output is the main content of a page.
type Output struct {
	// URL is the page's URL after redirects.
	URL      string `json:"url"`
	Title    string `json:"title"`
	Byline   string `json:"byline,omitempty"`
	SiteName string `json:"site_name,omitempty"`
	Language string `json:"language,omitempty"`
	Excerpt  string `json:"excerpt,omitempty"`
	// Published is the publication time from the page's metadata, ISO 8601
	// UTC, when it has one.
	Published string `json:"published,omitempty"`
	// Image is the lead image (og:image or similar), absolute.
	Image     string `json:"image,omitempty"`
	WordCount int    `json:"word_count"`
	// Markdown is the article as CommonMark with GFM tables; links and
	// images are absolute.
	Markdown string `json:"markdown"`
	// Charset is the encoding the page was decoded from.
	Charset string `json:"charset"`
}

// Extract runs extract_webpage.
func (t *Tool) Extract(ctx context.Context, in Input) (*Output, error) {
	resp, err := t.fetch.Get(ctx, in.URL, fetch.Options{
		MaxBytes: t.cfg.MaxBytes,
		Header:   http.Header{"Accept": {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}},
	})
	if err != nil {
		return nil, err
	}
	if err := resp.CheckStatus(); err != nil {
		return nil, err
	}
	if !page.IsHTML(resp) {
		return nil, page.Unsupported(resp, "extract_webpage", "HTML pages")
	}
	return t.extractPage(ctx, resp)
}

// extractPage is the part of Extract after the fetch, separate for the
// benchmark.
func (t *Tool) extractPage(ctx context.Context, resp *fetch.Response) (*Output, error) {
	body, cs := page.Decode(resp.Body, resp.Header.Get("Content-Type"))
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return nil, apierr.New(apierr.ErrUpstream, "unparsable_content", "the page could not be parsed as HTML")
	}
	// Relative URLs resolve against <base href> when there is one.
	head := metadata.ParseHead(body)
	base := page.Base(resp.FinalURL, head.Base)

	p := readability.NewParser()
	p.MaxElemsToParse = t.cfg.MaxElements
	art, err := p.ParseAndMutate(doc, base)
	if err != nil {
		return nil, apierr.New(apierr.ErrInvalidInput, "page_too_complex",
			"the page has too many elements to extract an article from")
	}
	if art.Node == nil {
		return nil, apierr.New(apierr.ErrInvalidInput, "no_readable_content",
			"no readable content was found on the page")
	}
	dropDataImages(art.Node)
	md, err := t.md.ConvertNode(art.Node, converter.WithDomain(base.String()), converter.WithContext(ctx))
	if err != nil {
		return nil, apierr.New(apierr.ErrInternal, "", "converting the article to Markdown failed")
	}
	out := &Output{
		URL:      resp.FinalURL.String(),
		Title:    page.CollapseText(art.Title()),
		Byline:   page.CollapseText(art.Byline()),
		SiteName: page.CollapseText(art.SiteName()),
		Language: page.FirstNonEmpty(strings.TrimSpace(art.Language()), head.Lang),
		Excerpt:  page.CollapseText(art.Excerpt()),
		// The first og:image is the one sites mean as the lead image;
		// readability keeps the last.
		Image:     page.FirstNonEmpty(head.Metadata(base).OpenGraph["og:image"], page.AbsURL(base, art.ImageURL())),
		WordCount: page.CountWords(render.InnerText(art.Node)),
		Markdown:  strings.TrimSpace(string(md)),
		Charset:   cs,
	}
	if out.Title == "" {
		out.Title = head.Title
	}
	if ts, err := art.PublishedTime(); err == nil && !ts.IsZero() {
		out.Published = ts.UTC().Format(time.RFC3339)
	}
	return out, nil
}

// dropDataImages removes images inlined as data: URIs, which would bloat
// the Markdown with base64 and carry nothing a reader can follow.
func dropDataImages(n *html.Node) {
	var doomed []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "img" {
			for _, a := range n.Attr {
				if a.Key == "src" && strings.HasPrefix(strings.TrimSpace(strings.ToLower(a.Val)), "data:") {
					doomed = append(doomed, n)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	for _, d := range doomed {
		if d.Parent != nil {
			d.Parent.RemoveChild(d)
		}
	}
}

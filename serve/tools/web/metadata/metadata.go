package metadata

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"

	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
)

// Input is the input of site_metadata.
type Input struct {
	URL string `json:"url" doc:"URL of the web page (http or https)." minLength:"1" maxLength:"2048" format:"uri"`
}

// Output is what a page's <head> says about it.
type Output struct {
	// URL is the page's URL after redirects.
	URL         string `json:"url"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Lang        string `json:"lang,omitempty"`
	// Charset is the encoding the page was decoded from.
	Charset   string `json:"charset"`
	Canonical string `json:"canonical,omitempty"`
	// Meta holds <meta name|property|itemprop content> pairs other than
	// og:* and twitter:*, keys lower-cased; the first of repeated keys wins.
	Meta map[string]string `json:"meta"`
	// OpenGraph holds og:* properties (first value of each key); URL-valued
	// ones are made absolute.
	OpenGraph map[string]string `json:"open_graph"`
	// Twitter holds twitter:* card fields, like OpenGraph.
	Twitter map[string]string `json:"twitter"`
	Icons   []Icon            `json:"icons"`
	Feeds   []FeedLink        `json:"feeds"`
	// JSONLD holds the parsed application/ld+json blocks; top-level arrays
	// and @graph lists are flattened into separate entries.
	JSONLD []any `json:"json_ld"`
	// JSONLDErrors counts blocks that were not valid JSON.
	JSONLDErrors int `json:"json_ld_errors,omitempty"`
	// HeadTruncated is set when the byte cap cut the page before the head
	// ended, so later tags are missing.
	HeadTruncated bool `json:"head_truncated,omitempty"`
}

// Icon is a <link rel=icon|apple-touch-icon|mask-icon>.
type Icon struct {
	URL   string `json:"url"`
	Rel   string `json:"rel"`
	Sizes string `json:"sizes,omitempty"`
	Type  string `json:"type,omitempty"`
}

// FeedLink is a <link rel=alternate> to an RSS, Atom or JSON feed.
type FeedLink struct {
	URL   string `json:"url"`
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
}

// Metadata runs site_metadata.
func (t *Tool) Metadata(ctx context.Context, in Input) (*Output, error) {
	resp, err := t.fetch.Get(ctx, in.URL, fetch.Options{
		MaxBytes:       t.cfg.MaxBytes,
		AllowTruncated: true,
		Header:         http.Header{"Accept": {"text/html,application/xhtml+xml;q=0.9,*/*;q=0.5"}},
	})
	if err != nil {
		return nil, err
	}
	if err := resp.CheckStatus(); err != nil {
		return nil, err
	}
	if !page.IsHTML(resp) {
		return nil, page.Unsupported(resp, "site_metadata", "HTML pages")
	}
	body, cs := page.Decode(resp.Body, resp.Header.Get("Content-Type"))
	h := ParseHead(body)
	out := h.Metadata(resp.FinalURL)
	out.Charset = cs
	out.HeadTruncated = resp.Truncated && !h.complete
	return out, nil
}

// Limits on what one head can contribute, against pathological pages.
const (
	maxHeadTags      = 1000
	maxJSONLDBlocks  = 50
	maxJSONLDEntries = 200
)

type metaTag struct{ name, property, itemprop, httpEquiv, content string }

type linkTag struct{ rel, href, sizes, typ, title string }

// Head is the raw content of a <head>. Package extract takes the title,
// language, base and og:image from it and package feed the feeds it
// advertises, so they read a head exactly as site_metadata does.
type Head struct {
	Title, Lang, Base string
	metas             []metaTag
	links             []linkTag
	jsonld            []string
	// complete is set when the head ended (</head>, <body> or body
	// content) before the input did.
	complete bool
}

// headTags may appear in a head; any other start tag begins the body, as
// in the HTML parser's "in head" insertion mode.
var headTags = map[string]bool{
	"html": true, "head": true, "title": true, "meta": true, "link": true, "base": true,
	"script": true, "style": true, "noscript": true, "template": true,
}

// ParseHead tokenizes b (UTF-8) until the head ends.
func ParseHead(b []byte) Head {
	var h Head
	z := html.NewTokenizer(bytes.NewReader(b))
	attrs := func(hasAttr bool) map[string]string {
		m := map[string]string{}
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if _, dup := m[string(k)]; !dup {
				m[string(k)] = string(v)
			}
		}
		return m
	}
	inTitle, inJSONLD := false, false
	var title strings.Builder
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			h.Title = page.CollapseText(title.String())
			return h
		case html.TextToken:
			if inTitle {
				title.Write(z.Text())
			} else if inJSONLD && len(h.jsonld) < maxJSONLDBlocks {
				h.jsonld = append(h.jsonld, string(z.Text()))
				inJSONLD = false
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch string(name) {
			case "title":
				inTitle = false
			case "script":
				inJSONLD = false
			case "head":
				h.complete = true
				h.Title = page.CollapseText(title.String())
				return h
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if !headTags[tag] {
				h.complete = true
				h.Title = page.CollapseText(title.String())
				return h
			}
			a := attrs(hasAttr)
			switch tag {
			case "html":
				if h.Lang == "" {
					h.Lang = strings.TrimSpace(a["lang"])
				}
			case "title":
				// Only the first title counts, as in browsers.
				inTitle = tt == html.StartTagToken && title.Len() == 0
			case "base":
				if h.Base == "" {
					h.Base = a["href"]
				}
			case "meta":
				if len(h.metas) < maxHeadTags {
					h.metas = append(h.metas, metaTag{
						name: a["name"], property: a["property"], itemprop: a["itemprop"],
						httpEquiv: a["http-equiv"], content: a["content"],
					})
				}
			case "link":
				if len(h.links) < maxHeadTags {
					h.links = append(h.links, linkTag{rel: a["rel"], href: a["href"], sizes: a["sizes"], typ: a["type"], title: a["title"]})
				}
			case "script":
				inJSONLD = tt == html.StartTagToken && strings.EqualFold(strings.TrimSpace(a["type"]), "application/ld+json")
			}
		}
	}
}

// urlProps are OpenGraph and Twitter properties whose values are URLs.
var urlProps = map[string]bool{
	"og:url": true, "og:image": true, "og:image:url": true, "og:image:secure_url": true,
	"og:video": true, "og:video:url": true, "og:video:secure_url": true, "og:audio": true,
	"og:audio:url": true, "og:audio:secure_url": true, "twitter:image": true, "twitter:image:src": true,
	"twitter:player": true,
}

// feedTypes are the link types of feeds.
var feedTypes = map[string]bool{
	"application/rss+xml": true, "application/atom+xml": true, "application/feed+json": true,
	"application/rdf+xml": true, "application/x-rss+xml": true, "application/x-atom+xml": true,
}

// Metadata is the head as site_metadata reports it for the page at pageURL.
func (h *Head) Metadata(pageURL *url.URL) *Output {
	base := page.Base(pageURL, h.Base)
	out := &Output{
		URL: pageURL.String(), Title: h.Title, Lang: h.Lang,
		Meta: map[string]string{}, OpenGraph: map[string]string{}, Twitter: map[string]string{},
		Icons: []Icon{}, Feeds: []FeedLink{}, JSONLD: []any{},
	}
	setFirst := func(m map[string]string, k, v string) {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	for _, m := range h.metas {
		content := strings.TrimSpace(m.content)
		if m.httpEquiv != "" {
			if strings.EqualFold(m.httpEquiv, "content-language") && out.Lang == "" {
				out.Lang = content
			}
			continue
		}
		// property (RDFa, OpenGraph) and name (HTML, Twitter) are used
		// interchangeably in the wild; take whichever is set.
		for _, key := range []string{m.property, m.name, m.itemprop} {
			key = strings.ToLower(strings.TrimSpace(key))
			if key == "" || content == "" {
				continue
			}
			v := content
			if urlProps[key] {
				if v = page.AbsURL(base, content); v == "" {
					continue
				}
			}
			switch {
			case strings.HasPrefix(key, "og:"):
				setFirst(out.OpenGraph, key, v)
			case strings.HasPrefix(key, "twitter:"):
				setFirst(out.Twitter, key, v)
			default:
				setFirst(out.Meta, key, v)
			}
		}
	}
	out.Description = page.FirstNonEmpty(out.Meta["description"], out.OpenGraph["og:description"], out.Twitter["twitter:description"])
	if out.Title == "" {
		out.Title = page.FirstNonEmpty(out.OpenGraph["og:title"], out.Twitter["twitter:title"])
	}
	for _, l := range h.links {
		rels := strings.Fields(strings.ToLower(l.rel))
		href := page.AbsURL(base, l.href)
		if href == "" {
			continue
		}
		typ := strings.ToLower(strings.TrimSpace(l.typ))
		switch {
		case slices.Contains(rels, "canonical"):
			if out.Canonical == "" {
				out.Canonical = href
			}
		case slices.Contains(rels, "icon") || slices.Contains(rels, "apple-touch-icon") ||
			slices.Contains(rels, "apple-touch-icon-precomposed") || slices.Contains(rels, "mask-icon"):
			out.Icons = append(out.Icons, Icon{URL: href, Rel: strings.Join(rels, " "), Sizes: strings.TrimSpace(l.sizes), Type: typ})
		case slices.Contains(rels, "alternate") && feedTypes[typ]:
			out.Feeds = append(out.Feeds, FeedLink{URL: href, Type: typ, Title: page.CollapseText(l.title)})
		}
	}
	for _, block := range h.jsonld {
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(stripCDATA(block))), &v); err != nil {
			out.JSONLDErrors++
			continue
		}
		for _, e := range flattenJSONLD(v, nil) {
			if len(out.JSONLD) >= maxJSONLDEntries {
				break
			}
			out.JSONLD = append(out.JSONLD, e)
		}
	}
	return out
}

// stripCDATA removes the <![CDATA[ ... ]]> (and //-commented variants)
// some CMSs wrap JSON-LD in.
func stripCDATA(s string) string {
	t := strings.TrimSpace(s)
	t = strings.TrimPrefix(t, "//")
	t = strings.TrimSpace(t)
	if strings.HasPrefix(t, "<![CDATA[") {
		t = strings.TrimPrefix(t, "<![CDATA[")
		t = strings.TrimSuffix(strings.TrimSpace(t), "]]>")
		t = strings.TrimSuffix(strings.TrimSpace(t), "//")
		return t
	}
	return s
}

// flattenJSONLD lists the entities of a JSON-LD value: top-level arrays and
// @graph lists are spread, and graph members inherit the @context.
func flattenJSONLD(v any, context any) []any {
	switch x := v.(type) {
	case []any:
		var out []any
		for _, e := range x {
			out = append(out, flattenJSONLD(e, context)...)
		}
		return out
	case map[string]any:
		if ctx, ok := x["@context"]; ok {
			context = ctx
		}
		if g, ok := x["@graph"].([]any); ok {
			var out []any
			for _, e := range g {
				if m, ok := e.(map[string]any); ok && context != nil {
					if _, has := m["@context"]; !has {
						m["@context"] = context
					}
				}
				out = append(out, flattenJSONLD(e, context)...)
			}
			return out
		}
		return []any{x}
	}
	return nil
}

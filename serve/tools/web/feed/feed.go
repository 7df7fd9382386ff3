package feed

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/fetch"
	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
	"github.com/openshelf/openshelf/serve/tools/web/metadata"
)

// Input is the input of read_feed.
type Input struct {
	URL   string `json:"url" doc:"URL of an RSS, Atom or JSON feed, or of a web page that links one." minLength:"1" maxLength:"2048" format:"uri"`
	Limit int    `json:"limit,omitempty" doc:"Return at most this many items, in feed order." min:"1" max:"100" default:"20"`
}

// Output is a feed read into one shape whatever its format.
type Output struct {
	Feed  FeedInfo `json:"feed"`
	Items []Item   `json:"items"`
	// TotalItems is how many items the feed holds (Items may be fewer).
	TotalItems int `json:"total_items"`
}

// FeedInfo describes the feed itself.
type FeedInfo struct {
	// URL is where the feed was read, after redirects and discovery.
	URL         string `json:"url"`
	Title       string `json:"title"`
	Link        string `json:"link,omitempty"`
	Description string `json:"description,omitempty"`
	Language    string `json:"language,omitempty"`
	// Updated is ISO 8601 UTC.
	Updated string `json:"updated,omitempty"`
	// Format is rss, atom or json; Version the format's version
	// ("2.0", "1.0", "1.1"...).
	Format  string `json:"format"`
	Version string `json:"version,omitempty"`
	// DiscoveredFrom is the HTML page the feed was found on, when the
	// input URL was a page rather than a feed.
	DiscoveredFrom string `json:"discovered_from,omitempty"`
}

// Item is one entry. Summary and Content are plain text (HTML
// stripped); Content is cut at 20000 characters (ContentTruncated).
type Item struct {
	Title            string      `json:"title,omitempty"`
	Link             string      `json:"link,omitempty"`
	ID               string      `json:"id,omitempty"`
	Published        string      `json:"published,omitempty"`
	Updated          string      `json:"updated,omitempty"`
	Authors          []string    `json:"authors,omitempty"`
	Summary          string      `json:"summary,omitempty"`
	Content          string      `json:"content,omitempty"`
	ContentTruncated bool        `json:"content_truncated,omitempty"`
	Categories       []string    `json:"categories,omitempty"`
	Enclosures       []Enclosure `json:"enclosures,omitempty"`
}

// Enclosure is an attached media file (a podcast episode, say).
type Enclosure struct {
	URL    string `json:"url"`
	Type   string `json:"type,omitempty"`
	Length int64  `json:"length,omitempty"`
}

const (
	maxSummaryChars = 2000
	maxContentChars = 20000
)

const feedAccept = "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, " +
	"application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.5, */*;q=0.1"

// ReadFeed runs read_feed.
func (t *Tool) ReadFeed(ctx context.Context, in Input) (*Output, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 20
	}
	resp, err := t.getFeed(ctx, in.URL)
	if err != nil {
		return nil, err
	}
	var discoveredFrom string
	if gofeed.DetectFeedType(bytes.NewReader(resp.Body)) == gofeed.FeedTypeUnknown && page.IsHTML(resp) {
		// A page, not a feed: follow the first feed it advertises,
		// through the same guard (CheckURL, robots, dial check).
		body, _ := page.Decode(resp.Body, resp.Header.Get("Content-Type"))
		h := metadata.ParseHead(body)
		feeds := h.Metadata(resp.FinalURL).Feeds
		if len(feeds) == 0 {
			return nil, apierr.New(apierr.ErrInvalidInput, "no_feed_found",
				"the URL is a web page that does not link a feed (<link rel=alternate> with an RSS, Atom or JSON Feed type)")
		}
		discoveredFrom = resp.FinalURL.String()
		if _, err := t.fetch.CheckURL(feeds[0].URL); err != nil {
			// The caller's URL was fine; the page points somewhere we
			// will not go. That is a refused target, not invalid input.
			msg := err.Error()
			var fe *fetch.Error
			if errors.As(err, &fe) {
				msg = fe.Msg
			}
			return nil, &fetch.Error{Kind: fetch.ErrForbiddenTarget, URL: feeds[0].URL,
				Msg: "the feed the page links cannot be fetched: URL " + msg}
		}
		if resp, err = t.getFeed(ctx, feeds[0].URL); err != nil {
			return nil, err
		}
	}
	f, err := gofeed.NewParser().Parse(bytes.NewReader(resp.Body))
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, page.Unsupported(resp, "read_feed", "RSS, Atom and JSON feeds and pages that link one")
		}
		return nil, apierr.New(apierr.ErrInvalidInput, "invalid_feed", "the feed could not be parsed: "+clipMsg(err.Error()))
	}
	if f.FeedType == "json" && f.FeedVersion == "" || f.Title == "" && f.Link == "" && len(f.Items) == 0 {
		// gofeed takes any JSON object for a JSON Feed; one without the
		// required version, or a document with nothing feed-like, is not.
		return nil, apierr.New(apierr.ErrInvalidInput, "invalid_feed", "the document is not a feed: it has no version, title or items")
	}
	out := convertFeed(f, resp.FinalURL, limit)
	out.Feed.DiscoveredFrom = discoveredFrom
	return out, nil
}

func (t *Tool) getFeed(ctx context.Context, raw string) (*fetch.Response, error) {
	resp, err := t.fetch.Get(ctx, raw, fetch.Options{
		MaxBytes: t.cfg.MaxBytes,
		Header:   http.Header{"Accept": {feedAccept}},
	})
	if err != nil {
		return nil, err
	}
	if err := resp.CheckStatus(); err != nil {
		return nil, err
	}
	return resp, nil
}

// clipMsg keeps parser messages short in API errors.
func clipMsg(s string) string {
	s, _ = page.Clip(s, 200)
	return s
}

func convertFeed(f *gofeed.Feed, feedURL *url.URL, limit int) *Output {
	// Relative links in a feed resolve against the feed's own URL
	// (RFC 4287 section 4.2.7 via xml:base, which gofeed applies where
	// present, and common practice for RSS).
	out := &Output{
		Feed: FeedInfo{
			URL:         feedURL.String(),
			Title:       page.CollapseText(page.ToText(f.Title)),
			Link:        page.AbsURL(feedURL, f.Link),
			Description: clipText(page.ToText(f.Description), maxSummaryChars),
			Language:    strings.TrimSpace(f.Language),
			Updated:     isoTime(f.UpdatedParsed, f.PublishedParsed),
			Format:      f.FeedType,
			// JSON Feed's version is a URL; the number is what matters.
			Version: strings.TrimPrefix(f.FeedVersion, "https://jsonfeed.org/version/"),
		},
		Items:      []Item{},
		TotalItems: len(f.Items),
	}
	if out.Feed.Language == "" && f.DublinCoreExt != nil && len(f.DublinCoreExt.Language) > 0 {
		out.Feed.Language = strings.TrimSpace(f.DublinCoreExt.Language[0])
	}
	for _, it := range f.Items {
		if len(out.Items) >= limit {
			break
		}
		if it == nil {
			continue
		}
		item := Item{
			Title:      page.CollapseText(page.ToText(it.Title)),
			Link:       page.AbsURL(feedURL, it.Link),
			ID:         strings.TrimSpace(it.GUID),
			Published:  isoTime(it.PublishedParsed),
			Updated:    isoTime(it.UpdatedParsed),
			Summary:    clipText(page.ToText(it.Description), maxSummaryChars),
			Categories: cleanList(it.Categories),
		}
		if item.Link == "" {
			for _, l := range it.Links {
				if item.Link = page.AbsURL(feedURL, l); item.Link != "" {
					break
				}
			}
		}
		if item.ID == "" {
			item.ID = item.Link
		}
		if it.Content != "" {
			item.Content, item.ContentTruncated = page.Clip(page.ToText(it.Content), maxContentChars)
		}
		if item.Summary == "" && item.Content != "" {
			item.Summary = clipText(item.Content, maxSummaryChars)
		}
		for _, p := range it.Authors {
			if p == nil {
				continue
			}
			if a := page.FirstNonEmpty(strings.TrimSpace(p.Name), strings.TrimSpace(p.Email)); a != "" {
				item.Authors = append(item.Authors, a)
			}
		}
		if len(item.Authors) == 0 && it.DublinCoreExt != nil {
			item.Authors = cleanList(it.DublinCoreExt.Creator)
		}
		for _, e := range it.Enclosures {
			if e == nil {
				continue
			}
			u := page.AbsURL(feedURL, e.URL)
			if u == "" {
				continue
			}
			n, _ := strconv.ParseInt(strings.TrimSpace(e.Length), 10, 64)
			item.Enclosures = append(item.Enclosures, Enclosure{URL: u, Type: strings.TrimSpace(e.Type), Length: max(n, 0)})
		}
		out.Items = append(out.Items, item)
	}
	return out
}

// isoTime formats the first non-nil time as ISO 8601 UTC.
func isoTime(ts ...*time.Time) string {
	for _, t := range ts {
		if t != nil && !t.IsZero() {
			return t.UTC().Format(time.RFC3339)
		}
	}
	return ""
}

func clipText(s string, n int) string {
	s, _ = page.Clip(s, n)
	return s
}

// cleanList trims entries and drops empty ones and duplicates.
func cleanList(in []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range in {
		s = page.CollapseText(s)
		if s != "" && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

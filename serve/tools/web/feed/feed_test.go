package feed_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openshelf/openshelf/serve/tools/web/feed"
)

func feedSite(t *testing.T) (string, *feed.Tool) {
	srv := fakeSite(t, map[string]route{
		"/feed/rss2.xml":      {File: "feeds/rss2.xml", ContentType: "application/rss+xml; charset=utf-8"},
		"/nyheter/rss":        {File: "feeds/rss1.rdf", ContentType: "application/rdf+xml"},
		"/blog/feed/atom.xml": {File: "feeds/atom.xml", ContentType: "application/atom+xml"},
		"/feed.json":          {File: "feeds/feed.json", ContentType: "application/feed+json"},
		"/mislabelled":        {File: "feeds/rss2.xml", ContentType: "text/html"},
		"/blog/":              {File: "webpages/blog_with_feed.html", ContentType: "text/html; charset=utf-8"},
		"/plain-page":         {File: "webpages/page_without_feed.html", ContentType: "text/html"},
		"/not-a-feed.json":    {Body: `{"hello":"world"}`, ContentType: "application/json"},
		"/broken.xml":         {Body: `<?xml version="1.0"?><rss version="2.0"><channel><title>Broken</title><item><title>x</item></channel>`, ContentType: "application/rss+xml"},
		"/pdf":                {Body: "%PDF-1.4", ContentType: "application/pdf"},
		"/evil-page":          {Body: `<html><head><link rel="alternate" type="application/rss+xml" href="http://10.0.0.5/feed.xml"></head></html>`, ContentType: "text/html"},
		"/robots-page":        {Body: `<html><head><link rel="alternate" type="application/rss+xml" href="/private/feed.xml"></head></html>`, ContentType: "text/html"},
		"/private/feed.xml":   {File: "feeds/rss2.xml", ContentType: "application/rss+xml"},
	})
	return srv.URL, newTool(t, feed.Config{})
}

func TestReadFeedRSS2(t *testing.T) {
	base, tools := feedSite(t)
	out, err := tools.ReadFeed(context.Background(), feed.Input{URL: base + "/feed/rss2.xml", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	wantFeed := feed.FeedInfo{
		URL: base + "/feed/rss2.xml", Title: "The Long Field & Other Stories", Link: "https://podcast.example.com/",
		Description: "A podcast about farming, soil and the people who work it.", Language: "en-us",
		Updated: "2026-03-10T06:00:00Z", Format: "rss", Version: "2.0",
	}
	if d := cmp.Diff(wantFeed, out.Feed); d != "" {
		t.Errorf("feed (-want +got):\n%s", d)
	}
	if out.TotalItems != 3 || len(out.Items) != 3 {
		t.Fatalf("%d of %d items", len(out.Items), out.TotalItems)
	}
	first := out.Items[0]
	want := feed.Item{
		Title: "Episode 42: Cover crops, cautiously", Link: "https://podcast.example.com/episodes/42-cover-crops",
		ID: "podcast.example.com/?p=4242", Published: "2026-03-10T06:00:00Z", Authors: []string{"Marta Okafor"},
		Summary:    "We visit a Nebraska farm that has planted rye between cash crops for ten years.\nShow notes inside.",
		Content:    "Show notes\nOur guest, Dale Whitford, explains why he started with just one field.\nRye vs. clover\nTermination timing\nMusic by \"The Fencelines\".",
		Categories: []string{"Soil", "Interviews"},
		Enclosures: []feed.Enclosure{{URL: "https://media.example.com/longfield/ep42.mp3", Type: "audio/mpeg", Length: 48213760}},
	}
	if d := cmp.Diff(want, first); d != "" {
		t.Errorf("item 0 (-want +got):\n%s", d)
	}
	second := out.Items[1]
	// Relative link and enclosure resolve against the feed; a bad length
	// is dropped, not an error.
	if second.Link != base+"/episodes/41-worms" || second.Published != "2026-02-24T06:00:00Z" ||
		len(second.Enclosures) != 1 || second.Enclosures[0].URL != base+"/media/ep41.mp3" || second.Enclosures[0].Length != 0 {
		t.Errorf("item 1: %+v", second)
	}
	if second.Summary != "Earthworm counts as a cheap test of soil health & what they told one orchard." {
		t.Errorf("item 1 summary %q", second.Summary)
	}
	third := out.Items[2]
	// A time zone offset becomes UTC; an item without guid is identified
	// by its link.
	if third.Published != "2026-01-05T14:15:00Z" || third.ID != third.Link || third.Content != "" {
		t.Errorf("item 2: %+v", third)
	}
}

func TestReadFeedFormats(t *testing.T) {
	base, tools := feedSite(t)
	ctx := context.Background()

	rdf, err := tools.ReadFeed(ctx, feed.Input{URL: base + "/nyheter/rss"})
	if err != nil {
		t.Fatal(err)
	}
	if rdf.Feed.Format != "rss" || rdf.Feed.Version != "1.0" || rdf.Feed.Title != "Stadsbibliotekets nyheter" ||
		rdf.Feed.Language != "sv" || rdf.Feed.Updated != "2026-02-28T15:00:00Z" ||
		rdf.Feed.Description != "Nytt från stadsbiblioteket: utställningar, föredrag och öppettider." {
		t.Errorf("RSS 1.0 feed: %+v", rdf.Feed)
	}
	if len(rdf.Items) != 2 {
		t.Fatalf("RSS 1.0: %d items", len(rdf.Items))
	}
	wantRDF := feed.Item{
		Title: "Ny utställning: Gamla kartor över Skåne", Link: "https://bibliotek.example.se/nyheter/2026/utstallning-kartor",
		ID: "https://bibliotek.example.se/nyheter/2026/utstallning-kartor", Published: "2026-02-28T15:00:00Z",
		Updated: "2026-02-28T15:00:00Z", // gofeed reads dc:date as both
		Authors: []string{"Åsa Lindqvist"}, Summary: "Kartor från 1600-talet till 1900-talet visas i läsesalen. Fri entré.",
		Categories: []string{"Utställningar"},
	}
	if d := cmp.Diff(wantRDF, rdf.Items[0]); d != "" {
		t.Errorf("RSS 1.0 item (-want +got):\n%s", d)
	}

	atom, err := tools.ReadFeed(ctx, feed.Input{URL: base + "/blog/feed/atom.xml"})
	if err != nil {
		t.Fatal(err)
	}
	wantAtomFeed := feed.FeedInfo{
		URL: base + "/blog/feed/atom.xml", Title: "Notes from the Workshop", Link: "https://workshop.example.net/",
		Description: "Hand tools, slowly.", Language: "en", Updated: "2026-02-15T18:20:00Z", Format: "atom", Version: "1.0",
	}
	if d := cmp.Diff(wantAtomFeed, atom.Feed); d != "" {
		t.Errorf("Atom feed (-want +got):\n%s", d)
	}
	wantAtom := feed.Item{
		Title: "Cutting dovetails & other joints by hand", Link: "https://workshop.example.net/2026/02/dovetails",
		ID: "tag:workshop.example.net,2026-02-15:/2026/02/dovetails", Published: "2026-02-15T16:00:00Z",
		Updated: "2026-02-15T17:20:00Z", Authors: []string{"Jonas Berg", "Guest: Ana Ruiz"},
		Summary: "Saw to the line, chop to the line, and stop worrying about gaps.",
		Content: "The first dovetail I cut had gaps you could post a letter through.\n" +
			"Here is what changed: a sharper saw, a marking gauge, and patience.",
		Categories: []string{"Joinery", "hand-tools"}, // the label when there is one, else the term
	}
	if len(atom.Items) != 2 {
		t.Fatalf("Atom: %d items", len(atom.Items))
	}
	if d := cmp.Diff(wantAtom, atom.Items[0]); d != "" {
		t.Errorf("Atom item (-want +got):\n%s", d)
	}
	if got := atom.Items[1]; got.Content != "Waterstones or diamond plates? Both, it turns out." || got.Updated != "2026-01-20T10:00:00Z" {
		t.Errorf("Atom xhtml item: %+v", got)
	}

	js, err := tools.ReadFeed(ctx, feed.Input{URL: base + "/feed.json"})
	if err != nil {
		t.Fatal(err)
	}
	if js.Feed.Format != "json" || js.Feed.Version != "1.1" || js.Feed.Title != "Microcast Weekly" ||
		js.Feed.Language != "en-AU" || js.Feed.Link != "https://micro.example.org/" {
		t.Errorf("JSON feed: %+v", js.Feed)
	}
	wantJSON := feed.Item{
		Title: "Why magpies swoop", Link: "https://micro.example.org/2026/03/magpies", ID: "https://micro.example.org/2026/03/magpies",
		Published: "2026-03-01T20:30:00Z", Updated: "2026-03-02T22:00:00Z", Authors: []string{"Kiri Walker"},
		Summary: "Nest defence, explained.", Content: "Every spring, Australian magpies defend their nests.\nWear a hat & keep walking.",
		Categories: []string{"birds", "spring"},
		Enclosures: []feed.Enclosure{{URL: "https://cdn.example.org/magpies.m4a", Type: "audio/x-m4a", Length: 5242880}},
	}
	if len(js.Items) != 2 {
		t.Fatalf("JSON: %d items", len(js.Items))
	}
	if d := cmp.Diff(wantJSON, js.Items[0]); d != "" {
		t.Errorf("JSON item (-want +got):\n%s", d)
	}
	if got := js.Items[1]; got.ID != "2" || got.Content != "The 'bin chicken' is a wetland bird that moved to town." || got.Summary != got.Content {
		t.Errorf("JSON text item: %+v", got)
	}
}

func TestReadFeedLimitAndDiscovery(t *testing.T) {
	base, tools := feedSite(t)
	ctx := context.Background()
	out, err := tools.ReadFeed(ctx, feed.Input{URL: base + "/feed/rss2.xml", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Items) != 1 || out.TotalItems != 3 {
		t.Errorf("limit 1: %d of %d", len(out.Items), out.TotalItems)
	}
	// Zero means the default (the schema fills 20 for HTTP callers).
	if out, err = tools.ReadFeed(ctx, feed.Input{URL: base + "/feed/rss2.xml"}); err != nil || len(out.Items) != 3 {
		t.Errorf("default limit: %v", err)
	}

	// A page advertising feeds: the first one (Atom, relative href) is read.
	out, err = tools.ReadFeed(ctx, feed.Input{URL: base + "/blog/"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Feed.URL != base+"/blog/feed/atom.xml" || out.Feed.DiscoveredFrom != base+"/blog/" || out.Feed.Format != "atom" {
		t.Errorf("discovery: %+v", out.Feed)
	}
	// A feed served as text/html is still a feed.
	if out, err = tools.ReadFeed(ctx, feed.Input{URL: base + "/mislabelled"}); err != nil || out.Feed.Format != "rss" {
		t.Errorf("mislabelled feed: %v", err)
	}

	tests := []struct {
		path   string
		status int
		code   string
	}{
		{"/plain-page", http.StatusBadRequest, "no_feed_found"},
		{"/not-a-feed.json", http.StatusBadRequest, "invalid_feed"},
		{"/broken.xml", http.StatusBadRequest, "invalid_feed"},
		{"/pdf", http.StatusBadRequest, "unsupported_content_type"},
		{"/missing.xml", http.StatusBadGateway, "upstream_status"},
		// The advertised feed goes through the same guard and robots.txt.
		{"/evil-page", http.StatusForbidden, "forbidden_target"},
		{"/robots-page", http.StatusForbidden, "robots_disallowed"},
	}
	for _, tt := range tests {
		_, err := tools.ReadFeed(ctx, feed.Input{URL: base + tt.path})
		wantAPI(t, tt.path, err, tt.status, tt.code)
	}
}

func TestReadFeedSizeCap(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Huge</title>`)
	for b.Len() < 64<<10 {
		b.WriteString(`<item><title>An item</title><description>Some words about it.</description></item>`)
	}
	b.WriteString(`</channel></rss>`)
	srv := fakeSite(t, map[string]route{"/huge.xml": {Body: b.String(), ContentType: "application/rss+xml"}})
	tools := newTool(t, feed.Config{MaxBytes: 32 << 10})
	_, err := tools.ReadFeed(context.Background(), feed.Input{URL: srv.URL + "/huge.xml"})
	wantAPI(t, "huge feed", err, http.StatusBadGateway, "upstream_too_large")
}

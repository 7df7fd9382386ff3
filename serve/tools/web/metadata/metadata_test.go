package metadata_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/openshelf/openshelf/serve/tools/web/metadata"
)

func TestMetadataNewsArticle(t *testing.T) {
	srv := fakeSite(t, map[string]route{
		"/science/2026/tidal-lagoon-approved": {File: "webpages/news_article.html", ContentType: "text/html; charset=utf-8"},
	})
	out, err := newTool(t, metadata.Config{}).Metadata(context.Background(), metadata.Input{URL: srv.URL + "/science/2026/tidal-lagoon-approved"})
	if err != nil {
		t.Fatal(err)
	}
	u := srv.URL
	if out.Title != "Tidal energy scheme cleared for Severn estuary | The Riverside Chronicle" {
		t.Errorf("Title = %q", out.Title)
	}
	if !strings.HasPrefix(out.Description, "Ministers approve a 3 GW tidal lagoon") {
		t.Errorf("Description = %q", out.Description)
	}
	if out.Lang != "en-GB" || out.Charset != "utf-8" || out.HeadTruncated {
		t.Errorf("lang %q charset %q truncated %v", out.Lang, out.Charset, out.HeadTruncated)
	}
	if out.Canonical != u+"/science/2026/tidal-lagoon-approved" {
		t.Errorf("Canonical = %q", out.Canonical)
	}
	wantMeta := map[string]string{
		"description":            "Ministers approve a 3 GW tidal lagoon after a decade of delay, with conditions to protect migrating fish.",
		"author":                 "Priya Natarajan",
		"robots":                 "max-image-preview:large",
		"keywords":               "energy, tidal power, Severn, climate",
		"viewport":               "width=device-width, initial-scale=1",
		"article:published_time": "2026-03-14T08:30:00+01:00",
	}
	if d := cmp.Diff(wantMeta, out.Meta); d != "" {
		t.Errorf("Meta (-want +got):\n%s", d)
	}
	wantOG := map[string]string{
		"og:type":        "article",
		"og:site_name":   "The Riverside Chronicle",
		"og:title":       "Tidal energy scheme cleared for Severn estuary",
		"og:description": "A 3 GW lagoon gets the go-ahead.",
		"og:url":         "https://news.example.com/science/2026/tidal-lagoon-approved",
		"og:image":       u + "/media/2026/lagoon-hero.jpg", // the first of two, made absolute
		"og:image:width": "1200",
	}
	if d := cmp.Diff(wantOG, out.OpenGraph); d != "" {
		t.Errorf("OpenGraph (-want +got):\n%s", d)
	}
	wantTwitter := map[string]string{
		"twitter:card":  "summary_large_image",
		"twitter:site":  "@riversidechron",
		"twitter:image": "https://cdn.news.example.com/lagoon-card.jpg",
	}
	if d := cmp.Diff(wantTwitter, out.Twitter); d != "" {
		t.Errorf("Twitter (-want +got):\n%s", d)
	}
	wantIcons := []metadata.Icon{
		{URL: u + "/favicon.ico", Rel: "icon", Sizes: "any"},
		{URL: u + "/icon.svg", Rel: "icon", Type: "image/svg+xml"},
		{URL: u + "/apple-touch-icon.png", Rel: "apple-touch-icon", Sizes: "180x180"},
		{URL: u + "/safari-pinned-tab.svg", Rel: "mask-icon"},
	}
	if d := cmp.Diff(wantIcons, out.Icons); d != "" {
		t.Errorf("Icons (-want +got):\n%s", d)
	}
	wantFeeds := []metadata.FeedLink{
		{URL: u + "/feeds/science.rss", Type: "application/rss+xml", Title: "Science & Environment"},
		{URL: "https://news.example.com/feeds/all.atom", Type: "application/atom+xml", Title: "All stories"},
	}
	if d := cmp.Diff(wantFeeds, out.Feeds); d != "" {
		t.Errorf("Feeds (-want +got):\n%s", d)
	}
	// Two valid blocks: a @graph of two (flattened, inheriting @context)
	// and a BreadcrumbList; the third is not JSON.
	if len(out.JSONLD) != 3 || out.JSONLDErrors != 1 {
		t.Fatalf("JSONLD = %d entries, %d errors: %v", len(out.JSONLD), out.JSONLDErrors, out.JSONLD)
	}
	var types []string
	for _, e := range out.JSONLD {
		m := e.(map[string]any)
		types = append(types, m["@type"].(string))
		if m["@context"] != "https://schema.org" {
			t.Errorf("%v lacks @context", m["@type"])
		}
	}
	if d := cmp.Diff([]string{"NewsArticle", "Organization", "BreadcrumbList"}, types); d != "" {
		t.Errorf("JSON-LD types (-want +got):\n%s", d)
	}
	author := out.JSONLD[0].(map[string]any)["author"].(map[string]any)["name"]
	if author != "Priya Natarajan" {
		t.Errorf("JSON-LD author %v", author)
	}
}

func TestMetadataHeadOnly(t *testing.T) {
	// Tags in the body are not head metadata; a huge body is not read.
	body := `<html><head><title>Real title</title><meta name="description" content="head description"></head>` +
		`<body><meta property="og:title" content="from the body"><title>Body title</title>` +
		strings.Repeat("<p>filler text for a very long page</p>", 40_000) + `</body></html>`
	// No </head>: the head ends where body content starts.
	implicit := `<!doctype html><title>Implicit</title><meta name="a" content="1"><div>content</div><meta name="b" content="2">`
	// The cap cuts the page inside the head.
	longHead := `<html><head><title>Long head</title>` + strings.Repeat(`<meta name="x" content="padding padding padding">`, 200) +
		`<meta name="late" content="never seen"></head><body></body></html>`
	srv := fakeSite(t, map[string]route{
		"/long-body": {Body: body, ContentType: "text/html"},
		"/implicit":  {Body: implicit, ContentType: "text/html"},
		"/long-head": {Body: longHead, ContentType: "text/html"},
	})
	tools := newTool(t, metadata.Config{MaxBytes: 4096})
	ctx := context.Background()
	out, err := tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/long-body"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Title != "Real title" || out.Description != "head description" || len(out.OpenGraph) != 0 || out.HeadTruncated {
		t.Errorf("long body: %+v", out)
	}
	out, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/implicit"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Title != "Implicit" || out.Meta["a"] != "1" || out.Meta["b"] != "" {
		t.Errorf("implicit head: %+v", out)
	}
	out, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/long-head"})
	if err != nil {
		t.Fatal(err)
	}
	if !out.HeadTruncated || out.Title != "Long head" || out.Meta["late"] != "" {
		t.Errorf("long head: truncated=%v title=%q", out.HeadTruncated, out.Title)
	}
}

func TestMetadataCharsetAndBase(t *testing.T) {
	srv := fakeSite(t, map[string]route{
		"/kyoto":  {File: "webpages/kyoto_shiftjis.html", ContentType: "text/html"},
		"/recipe": {File: "webpages/recipe_windows1252.html", ContentType: "text/html"},
		"/bridge": {File: "webpages/base_href.html", ContentType: "text/html"},
		"/feed":   {File: "feeds/rss2.xml", ContentType: "application/rss+xml"},
	})
	tools := newTool(t, metadata.Config{})
	ctx := context.Background()
	out, err := tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/kyoto"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Title != "京都の紅葉の名所 ― 旅のしおり" || out.Charset != "shift_jis" || out.Lang != "ja" {
		t.Errorf("kyoto: %q %q %q", out.Title, out.Charset, out.Lang)
	}
	out, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/recipe"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Description != "Une recette “à l’ancienne”, sans chalumeau." || out.Charset != "windows-1252" {
		t.Errorf("recipe: %q %q", out.Description, out.Charset)
	}
	out, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/bridge"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Icons) != 1 || out.Icons[0].URL != "https://static.example.org/archiv/2025/icons/favicon-32.png" ||
		out.OpenGraph["og:image"] != "https://static.example.org/archiv/2025/bilder/bruecke.jpg" {
		t.Errorf("base href: %+v %v", out.Icons, out.OpenGraph)
	}
	_, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/feed"})
	wantAPI(t, "feed", err, http.StatusBadRequest, "unsupported_content_type")
	_, err = tools.Metadata(ctx, metadata.Input{URL: srv.URL + "/private/x"})
	wantAPI(t, "robots", err, http.StatusForbidden, "robots_disallowed")
}

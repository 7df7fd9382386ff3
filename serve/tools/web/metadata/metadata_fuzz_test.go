package metadata

import (
	"net/url"
	"testing"
	"unicode/utf8"

	"github.com/openshelf/openshelf/serve/tools/web/internal/page"
)

// FuzzSiteMetadataHead: the head reader, charset sniffing and text
// rendering never panic on hostile pages, and every URL they report is an
// absolute http(s) URL.
func FuzzSiteMetadataHead(f *testing.F) {
	for _, s := range []string{
		`<html lang="en"><head><title>T</title><meta property="og:image" content="/a.png"><link rel="icon" href="x.ico"></head>`,
		`<head><base href="javascript:alert(1)"><link rel="alternate" type="application/rss+xml" href="//evil/feed">`,
		`<script type="application/ld+json">{"@graph":[{"@type":"A"},[1,2],null]}</script>`,
		`<meta http-equiv="Content-Type" content="text/html; charset=shift_jis"><title>\x82\xa0</title>`,
		`<title>a<b>c</title><body><meta name="x" content="y">`,
	} {
		f.Add([]byte(s))
	}
	pageURL, _ := url.Parse("https://example.com/dir/page.html")
	f.Fuzz(func(t *testing.T, b []byte) {
		body, _ := page.Decode(b, "text/html")
		h := ParseHead(body)
		out := h.Metadata(pageURL)
		check := func(what, u string) {
			p, err := url.Parse(u)
			if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
				t.Fatalf("%s %q is not an absolute http(s) URL", what, u)
			}
		}
		if out.Canonical != "" {
			check("canonical", out.Canonical)
		}
		for _, i := range out.Icons {
			check("icon", i.URL)
		}
		for _, fl := range out.Feeds {
			check("feed", fl.URL)
		}
		if !utf8.ValidString(page.ToText(string(body))) && utf8.Valid(body) {
			t.Fatalf("page.ToText produced invalid UTF-8 from valid input")
		}
	})
}

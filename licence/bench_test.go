package licence

import (
	"testing"
	"time"
)

// Typical evidence sets: a PMC JATS article with href, license-p and
// copyright; a Crossref record; an OpenAlex-only record.
var benchSets = map[string][]Evidence{
	"jats": {
		{Kind: KindJATSLicenseType, Source: SourcePMC, Value: "open-access"},
		href(SourcePMC, by40),
		licP(SourcePMC, textSpringer),
		{Kind: KindURL, Source: SourcePMC, Value: by40},
		{Kind: KindJATSCopyright, Source: SourcePMC, Value: "© The Author(s) 2020"},
	},
	"crossref": {
		crossref(tdmEls, "tdm", day(2001, 10, 1), 0), crossref(ncnd40, "vor", day(2016, 10, 7), 5485),
	},
	"openalex": {openalex("cc-by", "publishedVersion"), openalex("cc-by-sa", "submittedVersion")},
}

func BenchmarkDecide(b *testing.B) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for name, ev := range benchSets {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Decide(ev, now)
			}
		})
	}
}

func BenchmarkParseText(b *testing.B) {
	e := licP(SourcePMC, textSpringer)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = Parse(e)
	}
}

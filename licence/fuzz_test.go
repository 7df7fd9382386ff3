package licence

import (
	"slices"
	"testing"
	"time"
)

var fuzzKinds = []Kind{KindURL, KindJATSLicenseType, KindJATSHref, KindJATSALI, KindJATSLicenseP, KindJATSCopyright,
	KindOpenAlex, KindCrossref, KindPMCLicenseCode, KindPubMedCopyright, Kind("other")}

var fuzzSources = []Source{"", SourcePMC, SourcePublisher, SourceCrossref, SourceOpenAlex, SourcePubMed, Source("x")}

var fuzzVersions = []string{"", "vor", "am", "tdm", "unspecified", "publishedVersion", "submittedVersion"}

// restrictionMarkers are NC/ND spellings that must always prevent
// acceptance when they are the only licence evidence, whatever surrounds
// them.
var restrictionMarkers = []string{
	"CC BY-NC-ND 4.0", "CC BY-NC", "Attribution-NoDerivatives", "by-nd", "NoDerivs",
	"http://creativecommons.org/licenses/by-nc/4.0/", "cc-by-nc-sa",
}

func FuzzParse(f *testing.F) {
	for _, c := range parseCases {
		f.Add(uint8(slices.Index(fuzzKinds, c.kind)), c.value)
	}
	f.Fuzz(func(t *testing.T, k uint8, value string) {
		kind := fuzzKinds[int(k)%len(fuzzKinds)]
		got, ok := Parse(Evidence{Kind: kind, Value: value})
		if ok {
			checkTerm(t, got)
			if got.Accepted() && !slices.Contains(Families, got.Family) {
				t.Fatalf("unknown family %+v", got)
			}
		} else if got != (Term{}) {
			t.Fatalf("not ok but term %+v", got)
		}
		for _, m := range restrictionMarkers {
			for _, v := range []string{value + " " + m, m + " " + value} {
				if got, _ := Parse(Evidence{Kind: kind, Value: v}); got.Accepted() {
					t.Fatalf("Parse(%s %q) accepted %+v", kind, v, got)
				}
				d := Decide([]Evidence{{Kind: kind, Value: v}}, runDate)
				if d.Accepted {
					t.Fatalf("Decide(%s %q) accepted %+v", kind, v, d)
				}
			}
		}
	})
}

func FuzzDecide(f *testing.F) {
	for _, c := range decideCases {
		if len(c.ev) == 0 {
			continue
		}
		e := c.ev[0]
		var v2 string
		var k2 uint8
		if len(c.ev) > 1 {
			v2, k2 = c.ev[1].Value, uint8(slices.Index(fuzzKinds, c.ev[1].Kind))
		}
		f.Add(uint8(slices.Index(fuzzKinds, e.Kind)), uint8(slices.Index(fuzzSources, e.Source)),
			uint8(slices.Index(fuzzVersions, e.ContentVersion)), e.Value, k2, uint8(0), v2, int32(0))
	}
	f.Fuzz(func(t *testing.T, k1, s1, cv uint8, v1 string, k2, s2 uint8, v2 string, startDays int32) {
		ev := []Evidence{
			{Kind: fuzzKinds[int(k1)%len(fuzzKinds)], Source: fuzzSources[int(s1)%len(fuzzSources)], Value: v1,
				ContentVersion: fuzzVersions[int(cv)%len(fuzzVersions)], DelayDays: int(startDays % 1000)},
			{Kind: fuzzKinds[int(k2)%len(fuzzKinds)], Source: fuzzSources[int(s2)%len(fuzzSources)], Value: v2,
				ContentVersion: fuzzVersions[int(cv/8)%len(fuzzVersions)]},
		}
		if startDays%3 != 0 {
			ev[1].Start = runDate.Add(time.Duration(startDays%20000) * 24 * time.Hour)
		}
		d := Decide(ev, runDate)
		checkDecision(t, d)
		rev := []Evidence{ev[1], ev[0]}
		r := Decide(rev, runDate)
		if r.Accepted != d.Accepted || r.Reason != d.Reason || r.Family != d.Family || r.Version != d.Version || r.Port != d.Port {
			t.Fatalf("order matters: %+v vs %+v", d, r)
		}
		if d.Accepted {
			if Attribution(AttributionInput{Title: v1}, d) == "" || Name(d.Family, d.Version, d.Port) == "" {
				t.Fatalf("accepted without attribution: %+v", d)
			}
		}
	})
}

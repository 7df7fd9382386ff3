package licence

import "testing"

func TestReceipts(t *testing.T) {
	ev := []Evidence{
		{Kind: KindJATSHref, Source: SourcePMC, Value: "http://creativecommons.org/licenses/by/4.0/", Path: "front/article-meta[1]/permissions[1]/license[1]/@xlink:href",
			Origin: "a.xml", InputSHA256: "ab", ReadAt: runDate},
		{Kind: KindJATSLicenseP, Value: "Distributed under the Creative Commons Attribution License."},
		{Kind: KindCrossref, Value: "https://creativecommons.org/licenses/by-nc-nd/3.0/igo/", ContentVersion: "am"},
		{Kind: KindCrossref, Value: "https://www.elsevier.com/tdm/userlicense/1.0/", ContentVersion: "tdm"},
		{Kind: KindOpenAlex, Value: "cc-by-sa", ContentVersion: "submittedVersion"},
		{Kind: KindOpenAlex, Value: "public-domain"},
		{Kind: KindJATSHref, Value: "https://creativecommons.org/publicdomain/zero/1.0/"},
		{Kind: KindJATSCopyright, Value: "© 2020 A. All rights reserved."},
		{Kind: KindJATSCopyright, Value: "© 2020 A. Not for commercial use."},
		{Kind: KindPubMedCopyright, Value: copyBMJ},
		{Kind: KindJATSLicenseP, Value: "© 2020 A. All rights reserved."},
		{Kind: KindJATSHref, Value: "https://creativecommons.org/licenses/by-nc/4.0/", Path: pathSub},
	}
	want := []struct {
		spdx, family, restriction, applies string
		reading                            string
	}{
		{"CC-BY-4.0", "CC-BY", "", "record", ""},
		{"LicenseRef-CC-BY", "CC-BY", "", "record", ""},
		{"CC-BY-NC-ND-3.0-IGO", "", "non-commercial", "am", ""},
		{"", "", "tdm-only", "tdm", ""},
		{"LicenseRef-CC-BY-SA", "CC-BY-SA", "", "submittedVersion", ""},
		{"", "", "unknown", "unstated", ""},
		{"CC0-1.0", "CC0", "", "record", ""},
		{"", "", "custom-terms", "record", ReadingGenericReservation},
		{"", "", "non-commercial", "record", ""},
		{"", "", "non-commercial", "record", ReadingGenericReservation},
		{"", "", "custom-terms", "record", ""},
		{"CC-BY-NC-4.0", "", "non-commercial", "sub-article", ""},
	}
	rs := Receipts(Decision{Evidence: ev})
	if len(rs) != len(want) {
		t.Fatalf("%d receipts", len(rs))
	}
	for i, r := range rs {
		w := want[i]
		if r.SPDX != w.spdx || string(r.Family) != w.family || string(r.Restriction) != w.restriction || r.AppliesTo != w.applies ||
			r.Reading != w.reading {
			t.Errorf("%d %q: got %s/%s/%s/%s/%s, want %+v", i, ev[i].Value, r.SPDX, r.Family, r.Restriction, r.AppliesTo, r.Reading, w)
		}
	}
	if r := rs[0]; r.Path != ev[0].Path || r.Input != "a.xml" || r.InputSHA256 != "ab" || !r.ReadAt.Equal(runDate) || r.Source != SourcePMC {
		t.Errorf("provenance: %+v", r)
	}
	if rs[1].Source != SourcePublisher {
		t.Errorf("inferred source %q", rs[1].Source)
	}
}

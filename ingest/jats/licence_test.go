package jats

import (
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// readOne reads a JATS record with the real licence decision and requires
// one document.
func readOne(t *testing.T, in string) *ingest.Document {
	t.Helper()
	rd := &Reader{Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }}
	sink, err := readString(t, rd, in)
	if err != nil || len(sink.docs) != 1 {
		t.Fatalf("%v, %d docs, problems %v", err, len(sink.docs), sink.problems)
	}
	return sink.docs[0]
}

// edit returns s with old replaced by new exactly once.
func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if strings.Count(s, old) != 1 {
		t.Fatalf("%q occurs %d times", old, strings.Count(s, old))
	}
	return strings.Replace(s, old, new, 1)
}

// receiptAt returns the receipt of the evidence read at path.
func receiptAt(t *testing.T, d licence.Decision, path string) licence.Receipt {
	t.Helper()
	for _, r := range licence.Receipts(d) {
		if r.Path == path {
			return r
		}
	}
	t.Fatalf("no receipt at %s in %+v", path, licence.Receipts(d))
	return licence.Receipt{}
}

// TestExpressGrantOverReservation: an express CC BY grant in <license>
// beside boilerplate reservation wording in <copyright-statement> is CC BY
// (PMC files such OUP and BMJ articles in its commercial-use subset); an
// unconditional restriction in the copyright statement still rejects.
//
// The records are the real PMC file of an OUP article
// (pmc/PMC6398430.nxml: license-type="cc-by", CC BY 4.0 href and text),
// with its copyright-statement text changed in memory to OUP's and BMJ's
// reservation wording and to unconditional restrictions.
func TestExpressGrantOverReservation(t *testing.T) {
	const (
		stmt    = "<copyright-statement>&#x000a9; The Author(s) 2018. Published by Oxford University Press on behalf of the International Society for Behavioral Ecology.</copyright-statement>"
		oup     = "© The Author(s) 2018. Published by Oxford University Press on behalf of the International Society for Behavioral Ecology. All rights reserved. For permissions, please e-mail: journals.permissions@oup.com"
		bmj     = "© Article author(s) (or their employer(s) unless otherwise stated in the text of the article) 2018. All rights reserved. No commercial use is permitted unless otherwise expressly granted."
		cpyPath = "front/article-meta[1]/permissions[1]/copyright-statement[1]"
		refPath = "front/article-meta[1]/permissions[1]/license[1]/@xlink:href"
	)
	article := fixtureArticle(t, "pmc/PMC6398430.nxml")
	for _, tc := range []struct {
		name, statement string
		reason          licence.Reason // "" when accepted as CC BY 4.0
		restriction     licence.Reason // the statement's own restriction
		reading         string
	}{
		{"OUP all rights reserved", oup, "", licence.CustomTerms, licence.ReadingGenericReservation},
		{"BMJ conditional no commercial use", bmj, "", licence.NonCommercial, licence.ReadingGenericReservation},
		{"not for commercial use", "© The Author(s) 2018. Published by Oxford University Press. Not for commercial use.",
			licence.NonCommercial, licence.NonCommercial, ""},
		{"non-commercial purposes only", "© The Author(s) 2018. All rights reserved. For non-commercial purposes only.",
			licence.NonCommercial, licence.NonCommercial, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := readOne(t, edit(t, article, stmt, "<copyright-statement>"+tc.statement+"</copyright-statement>")).Licence
			if tc.reason == "" {
				if !d.Accepted || d.Family != licence.CCBY || d.Version != "4.0" || !strings.Contains(d.Detail, "generic reservation") {
					t.Fatalf("decided %+v", d)
				}
			} else if d.Accepted || d.Reason != tc.reason {
				t.Fatalf("decided %+v, want %s", d, tc.reason)
			}
			cpy := receiptAt(t, d, cpyPath)
			if cpy.Kind != licence.KindJATSCopyright || cpy.Value != tc.statement || cpy.Restriction != tc.restriction ||
				cpy.Reading != tc.reading || cpy.AppliesTo != "record" || cpy.Source != licence.SourcePMC {
				t.Errorf("copyright receipt %+v", cpy)
			}
			if r := receiptAt(t, d, refPath); r.SPDX != "CC-BY-4.0" || r.Family != licence.CCBY || r.Reading != "" {
				t.Errorf("licence receipt %+v", r)
			}
		})
	}
}

// TestSubArticleLicence: a sub-article's or response's licence is not the
// article's. A record whose only CC BY licence is its referee reports' is
// unknown; a main CC BY licence is the article's even when a sub-article
// is more restrictive, and the sub-article's text is not served.
//
// The first records are the real F1000Research article
// f1000/f1000research-7-1655-v1.xml (CC BY 4.0, two referee reports each
// with its own CC BY 4.0 <permissions> in <front-stub>), changed in memory.
func TestSubArticleLicence(t *testing.T) {
	const (
		mainLicence = `<license xlink:href="http://creativecommons.org/licenses/by/4.0/"><license-p>This is an open access article distributed under the terms of the Creative Commons Attribution Licence, which permits unrestricted use, distribution, and reproduction in any medium, provided the original work is properly cited.</license-p></license>`
		report1     = `<copyright-statement>Copyright: © 2018 Ross-Hellauer T</copyright-statement><copyright-year>2018</copyright-year><license xlink:href="http://creativecommons.org/licenses/by/4.0/">`
		report1Text = "reports the outcomes of a 2018 workshop"
		report1Href = "sub-article[1]/front-stub[1]/permissions[1]/license[1]/@xlink:href"
	)
	article := fixtureArticle(t, "f1000/f1000research-7-1655-v1.xml")
	whole := readOne(t, article)
	if !whole.Licence.Accepted || whole.Licence.Family != licence.CCBY {
		t.Fatalf("unchanged record: %+v", whole.Licence)
	}

	t.Run("CC BY only in the referee reports", func(t *testing.T) {
		d := readOne(t, edit(t, article, mainLicence, "")).Licence
		if d.Accepted || d.Reason != licence.Unknown || !strings.Contains(d.Detail, "sub-article") {
			t.Fatalf("decided %+v", d)
		}
		r := receiptAt(t, d, report1Href)
		if r.SPDX != "CC-BY-4.0" || r.AppliesTo != "sub-article" {
			t.Errorf("referee report receipt %+v", r)
		}
		if r := receiptAt(t, d, "front/article-meta[1]/permissions[1]/copyright-statement[1]"); r.AppliesTo != "record" {
			t.Errorf("article copyright receipt %+v", r)
		}
	})

	t.Run("referee report more restrictive than the article", func(t *testing.T) {
		nc := edit(t, article, report1, `<copyright-statement>Copyright: © 2018 Ross-Hellauer T</copyright-statement><copyright-year>2018</copyright-year>`+
			`<license xlink:href="http://creativecommons.org/licenses/by-nc-nd/4.0/">`)
		doc := readOne(t, nc)
		d := doc.Licence
		if !d.Accepted || d.Family != licence.CCBY || d.Version != "4.0" || !strings.Contains(d.Detail, "whose text is not served") {
			t.Fatalf("decided %+v", d)
		}
		r := receiptAt(t, d, report1Href)
		if r.SPDX != "CC-BY-NC-ND-4.0" || r.Restriction != licence.NonCommercial || r.AppliesTo != "sub-article" {
			t.Errorf("referee report receipt %+v", r)
		}
		if !strings.Contains(article, report1Text) {
			t.Fatal("the report's text is not in the record")
		}
		if text := allText(doc) + doc.Abstract; strings.Contains(text, report1Text) || strings.Contains(text, "I confirm that I have read this submission") {
			t.Error("a referee report's text is served")
		}
		if len(doc.References) != len(whole.References) || len(doc.Sections) != len(whole.Sections) || doc.Title != whole.Title {
			t.Errorf("served text differs from the unchanged record: %d/%d references, %d/%d sections",
				len(doc.References), len(whole.References), len(doc.Sections), len(whole.Sections))
		}
	})

	// A sample written here in the JATS 1.2 form: an article whose
	// <permissions> state no licence, followed by a <response> (a reply to
	// the article) whose <front-stub> carries CC BY 4.0.
	t.Run("CC BY only in a response", func(t *testing.T) {
		in := `<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article" dtd-version="1.2" xml:lang="en">` +
			`<front><journal-meta><journal-title-group><journal-title>Example Journal</journal-title></journal-title-group></journal-meta>` +
			`<article-meta><article-id pub-id-type="doi">10.5555/example.1</article-id>` +
			`<title-group><article-title>An article without a licence</article-title></title-group>` +
			`<pub-date pub-type="epub"><day>01</day><month>02</month><year>2020</year></pub-date>` +
			`<permissions><copyright-statement>© 2020 Example Society</copyright-statement><copyright-year>2020</copyright-year></permissions>` +
			`</article-meta></front><body><p>The article's text.</p></body>` +
			`<response response-type="reply" id="R1"><front-stub><article-id pub-id-type="doi">10.5555/example.1.r1</article-id>` +
			`<title-group><article-title>Reply</article-title></title-group>` +
			`<permissions><copyright-statement>© 2020 The Authors</copyright-statement>` +
			`<license xlink:href="https://creativecommons.org/licenses/by/4.0/"><license-p>This reply is distributed under the terms of the Creative Commons Attribution 4.0 International License.</license-p></license>` +
			`</permissions></front-stub><body><p>The reply's text.</p></body></response></article>`
		doc := readOne(t, in)
		d := doc.Licence
		if d.Accepted || d.Reason != licence.Unknown || !strings.Contains(d.Detail, "response[1]/front-stub[1]") {
			t.Fatalf("decided %+v", d)
		}
		if r := receiptAt(t, d, "response[1]/front-stub[1]/permissions[1]/license[1]/@xlink:href"); r.AppliesTo != "sub-article" || r.Family != licence.CCBY {
			t.Errorf("response receipt %+v", r)
		}
		if strings.Contains(allText(doc), "The reply's text.") {
			t.Error("the response's text is read as the article's")
		}
	})
}

package ingest

import (
	"strings"
	"testing"

	"github.com/openshelf/openshelf/licence"
)

func TestOversize(t *testing.T) {
	big := func(n int) string { return strings.Repeat("x", n) }
	many := func(n int) []string { return make([]string, n) }
	for _, tc := range []struct {
		name string
		doc  Document
		want string // prefix of the description; "" when within caps
	}{
		{"ok", Document{Title: "A title", Abstract: big(10_000), Keywords: []string{"a", "b"}}, ""},
		{"20 MB title", Document{Title: big(20 << 20)}, "title: 20971520 bytes"},
		{"abstract", Document{Abstract: big(CapAbstract + 1)}, "abstract:"},
		{"keywords", Document{Keywords: many(CapList + 1)}, "keywords: 1001 entries"},
		{"one keyword", Document{Keywords: []string{"a", big(CapShortField + 1)}}, "keywords[1]:"},
		{"authors", Document{Authors: make([]Author, CapAuthors+1)}, "authors: 10001 entries"},
		{"affiliation", Document{Authors: []Author{{Name: "A", Affiliations: []string{big(CapAffiliation + 1)}}}}, "authors[0].affiliations[0]:"},
		{"references", Document{References: make([]Reference, CapReferences+1)}, "references: 50001 entries"},
		{"reference raw", Document{References: []Reference{{}, {Raw: big(CapReferenceText + 1)}}}, "references[1].raw:"},
		{"paragraph", Document{Sections: []Section{{Children: []Section{{Paragraphs: []string{big(CapParagraph + 1)}}}}}}, "sections[0].children[0].paragraphs[0]:"},
		{"author orcid", Document{Authors: []Author{{}, {ORCID: big(CapShortField + 1)}}}, "authors[1].orcid: 1025 bytes, over the cap of 1024 bytes"},
		{"reference author", Document{References: []Reference{{}, {Authors: []string{"a", big(CapShortField + 1)}}}}, "references[1].authors[1]: 1025 bytes"},
		{"reference authors", Document{References: []Reference{{Authors: many(CapList + 1)}}}, "references[0].authors: 1001 entries"},
		{"section title", Document{Sections: []Section{{}, {Children: []Section{{}, {Title: big(CapTitle + 1)}}}}}, "sections[1].children[1].title: 4097 bytes"},
		{"evidence value", Document{Licence: licence.Decision{Evidence: []licence.Evidence{{Value: big(CapEvidenceValue + 1)}}}}, "licence.evidence[0].value:"},
	} {
		got := tc.doc.Oversize()
		if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: Oversize() = %q, want prefix %q", tc.name, got, tc.want)
		}
	}
}

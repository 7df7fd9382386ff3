package jats

import (
	"bytes"
	"context"
	"errors"
	"os"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
)

// seeds adds the small fixtures and hand-made edge cases to a fuzz corpus.
func seeds(f *testing.F) {
	for _, path := range fixtureFiles(f) {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(b) < 24<<10 {
			f.Add(b)
		}
	}
	for _, s := range []string{
		"", "<", "<a", "<article/>", "<article><front/></article>", "&amp;", "<!DOCTYPE a [",
		`<OAI-PMH><ListRecords><record><header status="deleted"><identifier>oai:pmc:1</identifier></header></record></ListRecords></OAI-PMH>`,
		`<pmc-articleset><article><front><article-meta><article-id pub-id-type="pmc">1</article-id></article-meta></front><body><sec><p>x<sec><title>t</title></sec></p></sec></body><back><ref-list><ref><mixed-citation>doi:10.1234/5678</mixed-citation></ref></ref-list></back></article></pmc-articleset>`,
		"<a t='x>\"'>&#x110000;&#xD800;<![CDATA[]]></a>",
		"<article><front><article-meta><article-id pub-id-type=\"pmc\">1</article-id></article-meta></front><body><sec><title>a\xffb</title><p>\xe2\x82 c <italic>\xc3</italic>d</p></sec></body><back><ack><p>\xf0\x9f</p></ack><ref-list><ref><label>\xff1</label><element-citation><person-group><name><surname>D\xc3</surname><given-names>\xe9</given-names></name></person-group><article-title>t\xfe</article-title><source>s\xc3</source><year>20\xff</year><pub-id pub-id-type=\"doi\">10.1234/a\xffb</pub-id><ext-link ext-link-type=\"doi\" xlink:href=\"10.5555/x\xffy\">l</ext-link></element-citation></ref><ref><mixed-citation>doi:10.9999/\xc3q raw \xff</mixed-citation></ref></ref-list></back></article>",
		"\xfe\xff\x00<\x00a\x00/\x00>", "<?xml version='1.0' encoding='latin1'?><article>\xe9</article>",
	} {
		f.Add([]byte(s))
	}
}

// FuzzRead checks that no input panics or hangs the reader, that every
// error is one of the documented kinds, that every document has an id, and
// that its sections and references are valid UTF-8, as SectionsUTF8 and
// ReferencesUTF8 promise the builder.
func FuzzRead(f *testing.F) {
	seeds(f)
	rd := &Reader{
		Now:             func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
		MaxDepth:        64,
		MaxTokenBytes:   64 << 10,
		MaxCaptureBytes: 1 << 20,
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		var sink collect
		err := rd.Read(context.Background(), bytes.NewReader(in), "fuzz", &sink)
		if err != nil && !isContentError(err) {
			t.Fatalf("undocumented error: %v", err)
		}
		for _, d := range sink.docs {
			if d.ID == "" || d.Origin != "fuzz" || len(d.Sources) != 1 {
				t.Fatalf("document %+v", d)
			}
			if !d.SectionsUTF8 || !validSections(d.Sections) {
				t.Fatalf("sections not valid UTF-8 (SectionsUTF8 %v): %q", d.SectionsUTF8, d.Sections)
			}
			if !d.ReferencesUTF8 || !validReferences(d.References) {
				t.Fatalf("references not valid UTF-8 (ReferencesUTF8 %v): %q", d.ReferencesUTF8, d.References)
			}
		}
	})
}

// validSections reports whether every title and paragraph in ss is valid
// UTF-8.
func validSections(ss []ingest.Section) bool {
	for _, s := range ss {
		if !utf8.ValidString(s.Title) || !validSections(s.Children) {
			return false
		}
		for _, p := range s.Paragraphs {
			if !utf8.ValidString(p) {
				return false
			}
		}
	}
	return true
}

// validReferences reports whether every field of every reference in rs is
// valid UTF-8.
func validReferences(rs []ingest.Reference) bool {
	for _, r := range rs {
		for _, s := range append([]string{r.Label, r.Title, r.Source, r.Year, r.Volume, r.Issue, r.Pages, r.DOI, r.PMID, r.Raw}, r.Authors...) {
			if !utf8.ValidString(s) {
				return false
			}
		}
	}
	return true
}

// FuzzScanChunks checks that the token stream does not depend on how the
// input arrives: whole, or one byte per read with the smallest buffer.
func FuzzScanChunks(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		whole, err1 := scanAll(bytes.NewReader(in), 1<<20)
		bytewise, err2 := scanAll(iotest.OneByteReader(bytes.NewReader(in)), minBuf)
		if errors.Is(err1, ErrLimit) || errors.Is(err2, ErrLimit) {
			return // the small buffer limits tokens to minBuf bytes
		}
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("errors differ: %v / %v", err1, err2)
		}
		if whole != bytewise {
			t.Fatalf("streams differ at byte %d", firstDiff(whole, bytewise))
		}
	})
}

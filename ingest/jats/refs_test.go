package jats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
)

// treeReference is the reference extraction that [parser.reference]
// replaced: capture the ref into a tree, then walk it. It is kept as the
// oracle the streaming reader is checked against.
func treeReference(t *tree, ref int32) (ingest.Reference, bool) {
	var r ingest.Reference
	structured, mixed := none, none
	treeFindCitations(t, ref, &structured, &mixed)
	r.Label = trimLabel(t.text(t.child(ref, "label"), nil))
	src := structured
	if src == none {
		src = mixed
	}
	if src == none {
		r.Raw = t.text(ref, func(l string) bool { return l == "label" })
		return r, r.Raw != ""
	}
	treeCitationFields(t, src, &r)
	if mixed != none {
		r.Raw = t.text(mixed, skipInCitation)
	} else {
		r.Raw = t.text(src, skipInCitation)
	}
	if r.DOI == "" {
		r.DOI = doiInText(r.Raw)
	}
	ok := r.Raw != "" || r.Title != "" || r.Source != "" || len(r.Authors) > 0
	return r, ok
}

// trimLabel turns "[12]" or "12." into "12".
func trimLabel(s string) string { return strings.Trim(s, " []().") }

func treeFindCitations(t *tree, n int32, structured, mixed *int32) {
	for c := range t.elems(n) {
		switch t.nodes[c].local {
		case "element-citation", "nlm-citation", "citation":
			if *structured == none {
				*structured = c
			}
		case "mixed-citation":
			if *mixed == none {
				*mixed = c
			}
		case "citation-alternatives":
			treeFindCitations(t, c, structured, mixed)
		}
	}
}

func treeCitationFields(t *tree, c int32, r *ingest.Reference) {
	var fpage, lpage string
	for d := range t.elems(c) {
		switch t.nodes[d].local {
		case "person-group":
			if typ, ok := t.attrBytes(d, "person-group-type"); ok && len(typ) > 0 && !t.attrIs(d, "person-group-type", "author") {
				continue
			}
			if r.Authors == nil {
				n := 0
				for range t.elems(d) {
					n++
				}
				if n > 0 {
					r.Authors = make([]string, 0, n)
				}
			}
			for e := range t.elems(d) {
				if s := treeCitationName(t, e); s != "" {
					r.Authors = append(r.Authors, s)
				}
			}
			if len(r.Authors) == 0 {
				r.Authors = nil
			}
		case "name", "string-name", "collab":
			if s := treeCitationName(t, d); s != "" {
				r.Authors = append(r.Authors, s)
			}
		case "article-title", "chapter-title", "data-title", "part-title":
			if r.Title == "" {
				r.Title = t.text(d, skipInTitle)
			}
		case "source":
			if r.Source == "" {
				r.Source = t.text(d, skipInTitle)
			}
		case "year":
			if r.Year == "" {
				r.Year = t.text(d, nil)
			}
		case "date":
			if r.Year == "" {
				r.Year = t.text(t.child(d, "year"), nil)
			}
		case "volume":
			if r.Volume == "" {
				r.Volume = t.text(d, nil)
			}
		case "issue":
			if r.Issue == "" {
				r.Issue = t.text(d, nil)
			}
		case "fpage":
			if fpage == "" {
				fpage = t.text(d, nil)
			}
		case "lpage":
			if lpage == "" {
				lpage = t.text(d, nil)
			}
		case "page-range", "elocation-id":
			if r.Pages == "" {
				r.Pages = t.text(d, nil)
			}
		case "pub-id":
			switch {
			case r.DOI == "" && t.attrIs(d, "pub-id-type", "doi"):
				r.DOI = ingest.NormaliseDOI(t.text(d, nil))
			case r.PMID == "" && t.attrIs(d, "pub-id-type", "pmid"):
				r.PMID = ingest.NormalisePMID(t.text(d, nil))
			}
		case "ext-link", "uri":
			if r.DOI == "" && t.attrIs(d, "ext-link-type", "doi") {
				v := t.attr(d, "href")
				if v == "" {
					v = t.text(d, nil)
				}
				r.DOI = ingest.NormaliseDOI(v)
			}
		}
	}
	switch {
	case fpage != "" && lpage != "" && lpage != fpage:
		r.Pages = fpage + "-" + lpage
	case fpage != "":
		r.Pages = fpage
	}
}

func treeCitationName(t *tree, n int32) string {
	switch t.nodes[n].local {
	case "name", "string-name":
		b := t.appendText(nil, t.child(n, "surname"), nil)
		g := t.appendText(nil, t.child(n, "given-names"), nil)
		switch {
		case len(b) == 0 && len(g) == 0:
			return t.text(n, skipInName)
		case len(b) == 0:
			b = append(b, g...)
		case len(g) > 0:
			b = appendInitials(append(b, ' '), g)
		}
		return validString(b)
	case "collab":
		return t.text(n, skipInName)
	}
	return ""
}

// refTranscript walks in and reads every element named ref, with the
// streaming reader or with the tree oracle, under a capture limit of
// maxData. It records each reference, its verdict and error, and the
// token that follows it; after a limit error it walks on (as an article
// does to its end), after any other it stops.
func refTranscript(in []byte, maxData int, stream bool) string {
	p := &parser{names: interner{m: make(map[string]string)}}
	p.tmp.names, p.tmp.maxData = &p.names, maxData
	p.s.reset(context.Background(), bytes.NewReader(in), 1<<20, 64)
	var out strings.Builder
	if err := p.s.start(); err != nil {
		return "start: " + err.Error()
	}
	tokens := 0
	for {
		if err := p.s.next(); err != nil {
			fmt.Fprintf(&out, "after %d tokens: %v\n", tokens, err)
			return out.String()
		}
		tokens++
		if p.s.kind == tokEOF {
			fmt.Fprintf(&out, "%d tokens\n", tokens)
			return out.String()
		}
		if p.s.kind != tokStart || string(p.s.local) != "ref" {
			continue
		}
		var (
			r   ingest.Reference
			ok  bool
			err error
		)
		if stream {
			r, ok, err = p.reference()
		} else {
			p.tmp.reset()
			var n int32
			if n, err = p.tmp.capture(&p.s, nil); err == nil {
				r, ok = treeReference(&p.tmp, n)
			}
		}
		if err != nil {
			fmt.Fprintf(&out, "ref at %d: %v\n", p.s.offset(), err)
			if !errors.Is(err, errCaptureLimit) {
				return out.String()
			}
			continue
		}
		fmt.Fprintf(&out, "%#v %v\n", r, ok)
		if err := p.s.next(); err != nil {
			fmt.Fprintf(&out, "then: %v\n", err)
			return out.String()
		}
		fmt.Fprintf(&out, "then %d %q %q\n", p.s.kind, p.s.local, p.s.text)
	}
}

func checkReferences(t *testing.T, in []byte, maxData int) {
	t.Helper()
	got, want := refTranscript(in, maxData, true), refTranscript(in, maxData, false)
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("max %d, line %d:\n got %s\nwant %s", maxData, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("max %d: %d lines, want %d", maxData, len(gl), len(wl))
	}
}

// TestReferenceFixtures reads every reference of every JATS fixture, and
// under limits that cut some of them short, as the tree oracle does.
func TestReferenceFixtures(t *testing.T) {
	refs := 0
	for _, path := range fixtureFiles(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		refs += bytes.Count(in, []byte("<ref "))
		t.Run(path[strings.LastIndexByte(path, '/')+1:], func(t *testing.T) {
			for _, maxData := range []int{defaultMaxCapture, 700, 400} {
				checkReferences(t, in, maxData)
			}
		})
	}
	if refs < 1000 {
		t.Errorf("only %d references in the fixtures", refs)
	}
}

func TestReferenceCases(t *testing.T) {
	for _, in := range []string{
		`<ref/>`,
		`<ref id="r1"><label>[1]</label>bare <label>x</label>text <italic>only</italic></ref>`,
		`<ref><label>1.</label><mixed-citation>Smith J, Doe A. Title. <italic>J</italic>. 2001;3:4. doi: 10.1234/abcd.5.</mixed-citation></ref>`,
		`<ref><element-citation publication-type="journal"><person-group person-group-type="author"><name><surname>Smith</surname><given-names>John Q</given-names></name><name><given-names>A.</given-names></name><string-name>Plain <x>Text</x></string-name><collab>The <xref>1</xref>Group</collab><etal/></person-group><person-group person-group-type="editor"><name><surname>Ed</surname></name></person-group><article-title>A <italic>t</italic><xref>2</xref></article-title><article-title>second</article-title><source>S</source><date><month>1</month><year>2020</year><year>2021</year></date><year>1999</year><volume>1</volume><issue>2</issue><fpage>3</fpage><lpage>9</lpage><pub-id pub-id-type="pmid">PMID 0012</pub-id><pub-id pub-id-type="doi">https://doi.org/10.1000/XYZ</pub-id></element-citation></ref>`,
		`<ref><mixed-citation><name><surname>M</surname></name><source>Mixed</source> text</mixed-citation><element-citation><name><surname>S</surname><given-names>ab</given-names></name><source>Structured</source><fpage>5</fpage></element-citation><mixed-citation>second</mixed-citation><label>late</label></ref>`,
		`<ref><element-citation><source>Structured</source><annotation><p>no</p></annotation></element-citation><citation-alternatives><mixed-citation>Mixed <tex-math>x</tex-math>raw</mixed-citation></citation-alternatives></ref>`,
		`<ref><citation-alternatives><citation-alternatives><nlm-citation><ext-link ext-link-type="DOI" xlink:href=" "> 10.5555/x.1 </ext-link><ext-link ext-link-type="doi" href="10.1/no">x</ext-link></nlm-citation></citation-alternatives></citation-alternatives></ref>`,
		`<ref><citation><uri ext-link-type="doi" href="&#49;0.4444/amp&amp;">t</uri><page-range>1-2</page-range><fpage>7</fpage><lpage>7</lpage></citation></ref>`,
		`<ref><element-citation><person-group person-group-type=" "><name><surname>No</surname></name></person-group><person-group person-group-type=" Author "><name><surname>Yes</surname><surname>Two</surname></name></person-group><person-group><x/></person-group></element-citation></ref>`,
		`<ref><element-citation><name><surname/><given-names/><suffix>Jr</suffix> <xref>1</xref></name><name>  </name></element-citation></ref>`,
		`<ref><element-citation><elocation-id>e1</elocation-id><fpage>10</fpage></element-citation></ref>`,
		`<ref><element-citation><person-group x:person-group-type="&#97;uthor" person-group-type="editor"><name><surname>Ent</surname></name></person-group><pub-id pub-id-type="pmid" pub-id-type="doi">7</pub-id><pub-id pub-id-type="&#x64;oi">10.1234/ab</pub-id></element-citation></ref>`,
		"<ref><element-citation><fpage>\xff</fpage><lpage>\xfe</lpage><year/><year>2001</year><date><year></year><year>2002</year></date></element-citation><label>[\xff.</label></ref>",
		"<ref><element-citation><name><surname>\xe2\x80</surname><given-names>\xff\xc3\xa9ric</given-names></name><source>a\xc2</source></element-citation></ref>",
		`<ref><element-citation><person-group/></element-citation></ref>`,
		`<ref><mixed-citation>a&#160;b<sup>c</sup>d&#xc2;<bold>e</bold>.</mixed-citation></ref>`,
		"<ref><mixed-citation>\xff\xfe bad utf-8 <surname>x\xc3</surname></mixed-citation></ref>",
		`<ref><element-citation><source>open`,
		`<ref attr="` + strings.Repeat("v", 500) + `"><mixed-citation>x</mixed-citation></ref>`,
		`<ref><mixed-citation>` + strings.Repeat("<italic>w</italic> ", 100) + `</mixed-citation></ref>`,
		`<ref><label>1</label><x:mixed-citation xmlns:x="u">prefixed</x:mixed-citation></ref><ref>next</ref> after`,
		`<ref><A: >0</ref ><ref><b:/>x<c:><d:/>y<e>z</e></c:>w<mixed-citation>m<f:>n</f:>o</mixed-citation></ref>`,
		`<ref a="1"><A:/>0</ref><ref><:>t</:>u</ref>`,
	} {
		for _, maxData := range []int{1 << 20, 400, 64} {
			checkReferences(t, []byte(in), maxData)
		}
	}
	// Node counts about the limit (64 bytes: 16 nodes), text joining
	// nameless elements or not.
	for n := 5; n < 10; n++ {
		for _, in := range []string{
			"<ref><a:/>" + strings.Repeat("x<a:/>", n) + "</ref>",
			"<ref><a:>" + strings.Repeat("x<b:/>", n) + "</a:>y</ref>",
			"<ref>" + strings.Repeat("<i>x</i>y", n/2) + "</ref>",
		} {
			checkReferences(t, []byte(in), 64)
		}
	}
}

var refPattern = regexp.MustCompile(`(?s)<ref[ >].*?</ref>`)

// FuzzReference checks the streaming reference reader against the tree
// oracle, seeded with the fixtures and each of their first references.
func FuzzReference(f *testing.F) {
	seeds(f)
	for _, path := range fixtureFiles(f) {
		in, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for i, m := range refPattern.FindAll(in, -1) {
			if i == 8 {
				break
			}
			f.Add(m)
		}
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, maxData := range []int{1 << 20, 256, 64} {
			checkReferences(t, in, maxData)
		}
	})
}

// BenchmarkReferences reads every ref of every JATS fixture, as the
// reader does (stream) and as the tree oracle did (tree), against reading
// their tokens alone (scan).
func BenchmarkReferences(b *testing.B) {
	var data [][]byte
	var total int64
	for _, path := range fixtureFiles(b) {
		in, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, in)
		total += int64(len(in))
	}
	for _, mode := range []string{"stream", "tree", "scan"} {
		b.Run(mode, func(b *testing.B) {
			p := &parser{names: interner{m: make(map[string]string)}}
			p.tmp.names, p.tmp.maxData = &p.names, defaultMaxCapture
			b.SetBytes(total)
			b.ReportAllocs()
			for b.Loop() {
				refs := 0
				for _, in := range data {
					p.s.reset(context.Background(), bytes.NewReader(in), defaultMaxToken, defaultMaxDepth)
					if err := p.s.start(); err != nil {
						b.Fatal(err)
					}
					for {
						if err := p.s.next(); err != nil {
							b.Fatal(err)
						}
						if p.s.kind == tokEOF {
							break
						}
						if p.s.kind != tokStart || string(p.s.local) != "ref" {
							continue
						}
						var (
							ok  bool
							err error
						)
						switch mode {
						case "stream":
							_, ok, err = p.reference()
						case "tree":
							p.tmp.reset()
							var n int32
							if n, err = p.tmp.capture(&p.s, nil); err == nil {
								_, ok = treeReference(&p.tmp, n)
							}
						default: // the tokens alone
							for d := p.s.depth(); err == nil && !(p.s.kind == tokEnd && p.s.depth() < d); {
								err = p.s.next()
							}
							ok = true
						}
						if err != nil {
							b.Fatal(err)
						}
						if ok {
							refs++
						}
					}
				}
				if refs < 1000 {
					b.Fatalf("%d references", refs)
				}
			}
		})
	}
}

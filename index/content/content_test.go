package content

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

type record struct {
	doc  Document
	secs []Section
	refs []Reference
}

func sampleRecords() []record {
	long := strings.Repeat("a paragraph long enough to be compressed. ", 20)
	return []record{
		{doc: Document{ID: "doi-0123456789abcdef0123", Aliases: []string{}, Title: "Tiny", Authors: []Author{},
			Keywords: []string{}, Topics: []string{"biology"}, Sources: []string{}, License: "CC0"}},
		{doc: Document{ID: "pmc-1", Aliases: []string{"pmid-2", "doi-aaaaaaaaaaaaaaaaaaaa"}, DOI: "10.1/x", PMID: "2",
			PMCID: "PMC1", OpenAlex: "W3", Title: "A title — with ünicode", Authors: []Author{
				{Name: "Ada Lovelace", ORCID: "0000-0001", Affiliations: []string{"A", "B"}}, {Name: "Bob", Affiliations: []string{}}},
			Venue: "V", Publisher: "P", Year: -12, Date: "2020-01-02", Type: "article", Language: "en", Abstract: long,
			Keywords: []string{"k"}, Topics: []string{"t1", "t2"}, Sources: []string{"pmc"}, HasFulltext: true,
			HasReferences: true, License: "CC-BY", LicenseVersion: "4.0", LicenseName: "n", LicenseURL: "u",
			Attribution: "attr", CopyrightNotice: "c", ShareAlikeNotice: "s"},
			secs: []Section{{Parent: -1, Title: "Intro", Paragraphs: []string{long, "x"}}, {Parent: 0, Paragraphs: []string{}},
				{Parent: -1, Title: "End", Paragraphs: []string{}}},
			refs: []Reference{{Label: "1", Authors: []string{"X"}, Title: "T", Source: "S", Year: "1999", Volume: "1",
				Issue: "2", Pages: "3-4", DOI: "10.2/y", PMID: "5", Raw: long}, {Authors: []string{}}}},
		{doc: Document{ID: "pmid-9", Aliases: []string{}, Authors: []Author{}, Keywords: []string{}, Topics: []string{},
			Sources: []string{}}, refs: []Reference{{Raw: "only raw", Authors: []string{}}}},
	}
}

func writeStore(t *testing.T, recs []record) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docs.bin")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	bw := bufio.NewWriter(f)
	w, err := NewWriter(bw)
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs {
		if err := w.Add(&recs[i].doc, recs[i].secs, recs[i].refs); err != nil {
			t.Fatal(err)
		}
	}
	if w.Len() != len(recs) {
		t.Fatalf("Len = %d, want %d", w.Len(), len(recs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := bw.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRoundTrip(t *testing.T) {
	recs := sampleRecords()
	for _, n := range []int{0, 1, len(recs)} {
		r, err := Open(writeStore(t, recs[:n]))
		if err != nil {
			t.Fatal(err)
		}
		if r.Len() != n {
			t.Fatalf("Len = %d, want %d", r.Len(), n)
		}
		for i, want := range recs[:n] {
			d, err := r.Document(i)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*d, want.doc) {
				t.Errorf("doc %d: got %+v\nwant %+v", i, *d, want.doc)
			}
			secs, err := r.Sections(i)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(secs, want.secs) {
				t.Errorf("doc %d sections: got %+v\nwant %+v", i, secs, want.secs)
			}
			refs, err := r.References(i)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(refs, want.refs) {
				t.Errorf("doc %d references: got %+v\nwant %+v", i, refs, want.refs)
			}
		}
		for _, doc := range []int{-1, n} {
			if _, err := r.Document(doc); err == nil {
				t.Errorf("doc %d of %d: no error", doc, n)
			}
		}
		r.Close()
	}
}

func TestCorruptFiles(t *testing.T) {
	good, err := os.ReadFile(writeStore(t, sampleRecords()))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{
		"empty":      {},
		"short":      good[:10],
		"bad magic":  append(append([]byte{}, good[:len(good)-footerSize]...), append([]byte("xxxxxxxx"), good[len(good)-16:]...)...),
		"truncated":  good[footerSize:],
		"extra byte": append([]byte{0}, good...),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "docs.bin")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			if r, err := Open(path); !errors.Is(err, ErrCorrupt) {
				if err == nil {
					r.Close()
				}
				t.Fatalf("Open = %v, want ErrCorrupt", err)
			}
		})
	}
	// A damaged blob is reported, not served.
	bad := append([]byte{}, good...)
	offsets := binary.LittleEndian.Uint64(good[len(good)-footerSize+16:])
	bad[binary.LittleEndian.Uint64(good[offsets:])] = 7 // codec of doc 0's document part
	path := filepath.Join(t.TempDir(), "docs.bin")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Document(0); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Document = %v, want ErrCorrupt", err)
	}
}

func FuzzDecode(f *testing.F) {
	for _, rec := range sampleRecords() {
		f.Add(AppendDocument(nil, &rec.doc))
		f.Add(AppendSections(nil, rec.secs))
		f.Add(AppendReferences(nil, rec.refs))
	}
	// Decoding never panics, and what decodes survives a re-encoding
	// (varints need not be minimal, so the bytes may differ).
	f.Fuzz(func(t *testing.T, b []byte) {
		if d, err := DecodeDocument(b); err == nil {
			if d2, err := DecodeDocument(AppendDocument(nil, d)); err != nil || !reflect.DeepEqual(d, d2) {
				t.Errorf("document does not round-trip: %v", err)
			}
		}
		if s, err := DecodeSections(b); err == nil && len(b) > 0 {
			if s2, err := DecodeSections(AppendSections(nil, s)); err != nil || !reflect.DeepEqual(s, s2) {
				t.Errorf("sections do not round-trip: %v", err)
			}
		}
		if r, err := DecodeReferences(b); err == nil && len(b) > 0 {
			if r2, err := DecodeReferences(AppendReferences(nil, r)); err != nil || !reflect.DeepEqual(r, r2) {
				t.Errorf("references do not round-trip: %v", err)
			}
		}
	})
}

// TestManyDocuments covers the dictionaries: enough documents to fill them,
// so some records are written while held back and the rest as they come.
func TestManyDocuments(t *testing.T) {
	var recs []record
	for i := range 3000 {
		s := fmt.Sprint(i)
		recs = append(recs, record{
			doc: Document{ID: "pmc-" + s, Aliases: []string{}, Title: "Study number " + s, Authors: []Author{{Name: "A " + s,
				Affiliations: []string{}}}, Abstract: strings.Repeat("Words about sample "+s+". ", 1+i%13),
				Keywords: []string{}, Topics: []string{"t"}, Sources: []string{}, License: "CC-BY",
				Attribution: "This work by A " + s + " is licensed under CC BY 4.0, changes were made."},
			secs: []Section{{Parent: -1, Title: "S" + s, Paragraphs: []string{strings.Repeat("text "+s+" ", i%50)}}},
		})
		if i%3 == 0 {
			recs[i].refs = []Reference{{Raw: "Reference " + s + " in a journal, 2001.", Authors: []string{}}}
		}
	}
	r, err := Open(writeStore(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Len() != len(recs) {
		t.Fatalf("Len = %d", r.Len())
	}
	for i, want := range recs {
		d, err := r.Document(i)
		if err != nil || !reflect.DeepEqual(*d, want.doc) {
			t.Fatalf("doc %d: %v\n%+v\nwant %+v", i, err, d, want.doc)
		}
		secs, err := r.Sections(i)
		if err != nil || !reflect.DeepEqual(secs, want.secs) {
			t.Fatalf("doc %d sections: %v", i, err)
		}
		refs, err := r.References(i)
		if err != nil || !reflect.DeepEqual(refs, want.refs) {
			t.Fatalf("doc %d references: %v", i, err)
		}
	}
	for k, d := range r.dictLens() {
		if d == 0 {
			t.Errorf("part %d has no dictionary", k)
		}
	}
}

// TestMergeFields: the merge fields round-trip, and records written before
// them (or before their tables) still decode.
func TestMergeFields(t *testing.T) {
	m := &MergeFields{Subjects: []string{"Neuroscience"}, Given: []string{"Ada"}, Family: []string{"Lovelace"},
		Retracted: true, Origin: "pmc/a.xml", Updated: 1_700_000_000_000_000, Evidence: `[{"kind":"jats-href"}]`,
		Tables: `[{"label":"Table 1"}]`}
	d := &Document{ID: "pmc-1", Authors: []Author{{Name: "Ada Lovelace"}}, LicenseEvidence: "[]", Merge: m}
	got, err := DecodeDocument(AppendDocument(nil, d))
	if err != nil || !reflect.DeepEqual(got.Merge, m) {
		t.Fatalf("round trip: %+v (%v), want %+v", got.Merge, err, m)
	}
	noTables := *m
	noTables.Tables = ""
	old := AppendDocument(nil, &Document{ID: "pmc-1", Authors: d.Authors, LicenseEvidence: "[]", Merge: &noTables})
	old = old[:len(old)-1] // an empty Tables is one byte: drop it, as a record written before Tables
	if got, err := DecodeDocument(old); err != nil || !reflect.DeepEqual(got.Merge, &noTables) {
		t.Errorf("record without tables: %+v (%v)", got.Merge, err)
	}
	d.Merge = nil
	if got, err := DecodeDocument(AppendDocument(nil, d)); err != nil || got.Merge != nil {
		t.Errorf("record without merge fields: %+v (%v)", got, err)
	}
}

package ingest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/licence"
)

func TestParseIDRoundTripAndOrder(t *testing.T) {
	ids := []string{
		"pmc-1", "pmc-12", "pmc-123", "pmc-2", "pmc-999999999999", "pmc-10",
		"pmid-1", "pmid-19943927", "pmid-2",
		"oa-w1", "oa-w2120048887", "oa-w999999999999999",
		DOIID("10.7554/eLife.00005"), DOIID("10.1371/journal.pone.0000217"), "doi-00000000000000000000", "doi-ffffffffffffffffffff",
	}
	keys := make([]idKey, len(ids))
	for i, id := range ids {
		k, ok := parseID(id)
		if !ok {
			t.Fatalf("parseID(%q) failed", id)
		}
		if got := k.String(); got != id {
			t.Errorf("round trip %q -> %q", id, got)
		}
		keys[i] = k
	}
	for i := range ids {
		for j := range ids {
			if got, want := compareKeys(keys[i], keys[j]), strings.Compare(ids[i], ids[j]); got != want {
				t.Errorf("compare(%q, %q) = %d, strings say %d", ids[i], ids[j], got, want)
			}
		}
	}
	for _, bad := range []string{"", "pmc-", "pmc-12a", "pmc-1234567890123", "oa-w1234567890123456", "doi-abc",
		"doi-ABCDEF0123456789abcd", "doi-0123456789abcdef012g", "W123", "pmid--1", "isbn-123"} {
		if _, ok := parseID(bad); ok {
			t.Errorf("parseID(%q) accepted", bad)
		}
	}
}

func FuzzParseID(f *testing.F) {
	for _, s := range []string{"pmc-1", "pmid-22", "oa-w3", "doi-0123456789abcdef0123", "x"} {
		f.Add(s, "pmc-2")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ka, oka := parseID(a)
		kb, okb := parseID(b)
		if oka && ka.String() != a {
			t.Fatalf("round trip %q -> %q", a, ka.String())
		}
		if oka && okb && compareKeys(ka, kb) != strings.Compare(a, b) {
			t.Fatalf("order of %q and %q differs from string order", a, b)
		}
	})
}

// fakeDecide accepts CC BY when some evidence says "cc-by" and none says
// "cc-by-nc"; it records what it was asked.
type fakeDecide struct{ calls [][]licence.Evidence }

func (f *fakeDecide) decide(ev []licence.Evidence, now time.Time) licence.Decision {
	f.calls = append(f.calls, ev)
	by, nc := false, false
	for _, e := range ev {
		by = by || e.Value == "cc-by"
		nc = nc || e.Value == "cc-by-nc"
	}
	if by && !nc {
		return licence.Decision{Accepted: true, Family: licence.CCBY, URL: "https://creativecommons.org/licenses/by/4.0/", Evidence: ev}
	}
	return licence.Decision{Reason: licence.NonCommercial, Evidence: ev}
}

func accepted(src licence.Source, value string) licence.Decision {
	return licence.Decision{Accepted: value == "cc-by", Family: licence.CCBY,
		Evidence: []licence.Evidence{{Kind: licence.KindURL, Source: src, Value: value}}}
}

func newTestMerger(t *testing.T, fd *fakeDecide) *Merger {
	t.Helper()
	m, err := NewMerger(MergeConfig{Dir: t.TempDir(), Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC), Decide: fd.decide})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func collect(t *testing.T, m *Merger) []*Document {
	t.Helper()
	var out []*Document
	if err := m.Each(context.Background(), func(d *Document) error {
		out = append(out, d)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func mustAdd(t *testing.T, m *Merger, docs ...*Document) {
	t.Helper()
	for _, d := range docs {
		if err := m.Document(d); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMergeSourcesPrecedence(t *testing.T) {
	fd := &fakeDecide{}
	m := newTestMerger(t, fd)
	doi := "10.1234/ABC.5"
	pubmed := &Document{PMID: "555", DOI: doi, Title: "PubMed title", Abstract: "A much longer PubMed abstract text than the others",
		Sources: []string{"pubmed"}, Subjects: []string{"MeSH A"}, Licence: licence.Decision{Reason: licence.Missing}}
	oa := &Document{OpenAlex: "W77", DOI: "https://doi.org/" + doi, PMID: "555", Title: "OpenAlex title", Year: 2019,
		Venue: "OA venue", Sources: []string{"openalex"}, Subjects: []string{"Field B", "MeSH A"},
		Updated: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Licence: accepted(licence.SourceOpenAlex, "cc-by")}
	jats := &Document{PMCID: "PMC4242", DOI: doi, Title: "JATS title", Abstract: "Short",
		Sections: []Section{{Title: "Intro", Paragraphs: []string{"p"}}}, Sources: []string{"jats:pmc"},
		Origin: "a.nxml", Licence: accepted(licence.SourcePMC, "cc-by"), Topics: []string{"genetics"}}
	mustAdd(t, m, pubmed, oa, jats)
	out := collect(t, m)
	if len(out) != 1 {
		t.Fatalf("got %d documents, want 1: %+v", len(out), out)
	}
	d := out[0]
	if d.ID != "pmc-4242" {
		t.Errorf("ID = %q, want pmc-4242", d.ID)
	}
	wantAliases := []string{DOIID(doi), "oa-w77", "pmid-555"}
	slices.Sort(wantAliases)
	if !slices.Equal(d.Aliases, wantAliases) {
		t.Errorf("Aliases = %q, want %q", d.Aliases, wantAliases)
	}
	checks := []struct{ name, got, want string }{
		{"title", d.Title, "JATS title"},
		{"abstract (best rank wins over longer)", d.Abstract, "Short"},
		{"venue (first that has it)", d.Venue, "OA venue"},
		{"origin", d.Origin, "a.nxml"},
		{"doi", d.DOI, strings.ToLower(doi)},
		{"openalex", d.OpenAlex, "W77"},
		{"sources", strings.Join(d.Sources, ","), "jats:pmc,openalex,pubmed"},
		{"subjects", strings.Join(d.Subjects, ","), "Field B,MeSH A"},
		{"topics", strings.Join(d.Topics, ","), "genetics"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if d.Year != 2019 || len(d.Sections) != 1 || !d.Updated.Equal(oa.Updated) {
		t.Errorf("year %d, sections %d, updated %v", d.Year, len(d.Sections), d.Updated)
	}
	if !d.Licence.Accepted || len(fd.calls) != 1 || len(fd.calls[0]) != 2 {
		t.Errorf("licence %+v, decide calls %v", d.Licence, fd.calls)
	}
	st := m.Stats()
	if st.Read != 3 || st.Merged != 2 || st.Emitted != 1 {
		t.Errorf("stats %+v", st)
	}
}

// TestMergeSectionsUTF8 checks that SectionsUTF8 and ReferencesUTF8 go
// with the sections and references the merge keeps, through the spill
// (which does not encode them).
func TestMergeSectionsUTF8(t *testing.T) {
	secs := []Section{{Title: "Intro", Paragraphs: []string{"p"}}}
	refs := []Reference{{Title: "Cited", Raw: "Cited. 2001."}}
	for _, c := range []struct {
		name          string
		jats, pubmed  bool // SectionsUTF8 of each record
		pubmedHasSecs bool
		want          bool
	}{
		{"alone, set", true, false, false, true},
		{"alone, unset", false, true, false, false},
		{"kept sections set, other unset", true, false, true, true},
		{"kept sections unset, other set", false, true, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := newTestMerger(t, &fakeDecide{})
			jats := &Document{PMCID: "PMC4242", DOI: "10.1234/abc", Title: "JATS", Sections: secs, SectionsUTF8: c.jats,
				References: refs, ReferencesUTF8: c.jats,
				Sources: []string{"jats:pmc"}, Licence: accepted(licence.SourcePMC, "cc-by"), Topics: []string{"genetics"}}
			pubmed := &Document{PMID: "555", DOI: "10.1234/abc", Title: "PubMed", SectionsUTF8: c.pubmed, ReferencesUTF8: c.pubmed,
				Sources: []string{"pubmed"}, Licence: licence.Decision{Reason: licence.Missing}}
			if c.pubmedHasSecs {
				pubmed.Sections = []Section{{Title: "Other", Paragraphs: []string{"q"}}}
				pubmed.References = []Reference{{Title: "Other"}}
			}
			mustAdd(t, m, pubmed, jats)
			out := collect(t, m)
			if len(out) != 1 || len(out[0].Sections) != 1 || out[0].Sections[0].Title != "Intro" ||
				len(out[0].References) != 1 || out[0].References[0].Title != "Cited" {
				t.Fatalf("got %+v", out)
			}
			if out[0].SectionsUTF8 != c.want || out[0].ReferencesUTF8 != c.want {
				t.Errorf("SectionsUTF8 %v, ReferencesUTF8 %v, want %v", out[0].SectionsUTF8, out[0].ReferencesUTF8, c.want)
			}
		})
	}
}

func TestMergeTransitiveAndOrder(t *testing.T) {
	m := newTestMerger(t, &fakeDecide{})
	// a-b share a PMID, b-c a PMC id: one work. d and e stand alone.
	mustAdd(t, m,
		&Document{DOI: "10.1/x", PMID: "1", Sources: []string{"pubmed"}},
		&Document{OpenAlex: "W5", Sources: []string{"openalex"}},
		&Document{PMID: "1", PMCID: "2", Sources: []string{"jats:pmc"}},
		&Document{Title: "no id at all", Origin: "bad.xml"},
		&Document{PMCID: "2", OpenAlex: "W3", Sources: []string{"openalex"}},
		&Document{PMID: "10", Sources: []string{"pubmed"}},
	)
	out := collect(t, m)
	var ids []string
	for _, d := range out {
		ids = append(ids, d.ID)
	}
	want := []string{"oa-w5", "pmc-2", "pmid-10", ""}
	if !slices.Equal(ids, want) {
		t.Fatalf("ids = %q, want %q", ids, want)
	}
	if got := out[1].Aliases; !slices.Equal(got, []string{DOIID("10.1/x"), "oa-w3", "pmid-1"}) {
		t.Errorf("aliases = %q", got)
	}
	if out[3].Origin != "bad.xml" || m.Stats().NoID != 1 {
		t.Errorf("no-id record: %+v, stats %+v", out[3], m.Stats())
	}
}

func TestMergeNewestVersionWins(t *testing.T) {
	fd := &fakeDecide{}
	m := newTestMerger(t, fd)
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	mustAdd(t, m,
		&Document{OpenAlex: "W1", Title: "newest", Updated: day(20), Sources: []string{"openalex"},
			Licence: accepted(licence.SourceOpenAlex, "cc-by"), Keywords: []string{"new"}},
		&Document{OpenAlex: "W1", Title: "oldest", Updated: day(1), Sources: []string{"openalex"},
			Licence: accepted(licence.SourceOpenAlex, "cc-by-nc"), DOI: "10.9/old"},
		&Document{OpenAlex: "W1", Title: "middle", Updated: day(10), Sources: []string{"openalex"}},
	)
	out := collect(t, m)
	if len(out) != 1 {
		t.Fatalf("got %d docs", len(out))
	}
	d := out[0]
	if d.Title != "newest" || !d.Licence.Accepted || d.DOI != "" {
		t.Errorf("got title %q, licence %+v, doi %q", d.Title, d.Licence, d.DOI)
	}
	// The old DOI still resolves to the work.
	if !slices.Contains(d.Aliases, DOIID("10.9/old")) || d.ID != "oa-w1" {
		t.Errorf("id %q aliases %q", d.ID, d.Aliases)
	}
	if st := m.Stats(); st.Superseded != 2 {
		t.Errorf("superseded = %d, want 2", st.Superseded)
	}
}

func TestMergeCarriedReplacedByFresh(t *testing.T) {
	fd := &fakeDecide{}
	m := newTestMerger(t, fd)
	carried := &Document{ID: "pmc-9", PMCID: "9", OpenAlex: "W9", Title: "old title", Abstract: "old abstract",
		Sections: []Section{{Title: "old"}}, Sources: []string{"jats:pmc", "openalex"},
		Aliases: []string{"oa-w9", "pmid-99"},
		Licence: licence.Decision{Accepted: true, Family: licence.CCBY, Evidence: []licence.Evidence{
			{Kind: licence.KindJATSHref, Source: licence.SourcePMC, Value: "cc-by"},
			{Kind: licence.KindOpenAlex, Source: licence.SourceOpenAlex, Value: "cc-by"},
		}}}
	if err := m.Carry(carried); err != nil {
		t.Fatal(err)
	}
	// A fresh OpenAlex record now says NC: only the OpenAlex evidence is
	// replaced, the PMC evidence stays (and the fake decider rejects on NC).
	mustAdd(t, m, &Document{OpenAlex: "W9", Title: "oa title", Sources: []string{"openalex"},
		Licence: accepted(licence.SourceOpenAlex, "cc-by-nc")})
	out := collect(t, m)
	if len(out) != 1 {
		t.Fatalf("got %d docs", len(out))
	}
	d := out[0]
	if d.Title != "old title" { // carried JATS metadata outranks OpenAlex
		t.Errorf("title %q", d.Title)
	}
	ev := fd.calls[len(fd.calls)-1]
	var vals []string
	for _, e := range ev {
		vals = append(vals, string(e.Source)+"="+e.Value)
	}
	slices.Sort(vals)
	if want := []string{"openalex=cc-by-nc", "pmc=cc-by"}; !slices.Equal(vals, want) {
		t.Errorf("evidence %q, want %q", vals, want)
	}
	if !slices.Contains(d.Aliases, "pmid-99") {
		t.Errorf("aliases %q lost the carried alias", d.Aliases)
	}

	// A fresh JATS record of the same PMC article replaces the carried one
	// entirely once OpenAlex is fresh too.
	m2 := newTestMerger(t, fd)
	if err := m2.Carry(carried); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, m2,
		&Document{PMCID: "9", Title: "new title", Sources: []string{"jats:pmc"}, Licence: accepted(licence.SourcePMC, "cc-by")},
		&Document{OpenAlex: "W9", PMCID: "9", Sources: []string{"openalex"}, Licence: accepted(licence.SourceOpenAlex, "cc-by")},
	)
	out = collect(t, m2)
	if len(out) != 1 || out[0].Title != "new title" || out[0].Abstract != "" || out[0].Sections != nil {
		t.Errorf("carried document not replaced: %+v", out[0])
	}
	if st := m2.Stats(); st.Superseded != 1 || st.Carried != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMergeDeletionAndRetraction(t *testing.T) {
	m := newTestMerger(t, &fakeDecide{})
	mustAdd(t, m,
		&Document{PMID: "1", PMCID: "11", Sources: []string{"jats:pmc"}},
		&Document{PMID: "2", Sources: []string{"pubmed"}},
		&Document{PMID: "3", Sources: []string{"pubmed"}},
	)
	for _, id := range []string{"pmid-1", "pmid-3", "pmid-4", "garbage"} {
		if err := m.Delete(Deletion{ID: id}); err != nil {
			t.Fatal(err)
		}
	}
	mustAdd(t, m,
		&Document{PMID: "3", Title: "re-added after its deletion", Sources: []string{"pubmed"}},
		&Document{DOI: "10.5/r", Retracted: true, Sources: []string{"crossref"}},
		&Document{DOI: "10.5/r", OpenAlex: "W8", Sources: []string{"openalex"}},
		&Document{OpenAlex: "W6", Retracted: true, Updated: time.Unix(100, 0), Sources: []string{"openalex"}},
		&Document{OpenAlex: "W6", Updated: time.Unix(200, 0), Sources: []string{"openalex"}}, // un-retracted later
	)
	out := collect(t, m)
	var ids []string
	for _, d := range out {
		ids = append(ids, d.ID)
	}
	// pmc-11 (pmid 1) is deleted; pmid-3 was deleted, then re-added, and the
	// old record is hit, so the work goes; oa-w6's newest version is not
	// retracted.
	if want := []string{"oa-w6", "pmid-2"}; !slices.Equal(ids, want) {
		t.Errorf("ids = %q, want %q", ids, want)
	}
	if st := m.Stats(); st.Deleted != 2 || st.Retracted != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestMergeReAddedAfterDeletionSurvives(t *testing.T) {
	m := newTestMerger(t, &fakeDecide{})
	if err := m.Delete(Deletion{ID: "pmid-7"}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, m, &Document{PMID: "7", Sources: []string{"pubmed"}})
	if out := collect(t, m); len(out) != 1 || out[0].ID != "pmid-7" {
		t.Errorf("got %+v", out)
	}
}

func TestMergerFinished(t *testing.T) {
	m := newTestMerger(t, &fakeDecide{})
	collect(t, m)
	if err := m.Document(&Document{PMID: "1"}); err != ErrMergerDone {
		t.Errorf("Document after Each: %v", err)
	}
	if err := m.Each(context.Background(), nil); err != ErrMergerDone {
		t.Errorf("second Each: %v", err)
	}
}

func TestMergeManyRandom(t *testing.T) {
	// Random records over a small id space: every id must end up in exactly
	// one emitted document, ids strictly increasing.
	m := newTestMerger(t, &fakeDecide{})
	rng := rand.New(rand.NewPCG(1, 2))
	all := map[string]bool{}
	for i := 0; i < 3000; i++ {
		d := &Document{Sources: []string{[]string{"pubmed", "openalex", "crossref", "jats:pmc"}[rng.IntN(4)]}}
		switch rng.IntN(4) {
		case 0:
			d.PMID = fmt.Sprint(rng.IntN(2000) + 1)
		case 1:
			d.PMCID = fmt.Sprint(rng.IntN(2000) + 1)
		case 2:
			d.OpenAlex = fmt.Sprint("W", rng.IntN(2000)+1)
		case 3:
			d.DOI = fmt.Sprintf("10.1/%d", rng.IntN(2000))
		}
		if rng.IntN(3) == 0 {
			d.PMID = fmt.Sprint(rng.IntN(2000) + 1)
		}
		for _, id := range d.IDs() {
			all[id] = true
		}
		mustAdd(t, m, d)
	}
	seen := map[string]bool{}
	prev := ""
	for _, d := range collect(t, m) {
		if d.ID <= prev {
			t.Fatalf("ids not increasing: %q after %q", d.ID, prev)
		}
		prev = d.ID
		for _, id := range append([]string{d.ID}, d.Aliases...) {
			if seen[id] {
				t.Fatalf("id %s in two documents", id)
			}
			seen[id] = true
		}
	}
	if len(seen) != len(all) {
		t.Errorf("%d ids emitted, %d read", len(seen), len(all))
	}
}

func BenchmarkMerger(b *testing.B) {
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit. ", 20)
	doc := &Document{Title: "A title about cells", Abstract: para, Sources: []string{"jats:pmc"},
		Authors:  []Author{{Name: "Ada Lovelace"}, {Name: "Alan Turing"}},
		Sections: []Section{{Title: "Intro", Paragraphs: []string{para, para, para}}, {Title: "Methods", Paragraphs: []string{para, para}}}}
	m, err := NewMerger(MergeConfig{Dir: b.TempDir(), Decide: (&fakeDecide{}).decide})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	i := 0
	for b.Loop() {
		i++
		doc.PMCID = fmt.Sprint(i)
		if err := m.Document(doc); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	if err := m.Each(context.Background(), func(*Document) error { n++; return nil }); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "docs/s")
}

// fill sets every field reachable from v to a distinct non-zero value.
func fill(t *testing.T, v reflect.Value, n *int, depth int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Int:
		v.SetInt(int64(*n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		if depth > 3 {
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := 0; i < 2; i++ {
			fill(t, s.Index(i), n, depth+1)
		}
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(int64(1_700_000_000+*n), int64(*n)).UTC()))
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type() == reflect.TypeFor[Document]() && v.Type().Field(i).Name == "Records" {
				continue // what a merge emits, never a record's own field
			}
			if n := v.Type().Field(i).Name; v.Type() == reflect.TypeFor[Document]() && (n == "SectionsUTF8" || n == "ReferencesUTF8") {
				continue // carried beside the record (flagSectionsUTF8...), not in it
			}
			fill(t, v.Field(i), n, depth)
		}
	default:
		t.Fatalf("fill: unhandled kind %s (%s): extend the spill codec and this test", v.Kind(), v.Type())
	}
}

func TestSpillCodecCoversEveryField(t *testing.T) {
	var d Document
	n := 0
	fill(t, reflect.ValueOf(&d).Elem(), &n, 0)
	got, err := spillDecode(spillEncode(nil, &d))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, &d) {
		t.Errorf("spill round trip lost data (a field added to the model but not to spillEncode/spillDecode?)\n got %+v\nwant %+v", got, &d)
	}
	// Zero document too.
	if got, err := spillDecode(spillEncode(nil, &Document{})); err != nil || !reflect.DeepEqual(got, &Document{}) {
		t.Errorf("zero document: %+v, %v", got, err)
	}
	// Every truncation is an error, never a panic.
	b := spillEncode(nil, &d)
	for i := 0; i < len(b); i++ {
		if _, err := spillDecode(b[:i]); err == nil {
			t.Fatalf("truncated at %d of %d: no error", i, len(b))
		}
	}
}

func FuzzSpillDecode(f *testing.F) {
	var d Document
	n := 0
	fill(&testing.T{}, reflect.ValueOf(&d).Elem(), &n, 2)
	f.Add(spillEncode(nil, &d))
	f.Add(spillEncode(nil, &Document{ID: "pmc-1"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := spillDecode(b)
		if err != nil {
			return
		}
		again, err := spillDecode(spillEncode(nil, d))
		if err != nil || !reflect.DeepEqual(again, d) {
			t.Fatalf("re-encoding a decoded record changed it: %v", err)
		}
	})
}

// TestMergeSpillChunks spills records that fill the spill's write buffer
// several times, some larger than it, raw and compressed: each reads
// back whole, through Each and through Replay.
func TestMergeSpillChunks(t *testing.T) {
	for _, rawLimit := range []int64{rawSpill, 3 * spillBuffer, 0} {
		newMerger := func() *Merger {
			m, err := NewMerger(MergeConfig{Dir: t.TempDir(), Decide: (&fakeDecide{}).decide})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { m.Close() })
			m.rawLimit = rawLimit
			return m
		}
		rng := rand.New(rand.NewPCG(7, 8))
		m, want := newMerger(), map[string]string{}
		for i := range 120 {
			n := rng.IntN(spillBuffer / 8)
			if i%40 == 3 {
				n = spillBuffer + rng.IntN(2*spillBuffer)
			}
			b := make([]byte, n)
			for j := range b {
				b[j] = 'a' + byte(rng.IntN(26))
			}
			d := &Document{PMCID: fmt.Sprint(1000 + i), Title: fmt.Sprint("title ", i), Sources: []string{"jats:pmc"},
				Sections: []Section{{Title: "Body", Paragraphs: []string{string(b)}}}}
			want["pmc-"+fmt.Sprint(1000+i)] = string(b)
			mustAdd(t, m, d)
		}
		if m.off < 4*spillBuffer {
			t.Fatalf("spilled %d bytes, want several chunks", m.off)
		}
		check := func(how string, docs []*Document) {
			t.Helper()
			if len(docs) != len(want) {
				t.Fatalf("raw part %d, %s: %d documents, want %d", rawLimit, how, len(docs), len(want))
			}
			for _, d := range docs {
				if len(d.Sections) != 1 || len(d.Sections[0].Paragraphs) != 1 || d.Sections[0].Paragraphs[0] != want[d.ID] {
					t.Fatalf("raw part %d, %s: %s does not read back whole", rawLimit, how, d.ID)
				}
			}
		}
		replayed := newMerger()
		if err := m.Replay(context.Background(), replayed); err != nil {
			t.Fatal(err)
		}
		check("Each", collect(t, m))
		check("Replay", collect(t, replayed))
	}
}

// TestMergeSpillCompressedPart checks that records spilled as S2 blocks
// (those past the raw part of the spill) merge as the raw ones do, and
// that both kinds give the same kept source records (MergeConfig.Records).
func TestMergeSpillCompressedPart(t *testing.T) {
	run := func(rawLimit int64) []*Document {
		m, err := NewMerger(MergeConfig{Dir: t.TempDir(), Now: time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC),
			Decide: (&fakeDecide{}).decide, Records: true})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Close()
		m.rawLimit = rawLimit
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range 400 {
			d := &Document{Sources: []string{[]string{"pubmed", "openalex", "jats:pmc"}[rng.IntN(3)]},
				PMID: fmt.Sprint(rng.IntN(150) + 1), Title: fmt.Sprint("title ", i),
				Sections: []Section{{Title: "Intro", Paragraphs: []string{strings.Repeat(fmt.Sprint("text of ", i, ". "), rng.IntN(50))}}}}
			if rng.IntN(2) == 0 {
				d.DOI = fmt.Sprintf("10.1/%d", rng.IntN(150))
			}
			mustAdd(t, m, d)
		}
		return collect(t, m)
	}
	raw := run(rawSpill)
	for _, limit := range []int64{0, 20 << 10} {
		if got := run(limit); !reflect.DeepEqual(got, raw) {
			t.Errorf("raw part of %d bytes: the merged documents differ from an uncompressed spill's", limit)
		}
	}
	if len(raw) == 0 || len(raw[0].Records) == 0 {
		t.Fatal("no records kept")
	}
}

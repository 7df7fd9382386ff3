package index

import (
	"slices"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// TestRecordsMergeWorksAgain builds an archive whose works are merged from
// several sources' records, then applies nights the way the nightly job
// does: a delta build of the night's records with the sources' filters
// (KeepRecord) and the ids whose records left (Touch). After every night
// the snapshot must equal a fresh build of every record the filters keep.
func TestRecordsMergeWorksAgain(t *testing.T) {
	pubmedOf := func(pmid, subject, origin string) *ingest.Document {
		return &ingest.Document{PMID: pmid, Title: "PubMed title " + pmid, Subjects: []string{subject},
			Sources: []string{"pubmed"}, Origin: origin, Licence: testDecide(nil, testNow)}
	}
	jats := synth(1, "cc-by", "neuroscience")
	jats.Sources, jats.Origin, jats.Subjects = []string{"jats:pmc"}, "pmc/a.xml", nil
	openalex := &ingest.Document{OpenAlex: "W77", PMID: "7777", DOI: "10.5/lonely", Title: "Lonely work",
		Topics: []string{"genetics"}, Sources: []string{"openalex"}, Origin: "openalex/part_0.gz",
		Licence: testDecide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourceCrossref, Value: "cc-by"}}, testNow)}
	revised := synth(2, "cc-by", "ecology")
	revised.Sources, revised.Origin, revised.Title = []string{"jats:pmc"}, "pmc/b2.xml", "A revised title"
	embargoed := &ingest.Document{PMID: "9999", Title: "Embargoed work", Topics: []string{"ecology"},
		Sources: []string{"crossref"}, Origin: "crossref/p2.json",
		Licence: licence.Decision{Evidence: []licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourceCrossref,
			Value: "cc-by", Start: testNow.Add(5*24*time.Hour + 12*time.Hour)}}}}
	citing := synth(4, "cc-by", "ecology")
	citing.References = []ingest.Reference{{DOI: "10.1234/test.3"}, {PMID: "5001"}}
	older := synth(2, "cc-by", "ecology")
	older.Sources, older.Origin = []string{"jats:pmc"}, "pmc/b1.xml"

	// Each night: the records it brings, the ids whose records left, and
	// what the sources' filters drop from then on (a file, or one PMID's
	// record of a file, as the PubMed filter does).
	nights := []struct {
		docs  []*ingest.Document
		touch []string
		drop  []string
	}{
		{docs: []*ingest.Document{jats, pubmedOf("5001", "Heart Diseases", "pubmed/n0001.xml"),
			pubmedOf("7777", "Genetics, Medical", "pubmed/n0001.xml"), older, synth(3, "cc-by", "genetics"), citing}},
		// A PubMed-only work, rejected so far, gets its licence from
		// OpenAlex; an article is revised (the old version leaves).
		{docs: []*ingest.Document{openalex, revised}, drop: []string{"pmc/b1.xml"}},
		// PubMed deletes the citation of the PMC article's work.
		{touch: []string{"pmid-5001"}, drop: []string{"pubmed/n0001.xml#5001"}},
		// A night of rejected records only (a segment without documents),
		// then the licence of one of them.
		{docs: []*ingest.Document{pubmedOf("8888", "Oceanography", "pubmed/n0002.xml")}},
		{docs: []*ingest.Document{{PMID: "8888", DOI: "10.5/ocean", Title: "Ocean work", Topics: []string{"ecology"},
			Sources: []string{"crossref"}, Origin: "crossref/p1.json",
			Licence: testDecide([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourceCrossref, Value: "cc-by"}}, testNow)}}},
		// A work whose licence takes effect after this night: rejected,
		// then published by a night that brings nothing of it.
		{docs: []*ingest.Document{embargoed}},
		{docs: []*ingest.Document{synth(5, "cc-by", "genetics")}},
	}
	deltaDir, freshDir := t.TempDir(), t.TempDir()
	var all []*ingest.Document
	var dropped []string
	for night, n := range nights {
		all = append(all, n.docs...)
		dropped = append(dropped, n.drop...)
		keep := func(origin string, d *ingest.Document) bool {
			return !slices.Contains(dropped, origin) && !slices.Contains(dropped, origin+"#"+d.PMID)
		}
		now := testNow.Add(time.Duration(night) * 24 * time.Hour)

		// Each reader decides a record's licence when it reads it: the
		// delta build on the night the record comes, the fresh build on
		// every night.
		decided := func(docs []*ingest.Document) []*ingest.Document {
			out := make([]*ingest.Document, len(docs))
			for i, d := range docs {
				c := *d
				c.Licence = datedDecide(d.Licence.Evidence, now)
				out[i] = &c
			}
			return out
		}
		cfg := testConfig(deltaDir)
		cfg.Now, cfg.Decide, cfg.Records, cfg.Touch, cfg.KeepRecord = now, datedDecide, true, n.touch, keep
		build(t, cfg, feedDocs(decided(n.docs)...))

		var kept []*ingest.Document
		for _, d := range all {
			if keep(d.Origin, d) {
				kept = append(kept, d)
			}
		}
		cfg = testConfig(freshDir)
		cfg.Now, cfg.Decide, cfg.Records, cfg.Fresh = now, datedDecide, true, true
		build(t, cfg, feedDocs(decided(kept)...))

		got, want := open(t, deltaDir), open(t, freshDir)
		if night > 0 && !got.Segmented() {
			t.Fatalf("night %d: not a delta build", night)
		}
		if segs := got.Manifest.Segments; night == 3 && segs[len(segs)-1].Documents != 0 {
			t.Fatalf("night 3: the newest segment holds %d documents; want the rejected work's records alone", segs[len(segs)-1].Documents)
		}
		compareSnapshots(t, got, want)
		cat, con, _, _ := openSegmented(t, got)
		checkSubjects := func(id string, want bool, subject string) {
			t.Helper()
			d := cat.Lookup(id)
			if d < 0 {
				t.Fatalf("night %d: %s is not served", night, id)
			}
			doc, err := con.Document(int(d))
			if err != nil {
				t.Fatal(err)
			}
			if has := slices.Contains(doc.Merge.Subjects, subject); has != want {
				t.Errorf("night %d: %s has subject %q: %v, want %v", night, id, subject, has, want)
			}
		}
		checkSubjects("pmc-1001", night < 2, "Heart Diseases")
		if night >= 1 {
			checkSubjects("pmid-7777", true, "Genetics, Medical")
		}
		if night >= 4 {
			checkSubjects("pmid-8888", true, "Oceanography")
		}
		if served := cat.Lookup("pmid-9999") >= 0; served != (night >= 6) {
			t.Errorf("night %d: the embargoed work served %v", night, served)
		}
	}
	// A full merge that does not ask for records keeps them all the same,
	// and still answers as the fresh build.
	cfg := testConfig(deltaDir)
	cfg.Merge, cfg.Now = true, testNow.Add(10*24*time.Hour)
	build(t, cfg, nil)
	if merged := open(t, deltaDir); merged.Segmented() || !HasRecords(merged) {
		t.Fatalf("the full merge: segmented %v, records kept %v", merged.Segmented(), HasRecords(merged))
	}
	compareSnapshots(t, open(t, deltaDir), open(t, freshDir))
}

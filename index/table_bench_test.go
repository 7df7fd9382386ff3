package index

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// benchText makes text of n words from a Zipf-like vocabulary, so that the
// dictionary, statistics and compression of a column behave like real text.
type benchText struct {
	zipf *rand.Zipf
	b    strings.Builder
}

func newBenchText(seed uint64) *benchText {
	return &benchText{zipf: rand.NewZipf(rand.New(rand.NewPCG(seed, 7)), 1.1, 2, 50_000)}
}

func (t *benchText) words(n int) string {
	t.b.Reset()
	for j := 0; j < n; j++ {
		if j > 0 {
			t.b.WriteByte(' ')
		}
		fmt.Fprintf(&t.b, "w%x", t.zipf.Uint64())
	}
	return t.b.String()
}

// benchTableRows makes the rows of the documents, full text and
// references tables of docs documents, shaped like those of a JATS build
// (a dozen sections and forty references a document).
func benchTableRows(docs int) (dr []documentRow, sr []sectionRow, rr []referenceRow) {
	rng := rand.New(rand.NewPCG(1, 2))
	tx := newBenchText(3)
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < docs; i++ {
		id := fmt.Sprintf("pmc:PMC%07d", 1_000_000+i*13)
		var authors []authorRow
		for a := 0; a < 1+rng.IntN(10); a++ {
			given, family := tx.words(1), tx.words(1)
			authors = append(authors, authorRow{Name: given + " " + family, Given: given, Family: family,
				Affiliations: []string{tx.words(8)}})
		}
		updated := now.Add(-time.Duration(i) * time.Minute)
		dr = append(dr, documentRow{ID: id, Aliases: []string{"doi:10.5555/b." + fmt.Sprint(i), "pmid:" + fmt.Sprint(30_000_000+i)},
			DOI: "10.5555/b." + fmt.Sprint(i), PMID: fmt.Sprint(30_000_000 + i), PMCID: fmt.Sprintf("PMC%07d", 1_000_000+i*13),
			Title: tx.words(12), Authors: authors, Venue: fmt.Sprintf("Journal %d", rng.IntN(300)),
			Publisher: fmt.Sprintf("Publisher %d", rng.IntN(40)), Year: int32(1995 + rng.IntN(30)), Date: "2020-01-02",
			Type: "research-article", Language: "en", Abstract: tx.words(220), Keywords: []string{tx.words(2), tx.words(1)},
			Subjects: []string{tx.words(2)}, Topics: []string{fmt.Sprintf("topic-%d", rng.IntN(30))},
			License: "cc-by", LicenseVersion: "4.0", LicenseURL: "https://creativecommons.org/licenses/by/4.0/",
			LicenseName: "Creative Commons Attribution 4.0", Attribution: tx.words(20), CopyrightNotice: tx.words(6),
			LicenceEvidence: `[{"kind":"jats-href","value":"cc-by"}]`, HasFulltext: true, HasReferences: true,
			NSections: 12, NReferences: 40, Sources: []string{"jats:pmc"}, Origin: fmt.Sprintf("corpus/%d.nxml", i),
			Updated: &updated})
		for s := 0; s < 12; s++ {
			paras := make([]string, rng.IntN(5))
			for p := range paras {
				paras[p] = tx.words(20 + rng.IntN(120))
			}
			sr = append(sr, sectionRow{ID: id, Ordinal: int32(s), Parent: int32(s/4) - 1, Depth: int32(s % 2),
				Title: tx.words(1 + rng.IntN(4)), Paragraphs: paras})
		}
		for r := 0; r < 40; r++ {
			var names []string
			for a := 0; a < rng.IntN(7); a++ {
				names = append(names, tx.words(2))
			}
			rr = append(rr, referenceRow{ID: id, Ordinal: int32(r), Label: fmt.Sprint(r + 1), Authors: names,
				Title: tx.words(10), Source: fmt.Sprintf("J %d", rng.IntN(2000)), Year: fmt.Sprint(1960 + rng.IntN(60)),
				Volume: fmt.Sprint(rng.IntN(300)), Issue: fmt.Sprint(rng.IntN(12)), Pages: fmt.Sprintf("%d-%d", r*10, r*10+9),
				DOI: fmt.Sprintf("10.1000/r.%d.%d", i, r), Raw: tx.words(25)})
		}
	}
	return dr, sr, rr
}

// benchWriteTable writes rows through a table as the builder does and
// reports the rows written a second.
func benchWriteTable[T any](b *testing.B, rows []T, groupRows int, prose []string, size func(*T) int) {
	b.Helper()
	b.ReportAllocs()
	for b.Loop() {
		t, err := newTable[T](b.TempDir(), "t.parquet", groupRows, proseColumns(prose...)...)
		if err != nil {
			b.Fatal(err)
		}
		for i := range rows {
			if err := t.write(rows[i], size(&rows[i])); err != nil {
				b.Fatal(err)
			}
		}
		if _, err := t.close(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(rows))*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkTableWrite measures the Parquet writer of the builder (row
// shredding, dictionaries, statistics, page encoding and compression) on
// the three largest tables of a build of 2 000 documents.
func BenchmarkTableWrite(b *testing.B) {
	dr, sr, rr := benchTableRows(2_000)
	const groupRows = 100_000
	b.Run("documents", func(b *testing.B) {
		benchWriteTable(b, dr, groupRows, documentProse, func(r *documentRow) int {
			return len(r.Abstract) + len(r.Title) + len(r.LicenceEvidence) + len(r.Attribution) + 256*len(r.Authors) + 512
		})
	})
	b.Run("fulltext", func(b *testing.B) {
		benchWriteTable(b, sr, 4*groupRows, sectionProse, func(r *sectionRow) int {
			n := len(r.Title) + 32
			for _, p := range r.Paragraphs {
				n += len(p)
			}
			return n
		})
	})
	b.Run("references", func(b *testing.B) {
		benchWriteTable(b, rr, 8*groupRows, referenceProse, func(r *referenceRow) int { return len(r.Raw) + len(r.Title) + 128 })
	})
}

package specs

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/jats"
)

// corpusDir and corpusDocs choose the articles of BenchmarkExtractDocument:
// the fixtures by default, or the first files of a generated corpus laid
// out as the fixtures are (<dir>/*/*.xml), whose mix of text and tables
// is the full build's.
var (
	corpusDir   = flag.String("specs.corpus", fixtureDir, "directory of JATS articles for BenchmarkExtractDocument")
	corpusFiles = flag.Int("specs.files", 500, "number of files BenchmarkExtractDocument reads from -specs.corpus")
)

// BenchmarkExtractDocument measures ExtractDocument, text and tables, as
// the index builder runs it per document. MB/s counts the passages' text.
//
//	go test -run '^$' -bench ExtractDocument -benchtime 10x ./specs \
//		-args -specs.corpus /tmp/jats/corpus-files-20000-s1 -specs.files 500
func BenchmarkExtractDocument(b *testing.B) {
	docs := readDocs(b, *corpusDir, *corpusFiles)
	size := 0
	for _, d := range docs {
		for _, p := range Passages(d.Title, d.Abstract, d.Sections) {
			size += len(p.Text)
		}
	}
	b.SetBytes(int64(size))
	n := 0
	for b.Loop() {
		n = 0
		for _, d := range docs {
			n += len(ExtractDocument(d))
		}
	}
	b.ReportMetric(float64(len(docs)), "docs")
	b.ReportMetric(float64(n), "statements")
}

// BenchmarkExtract measures extraction over every fixture JATS article
// (title, abstract, full text), as the index builder runs it per
// document. MB/s counts the passages' text.
//
//	go test -run '^$' -bench Extract -benchtime 20x ./specs
func BenchmarkExtract(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*", "*.*ml"))
	var docs [][]Passage
	size := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		var s sink
		jats.Read(context.Background(), fh, f, &s)
		fh.Close()
		for _, d := range s.docs {
			ps := Passages(d.Title, d.Abstract, d.Sections)
			for _, p := range ps {
				size += len(p.Text)
			}
			docs = append(docs, ps)
		}
	}
	b.SetBytes(int64(size))
	n := 0
	for b.Loop() {
		n = 0
		for _, ps := range docs {
			n += len(Extract(ps...))
		}
	}
	b.ReportMetric(float64(len(docs)), "docs")
	b.ReportMetric(float64(n), "statements")
}

// BenchmarkExtractTables measures extraction from the tables of every
// fixture JATS article, as ExtractDocument runs it after the text. MB/s
// counts the cells' text.
//
//	go test -run '^$' -bench ExtractTables -benchtime 200x ./specs
func BenchmarkExtractTables(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join(fixtureDir, "*", "*.*ml"))
	var tables []ingest.Table
	size := 0
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			b.Fatal(err)
		}
		var s sink
		jats.Read(context.Background(), fh, f, &s)
		fh.Close()
		for _, d := range s.docs {
			for _, tb := range d.Tables {
				for _, rows := range [][][]string{tb.Header, tb.Rows} {
					for _, r := range rows {
						for _, c := range r {
							size += len(c)
						}
					}
				}
				tables = append(tables, tb)
			}
		}
	}
	b.SetBytes(int64(size))
	n := 0
	for b.Loop() {
		n = 0
		for i := range tables {
			n += len(ExtractTable(&tables[i]))
		}
	}
	b.ReportMetric(float64(len(tables)), "tables")
	b.ReportMetric(float64(n), "statements")
}

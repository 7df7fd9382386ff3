package jats

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
)

// discard is a Sink that keeps nothing.
type discard struct{ docs, problems int }

func (d *discard) Document(*ingest.Document) error { d.docs++; return nil }
func (d *discard) Delete(ingest.Deletion) error    { return nil }
func (d *discard) Problem(ingest.Problem)          { d.problems++ }

// BenchmarkRead reads every JATS fixture per iteration and reports MB/s.
func BenchmarkRead(b *testing.B) {
	files := fixtureFiles(b)
	var data [][]byte
	var total int64
	for _, f := range files {
		buf, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		data = append(data, buf)
		total += int64(len(buf))
	}
	b.SetBytes(total)
	b.ReportAllocs()
	ctx := context.Background()
	var rd Reader
	for b.Loop() {
		var sink discard
		for i, buf := range data {
			if err := rd.Read(ctx, bytes.NewReader(buf), files[i], &sink); err != nil {
				b.Fatal(err)
			}
		}
		if sink.docs != len(data) {
			b.Fatalf("%d documents from %d files", sink.docs, len(data))
		}
	}
}

// fixtureFiles lists every JATS fixture article.
func fixtureFiles(tb testing.TB) []string {
	tb.Helper()
	var files []string
	for _, pat := range []string{"*.xml", "*.nxml"} {
		m, err := filepath.Glob(filepath.Join(fixtures.Path(tb, "jats"), "*", pat))
		if err != nil {
			tb.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		tb.Fatal("no JATS fixtures")
	}
	return files
}

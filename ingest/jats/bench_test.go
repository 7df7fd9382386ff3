package jats

import (
	"bytes"
	"context"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
)

// benchJATS is a directory of articles for BenchmarkRead, such as a
// generated corpus whose reference-heavy shape the fixtures do not have.
var benchJATS = flag.String("bench.jats", "", "BenchmarkRead reads the first 1000 .xml/.nxml files under this directory instead of the fixtures")

// discard is a Sink that keeps nothing.
type discard struct{ docs, problems int }

func (d *discard) Document(*ingest.Document) error { d.docs++; return nil }
func (d *discard) Delete(ingest.Deletion) error    { return nil }
func (d *discard) Problem(ingest.Problem)          { d.problems++ }

// BenchmarkRead reads every JATS fixture (or the files -bench.jats names)
// per iteration and reports MB/s.
func BenchmarkRead(b *testing.B) {
	files := fixtureFiles(b)
	if *benchJATS != "" {
		files = firstFiles(b, *benchJATS, 1000)
	}
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

// firstFiles lists the first n .xml and .nxml files under dir, in path
// order.
func firstFiles(tb testing.TB, dir string, n int) []string {
	tb.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(path, ".xml") || strings.HasSuffix(path, ".nxml")) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no .xml or .nxml files under %s", dir)
	}
	slices.Sort(files)
	return files[:min(n, len(files))]
}

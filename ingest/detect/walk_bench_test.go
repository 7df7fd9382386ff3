package detect

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWalk walks a corpus laid out as openshelf bench ingest writes
// one: 4 000 files in directories of 1 000.
func BenchmarkWalk(b *testing.B) {
	dir := b.TempDir()
	for i := range 4000 {
		p := filepath.Join(dir, fmt.Sprintf("%04d", i/1000), fmt.Sprintf("%05d.xml", i))
		if i%1000 == 0 {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				b.Fatal(err)
			}
		}
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		n := 0
		if err := Walk(context.Background(), []string{dir}, func(File) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 4000 {
			b.Fatalf("walked %d files, want 4000", n)
		}
	}
}

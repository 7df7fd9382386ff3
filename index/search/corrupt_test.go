package search_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
)

// exercise opens a (possibly damaged) index and runs every kind of query
// on it: it must fail cleanly (ErrMalformed) or answer, never panic.
func exercise(t testing.TB, path string) {
	ix, err := search.OpenFile(path, "s", search.Options{})
	if err != nil {
		if !errors.Is(err, search.ErrMalformed) {
			t.Fatalf("open: %v, want ErrMalformed", err)
		}
		return
	}
	defer ix.Close()
	ctx := context.Background()
	for _, q := range []string{"heart", `"heart failure"`, "cardi*", "heart OR mice -arrest", "fulltext:zebrafish", "study",
		"heart failure", "heart -mice", "heart OR mice", "", "ca*", "ca* heart", "heart ca* -mice"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		// Filtered, faceted and sorted (the generic paths), then plain:
		// ranked by relevance alone, twice so that the sets of dense
		// terms and expansions are built and read (conj.go, expand.go).
		for _, req := range []search.Request{
			{Query: n, Stem: true, Fulltext: true, Limit: 5, Sort: search.ByCitedBy,
				Facets: []string{"license", "topic", "year", "source", "fulltext"}, Where: map[string][]string{"topic": {"biology"}}},
			{Query: n, Limit: 5}, {Query: n, Limit: 5}, {Query: n, Stem: true, Limit: 5}, {Query: n, Stem: true, Limit: 5},
		} {
			if _, err := ix.Search(ctx, req); err != nil && !errors.Is(err, search.ErrMalformed) {
				t.Fatalf("%q: %v", q, err)
			}
		}
	}
	for d := range ix.Len() {
		ix.CitedByCount(int32(d))
		ix.CitedBy(ctx, int32(d), 3, "")
	}
	ix.TopicDocs("biology")
}

// TestCorruptIndex: truncated and garbled files fail at Open or at the
// query with ErrMalformed, never with a panic.
func TestCorruptIndex(t *testing.T) {
	c := fixedCorpus(t)
	good, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.bin")
	write := func(b []byte) {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []int{0, 8, 16, len(good) / 2, len(good) - 1} {
		write(good[:n])
		if _, err := search.OpenFile(path, "s", search.Options{}); !errors.Is(err, search.ErrMalformed) {
			t.Errorf("truncated to %d bytes: %v", n, err)
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for range 300 {
		b := append([]byte(nil), good...)
		for range 1 + rng.IntN(8) {
			b[16+rng.IntN(len(b)-16-40)] ^= byte(1 + rng.IntN(255)) // leave the header and footer
		}
		write(b)
		exercise(t, path)
	}
}

// FuzzIndexFile: any bytes after a valid header either fail to open or
// answer queries without panicking.
func FuzzIndexFile(f *testing.F) {
	c := fixedCorpus(f)
	good, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(0, byte(1))
	f.Add(len(good)/3, byte(0x80))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, at int, x byte) {
		if at < 0 {
			at = -at
		}
		b := append([]byte(nil), good...)
		b[at%len(b)] ^= x
		path := filepath.Join(dir, "index.bin")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		exercise(t, path)
	})
}

// TestCorruptEachByte flips each byte of a small index in turn (the
// bit-packed blocks, masks, impacts, skip entries and all): every damaged
// file fails cleanly or answers, never panics.
func TestCorruptEachByte(t *testing.T) {
	if testing.Short() {
		t.Skip("one exercise per byte")
	}
	c := fixedCorpus(t)
	good, err := os.ReadFile(filepath.Join(c.snap.Dir, filepath.FromSlash(search.File)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.bin")
	for at := range good {
		b := append([]byte(nil), good...)
		b[at] ^= []byte{0x01, 0x80, 0xff}[at%3] // low bit, varint continuation, all
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		exercise(t, path)
	}
}

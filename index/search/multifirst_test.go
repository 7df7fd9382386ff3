package search_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/ingest"
)

// withFirst makes sg's FirstFile, reads it back, and returns sg with a
// new Multi that uses it (none of the first's caches filled).
func withFirst(t *testing.T, sg *segmented) *segmented {
	t.Helper()
	return withFirstOf(t, sg, search.MakeFirst)
}

// withFirstOf is withFirst with the FirstFile that make makes.
func withFirstOf(t *testing.T, sg *segmented, mk func(context.Context, []string, []search.Segment) ([]byte, error)) *segmented {
	t.Helper()
	ids := make([]string, len(sg.ss))
	for i := range ids {
		ids[i] = fmt.Sprintf("seg%d", i)
	}
	b, err := mk(context.Background(), ids, sg.ss)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "first.bin")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := search.ReadFirst(path)
	if err != nil {
		t.Fatal(err)
	}
	m, err := search.NewMulti(sg.merged.snap.ID, sg.ss, sg.cites)
	if err != nil {
		t.Fatal(err)
	}
	// Another list of segments, or other deletions: not used.
	other := append([]string{}, ids...)
	other[0] = "another"
	if m.UseFirst(f, other) {
		t.Fatal("a FirstFile was used for segments of other names")
	}
	moved := append([]search.Segment{}, sg.ss...)
	moved[0].Deleted = moved[0].Deleted[1:]
	mm, err := search.NewMulti(sg.merged.snap.ID, moved, sg.cites)
	if err == nil && mm.UseFirst(f, ids) {
		t.Fatal("a FirstFile was used for other deletions")
	}
	if !m.UseFirst(f, ids) {
		t.Fatal("the FirstFile does not match its segments")
	}
	c := *sg
	c.multi = m
	return &c
}

// TestMultiFirst: a Multi given its snapshot's FirstFile (the words'
// deleted documents, the prefixes' expansions, the segments' first
// scans of them and how their prefix terms' bitsets differ from the
// expansions' documents) answers every request as the merged index
// does, on its first search and after.
func TestMultiFirst(t *testing.T) {
	t.Run("random", func(t *testing.T) {
		sg := withFirst(t, buildSegmented(t, 500, 5, 1, randomDoc))
		if diff, _ := search.CheckDeletedCounts(sg.multi); diff != "" {
			t.Fatal(diff)
		}
		compareRequests(t, sg, 1)
	})
	t.Run("version 1", func(t *testing.T) {
		// A file written before the deleted documents of short lists
		// were listed: those are counted from the lists.
		base := buildSegmented(t, 500, 5, 1, randomDoc)
		v1, v2 := withFirstOf(t, base, search.MakeFirstV1), withFirst(t, base)
		if diff, _ := search.CheckDeletedCounts(v1.multi); diff != "" {
			t.Fatal(diff)
		}
		n1, _, _, ok1 := search.FirstInUse(v1.multi)
		n2, _, _, ok2 := search.FirstInUse(v2.multi)
		if !ok1 || !ok2 || n1 >= n2 {
			t.Fatalf("version 1 lists %d terms' deleted documents (%v), version 2 %d (%v)", n1, ok1, n2, ok2)
		}
		compareRequests(t, v1, 1)
	})
	t.Run("expansions", func(t *testing.T) {
		base := buildSegmented(t, 900, 6, 4, zqTitleDoc)
		sg := withFirst(t, base)
		nwords, prefixes, fixes, ok := search.FirstInUse(sg.multi)
		if !ok || nwords == 0 || prefixes == 0 || fixes == 0 {
			t.Fatalf("the FirstFile holds %d words' deleted documents, %d prefixes, %d segments' prefix terms of other words (%v)", nwords, prefixes, fixes, ok)
		}
		for i, q := range []string{"zq*", "zq0*", "zq1*", "zq* heart", "zq00* OR zq5*", "zq* -zq001", "title:zq*", `"zq001 zq002"`} {
			n, err := query.Parse(q)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []search.Sort{search.ByRelevance, search.ByYear} {
				for _, limit := range []int{1, 3, 50} {
					for _, offset := range []int{0, 40} {
						r := search.Request{Query: n, Sort: s, Limit: limit, Offset: offset}
						// Each on a Multi of its own: its first search.
						first := withFirst(t, base)
						comparePages(t, first, r, fmt.Sprintf("#%d %s sort %d limit %d offset %d, first", i, q, s, limit, offset))
						comparePages(t, sg, r, fmt.Sprintf("#%d %s sort %d limit %d offset %d", i, q, s, limit, offset))
					}
				}
			}
		}
	})
}

// TestFirstBitsFixes: where a segment's prefix term holds other words
// than the archive's choice, the FirstFile has the documents its bitset
// lacks and those it has too many (documents of one word each make both
// kinds), and first searches that count from the bitset corrected
// answer as the merged index does.
func TestFirstBitsFixes(t *testing.T) {
	base := buildSegmented(t, 900, 6, 4, func(rng *rand.Rand, i, _ int) *ingest.Document {
		return doc(10000+i, fmt.Sprintf("zq%03d", int(zqTitleWords*math.Pow(rng.Float64(), 2))), randomText(rng, 5))
	})
	if plus, minus := search.FirstFixes(withFirst(t, base).multi); plus <= 0 || minus <= 0 {
		t.Fatalf("%d corrections add documents, %d remove some", plus, minus)
	}
	for _, q := range []string{"zq*", "zq0*", "zq* heart"} {
		n, err := query.Parse(q)
		if err != nil {
			t.Fatal(err)
		}
		comparePages(t, withFirst(t, base), search.Request{Query: n, Limit: 10}, q)
	}
}

// TestReadFirstDamaged: a damaged FirstFile is refused, a missing one is
// none.
func TestReadFirstDamaged(t *testing.T) {
	sg := buildSegmented(t, 300, 3, 3, randomDoc)
	b, err := search.MakeFirst(context.Background(), []string{"a", "b", "c"}, sg.ss)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if f, err := search.ReadFirst(filepath.Join(dir, "none.bin")); f != nil || err != nil {
		t.Fatalf("a missing file: %v, %v", f, err)
	}
	for _, at := range []int{0, len(b) / 2, len(b) - 1} {
		bad := append([]byte{}, b...)
		bad[at] ^= 0x40
		path := filepath.Join(dir, fmt.Sprintf("bad%d.bin", at))
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := search.ReadFirst(path); err == nil {
			t.Errorf("byte %d flipped: read", at)
		}
	}
}

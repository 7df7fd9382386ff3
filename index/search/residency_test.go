package search

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/index/resident"
)

// residencyIndex writes and opens an index of some tens of MiB: 400 000
// documents, eight terms in every one of them.
func residencyIndex(t *testing.T) *Index {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "index.bin")
	w, err := NewWriter(path, dir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 400_000
	for range n {
		if err := w.AddDoc(DocValues{Year: 2020, License: "cc-by", Topics: []string{"t"}, Len: [NumFields]int{FieldTitle: 9}}); err != nil {
			t.Fatal(err)
		}
	}
	for _, term := range []string{"alpha", "beta", "delta", "epsilon", "eta", "gamma", "theta", "zeta"} {
		for d := range int32(n) {
			if err := w.AddPosting([]byte(term), d, FieldTitle, []uint32{1, 4, 8}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err := OpenFile(path, "test", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

var sink byte

// touch reads one byte of every page of b, as a search walking postings
// does, which maps the pages into the process.
func touch(b []byte) {
	for i := 0; i < len(b); i += 4096 {
		sink += b[i]
	}
}

func residentFile(t *testing.T) int64 {
	t.Helper()
	n, err := resident.FileBytes()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestResidencyBoundsResidentPages: walking a whole index maps all of it
// into the process's RSS; DropResident takes the pages out again; and with
// a Residency checked as the walk goes, the resident file pages never grow
// past the budget (plus what is touched between two checks).
func TestResidencyBoundsResidentPages(t *testing.T) {
	ix := residencyIndex(t)
	size := int64(len(ix.mm))
	if size < 16<<20 {
		t.Fatalf("index of %d bytes: too small for the test", size)
	}
	if _, err := resident.DropResident(); err != nil { // whatever the writer's page cache put in
		t.Fatal(err)
	}
	base := residentFile(t)
	touch(ix.mm)
	if grown := residentFile(t) - base; grown < size*8/10 {
		t.Fatalf("walking the %d-byte index grew resident file pages by %d only: cannot observe residency", size, grown)
	}
	advised, err := resident.DropResident()
	if err != nil || advised < size {
		t.Fatalf("DropResident = %d, %v; want >= %d", advised, err, size)
	}
	if left := residentFile(t) - base; left > size/10 {
		t.Fatalf("%d bytes still resident after DropResident (index %d)", left, size)
	}

	const chunk = 256 << 10
	r := &resident.Residency{Budget: size / 8}
	if _, err := r.Check(); err != nil { // takes the baseline
		t.Fatal(err)
	}
	start := residentFile(t)
	var peak int64
	for pass := 0; pass < 2; pass++ {
		for off := 0; off < len(ix.mm); off += chunk {
			touch(ix.mm[off:min(off+chunk, len(ix.mm))])
			peak = max(peak, residentFile(t)-start)
			if _, err := r.Check(); err != nil {
				t.Fatal(err)
			}
		}
	}
	// A touch maps a whole huge page where the page cache holds 2 MiB
	// folios, which the index writer's aligned writes leave.
	if limit := r.Budget + chunk + 2<<20 + 1<<20; peak > limit {
		t.Errorf("resident file pages grew by %d with a budget of %d (limit %d)", peak, r.Budget, limit)
	}
	if r.Drops() < 2*(size/r.Budget)-4 {
		t.Errorf("%d drops over two walks of %d bytes with a budget of %d", r.Drops(), size, r.Budget)
	}

	// A closed index is no longer advised.
	ix.Close()
	if advised, err := resident.DropResident(); err != nil || advised != 0 {
		t.Errorf("after Close, DropResident = %d, %v; want 0", advised, err)
	}
}

func TestResidencyDisabled(t *testing.T) {
	r := &resident.Residency{}
	r.Run(context.Background()) // returns at once without a budget
	if dropped, err := r.Check(); dropped || err != nil {
		t.Errorf("Check with no budget = %v, %v", dropped, err)
	}
}

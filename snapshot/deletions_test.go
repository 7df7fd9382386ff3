package snapshot

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

func TestDeletionsRoundTrip(t *testing.T) {
	for _, docs := range [][]int32{nil, {0}, {3, 7, 8, 1000}, {0, 1, 2, 3}} {
		path := filepath.Join(t.TempDir(), "d.bin")
		if err := WriteDeletions(path, docs); err != nil {
			t.Fatal(err)
		}
		got, err := ReadDeletions(path, 1001)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, docs) && len(got)+len(docs) > 0 {
			t.Errorf("read %v, wrote %v", got, docs)
		}
	}
}

func TestDeletionsRejects(t *testing.T) {
	good, err := EncodeDeletions([]int32{1, 5, 9})
	if err != nil {
		t.Fatal(err)
	}
	flip := func(i int) []byte {
		b := slices.Clone(good)
		b[i] ^= 1
		return b
	}
	for name, tc := range map[string]struct {
		b []byte
		n int32
	}{
		"empty":          {nil, 10},
		"magic":          {flip(0), 10},
		"count":          {flip(8), 10},
		"body":           {flip(16), 10},
		"checksum":       {flip(len(good) - 1), 10},
		"truncated":      {good[:len(good)-1], 10},
		"beyond segment": {good, 9},
	} {
		if _, err := DecodeDeletions(tc.b, tc.n); !errors.Is(err, ErrDeletions) {
			t.Errorf("%s: err %v, want ErrDeletions", name, err)
		}
	}
	for _, docs := range [][]int32{{2, 2}, {3, 1}, {-1}} {
		if _, err := EncodeDeletions(docs); !errors.Is(err, ErrDeletions) {
			t.Errorf("EncodeDeletions(%v): err %v, want ErrDeletions", docs, err)
		}
	}
}

func FuzzDecodeDeletions(f *testing.F) {
	good, _ := EncodeDeletions([]int32{0, 4, 5})
	f.Add(good, int32(6))
	f.Add([]byte(deletionsMagic), int32(0))
	f.Fuzz(func(t *testing.T, b []byte, n int32) {
		docs, err := DecodeDeletions(b, n)
		if err != nil {
			return
		}
		for i, d := range docs {
			if d < 0 || d >= n || i > 0 && d <= docs[i-1] {
				t.Fatalf("accepted %v for a segment of %d", docs, n)
			}
		}
	})
}

// ids is a segment's sorted id list.
type ids []string

func (s ids) Len() int            { return len(s) }
func (s ids) ID(doc int32) []byte { return []byte(s[doc]) }

// TestMergedNumbers checks MergedNumbers against the definition on random
// archives: segments of increasing ids where each later segment may
// replace documents of earlier ones (their copies are deleted) or delete
// them outright.
func TestMergedNumbers(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 200 {
		var segs [][]string
		var deleted [][]int32
		live := map[string][2]int{} // id -> (segment, doc) of its live copy
		for s := range 1 + rng.IntN(5) {
			set := map[string]bool{}
			for range rng.IntN(20) {
				set[fmt.Sprintf("pmc-%03d", rng.IntN(60))] = true
			}
			seg := slices.Sorted(func(yield func(string) bool) {
				for id := range set {
					if !yield(id) {
						return
					}
				}
			})
			segs = append(segs, seg)
			deleted = append(deleted, nil)
			kill := func(id string) {
				if at, ok := live[id]; ok {
					deleted[at[0]] = append(deleted[at[0]], int32(at[1]))
					delete(live, id)
				}
			}
			for d, id := range seg {
				kill(id)
				live[id] = [2]int{s, d}
			}
			for range rng.IntN(3) {
				kill(fmt.Sprintf("pmc-%03d", rng.IntN(60)))
			}
		}
		for s := range deleted {
			slices.Sort(deleted[s])
		}
		in := make([]SegmentIDs, len(segs))
		for s := range segs {
			in[s] = ids(segs[s])
		}
		got, n, err := MergedNumbers(in, deleted)
		if err != nil {
			t.Fatalf("round %d: %v", round, err)
		}
		all := slices.Sorted(func(yield func(string) bool) {
			for id := range live {
				if !yield(id) {
					return
				}
			}
		})
		if int(n) != len(all) {
			t.Fatalf("round %d: %d live documents, want %d", round, n, len(all))
		}
		num, err := NewNumbering(in, deleted)
		if err != nil {
			t.Fatal(err)
		}
		for k, id := range all {
			s, d := num.Locate(int32(k))
			if s < 0 || segs[s][d] != id || live[id] != [2]int{s, int(d)} || num.Merged(s, d) != int32(k) {
				t.Fatalf("round %d: Locate(%d) = %d, %d; want the live copy of %s, %v", round, k, s, d, id, live[id])
			}
		}
		if s, d := num.Locate(n); s != -1 || d != -1 {
			t.Errorf("round %d: Locate(Len()) = %d, %d", round, s, d)
		}
		for s, seg := range segs {
			for d, id := range seg {
				want, _ := slices.BinarySearch(all, id)
				if got[s][d] != int32(want) {
					t.Errorf("round %d: segment %d document %d (%s): number %d, want %d", round, s, d, id, got[s][d], want)
				}
			}
		}
	}
}

func TestMergedNumbersRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		segs    []SegmentIDs
		deleted [][]int32
	}{
		"live twice":      {[]SegmentIDs{ids{"a", "b"}, ids{"b"}}, [][]int32{nil, nil}},
		"unsorted":        {[]SegmentIDs{ids{"b", "a"}}, [][]int32{nil}},
		"deleted unknown": {[]SegmentIDs{ids{"a"}}, [][]int32{{1}}},
		"lists":           {[]SegmentIDs{ids{"a"}}, nil},
	} {
		if _, _, err := MergedNumbers(tc.segs, tc.deleted); !errors.Is(err, ErrDeletions) {
			t.Errorf("%s: err %v, want ErrDeletions", name, err)
		}
	}
}

// BenchmarkMergedNumbers numbers 1 000 000 documents spread over ten
// segments, each deleting 1 % of the earlier ones: what opening a
// segmented snapshot pays for its numbering.
func BenchmarkMergedNumbers(b *testing.B) {
	const n, segments = 1_000_000, 10
	all := make([]string, n)
	for i := range all {
		all[i] = fmt.Sprintf("pmc-%08d", i)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	in := make([]SegmentIDs, segments)
	parts := make([]ids, segments)
	for _, id := range all {
		s := rng.IntN(segments)
		parts[s] = append(parts[s], id)
	}
	deleted := make([][]int32, segments)
	for s := range parts {
		in[s] = parts[s]
		for d := 0; d < len(parts[s]) && s < segments-1; d += 100 {
			deleted[s] = append(deleted[s], int32(d))
		}
	}
	for b.Loop() {
		if _, _, err := MergedNumbers(in, deleted); err != nil {
			b.Fatal(err)
		}
	}
}

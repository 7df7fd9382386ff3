package content

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/openshelf/openshelf/snapshot"
)

// ids is a segment's sorted id list.
type ids []string

func (s ids) Len() int            { return len(s) }
func (s ids) ID(doc int32) []byte { return []byte(s[doc]) }

func open(t *testing.T, recs []record) *Reader {
	t.Helper()
	r, err := Open(writeStore(t, recs))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestMultiMatchesMerged builds stores in several runs of new, revised and
// deleted documents and checks that reading them as segments gives every
// part of every document as the store of one merged build does.
func TestMultiMatchesMerged(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	base := sampleRecords()[1]
	for round := range 10 {
		live := map[string]record{}
		where := map[string][2]int{}
		var segs []*Reader
		var segIDs []snapshot.SegmentIDs
		var deleted [][]int32
		kill := func(id string) {
			if at, ok := where[id]; ok {
				deleted[at[0]] = append(deleted[at[0]], int32(at[1]))
				delete(where, id)
				delete(live, id)
			}
		}
		for run := range 1 + rng.IntN(5) {
			touched := map[int]bool{}
			for range 3 + rng.IntN(20) {
				touched[rng.IntN(100)] = true
			}
			deleted = append(deleted, nil)
			var recs []record
			var names ids
			for _, n := range slices.Sorted(maps.Keys(touched)) {
				id := fmt.Sprintf("pmc-%03d", n)
				if run > 0 && rng.IntN(6) == 0 {
					kill(id)
					continue
				}
				kill(id)
				rec := base
				rec.doc.ID, rec.doc.Title = id, fmt.Sprintf("%s, run %d", id, run)
				rec.secs = base.secs[:rng.IntN(len(base.secs)+1)]
				rec.refs = base.refs[:rng.IntN(len(base.refs)+1)]
				where[id] = [2]int{run, len(recs)}
				live[id] = rec
				recs = append(recs, rec)
				names = append(names, id)
			}
			segs = append(segs, open(t, recs))
			segIDs = append(segIDs, names)
		}
		for i := range deleted {
			slices.Sort(deleted[i])
		}
		var all []record
		for _, id := range slices.Sorted(maps.Keys(live)) {
			all = append(all, live[id])
		}
		want := open(t, all)
		num, err := snapshot.NewNumbering(segIDs, deleted)
		if err != nil {
			t.Fatal(err)
		}
		got, err := NewMulti(segs, num)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != want.Len() {
			t.Fatalf("round %d: %d documents, want %d", round, got.Len(), want.Len())
		}
		for d := range want.Len() {
			for k := range parts {
				g, err1 := got.Part(d, k)
				w, err2 := want.Part(d, k)
				if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) {
					t.Fatalf("round %d: doc %d part %d differs (%v, %v)", round, d, k, err1, err2)
				}
			}
			if doc, err := got.Document(d); err != nil || doc.ID != all[d].doc.ID {
				t.Fatalf("round %d: doc %d: %v %v, want %s", round, d, doc, err, all[d].doc.ID)
			}
		}
		if _, err := got.Part(want.Len(), 0); err == nil {
			t.Errorf("round %d: a part beyond the documents was read", round)
		}
	}
}

func TestMultiRejectsMismatchedSegments(t *testing.T) {
	r := open(t, sampleRecords())
	num, err := snapshot.NewNumbering([]snapshot.SegmentIDs{ids{"a", "b"}}, [][]int32{nil})
	if err != nil {
		t.Fatal(err)
	}
	for _, segs := range [][]*Reader{nil, {r}, {r, r}} {
		if _, err := NewMulti(segs, num); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%d stores: err %v, want ErrCorrupt", len(segs), err)
		}
	}
}

package catalog

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/snapshot"
)

// segmented is an archive built in several runs: each run's catalog holds
// its new and revised documents, and the runs' deletions say which
// earlier copies are gone.
type segmented struct {
	segs    []*Reader
	deleted [][]int32
	live    map[string]Record   // id -> its live record
	aliases map[string][]string // id -> its live aliases
}

// buildSegments makes runs builds of random new, revised and deleted
// documents (ids pmc-N with alias pmid-N on some).
func buildSegments(t *testing.T, rng *rand.Rand, runs int) *segmented {
	s := &segmented{live: map[string]Record{}, aliases: map[string][]string{}}
	where := map[string][2]int{} // id -> (segment, doc) of its live copy
	kill := func(id string) {
		if at, ok := where[id]; ok {
			s.deleted[at[0]] = append(s.deleted[at[0]], int32(at[1]))
			delete(where, id)
			delete(s.live, id)
			delete(s.aliases, id)
		}
	}
	for run := range runs {
		touched := map[int]bool{}
		for range 5 + rng.IntN(40) {
			touched[rng.IntN(300)] = true
		}
		var recs []Record
		var aliases [][2]string
		for _, n := range slices.Sorted(maps.Keys(touched)) {
			id := fmt.Sprintf("pmc-%04d", n)
			if rng.IntN(8) == 0 && run > 0 {
				kill(id) // a deletion or retraction
				continue
			}
			rec := Record{ID: id, Title: fmt.Sprintf("Title of %s, run %d", id, run), Authors: []string{"A. Author"},
				Year: int32(1990 + n%30), Venue: []string{"", "Nature"}[n%2], Topics: []string{"biology", "physics"}[:1+n%2],
				License: "CC-BY", LicenseURL: "https://creativecommons.org/licenses/by/4.0/", Flags: byte(run % 4)}
			recs = append(recs, rec)
		}
		s.deleted = append(s.deleted, nil)
		for d, rec := range recs {
			kill(rec.ID) // a revision supersedes the live copy
			where[rec.ID] = [2]int{run, d}
			s.live[rec.ID] = rec
			if rng.IntN(2) == 0 {
				a := "pmid-" + rec.ID[4:]
				aliases = append(aliases, [2]string{a, rec.ID})
				s.aliases[rec.ID] = []string{a}
			}
		}
		slices.SortFunc(aliases, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
		r, _ := write(t, recs, aliases)
		s.segs = append(s.segs, r)
	}
	for i := range s.deleted {
		slices.Sort(s.deleted[i])
	}
	return s
}

// merged writes the one catalog of the live documents.
func (s *segmented) merged(t *testing.T) *Reader {
	var recs []Record
	var aliases [][2]string
	for _, id := range slices.Sorted(maps.Keys(s.live)) {
		recs = append(recs, s.live[id])
		for _, a := range s.aliases[id] {
			aliases = append(aliases, [2]string{a, id})
		}
	}
	slices.SortFunc(aliases, func(x, y [2]string) int { return strings.Compare(x[0], y[0]) })
	r, _ := write(t, recs, aliases)
	return r
}

// TestMultiMatchesMerged checks every answer of a catalog read over
// segments against the catalog of one merged build of the same live
// documents.
func TestMultiMatchesMerged(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		s := buildSegments(t, rng, 1+rng.IntN(6))
		want := s.merged(t)
		got, err := NewMulti(s.segs, s.deleted)
		if err != nil {
			t.Fatal(err)
		}
		if got.Len() != want.Len() {
			t.Fatalf("round %d: %d documents, want %d", round, got.Len(), want.Len())
		}
		for d := range int32(want.Len()) {
			g, err1 := got.Record(d)
			w, err2 := want.Record(d)
			if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) || string(got.ID(d)) != w.ID {
				t.Fatalf("round %d: doc %d: %+v (%v), want %+v (%v)", round, d, g, err1, w, err2)
			}
		}
		for n := range 305 {
			for _, name := range []string{fmt.Sprintf("pmc-%04d", n), fmt.Sprintf("pmid-%04d", n),
				fmt.Sprintf("pmc-%04d5", n)} {
				if g, w := got.Find(name), want.Find(name); g != w {
					t.Errorf("round %d: Find(%s) = %d, want %d", round, name, g, w)
				}
				if g, w := got.After(name), want.After(name); g != w {
					t.Errorf("round %d: After(%s) = %d, want %d", round, name, g, w)
				}
				if g, w := got.Lookup(name), want.Lookup(name); g != w {
					t.Errorf("round %d: Lookup(%s) = %d, want %d", round, name, g, w)
				}
			}
		}
		if g, w := got.After(""), want.After(""); g != w {
			t.Errorf("round %d: After(\"\") = %d, want %d", round, g, w)
		}
	}
}

func TestMultiRejectsInconsistentSegments(t *testing.T) {
	recs := sample(3)
	a, _ := write(t, recs, nil)
	b, _ := write(t, recs[1:2], nil)
	// recs[1] is live in both segments: the older copy is not deleted.
	if _, err := NewMulti([]*Reader{a, b}, [][]int32{nil, nil}); !errors.Is(err, snapshot.ErrDeletions) {
		t.Fatalf("err %v, want ErrDeletions", err)
	}
	m, err := NewMulti([]*Reader{a, b}, [][]int32{{1}, nil})
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || m.Find(recs[1].ID) != 1 {
		t.Fatalf("Len %d, Find %d; want 3 and 1", m.Len(), m.Find(recs[1].ID))
	}
}

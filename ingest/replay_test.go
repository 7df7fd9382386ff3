package ingest

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestReplay checks that a Merger fed another Merger's replay merges as
// the other would: same documents, same deletions applied, in the same
// order of arrival.
func TestReplay(t *testing.T) {
	doc := func(pmc, pmid int, title string, src string, updated int) *Document {
		d := &Document{PMCID: fmt.Sprint(pmc), PMID: fmt.Sprint(pmid), Title: title, Sources: []string{src},
			Updated: time.Date(2026, 1, 1, updated, 0, 0, 0, time.UTC)}
		d.AssignIDs()
		return d
	}
	feed := func(s Sink) {
		s.Document(doc(1, 11, "one", "jats:pmc", 1))
		s.Document(doc(2, 12, "two", "pubmed", 1))
		s.Delete(Deletion{ID: "pmid-12"})
		s.Document(doc(4, 14, "four", "pubmed", 2))
		s.Document(doc(3, 13, "three", "openalex", 1))
		s.Document(doc(1, 11, "one, newer", "jats:pmc", 3))
		s.Delete(Deletion{ID: "pmid-13"})
		s.Delete(Deletion{ID: "pmid-99"})
	}
	each := func(m *Merger) []string {
		var out []string
		if err := m.Each(context.Background(), func(d *Document) error {
			out = append(out, d.ID+" "+d.Title)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	newMerger := func() *Merger {
		m, err := NewMerger(MergeConfig{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
		return m
	}
	direct, run, replayed := newMerger(), newMerger(), newMerger()
	feed(direct)
	feed(run)
	var ids []string
	if err := run.IDs(func(id string) error { ids = append(ids, id); return nil }); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	for _, id := range []string{"pmc-1", "pmid-11", "pmid-13", "pmid-99"} {
		if _, found := slices.BinarySearch(ids, id); !found {
			t.Errorf("IDs misses %s: %q", id, ids)
		}
	}
	if err := run.Replay(context.Background(), replayed); err != nil {
		t.Fatal(err)
	}
	want, got := each(direct), each(replayed)
	if !reflect.DeepEqual(got, want) || len(want) != 2 {
		// one and four: two and three are deleted
		t.Errorf("replayed %q, want %q", got, want)
	}
}

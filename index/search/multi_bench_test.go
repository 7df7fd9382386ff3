package search_test

// BenchmarkSegments: search with the archive in segments against one
// merged index of the same live documents (BENCHMARKS.md, "Search across
// segments"):
//
//	go test ./index/search -run XXX -bench Segments -benchtime 400x -bench.n 100000 -bench.segs 10 -bench.dir /tmp/segbench
//
// The first segment holds 55 % of the generated documents, each later
// one its share of the rest plus revisions of 1 % of the live documents
// (the same id, the words of another generated document) and deletions
// of 0.5 %. With -bench.dir the builds are kept there and reused.

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	gencorpus "github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

var benchSegs = flag.Int("bench.segs", 10, "segments of BenchmarkSegments")

// segBench is the merged index and the segments of one generated archive.
type segBench struct {
	bc    *benchCorpus // the merged index (queries are made from its generator)
	multi *search.Multi
	segs  int
}

var openSegBench = sync.OnceValues(func() (*segBench, error) {
	ctx := context.Background()
	gen, its, dir, err := benchSetup(ctx, "search-segbench-")
	if err != nil {
		return nil, err
	}
	n, segs := *benchN, *benchSegs
	batches, final := segmentPlan(gen, n, segs)
	var mergedID string
	open := func(name string, docs []*ingest.Document) (*search.Index, error) {
		d := filepath.Join(dir, fmt.Sprintf("%d-%d", n, segs), name)
		if _, err := snapshot.Open(d); err != nil {
			start := time.Now()
			if err := buildDocs(ctx, d, its, docs); err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "%s: %d documents built in %v\n", name, len(docs), time.Since(start).Round(time.Millisecond))
		}
		snap, err := snapshot.Open(d)
		if err != nil {
			return nil, err
		}
		if name == "merged" {
			mergedID = snap.ID // cursors name the snapshot: both name the same
		}
		ix, err := search.Open(snap, nil, search.Options{})
		if err == nil && ix.Len() != len(docs) {
			err = fmt.Errorf("%s: %d documents indexed of %d", name, ix.Len(), len(docs))
		}
		return ix, err
	}
	merged, err := open("merged", final)
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(final))
	for i, d := range final {
		ids[i] = d.ID
	}
	live := map[string]int{} // id -> the segment of its live version
	for b, batch := range batches {
		for _, d := range batch {
			live[d.ID] = b
		}
	}
	var ss []search.Segment
	for b, batch := range batches {
		ix, err := open(fmt.Sprintf("seg%02d", b), batch)
		if err != nil {
			return nil, err
		}
		s := search.Segment{Index: ix, Docs: make([]int32, len(batch))}
		for l, d := range batch {
			i := sort.SearchStrings(ids, d.ID)
			s.Docs[l] = int32(i)
			if i == len(ids) || ids[i] != d.ID || live[d.ID] != b {
				s.Deleted = append(s.Deleted, int32(l))
			}
		}
		ss = append(ss, s)
		fmt.Fprintf(os.Stderr, "seg%02d: %d documents, %d superseded or deleted\n", b, len(batch), len(s.Deleted))
	}
	cs := make(cites, merged.Len())
	for d := range cs {
		if cs[d], _, _, err = merged.CitedBy(ctx, int32(d), merged.Len(), ""); err != nil {
			return nil, err
		}
	}
	m, err := search.NewMulti(mergedID, ss, cs)
	if err != nil {
		return nil, err
	}
	return &segBench{bc: &benchCorpus{ix: merged, gen: gen, n: merged.Len()}, multi: m, segs: segs}, nil
})

// segmentPlan splits n generated documents into segs builds (each sorted
// by id) and returns them with the final live documents.
func segmentPlan(gen *gencorpus.Generator, n, segs int) (batches [][]*ingest.Document, final []*ingest.Document) {
	rng := rand.New(rand.NewPCG(3, 3))
	liveDocs := map[string]*ingest.Document{}
	first := n * 55 / 100
	next := 0
	for b := range segs {
		count := first
		if b > 0 {
			count = (n - first) / max(segs-1, 1)
			if b == segs-1 {
				count = n - next
			}
		}
		var batch []*ingest.Document
		if b > 0 {
			ids := slices.Sorted(func(yield func(string) bool) {
				for id := range liveDocs {
					if !yield(id) {
						return
					}
				}
			})
			for _, id := range ids {
				switch k := rng.IntN(1000); {
				case k < 10: // revised: the words of another document
					old := liveDocs[id]
					var i int
					fmt.Sscan(old.PMCID, &i)
					d := gen.Doc(i - gencorpus.FirstPMCID)
					alt := gen.Doc(min(n+i-gencorpus.FirstPMCID, gencorpus.MaxDocuments))
					d.Title, d.Abstract, d.Keywords = alt.Title, alt.Abstract, alt.Keywords
					d.AssignIDs()
					batch = append(batch, d)
				case k < 15:
					delete(liveDocs, id)
				}
			}
		}
		for range count {
			d := gen.Doc(next)
			d.AssignIDs()
			batch = append(batch, d)
			next++
		}
		slices.SortFunc(batch, func(a, b *ingest.Document) int { return strings.Compare(a.ID, b.ID) })
		for _, d := range batch {
			liveDocs[d.ID] = d
		}
		batches = append(batches, batch)
	}
	for _, d := range liveDocs {
		final = append(final, d)
	}
	slices.SortFunc(final, func(a, b *ingest.Document) int { return strings.Compare(a.ID, b.ID) })
	return batches, final
}

// buildDocs publishes docs (in id order) as a fresh snapshot in dir.
func buildDocs(ctx context.Context, dir string, topics []index.Topic, docs []*ingest.Document) error {
	b, err := index.NewBuilder(index.Config{DataDir: dir, Fresh: true, Topics: topics, Now: testNow})
	if err != nil {
		return err
	}
	defer b.Abort()
	for _, d := range docs {
		if err := b.Add(d); err != nil {
			return err
		}
	}
	_, err = b.Finish(ctx)
	return err
}

// BenchmarkSegments times each class of queries on the merged index and
// on the segments, one query at a time (CPU time of this thread), after
// checking that both answer every query alike.
func BenchmarkSegments(b *testing.B) {
	sb, err := openSegBench()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	type searcher func(context.Context, search.Request) (search.Result, error)
	sides := []struct {
		name string
		run  searcher
	}{{"merged", sb.bc.ix.Search}, {fmt.Sprintf("segments-%d", sb.segs), sb.multi.Search}}
	for _, class := range []string{"word", "and", "and3", "phrase", "boolean", "prefix", "stem", "faceted", "year", "cited", "listing-topic"} {
		qs := sb.queries(class, 200)
		for _, r := range qs {
			want, err := sb.bc.ix.Search(ctx, r)
			if err != nil {
				b.Fatal(err)
			}
			got, err := sb.multi.Search(ctx, r)
			if err != nil || !identicalResult(got, want) {
				b.Fatalf("%s %s: the segments answer otherwise (%v):\n%+v\n%+v", class, show(r.Query), err, got, want)
			}
		}
		for _, side := range sides {
			b.Run(class+"/"+side.name, func(b *testing.B) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				var cpus []time.Duration
				for i := 0; b.Loop(); i++ {
					start := threadCPU()
					if _, err := side.run(ctx, qs[i%len(qs)]); err != nil {
						b.Fatal(err)
					}
					cpus = append(cpus, threadCPU()-start)
				}
				reportPercentiles(b, cpus)
			})
		}
	}
}

// queries are bench queries of a class, and the classes only segments
// add: stemmed words, sort by cited-by, a topic's listing at depth.
func (sb *segBench) queries(class string, k int) []search.Request {
	switch class {
	case "stem":
		qs := sb.bc.queries("word", k)
		for i := range qs {
			qs[i].Stem = true
		}
		return qs
	case "cited":
		qs := sb.bc.queries("word", k)
		for i := range qs {
			qs[i].Sort = search.ByCitedBy
		}
		return qs
	case "listing-topic":
		rng := rand.New(rand.NewPCG(11, 11))
		topics := sb.bc.ix.Topics()
		var qs []search.Request
		for range k {
			t := topics[rng.IntN(len(topics))]
			n := len(sb.bc.ix.TopicDocs(t))
			qs = append(qs, search.Request{Where: map[string][]string{search.FacetTopic: {t}}, Limit: 10, Offset: rng.IntN(max(n, 1))})
		}
		return qs
	}
	return sb.bc.queries(class, k)
}

// TestSegmentPlan: the bench's split revises and deletes documents and
// keeps every live one once.
func TestSegmentPlan(t *testing.T) {
	gen, _, err := benchGenerator(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	batches, final := segmentPlan(gen, 5000, 10)
	total := 0
	for _, b := range batches {
		total += len(b)
	}
	if len(batches) != 10 || total <= 5000 || len(final) >= 5000 || !slices.IsSortedFunc(final, func(a, b *ingest.Document) int { return cmp.Compare(a.ID, b.ID) }) {
		t.Fatalf("%d batches of %d documents, %d live", len(batches), total, len(final))
	}
}

// benchSetup returns benchGenerator's and the data directory of the
// benchmark: -bench.dir, or a temporary one named prefix.
func benchSetup(ctx context.Context, prefix string) (*gencorpus.Generator, []index.Topic, string, error) {
	gen, its, err := benchGenerator(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	dir := *benchDir
	if dir == "" {
		dir, err = os.MkdirTemp("", prefix)
	}
	return gen, its, dir, err
}

// benchGenerator is the document generator of openshelf bench (seed 1,
// its vocabulary) and the taxonomy of its topics.
func benchGenerator(ctx context.Context) (*gencorpus.Generator, []index.Topic, error) {
	fx, err := fixtures.Find()
	if err != nil {
		return nil, nil, err
	}
	vocab, err := gencorpus.ReadVocabulary(ctx, gencorpus.VocabularyConfig{}, fx)
	if err != nil {
		return nil, nil, err
	}
	slugs, its, err := gencorpus.DefaultTopics()
	if err != nil {
		return nil, nil, err
	}
	gen, err := gencorpus.New(vocab, gencorpus.Config{Seed: 1, Topics: slugs})
	return gen, its, err
}

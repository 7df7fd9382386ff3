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
// of 0.5 %; each later one joins those before it, as a delta build's new
// segment joins the previous snapshot's (index.Config.JoinSegments). With -bench.dir the builds are kept there and reused. The
// first-search classes search each query once, on a fresh merged index
// and fresh segments, which use the search.FirstFile a delta build would
// write (made after the builds; -bench.first=false: none).

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"iter"
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
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	gencorpus "github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

var (
	benchSegs  = flag.Int("bench.segs", 10, "segments of BenchmarkSegments")
	benchFirst = flag.Bool("bench.first", true, "BenchmarkSegments: the segments use what the newest segment's build wrote for first searches (search.FirstFile)")
)

// segBench is the merged index and the segments of one generated archive.
type segBench struct {
	bc    *benchCorpus // the merged index (queries are made from its generator)
	multi *search.Multi
	segs  int
	// fresh opens the merged index and the segments again, as new
	// instances with none of the caches the searches before filled,
	// their files mapped in full; done closes them.
	fresh func() (merged *search.Index, m *search.Multi, done func(), err error)
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
	path := func(name string) string { return filepath.Join(dir, fmt.Sprintf("%d-%d", n, segs), name) }
	// open builds docs as a snapshot of its own named name, unless
	// -bench.dir has it, joining the segments named join as a delta
	// build's new segment does (its word pairs follow theirs).
	open := func(name string, docs []*ingest.Document, join []string) (*search.Index, error) {
		d := path(name)
		if _, err := snapshot.Open(d); err != nil {
			start := time.Now()
			if err := buildDocs(ctx, d, its, docs, join); err != nil {
				return nil, err
			}
			fmt.Fprintf(os.Stderr, "%s: %d documents built in %v\n", name, len(docs), time.Since(start).Round(time.Millisecond))
		}
		ix, id, err := openSegIndex(d, false)
		if name == "merged" {
			mergedID = id // cursors name the snapshot: both name the same
		}
		if err == nil && ix.Len() != len(docs) {
			err = fmt.Errorf("%s: %d documents indexed of %d", name, ix.Len(), len(docs))
		}
		return ix, err
	}
	merged, err := open("merged", final, nil)
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
	var built []string
	for b, batch := range batches {
		name := fmt.Sprintf("seg%02d", b)
		ix, err := open(name, batch, built)
		if err != nil {
			return nil, err
		}
		snap, err := snapshot.Open(path(name))
		if err != nil {
			return nil, err
		}
		built = append(built, snap.Dir)
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
	// What a delta build writes beside its new segment's index, here
	// beside the builds (the segments are built as snapshots of their
	// own).
	names := make([]string, len(batches))
	for b := range names {
		names[b] = fmt.Sprintf("seg%02d", b)
	}
	firstPath := path("first.bin")
	if _, err := os.Stat(firstPath); err != nil {
		start, cpu := time.Now(), cpuTime()
		b, err := search.MakeFirst(ctx, names, ss)
		if err == nil {
			err = os.WriteFile(firstPath, b, 0o644)
		}
		if err != nil {
			return nil, err
		}
		st, _ := os.Stat(firstPath)
		fmt.Fprintf(os.Stderr, "%s: %d bytes written in %v (CPU %v)\n", search.FirstFile, st.Size(), time.Since(start).Round(time.Millisecond), time.Duration(cpuTime()-cpu).Round(time.Millisecond))
	}
	useFirst := func(m *search.Multi) error {
		if !*benchFirst {
			return nil
		}
		f, err := search.ReadFirst(firstPath)
		if err != nil {
			return err
		}
		if !m.UseFirst(f, names) {
			return fmt.Errorf("%s does not match the segments", firstPath)
		}
		return nil
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
	if err := useFirst(m); err != nil {
		return nil, err
	}
	fresh := func() (*search.Index, *search.Multi, func(), error) {
		var opened []*search.Index
		done := func() {
			for _, ix := range opened {
				ix.Close()
			}
		}
		ix, _, err := openSegIndex(path("merged"), true)
		if err != nil {
			return nil, nil, done, err
		}
		opened = append(opened, ix)
		ss := slices.Clone(ss)
		for b := range ss {
			if ss[b].Index, _, err = openSegIndex(path(fmt.Sprintf("seg%02d", b)), true); err != nil {
				return nil, nil, done, err
			}
			opened = append(opened, ss[b].Index)
		}
		m, err := search.NewMulti(mergedID, ss, cs)
		if err == nil {
			err = useFirst(m)
		}
		return ix, m, done, err
	}
	return &segBench{bc: &benchCorpus{ix: merged, gen: gen, n: merged.Len()}, multi: m, segs: segs, fresh: fresh}, nil
})

// openSegIndex opens the index of the snapshot in dir (mapped in full with
// populate) and returns it with the snapshot's id.
func openSegIndex(dir string, populate bool) (*search.Index, string, error) {
	snap, err := snapshot.Open(dir)
	if err != nil {
		return nil, "", err
	}
	ix, err := search.Open(snap, nil, search.Options{Populate: populate})
	return ix, snap.ID, err
}

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

// buildDocs publishes docs (in id order) as a fresh snapshot in dir, a
// segment that joins the segments in the directories join
// (index.Config.JoinSegments).
func buildDocs(ctx context.Context, dir string, topics []index.Topic, docs []*ingest.Document, join []string) error {
	b, err := index.NewBuilder(index.Config{DataDir: dir, Fresh: true, Topics: topics, Now: testNow, JoinSegments: join})
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
// checking that both answer every query alike: the repeated classes in
// the timed loop, the first-search classes each query once on fresh
// instances (searchOnce), whatever -benchtime.
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
		sb.sameAnswers(b, class, qs)
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
	for class, qs := range sb.firstSearches(200) {
		sb.sameAnswers(b, class, qs)
		cpus, err := sb.searchOnce(ctx, qs)
		if err != nil {
			b.Fatal(err)
		}
		for i, side := range sides {
			// Each query was searched once, whatever b.N: the sub-benchmark
			// reports those searches.
			b.Run(class+"/"+side.name, func(b *testing.B) {
				reportPercentiles(b, slices.Clone(cpus[i]))
				b.ReportMetric(float64(sum(cpus[i]))/float64(len(cpus[i])), "ns/op")
			})
		}
	}
}

// The first-search classes (openshelf bench's, bench/first.go): distinct
// prefixes of 2 to 5 letters of words drawn from titles and abstracts,
// alone and with one of the 200 most frequent words, and phrases of 2 or
// 3 words all frequent (stop words aside).
const (
	firstPrefix  = "first-prefix"
	firstPrefix2 = "first-prefix-word"
	firstPhrase  = "first-phrase"
)

// sameAnswers fails the benchmark unless the segments answer each query
// of a class exactly as the merged index does.
func (sb *segBench) sameAnswers(b *testing.B, class string, qs []search.Request) {
	b.Helper()
	ctx := context.Background()
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
}

// firstSearches returns per distinct queries of each first-search
// class, none in another class.
func (sb *segBench) firstSearches(per int) iter.Seq2[string, []search.Request] {
	rng := rand.New(rand.NewPCG(13, 13))
	doc := func() *ingest.Document { return sb.bc.gen.Doc(rng.IntN(sb.bc.n)) }
	// The frequent words: in at least 1 % of a sample's documents.
	df := map[string]int{}
	const sample = 2000
	for range sample {
		d := doc()
		for _, t := range slices.Compact(slices.Sorted(slices.Values(tokenize.Terms(d.Title + " " + d.Abstract)))) {
			df[t]++
		}
	}
	var frequent []string
	for t, c := range df {
		if c >= sample/100 && plainBenchWord(t) {
			frequent = append(frequent, t)
		}
	}
	slices.SortFunc(frequent, func(a, b string) int { return cmp.Or(df[b]-df[a], strings.Compare(a, b)) })
	isFrequent := map[string]bool{}
	for _, t := range frequent {
		isFrequent[t] = true
	}
	frequent = frequent[:min(200, len(frequent))]
	text := func() string {
		if d := doc(); rng.IntN(2) == 0 {
			return d.Title
		} else {
			return d.Abstract
		}
	}
	prefix := func() *query.Term {
		ts := tokenize.Terms(text())
		if len(ts) == 0 {
			return nil
		}
		w, n := ts[rng.IntN(len(ts))], 2+rng.IntN(4)
		if len(w) <= n || !plainBenchWord(w) {
			return nil
		}
		return &query.Term{Word: w[:n], Prefix: true}
	}
	mk := map[string]func() query.Node{
		firstPrefix: func() query.Node {
			if p := prefix(); p != nil {
				return p
			}
			return nil
		},
		firstPrefix2: func() query.Node {
			if p := prefix(); p != nil && len(frequent) > 0 {
				return &query.And{Children: []query.Node{p, &query.Term{Word: frequent[rng.IntN(len(frequent))]}}}
			}
			return nil
		},
		firstPhrase: func() query.Node {
			toks := tokenize.Tokens(text())
			k := 2 + rng.IntN(2)
			if len(toks) < k {
				return nil
			}
			i := rng.IntN(len(toks) - k + 1)
			ws := toks[i : i+k]
			if tokenize.IsStopWord(ws[0]) || tokenize.IsStopWord(ws[k-1]) {
				return nil
			}
			for _, w := range ws {
				if !tokenize.IsStopWord(w) && (!isFrequent[w] || !plainBenchWord(w)) {
					return nil
				}
			}
			return &query.Phrase{Words: slices.Clone(ws)}
		},
	}
	seen := map[string]bool{}
	return func(yield func(string, []search.Request) bool) {
		for _, class := range []string{firstPrefix, firstPrefix2, firstPhrase} {
			var qs []search.Request
			for tries := 0; len(qs) < per && tries < 1000*per; tries++ {
				n := mk[class]()
				if n == nil || seen[show(n)] {
					continue
				}
				seen[show(n)] = true
				qs = append(qs, search.Request{Query: n, Limit: 10})
			}
			if !yield(class, qs) {
				return
			}
		}
	}
}

// plainBenchWord is a word every tokeniser sees the same way (as
// openshelf bench draws them).
func plainBenchWord(w string) bool {
	if tokenize.IsStopWord(w) || len(w) < 2 {
		return false
	}
	for _, c := range w {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9' || len(w) < 3) {
			return false
		}
	}
	return true
}

// searchOnce searches each of qs once on a fresh merged index and fresh
// segments (new instances, none of whose caches a search filled, their
// files mapped in full), alternating which side goes first, and returns
// each side's CPU times on this thread. Both first answer one query of
// the class word, as a server has answered others before.
func (sb *segBench) searchOnce(ctx context.Context, qs []search.Request) ([2][]time.Duration, error) {
	var cpus [2][]time.Duration
	ix, m, done, err := sb.fresh()
	defer done()
	if err != nil {
		return cpus, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	run := [2]func(context.Context, search.Request) (search.Result, error){ix.Search, m.Search}
	warm := sb.queries("word", 1)[0]
	for _, f := range run {
		if _, err := f(ctx, warm); err != nil {
			return cpus, err
		}
	}
	for i, r := range qs {
		for j := range 2 {
			side := (i + j) % 2
			start := threadCPU()
			if _, err := run[side](ctx, r); err != nil {
				return cpus, err
			}
			cpus[side] = append(cpus[side], threadCPU()-start)
		}
	}
	return cpus, nil
}

func sum(ds []time.Duration) time.Duration {
	var t time.Duration
	for _, d := range ds {
		t += d
	}
	return t
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

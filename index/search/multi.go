package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"sync"
)

// Segment is one segment of a snapshot's index, as a Multi searches it:
// the index of the segment's own documents (numbered in canonical id
// order within the segment), the ones later segments supersede or
// delete, and where each document stands among all.
type Segment struct {
	Index *Index
	// Deleted are the segment's documents that a later segment
	// supersedes or deletes, increasing.
	Deleted []int32
	// Docs gives, for each document of the segment, the number of live
	// documents of all segments whose canonical id sorts before its
	// own: for a live document, its number in the merged order (the doc
	// a fully merged build gives it); a deleted document's entry counts
	// the same way (its replacement's number), so Docs never decreases.
	// Nil means the identity, for a lone segment without deletions.
	Docs []int32
}

// Citations are the archive's citations between live documents, in
// merged document numbers: a property of the whole archive, which no
// segment's index alone holds (each has only the citations among its
// own documents).
type Citations interface {
	// Count is the number of live documents citing doc.
	Count(doc int32) int32
	// Citing lists the live documents citing doc, increasing.
	Citing(doc int32) []int32
}

// ErrSegments reports segments that do not make one archive: a deleted
// list or a Docs map out of order, or live documents that do not number
// 0..Len()-1 once each.
var ErrSegments = errors.New("search: inconsistent segments")

// Multi answers requests over the segments of one snapshot as one index
// of their live documents would (one fully merged build of them): the
// same totals, facet counts, scores to the bit, order, cursors and
// cited-by pages. Hits and cursors number documents in the merged order;
// Locate finds a hit's segment. It is safe for concurrent use while its
// indexes are open.
type Multi struct {
	snap  string
	segs  []*mseg
	n     int32 // live documents
	cites Citations
	// lone is the one segment of a snapshot without deletions, searched
	// as it is (Multi is then a thin wrapper).
	lone *Index
	// cache keeps the terms and expansions over the segments and the
	// segments' expansions, the same for every request (segment.go).
	cache multiCache
	// topicDocs keeps each topic's live documents (liveTopicDocs).
	topicDocs sync.Map
	// freqPool has decoded frequencies that searches reuse (segment.go).
	freqPool sync.Pool
	// unionPool has union iterators that searches reuse (multipool.go).
	unionPool sync.Pool
	// slabPool has the lists of expansions that searches reuse
	// (multipool.go).
	slabPool sync.Pool
	// facetCodes maps the segments' licence and topic codes (codes).
	codesOnce  sync.Once
	facetCodes *facetCodes
	// firstExps are the prefixes' expansions of the snapshot's
	// FirstFile, encoded (multifirst.go); nil without one.
	firstExps map[string][]byte
	// order is the segments' order of search, the largest first: its
	// best matches make a floor that prunes the others' (floorOf).
	order []int
}

// mseg is a segment and what its searches need.
type mseg struct {
	Segment
	del []uint64 // Deleted as bits; nil if none
	// delRank counts the deleted documents before each word of del
	// (delRanks).
	delRank []int32
	st      stats // the live documents' statistics, with the segment's bound scale
	// delDF caches, per term, how many of its list's documents are
	// deleted (liveDFRec); emptied when it holds delDFMax terms.
	mu    sync.Mutex
	delDF map[int64]int64 // term id << 8 | field mask -> deleted documents
	// counters are the lists countDeleted reuses (delCounter).
	counters sync.Pool
	// live keeps, the same way, the live documents of lists scanned
	// alone (listTotal).
	live map[int64]int64
	// first is the segment in the snapshot's FirstFile, nil without one
	// (multifirst.go).
	first *firstSeg
	// cited are the cited-by counts of the segment's documents, made on
	// the first search sorted by them (citedCounts).
	citedOnce sync.Once
	cited     []int32
	// orders are the heads of the live documents in each sort's order,
	// made on the first search sorted so (multiorder.go).
	orderOnce [ByCitedBy + 1]sync.Once
	orders    [ByCitedBy + 1]*keyOrder
}

// delDFMax bounds the terms whose deleted documents a segment remembers.
const delDFMax = 1 << 20

// NewMulti returns the search over segs, oldest first, of snapshot
// snapID (which cursors name). cites gives the archive's citations; it
// may be nil only for one segment without deletions, whose own citation
// lists are the archive's.
func NewMulti(snapID string, segs []Segment, cites Citations) (*Multi, error) {
	m := &Multi{snap: snapID, cites: cites}
	if len(segs) == 1 && len(segs[0].Deleted) == 0 && cites == nil && identity(segs[0].Docs) {
		m.lone, m.n = segs[0].Index, segs[0].Index.n
		return m, nil
	}
	if cites == nil {
		return nil, fmt.Errorf("%w: the archive's citations are needed", ErrSegments)
	}
	var live int64
	var sum [NumFields]int64
	for i, s := range segs {
		ix := s.Index
		if s.Docs == nil && (len(segs) > 1 || len(s.Deleted) > 0) {
			return nil, fmt.Errorf("%w: segment %d has no merged numbers", ErrSegments, i)
		}
		if s.Docs != nil && len(s.Docs) != int(ix.n) || !validDocs(s.Deleted, ix.n) {
			return nil, fmt.Errorf("%w: segment %d", ErrSegments, i)
		}
		g := &mseg{Segment: s, delDF: map[int64]int64{}}
		if g.Docs == nil {
			g.Docs = make([]int32, ix.n)
			for d := range g.Docs {
				g.Docs[d] = int32(d)
			}
		}
		if len(s.Deleted) > 0 {
			g.del = make([]uint64, setBytes(ix.n)/8)
		}
		for f := range NumFields {
			// The writer's average is float64(sum)/float64(n): the
			// product gives the sum back exactly below 2^50 tokens.
			sum[f] += int64(math.Round(ix.avgLen[f] * float64(ix.n)))
		}
		for _, d := range s.Deleted {
			g.del[d>>6] |= 1 << (d & 63)
			for f := range NumFields {
				sum[f] -= int64(ix.lens.of(d, f))
			}
		}
		if g.del != nil {
			g.delRank = delRanks(g.del)
		}
		live += int64(ix.n) - int64(len(s.Deleted))
		m.segs = append(m.segs, g)
	}
	if live > math.MaxInt32-1 {
		return nil, fmt.Errorf("%w: %d documents", ErrSegments, live)
	}
	m.n = int32(live)
	if err := m.checkDocs(); err != nil {
		return nil, err
	}
	var avg [NumFields]float64
	for f := range NumFields {
		if m.n > 0 {
			avg[f] = float64(sum[f]) / float64(m.n)
		}
	}
	for i, g := range m.segs {
		g.st = newStats(float64(m.n), avg)
		g.st.bscale = bscaleOf(g.Index.avgLen, avg)
		m.order = append(m.order, i)
	}
	slices.SortStableFunc(m.order, func(a, b int) int { return cmp.Compare(m.segs[b].Index.n, m.segs[a].Index.n) })
	return m, nil
}

// identity reports whether docs is nil or numbers each doc as itself.
func identity(docs []int32) bool {
	for i, d := range docs {
		if d != int32(i) {
			return false
		}
	}
	return true
}

// checkDocs checks that the segments' Docs never decrease and number the
// live documents 0..n-1 once each.
func (m *Multi) checkDocs() error {
	seen := make([]uint64, setBytes(m.n)/8)
	for i, g := range m.segs {
		prev := int32(0)
		for d, x := range g.Docs {
			if x < prev || x > m.n {
				return fmt.Errorf("%w: segment %d numbers its document %d %d", ErrSegments, i, d, x)
			}
			prev = x
			if g.deleted(int32(d)) {
				continue
			}
			if x == m.n || seen[x>>6]&(1<<(x&63)) != 0 {
				return fmt.Errorf("%w: document number %d given twice or out of range", ErrSegments, x)
			}
			seen[x>>6] |= 1 << (x & 63)
		}
	}
	return nil
}

// before is the segment's last document numbered at most doc (a
// merged number), -1 if none: its documents ranking after a match of
// doc with the same key are those after it.
func (g *mseg) before(doc int32) int32 {
	return int32(sort.Search(len(g.Docs), func(i int) bool { return g.Docs[i] > doc })) - 1
}

// citedCounts returns the cited-by counts of the segment's documents
// (cites' of their merged numbers; a deleted document's are never read),
// made once: a search sorted by them reads the count of each match,
// which the archive's table gives by its merged number, found in Docs.
// They take 4 bytes a document, as the archive's table does.
func (g *mseg) citedCounts(cites Citations) []int32 {
	g.citedOnce.Do(func() {
		g.cited = make([]int32, len(g.Docs))
		for d, x := range g.Docs {
			if !g.deleted(int32(d)) {
				g.cited[d] = cites.Count(x)
			}
		}
	})
	return g.cited
}

func (g *mseg) deleted(d int32) bool { return g.del != nil && g.del[d>>6]&(1<<(d&63)) != 0 }

// Len is the number of live documents.
func (m *Multi) Len() int { return int(m.n) }

// Locate returns the segment and the document within it of doc, a
// merged document number; -1, -1 if there is none.
func (m *Multi) Locate(doc int32) (seg int, local int32) {
	if m.lone != nil {
		if doc < 0 || doc >= m.n {
			return -1, -1
		}
		return 0, doc
	}
	for s, g := range m.segs {
		for i := sort.Search(len(g.Docs), func(i int) bool { return g.Docs[i] >= doc }); i < len(g.Docs) && g.Docs[i] == doc; i++ {
			if !g.deleted(int32(i)) {
				return s, int32(i)
			}
		}
	}
	return -1, -1
}

// Search runs a request over the segments: see Index.Search, of which it
// gives the answer over the live documents of all segments. Each
// segment's best matches, one more than the page needs (whether another
// page follows), are merged by the sort key, ties by merged number.
func (m *Multi) Search(ctx context.Context, r Request) (Result, error) {
	if m.lone != nil {
		return m.lone.search(ctx, r, m.snap)
	}
	after, err := checkRequest(&r, m.snap)
	if err != nil {
		return Result{}, err
	}
	if res, ok := m.catalogPage(&r, after); ok {
		return res, nil
	}
	k := r.Offset + r.Limit
	var all []ranked
	res := Result{}
	fc, sum := m.newFacetSum(&r)
	scoring := r.Sort == ByRelevance && r.Query != nil
	var floor *ranked
	key, keep := floorKey(&r, after)
	if keep {
		if f, ok := m.cache.floor(key); ok {
			floor = &f // the floor this request ended with before (multifloor.go)
		}
	}
	for _, i := range m.order {
		g := m.segs[i]
		sr := r
		sr.Offset, sr.Limit, sr.Cursor = 0, k+1, ""
		var sa *cursorPos
		if after != nil {
			c := *after
			// The segment's matches after the cursor are those after its
			// last document numbered at most the cursor's.
			c.doc = g.before(after.doc)
			sa = &c
		}
		sg := m.segment(i, fc)
		if floor != nil {
			f := *floor
			if f.doc != floorDoc {
				// Between the segment's last document numbered below
				// the floor's and the next: equal to none.
				f.doc = g.before(f.doc) + 1
			}
			sg.floor = &f
		}
		sc, err := g.Index.run(ctx, &sr, sa, sg)
		if err != nil {
			return Result{}, err
		}
		res.Total += sc.total
		for _, h := range sc.top.heap {
			if sg.floor == nil || h != *sg.floor {
				h.doc = g.Docs[h.doc]
				all = append(all, h)
			}
		}
		floor = higher(floor, floorOf(all, k, scoring))
		if sum != nil {
			sum.add(i, sc.fc)
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.doc, b.doc))
	})
	if f := floorOf(all, k, scoring); keep && f != nil {
		m.cache.putFloor(key, *f)
	}
	page := all[min(r.Offset, len(all)):min(k, len(all))]
	res.Hits = make([]Hit, len(page))
	for i, h := range page {
		res.Hits[i] = Hit{Doc: h.doc, Score: h.score}
	}
	if len(page) > 0 && len(all) > k {
		last := page[len(page)-1]
		res.Next = encodeCursor(m.snap, 'q', cursorPos{sort: r.Sort, key: last.key, doc: last.doc})
	}
	if sum != nil {
		res.Facets = sum.facets(fc)
	}
	return res, nil
}

// segment returns how segment i is searched, its facets counted into fc
// (nil: none).
func (m *Multi) segment(i int, fc *facetCounter) *segment {
	g := m.segs[i]
	st := g.st
	st.m, st.seg = m, i
	return &segment{st: &st, del: g.del, deletedIn: g.deletedIn, cited: func() []int32 { return g.citedCounts(m.cites) }, fc: fc, freqs: &m.freqPool, unions: &m.unionPool, slabs: &m.slabPool, g: g}
}

// floorOf returns the floor of the segments still to search, nil if
// none: the (k+1)th best match of all, whose doc (a merged number) a
// segment places among its own (mseg.before), so that a match ranking
// after it can neither enter the page nor tell whether one follows.
// Under relevance, it is a match after every document of a score a
// little below, as a bound equal to the floor's score prunes, where a
// match of that score may rank ahead by its merged number.
func floorOf(all []ranked, k int, scoring bool) *ranked {
	if len(all) <= k {
		return nil
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.doc, b.doc))
	})
	f := all[k]
	if scoring {
		f.score = math.Nextafter(f.score, math.Inf(-1))
		f.key, f.doc = -f.score, floorDoc
	}
	return &f
}

// CitedBy pages the live documents citing doc (merged numbers), as
// Index.CitedBy does, from the archive's citations.
func (m *Multi) CitedBy(ctx context.Context, doc int32, limit int, cursor string) ([]int32, int64, string, error) {
	if m.lone != nil {
		return m.lone.citedBy(ctx, doc, limit, cursor, m.snap)
	}
	if err := ctx.Err(); err != nil {
		return nil, 0, "", err
	}
	if doc < 0 || doc >= m.n || limit < 0 {
		return nil, 0, "", fmt.Errorf("%w: document %d", ErrQuery, doc)
	}
	all := m.cites.Citing(doc)
	if !validDocs(all, m.n) {
		return nil, 0, "", fmt.Errorf("%w: the documents citing %d", ErrMalformed, doc)
	}
	return citedByPage(m.snap, doc, all, limit, cursor)
}

// catalogPage answers, as Index.catalogPage does, a listing in catalog
// order without filters but one topic and without facets, at any depth:
// the live documents are the merged numbers 0..n-1; a topic's are its
// live documents' merged numbers, gathered from the segments once
// (liveTopicDocs, which TopicDocs shares), so that a page is a slice of
// them at any depth, as in one index.
func (m *Multi) catalogPage(r *Request, after *cursorPos) (Result, bool) {
	if r.Query != nil || r.Sort != ByRelevance || len(r.Facets) > 0 || r.YearFrom != nil || r.YearTo != nil {
		return Result{}, false
	}
	topic := ""
	for name, vals := range r.Where {
		switch {
		case len(vals) == 0:
		case name == FacetTopic && len(vals) == 1:
			topic = vals[0]
		default:
			return Result{}, false
		}
	}
	if topic == "" {
		start := r.Offset
		if after != nil {
			start = int(min(max(after.doc+1, 0), m.n))
		}
		res := Result{Total: int64(m.n), Hits: make([]Hit, 0, max(min(r.Limit, int(m.n)-start), 0))}
		for d := start; d < int(m.n) && d < start+r.Limit; d++ {
			res.Hits = append(res.Hits, Hit{Doc: int32(d)})
		}
		m.next(&res, start)
		return res, true
	}
	docs, ok := m.liveTopicDocs(topic)
	if !ok {
		return Result{}, false // a damaged list: the general path reports it
	}
	start := r.Offset
	if after != nil {
		start = gallop(docs, after.doc+1)
	}
	res := Result{Total: int64(len(docs)), Hits: make([]Hit, 0, max(min(r.Limit, len(docs)-start), 0))}
	for i := start; i < len(docs) && i < start+r.Limit; i++ {
		res.Hits = append(res.Hits, Hit{Doc: docs[i]})
	}
	m.next(&res, start)
	return res, true
}

// next sets res.Next when live documents follow a listing's page, which
// starts at rank start.
func (m *Multi) next(res *Result, start int) {
	if len(res.Hits) > 0 && int64(start+len(res.Hits)) < res.Total {
		res.Next = encodeCursor(m.snap, 'q', cursorPos{sort: ByRelevance, doc: res.Hits[len(res.Hits)-1].Doc})
	}
}

// liveTopicDocs returns the live documents of topic in merged numbers,
// increasing (none if no segment knows the topic), kept once gathered
// for a topic of the snapshot; false if a segment's list is damaged.
// They take 4 bytes a document of the topic, as the server's catalog
// pages by topic keep them anyway (TopicDocs).
func (m *Multi) liveTopicDocs(topic string) ([]int32, bool) {
	if v, ok := m.topicDocs.Load(topic); ok {
		return v.([]int32), true
	}
	var out []int32
	known := false
	for _, g := range m.segs {
		c, ok := g.Index.topicCode[topic]
		if !ok {
			continue
		}
		known = true
		docs := g.Index.TopicDocs(topic)
		if docs == nil && g.Index.topicDocsOf(c) != nil {
			return nil, false
		}
		for _, d := range docs {
			if !g.deleted(d) {
				out = append(out, g.Docs[d])
			}
		}
	}
	if !known { // the names of a snapshot's topics, never a client's
		return nil, true
	}
	slices.Sort(out)
	v, _ := m.topicDocs.LoadOrStore(topic, out)
	return v.([]int32), true
}

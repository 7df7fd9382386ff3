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
	// cache keeps the document frequencies and expansions over the
	// segments, the same for every request.
	cache multiCache
	// topics keeps each topic's topicLists (catalogPage).
	topics sync.Map
	// topicDocs keeps each topic's live documents (TopicDocs).
	topicDocs sync.Map
	// order is the segments' order of search, the largest first: its
	// best matches make a floor that prunes the others' (floorOf).
	order []int
}

// mseg is a segment and what its searches need.
type mseg struct {
	Segment
	del []uint64 // Deleted as bits; nil if none
	st  stats    // the live documents' statistics, with the segment's bound scale
	// delDF caches, per term, how many of its list's documents are
	// deleted (liveDF); emptied when it holds delDFMax terms.
	mu    sync.Mutex
	delDF map[int64]int64 // term id << 8 | field mask -> deleted documents
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
				sum[f] -= int64(ix.docs[d].Len[f])
			}
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
	var counts map[string]map[string]int64
	var floor *ranked
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
		st := g.st
		st.m, st.seg = m, i
		sg := &segment{st: &st, del: g.del, deletedIn: g.deletedIn, citedBy: func(d int32) int32 { return m.cites.Count(g.Docs[d]) }}
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
		floor = floorOf(all, k, r.Sort == ByRelevance && r.Query != nil)
		if sc.fc != nil {
			if counts == nil {
				counts = map[string]map[string]int64{}
			}
			g.Index.eachFacet(sc.fc, func(name, v string, n int64) {
				if counts[name] == nil {
					counts[name] = map[string]int64{}
				}
				if n > 0 {
					counts[name][v] += n
				}
			})
		}
	}
	slices.SortFunc(all, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.doc, b.doc))
	})
	page := all[min(r.Offset, len(all)):min(k, len(all))]
	res.Hits = make([]Hit, len(page))
	for i, h := range page {
		res.Hits[i] = Hit{Doc: h.doc, Score: h.score}
	}
	if len(page) > 0 && len(all) > k {
		last := page[len(page)-1]
		res.Next = encodeCursor(m.snap, 'q', cursorPos{sort: r.Sort, key: last.key, doc: last.doc})
	}
	if counts != nil {
		res.Facets = facetsOf(counts)
	}
	return res, nil
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

// facetsOf sorts the counts as Result.Facets has them.
func facetsOf(counts map[string]map[string]int64) map[string][]FacetCount {
	out := map[string][]FacetCount{}
	for name, vals := range counts {
		out[name] = []FacetCount{}
		for v, n := range vals {
			out[name] = append(out[name], FacetCount{Value: v, Count: n})
		}
		sortFacet(out[name])
	}
	return out
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
// the live documents are the merged numbers 0..n-1; a topic's are found
// by binary search over the merged numbers of the segments' topic lists.
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
		res := Result{Total: int64(m.n), Hits: []Hit{}}
		for d := start; d < int(m.n) && d < start+r.Limit; d++ {
			res.Hits = append(res.Hits, Hit{Doc: int32(d)})
		}
		m.next(&res, start)
		return res, true
	}
	tl, ok := m.topicLists(topic)
	if !ok {
		return Result{}, false // a damaged list: the general path reports it
	}
	res := Result{Hits: []Hit{}}
	for _, l := range tl {
		res.Total += int64(len(l.docs) - len(l.dead))
	}
	// g is the first merged number of the page, start its rank.
	var g int32
	var start int
	if after != nil {
		g = max(after.doc+1, 0)
		start = tl.before(g)
	} else {
		start = r.Offset
		g = int32(sort.Search(int(m.n), func(x int) bool { return tl.before(int32(x)+1) > start }))
	}
	at := make([]int, len(tl))
	for s, l := range tl {
		at[s] = l.pos(g)
	}
	for len(res.Hits) < r.Limit {
		best, bestDoc := -1, int32(0)
		for s, l := range tl {
			for at[s] < len(l.docs) && m.segs[s].deleted(l.docs[at[s]]) {
				at[s]++
			}
			if at[s] < len(l.docs) {
				if d := l.num[l.docs[at[s]]]; best < 0 || d < bestDoc {
					best, bestDoc = s, d
				}
			}
		}
		if best < 0 {
			break
		}
		res.Hits = append(res.Hits, Hit{Doc: bestDoc})
		at[best]++
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

// topicList is one segment's documents of a topic: docs (local,
// increasing), the deleted ones among them, and the merged numbers.
type topicList struct {
	docs, dead []int32
	num        []int32 // the segment's Docs
}

type topicLists []topicList

// topicLists returns each segment's list of topic, kept once made;
// false if a list is damaged.
func (m *Multi) topicLists(topic string) (topicLists, bool) {
	if tl, ok := m.topics.Load(topic); ok {
		return tl.(topicLists), true
	}
	tl := make(topicLists, len(m.segs))
	known := false
	for s, g := range m.segs {
		tl[s].num = g.Docs
		if _, ok := g.Index.topicCode[topic]; !ok {
			continue
		}
		known = true
		docs := g.Index.TopicDocs(topic)
		if docs == nil {
			return nil, false
		}
		tl[s].docs = docs
		for _, d := range g.Deleted {
			if i, ok := slices.BinarySearch(docs, d); ok {
				tl[s].dead = append(tl[s].dead, docs[i])
			}
		}
	}
	if known { // the names of a snapshot's topics, never a client's
		m.topics.Store(topic, tl)
	}
	return tl, true
}

// pos is the index of the first document of l numbered g or more.
func (l *topicList) pos(g int32) int {
	return sort.Search(len(l.docs), func(i int) bool { return l.num[l.docs[i]] >= g })
}

// before counts the live documents of the lists numbered below g.
func (tl topicLists) before(g int32) int {
	n := 0
	for _, l := range tl {
		i := l.pos(g)
		n += i
		if i < len(l.docs) {
			n -= sort.Search(len(l.dead), func(j int) bool { return l.dead[j] >= l.docs[i] })
		} else {
			n -= len(l.dead)
		}
	}
	return n
}

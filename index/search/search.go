package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
)

// Hit is one result: a document number (the catalog's order) and its
// BM25F score (0 in a listing or under another sort).
type Hit struct {
	Doc   int32
	Score float64
}

// ErrUnknownFacet is a facet name (in Facets or Where) the index does not
// have.
var ErrUnknownFacet = errors.New("search: unknown facet")

// checkEvery is how many matches pass between two looks at the context.
const checkEvery = 1 << 16

// yield is a long search's look at its context, made every so often (a
// few hundred thousand postings or documents) in its loops: it reports
// whether ctx is done, and first lets the searches waiting for a
// processor run. Go preempts a running goroutine only after 10 ms, so on
// a server with as many searches in flight as processors, a short search
// arriving behind long ones would otherwise wait up to that long for one
// (runs r and s at 10M documents, git history of BENCHMARKS.md).
func yield(ctx context.Context) error {
	runtime.Gosched()
	return ctx.Err()
}

// filter is a request's compiled facet filters.
type filter struct {
	none             bool
	del              []uint64 // documents deleted by a later segment (bits); nil: none
	license          *[256]bool
	topic            []bool // by topic code
	years            map[int32]bool
	yearFrom, yearTo int32
	useYear          bool
	sources          uint8 // any of these bits; 0: any
	fulltext         int   // -1 any, 0 without, 1 with
}

func (ix *Index) compileFilter(r *Request) (filter, error) {
	f := filter{yearFrom: math.MinInt32, yearTo: math.MaxInt32, fulltext: -1}
	if r.YearFrom != nil {
		f.useYear, f.yearFrom = true, clampInt32(*r.YearFrom)
	}
	if r.YearTo != nil {
		f.useYear, f.yearTo = true, clampInt32(*r.YearTo)
	}
	for name, vals := range r.Where {
		if len(vals) == 0 {
			continue
		}
		switch name {
		case FacetLicense:
			f.license = new([256]bool)
			for _, v := range vals {
				if c, ok := ix.licCode[v]; ok {
					f.license[c] = true
				}
			}
		case FacetTopic:
			f.topic = make([]bool, len(ix.topics))
			for _, v := range vals {
				if c, ok := ix.topicCode[v]; ok {
					f.topic[c] = true
				}
			}
		case FacetYear:
			f.years = map[int32]bool{}
			for _, v := range vals {
				if y, err := strconv.ParseInt(v, 10, 32); err == nil && y != 0 {
					f.years[int32(y)] = true
				}
			}
		case FacetSource:
			found := false
			for _, v := range vals {
				if i := slices.Index(Sources[:], v); i >= 0 {
					f.sources |= 1 << i
					found = true
				}
			}
			if !found {
				f.none = true
			}
		case FacetFulltext:
			with, without := slices.Contains(vals, "true"), slices.Contains(vals, "false")
			switch {
			case with && without:
			case with:
				f.fulltext = 1
			case without:
				f.fulltext = 0
			default:
				f.none = true
			}
		default:
			return f, fmt.Errorf("%w: %q", ErrUnknownFacet, name)
		}
	}
	return f, nil
}

func clampInt32(v int) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }

// active reports whether the filter restricts anything.
func (f *filter) active() bool {
	return f.useYear || f.years != nil || f.license != nil || f.sources != 0 || f.fulltext >= 0 || f.topic != nil || f.del != nil
}

func (ix *Index) pass(f *filter, d int32) bool {
	if f.del != nil && f.del[d>>6]&(1<<(d&63)) != 0 {
		return false
	}
	if f.useYear || f.years != nil {
		y := ix.year(d)
		if f.useYear && (y == 0 || y < f.yearFrom || y > f.yearTo) {
			return false
		}
		if f.years != nil && !f.years[y] {
			return false
		}
	}
	lic, flags := ix.licenceFlags(d)
	if f.license != nil && !f.license[lic] {
		return false
	}
	if f.sources != 0 && (flags>>1)&f.sources == 0 {
		return false
	}
	if f.fulltext >= 0 && int(flags&flagFulltext) != f.fulltext {
		return false
	}
	if f.topic != nil {
		ok := false
		for _, c := range ix.topicCodesOf(d) {
			if int(c) < len(f.topic) && f.topic[c] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// facetCounter counts facet values over a result set.
type facetCounter struct {
	license  *[256]int64
	topic    []int64
	year     map[int32]int64
	years    *[4096]int64 // years 0..4095, the map for others
	source   *[len(Sources)]int64
	fulltext *[2]int64
}

func (ix *Index) newFacets(names []string) (*facetCounter, error) {
	if len(names) == 0 {
		return nil, nil
	}
	fc := &facetCounter{}
	for _, n := range names {
		switch n {
		case FacetLicense:
			fc.license = new([256]int64)
		case FacetTopic:
			fc.topic = make([]int64, len(ix.topics))
		case FacetYear:
			fc.years, fc.year = new([4096]int64), map[int32]int64{}
		case FacetSource:
			fc.source = new([len(Sources)]int64)
		case FacetFulltext:
			fc.fulltext = new([2]int64)
		default:
			return nil, fmt.Errorf("%w: %q", ErrUnknownFacet, n)
		}
	}
	return fc, nil
}

// countBatch adds documents to the facet counts, one facet at a time.
func (ix *Index) countBatch(fc *facetCounter, docs []int32) {
	if fc.license != nil {
		for _, d := range docs {
			lic, _ := ix.licenceFlags(d)
			fc.license[lic]++
		}
	}
	if fc.topic != nil {
		for _, d := range docs {
			for _, c := range ix.topicCodesOf(d) {
				if int(c) < len(fc.topic) {
					fc.topic[c]++
				}
			}
		}
	}
	if fc.years != nil {
		for _, d := range docs {
			switch y := ix.year(d); {
			case y > 0 && y < 4096:
				fc.years[y]++
			case y != 0:
				fc.year[y]++
			}
		}
	}
	if fc.source != nil {
		for _, d := range docs {
			_, fl := ix.licenceFlags(d)
			for i := range Sources {
				fc.source[i] += int64(fl >> (1 + i) & 1)
			}
		}
	}
	if fc.fulltext != nil {
		for _, d := range docs {
			_, fl := ix.licenceFlags(d)
			fc.fulltext[fl&flagFulltext]++
		}
	}
}

// facetResult turns the counts into the facets of a Result: values with
// a count, by count descending then value.
func (ix *Index) facetResult(fc *facetCounter) map[string][]FacetCount {
	if fc == nil {
		return nil
	}
	out := map[string][]FacetCount{}
	ix.eachFacet(fc, func(name, v string, n int64) {
		if out[name] == nil {
			out[name] = []FacetCount{}
		}
		if n > 0 {
			out[name] = append(out[name], FacetCount{Value: v, Count: n})
		}
	})
	for _, v := range out {
		sortFacet(v)
	}
	return out
}

// sortFacet sorts a facet's counts by count descending then value.
func sortFacet(v []FacetCount) {
	slices.SortFunc(v, func(a, b FacetCount) int { return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Value, b.Value)) })
}

// eachFacet calls add with each counted facet's values and counts, and
// once with count 0 for each facet counted.
func (ix *Index) eachFacet(fc *facetCounter, add func(name, v string, n int64)) {
	if fc.license != nil {
		add(FacetLicense, "", 0)
		for c, n := range fc.license {
			if c < len(ix.licenses) && n > 0 {
				add(FacetLicense, ix.licenses[c], n)
			}
		}
	}
	if fc.topic != nil {
		add(FacetTopic, "", 0)
		for c, n := range fc.topic {
			if n > 0 {
				add(FacetTopic, ix.topics[c], n)
			}
		}
	}
	if fc.years != nil {
		add(FacetYear, "", 0)
		for y, n := range fc.years {
			if n > 0 {
				add(FacetYear, strconv.Itoa(y), n)
			}
		}
		for y, n := range fc.year {
			add(FacetYear, strconv.Itoa(int(y)), n)
		}
	}
	if fc.source != nil {
		add(FacetSource, "", 0)
		for i, n := range fc.source {
			add(FacetSource, Sources[i], n)
		}
	}
	if fc.fulltext != nil {
		add(FacetFulltext, "false", fc.fulltext[0])
		add(FacetFulltext, "true", fc.fulltext[1])
	}
}

// Search runs a request: the documents matching the query (all documents
// when Query is nil) and passing the filters, the exact total, the facet
// counts over all of them, and one page in the requested order, from
// Offset or after Cursor.
func (ix *Index) Search(ctx context.Context, r Request) (Result, error) {
	return ix.search(ctx, r, ix.snap)
}

// search is Search with cursors of snapshot snap.
func (ix *Index) search(ctx context.Context, r Request, snap string) (Result, error) {
	after, err := checkRequest(&r, snap)
	if err != nil {
		return Result{}, err
	}
	if res, ok := ix.catalogPage(&r, after, snap); ok {
		return res, nil
	}
	sc, err := ix.run(ctx, &r, after, nil)
	if err != nil {
		return Result{}, err
	}
	res := Result{Total: sc.total}
	page := sc.top.sorted()
	if r.Offset < len(page) {
		page = page[r.Offset:]
	} else {
		page = nil
	}
	res.Hits = make([]Hit, len(page))
	for i, h := range page {
		res.Hits[i] = Hit{Doc: h.doc, Score: h.score}
	}
	if len(page) > 0 && sc.beyond > 0 {
		last := page[len(page)-1]
		res.Next = encodeCursor(snap, 'q', cursorPos{sort: r.Sort, key: last.key, doc: last.doc})
	}
	res.Facets = ix.facetResult(sc.fc)
	return res, nil
}

// checkRequest checks r's limits and sort and decodes its cursor (then
// r's offset is 0); a nil position without a cursor.
func checkRequest(r *Request, snap string) (*cursorPos, error) {
	if r.Limit < 0 || r.Offset < 0 {
		return nil, fmt.Errorf("%w: negative limit or offset", ErrQuery)
	}
	if r.Sort > ByCitedBy {
		return nil, fmt.Errorf("%w: unknown sort %d", ErrQuery, r.Sort)
	}
	if r.Cursor == "" {
		return nil, nil
	}
	c, err := decodeCursor(snap, r.Cursor, 'q')
	if err != nil {
		return nil, err
	}
	if c.sort != r.Sort {
		return nil, fmt.Errorf("%w: the cursor was made for another sort", ErrCursorInvalid)
	}
	r.Offset = 0
	return &c, nil
}

// run scans the request's matches into the best Offset+Limit after the
// cursor, counting them and their facets; sg is the index's view as a
// segment of several (nil: the index alone).
func (ix *Index) run(ctx context.Context, r *Request, after *cursorPos, sg *segment) (*scan, error) {
	f, err := ix.compileFilter(r)
	if err != nil {
		return nil, err
	}
	var fc *facetCounter
	if sg != nil && sg.fc != nil {
		fc = sg.fc // the facets of every segment, added up apart (multifacets.go)
	} else if fc, err = ix.newFacets(r.Facets); err != nil {
		return nil, err
	}
	st := &ix.own
	var del []uint64
	if sg != nil {
		st, del = sg.st, sg.del
		if del != nil && (f.active() || fc != nil) {
			// Matches are filtered one by one: the deleted documents
			// with them.
			f.del = del
		}
	}
	ev := &evaluator{ix: ix, st: st, del: del, stem: r.Stem, anyMask: anyFields,
		scoring: r.Sort == ByRelevance && r.Query != nil, sg: sg}
	if sg != nil {
		defer func() { sg.putFreqs(ev.postings); sg.putUnions(ev.unions); sg.putSlabs(ev.slabs) }()
	}
	if r.Fulltext {
		ev.anyMask = anyFieldsFulltext
	}
	filtering := f.active()
	top := newTopK(r.Offset + r.Limit)
	sc := &scan{ix: ix, f: &f, filtering: filtering, fc: fc, sort: r.Sort, scoring: ev.scoring, top: top, after: after}
	if sg != nil {
		sc.del = del
		if r.Sort == ByCitedBy {
			sc.cited = sg.cited()
		}
		if sg.floor != nil {
			sc.floored = true
			for range top.k {
				top.heap = append(top.heap, *sg.floor)
			}
		}
		if x := sg.keptExpansion(ev, r.Query); x != nil && sc.plain() {
			if err := ev.check(sc.keptExpansion(ctx, ev, x)); err != nil { // segment.go
				return nil, err
			}
			return sc, nil
		}
		if sc.plain() {
			// A prefix's first scan in the segment (multilazy.go).
			if done, err := sc.lazyExpansion(ctx, ev, r.Query); done || err != nil {
				if err := ev.check(err); err != nil {
					return nil, err
				}
				return sc, nil
			}
		}
	}
	// A prefix's lists are left unopened for a conjunction, which opens
	// those it ranks; any other plan opens them (multilazy.go).
	ev.pending = sg != nil && sc.plain()
	it, err := ix.driver(ev, r)
	if err != nil {
		return nil, err
	}
	var c *conj
	if sc.plain() {
		c = asConj(it)
	}
	if c == nil || !c.pendingExp() || len(ev.pendings) != len(c.exp.ts) {
		// Only the conjunction's expansion reads its lists pending.
		ev.openPending()
	}
	if l, ok := asLister(it); ok && !f.none && sg != nil {
		// A sort by key against a floor, from the segment's order
		// (multiorder.go).
		if done, err := sg.probe(ctx, sc, l); done || err != nil {
			if err := ev.check(err); err != nil {
				return nil, err
			}
			return sc, nil
		}
	}
	if l, ok := asLister(it); ok && !f.none {
		p := l.list()
		// A segment keeps the count of a list scanned alone, bare, from
		// the start: the later scans count no block they prune.
		keep := sg != nil && after == nil && ev.scoring && !filtering && fc == nil
		var live int64
		if keep {
			live, sc.counted = sg.g.listTotal(p.term, p.mask)
		}
		err = sc.list(ctx, l)
		switch {
		case sc.counted:
			sc.total = live
		case del != nil && !filtering:
			// The list counted its deleted documents: as many as
			// the segment knows its list has.
			sc.total -= sg.deletedIn(p.term, p.mask)
		}
		if keep && !sc.counted && err == nil && !p.bad {
			sg.g.keepListTotal(p.term, p.mask, sc.total)
		}
	} else if c != nil {
		err = c.scan(ctx, ev, sc) // conj.go
	} else if u, ok := it.(*unionIter); ok && sc.plain() && u.expansion() {
		err = sc.expansion(ctx, u) // expand.go
	} else if u, ok := it.(*unionIter); ok && sc.plain() {
		err = sc.union(ctx, u)
	} else if p, ok := it.(*phraseIter); ok && sc.plain() {
		err = sc.phrase(ctx, p) // phraseset.go
	} else if it != nil && !f.none {
		err = sc.iter(ctx, it)
	}
	if err := ev.check(err); err != nil {
		return nil, err
	}
	return sc, nil
}

// check returns err, or an error if a list the search read is damaged.
func (e *evaluator) check(err error) error {
	if err != nil {
		return err
	}
	for _, p := range e.postings {
		if p.bad {
			return fmt.Errorf("%w: postings do not decode", ErrMalformed)
		}
	}
	for _, l := range e.lists {
		if l.bad {
			return fmt.Errorf("%w: a topic's document list", ErrMalformed)
		}
	}
	return nil
}

// scan visits a request's matches in doc order: it filters them, counts
// them and their facets (a batch of documents at a time, one facet after
// the other), and offers to the top k those that can enter it (scoring
// only the documents whose bound beats the worst score kept).
type scan struct {
	ix        *Index
	f         *filter
	filtering bool
	fc        *facetCounter
	sort      Sort
	scoring   bool
	top       *topK
	after     *cursorPos
	total     int64
	// beyond counts the matches known to rank after the page (so a next
	// page exists when it is not 0): those the top k dropped or pushed
	// out, and those pruned when it was full. As matches come in doc
	// order, a pruned or dropped one ranks after every match kept at the
	// time, and the page's last hit is at least as good as those.
	beyond int64
	batch  []int32
	// record, when not nil, is a bitset of the corpus in which iter sets
	// the matches it counts (phraseset.go).
	record []uint64
	// yearSum keeps prefetchYears' loads from being optimised away.
	yearSum int32
	// del, when not nil, has the bits of the documents a later segment
	// supersedes or deletes (multi.go): never counted nor ranked. The
	// paths that count a bitset subtract them by word; a list, by the
	// count the segment keeps per list.
	del []uint64
	// cited, when not nil, has the cited-by counts of the documents
	// that ByCitedBy sorts by (the whole archive's, multi.go).
	cited []int32
	// floored is whether the top k starts full of the floor (multi.go).
	floored bool
	// counted is whether a segment knows the total of the list that
	// list scans (multi.go): it counts no block it prunes, and neither
	// total nor beyond is kept.
	counted bool
}

// plain reports whether the scan only counts and ranks by relevance
// from the first match on (no filter, facet or cursor), so that a count
// apart from the ranking may answer it (conj.go).
func (s *scan) plain() bool {
	return s.scoring && !s.f.none && !s.filtering && s.fc == nil && s.after == nil && !s.ix.noConj
}

// prunable reports whether a match whose score is at most bound cannot
// enter the page: the k kept are as good, and were visited first (doc
// order breaks ties), so the match ranks after all of them.
func (s *scan) prunable(bound float64) bool {
	t := s.top
	return t.k == 0 || t.full() && bound <= t.worstScore()
}

// closed reports whether no match still to come can enter the page nor
// change whether a next page exists: the worst match kept ties with the
// cursor, so a later one (a higher doc) ranks either before the cursor
// or after that worst match; and one match is already known to rank
// after the page. A cursor inside a long run of equal scores (common:
// the same term counts in fields of the same length score the same)
// would otherwise have every later match scored.
func (s *scan) closed() bool {
	t := s.top
	return s.after != nil && s.beyond > 0 && t.full() && t.heap[0].key == s.after.key && !s.floored
}

// rank offers match d (passed the filter, counted) to the top k; score
// and bound are its iterator's.
func (s *scan) rank(d int32, it interface {
	score() float64
	bound() float64
}) {
	if s.closed() || s.del != nil && s.del[d>>6]&(1<<(d&63)) != 0 {
		return
	}
	h := ranked{doc: d}
	if s.scoring {
		if s.prunable(it.bound()) {
			s.beyond++
			return
		}
		if t, ok := it.(tightener); ok && s.prunable(t.tightBound()) {
			s.beyond++
			return
		}
		h.score = it.score()
	}
	h.key = s.key(h.score, d)
	if s.after != nil && !(h.key > s.after.key || h.key == s.after.key && d > s.after.doc) {
		return
	}
	if s.top.full() {
		s.beyond++ // h is dropped, or pushes the worst kept out
	}
	s.top.push(h)
}

// A tightener's bound reads only skip tables; its tightBound, checked
// when the bound does not prune, is tighter and costs more.
type tightener interface{ tightBound() float64 }

// iter visits the matches of any iterator.
func (s *scan) iter(ctx context.Context, it iterator) error {
	if s.fc != nil {
		s.batch = make([]int32, 0, 256)
	}
	for d, i := it.nextDoc(), 0; d != noMore; d, i = it.nextDoc(), i+1 {
		if i%checkEvery == checkEvery-1 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		if s.filtering && !s.ix.pass(s.f, d) || s.del != nil && s.del[d>>6]&(1<<(d&63)) != 0 {
			continue
		}
		s.total++
		if s.record != nil {
			s.record[d>>6] |= 1 << (d & 63)
		}
		if s.fc != nil {
			if s.batch = append(s.batch, d); len(s.batch) == cap(s.batch) {
				s.ix.countBatch(s.fc, s.batch)
				s.batch = s.batch[:0]
			}
		}
		s.rank(d, it)
	}
	if s.fc != nil {
		s.ix.countBatch(s.fc, s.batch)
	}
	return nil
}

// A lister is a search whose matches are the documents of one posting
// list with a wanted field: a term, or a phrase that one pair or triple
// term covers (pairs.go, triples.go). scan.list visits them block by block.
type lister interface {
	list() *postings
	// blockBound bounds the score of block b's documents of the list.
	// Calls come with increasing b.
	blockBound(b int) float64
	// score and bound are those of the list's current document.
	score() float64
	bound() float64
}

// asLister returns it as a lister when it is one.
func asLister(it iterator) (lister, bool) {
	switch it := it.(type) {
	case *termIter:
		return it, true
	case *phraseIter:
		return it, len(it.parts) == 1 && it.words != nil
	}
	return nil, false
}

// list visits the matches of a lister block by block, without an
// iterator call per document: a block whose bound cannot enter the page,
// when nothing is filtered or counted by facet, is counted from its skip
// entry or mask planes and never unpacked.
func (s *scan) list(ctx context.Context, l lister) error {
	p := l.list()
	if s.fc != nil {
		s.batch = make([]int32, 0, blockDocs)
	}
	bare := s.scoring && !s.filtering && s.fc == nil
	for b := 0; b < p.nblocks && !p.bad; b++ {
		if b%1024 == 1023 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		if bare && s.prunable(l.blockBound(b)) {
			if !s.counted {
				n, _ := p.countBlock(b)
				s.total += int64(n)
				s.beyond += int64(n)
			}
			continue
		}
		if bare && s.closed() {
			n, _ := p.countBlock(b)
			s.total += int64(n)
			continue
		}
		if p.maskOr(b)&p.mask == 0 {
			continue
		}
		if !p.load(b) {
			break
		}
		s.batch = s.batch[:0]
		if s.sort == ByYear || s.sort == ByYearDesc {
			s.prefetchYears(p.docs[:p.cnt])
		}
		for i := range p.cnt {
			if !p.wants(i) {
				continue
			}
			d := p.docs[i]
			if s.filtering && !s.ix.pass(s.f, d) {
				continue
			}
			s.total++
			if s.fc != nil {
				s.batch = append(s.batch, d)
			}
			p.i, p.cur = i, d
			s.rank(d, l)
		}
		if s.fc != nil {
			s.ix.countBatch(s.fc, s.batch)
		}
	}
	p.cur = noMore
	return nil
}

// union visits a union a window at a time (plain scans only): it counts
// the window's bitset, and offers to the page only the documents whose
// bound, summed by the window's fill, can enter it, without an iterator
// call for the others.
func (s *scan) union(ctx context.Context, u *unionIter) error {
	for w, from := 0, int32(0); u.fill(from, true); w, from = w+1, u.end {
		if w%64 == 63 {
			if err := yield(ctx); err != nil {
				return err
			}
		}
		s.total += popcount(u.bits[:])
		if s.del != nil {
			s.total -= deletedIn(u.bits[:], s.del, u.base)
		}
		if s.top.k == 0 {
			continue
		}
		for i, word := range u.bits {
			for ; word != 0; word &= word - 1 {
				k := i<<6 + bits.TrailingZeros64(word)
				if s.top.full() && u.bacc[k] <= s.top.worstScore() {
					continue
				}
				u.cur = u.base + int32(k)
				s.rank(u.cur, u)
			}
		}
	}
	u.cur = noMore
	// Every match not kept ranks after the page.
	s.beyond = s.total - int64(len(s.top.heap))
	return nil
}

// prefetchYears reads the years of a block's documents in one tight
// loop before they are ranked by year: the loads are independent, so
// the CPU overlaps their cache misses, where the ranking loop, one match
// at a time, waits for each in turn.
func (s *scan) prefetchYears(docs []int32) {
	var sum int32
	for _, d := range docs {
		sum += s.ix.year(d)
	}
	s.yearSum += sum
}

// year is document d's year, 0 if undated: from the year column, whose
// two bytes a document put the years of a block's matches on a few cache
// lines, or its four where a year does not fit in two.
func (ix *Index) year(d int32) int32 {
	if ix.years != nil {
		return int32(ix.years[d])
	}
	return ix.years32[d]
}

// licenceFlags are document d's licence code and flags, from the column.
func (ix *Index) licenceFlags(d int32) (uint8, uint8) {
	i := 2 * int(d)
	return ix.licFlags[i], ix.licFlags[i+1]
}

// driver returns the iterator of the request's candidates: the query's
// matches, or for a listing every document, or a topic's documents when
// the filter names one topic.
func (ix *Index) driver(ev *evaluator, r *Request) (iterator, error) {
	if r.Query != nil {
		return ev.compile(r.Query)
	}
	if ts := r.Where[FacetTopic]; len(ts) == 1 {
		c, ok := ix.topicCode[ts[0]]
		if !ok {
			return nil, nil
		}
		l := &listIter{docs: ix.topicDocsOf(c), n: ix.n, cur: -1}
		ev.lists = append(ev.lists, l)
		return l, nil
	}
	return &listIter{n: ix.n, cur: -1}, nil
}

// key is a document's sort key: smaller first, ties by doc.
func (s *scan) key(score float64, d int32) float64 {
	switch s.sort {
	case ByRelevance:
		if s.scoring {
			return -score
		}
		return 0
	case ByYear, ByYearDesc:
		y := s.ix.year(d)
		if y == 0 {
			return math.MaxFloat64 // undated last
		}
		if s.sort == ByYearDesc {
			return -float64(y)
		}
		return float64(y)
	case ByCitedBy:
		if s.cited != nil {
			return -float64(s.cited[d])
		}
		return -float64(s.ix.CitedByCount(d))
	}
	return 0
}

// ranked is a match with its sort key.
type ranked struct {
	key   float64
	doc   int32
	score float64
}

// worse reports whether a ranks after b.
func worse(a, b ranked) bool { return a.key > b.key || (a.key == b.key && a.doc > b.doc) }

// topK keeps the k best matches.
type topK struct {
	k    int
	heap []ranked // the worst kept at the root
}

func newTopK(k int) *topK { return &topK{k: k, heap: make([]ranked, 0, min(k, 1024))} }

func (t *topK) push(h ranked) {
	if t.k <= 0 {
		return
	}
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		for i := len(t.heap) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(t.heap[i], t.heap[p]) {
				break
			}
			t.heap[i], t.heap[p] = t.heap[p], t.heap[i]
			i = p
		}
		return
	}
	if !worse(t.heap[0], h) {
		return
	}
	t.heap[0] = h
	t.down(0)
}

// down moves heap entry i towards the leaves while it is better than one
// of its children.
func (t *topK) down(i int) {
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(t.heap) && worse(t.heap[l], t.heap[m]) {
			m = l
		}
		if r < len(t.heap) && worse(t.heap[r], t.heap[m]) {
			m = r
		}
		if m == i {
			break
		}
		t.heap[i], t.heap[m] = t.heap[m], t.heap[i]
		i = m
	}
}

// raise gives doc d, if kept, score h.score when that ranks it better
// (h is d's, with that score); it reports whether d was kept.
func (t *topK) raise(h ranked) bool {
	for i := range t.heap {
		if t.heap[i].doc == h.doc {
			if worse(t.heap[i], h) {
				t.heap[i] = h
				t.down(i)
			}
			return true
		}
	}
	return false
}

// full reports whether k matches are kept: a new one must beat the worst.
func (t *topK) full() bool { return len(t.heap) >= t.k }

// worstScore is the score of the worst match kept (the heap is full).
func (t *topK) worstScore() float64 { return t.heap[0].score }

// sorted returns the kept matches best first.
func (t *topK) sorted() []ranked {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b ranked) int {
		switch {
		case worse(b, a):
			return -1
		case worse(a, b):
			return 1
		}
		return 0
	})
	return out
}

// CitedBy pages the archive documents citing doc, in doc order: up to
// limit of them after the cursor (from a previous call's next), their
// total, and the cursor of the next page ("" on the last).
func (ix *Index) CitedBy(ctx context.Context, doc int32, limit int, cursor string) ([]int32, int64, string, error) {
	return ix.citedBy(ctx, doc, limit, cursor, ix.snap)
}

// citedBy is CitedBy with cursors of snapshot snap.
func (ix *Index) citedBy(ctx context.Context, doc int32, limit int, cursor, snap string) ([]int32, int64, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, "", err
	}
	if doc < 0 || doc >= ix.n || limit < 0 {
		return nil, 0, "", fmt.Errorf("%w: document %d", ErrQuery, doc)
	}
	all := ix.citingOf(doc)
	if !validDocs(all, ix.n) {
		return nil, 0, "", fmt.Errorf("%w: the documents citing %d", ErrMalformed, doc)
	}
	return citedByPage(snap, doc, all, limit, cursor)
}

// citedByPage pages all, the documents citing doc, for CitedBy.
func citedByPage(snap string, doc int32, all []int32, limit int, cursor string) ([]int32, int64, string, error) {
	rest := all
	if cursor != "" {
		c, err := decodeCursor(snap, cursor, 'c')
		if err != nil {
			return nil, 0, "", err
		}
		if c.key != float64(doc) {
			return nil, 0, "", fmt.Errorf("%w: the cursor was made for another document", ErrCursorInvalid)
		}
		rest = rest[gallop(rest, c.doc+1):]
	}
	page := slices.Clone(rest[:min(limit, len(rest))])
	next := ""
	if len(page) > 0 && len(page) < len(rest) {
		next = encodeCursor(snap, 'c', cursorPos{key: float64(doc), doc: page[len(page)-1]})
	}
	return page, int64(len(all)), next, nil
}

// validDocs reports whether docs is strictly increasing and below n.
func validDocs(docs []int32, n int32) bool {
	prev := int32(-1)
	for _, d := range docs {
		if d <= prev || d >= n {
			return false
		}
		prev = d
	}
	return true
}

// catalogPage answers a listing in catalog order with no filter but at
// most one topic and no facets without visiting every document: the page
// is a slice of the documents (or of the topic's), found at any depth by
// offset or by binary search for the cursor's doc.
func (ix *Index) catalogPage(r *Request, after *cursorPos, snap string) (Result, bool) {
	if r.Query != nil || r.Sort != ByRelevance || len(r.Facets) > 0 || r.YearFrom != nil || r.YearTo != nil {
		return Result{}, false
	}
	var docs []int32 // nil: all documents
	for name, vals := range r.Where {
		switch {
		case len(vals) == 0:
		case name == FacetTopic && len(vals) == 1:
			c, ok := ix.topicCode[vals[0]]
			if !ok {
				return Result{Hits: []Hit{}}, true
			}
			if docs = ix.TopicDocs(vals[0]); docs == nil && ix.topicDocsOf(c) != nil {
				return Result{}, false // a damaged list: the general path reports it
			}
			if docs == nil {
				docs = []int32{}
			}
		default:
			return Result{}, false
		}
	}
	n := int(ix.n)
	at := func(i int) int32 { return int32(i) }
	if docs != nil {
		n, at = len(docs), func(i int) int32 { return docs[i] }
	}
	start := r.Offset
	if after != nil {
		if docs == nil {
			start = int(min(max(after.doc+1, 0), ix.n))
		} else {
			start = gallop(docs, after.doc+1)
		}
	}
	res := Result{Total: int64(n), Hits: []Hit{}}
	for i := start; i < n && i < start+r.Limit; i++ {
		res.Hits = append(res.Hits, Hit{Doc: at(i)})
	}
	if len(res.Hits) > 0 && start+len(res.Hits) < n {
		res.Next = encodeCursor(snap, 'q', cursorPos{sort: ByRelevance, doc: res.Hits[len(res.Hits)-1].Doc})
	}
	return res, true
}

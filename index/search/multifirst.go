package search

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/fnv"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"slices"
	"sync"

	"github.com/openshelf/openshelf/index/search/query"
)

// A first search over segments pays for what the Multi keeps for the
// next one (segment.go): each of its words' live documents, a walk of
// their lists in every segment with deletions, and for a prefix the
// merge of the segments' dictionaries to choose its words by their live
// documents. Both depend only on the snapshot's segments and deletions,
// which the build of the snapshot's newest segment knows: it writes
// them beside that segment's index (FirstFile, FORMAT.md), and a Multi
// given them (UseFirst) looks them up instead:
//
//   - per segment with deletions, the deleted documents of each word and
//     of each pair term whose list is not counted from its short entry
//     (countShort), so that a term's live documents are a look-up: the
//     first search of a prefix counts those of hundreds of words in
//     each segment, most of them short lists, which countShort unpacks;
//   - per prefix that a segment holds as a prefix term (the long
//     expansions, prefixes.go), the expansion over all segments as
//     Multi.expansion makes it: each segment's ids of its words, their
//     live documents over all, and whether its prefix term holds them;
//     and each small segment's first plain scan of it (segExp): its
//     count and its first lists' bounds, so that the segment opens only
//     the lists that can enter the page, as a search repeated would;
//     and where a segment's prefix term holds other words, how its
//     bitset differs from the expansion's documents (bitsFix), so that
//     a count copies the bitset instead of ORing the lists.
//
// The scans are of the segments of at most 1/firstScanShare of the
// documents: their cost at each build follows those segments' size,
// and a larger segment's scan is its first search's. Covering more
// prefixes (those of many words that no segment holds as a prefix term)
// made the file and its build cost several times the delta's own.
//
// The file names the segments it was made for, their documents, terms
// and deletions: a Multi of other segments, or of the same with other
// deletions, ignores it and counts as before.

// FirstFile is the file of a segment's search directory that holds what
// first searches over its snapshot's segments need (FORMAT.md).
const FirstFile = "search/first.bin"

// The magics of the file's versions: version 1 lists the deleted
// documents of the terms whose lists are not short (countShort), version
// 2 those of every word too.
const (
	firstMagic1 = "osfirst1"
	firstMagic  = "osfirst2"
)

// First is a snapshot's FirstFile, read.
type First struct {
	version int // 1 or 2 (firstMagic1, firstMagic)
	segs    []firstSeg
	// limit is the query.MaxExpansions the expansions were made with.
	limit int
	// prefixes are each prefix's expansion, encoded (decodeExpansion).
	prefixes map[string][]byte
}

// firstSeg is a segment as the file names it, and its words' deleted
// documents.
type firstSeg struct {
	id                   string
	docs, terms, deleted int64
	delHash              uint64
	// The terms 0..hi-1 (pair terms 0..lo-1, words lo..hi-1) whose
	// lists countShort does not count, or (words) every word's if
	// words, and that have deleted documents: ids increasing, and their
	// counts in any field (the pair terms are of PairFields alone: in
	// those fields too).
	lo, hi int32
	words  bool
	ids    []int32
	counts []int32
	// at indexes ids: at[b] is the first of ids at least b<<firstBucket.
	at []int32
}

// firstBucket: a segment's listed terms are found by their bucket of
// 1<<firstBucket ids (firstSeg.at), then a binary search in it.
const firstBucket = 8

// index makes s.at.
func (s *firstSeg) index() {
	s.at = make([]int32, int(s.hi)>>firstBucket+2)
	j := 0
	for b := range s.at {
		for j < len(s.ids) && int(s.ids[j]) < b<<firstBucket {
			j++
		}
		s.at[b] = int32(j)
	}
}

// count returns the deleted documents listed for term id (< hi), 0 if
// none are.
func (s *firstSeg) count(id int) int64 {
	b := id >> firstBucket
	from := s.at[b]
	if i, ok := slices.BinarySearch(s.ids[from:s.at[b+1]], int32(id)); ok {
		return int64(s.counts[int(from)+i])
	}
	return 0
}

// delHash fingerprints a segment's deleted documents.
func delHash(del []int32) uint64 {
	h := fnv.New64a()
	var b [4]byte
	for _, d := range del {
		binary.LittleEndian.PutUint32(b[:], uint32(d))
		h.Write(b[:])
	}
	return h.Sum64()
}

// noCites are the citations of a Multi that only counts.
type noCites struct{}

func (noCites) Count(int32) int32    { return 0 }
func (noCites) Citing(int32) []int32 { return nil }

// MakeFirst returns the FirstFile of the snapshot of segs, oldest
// first, named ids (the newest segment's build writes it): what first
// searches over them need. It costs what the first search of every
// prefix it keeps would, its words' live documents counted once. nil if
// the segments need none (one segment without deletions).
func MakeFirst(ctx context.Context, ids []string, segs []Segment) ([]byte, error) {
	return makeFirst(ctx, ids, segs, 2)
}

// makeFirst is MakeFirst writing the file's version 1 or 2.
func makeFirst(ctx context.Context, ids []string, segs []Segment, version int) ([]byte, error) {
	if len(ids) != len(segs) {
		return nil, fmt.Errorf("%w: %d segment names for %d segments", ErrSegments, len(ids), len(segs))
	}
	m, err := NewMulti("", segs, noCites{})
	if err != nil {
		return nil, err
	}
	if m.lone != nil {
		return nil, nil
	}
	f := &First{version: version, limit: query.MaxExpansions, prefixes: map[string][]byte{}}
	var prefixes []string
	for i, g := range m.segs {
		s := firstSeg{id: ids[i], docs: int64(g.Index.n), terms: int64(g.Index.nTerms),
			deleted: int64(len(g.Deleted)), delHash: delHash(g.Deleted), words: version >= 2}
		lo, hi := g.Index.wordRange()
		s.lo, s.hi = int32(lo), int32(hi)
		if g.del != nil {
			id := 0
			ok := g.Index.walkRecs(0, hi, func(rec termRec) {
				var n int64
				switch short := g.shortList(rec, allFields); {
				case !short:
					n = g.countDeleted(id, rec, allFields)
				case s.words && id >= lo:
					var ok bool
					if n, ok = g.countShort(rec, allFields); !ok {
						n = g.countDeleted(id, rec, allFields)
					}
				}
				if n > 0 {
					s.ids, s.counts = append(s.ids, int32(id)), append(s.counts, int32(n))
				}
				id++
			})
			if !ok {
				return nil, fmt.Errorf("%w: segment %s's dictionary", ErrMalformed, ids[i])
			}
		}
		s.index()
		f.segs = append(f.segs, s)
		prefixes = append(prefixes, g.Index.prefixTerms()...)
	}
	for i, g := range m.segs {
		g.first = &f.segs[i] // the prefixes' words are counted from them
	}
	slices.Sort(prefixes)
	prefixes = slices.Compact(prefixes)
	for _, p := range prefixes {
		m.expansion(0, 'p', p)
		x, _ := m.cache.expansion("p" + p)
		// The corrections first: the scans below then copy the prefix
		// terms' bitsets, corrected, instead of ORing the lists again.
		x.fixes = make([]*bitsFix, len(m.segs))
		for s, g := range m.segs {
			if !x.bits[s] {
				if x.fixes[s], err = g.bitsFix(p, x.ids[s], x.recs[s]); err != nil {
					return nil, err
				}
			}
		}
		b := encodeExpansion(nil, x)
		for s, g := range m.segs {
			var sx *segExp
			if int64(g.Index.n)*firstScanShare <= int64(m.n) {
				// The prefix searched alone in the segment keeps its scan.
				r := Request{Query: &query.Term{Word: p, Prefix: true}, Limit: 10}
				if _, err := checkRequest(&r, ""); err != nil {
					return nil, err
				}
				if _, err := g.Index.run(ctx, &r, nil, m.segment(s, nil)); err != nil {
					return nil, err
				}
				sx = m.cache.segExp(segExpKey{seg: s, kind: 'p', mask: anyFields, word: p})
			}
			b = encodeScan(b, x.ids[s], sx)
		}
		for _, fix := range x.fixes {
			b = encodeFix(b, fix)
		}
		f.prefixes[p] = b
	}
	return f.encode(), nil
}

// firstScanShare: the scans of a prefix are kept for the segments of
// at most 1/firstScanShare of the live documents, the lists of all
// its words and bounds counted at each build, in proportion to their
// documents; a larger segment's first scan, as long, is left to the
// first search.
const firstScanShare = 8

// firstLists is how many lists of a segment's expansion, from the
// highest bound, the file keeps the bounds of: a prefix's first page
// seldom opens more in a segment, and a search that does opens the
// others to know theirs.
const firstLists = 8

// encodeScan appends x, a segment's scan of an expansion of the words
// ids in the default fields, if it has one: its count, its first lists
// (their place in ids and bounds) and the highest bound of the others.
func encodeScan(b []byte, ids []int, x *segExp) []byte {
	if x == nil || x.partial || !slices.Equal(x.ids, ids) || slices.ContainsFunc(x.masks, func(m uint8) bool { return m != anyFields }) {
		return append(b, 0)
	}
	b = append(b, 1)
	b = binary.AppendUvarint(b, uint64(x.total))
	k := min(firstLists, len(x.order))
	b = binary.AppendUvarint(b, uint64(k))
	for _, i := range x.order[:k] {
		b = binary.AppendUvarint(b, uint64(i))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x.tops[i]))
	}
	if k < len(x.order) {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x.tops[x.order[k]]))
	}
	return b
}

// wordRange returns the ids of the index's words: after the pair terms,
// before the prefix terms.
func (ix *Index) wordRange() (lo, hi int) {
	_, lo = ix.prefixRange(pairMark)
	hi, _ = ix.prefixRange(prefixMark)
	return lo, max(lo, hi)
}

// prefixTerms returns the prefixes the index holds as prefix terms.
func (ix *Index) prefixTerms() []string {
	at, hi := ix.prefixRange(prefixMark)
	if at >= hi {
		return nil
	}
	c, ok := ix.cursor(at)
	var out []string
	for ok && at < hi {
		out = append(out, string(c.term[len(prefixMark):]))
		if at++; at < hi {
			ok = c.next()
		}
	}
	return out
}

// encodeExpansion appends x: per segment, its words' count, then per
// word its id (less the previous one's) and its live documents over
// all, then whether the segment's prefix term holds them.
func encodeExpansion(b []byte, x *mexp) []byte {
	for s := range x.ids {
		b = binary.AppendUvarint(b, uint64(len(x.ids[s])))
		prev := 0
		for i, id := range x.ids[s] {
			b = binary.AppendUvarint(b, uint64(id-prev))
			b = binary.AppendUvarint(b, uint64(x.dfs[s][i]))
			prev = id
		}
		hold := byte(0)
		if x.bits[s] {
			hold = 1
		}
		b = append(b, hold)
	}
	return b
}

// decodeExpansion reads encodeExpansion's b, then each segment's
// encodeScan, for the Multi's segments, the scans into scans; false if
// it does not read back.
func (m *Multi) decodeExpansion(b []byte, scans []*segExp) (*mexp, bool) {
	n := len(m.segs)
	// The words' records are read when a segment's search asks for them
	// (recsAt): a segment whose scan the file keeps opens few lists.
	x := &mexp{ids: make([][]int, n), recs: make([][]termRec, n), dfs: make([][]int64, n), bits: make([]bool, n),
		lazy: make([]sync.Once, n)}
	at := 0
	next := func() (int, bool) {
		v, k := binary.Uvarint(b[at:])
		if k <= 0 || v > 1<<40 {
			return 0, false
		}
		at += k
		return int(v), true
	}
	flag := func() (set, ok bool) { // a byte of 0 or 1
		if at >= len(b) || b[at] > 1 {
			return false, false
		}
		at++
		return b[at-1] == 1, true
	}
	// The segments' words share two arrays, of their count: a first
	// search decodes thousands of them.
	words, ok := expansionWords(b, n)
	if !ok {
		return nil, false
	}
	ids, dfs := make([]int, 0, words), make([]int64, 0, words)
	for s, g := range m.segs {
		k, ok := next()
		if !ok || k > query.MaxExpansions || k > cap(ids)-len(ids) {
			return nil, false
		}
		from, id := len(ids), 0
		for range k {
			gap, ok1 := next()
			df, ok2 := next()
			if id += gap; !ok1 || !ok2 || id >= g.Index.nTerms {
				return nil, false
			}
			ids, dfs = append(ids, id), append(dfs, int64(df))
		}
		x.ids[s], x.dfs[s] = ids[from:len(ids):len(ids)], dfs[from:len(dfs):len(dfs)]
		if x.bits[s], ok = flag(); !ok {
			return nil, false
		}
	}
	float := func() (float64, bool) {
		if at+8 > len(b) {
			return 0, false
		}
		at += 8
		return math.Float64frombits(binary.LittleEndian.Uint64(b[at-8:])), true
	}
	for s, g := range m.segs {
		if has, ok := flag(); !ok {
			return nil, false
		} else if !has {
			continue
		}
		ids := x.ids[s]
		total, ok1 := next()
		k, ok2 := next()
		if !ok1 || !ok2 || k > len(ids) || total > int(g.Index.n) {
			return nil, false
		}
		// The masks are all the default fields', the IDFs taken from
		// dfs by the lists opened (segExp.list).
		sx := &segExp{ids: ids, dfs: x.dfs[s], tops: make([]float64, len(ids)), order: make([]int, 0, k), total: int64(total)}
		for range k {
			i, ok := next()
			if !ok || i >= len(ids) || slices.Contains(sx.order, i) {
				return nil, false
			}
			if sx.tops[i], ok = float(); !ok {
				return nil, false
			}
			sx.order = append(sx.order, i)
		}
		if k < len(ids) {
			var ok bool
			if sx.restTop, ok = float(); !ok {
				return nil, false
			}
			sx.partial = true
		}
		scans[s] = sx
	}
	if at < len(b) { // absent from files written before there were fixes
		x.fixes = make([]*bitsFix, n)
		for s, g := range m.segs {
			if has, ok := flag(); !ok {
				return nil, false
			} else if !has {
				continue
			}
			fix := &bitsFix{}
			for _, ds := range []*[]int32{&fix.plus, &fix.minus} {
				k, ok := next()
				if !ok || k > int(g.Index.n) {
					return nil, false
				}
				d := -1
				for range k {
					gap, ok := next()
					if d += gap + 1; !ok || d >= int(g.Index.n) {
						return nil, false
					}
					*ds = append(*ds, int32(d))
				}
			}
			x.fixes[s] = fix
		}
	}
	return x, at == len(b)
}

// expansionWords returns the number of words of encodeExpansion's b
// over n segments, its varints skipped; false if it does not read back.
func expansionWords(b []byte, n int) (int, bool) {
	at, words := 0, 0
	for range n {
		k, w := binary.Uvarint(b[at:])
		if w <= 0 || k > query.MaxExpansions {
			return 0, false
		}
		at += w
		for range 2 * k {
			if _, w = binary.Uvarint(b[at:]); w <= 0 {
				return 0, false
			}
			at += w
		}
		if at++; at > len(b) {
			return 0, false
		}
		words += int(k)
	}
	return words, true
}

// encode lays the file out (FORMAT.md).
func (f *First) encode() []byte {
	b := []byte(firstMagic)
	if f.version < 2 {
		b = []byte(firstMagic1)
	}
	b = binary.AppendUvarint(b, uint64(f.limit))
	b = binary.AppendUvarint(b, uint64(len(f.segs)))
	for _, s := range f.segs {
		b = binary.AppendUvarint(b, uint64(len(s.id)))
		b = append(b, s.id...)
		for _, v := range []int64{s.docs, s.terms, s.deleted, int64(s.lo), int64(s.hi), int64(len(s.ids))} {
			b = binary.AppendUvarint(b, uint64(v))
		}
		b = binary.LittleEndian.AppendUint64(b, s.delHash)
		prev := int32(0)
		for i, id := range s.ids {
			b = binary.AppendUvarint(b, uint64(id-prev))
			b = binary.AppendUvarint(b, uint64(s.counts[i]))
			prev = id
		}
	}
	ps := make([]string, 0, len(f.prefixes))
	for p := range f.prefixes {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	b = binary.AppendUvarint(b, uint64(len(ps)))
	for _, p := range ps {
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
		b = binary.AppendUvarint(b, uint64(len(f.prefixes[p])))
		b = append(b, f.prefixes[p]...)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// ReadFirst reads a segment's FirstFile; nil and no error if it has
// none (a segment written before there was one, or without deletions
// to count).
func ReadFirst(path string) (*First, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	f, ok := decodeFirst(b)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, path)
	}
	return f, nil
}

// decodeFirst reads encode's b; false if it does not read back.
func decodeFirst(b []byte) (*First, bool) {
	version := 0
	if len(b) >= len(firstMagic)+4 {
		switch string(b[:len(firstMagic)]) {
		case firstMagic1:
			version = 1
		case firstMagic:
			version = 2
		}
	}
	if version == 0 || crc32.ChecksumIEEE(b[:len(b)-4]) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, false
	}
	b = b[:len(b)-4]
	at := len(firstMagic)
	bad := false
	next := func() int64 {
		v, k := binary.Uvarint(b[min(at, len(b)):])
		if k <= 0 || v > 1<<62 {
			bad = true
			return 0
		}
		at += k
		return int64(v)
	}
	bytesOf := func() []byte {
		n := next()
		if bad || n > int64(len(b)-at) {
			bad = true
			return nil
		}
		at += int(n)
		return b[at-int(n) : at]
	}
	f := &First{version: version, limit: int(next()), prefixes: map[string][]byte{}}
	nseg := next()
	if bad || nseg > int64(len(b)) {
		return nil, false
	}
	for range nseg {
		s := firstSeg{id: string(bytesOf()), words: version >= 2}
		s.docs, s.terms, s.deleted = next(), next(), next()
		s.lo, s.hi = int32(next()), int32(next())
		n := next()
		if bad || at+8 > len(b) || n > int64(len(b)) || s.hi < s.lo || int64(s.hi) > s.terms {
			return nil, false
		}
		s.delHash = binary.LittleEndian.Uint64(b[at:])
		at += 8
		id := int64(-1)
		for k := range n {
			gap := next()
			c := next()
			if k == 0 {
				gap++ // the first id is written whole
			}
			if id += gap; bad || gap == 0 || id >= int64(s.hi) || c > s.deleted {
				return nil, false
			}
			s.ids, s.counts = append(s.ids, int32(id)), append(s.counts, int32(c))
		}
		s.index()
		f.segs = append(f.segs, s)
	}
	np := next()
	if bad || np > int64(len(b)) {
		return nil, false
	}
	for range np {
		p := string(bytesOf())
		f.prefixes[p] = bytesOf()
	}
	return f, !bad && at == len(b)
}

// UseFirst makes the Multi look up what f holds instead of counting it,
// if f was made for its segments, named ids (oldest first) and their
// deletions; it reports whether. Call it before the first search.
func (m *Multi) UseFirst(f *First, ids []string) bool {
	if f == nil || m.lone != nil || len(f.segs) != len(m.segs) || len(ids) != len(m.segs) {
		return false
	}
	for i, g := range m.segs {
		s := &f.segs[i]
		lo, hi := g.Index.wordRange()
		if s.id != ids[i] || s.docs != int64(g.Index.n) || s.terms != int64(g.Index.nTerms) ||
			s.deleted != int64(len(g.Deleted)) || s.delHash != delHash(g.Deleted) ||
			int(s.lo) != lo || int(s.hi) != hi {
			return false
		}
	}
	for i, g := range m.segs {
		g.first = &f.segs[i]
	}
	if f.limit == query.MaxExpansions {
		m.firstExps = f.prefixes
	}
	return true
}

// firstDeleted returns the deleted documents of term id's list with a
// field of mask as the file has them, for a list that countShort does
// not count; false if it has not.
func (g *mseg) firstDeleted(id int, mask uint8) (int64, bool) {
	s := g.first
	if s == nil || id >= int(s.hi) || mask != allFields && (id >= int(s.lo) || mask&PairFields != PairFields) {
		return 0, false
	}
	return s.count(id), true
}

// firstWordDeleted returns the deleted documents of word id's list in
// any field (mask allFields) as the file has them, short lists too;
// false if it has not (a file of version 1 lists no short one).
func (g *mseg) firstWordDeleted(id int, mask uint8) (int64, bool) {
	s := g.first
	if s == nil || !s.words || mask != allFields || id < int(s.lo) || id >= int(s.hi) {
		return 0, false
	}
	return s.count(id), true
}

// firstExpansion returns the expansion of prefix p the file holds.
func (m *Multi) firstExpansion(p string) (*mexp, bool) {
	b, ok := m.firstExps[p]
	if !ok {
		return nil, false
	}
	scans := make([]*segExp, len(m.segs))
	x, ok := m.decodeExpansion(b, scans)
	if !ok {
		return nil, false // damaged: counted as without the file
	}
	for s, sx := range scans {
		if sx != nil {
			m.cache.putSegExp(segExpKey{seg: s, kind: 'p', mask: anyFields, word: p}, sx)
		}
	}
	return x, true
}

// A segment's prefix term holds the documents of its own choice of the
// prefix's words (its MaxExpansions most frequent), which over segments
// differs from the archive's choice by a few dozen rare words in most
// segments: at 100 000 documents in 10 segments, no segment's prefix
// term of the prefixes of many words held the archive's words, and each
// search ORed its hundreds of lists instead of copying the bitset. The
// documents by which the bitset differs from those of the archive's
// words are few (those of the differing words, rare in the segment), so
// the FirstFile keeps them: the count copies the bitset, sets the
// documents it lacks and clears those it has too many (expansionBits).

// bitsFix is how a segment's prefix term's bitset (the default fields')
// differs from the documents of the archive's choice of the prefix's
// words, over the segment's live documents: plus it lacks, minus it has
// too many; both increasing.
type bitsFix struct {
	plus, minus []int32
}

// bitsFix returns how the segment's prefix term of p differs from the
// documents of its words ids (records recs) in the default fields; nil
// if it has no such prefix term or the expansion is of fewer than two
// words (one list is counted as a list).
func (g *mseg) bitsFix(p string, ids []int, recs []termRec) (*bitsFix, error) {
	ix := g.Index
	ps := ix.prefixBits(p, ids, anyFields, true)
	if ps == nil || len(ids) < 2 {
		return nil, nil
	}
	b := ps.def // the default fields: no other documents' gaps
	e := make([]uint64, len(b))
	// The lists are read one after the other, into one list's memory.
	var l postings
	docs, delta := make([]int32, blockDocs), make([]uint32, blockDocs)
	for i, id := range ids {
		n := blockLen(recs[i])
		ix.openInto(&l, id, recs[i], anyFields, docs[:n:n], delta[:n:n])
		if (&winList{p: &l}).fill(e, 0, ix.n); l.bad {
			return nil, fmt.Errorf("%w: a list of prefix %q", ErrMalformed, p)
		}
	}
	fix := &bitsFix{}
	for w := range b {
		live := ^uint64(0)
		if g.del != nil {
			live = ^g.del[w]
		}
		for x := e[w] &^ b[w] & live; x != 0; x &= x - 1 {
			fix.plus = append(fix.plus, int32(w*64+bits.TrailingZeros64(x)))
		}
		for x := b[w] &^ e[w] & live; x != 0; x &= x - 1 {
			fix.minus = append(fix.minus, int32(w*64+bits.TrailingZeros64(x)))
		}
	}
	return fix, nil
}

// apply makes set, a copy of the prefix term's bitset, the documents of
// the archive's words (their live ones exactly).
func (f *bitsFix) apply(set []uint64) {
	for _, d := range f.plus {
		set[d>>6] |= 1 << (d & 63)
	}
	for _, d := range f.minus {
		set[d>>6] &^= 1 << (d & 63)
	}
}

// encodeFix appends fix: 0 if none, else 1, then its plus and minus
// documents, each as a count and gaps.
func encodeFix(b []byte, fix *bitsFix) []byte {
	if fix == nil {
		return append(b, 0)
	}
	b = append(b, 1)
	for _, ds := range [][]int32{fix.plus, fix.minus} {
		b = binary.AppendUvarint(b, uint64(len(ds)))
		prev := int32(-1)
		for _, d := range ds {
			b = binary.AppendUvarint(b, uint64(d-prev-1))
			prev = d
		}
	}
	return b
}

// prefixFix returns how segment seg's prefix term of p differs from the
// archive's choice of its words, nil if not known (multifirst.go).
func (m *Multi) prefixFix(seg int, p string) *bitsFix {
	x, ok := m.cache.expansion("p" + p)
	if !ok || x.fixes == nil {
		return nil
	}
	return x.fixes[seg]
}

// recsOf returns the records of the terms ids (increasing), reading
// only the dictionary's blocks that hold them: a prefix's words lie
// among thousands of terms, mostly far apart. false if the dictionary
// is damaged.
func (ix *Index) recsOf(ids []int) ([]termRec, bool) {
	recs := make([]termRec, 0, len(ids))
	for i := 0; i < len(ids); {
		// The ids of one block of the dictionary, walked from its start.
		j := i
		for j < len(ids) && ids[j]/termBlock == ids[i]/termBlock {
			j++
		}
		t, k := ids[i], i
		if !ix.walkRecs(ids[i], ids[j-1]+1, func(rec termRec) {
			if k < j && ids[k] == t {
				recs = append(recs, rec)
				k++
			}
			t++
		}) || k != j {
			return nil, false
		}
		i = j
	}
	return recs, true
}

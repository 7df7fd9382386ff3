package search

import (
	"cmp"
	"container/heap"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"syscall"
	"unicode/utf8"

	"github.com/openshelf/openshelf/index/search/query"
)

// Prefix terms (FORMAT.md), in the spirit of Elasticsearch's
// index_prefixes. A prefix alone or beside words ("cons*", "cons*
// science") is counted from the bitset of its expansion's documents
// (expand.go, conjexpansion.go), which its first search filled by ORing
// up to query.MaxExpansions lists: at 10M documents 7.3M postings for
// "cons*", 55–59 ms of CPU (git history of BENCHMARKS.md), while its
// second search read the kept bitset. The index therefore holds, for
// each prefix whose expansion is long, one list of the documents of its
// expansion (each once, with the union of its words' field masks), so
// that a first search unpacks each matching document once instead of
// once per word. The page is still ranked from the words' own lists
// (expand.go), which the list does not replace: it has no frequencies.

// prefixMark opens a prefix term: 0xff is in no UTF-8 string, so the
// prefix terms sort after every word and pair term and no word prefix
// ranges over them.
const prefixMark = "\xff"

// PrefixTerm is the term holding the documents of the expansion of
// prefix p (FORMAT.md).
func PrefixTerm(p string) string { return prefixMark + p }

func isPrefixTerm(t string) bool { return len(t) > 0 && t[0] == prefixMark[0] }

// The prefixes indexed: 2 to 8 bytes, ending on a character boundary,
// whose expansion has at least two words and, in all, postings in at
// least 1/prefixShare of the documents (a shorter expansion fills its
// bitset quickly: at 10M documents, 625 000 postings take about 5 ms).
const (
	minPrefixBytes = 2
	maxPrefixBytes = 8
	prefixShare    = 16
)

// prefixWord is a word of an open prefix range: its documents, the file
// offset of its skip table and its rank in the dictionary.
type prefixWord struct {
	df      uint32
	skipOff uint64
	ord     int64
}

// prefixTop is a min-heap of the most frequent words of a range, by the
// order expandPrefix chooses them (df descending, then term order): its
// root is the word the next better one pushes out.
type prefixTop []prefixWord

func (h prefixTop) Len() int { return len(h) }
func (h prefixTop) Less(i, j int) bool {
	return h[i].df < h[j].df || (h[i].df == h[j].df && h[i].ord > h[j].ord)
}
func (h prefixTop) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *prefixTop) Push(x any)   { *h = append(*h, x.(prefixWord)) }
func (h *prefixTop) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// prefixRange is the open range of the words starting with prefix.
type prefixRange struct {
	prefix []byte // nil: none open
	words  int
	top    prefixTop
}

// prefixList is a prefix to index and the words of its expansion.
type prefixList struct {
	prefix string
	words  []prefixWord
}

// prefixTracker follows the words as they stream in byte order, one open
// range per prefix length, and keeps the prefixes to index.
type prefixTracker struct {
	open        [maxPrefixBytes + 1]prefixRange
	minPostings int64
	lists       []prefixList
}

// add records word (not a pair term), the ord-th term.
func (pt *prefixTracker) add(word []byte, w prefixWord) {
	for l := minPrefixBytes; l <= maxPrefixBytes; l++ {
		r := &pt.open[l]
		if r.prefix != nil && (len(word) < l || string(word[:l]) != string(r.prefix)) {
			pt.close(r)
		}
		if r.prefix == nil {
			if len(word) < l || (l < len(word) && !utf8.RuneStart(word[l])) {
				continue
			}
			r.prefix = append(r.prefix[:0:0], word[:l]...)
		}
		r.words++
		switch {
		case len(r.top) < query.MaxExpansions:
			heap.Push(&r.top, w)
		case w.df > r.top[0].df: // a later word ties below an earlier one
			r.top[0] = w
			heap.Fix(&r.top, 0)
		}
	}
}

// close ends range r, keeping its prefix if its expansion is long.
func (pt *prefixTracker) close(r *prefixRange) {
	var sum int64
	for _, w := range r.top {
		sum += int64(w.df)
	}
	if r.words >= 2 && sum >= pt.minPostings {
		ws := slices.Clone([]prefixWord(r.top))
		slices.SortFunc(ws, func(a, b prefixWord) int { return cmp.Compare(a.skipOff, b.skipOff) })
		pt.lists = append(pt.lists, prefixList{prefix: string(r.prefix), words: ws})
	}
	r.prefix, r.words, r.top = nil, 0, r.top[:0]
}

// finish closes every range and returns the prefixes to index in byte
// order.
func (pt *prefixTracker) finish() []prefixList {
	for l := range pt.open {
		if pt.open[l].prefix != nil {
			pt.close(&pt.open[l])
		}
	}
	slices.SortFunc(pt.lists, func(a, b prefixList) int { return cmp.Compare(a.prefix, b.prefix) })
	return pt.lists
}

// writePrefixes appends the prefix terms after the words: each one's
// documents, read back from the words' lists written so far.
func (w *Writer) writePrefixes() error {
	lists := w.prefixes.finish()
	if len(lists) == 0 {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	mm, err := syscall.Mmap(int(w.f.Fd()), 0, int(w.off), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("search: mmap the postings written: %w", err)
	}
	defer syscall.Munmap(mm)
	u := prefixUnion{set: make([]uint64, (w.n+63)/64), masks: make([]byte, w.n)}
	for _, l := range lists {
		for _, word := range l.words {
			if err := u.addList(mm, word); err != nil {
				return err
			}
		}
		if err := w.writePrefixTerm(l.prefix, &u); err != nil {
			return err
		}
	}
	return nil
}

// prefixUnion collects the documents of a prefix's words and the union
// of each one's field masks.
type prefixUnion struct {
	set   []uint64
	masks []byte
	delta [blockDocs]uint32
}

// addList ORs a word's list, as written in mm, into the union.
func (u *prefixUnion) addList(mm []byte, word prefixWord) error {
	nblocks := (int(word.df) + blockDocs - 1) / blockDocs
	doc := int64(-1)
	for b := range nblocks {
		e := getSkip(mm[word.skipOff+uint64(b)*skipEntrySize:])
		cnt := min(int(word.df)-b*blockDocs, blockDocs)
		blk := mm[e.Off:]
		width := int(blk[0])
		unpack(u.delta[:cnt], blk[1:], width)
		masks := blk[1+packedLen(cnt, width):]
		for i, d := range u.delta[:cnt] {
			doc += int64(d) + 1
			u.set[doc>>6] |= 1 << (doc & 63)
			u.masks[doc] |= masks[i]
		}
		if doc != int64(e.LastDoc) {
			return fmt.Errorf("search: reading back a list for a prefix: block ends at %d, not %d", doc, e.LastDoc)
		}
	}
	return nil
}

// writePrefixTerm writes the union's documents as the term of prefix p,
// in blocks of a doc part alone (FORMAT.md; the frequency and position
// parts stay empty), and clears the union.
func (w *Writer) writePrefixTerm(p string, u *prefixUnion) error {
	bk := &w.blk
	bk.prevLast, bk.last = -1, -1
	bk.reset()
	w.skips = w.skips[:0]
	df := uint32(0)
	for k, word := range u.set {
		for word != 0 {
			d := int32(k<<6 + bits.TrailingZeros64(word))
			word &= word - 1
			bk.deltas = append(bk.deltas, uint32(d-max(bk.last, bk.prevLast)-1))
			bk.masks = append(bk.masks, u.masks[d])
			bk.impacts = append(bk.impacts, 255)
			bk.maskOr |= u.masks[d]
			// No frequencies: bounds no score can exceed.
			bk.wAny, bk.wAll = math.MaxFloat32, math.MaxFloat32
			u.masks[d] = 0
			bk.last = d
			df++
			if len(bk.deltas) == blockDocs {
				if err := w.flushBlock(); err != nil {
					return err
				}
			}
		}
		u.set[k] = 0
	}
	if err := w.flushBlock(); err != nil {
		return err
	}
	_, err := w.writeTerm([]byte(PrefixTerm(p)), df)
	return err
}

// prefixDocs returns the term of prefix p's documents if the index has
// one and it holds exactly the words ids (expandPrefix's choice for this
// index), else -1.
func (ix *Index) prefixDocs(p string, ids []int, own bool) int {
	if len(ids) < 2 || ix.noPrefixTerms {
		return -1
	}
	t := ix.lookup(PrefixTerm(p))
	if t < 0 || (!own && !slices.Equal(ids, ix.expandPrefix(p, query.MaxExpansions))) {
		return -1
	}
	return t
}

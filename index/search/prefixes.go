package search

import (
	"cmp"
	"container/heap"
	"encoding/binary"
	"fmt"
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
// each prefix whose expansion is long, that bitset itself: the documents
// of its expansion in the default fields (title, abstract, author,
// keyword, doi), and those in full text only, so that a first search
// copies it (and, in all fields, sets the others' bits) instead of
// unpacking every posting. Such an expansion covers a large share of the
// corpus (at 1M documents, 42 % on average of those indexed), where a
// bitset takes a fraction of the bytes of a list of its documents with
// their field masks; the full-text-only documents, about 8 % of the
// corpus, take about half a bitset's bytes as packed gaps. The page is
// still ranked from the words' own lists (expand.go). A prefix
// searched in one field, or with another field set, is counted from its
// words' lists.

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
// bitset quickly: at 10M documents, 2.5M postings take about 20 ms).
const (
	minPrefixBytes = 2
	maxPrefixBytes = 8
	prefixShare    = 4
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
// sets, from the words' lists written so far, read back.
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
	words := (int(w.n) + 63) / 64
	u := prefixUnion{set: make([]uint64, words), masks: make([]byte, w.n), def: make([]uint64, words)}
	buf := make([]byte, 0, 8*words)
	var delta [blockDocs]uint32
	for _, l := range lists {
		for _, word := range l.words {
			if err := u.addList(mm, word); err != nil {
				return err
			}
		}
		df := u.split()
		if err := w.align(); err != nil {
			return err
		}
		off := uint64(w.off)
		// The default fields' bitset, then the other documents of the
		// expansion (a word in full text only) as blocks of packed gaps,
		// or as a bitset where that is smaller.
		buf = buf[:0]
		var extra uint32
		for k, x := range u.def {
			buf = binary.LittleEndian.AppendUint64(buf, x)
			extra += uint32(bits.OnesCount64(u.set[k] &^ x))
		}
		at := len(buf)
		buf = binary.LittleEndian.AppendUint32(buf, extra)
		n, prev := 0, -1
		for k, x := range u.set {
			for x &^= u.def[k]; x != 0; x &= x - 1 {
				d := k<<6 + bits.TrailingZeros64(x)
				delta[n], prev = uint32(d-prev-1), d
				if n++; n == blockDocs {
					buf, n = appendGaps(buf, delta[:n]), 0
				}
			}
		}
		buf = appendGaps(buf, delta[:n])
		if len(buf)-at > 8+8*words {
			buf = binary.LittleEndian.AppendUint64(buf[:at], othersBitset)
			for k, x := range u.set {
				buf = binary.LittleEndian.AppendUint64(buf, x&^u.def[k])
			}
		}
		if err := w.write(buf); err != nil {
			return err
		}
		clear(u.def)
		clear(u.set)
		if err := w.dict.add([]byte(PrefixTerm(l.prefix)), termRec{SkipOff: off, DF: df}); err != nil {
			return err
		}
		w.nTerms++
	}
	return nil
}

// appendGaps appends a block of gaps (none: nothing): their bit width
// and the gaps packed.
func appendGaps(dst []byte, gaps []uint32) []byte {
	if len(gaps) == 0 {
		return dst
	}
	b := bitWidth(gaps)
	return appendPacked(append(dst, byte(b)), gaps, b)
}

// prefixUnion collects the documents of a prefix's words and the union
// of each one's field masks.
type prefixUnion struct {
	set    []uint64 // the documents
	masks  []byte   // each document's fields
	def    []uint64 // the documents in the default fields (split)
	delta  [blockDocs]uint32
	masks8 [blockDocs]uint8 // a block's masks
}

// addList ORs a word's list, as written in mm, into the union.
func (u *prefixUnion) addList(mm []byte, word prefixWord) error {
	nblocks := (int(word.df) + blockDocs - 1) / blockDocs
	var one [skipEntrySize]byte
	skips, _, ok := skipTable(mm, 0, uint64(len(mm)), word.skipOff, int(word.df), &one, nil)
	if !ok {
		return fmt.Errorf("search: reading back a list for a prefix: no skip table at %d", word.skipOff)
	}
	doc := int64(-1)
	for b := range nblocks {
		e := getSkip(skips[b*skipEntrySize:], word.skipOff)
		cnt := min(int(word.df)-b*blockDocs, blockDocs)
		blk := mm[e.Off:]
		width := int(blk[0])
		meta, ok := parseMeta(blk[:e.FreqOff], 1+packedLen(cnt, width), cnt, e.MaskOr)
		if !ok {
			return fmt.Errorf("search: reading back a list for a prefix: a bad block at %d", e.Off)
		}
		masks := u.masks8[:cnt]
		meta.masks(blk, masks, e.MaskOr)
		unpack(u.delta[:cnt], blk[1:], width)
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

// split sets def to the documents with a word in the default fields,
// clears the masks and returns the number of documents.
func (u *prefixUnion) split() uint32 {
	n := 0
	for k, word := range u.set {
		n += bits.OnesCount64(word)
		for word != 0 {
			d := k<<6 + bits.TrailingZeros64(word)
			word &= word - 1
			if u.masks[d]&anyFields != 0 {
				u.def[k] |= 1 << (d & 63)
			}
			u.masks[d] = 0
		}
	}
	return uint32(n)
}

// othersBitset, in place of the number of a prefix term's other
// documents (a uint32) and 4 zero bytes, says that they are a bitset.
const othersBitset = 1<<32 - 1

// prefixSet is a prefix term's documents in the index (FORMAT.md, "Prefix
// terms"): the bitset of those in the default fields and, for a search of
// all fields, the others' gaps or bitset.
type prefixSet struct {
	def    []uint64 // the documents with a word in the default fields
	extra  []byte   // nil: the default fields or others; else the other documents' blocks
	nx     int      // the other documents
	others []uint64 // the other documents as a bitset, if so written
}

// fill sets dst, a cleared bitset of the corpus, to the set's documents.
func (ps *prefixSet) fill(dst []uint64) {
	copy(dst, ps.def)
	for k, x := range ps.others {
		dst[k] |= x
	}
	if ps.extra == nil {
		return
	}
	var delta [blockDocs]uint32
	doc, n := -1, len(dst)*64
	for at, left := 0, ps.nx; left > 0; left -= blockDocs {
		cnt := min(left, blockDocs)
		b := int(ps.extra[at])
		unpack(delta[:cnt], ps.extra[at+1:], b)
		at += 1 + packedLen(cnt, b)
		for _, g := range delta[:cnt] {
			if doc += int(g) + 1; doc >= n {
				return // damaged
			}
			dst[doc>>6] |= 1 << (doc & 63)
		}
	}
}

// prefixBits returns the documents of the expansion of prefix p in the
// fields of mask as the index's set, if it has one (its prefix term, for
// the default fields or all fields) and it is of the words ids
// (expandPrefix's choice for this index: own says ids are); else nil.
func (ix *Index) prefixBits(p string, ids []int, mask uint8, own bool) *prefixSet {
	if len(ids) < 2 || ix.noPrefixTerms || (mask != anyFields && mask != anyFieldsFulltext) {
		return nil
	}
	t := ix.lookup(PrefixTerm(p)) // a prefix term: its sets are at SkipOff
	if t < 0 {
		return nil
	}
	size := uint64(setBytes(ix.n))
	off := ix.rec(t).SkipOff
	if off%8 != 0 || off < ix.postLo || off+size+4 > ix.postHi || off+size < off {
		return nil // damaged: the words' lists count it
	}
	if !own {
		if mine, _ := ix.expandPrefix(p, query.MaxExpansions); !slices.Equal(ids, mine) {
			return nil
		}
	}
	ps := &prefixSet{def: castSlice[uint64](ix.mm[off : off+size])}
	end := off + size
	switch {
	case mask != anyFieldsFulltext:
	case binary.LittleEndian.Uint32(ix.mm[end:]) == othersBitset:
		if end+8+size > ix.postHi {
			return nil
		}
		ps.others = castSlice[uint64](ix.mm[end+8 : end+8+size])
		end += 8 + size
	default:
		x, ok := ix.prefixExtra(end)
		if !ok {
			return nil
		}
		ps.extra, ps.nx = ix.mm[end+4:x], int(binary.LittleEndian.Uint32(ix.mm[end:]))
		end = x
	}
	ix.res.Touch(int(off), int(end))
	return ps
}

// prefixExtra checks that the blocks of the other documents of a prefix
// term at off lie in the postings and returns their end (fill keeps
// their documents within the corpus).
func (ix *Index) prefixExtra(off uint64) (uint64, bool) {
	at := off + 4
	for left := int(binary.LittleEndian.Uint32(ix.mm[off:])); left > 0; left -= blockDocs {
		if at >= ix.postHi {
			return 0, false
		}
		b := int(ix.mm[at])
		if at += 1 + uint64(packedLen(min(left, blockDocs), b)); b > 32 || at > ix.postHi {
			return 0, false
		}
	}
	return at, true
}

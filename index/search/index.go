package search

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/openshelf/openshelf/snapshot"
)

// Rows of the snapshot's search tables, as package index writes them (see
// data/README.md); parquet-go maps columns by name.
type (
	termRow struct {
		TermID int32  `parquet:"term_id"`
		Term   string `parquet:"term"`
		DF     int32  `parquet:"df"`
	}
	postingRow struct {
		TermID int32 `parquet:"term_id"`
		Doc    int32 `parquet:"doc"`
		Field  int8  `parquet:"field"`
		TF     int16 `parquet:"tf"`
	}
	searchDocRow struct {
		Doc         int32    `parquet:"doc"`
		ID          string   `parquet:"id"`
		LenTitle    int16    `parquet:"len_title"`
		LenKeywords int16    `parquet:"len_keywords"`
		LenAuthors  int16    `parquet:"len_authors"`
		Year        int32    `parquet:"year"`
		License     string   `parquet:"license"`
		Topics      []string `parquet:"topics,list"`
		HasFulltext bool     `parquet:"has_fulltext"`
	}
	fieldRow struct {
		Field  int8    `parquet:"field"`
		AvgLen float64 `parquet:"avg_len"`
		Weight float64 `parquet:"weight"`
	}
)

// ErrMalformed reports a search index that does not have the documented
// shape (data/README.md): the snapshot is unusable.
var ErrMalformed = errors.New("search: malformed search index")

// BM25 parameters. Field weights and average lengths come from the
// snapshot's search/fields table.
const (
	K1 = 1.2
	B  = 0.75
)

// Filters restrict a search or a listing; every field is optional.
type Filters struct {
	Topic            string // a topic slug; an unknown one matches nothing
	YearFrom, YearTo *int   // inclusive; undated documents match no year filter
	License          string // an exact licence name; an unknown one matches nothing
	Fulltext         bool   // only documents with full text; false restricts nothing
}

// Hit is one result: a document number (the catalog's order) and its
// BM25F score (0 in a listing).
type Hit struct {
	Doc   int32
	Score float64
}

// nFields is the number of searched fields: title, keywords, authors.
const nFields = 3

// Packed term frequencies of one (term, document) entry, 16 bits: title
// in bits 0-4, keywords 5-9, authors 10-15. A frequency too large for its
// bits (a word 31 times in a title, a name 63 times in an author list) is
// stored as all ones there and exactly in Index.bigTF.
var (
	tfShift = [nFields]uint{0, 5, 10}
	tfMask  = [nFields]uint32{1<<5 - 1, 1<<5 - 1, 1<<6 - 1}
)

// Index is a snapshot's search index in Go memory: its terms, postings and
// per-document search columns, laid out for intersecting posting lists and
// scoring in a few milliseconds. It is read-only once loaded and safe for
// concurrent use.
type Index struct {
	n int32 // documents, numbered 0..n-1

	// Terms in byte order (the order of their ids), concatenated.
	termText []byte
	termOff  []uint32 // len terms+1, into termText
	termDF   []int32
	// Postings of term t are entries postOff[t]..postOff[t+1]-1, by doc.
	postOff []uint32
	postDoc []int32
	postTF  []uint16
	bigTF   map[uint64]int32 // entry<<2 | field -> tf, for the rare overflow

	// BM25F per field: weight, average length and each document's length.
	weight, avgLen [nFields]float64
	length         [nFields][]int16

	// Filter columns.
	year      []int32
	license   []uint8
	licenses  []string // code -> name
	fulltext  bitset
	topicBits map[string]bitset
	// topicDocs lists each topic's documents in doc order: a topic's
	// catalog page at any offset is a slice.
	topicDocs map[string][]int32
}

type bitset []uint64

func newBitset(n int) bitset      { return make(bitset, (n+63)/64) }
func (b bitset) set(i int32)      { b[i>>6] |= 1 << (uint(i) & 63) }
func (b bitset) has(i int32) bool { return b[i>>6]&(1<<(uint(i)&63)) != 0 }

// Catalog is the document list an index must agree with: search/docs
// numbers the catalog's documents 0..Len()-1 in its order, and doc d is
// the document whose canonical id is ID(d).
type Catalog interface {
	Len() int
	ID(doc int32) []byte
}

// Load reads the snapshot's search tables. Their documents must be cat's,
// in the same order; anything else is ErrMalformed.
func Load(snap *snapshot.Snapshot, cat Catalog) (*Index, error) {
	ix := &Index{topicBits: map[string]bitset{}, topicDocs: map[string][]int32{}, bigTF: map[uint64]int32{}}
	seen := [nFields]bool{}
	err := snapshot.ReadParquet(snap.Path(snapshot.SearchFields), func(rows []fieldRow) error {
		for _, r := range rows {
			if r.Field < 0 || r.Field >= nFields {
				return fmt.Errorf("%w: field %d", ErrMalformed, r.Field)
			}
			ix.weight[r.Field], ix.avgLen[r.Field], seen[r.Field] = r.Weight, max(r.AvgLen, 1e-9), true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if seen != [nFields]bool{true, true, true} {
		return nil, fmt.Errorf("%w: search/fields lacks a field", ErrMalformed)
	}

	// Documents: lengths and filter columns, in doc order.
	licCode := map[string]uint8{}
	err = snapshot.ReadParquet(snap.Path(snapshot.SearchDocs), func(rows []searchDocRow) error {
		for _, r := range rows {
			if r.Doc != ix.n {
				return fmt.Errorf("%w: search/docs row %d is doc %d", ErrMalformed, ix.n, r.Doc)
			}
			if int(r.Doc) >= cat.Len() || string(cat.ID(r.Doc)) != r.ID {
				return fmt.Errorf("%w: search/docs doc %d is %s, not the catalog's", ErrMalformed, r.Doc, r.ID)
			}
			ix.length[0] = append(ix.length[0], r.LenTitle)
			ix.length[1] = append(ix.length[1], r.LenKeywords)
			ix.length[2] = append(ix.length[2], r.LenAuthors)
			ix.year = append(ix.year, r.Year)
			c, ok := licCode[r.License]
			if !ok {
				if len(ix.licenses) == 255 {
					return fmt.Errorf("%w: more than 255 licences", ErrMalformed)
				}
				c = uint8(len(ix.licenses))
				name := strings.Clone(r.License)
				licCode[name] = c
				ix.licenses = append(ix.licenses, name)
			}
			ix.license = append(ix.license, c)
			for i, t := range r.Topics {
				if slices.Contains(r.Topics[:i], t) {
					continue
				}
				docs, ok := ix.topicDocs[t]
				if !ok {
					t = strings.Clone(t)
				}
				ix.topicDocs[t] = append(docs, r.Doc)
			}
			if int(r.Doc>>6) >= len(ix.fulltext) {
				ix.fulltext = append(ix.fulltext, 0)
			}
			if r.HasFulltext {
				ix.fulltext.set(r.Doc)
			}
			ix.n++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if int(ix.n) != cat.Len() {
		return nil, fmt.Errorf("%w: search/docs has %d documents, the catalog %d", ErrMalformed, ix.n, cat.Len())
	}
	for t, docs := range ix.topicDocs {
		b := newBitset(int(ix.n))
		for _, d := range docs {
			b.set(d)
		}
		ix.topicBits[t] = b
		ix.topicDocs[t] = slices.Clip(docs)
	}
	for f := range nFields {
		ix.length[f] = slices.Clip(ix.length[f])
	}
	ix.year, ix.license = slices.Clip(ix.year), slices.Clip(ix.license)

	// Terms, in id order; the ids are assigned in byte order of the terms.
	var entries int64
	var prev []byte
	err = snapshot.ReadParquet(snap.Path(snapshot.SearchTerms), func(rows []termRow) error {
		for _, r := range rows {
			if int(r.TermID) != len(ix.termDF) {
				return fmt.Errorf("%w: term row %d has id %d", ErrMalformed, len(ix.termDF), r.TermID)
			}
			// Lookup is a binary search: the ids must follow byte order.
			if len(ix.termDF) > 0 && r.Term <= string(prev) {
				return fmt.Errorf("%w: terms not in byte order at %q", ErrMalformed, r.Term)
			}
			prev = append(prev[:0], r.Term...)
			ix.termOff = append(ix.termOff, uint32(len(ix.termText)))
			ix.termText = append(ix.termText, r.Term...)
			ix.termDF = append(ix.termDF, r.DF)
			entries += int64(r.DF)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ix.termText) >= math.MaxUint32 || entries >= math.MaxUint32 {
		return nil, fmt.Errorf("%w: index too large", ErrMalformed)
	}
	ix.termOff = append(ix.termOff, uint32(len(ix.termText)))

	// Postings: rows sorted by term, doc, field; one entry per (term, doc).
	nt := int32(len(ix.termDF))
	ix.postOff = make([]uint32, 0, nt+1)
	ix.postDoc = make([]int32, 0, entries)
	ix.postTF = make([]uint16, 0, entries)
	term, doc := int32(-1), int32(-1)
	err = snapshot.ReadParquet(snap.Path(snapshot.SearchPostings), func(rows []postingRow) error {
		for _, r := range rows {
			if r.TermID < term || r.TermID >= nt || r.Doc < 0 || r.Doc >= ix.n || r.Field < 0 || r.Field >= nFields || r.TF < 0 {
				return fmt.Errorf("%w: posting (%d, %d, %d, %d)", ErrMalformed, r.TermID, r.Doc, r.Field, r.TF)
			}
			if r.TermID != term {
				for term < r.TermID {
					ix.postOff = append(ix.postOff, uint32(len(ix.postDoc)))
					term++
				}
				doc = -1
			}
			if r.Doc < doc {
				return fmt.Errorf("%w: postings of term %d not in doc order", ErrMalformed, term)
			}
			if r.Doc != doc {
				ix.postDoc, ix.postTF = append(ix.postDoc, r.Doc), append(ix.postTF, 0)
				doc = r.Doc
			}
			// Rows of one (term, doc, field) add up (the index writes one).
			e, f := len(ix.postTF)-1, r.Field
			key := uint64(e)<<2 | uint64(f)
			cur := uint32(ix.postTF[e]) >> tfShift[f] & tfMask[f]
			sum := int32(cur) + int32(r.TF)
			if cur == tfMask[f] {
				sum = ix.bigTF[key] + int32(r.TF)
			}
			packed := uint32(sum)
			if sum >= int32(tfMask[f]) {
				ix.bigTF[key], packed = sum, tfMask[f]
			}
			ix.postTF[e] = uint16(uint32(ix.postTF[e])&^(tfMask[f]<<tfShift[f]) | packed<<tfShift[f])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for term < nt {
		ix.postOff = append(ix.postOff, uint32(len(ix.postDoc)))
		term++
	}
	ix.postDoc, ix.postTF = slices.Clip(ix.postDoc), slices.Clip(ix.postTF)
	for t := int32(0); t < nt; t++ {
		if got := int32(ix.postOff[t+1] - ix.postOff[t]); got != ix.termDF[t] {
			return nil, fmt.Errorf("%w: term %q has df %d but %d postings", ErrMalformed, ix.termAt(t), ix.termDF[t], got)
		}
	}
	return ix, nil
}

// Len is the number of documents, numbered 0..Len()-1 in catalog order.
func (ix *Index) Len() int { return int(ix.n) }

// TopicDocs lists the documents of a topic in doc order (nil for an
// unknown topic), so a topic's catalog page at any offset is a slice. The
// slice is the index's own: callers must not modify it.
func (ix *Index) TopicDocs(topic string) []int32 { return ix.topicDocs[topic] }

// Overflows is the number of (entry, field) frequencies too large for
// their packed bits and kept exactly beside them: tests use it to check
// that they exercise that path.
func (ix *Index) Overflows() int { return len(ix.bigTF) }

func (ix *Index) termAt(t int32) string {
	return string(ix.termText[ix.termOff[t]:ix.termOff[t+1]])
}

// lookup returns the id of a term, or -1.
func (ix *Index) lookup(term string) int32 {
	nt := len(ix.termDF)
	i := sort.Search(nt, func(i int) bool {
		return string(ix.termText[ix.termOff[i]:ix.termOff[i+1]]) >= term
	})
	if i < nt && string(ix.termText[ix.termOff[i]:ix.termOff[i+1]]) == term {
		return int32(i)
	}
	return -1
}

// tf returns the frequency of field f in entry e.
func (ix *Index) tf(e int, f int) float64 {
	v := uint32(ix.postTF[e]) >> tfShift[f] & tfMask[f]
	if v == tfMask[f] {
		return float64(ix.bigTF[uint64(e)<<2|uint64(f)])
	}
	return float64(v)
}

// docFilter is a compiled Filters value.
type docFilter struct {
	none             bool // a filter no document can pass (unknown licence)
	topic            bitset
	yearFrom, yearTo int32
	useYear          bool
	license          int // -1: any
	fulltext         bool
}

func (ix *Index) compile(f Filters) docFilter {
	df := docFilter{license: -1, yearFrom: math.MinInt32, yearTo: math.MaxInt32, fulltext: f.Fulltext}
	if f.Topic != "" {
		df.topic = ix.topicBits[f.Topic]
		if df.topic == nil {
			df.none = true
		}
	}
	if f.YearFrom != nil {
		df.useYear, df.yearFrom = true, clampInt32(*f.YearFrom)
	}
	if f.YearTo != nil {
		df.useYear, df.yearTo = true, clampInt32(*f.YearTo)
	}
	if f.License != "" {
		df.license = slices.Index(ix.licenses, f.License)
		if df.license < 0 {
			df.none = true
		}
	}
	return df
}

func clampInt32(v int) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }

// any reports whether the filter restricts anything.
func (df *docFilter) any() bool {
	return df.none || df.topic != nil || df.useYear || df.license >= 0 || df.fulltext
}

func (ix *Index) pass(df *docFilter, d int32) bool {
	if df.topic != nil && !df.topic.has(d) {
		return false
	}
	// Year 0 is "unknown": an undated document matches no year filter.
	if df.useYear && (ix.year[d] == 0 || ix.year[d] < df.yearFrom || ix.year[d] > df.yearTo) {
		return false
	}
	if df.license >= 0 && int(ix.license[d]) != df.license {
		return false
	}
	if df.fulltext && !ix.fulltext.has(d) {
		return false
	}
	return true
}

// List returns one page of the documents passing f in doc order, and their
// number: a search without words.
func (ix *Index) List(f Filters, limit, offset int) ([]Hit, int64) {
	df := ix.compile(f)
	if df.none {
		return nil, 0
	}
	page := func(docs func(i int) int32, n int) []Hit {
		var out []Hit
		for i := offset; i < n && i < offset+limit; i++ {
			out = append(out, Hit{Doc: docs(i)})
		}
		return out
	}
	if !df.any() {
		return page(func(i int) int32 { return int32(i) }, int(ix.n)), int64(ix.n)
	}
	var cands []int32
	topicOnly := false
	if f.Topic != "" {
		cands = ix.topicDocs[f.Topic]
		df.topic = nil // the candidates are the topic's documents
		topicOnly = !df.any()
	}
	if topicOnly {
		return page(func(i int) int32 { return cands[i] }, len(cands)), int64(len(cands))
	}
	var out []Hit
	var total int64
	visit := func(d int32) {
		if !ix.pass(&df, d) {
			return
		}
		if total >= int64(offset) && total < int64(offset+limit) {
			out = append(out, Hit{Doc: d})
		}
		total++
	}
	if f.Topic != "" {
		for _, d := range cands {
			visit(d)
		}
	} else {
		for d := int32(0); d < ix.n; d++ {
			visit(d)
		}
	}
	return out, total
}

// Search returns one page of the documents holding every term, best
// BM25F score first (ties by doc), and their number. Terms are tokens as
// package tokenize makes them (tokenize.Query); a term missing from the
// index means no document matches.
func (ix *Index) Search(terms []string, f Filters, limit, offset int) ([]Hit, int64) {
	df := ix.compile(f)
	if df.none || len(terms) == 0 {
		return nil, 0
	}
	type qterm struct {
		id   int32
		idf  float64
		docs []int32
		base int // entry of docs[0]
		pos  int // cursor into docs
	}
	qt := make([]qterm, 0, len(terms))
	n := float64(ix.n)
	for _, t := range terms {
		id := ix.lookup(t)
		if id < 0 {
			return nil, 0
		}
		lo, hi := int(ix.postOff[id]), int(ix.postOff[id+1])
		dfreq := float64(ix.termDF[id])
		qt = append(qt, qterm{id: id, idf: math.Log(1 + (n-dfreq+0.5)/(dfreq+0.5)), docs: ix.postDoc[lo:hi], base: lo})
	}
	// Rarest first: its postings drive the intersection, the others are
	// probed by galloping search.
	sort.SliceStable(qt, func(i, j int) bool { return len(qt[i].docs) < len(qt[j].docs) })
	filtered := df.any()
	top := newTopK(offset + limit)
	var total int64
	lead := &qt[0]
next:
	for i, d := range lead.docs {
		if filtered && !ix.pass(&df, d) {
			continue
		}
		for k := 1; k < len(qt); k++ {
			q := &qt[k]
			q.pos = gallop(q.docs, q.pos, d)
			if q.pos == len(q.docs) {
				break next
			}
			if q.docs[q.pos] != d {
				continue next
			}
		}
		total++
		score := 0.0
		for k := range qt {
			q := &qt[k]
			e := q.base + q.pos
			if k == 0 {
				e = q.base + i
			}
			w := ix.weighted(e, d)
			score += q.idf * w / (K1 + w)
		}
		top.push(Hit{Doc: d, Score: score})
	}
	hits := top.sorted()
	if offset >= len(hits) {
		return nil, total
	}
	return hits[offset:min(offset+limit, len(hits))], total
}

// weighted is the BM25F pseudo-frequency of entry e (of document d): the
// field frequencies, each weighted and length-normalised, summed.
func (ix *Index) weighted(e int, d int32) float64 {
	packed := uint32(ix.postTF[e])
	w := 0.0
	for f := range nFields {
		if packed>>tfShift[f]&tfMask[f] == 0 {
			continue
		}
		// The BM25F expression, in the order of the former SQL so that
		// scores do not depend on the implementation.
		w += ix.weight[f] * ix.tf(e, f) / (1 - B + B*float64(ix.length[f][d])/ix.avgLen[f])
	}
	return w
}

// gallop returns the first index i >= pos with docs[i] >= target.
func gallop(docs []int32, pos int, target int32) int {
	if pos >= len(docs) || docs[pos] >= target {
		return pos
	}
	// docs[lo] < target; find hi with docs[hi] >= target.
	lo, step := pos, 1
	hi := lo + step
	for hi < len(docs) && docs[hi] < target {
		lo = hi
		step <<= 1
		hi = lo + step
	}
	if hi > len(docs) {
		hi = len(docs)
	}
	// docs[lo] < target <= docs[hi] (or hi == len).
	for lo+1 < hi {
		m := int(uint(lo+hi) >> 1)
		if docs[m] < target {
			lo = m
		} else {
			hi = m
		}
	}
	return hi
}

// topK keeps the k best hits: higher score first, then lower doc.
type topK struct {
	k    int
	heap []Hit // min-heap on (score, -doc): the worst kept hit at the root
}

func newTopK(k int) *topK { return &topK{k: k, heap: make([]Hit, 0, min(k, 1024))} }

// worse reports whether a ranks after b.
func worse(a, b Hit) bool { return a.Score < b.Score || (a.Score == b.Score && a.Doc > b.Doc) }

func (t *topK) push(h Hit) {
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
	for i := 0; ; {
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

// sorted returns the kept hits best first.
func (t *topK) sorted() []Hit {
	out := slices.Clone(t.heap)
	slices.SortFunc(out, func(a, b Hit) int {
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

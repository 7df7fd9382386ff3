package search

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/openshelf/openshelf/index/resident"
	"github.com/openshelf/openshelf/snapshot"
)

// Options configure an opened index.
type Options struct {
	// Populate reads the whole file into the page cache at Open
	// (MAP_POPULATE): faster first queries, more resident memory.
	Populate bool
	// Sets is the budget in bytes of the bitsets of frequent terms that
	// count conjunctions and of frequent prefixes, stemmed words and
	// phrases (sets.go): 0 for DefaultSets, negative for none.
	Sets int64
}

// Catalog is the document list an index must agree with: the index numbers
// the catalog's documents 0..Len()-1 in its order.
type Catalog interface {
	Len() int
	ID(doc int32) []byte
}

// Index is an opened search/index.bin: the file is mapped read-only and
// read in place, so the Go heap holds only the table of contents and the
// names of licences and topics, whatever the corpus size; the resident
// memory of the mapping is the kernel's page cache, shared, evictable, and
// bounded by the machine (or a cgroup) rather than by the corpus; the pages
// mapped into this process (its RSS) are bounded by a Residency
// (residency.go). It is read-only and safe for concurrent use until Close.
type Index struct {
	snap   string // snapshot id, for cursors
	mm     []byte
	res    *resident.Mapping // records the posting lists read (residency.go)
	closer sync.Once

	n      int32
	nTerms int
	avgLen [NumFields]float64
	// own is what the index's searches score against: its documents.
	own      stats
	lens     fieldLens // the docs section
	years    []uint16  // the year column; nil: years32 (a year outside 0..65535)
	years32  []int32
	licFlags []byte // the licence and flags column, two bytes a doc
	tOff     []uint32
	tCodes   []uint16
	tdOff    []uint64
	tDocs    []int32
	cOff     []uint32
	citing   []int32
	termIdx  []uint64 // the dictionary (dict.go)
	termBlk  []byte
	// postings is the postings section's range in mm.
	postLo, postHi uint64

	licenses []string
	topics   []string
	pairs    *Pairs // the rule of its pair terms; nil: none
	// pairFields are the fields with pair terms.
	pairFields uint8
	topicCode  map[string]uint16
	licCode    map[string]uint8
	checked    sync.Map     // topic code -> whether its doc list is valid
	noConj     bool         // tests: conjunctions take the generic path (conj.go)
	conjWindow int32        // documents per count bitset (conj.go)
	conjScans  atomic.Int64 // searches that took conj.go's path
	// phraseSetScans counts the searches of a phrase by its kept set
	// (phraseset.go).
	phraseSetScans atomic.Int64
	// absentPairs counts the phrases a Multi found in none of the
	// segment's documents by a pair the segments before it count
	// (pairs.go).
	absentPairs atomic.Int64
	// expansionFills counts the expansions counted by unpacking their
	// lists (expand.go), for TestExpansionProbation.
	expansionFills atomic.Int64
	// noPrefixTerms (tests) leaves the prefix terms unread; prefixFills
	// counts the expansions filled from one (prefixes.go).
	noPrefixTerms bool
	prefixFills   atomic.Int64
	sets          sets      // the dense term sets (sets.go)
	matches       sync.Pool // *[]uint64: bitsets of the corpus (scratchSet)
}

// Open maps the snapshot's search index. Its documents must be cat's
// (the same number); anything else is ErrMalformed.
func Open(snap *snapshot.Snapshot, cat Catalog, opts Options) (*Index, error) {
	ix, err := OpenFile(filepath.Join(snap.Dir, filepath.FromSlash(File)), snap.ID, opts)
	if err != nil {
		return nil, err
	}
	if cat != nil && cat.Len() != ix.Len() {
		ix.Close()
		return nil, fmt.Errorf("%w: %d documents, the catalog %d", ErrMalformed, ix.Len(), cat.Len())
	}
	return ix, nil
}

// OpenFile maps an index file; snapID is the generation its cursors
// belong to.
func OpenFile(path, snapID string, opts Options) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	size := st.Size()
	if size < headerSize+footerSize || size > math.MaxInt {
		return nil, fmt.Errorf("%w: %s: %d bytes", ErrMalformed, path, size)
	}
	mm, err := resident.Map(f, int(size), opts.Populate)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	ix := &Index{snap: snapID, mm: mm, conjWindow: countWindow}
	switch {
	case opts.Sets == 0:
		ix.sets.budget = DefaultSets
	case opts.Sets > 0:
		ix.sets.budget = opts.Sets
	}
	if err := ix.parse(); err != nil {
		ix.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	track(ix) // residency.go
	return ix, nil
}

// parse reads the footer and table of contents and checks that every
// section lies in the file with the size its counts imply. Offsets inside
// sections are checked where they are used.
func (ix *Index) parse() error {
	mm := ix.mm
	if !bigEnoughEndian() {
		return fmt.Errorf("%w: this reader needs a little-endian machine", ErrMalformed)
	}
	head := string(mm[:len(magic)])
	if head != magic {
		if strings.HasPrefix(head, magicPrefix) {
			return fmt.Errorf("%w: the file is format %q, this reader reads %q", ErrFormat, head, magic)
		}
		return fmt.Errorf("%w: bad magic", ErrMalformed)
	}
	nsecWant := uint64(numSections)
	foot := mm[len(mm)-footerSize:]
	if string(foot[24:]) != head {
		return fmt.Errorf("%w: bad footer", ErrMalformed)
	}
	tocOff, tocLen := binary.LittleEndian.Uint64(foot), binary.LittleEndian.Uint64(foot[8:])
	end := uint64(len(mm) - footerSize)
	if tocOff < headerSize || tocOff > end || tocLen != end-tocOff {
		return fmt.Errorf("%w: table of contents out of the file", ErrMalformed)
	}
	toc := mm[tocOff:end]
	if crc32.ChecksumIEEE(toc) != binary.LittleEndian.Uint32(foot[16:]) {
		return fmt.Errorf("%w: table of contents checksum", ErrMalformed)
	}
	r := &tocReader{b: toc}
	n, nTerms, nsec := r.uvarint(), r.uvarint(), r.uvarint()
	if r.err != nil || n > math.MaxInt32 || nTerms > math.MaxInt32 || nsec != nsecWant {
		return fmt.Errorf("%w: table of contents", ErrMalformed)
	}
	ix.n, ix.nTerms = int32(n), int(nTerms)
	var sec [numSections][]byte
	for s := range sec[:nsec] {
		off, l := r.uvarint(), r.uvarint()
		if r.err != nil || off < headerSize || off%8 != 0 || off > tocOff || l > tocOff-off {
			return fmt.Errorf("%w: section %d out of the file", ErrMalformed, s)
		}
		sec[s] = mm[off : off+l]
		if s == secPostings {
			ix.postLo, ix.postHi = off, off+l
		}
	}
	for f := range NumFields {
		ix.avgLen[f] = math.Float64frombits(r.uint64())
		if r.err != nil || !(ix.avgLen[f] >= 0) || math.IsInf(ix.avgLen[f], 0) {
			return fmt.Errorf("%w: average field length", ErrMalformed)
		}
	}
	ix.own = newStats(float64(ix.n), ix.avgLen)
	ix.licenses, ix.topics = r.strings(256), r.strings(math.MaxUint16)
	if r.err == nil && len(r.b) > 0 {
		// Written since pair terms: the pair words (pairs.go).
		ix.pairs, ix.pairFields = r.pairs()
	}
	if r.err != nil {
		return fmt.Errorf("%w: table of contents names", ErrMalformed)
	}
	nTopics := uint64(len(ix.topics))
	if l := uint64(len(sec[secYears])); l != 2*n && l != 4*n {
		return fmt.Errorf("%w: year column has %d bytes", ErrMalformed, l)
	}
	if l := uint64(len(sec[secLicFlags])); l != 2*n {
		return fmt.Errorf("%w: licence column has %d bytes", ErrMalformed, l)
	}
	want := [numSections]struct {
		size uint64 // element size
		n    uint64 // elements; 0: any multiple of size
	}{
		secDocs: {docRec16Size, 0}, secTopicOff: {4, n + 1}, secTopicCodes: {2, 0},
		secTopicDocOff: {8, nTopics + 1}, secTopicDocs: {4, 0}, secCiteOff: {4, n + 1}, secCiting: {4, 0},
		secPostings: {1, 0}, secTermIdx: {8, (nTerms+termBlock-1)/termBlock + 1}, secTermBlocks: {1, 0}, secYears: {2, 0}, secLicFlags: {2, 0},
	}
	for s, w := range want {
		l := uint64(len(sec[s]))
		if l%w.size != 0 || (w.n > 0 && l != w.n*w.size) {
			return fmt.Errorf("%w: section %d has %d bytes", ErrMalformed, s, l)
		}
	}
	switch l := uint64(len(sec[secDocs])); {
	case n > 0 && l == n*docRec16Size:
		ix.lens = newFieldLens(sec[secDocs], true)
	case l == n*docRecSize:
		ix.lens = newFieldLens(sec[secDocs], false)
	default:
		return fmt.Errorf("%w: docs section has %d bytes", ErrMalformed, l)
	}
	if len(sec[secYears]) == int(2*n) {
		ix.years = castSlice[uint16](sec[secYears])
	} else {
		ix.years32 = castSlice[int32](sec[secYears])
	}
	ix.licFlags = sec[secLicFlags]
	ix.tOff = castSlice[uint32](sec[secTopicOff])
	ix.tCodes = castSlice[uint16](sec[secTopicCodes])
	ix.tdOff = castSlice[uint64](sec[secTopicDocOff])
	ix.tDocs = castSlice[int32](sec[secTopicDocs])
	ix.cOff = castSlice[uint32](sec[secCiteOff])
	ix.citing = castSlice[int32](sec[secCiting])
	ix.termIdx = castSlice[uint64](sec[secTermIdx])
	ix.termBlk = sec[secTermBlocks]
	ix.topicCode = make(map[string]uint16, len(ix.topics))
	for i, t := range ix.topics {
		ix.topicCode[t] = uint16(i)
	}
	ix.licCode = make(map[string]uint8, len(ix.licenses))
	for i, l := range ix.licenses {
		ix.licCode[l] = uint8(i)
	}
	return nil
}

// castSlice views b (8-aligned in the mapping) as a slice of T in place.
func castSlice[T any](b []byte) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	if len(b) < size {
		return nil
	}
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), len(b)/size)
}

// bigEnoughEndian reports whether the machine is little-endian, the byte
// order of the file's fixed-width arrays read in place.
func bigEnoughEndian() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}

// pairs reads the TOC's pair entry: the stop pair words, the fields
// byte, the frequent pair words and, when the index left rare pairs out
// or has flags, their minimum of documents, then the flags and the
// entries they announce (the triple terms): a segment that joined those
// before it (Writer.JoinPairs) has the flag tocJoined.
func (r *tocReader) pairs() (*Pairs, uint8) {
	stop := r.strings(maxPairWords)
	if r.err == nil && (len(stop) == 0 || !validPairWords(stop) || len(r.b) < 1 || r.b[0] == 0 || r.b[0] >= 1<<NumFields) {
		r.err = ErrMalformed
	}
	if r.err != nil {
		return nil, 0
	}
	fields := r.b[0]
	r.b = r.b[1:]
	var frequent []string
	minDF := uint64(1)
	frequent = r.strings(maxPairWords)
	var triples []string
	if r.err == nil && len(r.b) > 0 {
		// Rare pairs left out (a minimum of 2 or more), or flags next.
		if minDF = r.uvarint(); minDF < 1 || minDF > blockDocs || minDF == 1 && len(r.b) == 0 {
			r.err = ErrMalformed
		}
	}
	joined := false
	if r.err == nil && len(r.b) > 0 {
		flags := r.uvarint()
		if flags == 0 || flags&^(tocTriples|tocJoined) != 0 || flags&tocJoined != 0 && minDF < 2 {
			r.err = ErrMalformed
		}
		joined = flags&tocJoined != 0
		if r.err == nil && flags&tocTriples != 0 {
			if triples = r.strings(maxTriples); len(triples) == 0 {
				r.err = ErrMalformed
			}
		}
	}
	if r.err == nil && (len(r.b) != 0 || !validPairWords(frequent)) {
		r.err = ErrMalformed
	}
	if r.err != nil {
		return nil, 0
	}
	p := NewPairs(stop, frequent)
	p.minDF, p.joined = int(minDF), joined
	if triples != nil && p.SetTriples(triples) != nil {
		r.err = ErrMalformed
		return nil, 0
	}
	return p, fields
}

type tocReader struct {
	b   []byte
	err error
}

func (r *tocReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = ErrMalformed
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *tocReader) uint64() uint64 {
	if r.err != nil || len(r.b) < 8 {
		r.err = ErrMalformed
		return 0
	}
	v := binary.LittleEndian.Uint64(r.b)
	r.b = r.b[8:]
	return v
}

func (r *tocReader) strings(maxN int) []string {
	n := r.uvarint()
	if r.err != nil || n > uint64(maxN) || n > uint64(len(r.b)) {
		r.err = ErrMalformed
		return nil
	}
	out := make([]string, 0, n)
	for range n {
		l := r.uvarint()
		if r.err != nil || l > uint64(len(r.b)) {
			r.err = ErrMalformed
			return nil
		}
		out = append(out, string(r.b[:l]))
		r.b = r.b[l:]
	}
	return out
}

// Close unmaps the file. The caller makes sure no search is running (the
// server reference-counts its generations).
func (ix *Index) Close() error {
	var err error
	ix.closer.Do(func() { err = untrackAndUnmap(ix) }) // residency.go
	return err
}

// Len is the number of documents, numbered 0..Len()-1 in catalog order.
func (ix *Index) Len() int { return int(ix.n) }

// Terms is the number of distinct terms, word pairs and triples included.
func (ix *Index) Terms() int { return ix.nTerms }

// Pairs is the rule of the index's word pairs (pairs.go) and triples
// (triples.go); nil when it has none.
func (ix *Index) Pairs() *Pairs { return ix.pairs }

// Size is the index file's size in bytes.
func (ix *Index) Size() int64 { return int64(len(ix.mm)) }

// TopicDocs lists the documents of a topic in doc order (nil for an
// unknown topic, or a damaged list), so a topic's catalog page at any
// offset is a slice. The slice is the mapped file: callers must not
// modify it, nor keep it past Close. A list is checked on its first use.
func (ix *Index) TopicDocs(topic string) []int32 {
	t, ok := ix.topicCode[topic]
	if !ok {
		return nil
	}
	docs := ix.topicDocsOf(t)
	if v, ok := ix.checked.Load(t); ok {
		if v.(bool) {
			return docs
		}
		return nil
	}
	valid := validDocs(docs, ix.n)
	ix.checked.Store(t, valid)
	if !valid {
		return nil
	}
	return docs
}

func (ix *Index) topicDocsOf(t uint16) []int32 {
	lo, hi := ix.tdOff[t], ix.tdOff[int(t)+1]
	if lo > hi || hi > uint64(len(ix.tDocs)) {
		return nil
	}
	return ix.tDocs[lo:hi]
}

// topicCodesOf returns doc d's topic codes.
func (ix *Index) topicCodesOf(d int32) []uint16 {
	lo, hi := ix.tOff[d], ix.tOff[d+1]
	if lo > hi || int(hi) > len(ix.tCodes) {
		return nil
	}
	return ix.tCodes[lo:hi]
}

// Topics lists the topic names of the index.
func (ix *Index) Topics() []string { return ix.topics }

// CitedByCount is the number of archive documents citing doc.
func (ix *Index) CitedByCount(doc int32) int32 {
	if doc < 0 || doc >= ix.n {
		return 0
	}
	lo, hi := ix.cOff[doc], ix.cOff[doc+1]
	if lo > hi || int64(hi) > int64(len(ix.citing)) {
		return 0
	}
	return int32(min(hi-lo, math.MaxInt32))
}

func (ix *Index) citingOf(doc int32) []int32 {
	lo, hi := ix.cOff[doc], ix.cOff[doc+1]
	if lo > hi || int64(hi) > int64(len(ix.citing)) {
		return nil
	}
	return ix.citing[lo:hi]
}

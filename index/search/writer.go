package search

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"slices"
	"syscall"

	"github.com/openshelf/openshelf/index/resident"
)

// DocValues are one document's columns in the index.
type DocValues struct {
	Year     int32 // 0: undated
	License  string
	Topics   []string
	Sources  uint8 // SourceBits
	Fulltext bool
	Len      [NumFields]int // tokens per field, for BM25F
}

// ErrWriteOrder reports a Writer call out of the documented order.
var ErrWriteOrder = errors.New("search: index written out of order")

// Writer writes search/index.bin in one sequential pass: AddDoc for every
// document in doc order, then AddCitation in (cited, citing) order, then
// AddPosting in (term, doc) order, then Close. Memory is bounded by the
// per-topic document lists (4 bytes per document and topic) and one
// postings block; everything else streams to the file or to spool files in
// workDir.
type Writer struct {
	path, work string
	f          *os.File
	bw         *resident.Writer // aligned, so the server can map the file with huge pages
	off        int64            // bytes written to f
	sec        [numSections][2]int64
	phase      int // 0 docs, 1 citations, 2 postings, 3 closed

	n          int32
	licenses   []string
	licCode    map[string]uint8
	topics     []string
	topicCode  map[string]uint16
	topicDocs  [][]int32
	topicOff   *spool
	topicCodes *spool
	nTopicRefs uint32
	fieldLen   [NumFields]int64

	citeOff   *spool
	citing    *spool
	citeDoc   int32 // next doc whose cite offset is due
	nCiting   uint64
	lastCited int32
	lastCiter int32

	dict          dictWriter // the dictionary's spools
	nTerms        int64
	pairWords     []string // recorded in the TOC; nil: no pair terms
	frequentWords []string
	pairFields    uint8
	pairRule      *Pairs // which pair terms to keep (DropRarePairs)
	years         *spool // the year column (FORMAT.md)
	licFlags      *spool // the licence and flags column
	yearsWide     bool   // a year does not fit uint16: the column is of int32
	docs          *spool // the docs records, of uint32 lengths (endDocs narrows them)
	lensWide      bool   // a field length does not fit uint16: the records keep uint32
	term          []byte
	df            uint32
	skips         []skipEntry
	oneSkip       []byte // the short entry of a list of one block
	blk           blockBuf

	// docLens maps the written docs section back (at the first posting)
	// for the field lengths the block score bounds need; norm0 and normK
	// are the reader's BM25F length normalisation.
	docMap       []byte
	docLens      fieldLens
	norm0, normK [NumFields]float64

	prefixes prefixTracker // the prefix terms to write (prefixes.go)
	// archive counts the pair terms of the segments joined (JoinPairs);
	// nil: none.
	archive *pairArchive
}

// blockBuf is the postings block being filled.
type blockBuf struct {
	prevLast int32 // last doc of the previous block of the term (-1)
	deltas   []uint32
	masks    []byte
	wv       []float64 // each document's weighted frequency sum over anyFields
	impacts  []byte    // their impacts (flushBlock)
	tfv      []uint32  // term frequency minus one, per document and field of its mask
	freqs    []byte    // the frequency part (flushBlock)
	posv     []uint32  // the block's position codes (AddPosting)
	pos      []byte    // the position part (flushBlock)
	maskOr   uint8
	nAny     int     // documents with a field of anyFields
	wAny     float64 // the largest weighted frequency sum over anyFields
	wAll     float64 // over all fields
	doc      int32   // current doc, -1 before the first
	mask     uint8
	tfs      [NumFields]uint32
	fpos     [NumFields][]uint32 // the current document's position codes, by field
	field    int
	last     int32
	packed   []byte
	codes    []uint32 // scratch of appendMeta
}

// spool is a temporary file a section is written to before it is copied
// into the index in section order.
type spool struct {
	f  *os.File
	bw *bufio.Writer
	n  int64
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "searchidx-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	return &spool{f: f, bw: bufio.NewWriterSize(f, 256<<10)}, nil
}

func (s *spool) write(b []byte) error {
	n, err := s.bw.Write(b)
	s.n += int64(n)
	return err
}

func (s *spool) discard() {
	if s != nil && s.f != nil {
		s.f.Close()
		os.Remove(s.f.Name())
		s.f = nil
	}
}

// NewWriter creates the index file at path; spool files go to workDir.
func NewWriter(path, workDir string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	w := &Writer{path: path, work: workDir, f: f, bw: resident.NewWriter(f),
		licCode: map[string]uint8{}, topicCode: map[string]uint16{}, lastCited: -1, lastCiter: -1,
		blk: blockBuf{doc: -1}}
	for _, s := range []**spool{&w.docs, &w.topicOff, &w.topicCodes, &w.citeOff, &w.citing, &w.dict.idx, &w.dict.blk, &w.years, &w.licFlags} {
		if *s, err = newSpool(workDir); err != nil {
			w.Abort()
			return nil, err
		}
	}
	var hdr [headerSize]byte
	copy(hdr[:], magic)
	if err := w.write(hdr[:]); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

func (w *Writer) write(b []byte) error {
	n, err := w.bw.Write(b)
	w.off += int64(n)
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	return nil
}

// begin starts section s at the current offset, aligned to 8 bytes so that
// fixed-width arrays can be read in place.
func (w *Writer) begin(s int) error {
	if err := w.align(); err != nil {
		return err
	}
	w.sec[s][0] = w.off
	return nil
}

func (w *Writer) align() error {
	if pad := (8 - w.off%8) % 8; pad > 0 {
		return w.write(make([]byte, pad))
	}
	return nil
}

func (w *Writer) end(s int) { w.sec[s][1] = w.off - w.sec[s][0] }

// AddDoc appends the next document's values.
func (w *Writer) AddDoc(dv DocValues) error {
	if w.phase != 0 {
		return ErrWriteOrder
	}
	if w.n == math.MaxInt32 {
		return fmt.Errorf("search: more than 2^31 documents")
	}
	var rec [docRecSize]byte
	if dv.Year < 0 || dv.Year > math.MaxUint16 {
		w.yearsWide = true
	}
	// The spool holds int32 years, narrowed at the end unless one is wide.
	var y [4]byte
	binary.LittleEndian.PutUint32(y[:], uint32(dv.Year))
	if err := w.years.write(y[:]); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	for f, l := range dv.Len {
		l = min(max(l, 0), math.MaxUint32)
		if l > math.MaxUint16 {
			w.lensWide = true
		}
		binary.LittleEndian.PutUint32(rec[4*f:], uint32(l))
		w.fieldLen[f] += int64(l)
	}
	c, ok := w.licCode[dv.License]
	if !ok {
		if len(w.licenses) == 256 {
			return fmt.Errorf("search: more than 256 licences")
		}
		c = uint8(len(w.licenses))
		w.licCode[dv.License] = c
		w.licenses = append(w.licenses, dv.License)
	}
	lf := [2]byte{c, dv.Sources << 1}
	if dv.Fulltext {
		lf[1] |= flagFulltext
	}
	if err := w.docs.write(rec[:]); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := w.licFlags.write(lf[:]); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], w.nTopicRefs)
	if err := w.topicOff.write(b[:]); err != nil {
		return err
	}
	for i, t := range dv.Topics {
		if slices.Contains(dv.Topics[:i], t) {
			continue
		}
		tc, ok := w.topicCode[t]
		if !ok {
			if len(w.topics) == math.MaxUint16 {
				return fmt.Errorf("search: more than 65535 topics")
			}
			tc = uint16(len(w.topics))
			w.topicCode[t] = tc
			w.topics = append(w.topics, t)
			w.topicDocs = append(w.topicDocs, nil)
		}
		w.topicDocs[tc] = append(w.topicDocs[tc], w.n)
		binary.LittleEndian.PutUint16(b[:], tc)
		if err := w.topicCodes.write(b[:2]); err != nil {
			return err
		}
		w.nTopicRefs++
	}
	w.n++
	return nil
}

// endDocs writes the docs section and the topic sections after it.
func (w *Writer) endDocs() error {
	if err := w.copySpoolNarrow(secDocs, w.docs, !w.lensWide); err != nil {
		return err
	}
	var b [8]byte
	binary.LittleEndian.PutUint32(b[:], w.nTopicRefs)
	if err := w.topicOff.write(b[:4]); err != nil {
		return err
	}
	if err := w.copySpool(secTopicOff, w.topicOff); err != nil {
		return err
	}
	if err := w.copySpool(secTopicCodes, w.topicCodes); err != nil {
		return err
	}
	if err := w.begin(secTopicDocOff); err != nil {
		return err
	}
	var off uint64
	for _, docs := range w.topicDocs {
		binary.LittleEndian.PutUint64(b[:], off)
		if err := w.write(b[:]); err != nil {
			return err
		}
		off += uint64(len(docs))
	}
	binary.LittleEndian.PutUint64(b[:], off)
	if err := w.write(b[:]); err != nil {
		return err
	}
	w.end(secTopicDocOff)
	if err := w.begin(secTopicDocs); err != nil {
		return err
	}
	for i, docs := range w.topicDocs {
		for _, d := range docs {
			binary.LittleEndian.PutUint32(b[:], uint32(d))
			if err := w.write(b[:4]); err != nil {
				return err
			}
		}
		w.topicDocs[i] = nil
	}
	w.end(secTopicDocs)
	w.phase = 1
	return nil
}

// copySpool appends a spool's bytes as section s and removes it.
func (w *Writer) copySpool(s int, sp *spool) error {
	if err := sp.bw.Flush(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := w.begin(s); err != nil {
		return err
	}
	n, err := io.Copy(w.bw, bufio.NewReaderSize(sp.f, 256<<10))
	w.off += n
	if err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if n != sp.n {
		return fmt.Errorf("search: spool of section %d: %d bytes, wrote %d", s, n, sp.n)
	}
	w.end(s)
	sp.discard()
	return nil
}

// AddCitation records that document citing cites document cited. Calls
// come in (cited, citing) order without repeats.
func (w *Writer) AddCitation(cited, citing int32) error {
	if w.phase == 0 {
		if err := w.endDocs(); err != nil {
			return err
		}
	}
	if w.phase != 1 || cited < 0 || cited >= w.n || citing < 0 || citing >= w.n ||
		cited < w.lastCited || (cited == w.lastCited && citing <= w.lastCiter) {
		return fmt.Errorf("%w: citation (%d, %d)", ErrWriteOrder, cited, citing)
	}
	if err := w.citeOffsTo(cited); err != nil {
		return err
	}
	if w.nCiting == math.MaxUint32 {
		return fmt.Errorf("search: more than 2^32-1 citations")
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(citing))
	if err := w.citing.write(b[:]); err != nil {
		return err
	}
	w.nCiting++
	w.lastCited, w.lastCiter = cited, citing
	return nil
}

// citeOffsTo writes the cite offsets of docs up to and including d.
func (w *Writer) citeOffsTo(d int32) error {
	var b [4]byte
	for ; w.citeDoc <= d; w.citeDoc++ {
		binary.LittleEndian.PutUint32(b[:], uint32(w.nCiting))
		if err := w.citeOff.write(b[:]); err != nil {
			return err
		}
	}
	return nil
}

func (w *Writer) endCitations() error {
	if w.phase == 0 {
		if err := w.endDocs(); err != nil {
			return err
		}
	}
	if err := w.citeOffsTo(w.n); err != nil { // N+1 offsets
		return err
	}
	if err := w.copySpool(secCiteOff, w.citeOff); err != nil {
		return err
	}
	if err := w.copySpool(secCiting, w.citing); err != nil {
		return err
	}
	if err := w.mapDocs(); err != nil {
		return err
	}
	w.phase = 2
	return w.begin(secPostings)
}

// mapDocs maps the docs section written so far, read-only, and computes
// the length normalisation of the reader (the same float64 operations on
// the same average lengths), so that block bounds hold for its scores.
func (w *Writer) mapDocs() error {
	w.prefixes.minPostings = max(int64(w.n)/prefixShare, 1)
	avg := w.avgLens()
	for f := range NumFields {
		w.norm0[f] = 1 - FieldParams[f].B
		if avg[f] > 0 {
			w.normK[f] = FieldParams[f].B / avg[f]
		}
	}
	if w.n == 0 {
		return nil
	}
	if err := w.bw.Flush(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	end := w.sec[secDocs][0] + w.sec[secDocs][1]
	mm, err := syscall.Mmap(int(w.f.Fd()), 0, int(end), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return fmt.Errorf("search: mmap the docs written: %w", err)
	}
	w.docMap = mm
	w.docLens = newFieldLens(mm[w.sec[secDocs][0]:end], !w.lensWide)
	return nil
}

func (w *Writer) unmapDocs() {
	if w.docMap != nil {
		syscall.Munmap(w.docMap)
		w.docMap, w.docLens = nil, fieldLens{}
	}
}

// avgLens are the average field lengths the table of contents records.
func (w *Writer) avgLens() [NumFields]float64 {
	var avg [NumFields]float64
	for f := range NumFields {
		if w.n > 0 {
			avg[f] = float64(w.fieldLen[f]) / float64(w.n)
		}
	}
	return avg
}

// AddPosting adds the positions of term in one field of one document.
// Calls come in (term, doc, field) order, positions ascending; a term is
// at most MaxTermBytes bytes.
func (w *Writer) AddPosting(term []byte, doc int32, field int, positions []uint32) error {
	if w.phase < 2 {
		if err := w.endCitations(); err != nil {
			return err
		}
	}
	if w.phase != 2 || doc < 0 || doc >= w.n || field < 0 || field >= NumFields || len(positions) == 0 ||
		len(term) == 0 || len(term) > MaxTermBytes || isPrefixTerm(string(term)) {
		return fmt.Errorf("%w: posting %q doc %d field %d", ErrWriteOrder, term, doc, field)
	}
	if w.blk.doc < 0 || string(term) != string(w.term) {
		if w.blk.doc >= 0 {
			if string(term) < string(w.term) {
				return fmt.Errorf("%w: term %q after %q", ErrWriteOrder, term, w.term)
			}
			if err := w.endTerm(); err != nil {
				return err
			}
		}
		w.term = append(w.term[:0], term...)
		bk := &w.blk
		bk.prevLast, bk.doc, bk.last = -1, -1, -1
		bk.reset()
		w.skips = w.skips[:0]
	}
	bk := &w.blk
	if doc != bk.doc {
		if doc < bk.doc {
			return fmt.Errorf("%w: %q doc %d after %d", ErrWriteOrder, term, doc, bk.doc)
		}
		if bk.doc >= 0 {
			if err := w.endDoc(); err != nil {
				return err
			}
		}
		bk.doc, bk.mask, bk.field = doc, 0, -1
	}
	if field <= bk.field {
		return fmt.Errorf("%w: %q doc %d field %d twice", ErrWriteOrder, term, doc, field)
	}
	bk.field = field
	bk.mask |= 1 << field
	bk.tfs[field] = uint32(len(positions))
	// The first position, then each one less the one before less one
	// (FORMAT.md, position part).
	p := append(bk.fpos[field][:0], positions[0])
	for i, x := range positions[1:] {
		if x <= positions[i] {
			return fmt.Errorf("%w: %q doc %d positions not increasing", ErrWriteOrder, term, doc)
		}
		p = append(p, x-positions[i]-1)
	}
	bk.fpos[field] = p
	return nil
}

// MaxTermBytes bounds a term: tokens are at most 64 bytes
// (tokenize.MaxTokenBytes), DOIs longer.
const MaxTermBytes = 1024

// endDoc appends the current document to the block.
func (w *Writer) endDoc() error {
	bk := &w.blk
	bk.deltas = append(bk.deltas, uint32(bk.doc-max(bk.last, bk.prevLast)-1))
	bk.masks = append(bk.masks, bk.mask)
	bk.maskOr |= bk.mask
	if bk.mask&anyFields != 0 {
		bk.nAny++
	}
	var wAny, wAll float64
	for f := range NumFields {
		if bk.mask&(1<<f) == 0 {
			continue
		}
		bk.tfv = append(bk.tfv, bk.tfs[f]-1)
		bk.posv = append(bk.posv, bk.fpos[f]...)
		// The reader's bm25f, term by term in field order.
		norm := w.norm0[f] + w.normK[f]*float64(w.docLens.of(bk.doc, f))
		x := FieldParams[f].Weight * float64(bk.tfs[f]) / max(norm, 1e-9)
		wAll += x
		if anyFields&(1<<f) != 0 {
			wAny += x
		}
	}
	bk.wAny, bk.wAll = max(bk.wAny, wAny), max(bk.wAll, wAll)
	bk.wv = append(bk.wv, wAny)
	bk.last = bk.doc
	w.df++
	if len(bk.deltas) == blockDocs {
		return w.flushBlock(false)
	}
	return nil
}

func (bk *blockBuf) reset() {
	bk.deltas, bk.masks, bk.tfv, bk.freqs, bk.posv, bk.pos = bk.deltas[:0], bk.masks[:0], bk.tfv[:0], bk.freqs[:0], bk.posv[:0], bk.pos[:0]
	bk.wv, bk.impacts = bk.wv[:0], bk.impacts[:0]
	bk.maskOr, bk.nAny, bk.wAny, bk.wAll = 0, 0, 0, 0
}

// The impact of a document: its saturated weight W/(K1+W) over anyFields
// as a share of the block's bound's, rounded up to a level, a multiple of
// 1/impactMax. A block writes its levels as codes of impactCodeBits
// between its lowest level and impactMax (blockmeta.go): at 1M documents
// 47.9 MiB where the levels themselves took 70.3, for 3 to 6 % more CPU
// a search (more documents pass their bound and are scored).
const (
	impactBits     = 6
	impactMax      = 1<<impactBits - 1
	impactCodeBits = 4
)

// impactMinDF is the fewest documents of a list of one block with
// impacts: without them, a search scores (or bounds by the block) each
// document of a list that can enter the page. At 100 000 documents,
// leaving out the impacts of every list of one block saves 2.7 % of the
// index for 7 % more CPU of prefix searches (40 % at their p99), and of
// those of fewer than 32 documents 1.4 % for 40 % more CPU of a prefix
// and a word (`cons* science`); of those of fewer than 8, 0.9 % for none
// measurable.
const impactMinDF = 8

// impact quantises a document's saturated weight W/(K1+W) over anyFields
// to q in 0..impactMax, rounded up, as a share of the saturated weight of
// wTop, the block's w_any bound: W/(K1+W) <= q/impactMax ·
// wTop/(K1+wTop), so that this times idf bounds the term's score on the
// document for any fields within anyFields.
func impact(w, wTop float64) byte {
	top := wTop / (K1 + wTop)
	if top <= 0 {
		return 0 // no document of the block has a field of anyFields
	}
	q := math.Ceil(w/(K1+w)/top*impactMax + 1e-6)
	return byte(min(max(q, 0), impactMax))
}

// flushBlock writes the block; last says it is the term's last.
func (w *Writer) flushBlock(last bool) error {
	bk := &w.blk
	if len(bk.deltas) == 0 {
		return nil
	}
	b := bitWidth(bk.deltas)
	bk.packed = append(bk.packed[:0], byte(b))
	bk.packed = appendPacked(bk.packed, bk.deltas, b)
	bk.codes = slices.Grow(bk.codes[:0], len(bk.masks))[:len(bk.masks)]
	var posHdr byte
	bk.pos, posHdr = appendPositions(bk.pos[:0], bk.posv)
	var imps []byte
	if !isPairTerm(string(w.term)) && !(last && len(w.skips) == 0 && len(bk.deltas) < impactMinDF) {
		// A pair or triple scores nothing, its phrase's words do: its
		// documents' impacts are left to the block's bound. So are those
		// of a short list of one block (most words): a search scores its
		// few documents from their frequencies.
		top := float64(roundUp32(bk.wAny)) // the skip entry's bound, or less
		for _, x := range bk.wv {
			bk.impacts = append(bk.impacts, impact(x, top))
		}
		imps = bk.impacts
	}
	bk.packed = appendMeta(bk.packed, bk.masks, bk.maskOr, imps, posHdr, bk.codes)
	bk.freqs = appendEscaped(bk.freqs[:0], bk.tfv)
	freqOff := len(bk.packed)
	posOff := freqOff + len(bk.freqs)
	if freqOff > maxFreqOff || uint64(posOff)+uint64(len(bk.pos)) > math.MaxUint32 {
		return fmt.Errorf("search: a postings block of %q over 4 GiB", w.term)
	}
	w.skips = append(w.skips, skipEntry{LastDoc: bk.last, MaskOr: bk.maskOr, Any: uint8(bk.nAny + 1), WAny: roundUp32(bk.wAny), WAll: roundUp32(bk.wAll),
		FreqOff: uint32(freqOff), PosOff: uint32(posOff), Off: uint64(w.off)})
	for _, part := range [][]byte{bk.packed, bk.freqs, bk.pos} {
		if err := w.write(part); err != nil {
			return err
		}
	}
	bk.prevLast = bk.last
	bk.last = -1
	bk.reset()
	return nil
}

// endTerm writes the term's last block, its skip table and its records.
func (w *Writer) endTerm() error {
	if err := w.endDoc(); err != nil {
		return err
	}
	if isPairTerm(string(w.term)) && !w.pairRule.keeps(string(w.term), int(w.df)) &&
		(w.archive == nil || int(w.df)+w.archive.df(w.term) < w.pairRule.minDF) {
		// Fewer documents than DropRarePairs asks (at most blockDocs):
		// the term's one block is still in the buffer. Drop it.
		w.blk.reset()
		w.df = 0
		w.blk.doc = -1
		return nil
	}
	if err := w.flushBlock(true); err != nil {
		return err
	}
	skipOff, err := w.writeTerm(w.term, w.df)
	if err != nil {
		return err
	}
	if !isPairTerm(string(w.term)) {
		w.prefixes.add(w.term, prefixWord{df: w.df, skipOff: skipOff, ord: w.nTerms - 1})
	}
	w.df = 0
	w.blk.doc = -1
	return nil
}

// writeTerm writes the skip table of a term whose blocks are written and
// its records, and returns the skip table's offset.
func (w *Writer) writeTerm(term []byte, df uint32) (uint64, error) {
	skipOff := uint64(w.off)
	if len(w.skips) == 1 {
		// Most terms have one block: a short entry (FORMAT.md).
		if err := w.write(appendOneSkip(w.oneSkip[:0], w.skips[0], skipOff)); err != nil {
			return 0, err
		}
	} else {
		if skipOff-w.skips[0].Off > maxListBytes {
			return 0, fmt.Errorf("search: the postings of %q over 4 GiB", term)
		}
		var b [skipEntrySize]byte
		for _, s := range w.skips {
			putSkip(b[:], s, skipOff)
			if err := w.write(b[:]); err != nil {
				return 0, err
			}
		}
	}
	if err := w.dict.add(term, termRec{SkipOff: skipOff, DF: df}); err != nil {
		return 0, err
	}
	w.nTerms++
	return skipOff, nil
}

// Close writes the remaining sections, the table of contents and the
// footer, and syncs the file. The index is complete only if Close
// succeeds; after an error, Abort removes it.
func (w *Writer) Close() (int64, error) {
	if w.phase == 3 {
		return 0, ErrWriteOrder
	}
	if w.phase < 2 {
		if err := w.endCitations(); err != nil {
			return 0, err
		}
	}
	if w.blk.doc >= 0 {
		if err := w.endTerm(); err != nil {
			return 0, err
		}
	}
	if err := w.writePrefixes(); err != nil {
		return 0, err
	}
	w.end(secPostings)
	if err := w.dict.finish(); err != nil {
		return 0, err
	}
	if err := w.copySpool(secTermIdx, w.dict.idx); err != nil {
		return 0, err
	}
	if err := w.copySpool(secTermBlocks, w.dict.blk); err != nil {
		return 0, err
	}
	if err := w.endYears(); err != nil {
		return 0, err
	}
	if err := w.copySpool(secLicFlags, w.licFlags); err != nil {
		return 0, err
	}
	toc := w.toc()
	if err := w.align(); err != nil {
		return 0, err
	}
	tocOff := w.off
	if err := w.write(toc); err != nil {
		return 0, err
	}
	var foot [footerSize]byte
	binary.LittleEndian.PutUint64(foot[0:], uint64(tocOff))
	binary.LittleEndian.PutUint64(foot[8:], uint64(len(toc)))
	binary.LittleEndian.PutUint32(foot[16:], crc32.ChecksumIEEE(toc))
	copy(foot[24:], magic)
	if err := w.write(foot[:]); err != nil {
		return 0, err
	}
	w.unmapDocs()
	if err := w.bw.Flush(); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	if err := w.f.Sync(); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	if err := w.f.Close(); err != nil {
		return 0, fmt.Errorf("search: %w", err)
	}
	w.f = nil
	w.phase = 3
	return w.off, nil
}

// endYears writes the year column: uint16 years, or the spool's int32
// ones when a year does not fit.
func (w *Writer) endYears() error {
	return w.copySpoolNarrow(secYears, w.years, !w.yearsWide)
}

// copySpoolNarrow is copySpool, or, if narrow, copies the low two bytes
// of each of the spool's uint32 values.
func (w *Writer) copySpoolNarrow(s int, sp *spool, narrow bool) error {
	if !narrow {
		return w.copySpool(s, sp)
	}
	if err := sp.bw.Flush(); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("search: %w", err)
	}
	if err := w.begin(s); err != nil {
		return err
	}
	r := bufio.NewReaderSize(sp.f, 256<<10)
	in, out := make([]byte, 64<<10), make([]byte, 0, 32<<10)
	for left := sp.n; left > 0; {
		k := min(left, int64(len(in)))
		if _, err := io.ReadFull(r, in[:k]); err != nil {
			return fmt.Errorf("search: spool of section %d: %w", s, err)
		}
		out = out[:0]
		for i := int64(0); i+4 <= k; i += 4 {
			out = append(out, in[i], in[i+1])
		}
		if err := w.write(out); err != nil {
			return err
		}
		left -= k
	}
	w.end(s)
	sp.discard()
	return nil
}

// SetPairs records that the postings include the pair terms (PairTerm)
// of every adjacent pair of tokens in the fields of the mask fields that
// NewPairs(stop, frequent) indexes. stop (PairWords() for the builder)
// and frequent are sorted; frequent may be empty. Without it the index has
// no pairs and phrases are checked word by word.
func (w *Writer) SetPairs(stop, frequent []string, fields uint8) error {
	if len(stop) == 0 || len(stop) > maxPairWords || !validPairWords(stop) ||
		len(frequent) > maxPairWords || !validPairWords(frequent) || fields == 0 || fields >= 1<<NumFields {
		return fmt.Errorf("%w: pair words must be sorted and distinct, stop words non-empty, with fields", ErrWriteOrder)
	}
	w.pairWords, w.frequentWords, w.pairFields = slices.Clone(stop), slices.Clone(frequent), fields
	w.pairRule = NewPairs(stop, frequent)
	return nil
}

// DropRarePairs leaves out of the index the pair terms in fewer than
// minDF documents (at most 128, a block) of which a word is neither a
// stop nor a frequent pair word, and records minDF in the TOC: a phrase
// checks such a missing pair word by word (pairs.go). It is called after
// SetPairs and before the first posting; 1 keeps every pair (the
// default).
func (w *Writer) DropRarePairs(minDF int) error {
	if w.pairRule == nil || w.phase >= 2 || minDF < 1 || minDF > blockDocs {
		return fmt.Errorf("%w: DropRarePairs(%d) needs pairs, before the postings, with 1 to %d documents", ErrWriteOrder, minDF, blockDocs)
	}
	w.pairRule.minDF = minDF
	return nil
}

// JoinPairs makes the index a segment that joins segs, the segments
// before it in its snapshot (oldest first, those it does not merge): a
// pair term left out as rare by DropRarePairs is kept when its documents
// here and in segs' dictionaries reach the minimum, and the TOC records
// it, so that a Multi trusts the segment's missing pair when the segments
// before it count that many (pairs.go). It is called after DropRarePairs
// with a minimum above 1 and before the first posting; segs stay open
// until Close or Abort.
func (w *Writer) JoinPairs(segs []*Index) error {
	if w.pairRule == nil || w.pairRule.minDF <= 1 || w.phase >= 2 {
		return fmt.Errorf("%w: JoinPairs needs DropRarePairs, before the postings", ErrWriteOrder)
	}
	w.pairRule.joined = true
	w.archive = newPairArchive(segs)
	return nil
}

// toc encodes the table of contents: counts, sections, field average
// lengths, the names of licences and topics, as uvarints, and when the
// index has pair terms their pair words.
func (w *Writer) toc() []byte {
	b := []byte{}
	b = binary.AppendUvarint(b, uint64(w.n))
	b = binary.AppendUvarint(b, uint64(w.nTerms))
	b = binary.AppendUvarint(b, numSections)
	for _, s := range w.sec {
		b = binary.AppendUvarint(b, uint64(s[0]))
		b = binary.AppendUvarint(b, uint64(s[1]))
	}
	for _, avg := range w.avgLens() {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(avg))
	}
	names := [][]string{w.licenses, w.topics}
	if w.pairWords != nil {
		names = append(names, w.pairWords)
	}
	for _, names := range names {
		b = binary.AppendUvarint(b, uint64(len(names)))
		for _, s := range names {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
	}
	if w.pairWords != nil {
		b = append(b, w.pairFields)
		b = binary.AppendUvarint(b, uint64(len(w.frequentWords)))
		for _, s := range w.frequentWords {
			b = binary.AppendUvarint(b, uint64(len(s)))
			b = append(b, s...)
		}
		// The minimum of documents, written when above 1 or when flags
		// follow, then the flags of the entries after it.
		triples := w.pairRule.tripleTerms
		var flags uint64
		if len(triples) > 0 {
			flags |= tocTriples
		}
		if w.pairRule.joined {
			flags |= tocJoined
		}
		if m := w.pairRule.MinDF(); m > 1 || flags != 0 {
			b = binary.AppendUvarint(b, uint64(m))
		}
		if flags != 0 {
			b = binary.AppendUvarint(b, flags)
		}
		if len(triples) > 0 {
			b = binary.AppendUvarint(b, uint64(len(triples)))
			for _, s := range triples {
				b = binary.AppendUvarint(b, uint64(len(s)))
				b = append(b, s...)
			}
		}
	}
	return b
}

// Abort closes and removes the index file and the spools.
func (w *Writer) Abort() {
	for _, s := range []*spool{w.docs, w.topicOff, w.topicCodes, w.citeOff, w.citing, w.dict.idx, w.dict.blk, w.years, w.licFlags} {
		s.discard()
	}
	w.unmapDocs()
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.phase != 3 {
		os.Remove(w.path)
	}
	w.phase = 3
}

// appendOneSkip appends the short skip entry of a list of one block, e,
// written just before off, where the entry starts (FORMAT.md): the
// block's offset is off less its size, a bound the mask makes redundant
// is left out, and the last document and the frequency part's offset are
// read from the block.
func appendOneSkip(dst []byte, e skipEntry, off uint64) []byte {
	dst = append(dst, e.MaskOr)
	if e.MaskOr&anyFields != 0 {
		dst = binary.LittleEndian.AppendUint16(dst, roundUp16(float64(e.WAny)))
	}
	if e.MaskOr&^anyFields != 0 {
		dst = binary.LittleEndian.AppendUint16(dst, roundUp16(float64(e.WAll)))
	}
	dst = binary.AppendUvarint(dst, uint64(e.PosOff-e.FreqOff))
	return binary.AppendUvarint(dst, off-e.Off)
}

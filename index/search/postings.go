package search

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// noMore is the doc of an exhausted iterator.
const noMore = math.MaxInt32

// postings iterates one term's postings block by block. Entering a block
// unpacks its doc ids only (and views its field masks in place); the
// frequencies are decoded when a score or a phrase asks for them, the
// positions when a phrase asks. A malformed block ends the iteration and
// sets bad: the search then fails with ErrMalformed.
type postings struct {
	ix      *Index
	term    int                 // its index in the term table
	skips   []byte              // the skip table, in the mapping or in one
	skipOff uint64              // file offset of the skip table: the end of the last block
	one     [skipEntrySize]byte // the entry of a list of one block (skipTable)
	// gaps0 is set while delta holds the gaps of a list of one block,
	// unpacked by skipTable when the list was opened.
	gaps0   bool
	nblocks int
	df      int
	mask    uint8 // fields that count; docs with none are skipped

	blk   int // current block, -1 before the first
	cnt   int // docs in the block
	i     int // current doc's index in the block
	cur   int32
	all   bool      // every doc of the block has a wanted field
	want  [2]uint64 // else bit i: doc i has a wanted field (blockMeta.wanted)
	fm    []uint8   // the block's field masks, decoded into masks by fieldMasks
	fmBlk int       // the block whose masks fm holds, -1 for none
	imp   []byte    // the block's impact codes (writer's impact) in the mapping, nil if all are impQ
	impQ  uint32
	// impBase is the impact level of the block's code 0 (impactDecode).
	impBase uint8
	// impUnit turns the block's impacts into saturated weights.
	impUnit float64
	// impBuf holds block impBlk's impacts unpacked (blockImpacts).
	impBuf *[blockDocs]uint8
	impBlk int
	meta   blockMeta
	freq   []byte // the block's frequency part, in the mapping
	pos    []byte // the block's position part, in the mapping
	entry  skipEntry
	docs   []int32  // the block's docs: min(df, blockDocs) long
	delta  []uint32 // scratch for unpacking
	masks  []uint8  // the decoded masks: min(df, blockDocs) long

	// Frequencies, decoded for block freqBlk only, its first freqN docs:
	// freqCode codes of width freqW read, the escapes from freqEsc on.
	freqBlk  int
	freqN    int
	freqW    int
	freqCode int
	freqEsc  int
	*freqs   // allocated on the first decode: most lists are only walked
	// Doc posAt's position codes start at code posCode, and the escapes
	// of the codes before it end at posRd.
	posAt   int
	posCode int
	posRd   int
	bad     bool
}

// freqs are a block's decoded frequencies and each document's number of
// positions.
type freqs struct {
	tfs  [blockDocs][NumFields]uint32
	npos [blockDocs]uint32
}

// open makes an iterator over term t restricted to the fields in mask.
func (ix *Index) open(t int, mask uint8) *postings { return ix.openRec(t, ix.rec(t), mask) }

// rec is the record of the list's term.
func (p *postings) rec() termRec { return termRec{SkipOff: p.skipOff, DF: uint32(p.df)} }

// openRec is open with the term's record read.
func (ix *Index) openRec(t int, rec termRec, mask uint8) *postings {
	// Sized by df: a prefix opens hundreds of lists, most of them short.
	n := blockLen(rec)
	p := new(postings)
	ix.openInto(p, t, rec, mask, make([]int32, n), make([]uint32, n))
	return p
}

// blockLen is the length of the blocks of the list of rec: its documents,
// up to blockDocs.
func blockLen(rec termRec) int { return int(min(rec.DF, blockDocs)) }

// openInto is openRec into p, the list's blocks unpacked into docs and
// delta (blockLen long).
func (ix *Index) openInto(p *postings, t int, rec termRec, mask uint8, docs []int32, delta []uint32) {
	*p = postings{ix: ix, term: t, mask: mask, blk: -1, cur: -1, freqBlk: -1, fmBlk: -1, impBlk: -1}
	p.df = int(rec.DF)
	p.nblocks = (p.df + blockDocs - 1) / blockDocs
	p.docs, p.delta = docs, delta
	skips, end, ok := skipTable(ix.mm, ix.postLo, ix.postHi, rec.SkipOff, p.df, &p.one, p.delta)
	p.gaps0 = ok && p.nblocks == 1
	if !ok || p.nblocks == 1 && int32(binary.LittleEndian.Uint32(skips)) >= ix.n {
		// (A short entry's last document is read from its block.)
		p.bad, p.cur = true, noMore
		return
	}
	p.skips, p.skipOff = skips, rec.SkipOff
	if p.nblocks > 0 {
		// The list's blocks lie before its skip table, from its first
		// block's offset (checked when a block is read).
		first := min(max(blockOff(p.skips, rec.SkipOff), ix.postLo), rec.SkipOff)
		ix.res.Touch(int(first), int(end))
	}
}

// skipTable returns the skip table of the list of df documents whose
// term record gives off, as skipEntrySize-byte entries, and where it ends:
// the table in mm, or the short entry of a list of one block (FORMAT.md)
// decoded into one, its block's gaps left in gaps if it has room. ok is
// false if it does not lie within [lo, hi).
func skipTable(mm []byte, lo, hi, off uint64, df int, one *[skipEntrySize]byte, gaps []uint32) (skips []byte, end uint64, ok bool) {
	nblocks := (df + blockDocs - 1) / blockDocs
	if off < lo || off > hi {
		return nil, 0, false
	}
	if nblocks != 1 {
		end = off + uint64(nblocks)*skipEntrySize
		if end > hi || end < off {
			return nil, 0, false
		}
		return mm[off:end], end, true
	}
	b := mm[off:hi]
	if len(b) < 1 {
		return nil, 0, false
	}
	e := skipEntry{MaskOr: b[0]}
	at := 1
	f16 := func() (float32, bool) {
		if at+2 > len(b) {
			return 0, false
		}
		at += 2
		return bf16(binary.LittleEndian.Uint16(b[at-2:])), true
	}
	okA, okF := true, true
	if e.MaskOr&anyFields != 0 {
		e.WAny, okA = f16()
	}
	e.WAll = e.WAny
	if e.MaskOr&^anyFields != 0 {
		e.WAll, okF = f16()
	}
	var v [2]uint64
	for i := range v {
		x, n := uvarint(b, at)
		if n <= 0 {
			return nil, 0, false
		}
		v[i], at = x, at+n
	}
	freqLen, size := v[0], v[1]
	if !okA || !okF || size > off-lo || size == 0 {
		return nil, 0, false
	}
	// The last document and the frequency part's offset are the block's.
	e.Off = off - size
	blk := mm[e.Off:off]
	width := int(blk[0])
	metaAt := 1 + packedLen(df, width)
	if width > 31 || metaAt > len(blk) {
		return nil, 0, false
	}
	meta, ok := parseMeta(blk, metaAt, df, e.MaskOr)
	if !ok || freqLen > uint64(len(blk)-meta.end) {
		return nil, 0, false
	}
	var scratch [blockDocs]uint32
	if len(gaps) < df {
		gaps = scratch[:]
	}
	unpack(gaps[:df], blk[1:], width)
	last := int64(-1)
	for _, d := range gaps[:df] {
		last += int64(d) + 1
	}
	if last > math.MaxInt32 {
		return nil, 0, false
	}
	e.LastDoc, e.FreqOff, e.PosOff = int32(last), uint32(meta.end), uint32(meta.end)+uint32(freqLen)
	putSkip(one[:], e, off)
	return one[:], off + uint64(at), true
}

func (p *postings) lastDoc(b int) int32 {
	return int32(binary.LittleEndian.Uint32(p.skips[b*skipEntrySize:]))
}

func (p *postings) maskOr(b int) uint8 { return p.skips[b*skipEntrySize+skipMaskAt] }

// docPart is a checked block: its skip entry and bytes, its document
// count, the document before its first (-1 for a list's first block) and
// its meta part (masks and impacts). unpackDocs leaves its gaps in p.delta.
type docPart struct {
	e    skipEntry
	blk  []byte
	cnt  int
	prev int64
	meta blockMeta
}

// unpackDocs checks block b's offsets and doc part and unpacks its gaps
// into p.delta; false (and p failed) if the block is damaged.
func (p *postings) unpackDocs(b int) (docPart, bool) {
	v, ok := p.checkBlock(b)
	if ok && !p.gaps0 {
		unpack(p.delta[:v.cnt], v.blk[1:], int(v.blk[0]))
	}
	return v, ok
}

// checkBlock checks block b's offsets and parses its meta part without
// unpacking its gaps; false (and p failed) if the block is damaged.
// unpackGaps unpacks block b's doc gaps into delta, checking only what
// that reads (the block's bytes and their width): a count of its
// documents needs neither their masks nor their frequencies. It returns
// the block's last document before it (-1 for the first) and its
// number of documents.
func (p *postings) unpackGaps(b int) (prev int64, cnt int, ok bool) {
	cnt, prev = blockDocs, -1
	if b == p.nblocks-1 {
		cnt = p.df - b*blockDocs
	}
	if b > 0 {
		prev = int64(p.lastDoc(b - 1))
	}
	off := blockOff(p.skips[b*skipEntrySize:], p.skipOff)
	next := p.skipOff
	if b+1 < p.nblocks {
		next = blockOff(p.skips[(b+1)*skipEntrySize:], p.skipOff)
	}
	if off < p.ix.postLo || next > p.ix.postHi || off >= next {
		return prev, cnt, p.fail()
	}
	blk := p.ix.mm[off:next]
	width := int(blk[0])
	if width > 31 || 1+packedLen(cnt, width) > len(blk) {
		return prev, cnt, p.fail()
	}
	if !p.gaps0 {
		unpack(p.delta[:cnt], blk[1:], width)
	}
	return prev, cnt, true
}

func (p *postings) checkBlock(b int) (docPart, bool) {
	v := docPart{e: getSkip(p.skips[b*skipEntrySize:], p.skipOff), cnt: blockDocs, prev: -1}
	if b == p.nblocks-1 {
		v.cnt = p.df - b*blockDocs
	}
	if b > 0 {
		v.prev = int64(p.lastDoc(b - 1))
	}
	// The block ends where the next one starts, or at the skip table.
	next := p.skipOff
	if b+1 < p.nblocks {
		next = blockOff(p.skips[(b+1)*skipEntrySize:], p.skipOff)
	}
	e := v.e
	if e.Off < p.ix.postLo || next > p.ix.postHi || e.Off >= next || uint64(e.PosOff) > next-e.Off || e.FreqOff > e.PosOff {
		return v, p.fail()
	}
	v.blk = p.ix.mm[e.Off:next]
	width := int(v.blk[0])
	if width > 31 {
		return v, p.fail()
	}
	meta, ok := parseMeta(v.blk[:e.FreqOff], 1+packedLen(v.cnt, width), v.cnt, e.MaskOr)
	if !ok || uint64(meta.end) != uint64(e.FreqOff) {
		return v, p.fail()
	}
	v.meta = meta
	return v, true
}

// lastDocOK reports whether the block's documents, increasing by
// construction, end where its skip entry says and within the index (the
// sum of the gaps, last, cannot overflow an int64).
func (p *postings) lastDocOK(v *docPart, last int64) bool {
	return last == int64(v.e.LastDoc) && last < int64(p.ix.n)
}

// load unpacks block b's doc ids and reads which have a wanted field.
func (p *postings) load(b int) bool {
	v, ok := p.unpackDocs(b)
	if !ok {
		return false
	}
	acc := v.prev
	for i, d := range p.delta[:v.cnt] {
		acc += int64(d) + 1
		p.docs[i] = int32(acc)
	}
	if !p.lastDocOK(&v, acc) {
		return p.fail()
	}
	e, blk, cnt := v.e, v.blk, v.cnt
	p.cnt = cnt
	// Masks are checked where frequencies are decoded; a block whose
	// masks all lie within the wanted fields, or all have a wanted field,
	// needs no per-doc test.
	p.freq, p.pos = blk[e.FreqOff:e.PosOff], blk[e.PosOff:]
	p.blk, p.i, p.entry, p.meta = b, -1, e, v.meta
	p.all = e.MaskOr&^p.mask == 0 || v.meta.full&p.mask != 0
	if !p.all {
		p.want = v.meta.wanted(blk, cnt, e.MaskOr, p.mask)
	}
	p.imp, p.impQ = v.meta.impacts(blk, cnt)
	p.impBase = v.meta.impBase
	p.impUnit = impactUnit(e.WAny)
	return true
}

// impactUnit is the saturated weight that one impact of a block whose
// w_any bound is wAny stands for: the bound's over impactMax (writer's
// impact).
func impactUnit(wAny float32) float64 {
	w := float64(wAny)
	return w / (K1 + w) / impactMax
}

// impact returns the current block's document i's impact (writer's
// impact).
func (p *postings) impact(i int) uint32 {
	if p.imp == nil {
		return p.impQ
	}
	return uint32(impactDecode[p.impBase][getBits(p.imp, i*impactCodeBits, impactCodeBits)])
}

// blockImpacts returns the impacts of the current block's documents,
// unpacked on the first call for the block: a union adds the bound of
// each of them.
func (p *postings) blockImpacts() []uint8 {
	if p.imp == nil {
		return sameImpacts[p.impQ][:p.cnt]
	}
	if p.impBuf == nil {
		p.impBuf = new([blockDocs]uint8)
	} else if p.impBlk == p.blk {
		return p.impBuf[:p.cnt]
	}
	unpackImpacts(p.impBuf[:p.cnt], p.imp, p.impBase)
	p.impBlk = p.blk
	return p.impBuf[:p.cnt]
}

// wants reports whether the current block's document i has a wanted
// field.
func (p *postings) wants(i int) bool {
	return p.all || p.want[i>>6]&(1<<(i&63)) != 0
}

// fieldMasks returns the current block's field masks, decoded on the
// first call for the block: a walk that only counts skips them.
func (p *postings) fieldMasks() []uint8 {
	if p.masks == nil {
		// Decoded eight at a time (blockMeta.masks).
		n := min(p.df, blockDocs)
		p.masks = make([]uint8, n, (n+7)&^7)
	}
	if p.cnt == 0 {
		return p.masks // failed: the search reports it
	}
	if p.fmBlk != p.blk {
		p.fm = p.masks[:p.cnt]
		p.meta.masks(p.ix.mm[p.entry.Off:], p.fm, p.entry.MaskOr)
		p.fmBlk = p.blk
	}
	return p.fm
}

// loadFreqs decodes the current block's frequencies up to its current
// document: a phrase or a score that needs a few documents of a block
// does not decode the rest.
func (p *postings) loadFreqs() bool {
	if p.freqs == nil {
		p.freqs = new(freqs)
	}
	buf := p.freq
	if p.freqBlk != p.blk {
		// The escapes follow the codes: one a field of each document's mask.
		codes := 0
		for _, m := range p.fieldMasks() {
			codes += bits.OnesCount8(m)
		}
		if len(buf) == 0 || buf[0] > maxEscWidth || 1+packedLen(codes, int(buf[0])) > len(buf) {
			return p.fail()
		}
		p.freqBlk, p.freqN, p.posAt, p.posCode, p.posRd = p.blk, 0, 0, 0, 0
		p.freqW, p.freqCode, p.freqEsc = int(buf[0]), 0, 1+packedLen(codes, int(buf[0]))
	}
	if p.i < p.freqN {
		return true
	}
	w, code, rd := p.freqW, p.freqCode, p.freqEsc
	esc := uint32(1)<<w - 1
	codes := buf[1:]
	for ; p.freqN <= p.i; p.freqN++ {
		i := p.freqN
		tfs := &p.tfs[i]
		*tfs = [NumFields]uint32{}
		if p.fm[i] == 0 || p.fm[i] >= 1<<NumFields || p.fm[i]&^p.entry.MaskOr != 0 {
			return p.fail()
		}
		npos := uint64(0)
		for m := p.fm[i]; m != 0; m &= m - 1 {
			tf := uint64(1)
			if w > 0 {
				c := getBits(codes, code*w, w)
				code++
				tf += uint64(c)
				if c == esc {
					x, n := uvarint(buf, rd)
					if n <= 0 || x >= math.MaxUint32-uint64(esc) {
						return p.fail()
					}
					tf += x
					rd += n
				}
			}
			tfs[bits.TrailingZeros8(m)] = uint32(tf)
			npos += tf
		}
		if npos > 8*uint64(len(p.pos)) { // a position takes at least a bit
			return p.fail()
		}
		p.npos[i] = uint32(npos)
	}
	p.freqCode, p.freqEsc = code, rd
	if p.freqN == p.cnt && rd != len(buf) {
		return p.fail()
	}
	return true
}

func (p *postings) fail() bool {
	p.bad, p.cur, p.cnt = true, noMore, 0
	p.freqBlk = -1
	return false
}

// nextDoc moves to the next document with a wanted field.
func (p *postings) nextDoc() int32 {
	for p.cur != noMore {
		p.i++
		if p.i >= p.cnt {
			if !p.nextBlock(p.blk + 1) {
				return noMore
			}
			p.i = 0
		}
		if p.wants(p.i) {
			p.cur = p.docs[p.i]
			return p.cur
		}
	}
	return noMore
}

// nextBlock loads the first block from b on with a wanted field.
func (p *postings) nextBlock(b int) bool {
	for ; b < p.nblocks; b++ {
		if p.maskOr(b)&p.mask != 0 {
			return p.load(b)
		}
	}
	p.cur = noMore
	return false
}

// advance moves to the first document >= target with a wanted field.
func (p *postings) advance(target int32) int32 {
	if p.cur >= target {
		return p.cur
	}
	if p.blk < 0 || p.lastDoc(p.blk) < target {
		// Gallop over the skip table to the block holding target.
		lo := p.blk + 1
		if lo >= p.nblocks {
			p.cur = noMore
			return noMore
		}
		step, hi := 1, lo
		for hi < p.nblocks && p.lastDoc(hi) < target {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, p.nblocks-1)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if p.lastDoc(m) < target {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo >= p.nblocks || p.lastDoc(lo) < target {
			p.cur = noMore
			return noMore
		}
		if p.maskOr(lo)&p.mask == 0 {
			// No wanted field in the block: the next doc is in a later one.
			if !p.nextBlock(lo + 1) {
				return noMore
			}
			p.i = -1
			return p.nextDoc()
		}
		if !p.load(lo) {
			return noMore
		}
	}
	// In a conjunction of two frequent terms the target is most often a
	// few documents on: look at those first, then search the rest.
	lo, hi := p.i+1, p.cnt
	for end := min(lo+4, hi); lo < end; lo++ {
		if p.docs[lo] >= target {
			p.i = lo - 1
			return p.nextDoc()
		}
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.docs[m] < target {
			lo = m + 1
		} else {
			hi = m
		}
	}
	p.i = lo - 1
	return p.nextDoc()
}

// tf returns the current document's frequencies (decoding the block's).
func (p *postings) tf() *[NumFields]uint32 {
	if !p.loadFreqs() {
		return new([NumFields]uint32) // zeros after fail; the search reports bad
	}
	return &p.tfs[p.i]
}

// positions appends the current document's positions in field f to dst.
func (p *postings) positions(dst []uint32, f int) []uint32 {
	if p.fieldMasks()[p.i]&(1<<f) == 0 || !p.loadFreqs() {
		return dst
	}
	// The position part (FORMAT.md): the escapes if the meta part says
	// so, then the codes.
	buf, w := p.pos, p.meta.posW
	escAt, codesAt := 0, 0
	if p.meta.posEsc {
		n, k := uvarint(buf, 0)
		if k <= 0 || n > uint64(len(buf)-k) {
			p.fail()
			return dst
		}
		escAt = k
		codesAt = escAt + int(n)
	}
	esc, codes := buf[escAt:codesAt], buf[codesAt:]
	if p.posAt > p.i {
		p.posAt, p.posCode, p.posRd = 0, 0, 0
	}
	// The codes of the block's earlier documents, then of the document's
	// earlier fields, are skipped: only their escapes are counted.
	code := p.posCode
	for ; p.posAt < p.i; p.posAt++ {
		code += int(p.npos[p.posAt])
	}
	k := 0
	for g := 0; g < f; g++ {
		k += int(p.tfs[p.i][g])
	}
	tf := int(p.tfs[p.i][f])
	if (code+k+tf)*w > 8*len(codes) {
		p.fail()
		return dst
	}
	rd := p.posRd
	if len(esc) > 0 {
		rd = skipUvarints(esc, rd, countEscapes(codes, p.posCode, code-p.posCode, w))
		p.posCode, p.posRd = code, rd
		if rd >= 0 {
			rd = skipUvarints(esc, rd, countEscapes(codes, code, k, w))
		}
		if rd < 0 {
			p.posAt, p.posCode, p.posRd = 0, 0, 0
			p.fail()
			return dst
		}
	}
	p.posCode = code
	escv := uint32(1)<<w - 1
	x := uint32(0)
	for j := range tf {
		v := getBits(codes, (code+k+j)*w, w)
		if v == escv {
			d, n := uvarint(esc, rd)
			if n <= 0 {
				p.fail()
				return dst
			}
			rd += n
			v += uint32(d)
		}
		if j > 0 {
			v += x + 1
		}
		x = v
		dst = append(dst, x)
	}
	return dst
}

// countBlock counts block b's documents with a wanted field without
// unpacking its doc ids: all of them when the block has no other field,
// else by its mask bytes. ok is false if the block is malformed.
func (p *postings) countBlock(b int) (n int, ok bool) {
	cnt := blockDocs
	if b == p.nblocks-1 {
		cnt = p.df - b*blockDocs
	}
	or := p.maskOr(b)
	if or&p.mask == 0 {
		return 0, true
	}
	if or&^p.mask == 0 {
		return cnt, true
	}
	if p.mask == anyFields {
		// Counted by the writer (a long list's entry; damaged: read the
		// block).
		if a := int(p.skips[b*skipEntrySize+skipAnyAt]); a > 0 && a-1 <= cnt {
			return a - 1, true
		}
	}
	v, ok := p.checkBlock(b)
	if !ok {
		return 0, false
	}
	want := v.meta.wanted(v.blk, cnt, or, p.mask)
	return bits.OnesCount64(want[0]) + bits.OnesCount64(want[1]), true
}

// uvarint is binary.Uvarint(b[at:]) with the one-byte case inline.
func uvarint(b []byte, at int) (uint64, int) {
	if at < len(b) && b[at] < 0x80 {
		return uint64(b[at]), 1
	}
	if at >= len(b) {
		return 0, 0
	}
	return binary.Uvarint(b[at:])
}

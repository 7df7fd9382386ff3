package search

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The block's meta part follows its gaps (FORMAT.md): a header byte
// (metaMasks | metaImpacts | the position part's code width less one <<
// metaPosShift | metaPosEscapes | metaPalette), the mask part and the
// impact part.
const (
	metaMasks      = 1 << 0 // the masks differ: the mask part follows
	metaImpacts    = 1 << 1 // the impacts differ: a base level and impactCodeBits a document
	metaPosShift   = 2      // bits 2-5: the position codes' width less one
	metaPosEscapes = 1 << 6 // the position part starts with escapes
	metaPalette    = 1 << 7 // with metaMasks: the set of the masks and planes of each document's index in it
)

// appendMeta appends the meta part of a block whose documents have the
// field masks masks (maskOr their union) and the impact levels impacts
// (none: every document's is the block bound's), its header byte ORed
// with posHdr (appendPositions' bits). codes is scratch of len(masks).
func appendMeta(dst, masks []byte, maskOr uint8, impacts []byte, posHdr byte, codes []uint32) []byte {
	full := maskOr
	for _, m := range masks {
		full &= m
	}
	h := posHdr
	if len(impacts) > 0 && slices.Min(impacts) != slices.Max(impacts) {
		// Else every document's impact is the block's w_any bound's.
		h |= metaImpacts
	}
	switch {
	case full == maskOr:
		// Most blocks: every document has the block's fields.
		dst = append(dst, h)
	case paletteSmaller(masks, full, maskOr):
		// The set of the block's masks, each as its fields' bits among
		// maskOr's (compressed), then a plane for each bit of a
		// document's index in that set.
		cm, ex := &compressed[maskOr&(1<<NumFields-1)], &expanded[maskOr&(1<<NumFields-1)]
		var set uint64
		for _, m := range masks {
			set |= 1 << cm[m&(1<<NumFields-1)]
		}
		dst = append(dst, h|metaMasks|metaPalette)
		for i := range paletteLen(maskOr) {
			dst = append(dst, byte(set>>(8*i)))
		}
		var index [1 << NumFields]uint8 // a mask's index: its rank in set
		r := uint8(0)
		for s := set; s != 0; s &= s - 1 {
			index[ex[bits.TrailingZeros64(s)]] = r
			r++
		}
		for b := range bits.Len(uint(bits.OnesCount64(set) - 1)) {
			for i, m := range masks {
				codes[i] = uint32(index[m&(1<<NumFields-1)]) >> b & 1
			}
			dst = appendPacked(dst, codes, 1)
		}
	default:
		// The fields every document has, then a plane of one bit a
		// document for each other field.
		dst = append(dst, h|metaMasks, full)
		for f := range NumFields {
			if (maskOr&^full)&(1<<f) == 0 {
				continue
			}
			for i, m := range masks {
				codes[i] = uint32(m>>f) & 1
			}
			dst = appendPacked(dst, codes, 1)
		}
	}
	if h&metaImpacts != 0 {
		// The block's lowest level, then each document's code above it.
		base := slices.Min(impacts)
		dst = append(dst, base)
		enc := &impactEncode[base]
		for i, q := range impacts {
			codes[i] = uint32(enc[q])
		}
		dst = appendPacked(dst, codes, impactCodeBits)
	}
	return dst
}

// paletteSmaller reports whether the masks, whose union is maskOr and
// intersection full, take fewer bytes as a palette than as a plane for
// each field of maskOr &^ full.
func paletteSmaller(masks []byte, full, maskOr uint8) bool {
	var seen uint64
	for _, m := range masks {
		seen |= 1 << m
	}
	k := bits.OnesCount64(seen)
	planes := 1 + bits.OnesCount8(maskOr&^full)*packedLen(len(masks), 1)
	return paletteLen(maskOr)+bits.Len(uint(k-1))*packedLen(len(masks), 1) < planes
}

// paletteLen is the length of the set of a palette of masks within
// maskOr: a bit for each subset of its fields.
func paletteLen(maskOr uint8) int {
	return packedLen(1<<bits.OnesCount8(maskOr), 1)
}

// compressed[maskOr][m] is the mask m, a subset of maskOr, as the fields
// it has among maskOr's: bit i is set if m has maskOr's i-th field (in
// field order); expanded[maskOr][j] is the reverse.
var compressed, expanded = func() (c, e [1 << NumFields][1 << NumFields]uint8) {
	for or := range c {
		for m := range c[or] {
			if m&^or != 0 {
				continue
			}
			var j uint8
			for i, rest := 0, or; rest != 0; i++ {
				low := rest & -rest
				if m&low != 0 {
					j |= 1 << i
				}
				rest &^= low
			}
			c[or][m], e[or][j] = j, uint8(m)
		}
	}
	return c, e
}()

// blockMeta is a parsed meta part: where its masks and impacts lie in
// the block.
type blockMeta struct {
	masksDiffer bool   // the masks differ
	full        uint8  // the fields every document has
	palSet      uint64 // a palette's masks as sets of maskOr's fields (compressed); 0 for planes
	masksAt     int    // the planes: of the fields of maskOr &^ full, or of a palette's indexes
	impBase     uint8  // the impact level of code 0
	impAt       int    // the impact codes, 0 if none
	end         int    // the end of the meta part: the frequency part's offset
	posW        int    // the width of the position codes (1 to maxEscWidth)
	posEsc      bool   // the position part starts with escapes
}

// parseMeta parses the meta part of a block of cnt documents that starts
// at blk[at:]; ok is false if it does not fit or is not as written.
func parseMeta(blk []byte, at, cnt int, maskOr uint8) (m blockMeta, ok bool) {
	if at >= len(blk) {
		return m, false
	}
	h := blk[at]
	m.masksDiffer = h&metaMasks != 0
	m.posW, m.posEsc = 1+int(h>>metaPosShift&0xf), h&metaPosEscapes != 0
	at++
	m.full = maskOr
	switch {
	case h&metaPalette != 0:
		if at, ok = m.parsePalette(blk, at, cnt, maskOr); !ok || !m.masksDiffer {
			return m, false
		}
	case m.masksDiffer:
		if at >= len(blk) {
			return m, false
		}
		m.full = blk[at]
		m.masksAt = at + 1
		at = m.masksAt + bits.OnesCount8(maskOr&^m.full)*packedLen(cnt, 1)
		if m.full&^maskOr != 0 || m.full == maskOr || at > len(blk) {
			return m, false
		}
	}
	if h&metaImpacts != 0 {
		if at >= len(blk) || blk[at] >= impactMax {
			return m, false
		}
		m.impBase = blk[at]
		m.impAt = at + 1
		at = m.impAt + packedLen(cnt, impactCodeBits)
		if at > len(blk) {
			return m, false
		}
	}
	m.end = at
	return m, true
}

// parsePalette parses the set of a palette of masks at blk[at:] and
// returns the end of its planes.
func (m *blockMeta) parsePalette(blk []byte, at, cnt int, maskOr uint8) (int, bool) {
	p := bits.OnesCount8(maskOr)
	n := packedLen(1<<p, 1)
	if at+n > len(blk) {
		return at, false
	}
	var b [8]byte
	copy(b[:], blk[at:at+n])
	set := binary.LittleEndian.Uint64(b[:])
	all := uint64(1)<<(1<<p) - 1 // every bit for 6 fields
	k := bits.OnesCount64(set)
	// A set of at least two masks of no empty one, within maskOr.
	if k < 2 || set&1 != 0 || set&^all != 0 {
		return at, false
	}
	// The fields all of the set's masks have, and those one has: bit i of
	// j is set for the j of indexBit[i].
	var fullJ, orJ uint
	for i := range p {
		if set&indexBit[i] != 0 {
			orJ |= 1 << i
		}
		if set&^indexBit[i] == 0 {
			fullJ |= 1 << i
		}
	}
	m.palSet, m.full, m.masksAt = set, expanded[maskOr&(1<<NumFields-1)][fullJ], at+n
	end := m.masksAt + bits.Len(uint(k-1))*packedLen(cnt, 1)
	return end, orJ == 1<<p-1 && end <= len(blk)
}

// indexBit[i] has bit j set for each j whose bit i is set.
var indexBit = [NumFields]uint64{0xAAAAAAAAAAAAAAAA, 0xCCCCCCCCCCCCCCCC, 0xF0F0F0F0F0F0F0F0,
	0xFF00FF00FF00FF00, 0xFFFF0000FFFF0000, 0xFFFFFFFF00000000}

// spread maps a byte to 8 bytes of one bit each: byte j of spread[b] is
// bit j of b.
var spread = func() (t [256]uint64) {
	for b := range t {
		for j := range 8 {
			t[b] |= uint64(b>>j&1) << (8 * j)
		}
	}
	return t
}()

// masks decodes the block's field masks into dst (its documents' count
// long, its capacity a multiple of 8 at least).
func (m *blockMeta) masks(blk, dst []byte, maskOr uint8) {
	n := len(dst)
	words := dst[:(n+7)&^7]
	full := uint64(m.full) * 0x0101010101010101
	for k := 0; k < len(words); k += 8 {
		binary.LittleEndian.PutUint64(words[k:], full)
	}
	if !m.masksDiffer {
		return
	}
	if m.palSet != 0 {
		m.paletteMasks(blk, dst, maskOr)
		return
	}
	plane := packedLen(n, 1)
	at := m.masksAt
	for f := range NumFields {
		if (maskOr&^m.full)&(1<<f) == 0 {
			continue
		}
		for k, b := range blk[at : at+plane] {
			w := binary.LittleEndian.Uint64(words[8*k:])
			binary.LittleEndian.PutUint64(words[8*k:], w|spread[b]<<f)
		}
		at += plane
	}
}

// wanted returns the block's documents whose mask shares a field with
// mask: bit i of word i/64 for document i.
func (m *blockMeta) wanted(blk []byte, cnt int, maskOr, mask uint8) (want [2]uint64) {
	switch {
	case maskOr&mask == 0:
		return want
	case m.full&mask != 0:
		for i := range want {
			if n := cnt - 64*i; n > 0 {
				want[i] = 1<<min(n, 64) - 1
			}
		}
		return want
	}
	if m.palSet != 0 {
		return m.paletteWanted(blk, cnt, maskOr, mask)
	}
	// The wanted fields' planes ORed; bits past cnt are zero.
	var or [blockDocs / 8]byte
	plane := packedLen(cnt, 1)
	at := m.masksAt
	for f := range NumFields {
		if (maskOr&^m.full)&(1<<f) == 0 {
			continue
		}
		if mask&(1<<f) != 0 {
			for k, b := range blk[at : at+plane] {
				or[k] |= b
			}
		}
		at += plane
	}
	return [2]uint64{binary.LittleEndian.Uint64(or[:]), binary.LittleEndian.Uint64(or[8:])}
}

// paletteMasks decodes the masks of a block of palette form into dst (as
// masks does): each document's index from the planes, then its mask.
func (m *blockMeta) paletteMasks(blk, dst []byte, maskOr uint8) {
	n, k := len(dst), bits.OnesCount64(m.palSet)
	var pal [1 << NumFields]uint8
	r := 0
	for s := m.palSet; s != 0; s &= s - 1 {
		pal[r] = expanded[maskOr&(1<<NumFields-1)][bits.TrailingZeros64(s)]
		r++
	}
	words := dst[:(n+7)&^7]
	clear(words)
	plane := packedLen(n, 1)
	at := m.masksAt
	for b := range bits.Len(uint(k - 1)) {
		for j, c := range blk[at : at+plane] {
			w := binary.LittleEndian.Uint64(words[8*j:])
			binary.LittleEndian.PutUint64(words[8*j:], w|spread[c]<<b)
		}
		at += plane
	}
	for i, c := range dst {
		dst[i] = pal[c&(1<<NumFields-1)]
	}
}

// paletteWanted is wanted for a block of palette form: the documents
// whose index is that of a mask with a field of mask, each such index
// the AND of the index planes of its set bits and of the complements of
// the others, 64 documents at a time.
func (m *blockMeta) paletteWanted(blk []byte, cnt int, maskOr, mask uint8) (want [2]uint64) {
	w := bits.Len(uint(bits.OnesCount64(m.palSet) - 1))
	plane := packedLen(cnt, 1)
	var planes [NumFields][2]uint64
	for b := range w {
		var buf [blockDocs / 8]byte
		copy(buf[:], blk[m.masksAt+b*plane:m.masksAt+(b+1)*plane])
		planes[b] = [2]uint64{binary.LittleEndian.Uint64(buf[:]), binary.LittleEndian.Uint64(buf[8:])}
	}
	or := maskOr & (1<<NumFields - 1)
	wantJ := uint(compressed[or][mask&or])
	r := 0
	for s := m.palSet; s != 0; s &= s - 1 {
		if uint(bits.TrailingZeros64(s))&wantJ != 0 {
			docs := [2]uint64{^uint64(0), ^uint64(0)}
			for b, p := range planes[:w] {
				if r>>b&1 == 0 {
					p = [2]uint64{^p[0], ^p[1]}
				}
				docs[0] &= p[0]
				docs[1] &= p[1]
			}
			want[0] |= docs[0]
			want[1] |= docs[1]
		}
		r++
	}
	// Bits past cnt are zero.
	for i := range want {
		want[i] &= 1<<max(min(cnt-64*i, 64), 0) - 1
	}
	return want
}

// impacts returns the impact codes of the block's cnt documents in place
// (impactCodeBits each, packed as the gaps; m.impBase is the level of
// code 0), or, without them, nil and every document's impact level: that
// of the block's bound, impactMax.
func (m *blockMeta) impacts(blk []byte, cnt int) ([]byte, uint32) {
	if m.impAt > 0 {
		return blk[m.impAt : m.impAt+packedLen(cnt, impactCodeBits)], 0
	}
	return nil, impactMax
}

// unpackImpacts unpacks len(dst) impact codes from src into their levels
// in a block whose code 0 is level base: two codes a byte
// (impactCodeBits is 4).
func unpackImpacts(dst []uint8, src []byte, base uint8) {
	lv := &impactDecode[base&impactMax]
	i := 0
	for k := 0; i+2 <= len(dst) && k < len(src); i, k = i+2, k+1 {
		dst[i], dst[i+1] = lv[src[k]&0xf], lv[src[k]>>4]
	}
	if i < len(dst) && i/2 < len(src) {
		dst[i] = lv[src[i/2]&0xf]
	}
}

// impactDecode[b][c] is the impact level of code c in a block whose code 0
// is level b: impactMax less (impactMax − b)·impactSteps[c]/1024, rounded
// down.
var impactDecode = func() (t [impactMax + 1][1 << impactCodeBits]uint8) {
	for b := range t {
		for c := range t[b] {
			t[b][c] = uint8(impactMax - (impactMax-b)*impactSteps[c]/1024)
		}
	}
	return t
}()

// impactSteps are the codes' distances below impactMax, in 1/1024 of the
// block's span, ((15−c)/15)^1.5 rounded: the steps narrow towards the
// block's bound, where the documents that a page's threshold lets in lie
// (with equal steps, a search of one word cost 14 % more CPU than with
// 6-bit levels; with these, 4 %).
var impactSteps = [1 << impactCodeBits]int{1024, 923, 826, 733, 643, 557, 476, 399, 326, 259, 197, 141, 92, 50, 18, 0}

// impactEncode[b][q] is the code of level q in a block whose code 0 is
// level b: the first whose level is at least q (q >= b).
var impactEncode = func() (t [impactMax + 1][impactMax + 1]uint8) {
	for b := range t {
		c := 0
		for q := b; q <= impactMax; q++ {
			for impactDecode[b][c] < uint8(q) {
				c++
			}
			t[b][q] = uint8(c)
		}
	}
	return t
}()

// sameImpacts[q] is a block's impacts when they are all q (read only).
var sameImpacts = func() (t [impactMax + 1][blockDocs]uint8) {
	for q := range t {
		for i := range t[q] {
			t[q][i] = uint8(q)
		}
	}
	return t
}()

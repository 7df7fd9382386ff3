package search

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// The block's meta part follows its gaps (FORMAT.md): a header byte
// (metaPlanes | metaImpacts | the position part's code width less one <<
// metaPosShift | metaPosEscapes), the mask part and the impact part.
const (
	metaPlanes     = 1 << 0 // the masks differ: the mask part has planes
	metaImpacts    = 1 << 1 // the impacts differ: impactBits a document
	metaPosShift   = 2      // bits 2-5: the position codes' width less one
	metaPosEscapes = 1 << 6 // the position part starts with escapes
)

// appendMeta appends the meta part of a block whose documents have the
// field masks masks (maskOr their union) and the impacts impacts (none:
// every document's is the block bound's), its header byte ORed with
// posHdr (appendPositions' bits). codes is scratch of len(masks).
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
	if full == maskOr {
		// Most blocks: every document has the block's fields.
		dst = append(dst, h)
	} else {
		// The fields every document has, then a plane of one bit a
		// document for each other field.
		dst = append(dst, h|metaPlanes, full)
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
		for i, q := range impacts {
			codes[i] = uint32(q)
		}
		dst = appendPacked(dst, codes, impactBits)
	}
	return dst
}

// blockMeta is a parsed meta part: where its planes and impacts lie
// in the block.
type blockMeta struct {
	planes   bool  // the masks differ
	full     uint8 // the fields every document has
	planesAt int   // a plane of packedLen(cnt, 1) bytes for each field of maskOr &^ full
	impAt    int   // the impact codes, 0 if none
	end      int   // the end of the meta part: the frequency part's offset
	posW     int   // the width of the position codes (1 to maxEscWidth)
	posEsc   bool  // the position part starts with escapes
}

// parseMeta parses the meta part of a block of cnt documents that starts
// at blk[at:]; ok is false if it does not fit or is not as written.
func parseMeta(blk []byte, at, cnt int, maskOr uint8) (m blockMeta, ok bool) {
	if at >= len(blk) {
		return m, false
	}
	h := blk[at]
	m.planes = h&metaPlanes != 0
	m.posW, m.posEsc = 1+int(h>>metaPosShift&0xf), h&metaPosEscapes != 0
	if h&0x80 != 0 {
		return m, false
	}
	at++
	m.full = maskOr
	if m.planes {
		if at >= len(blk) {
			return m, false
		}
		m.full = blk[at]
		m.planesAt = at + 1
		at = m.planesAt + bits.OnesCount8(maskOr&^m.full)*packedLen(cnt, 1)
		if m.full&^maskOr != 0 || m.full == maskOr || at > len(blk) {
			return m, false
		}
	}
	if h&metaImpacts != 0 {
		m.impAt = at
		at += packedLen(cnt, impactBits)
		if at > len(blk) {
			return m, false
		}
	}
	m.end = at
	return m, true
}

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
	if !m.planes {
		return
	}
	plane := packedLen(n, 1)
	at := m.planesAt
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
	// The wanted fields' planes ORed; bits past cnt are zero.
	var or [blockDocs / 8]byte
	plane := packedLen(cnt, 1)
	at := m.planesAt
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

// impacts returns the impact codes of the block's cnt documents in place
// (impactBits each, packed as the gaps), or, without them, nil and every
// document's impact: that of the block's bound, impactMax.
func (m *blockMeta) impacts(blk []byte, cnt int) ([]byte, uint32) {
	if m.impAt > 0 {
		return blk[m.impAt : m.impAt+packedLen(cnt, impactBits)], 0
	}
	return nil, impactMax
}

// unpackImpacts unpacks len(dst) impacts of impactBits (6) from src,
// three bytes holding four of them.
func unpackImpacts(dst []uint8, src []byte) {
	i := 0
	for k := 0; i+4 <= len(dst) && k+3 <= len(src); i, k = i+4, k+3 {
		v := uint32(src[k]) | uint32(src[k+1])<<8 | uint32(src[k+2])<<16
		dst[i], dst[i+1], dst[i+2], dst[i+3] = uint8(v&impactMax), uint8(v>>impactBits&impactMax), uint8(v>>(2*impactBits)&impactMax), uint8(v>>(3*impactBits))
	}
	for ; i < len(dst); i++ {
		dst[i] = uint8(getBits(src, i*impactBits, impactBits))
	}
}

// sameImpacts[q] is a block's impacts when they are all q (read only).
var sameImpacts = func() (t [impactMax + 1][blockDocs]uint8) {
	for q := range t {
		for i := range t[q] {
			t[q][i] = uint8(q)
		}
	}
	return t
}()

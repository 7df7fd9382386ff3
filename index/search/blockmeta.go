package search

import (
	"math/bits"
	"slices"
)

// impactBits is the width of a block's impact codes when its documents'
// impacts differ (FORMAT.md): 4 bits bound a document's impact to within
// a sixteenth of the block's largest, which prunes about as well as the
// byte it replaces (most documents of a block that can enter a page are
// scored anyway) at half a byte a posting.
const impactBits = 4

// The block's meta part follows its gaps (FORMAT.md): a header byte (mask
// code width | impact code width << 4), the mask part and the impact part.
const maxMaskWidth = 6 // 63 distinct masks of 6 fields

// appendMeta appends the meta part of a block whose documents have the
// field masks masks (maskOr their union) and the impact bytes impacts.
// codes is scratch of len(masks).
func appendMeta(dst, masks, impacts []byte, codes []uint32) []byte {
	// The block's distinct masks, in increasing order: most blocks have
	// one (its maskOr) and write none.
	var seen uint64
	for _, m := range masks {
		seen |= 1 << m
	}
	k := bits.OnesCount64(seen)
	mw := bits.Len(uint(k - 1))
	iw := impactBits
	top := slices.Max(impacts)
	if slices.Min(impacts) == top {
		iw = 0 // every document's impact is the bound of the block's w_any
	}
	dst = append(dst, byte(mw|iw<<4))
	if mw > 0 {
		dst = append(dst, byte(k))
		var code [64]uint32
		c := uint32(0)
		for m := seen; m != 0; m &= m - 1 {
			x := bits.TrailingZeros64(m)
			dst = append(dst, byte(x))
			code[x] = c
			c++
		}
		for i, m := range masks {
			codes[i] = code[m]
		}
		dst = appendPacked(dst, codes, mw)
	}
	if iw > 0 {
		// c = ⌈q·L/top⌉, so that the reader's ⌈top·c/L⌉ >= q.
		l := uint32(1)<<iw - 1
		dst = append(dst, top)
		for i, q := range impacts {
			codes[i] = (uint32(q)*l + uint32(top) - 1) / uint32(top)
		}
		dst = appendPacked(dst, codes, iw)
	}
	return dst
}

// blockMeta is a parsed meta part: where its mask and impact codes lie in
// the block.
type blockMeta struct {
	mw, iw  int
	k       int // distinct masks (mw > 0)
	dictAt  int // the k masks
	codesAt int // the mask codes
	top     uint8
	impAt   int // the impact codes
	end     int // the end of the meta part: the frequency part's offset
}

// parseMeta parses the meta part of a block of cnt documents that starts
// at blk[at:]; ok is false if it does not fit or is not as written.
func parseMeta(blk []byte, at, cnt int, maskOr uint8) (m blockMeta, ok bool) {
	if at >= len(blk) {
		return m, false
	}
	h := blk[at]
	m.mw, m.iw = int(h&15), int(h>>4)
	if m.mw > maxMaskWidth || m.iw > 8 {
		return m, false
	}
	at++
	if m.mw > 0 {
		if at >= len(blk) {
			return m, false
		}
		m.k = int(blk[at])
		m.dictAt = at + 1
		m.codesAt = m.dictAt + m.k
		at = m.codesAt + packedLen(cnt, m.mw)
		if m.k < 2 || bits.Len(uint(m.k-1)) != m.mw || at > len(blk) {
			return m, false
		}
		// The masks are increasing, of the block's fields.
		prev := uint8(0)
		for _, x := range blk[m.dictAt:m.codesAt] {
			if x <= prev || x&^maskOr != 0 {
				return m, false
			}
			prev = x
		}
	}
	if m.iw > 0 {
		if at >= len(blk) {
			return m, false
		}
		m.top = blk[at]
		m.impAt = at + 1
		at = m.impAt + packedLen(cnt, m.iw)
		if at > len(blk) {
			return m, false
		}
	}
	m.end = at
	return m, true
}

// masks decodes the block's field masks into dst (its documents' count
// long); codes is scratch as long. A code past the masks decodes as 0,
// which frequencies refuse.
func (m *blockMeta) masks(blk, dst []byte, maskOr uint8, codes []uint32) {
	if m.mw == 0 {
		for i := range dst {
			dst[i] = maskOr
		}
		return
	}
	var dict [64]uint8
	copy(dict[:], blk[m.dictAt:m.codesAt])
	unpack(codes[:len(dst)], blk[m.codesAt:], m.mw)
	for i, c := range codes[:len(dst)] {
		dst[i] = dict[c&63]
	}
}

// countMasks counts the block's documents whose mask shares a field with
// mask; codes is scratch of cnt.
func (m *blockMeta) countMasks(blk []byte, cnt int, maskOr, mask uint8, codes []uint32) int {
	if m.mw == 0 {
		if maskOr&mask != 0 {
			return cnt
		}
		return 0
	}
	var hit [64]bool
	for c, x := range blk[m.dictAt:m.codesAt] {
		hit[c] = x&mask != 0
	}
	unpack(codes[:cnt], blk[m.codesAt:], m.mw)
	n := 0
	for _, c := range codes[:cnt] {
		if hit[c&63] {
			n++
		}
	}
	return n
}

// impacts decodes the block's impact bytes into dst: ⌈top·c/L⌉ for code
// c, or, without codes, the impact of the block's w_any bound.
func (m *blockMeta) impacts(blk, dst []byte, wAny float32, codes []uint32) {
	if m.iw == 0 {
		q := impact(float64(wAny))
		for i := range dst {
			dst[i] = q
		}
		return
	}
	l := uint32(1)<<m.iw - 1
	var lut [256]uint8
	for c := range l + 1 {
		lut[c] = uint8(min((uint32(m.top)*c+l-1)/l, 255))
	}
	unpack(codes[:len(dst)], blk[m.impAt:], m.iw)
	for i, c := range codes[:len(dst)] {
		dst[i] = lut[c&255]
	}
}

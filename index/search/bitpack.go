package search

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// packedLen is the number of bytes that n values of width b bits take.
func packedLen(n, b int) int { return (n*b + 7) / 8 }

// bitWidth is the number of bits of the largest of vals (0 when all are 0).
func bitWidth(vals []uint32) int {
	var or uint32
	for _, v := range vals {
		or |= v
	}
	return bits.Len32(or)
}

// appendPacked appends vals, b bits each, least significant bits first:
// value i occupies bits i·b to i·b+b-1 of the little-endian bit string.
// Every value must be below 2^b.
func appendPacked(dst []byte, vals []uint32, b int) []byte {
	if b == 0 {
		return dst
	}
	var acc uint64
	n := 0 // bits in acc
	for _, v := range vals {
		acc |= uint64(v) << n
		n += b
		for n >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			n -= 8
		}
	}
	if n > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

// unpack reads len(dst) values of b bits (b <= 32) from src, which holds
// at least packedLen(len(dst), b) bytes.
func unpack(dst []uint32, src []byte, b int) {
	if b == 0 {
		clear(dst)
		return
	}
	mask := uint64(1)<<b - 1
	need := packedLen(len(dst), b)
	// Whole 8-byte loads while they stay inside src, then byte by byte.
	fast := 0
	if need >= 8 {
		// Value i starts in byte (i·b)/8 and spans at most 5 bytes: a load
		// at that byte is safe while it ends within need bytes.
		fast = min(len(dst), ((need-8)*8)/b+1)
		for fast > 0 && ((fast-1)*b)/8+8 > need {
			fast--
		}
	}
	for i := range fast {
		bit := i * b
		w := binary.LittleEndian.Uint64(src[bit>>3:])
		dst[i] = uint32((w >> (bit & 7)) & mask)
	}
	for i := fast; i < len(dst); i++ {
		bit := i * b
		var w uint64
		for k := 0; k < 5 && bit>>3+k < need; k++ {
			w |= uint64(src[bit>>3+k]) << (8 * k)
		}
		dst[i] = uint32((w >> (bit & 7)) & mask)
	}
}

// maxEscWidth bounds the code width of appendEscaped.
const maxEscWidth = 16

// appendEscaped appends vals as a width byte b, the values as b-bit codes
// (appendPacked) and the escapes: with b >= 1 a value of at least 2^b-1
// has the code 2^b-1 and, in the escapes after the codes in value order,
// the uvarint of the rest (value - (2^b-1)); b = 0 when every value is 0
// (no codes, no escapes). b is the width that makes the bytes fewest.
func appendEscaped(dst []byte, vals []uint32) []byte {
	b, _ := escapedWidth(vals, 0, false)
	dst = append(dst, byte(b))
	dst = appendCodes(dst, vals, b)
	return appendEscapes(dst, vals, b)
}

// appendPositions appends a block's position part (FORMAT.md) and returns
// the bits of the meta header byte that describe it: the width b (1 to
// maxEscWidth) of its codes less one << metaPosShift, and metaPosEscapes
// if it starts with escapes, the uvarint of their length then the escapes
// (as appendEscaped's); the codes follow. The escapes come first so that
// the codes' offset is known without counting them, and b is at least 1
// so that a position takes at least a bit.
func appendPositions(dst []byte, vals []uint32) ([]byte, byte) {
	b, esc := escapedWidth(vals, 1, true)
	h := byte(b-1) << metaPosShift
	if esc > 0 {
		h |= metaPosEscapes
		dst = binary.AppendUvarint(dst, uint64(esc))
		dst = appendEscapes(dst, vals, b)
	}
	return appendCodes(dst, vals, b), h
}

// escapedWidth returns the code width from minB to maxEscWidth that makes
// vals' codes and escapes fewest bytes (with withLen, counting the
// escapes' length, a uvarint, when there are some), and the escapes' bytes.
// A build asks it of every block's positions: a long block's values are
// counted once into escapeHist instead of once for every width.
func escapedWidth(vals []uint32, minB int, withLen bool) (best, bestEsc int) {
	if len(vals) < 32 {
		return escapedWidthScan(vals, minB, withLen)
	}
	var h escapeHist
	h.add(vals)
	return pickWidth(len(vals), minB, withLen, func(b int) (int, bool) {
		if b == 0 {
			return 0, h.maxLen == 0 // no code of 0 bits for a value above 0
		}
		return h.escapeBytes(b), true
	})
}

// escapedWidthScan is escapedWidth reading vals once for every width,
// the cheaper for a few values.
func escapedWidthScan(vals []uint32, minB int, withLen bool) (best, bestEsc int) {
	return pickWidth(len(vals), minB, withLen, func(b int) (int, bool) {
		esc, e := uint32(1)<<b-1, 0
		for _, v := range vals {
			switch {
			case v < esc:
			case b > 0:
				e += uvarintLen(v - esc)
			case v > 0:
				return 0, false
			}
		}
		return e, true
	})
}

// pickWidth returns the width from minB to maxEscWidth that makes n
// values' codes and escapes fewest bytes, and the escapes' bytes:
// escapes(b) is their bytes at width b, false if b cannot code the
// values.
func pickWidth(n, minB int, withLen bool, escapes func(b int) (int, bool)) (best, bestEsc int) {
	bestLen := math.MaxInt
	for b := minB; b <= maxEscWidth; b++ {
		e, ok := escapes(b)
		if !ok {
			continue
		}
		size := packedLen(n, b) + e
		if withLen && e > 0 {
			size += uvarintLen(uint32(min(e, math.MaxUint32)))
		}
		if size < bestLen {
			best, bestEsc, bestLen = b, e, size
		}
	}
	return best, bestEsc
}

// escapeHist counts values v by L = bits.Len64(v+1) - 1 (2^L <= v+1 <
// 2^(L+1)), which gives the bytes of their escapes at any width b >= 1
// exactly. v is an escape iff L >= b, of rest x = v+1 - 2^b. If L == b,
// x is v+1 without its top bit: its uvarint's bytes are summed by L
// (eqBytes). If L > b, x has L or L+1 bits, the same uvarint length
// (ceil(L/7) bytes) unless L is a multiple of 7, where it is L/7 plus
// one when v+1 - 2^L has more than b bits: those values are counted by
// that length (byRest).
type escapeHist struct {
	count   [33]int
	eqBytes [33]int
	byRest  [5][33]int // [L/7][bits.Len64(v+1 - 2^L)] for L = 7, 14, 21, 28
	maxLen  int        // the largest L
}

func (h *escapeHist) add(vals []uint32) {
	for _, v := range vals {
		w := uint64(v) + 1
		l := bits.Len64(w) - 1
		rest := w - 1<<l
		h.count[l]++
		h.eqBytes[l] += uvarintLen(uint32(rest))
		if l%7 == 0 && l > 0 {
			h.byRest[l/7][bits.Len64(rest)]++
		}
		h.maxLen = max(h.maxLen, l)
	}
}

// escapeBytes returns the bytes of the escapes at width b >= 1.
func (h *escapeHist) escapeBytes(b int) int {
	if b > h.maxLen {
		return 0
	}
	e := h.eqBytes[b]
	for l := b + 1; l <= h.maxLen; l++ {
		e += h.count[l] * ((l + 6) / 7)
		if l%7 == 0 {
			for r := b + 1; r <= l; r++ {
				e += h.byRest[l/7][r]
			}
		}
	}
	return e
}

// appendCodes appends vals as b-bit codes (appendPacked), a value of at
// least 2^b-1 as 2^b-1.
func appendCodes(dst []byte, vals []uint32, b int) []byte {
	if b == 0 {
		return dst
	}
	esc := uint32(1)<<b - 1
	acc, nbits := uint64(0), 0
	for _, v := range vals {
		acc |= uint64(min(v, esc)) << nbits
		nbits += b
		for nbits >= 8 {
			dst = append(dst, byte(acc))
			acc >>= 8
			nbits -= 8
		}
	}
	if nbits > 0 {
		dst = append(dst, byte(acc))
	}
	return dst
}

// appendEscapes appends the escapes of vals' b-bit codes: the uvarint of
// value - (2^b-1) for each value of at least 2^b-1, in value order.
func appendEscapes(dst []byte, vals []uint32, b int) []byte {
	if b == 0 {
		return dst
	}
	esc := uint32(1)<<b - 1
	for _, v := range vals {
		if v >= esc {
			dst = binary.AppendUvarint(dst, uint64(v-esc))
		}
	}
	return dst
}

// countEscapes returns how many of the n b-bit codes from code from of
// src are escapes (2^b-1); bits past src read as 0.
func countEscapes(src []byte, from, n, b int) int {
	esc := uint32(1)<<b - 1
	k := 0
	bit, end := from*b, (from+n)*b
	// A chunk of 64/b codes (at most 57 bits, so that a load at the byte
	// of its first bit holds it) at a time: a code's lowest bit survives
	// ANDing the chunk with itself shifted by 1 to b-1 only if all its
	// bits are set.
	per := min(64, 57) / b
	var base uint64 // the lowest bit of each code of a chunk
	for i := range per {
		base |= 1 << (i * b)
	}
	chunk := per * b
	for bit+chunk <= end && bit>>3+8 <= len(src) {
		x := binary.LittleEndian.Uint64(src[bit>>3:]) >> (bit & 7) & (1<<chunk - 1)
		t, s := x, 1
		for ; 2*s <= b; s *= 2 {
			t &= t >> s
		}
		if s < b {
			t &= t >> (b - s)
		}
		k += bits.OnesCount64(t & base)
		bit += chunk
	}
	for ; bit < end; bit += b {
		if getBits(src, bit, b) == esc {
			k++
		}
	}
	return k
}

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x uint32) int { return (bits.Len32(x|1) + 6) / 7 }

// getBits returns the b-bit value (b <= maxEscWidth) that starts at bit
// bit of src (appendPacked's order); bits past src read as 0.
func getBits(src []byte, bit, b int) uint32 {
	i := bit >> 3
	var w uint32
	if i+4 <= len(src) {
		w = binary.LittleEndian.Uint32(src[i:])
	} else {
		for k := 0; k < 3 && i+k < len(src); k++ {
			w |= uint32(src[i+k]) << (8 * k)
		}
	}
	return (w >> (bit & 7)) & (1<<b - 1)
}

// skipUvarints returns the offset after the n uvarints that start at b[at:],
// or -1 if b ends first.
func skipUvarints(b []byte, at, n int) int {
	const hi = 0x8080808080808080
	// Eight bytes at a time while all their uvarint ends are skipped: a
	// byte below 0x80 ends a uvarint.
	for n > 0 && at+8 <= len(b) {
		ends := bits.OnesCount64(^binary.LittleEndian.Uint64(b[at:]) & hi)
		if ends >= n {
			break
		}
		n -= ends
		at += 8
	}
	for ; n > 0; at++ {
		if at >= len(b) {
			return -1
		}
		if b[at] < 0x80 {
			n--
		}
	}
	return at
}

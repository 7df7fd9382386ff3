package search

import (
	"encoding/binary"
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

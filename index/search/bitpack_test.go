package search

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
)

func checkPack(t *testing.T, vals []uint32) {
	b := bitWidth(vals)
	packed := appendPacked([]byte{0xAA}, vals, b)
	if len(packed) != 1+packedLen(len(vals), b) || packed[0] != 0xAA {
		t.Fatalf("width %d, %d values: %d bytes packed", b, len(vals), len(packed)-1)
	}
	got := make([]uint32, len(vals))
	for i := range got {
		got[i] = 12345 // unpack must overwrite
	}
	unpack(got, packed[1:], b)
	if !slices.Equal(got, vals) {
		t.Fatalf("width %d: unpacked %v, want %v", b, got, vals)
	}
}

// TestBitPackRoundTrip packs and unpacks blocks of every width and length.
func TestBitPackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for b := 0; b <= 32; b++ {
		for _, n := range []int{0, 1, 2, 7, 8, 9, 63, 127, blockDocs} {
			vals := make([]uint32, n)
			for i := range vals {
				if b > 0 {
					vals[i] = uint32(rng.Uint64() & (1<<b - 1))
				}
			}
			if n > 0 && b > 0 {
				vals[rng.IntN(n)] = uint32(1<<b - 1) // the width is b
			}
			checkPack(t, vals)
		}
	}
}

func FuzzBitPack(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 255, 255, 255, 255})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, raw []byte) {
		vals := make([]uint32, 0, len(raw)/4)
		for i := 0; i+4 <= len(raw) && len(vals) < blockDocs; i += 4 {
			vals = append(vals, binary.LittleEndian.Uint32(raw[i:])>>(raw[0]%32))
		}
		checkPack(t, vals)
	})
}

// TestMetaRoundTrip: a block's masks and impacts written as its meta part
// (appendMeta) read back as the masks, counts of every mask and impact
// levels no smaller than the written ones, for blocks of one mask and
// many, their masks as planes and as a palette.
func TestMetaRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	var forms [2]int // blocks of masks as planes, as a palette
	defer func() {
		if forms[0] == 0 || forms[1] == 0 {
			t.Errorf("masks as planes in %d blocks, as a palette in %d", forms[0], forms[1])
		}
	}()
	for _, n := range []int{1, 2, 7, 8, 9, 127, 128} {
		for trial := range 30 {
			masks, impacts := make([]byte, n), make([]byte, n)
			kinds := 1 + rng.IntN(1<<NumFields-1)
			var or uint8
			for i := range masks {
				masks[i] = byte(1 + (rng.IntN(kinds)*7)%(1<<NumFields-1))
				or |= masks[i]
				impacts[i] = byte(1 + rng.IntN(impactMax))
				if trial%3 == 0 {
					impacts[i] = 77 // one impact: no codes
				}
			}
			codes := make([]uint32, n)
			blk := appendMeta([]byte{0xAA}, masks, or, impacts, 0, codes)
			m, ok := parseMeta(append(blk, 0xBB), 1, n, or)
			if !ok || m.end != len(blk) {
				t.Fatalf("n %d trial %d: parse %v, end %d of %d", n, trial, ok, m.end, len(blk))
			}
			if m.masksDiffer {
				forms[min(m.palSet, 1)]++
			}
			got := make([]byte, n, blockDocs)
			m.masks(blk, got, or)
			if !slices.Equal(got, masks) {
				t.Fatalf("n %d trial %d: masks %x, want %x", n, trial, got, masks)
			}
			for mask := range uint8(1 << NumFields) {
				want := 0
				for _, c := range masks {
					if c&mask != 0 {
						want++
					}
				}
				w := m.wanted(blk, n, or, mask)
				if c := bits.OnesCount64(w[0]) + bits.OnesCount64(w[1]); c != want {
					t.Fatalf("n %d trial %d mask %#x: count %d, want %d", n, trial, mask, c, want)
				}
			}
			// Without bytes the block's bound stands for every document;
			// with them a level reads back as the first of the block's
			// levels at least the written one.
			imp, all := m.impacts(blk, n)
			unpacked := make([]uint8, n)
			if imp != nil {
				unpackImpacts(unpacked, imp, m.impBase)
			}
			for i, q := range impacts {
				got := all
				if imp != nil {
					got = uint32(impactDecode[m.impBase][getBits(imp, i*impactCodeBits, impactCodeBits)])
					if unpacked[i] != uint8(got) {
						t.Fatalf("n %d trial %d doc %d: impact unpacked %d, read %d", n, trial, i, unpacked[i], got)
					}
					if want := impactDecode[m.impBase][impactEncode[m.impBase][q]]; got != uint32(want) || m.impBase != slices.Min(impacts) {
						t.Fatalf("n %d trial %d doc %d: impact %d for %d (base %d), want %d", n, trial, i, got, q, m.impBase, want)
					}
				}
				if imp == nil && (got != impactMax || q != impacts[0]) {
					t.Fatalf("n %d trial %d doc %d: impact %d for %d without codes", n, trial, i, got, q)
				}
			}
		}
	}
}

// TestImpactCodes: a block's codes read back as levels from its lowest to
// impactMax, and a level is written as the first code whose level is at
// least it.
func TestImpactCodes(t *testing.T) {
	const top = 1<<impactCodeBits - 1
	for b := range impactMax + 1 {
		dec := impactDecode[b]
		if dec[0] != uint8(b) || dec[top] != impactMax {
			t.Fatalf("base %d: levels %d to %d", b, dec[0], dec[top])
		}
		for c := 1; c <= top; c++ {
			if dec[c] < dec[c-1] {
				t.Fatalf("base %d: level of code %d below code %d's", b, c, c-1)
			}
		}
		for q := b; q <= impactMax; q++ {
			c := impactEncode[b][q]
			if dec[c] < uint8(q) || c > 0 && dec[c-1] >= uint8(q) {
				t.Fatalf("base %d: level %d written as code %d (levels %v)", b, q, c, dec)
			}
		}
	}
}

// TestEscapedRoundTrip: values written as escaped codes (appendEscaped)
// read back with getBits and the escapes' uvarints, for skewed and flat
// value sets, and the width chosen is never worse than the widest codes.
func TestEscapedRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 400 {
		n := rng.IntN(3 * blockDocs)
		vals := make([]uint32, n)
		for i := range vals {
			switch rng.IntN(10) {
			case 0:
				vals[i] = rng.Uint32() >> rng.IntN(32)
			case 1, 2:
				vals[i] = uint32(rng.IntN(20))
			default:
				vals[i] = uint32(rng.IntN(1 + trial%3))
			}
		}
		enc := appendEscaped([]byte{0xAA}, vals)[1:]
		b := int(enc[0])
		if b > maxEscWidth {
			t.Fatalf("width %d", b)
		}
		esc := uint32(1)<<b - 1
		at := 1 + packedLen(n, b)
		got := make([]uint32, n)
		for i := range got {
			if b == 0 {
				continue
			}
			c := getBits(enc[1:], i*b, b)
			if c == esc {
				x, k := binary.Uvarint(enc[at:])
				if k <= 0 {
					t.Fatalf("trial %d: escape %d unreadable", trial, i)
				}
				c += uint32(x)
				at += k
			}
			got[i] = c
		}
		if !slices.Equal(got, vals) || at != len(enc) {
			t.Fatalf("trial %d width %d: read %v (%d of %d bytes), want %v", trial, b, got, at, len(enc), vals)
		}
		if w := bitWidth(vals); w <= maxEscWidth && len(enc) > 1+packedLen(n, w)+n {
			t.Fatalf("trial %d: %d bytes, plain width %d would take %d", trial, len(enc), w, 1+packedLen(n, w))
		}
	}
}

// TestSkipUvarints: skipping n uvarints, eight bytes at a time where it
// can, ends where decoding them one by one does, or reports the end.
func TestSkipUvarints(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 7))
	for range 300 {
		var buf []byte
		var ends []int
		for range rng.IntN(60) {
			buf = binary.AppendUvarint(buf, rng.Uint64()>>rng.IntN(64))
			ends = append(ends, len(buf))
		}
		for at := range len(ends) {
			from := 0
			if at > 0 {
				from = ends[at-1]
			}
			for n := 0; at+n <= len(ends); n++ {
				want := from
				if n > 0 {
					want = ends[at+n-1]
				}
				if got := skipUvarints(buf, from, n); got != want {
					t.Fatalf("skip %d from %d: %d, want %d", n, from, got, want)
				}
			}
			if got := skipUvarints(buf, from, len(ends)-at+1); got != -1 {
				t.Fatalf("skip past the end: %d", got)
			}
		}
	}
}

// TestCountEscapes: the escape codes counted a chunk at a time are those
// read one by one, for every width, start and count.
func TestCountEscapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for b := 1; b <= maxEscWidth; b++ {
		vals := make([]uint32, 300)
		for i := range vals {
			if rng.IntN(3) == 0 {
				vals[i] = 1<<b - 1
			} else {
				vals[i] = uint32(rng.IntN(1 << b))
			}
		}
		src := appendPacked(nil, vals, b)
		for trial := range 200 {
			from := rng.IntN(len(vals))
			n := rng.IntN(len(vals) - from + 1)
			if trial == 0 {
				from, n = 0, len(vals)
			}
			want := 0
			for _, v := range vals[from : from+n] {
				if v == 1<<b-1 {
					want++
				}
			}
			if got := countEscapes(src, from, n, b); got != want {
				t.Fatalf("width %d codes %d+%d: %d escapes, want %d", b, from, n, got, want)
			}
		}
	}
}

// checkEscapedWidth compares escapedWidth's counted widths with the scan
// of every width, escapedWidthScan, for both of its callers' settings.
func checkEscapedWidth(t *testing.T, vals []uint32) {
	t.Helper()
	for _, c := range []struct {
		minB    int
		withLen bool
	}{{0, false}, {1, true}} {
		h := escapeHist{}
		h.add(vals)
		b, e := escapedWidth(vals, c.minB, c.withLen)
		wb, we := escapedWidthScan(vals, c.minB, c.withLen)
		if b != wb || e != we {
			t.Fatalf("%d values (min width %d): width %d, %d bytes of escapes; the scan %d, %d", len(vals), c.minB, b, e, wb, we)
		}
		for b := 1; b <= maxEscWidth; b++ {
			want := 0
			for _, v := range vals {
				if esc := uint32(1)<<b - 1; v >= esc {
					want += uvarintLen(v - esc)
				}
			}
			if got := h.escapeBytes(b); got != want {
				t.Fatalf("%d values, width %d: %d bytes of escapes, want %d", len(vals), b, got, want)
			}
		}
	}
}

// TestEscapedWidth draws values of many scales, the edges of a uvarint's
// lengths (2^7k - 1 + 2^b) included.
func TestEscapedWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	edges := []uint32{0, 1, 2, 126, 127, 128, 129, 255, 256, 16383, 16384, 16385, 1<<21 - 1, 1 << 21, 1<<28 + 1, 1<<32 - 1}
	for b := range maxEscWidth + 1 {
		for k := 1; k <= 4; k++ {
			edges = append(edges, uint32(1<<(7*k)-1+1<<b), uint32(1<<(7*k)-2+1<<b), uint32(1<<(7*k)+1<<b))
		}
	}
	for _, n := range []int{0, 1, 5, 31, 32, 33, 128, 1000} {
		for trial := range 200 {
			vals := make([]uint32, n)
			scale := rng.IntN(33)
			for i := range vals {
				switch {
				case trial%5 == 0:
					vals[i] = edges[rng.IntN(len(edges))]
				case scale == 32:
					vals[i] = rng.Uint32()
				default:
					vals[i] = rng.Uint32N(1<<scale + 1)
				}
			}
			checkEscapedWidth(t, vals)
		}
	}
}

func FuzzEscapedWidth(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 255, 255, 255, 255}, uint8(0))
	f.Add(bytes.Repeat([]byte{0x80, 0, 0, 0, 0x7f, 0x40, 0, 0}, 20), uint8(3))
	f.Fuzz(func(t *testing.T, raw []byte, shift uint8) {
		vals := make([]uint32, 0, len(raw)/4)
		for i := 0; i+4 <= len(raw); i += 4 {
			vals = append(vals, binary.LittleEndian.Uint32(raw[i:])>>(shift%32))
		}
		checkEscapedWidth(t, vals)
	})
}

// FuzzParseMeta: any bytes parse as a meta part or are refused, and a
// parsed one decodes its masks, wanted documents and impacts within its
// bytes.
func FuzzParseMeta(f *testing.F) {
	codes := make([]uint32, blockDocs)
	masks, impacts := make([]byte, blockDocs), make([]byte, blockDocs)
	for i := range masks {
		masks[i], impacts[i] = byte(1+i%3), byte(i%40)
	}
	f.Add(appendMeta(nil, masks[:100], 3, impacts[:100], 0, codes), 100, uint8(3))
	for i := range masks {
		masks[i] = byte(1 + i%37)
	}
	f.Add(appendMeta(nil, masks, 63, impacts, 0, codes), blockDocs, uint8(63))
	f.Fuzz(func(t *testing.T, blk []byte, cnt int, maskOr uint8) {
		cnt = 1 + (cnt&0x7fffffff)%blockDocs
		maskOr &= 1<<NumFields - 1
		m, ok := parseMeta(blk, 0, cnt, maskOr)
		if !ok {
			return
		}
		if m.end > len(blk) {
			t.Fatalf("meta part ends at %d of %d", m.end, len(blk))
		}
		got := make([]byte, cnt, blockDocs)
		m.masks(blk, got, maskOr)
		for mask := range uint8(1 << NumFields) {
			m.wanted(blk, cnt, maskOr, mask)
		}
		if imp, _ := m.impacts(blk, cnt); imp != nil {
			unpackImpacts(make([]uint8, cnt), imp, m.impBase)
		}
	})
}

package index

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
)

// sortCases are record sets for the in-memory sort, each large enough for
// the radix sort and its deeper levels.
func sortCases() []struct {
	name string
	recs [][]byte
} {
	rng := rand.New(rand.NewPCG(1, 2))
	postings := func(n int) [][]byte {
		terms := []string{"in", "cell", "cells", "infection", "infections", "infectious", "immunohistochemistry",
			"immunohistochemical", strings.Repeat("x", 64), "\x01pair\x01of"}
		var out [][]byte
		for i := 0; i < n; i++ {
			r := append([]byte(terms[rng.IntN(len(terms))]), 0)
			r = binary.BigEndian.AppendUint32(r, uint32(rng.IntN(5000)))
			r = append(r, byte(rng.IntN(6)))
			for range rng.IntN(4) {
				r = binary.AppendUvarint(r, uint64(rng.IntN(300)))
			}
			out = append(out, r)
		}
		return out
	}
	var zeros, long, random [][]byte
	for i := 0; i < 3000; i++ {
		// short records and zero bytes, which the keys pad with
		zeros = append(zeros, append(bytes.Repeat([]byte{0}, rng.IntN(20)), bytes.Repeat([]byte{1}, rng.IntN(2))...))
		// long shared prefixes, past the radix sort's depth
		long = append(long, []byte(strings.Repeat("common-prefix-", 1+rng.IntN(8))+fmt.Sprint(rng.IntN(100))))
		r := make([]byte, rng.IntN(24))
		for j := range r {
			r[j] = byte(rng.IntN(4))
		}
		random = append(random, r)
	}
	return []struct {
		name string
		recs [][]byte
	}{
		{"postings", postings(20000)},
		{"zeros", zeros},
		{"long prefixes", long},
		{"random", random},
		{"duplicates", slices.Repeat(postings(300), 3)},
		{"few", postings(10)},
	}
}

func TestSortBufOrder(t *testing.T) {
	for _, tc := range sortCases() {
		t.Run(tc.name, func(t *testing.T) {
			var b sortBuf
			for _, r := range tc.recs {
				b.recs = append(b.recs, span{prefixKey(r), uint32(len(b.arena)), uint32(len(r))})
				b.arena = append(b.arena, r...)
			}
			b.sort()
			want := slices.Clone(tc.recs)
			slices.SortFunc(want, bytes.Compare)
			if len(b.recs) != len(want) {
				t.Fatalf("%d records, want %d", len(b.recs), len(want))
			}
			for i, sp := range b.recs {
				if got := b.rec(sp); !bytes.Equal(got, want[i]) {
					t.Fatalf("record %d = %q, want %q", i, got, want[i])
				}
			}
		})
	}
}

// TestSortRunBlocks sorts runs of several blocks, with records longer
// than a block among them: runs written as they are, S2-compressed, and
// both in one sort.
func TestSortRunBlocks(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rawLimit int64
	}{{"raw", rawRuns}, {"compressed", 0}, {"mixed", 5 * runBlock}} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSorter(t.TempDir(), 3*runBlock)
			s.rawLimit = tc.rawLimit
			rng := rand.New(rand.NewPCG(3, 4))
			var want []string
			for i := 0; i < 4000; i++ {
				n := rng.IntN(2048)
				if i%1000 == 7 {
					n = runBlock + rng.IntN(runBlock)
				}
				r := make([]byte, n)
				for j := range r {
					r[j] = byte('a' + rng.IntN(3))
				}
				want = append(want, string(r))
				if err := s.add(r); err != nil {
					t.Fatal(err)
				}
			}
			if len(s.runs) < 2 {
				t.Fatalf("only %d runs", len(s.runs))
			}
			compressed := 0
			for _, rf := range s.runs {
				if rf.compressed {
					compressed++
				}
			}
			switch {
			case tc.rawLimit == rawRuns && compressed != 0,
				tc.rawLimit == 0 && compressed != len(s.runs),
				tc.rawLimit != 0 && tc.rawLimit != rawRuns && (compressed == 0 || compressed == len(s.runs)):
				t.Fatalf("%d of %d runs compressed", compressed, len(s.runs))
			}
			slices.Sort(want)
			i := 0
			err := s.iterate(func(rec []byte) error {
				if i >= len(want) || string(rec) != want[i] {
					return fmt.Errorf("record %d differs", i)
				}
				i++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if i != len(want) {
				t.Errorf("%d records, want %d", i, len(want))
			}
		})
	}
}

func BenchmarkSortBuf(b *testing.B) {
	recs := sortCases()[0].recs
	var buf sortBuf
	for _, r := range recs {
		buf.recs = append(buf.recs, span{prefixKey(r), uint32(len(buf.arena)), uint32(len(r))})
		buf.arena = append(buf.arena, r...)
	}
	orig := slices.Clone(buf.recs)
	for b.Loop() {
		copy(buf.recs, orig)
		buf.sort()
	}
}

// TestPrefixKey checks that a record's key is its first eight bytes,
// zero-padded, big-endian: the order of the keys is that of the records.
func TestPrefixKey(t *testing.T) {
	rec := []byte{0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for n := range len(rec) + 1 {
		var b [8]byte
		copy(b[:], rec[:n])
		if got, want := prefixKey(rec[:n]), binary.BigEndian.Uint64(b[:]); got != want {
			t.Errorf("prefixKey(%x) = %x, want %x", rec[:n], got, want)
		}
	}
}

// BenchmarkWriteRun sorts and writes one full arena of postings-like
// records, added document by document as a build adds them (so the sort
// reads the arena out of order): the spill of a build.
func BenchmarkWriteRun(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	zipf := rand.NewZipf(rand.New(rand.NewPCG(7, 8)), 1.1, 4, 1<<18)
	terms := make([]string, 1<<18+1)
	for i := range terms {
		terms[i] = fmt.Sprintf("%s%d", strings.Repeat("t", 1+rng.IntN(10)), i)
	}
	var buf sortBuf
	for doc := 0; len(buf.arena) < 64<<20; doc++ {
		for range 300 {
			r := append([]byte(terms[zipf.Uint64()]), 0)
			r = binary.BigEndian.AppendUint32(r, uint32(doc))
			r = append(r, byte(rng.IntN(6)))
			for range 1 + rng.IntN(3) {
				r = binary.AppendUvarint(r, uint64(rng.IntN(300)))
			}
			buf.recs = append(buf.recs, span{prefixKey(r), uint32(len(buf.arena)), uint32(len(r))})
			buf.arena = append(buf.arena, r...)
		}
	}
	orig := slices.Clone(buf.recs)
	dir := b.TempDir()
	for _, compressed := range []bool{false, true} {
		b.Run(fmt.Sprintf("compressed=%v", compressed), func(b *testing.B) {
			b.SetBytes(int64(len(buf.arena)))
			for b.Loop() {
				copy(buf.recs, orig)
				f, err := os.CreateTemp(dir, "run-*")
				if err != nil {
					b.Fatal(err)
				}
				if err := writeRun(f, &buf, compressed); err != nil {
					b.Fatal(err)
				}
				os.Remove(f.Name())
			}
		})
	}
}

// TestSortRunEmptyRecords writes runs whose records include empty ones,
// the last ones at the arena's very end.
func TestSortRunEmptyRecords(t *testing.T) {
	s := newSorter(t.TempDir(), 50)
	var want []string
	for i := range 300 {
		r := []byte(fmt.Sprint(i % 7))
		if i%5 == 0 {
			r = nil
		}
		want = append(want, string(r))
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	for range 100 {
		if err := s.add(nil); err != nil {
			t.Fatal(err)
		}
		want = append(want, "")
	}
	slices.Sort(want)
	var got []string
	if err := s.iterate(func(rec []byte) error { got = append(got, string(rec)); return nil }); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d records, want %d, or out of order", len(got), len(want))
	}
}

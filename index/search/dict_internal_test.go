package search

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// dictOf writes terms (sorted, distinct) with the dictionary writer and
// returns an Index that reads only its dictionary; term i's record is
// {SkipOff: 8·i + i%3, DF: i + 1}.
func dictOf(t *testing.T, terms []string) *Index {
	t.Helper()
	dir := t.TempDir()
	var d dictWriter
	var err error
	if d.idx, err = newSpool(dir); err != nil {
		t.Fatal(err)
	}
	if d.blk, err = newSpool(dir); err != nil {
		t.Fatal(err)
	}
	defer d.idx.discard()
	defer d.blk.discard()
	for i, s := range terms {
		if err := d.add([]byte(s), termRec{SkipOff: uint64(8*i + i%3), DF: uint32(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.finish(); err != nil {
		t.Fatal(err)
	}
	read := func(s *spool) []byte {
		if err := s.bw.Flush(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(s.f.Name())
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	idx := read(d.idx)
	ix := &Index{nTerms: len(terms), termBlk: read(d.blk)}
	for i := 0; i+8 <= len(idx); i += 8 {
		ix.termIdx = append(ix.termIdx, binary.LittleEndian.Uint64(idx[i:]))
	}
	return ix
}

// TestDictionary: every term of front-coded blocks is read back with its
// record, found by lookup, and walked in order; absent terms are not
// found, and prefix ranges are those of a sorted array, also for
// prefixes ending in 0xff and for an empty dictionary.
func TestDictionary(t *testing.T) {
	for _, n := range []int{0, 1, termBlock - 1, termBlock, termBlock + 1, 5*termBlock + 3} {
		var terms []string
		for i := range n {
			// Long shared prefixes (DOI-like), short words, 0xff bytes.
			switch i % 4 {
			case 0:
				terms = append(terms, fmt.Sprintf("10.1000/j.%04d", i))
			case 1:
				terms = append(terms, fmt.Sprintf("w%d", i))
			case 2:
				terms = append(terms, fmt.Sprintf("\xffp%03d", i))
			default:
				terms = append(terms, fmt.Sprintf("\xff\xff%03d", i))
			}
		}
		slices.Sort(terms)
		ix := dictOf(t, terms)
		for i, s := range terms {
			if got := string(ix.term(i)); got != s {
				t.Fatalf("n %d: term %d %q, want %q", n, i, got, s)
			}
			if r := ix.rec(i); r != (termRec{SkipOff: uint64(8*i + i%3), DF: uint32(i + 1)}) {
				t.Fatalf("n %d: term %d record %+v", n, i, r)
			}
			if got := ix.lookup(s); got != i {
				t.Fatalf("n %d: lookup %q = %d, want %d", n, s, got, i)
			}
			if got := ix.lookup(s + "\x00"); got != -1 {
				t.Fatalf("n %d: lookup of absent %q = %d", n, s+"\x00", got)
			}
		}
		var walked []string
		if !ix.walk(0, n, func(_ int, term []byte, _ termRec) bool { walked = append(walked, string(term)); return true }) {
			t.Fatalf("n %d: walk failed", n)
		}
		if !slices.Equal(walked, terms) {
			t.Fatalf("n %d: walked %q", n, walked)
		}
		for _, p := range []string{"", "1", "10.1000/j.00", "w", "w1", "\xff", "\xff\xff", "\xffp", "zz", "\x00"} {
			lo := len(terms)
			for i, s := range terms {
				if s >= p {
					lo = i
					break
				}
			}
			hi := lo
			for hi < len(terms) && strings.HasPrefix(terms[hi], p) {
				hi++
			}
			if l, h := ix.prefixRange(p); l != lo || h != hi {
				t.Fatalf("n %d: prefixRange(%q) = %d, %d, want %d, %d", n, p, l, h, lo, hi)
			}
		}
	}
}

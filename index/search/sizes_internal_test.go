package search

import (
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sort"
	"testing"
)

var sizeIndex = flag.String("size.index", "", "a search/index.bin whose bytes TestIndexBytes breaks down by component")

// TestIndexBytes breaks an index's bytes down by component and class of
// term (words in one document, other words, pairs, prefix terms):
//
//	go test ./index/search -run IndexBytes -v -size.index DIR/current/search/index.bin
func TestIndexBytes(t *testing.T) {
	if *sizeIndex == "" {
		t.Skip("no -size.index")
	}
	ix, err := OpenFile(*sizeIndex, "x", Options{Sets: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sz := indexBytes(t, ix)
	keys := make([]string, 0, len(sz))
	for k := range sz {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	st, _ := os.Stat(*sizeIndex)
	fmt.Printf("file %d bytes (%.1f MiB)\n", st.Size(), float64(st.Size())/(1<<20))
	for _, k := range keys {
		fmt.Printf("%-28s %14d %10.1f MiB\n", k, sz[k], float64(sz[k])/(1<<20))
	}
}

// indexBytes sums the bytes of each component of the postings and the
// dictionary, by class of term.
func indexBytes(t testing.TB, ix *Index) map[string]int64 {
	sz := map[string]int64{}
	var pos []uint32
	for term := range ix.nTerms {
		rec := ix.terms[term]
		s := ix.term(term)
		class := "word"
		switch {
		case isPrefixTerm(string(s)):
			class = "prefix"
		case isPairTerm(string(s)):
			class = "pair"
		case rec.DF == 1:
			class = "word1"
		}
		sz[class+".dict"] += termRecSize + int64(len(s))
		sz[class+".terms"]++
		if class == "prefix" {
			sz[class+".bitsets"] += 2 * setBytes(ix.n)
			continue
		}
		p := ix.open(term, 1<<NumFields-1)
		var one [skipEntrySize]byte
		_, end, _ := skipTable(ix.mm, ix.postLo, ix.postHi, rec.SkipOff, int(rec.DF), &one)
		sz[class+".skip"] += int64(end - rec.SkipOff)
		for b := range p.nblocks {
			if !p.load(b) {
				t.Fatalf("term %q block %d malformed", s, b)
			}
			e := p.entry
			next := p.skipOff
			if b+1 < p.nblocks {
				next = getSkip(p.skips[(b+1)*skipEntrySize:]).Off
			}
			sz[class+".docs"] += int64(e.FreqOff) - 2*int64(p.cnt)
			sz[class+".masks+impacts"] += 2 * int64(p.cnt)
			sz[class+".freqs+plen"] += int64(e.PosOff - e.FreqOff)
			sz[class+".positions"] += int64(next-e.Off) - int64(e.PosOff)
			sz[class+".postings"] += int64(p.cnt)
			sz[class+".est.docsesc"] += escCost(p.delta[:p.cnt])
			distinct := map[uint8]bool{}
			for _, m := range p.fm {
				distinct[m] = true
			}
			sz[class+".est.masktable"] += int64(1 + len(distinct) + packedLen(p.cnt, bitsLen(uint32(len(distinct)-1))))
			uniform := true
			for _, m := range p.fm {
				uniform = uniform && m == p.fm[0]
			}
			if uniform {
				sz[class+".uniformmasks"] += int64(p.cnt)
			}
			var tfv, posv []uint32
			for i := range p.cnt {
				p.i = i
				if !p.loadFreqs() {
					t.Fatalf("term %q freqs malformed", s)
				}
				for f := range NumFields {
					if p.tfs[i][f] == 0 {
						continue
					}
					sz[class+".tf"] += int64(p.tfs[i][f])
					tfv = append(tfv, p.tfs[i][f]-1)
					sz[fmt.Sprintf("%s.posf%d", class, f)] += int64(p.tfs[i][f])
					pos = p.positions(pos[:0], f)
					prev := uint32(0)
					for _, x := range pos {
						sz[fmt.Sprintf("%s.posbits%02d", class, bitsLen(x-prev))]++
						posv = append(posv, x-prev)
						prev = x
					}
				}
			}
			sz[class+".est.tfpacked"] += escCost(tfv)
			sz[class+".est.pospacked"] += escCost(posv)
			sz[class+".est.posvarint"] += varintCost(posv)
		}
	}
	return sz
}

func varintCost(v []uint32) int64 {
	n := int64(0)
	for _, x := range v {
		n += int64(len(binary.AppendUvarint(nil, uint64(x))))
	}
	return n
}

// escCost is the least size of v as b-bit codes whose all-ones code
// escapes to a uvarint of the rest, plus a width byte.
func escCost(v []uint32) int64 {
	best := int64(1 << 62)
	for b := 0; b <= 20; b++ {
		esc := uint32(1)<<b - 1
		n := int64(len(v)*b+7) / 8
		for _, x := range v {
			if x >= esc {
				if b == 0 && x > 0 {
					n = 1 << 62
					break
				}
				if b > 0 {
					n += int64(len(binary.AppendUvarint(nil, uint64(x-esc))))
				}
			}
		}
		best = min(best, n)
	}
	return best + 1
}

func bitsLen(x uint32) int {
	n := 0
	for x != 0 {
		n++
		x >>= 1
	}
	return n
}

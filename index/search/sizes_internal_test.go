package search

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var sizeIndex = flag.String("size.index", "", "a search/index.bin whose bytes TestIndexBytes breaks down by component")

// TestIndexBytes breaks an index's bytes down by component and class of
// term (words in one document, other words, pairs, prefix terms), and
// checks that the components add up to the postings and the dictionary.
// With -size.index it prints the breakdown of that file:
//
//	go test ./index/search -run IndexBytes -v -size.index DIR/current/search/index.bin
func TestIndexBytes(t *testing.T) {
	path := *sizeIndex
	if path == "" {
		path = writeSizesIndex(t)
	}
	ix, err := OpenFile(path, "x", Options{Sets: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sz := indexBytes(t, ix)
	keys := make([]string, 0, len(sz))
	var parts int64
	for k, v := range sz {
		keys = append(keys, k)
		if i := strings.IndexByte(k, '.'); i >= 0 && sizeParts[k[i+1:]] {
			parts += v
		}
	}
	sort.Strings(keys)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("file %d bytes (%.1f MiB)", st.Size(), float64(st.Size())/(1<<20))
	for _, k := range keys {
		t.Logf("%-28s %14d %10.1f MiB", k, sz[k], float64(sz[k])/(1<<20))
	}
	// The dictionary index's last offset and the padding before the
	// first prefix term's bitset (8-aligned) are in no component.
	want := int64(ix.postHi-ix.postLo) + int64(len(ix.termIdx))*8 + int64(len(ix.termBlk))
	if d := want - parts; d < 8 || d >= 16 {
		t.Errorf("components %d bytes, postings and dictionary %d", parts, want)
	}
}

// sizeParts are the components of indexBytes that are bytes of the file.
var sizeParts = map[string]bool{"dict": true, "skip": true, "docs": true, "masks+impacts": true,
	"freqs": true, "positions": true, "bitsets": true}

// newDocsWriter starts an index of n documents of field lengths lens in
// a temporary directory: the caller adds the postings, closes the writer
// (aborted at the end of the test) and opens path.
func newDocsWriter(t *testing.T, n int, lens [NumFields]int) (w *Writer, path string) {
	dir := t.TempDir()
	path = filepath.Join(dir, "index.bin")
	w, err := NewWriter(path, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Abort)
	for range n {
		if err := w.AddDoc(DocValues{License: "CC0", Len: lens}); err != nil {
			t.Fatal(err)
		}
	}
	return w, path
}

// writeSizesIndex writes a small index with terms of each class.
func writeSizesIndex(t *testing.T) string {
	const n = 300
	w, path := newDocsWriter(t, n, [NumFields]int{5, 40, 2, 0, 1, 90})
	if err := w.SetPairs([]string{"of"}, nil, 1<<FieldTitle|1<<FieldAbstract); err != nil {
		t.Fatal(err)
	}
	add := func(term string, doc int32, f int, pos ...uint32) {
		if err := w.AddPosting([]byte(term), doc, f, pos); err != nil {
			t.Fatal(err)
		}
	}
	add(PairTerm("heart", "of"), 3, FieldAbstract, 7)
	for d := range int32(n) {
		if d%3 == 0 {
			add("cell", d, FieldTitle, 1)
		}
		add("cell", d, FieldAbstract, 2, 9, uint32(10+d))
		add("cell", d, FieldFulltext, uint32(d))
	}
	add("cells", 5, FieldAbstract, 4)
	for d := range int32(n) {
		add("cellular", d, FieldTitle, 0)
	}
	add("doi-x", 8, FieldDOI, 0)
	if _, err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// indexBytes sums the bytes of each component of the postings and the
// dictionary, by class of term.
func indexBytes(t testing.TB, ix *Index) map[string]int64 {
	sz := map[string]int64{}
	var pos []uint32
	// Each term's dictionary entry, and a block's offset for its first.
	entry := make([]int64, ix.nTerms)
	c, ok := ix.cursor(0)
	for at := 0; ok; ok = c.next() {
		if c.t%termBlock == 0 {
			at = -8
		}
		entry[c.t] = int64(c.at - at)
		at = c.at
	}
	for term := range ix.nTerms {
		rec := ix.rec(term)
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
		sz[class+".dict"] += entry[term]
		sz[class+".terms"]++
		if class == "prefix" {
			// Its bitset and other documents, to the next one's (the
			// padding between them included).
			next := ix.postHi
			if term+1 < ix.nTerms {
				next = ix.rec(term + 1).SkipOff
			}
			sz[class+".bitsets"] += int64(next - rec.SkipOff)
			continue
		}
		p := ix.open(term, 1<<NumFields-1)
		var one [skipEntrySize]byte
		_, end, _ := skipTable(ix.mm, ix.postLo, ix.postHi, rec.SkipOff, int(rec.DF), &one, nil)
		sz[class+".skip"] += int64(end - rec.SkipOff)
		for b := range p.nblocks {
			if !p.load(b) {
				t.Fatalf("term %q block %d malformed", s, b)
			}
			e := p.entry
			next := p.skipOff
			if b+1 < p.nblocks {
				next = getSkip(p.skips[(b+1)*skipEntrySize:], p.skipOff).Off
			}
			gaps := 1 + int64(packedLen(p.cnt, int(ix.mm[e.Off])))
			sz[class+".docs"] += gaps
			sz[class+".masks+impacts"] += int64(e.FreqOff) - gaps
			sz[class+".freqs"] += int64(e.PosOff - e.FreqOff)
			sz[class+".positions"] += int64(next-e.Off) - int64(e.PosOff)
			sz[class+".postings"] += int64(p.cnt)
			for i := range p.cnt {
				p.i = i
				if !p.loadFreqs() {
					t.Fatalf("term %q freqs malformed", s)
				}
				for f := range NumFields {
					if p.tfs[i][f] == 0 {
						continue
					}
					sz[class+".tfsum"] += int64(p.tfs[i][f])
					sz[fmt.Sprintf("%s.tfsum.field%d", class, f)] += int64(p.tfs[i][f])
					if pos = p.positions(pos[:0], f); len(pos) != int(p.tfs[i][f]) {
						t.Fatalf("term %q positions malformed", s)
					}
				}
			}
		}
	}
	return sz
}

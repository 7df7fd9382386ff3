package search

import "github.com/openshelf/openshelf/index/resident"

// An open index's mapping is tracked by package resident, which bounds
// the pages of it resident in the process (openshelf serve -search-cache).
// Its sections other than the postings (the dictionary, the per-document
// values and columns, topic and citation lists) are spared: queries reuse
// them and are not recorded. A posting list records its bytes as used
// when it is opened (postings.open), so that a bound keeps the lists used
// most recently: those of frequent words, which query after query reads.

func track(ix *Index) {
	ix.res = resident.Track(&ix.mm, resident.Range{Lo: 0, Hi: int(ix.postLo)}, resident.Range{Lo: int(ix.postHi), Hi: len(ix.mm)})
}

func untrackAndUnmap(ix *Index) error { return resident.Unmap(&ix.mm) }

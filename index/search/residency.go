package search

import "github.com/openshelf/openshelf/index/resident"

// An open index's mapping is tracked by package resident, which bounds
// the pages of it resident in the process (openshelf serve -search-cache).
// Its sections other than the postings (the dictionary, the per-document
// values and columns, topic and citation lists) are spared: queries reuse
// them, where a query's postings are mostly read by that query alone.

func track(ix *Index) {
	resident.Track(&ix.mm, resident.Range{Lo: 0, Hi: int(ix.postLo)}, resident.Range{Lo: int(ix.postHi), Hi: len(ix.mm)})
}

func untrackAndUnmap(ix *Index) error { return resident.Unmap(&ix.mm) }

package search

import "github.com/openshelf/openshelf/index/resident"

// An open index's mapping is tracked by package resident, which bounds
// the pages of it resident in the process (openshelf serve -search-cache).

func track(ix *Index) { resident.Track(&ix.mm) }

func untrackAndUnmap(ix *Index) error { return resident.Unmap(&ix.mm) }

// Package resident bounds the pages of the read server's mapped snapshot
// files (the search index, the catalog) that count in its resident memory.
package resident

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// Resident memory of the mapped indexes (and other tracked mappings).
//
// An index is read through a read-only shared mapping: every page a search
// touches stays mapped into the process, and counts in its resident set
// (RssFile), until the kernel reclaims it under memory pressure. A server
// of a 10M-document snapshot would so end up with most of a multi-GiB file
// in its RSS. Residency bounds that: it watches the process's resident
// file pages and, when they grow past a budget, tells the kernel the
// mappings are not needed (madvise MADV_DONTNEED). That only unmaps the
// pages from this process: they stay in the page cache, so the next touch
// is a minor fault, not a disk read. The server's resident memory is then
// its heap plus at most the budget (and what one check interval lets
// queries touch), whatever the corpus size.
//
// Dropping every page costs the queries that follow: each refaults the
// pages it uses, and a search that counts facets over millions of matches
// uses tens of thousands of pages of columns (BENCHMARKS.md: at 10M
// documents, dropping everything every second or so halved throughput
// next to no bound). So a mapping may name ranges to spare (the small,
// reused parts of an index: its dictionary and per-document columns): a
// drop first takes out the rest (the postings, read once by the query
// that walks them), and the spared ranges too only when what stays
// resident is still over half the budget.

// DefaultBudget is the default bound on the resident pages of the
// mapped indexes (openshelf serve -search-cache).
const DefaultBudget = 512 << 20

// registry is the set of tracked mappings (open indexes, and any other
// read-only file mapping registered with Track): the mappings Residency may
// drop. Its lock is held while a mapping is advised and while a tracked
// mapping is unmapped, so a mapping is never advised after it was unmapped
// (MADV_DONTNEED on memory that something else mapped since would zero it).
var registry struct {
	sync.Mutex
	open map[*[]byte][]Range // the spared ranges of each mapping
}

// Range is the bytes Lo..Hi-1 of a mapping.
type Range struct{ Lo, Hi int }

// Track registers a read-only, shared file mapping whose pages
// DropResident may take out of the process: *mm must stay the mapping
// until Unmap(mm), which the owner calls instead of syscall.Munmap. The
// search index registers itself; a package with another large mapped
// file (the catalog) may do the same to have it bounded too. spare are
// ranges of the mapping a Residency drops last (see above).
func Track(mm *[]byte, spare ...Range) {
	registry.Lock()
	defer registry.Unlock()
	if registry.open == nil {
		registry.open = map[*[]byte][]Range{}
	}
	registry.open[mm] = spare
}

// Unmap forgets a tracked mapping, unmaps it and sets *mm to nil.
func Unmap(mm *[]byte) error {
	registry.Lock()
	defer registry.Unlock()
	delete(registry.open, mm)
	if *mm == nil {
		return nil
	}
	err := syscall.Munmap(*mm)
	*mm = nil
	return err
}

// DropResident unmaps the resident pages of every tracked mapping from the
// process (they stay in the page cache) and returns the bytes of mapping
// advised. Searches running meanwhile are unaffected: a page they touch
// again is mapped again.
func DropResident() (int64, error) { return drop(allPages) }

// A part is what drop advises of each tracked mapping.
type part int

const (
	allPages    part = iota
	restPages        // all but the spared ranges
	sparedPages      // the spared ranges
)

// drop advises a part of every tracked mapping and returns the bytes
// advised.
func drop(which part) (int64, error) {
	registry.Lock()
	defer registry.Unlock()
	var n int64
	page := os.Getpagesize()
	for mm, keep := range registry.open {
		if *mm == nil {
			continue
		}
		var rs []Range
		switch which {
		case allPages:
			rs = []Range{{0, len(*mm)}}
		case restPages:
			rs = complement(keep, len(*mm), page)
		case sparedPages:
			rs = pages(keep, len(*mm), page)
		}
		for _, r := range rs {
			if err := syscall.Madvise((*mm)[r.Lo:r.Hi], syscall.MADV_DONTNEED); err != nil {
				return n, fmt.Errorf("resident: madvise: %w", err)
			}
			n += int64(r.Hi - r.Lo)
		}
	}
	return n, nil
}

// complement returns the pages of 0..size-1 outside the ranges keep
// (sorted or not, possibly overlapping), in order: whole pages, but for
// the mapping's last one.
func complement(keep []Range, size, page int) []Range {
	keep = slices.Clone(keep)
	slices.SortFunc(keep, func(a, b Range) int { return cmp.Compare(a.Lo, b.Lo) })
	var out []Range
	at := 0
	for _, k := range append(keep, Range{size, size}) {
		lo, hi := (at+page-1)/page*page, k.Lo/page*page
		if k.Lo == size {
			hi = size // the mapping's last page, whole or not
		}
		if hi > lo {
			out = append(out, Range{lo, hi})
		}
		at = max(at, k.Hi)
	}
	return out
}

// pages returns the whole pages that hold the ranges rs of 0..size-1.
func pages(rs []Range, size, page int) []Range {
	out := make([]Range, 0, len(rs))
	for _, r := range rs {
		if lo, hi := r.Lo/page*page, min((r.Hi+page-1)/page*page, size); hi > lo {
			out = append(out, Range{lo, hi})
		}
	}
	return out
}

// Residency bounds the resident pages of the mapped indexes. Run it for
// the life of the server.
type Residency struct {
	// Budget is how many bytes of mapped file pages may be resident above
	// the process's baseline before they are dropped; <= 0 disables the
	// bound (Run returns at once).
	Budget int64
	// Interval is how often the resident set is read (0: 20ms). The
	// check reads /proc/self/statm, a few microseconds. The bound is
	// overshot by what queries map between two checks: one query walking
	// the postings of a very frequent term maps them all at once (a
	// 1M-document server with a 128 MiB budget peaked at 420-450 MiB,
	// checked every 20 or 100 ms).
	Interval time.Duration
	Logger   *slog.Logger

	base   int64 // resident file bytes right after the last full drop
	drops  int64
	spared int64 // drops that spared the spared ranges
}

// Run checks the resident set every Interval until ctx ends.
func (r *Residency) Run(ctx context.Context) {
	if r.Budget <= 0 {
		return
	}
	every := r.Interval
	if every <= 0 {
		every = 20 * time.Millisecond
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if _, err := r.Check(); err != nil && r.Logger != nil {
				r.Logger.Warn("resident: resident memory check failed", "err", err)
				return
			}
		}
	}
}

// Check reads the process's resident file pages and drops the indexes'
// when they exceed the baseline by more than Budget: all but the spared
// ranges, then the spared ranges too if what stays is over half the
// budget. It reports whether it dropped pages. The baseline is the
// resident file pages right after the last full drop (the executable,
// shared libraries, other mapped files), first taken at the first check.
func (r *Residency) Check() (bool, error) {
	if r.Budget <= 0 {
		return false, nil
	}
	cur, err := ResidentFileBytes()
	if err != nil {
		return false, err
	}
	if r.drops == 0 && r.base == 0 {
		r.base = cur
	}
	if cur-r.base <= r.Budget {
		return false, nil
	}
	advised, err := drop(restPages)
	if err != nil {
		return false, err
	}
	after, err := ResidentFileBytes()
	if err != nil {
		return true, err
	}
	r.drops++
	spared := after-r.base <= r.Budget/2
	if spared {
		// The spared pages stay, within half the budget: the baseline is
		// still the last full drop's.
		r.spared++
	} else {
		more, err := drop(sparedPages)
		if err != nil {
			return true, err
		}
		advised += more
		if after, err = ResidentFileBytes(); err != nil {
			return true, err
		}
		r.base = after
	}
	if r.Logger != nil {
		r.Logger.Debug("resident: dropped resident index pages", "resident_before", cur, "resident_after", after,
			"advised", advised, "spared", spared, "drops", r.drops)
	}
	return true, nil
}

// Drops is the number of times Check dropped the indexes' pages.
func (r *Residency) Drops() int64 { return r.drops }

// Spared is the number of those drops that spared the spared ranges.
func (r *Residency) Spared() int64 { return r.spared }

// ResidentFileBytes returns the process's resident file-backed (and
// shared) memory: the third field of /proc/self/statm, in bytes.
func ResidentFileBytes() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, fmt.Errorf("resident: %w", err)
	}
	f := bytes.Fields(b)
	if len(f) < 3 {
		return 0, fmt.Errorf("resident: /proc/self/statm: %q", b)
	}
	pages, err := strconv.ParseInt(string(f[2]), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("resident: /proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

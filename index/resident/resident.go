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
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
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
// its heap plus at most the budget (and what queries touch before the
// next check), whatever the corpus size.
//
// Two things keep that cheap. First, a drop takes out the least recently
// used parts first: a mapping's owner records which parts a query uses
// (Mapping.Touch, per 2 MiB chunk: a posting list opened, a catalog record
// read), and a drop advises the chunks used longest ago until the
// resident pages are back to three quarters of the budget, so the posting
// lists of frequent words, which query after query reads, stay. The
// small, reused parts of a mapping (an index's dictionary and
// per-document columns, read by every query and not recorded) are ranges
// to spare: only when the chunks are not enough (pages were read without
// a Touch) does a drop take out all the rest, and the spared ranges last.
// Second, Map maps a file with huge pages, so that faulting pages in and
// dropping them costs one page table entry per 2 MiB instead of 512.
// Before both, a drop at 10M documents took 24 ms of a core, several times
// a second, and the faults after it a quarter of the server's CPU
// (measured with openshelf bench; the figures are in the history of
// BENCHMARKS.md).

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
	open map[*[]byte]*Mapping
}

// clock counts the checks of every Residency: Touch stamps a chunk with
// clock+1, so that a chunk used at all has a stamp of at least 1.
var clock atomic.Uint64

// Touch counts the bytes of chunks used again since their last drop in
// fresh, and wakes a running Residency when they reach wakeAt (0: none
// runs): with huge pages, a query can map a gigabyte of postings in the
// 20 ms between two checks.
var (
	fresh  atomic.Int64
	wakeAt atomic.Int64
	wake   = make(chan struct{}, 1)
)

// chunkShift sets the unit of Touch and of a drop of the least recently
// used pages: 2 MiB, so that an 11 GiB index needs 5 632 stamps. A chunk
// is the span of a huge page: the kernel may map a file's large folios
// whole (ext4 does since Linux 6.16), and advising part of one unmaps all
// of it.
const chunkShift = 21

// Range is the bytes Lo..Hi-1 of a mapping.
type Range struct{ Lo, Hi int }

// A Mapping is a tracked mapping: its spared ranges, and when each of its
// chunks was last used (Touch) and last dropped.
type Mapping struct {
	mm    *[]byte
	spare []Range
	rest  []Range         // the whole pages outside spare
	used  []atomic.Uint64 // clock+1 at the chunk's last Touch; 0: never
	// dropped is clock+1 at the chunk's last drop: a chunk whose used is
	// below it has no resident pages a Touch knows of. Written under the
	// registry's lock.
	dropped []atomic.Uint64
}

// Track registers a read-only, shared file mapping made by Map, whose
// pages DropResident may take out of the process: *mm must stay the
// mapping until Unmap(mm). The search index registers itself, and so does
// the catalog. spare are ranges of the mapping a Residency drops last
// (see above). The owner calls Touch on the returned Mapping for the
// parts it reads.
func Track(mm *[]byte, spare ...Range) *Mapping {
	registry.Lock()
	defer registry.Unlock()
	if registry.open == nil {
		registry.open = map[*[]byte]*Mapping{}
	}
	chunks := (len(*mm) + hugePage - 1) >> chunkShift
	m := &Mapping{mm: mm, spare: spare, rest: complement(spare, len(*mm), os.Getpagesize()),
		used: make([]atomic.Uint64, chunks), dropped: make([]atomic.Uint64, chunks)}
	registry.open[mm] = m
	return m
}

// Touch records that bytes lo..hi-1 of the mapping are in use (they are
// not read). It is cheap (a load per chunk, a store when the stamp
// changes) and safe for concurrent use; a nil Mapping ignores it.
func (m *Mapping) Touch(lo, hi int) {
	if m == nil || lo < 0 || hi <= lo {
		return
	}
	now := clock.Load() + 1
	var mapped int64
	for c := lo >> chunkShift; c <= (hi-1)>>chunkShift && c < len(m.used); c++ {
		if u := m.used[c].Load(); u != now {
			m.used[c].Store(now)
			if u < m.dropped[c].Load() || u == 0 {
				mapped += hugePage // not resident since its last drop
			}
		}
	}
	if at := wakeAt.Load(); mapped > 0 && at > 0 && fresh.Add(mapped) >= at {
		select {
		case wake <- struct{}{}:
		default:
		}
	}
}

// hugePage is the span of memory one page table entry maps a large
// folio with (x86-64 and arm64, with 4 KiB pages).
const hugePage = 1 << chunkShift

// Map maps the first size bytes of f, read-only and shared, at an
// address aligned to 2 MiB, and advises the kernel to use huge pages for
// it (MADV_HUGEPAGE); populate reads it all in first (MAP_POPULATE).
// Unmap it with Unmap.
//
// Where the page cache holds the file in 2 MiB folios (what Writer
// leaves on ext4 since Linux 6.16, and what a fault reads ahead under
// this advice), the kernel then maps each with one page table entry
// instead of 512: a fault maps 2 MiB, and a drop unmaps it as cheaply
// (BenchmarkMapTouch). Recent kernels align a large file mapping
// themselves; Map does not depend on it. A kernel without huge pages for
// files maps it as before.
func Map(f *os.File, size int, populate bool) ([]byte, error) {
	if size <= 0 {
		return nil, fmt.Errorf("resident: map %s: %d bytes", f.Name(), size)
	}
	// Reserve size+hugePage bytes of address space, map the file over
	// the aligned part, and give back the rest.
	span := uintptr(size) + hugePage
	res, err := unix.MmapPtr(-1, 0, nil, span, unix.PROT_NONE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS|unix.MAP_NORESERVE)
	if err != nil {
		return nil, fmt.Errorf("resident: reserve %d bytes: %w", span, err)
	}
	head := -uintptr(res) & (hugePage - 1)
	flags := unix.MAP_SHARED | unix.MAP_FIXED
	if populate {
		flags |= unix.MAP_POPULATE
	}
	at, err := unix.MmapPtr(int(f.Fd()), 0, unsafe.Add(res, head), uintptr(size), unix.PROT_READ, flags)
	if err != nil {
		unix.MunmapPtr(res, span)
		return nil, fmt.Errorf("resident: map %s: %w", f.Name(), err)
	}
	page := uintptr(os.Getpagesize())
	tail := head + (uintptr(size)+page-1)&^(page-1)
	if head > 0 {
		unix.MunmapPtr(res, head)
	}
	if tail < span {
		unix.MunmapPtr(unsafe.Add(res, tail), span-tail)
	}
	mm := unsafe.Slice((*byte)(at), size)
	// Only a hint: a kernel without transparent huge pages refuses it.
	unix.Madvise(mm, unix.MADV_HUGEPAGE)
	return mm, nil
}

// Unmap forgets a tracked mapping, unmaps it and sets *mm to nil. *mm is
// a mapping made by Map.
func Unmap(mm *[]byte) error {
	registry.Lock()
	defer registry.Unlock()
	delete(registry.open, mm)
	if *mm == nil {
		return nil
	}
	err := unix.MunmapPtr(unsafe.Pointer(unsafe.SliceData(*mm)), uintptr(len(*mm)))
	*mm = nil
	if err != nil {
		return fmt.Errorf("resident: munmap: %w", err)
	}
	return nil
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
	for mm, m := range registry.open {
		if *mm == nil {
			continue
		}
		var rs []Range
		switch which {
		case allPages:
			rs = []Range{{0, len(*mm)}}
		case restPages:
			rs = m.rest
		case sparedPages:
			rs = pages(m.spare, len(*mm), page)
		}
		for _, r := range rs {
			if err := advise(*mm, r); err != nil {
				return n, err
			}
			n += int64(r.Hi - r.Lo)
		}
		if which != sparedPages {
			now := clock.Load() + 1
			for c := range m.dropped {
				m.dropped[c].Store(now)
			}
		}
	}
	return n, nil
}

func advise(mm []byte, r Range) error {
	if err := syscall.Madvise(mm[r.Lo:r.Hi], syscall.MADV_DONTNEED); err != nil {
		return fmt.Errorf("resident: madvise: %w", err)
	}
	return nil
}

// A chunk is 2 MiB of a mapping, with the stamp of its last use.
type chunk struct {
	m    *Mapping
	c    int
	used uint64
}

// dropOldest advises the chunks used since their last drop, those used
// longest ago first, until the resident file pages are at most target;
// the spared ranges stay. It returns the resident file pages after it and
// the bytes advised.
func dropOldest(cur, target int64) (int64, int64, error) {
	registry.Lock()
	defer registry.Unlock()
	var old []chunk
	for mm, m := range registry.open {
		if *mm == nil {
			continue
		}
		for c := range m.used {
			if u := m.used[c].Load(); u != 0 && u >= m.dropped[c].Load() {
				old = append(old, chunk{m, c, u})
			}
		}
	}
	slices.SortFunc(old, func(a, b chunk) int { return cmp.Compare(a.used, b.used) })
	now := clock.Load() + 1
	var advised int64
	for len(old) > 0 && cur > target {
		// A chunk holds at most 2 MiB: at least this many must go.
		n := min(int((cur-target+hugePage-1)/hugePage), len(old))
		for _, o := range old[:n] {
			lo := o.c << chunkShift
			hi := min(lo+hugePage, len(*o.m.mm))
			for _, r := range o.m.rest {
				if r := (Range{max(r.Lo, lo), min(r.Hi, hi)}); r.Hi > r.Lo {
					if err := advise(*o.m.mm, r); err != nil {
						return cur, advised, err
					}
					advised += int64(r.Hi - r.Lo)
				}
			}
			o.m.dropped[o.c].Store(now)
		}
		old = old[n:]
		var err error
		if cur, err = FileBytes(); err != nil {
			return cur, advised, err
		}
	}
	return cur, advised, nil
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
	// Interval is how often the resident set is read (0: 20ms); Run
	// also reads it as soon as Touch reports a quarter of the budget
	// mapped again. The check reads /proc/self/statm, a few
	// microseconds. The bound is overshot by what queries map before the
	// next check: one query walking the postings of a very frequent term
	// maps them all at once.
	Interval time.Duration
	Logger   *slog.Logger

	base   int64 // the least resident file bytes after a full drop, or at the first check
	drops  int64
	oldest int64 // drops of the least recently used chunks only
	spared int64 // drops of all but the spared ranges
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
	wakeAt.Store(max(r.Budget/4, 1))
	defer wakeAt.Store(0)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-wake:
		}
		if _, err := r.Check(); err != nil && r.Logger != nil {
			r.Logger.Warn("resident: resident memory check failed", "err", err)
			return
		}
	}
}

// Check reads the process's resident file pages and, when they exceed
// the baseline by more than Budget, drops pages of the tracked mappings
// until they are within three quarters of it: the chunks used longest ago
// first; then, if that is not enough, all but the spared ranges; then the
// spared ranges too. It reports whether it dropped pages. The baseline is
// the resident file pages of the executable, shared libraries and other
// mapped files: those at the first check, or fewer after a full drop.
func (r *Residency) Check() (bool, error) {
	if r.Budget <= 0 {
		return false, nil
	}
	clock.Add(1)
	fresh.Store(0)
	cur, err := FileBytes()
	if err != nil {
		return false, err
	}
	if r.drops == 0 && r.base == 0 {
		r.base = cur
	}
	if cur-r.base <= r.Budget {
		return false, nil
	}
	start := time.Now()
	target := r.base + r.Budget*3/4
	after, advised, err := dropOldest(cur, target)
	if err != nil {
		return true, err
	}
	r.drops++
	how := "oldest"
	if after <= target {
		r.oldest++
	} else {
		how = "rest"
		if after, err = dropThen(restPages, &advised); err != nil {
			return true, err
		}
		if after <= target {
			r.spared++
		} else {
			how = "all"
			if after, err = dropThen(sparedPages, &advised); err != nil {
				return true, err
			}
			// Never up: searches running meanwhile map pages again.
			r.base = min(r.base, after)
		}
	}
	if r.Logger != nil {
		r.Logger.Debug("resident: dropped resident index pages", "resident_before", cur, "resident_after", after,
			"advised", advised, "how", how, "drops", r.drops, "took", time.Since(start))
	}
	return true, nil
}

// dropThen drops a part of every mapping, adds the bytes advised to
// *advised and returns the resident file pages after it.
func dropThen(which part, advised *int64) (int64, error) {
	n, err := drop(which)
	*advised += n
	if err != nil {
		return 0, err
	}
	return FileBytes()
}

// Drops is the number of times Check dropped the indexes' pages.
func (r *Residency) Drops() int64 { return r.drops }

// Oldest is the number of those drops that took out only chunks used
// longest ago.
func (r *Residency) Oldest() int64 { return r.oldest }

// Spared is the number of those drops that took out all but the spared
// ranges.
func (r *Residency) Spared() int64 { return r.spared }

// FileBytes returns the process's resident file-backed (and
// shared) memory: the third field of /proc/self/statm, in bytes.
func FileBytes() (int64, error) {
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

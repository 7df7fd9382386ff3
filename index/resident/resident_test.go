package resident

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
	"unsafe"
)

func TestComplement(t *testing.T) {
	for _, tc := range []struct {
		keep []Range
		size int
		want []Range
	}{
		{nil, 10 << 10, []Range{{0, 10 << 10}}},
		{[]Range{{0, 100}, {9000, 10 << 10}}, 10 << 10, []Range{{4096, 8192}}}, // inner pages only
		{[]Range{{5000, 6000}, {0, 4096}}, 12288, []Range{{8192, 12288}}},      // unsorted; 4096..8191 holds a kept byte
		{[]Range{{0, 4096}, {2000, 9000}}, 16384, []Range{{12288, 16384}}},     // overlapping
		{[]Range{{0, 16384}}, 16384, nil},
	} {
		if got := complement(tc.keep, tc.size, 4096); !slices.Equal(got, tc.want) {
			t.Errorf("complement(%v, %d) = %v, want %v", tc.keep, tc.size, got, tc.want)
		}
	}
}

var sink int

// TestPages: the spared ranges, widened to whole pages within the
// mapping, are what the second step of a drop advises.
func TestPages(t *testing.T) {
	for _, tc := range []struct {
		keep []Range
		size int
		want []Range
	}{
		{nil, 10 << 10, []Range{}},
		{[]Range{{100, 200}}, 10 << 10, []Range{{0, 4096}}},
		{[]Range{{4000, 4200}, {9000, 10 << 10}}, 10 << 10, []Range{{0, 8192}, {8192, 10 << 10}}}, // the last page is short
	} {
		if got := pages(tc.keep, tc.size, 4096); !slices.Equal(got, tc.want) {
			t.Errorf("pages(%v, %d) = %v, want %v", tc.keep, tc.size, got, tc.want)
		}
	}
}

// TestSpare: a drop that spares a range leaves its pages resident and
// takes out the rest; dropping the spared range then takes out all.
func TestSpare(t *testing.T) {
	const size, spared = 16 << 20, 4 << 20
	mm, _ := mapFile(t, size, Range{Lo: 0, Hi: spared})
	touch := func() {
		var s byte
		for i := 0; i < size; i += 4096 {
			s += mm[i]
		}
		sink += int(s) // so that the loads stay
	}
	if _, err := drop(allPages); err != nil {
		t.Fatal(err)
	}
	base, err := FileBytes()
	if err != nil {
		t.Fatal(err)
	}
	touch()
	if _, err := drop(restPages); err != nil {
		t.Fatal(err)
	}
	after, _ := FileBytes()
	if kept := after - base; kept < spared*9/10 || kept > spared+1<<20 {
		t.Errorf("after a sparing drop %d bytes stay resident, want about %d", kept, spared)
	}
	if _, err := drop(sparedPages); err != nil {
		t.Fatal(err)
	}
	if left, _ := FileBytes(); left-base > 1<<20 {
		t.Errorf("after a full drop %d bytes stay resident", left-base)
	}
}

// present counts the pages of b mapped into the process, from
// /proc/self/pagemap (bit 63 of each page's entry; readable unprivileged).
func present(t *testing.T, b []byte) int {
	t.Helper()
	f, err := os.Open("/proc/self/pagemap")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	page := os.Getpagesize()
	first := uintptr(unsafe.Pointer(&b[0])) / uintptr(page)
	n := (len(b) + page - 1) / page
	buf := make([]byte, 8*n)
	if _, err := f.ReadAt(buf, int64(first)*8); err != nil {
		t.Fatal(err)
	}
	var k int
	for i := range n {
		if binary.LittleEndian.Uint64(buf[8*i:])>>63 == 1 {
			k++
		}
	}
	return k
}

// mapFile maps a file of size zero bytes, tracked with spare.
func mapFile(t *testing.T, size int, spare ...Range) ([]byte, *Mapping) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mm, err := Map(f, size, false)
	if err != nil {
		t.Fatal(err)
	}
	m := Track(&mm, spare...)
	t.Cleanup(func() { Unmap(&mm) })
	return mm, m
}

// TestOldestFirst: with a budget of 8 chunks, a walk of 48 that reads a
// hot chunk before every cold one keeps the hot chunk and the spared
// range mapped, dropping only cold chunks; a chunk read without Touch
// makes a drop take out all but the spared range.
func TestOldestFirst(t *testing.T) {
	const ck = 1 << chunkShift
	const size = 48 * ck
	mm, m := mapFile(t, size, Range{Lo: size - ck, Hi: size})
	read := func(lo, hi int, touch bool) {
		var s byte
		for i := lo; i < hi; i += 4096 {
			s += mm[i]
		}
		sink += int(s)
		if touch {
			m.Touch(lo, hi)
		}
	}
	if _, err := DropResident(); err != nil {
		t.Fatal(err)
	}
	r := &Residency{Budget: 8 * ck}
	if _, err := r.Check(); err != nil { // the baseline
		t.Fatal(err)
	}
	hot, spared, pages := mm[:ck], mm[size-ck:], ck/os.Getpagesize()
	for c := 1; c < size/ck-1; c++ {
		read(0, ck, true)
		read(size-ck, size, false)
		read(c*ck, (c+1)*ck, true)
		if _, err := r.Check(); err != nil {
			t.Fatal(err)
		}
		if got := present(t, hot); got != pages {
			t.Fatalf("after chunk %d (%d drops): %d of the hot chunk's %d pages mapped", c, r.Drops(), got, pages)
		}
		if got := present(t, spared); got != pages {
			t.Fatalf("after chunk %d: %d of the spared chunk's %d pages mapped", c, got, pages)
		}
	}
	if r.Drops() < 4 || r.Oldest() != r.Drops() {
		t.Errorf("%d drops, %d of the oldest chunks only; want at least 4, all of them", r.Drops(), r.Oldest())
	}
	if cold := present(t, mm[ck:size-ck]); cold > 8*pages {
		t.Errorf("%d pages of the cold chunks mapped, want at most the budget's %d", cold, 8*pages)
	}

	// Read without Touch, the cold chunks are found by a drop of the rest
	// once the touched chunks are gone.
	for c := 1; c < size/ck-1 && r.Spared() == 0; c++ {
		read(c*ck, (c+1)*ck, false)
		if _, err := r.Check(); err != nil {
			t.Fatal(err)
		}
	}
	if r.Spared() != 1 {
		t.Fatalf("%d drops of all but the spared range after untracked reads, want 1", r.Spared())
	}
	if got := present(t, hot); got != 0 {
		t.Errorf("%d pages of the hot chunk mapped after a drop of the rest", got)
	}
	if got := present(t, spared); got != pages {
		t.Errorf("%d of the spared chunk's %d pages mapped after a drop of the rest", got, pages)
	}
}

// TestWake: a Residency whose ticker would not fire for an hour still
// drops pages once Touch reports chunks mapped again past a quarter of
// the budget.
func TestWake(t *testing.T) {
	const ck = 1 << chunkShift
	const size = 24 * ck
	mm, m := mapFile(t, size)
	if _, err := DropResident(); err != nil {
		t.Fatal(err)
	}
	base, err := FileBytes()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		(&Residency{Budget: 4 * ck, Interval: time.Hour}).Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	for wakeAt.Load() == 0 { // Run has started
		time.Sleep(time.Millisecond)
	}
	// Two checks see the reads: the first takes the baseline, the second
	// finds it over the budget. Each comes after a quarter of the budget.
	for c := 0; c < size/ck; c++ {
		var s byte
		for i := c * ck; i < (c+1)*ck; i += 4096 {
			s += mm[i]
		}
		sink += int(s)
		m.Touch(c*ck, (c+1)*ck)
		time.Sleep(time.Millisecond) // let the woken check run
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		cur, err := FileBytes()
		if err != nil {
			t.Fatal(err)
		}
		if cur-base <= 4*ck+ck {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes resident over the baseline after the walk, budget %d: no check woke", cur-base, 4*ck)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

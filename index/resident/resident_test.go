package resident

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
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
	path := filepath.Join(t.TempDir(), "m")
	if err := os.WriteFile(path, make([]byte, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mm, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	Track(&mm, Range{Lo: 0, Hi: spared})
	defer Unmap(&mm)
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
	base, err := ResidentFileBytes()
	if err != nil {
		t.Fatal(err)
	}
	touch()
	if _, err := drop(restPages); err != nil {
		t.Fatal(err)
	}
	after, _ := ResidentFileBytes()
	if kept := after - base; kept < spared*9/10 || kept > spared+1<<20 {
		t.Errorf("after a sparing drop %d bytes stay resident, want about %d", kept, spared)
	}
	if _, err := drop(sparedPages); err != nil {
		t.Fatal(err)
	}
	if left, _ := ResidentFileBytes(); left-base > 1<<20 {
		t.Errorf("after a full drop %d bytes stay resident", left-base)
	}
}

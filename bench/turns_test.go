package bench

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// TestGiveTurn: a turn reads the system's own files and drops the other
// systems' pages from the page cache.
func TestGiveTurn(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, size int) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		// Dirty pages cannot be dropped; the peers' files are on disk.
		if _, err := f.Write(bytes.Repeat([]byte{7}, size)); err != nil || f.Sync() != nil {
			t.Fatal(err)
		}
		return p
	}
	a1, a2 := write("a/one", 3<<20), write("a/sub/two", 5000)
	b := write("b.bin", 2<<20)
	sa := system{name: "a", files: []string{filepath.Dir(a1), filepath.Join(dir, "missing")}}
	sb := system{name: "b", files: []string{b}}

	if got := giveTurn(context.Background(), sb, []system{sa, sb}); got.Read != 2<<20 || got.Skipped != 1 {
		t.Fatalf("turn of b: %+v, want 2 MiB read and the missing path of a skipped", got)
	}
	if n := resident(t, b); n != 2<<20 {
		t.Fatalf("b: %d bytes cached after its turn, want all", n)
	}
	got := giveTurn(context.Background(), sa, []system{sa, sb})
	if got.Read != 3<<20+5000 || got.Skipped != 1 {
		t.Errorf("turn of a: %+v, want %d bytes read, 1 skipped", got, 3<<20+5000)
	}
	if n := resident(t, b); n != 0 {
		t.Errorf("b: %d bytes still cached during a's turn", n)
	}
	if n := resident(t, a1) + resident(t, a2); n < 3<<20 {
		t.Errorf("a: %d bytes cached after its turn", n)
	}
}

// resident is how many bytes of the file at p are in the page cache.
func resident(t *testing.T, p string) int {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	m, err := unix.Mmap(int(f.Fd()), 0, int(st.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(m)
	page := os.Getpagesize()
	vec := make([]byte, (len(m)+page-1)/page)
	// x/sys has no Mincore wrapper.
	_, _, errno := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&m[0])), uintptr(len(m)), uintptr(unsafe.Pointer(&vec[0])))
	if errno != 0 {
		t.Fatal(errno)
	}
	n := 0
	for _, v := range vec {
		if v&1 != 0 {
			n += page
		}
	}
	return min(n, len(m))
}

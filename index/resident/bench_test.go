package resident

import (
	"bufio"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkMapTouch measures what a search pays to map the pages of a
// file it reads and a drop pays to unmap them: a 256 MiB file written by
// Writer and mapped by Map, against one written through bufio's 1 MiB
// writes and mapped by syscall.Mmap (the server before). It reports the
// page faults of a walk over the file (one read per 4 KiB page) and the
// time of the MADV_DONTNEED that drops it. The file stays in the page
// cache between iterations, as an index does on a server.
func BenchmarkMapTouch(b *testing.B) {
	const size = 256 << 20
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	write := func(b *testing.B, path string, aligned bool) {
		f, err := os.Create(path)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		var w interface {
			Write([]byte) (int, error)
			Flush() error
		} = bufio.NewWriterSize(f, 1<<20)
		if aligned {
			w = NewWriter(f)
		}
		for n := 0; n < size; n += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name    string
		aligned bool
	}{{"bufio+mmap", false}, {"Writer+Map", true}} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "f")
			write(b, path, tc.aligned)
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			var mm []byte
			if tc.aligned {
				mm, err = Map(f, size, false)
				defer Unmap(&mm)
			} else {
				mm, err = syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
				defer syscall.Munmap(mm)
			}
			if err != nil {
				b.Fatal(err)
			}
			var faults int64
			var drop time.Duration
			var s byte
			for b.Loop() {
				var before syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &before)
				for i := 0; i < size; i += 4096 {
					s += mm[i]
				}
				var after syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &after)
				faults += after.Minflt + after.Majflt - before.Minflt - before.Majflt
				b.StopTimer()
				t := time.Now()
				if err := syscall.Madvise(mm, syscall.MADV_DONTNEED); err != nil {
					b.Fatal(err)
				}
				drop += time.Since(t)
				b.StartTimer()
			}
			sink += int(s)
			b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
			b.ReportMetric(float64(drop.Microseconds())/float64(b.N), "drop-µs/op")
		})
	}
}

package resident

import (
	"bufio"
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

var benchFile = flag.String("map.file", "", "BenchmarkMapTouch walks this file (an index) instead of writing 256 MiB ones")

// BenchmarkMapTouch measures what a search pays to map the pages of a
// file it reads and a drop pays to unmap them: a 256 MiB file written by
// Writer and mapped by Map, against one written through bufio's 1 MiB
// writes and mapped by syscall.Mmap (the server before); with
// -map.file, that file mapped each way. It reports the page faults and
// time of a walk over the file (one read per 4 KiB page), the MiB of it
// the kernel mapped with huge pages (FilePmdMapped), and the time of the
// MADV_DONTNEED that drops it. The file stays in the page cache between
// iterations, as an index does on a server.
func BenchmarkMapTouch(b *testing.B) {
	for _, tc := range []struct {
		name    string
		aligned bool
	}{{"bufio+mmap", false}, {"Writer+Map", true}} {
		b.Run(tc.name, func(b *testing.B) {
			path := *benchFile
			if path == "" {
				path = filepath.Join(b.TempDir(), "f")
				writeBench(b, path, 256<<20, tc.aligned)
			}
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			defer f.Close()
			st, err := f.Stat()
			if err != nil {
				b.Fatal(err)
			}
			size := int(st.Size())
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
			var faults, huge int64
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
				huge = filePmdMapped(b)
				t := time.Now()
				if err := syscall.Madvise(mm, syscall.MADV_DONTNEED); err != nil {
					b.Fatal(err)
				}
				drop += time.Since(t)
				b.StartTimer()
			}
			sink += int(s)
			b.ReportMetric(float64(faults)/float64(b.N), "faults/op")
			b.ReportMetric(float64(huge)/(1<<20), "huge-MiB")
			b.ReportMetric(float64(drop.Microseconds())/float64(b.N), "drop-µs/op")
		})
	}
}

// writeBench writes size bytes to path, with Writer if aligned, else
// through bufio's 1 MiB writes.
func writeBench(b *testing.B, path string, size int, aligned bool) {
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
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = byte(i)
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

// filePmdMapped is the process's file memory mapped with huge pages
// (FilePmdMapped in /proc/self/smaps_rollup), in bytes.
func filePmdMapped(b *testing.B) int64 {
	rollup, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(rollup) {
		if f := bytes.Fields(line); len(f) >= 2 && string(f[0]) == "FilePmdMapped:" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return kb << 10
		}
	}
	return 0
}

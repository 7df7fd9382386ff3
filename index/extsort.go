package index

import (
	"bufio"
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// sorter is an external sort of byte records in bytes.Compare order.
// Records accumulate in one arena; when it reaches the memory limit they are
// sorted and written to a zstd-compressed run file, and iterate merges the
// runs. Memory is bounded by the limit plus a small buffer per run.
type sorter struct {
	dir   string
	limit int
	arena []byte
	recs  []span
	runs  []string
	n     int64
}

type span struct{ off, n uint32 }

func newSorter(dir string, limit int) *sorter {
	if limit <= 0 {
		limit = 64 << 20
	}
	return &sorter{dir: dir, limit: min(limit, 1<<31)}
}

func (s *sorter) add(rec []byte) error {
	if len(s.arena)+len(rec) > s.limit && len(s.recs) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.recs = append(s.recs, span{uint32(len(s.arena)), uint32(len(rec))})
	s.arena = append(s.arena, rec...)
	s.n++
	return nil
}

func (s *sorter) rec(sp span) []byte { return s.arena[sp.off : sp.off+sp.n] }

func (s *sorter) sortMemory() {
	slices.SortFunc(s.recs, func(a, b span) int { return bytes.Compare(s.rec(a), s.rec(b)) })
}

func (s *sorter) spill() error {
	s.sortMemory()
	f, err := os.CreateTemp(s.dir, "run-*.zst")
	if err != nil {
		return fmt.Errorf("index: sort run: %w", err)
	}
	s.runs = append(s.runs, f.Name())
	// A small window keeps each run's decoder small during the merge.
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(512<<10))
	if err != nil {
		f.Close()
		return err
	}
	bw := bufio.NewWriterSize(zw, 256<<10)
	var lenBuf [binary.MaxVarintLen64]byte
	for _, sp := range s.recs {
		n := binary.PutUvarint(lenBuf[:], uint64(sp.n))
		bw.Write(lenBuf[:n])
		bw.Write(s.rec(sp))
	}
	err = bw.Flush()
	if cerr := zw.Close(); err == nil {
		err = cerr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("index: sort run: %w", err)
	}
	s.arena, s.recs = s.arena[:0], s.recs[:0]
	return nil
}

// iterate calls fn with every record in order. The slice is only valid
// during the call. The sorter is spent afterwards.
func (s *sorter) iterate(fn func(rec []byte) error) error {
	defer s.cleanup()
	if len(s.runs) == 0 {
		s.sortMemory()
		for _, sp := range s.recs {
			if err := fn(s.rec(sp)); err != nil {
				return err
			}
		}
		return nil
	}
	if len(s.recs) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	s.arena, s.recs = nil, nil
	h := make(runHeap, 0, len(s.runs))
	defer func() {
		for _, r := range h {
			r.close()
		}
	}()
	for _, name := range s.runs {
		r, err := openRun(name)
		if err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			r.close()
			return err
		}
		if ok {
			h = append(h, r)
		} else {
			r.close()
		}
	}
	heap.Init(&h)
	for len(h) > 0 {
		r := h[0]
		if err := fn(r.cur); err != nil {
			return err
		}
		ok, err := r.next()
		if err != nil {
			return err
		}
		if ok {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
			r.close()
		}
	}
	return nil
}

func (s *sorter) cleanup() {
	for _, name := range s.runs {
		os.Remove(name)
	}
	s.runs, s.arena, s.recs = nil, nil, nil
}

type run struct {
	f   *os.File
	zr  *zstd.Decoder
	br  *bufio.Reader
	cur []byte
}

func openRun(name string) (*run, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("index: sort run: %w", err)
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &run{f: f, zr: zr, br: bufio.NewReaderSize(zr, 64<<10)}, nil
}

func (r *run) next() (bool, error) {
	n, err := binary.ReadUvarint(r.br)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("index: sort run %s: %w", r.f.Name(), err)
	}
	r.cur = slices.Grow(r.cur[:0], int(n))[:n]
	if _, err := io.ReadFull(r.br, r.cur); err != nil {
		return false, fmt.Errorf("index: sort run %s: %w", r.f.Name(), err)
	}
	return true, nil
}

func (r *run) close() {
	r.zr.Close()
	r.f.Close()
}

type runHeap []*run

func (h runHeap) Len() int           { return len(h) }
func (h runHeap) Less(i, j int) bool { return bytes.Compare(h[i].cur, h[j].cur) < 0 }
func (h runHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)        { *h = append(*h, x.(*run)) }
func (h *runHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}

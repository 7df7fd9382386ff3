package pmcoa

import (
	"bufio"
	"bytes"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// The inventory diff runs on disk, so that the bucket's ~8 million
// metadata keys fit in a bounded memory: the (key, ETag) pairs of the new
// inventory are cut into sorted runs of at most runBytes, the runs are
// merged, and the merged stream is compared with the sorted checkpoint of
// the last inventory applied. A keys file is a zstd-compressed text file of
// "key\tETag\n" lines sorted by key (a tab sorts before every character of
// a key, so sorting whole lines sorts by key), without duplicate keys.

// runBytes bounds one sorted run in memory (the lines and their offsets).
const runBytes = 48 << 20

// runSorter cuts (key, ETag) lines into sorted run files under dir.
type runSorter struct {
	dir   string
	limit int
	buf   []byte
	offs  []uint32
	runs  []string
}

func newRunSorter(dir string) (*runSorter, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &runSorter{dir: dir, limit: runBytes}, nil
}

// add buffers one pair, writing a run when the buffer is full.
func (s *runSorter) add(key, etag string) error {
	if len(s.buf)+len(key)+len(etag)+2 > s.limit && len(s.offs) > 0 {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if s.buf == nil {
		// Allocated once at its full size: growing by appends would
		// hold the old and the new array at once.
		s.buf = make([]byte, 0, s.limit)
	}
	s.offs = append(s.offs, uint32(len(s.buf)))
	s.buf = append(append(append(append(s.buf, key...), '\t'), etag...), '\n')
	return nil
}

func (s *runSorter) line(i int) []byte {
	end := len(s.buf)
	if i+1 < len(s.offs) {
		end = int(s.offs[i+1])
	}
	return s.buf[s.offs[i]:end]
}

// flush sorts the buffered lines and writes them as one run.
func (s *runSorter) flush() error {
	if len(s.offs) == 0 {
		return nil
	}
	idx := make([]int32, len(s.offs))
	for i := range idx {
		idx[i] = int32(i)
	}
	slices.SortFunc(idx, func(a, b int32) int { return bytes.Compare(s.line(int(a)), s.line(int(b))) })
	name := filepath.Join(s.dir, fmt.Sprintf("run-%04d", len(s.runs)))
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, i := range idx {
		w.Write(s.line(int(i)))
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	s.runs = append(s.runs, name)
	s.buf, s.offs = s.buf[:0], s.offs[:0]
	return nil
}

// finish writes the last run and lets the buffer go.
func (s *runSorter) finish() error {
	err := s.flush()
	s.buf, s.offs = nil, nil
	return err
}

// lineReader yields the lines of a sorted file; cur is valid until next.
type lineReader struct {
	r     *bufio.Reader
	close func()
	cur   []byte
}

func openRun(path string) (*lineReader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &lineReader{r: bufio.NewReaderSize(f, 256<<10), close: func() { f.Close() }}, nil
}

// openKeys opens a keys file; a missing name reads as empty.
func openKeys(path string) (*lineReader, error) {
	if path == "" {
		return &lineReader{r: bufio.NewReader(strings.NewReader("")), close: func() {}}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &lineReader{r: bufio.NewReaderSize(zr, 256<<10), close: func() { zr.Close(); f.Close() }}, nil
}

// next advances to the next line; false at the end.
func (l *lineReader) next() (bool, error) {
	b, err := l.r.ReadSlice('\n')
	if errors.Is(err, io.EOF) && len(b) == 0 {
		l.cur = nil
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	l.cur = bytes.TrimSuffix(b, []byte("\n"))
	return true, nil
}

// split returns the key and ETag of a line.
func split(line []byte) (key, etag []byte) {
	k, e, _ := bytes.Cut(line, []byte("\t"))
	return k, e
}

// mergeHeap merges run readers by their current line.
type mergeHeap []*lineReader

func (h mergeHeap) Len() int           { return len(h) }
func (h mergeHeap) Less(i, j int) bool { return bytes.Compare(h[i].cur, h[j].cur) < 0 }
func (h mergeHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)        { *h = append(*h, x.(*lineReader)) }
func (h *mergeHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// runMerger yields the lines of sorted runs in order, once per key (an
// inventory listing a key twice keeps its first line), or once per line
// when whole is set. Memory: one buffered line per run.
type runMerger struct {
	h       mergeHeap
	whole   bool
	started bool
	last    []byte
	// pending is the reader whose line was returned last, advanced on
	// the next call.
	pending *lineReader
}

func openMerger(runs []string, whole bool) (*runMerger, error) {
	m := &runMerger{whole: whole}
	for _, p := range runs {
		r, err := openRun(p)
		if err != nil {
			m.close()
			return nil, err
		}
		ok, err := r.next()
		if err != nil || !ok {
			r.close()
			if err != nil {
				m.close()
				return nil, err
			}
			continue
		}
		m.h = append(m.h, r)
	}
	heap.Init(&m.h)
	return m, nil
}

// next returns the next line, valid until the following call.
func (m *runMerger) next() ([]byte, bool, error) {
	for {
		if r := m.pending; r != nil {
			m.pending = nil
			ok, err := r.next()
			if err != nil {
				return nil, false, err
			}
			if ok {
				heap.Fix(&m.h, 0)
			} else {
				r.close()
				heap.Pop(&m.h)
			}
		}
		if len(m.h) == 0 {
			return nil, false, nil
		}
		r := m.h[0]
		m.pending = r
		k := r.cur
		if !m.whole {
			k, _ = split(r.cur)
		}
		if !m.started || !bytes.Equal(k, m.last) {
			m.started = true
			m.last = append(m.last[:0], k...)
			return r.cur, true, nil
		}
	}
}

func (m *runMerger) close() {
	for _, r := range m.h {
		r.close()
	}
	m.h = nil
}

// merged calls fn with every line of the runs in key order, once per key
// (or once per line when whole is set).
func merged(runs []string, whole bool, fn func(line []byte) error) error {
	m, err := openMerger(runs, whole)
	if err != nil {
		return err
	}
	defer m.close()
	for {
		line, ok, err := m.next()
		if err != nil || !ok {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// keysWriter writes a keys file.
type keysWriter struct {
	f  *os.File
	zw *zstd.Encoder
	w  *bufio.Writer
	n  int64
}

func createKeys(path string) (*keysWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		f.Close()
		return nil, err
	}
	return &keysWriter{f: f, zw: zw, w: bufio.NewWriterSize(zw, 256<<10)}, nil
}

func (k *keysWriter) write(line []byte) error {
	k.n++
	k.w.Write(line)
	return k.w.WriteByte('\n')
}

// close flushes and syncs the file.
func (k *keysWriter) close() error {
	err := k.w.Flush()
	if e := k.zw.Close(); err == nil {
		err = e
	}
	if e := k.f.Sync(); err == nil {
		err = e
	}
	if e := k.f.Close(); err == nil {
		err = e
	}
	return err
}

// diff is what changed between the last inventory applied and a new one.
type diff struct {
	// Keys is the number of keys of the new inventory, Previous of the
	// last one.
	Keys, Previous int64
	// Changed is a file of the "key\tETag" lines that are new or whose
	// ETag changed, in key order; Count how many.
	Changed string
	Count   int64
}

// diffKeys merges the sorted runs of the new inventory into the keys file
// next and compares them with the keys file prev, writing the changed
// pairs to changed and calling removed with every key of prev that the
// new inventory no longer lists. Memory: one buffered line per run.
func diffKeys(runs []string, prev, next, changed string, removed func(key string)) (diff, error) {
	d := diff{Changed: changed}
	old, err := openKeys(prev)
	if err != nil {
		return d, fmt.Errorf("last inventory checkpoint: %w", err)
	}
	defer old.close()
	hasOld, err := old.next()
	if err != nil {
		return d, err
	}
	out, err := createKeys(next)
	if err != nil {
		return d, err
	}
	cf, err := os.Create(changed)
	if err != nil {
		out.close()
		return d, err
	}
	cw := bufio.NewWriterSize(cf, 256<<10)
	err = merged(runs, false, func(line []byte) error {
		key, etag := split(line)
		for hasOld {
			okey, oe := split(old.cur)
			c := bytes.Compare(okey, key)
			if c > 0 {
				break
			}
			d.Previous++
			if c < 0 {
				removed(string(okey))
			}
			same := c == 0 && bytes.Equal(oe, etag)
			var err error
			if hasOld, err = old.next(); err != nil {
				return err
			}
			if c == 0 {
				if !same {
					break
				}
				return out.write(line)
			}
		}
		d.Count++
		cw.Write(line)
		cw.WriteByte('\n')
		return out.write(line)
	})
	for err == nil && hasOld {
		d.Previous++
		k, _ := split(old.cur)
		removed(string(k))
		hasOld, err = old.next()
	}
	d.Keys = out.n
	if e := out.close(); err == nil {
		err = e
	}
	if e := cw.Flush(); err == nil {
		err = e
	}
	if e := cf.Close(); err == nil {
		err = e
	}
	return d, err
}

// writeKeysFromMap writes a checkpoint of the former format (a JSON map of
// every key to its ETag) as a keys file: read once, when migrating.
func writeKeysFromMap(path string, etags map[string]string) error {
	keys := slices.Sorted(maps.Keys(etags))
	w, err := createKeys(path)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := w.write([]byte(k + "\t" + etags[k])); err != nil {
			w.close()
			return err
		}
	}
	return w.close()
}

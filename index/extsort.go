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

	"github.com/klauspost/compress/s2"
)

// sorter is an external sort of byte records in bytes.Compare order.
// Records accumulate in one arena; when it reaches the memory limit they are
// sorted and written to a run file (writeRun), and iterate merges the runs.
// The first rawRuns bytes of runs are written as they are, later ones as S2
// blocks. (S2 rather than zstd: run files live for one build, and zstd's
// fastest level was a third of a spill's CPU, S2 about a ninth.)
//
// A full arena is sorted and written by a goroutine of its own while the
// caller fills a second one, so the builder's goroutine does not wait for
// the sort: memory is bounded by twice the limit (and the spans) plus a
// block per run (runBlock) during the merge.
type sorter struct {
	dir   string
	limit int
	arena []byte
	recs  []span
	runs  []runFile
	n     int64
	raw   int64 // bytes of records in the runs written without compression
	// rawLimit: runs that start past it are compressed (rawRuns; tests
	// lower it).
	rawLimit int64

	spilling chan spilled // the run being written in the background; nil when none
	spare    *sortBuf     // the arena of the last finished spill, for reuse
}

// runFile is a run written by writeRun: its path, and whether its blocks
// are S2-compressed.
type runFile struct {
	name       string
	compressed bool
}

// rawRuns is how many bytes of records a sorter writes to its run files
// uncompressed; the runs after them are S2 blocks. A run is written once
// and read once, from the page cache as a rule: encoding and decoding S2
// (3:1 on postings) took 1.6 % of the CPU of a build of 20 000 articles,
// more than the kernel's copies of the bytes it saves. Past this, on the
// largest builds, the disk the runs take counts more (a build has four
// sorters). The merger's spill does the same (ingest's rawSpill).
const rawRuns = 1 << 30

// span is one record of the arena. key holds the record's first 8 bytes
// (zero-padded, big endian), so that most comparisons of a sort are one
// integer comparison instead of a call to bytes.Compare.
type span struct {
	key    uint64
	off, n uint32
}

// sortBuf is an arena and its spans, handed to the spill goroutine, and
// the scratch spans of its radix sort.
type sortBuf struct {
	arena []byte
	recs  []span
	tmp   []span
	sink  byte // what touch loads, kept so that the loads are not dropped
}

// spilled is the spill goroutine's answer: the arena back, or an error.
type spilled struct {
	buf *sortBuf
	err error
}

func prefixKey(rec []byte) uint64 {
	if len(rec) >= 8 {
		return binary.BigEndian.Uint64(rec)
	}
	// A short tail, often met when ties are broken (radix): shifting its
	// bytes in costs less than a call to copy.
	var k uint64
	for i, c := range rec {
		k |= uint64(c) << (56 - 8*i)
	}
	return k
}

func newSorter(dir string, limit int) *sorter {
	if limit <= 0 {
		limit = 64 << 20
	}
	return &sorter{dir: dir, limit: min(limit, 1<<31), rawLimit: rawRuns}
}

func (s *sorter) add(rec []byte) error {
	if len(s.arena)+len(rec) > s.limit && len(s.recs) > 0 {
		if err := s.spill(); err != nil {
			return err
		}
	}
	if len(s.arena)+len(rec) > cap(s.arena) {
		s.arena = grow(s.arena, len(rec), s.limit)
	}
	if len(s.recs) == cap(s.recs) {
		s.recs = grow(s.recs, 1, 0)
	}
	s.recs = append(s.recs, span{prefixKey(rec), uint32(len(s.arena)), uint32(len(rec))})
	s.arena = append(s.arena, rec...)
	s.n++
	return nil
}

// grow returns s with room for n more elements, doubling its capacity
// (up to limit elements, unless 0, or what n needs) where append would
// grow a large slice by a quarter: filling a 64 MiB arena then allocated
// 320 MiB and copied 256 MiB, where doubling allocates 128 and copies 64.
func grow[E any](s []E, n, limit int) []E {
	c := max(2*cap(s), len(s)+n, 1024)
	if limit > 0 {
		c = max(min(c, limit), len(s)+n)
	}
	t := make([]E, len(s), c)
	copy(t, s)
	return t
}

func (s *sorter) rec(sp span) []byte { return s.arena[sp.off : sp.off+sp.n] }

func (b *sortBuf) rec(sp span) []byte { return b.arena[sp.off : sp.off+sp.n] }

// sort orders the spans by their records (bytes.Compare order): a radix
// sort by the records' first 8 bytes (span.key), then the spans of each
// run of equal keys by the next 8 bytes, and so on; a short run is sorted
// by comparison. Postings records share long prefixes (a term's records
// differ from its 9th byte on when the term is long), which made a
// comparison sort mostly bytes.Compare calls. The spans' keys are
// overwritten.
func (b *sortBuf) sort() {
	if cap(b.tmp) < len(b.recs) {
		b.tmp = make([]span, len(b.recs))
	}
	b.radix(b.recs, b.tmp[:len(b.recs)], 0)
}

// radixMin is the shortest run the radix sort sorts; shorter ones are
// sorted by comparison. radixDepth bounds the 8-byte keys it sorts by,
// from the record's start (records longer than that are rare: terms
// have at most 64 bytes).
const (
	radixMin   = 256
	radixDepth = 10
)

// radix sorts recs, whose records are equal in their first 8*depth bytes
// (zero-padded) and whose keys hold their next 8, using tmp (as long as
// recs) as scratch.
func (b *sortBuf) radix(recs, tmp []span, depth int) {
	if len(recs) < radixMin || depth == radixDepth {
		slices.SortFunc(recs, func(x, y span) int {
			if x.key != y.key {
				if x.key < y.key {
					return -1
				}
				return 1
			}
			return bytes.Compare(b.rec(x), b.rec(y))
		})
		return
	}
	sortByKey(recs, tmp)
	next := uint32(8 * (depth + 1))
	for i := 0; i < len(recs); {
		j, longer := i+1, recs[i].n > next
		for j < len(recs) && recs[j].key == recs[i].key {
			longer = longer || recs[j].n > next
			j++
		}
		if j-i > 1 && longer {
			// Equal so far, and some go on: order by the next 8
			// bytes. When none goes on, the records are equal but
			// for trailing zeros, which the comparison orders.
			run := recs[i:j]
			for k := range run {
				if k%touchBatch == 0 {
					b.touch(run[min(k+touchBatch, len(run)):])
				}
				run[k].key = prefixKey(b.rec(run[k])[min(next, run[k].n):])
			}
			b.radix(run, tmp[i:j], depth+1)
		} else if j-i > 1 {
			slices.SortFunc(recs[i:j], func(x, y span) int { return bytes.Compare(b.rec(x), b.rec(y)) })
		}
		i = j
	}
}

// sortByKey is a least-significant-digit radix sort of recs by key, a byte
// at a time, skipping the bytes every key has alike; tmp is scratch.
func sortByKey(recs, tmp []span) {
	var counts [8][256]int
	for _, r := range recs {
		// Unrolled: a loop over the bytes shifted by a variable count and
		// kept its counter on the stack.
		k := r.key
		counts[0][byte(k)]++
		counts[1][byte(k>>8)]++
		counts[2][byte(k>>16)]++
		counts[3][byte(k>>24)]++
		counts[4][byte(k>>32)]++
		counts[5][byte(k>>40)]++
		counts[6][byte(k>>48)]++
		counts[7][byte(k>>56)]++
	}
	src, dst := recs, tmp
	for i := range counts {
		c, shift := &counts[i], 8*i
		if c[byte(src[0].key>>shift)] == len(src) {
			continue // one value of this byte
		}
		scatter(src, dst, c, uint(shift))
		src, dst = dst, src
	}
	if &src[0] != &recs[0] {
		copy(recs, src)
	}
}

// scatter places src's spans in dst in the order of their keys' byte at
// shift, whose values c counts, keeping the order of equal bytes. (A
// function of its own: inside sortByKey's loop over the bytes, the
// compiler reloaded dst from the stack for every span.)
//
//go:noinline
func scatter(src, dst []span, c *[256]int, shift uint) {
	var at [256]int
	sum := 0
	for v, n := range c {
		at[v], sum = sum, sum+n
	}
	dst = dst[:len(src)]
	for _, r := range src {
		v := byte(r.key >> shift)
		dst[at[v]] = r
		at[v]++
	}
}

func (s *sorter) sortMemory() {
	buf := sortBuf{arena: s.arena, recs: s.recs}
	buf.sort()
}

// wait waits for the background spill, if any, and returns its error.
func (s *sorter) wait() error {
	if s.spilling == nil {
		return nil
	}
	r := <-s.spilling
	s.spilling = nil
	if r.err == nil {
		s.spare = r.buf
	}
	return r.err
}

// spill hands the full arena to a goroutine that sorts it and writes it as
// a run, after waiting for the previous one, and goes on with an empty
// arena (the previous spill's, when there is one).
func (s *sorter) spill() error {
	if err := s.wait(); err != nil {
		return err
	}
	f, err := os.CreateTemp(s.dir, "run-*.s2")
	if err != nil {
		return fmt.Errorf("index: sort run: %w", err)
	}
	compressed := s.raw >= s.rawLimit
	if !compressed {
		s.raw += int64(len(s.arena))
	}
	s.runs = append(s.runs, runFile{f.Name(), compressed})
	full := &sortBuf{arena: s.arena, recs: s.recs}
	if s.spare != nil {
		full.tmp = s.spare.tmp
		s.arena, s.recs, s.spare = s.spare.arena[:0], s.spare.recs[:0], nil
	} else {
		// The arena fills up to the limit again: allocate it at once
		// rather than by doubling.
		s.arena, s.recs = make([]byte, 0, cap(full.arena)), make([]span, 0, cap(full.recs))
	}
	done := make(chan spilled, 1)
	s.spilling = done
	go func() { done <- spilled{full, writeRun(f, full, compressed)} }()
	return nil
}

// writeRun sorts buf and writes it to f, which it closes. A run file is a
// sequence of blocks, each a uvarint length and the block, S2-encoded
// (s2.Encode) when compressed, holding whole records, each a uvarint
// length and its bytes: the records are copied once, from the arena into
// the block, and a record read back is a slice of its (decoded) block.
// (The file lives for one build: no stream framing or checksums.)
func writeRun(f *os.File, buf *sortBuf, compressed bool) error {
	buf.sort()
	// A block is built, or encoded, after room for its length and
	// written with it in one call: no buffered writer copying the blocks
	// again.
	const head = binary.MaxVarintLen64
	block, out := make([]byte, head, head+runBlock), []byte(nil)
	var err error
	flush := func() {
		b := block
		if compressed {
			if need := head + s2.MaxEncodedLen(len(block)-head); cap(out) < need {
				out = make([]byte, need)
			}
			out = out[:cap(out)]
			enc := s2.Encode(out[head:], block[head:])
			b = out[:head+len(enc)]
		}
		var n [binary.MaxVarintLen64]byte
		k := binary.PutUvarint(n[:], uint64(len(b)-head))
		copy(b[head-k:], n[:k])
		if _, werr := f.Write(b[head-k:]); err == nil {
			err = werr
		}
		block = block[:head]
	}
	for i, sp := range buf.recs {
		if i%touchBatch == 0 {
			buf.touch(buf.recs[min(i+touchBatch, len(buf.recs)):])
		}
		if len(block) > head && len(block)-head+int(sp.n)+binary.MaxVarintLen32 > runBlock {
			flush()
		}
		block = binary.AppendUvarint(block, uint64(sp.n))
		block = append(block, buf.rec(sp)...)
	}
	if len(block) > head {
		flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("index: sort run: %w", err)
	}
	return nil
}

// iterate calls fn with every record in order. The slice is only valid
// during the call. The sorter is spent afterwards.
func (s *sorter) iterate(fn func(rec []byte) error) error {
	defer s.cleanup()
	if err := s.wait(); err != nil {
		return err
	}
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
		if err := s.wait(); err != nil {
			return err
		}
	}
	s.arena, s.recs, s.spare = nil, nil, nil
	h := make(runHeap, 0, len(s.runs))
	defer func() {
		for _, r := range h {
			r.close()
		}
	}()
	for _, rf := range s.runs {
		r, err := openRun(rf)
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
			h.down()
		} else {
			heap.Pop(&h)
			r.close()
		}
	}
	return nil
}

func (s *sorter) cleanup() {
	s.wait() // the goroutine must be done with its file before it is removed
	for _, rf := range s.runs {
		os.Remove(rf.name)
	}
	s.runs, s.arena, s.recs, s.spare = nil, nil, nil, nil
}

// runBlock is the size of a run file's blocks before compression: small
// blocks keep each run's reader small during the merge.
const runBlock = 256 << 10

// run reads a run file back, a block at a time.
type run struct {
	f          *os.File
	br         *bufio.Reader
	compressed bool
	enc        []byte // the block as read, when compressed
	buf        []byte // the block (decoded)
	block      []byte // what of buf is still to be returned
	cur        []byte // the current record, a slice of the decoded block
}

func openRun(rf runFile) (*run, error) {
	f, err := os.Open(rf.name)
	if err != nil {
		return nil, fmt.Errorf("index: sort run: %w", err)
	}
	return &run{f: f, br: bufio.NewReaderSize(f, 64<<10), compressed: rf.compressed}, nil
}

// next moves to the next record; false at the end of the run.
func (r *run) next() (bool, error) {
	if len(r.block) == 0 {
		ok, err := r.readBlock()
		if !ok || err != nil {
			return false, err
		}
	}
	n, k := binary.Uvarint(r.block)
	if k <= 0 || n > uint64(len(r.block)-k) {
		return false, fmt.Errorf("index: sort run %s: corrupt block", r.f.Name())
	}
	r.cur, r.block = r.block[k:k+int(n):k+int(n)], r.block[k+int(n):]
	return true, nil
}

// readBlock reads and decodes the next block; false at the end of the run.
func (r *run) readBlock() (bool, error) {
	n, err := binary.ReadUvarint(r.br)
	if errors.Is(err, io.EOF) {
		return false, nil
	}
	if err == nil && n > 1<<31 {
		err = errors.New("corrupt block") // a block holds one arena at most
	}
	// The previous block's records have been handed out already: its
	// buffer is free again.
	switch {
	case err != nil:
	case !r.compressed:
		r.buf = slices.Grow(r.buf[:0], int(n))[:n]
		_, err = io.ReadFull(r.br, r.buf)
	default:
		r.enc = slices.Grow(r.enc[:0], int(n))[:n]
		if _, err = io.ReadFull(r.br, r.enc); err == nil {
			r.buf, err = s2.Decode(r.buf[:cap(r.buf)], r.enc)
		}
	}
	if err == nil {
		if len(r.buf) == 0 {
			err = errors.New("empty block")
		}
		r.block = r.buf
	}
	if err != nil {
		return false, fmt.Errorf("index: sort run %s: %w", r.f.Name(), err)
	}
	return true, nil
}

func (r *run) close() {
	r.f.Close()
}

type runHeap []*run

// down restores the heap after its top's record changed (heap.Fix(h, 0)
// without the interface calls: the merge's inner loop).
func (h runHeap) down() {
	i, n := 0, len(h)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && bytes.Compare(h[c+1].cur, h[c].cur) < 0 {
			c++
		}
		if bytes.Compare(h[c].cur, h[i].cur) >= 0 {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

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

// touchBatch is how many records ahead of the copy touch loads.
const touchBatch = 32

// touch loads the first byte of each of the next touchBatch records of
// recs, so that their cache lines are on the way before they are copied.
// The sorted spans reach all over the arena, and the copy loop alone
// waited for one cache miss after another; this loop's loads are
// independent of one another, so the processor overlaps them.
func (b *sortBuf) touch(recs []span) {
	var x byte
	for _, sp := range recs[:min(touchBatch, len(recs))] {
		if sp.n > 0 { // an empty record may sit at the arena's end
			x ^= b.arena[sp.off]
		}
	}
	b.sink ^= x
}

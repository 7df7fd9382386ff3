package pmcoa

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest"
)

// The build reads the shards through the source's filter, which keeps of
// each shard only the members the articles file names there. The build's
// workers read shard by shard, so the filter needs one shard's live set at
// a time, not the 8 million articles: the live members are sorted by
// shard (an external sort of "shard\tmember" lines) into live-<run>.tsv.zst,
// one zstd frame per shard, and the filter loads a shard's frame the first
// time it sees the shard, keeping the last few in a cache shared by the
// workers. Memory: liveCache shards of at most shard_articles members.

// liveCache is how many shards' live sets the filter keeps: more than the
// build's workers, each reading one shard at a time.
const liveCache = 16

// span is a shard's frame in the live file.
type span struct{ off, n int64 }

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeLive merges the sorted runs of "shard\tmember" lines into the live
// file at path, one zstd frame per shard, and returns each shard's frame.
func writeLive(path string, runs []string) (map[string]span, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(f, 256<<10)
	cw := &countWriter{w: bw}
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(1<<20))
	if err != nil {
		f.Close()
		return nil, err
	}
	index := map[string]span{}
	cur := ""
	var start int64
	end := func() error {
		if cur == "" {
			return nil
		}
		if err := zw.Close(); err != nil {
			return err
		}
		index[cur] = span{start, cw.n - start}
		return nil
	}
	err = merged(runs, true, func(line []byte) error {
		shard, _ := split(line)
		if string(shard) != cur {
			if err := end(); err != nil {
				return err
			}
			cur, start = string(shard), cw.n
			zw.Reset(cw)
		}
		zw.Write(line)
		_, err := zw.Write([]byte("\n"))
		return err
	})
	if err == nil {
		err = end()
	}
	if e := bw.Flush(); err == nil {
		err = e
	}
	if e := f.Sync(); err == nil {
		err = e
	}
	if e := f.Close(); err == nil {
		err = e
	}
	if err != nil {
		return nil, fmt.Errorf("live file: %w", err)
	}
	return index, nil
}

// liveFilter keeps, of the records read from this source's shards, only
// the version of each article the articles file names in the shard it
// names. Records of other files pass. It is safe for concurrent use.
type liveFilter struct {
	prefixes []string
	file     string
	index    map[string]span
	log      *slog.Logger

	mu    sync.Mutex
	tick  int64
	cache map[string]*liveShard
}

type liveShard struct {
	members map[string]struct{}
	used    int64
}

func newLiveFilter(dir, file string, index map[string]span, log *slog.Logger) *liveFilter {
	// The build may name the shards as given or made absolute.
	prefixes := []string{filepath.Clean(dir) + string(filepath.Separator)}
	if abs, err := filepath.Abs(dir); err == nil {
		prefixes = append(prefixes, abs+string(filepath.Separator))
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &liveFilter{prefixes: prefixes, file: file, index: index, log: log, cache: map[string]*liveShard{}}
}

// keep is the source's filter (remote.Result.Filter).
func (f *liveFilter) keep(file string, d *ingest.Document) bool {
	origin := d.Origin
	if origin == "" {
		origin = file
	}
	shard, name, ok := strings.Cut(origin, "!")
	if !slicesHasPrefix(shard, f.prefixes) {
		return true
	}
	if !ok {
		return false
	}
	if _, _, ok := parseMember(name); !ok {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s, err := f.load(filepath.Base(shard))
	if err != nil {
		// Dropped rather than published: the live set says what may be.
		f.log.Error("pmc-oa: live set unreadable; the shard's records are dropped", "shard", filepath.Base(shard), "err", err)
		return false
	}
	_, live := s.members[name]
	return live
}

func slicesHasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// load returns the live set of shard, read from the live file the first
// time and cached (f.mu held). A shard the live file does not name has no
// live member.
func (f *liveFilter) load(shard string) (*liveShard, error) {
	f.tick++
	if s, ok := f.cache[shard]; ok {
		s.used = f.tick
		return s, nil
	}
	s := &liveShard{members: map[string]struct{}{}, used: f.tick}
	if sp, ok := f.index[shard]; ok {
		if err := readLiveFrame(f.file, sp, func(member string) { s.members[member] = struct{}{} }); err != nil {
			return nil, err
		}
	}
	if len(f.cache) >= liveCache {
		var old string
		for name, c := range f.cache {
			if old == "" || c.used < f.cache[old].used {
				old = name
			}
		}
		delete(f.cache, old)
	}
	f.cache[shard] = s
	return s, nil
}

// readLiveFrame calls fn with every member of one shard's frame.
func readLiveFrame(file string, sp span, fn func(member string)) error {
	fh, err := os.Open(file)
	if err != nil {
		return err
	}
	defer fh.Close()
	zr, err := zstd.NewReader(io.NewSectionReader(fh, sp.off, sp.n), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return err
	}
	defer zr.Close()
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		_, m, ok := bytes.Cut(sc.Bytes(), []byte("\t"))
		if !ok {
			return fmt.Errorf("live file: line %q unreadable", sc.Bytes())
		}
		fn(string(m))
	}
	return sc.Err()
}

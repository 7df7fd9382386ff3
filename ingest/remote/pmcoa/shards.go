package pmcoa

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/internal/limit"
)

// The mirror packs the articles into tar shards (zstd-compressed unless
// params.shard_compression is "none") of at most shard_articles members
// and 64 MiB uncompressed, which the JATS package reader reads like any
// tar: a night adds one or more shards holding the articles it
// fetched, so millions of articles are thousands of files, and no shard is
// rewritten for a single change. The checkpoint names, for each PMCID, the
// version kept and the shard holding it; a shard member that is not that
// (removed, retracted, relicensed, superseded by a newer version) is
// dropped by the source's filter before the build sees it, and leaves the
// disk when its shard is compacted: a shard with fewer than half of its
// members still live is rewritten into the night's new shards.

const (
	shardsDir = "shards"
	// defaultShardArticles bounds the members of one shard (params.
	// shard_articles): enough shards for the build's workers, few enough
	// files.
	defaultShardArticles = 5000
	// shardBytes bounds a shard's uncompressed size: the readers accept
	// that much output from any compressed stream (limit.RatioFloor), so
	// a shard of similar articles, however well it compresses, is never
	// taken for a decompression bomb and cut short.
	shardBytes = limit.RatioFloor
)

// member is the name of an article's file inside a shard.
func member(id string, version int) string { return fmt.Sprintf("%s.%d.xml", id, version) }

// parseMember splits PMC123.2.xml into PMC123 and 2.
func parseMember(name string) (string, int, bool) {
	base, ok := strings.CutSuffix(filepath.Base(name), ".xml")
	if !ok {
		return "", 0, false
	}
	id, v, ok := strings.Cut(base, ".")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || !pmcidRE.MatchString(id) {
		return "", 0, false
	}
	return id, n, true
}

// packer writes the night's shards.
type packer struct {
	dir, stamp, ext string
	max             int
	maxBytes        int64
	compress        bool
	n               int
	cur             *shardWriter
	// placed maps a PMCID to the shard its article was written to.
	placed map[string]string
	counts map[string]int
}

type shardWriter struct {
	name, tmp string
	f         *os.File
	bw        *bufio.Writer
	zw        *zstd.Encoder
	tw        *tar.Writer
	members   int
	bytes     int64 // uncompressed, headers counted generously
}

func newPacker(dir string, now time.Time, maxArticles int, compress bool) *packer {
	ext := ".tar"
	if compress {
		ext = ".tar.zst"
	}
	return &packer{dir: dir, stamp: now.UTC().Format("20060102T150405Z"), ext: ext, max: max(maxArticles, 1), maxBytes: shardBytes,
		compress: compress, placed: map[string]string{}, counts: map[string]int{}}
}

// add writes one article, read from r (size bytes), to the current shard.
func (p *packer) add(id string, version int, size int64, r io.Reader) error {
	// The tar header and padding take up to 1.5 KB per member.
	if p.cur == nil || p.cur.members >= p.max || (p.cur.members > 0 && p.cur.bytes+size+2048 > p.maxBytes) {
		if err := p.closeShard(); err != nil {
			return err
		}
		if err := p.openShard(); err != nil {
			return err
		}
	}
	h := &tar.Header{Name: member(id, version), Mode: 0o644, Size: size, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
	if err := p.cur.tw.WriteHeader(h); err != nil {
		return err
	}
	if _, err := io.CopyN(p.cur.tw, r, size); err != nil {
		return err
	}
	p.cur.members++
	p.cur.bytes += size + 2048
	p.placed[id] = p.cur.name
	return nil
}

func (p *packer) openShard() error {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return err
	}
	p.n++
	name := fmt.Sprintf("%s-%04d%s", p.stamp, p.n, p.ext)
	f, err := os.CreateTemp(p.dir, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	sw := &shardWriter{name: name, tmp: f.Name(), f: f, bw: bufio.NewWriterSize(f, 1<<20)}
	var w io.Writer = sw.bw
	if p.compress {
		if sw.zw, err = zstd.NewWriter(sw.bw, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1)); err != nil {
			f.Close()
			return err
		}
		w = sw.zw
	}
	sw.tw = tar.NewWriter(w)
	p.cur = sw
	return nil
}

// closeShard finishes the current shard and renames it into place.
func (p *packer) closeShard() error {
	sw := p.cur
	if sw == nil {
		return nil
	}
	p.cur = nil
	err := sw.tw.Close()
	if sw.zw != nil {
		if e := sw.zw.Close(); err == nil {
			err = e
		}
	}
	if e := sw.bw.Flush(); err == nil {
		err = e
	}
	if e := sw.f.Sync(); err == nil {
		err = e
	}
	if e := sw.f.Close(); err == nil {
		err = e
	}
	if err == nil {
		err = os.Rename(sw.tmp, filepath.Join(p.dir, sw.name))
	}
	if err != nil {
		os.Remove(sw.tmp)
		return err
	}
	p.counts[sw.name] = sw.members
	return nil
}

// abort removes the shard being written.
func (p *packer) abort() {
	if p.cur != nil {
		p.cur.f.Close()
		os.Remove(p.cur.tmp)
		p.cur = nil
	}
}

// openShardReader opens a shard's tar stream.
func openShardReader(path string) (*tar.Reader, func(), error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	if !strings.HasSuffix(path, ".zst") {
		return tar.NewReader(bufio.NewReaderSize(f, 1<<20)), func() { f.Close() }, nil
	}
	zr, err := zstd.NewReader(bufio.NewReaderSize(f, 1<<20), zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return tar.NewReader(zr), func() { zr.Close(); f.Close() }, nil
}

// repack copies the members of shard that want accepts into p.
func repack(p *packer, shard string, want func(id string, version int) bool) error {
	tr, closeFn, err := openShardReader(shard)
	if err != nil {
		return err
	}
	defer closeFn()
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Base(shard), err)
		}
		id, v, ok := parseMember(h.Name)
		if !ok || !want(id, v) {
			continue
		}
		if err := p.add(id, v, h.Size, tr); err != nil {
			return err
		}
	}
}

// pack writes the night's shards: the articles fetched tonight (or kept
// one file each by a former mirror) from xml/, then the live members of
// the shards to compact. It points next's articles at their new shards and
// sets next's shard list.
func pack(env packEnv, prevShards map[string]int, next *state) error {
	live := liveCounts(next.Articles)
	var loose []string
	for id, a := range next.Articles {
		if a.Shard == "" {
			loose = append(loose, id)
		}
	}
	slices.Sort(loose)
	var compact []string
	for name, members := range prevShards {
		if l := live[name]; l > 0 && 2*l < members {
			compact = append(compact, name)
		}
	}
	slices.Sort(compact)
	p := newPacker(env.dir, env.now, env.shardArticles, env.compress)
	err := func() error {
		for _, id := range loose {
			a := next.Articles[id]
			if err := addFile(p, id, a.Version, filepath.Join(env.xmlDir, a.File)); err != nil {
				return err
			}
		}
		for _, name := range compact {
			err := repack(p, filepath.Join(env.dir, name), func(id string, v int) bool {
				a, ok := next.Articles[id]
				return ok && a.Shard == name && a.Version == v
			})
			if err != nil {
				return err
			}
		}
		return p.closeShard()
	}()
	if err != nil {
		p.abort()
		return err
	}
	for id, shard := range p.placed {
		a := next.Articles[id]
		a.Shard, a.File = shard, ""
		next.Articles[id] = a
	}
	// Shards keep their member count (live or not) until compacted; a
	// shard no article points to any more is dropped.
	live = liveCounts(next.Articles)
	next.Shards = map[string]int{}
	for name, n := range prevShards {
		if live[name] > 0 {
			next.Shards[name] = n
		}
	}
	for name, n := range p.counts {
		next.Shards[name] = n
	}
	return nil
}

func liveCounts(arts map[string]article) map[string]int {
	live := map[string]int{}
	for _, a := range arts {
		live[a.Shard]++
	}
	return live
}

type packEnv struct {
	dir, xmlDir   string
	now           time.Time
	shardArticles int
	compress      bool
}

func addFile(p *packer, id string, version int, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return p.add(id, version, fi.Size(), f)
}

// liveFilter keeps, of the records read from this source's shards, only
// the version of each article the checkpoint names in the shard it names.
// Records of other files pass.
func liveFilter(dir string, arts map[string]article) func(string, *ingest.Document) bool {
	// The build may name the shards as given or made absolute.
	prefixes := []string{filepath.Clean(dir) + string(filepath.Separator)}
	if abs, err := filepath.Abs(dir); err == nil {
		prefixes = append(prefixes, abs+string(filepath.Separator))
	}
	return func(file string, d *ingest.Document) bool {
		origin := d.Origin
		if origin == "" {
			origin = file
		}
		shard, name, ok := strings.Cut(origin, "!")
		if !strings.HasPrefix(shard, prefixes[0]) && (len(prefixes) < 2 || !strings.HasPrefix(shard, prefixes[1])) {
			return true
		}
		if !ok {
			return false
		}
		id, v, ok := parseMember(name)
		if !ok {
			return false
		}
		a, ok := arts[id]
		return ok && a.Version == v && a.Shard == filepath.Base(shard)
	}
}

// pruneShards removes the shard files the state does not name (compacted,
// emptied, or left by a run that never committed).
func pruneShards(dir string, keep map[string]int) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if _, ok := keep[e.Name()]; !ok {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

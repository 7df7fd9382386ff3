package pmcoa

import (
	"archive/tar"
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest/internal/limit"
)

// The mirror packs the articles into tar shards (zstd-compressed unless
// params.shard_compression is "none") of at most shard_articles members
// and 64 MiB uncompressed, which the JATS package reader reads like any
// tar: a night adds one or more shards holding the articles it fetched,
// so millions of articles are thousands of files, and no shard is
// rewritten for a single change. The articles file (articles.go) names,
// for each PMCID, the version kept and the shard holding it; a shard
// member that is not that (removed, retracted, relicensed, superseded by
// a newer version) is dropped by the source's filter (live.go) before the
// build sees it, and leaves the disk when its shard is compacted: a shard
// with fewer than half of its members still live is rewritten into the
// night's new shards.

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
	// place, when set, is told the shard each article is written to.
	place  func(id string, version int, shard string) error
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
		compress: compress, counts: map[string]int{}}
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
	if p.place != nil {
		return p.place(id, version, p.cur.name)
	}
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

// stateRunBytes bounds a sorted run of the state's sorters (the change
// log, the shards placed, the members to compact, the live set): smaller
// than the inventory's, as two of them may fill at once.
const stateRunBytes = 16 << 20

type packEnv struct {
	dir, xmlDir   string
	work          string // for the sorted runs
	now           time.Time
	shardArticles int
	compress      bool
}

// packed is what the packing did.
type packed struct {
	// placed are the sorted runs of the articles written to the night's
	// shards, with their new shard; Placed counts them.
	placed []string
	Placed int
	// counts are the night's shards and their members.
	counts map[string]int
}

// pack writes the night's shards: the loose articles of set (fetched
// tonight, or kept one file each by a former mirror) from xmlDir in PMCID
// order, then the live members of the shards to compact, one shard at a
// time. Memory: the live count of each shard, and one shard's live set.
func pack(env packEnv, prevShards map[string]int, set articleSet) (packed, error) {
	live := map[string]int{}
	if err := set.each(func(e entry) error { live[e.shard]++; return nil }); err != nil {
		return packed{}, err
	}
	compact := map[string]bool{}
	for name, members := range prevShards {
		if l := live[name]; l > 0 && 2*l < members {
			compact[name] = true
		}
	}
	out := packed{}
	p := newPacker(env.dir, env.now, env.shardArticles, env.compress)
	placed, err := newRunSorter(filepath.Join(env.work, "placed"))
	if err != nil {
		return out, err
	}
	placed.limit = stateRunBytes
	p.place = func(id string, version int, shard string) error {
		out.Placed++
		return placed.add(id, entry{version: version, shard: shard}.rest())
	}
	err = func() error {
		var members *runSorter
		if len(compact) > 0 {
			if members, err = newRunSorter(filepath.Join(env.work, "compact")); err != nil {
				return err
			}
			members.limit = stateRunBytes
		}
		err := set.each(func(e entry) error {
			switch {
			case e.shard == "":
				return addFile(p, e.id, e.version, filepath.Join(env.xmlDir, member(e.id, e.version)))
			case compact[e.shard]:
				return members.add(e.shard, member(e.id, e.version))
			}
			return nil
		})
		if err != nil || members == nil {
			return err
		}
		if err := members.finish(); err != nil {
			return err
		}
		return eachShard(members.runs, func(shard string, want map[string]struct{}) error {
			return repack(p, filepath.Join(env.dir, shard), func(id string, v int) bool {
				_, ok := want[member(id, v)]
				return ok
			})
		})
	}()
	if err == nil {
		err = p.closeShard()
	}
	if err == nil {
		err = placed.finish()
	}
	if err != nil {
		p.abort()
		return out, fmt.Errorf("packing the mirror: %w", err)
	}
	out.placed, out.counts = placed.runs, p.counts
	return out, nil
}

// eachShard calls fn with each shard of the sorted runs of "shard	member"
// lines and its members, a shard at a time.
func eachShard(runs []string, fn func(shard string, members map[string]struct{}) error) error {
	cur := ""
	set := map[string]struct{}{}
	err := merged(runs, true, func(line []byte) error {
		shard, m := split(line)
		if string(shard) != cur {
			if cur != "" {
				if err := fn(cur, set); err != nil {
					return err
				}
			}
			cur, set = string(shard), map[string]struct{}{}
		}
		set[string(m)] = struct{}{}
		return nil
	})
	if err != nil || cur == "" {
		return err
	}
	return fn(cur, set)
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

package pmcoa

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/pipelines/run"
)

// benchArticles is the size of the mirror the build benchmark reads: what
// fits in about ten minutes for both builds on the shared 2-core machine
// (a million articles would take hours per build there).
const benchArticles = 10_000

// BenchmarkMirrorBuild builds a snapshot from a mirror of benchArticles
// articles kept two ways: one file per article (the former mirror) and
// the tar shards the adapter writes (5000 members or 64 MiB, zstd), read
// through the source's filter. The articles are copies of the real
// shared/fixtures/jats/pmc/PMC5828200.nxml given distinct PMCIDs, PMIDs
// and DOIs (and a comment of random bytes), generated before the timer in
// a temporary directory.
//
//	go test -run '^$' -bench MirrorBuild -benchtime 1x -timeout 30m ./ingest/remote/pmcoa
func BenchmarkMirrorBuild(b *testing.B) {
	dir := b.TempDir()
	src, err := os.ReadFile(filepath.Join(fixtures.Dir(b), "jats", "pmc", "PMC5828200.nxml"))
	if err != nil {
		b.Fatal(err)
	}
	xmlDir := filepath.Join(dir, "xml")
	if err := os.MkdirAll(xmlDir, 0o755); err != nil {
		b.Fatal(err)
	}
	changes, err := newRunSorter(filepath.Join(dir, "work", "changes"))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.NewChaCha8([32]byte{1})
	for i := range benchArticles {
		id := fmt.Sprintf("PMC%d", 20_000_000+i)
		x := bytes.ReplaceAll(src, []byte(">5828200<"), []byte(">"+id[3:]+"<"))
		x = bytes.ReplaceAll(x, []byte(">29535835<"), []byte(fmt.Sprintf(">%d<", 40_000_000+i)))
		x = bytes.ReplaceAll(x, []byte("10.18632/oncotarget.24369"), []byte(fmt.Sprintf("10.5555/bench.%d", i)))
		// Copies of one article would compress a hundredfold in a shard:
		// 8 KB of random hex in a comment keeps the ratio near a real one.
		noise := make([]byte, 4096)
		rng.Read(noise)
		x = bytes.Replace(x, []byte("</article>"), []byte("<!-- "+hex.EncodeToString(noise)+" -->\n</article>"), 1)
		name := id + ".1.xml"
		if err := os.WriteFile(filepath.Join(xmlDir, name), x, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := changes.add(id, entry{version: 1}.rest()); err != nil {
			b.Fatal(err)
		}
	}
	if err := changes.finish(); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	var next state
	filter, _, err := settle(settleEnv{packEnv: packEnv{dir: filepath.Join(dir, shardsDir), xmlDir: xmlDir, work: filepath.Join(dir, "work"),
		now: time.Now(), shardArticles: defaultShardArticles, compress: true}, stateDir: dir}, &state{}, &next, changes.runs)
	if err != nil {
		b.Fatal(err)
	}
	packed := time.Since(t0)
	var shards []run.Input
	for name := range next.Shards {
		shards = append(shards, run.Input{Path: filepath.Join(dir, shardsDir, name), Format: "jats-package", Source: "pmc-oa"})
	}
	files := []run.Input{{Path: xmlDir, Format: "jats", Source: "pmc-oa"}}
	for b.Loop() {
		perFile := build(b, filepath.Join(dir, "data-files"), files, nil)
		sharded := build(b, filepath.Join(dir, "data-shards"), shards, filter.keep)
		if perFile.docs != benchArticles || sharded.docs != benchArticles {
			b.Fatalf("documents: %d from files, %d from shards, want %d", perFile.docs, sharded.docs, benchArticles)
		}
		b.ReportMetric(perFile.wall.Seconds(), "files-build-s")
		b.ReportMetric(sharded.wall.Seconds(), "shards-build-s")
		b.Logf("%d articles; one file each: %d files listed, build %s; shards: %d files listed (packed in %s), build %s",
			benchArticles, perFile.files, perFile.wall.Round(time.Millisecond), sharded.files, packed.Round(time.Millisecond), sharded.wall.Round(time.Millisecond))
	}
}

type buildResult struct {
	files int
	docs  int64
	wall  time.Duration
}

func build(b *testing.B, data string, inputs []run.Input, filter func(string, *ingest.Document) bool) buildResult {
	b.Helper()
	os.RemoveAll(data)
	runtime.GC()
	readers := detect.Default()
	if filter != nil {
		readers = filtered(readers, filter)
	}
	start := time.Now()
	sum, err := run.Run(context.Background(), run.Config{DataDir: data, Inputs: inputs, Fresh: true, Workers: 2, Readers: readers, Now: time.Now()})
	if err != nil {
		b.Fatal(err)
	}
	return buildResult{files: sum.Files, docs: sum.Accepted, wall: time.Since(start)}
}

// filtered applies the source's filter as the nightly run does.
func filtered(rs detect.Readers, filter func(string, *ingest.Document) bool) detect.Readers {
	out := detect.Readers{}
	for f, read := range rs {
		out[f] = func(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
			return read(ctx, r, origin, filterSink{sink, origin, filter})
		}
	}
	return out
}

type filterSink struct {
	ingest.Sink
	origin string
	keep   func(string, *ingest.Document) bool
}

func (s filterSink) Document(d *ingest.Document) error {
	if !s.keep(s.origin, d) {
		return nil
	}
	return s.Sink.Document(d)
}

// readArticles is the size of the mirror BenchmarkMirrorRead reads.
const readArticles = 1_000_000

// BenchmarkMirrorRead reads a mirror of readArticles small generated
// articles (1.6 KB of JATS each: identifiers, title, abstract, licence,
// a short body) through the JATS reader, kept two ways: one file per
// article in one directory (the former mirror) and the tar shards the
// adapter writes (zstd, 5000 members each) read through the source's
// filter. Timed for each: listing the mirror's files and reading every
// article into a sink that counts the documents, with 2 workers as the
// build; no index is built (a full build of a million articles takes
// hours on the shared 2-core machine). The articles and the shards are
// generated before the timer, so both are read from the page cache.
//
//	go test -run '^$' -bench 'MirrorRead$' -benchtime 1x -timeout 90m ./ingest/remote/pmcoa
func BenchmarkMirrorRead(b *testing.B) {
	dir := b.TempDir()
	xmlDir := filepath.Join(dir, "xml")
	if err := os.MkdirAll(xmlDir, 0o755); err != nil {
		b.Fatal(err)
	}
	changes, err := newRunSorter(filepath.Join(dir, "work", "changes"))
	if err != nil {
		b.Fatal(err)
	}
	body := strings.Repeat("<p>The generated body of a small article, repeated to make its size.</p>\n", 12)
	for i := range readArticles {
		id := fmt.Sprintf("PMC%d", 20_000_000+i)
		x := fmt.Sprintf(`<article article-type="research-article"><front><article-meta>`+
			`<article-id pub-id-type="pmc">%s</article-id><article-id pub-id-type="pmid">%d</article-id>`+
			`<article-id pub-id-type="doi">10.5555/read.%d</article-id>`+
			`<title-group><article-title>Generated article %d</article-title></title-group>`+
			`<permissions><license license-type="open-access" xlink:href="https://creativecommons.org/licenses/by/4.0/" xmlns:xlink="http://www.w3.org/1999/xlink"><license-p>CC BY 4.0</license-p></license></permissions>`+
			`<abstract><p>An abstract of article %d.</p></abstract></article-meta></front><body>%s</body></article>`+"\n",
			id[3:], 40_000_000+i, i, i, i, body)
		if err := os.WriteFile(filepath.Join(xmlDir, id+".1.xml"), []byte(x), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := changes.add(id, entry{version: 1}.rest()); err != nil {
			b.Fatal(err)
		}
	}
	if err := changes.finish(); err != nil {
		b.Fatal(err)
	}
	t0 := time.Now()
	var next state
	filter, _, err := settle(settleEnv{packEnv: packEnv{dir: filepath.Join(dir, shardsDir), xmlDir: xmlDir, work: filepath.Join(dir, "work"),
		now: time.Now(), shardArticles: defaultShardArticles, compress: true}, stateDir: dir}, &state{}, &next, changes.runs)
	if err != nil {
		b.Fatal(err)
	}
	packed := time.Since(t0)
	for b.Loop() {
		perFile := readMirror(b, xmlDir, detect.Default())
		sharded := readMirror(b, filepath.Join(dir, shardsDir), filtered(detect.Default(), filter.keep))
		if perFile.docs != readArticles || sharded.docs != readArticles {
			b.Fatalf("documents: %d from files, %d from shards, want %d", perFile.docs, sharded.docs, readArticles)
		}
		b.ReportMetric(perFile.wall.Seconds(), "files-read-s")
		b.ReportMetric(sharded.wall.Seconds(), "shards-read-s")
		b.Logf("%d articles; one file each: %d files listed (%s to list), read in %s; shards: %d files listed (%s to list; packed in %s), read in %s",
			readArticles, perFile.files, perFile.list.Round(time.Millisecond), perFile.wall.Round(time.Millisecond),
			sharded.files, sharded.list.Round(time.Millisecond), packed.Round(time.Millisecond), sharded.wall.Round(time.Millisecond))
	}
}

type readResult struct {
	files      int
	docs       int64
	list, wall time.Duration
}

// readMirror lists dir and reads every file in it with readers, 2 at a
// time.
func readMirror(b *testing.B, dir string, readers detect.Readers) readResult {
	b.Helper()
	runtime.GC()
	start := time.Now()
	ents, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	list := time.Since(start)
	paths := make(chan string)
	var docs atomic.Int64
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sink := &countSink{n: &docs}
			for p := range paths {
				if err := readers.Read(context.Background(), p, sink); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for _, e := range ents {
		paths <- filepath.Join(dir, e.Name())
	}
	close(paths)
	wg.Wait()
	return readResult{files: len(ents), docs: docs.Load(), list: list, wall: time.Since(start)}
}

// countSink counts the documents read.
type countSink struct{ n *atomic.Int64 }

func (s *countSink) Document(*ingest.Document) error { s.n.Add(1); return nil }
func (s *countSink) Delete(ingest.Deletion) error    { return nil }
func (s *countSink) Problem(ingest.Problem)          {}

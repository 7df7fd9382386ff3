package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"path"
	"path/filepath"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// bundle is the open bundles/<slug>.jsonl.zst of one topic.
//
// A bundle is a sequence of independent zstd frames (one zstd stream to
// any decoder), cut after each line whose document id is a cut
// (bundleCut): where frames end depends only on the lines themselves, so
// a delta build rewrites only the frames whose lines changed and keeps
// the others, and its bundles are byte for byte a full build's
// (delta_bundles.go). Beside each bundle, bundles/<slug>.frames lists
// its frames (snapshot.BundleFrame).
type bundle struct {
	out    *hashFile
	frames []bundleFrame // Pack and Offset: in out
	size   int64         // bytes written to out
	chunk  []byte        // lines of the frame being filled
	lines  int64         // in chunk
	last   string        // id of chunk's last line
	docs   int64
}

// bundleAuthor and bundleLine are the JSON form of a bundle line: metadata
// and rights, no full text. Every key is always present.
type bundleAuthor struct {
	Name         string   `json:"name"`
	Given        string   `json:"given"`
	Family       string   `json:"family"`
	ORCID        string   `json:"orcid"`
	Affiliations []string `json:"affiliations"`
}

type bundleLine struct {
	ID               string         `json:"id"`
	Aliases          []string       `json:"aliases"`
	Title            string         `json:"title"`
	Authors          []bundleAuthor `json:"authors"`
	Venue            string         `json:"venue"`
	Year             int32          `json:"year"`
	Date             string         `json:"date"`
	DOI              string         `json:"doi"`
	Abstract         string         `json:"abstract"`
	Keywords         []string       `json:"keywords"`
	Topics           []string       `json:"topics"`
	License          string         `json:"license"`
	LicenseVersion   string         `json:"license_version"`
	LicenseURL       string         `json:"license_url"`
	LicenseName      string         `json:"license_name"`
	Attribution      string         `json:"attribution"`
	CopyrightNotice  string         `json:"copyright_notice"`
	ShareAlikeNotice string         `json:"share_alike_notice"`
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Bundle lines are compressed by a worker goroutine of their own, so that
// the builder's goroutine goes on with the next document meanwhile (zstd
// at the default level was a fifth of a corpus build's time). Lines are
// queued in document order and written in that order, so the bundles are
// the same as if written in the builder's goroutine. The worker is the
// only goroutine touching b.bundles until stopBundler returns.

// bundleJob is one encoded line and the topics whose bundles get it.
type bundleJob struct {
	line  []byte
	slugs []string
}

const bundleQueue = 256

func (b *Builder) startBundler() {
	b.bundler = newWorker(bundleQueue, func(job bundleJob) error {
		for _, slug := range job.slugs {
			if err := b.writeBundle(slug, job.line); err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *Builder) writeBundle(slug string, line []byte) error {
	bu, err := b.openBundle(slug)
	if err != nil {
		return err
	}
	return bu.add(line)
}

// stopBundler waits until every queued line is written and returns the
// worker's error.
func (b *Builder) stopBundler() error {
	if b.bundler == nil {
		return nil
	}
	return b.bundler.stop()
}

// bundle appends the document to the bundle of each of its topics. The line
// is encoded once and written to every bundle (by the bundler's goroutine).
func (b *Builder) bundle(row *documentRow) error {
	line := bundleLine{
		ID: row.ID, Aliases: nonNil(row.Aliases), Title: row.Title, Venue: row.Venue, Year: row.Year,
		Date: row.Date, DOI: row.DOI, Abstract: row.Abstract, Keywords: nonNil(row.Keywords),
		Topics: nonNil(row.Topics), License: row.License, LicenseVersion: row.LicenseVersion,
		LicenseURL: row.LicenseURL, LicenseName: row.LicenseName, Attribution: row.Attribution,
		CopyrightNotice: row.CopyrightNotice, ShareAlikeNotice: row.ShareAlikeNotice,
		Authors: make([]bundleAuthor, 0, len(row.Authors)),
	}
	for _, a := range row.Authors {
		line.Authors = append(line.Authors, bundleAuthor{Name: a.Name, Given: a.Given, Family: a.Family,
			ORCID: a.ORCID, Affiliations: nonNil(a.Affiliations)})
	}
	js, err := json.Marshal(&line)
	if err != nil {
		return fmt.Errorf("index: bundle line %s: %w", row.ID, err)
	}
	js = append(js, '\n')
	slugs := make([]string, 0, len(row.Topics))
	for i, slug := range row.Topics {
		if !slices.Contains(row.Topics[:i], slug) {
			slugs = append(slugs, slug)
		}
	}
	return b.bundler.send(bundleJob{line: js, slugs: slugs})
}

func bundleName(slug string) string {
	return path.Join(snapshot.BundlesDir, slug+snapshot.BundleExt)
}

func (b *Builder) openBundle(slug string) (*bundle, error) {
	if bu, ok := b.bundles[slug]; ok {
		return bu, nil
	}
	if !snapshot.ValidSlug(slug) {
		return nil, fmt.Errorf("%w: topic slug %q", ErrInvalidDocument, slug)
	}
	dir := b.dir
	if b.delta != nil {
		dir = b.work // scratch: the archive's bundles are written from them
	}
	bu, err := createBundle(dir, slug)
	if err != nil {
		return nil, err
	}
	b.bundles[slug] = bu
	return bu, nil
}

// writeTopic writes the topics.parquet row of slug, whose bundle is f
// (its rows are the documents): named from the taxonomy, or by its slug.
func (b *Builder) writeTopic(tt *table[topicRow], known map[string]Topic, slug string, f snapshot.File) error {
	t, ok := known[slug]
	if !ok {
		t = Topic{Slug: slug, Name: slug}
	}
	if f.Rows > 0 {
		b.counts.Topics++
	}
	row := topicRow{Slug: slug, Name: clean(t.Name), Parent: t.Parent, Documents: f.Rows,
		BundleBytes: f.Bytes, BundleSHA256: f.SHA256, BundlePath: f.Name}
	return tt.write(row, 128)
}

// createBundle creates the bundle file of a topic in the snapshot (or
// segment) directory dir.
func createBundle(dir, slug string) (*bundle, error) {
	out, err := createHashFile(dir, bundleName(slug))
	if err != nil {
		return nil, fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	return &bundle{out: out}, nil
}

// add appends a line (JSON and newline), cutting a frame after it when
// its id is a cut.
func (bu *bundle) add(line []byte) error {
	id, err := lineID(line)
	if err != nil {
		return err
	}
	bu.chunk = append(bu.chunk, line...)
	bu.lines++
	bu.last = id
	bu.docs++
	if isCut(id) {
		return bu.flush()
	}
	return nil
}

// flush writes the lines added since the last frame as one frame.
func (bu *bundle) flush() error {
	if bu.lines == 0 {
		return nil
	}
	frame := bundleEncoder.EncodeAll(bu.chunk, make([]byte, 0, len(bu.chunk)/3))
	return bu.frame(frame, bu.lines, bu.last)
}

// frame writes an encoded frame of lines lines ending with the line of id
// last.
func (bu *bundle) frame(frame []byte, lines int64, last string) error {
	if _, err := bu.out.Write(frame); err != nil {
		return fmt.Errorf("index: bundle %s: %w", bu.out.name, err)
	}
	bu.frames = append(bu.frames, bundleFrame{Last: last, Bytes: int64(len(frame)), Lines: lines, Pack: bu.out.name, Offset: bu.size})
	bu.size += int64(len(frame))
	bu.chunk, bu.lines = bu.chunk[:0], 0
	return nil
}

// bundleEncoder encodes every bundle frame: EncodeAll is safe for
// concurrent use and gives the same bytes for the same lines.
var bundleEncoder = mustEncoder(zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
	zstd.WithLowerEncoderMem(true))

func mustEncoder(opts ...zstd.EOption) *zstd.Encoder {
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		panic(err) // the options are constant
	}
	return e
}

// emptyFrame is the zstd frame of no bytes.
var emptyFrame = mustEncoder(zstd.WithZeroFrames(true)).EncodeAll(nil, nil)

// bundleCut makes a frame end after 1 line in bundleCut on average: about
// 10 KB of JSON. A delta build encodes again the frames holding a changed
// line, so smaller frames make its share of the bundles scale with the
// delta's; zstd compresses them less well (BENCHMARKS.md, "Incremental
// builds": of 4 000 generated documents' lines, 8 lines a frame take 16 %
// more bytes than 32, 4 lines 31 %, while a 1 % delta rewrites 12 % of the
// bytes at 8 lines, 38 % at 32).
const bundleCut = 8

// isCut reports whether a frame ends after the line of document id: its
// FNV-1a hash is bundleCut-1 modulo bundleCut. (Bundles were once cut
// where the hash was 0 modulo 32: those cuts are not cuts now, so a delta
// build tells such a bundle by its frames and writes it again whole,
// cutFrames.)
func isCut(id string) bool {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()%bundleCut == bundleCut-1
}

// cutFrames reports whether frames were cut by isCut: every frame but the
// last ends with a cut.
func cutFrames(frames []bundleFrame) bool {
	for i := 0; i+1 < len(frames); i++ {
		if !isCut(frames[i].Last) {
			return false
		}
	}
	return true
}

// lineID returns the document id a bundle line starts with (bundleLine's
// first field).
func lineID(line []byte) (string, error) {
	const head = `{"id":"`
	rest, ok := bytes.CutPrefix(line, []byte(head))
	end := bytes.IndexByte(rest, '"')
	if !ok || end < 0 {
		return "", fmt.Errorf("index: bundle line without an id")
	}
	return string(rest[:end]), nil
}

func (bu *bundle) close() (snapshot.File, snapshot.File, error) {
	if err := bu.flush(); err != nil {
		bu.out.abort()
		return snapshot.File{}, snapshot.File{}, err
	}
	if bu.docs == 0 {
		// One empty frame, so that every decoder reads an empty stream;
		// the frames list has no entry for it.
		if _, err := bu.out.Write(emptyFrame); err != nil {
			bu.out.abort()
			return snapshot.File{}, snapshot.File{}, err
		}
	}
	f, err := bu.out.close(bu.docs)
	if err != nil {
		return snapshot.File{}, snapshot.File{}, err
	}
	idx, err := writeFrames(bu.out.dir, f.Name, bu.frames)
	return f, idx, err
}

func (bu *bundle) abort() {
	bu.out.abort()
}

// writeTopics closes the bundles (opening empty ones for taxonomy topics
// without documents) and writes topics.parquet. A delta build's segment
// bundles are scratch files (delta_bundles.go): it writes the topics of
// the whole archive itself.
func (b *Builder) writeTopics() ([]snapshot.File, error) {
	if err := b.stopBundler(); err != nil {
		return nil, err
	}
	if b.delta != nil {
		for slug, bu := range b.bundles {
			if _, _, err := bu.close(); err != nil {
				return nil, err
			}
			b.delta.added[slug] = filepath.Join(b.work, filepath.FromSlash(bundleName(slug)))
			delete(b.bundles, slug)
		}
		return nil, nil
	}
	known := map[string]Topic{}
	for _, t := range b.cfg.Topics {
		known[t.Slug] = t
		if _, err := b.openBundle(t.Slug); err != nil {
			return nil, err
		}
	}
	tt, err := newTable[topicRow](b.dir, snapshot.Topics+".parquet", 0)
	if err != nil {
		return nil, err
	}
	var files []snapshot.File
	for _, slug := range slices.Sorted(maps.Keys(b.bundles)) {
		bu := b.bundles[slug]
		f, idx, err := bu.close()
		delete(b.bundles, slug)
		if err != nil {
			tt.abort()
			return nil, err
		}
		files = append(files, f, idx)
		if err := b.writeTopic(tt, known, slug, f); err != nil {
			tt.abort()
			return nil, err
		}
	}
	f, err := tt.close()
	if err != nil {
		return nil, err
	}
	return append(files, f), nil
}

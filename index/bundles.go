package index

import (
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"

	"github.com/openshelf/openshelf/index/bundle"
	"github.com/openshelf/openshelf/snapshot"
)

// bundleFile is the open bundles/<slug>.jsonl.zst of one topic (package
// bundle: a sequence of zstd frames cut where the lines say, with its
// frames list, so that a delta build rewrites only the frames whose
// lines changed, delta_bundles.go).
type bundleFile struct {
	out *hashFile
	w   *bundle.Writer
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
	return bu.w.Add(line)
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
	line := bundle.Line{
		ID: row.ID, Aliases: nonNil(row.Aliases), Title: row.Title, Venue: row.Venue, Year: row.Year,
		Date: row.Date, DOI: row.DOI, Abstract: row.Abstract, Keywords: nonNil(row.Keywords),
		Topics: nonNil(row.Topics), License: row.License, LicenseVersion: row.LicenseVersion,
		LicenseURL: row.LicenseURL, LicenseName: row.LicenseName, Attribution: row.Attribution,
		CopyrightNotice: row.CopyrightNotice, ShareAlikeNotice: row.ShareAlikeNotice,
		Authors: make([]bundle.Author, 0, len(row.Authors)),
	}
	for _, a := range row.Authors {
		line.Authors = append(line.Authors, bundle.Author{Name: a.Name, Given: a.Given, Family: a.Family,
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

func (b *Builder) openBundle(slug string) (*bundleFile, error) {
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
func createBundle(dir, slug string) (*bundleFile, error) {
	out, err := createHashFile(dir, bundle.Name(slug))
	if err != nil {
		return nil, fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	return &bundleFile{out: out, w: bundle.NewWriter(out, out.name)}, nil
}

// close completes the bundle file and writes its frames list.
func (bu *bundleFile) close() (snapshot.File, snapshot.File, error) {
	if err := bu.w.Close(); err != nil {
		bu.out.abort()
		return snapshot.File{}, snapshot.File{}, err
	}
	f, err := bu.out.close(bu.w.Docs())
	if err != nil {
		return snapshot.File{}, snapshot.File{}, err
	}
	idx, err := writeFrames(bu.out.dir, f.Name, bu.w.Frames())
	return f, idx, err
}

func (bu *bundleFile) abort() {
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
			b.delta.added[slug] = filepath.Join(b.work, filepath.FromSlash(bundle.Name(slug)))
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

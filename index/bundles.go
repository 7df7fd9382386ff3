package index

import (
	"encoding/json"
	"fmt"
	"path"
	"slices"

	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/snapshot"
)

// bundle is the open bundles/<slug>.jsonl.zst of one topic.
type bundle struct {
	out  *hashFile
	zw   *zstd.Encoder
	docs int64
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
	if _, err := bu.zw.Write(line); err != nil {
		return fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	bu.docs++
	return nil
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
	bu, err := createBundle(b.dir, slug)
	if err != nil {
		return nil, err
	}
	b.bundles[slug] = bu
	return bu, nil
}

// createBundle creates the bundle file of a topic in the snapshot (or
// segment) directory dir.
func createBundle(dir, slug string) (*bundle, error) {
	out, err := createHashFile(dir, bundleName(slug))
	if err != nil {
		return nil, fmt.Errorf("index: bundle %s: %w", slug, err)
	}
	// One encoder per topic stays open for the whole run: a small window
	// and a single goroutine keep tens of them cheap.
	zw, err := zstd.NewWriter(out, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1),
		zstd.WithWindowSize(1<<20), zstd.WithLowerEncoderMem(true))
	if err != nil {
		out.abort()
		return nil, err
	}
	return &bundle{out: out, zw: zw}, nil
}

func (bu *bundle) close() (snapshot.File, error) {
	if err := bu.zw.Close(); err != nil {
		bu.out.abort()
		return snapshot.File{}, fmt.Errorf("index: bundle %s: %w", bu.out.name, err)
	}
	return bu.out.close(bu.docs)
}

func (bu *bundle) abort() {
	bu.zw.Close()
	bu.out.abort()
}

// writeTopics closes the bundles (opening empty ones for taxonomy topics
// without documents) and writes topics.parquet.
func (b *Builder) writeTopics() ([]snapshot.File, error) {
	if err := b.stopBundler(); err != nil {
		return nil, err
	}
	known := map[string]Topic{}
	for _, t := range b.cfg.Topics {
		known[t.Slug] = t
		if _, err := b.openBundle(t.Slug); err != nil {
			return nil, err
		}
	}
	slugs := make([]string, 0, len(b.bundles))
	for slug := range b.bundles {
		slugs = append(slugs, slug)
	}
	slices.Sort(slugs)
	tt, err := newTable[topicRow](b.dir, snapshot.Topics+".parquet", 0)
	if err != nil {
		return nil, err
	}
	var files []snapshot.File
	for _, slug := range slugs {
		bu := b.bundles[slug]
		f, err := bu.close()
		delete(b.bundles, slug)
		if err != nil {
			tt.abort()
			return nil, err
		}
		files = append(files, f)
		t, ok := known[slug]
		if !ok {
			t = Topic{Slug: slug, Name: slug}
		}
		if bu.docs > 0 {
			b.counts.Topics++
			if b.delta != nil {
				b.delta.topics[slug] = true
			}
		}
		row := topicRow{Slug: slug, Name: clean(t.Name), Parent: t.Parent, Documents: bu.docs,
			BundleBytes: f.Bytes, BundleSHA256: f.SHA256, BundlePath: f.Name}
		if err := tt.write(row, 128); err != nil {
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

package bundle

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// Open opens the bundle of the topic slug in the snapshot s for reading:
// its file, or the concatenation of its frames. Every file is opened
// before it returns, so the bundle stays readable after the snapshot is
// pruned. The reader has a Stat method that reports its size.
func Open(s *snapshot.Snapshot, slug string) (io.ReadCloser, error) {
	p, err := s.BundlePath(slug)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return f, err
	}
	data, err := os.ReadFile(FramesPath(p))
	if err != nil {
		return nil, err
	}
	frames, err := ParseFrames(data, Name(slug))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", FramesPath(p), err)
	}
	r := &packed{name: slug + snapshot.BundleExt}
	open := map[string]*os.File{}
	var readers []io.Reader
	for _, run := range Runs(frames) {
		pf, ok := open[run.Pack]
		if !ok {
			if pf, err = os.Open(filepath.Join(s.Dir, filepath.FromSlash(run.Pack))); err != nil {
				r.Close()
				return nil, err
			}
			open[run.Pack] = pf
			r.files = append(r.files, pf)
		}
		readers = append(readers, io.NewSectionReader(pf, run.Offset, run.Bytes))
		r.size += run.Bytes
	}
	r.Reader = io.MultiReader(readers...)
	return r, nil
}

// packed reads a bundle from its frames.
type packed struct {
	io.Reader
	name  string
	size  int64
	files []*os.File
}

func (b *packed) Close() error {
	var err error
	for _, f := range b.files {
		err = errors.Join(err, f.Close())
	}
	return err
}

// Stat describes the bundle as a regular file of its size.
func (b *packed) Stat() (os.FileInfo, error) { return info{b}, nil }

type info struct{ b *packed }

func (i info) Name() string       { return i.b.name }
func (i info) Size() int64        { return i.b.size }
func (i info) Mode() fs.FileMode  { return 0o444 }
func (i info) ModTime() time.Time { return time.Time{} }
func (i info) IsDir() bool        { return false }
func (i info) Sys() any           { return nil }

package archive

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/snapshot"
)

// openCatalog maps the snapshot's catalog file (package index/catalog):
// entries and aliases are read in place, so the catalog costs the server
// the pages it touches, not a copy of every entry. A snapshot written
// before the file existed gets one converted from documents.parquet and
// aliases.parquet into a temporary file, removed once mapped.
func openCatalog(ctx context.Context, snap *snapshot.Snapshot) (*catalog.Reader, error) {
	cr, err := catalog.Open(filepath.Join(snap.Dir, filepath.FromSlash(catalog.File)))
	if !errors.Is(err, fs.ErrNotExist) {
		return cr, err
	}
	f, err := os.CreateTemp("", "openshelf-catalog-*")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	bw := bufio.NewWriterSize(f, 256<<10)
	w, err := catalog.NewWriter(bw, filepath.Dir(f.Name()))
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	if err := index.ConvertCatalog(ctx, snap, w); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	return catalog.Open(f.Name())
}

// entry decodes the listing entry of doc.
func (g *generation) entry(doc int32) (Entry, byte, error) {
	r, err := g.catalog.Record(doc)
	if err != nil {
		return Entry{}, 0, fmt.Errorf("%w: %w", errIndex, err)
	}
	return Entry{ID: r.ID, Title: r.Title, Authors: r.Authors, Year: int(r.Year), Venue: r.Venue, Topics: r.Topics,
		License: r.License, LicenseURL: r.LicenseURL, HasFulltext: r.Flags&catalog.FlagFulltext != 0,
		HasReferences: r.Flags&catalog.FlagReferences != 0}, r.Flags, nil
}

package index

import (
	"context"
	"fmt"

	"github.com/openshelf/openshelf/index/catalog"
	"github.com/openshelf/openshelf/snapshot"
)

// catalogTable writes catalog/catalog.bin (package index/catalog): the
// listing columns of every published document and every alias, which the
// read server maps instead of loading documents.parquet and
// aliases.parquet into memory.
type catalogTable struct {
	out  *hashFile
	w    *catalog.Writer
	docs int64
}

func newCatalogTable(dir, work string) (*catalogTable, error) {
	out, err := createHashFile(dir, catalog.File)
	if err != nil {
		return nil, fmt.Errorf("index: create %s: %w", catalog.File, err)
	}
	out.mapped()
	w, err := catalog.NewWriter(out, work)
	if err != nil {
		out.abort()
		return nil, fmt.Errorf("index: %s: %w", catalog.File, err)
	}
	return &catalogTable{out: out, w: w}, nil
}

// add writes the record of the document of row.
func (c *catalogTable) add(r *documentRow) error {
	rec := catalog.Record{ID: r.ID, Title: r.Title, Authors: make([]string, 0, len(r.Authors)), Year: r.Year,
		Venue: r.Venue, Topics: r.Topics, License: r.License, LicenseURL: r.LicenseURL}
	for _, a := range r.Authors {
		rec.Authors = append(rec.Authors, a.Name)
	}
	rec.Flags = catalogFlags(r.HasFulltext, r.HasReferences)
	c.docs++
	return c.w.Add(&rec)
}

func catalogFlags(fulltext, references bool) byte {
	var f byte
	if fulltext {
		f |= catalog.FlagFulltext
	}
	if references {
		f |= catalog.FlagReferences
	}
	return f
}

// alias writes the next alias row (in alias order).
func (c *catalogTable) alias(alias, id string) error { return c.w.AddAlias(alias, id) }

func (c *catalogTable) close() (snapshot.File, error) {
	if err := c.w.Close(); err != nil {
		c.out.abort()
		return snapshot.File{}, fmt.Errorf("index: %s: %w", catalog.File, err)
	}
	return c.out.close(c.docs)
}

func (c *catalogTable) abort() {
	c.w.Abort()
	c.out.abort()
}

// convertCatalog writes catalog/catalog.bin of the snapshot being built
// from the Parquet tables of snap (see ConvertCatalog).
func (b *Builder) convertCatalog(ctx context.Context, snap *snapshot.Snapshot) (snapshot.File, error) {
	c, err := newCatalogTable(b.dir, b.work)
	if err != nil {
		return snapshot.File{}, err
	}
	if err := ConvertCatalog(ctx, snap, c.w); err != nil {
		c.abort()
		return snapshot.File{}, err
	}
	c.docs = int64(c.w.Len())
	return c.close()
}

// catalogRow is the part of a documents.parquet row the catalog holds;
// parquet-go reads only these columns.
type catalogRow struct {
	ID      string `parquet:"id"`
	Title   string `parquet:"title"`
	Authors []struct {
		Name string `parquet:"name"`
	} `parquet:"authors,list"`
	Year          int32    `parquet:"year"`
	Venue         string   `parquet:"venue"`
	Topics        []string `parquet:"topics,list"`
	License       string   `parquet:"license"`
	LicenseURL    string   `parquet:"license_url"`
	HasFulltext   bool     `parquet:"has_fulltext"`
	HasReferences bool     `parquet:"has_references"`
}

// ConvertCatalog writes the catalog of a snapshot written before
// catalog/catalog.bin existed, from its documents and aliases tables,
// which the builder wrote in id and alias order. It streams both: memory
// stays small whatever the snapshot's size. The caller closes w.
func ConvertCatalog(ctx context.Context, snap *snapshot.Snapshot, w *catalog.Writer) error {
	err := snapshot.ReadParquet(snap.Path(snapshot.Documents), func(rows []catalogRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range rows {
			r := &rows[i]
			rec := catalog.Record{ID: r.ID, Title: r.Title, Year: r.Year, Venue: r.Venue, Topics: r.Topics,
				License: r.License, LicenseURL: r.LicenseURL, Flags: catalogFlags(r.HasFulltext, r.HasReferences)}
			for _, a := range r.Authors {
				rec.Authors = append(rec.Authors, a.Name)
			}
			if err := w.Add(&rec); err != nil {
				return fmt.Errorf("index: %s: %w", snapshot.Documents, err)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	last, started := "", false
	return snapshot.ReadParquet(snap.Path(snapshot.Aliases), func(rows []aliasRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, r := range rows {
			if started && r.Alias == last {
				continue // one document per alias: the first row wins, as in writeAliases
			}
			last, started = r.Alias, true
			if err := w.AddAlias(r.Alias, r.ID); err != nil {
				return fmt.Errorf("index: %s: %w", snapshot.Aliases, err)
			}
		}
		return nil
	})
}

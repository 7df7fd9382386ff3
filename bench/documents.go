package bench

import (
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// peerDoc is the part of a documents.parquet row the peers load.
type peerDoc struct {
	ID            string       `parquet:"id"`
	Title         string       `parquet:"title"`
	Authors       []peerAuthor `parquet:"authors,list"`
	Venue         string       `parquet:"venue"`
	Year          int32        `parquet:"year"`
	Abstract      string       `parquet:"abstract"`
	Keywords      []string     `parquet:"keywords,list"`
	Topics        []string     `parquet:"topics,list"`
	License       string       `parquet:"license"`
	LicenseURL    string       `parquet:"license_url"`
	HasFulltext   bool         `parquet:"has_fulltext"`
	HasReferences bool         `parquet:"has_references"`
}

type peerAuthor struct {
	Name string `parquet:"name"`
}

func (d *peerDoc) authorNames() []string {
	out := make([]string, len(d.Authors))
	for i, a := range d.Authors {
		out[i] = a.Name
	}
	return out
}

// docReader reads documents.parquet row by row, a batch at a time, so
// that memory stays bounded whatever the corpus size (DuckDB's
// database/sql driver materialises a whole result: over 10 GB for the
// documents of a 10M corpus).
type docReader struct {
	path string
	f    *os.File
	r    *parquet.GenericReader[peerDoc]
	buf  []peerDoc
	i, n int
	eof  bool
}

func openDocuments(path string) (dr *docReader, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		// parquet-go panics on some malformed files.
		if p := recover(); p != nil {
			f.Close()
			dr, err = nil, fmt.Errorf("bench: read %s: %v", path, p)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("bench: read %s: %w", path, err)
	}
	return &docReader{path: path, f: f, r: parquet.NewGenericReader[peerDoc](pf), buf: make([]peerDoc, 256)}, nil
}

// next returns the next row, valid until the following call, or nil at
// the end.
func (dr *docReader) next() (d *peerDoc, err error) {
	defer func() {
		if p := recover(); p != nil {
			d, err = nil, fmt.Errorf("bench: read %s: %v", dr.path, p)
		}
	}()
	for dr.i >= dr.n {
		if dr.eof {
			return nil, nil
		}
		n, err := dr.r.Read(dr.buf)
		dr.i, dr.n = 0, n
		if err == io.EOF {
			dr.eof = true
		} else if err != nil {
			return nil, fmt.Errorf("bench: read %s: %w", dr.path, err)
		}
	}
	dr.i++
	return &dr.buf[dr.i-1], nil
}

func (dr *docReader) close() {
	dr.r.Close()
	dr.f.Close()
}

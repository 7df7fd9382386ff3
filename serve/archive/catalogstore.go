package archive

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/openshelf/openshelf/snapshot"
)

// catalogStore holds every document's catalog entry (the columns of a
// listing) packed in one byte arena, in doc order (which is id order).
// Entries decode in well under a microsecond, so a page at any offset or a
// page of search hits costs no database round trip; packed, a million
// entries take about a third of the memory an in-memory DuckDB table did.
//
// Record layout, uvarint lengths and dictionary indexes: id, title,
// authors (count, then each name), year (varint), venue, topics (count,
// then each), license, license_url, flags (bit 0 full text, bit 1
// references). Venues, topics and licences repeat, so they are stored
// once in dict.
type catalogStore struct {
	recs arena
	pos  []uint64 // record of doc d at recs.at(pos[d])
	dict []string
}

// arena stores records in fixed-size chunks: a contiguous slice of
// hundreds of megabytes would be copied as it grows, doubling the
// server's peak memory while loading.
type arena struct{ chunks [][]byte }

const arenaChunk = 4 << 20

// add appends a record and returns its position.
func (a *arena) add(rec []byte) uint64 {
	n := len(a.chunks)
	if n == 0 || len(a.chunks[n-1])+len(rec) > cap(a.chunks[n-1]) {
		a.chunks = append(a.chunks, make([]byte, 0, max(arenaChunk, len(rec))))
		n++
	}
	c := a.chunks[n-1]
	pos := uint64(n-1)<<32 | uint64(len(c))
	a.chunks[n-1] = append(c, rec...)
	return pos
}

// at returns the bytes from a record's position to the end of its chunk.
func (a *arena) at(pos uint64) []byte { return a.chunks[pos>>32][uint32(pos):] }

// clip releases the unused tail of the last chunk.
func (a *arena) clip() {
	if n := len(a.chunks); n > 0 {
		a.chunks[n-1] = slices.Clip(a.chunks[n-1])
	}
}

const (
	flagFulltext   = 1 << 0
	flagReferences = 1 << 1
)

// catalogRow is the part of a documents.parquet row a listing needs;
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

// loadCatalog reads the listing columns of documents.parquet, in file
// order: documents are numbered in that order (doc 0..N-1). It reads the
// file with parquet-go rather than DuckDB: a DuckDB scan of the whole file
// left hundreds of megabytes in its allocator, and the server's peak
// memory is a target.
func loadCatalog(ctx context.Context, path string) (*catalogStore, error) {
	cs := &catalogStore{}
	dictIx := map[string]uint64{}
	word := func(s string) uint64 {
		i, ok := dictIx[s]
		if !ok {
			s = strings.Clone(s) // see readParquet
			i = uint64(len(cs.dict))
			dictIx[s] = i
			cs.dict = append(cs.dict, s)
		}
		return i
	}
	var prev []byte
	var b []byte
	err := snapshot.ReadParquet(path, func(rows []catalogRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i := range rows {
			r := &rows[i]
			if len(cs.pos) > 0 && r.ID <= string(prev) {
				// Ids look documents up by binary search.
				return fmt.Errorf("%w: documents not in id order at %q", errIndex, r.ID)
			}
			prev = append(prev[:0], r.ID...)
			b = appendString(b[:0], r.ID)
			b = appendString(b, r.Title)
			b = binary.AppendUvarint(b, uint64(len(r.Authors)))
			for _, a := range r.Authors {
				b = appendString(b, a.Name)
			}
			b = binary.AppendVarint(b, int64(r.Year))
			b = binary.AppendUvarint(b, word(r.Venue))
			b = binary.AppendUvarint(b, uint64(len(r.Topics)))
			for _, t := range r.Topics {
				b = binary.AppendUvarint(b, word(t))
			}
			b = binary.AppendUvarint(b, word(r.License))
			b = binary.AppendUvarint(b, word(r.LicenseURL))
			var flags byte
			if r.HasFulltext {
				flags |= flagFulltext
			}
			if r.HasReferences {
				flags |= flagReferences
			}
			b = append(b, flags)
			cs.pos = append(cs.pos, cs.recs.add(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cs.recs.clip()
	cs.pos = slices.Clip(cs.pos)
	return cs, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// len is the number of documents.
func (cs *catalogStore) len() int { return len(cs.pos) }

// reader decodes one record.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = true, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) bytes() []byte {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = true, nil
		return nil
	}
	s := r.b[:n]
	r.b = r.b[n:]
	return s
}

func (r *reader) string() string { return string(r.bytes()) }

func (cs *catalogStore) word(r *reader) string {
	i := r.uvarint()
	if i >= uint64(len(cs.dict)) {
		r.err = true
		return ""
	}
	return cs.dict[i]
}

func (cs *catalogStore) record(doc int32) *reader {
	return &reader{b: cs.recs.at(cs.pos[doc])}
}

// id returns the id of doc without decoding the rest.
func (cs *catalogStore) id(doc int32) []byte { return cs.record(doc).bytes() }

// entry decodes the entry of doc.
func (cs *catalogStore) entry(doc int32) (Entry, byte, error) {
	r := cs.record(doc)
	e := Entry{ID: r.string(), Title: r.string()}
	n := r.uvarint()
	e.Authors = make([]string, 0, min(n, 1024))
	for i := uint64(0); i < n && !r.err; i++ {
		e.Authors = append(e.Authors, r.string())
	}
	y := r.varint()
	if y < math.MinInt32 || y > math.MaxInt32 {
		r.err = true
	}
	e.Year = int(y)
	e.Venue = cs.word(r)
	n = r.uvarint()
	e.Topics = make([]string, 0, min(n, 64))
	for i := uint64(0); i < n && !r.err; i++ {
		e.Topics = append(e.Topics, cs.word(r))
	}
	e.License, e.LicenseURL = cs.word(r), cs.word(r)
	var flags byte
	if len(r.b) > 0 {
		flags = r.b[0]
	} else {
		r.err = true
	}
	if r.err {
		return Entry{}, 0, fmt.Errorf("%w: catalog record of doc %d", errIndex, doc)
	}
	e.HasFulltext, e.HasReferences = flags&flagFulltext != 0, flags&flagReferences != 0
	return e, flags, nil
}

// find returns the doc of a canonical id, or -1.
func (cs *catalogStore) find(id string) int32 {
	n := cs.len()
	i := sort.Search(n, func(i int) bool { return bytes.Compare(cs.id(int32(i)), []byte(id)) >= 0 })
	if i < n && string(cs.id(int32(i))) == id {
		return int32(i)
	}
	return -1
}

// after returns the first doc whose id sorts after id (len() if none).
func (cs *catalogStore) after(id string) int32 {
	return int32(sort.Search(cs.len(), func(i int) bool { return bytes.Compare(cs.id(int32(i)), []byte(id)) > 0 }))
}

// aliasStore maps every id and alias to its document. A canonical id is
// found in the catalog (self marks the documents whose id the aliases
// file maps to themselves, which is all of them), so only the other
// aliases are stored, sorted.
type aliasStore struct {
	recs arena
	pos  []uint64 // alias i (length-prefixed) at recs.at(pos[i])
	doc  []int32
	self bitset
	cs   *catalogStore
}

type aliasRow struct {
	Alias string `parquet:"alias"`
	ID    string `parquet:"id"`
}

// loadAliases reads aliases.parquet (alias, canonical id), which the
// index writes sorted by alias, and resolves the ids to docs.
func loadAliases(ctx context.Context, path string, cs *catalogStore) (*aliasStore, error) {
	as := &aliasStore{self: newBitset(cs.len()), cs: cs}
	var b []byte
	sorted, started := true, false
	var prev, lastID []byte
	lastDoc := int32(-1)
	err := snapshot.ReadParquet(path, func(rows []aliasRow) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, r := range rows {
			if started {
				switch {
				case r.Alias == string(prev):
					continue // one document per id: the first row wins
				case r.Alias < string(prev):
					sorted = false
				}
			}
			prev, started = append(prev[:0], r.Alias...), true
			d := lastDoc
			if r.ID != string(lastID) {
				d = cs.find(r.ID)
				lastID, lastDoc = append(lastID[:0], r.ID...), d
			}
			if d < 0 {
				continue // an alias of a document not in the catalog resolves to nothing
			}
			if r.Alias == r.ID {
				as.self.set(d)
				continue
			}
			b = appendString(b[:0], r.Alias)
			as.pos = append(as.pos, as.recs.add(b))
			as.doc = append(as.doc, d)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !sorted {
		as.sort()
	}
	as.recs.clip()
	as.pos, as.doc = slices.Clip(as.pos), slices.Clip(as.doc)
	return as, nil
}

func (as *aliasStore) alias(i int) []byte { return (&reader{b: as.recs.at(as.pos[i])}).bytes() }

// sort orders the aliases when the file was not sorted (it always is).
func (as *aliasStore) sort() {
	idx := make([]int, len(as.doc))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return bytes.Compare(as.alias(idx[a]), as.alias(idx[b])) < 0 })
	out := &aliasStore{self: as.self, cs: as.cs}
	var b []byte
	for _, i := range idx {
		a := as.alias(i)
		if n := len(out.doc); n > 0 && bytes.Equal(out.alias(n-1), a) {
			continue
		}
		b = appendString(b[:0], string(a))
		out.pos = append(out.pos, out.recs.add(b))
		out.doc = append(out.doc, as.doc[i])
	}
	out.recs.clip()
	*as = *out
}

// lookup returns the doc an id or alias names, or -1.
func (as *aliasStore) lookup(alias string) int32 {
	n := len(as.doc)
	i := sort.Search(n, func(i int) bool { return bytes.Compare(as.alias(i), []byte(alias)) >= 0 })
	if i < n && string(as.alias(i)) == alias {
		return as.doc[i]
	}
	if d := as.cs.find(alias); d >= 0 && as.self.has(d) {
		return d
	}
	return -1
}

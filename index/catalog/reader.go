package catalog

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"sort"

	"github.com/openshelf/openshelf/index/resident"
)

// ErrCorrupt reports a catalog file or record that does not decode.
var ErrCorrupt = errors.New("catalog: corrupt file")

// Reader reads a catalog file through a read-only mapping, whose resident
// pages package resident bounds. Safe for concurrent use; Close unmaps
// it, after which nothing may be read.
type Reader struct {
	mm         []byte
	res        *resident.Mapping // records the parts read
	n, na      int
	recOff     []byte // (n+1) offsets
	aliasOff   []byte // (na+1) offsets
	recOffAt   int    // recOff's offset in mm
	aliasOffAt int    // aliasOff's offset in mm
	dict       []string
}

// Open maps the catalog file at path.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	if st.Size() < footerSize || st.Size() > math.MaxInt {
		return nil, fmt.Errorf("%w: %s: %d bytes", ErrCorrupt, path, st.Size())
	}
	mm, err := resident.Map(f, int(st.Size()), false)
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	r := &Reader{mm: mm}
	r.res = resident.Track(&r.mm)
	if err := r.parse(); err != nil {
		r.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

// parse checks the footer and the sections' bounds and reads the
// dictionary.
func (r *Reader) parse() error {
	mm := r.mm
	foot := mm[len(mm)-footerSize:]
	if string(foot[:8]) != magic || string(foot[footerSize-8:]) != magic {
		return fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	var v [7]uint64
	for i := range v {
		v[i] = binary.LittleEndian.Uint64(foot[8+8*i:])
	}
	n, nd, na, recOff, dictAt, aliasAt, aliasOff := v[0], v[1], v[2], v[3], v[4], v[5], v[6]
	end := uint64(len(mm) - footerSize)
	if n >= math.MaxInt32 || na >= math.MaxInt32 || nd > end ||
		recOff%8 != 0 || aliasOff%8 != 0 || dictAt > aliasAt || aliasAt > recOff ||
		recOff+8*(n+1) > aliasOff || aliasOff+8*(na+1) != end {
		return fmt.Errorf("%w: sections out of the file", ErrCorrupt)
	}
	r.n, r.na = int(n), int(na)
	r.recOff, r.recOffAt = mm[recOff:recOff+8*(n+1)], int(recOff)
	r.aliasOff, r.aliasOffAt = mm[aliasOff:end], int(aliasOff)
	d := &decoder{b: mm[dictAt:aliasAt]}
	r.dict = make([]string, 0, min(nd, aliasAt-dictAt))
	for range nd {
		r.dict = append(r.dict, string(d.bytes()))
	}
	if d.err || len(d.b) != 0 {
		return fmt.Errorf("%w: dictionary", ErrCorrupt)
	}
	return nil
}

// Close unmaps the file.
func (r *Reader) Close() error { return resident.Unmap(&r.mm) }

// Len is the number of documents.
func (r *Reader) Len() int { return r.n }

// span returns bytes [off[i], off[i+1]) of the file, off being the
// table at offset at; nil if the offsets are out of order or out of the
// file. It records both parts as used (package resident).
func (r *Reader) span(off []byte, at, i int) []byte {
	a, b := binary.LittleEndian.Uint64(off[8*i:]), binary.LittleEndian.Uint64(off[8*i+8:])
	r.res.Touch(at+8*i, at+8*i+16)
	if a > b || b > uint64(len(r.mm)) {
		return nil
	}
	r.res.Touch(int(a), int(b))
	return r.mm[a:b]
}

// ID returns the id of doc without decoding the rest (nil if the record
// is damaged). doc must be in [0, Len()).
func (r *Reader) ID(doc int32) []byte {
	d := &decoder{b: r.span(r.recOff, r.recOffAt, int(doc))}
	return d.bytes()
}

// Record decodes the record of doc, which must be in [0, Len()).
func (r *Reader) Record(doc int32) (Record, error) {
	d := &decoder{b: r.span(r.recOff, r.recOffAt, int(doc))}
	rec := Record{ID: string(d.bytes()), Title: string(d.bytes())}
	n := d.uvarint()
	rec.Authors = make([]string, 0, min(n, 1024))
	for i := uint64(0); i < n && !d.err; i++ {
		rec.Authors = append(rec.Authors, string(d.bytes()))
	}
	y := d.varint()
	if y < math.MinInt32 || y > math.MaxInt32 {
		d.err = true
	}
	rec.Year = int32(y)
	rec.Venue = r.word(d)
	n = d.uvarint()
	rec.Topics = make([]string, 0, min(n, 64))
	for i := uint64(0); i < n && !d.err; i++ {
		rec.Topics = append(rec.Topics, r.word(d))
	}
	rec.License, rec.LicenseURL = r.word(d), r.word(d)
	if len(d.b) != 1 {
		d.err = true
	}
	if d.err {
		return Record{}, fmt.Errorf("%w: record of doc %d", ErrCorrupt, doc)
	}
	rec.Flags = d.b[0]
	return rec, nil
}

func (r *Reader) word(d *decoder) string {
	i := d.uvarint()
	if i >= uint64(len(r.dict)) {
		d.err = true
		return ""
	}
	return r.dict[i]
}

// Find returns the doc of a canonical id, or -1.
func (r *Reader) Find(id string) int32 {
	i := sort.Search(r.n, func(i int) bool { return bytes.Compare(r.ID(int32(i)), []byte(id)) >= 0 })
	if i < r.n && string(r.ID(int32(i))) == id {
		return int32(i)
	}
	return -1
}

// After returns the first doc whose id sorts after id (Len() if none).
func (r *Reader) After(id string) int32 {
	return int32(sort.Search(r.n, func(i int) bool { return bytes.Compare(r.ID(int32(i)), []byte(id)) > 0 }))
}

// alias returns alias i and its canonical id.
func (r *Reader) alias(i int) (alias, id []byte) {
	d := &decoder{b: r.span(r.aliasOff, r.aliasOffAt, i)}
	return d.bytes(), d.bytes()
}

// Lookup returns the doc an id or alias names, or -1. Aliases come
// first: when a document's alias is another document's id, the index
// builder gave the name to one of them (aliases.parquet says which), and
// only when the winner is the id itself is the name missing from the
// aliases.
func (r *Reader) Lookup(name string) int32 {
	if id, ok := r.aliasOf(name); ok {
		return r.Find(id)
	}
	return r.Find(name)
}

// aliasOf returns the canonical id the aliases give name, if any.
func (r *Reader) aliasOf(name string) (string, bool) {
	i := sort.Search(r.na, func(i int) bool {
		a, _ := r.alias(i)
		return bytes.Compare(a, []byte(name)) >= 0
	})
	if i < r.na {
		if a, id := r.alias(i); string(a) == name {
			return string(id), true
		}
	}
	return "", false
}

// decoder reads the fields of one record; a short or damaged record sets
// err and yields zero values from then on.
type decoder struct {
	b   []byte
	err bool
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = true, nil
		return nil
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

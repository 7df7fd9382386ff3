package knowledge

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parquet-go/parquet-go"

	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// errNoTable means the served snapshot has no specs table (it was built
// before the table existed).
var errNoTable = errors.New("knowledge: the snapshot has no specs table")

// table is the specs table of one snapshot, held in memory in a compact
// form: fixed-size entries for filtering, the rest of each row encoded in
// an arena and decoded only for the rows returned.
type table struct {
	snapID  string
	entries []entry
	arena   []byte
	docs    []docInfo
	byDoc   map[string]int32 // document id → index in docs
	// quantities and families are the interned names; byQuantity lists a
	// quantity's entries sorted by SIMin.
	quantities []string
	qunit      []string // the SI unit of each quantity's statements
	qid        map[string]uint16
	families   []string
	fid        map[string]uint16
	byQuantity [][]qentry
}

// qentry is an entry in its quantity's list, sorted by siMin: the fields
// a filter reads, copied so that a scan reads memory in order.
type qentry struct {
	siMin, siMax float64
	i, doc       int32
	family       uint16
}

type entry struct {
	siMin, siMax float64
	rec          uint32 // offset of the row's record in the arena
	doc          int32
	quantity     uint16
	family       uint16
}

// docInfo is what a statement repeats from its document.
type docInfo struct {
	id, title, license, licenseURL, attribution string
	year                                        int32
	first, n                                    int32 // its entries, contiguous
}

// loadTable reads the specs table of DATA/current, reporting to p (nil:
// no reports): specs.parquet, or each segment's of a segmented snapshot
// (segments.go).
func loadTable(ctx context.Context, dataDir string, p *progress) (*table, error) {
	snap, err := snapshot.Open(dataDir)
	if err != nil {
		return nil, err
	}
	if snap.Segmented() {
		return loadSegmented(ctx, snap, p)
	}
	return loadTableFile(ctx, snap.ID, filepath.Join(snap.Dir, specs.TableFile), p)
}

// loadTableFile reads a specs table file.
func loadTableFile(ctx context.Context, snapID, path string, p *progress) (*table, error) {
	t := newTable(snapID)
	if err := readRows(ctx, path, p, t.add); err != nil {
		if errors.Is(err, errNoTable) {
			return t, err
		}
		return nil, err
	}
	t.finish()
	return t, nil
}

// readRows calls fn with each row of a specs table file, valid during the
// call only. A damaged file is an error, never a crash: parquet-go panics
// on some malformed input, and the load runs in the background of a
// serving process.
func readRows(ctx context.Context, path string, p *progress, fn func(*specs.Row) error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("knowledge: read %s: %v", path, r)
		}
	}()
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return errNoTable
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[specs.Row](f)
	defer r.Close()
	if p != nil {
		p.total.Add(r.NumRows())
	}
	buf := make([]specs.Row, 1024)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.Read(buf)
		for i := range buf[:n] {
			if ferr := fn(&buf[i]); ferr != nil {
				return ferr
			}
		}
		if p != nil {
			p.rows.Add(int64(n))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("knowledge: read %s: %w", path, err)
		}
	}
}

func newTable(snapID string) *table {
	return &table{snapID: snapID, byDoc: map[string]int32{}, qid: map[string]uint16{}, fid: map[string]uint16{"": 0},
		families: []string{""}}
}

// add appends a row; rows of one document must be contiguous (the table
// is written in document order).
func (t *table) add(r *specs.Row) error {
	d, ok := t.byDoc[r.ID]
	if !ok {
		d = int32(len(t.docs))
		t.byDoc[r.ID] = d
		t.docs = append(t.docs, docInfo{id: r.ID, title: r.Title, license: r.License, licenseURL: r.LicenseURL,
			attribution: r.Attribution, year: r.Year, first: int32(len(t.entries))})
	}
	t.docs[d].n++
	if len(t.arena) > math.MaxUint32-1<<20 {
		return errors.New("knowledge: specs table larger than 4 GB")
	}
	e := entry{siMin: r.SIMin, siMax: r.SIMax, rec: uint32(len(t.arena)), doc: d,
		quantity: intern(r.Quantity, &t.quantities, t.qid), family: intern(r.Family, &t.families, t.fid)}
	if int(e.quantity) == len(t.qunit) {
		t.qunit = append(t.qunit, r.SIUnit)
	} else if t.qunit[e.quantity] != r.SIUnit {
		// A quantity has one dimension; extraction guarantees it.
		return fmt.Errorf("knowledge: quantity %s in both %s and %s", r.Quantity, t.qunit[e.quantity], r.SIUnit)
	}
	t.arena = encodeRow(t.arena, r)
	t.entries = append(t.entries, e)
	return nil
}

func intern(s string, names *[]string, ids map[string]uint16) uint16 {
	if id, ok := ids[s]; ok {
		return id
	}
	id := uint16(len(*names))
	*names = append(*names, s)
	ids[s] = id
	return id
}

func (t *table) finish() {
	t.byQuantity = make([][]qentry, len(t.quantities))
	for i, e := range t.entries {
		t.byQuantity[e.quantity] = append(t.byQuantity[e.quantity],
			qentry{siMin: e.siMin, siMax: e.siMax, i: int32(i), doc: e.doc, family: e.family})
	}
	for q, ix := range t.byQuantity {
		slices.SortFunc(ix, func(a, b qentry) int {
			if c := cmpFloat(a.siMin, b.siMin); c != 0 {
				return c
			}
			return int(a.i - b.i)
		})
		t.byQuantity[q] = slices.Clip(ix)
	}
	t.arena = slices.Clip(t.arena)
	t.entries = slices.Clip(t.entries)
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// The arena record of a row: flags, then floats and strings the entry
// does not hold.
const (
	hasValue = 1 << iota
)

func encodeRow(b []byte, r *specs.Row) []byte {
	flags := byte(0)
	if r.Value != nil {
		flags |= hasValue
	}
	b = append(b, flags)
	for _, f := range []float64{r.Min, r.Max, r.Uncertainty, r.SIUncertainty} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	for _, s := range []string{r.Unit, r.SIUnit, r.Subject, r.FamilyKind, r.Text, r.Where, r.Source, r.Table, r.RowLabel, r.Column} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// statement decodes entry i.
func (t *table) statement(i int32) specs.Statement {
	e := &t.entries[i]
	b := t.arena[e.rec:]
	flags := b[0]
	b = b[1:]
	var fl [4]float64
	for k := range fl {
		fl[k] = math.Float64frombits(binary.LittleEndian.Uint64(b))
		b = b[8:]
	}
	var ss [10]string
	for k := range ss {
		n, w := binary.Uvarint(b)
		ss[k] = string(b[w : w+int(n)])
		b = b[w+int(n):]
	}
	s := specs.Statement{Quantity: t.quantities[e.quantity], Min: fl[0], Max: fl[1], Uncertainty: fl[2],
		Unit: ss[0], SIUnit: ss[1], SIMin: e.siMin, SIMax: e.siMax, SIUncertainty: fl[3], Subject: ss[2],
		Family: t.families[e.family], FamilyKind: ss[3], Text: ss[4], Where: ss[5], Source: ss[6], Table: ss[7],
		Row: ss[8], Column: ss[9]}
	if s.Source == "" {
		s.Source = specs.SourceText // a snapshot written before tables were a source
	}
	if flags&hasValue != 0 {
		v, sv := fl[0], e.siMin
		s.Value, s.SIValue = &v, &sv
	}
	return s
}

// filter is a specs query: constraints (all must hold), a family and
// words that must appear in the statement's sentence, subject or the
// document's title.
type filter struct {
	quantity    string // without constraints: only this quantity
	constraints []specs.Constraint
	family      string
	words       []string
	docs        map[int32]bool // only these documents, when set
}

// match returns the entries that pass f and the number that passed
// before limit cut the list (limit ≤ 0: all). With several constraints a
// document must satisfy each of them with some statement, and the
// statements returned are those matching any of them.
func (t *table) match(f *filter, limit int) ([]int32, int) {
	if len(f.constraints) <= 1 {
		return t.matchOne(f, f.constraints, limit)
	}
	var docs map[int32]bool
	for k := range f.constraints {
		g := *f
		g.docs = docs
		ix, _ := t.matchOne(&g, f.constraints[k:k+1], 0)
		next := map[int32]bool{}
		for _, i := range ix {
			next[t.entries[i].doc] = true
		}
		docs = next
	}
	var out []int32
	total := 0
	for k := range f.constraints {
		g := *f
		g.docs = docs
		ix, _ := t.matchOne(&g, f.constraints[k:k+1], 0)
		for _, i := range ix {
			total++
			if limit <= 0 || len(out) < limit {
				out = append(out, i)
			}
		}
	}
	return out, total
}

// matchOne scans the entries of the constraint's quantity (or f's), which
// are sorted by SIMin, stopping past the constraint's upper bound.
func (t *table) matchOne(f *filter, cs []specs.Constraint, limit int) ([]int32, int) {
	fam := -1
	if f.family != "" {
		fam = -2 // a family the table does not know matches nothing
		if id, ok := t.fid[f.family]; ok {
			fam = int(id)
		}
	}
	want := f.quantity
	var c *specs.Constraint
	if len(cs) > 0 {
		c = &cs[0]
		if c.Quantity != "" {
			want = c.Quantity
		}
	}
	var out []int32
	total := 0
	for q, name := range t.quantities {
		if !specs.QuantityMatches(want, name) || c != nil && c.SIUnit != t.qunit[q] {
			continue
		}
		for k := range t.byQuantity[q] {
			e := &t.byQuantity[q][k]
			i := e.i
			if c != nil && e.siMin > c.Hi {
				break
			}
			if fam == -2 || fam >= 0 && int(e.family) != fam {
				continue
			}
			if f.docs != nil && !f.docs[e.doc] {
				continue
			}
			if c != nil && !c.Overlaps(e.siMin, e.siMax) {
				continue
			}
			if len(f.words) > 0 && !t.hasWords(i, f.words) {
				continue
			}
			total++
			if limit <= 0 || len(out) < limit {
				out = append(out, i)
			}
		}
	}
	return out, total
}

// entryMatches checks a statement against a constraint without decoding
// it: quantity, SI unit and bounds are in the entry.
func (t *table) entryMatches(i int32, c *specs.Constraint) bool {
	e := &t.entries[i]
	return specs.QuantityMatches(c.Quantity, t.quantities[e.quantity]) && c.SIUnit == t.qunit[e.quantity] &&
		c.Overlaps(e.siMin, e.siMax)
}

// hasWords reports whether every word is in the statement's sentence or
// subject or its document's title; only this decodes the row.
func (t *table) hasWords(i int32, words []string) bool {
	s := t.statement(i)
	hay := strings.ToLower(s.Text + " " + s.Subject + " " + t.docs[t.entries[i].doc].title)
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// docStatements returns a document's statements matching any of the
// constraints (all of them when there are none), at most limit.
func (t *table) docStatements(doc int32, cs []specs.Constraint, limit int) []int32 {
	d := &t.docs[doc]
	var out []int32
	for i := d.first; i < d.first+d.n && len(out) < limit; i++ {
		ok := len(cs) == 0
		for k := range cs {
			ok = ok || t.entryMatches(i, &cs[k])
		}
		if ok {
			out = append(out, i)
		}
	}
	return out
}

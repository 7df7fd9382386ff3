package index

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

type citationRow struct {
	Cited  string `parquet:"cited_id,dict"`
	Citing string `parquet:"citing_id"`
}

// Postings records (external sort), one per (term, doc, field):
//
//	term 0x00 doc(4, big endian) field(1) positions (uvarint deltas)
//
// so that byte order is term, doc, field. Citation records (cites):
//
//	key 0x00 0x00 doc(4) id      an archive document has the id key
//	key 0x00 0x01 doc(4) id      the document doc cites key
//
// and resolved pairs (pairs): cited(4) citing(4) citedID 0x00 citingID.

// tokPos is a token and its position in a field.
type tokPos struct {
	tok string
	pos uint32
}

// indexText adds the postings of one field of one document: the tokens
// of every value, positions counting stop words (so that phrases with
// them match), with a gap of one position between values (a phrase does
// not run from one author or paragraph into the next). It returns the
// field's length for BM25F: its tokens, stop words excluded except in
// author names.
func (b *Builder) indexText(doc int32, field int, texts ...string) (int, error) {
	toks := b.tokBuf[:0]
	tp := b.tpBuf[:0]
	p := uint32(0)
	for _, t := range texts {
		start := len(toks)
		toks = tokenize.Append(toks, t)
		for _, tok := range toks[start:] {
			tp = append(tp, tokPos{tok, p})
			p++
		}
		p++
	}
	// n counts the tokens that are not stop words: here, token by token,
	// for a field with pairs (they join tp below); for the others (the
	// full text), group by group once postTokens has grouped them.
	pairs := !b.cfg.NoPhrasePairs && isearch.PairFields&(1<<field) != 0
	stops := field != isearch.FieldAuthor
	n := len(tp)
	if pairs && stops {
		n = 0
		for _, t := range tp {
			if !tokenize.IsStopWord(t.tok) {
				n++
			}
		}
	}
	if pairs {
		if b.sample != nil {
			b.sample.add(doc, field, tp) // pairsample.go: its pairs come later
		} else {
			tp = b.appendPairs(tp)
		}
	}
	b.tokBuf, b.tpBuf = toks, tp
	if err := b.postTokens(doc, field, tp); err != nil {
		return 0, err
	}
	if !pairs && stops {
		n = b.groups.nonStop()
	}
	return n, nil
}

// postTokens adds the postings records of one field of one document, its
// tokens in any order. The records go to an external sort, so their order
// here does not matter: only each token's positions must be together and
// in order.
func (b *Builder) postTokens(doc int32, field int, tp []tokPos) error {
	tp, ends := b.groups.group(tp)
	i := 0
	for _, j := range ends {
		if err := b.postRecord(tp[i].tok, doc, field, tp[i:j]); err != nil {
			return err
		}
		i = int(j)
	}
	return nil
}

// smallField is the number of tokens up to which tokGroups sorts them
// rather than hashing them.
const smallField = 32

// tokGroups groups the tokens of a field by token. A field's text has
// thousands of tokens and a few hundred distinct ones: sorting them all by
// string was a tenth of a build, and a hash of each token does the work.
type tokGroups struct {
	ids  tokTable // token -> its group (toktable.go)
	of   []int32  // the group of each token of the field
	ends []int32  // the end of each group in out
	out  []tokPos
	last []tokPos // the tokens of the last call, grouped
}

// nonStop returns how many tokens of the last call to group are not stop
// words, looking at each distinct token once.
func (g *tokGroups) nonStop() int {
	n, start := 0, int32(0)
	for _, end := range g.ends {
		if !tokenize.IsStopWord(g.last[start].tok) {
			n += int(end - start)
		}
		start = end
	}
	return n
}

// group returns tp's tokens with each token's together and in position
// order, and where each token's group ends. tp itself may be reordered.
func (g *tokGroups) group(tp []tokPos) ([]tokPos, []int32) {
	ends := g.ends[:0]
	if len(tp) <= smallField {
		slices.SortFunc(tp, func(x, y tokPos) int {
			if c := strings.Compare(x.tok, y.tok); c != 0 {
				return c
			}
			return int(x.pos) - int(y.pos)
		})
		for i := range tp {
			if i+1 == len(tp) || tp[i+1].tok != tp[i].tok {
				ends = append(ends, int32(i+1))
			}
		}
		g.ends, g.last = ends, tp
		return tp, ends
	}
	g.ids.reset()
	of := g.of[:0]
	for _, t := range tp {
		id := g.ids.id(t.tok, int32(len(ends)))
		if id == int32(len(ends)) {
			ends = append(ends, 0)
		}
		ends[id]++
		of = append(of, id)
	}
	// A counting sort: ends[id] becomes where the group starts, then,
	// as its tokens are placed in their order in tp, where it ends.
	start := int32(0)
	for id, n := range ends {
		ends[id], start = start, start+n
	}
	out := slices.Grow(g.out[:0], len(tp))[:len(tp)]
	for i, t := range tp {
		out[ends[of[i]]] = t
		ends[of[i]]++
	}
	start = 0
	for _, end := range ends {
		toks := out[start:end]
		if !slices.IsSortedFunc(toks, byPos) {
			slices.SortFunc(toks, byPos)
		}
		start = end
	}
	g.of, g.ends, g.out, g.last = of, ends, out, out
	return out, ends
}

func byPos(x, y tokPos) int { return int(x.pos) - int(y.pos) }

// appendPairs appends to tp, tokens in position order, the pair terms
// (search.PairTerm) of the adjacent tokens the index keeps pairs of
// (b.pairs) and the triple terms (search.TripleTerm) of the triples it
// records, at the first word's position: adjacent means consecutive
// positions, so neither spans the gap between values.
func (b *Builder) appendPairs(tp []tokPos) []tokPos {
	n := len(tp)
	indexed := false // the pair before: of tp[i-1] and tp[i]
	for i := 0; i+1 < n; i++ {
		x, y := tp[i], tp[i+1]
		before := indexed
		indexed = y.pos == x.pos+1 && b.pairs.Indexed(x.tok, y.tok)
		if !indexed {
			continue
		}
		tp = append(tp, tokPos{isearch.PairTerm(x.tok, y.tok), x.pos})
		if before && b.pairs.Triple(tp[i-1].tok, x.tok, y.tok) {
			w := tp[i-1]
			tp = append(tp, tokPos{isearch.TripleTerm(w.tok, x.tok, y.tok), w.pos})
		}
	}
	return tp
}

func (b *Builder) postRecord(term string, doc int32, field int, tp []tokPos) error {
	rec := append(b.recBuf[:0], term...)
	rec = append(rec, 0)
	rec = binary.BigEndian.AppendUint32(rec, uint32(doc))
	rec = append(rec, byte(field))
	prev := uint32(0)
	for _, t := range tp {
		rec = binary.AppendUvarint(rec, uint64(t.pos-prev))
		prev = t.pos
	}
	b.recBuf = rec
	return b.postings.add(rec)
}

// indexSearch adds a document to the search index: its postings, doc
// values and citation keys. sections are the full-text texts (section
// titles and paragraphs). It returns the fields' lengths (indexText).
func (b *Builder) indexSearch(doc int32, d *ingest.Document, row *documentRow, sections []string) (lens [isearch.NumFields]int, err error) {
	names := make([]string, 0, len(d.Authors))
	for _, a := range d.Authors {
		names = append(names, authorName(a))
	}
	for _, f := range []struct {
		field int
		texts []string
	}{
		{isearch.FieldTitle, []string{d.Title}}, {isearch.FieldAbstract, []string{d.Abstract}},
		{isearch.FieldAuthor, names}, {isearch.FieldKeyword, d.Keywords}, {isearch.FieldFulltext, sections},
	} {
		if lens[f.field], err = b.indexText(doc, f.field, f.texts...); err != nil {
			return lens, err
		}
	}
	if doi := ingest.NormaliseDOI(d.DOI); doi != "" && len(doi) <= isearch.MaxTermBytes && !strings.ContainsRune(doi, 0) {
		lens[isearch.FieldDOI] = 1
		if err := b.postRecord(doi, doc, isearch.FieldDOI, []tokPos{{doi, 0}}); err != nil {
			return lens, err
		}
	}
	if err := b.sidx.AddDoc(isearch.DocValues{Year: row.Year, License: row.License, Topics: row.Topics,
		Sources: isearch.SourceBits(d.Sources), Fulltext: row.HasFulltext, Len: lens}); err != nil {
		return lens, err
	}
	if s := b.sample; s != nil {
		if s.docs++; s.docs >= b.cfg.PairSample {
			if err := b.choosePairs(); err != nil {
				return lens, err
			}
		}
	}
	// Citation keys: the ids this document answers to, then the ids of
	// the works it cites.
	for _, id := range append([]string{d.ID}, row.Aliases...) {
		if err := b.citeRecord(id, 0, doc, d.ID); err != nil {
			return lens, err
		}
	}
	var keys []string
	for _, r := range d.References {
		if k := ingest.DOIID(r.DOI); k != "" {
			keys = append(keys, k)
		}
		if p := ingest.NormalisePMID(r.PMID); p != "" {
			keys = append(keys, "pmid-"+p)
		}
	}
	slices.Sort(keys)
	for _, k := range slices.Compact(keys) {
		if err := b.citeRecord(k, 1, doc, d.ID); err != nil {
			return lens, err
		}
	}
	return lens, nil
}

func (b *Builder) citeRecord(key string, kind byte, doc int32, id string) error {
	rec := append(b.recBuf[:0], key...)
	rec = append(rec, 0, kind)
	rec = binary.BigEndian.AppendUint32(rec, uint32(doc))
	rec = append(rec, id...)
	b.recBuf = rec
	return b.cites.add(rec)
}

// openSearchIndex creates the index writer and the citation sorters.
func (b *Builder) openSearchIndex() error {
	path := filepath.Join(b.dir, filepath.FromSlash(isearch.File))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("index: %w", err)
	}
	w, err := isearch.NewWriter(path, b.work)
	if err != nil {
		return err
	}
	if !b.cfg.NoPhrasePairs {
		b.sample = newPairSample() // pairsample.go
	}
	b.sidx = w
	b.cites = newSorter(b.work, b.cfg.SortMemory/4)
	return nil
}

// writeCitations writes citations.parquet and the index's cited-by lists.
func (b *Builder) writeCitations() (snapshot.File, error) {
	t, err := newTable[citationRow](b.dir, snapshot.Citations+".parquet", 1_000_000)
	if err != nil {
		return snapshot.File{}, err
	}
	keys, err := newCiteKeyWriter(b.dir)
	if err != nil {
		t.abort()
		return snapshot.File{}, err
	}
	err = b.resolveCitations(keys, func(cited, citing int32, citedID, citingID string) error {
		if err := b.sidx.AddCitation(cited, citing); err != nil {
			return err
		}
		return t.write(citationRow{Cited: citedID, Citing: citingID}, len(citedID)+len(citingID)+24)
	})
	if err != nil {
		t.abort()
		keys.abort()
		return snapshot.File{}, err
	}
	kf, err := keys.close()
	if err != nil {
		t.abort()
		return snapshot.File{}, err
	}
	b.extraFiles = append(b.extraFiles, kf)
	return t.close()
}

// resolveCitations resolves the references to archive documents: the
// cites records in key order put each key's owner before its citers. fn
// gets every (cited, citing) pair once, in that order. Every record also
// goes to keys (citekeys.go).
func (b *Builder) resolveCitations(keys *citeKeyWriter, fn func(cited, citing int32, citedID, citingID string) error) error {
	pairs := newSorter(b.work, b.cfg.SortMemory/4)
	defer pairs.cleanup()
	var key []byte
	owner, ownerID := int32(-1), ""
	err := b.cites.iterate(func(rec []byte) error {
		i := strings.IndexByte(string(rec), 0)
		if i < 0 || len(rec) < i+6 {
			return fmt.Errorf("index: malformed citation record")
		}
		if keys != nil {
			if err := keys.add(rec); err != nil {
				return err
			}
		}
		k, kind := rec[:i], rec[i+1]
		doc, id := int32(binary.BigEndian.Uint32(rec[i+2:])), rec[i+6:]
		if string(k) != string(key) {
			key, owner = append(key[:0], k...), -1
		}
		switch {
		case kind == 0 && owner < 0:
			owner, ownerID = doc, string(id)
		case kind == 1 && owner >= 0 && owner != doc:
			p := binary.BigEndian.AppendUint32(b.recBuf[:0], uint32(owner))
			p = binary.BigEndian.AppendUint32(p, uint32(doc))
			p = append(append(append(p, ownerID...), 0), id...)
			b.recBuf = p
			return pairs.add(p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var last []byte
	return pairs.iterate(func(rec []byte) error {
		if len(rec) < 8 || string(rec[:8]) == string(last) {
			return nil // one work cited by DOI and PMID: one pair
		}
		last = append(last[:0], rec[:8]...)
		cited, citing := int32(binary.BigEndian.Uint32(rec)), int32(binary.BigEndian.Uint32(rec[4:]))
		citedID, citingID, _ := strings.Cut(string(rec[8:]), "\x00")
		return fn(cited, citing, citedID, citingID)
	})
}

// oldField maps an index field to the field of search/postings.parquet
// (title 0, keywords 1, authors 2), or -1 for fields that table does not
// have.
func oldField(f int) int8 {
	switch f {
	case isearch.FieldTitle:
		return FieldTitle
	case isearch.FieldKeyword:
		return FieldKeywords
	case isearch.FieldAuthor:
		return FieldAuthors
	}
	return -1
}

// writePostings hands the sorted postings records to the index writer
// and, when then is set, to then as well (the analysts' search tables).
func (b *Builder) writePostings(ctx context.Context, then func(term []byte, doc int32, field int, pos []uint32) error) error {
	if b.sample != nil {
		if err := b.choosePairs(); err != nil {
			return err
		}
	}
	var n int64
	return b.postings.iterate(func(rec []byte) error {
		if n++; n%1_000_000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		t, doc, field, pos, err := parsePosting(rec, b.posBuf[:0])
		if err != nil {
			return err
		}
		b.posBuf = pos
		if err := b.sidx.AddPosting(t, doc, field, pos); err != nil {
			return err
		}
		if then == nil {
			return nil
		}
		return then(t, doc, field, pos)
	})
}

// parsePosting splits a postings record; the positions are appended to
// pos.
func parsePosting(rec []byte, pos []uint32) (term []byte, doc int32, field int, _ []uint32, err error) {
	i := bytes.IndexByte(rec, 0)
	if i <= 0 || len(rec) < i+6 {
		return nil, 0, 0, pos, fmt.Errorf("index: malformed postings record")
	}
	pos, err = decodePositions(pos, rec[i+6:])
	return rec[:i], int32(binary.BigEndian.Uint32(rec[i+1:])), int(rec[i+5]), pos, err
}

// decodePositions appends the positions of a postings record.
func decodePositions(dst []uint32, b []byte) ([]uint32, error) {
	x := uint32(0)
	for len(b) > 0 {
		if c := b[0]; c < 0x80 {
			// Most gaps take one byte: no call to Uvarint.
			x += uint32(c)
			dst = append(dst, x)
			b = b[1:]
			continue
		}
		d, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, fmt.Errorf("index: malformed postings record")
		}
		x += uint32(d)
		dst = append(dst, x)
		b = b[n:]
	}
	return dst, nil
}

// closeSearchIndex closes the index writer and describes its file.
func (b *Builder) closeSearchIndex() (snapshot.File, error) {
	size, err := b.sidx.Close()
	if err != nil {
		return snapshot.File{}, err
	}
	in, err := HashInput(filepath.Join(b.dir, filepath.FromSlash(isearch.File)), "")
	if err != nil {
		return snapshot.File{}, err
	}
	return snapshot.File{Name: isearch.File, Rows: b.ndocs, Bytes: size, SHA256: in.SHA256}, nil
}

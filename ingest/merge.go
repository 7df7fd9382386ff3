package ingest

// Merging records of the same work
//
// The same work reaches the archive from several sources (a PMC JATS file, its
// PubMed record, the OpenAlex work, the Crossref work) and in several
// versions (OpenAlex re-exports, PMC article versions, the previous
// snapshot). A Merger receives every record of a run through the Sink
// interface and, at the end, emits one Document per work in canonical id
// order.
//
// Design, for bounded memory on corpora of tens of millions of records:
//
//   - Spill file. Document appends each record to a temporary file in a
//     compact binary encoding of the Document (spillEncode: varint-prefixed
//     strings and lists, several times faster to decode than JSON, which was
//     half the merger's cost), uncompressed for the first 4 GiB (rawSpill),
//     as S2 (fast Snappy-like) blocks after them, and keeps only a 32-byte
//     descriptor in memory: file offset and size, source bitmask and rank,
//     Updated, flags and where its ids start.
//   - Ids as 16-byte keys. Every project id (pmc-, pmid-, oa-w, doi-) packs
//     exactly into 82 bits (kind + 20 hex digits, or up to 15 decimal
//     digits, one nibble each), ordered like the id strings. So the id table
//     is a flat slice of 16-byte entries (key, record, whether the id is one of
//     the record's own fields or only an alias) without any string or map
//     per id and without hash collisions. Deletions are a map from key to the
//     arrival position of the deletion.
//   - Union-find at the end. Finish sorts a permutation of the id entries by
//     key; records sharing any key are joined (union-find over record
//     indexes). Each group's canonical id is computed from the descriptors
//     alone (the record with the best precedence that has a pmc id, else a
//     DOI, else an OpenAlex id, else a PMID), the groups are sorted by it,
//     and the id table is freed.
//   - Emission. For each group in canonical order the records are read back
//     (ReadAt on the spill file), decoded and merged. Only one group's
//     records are in memory at a time.
//
// Memory is therefore about 100 bytes per record (descriptor 32, two or
// three ids at 16 bytes, union-find and ordering arrays), about 1 GB for
// ten million records, independent of the documents' size; everything else
// is on disk. The spill file is removed by Close.
//
// Merge rules (sources.md sections 1 and 7):
//
//   - Precedence between sources for metadata: JATS from PMC ("jats:pmc") >
//     other JATS ("jats:publisher") > Crossref > OpenAlex > PubMed > others.
//     A record's rank is the best rank among its Sources; between records of
//     equal rank the later arrival comes first. Every scalar field (title,
//     venue, year, ids...) and list (authors, keywords) is taken from the
//     first record in that order that has it.
//   - Abstract: the longest among the records of the best rank that have one.
//   - Sections, Tables and References: from the first record in precedence
//     order that has them, which puts JATS first.
//   - Subjects, Topics and Sources: union, in precedence order.
//   - Versions: a record is superseded, and ignored except for its ids, when
//     every source it came from is also covered by newer records of the
//     group. Newer means a later Updated when both records state one and
//     they differ (OpenAlex updated_date), else a later arrival. So the
//     newest OpenAlex version wins over older ones, and a document carried
//     over from the previous snapshot is replaced by fresh records of the
//     same sources but still contributes what no fresh record has.
//   - Licence: for a group of two or more records, or a document carried
//     over from the previous snapshot (licences can expire, rules improve),
//     the decision is made again with Decide over the evidence of every
//     record that is not superseded; when two records bring evidence from
//     the same licence.Source, only the newer record's is kept. A single
//     fresh record keeps the decision its reader made.
//   - Ids: the canonical id is computed from the merged fields (pmc, doi,
//     oa-w, pmid); Aliases is every id of every record of the group, old
//     versions included, minus the canonical one.
//   - Removal: a group is dropped when a live record is Retracted, or when a
//     Deletion names an id of one of its records and arrived after that
//     record (a record sent again after its deletion is not hit by it).
//     Deletions are not remembered across runs.
//
// Records without any usable id cannot be merged or published; they are
// emitted last, unchanged, with an empty ID so that the caller can list
// them as rejected.

import (
	"bufio"
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/openshelf/openshelf/licence"
)

// ErrMergerDone is returned when a Merger is used after Each or Close.
var ErrMergerDone = errors.New("ingest: merger already finished")

// MergeConfig configures a Merger.
type MergeConfig struct {
	// Dir holds the temporary spill file; os.TempDir() when empty.
	Dir string
	// Now is the time licence decisions are made for (embargoes).
	Now time.Time
	// Decide decides a licence from evidence; licence.Decide when nil.
	Decide func(ev []licence.Evidence, now time.Time) licence.Decision
	// Problem receives the problems reported to the Merger's Sink
	// interface; they are only counted when nil.
	Problem func(Problem)
	Logger  *slog.Logger
	// Records makes Each attach to every merged document the source
	// records it was merged from (Document.Records), so that a later build
	// can merge the work again without one of them (records.go).
	Records bool
}

// MergeStats counts what a Merger saw and did.
type MergeStats struct {
	Read       int64 // fresh records received by Document
	Carried    int64 // documents received by Carry
	Deletions  int64 // Delete calls
	Problems   int64 // Problem calls
	NoID       int64 // records without a usable id
	Merged     int64 // records folded into another record's document
	Superseded int64 // records replaced by a newer version (part of Merged)
	Deleted    int64 // documents removed by a deletion
	Retracted  int64 // documents removed because retracted
	Emitted    int64 // documents passed to Each's callback
}

// Merger merges records of the same work; see the comment at the top of
// merge.go for the design. It implements Sink. A Merger is not safe for
// concurrent use.
type Merger struct {
	cfg  MergeConfig
	log  *slog.Logger
	file *os.File
	w    *bufio.Writer
	off  int64
	// rawLimit: records that start past it are compressed (rawSpill;
	// tests lower it).
	rawLimit int64
	buf      []byte
	raw      []byte
	recs     []mrec
	ids      []idEntry
	deleted  map[idKey]uint32 // id -> number of records received before the deletion
	srcBit   map[string]uint32
	stats    MergeStats
	done     bool
}

// mrec describes one spilled record; its position in Merger.recs is its
// arrival order.
type mrec struct {
	off     int64
	size    uint32
	first   uint32 // index of its first entry in Merger.ids
	updated int64  // Unix seconds, 0 when unknown
	srcs    uint32 // bitmask of Sources
	nid     uint8
	rank    uint8
	flags   uint8
}

const (
	flagCarried uint8 = 1 << iota
	flagRetracted
	flagNoID
	flagHit        // named by a later deletion
	flagCompressed // spilled as an S2 block
	// flagSectionsUTF8 and flagReferencesUTF8 carry Document.SectionsUTF8
	// and ReferencesUTF8, which the spill codec leaves out (they are not
	// part of an encoded record).
	flagSectionsUTF8
	flagReferencesUTF8
)

// rawSpill is how many bytes of records the spill file holds
// uncompressed; records after them are S2 blocks. A spill is written once
// and read once, from the page cache as a rule, and S2 (2:1 on full texts)
// cost more CPU than the kernel's copies of the bytes it saves: most of a
// merger's CPU on a build of tens of thousands of articles. Past this, on
// the largest builds, the disk the spill takes counts more.
const rawSpill = 4 << 30

// spillBuffer is the size of the spill file's write buffer. Encoding the
// records straight into chunks of 256 KiB or 1 MiB, written as they
// filled, saved the buffer's copy but took 15 % and 5 % more CPU, in
// system time (`go test ./ingest -run '^$' -bench 'Merger$' -benchtime
// 100000x`, the process's CPU, four runs of each alternated).
const spillBuffer = 1 << 20

// idKey is a project id packed in 82 bits: hi holds the kind in bits 16-17
// and the top 16 payload bits, lo the rest. Comparing (hi, lo) orders keys
// like their id strings.
type idKey struct {
	hi uint32
	lo uint64
}

// idEntry is one id of one record. The own bit in hi marks an id taken from
// the record's own fields rather than from its Aliases.
type idEntry struct {
	lo  uint64
	hi  uint32
	rec uint32
}

const ownBit = 1 << 31

func (e idEntry) key() idKey  { return idKey{e.hi &^ ownBit, e.lo} }
func (e idEntry) own() bool   { return e.hi&ownBit != 0 }
func (e idEntry) kind() uint8 { return uint8(e.hi >> 16 & 3) }

func compareKeys(a, b idKey) int {
	if c := cmp.Compare(a.hi, b.hi); c != 0 {
		return c
	}
	return cmp.Compare(a.lo, b.lo)
}

// Id kinds, numbered in the string order of their prefixes.
const (
	kindDOI  = 0 // doi-
	kindOA   = 1 // oa-w
	kindPMC  = 2 // pmc-
	kindPMID = 3 // pmid-
)

var kindPrefix = [4]string{"doi-", "oa-w", "pmc-", "pmid-"}

// canonicalOrder is the preference of kinds for the canonical id.
var canonicalOrder = [4]uint8{kindPMC, kindDOI, kindOA, kindPMID}

// parseID packs a project id; ok is false for anything else.
func parseID(s string) (k idKey, ok bool) {
	for kind, p := range kindPrefix {
		if !strings.HasPrefix(s, p) {
			continue
		}
		rest := s[len(p):]
		if kind == kindDOI {
			if len(rest) != 20 {
				return k, false
			}
			hi, err1 := strconv.ParseUint(rest[:4], 16, 16)
			lo, err2 := strconv.ParseUint(rest[4:], 16, 64)
			if err1 != nil || err2 != nil || strings.ToLower(rest) != rest {
				return k, false
			}
			return idKey{uint32(kind)<<16 | uint32(hi), lo}, true
		}
		if len(rest) == 0 || len(rest) > 15 || (kind != kindOA && len(rest) > 12) {
			return k, false
		}
		var lo uint64
		for i := 0; i < len(rest); i++ {
			c := rest[i]
			if c < '0' || c > '9' {
				return k, false
			}
			// One nibble per digit, digit+1 so that the zero nibble pads:
			// "12" < "123" < "2" as strings and as numbers.
			lo |= uint64(c-'0'+1) << (60 - 4*uint(i))
		}
		return idKey{uint32(kind) << 16, lo}, true
	}
	return k, false
}

// String formats a key back to its project id.
func (k idKey) String() string {
	kind := k.hi >> 16 & 3
	if kind == kindDOI {
		return fmt.Sprintf("doi-%04x%016x", k.hi&0xffff, k.lo)
	}
	b := []byte(kindPrefix[kind])
	for i := 0; i < 15; i++ {
		n := k.lo >> (60 - 4*uint(i)) & 0xf
		if n == 0 {
			break
		}
		b = append(b, byte('0'+n-1))
	}
	return string(b)
}

// sourceRank orders sources for metadata precedence (lower is better).
func sourceRank(s string) uint8 {
	switch {
	case s == "jats:pmc":
		return 0
	case strings.HasPrefix(s, "jats"):
		return 1
	case s == "crossref":
		return 2
	case s == "openalex":
		return 3
	case s == "pubmed":
		return 4
	}
	return 5
}

// NewMerger creates a Merger with its spill file in cfg.Dir.
func NewMerger(cfg MergeConfig) (*Merger, error) {
	if cfg.Decide == nil {
		cfg.Decide = licence.Decide
	}
	if cfg.Now.IsZero() {
		cfg.Now = time.Now()
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	f, err := os.CreateTemp(cfg.Dir, "merge-*.spill")
	if err != nil {
		return nil, fmt.Errorf("ingest: merger spill file: %w", err)
	}
	return &Merger{
		cfg: cfg, log: log, file: f, w: bufio.NewWriterSize(f, spillBuffer),
		deleted: map[idKey]uint32{}, srcBit: map[string]uint32{}, rawLimit: rawSpill,
	}, nil
}

// Document adds a fresh record read from an input. The Merger copies what it
// needs; d may be reused after the call.
func (m *Merger) Document(d *Document) error {
	if err := m.add(d, 0); err != nil {
		return err
	}
	m.stats.Read++
	return nil
}

// Carry adds a document carried over from the previous snapshot. Fresh
// records of the same sources replace it; its licence is decided again.
func (m *Merger) Carry(d *Document) error {
	if err := m.add(d, flagCarried); err != nil {
		return err
	}
	m.stats.Carried++
	return nil
}

// Delete removes the document holding del.ID, if it was received before.
func (m *Merger) Delete(del Deletion) error {
	if m.done {
		return ErrMergerDone
	}
	m.stats.Deletions++
	k, ok := parseID(del.ID)
	if !ok {
		m.log.Warn("merge: deletion of an id that is not a project id", "id", del.ID, "origin", del.Origin)
		return nil
	}
	m.deleted[k] = uint32(len(m.recs))
	return nil
}

// Problem forwards p to MergeConfig.Problem.
func (m *Merger) Problem(p Problem) {
	m.stats.Problems++
	if m.cfg.Problem != nil {
		m.cfg.Problem(p)
	}
}

// Stats returns the counts so far; they are final after Each.
func (m *Merger) Stats() MergeStats { return m.stats }

func (m *Merger) add(in *Document, flags uint8) error {
	if m.done {
		return ErrMergerDone
	}
	if uint64(len(m.recs)) >= 1<<32-1 {
		return fmt.Errorf("ingest: merger holds too many records")
	}
	d := *in
	d.DOI = NormaliseDOI(d.DOI)
	d.PMID = NormalisePMID(d.PMID)
	d.PMCID = NormalisePMCID(d.PMCID)
	d.OpenAlex = NormaliseOpenAlex(d.OpenAlex)

	r := mrec{first: uint32(len(m.ids)), flags: flags, rank: 255}
	if d.Retracted {
		r.flags |= flagRetracted
	}
	if !d.Updated.IsZero() {
		r.updated = d.Updated.Unix()
	}
	srcs := d.Sources
	if len(srcs) == 0 {
		srcs = []string{""}
	}
	for _, s := range srcs {
		r.srcs |= m.bit(s)
		r.rank = min(r.rank, sourceRank(s))
	}
	rec := uint32(len(m.recs))
	n := 0
	addID := func(s string, own bool) {
		k, ok := parseID(s)
		if !ok {
			return
		}
		for _, e := range m.ids[r.first:] {
			if e.key() == k {
				return // own ids come first, so a repeat is never more own
			}
		}
		e := idEntry{lo: k.lo, hi: k.hi, rec: rec}
		if own {
			e.hi |= ownBit
		}
		m.ids = append(m.ids, e)
		n++
	}
	for _, id := range d.IDs() {
		addID(id, true)
	}
	addID(d.ID, false)
	for _, a := range d.Aliases {
		addID(a, false)
	}
	if n == 0 {
		r.flags |= flagNoID
		m.stats.NoID++
	}
	if n > 255 {
		// A record listing hundreds of aliases is corrupt; keep the first.
		m.ids = m.ids[:int(r.first)+255]
		n = 255
	}
	r.nid = uint8(n)

	if d.SectionsUTF8 {
		r.flags |= flagSectionsUTF8
	}
	if d.ReferencesUTF8 {
		r.flags |= flagReferencesUTF8
	}
	m.raw = spillEncode(m.raw[:0], &d)
	block := m.raw
	if m.off >= m.rawLimit {
		m.buf = s2.Encode(m.buf[:cap(m.buf)], m.raw)
		block = m.buf
		r.flags |= flagCompressed
	}
	if len(block) >= 1<<32-1 {
		return fmt.Errorf("ingest: merger: record %s too large", d.Origin)
	}
	if _, err := m.w.Write(block); err != nil {
		return fmt.Errorf("ingest: merger spill: %w", err)
	}
	r.off, r.size = m.off, uint32(len(block))
	m.off += int64(len(block))
	m.recs = append(m.recs, r)
	return nil
}

func (m *Merger) bit(source string) uint32 {
	if b, ok := m.srcBit[source]; ok {
		return b
	}
	// 31 distinct source names get a bit each; more share the last bit,
	// which can only make superseding more cautious (see superseded).
	b := uint32(1) << min(len(m.srcBit), 31)
	m.srcBit[source] = b
	return b
}

// group is a set of records, ready to be emitted in canonical order.
type group struct {
	key   idKey
	start uint32 // in Merger.order
	n     uint32
	noID  bool
}

// Each merges and calls fn with every resulting document, in increasing
// canonical id order, then with the records that have no id (ID ""). Each
// call gets a Document of its own. Each can be called once; the Merger
// accepts no records afterwards.
func (m *Merger) Each(ctx context.Context, fn func(*Document) error) error {
	if m.done {
		return ErrMergerDone
	}
	m.done = true
	if err := m.w.Flush(); err != nil {
		return fmt.Errorf("ingest: merger spill: %w", err)
	}
	order, groups := m.plan()
	var bufs spillBufs
	var docs []*Document
	var raws [][]byte
	for gi, g := range groups {
		if gi%256 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		members := order[g.start : g.start+g.n]
		docs, raws = docs[:0], raws[:0]
		for _, ri := range members {
			d, err := m.readRecord(&m.recs[ri], &bufs)
			if err != nil {
				return err
			}
			docs = append(docs, d)
			if m.cfg.Records {
				raw := slices.Clone(bufs.block)
				if m.recs[ri].flags&flagCompressed == 0 {
					raw = s2.Encode(nil, bufs.plain)
				}
				raws = append(raws, raw)
			}
		}
		out := docs[0]
		if g.noID {
			out.ID, out.Aliases = "", nil
		} else {
			var err error
			if out, err = m.merge(g.key.String(), members, docs); err != nil {
				return err
			}
			if m.cfg.Records {
				out.Records = m.records(members, docs, raws)
			}
		}
		m.stats.Emitted++
		if err := fn(out); err != nil {
			return err
		}
	}
	return nil
}

// spillBufs are the buffers readRecord reuses: the record as spilled,
// and in plain the record's encoding (block itself when not compressed).
type spillBufs struct{ block, buf, plain []byte }

// readRecord reads a spilled record back and decodes it.
func (m *Merger) readRecord(r *mrec, b *spillBufs) (*Document, error) {
	b.block = slices.Grow(b.block[:0], int(r.size))[:r.size]
	if _, err := m.file.ReadAt(b.block, r.off); err != nil {
		return nil, fmt.Errorf("ingest: merger spill read: %w", err)
	}
	b.plain = b.block
	if r.flags&flagCompressed != 0 {
		var err error
		if b.buf, err = s2.Decode(b.buf[:cap(b.buf)], b.block); err != nil {
			return nil, fmt.Errorf("ingest: merger spill decode: %w", err)
		}
		b.plain = b.buf
	}
	d, err := spillDecode(b.plain)
	if err != nil {
		return nil, fmt.Errorf("ingest: merger spill decode: %w", err)
	}
	d.SectionsUTF8 = r.flags&flagSectionsUTF8 != 0
	d.ReferencesUTF8 = r.flags&flagReferencesUTF8 != 0
	return d, nil
}

// Close removes the spill file.
func (m *Merger) Close() error {
	m.done = true
	err := m.file.Close()
	if rerr := os.Remove(m.file.Name()); err == nil && !errors.Is(rerr, os.ErrNotExist) {
		err = rerr
	}
	m.recs, m.ids, m.deleted = nil, nil, nil
	return err
}

// plan groups the records and orders the groups; it frees the id table.
// order lists record indexes group by group, each group in precedence order.
func (m *Merger) plan() (order []uint32, groups []group) {
	n := len(m.recs)
	parent := make([]uint32, n)
	for i := range parent {
		parent[i] = uint32(i)
	}
	find := func(x uint32) uint32 {
		root := x
		for parent[root] != root {
			root = parent[root]
		}
		for parent[x] != root {
			parent[x], x = root, parent[x]
		}
		return root
	}
	perm := make([]uint32, len(m.ids))
	for i := range perm {
		perm[i] = uint32(i)
	}
	slices.SortFunc(perm, func(a, b uint32) int { return compareKeys(m.ids[a].key(), m.ids[b].key()) })
	for i := 0; i < len(perm); {
		k := m.ids[perm[i]].key()
		j := i + 1
		for j < len(perm) && m.ids[perm[j]].key() == k {
			j++
		}
		first := m.ids[perm[i]].rec
		for _, p := range perm[i+1 : j] {
			if a, b := find(first), find(m.ids[p].rec); a != b {
				parent[max(a, b)] = min(a, b)
			}
		}
		if seq, ok := m.deleted[k]; ok {
			for _, p := range perm[i:j] {
				if rec := m.ids[p].rec; rec < seq {
					m.recs[rec].flags |= flagHit
				}
			}
		}
		i = j
	}
	perm = nil
	for i := range parent {
		find(uint32(i))
	}

	order = make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	// Group by root, then precedence: best rank first, later arrival first.
	slices.SortFunc(order, func(a, b uint32) int {
		if c := cmp.Compare(parent[a], parent[b]); c != 0 {
			return c
		}
		if c := cmp.Compare(m.recs[a].rank, m.recs[b].rank); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})

	var live []uint32
	var noID []group
	for i := 0; i < n; {
		j := i + 1
		for j < n && parent[order[j]] == parent[order[i]] {
			j++
		}
		members := order[i:j]
		g := group{start: uint32(i), n: uint32(j - i)}
		i = j
		if m.recs[members[0]].flags&flagNoID != 0 {
			g.noID = true
			noID = append(noID, g)
			continue
		}
		live = m.live(members, live[:0])
		hit, retracted := false, false
		for _, ri := range members {
			hit = hit || m.recs[ri].flags&flagHit != 0
		}
		for _, ri := range live {
			retracted = retracted || m.recs[ri].flags&flagRetracted != 0
		}
		switch {
		case hit:
			m.stats.Deleted++
			continue
		case retracted:
			m.stats.Retracted++
			continue
		}
		key, ok := m.canonical(live)
		if !ok {
			// Only superseded records carry ids; cannot happen since the
			// newest record of a group is always live, but stay safe.
			g.noID = true
			noID = append(noID, g)
			continue
		}
		m.stats.Merged += int64(len(members) - 1)
		m.stats.Superseded += int64(len(members) - len(live))
		g.key = key
		groups = append(groups, g)
	}
	m.ids = nil
	slices.SortFunc(groups, func(a, b group) int { return compareKeys(a.key, b.key) })
	return order, append(groups, noID...)
}

// live returns the members (in precedence order) that no newer records
// supersede.
func (m *Merger) live(members []uint32, dst []uint32) []uint32 {
	for _, a := range members {
		if !m.superseded(a, members) {
			dst = append(dst, a)
		}
	}
	return dst
}

// superseded reports whether every source of record a is covered by records
// of the group that are newer than a.
func (m *Merger) superseded(a uint32, members []uint32) bool {
	ra := &m.recs[a]
	var cover uint32
	for _, b := range members {
		if b != a && m.newer(b, a) {
			cover |= m.recs[b].srcs
		}
	}
	// The shared overflow bit (32 and more source names) never counts as
	// covering: two different unknown sources must not replace each other.
	return ra.srcs&^cover == 0 && ra.srcs&(1<<31) == 0
}

// newer reports whether record b is a newer version than record a.
func (m *Merger) newer(b, a uint32) bool {
	ua, ub := m.recs[a].updated, m.recs[b].updated
	if ua != 0 && ub != 0 && ua != ub {
		return ub > ua
	}
	return b > a
}

// canonical computes a group's canonical id from the live records' own ids,
// following the same precedence as merge.
func (m *Merger) canonical(live []uint32) (idKey, bool) {
	for _, kind := range canonicalOrder {
		for _, ri := range live {
			r := &m.recs[ri]
			for _, e := range m.ids[r.first : r.first+uint32(r.nid)] {
				if e.own() && e.kind() == kind {
					return e.key(), true
				}
			}
		}
	}
	// No record has an id field, only ids in ID or Aliases: the same
	// preference over those.
	for _, kind := range canonicalOrder {
		for _, ri := range live {
			r := &m.recs[ri]
			for _, e := range m.ids[r.first : r.first+uint32(r.nid)] {
				if e.kind() == kind {
					return e.key(), true
				}
			}
		}
	}
	return idKey{}, false
}

// merge builds the document of one group. members are record indexes in
// precedence order and docs their decoded records, in the same order.
func (m *Merger) merge(canon string, members []uint32, docs []*Document) (*Document, error) {
	var live []*Document
	var liveRec []uint32
	carried := false
	for i, ri := range members {
		carried = carried || m.recs[ri].flags&flagCarried != 0
		if !m.superseded(ri, members) {
			live = append(live, docs[i])
			liveRec = append(liveRec, ri)
		}
	}
	if len(live) == 0 {
		return nil, fmt.Errorf("ingest: merger: %s has no live record", canon)
	}
	out := &Document{}
	str := func(get func(*Document) string) string {
		for _, d := range live {
			if v := get(d); v != "" {
				return v
			}
		}
		return ""
	}
	out.DOI = str(func(d *Document) string { return d.DOI })
	out.PMID = str(func(d *Document) string { return d.PMID })
	out.PMCID = str(func(d *Document) string { return d.PMCID })
	out.OpenAlex = str(func(d *Document) string { return d.OpenAlex })
	out.Title = str(func(d *Document) string { return d.Title })
	out.Venue = str(func(d *Document) string { return d.Venue })
	out.Publisher = str(func(d *Document) string { return d.Publisher })
	out.Date = str(func(d *Document) string { return d.Date })
	out.Type = str(func(d *Document) string { return d.Type })
	out.Language = str(func(d *Document) string { return d.Language })
	out.Origin = live[0].Origin
	for _, d := range live {
		if out.Year == 0 {
			out.Year = d.Year
		}
		if out.Authors == nil && len(d.Authors) > 0 {
			out.Authors = d.Authors
		}
		if out.Keywords == nil && len(d.Keywords) > 0 {
			out.Keywords = d.Keywords
		}
		if out.Sections == nil && len(d.Sections) > 0 {
			out.Sections, out.SectionsUTF8 = d.Sections, d.SectionsUTF8
		}
		if out.References == nil && len(d.References) > 0 {
			out.References, out.ReferencesUTF8 = d.References, d.ReferencesUTF8
		}
		if out.Tables == nil && len(d.Tables) > 0 {
			out.Tables = d.Tables
		}
		if d.Updated.After(out.Updated) {
			out.Updated = d.Updated
		}
		out.Subjects = union(out.Subjects, d.Subjects)
		out.Topics = union(out.Topics, d.Topics)
		out.Sources = union(out.Sources, d.Sources)
	}
	// Abstract: the longest among the best-ranked records that have one.
	bestRank := -1
	for i, d := range live {
		if d.Abstract == "" {
			continue
		}
		rank := int(m.recs[liveRec[i]].rank)
		if bestRank < 0 {
			bestRank = rank
		}
		if rank == bestRank && len(d.Abstract) > len(out.Abstract) {
			out.Abstract = d.Abstract
		}
	}

	if len(members) == 1 && !carried {
		out.Licence = live[0].Licence
	} else {
		out.Licence = m.cfg.Decide(m.evidence(live, liveRec), m.cfg.Now)
	}

	// Ids: every id of every record, the planned canonical one first.
	seen := map[string]bool{canon: true}
	for _, d := range docs {
		ids := append(d.IDs(), d.ID)
		ids = append(ids, d.Aliases...)
		for _, id := range ids {
			if k, ok := parseID(id); ok {
				if s := k.String(); !seen[s] {
					seen[s] = true
					out.Aliases = append(out.Aliases, s)
				}
			}
		}
	}
	slices.Sort(out.Aliases)
	out.ID = canon
	if own := out.IDs(); len(own) > 0 && own[0] != canon {
		return nil, fmt.Errorf("ingest: merger: merged document's canonical id %s is not the planned %s", own[0], canon)
	}
	return out, nil
}

// evidence collects the licence evidence of the live records (in precedence
// order); evidence from a licence.Source is taken only from the latest record
// that has evidence from that source, so a fresh OpenAlex record replaces the
// OpenAlex evidence of a document carried over from the previous snapshot.
func (m *Merger) evidence(live []*Document, liveRec []uint32) []licence.Evidence {
	idx := make([]int, len(live))
	for i := range idx {
		idx[i] = i
	}
	// Later arrivals first: live records of a group never share all their
	// sources, and the newer version of one source arrives later.
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(liveRec[b], liveRec[a]) })
	claimed := map[licence.Source]bool{}
	keep := make([][]licence.Evidence, len(live))
	for _, i := range idx {
		var mine []licence.Source
		for _, e := range live[i].Licence.Evidence {
			if claimed[e.Source] {
				continue
			}
			keep[i] = append(keep[i], e)
			mine = append(mine, e.Source)
		}
		for _, s := range mine {
			claimed[s] = true
		}
	}
	var ev []licence.Evidence
	for _, k := range keep {
		ev = append(ev, k...)
	}
	return ev
}

// union appends the elements of add missing from dst.
func union(dst, add []string) []string {
	for _, s := range add {
		if s != "" && !slices.Contains(dst, s) {
			dst = append(dst, s)
		}
	}
	return dst
}

// The spill codec. Layout: a version byte, then the Document's fields in
// declaration order; strings and lists are uvarint-length prefixed, ints are
// varints, times are (Unix seconds, nanoseconds) or a single 0 for the zero
// time. TestSpillCodecCoversEveryField fills every field by reflection and
// fails when a field is added to the model but not here.

const spillVersion = 2 // 2: tables

func spillEncode(b []byte, d *Document) []byte {
	e := spillEnc{b: append(b, spillVersion)}
	e.str(d.ID)
	e.strs(d.Aliases)
	e.str(d.DOI)
	e.str(d.PMID)
	e.str(d.PMCID)
	e.str(d.OpenAlex)
	e.str(d.Title)
	e.uint(uint64(len(d.Authors)))
	for i := range d.Authors {
		a := &d.Authors[i]
		e.str(a.Name)
		e.str(a.Given)
		e.str(a.Family)
		e.str(a.ORCID)
		e.strs(a.Affiliations)
	}
	e.str(d.Venue)
	e.str(d.Publisher)
	e.int(int64(d.Year))
	e.str(d.Date)
	e.str(d.Type)
	e.str(d.Language)
	e.str(d.Abstract)
	e.strs(d.Keywords)
	e.strs(d.Subjects)
	e.strs(d.Topics)
	l := &d.Licence
	e.bool(l.Accepted)
	e.str(string(l.Family))
	e.str(l.Version)
	e.str(l.Port)
	e.str(l.URL)
	e.str(string(l.Reason))
	e.str(l.Detail)
	e.uint(uint64(len(l.Evidence)))
	for i := range l.Evidence {
		ev := &l.Evidence[i]
		e.str(string(ev.Kind))
		e.str(string(ev.Source))
		e.str(ev.Value)
		e.time(ev.Start)
		e.int(int64(ev.DelayDays))
		e.str(ev.ContentVersion)
		e.str(ev.Lang)
		e.str(ev.Path)
		e.str(ev.Origin)
		e.str(ev.InputSHA256)
		e.time(ev.ReadAt)
	}
	e.sections(d.Sections)
	e.uint(uint64(len(d.References)))
	for i := range d.References {
		r := &d.References[i]
		e.str(r.Label)
		e.strs(r.Authors)
		e.str(r.Title)
		e.str(r.Source)
		e.str(r.Year)
		e.str(r.Volume)
		e.str(r.Issue)
		e.str(r.Pages)
		e.str(r.DOI)
		e.str(r.PMID)
		e.str(r.Raw)
	}
	e.bool(d.Retracted)
	e.time(d.Updated)
	e.strs(d.Sources)
	e.str(d.Origin)
	e.uint(uint64(len(d.Tables)))
	for i := range d.Tables {
		tb := &d.Tables[i]
		e.str(tb.Label)
		e.str(tb.Caption)
		e.rows(tb.Header)
		e.rows(tb.Rows)
		e.strs(tb.Footnotes)
	}
	return e.b
}

func (e *spillEnc) rows(rows [][]string) {
	e.uint(uint64(len(rows)))
	for _, r := range rows {
		e.strs(r)
	}
}

type spillEnc struct{ b []byte }

func (e *spillEnc) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *spillEnc) int(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *spillEnc) str(s string) {
	e.uint(uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *spillEnc) strs(ss []string) {
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}
func (e *spillEnc) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *spillEnc) time(t time.Time) {
	if t.IsZero() {
		e.b = append(e.b, 0)
		return
	}
	e.b = append(e.b, 1)
	e.int(t.Unix())
	e.int(int64(t.Nanosecond()))
}
func (e *spillEnc) sections(ss []Section) {
	e.uint(uint64(len(ss)))
	for i := range ss {
		e.str(ss[i].Title)
		e.strs(ss[i].Paragraphs)
		e.sections(ss[i].Children)
	}
}

var errSpillCorrupt = errors.New("corrupt spill record")

// spillDecode decodes a record. Its strings share one copy of b, so b can
// be reused.
func spillDecode(b []byte) (*Document, error) {
	if len(b) == 0 || b[0] != spillVersion {
		return nil, errSpillCorrupt
	}
	dec := spillDec{s: string(b[1:])}
	d := new(Document)
	d.ID = dec.str()
	d.Aliases = dec.strs()
	d.DOI = dec.str()
	d.PMID = dec.str()
	d.PMCID = dec.str()
	d.OpenAlex = dec.str()
	d.Title = dec.str()
	if n := dec.count(); n > 0 {
		d.Authors = make([]Author, n)
		for i := range d.Authors {
			a := &d.Authors[i]
			a.Name = dec.str()
			a.Given = dec.str()
			a.Family = dec.str()
			a.ORCID = dec.str()
			a.Affiliations = dec.strs()
		}
	}
	d.Venue = dec.str()
	d.Publisher = dec.str()
	d.Year = int(dec.int())
	d.Date = dec.str()
	d.Type = dec.str()
	d.Language = dec.str()
	d.Abstract = dec.str()
	d.Keywords = dec.strs()
	d.Subjects = dec.strs()
	d.Topics = dec.strs()
	l := &d.Licence
	l.Accepted = dec.bool()
	l.Family = licence.Family(dec.str())
	l.Version = dec.str()
	l.Port = dec.str()
	l.URL = dec.str()
	l.Reason = licence.Reason(dec.str())
	l.Detail = dec.str()
	if n := dec.count(); n > 0 {
		l.Evidence = make([]licence.Evidence, n)
		for i := range l.Evidence {
			ev := &l.Evidence[i]
			ev.Kind = licence.Kind(dec.str())
			ev.Source = licence.Source(dec.str())
			ev.Value = dec.str()
			ev.Start = dec.time()
			ev.DelayDays = int(dec.int())
			ev.ContentVersion = dec.str()
			ev.Lang = dec.str()
			ev.Path = dec.str()
			ev.Origin = dec.str()
			ev.InputSHA256 = dec.str()
			ev.ReadAt = dec.time()
		}
	}
	d.Sections = dec.sections(0)
	if n := dec.count(); n > 0 {
		d.References = make([]Reference, n)
		for i := range d.References {
			r := &d.References[i]
			r.Label = dec.str()
			r.Authors = dec.strs()
			r.Title = dec.str()
			r.Source = dec.str()
			r.Year = dec.str()
			r.Volume = dec.str()
			r.Issue = dec.str()
			r.Pages = dec.str()
			r.DOI = dec.str()
			r.PMID = dec.str()
			r.Raw = dec.str()
		}
	}
	d.Retracted = dec.bool()
	d.Updated = dec.time()
	d.Sources = dec.strs()
	d.Origin = dec.str()
	if n := dec.count(); n > 0 {
		d.Tables = make([]Table, n)
		for i := range d.Tables {
			tb := &d.Tables[i]
			tb.Label = dec.str()
			tb.Caption = dec.str()
			tb.Header = dec.rows()
			tb.Rows = dec.rows()
			tb.Footnotes = dec.strs()
		}
	}
	if dec.err != nil || len(dec.s) != 0 {
		return nil, errSpillCorrupt
	}
	return d, nil
}

type spillDec struct {
	s   string
	err error
}

func (d *spillDec) uint() uint64 {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		if len(d.s) == 0 {
			break
		}
		c := d.s[0]
		d.s = d.s[1:]
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.err = errSpillCorrupt
	d.s = ""
	return 0
}

func (d *spillDec) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint
}

// count reads a list length; every element takes at least one byte, so a
// length beyond what is left is corruption, not a reason to allocate.
func (d *spillDec) count() int {
	n := d.uint()
	if n > uint64(len(d.s)) {
		d.err = errSpillCorrupt
		d.s = ""
		return 0
	}
	return int(n)
}

func (d *spillDec) str() string {
	n := d.count()
	s := d.s[:n]
	d.s = d.s[n:]
	return s
}

func (d *spillDec) strs() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *spillDec) rows() [][]string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([][]string, n)
	for i := range out {
		out[i] = d.strs()
	}
	return out
}

func (d *spillDec) bool() bool {
	if len(d.s) == 0 {
		d.err = errSpillCorrupt
		return false
	}
	v := d.s[0]
	d.s = d.s[1:]
	return v != 0
}

func (d *spillDec) time() time.Time {
	if !d.bool() {
		return time.Time{}
	}
	sec := d.int()
	nsec := d.int()
	return time.Unix(sec, nsec).UTC()
}

func (d *spillDec) sections(depth int) []Section {
	n := d.count()
	if n == 0 {
		return nil
	}
	if depth > 1000 {
		d.err = errSpillCorrupt
		d.s = ""
		return nil
	}
	out := make([]Section, n)
	for i := range out {
		out[i].Title = d.str()
		out[i].Paragraphs = d.strs()
		out[i].Children = d.sections(depth + 1)
	}
	return out
}

package index

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
	"github.com/openshelf/openshelf/specs"
)

// Search fields, the field column of search/postings.parquet.
const (
	FieldTitle    int8 = 0
	FieldKeywords int8 = 1
	FieldAuthors  int8 = 2
)

// searchFields describes the fields for search/fields.parquet. Weights and
// length normalisation (b) are BM25F parameters: a title match counts three
// times an author match; long author lists are barely penalised.
var searchFields = [3]struct {
	name      string
	weight, b float64
}{
	FieldTitle:    {"title", 3, 0.75},
	FieldKeywords: {"keywords", 2, 0.5},
	FieldAuthors:  {"authors", 1, 0.3},
}

// idPattern is a canonical project id or alias.
var idPattern = regexp.MustCompile(`^(pmc-[0-9]{1,12}|pmid-[0-9]{1,12}|oa-w[0-9]{1,15}|doi-[0-9a-f]{20})$`)

// Builder writes one snapshot. Create it with NewBuilder, Add documents in
// increasing id order (rejected ones in any order), then Finish to publish
// it, or Abort. A Builder is not safe for concurrent use.
type Builder struct {
	cfg Config
	log *slog.Logger
	id  string
	tmp string // snapshots/.tmp-<id>
	// dir receives the per-document files: tmp itself, or for a delta
	// build the new segment's directory inside it (delta.go).
	dir    string
	delta  *delta // nil unless a delta build
	work   string // tmp/.work: spill files, removed before publication
	unlock func() // releases the data directory's lock; nil once released
	prev   *snapshot.Snapshot

	docs     *table[documentRow]
	fulltext *table[sectionRow]
	refs     *table[referenceRow]
	rejects  *table[rejectRow]
	sdocs    *table[searchDocRow]
	specs    *table[specs.Row] // specs.go
	content  *contentTable
	catalog  *catalogTable       // catalogtable.go
	receipts *table[evidenceRow] // licence_evidence (evidence.go)
	digests  map[string]string   // input path -> SHA-256 (evidence.go)
	aliases  *sorter
	postings *sorter
	cites    *sorter                // citation keys (searchbuild.go)
	sidx     *isearch.Writer        // search/index.bin
	pairs    *isearch.Pairs         // its pair rule, once chosen (pairsample.go)
	sample   *pairSample            // until then
	joined   []*isearch.Index       // the segments whose pairs it joins (pairsample.go)
	bundles  map[string]*bundleFile // written by the bundler's goroutine until it stops
	bundler  *worker[bundleJob]
	records  *recordsWriter // nil unless Config.Records (records.go)
	ngroups  int32          // works whose records were written, once closed

	// segments are a delta build's segments, for the manifest.
	segments []snapshot.Segment
	// dated are the documents whose licence decision may change with
	// time (delta_merge.go).
	dated []string
	// extraFiles are files written beside the tables (citekeys.go).
	extraFiles []snapshot.File
	lastID     string
	ndocs      int64
	fieldLen   [3]int64
	counts     snapshot.Counts
	merge      ingest.MergeStats
	done       bool
	testHook   func() // between rename and switch (crash tests)
	tokBuf     []string
	tpBuf      []tokPos
	groups     tokGroups // searchbuild.go
	ftBuf      []string
	posBuf     []uint32
	recBuf     []byte
}

// NewBuilder takes the data directory's lock, removes what killed runs left
// behind, opens the previous snapshot (unless cfg.Fresh) and creates the
// temporary snapshot directory.
func NewBuilder(cfg Config) (*Builder, error) { return newBuilder(cfg, false) }

// newBuilder is NewBuilder; with deltaBuild, the build is a delta build when
// the previous snapshot allows it (Build only: a delta build's Builder
// needs the previous segments opened, see delta.go).
func newBuilder(cfg Config, deltaBuild bool) (*Builder, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	unlock, err := snapshot.Lock(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	b := &Builder{cfg: cfg, log: cfg.Logger, unlock: unlock, bundles: map[string]*bundleFile{}}
	b.counts.AcceptedByLicence = map[string]int64{}
	b.counts.RejectedByReason = map[string]int64{}
	ok := false
	defer func() {
		if !ok {
			b.Abort()
		}
	}()
	removed, err := snapshot.RemoveLeftovers(cfg.DataDir)
	if err != nil {
		return nil, err
	}
	for _, p := range removed {
		b.log.Info("index: removed leftover of an interrupted run", "path", p)
	}
	if !cfg.Fresh {
		prev, err := snapshot.Open(cfg.DataDir)
		switch {
		case errors.Is(err, snapshot.ErrNoSnapshot):
		case err != nil:
			return nil, fmt.Errorf("index: previous snapshot (use a fresh build to ignore it): %w", err)
		default:
			b.prev = prev
		}
	}
	if b.prev != nil && !b.cfg.Records && hasRecords(b.prev) {
		// Records are kept once kept: a merge or a local run over the
		// nightly job's archive must not leave its next night without them.
		b.cfg.Records = true
	}
	if b.id, err = snapshot.NextID(cfg.DataDir, cfg.Now); err != nil {
		return nil, err
	}
	b.tmp = filepath.Join(cfg.DataDir, snapshot.SnapshotsDir, snapshot.TmpPrefix+b.id)
	b.work = filepath.Join(b.tmp, workDir)
	b.dir = b.tmp
	if deltaBuild && b.prev != nil && !cfg.Merge && b.prev.Manifest.Policy != cfg.Policy {
		b.log.Info("index: the publication policy changed; merging every document again",
			"previous", b.prev.Manifest.Policy, "now", cfg.Policy)
	} else if deltaBuild && b.prev != nil && !cfg.Merge && !searchFormatCurrent(b.prev) {
		b.log.Info("index: the previous snapshot's search index is an older format; merging every document again",
			"previous", b.prev.ID)
	} else if deltaBuild && b.prev != nil && !cfg.Merge && deltaCapable(b.prev) {
		b.delta = &delta{}
		b.dir = filepath.Join(b.tmp, snapshot.SegmentsDir, "segment="+b.id)
	}
	if err := os.MkdirAll(b.work, 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if err := b.open(); err != nil {
		return nil, err
	}
	if b.delta == nil {
		if err := b.joinPairs(cfg.JoinSegments); err != nil {
			return nil, err
		}
	}
	if cfg.hook != nil {
		b.testHook = func() { cfg.hook("switch") }
	}
	ok = true
	return b, nil
}

func (b *Builder) open() error {
	var err error
	if b.docs, err = newTable[documentRow](b.dir, snapshot.Documents+".parquet", b.cfg.RowGroupRows,
		proseColumns(documentProse...)...); err != nil {
		return err
	}
	if b.fulltext, err = newTable[sectionRow](b.dir, snapshot.Fulltext+".parquet", 4*b.cfg.RowGroupRows,
		proseColumns(sectionProse...)...); err != nil {
		return err
	}
	if b.refs, err = newTable[referenceRow](b.dir, snapshot.References+".parquet", 8*b.cfg.RowGroupRows,
		proseColumns(referenceProse...)...); err != nil {
		return err
	}
	if b.rejects, err = newTable[rejectRow](b.tmp, snapshot.Rejects+".parquet", b.cfg.RowGroupRows); err != nil {
		return err
	}
	if b.sdocs, err = newTable[searchDocRow](b.dir, snapshot.SearchDocs+".parquet", 8*b.cfg.RowGroupRows); err != nil {
		return err
	}
	if b.content, err = newContentTable(b.dir); err != nil {
		return err
	}
	if b.catalog, err = newCatalogTable(b.dir, b.work); err != nil {
		return err
	}
	if err := b.openReceipts(); err != nil {
		return err
	}
	if b.specs, err = newSpecsTable(b.dir, 8*b.cfg.RowGroupRows); err != nil {
		return err
	}
	if b.cfg.Records {
		if b.records, err = newRecordsWriter(b.dir, b.work, b.cfg.SortMemory/8); err != nil {
			return err
		}
	}
	b.aliases = newSorter(b.work, b.cfg.SortMemory/4)
	b.postings = newSorter(b.work, b.cfg.SortMemory)
	b.startBundler()
	return b.openSearchIndex()
}

// ID is the id the snapshot will be published under.
func (b *Builder) ID() string { return b.id }

// WorkDir is scratch space inside the temporary snapshot directory, removed
// with it; Build puts the merger's spill file there.
func (b *Builder) WorkDir() string { return b.work }

// Previous is the snapshot being carried over, nil for a fresh build.
func (b *Builder) Previous() *snapshot.Snapshot { return b.prev }

// SetMergeStats records the merger's counts for the manifest.
func (b *Builder) SetMergeStats(s ingest.MergeStats) { b.merge = s }

// Add writes a document. An accepted document (d.Licence.Accepted) is
// published in every table; documents must come in strictly increasing id
// order. A rejected document, or one without an id, goes to rejects only.
// An accepted document that cannot be published (no topic, malformed id or
// licence) is listed in rejects and reported as an error wrapping
// ErrNoTopic or ErrInvalidDocument.
func (b *Builder) Add(d *ingest.Document) error {
	if b.done {
		return ErrFinished
	}
	if d.ID == "" {
		return b.rejectDoc(d, ReasonNoID, "the record has no usable identifier (pmc, pmid, doi, openalex)")
	}
	if over := d.Oversize(); over != "" {
		// Served fields have caps: an oversized record never reaches the
		// catalog, whatever its licence. Its evidence is kept short in
		// rejects too.
		d.Licence.Evidence = shortEvidence(d.Licence.Evidence)
		return b.rejectDoc(d, ingest.ReasonTooLarge, ingest.ReasonTooLarge+": "+over)
	}
	if !d.Licence.Accepted {
		reason := string(d.Licence.Reason)
		if reason == "" {
			reason = string(licence.Unknown)
		}
		return b.rejectDoc(d, reason, d.Licence.Detail)
	}
	if err := validate(d); err != nil {
		if rerr := b.rejectDoc(d, ReasonInvalid, err.Error()); rerr != nil {
			return rerr
		}
		return err
	}
	if d.ID <= b.lastID {
		return fmt.Errorf("%w: %s after %s", ErrUnsorted, d.ID, b.lastID)
	}
	b.lastID = d.ID
	return b.publishDoc(d)
}

// Reject lists a record in rejects.parquet.
func (b *Builder) Reject(r Reject) error {
	if b.done {
		return ErrFinished
	}
	ev, err := evidenceJSON(r.Evidence)
	if err != nil {
		return err
	}
	if r.Reason == "" {
		r.Reason = string(licence.Unknown)
	}
	b.counts.Rejected++
	b.counts.RejectedByReason[r.Reason]++
	row := rejectRow{Path: clean(r.Path), SourceID: clean(r.SourceID), Reason: clean(r.Reason),
		Detail: clean(r.Detail), Evidence: ev, Sources: cleanAll(r.Sources)}
	return b.rejects.write(row, len(row.Path)+len(row.Detail)+len(row.Evidence)+64)
}

func (b *Builder) rejectDoc(d *ingest.Document, reason, detail string) error {
	id := d.ID
	if id == "" {
		id = firstNonEmpty(ingest.DOIID(d.DOI), prefixed("pmc-", d.PMCID), prefixed("oa-", strings.ToLower(d.OpenAlex)),
			prefixed("pmid-", d.PMID))
	}
	b.stampInputs(d.Licence.Evidence)
	return b.Reject(Reject{Path: d.Origin, SourceID: id, Reason: reason, Detail: detail,
		Evidence: d.Licence.Evidence, Sources: d.Sources})
}

func prefixed(p, s string) string {
	if s == "" {
		return ""
	}
	return p + s
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// validate checks what a published document must have.
func validate(d *ingest.Document) error {
	if !idPattern.MatchString(d.ID) {
		return fmt.Errorf("%w: id %q is not a project id", ErrInvalidDocument, d.ID)
	}
	for _, a := range d.Aliases {
		if !idPattern.MatchString(a) {
			return fmt.Errorf("%w: %s: alias %q is not a project id", ErrInvalidDocument, d.ID, a)
		}
	}
	if !slices.Contains(licence.Families, d.Licence.Family) {
		return fmt.Errorf("%w: %s: accepted with licence family %q", ErrInvalidDocument, d.ID, d.Licence.Family)
	}
	if d.Licence.URL == "" {
		return fmt.Errorf("%w: %s: accepted without a licence URL", ErrInvalidDocument, d.ID)
	}
	if len(d.Topics) == 0 {
		return fmt.Errorf("%w: %s", ErrNoTopic, d.ID)
	}
	for _, t := range d.Topics {
		if !snapshot.ValidSlug(t) {
			return fmt.Errorf("%w: %s: topic slug %q", ErrInvalidDocument, d.ID, t)
		}
	}
	return nil
}

// clean makes s valid UTF-8: DuckDB refuses Parquet strings that are not.
func clean(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// cleanAll is clean of each string: ss itself when all are valid, which
// they nearly always are; never nil.
func cleanAll(ss []string) []string {
	for i, s := range ss {
		if !utf8.ValidString(s) {
			out := make([]string, 0, len(ss))
			out = append(out, ss[:i]...)
			for _, s := range ss[i:] {
				out = append(out, clean(s))
			}
			return out
		}
	}
	if ss == nil {
		return []string{}
	}
	return ss
}

func evidenceJSON(ev []licence.Evidence) (string, error) {
	if len(ev) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(ev)
	if err != nil {
		return "", fmt.Errorf("index: encode evidence: %w", err)
	}
	return clean(string(b)), nil
}

// rights are the licence texts shipped with a document.
type rights struct {
	name, attribution, copyright, shareAlike string
}

func rightsOf(d *ingest.Document) rights {
	dec := d.Licence
	var authors []string
	for _, a := range d.Authors {
		if n := authorName(a); n != "" {
			authors = append(authors, n)
		}
	}
	year := ""
	if d.Year > 0 {
		year = strconv.Itoa(d.Year)
	}
	holder := ""
	for _, k := range []licence.Kind{licence.KindJATSCopyright, licence.KindPubMedCopyright} {
		for _, e := range dec.Evidence {
			if e.Kind == k && strings.TrimSpace(e.Value) != "" && holder == "" {
				holder = e.Value
			}
		}
	}
	return rights{
		name: licence.Name(dec.Family, dec.Version, dec.Port),
		attribution: licence.Attribution(licence.AttributionInput{
			Authors: authors, Title: d.Title, Venue: d.Venue, Year: year, DOI: d.DOI,
			Changes: "reformatted as plain text, JSON and Parquet by openshelf",
		}, dec),
		copyright:  licence.CopyrightNotice(holder, year, dec),
		shareAlike: licence.ShareAlikeNotice(dec),
	}
}

func authorName(a ingest.Author) string {
	if a.Name != "" {
		return a.Name
	}
	return strings.TrimSpace(a.Given + " " + a.Family)
}

func (b *Builder) publishDoc(d *ingest.Document) error {
	b.stampInputs(d.Licence.Evidence)
	ev, err := evidenceJSON(d.Licence.Evidence)
	if err != nil {
		return err
	}
	r := rightsOf(d)
	doc := int32(b.ndocs)
	if b.ndocs >= 1<<31-1 {
		return fmt.Errorf("index: more than 2^31 documents")
	}

	// fulltext: sections in document order, flattened depth first.
	nsec, hasText, size := int32(0), false, 0
	ft := b.ftBuf[:0]
	type frame struct {
		secs          []ingest.Section
		parent, depth int32
	}
	stack := []frame{{d.Sections, -1, 0}}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(top.secs) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		s := top.secs[0]
		top.secs = top.secs[1:]
		parent, depth := top.parent, top.depth
		row := sectionRow{ID: d.ID, Ordinal: nsec, Parent: parent, Depth: depth, Title: s.Title, Paragraphs: s.Paragraphs}
		if !d.SectionsUTF8 {
			row.Title, row.Paragraphs = clean(s.Title), cleanAll(s.Paragraphs)
		} else if row.Paragraphs == nil {
			row.Paragraphs = []string{} // as cleanAll
		}
		n := len(row.Title)
		for _, p := range row.Paragraphs {
			n += len(p)
			hasText = hasText || strings.TrimSpace(p) != ""
		}
		size += n
		ft = append(append(ft, row.Title), row.Paragraphs...)
		if err := b.fulltext.write(row, n+32); err != nil {
			return err
		}
		b.content.section(&row)
		if len(s.Children) > 0 {
			stack = append(stack, frame{s.Children, nsec, depth + 1})
		}
		nsec++
	}
	b.content.expectReferences(len(d.References))
	for i, ref := range d.References {
		row := referenceRow{ID: d.ID, Ordinal: int32(i), Label: ref.Label, Authors: ref.Authors, Title: ref.Title,
			Source: ref.Source, Year: ref.Year, Volume: ref.Volume, Issue: ref.Issue, Pages: ref.Pages, DOI: ref.DOI,
			PMID: ref.PMID, Raw: ref.Raw}
		if !d.ReferencesUTF8 {
			row.Label, row.Authors, row.Title, row.Source = clean(ref.Label), cleanAll(ref.Authors), clean(ref.Title), clean(ref.Source)
			row.Year, row.Volume, row.Issue, row.Pages = clean(ref.Year), clean(ref.Volume), clean(ref.Issue), clean(ref.Pages)
			row.DOI, row.PMID, row.Raw = clean(ref.DOI), clean(ref.PMID), clean(ref.Raw)
		} else if row.Authors == nil {
			row.Authors = []string{} // as cleanAll
		}
		if err := b.refs.write(row, len(row.Raw)+len(row.Title)+128); err != nil {
			return err
		}
		b.content.reference(&row)
	}

	authors := make([]authorRow, 0, len(d.Authors))
	for _, a := range d.Authors {
		authors = append(authors, authorRow{Name: clean(authorName(a)), Given: clean(a.Given), Family: clean(a.Family),
			ORCID: clean(a.ORCID), Affiliations: cleanAll(a.Affiliations)})
	}
	var updated *time.Time
	if !d.Updated.IsZero() {
		u := d.Updated.UTC()
		updated = &u
	}
	year := int32(0)
	if d.Year > 0 && d.Year < 1<<31 {
		year = int32(d.Year)
	}
	// Aliases: sorted, without repeats or the canonical id (validate has
	// checked their form).
	aliases := slices.DeleteFunc(slices.Clone(d.Aliases), func(a string) bool { return a == d.ID })
	slices.Sort(aliases)
	aliases = slices.Compact(aliases)
	row := documentRow{
		ID: d.ID, Aliases: aliases, DOI: clean(d.DOI), PMID: clean(d.PMID), PMCID: clean(d.PMCID),
		OpenAlex: clean(d.OpenAlex), Title: clean(d.Title), Authors: authors, Venue: clean(d.Venue),
		Publisher: clean(d.Publisher), Year: year, Date: clean(d.Date), Type: clean(d.Type),
		Language: clean(d.Language), Abstract: clean(d.Abstract), Keywords: cleanAll(d.Keywords),
		Subjects: cleanAll(d.Subjects), Topics: slices.Clone(d.Topics),
		License: string(d.Licence.Family), LicenseVersion: clean(d.Licence.Version), LicenseURL: clean(d.Licence.URL),
		LicenseName: clean(r.name), Attribution: clean(r.attribution), CopyrightNotice: clean(r.copyright),
		ShareAlikeNotice: clean(r.shareAlike), LicenceEvidence: ev,
		HasFulltext: hasText, HasReferences: len(d.References) > 0,
		NSections: nsec, NReferences: int32(min(len(d.References), 1<<31-1)),
		Sources: cleanAll(d.Sources), Origin: clean(d.Origin), Updated: updated, Retracted: d.Retracted,
	}
	if err := b.docs.write(row, len(row.Abstract)+len(row.Title)+len(ev)+len(r.attribution)+256*len(authors)+512); err != nil {
		return err
	}
	receipts, err := b.writeReceipts(d)
	if err != nil {
		return err
	}
	tables, err := tablesJSON(d.Tables)
	if err != nil {
		return err
	}
	if err := b.content.add(&row, receipts, tables); err != nil {
		return err
	}
	if err := b.catalog.add(&row); err != nil {
		return err
	}
	if err := b.writeSpecs(d, &row); err != nil {
		return err
	}

	// aliases: every id, the canonical one mapping to itself.
	for _, a := range append([]string{d.ID}, aliases...) {
		b.recBuf = append(append(append(b.recBuf[:0], a...), 0), d.ID...)
		if err := b.aliases.add(b.recBuf); err != nil {
			return err
		}
	}

	// search: search/docs.parquet keeps the lengths of the former three
	// fields; search/index.bin has every field (searchbuild.go).
	b.ftBuf = ft
	slens, err := b.indexSearch(doc, d, &row, ft)
	if err != nil {
		return err
	}
	// The search index's lengths of the three fields (indexText): the
	// tokens, stop words left out but in author names.
	var lens [3]int
	lens[FieldTitle] = slens[isearch.FieldTitle]
	lens[FieldKeywords] = slens[isearch.FieldKeyword]
	lens[FieldAuthors] = slens[isearch.FieldAuthor]
	clamp := func(n int) int16 { return int16(min(n, 1<<15-1)) }
	srow := searchDocRow{Doc: doc, ID: d.ID, LenTitle: clamp(lens[0]), LenKeywords: clamp(lens[1]),
		LenAuthors: clamp(lens[2]), Year: year, License: string(d.Licence.Family), Topics: row.Topics,
		HasFulltext: hasText}
	if err := b.sdocs.write(srow, 128); err != nil {
		return err
	}
	for f := range lens {
		b.fieldLen[f] += int64(lens[f])
	}

	if datedLicence(d, b.cfg.Now) {
		b.dated = append(b.dated, d.ID)
	}
	if err := b.bundle(&row); err != nil {
		return err
	}
	b.ndocs++
	b.counts.Accepted++
	b.counts.AcceptedByLicence[row.License]++
	return nil
}

// release gives the data directory's lock back.
func (b *Builder) release() {
	b.closeJoined()
	if b.unlock != nil {
		b.unlock()
		b.unlock = nil
	}
}

// Abort removes the temporary snapshot and releases the lock. It is safe to
// call after Finish (it does nothing then) and more than once.
func (b *Builder) Abort() error {
	if b.done && b.unlock == nil {
		return nil
	}
	b.done = true
	if b.docs != nil {
		b.docs.abort()
	}
	if b.fulltext != nil {
		b.fulltext.abort()
	}
	if b.refs != nil {
		b.refs.abort()
	}
	if b.rejects != nil {
		b.rejects.abort()
	}
	if b.sdocs != nil {
		b.sdocs.abort()
	}
	if b.content != nil {
		b.content.abort()
	}
	if b.catalog != nil {
		b.catalog.abort()
	}
	if b.receipts != nil {
		b.receipts.abort()
	}
	if b.specs != nil {
		b.specs.abort()
	}
	b.stopBundler()
	for _, bu := range b.bundles {
		bu.abort()
	}
	if b.records != nil {
		b.records.abort()
	}
	if b.aliases != nil {
		b.aliases.cleanup()
	}
	if b.postings != nil {
		b.postings.cleanup()
	}
	if b.cites != nil {
		b.cites.cleanup()
	}
	if b.sidx != nil {
		b.sidx.Abort()
	}
	var err error
	if b.tmp != "" {
		if rerr := os.RemoveAll(b.tmp); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) {
			err = rerr
		}
	}
	b.release()
	return err
}

// Finish writes the sorted tables, the search index, the bundles and the
// manifest, publishes the snapshot, switches current and prunes old
// snapshots.
func (b *Builder) Finish(ctx context.Context) (*snapshot.Manifest, error) {
	if b.done {
		return nil, ErrFinished
	}
	m, err := b.finish(ctx)
	if err != nil {
		b.Abort()
		return nil, err
	}
	return m, nil
}

func (b *Builder) finish(ctx context.Context) (*snapshot.Manifest, error) {
	b.done = true
	var files []snapshot.File
	for _, t := range []interface {
		close() (snapshot.File, error)
	}{b.docs, b.fulltext, b.refs, b.rejects, b.sdocs, b.content, b.receipts, b.specs} {
		f, err := t.close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if b.records != nil {
		more, err := b.records.close()
		b.ngroups, b.records = b.records.n, nil
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	more, err := b.writeAliases()
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := b.writeCitations()
	if err != nil {
		return nil, err
	}
	files = append(append(files, f), b.extraFiles...)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	more, err = b.writeSearch(ctx)
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	more, err = b.writeTopics()
	if err != nil {
		return nil, err
	}
	files = append(files, more...)
	if f, err := b.writeDated(); err != nil {
		return nil, err
	} else if f != nil {
		files = append(files, *f)
	}
	if b.delta != nil {
		if files, err = b.finishDelta(ctx, files); err != nil {
			return nil, err
		}
	}
	if err := os.RemoveAll(b.work); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	slices.SortFunc(files, func(x, y snapshot.File) int { return strings.Compare(x.Name, y.Name) })

	b.counts.Read = b.merge.Read
	b.counts.Previous = b.merge.Carried
	b.counts.Merged = b.merge.Merged
	b.counts.Superseded = b.merge.Superseded
	b.counts.Deleted = b.merge.Deleted + b.merge.Retracted
	man := &snapshot.Manifest{
		ID: b.id, Created: b.cfg.Now.Truncate(time.Second), SchemaVersion: snapshot.SchemaVersion,
		Inputs: b.cfg.Inputs, Counts: b.counts, Files: files, Segments: b.segments, Policy: b.cfg.Policy,
	}
	if man.Inputs == nil {
		man.Inputs = []snapshot.Input{}
	}
	if b.prev != nil {
		man.Previous = b.prev.ID
	}
	if err := snapshot.WriteManifest(b.tmp, man); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := publish(b.cfg.DataDir, b.tmp, b.id, b.testHook); err != nil {
		return nil, err
	}
	b.tmp = "" // published: Abort must not remove it
	b.log.Info("index: snapshot published", "id", b.id, "documents", b.counts.Accepted,
		"rejected", b.counts.Rejected, "topics", b.counts.Topics)
	removed, err := snapshot.Prune(b.cfg.DataDir, b.cfg.Keep)
	for _, id := range removed {
		b.log.Info("index: pruned old snapshot", "id", id)
	}
	if err != nil {
		// The new snapshot is live; failing to prune is not a failed build.
		b.log.Warn("index: pruning old snapshots failed", "err", err)
	}
	b.release()
	return man, nil
}

// writeAliases writes aliases.parquet and, with the aliases, finishes
// the catalog file.
func (b *Builder) writeAliases() ([]snapshot.File, error) {
	t, err := newTable[aliasRow](b.dir, snapshot.Aliases+".parquet", 1_000_000)
	if err != nil {
		return nil, err
	}
	var last string
	err = b.aliases.iterate(func(rec []byte) error {
		i := strings.IndexByte(string(rec), 0)
		alias, id := string(rec[:i]), string(rec[i+1:])
		if alias == last {
			// Two documents claim one id; the merger never does this. Keep
			// the first (smallest id) so resolution stays a function.
			b.log.Warn("index: id claimed by two documents", "alias", alias, "dropped", id)
			return nil
		}
		last = alias
		if err := b.catalog.alias(alias, id); err != nil {
			return err
		}
		return t.write(aliasRow{Alias: alias, ID: id}, len(rec)+16)
	})
	if err != nil {
		t.abort()
		return nil, err
	}
	f, err := t.close()
	if err != nil {
		return nil, err
	}
	cf, err := b.catalog.close()
	if err != nil {
		return nil, err
	}
	return []snapshot.File{f, cf}, nil
}

func (b *Builder) writeSearch(ctx context.Context) ([]snapshot.File, error) {
	terms, err := newTable[termRow](b.dir, snapshot.SearchTerms+".parquet", 1_000_000)
	if err != nil {
		return nil, err
	}
	posts, err := newTable[postingRow](b.dir, snapshot.SearchPostings+".parquet", 4_000_000)
	if err != nil {
		terms.abort()
		return nil, err
	}
	// One pass over the sorted postings writes search/index.bin (every
	// field, positions) and the analysts' Parquet tables, which keep their
	// former content: the title, keywords and authors fields, without
	// stop words in titles and keywords; a term only in other fields has
	// no term_id.
	var (
		term    []byte
		termID  int32 = -1
		df      int32
		lastDoc int32 = -1
		open    bool  // term has a terms row pending
		rows    []postingRow
	)
	// Rows of one (term, doc) come in index field order (title, author,
	// keyword); the table is sorted by its own field numbers.
	flushRows := func() error {
		slices.SortFunc(rows, func(x, y postingRow) int { return int(x.Field) - int(y.Field) })
		for _, r := range rows {
			if err := posts.write(r, 11); err != nil {
				return err
			}
		}
		rows = rows[:0]
		return nil
	}
	flushTerm := func() error {
		if err := flushRows(); err != nil {
			return err
		}
		if !open {
			return nil
		}
		open = false
		return terms.write(termRow{TermID: termID, Term: string(term), DF: df}, len(term)+8)
	}
	err = b.writePostings(ctx, func(t []byte, doc int32, field int, pos []uint32) error {
		if string(t) != string(term) {
			if err := flushTerm(); err != nil {
				return err
			}
			term, df, lastDoc = append(term[:0], t...), 0, -1
		}
		of := oldField(field)
		if of < 0 || (of != FieldAuthors && tokenize.IsStopWord(string(t))) {
			return nil
		}
		if !open {
			if termID == 1<<31-1 {
				return fmt.Errorf("index: more than 2^31 terms")
			}
			termID++
			open = true
		}
		if doc != lastDoc {
			if err := flushRows(); err != nil {
				return err
			}
			df++
			lastDoc = doc
		}
		rows = append(rows, postingRow{TermID: termID, Doc: doc, Field: of, TF: int16(min(len(pos), 1<<15-1))})
		return nil
	})
	if err == nil {
		err = flushTerm()
	}
	if err != nil {
		terms.abort()
		posts.abort()
		return nil, err
	}
	var files []snapshot.File
	for _, t := range []interface {
		close() (snapshot.File, error)
	}{terms, posts} {
		f, err := t.close()
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	fields, err := newTable[fieldRow](b.dir, snapshot.SearchFields+".parquet", 0)
	if err != nil {
		return nil, err
	}
	for i, f := range searchFields {
		avg := 0.0
		if b.ndocs > 0 {
			avg = float64(b.fieldLen[i]) / float64(b.ndocs)
		}
		if err := fields.write(fieldRow{Field: int8(i), Name: f.name, AvgLen: avg, Weight: f.weight, B: f.b}, 32); err != nil {
			fields.abort()
			return nil, err
		}
	}
	f, err := fields.close()
	if err != nil {
		return nil, err
	}
	files = append(files, f)
	if f, err = b.closeSearchIndex(); err != nil {
		return nil, err
	}
	return append(files, f), nil
}

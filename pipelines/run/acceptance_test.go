package run

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/klauspost/compress/zstd"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// verdict is an expected licence outcome: one of the accepted families, or
// a rejection with one of the reasons (any reason when Reasons is empty).
type verdict struct {
	Families []licence.Family
	Reasons  []licence.Reason
	Reject   bool
}

func accept(f ...licence.Family) verdict { return verdict{Families: f} }
func reject(r ...licence.Reason) verdict { return verdict{Reject: true, Reasons: r} }

// also lets a verdict allow a rejection besides the families (SOURCES.md
// "accept ... or hold for review"), with one of the reasons (any reason
// when none is given).
func (v verdict) also(r ...licence.Reason) verdict { v.Reject, v.Reasons = true, r; return v }

func (v verdict) allows(d licence.Decision) bool {
	if d.Accepted {
		return slices.Contains(v.Families, d.Family)
	}
	return v.Reject && (len(v.Reasons) == 0 || slices.Contains(v.Reasons, d.Reason))
}

func (v verdict) String() string {
	var parts []string
	for _, f := range v.Families {
		parts = append(parts, "accept "+string(f))
	}
	if v.Reject {
		r := "reject"
		if len(v.Reasons) > 0 {
			r += fmt.Sprint(v.Reasons)
		}
		parts = append(parts, r)
	}
	return strings.Join(parts, " or ")
}

const (
	byF    = licence.CCBY
	cc0F   = licence.CC0
	pdmF   = licence.PDM
	nc     = licence.NonCommercial
	nd     = licence.NoDerivatives
	custom = licence.CustomTerms
	miss   = licence.Missing
	tdm    = licence.TDMOnly
)

// jatsVerdicts is transcribed from the "Expected pipeline verdict" column
// of shared/fixtures/jats/*/SOURCES.md, keyed by file name. Reasons follow
// the verdict's words: NC -> non-commercial, "NC, ND" -> non-commercial or
// no-derivatives, all rights reserved and custom terms -> custom-terms,
// missing licence -> missing.
var jatsVerdicts = map[string]verdict{
	// jats/biorxiv
	"biorxiv-493855.xml":              reject(nc, nd),
	"biorxiv-468444.xml":              reject(nc, nd),
	"biorxiv-498369.xml":              accept(byF),
	"biorxiv-532331.xml":              accept(byF),
	"biorxiv-223354.front-only.xml":   reject(custom, miss), // all rights reserved
	"medrxiv-22275761.front-only.xml": reject(custom, miss), // all rights reserved
	// jats/elife
	"elife00005.xml":       accept(byF),
	"elife00240.xml":       accept(byF),
	"elife00270.xml":       accept(byF),
	"elife00351.xml":       accept(byF),
	"elife02935.xml":       accept(cc0F),
	"elife06003.xml":       accept(byF),
	"elife07586.xml":       accept(byF),
	"elife09853.xml":       accept(byF),
	"elife_poa_e06828.xml": accept(byF),
	"elife-02833-v2.xml":   accept(byF),
	"elife-00666.xml":      accept(byF),
	"elife-46472-v3.xml":   accept(cc0F),
	"elife-30274-v1.xml":   accept(byF),
	"ijm-00202.xml":        accept(byF),
	// jats/f1000
	"f1000research-7-1655-v1.xml": accept(byF),
	"f1000research-8-1394-v1.xml": accept(byF),
	// jats/plos
	"journal.pone.0111971.xml": accept(byF),
	"journal.pone.0117014.xml": accept(byF),
	"journal.ppat.1005207.xml": accept(byF), // retraction notice
	"journal.pone.0080518.xml": accept(byF),
	"journal.pone.0160653.xml": accept(cc0F),
	"journal.pone.0052690.xml": accept(cc0F), // text rule
	"journal.pone.0068090.xml": accept(cc0F), // text rule
	// Public domain declaration: "ACCEPT (map to CC0/PDM family) or manual
	// review" - held for review is a rejection that publishes nothing.
	"journal.pmed.0020402.xml": accept(cc0F, pdmF).also(),
	"journal.pmed.1001080.xml": reject(custom), // WHO terms
	"journal.pbio.0020188.xml": accept(byF),    // text rule
	"journal.pbio.0030408.xml": accept(byF),    // text rule
	"journal.pcbi.0030158.xml": accept(byF),    // text rule, retraction notice
	"journal.pone.0097541.xml": accept(byF),    // text rule
	"journal.pgen.1000052.xml": accept(byF),    // text rule
	// jats/pmc
	"1471-2180-11-174.nxml": accept(byF),
	"1472-6831-8-11.nxml":   accept(byF),
	"ehp-116-1694.nxml":     accept(pdmF),
	"mds526.nxml":           reject(nc),
	"pntd.0002065.nxml":     accept(byF), // text rule
	"pone.0046493.nxml":     accept(byF), // text rule
	// Hold-out: "ACCEPT only if copyright-statement is also scanned; else
	// REJECT missing" - sources.md section 7.1 scans it as the last resort.
	"pone.0000217.nxml":        accept(byF).also(miss),
	"6605965a.front-only.nxml": reject(miss),
	"PMC5828200.nxml":          accept(byF),
	"PMC6398430.nxml":          accept(byF),
	"PMC7417471.nxml":          accept(byF), // URL inside license-p
	// jats/scielo
	"rba-69-03-0227.xml":                       reject(nc, nd),
	"rsp-48-2-0322.xml":                        reject(nc),
	"rsp-48-2-0366.xml":                        reject(nc),
	"ceramica-QMyWZTMgngWRCDtVJfJH9Cn.xml":     reject(nc),
	"rbef-2021-0153.xml":                       accept(byF),
	"rsp-2025-S0034-89102025000100200.xml":     accept(byF),
	"mediacoes-S2176-66652019000100074.xml":    accept(byF),
	"abc-20210807-MNHpJQpnjvSX6pkKCg37yTJ.xml": accept(byF),
}

// retractionNotices are the JATS files whose SOURCES.md row says
// retraction notice. A notice is a document in its own right (issue 13):
// accepted by its own licence and published with its receipt.
var retractionNotices = []string{"journal.ppat.1005207.xml", "journal.pcbi.0030158.xml"}

// crossrefVerdicts is transcribed from shared/fixtures/crossref/SOURCES.md
// ("Licence arrays to test"); every other Crossref work there is "REJECT".
var crossrefVerdicts = map[string]verdict{
	"10.7554/elife.01567":         accept(byF),    // vor by/3.0
	"10.1002/cfg.158":             accept(byF),    // Hindawi vor by/3.0, line duplicated
	"10.1006/mthe.2001.0464":      reject(nc, nd), // Elsevier tdm + vor by-nc-nd
	"10.1007/s10107-009-0306-5":   reject(tdm),    // Springer tdm only
	"10.1109/infvis.2005.1532150": reject(miss),   // IEEE, no licence
	"10.1109/mitp.2002.1041177":   reject(miss),   // IEEE, no licence
	// Wiley: tdm only in the sample, tdm + vor by-nc-nd in the single file.
	"10.1002/(sici)1097-461x(1998)66:4<261::aid-qua1>3.0.co;2-t": reject(nc, nd, tdm),
}

// observed is what the readers handed to the merger, recorded on the way
// (the run itself is the CLI's code path; the recorder only watches).
type observed struct {
	mu   sync.Mutex
	docs []ingest.Document
	dels []ingest.Deletion
}

type observer struct {
	ingest.Sink
	o *observed
}

func (s observer) Document(d *ingest.Document) error {
	c, _ := clone(d)
	s.o.mu.Lock()
	s.o.docs = append(s.o.docs, *c)
	s.o.mu.Unlock()
	return s.Sink.Document(d)
}

func (s observer) Delete(del ingest.Deletion) error {
	s.o.mu.Lock()
	s.o.dels = append(s.o.dels, del)
	s.o.mu.Unlock()
	return s.Sink.Delete(del)
}

func watch(rs detect.Readers, o *observed) detect.Readers {
	out := detect.Readers{}
	for f, read := range rs {
		out[f] = func(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
			return read(ctx, r, origin, observer{sink, o})
		}
	}
	return out
}

// published is one row of documents.parquet.
type published struct {
	ID, Aliases, DOI, PMID, OpenAlex, License, Origin, Sources, Topics string
	Updated                                                            sql.NullInt64
}

// TestAcceptanceFixtures ingests the whole shared corpus exactly as
// `openshelf ingest --data DIR fixtures/` does, then checks every licence
// verdict of the fixtures' SOURCES.md files against what was decided and
// what was published, and that no rejected document reaches any published
// table or bundle.
func TestAcceptanceFixtures(t *testing.T) {
	dir := fixtures.Dir(t)
	data := t.TempDir()
	obs := &observed{}
	var inputs []Input
	for _, p := range fixtures.Corpus(t) {
		inputs = append(inputs, Input{Path: p})
	}
	sum, err := Run(context.Background(), Config{
		DataDir: data,
		Inputs:  inputs,
		Fresh:   true,
		Now:     time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC),
		Readers: watch(detect.Default(), obs),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	var text strings.Builder
	sum.WriteText(&text)
	t.Log(text.String())

	// Inputs: 68 data files, the ten SOURCES.md skipped, nothing unreadable.
	if sum.Skipped != 9 {
		t.Errorf("skipped %d files, want the 9 SOURCES.md of the corpus directories", sum.Skipped)
	}
	for _, s := range sum.SkippedFiles {
		if filepath.Base(s.Path) != "SOURCES.md" {
			t.Errorf("skipped a data file: %s: %s", s.Path, s.Reason)
		}
	}
	if sum.Problems != 0 {
		t.Errorf("%d problems: %v", sum.Problems, sum.ProblemList)
	}

	snap, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if snap.ID != sum.Snapshot {
		t.Errorf("current is %s, summary says %s", snap.ID, sum.Snapshot)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	docs := queryDocuments(t, db, snap)
	byOrigin := map[string][]published{}
	byDOI := map[string]published{}
	publishedIDs, bundleIDs := publishedSet(t, db, snap, docs) // id or alias -> table
	for _, d := range docs {
		byOrigin[d.Origin] = append(byOrigin[d.Origin], d)
		if d.DOI != "" {
			byDOI[d.DOI] = d
		}
		if !slices.Contains(licence.Families, licence.Family(d.License)) {
			t.Errorf("published %s with licence %q", d.ID, d.License)
		}
		if d.Topics == "" {
			t.Errorf("published %s without a topic", d.ID)
		}
		if d.Sources == "pubmed" {
			t.Errorf("published %s from PubMed alone (PubMed has no reuse licence)", d.ID)
		}
	}
	if int64(len(docs)) != sum.Accepted {
		t.Errorf("documents.parquet has %d rows, summary accepted %d", len(docs), sum.Accepted)
	}
	// Every published document has its licence receipt, and one of its
	// rows names the published family (issue 13).
	receipts := queryReceipts(t, db, snap)
	for _, d := range docs {
		rs := receipts[d.ID]
		if !slices.ContainsFunc(rs, func(r receipt) bool { return r.Family == d.License }) {
			t.Errorf("published %s (%s) has no receipt naming %s: %+v", d.ID, d.License, d.License, rs)
		}
	}
	for id := range receipts {
		if publishedIDs[id] != "documents" {
			t.Errorf("receipt for %s, which is not published", id)
		}
	}

	rejects := map[string]string{} // source_id -> reason
	rejectPaths := map[string]string{}
	rows, err := db.Query(fmt.Sprintf(`SELECT path, source_id, reason FROM read_parquet('%s')`, snap.Path(snapshot.Rejects)))
	if err != nil {
		t.Fatal(err)
	}
	nrejects := 0
	for rows.Next() {
		var path, id, reason string
		if err := rows.Scan(&path, &id, &reason); err != nil {
			t.Fatal(err)
		}
		nrejects++
		rejects[id] = reason
		rejectPaths[path] = reason
		if where, ok := publishedIDs[id]; ok {
			t.Errorf("REJECTED %s (%s, %s) is published in %s", id, reason, path, where)
		}
		if _, ok := bundleIDs[id]; ok {
			t.Errorf("REJECTED %s (%s, %s) is in a bundle", id, reason, path)
		}
	}
	rows.Close()
	if int64(nrejects) != sum.Rejected {
		t.Errorf("rejects.parquet has %d rows, summary rejected %d", nrejects, sum.Rejected)
	}

	// JATS: every file's decision, then its publication.
	seen := map[string]int{}
	for _, d := range obs.docs {
		name := filepath.Base(d.Origin)
		want, ok := jatsVerdicts[name]
		if !ok || !strings.Contains(filepath.ToSlash(d.Origin), "/jats/") {
			continue
		}
		seen[name]++
		if !want.allows(d.Licence) {
			t.Errorf("%s: decided %s, want %v (SOURCES.md); detail: %s", name, describe(d.Licence), want, d.Licence.Detail)
		}
		if d.Retracted {
			t.Errorf("%s: retracted, but no JATS fixture is a retracted work", name)
		}
		if slices.Contains(retractionNotices, name) && (d.Type != "retraction" || !d.Licence.Accepted) {
			t.Errorf("%s: retraction notice read as type %q, %s; want a published retraction", name, d.Type, describe(d.Licence))
		}
		pubs := byOrigin[d.Origin]
		switch {
		case d.Licence.Accepted:
			if len(pubs) != 1 || pubs[0].License != string(d.Licence.Family) {
				t.Errorf("%s: accepted as %s but published as %+v", name, d.Licence.Family, pubs)
			}
		default:
			if len(pubs) != 0 {
				t.Errorf("%s: %s but PUBLISHED as %+v", name, describe(d.Licence), pubs)
			}
			for _, id := range d.IDs() {
				if where, ok := publishedIDs[id]; ok {
					t.Errorf("%s: %s but its id %s is PUBLISHED in %s", name, describe(d.Licence), id, where)
				}
			}
			if d.DOI != "" {
				if _, ok := byDOI[ingest.NormaliseDOI(d.DOI)]; ok {
					t.Errorf("%s: %s but its DOI %s is PUBLISHED", name, describe(d.Licence), d.DOI)
				}
			}
			if !d.Licence.Accepted && rejectPaths[d.Origin] != string(d.Licence.Reason) {
				t.Errorf("%s: rejects.parquet has reason %q for it, want %q", name, rejectPaths[d.Origin], d.Licence.Reason)
			}
		}
	}
	for name := range jatsVerdicts {
		if seen[name] != 1 {
			t.Errorf("%s: read %d times, want once", name, seen[name])
		}
	}
	if len(jatsVerdicts) != 55 {
		t.Errorf("the verdict table has %d JATS files, the corpus 55", len(jatsVerdicts))
	}

	// Crossref: the works named in SOURCES.md, and every other one rejected.
	crossrefDOIs := map[string]bool{}
	for _, d := range obs.docs {
		if slices.Contains(d.Sources, "crossref") {
			crossrefDOIs[ingest.NormaliseDOI(d.DOI)] = true
		}
	}
	if len(crossrefDOIs) < 30 {
		t.Errorf("only %d Crossref works read", len(crossrefDOIs))
	}
	for doi := range crossrefVerdicts {
		if !crossrefDOIs[doi] {
			t.Errorf("crossref %s: not read", doi)
		}
	}
	for doi := range crossrefDOIs {
		want, ok := crossrefVerdicts[doi]
		if !ok {
			want = reject()
		}
		pub, isPub := byDOI[doi]
		switch {
		case isPub && !want.allows(licence.Decision{Accepted: true, Family: licence.Family(pub.License)}):
			t.Errorf("crossref %s: PUBLISHED as %s, want %v", doi, pub.License, want)
		case !isPub && !want.allows(licence.Decision{Reason: licence.Reason(rejects[ingest.DOIID(doi)])}):
			t.Errorf("crossref %s: rejected as %q, want %v", doi, rejects[ingest.DOIID(doi)], want)
		}
	}
	for _, doi := range []string{"10.7554/elife.01567", "10.1002/cfg.158"} {
		n := 0
		for _, d := range docs {
			if d.DOI == doi {
				n++
			}
		}
		if n != 1 {
			t.Errorf("crossref %s published %d times, want once", doi, n)
		}
	}

	// OpenAlex: the newest version of each work wins, no work twice,
	// location licences that are not licences publish nothing, and the
	// suspicious labels of SOURCES.md do not become licences.
	newest := map[string]int64{}
	for _, d := range obs.docs {
		if slices.Contains(d.Sources, "openalex") && !d.Updated.IsZero() {
			newest[d.OpenAlex] = max(newest[d.OpenAlex], d.Updated.Unix())
		}
	}
	if len(newest) != 292 {
		t.Errorf("%d distinct OpenAlex works read, the sample has 292", len(newest))
	}
	oaPublished := map[string]bool{}
	for _, d := range docs {
		if d.OpenAlex == "" {
			continue
		}
		if oaPublished[d.OpenAlex] {
			t.Errorf("OpenAlex %s published twice", d.OpenAlex)
		}
		oaPublished[d.OpenAlex] = true
		if n, ok := newest[d.OpenAlex]; ok && (!d.Updated.Valid || d.Updated.Int64 != n) {
			t.Errorf("OpenAlex %s: published version updated %v, the newest is %d", d.OpenAlex, d.Updated, n)
		}
	}
	if sum.Superseded < 83+30 {
		t.Errorf("superseded %d records; the 83 older versions and the 30-work subset must be", sum.Superseded)
	}
	if oaPublished["W1621318800"] {
		t.Error("W1621318800 (Nature 1992 labelled public-domain) is published; SOURCES.md: confirm against the source first")
	}
	for _, w := range []string{"W2144516619", "W2122299184", "W1481692236"} {
		for _, d := range docs {
			if d.OpenAlex == w && d.License == string(licence.CCBYSA) {
				t.Errorf("%s published as CC-BY-SA from a wrong SHILAP repository location", w)
			}
		}
	}
	for w, lic := range openalexLicences(t, dir) {
		if oaPublished[w] && !lic {
			t.Errorf("OpenAlex %s is published but none of its locations carries an open licence", w)
		}
	}

	// PubMed: deleted citations are not published.
	if len(obs.dels) == 0 {
		t.Error("no DeleteCitation seen in pubmedsample_2019.xml")
	}
	for _, del := range obs.dels {
		if where, ok := publishedIDs[del.ID]; ok {
			t.Errorf("deleted %s is published in %s", del.ID, where)
		}
	}
}

// publishedSet returns every id the snapshot publishes, mapped to the first
// table that holds it (documents, aliases, fulltext, references, the
// search index, the licence receipts), and the ids in its bundles.
func publishedSet(t *testing.T, db *sql.DB, snap *snapshot.Snapshot, docs []published) (map[string]string, map[string]bool) {
	t.Helper()
	ids := map[string]string{}
	for _, d := range docs {
		ids[d.ID] = "documents"
		for _, a := range split(d.Aliases) {
			ids[a] = "documents.aliases"
		}
	}
	for _, tc := range [][2]string{
		{snapshot.Fulltext, "id"}, {snapshot.References, "id"}, {snapshot.SearchDocs, "id"},
		{snapshot.Aliases, "alias"}, {snapshot.Aliases, "id"},
	} {
		for _, id := range queryColumn(t, db, snap.Path(tc[0]), tc[1]) {
			if _, ok := ids[id]; !ok {
				ids[id] = tc[0]
			}
		}
	}
	bundleIDs := readBundles(t, db, snap)
	for id := range bundleIDs {
		if _, ok := ids[id]; !ok {
			t.Errorf("bundle line %s is not in documents.parquet", id)
		}
	}
	return ids, bundleIDs
}

// receipt is one row of licence_evidence.parquet.
type receipt struct {
	ID, Source, Kind, Path, Value, SPDX, Family, AppliesTo, Input, SHA256 string
	ReadAt                                                                sql.NullTime
}

// queryReceipts reads licence_evidence.parquet by document id and checks
// that every row says where it was read, from which input and when, and
// that the input's checksum is the manifest's.
func queryReceipts(t *testing.T, db *sql.DB, snap *snapshot.Snapshot) map[string][]receipt {
	t.Helper()
	digests := map[string]string{}
	for _, in := range snap.Manifest.Inputs {
		digests[in.Path] = in.SHA256
	}
	rows, err := db.Query(fmt.Sprintf(`SELECT id, source, kind, path, value, spdx, family, applies_to, input, input_sha256, read_at
		FROM read_parquet('%s') ORDER BY id, ordinal`, snap.Path(snapshot.LicenceEvidence)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string][]receipt{}
	for rows.Next() {
		var r receipt
		if err := rows.Scan(&r.ID, &r.Source, &r.Kind, &r.Path, &r.Value, &r.SPDX, &r.Family, &r.AppliesTo, &r.Input, &r.SHA256, &r.ReadAt); err != nil {
			t.Fatal(err)
		}
		file, _, _ := strings.Cut(r.Input, "!")
		if r.Path == "" || r.Input == "" || !r.ReadAt.Valid || r.AppliesTo == "" || r.SHA256 == "" || digests[file] != r.SHA256 {
			t.Errorf("incomplete receipt: %+v (manifest sha256 %q)", r, digests[file])
		}
		out[r.ID] = append(out[r.ID], r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func describe(d licence.Decision) string {
	if d.Accepted {
		return "accept " + string(d.Family)
	}
	return "reject " + string(d.Reason)
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "|")
}

func queryDocuments(t *testing.T, db *sql.DB, snap *snapshot.Snapshot) []published {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf(`SELECT id, array_to_string(aliases, '|'), doi, pmid, openalex, license, origin,
		array_to_string(sources, '|'), array_to_string(topics, '|'), CAST(floor(epoch(updated)) AS BIGINT)
		FROM read_parquet('%s') ORDER BY id`, snap.Path(snapshot.Documents)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []published
	for rows.Next() {
		var p published
		var aliases, sources, topics sql.NullString
		if err := rows.Scan(&p.ID, &aliases, &p.DOI, &p.PMID, &p.OpenAlex, &p.License, &p.Origin, &sources, &topics, &p.Updated); err != nil {
			t.Fatal(err)
		}
		p.Aliases, p.Sources, p.Topics = aliases.String, sources.String, topics.String
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func queryColumn(t *testing.T, db *sql.DB, path, col string) []string {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf(`SELECT DISTINCT %s FROM read_parquet('%s')`, col, path))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

// readBundles decompresses every bundle listed in topics.parquet, checks
// its lines against the row and returns the ids it holds.
func readBundles(t *testing.T, db *sql.DB, snap *snapshot.Snapshot) map[string]bool {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf(`SELECT slug, documents FROM read_parquet('%s')`, snap.Path(snapshot.Topics)))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	ids := map[string]bool{}
	for rows.Next() {
		var slug string
		var n int64
		if err := rows.Scan(&slug, &n); err != nil {
			t.Fatal(err)
		}
		path, err := snap.BundlePath(slug)
		if err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(path)
		if err != nil {
			if n == 0 && os.IsNotExist(err) {
				continue
			}
			t.Fatalf("bundle %s: %v", slug, err)
		}
		zr, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(zr)
		sc.Buffer(nil, 64<<20)
		var lines int64
		for sc.Scan() {
			var line struct {
				ID      string   `json:"id"`
				License string   `json:"license"`
				Topics  []string `json:"topics"`
			}
			if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
				t.Fatalf("bundle %s line %d: %v", slug, lines+1, err)
			}
			lines++
			ids[line.ID] = true
			if !slices.Contains(licence.Families, licence.Family(line.License)) {
				t.Errorf("bundle %s: %s with licence %q", slug, line.ID, line.License)
			}
			if !slices.Contains(line.Topics, slug) {
				t.Errorf("bundle %s: %s has topics %v", slug, line.ID, line.Topics)
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatalf("bundle %s: %v", slug, err)
		}
		zr.Close()
		f.Close()
		if lines != n {
			t.Errorf("bundle %s has %d lines, topics.parquet says %d", slug, lines, n)
		}
	}
	return ids
}

// openalexLicences reports, for every work of the OpenAlex sample, whether
// any of its locations states an open licence value (not other-oa, not
// null), read straight from the fixture.
func openalexLicences(t *testing.T, dir string) map[string]bool {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "openalex", "works_sample.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, rc, err := detect.Sniff(f)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	type loc struct {
		License *string `json:"license"`
	}
	open := map[string]bool{"cc-by": true, "cc-by-sa": true, "cc0": true, "public-domain": true}
	out := map[string]bool{}
	sc := bufio.NewScanner(rc)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var w struct {
			ID        string `json:"id"`
			Primary   *loc   `json:"primary_location"`
			Best      *loc   `json:"best_oa_location"`
			Locations []loc  `json:"locations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			t.Fatal(err)
		}
		id := ingest.NormaliseOpenAlex(w.ID)
		locs := append([]loc{}, w.Locations...)
		for _, l := range []*loc{w.Primary, w.Best} {
			if l != nil {
				locs = append(locs, *l)
			}
		}
		for _, l := range locs {
			if l.License != nil && open[*l.License] {
				out[id] = true
			}
		}
		if !out[id] {
			out[id] = false
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Fooling cases (issue 13). The records below are written for this test;
// they follow the documented formats of the fixture corpus: JATS 1.2
// front/article-meta/permissions (jats/*/SOURCES.md), a PMC OAI-PMH
// GetRecord envelope, Crossref works JSON Lines (license[] with URL,
// content-version, start) and OpenAlex works JSON Lines (locations with
// license, version, is_oa).

const (
	ccBY    = "http://creativecommons.org/licenses/by/4.0/"
	ccBYNC  = "http://creativecommons.org/licenses/by-nc/4.0/"
	ccBYND  = "https://creativecommons.org/licenses/by-nd/4.0/"
	jatsNS  = `xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:ali="http://www.niso.org/schemas/ali/1.0/"`
	jatsMid = `<title-group><article-title>Sample %[1]s on microbial ecology</article-title></title-group>` +
		`<pub-date pub-type="epub"><year>2020</year></pub-date>` +
		`<kwd-group><kwd>microbiology</kwd></kwd-group>`
)

// jatsArticle is a publisher article with DOI 10.5555/<name> whose
// article-meta ends with meta, followed by extra inside <article>.
func jatsArticle(name, articleType, meta, extra string) string {
	return `<?xml version="1.0"?><article ` + jatsNS + ` article-type="` + articleType + `"><front>` +
		`<journal-meta><journal-title-group><journal-title>Sample Journal</journal-title></journal-title-group></journal-meta>` +
		`<article-meta><article-id pub-id-type="doi">10.5555/` + name + `</article-id>` +
		fmt.Sprintf(jatsMid, name) + meta + `</article-meta></front>` +
		`<body><sec><title>Results</title><p>Body text of ` + name + `.</p></sec></body>` + extra + `</article>`
}

func permissions(inner string) string { return `<permissions>` + inner + `</permissions>` }
func license(href, p string) string {
	return `<license xlink:href="` + href + `"><license-p>` + p + `</license-p></license>`
}

func TestAcceptanceFoolingCases(t *testing.T) {
	byP := license(ccBY, "This article is distributed under the Creative Commons Attribution License.")
	jats := map[string]struct {
		xml    string
		accept bool
	}{
		// Controls: prove the test can see a published document.
		"control-cc-by": {jatsArticle("control-cc-by", "research-article", permissions(byP), ""), true},
		"retraction-notice": {jatsArticle("retraction-notice", "retraction",
			`<related-article related-article-type="retracted-article" xlink:href="10.5555/x"/>`+permissions(byP), ""), true},
		// A non-commercial licence in a second article-meta.
		"second-article-meta": {strings.Replace(jatsArticle("second-article-meta", "research-article", permissions(byP), ""),
			`</article-meta></front>`, `</article-meta><article-meta>`+permissions(license(ccBYNC, "Non-commercial use only."))+`</article-meta></front>`, 1), false},
		// ... in a second <front>.
		"second-front": {strings.Replace(jatsArticle("second-front", "research-article", permissions(byP), ""),
			`</front>`, `</front><front><article-meta>`+permissions(license(ccBYNC, ""))+`</article-meta></front>`, 1), false},
		// A sub-article's licence is its own: a more restrictive one does
		// not reject the article, whose served text leaves the sub-article
		// out (checked below) ...
		"sub-article": {jatsArticle("sub-article", "research-article", permissions(byP),
			`<sub-article article-type="reply"><front-stub>`+permissions(license(ccBYNC, ""))+`</front-stub><body><p>Reply.</p></body></sub-article>`), true},
		// ... and CC BY only in a sub-article leaves the article unlicensed.
		"sub-article-only": {jatsArticle("sub-article-only", "research-article",
			permissions(`<copyright-statement>© 2020 Sample Press</copyright-statement>`),
			`<sub-article article-type="ref-report"><front-stub>`+permissions(byP)+`</front-stub><body><p>Report.</p></body></sub-article>`), false},
		// Generic or conditional reservation wording in copyright-statement
		// beside an express CC BY grant (OUP, BMJ) does not override it ...
		"copyright-all-rights-reserved": {jatsArticle("copyright-all-rights-reserved", "research-article",
			permissions(`<copyright-statement>© 2020 Sample Press. All rights reserved.</copyright-statement>`+byP), ""), true},
		"copyright-conditional": {jatsArticle("copyright-conditional", "research-article",
			permissions(`<copyright-statement>© Article author(s) (or their employer(s) unless otherwise stated in the text of the article) 2020. `+
				`All rights reserved. No commercial use is permitted unless otherwise expressly granted.</copyright-statement>`+byP), ""), true},
		// ... an unconditional restriction there does.
		"copyright-not-commercial": {jatsArticle("copyright-not-commercial", "research-article",
			permissions(`<copyright-statement>© 2020 The Authors. Not for commercial use.</copyright-statement>`+byP), ""), false},
		"copyright-reservation-only": {jatsArticle("copyright-reservation-only", "research-article",
			permissions(`<copyright-statement>© 2020 Sample Press. All rights reserved.</copyright-statement>`), ""), false},
		// Two <license> elements disagreeing.
		"two-licenses": {jatsArticle("two-licenses", "research-article", permissions(byP+license("http://creativecommons.org/licenses/by-nc-nd/4.0/", "")), ""), false},
		// Non-commercial text under a CC BY href.
		"nc-text-under-by": {jatsArticle("nc-text-under-by", "research-article",
			permissions(license(ccBY, "Free to use for non-commercial purposes only.")), ""), false},
		// No derivatives.
		"nd": {jatsArticle("nd", "research-article",
			permissions(`<license><ali:license_ref>`+ccBYND+`</ali:license_ref></license>`), ""), false},
		// CC BY that starts in the future.
		"future-cc-by": {jatsArticle("future-cc-by", "research-article",
			permissions(`<license><ali:license_ref start_date="2031-01-01">`+ccBY+`</ali:license_ref></license>`), ""), false},
	}
	// An OAI-PMH-wrapped record: CC BY href, non-commercial license-p.
	oai := `<?xml version="1.0"?><OAI-PMH xmlns="http://www.openarchives.org/OAI/2.0/"><responseDate>2026-01-01T00:00:00Z</responseDate>` +
		`<request verb="GetRecord">https://www.ncbi.nlm.nih.gov/pmc/oai/oai.cgi</request><GetRecord><record>` +
		`<header><identifier>oai:pubmedcentral.nih.gov:9990001</identifier><datestamp>2026-01-01</datestamp></header><metadata>` +
		strings.TrimPrefix(jatsArticle("oai-wrapped", "research-article",
			permissions(license(ccBY, "Licensed for noncommercial use only.")), ""), `<?xml version="1.0"?>`) +
		`</metadata></record></GetRecord></OAI-PMH>`

	crossref := []struct {
		doi, licences string
		accept        bool
	}{
		{"10.5555/cr-control", `{"URL":"` + ccBY + `","content-version":"vor","start":{"date-time":"2020-01-01T00:00:00Z"},"delay-in-days":0}`, true},
		// Accepted manuscript is the only licensed version: it is served.
		{"10.5555/cr-am-only", `{"URL":"` + ccBY + `","content-version":"am","start":{"date-time":"2020-01-01T00:00:00Z"},"delay-in-days":0}`, true},
		{"10.5555/cr-tdm-only", `{"URL":"https://www.elsevier.com/tdm/userlicense/1.0/","content-version":"tdm","start":{"date-time":"2020-01-01T00:00:00Z"},"delay-in-days":0}`, false},
		{"10.5555/cr-future", `{"URL":"` + ccBY + `","content-version":"vor","start":{"date-time":"2031-01-01T00:00:00Z"},"delay-in-days":0}`, false},
		{"10.5555/cr-vor-disagree", `{"URL":"` + ccBY + `","content-version":"vor","start":{"date-time":"2020-01-01T00:00:00Z"}},` +
			`{"URL":"` + ccBYNC + `","content-version":"vor","start":{"date-time":"2020-01-01T00:00:00Z"}}`, false},
	}
	openalex := []struct {
		id, locations string
		accept        bool
	}{
		// The only open location is a CC BY preprint: served as that version.
		{"W9990000001", `{"is_oa":true,"license":"cc-by","version":"submittedVersion","source":{"display_name":"Preprint Server"}}`, true},
		{"W9990000002", `{"is_oa":true,"license":"other-oa","version":"publishedVersion"}`, false},
		{"W9990000003", `{"is_oa":true,"license":"cc-by","version":"publishedVersion"},{"is_oa":true,"license":"cc-by-nc-nd","version":"publishedVersion"}`, false},
		{"W9990000004", `{"is_oa":true,"license":null,"version":"publishedVersion"},{"is_oa":true,"license":"cc-by","version":"submittedVersion"}`, false},
	}

	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, c := range jats {
		write(name+".xml", c.xml)
	}
	write("oai-wrapped.xml", oai)
	var cr, oa strings.Builder
	for _, c := range crossref {
		fmt.Fprintf(&cr, `{"DOI":"%s","type":"journal-article","title":["Crossref sample %s"],"container-title":["Sample Journal"],"member":"1","prefix":"10.5555","issued":{"date-parts":[[2020,1,1]]},"subject":["Microbiology"],"license":[%s]}`+"\n",
			c.doi, c.doi, c.licences)
	}
	for _, c := range openalex {
		fmt.Fprintf(&oa, `{"id":"https://openalex.org/%s","doi":null,"title":"OpenAlex sample %s","display_name":"OpenAlex sample %s","publication_year":2020,"publication_date":"2020-01-01","type":"article","authorships":[],"primary_location":null,"best_oa_location":null,"locations":[%s],"updated_date":"2025-01-01T00:00:00","open_access":{"is_oa":true}}`+"\n",
			c.id, c.id, c.id, c.locations)
	}
	write("crossref.jsonl", cr.String())
	write("openalex.jsonl", oa.String())

	data := t.TempDir()
	obs := &observed{}
	sum, err := Run(context.Background(), Config{
		DataDir: data, Inputs: []Input{{Path: dir}}, Fresh: true,
		Now:     time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC),
		Readers: watch(detect.Default(), obs),
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if sum.Problems != 0 || sum.Skipped != 0 {
		t.Errorf("problems %v, skipped %v", sum.ProblemList, sum.SkippedFiles)
	}
	snap, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ids, bundles := publishedSet(t, db, snap, queryDocuments(t, db, snap))
	receipts := map[string]int{}
	for id, rs := range queryReceipts(t, db, snap) {
		receipts[id] = len(rs)
	}

	decided := map[string]ingest.Document{} // by id
	for _, d := range obs.docs {
		decided[d.ID] = d
	}
	check := func(name, id string, accept bool) {
		t.Helper()
		d, ok := decided[id]
		if !ok {
			t.Errorf("%s: %s was not read", name, id)
			return
		}
		where, pub := ids[id]
		switch {
		case accept && (!pub || !bundles[id] || receipts[id] == 0):
			t.Errorf("%s: %s (%s) should be published with a receipt: table %q, bundle %v, receipt %v", name, id, d.Licence.Detail, where, bundles[id], receipts[id] > 0)
		case !accept && d.Licence.Accepted:
			t.Errorf("%s: ACCEPTED %s: %s", name, id, d.Licence.Detail)
		case !accept && (pub || bundles[id] || receipts[id] > 0):
			t.Errorf("%s: rejected %s is PUBLISHED in %q (bundle %v, receipts %d)", name, id, where, bundles[id], receipts[id])
		}
		if !accept {
			t.Logf("%s: %s %s", name, d.Licence.Reason, d.Licence.Detail)
		}
	}
	for name, c := range jats {
		check(name, ingest.DOIID("10.5555/"+name), c.accept)
	}
	check("oai-wrapped", "pmc-9990001", false)
	for _, c := range crossref {
		check(c.doi, ingest.DOIID(c.doi), c.accept)
	}
	for _, c := range openalex {
		check(c.id, "oa-"+strings.ToLower(c.id), c.accept)
	}

	// The receipts say how the reservation and the sub-article licence were
	// read, and the sub-article's text is not served.
	var reading, appliesTo, text string
	if err := db.QueryRow(fmt.Sprintf(`SELECT reading FROM read_parquet('%s') WHERE id = ? AND kind = 'jats-copyright'`,
		snap.Path(snapshot.LicenceEvidence)), ingest.DOIID("10.5555/copyright-conditional")).Scan(&reading); err != nil ||
		reading != licence.ReadingGenericReservation {
		t.Errorf("reservation receipt reading %q, %v", reading, err)
	}
	if err := db.QueryRow(fmt.Sprintf(`SELECT applies_to FROM read_parquet('%s') WHERE id = ? AND path LIKE 'sub-article[1]/%%/@xlink:href'`,
		snap.Path(snapshot.LicenceEvidence)), ingest.DOIID("10.5555/sub-article")).Scan(&appliesTo); err != nil || appliesTo != "sub-article" {
		t.Errorf("sub-article receipt applies to %q, %v", appliesTo, err)
	}
	if err := db.QueryRow(fmt.Sprintf(`SELECT string_agg(array_to_string(paragraphs, ' '), ' ') FROM read_parquet('%s') WHERE id = ?`,
		snap.Path(snapshot.Fulltext)), ingest.DOIID("10.5555/sub-article")).Scan(&text); err != nil ||
		!strings.Contains(text, "Body text of sub-article.") || strings.Contains(text, "Reply.") {
		t.Errorf("served full text %q, %v", text, err)
	}
}

package upstreamfake

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The two-night scenario shared by the nightly tests and the command's
// crash tests. Every body is a shared fixture read in place, or derived
// from one as said at each step.

// EnrichedPMID is the PMID of PMC5828200 (shared/fixtures/jats/pmc/
// PMC5828200.nxml), which the night-1 PubMed file enriches and the night-2
// file deletes.
const (
	EnrichedPMCID = "PMC5828200"
	EnrichedPMID  = "29535835"
	// EnrichedSubject is a MeSH heading only the PubMed record brings.
	EnrichedSubject = "Career Choice"
)

// Pipeline returns a pipeline definition with the five remote sources
// pointed at the server, as pipelines/nightly.toml defines them (cursors
// starting on 2026-01-01).
func (s *Server) Pipeline() string {
	return fmt.Sprintf(`name = "nightly-test"
licences = ["CC0", "PDM", "CC-BY", "CC-BY-SA"]

[[source]]
name = "pmc-oa"
kind = "s3-inventory"
url = "s3://pmc-oa-opendata/"
format = "jats"
include = ["metadata/PMC*.json"]
[source.params]
inventory = %[2]q
https_mirror = "%[1]s/pmc/"
require = "is_pmc_openaccess"
skip_retracted = "true"
[source.cursor]
kind = "inventory-etag"
state = "pmc-oa-inventory"

[[source]]
name = "pubmed-baseline"
kind = "file-sequence"
url = "%[1]s/pubmed/baseline/"
format = "pubmed"
include = ["pubmed*n*.xml.gz"]
[source.params]
checksum = "md5"
[source.cursor]
kind = "sequence"
state = "pubmed-baseline"

[[source]]
name = "pubmed-updates"
kind = "file-sequence"
url = "%[1]s/pubmed/updatefiles/"
format = "pubmed"
include = ["pubmed*n*.xml.gz"]
[source.params]
checksum = "md5"
[source.cursor]
kind = "sequence"
state = "pubmed-updatefiles"

[[source]]
name = "openalex-works"
kind = "s3-partitions"
url = "s3://openalex/data/jsonl/works/"
format = "openalex"
include = ["updated_date=*/part_*.gz"]
[source.params]
https_mirror = "%[1]s/openalex/"
layout = "jsonl"
merged_ids = "s3://openalex/legacy-data/merged_ids/works/"
[source.cursor]
kind = "partition-date"
start = "2026-01-01"
state = "openalex-works"

[[source]]
name = "crossref-works"
kind = "rest-cursor"
url = "%[1]s/crossref/works"
format = "crossref"
[source.params]
filter = "has-license:true"
date_filter = "from-index-date"
rows = "1000"
mailto = "archive-ops@openshelf.example"
[source.cursor]
kind = "index-date"
start = "2026-01-01"
overlap = "48h"
state = "crossref-works"
`, s.URL, PMCInventoryPrefix)
}

// WritePipeline writes Pipeline() into dir and returns its path.
func (s *Server) WritePipeline(dir string) (string, error) {
	p := filepath.Join(dir, "nightly-test.toml")
	return p, os.WriteFile(p, []byte(s.Pipeline()), 0o644)
}

func read(fix string, elem ...string) ([]byte, error) {
	return os.ReadFile(filepath.Join(append([]string{fix}, elem...)...))
}

// Night1 publishes the first night's upstream state.
func (s *Server) Night1(fix string) error {
	arts, err := Night1PMC(fix)
	if err != nil {
		return err
	}
	s.PublishPMC("2026-11-23T01-00Z", arts)

	// PubMed: the real record of shared/fixtures/pubmed/pubmed_31393839.xml
	// (a bare PubmedArticle, three MeSH headings) given PMC5828200's PMID,
	// so that it enriches that article, wrapped in the PubmedArticleSet of
	// a baseline file, and sent again (a revised citation) in the first
	// update file. Derived: only the PMID digits and the wrapper change.
	rec, err := read(fix, "pubmed", "pubmed_31393839.xml")
	if err != nil {
		return err
	}
	rec = bytes.ReplaceAll(rec, []byte("31393839"), []byte(EnrichedPMID))
	set := append(append([]byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PubmedArticleSet>\n"), rec...), []byte("\n</PubmedArticleSet>\n")...)
	s.PutPubMedIn("baseline", "pubmed26n0001.xml.gz", set)
	s.PutPubMed("pubmed26n1001.xml.gz", set)

	lines, err := OpenAlexLines(fix, 0, 10)
	if err != nil {
		return err
	}
	s.PublishOpenAlex([]OpenAlexPart{{Date: "2026-01-10", Lines: lines}})

	star, err := read(fix, "upstreams", "scholarly", "crossref_works_query_widget_cursor_star.json")
	if err != nil {
		return err
	}
	page2, err := read(fix, "upstreams", "scholarly", "crossref_works_query_widget_cursor_page2.json")
	if err != nil {
		return err
	}
	s.CrossrefPages("2026-01-01", star, page2)
	return nil
}

// OpenAlexNight1Part is the path of night 1's OpenAlex part on the server.
const OpenAlexNight1Part = "/openalex/" + OpenAlexWorks + "updated_date=2026-01-10/part_0000.gz"

// Night1Now and Night2Now are the run times of the two nights.
const (
	Night1Now = "2026-11-24T03:30:00Z"
	Night2Now = "2026-11-25T03:30:00Z"
)

// Night1PMC returns night 1's PMC articles (the shared JATS fixtures read
// in place, with their metadata as said in Night1).
func Night1PMC(fix string) ([]PMCArticle, error) {
	type src struct {
		file, pmcid, pmid, lic string
		oa                     bool
	}
	var arts []PMCArticle
	for _, a := range []src{
		{"PMC5828200.nxml", "PMC5828200", EnrichedPMID, "CC BY", true},
		{"PMC6398430.nxml", "PMC6398430", "30846892", "CC BY", true},
		// A non-commercial licence: never downloaded.
		{"mds526.nxml", "PMC3574550", "23149571", "CC BY-NC", true},
		// An author manuscript of the TDM dataset: never downloaded.
		{"pone.0000217.nxml", "PMC1790863", "17299597", "TDM", false},
	} {
		x, err := read(fix, "jats", "pmc", a.file)
		if err != nil {
			return nil, err
		}
		arts = append(arts, PMCArticle{PMCID: a.pmcid, Version: 1, PMID: a.pmid, LicenseCode: a.lic, OpenAccess: a.oa, XML: x})
	}
	return arts, nil
}

// Night2 publishes the second night's changes on top of night 1.
func (s *Server) Night2(fix string) error {
	arts, err := Night1PMC(fix)
	if err != nil {
		return err
	}
	// PMC5828200 gets a version 2 (same JATS, a corrected copy: one
	// character of whitespace added, so its ETag and md5 change), and
	// PMC7417471 is new.
	v2 := arts[0]
	v2.Version = 2
	v2.XML = append(bytes.Clone(v2.XML), '\n')
	x, err := read(fix, "jats", "pmc", "PMC7417471.nxml")
	if err != nil {
		return err
	}
	arts = append(arts, v2, PMCArticle{PMCID: "PMC7417471", Version: 1, PMID: "32776254", LicenseCode: "CC BY", OpenAccess: true, XML: x})
	s.PublishPMC("2026-11-24T01-00Z", arts)

	// PubMed: a DeleteCitation of the enriching record. Written here in the
	// format of the DeleteCitation block of the real update file excerpt
	// shared/fixtures/upstreams/scholarly/pubmed_update_excerpt_with_DeleteCitation.xml.
	s.PutPubMed("pubmed26n1002.xml.gz", []byte("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PubmedArticleSet>\n<DeleteCitation>\n<PMID Version=\"1\">"+EnrichedPMID+"</PMID>\n</DeleteCitation>\n</PubmedArticleSet>\n"))

	// OpenAlex: a new partition with the next five works, and a merge of
	// a night-1 work into another one (MergePair), in the 2026 layout.
	first, err := OpenAlexLines(fix, 0, 10)
	if err != nil {
		return err
	}
	more, err := OpenAlexLines(fix, 10, 15)
	if err != nil {
		return err
	}
	s.PublishOpenAlex([]OpenAlexPart{{Date: "2026-01-10", Lines: first}, {Date: "2026-02-01", Lines: more}})
	old, survivor, err := MergePair(fix)
	if err != nil {
		return err
	}
	s.PutMergedIDs("2026-02-01", [][2]string{{old, survivor}})

	// Crossref: the delta from 2026-11-22 (night 1's date minus the 48 h
	// overlap) is the second real page.
	page2, err := read(fix, "upstreams", "scholarly", "crossref_works_query_widget_cursor_page2.json")
	if err != nil {
		return err
	}
	s.CrossrefPages("2026-11-22", page2)
	return nil
}

// OpenAlexLines returns lines [from, to) of shared/fixtures/openalex/
// works_with_licences.jsonl (real OpenAlex works).
func OpenAlexLines(fix string, from, to int) ([]byte, error) {
	f, err := os.Open(filepath.Join(fix, "openalex", "works_with_licences.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []byte
	for i := 0; sc.Scan() && i < to; i++ {
		if i >= from {
			out = append(append(out, sc.Bytes()...), '\n')
		}
	}
	return out, sc.Err()
}

// MergePair returns the OpenAlex ids (W...) of the fourth and the first
// works of the night-1 partition (a CC BY-SA repository copy and a CC BY
// article): the fourth is merged into the first on night 2.
func MergePair(fix string) (old, survivor string, err error) {
	lines, err := OpenAlexLines(fix, 0, 4)
	if err != nil {
		return "", "", err
	}
	var ids []string
	for _, l := range strings.Split(strings.TrimSpace(string(lines)), "\n") {
		i := strings.Index(l, `"https://openalex.org/W`)
		if i < 0 {
			return "", "", fmt.Errorf("no OpenAlex id in %.80s", l)
		}
		rest := l[i+len(`"https://openalex.org/`):]
		ids = append(ids, rest[:strings.IndexByte(rest, '"')])
	}
	return ids[3], ids[0], nil
}

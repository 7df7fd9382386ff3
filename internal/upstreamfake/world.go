package upstreamfake

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
)

// PMCArticle is one article version of the fake PMC bucket.
type PMCArticle struct {
	PMCID       string // "PMC5828200"
	Version     int
	PMID        string
	DOI         string
	LicenseCode string // "" for null
	OpenAccess  bool
	Retracted   bool
	XML         []byte // the JATS article
	// File, when set instead of XML, is the article on disk and MD5 its
	// digest (large corpora are served from disk).
	File, MD5 string
}

func (a PMCArticle) md5() string {
	if a.File != "" {
		return a.MD5
	}
	return MD5(a.XML)
}

// Metadata returns the article's metadata/PMCxxx.N.json. No complete real
// copy is public (shared/fixtures/upstreams/SOURCES.md, "Not found"); this
// sample follows the documented field list and value forms of the bucket's
// README (shared/docs/sources.md section 2.2): pmcid with its PMC prefix,
// integer version and pmid, S3 URLs carrying ?md5=.
func (a PMCArticle) Metadata() []byte {
	var lic any
	if a.LicenseCode != "" {
		lic = a.LicenseCode
	}
	v := fmt.Sprintf("%s.%d", a.PMCID, a.Version)
	m := map[string]any{
		"pmcid": a.PMCID, "version": a.Version, "pmid": json.Number(orZero(a.PMID)), "doi": a.DOI,
		"title": "", "citation": "", "is_pmc_openaccess": a.OpenAccess, "is_manuscript": !a.OpenAccess,
		"is_historical_ocr": false, "is_retracted": a.Retracted, "license_code": lic,
		"xml_url":    fmt.Sprintf("s3://pmc-oa-opendata/%s/%s.xml?md5=%s", v, v, a.md5()),
		"text_url":   fmt.Sprintf("s3://pmc-oa-opendata/%s/%s.txt?md5=%s", v, v, MD5(nil)),
		"pdf_url":    nil,
		"media_urls": []string{},
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return b
}

func orZero(s string) string {
	if s == "" {
		return "0"
	}
	return s
}

// PMCInventoryPrefix is where the fake bucket keeps its metadata
// inventory reports (the pipeline's params.inventory).
const PMCInventoryPrefix = "inventory-reports/pmc-oa-opendata/metadata/"

// PublishPMC puts every article's metadata and XML in the /pmc/ bucket and
// publishes an inventory report dated date (2026-11-24T01-00Z) listing
// the metadata keys. The manifest follows the Amazon S3 Inventory format of
// shared/fixtures/upstreams/scholarly/s3_inventory_manifest.aws-docs-example.json
// (CSV files, fileSchema naming the columns); the CSV rows are quoted,
// keys URL-encoded, as S3 Inventory writes them.
func (s *Server) PublishPMC(date string, arts []PMCArticle) {
	var rows bytes.Buffer
	cw := csv.NewWriter(&rows)
	cw.UseCRLF = false
	for _, a := range arts {
		v := fmt.Sprintf("%s.%d", a.PMCID, a.Version)
		meta := a.Metadata()
		s.Put("/pmc/metadata/"+v+".json", meta)
		if a.File != "" {
			s.PutFile("/pmc/"+v+"/"+v+".xml", a.File)
		} else {
			s.Put("/pmc/"+v+"/"+v+".xml", a.XML)
		}
		cw.Write([]string{"pmc-oa-opendata", "metadata/" + v + ".json", fmt.Sprint(len(meta)), "2026-11-23T11:47:59.000Z", MD5(meta)})
	}
	cw.Flush()
	data := Gzip(rows.Bytes())
	dataKey := "inventory-reports/pmc-oa-opendata/metadata/data/" + strings.ToLower(strings.ReplaceAll(date, ":", "")) + ".csv.gz"
	s.Put("/pmc/"+dataKey, data)
	man := map[string]any{
		"sourceBucket":      "pmc-oa-opendata",
		"destinationBucket": "arn:aws:s3:::pmc-oa-opendata",
		"version":           "2016-11-30",
		"creationTimestamp": "1764032400000",
		"fileFormat":        "CSV",
		"fileSchema":        "Bucket, Key, Size, LastModifiedDate, ETag",
		"files":             []map[string]any{{"key": dataKey, "size": len(data), "MD5checksum": MD5(data)}},
	}
	b, _ := json.MarshalIndent(man, "", "    ")
	s.Put("/pmc/"+PMCInventoryPrefix+date+"/manifest.json", b)
}

// PutPubMed publishes an update file (gzip-compressed) and its .md5 in the
// form NCBI writes it ("MD5(pubmed26n1001.xml.gz)= <hex>").
func (s *Server) PutPubMed(name string, xml []byte) {
	s.PutPubMedIn("updatefiles", name, xml)
}

// PutPubMedIn is PutPubMed for another directory of /pubmed/ ("baseline").
func (s *Server) PutPubMedIn(dir, name string, xml []byte) {
	gz := Gzip(xml)
	s.Put("/pubmed/"+dir+"/"+name, gz)
	s.Put("/pubmed/"+dir+"/"+name+".md5", []byte(fmt.Sprintf("MD5(%s)= %s\n", name, MD5(gz))))
}

// OpenAlexPart is one part file of the fake snapshot.
type OpenAlexPart struct {
	Date  string // updated_date partition
	Lines []byte // JSON Lines of works
}

// OpenAlexWorks is the works folder of the 2026 layout (JSON Lines copy),
// OpenAlexLegacyWorks the pre-2026 flat layout kept under legacy-data/.
const (
	OpenAlexWorks       = "data/jsonl/works/"
	OpenAlexLegacyWorks = "legacy-data/works/"
	// OpenAlexMergedIDs is where the merged-id lists of works live.
	OpenAlexMergedIDs = "legacy-data/merged_ids/works/"
)

// manifestMeta and manifestEntry are the Redshift manifest form.
type manifestMeta struct {
	ContentLength int `json:"content_length"`
	RecordCount   int `json:"record_count"`
}

type manifestEntry struct {
	URL  string       `json:"url"`
	Meta manifestMeta `json:"meta"`
}

// PublishOpenAlex publishes the works parts in the 2026 layout that
// OpenAlex's "Snapshot data format" page describes
// (https://developers.openalex.org/download/snapshot-format):
// data/jsonl/works/updated_date=DATE/part_0000.gz (gzip JSON Lines, part
// numbers of four digits) and one combined data/jsonl/manifest.json for
// every entity of the format. The page does not list the combined
// manifest's fields; this sample writes it in the Redshift manifest form
// of the per-entity manifests before it ({"entries": [{"url", "meta":
// {"content_length", "record_count"}}], "meta": {...}}), and lists an
// authors part beside the works so that a reader must keep to its entity.
func (s *Server) PublishOpenAlex(parts []OpenAlexPart) {
	entries := s.putOpenAlexParts(OpenAlexWorks, "part_%04d.gz", parts)
	authors := "data/jsonl/authors/updated_date=2026-01-10/part_0000.gz"
	body := Gzip([]byte(`{"id":"https://openalex.org/A5000000001","display_name":"Sample Author"}` + "\n"))
	s.Put("/openalex/"+authors, body)
	entries = append(entries, manifestEntry{URL: "s3://openalex/" + authors, Meta: manifestMeta{len(body), 1}})
	s.putManifest("data/jsonl/manifest.json", entries)
}

// PublishOpenAlexLegacy publishes the parts in the pre-2026 flat layout,
// kept under legacy-data/: legacy-data/works/updated_date=DATE/part_NNN.gz
// and the Redshift manifest legacy-data/works/manifest, in the format the
// former documentation describes
// (https://docs.openalex.org/download-all-data/snapshot-data-format).
func (s *Server) PublishOpenAlexLegacy(parts []OpenAlexPart) {
	s.putManifest(OpenAlexLegacyWorks+"manifest", s.putOpenAlexParts(OpenAlexLegacyWorks, "part_%03d.gz", parts))
}

func (s *Server) putOpenAlexParts(folder, name string, parts []OpenAlexPart) []manifestEntry {
	var entries []manifestEntry
	n := map[string]int{}
	for _, p := range parts {
		key := fmt.Sprintf("%supdated_date=%s/"+name, folder, p.Date, n[p.Date])
		n[p.Date]++
		gz := Gzip(p.Lines)
		s.Put("/openalex/"+key, gz)
		entries = append(entries, manifestEntry{URL: "s3://openalex/" + key, Meta: manifestMeta{len(gz), bytes.Count(p.Lines, []byte("\n"))}})
	}
	return entries
}

func (s *Server) putManifest(key string, entries []manifestEntry) {
	man := struct {
		Entries []manifestEntry `json:"entries"`
		Meta    manifestMeta    `json:"meta"`
	}{Entries: entries}
	for _, e := range entries {
		man.Meta.ContentLength += e.Meta.ContentLength
		man.Meta.RecordCount += e.Meta.RecordCount
	}
	b, _ := json.Marshal(man)
	s.Put("/openalex/"+key, b)
}

// PutMergedIDs publishes a merged-ids list for date: gzip CSV with the
// header merge_date,id,merge_into_id as in the snapshot's merged_ids/works/
// folder (OpenAlex documentation, "Merged entities"), which the 2026
// layout keeps under legacy-data/.
func (s *Server) PutMergedIDs(date string, pairs [][2]string) {
	var b strings.Builder
	b.WriteString("merge_date,id,merge_into_id\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s,%s,%s\n", date, p[0], p[1])
	}
	s.Put("/openalex/"+OpenAlexMergedIDs+date+".csv.gz", Gzip([]byte(b.String())))
}

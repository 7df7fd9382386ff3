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
	gz := Gzip(xml)
	s.Put("/pubmed/updatefiles/"+name, gz)
	s.Put("/pubmed/updatefiles/"+name+".md5", []byte(fmt.Sprintf("MD5(%s)= %s\n", name, MD5(gz))))
}

// OpenAlexPart is one part file of the fake snapshot.
type OpenAlexPart struct {
	Date  string // updated_date partition
	Lines []byte // JSON Lines of works
}

// PublishOpenAlex puts the parts (gzip JSON Lines) under /openalex/
// data/works/updated_date=DATE/part_NNN.gz and writes data/works/manifest
// in the Redshift manifest format the snapshot documentation describes
// ({"entries": [{"url": "s3://...", "meta": {"content_length",
// "record_count"}}], "meta": {...}}).
func (s *Server) PublishOpenAlex(parts []OpenAlexPart) {
	type meta struct {
		ContentLength int `json:"content_length"`
		RecordCount   int `json:"record_count"`
	}
	type entry struct {
		URL  string `json:"url"`
		Meta meta   `json:"meta"`
	}
	var man struct {
		Entries []entry `json:"entries"`
		Meta    meta    `json:"meta"`
	}
	n := map[string]int{}
	for _, p := range parts {
		key := fmt.Sprintf("data/works/updated_date=%s/part_%03d.gz", p.Date, n[p.Date])
		n[p.Date]++
		gz := Gzip(p.Lines)
		s.Put("/openalex/"+key, gz)
		recs := bytes.Count(p.Lines, []byte("\n"))
		man.Entries = append(man.Entries, entry{URL: "s3://openalex/" + key, Meta: meta{len(gz), recs}})
		man.Meta.ContentLength += len(gz)
		man.Meta.RecordCount += recs
	}
	b, _ := json.Marshal(man)
	s.Put("/openalex/data/works/manifest", b)
}

// PutMergedIDs publishes a merged-ids list for date: gzip CSV with the
// header merge_date,id,merge_into_id as in the snapshot's
// data/merged_ids/works/ (OpenAlex documentation, "Merged entities").
func (s *Server) PutMergedIDs(date string, pairs [][2]string) {
	var b strings.Builder
	b.WriteString("merge_date,id,merge_into_id\n")
	for _, p := range pairs {
		fmt.Fprintf(&b, "%s,%s,%s\n", date, p[0], p[1])
	}
	s.Put("/openalex/data/merged_ids/works/"+date+".csv.gz", Gzip([]byte(b.String())))
}

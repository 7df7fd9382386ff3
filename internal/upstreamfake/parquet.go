package upstreamfake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/parquet-go/parquet-go"
)

// OpenAlexParquetWorks is the works folder of the 2026 layout's Parquet
// copy.
const OpenAlexParquetWorks = "data/parquet/works/"

// The Parquet sample: OpenAlex's "Snapshot data format" page says the
// Parquet copy (snappy) holds the same data as the JSON Lines one, one row
// per record, with "the structure of each entity type" of the API, without
// publishing the column layout. This sample maps the API's work object
// onto nested columns field for field (objects as groups, arrays as LIST),
// for the fields the archive reads; the real copy has more columns.
type pqWork struct {
	ID              string        `json:"id" parquet:"id"`
	DOI             *string       `json:"doi" parquet:"doi,optional"`
	Title           *string       `json:"title" parquet:"title,optional"`
	DisplayName     *string       `json:"display_name" parquet:"display_name,optional"`
	PublicationYear *int64        `json:"publication_year" parquet:"publication_year,optional"`
	PublicationDate *string       `json:"publication_date" parquet:"publication_date,optional"`
	Type            *string       `json:"type" parquet:"type,optional"`
	Language        *string       `json:"language" parquet:"language,optional"`
	IDs             *pqIDs        `json:"ids" parquet:"ids,optional"`
	PrimaryLocation *pqLocation   `json:"primary_location" parquet:"primary_location,optional"`
	BestOALocation  *pqLocation   `json:"best_oa_location" parquet:"best_oa_location,optional"`
	Locations       []pqLocation  `json:"locations" parquet:"locations,list"`
	OpenAccess      *pqOpenAccess `json:"open_access" parquet:"open_access,optional"`
	IsRetracted     *bool         `json:"is_retracted" parquet:"is_retracted,optional"`
	UpdatedDate     *string       `json:"updated_date" parquet:"updated_date,optional"`
}

type pqIDs struct {
	OpenAlex *string `json:"openalex" parquet:"openalex,optional"`
	DOI      *string `json:"doi" parquet:"doi,optional"`
	PMID     *string `json:"pmid" parquet:"pmid,optional"`
	PMCID    *string `json:"pmcid" parquet:"pmcid,optional"`
}

type pqLocation struct {
	IsOA           *bool     `json:"is_oa" parquet:"is_oa,optional"`
	LandingPageURL *string   `json:"landing_page_url" parquet:"landing_page_url,optional"`
	PDFURL         *string   `json:"pdf_url" parquet:"pdf_url,optional"`
	Source         *pqSource `json:"source" parquet:"source,optional"`
	License        *string   `json:"license" parquet:"license,optional"`
	LicenseID      *string   `json:"license_id" parquet:"license_id,optional"`
	Version        *string   `json:"version" parquet:"version,optional"`
}

type pqSource struct {
	ID          *string `json:"id" parquet:"id,optional"`
	DisplayName *string `json:"display_name" parquet:"display_name,optional"`
	Type        *string `json:"type" parquet:"type,optional"`
}

type pqOpenAccess struct {
	IsOA     *bool   `json:"is_oa" parquet:"is_oa,optional"`
	OAStatus *string `json:"oa_status" parquet:"oa_status,optional"`
	OAURL    *string `json:"oa_url" parquet:"oa_url,optional"`
}

// ParquetWorks converts JSON Lines of works into a snappy Parquet file of
// the sample's columns.
func ParquetWorks(lines []byte) ([]byte, error) {
	var works []pqWork
	sc := bufio.NewScanner(bytes.NewReader(lines))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var w pqWork
		if err := json.Unmarshal(sc.Bytes(), &w); err != nil {
			return nil, fmt.Errorf("work %d: %w", len(works)+1, err)
		}
		works = append(works, w)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	pw := parquet.NewGenericWriter[pqWork](&buf, parquet.Compression(&parquet.Snappy))
	if _, err := pw.Write(works); err != nil {
		return nil, err
	}
	if err := pw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// PublishOpenAlexParquet publishes the parts as the 2026 layout's Parquet
// copy: data/parquet/works/updated_date=DATE/part_0000.parquet and the
// combined data/parquet/manifest.json (in the form PublishOpenAlex
// writes).
func (s *Server) PublishOpenAlexParquet(parts []OpenAlexPart) error {
	var entries []manifestEntry
	n := map[string]int{}
	for _, p := range parts {
		key := fmt.Sprintf("%supdated_date=%s/part_%04d.parquet", OpenAlexParquetWorks, p.Date, n[p.Date])
		n[p.Date]++
		b, err := ParquetWorks(p.Lines)
		if err != nil {
			return err
		}
		s.Put("/openalex/"+key, b)
		entries = append(entries, manifestEntry{URL: "s3://openalex/" + key, Meta: manifestMeta{len(b), bytes.Count(p.Lines, []byte("\n"))}})
	}
	s.putManifest("data/parquet/manifest.json", entries)
	return nil
}

package openalex

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// work holds the fields of an OpenAlex Work the reader uses. Everything
// else is ignored, which keeps the reader tolerant of schema drift between
// releases (type_crossref, versions, awards, is_xpac come and go).
type work struct {
	ID              string        `json:"id"`
	DOI             string        `json:"doi"`
	Title           string        `json:"title"`
	DisplayName     string        `json:"display_name"`
	PublicationYear int           `json:"publication_year"`
	PublicationDate string        `json:"publication_date"`
	Type            string        `json:"type"`
	Language        string        `json:"language"`
	IDs             ids           `json:"ids"`
	Authorships     []authorship  `json:"authorships"`
	PrimaryLocation *location     `json:"primary_location"`
	BestOALocation  *location     `json:"best_oa_location"`
	Locations       []location    `json:"locations"`
	AbstractIndex   rawJSON       `json:"abstract_inverted_index"`
	Keywords        []keyword     `json:"keywords"`
	PrimaryTopic    *topic        `json:"primary_topic"`
	Topics          []topic       `json:"topics"`
	Concepts        []concept     `json:"concepts"`
	Mesh            []meshHeading `json:"mesh"`
	UpdatedDate     string        `json:"updated_date"`
	IsRetracted     bool          `json:"is_retracted"`
}

type ids struct {
	OpenAlex string     `json:"openalex"`
	DOI      string     `json:"doi"`
	PMID     flexString `json:"pmid"`
	PMCID    flexString `json:"pmcid"`
}

type authorship struct {
	Author struct {
		DisplayName string `json:"display_name"`
		ORCID       string `json:"orcid"`
	} `json:"author"`
	RawAuthorName string `json:"raw_author_name"`
	Institutions  []struct {
		DisplayName string `json:"display_name"`
	} `json:"institutions"`
	RawAffiliations []string `json:"raw_affiliation_strings"`
}

type location struct {
	Source *struct {
		DisplayName          string   `json:"display_name"`
		HostOrganizationName string   `json:"host_organization_name"`
		LineageNames         []string `json:"host_organization_lineage_names"`
	} `json:"source"`
	License string `json:"license"`
	Version string `json:"version"`
	IsOA    bool   `json:"is_oa"`
}

// keyword is a keywords[] entry: display_name since 2024, keyword before.
type keyword struct {
	DisplayName string `json:"display_name"`
	Keyword     string `json:"keyword"`
}

type named struct {
	DisplayName string `json:"display_name"`
}

type topic struct {
	DisplayName string `json:"display_name"`
	Subfield    named  `json:"subfield"`
	Field       named  `json:"field"`
	Domain      named  `json:"domain"`
}

type concept struct {
	DisplayName string   `json:"display_name"`
	Score       *float64 `json:"score"`
}

type meshHeading struct {
	DescriptorName string `json:"descriptor_name"`
}

// flexString accepts a JSON string or number (ids are strings in the
// snapshot but bare numbers in some exports).
type flexString string

func (f *flexString) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*f = flexString(s)
		return nil
	}
	if bytes.Equal(b, []byte("null")) {
		return nil
	}
	if _, err := strconv.ParseFloat(string(b), 64); err != nil {
		return fmt.Errorf("id %.40s is neither a string nor a number", b)
	}
	*f = flexString(b)
	return nil
}

// rawJSON keeps a value undecoded; unlike json.RawMessage it treats null as
// absent.
type rawJSON []byte

func (r *rawJSON) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*r = nil
		return nil
	}
	*r = append((*r)[:0], b...)
	return nil
}

package edgar

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// CIK is a Central Index Key. EDGAR writes it as a number in the ticker map
// and company facts and as a zero-padded string in submissions; both
// decode.
type CIK int64

// UnmarshalJSON accepts 320193 and "0000320193".
func (c *CIK) UnmarshalJSON(b []byte) error {
	s := string(bytes.Trim(b, `"`))
	if s == "" || s == "null" {
		*c = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("edgar: bad CIK %q", s)
	}
	*c = CIK(n)
	return nil
}

// Padded is the ten-digit form used in file names: 0000320193.
func (c CIK) Padded() string { return fmt.Sprintf("%010d", int64(c)) }

// Ticker is one entry of the ticker map.
type Ticker struct {
	CIK    CIK    `json:"cik_str"`
	Ticker string `json:"ticker"`
	Title  string `json:"title"`
}

// Tickers maps a normalised ticker (see NormalizeTicker) to its entry.
type Tickers map[string]Ticker

// NormalizeTicker is the key of a ticker in [Tickers]: upper case, with
// the class separator written as EDGAR writes it ("BRK.B" and "brk/b" are
// "BRK-B").
func NormalizeTicker(s string) string {
	s = strings.ToUpper(strings.TrimSpace(s))
	return strings.NewReplacer(".", "-", "/", "-").Replace(s)
}

func decodeTickers(b []byte) (any, error) {
	// {"0":{"cik_str":789019,"ticker":"MSFT","title":"MICROSOFT CORP"},...}
	var raw map[string]Ticker
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := make(Tickers, len(raw))
	for _, t := range raw {
		if t.Ticker == "" || t.CIK == 0 {
			continue
		}
		out[NormalizeTicker(t.Ticker)] = t
	}
	return out, nil
}

// Submissions is the part of a submissions file the tools use: the company
// header and the recent filings.
type Submissions struct {
	CIK                             CIK                `json:"cik"`
	EntityType                      string             `json:"entityType"`
	SIC                             string             `json:"sic"`
	SICDescription                  string             `json:"sicDescription"`
	Name                            string             `json:"name"`
	Tickers                         []string           `json:"tickers"`
	Exchanges                       []string           `json:"exchanges"`
	EIN                             string             `json:"ein"`
	LEI                             string             `json:"lei"`
	Description                     string             `json:"description"`
	Website                         string             `json:"website"`
	InvestorWebsite                 string             `json:"investorWebsite"`
	Category                        string             `json:"category"`
	FiscalYearEnd                   string             `json:"fiscalYearEnd"`
	StateOfIncorporation            string             `json:"stateOfIncorporation"`
	StateOfIncorporationDescription string             `json:"stateOfIncorporationDescription"`
	Addresses                       map[string]Address `json:"addresses"`
	Phone                           string             `json:"phone"`
	FormerNames                     []FormerName       `json:"formerNames"`
	Filings                         struct {
		Recent Filings     `json:"recent"`
		Files  []FilesPage `json:"files"`
	} `json:"filings"`
}

// Address is a mailing or business address.
type Address struct {
	Street1                   string `json:"street1"`
	Street2                   string `json:"street2"`
	City                      string `json:"city"`
	StateOrCountry            string `json:"stateOrCountry"`
	ZipCode                   string `json:"zipCode"`
	StateOrCountryDescription string `json:"stateOrCountryDescription"`
	IsForeignLocation         *int   `json:"isForeignLocation"`
	ForeignStateTerritory     string `json:"foreignStateTerritory"`
	Country                   string `json:"country"`
	CountryCode               string `json:"countryCode"`
}

// FormerName is a name the company filed under before.
type FormerName struct {
	Name string `json:"name"`
	From string `json:"from"`
	To   string `json:"to"`
}

// Filings are EDGAR's columnar filing lists: index i of every slice is one
// filing, newest first. The paged files (CIK##########-submissions-001.json)
// are this object alone.
type Filings struct {
	AccessionNumber       []string `json:"accessionNumber"`
	FilingDate            []string `json:"filingDate"`
	ReportDate            []string `json:"reportDate"`
	AcceptanceDateTime    []string `json:"acceptanceDateTime"`
	Form                  []string `json:"form"`
	PrimaryDocument       []string `json:"primaryDocument"`
	PrimaryDocDescription []string `json:"primaryDocDescription"`
	IsXBRL                []int    `json:"isXBRL"`
}

// Len is the number of filings every column agrees on.
func (f *Filings) Len() int {
	return min(len(f.AccessionNumber), len(f.FilingDate), len(f.Form))
}

// At returns filing i; columns shorter than the accession list give "".
func (f *Filings) At(i int) Filing {
	at := func(s []string) string {
		if i < len(s) {
			return s[i]
		}
		return ""
	}
	return Filing{
		AccessionNumber: f.AccessionNumber[i], FilingDate: at(f.FilingDate), ReportDate: at(f.ReportDate),
		AcceptanceDateTime: at(f.AcceptanceDateTime), Form: at(f.Form),
		PrimaryDocument: at(f.PrimaryDocument), PrimaryDocDescription: at(f.PrimaryDocDescription),
	}
}

// Filing is one row of [Filings].
type Filing struct {
	AccessionNumber, FilingDate, ReportDate, AcceptanceDateTime, Form string
	PrimaryDocument, PrimaryDocDescription                            string
}

// FilesPage names a paged file of older filings.
type FilesPage struct {
	Name        string `json:"name"`
	FilingCount int    `json:"filingCount"`
	FilingFrom  string `json:"filingFrom"`
	FilingTo    string `json:"filingTo"`
}

func decodeSubmissions(b []byte) (any, error) {
	var s Submissions
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func decodeFilings(b []byte) (any, error) {
	var f Filings
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// CompanyFacts is a companyfacts file: every XBRL fact the company reported,
// by taxonomy (us-gaap, ifrs-full, dei, ...) and concept.
type CompanyFacts struct {
	CIK        CIK    `json:"cik"`
	EntityName string `json:"entityName"`
	// Facts[taxonomy][concept]; only the concepts Config.KeepConcept keeps.
	Facts map[string]map[string]*Concept `json:"facts"`
}

// Concept is one concept's facts by unit ("USD", "EUR", "USD/shares",
// "shares", ...).
type Concept struct {
	Label string            `json:"label"`
	Units map[string][]Fact `json:"units"`
}

// Fact is one reported value. Start is empty for instants (balance sheet
// items). FY and FP describe the filing that reported the fact, not the
// fact's own period: a 10-K for 2025 reports 2023 and 2024 as comparatives
// with FY 2025.
type Fact struct {
	Start string  `json:"start,omitempty"`
	End   string  `json:"end"`
	Val   float64 `json:"val"`
	Accn  string  `json:"accn"`
	FY    int     `json:"fy"`
	FP    string  `json:"fp"`
	Form  string  `json:"form"`
	Filed string  `json:"filed"`
	Frame string  `json:"frame,omitempty"`
}

// decodeFacts decodes a companyfacts body, keeping only the concepts keep
// accepts (nil keeps all). Concepts are first held as raw JSON so the
// thousands of facts of concepts nobody asked for are never built.
func decodeFacts(keep func(taxonomy, concept string) bool) func([]byte) (any, error) {
	return func(b []byte) (any, error) {
		var raw struct {
			CIK        CIK                                   `json:"cik"`
			EntityName string                                `json:"entityName"`
			Facts      map[string]map[string]json.RawMessage `json:"facts"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return nil, err
		}
		out := &CompanyFacts{CIK: raw.CIK, EntityName: raw.EntityName, Facts: make(map[string]map[string]*Concept, len(raw.Facts))}
		for tax, concepts := range raw.Facts {
			m := map[string]*Concept{}
			for name, body := range concepts {
				if keep != nil && !keep(tax, name) {
					continue
				}
				c := new(Concept)
				if err := json.Unmarshal(body, c); err != nil {
					return nil, fmt.Errorf("%s:%s: %w", tax, name, err)
				}
				m[name] = c
			}
			out.Facts[tax] = m
		}
		return out, nil
	}
}

// DecodeCompanyFacts decodes a companyfacts body as the client does,
// keeping the concepts keep accepts (nil keeps all); for tests and
// benchmarks of code that reads facts.
func DecodeCompanyFacts(body []byte, keep func(taxonomy, concept string) bool) (*CompanyFacts, error) {
	v, err := decodeFacts(keep)(body)
	if err != nil {
		return nil, err
	}
	return v.(*CompanyFacts), nil
}

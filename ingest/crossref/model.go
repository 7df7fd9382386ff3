package crossref

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// work holds the fields of a Crossref work the reader uses; the rest are
// ignored.
type work struct {
	DOI             string      `json:"DOI"`
	Title           strList     `json:"title"`
	ContainerTitle  strList     `json:"container-title"`
	Publisher       string      `json:"publisher"`
	Author          []author    `json:"author"`
	Issued          dateField   `json:"issued"`
	Published       dateField   `json:"published"`
	PublishedOnline dateField   `json:"published-online"`
	PublishedPrint  dateField   `json:"published-print"`
	Indexed         dateField   `json:"indexed"`
	Type            string      `json:"type"`
	Subtype         string      `json:"subtype"`
	Language        string      `json:"language"`
	Abstract        string      `json:"abstract"`
	Subject         strList     `json:"subject"`
	Reference       []reference `json:"reference"`
	License         []license   `json:"license"`
	UpdateTo        []update    `json:"update-to"`
	UpdatedBy       []update    `json:"updated-by"`
}

// envelope is one JSON value of a line: a work, an API response wrapping
// one ("message"), or a list ("items"). Embedding work decodes a bare work
// in the same pass.
type envelope struct {
	work
	Status  string            `json:"status"`
	Message json.RawMessage   `json:"message"`
	Items   []json.RawMessage `json:"items"`
	// hasItems tells an empty list from a work.
	hasItems bool
}

func (e *envelope) UnmarshalJSON(b []byte) error {
	type plain envelope
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*e = envelope(p)
	e.hasItems = p.Items != nil
	return nil
}

type author struct {
	Given       string `json:"given"`
	Family      string `json:"family"`
	Name        string `json:"name"`
	ORCID       string `json:"ORCID"`
	Affiliation []struct {
		Name string `json:"name"`
	} `json:"affiliation"`
}

type reference struct {
	Key          string  `json:"key"`
	DOI          string  `json:"DOI"`
	ArticleTitle string  `json:"article-title"`
	JournalTitle string  `json:"journal-title"`
	VolumeTitle  string  `json:"volume-title"`
	SeriesTitle  string  `json:"series-title"`
	Author       string  `json:"author"`
	Year         flexStr `json:"year"`
	Volume       flexStr `json:"volume"`
	Issue        flexStr `json:"issue"`
	FirstPage    flexStr `json:"first-page"`
	Unstructured string  `json:"unstructured"`
}

type license struct {
	URL            string    `json:"URL"`
	Start          dateField `json:"start"`
	Delay          flexInt   `json:"delay-in-days"`
	ContentVersion string    `json:"content-version"`
}

type update struct {
	DOI  string `json:"DOI"`
	Type string `json:"type"`
}

// dateField is a Crossref date: date-parts always, date-time on some.
// timestamp is ignored (mongo exports wrap it as {"$numberLong": ...}).
type dateField struct {
	DateParts [][]flexInt `json:"date-parts"`
	DateTime  flexTime    `json:"date-time"`
}

// parts returns year, month and day (0 when absent) of the first
// date-parts entry; [[null]] means no date.
func (d dateField) parts() (y, m, day int) {
	if len(d.DateParts) == 0 {
		return 0, 0, 0
	}
	p := d.DateParts[0]
	get := func(i, lo, hi int) int {
		if i < len(p) && p[i].set && p[i].n >= lo && p[i].n <= hi {
			return p[i].n
		}
		return 0
	}
	if y = get(0, 1, 9999); y == 0 {
		return 0, 0, 0
	}
	if m = get(1, 1, 12); m == 0 {
		return y, 0, 0
	}
	return y, m, get(2, 1, 31)
}

// iso renders the date as precisely as it is given: 2014, 2014-02, 2014-02-11.
func (d dateField) iso() (string, int) {
	y, m, day := d.parts()
	switch {
	case y == 0:
		return "", 0
	case m == 0:
		return fmt.Sprintf("%04d", y), y
	case day == 0:
		return fmt.Sprintf("%04d-%02d", y, m), y
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, day), y
}

// instant is date-time when given, else the date-parts: a full date at
// midnight UTC, a partial one at the start of the last day of its period
// (the latest it can mean), so that an embargo computed from it never ends
// early.
func (d dateField) instant() time.Time {
	if t := time.Time(d.DateTime); !t.IsZero() {
		return t
	}
	y, m, day := d.parts()
	switch {
	case y == 0:
		return time.Time{}
	case m == 0:
		return time.Date(y, 12, 31, 0, 0, 0, 0, time.UTC)
	case day == 0:
		return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(y, time.Month(m), day, 0, 0, 0, 0, time.UTC)
}

// valueError is a value of the wrong shape inside an otherwise well-formed
// record; the record is reported and reading goes on.
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }

// unwrapMongo returns the inner value of a MongoDB extended-JSON wrapper
// ({"$numberLong":"5"}, {"$date":...}), or b unchanged.
func unwrapMongo(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return b
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil || len(m) != 1 {
		return b
	}
	for k, v := range m {
		switch k {
		case "$numberLong", "$numberInt", "$numberDouble", "$date":
			return unwrapMongo(v)
		}
	}
	return b
}

// flexInt is an integer given as a number, a numeric string or a MongoDB
// wrapper; set is false for null or absent.
type flexInt struct {
	n   int
	set bool
}

func (f *flexInt) UnmarshalJSON(b []byte) error {
	b = unwrapMongo(b)
	s := string(b)
	if s == "null" {
		*f = flexInt{}
		return nil
	}
	if len(s) > 0 && s[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return &valueError{"bad string " + s}
		}
		s = strings.TrimSpace(s)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v > math.MaxInt32 || v < math.MinInt32 {
		return &valueError{fmt.Sprintf("not an integer: %.40s", s)}
	}
	*f = flexInt{n: int(v), set: true}
	return nil
}

// flexTime is a time given as an RFC 3339 string, epoch milliseconds, or a
// MongoDB {"$date": ...} wrapper of either.
type flexTime time.Time

func (f *flexTime) UnmarshalJSON(b []byte) error {
	b = unwrapMongo(b)
	if string(b) == "null" {
		*f = flexTime{}
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return &valueError{"bad date-time"}
		}
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
			if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
				*f = flexTime(t.UTC())
				return nil
			}
		}
		// A numeric string is epoch milliseconds ({"$date":{"$numberLong":"..."}}).
		if ms, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil {
			*f = flexTime(time.UnixMilli(ms).UTC())
			return nil
		}
		return &valueError{fmt.Sprintf("bad date-time %.40q", s)}
	}
	ms, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return &valueError{fmt.Sprintf("bad date-time %.40s", b)}
	}
	*f = flexTime(time.UnixMilli(ms).UTC())
	return nil
}

// flexStr is a string that some deposits give as a number (year, volume).
type flexStr string

func (f *flexStr) UnmarshalJSON(b []byte) error {
	b = unwrapMongo(b)
	switch {
	case string(b) == "null":
		*f = ""
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return &valueError{"bad string"}
		}
		*f = flexStr(s)
	default:
		if _, err := strconv.ParseFloat(string(b), 64); err != nil {
			return &valueError{fmt.Sprintf("not a string: %.40s", b)}
		}
		*f = flexStr(b)
	}
	return nil
}

// strList is a list of strings that is sometimes a single string.
type strList []string

func (l *strList) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return &valueError{"bad string"}
		}
		*l = strList{s}
		return nil
	}
	var list []string
	if err := json.Unmarshal(b, &list); err != nil {
		return &valueError{fmt.Sprintf("not a list of strings: %.40s", b)}
	}
	*l = list
	return nil
}

package openalex

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshelf/openshelf/ingest/internal/clean"
	"github.com/openshelf/openshelf/ingest/internal/limit"
	"github.com/openshelf/openshelf/ingest/internal/lines"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/licence"
)

// Source is the Document.Sources entry of every record this package reads.
const Source = "openalex"

// Read streams OpenAlex works, one JSON object per line, from r and reports
// each to sink as a Document; blank lines are skipped and every line that is
// not a usable work becomes a Problem whose Record is "line N" (followed by
// the work id when known). origin names the input in Problems and
// Document.Origin.
//
// Read returns an error only when reading r fails, when sink returns one,
// or when ctx is done; those errors are wrapped, so errors.Is works on them.
func Read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink) error {
	return read(ctx, r, origin, sink, maxLine)
}

func read(ctx context.Context, r io.Reader, origin string, sink ingest.Sink, max int) error {
	in := &lines.ErrReader{R: r}
	br, err := lines.MaybeGunzip(in)
	if err != nil {
		if in.Err != nil {
			return fmt.Errorf("openalex: reading %s: %w", origin, in.Err)
		}
		sink.Problem(ingest.Problem{Path: origin, Reason: "openalex: bad gzip stream: " + err.Error()})
		return nil
	}
	lr := &lines.Reader{BR: br, Max: max}
	now := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("openalex: %s: %w", origin, err)
		}
		line, num, tooLong, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			if in.Err != nil {
				return fmt.Errorf("openalex: reading %s: %w", origin, in.Err)
			}
			// Corrupt compressed data: nothing after it can be trusted.
			sink.Problem(ingest.Problem{Path: origin, Record: "line " + strconv.Itoa(num),
				Reason: "openalex: unreadable input: " + err.Error()})
			return nil
		}
		record := "line " + strconv.Itoa(num)
		if tooLong {
			sink.Problem(ingest.Problem{Path: origin, Record: record,
				Reason: fmt.Sprintf("openalex: %s: (record): line longer than %d bytes", limit.Reason, max)})
			continue
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		// Field, array and nesting caps before anything is decoded.
		if err := limit.CheckJSON(line); err != nil {
			sink.Problem(ingest.Problem{Path: origin, Record: record, Reason: "openalex: " + err.Error()})
			continue
		}
		var w work
		if err := json.Unmarshal(line, &w); err != nil {
			if w.ID != "" {
				record += " (" + w.ID + ")"
			}
			sink.Problem(ingest.Problem{Path: origin, Record: record, Reason: "openalex: malformed work: " + err.Error()})
			continue
		}
		doc := convert(&w, origin, now)
		if !doc.AssignIDs() {
			sink.Problem(ingest.Problem{Path: origin, Record: record, Reason: "openalex: work has no usable id"})
			continue
		}
		if err := sink.Document(doc); err != nil {
			return fmt.Errorf("openalex: %s: %s: %w", origin, doc.ID, err)
		}
	}
}

// Newer reports whether a is a more recent version of a work than b, by
// OpenAlex's updated_date (Document.Updated). A document without a date is
// never newer; any document is newer than nil.
func Newer(a, b *ingest.Document) bool {
	switch {
	case a == nil:
		return false
	case b == nil:
		return true
	}
	return a.Updated.After(b.Updated)
}

func convert(w *work, origin string, now time.Time) *ingest.Document {
	doc := &ingest.Document{
		OpenAlex: ingest.NormaliseOpenAlex(w.ID),
		DOI:      ingest.NormaliseDOI(w.DOI),
		PMID:     ingest.NormalisePMID(string(w.IDs.PMID)),
		PMCID:    ingest.NormalisePMCID(string(w.IDs.PMCID)),
		Title:    clean.Collapse(clean.StripTags(w.Title)),
		Type:     docType(w.Type),
		Language: strings.ToLower(strings.TrimSpace(w.Language)),
		Updated:  parseUpdated(w.UpdatedDate),
		Sources:  []string{Source},
		Origin:   origin,
	}
	if doc.OpenAlex == "" {
		doc.OpenAlex = ingest.NormaliseOpenAlex(w.IDs.OpenAlex)
	}
	if doc.DOI == "" {
		doc.DOI = ingest.NormaliseDOI(w.IDs.DOI)
	}
	if doc.Title == "" {
		doc.Title = clean.Collapse(clean.StripTags(w.DisplayName))
	}
	doc.Retracted = w.IsRetracted || doc.Type == "retraction"
	doc.Date, doc.Year = pubDate(w.PublicationDate, w.PublicationYear)
	if pl := w.PrimaryLocation; pl != nil && pl.Source != nil {
		doc.Venue = clean.Collapse(pl.Source.DisplayName)
		doc.Publisher = clean.Collapse(pl.Source.HostOrganizationName)
		if doc.Publisher == "" && len(pl.Source.LineageNames) > 0 {
			doc.Publisher = clean.Collapse(pl.Source.LineageNames[0])
		}
	}
	doc.Authors = authors(w.Authorships)
	doc.Abstract = abstract(w.AbstractIndex)
	for _, k := range w.Keywords {
		kw := k.DisplayName
		if kw == "" {
			kw = k.Keyword
		}
		doc.Keywords = append(doc.Keywords, clean.Collapse(kw))
	}
	doc.Keywords = clean.Dedupe(doc.Keywords)
	doc.Subjects = subjects(w)
	doc.Licence = licence.Decide(evidence(w), now)
	return doc
}

// docType maps OpenAlex work types onto the document vocabulary shared with
// the other readers.
func docType(t string) string {
	switch t = strings.ToLower(strings.TrimSpace(t)); t {
	case "article":
		return "research-article"
	case "erratum":
		return "correction"
	}
	return t
}

// pubDate takes publication_date when it is a real date, else the year.
func pubDate(date string, year int) (string, int) {
	date = strings.TrimSpace(date)
	for _, layout := range []string{"2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(layout, date); err == nil {
			return date, t.Year()
		}
	}
	if year >= 1000 && year <= 9999 {
		return strconv.Itoa(year), year
	}
	return "", 0
}

// parseUpdated reads updated_date: "2026-01-13T01:12:25.745995" (no zone,
// UTC) in current data, a plain date in older snapshots. It returns the zero
// time when the value is missing or unreadable.
func parseUpdated(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

func authors(list []authorship) []ingest.Author {
	var out []ingest.Author
	for _, a := range list {
		au := ingest.Author{Name: clean.Collapse(a.Author.DisplayName), ORCID: ingest.NormaliseORCID(a.Author.ORCID)}
		if au.Name == "" {
			au.Name = clean.Collapse(a.RawAuthorName)
		}
		if au.Name == "" {
			continue
		}
		// The raw strings are what the paper says; institution names are
		// OpenAlex's matching of them, used when the raw ones are absent.
		for _, s := range a.RawAffiliations {
			au.Affiliations = append(au.Affiliations, clean.Collapse(s))
		}
		if len(au.Affiliations) == 0 {
			for _, inst := range a.Institutions {
				au.Affiliations = append(au.Affiliations, clean.Collapse(inst.DisplayName))
			}
		}
		au.Affiliations = clean.Dedupe(au.Affiliations)
		out = append(out, au)
	}
	return out
}

// abstract rebuilds the text from abstract_inverted_index (word ->
// positions). Older snapshots wrap it as {"IndexLength": n,
// "InvertedIndex": {...}} or store it as a JSON string; both are accepted.
// Gaps in the positions are skipped; when two words claim one position the
// lexically first wins, so the result does not depend on map order.
func abstract(raw rawJSON) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return ""
		}
		raw = rawJSON(s)
	}
	var index map[string][]int
	if err := json.Unmarshal(raw, &index); err != nil {
		var wrapped struct {
			InvertedIndex map[string][]int `json:"InvertedIndex"`
		}
		if json.Unmarshal(raw, &wrapped) != nil {
			return ""
		}
		index = wrapped.InvertedIndex
	}
	type posWord struct {
		pos  int
		word string
	}
	var words []posWord
	for w, positions := range index {
		for _, p := range positions {
			if p >= 0 {
				words = append(words, posWord{p, w})
			}
		}
	}
	slices.SortFunc(words, func(a, b posWord) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return strings.Compare(a.word, b.word)
	})
	var b strings.Builder
	last := -1
	for _, pw := range words {
		if pw.pos == last {
			continue
		}
		last = pw.pos
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(pw.word)
	}
	return clean.Collapse(clean.StripTags(b.String()))
}

// conceptThreshold is OpenAlex's own cut-off: concepts scoring at least 0.3
// are assigned to a work; lower ones are ancestors added automatically.
const conceptThreshold = 0.3

// subjects lists topics with their subfield, field and domain, then
// assigned concepts and MeSH descriptors, without repeats.
func subjects(w *work) []string {
	var out []string
	topics := w.Topics
	if len(topics) == 0 && w.PrimaryTopic != nil {
		topics = []topic{*w.PrimaryTopic}
	}
	for _, t := range topics {
		out = append(out, clean.Collapse(t.DisplayName), clean.Collapse(t.Subfield.DisplayName),
			clean.Collapse(t.Field.DisplayName), clean.Collapse(t.Domain.DisplayName))
	}
	for _, c := range w.Concepts {
		if c.Score == nil || *c.Score >= conceptThreshold {
			out = append(out, clean.Collapse(c.DisplayName))
		}
	}
	for _, m := range w.Mesh {
		out = append(out, clean.Collapse(m.DescriptorName))
	}
	return clean.Dedupe(out)
}

// evidence records the licence of every location (primary_location,
// best_oa_location, locations[]) with its version and path; repeated
// (licence, version) pairs are recorded once. [licence.Decide] picks the
// version that is served: the published version's licences when there are
// any, else those of the accepted or submitted version (issue 13).
func evidence(w *work) []licence.Evidence {
	var ev []licence.Evidence
	add := func(l *location, path string) {
		if l == nil {
			return
		}
		value := strings.TrimSpace(l.License)
		version := strings.TrimSpace(l.Version)
		if value == "" {
			if !l.IsOA || version != "publishedVersion" {
				return
			}
			// An open published copy without a licence: the published
			// version is what would be served, so another version's
			// licence must not stand in for it.
			value = licence.OpenAlexNoLicence
		}
		e := licence.Evidence{Kind: licence.KindOpenAlex, Source: licence.SourceOpenAlex, Value: value, ContentVersion: version, Path: path}
		if !slices.ContainsFunc(ev, func(x licence.Evidence) bool { return x.Value == e.Value && x.ContentVersion == e.ContentVersion }) {
			ev = append(ev, e)
		}
	}
	add(w.PrimaryLocation, "primary_location.license")
	add(w.BestOALocation, "best_oa_location.license")
	for i := range w.Locations {
		add(&w.Locations[i], "locations["+strconv.Itoa(i)+"].license")
	}
	return ev
}

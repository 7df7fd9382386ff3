package knowledge

import (
	"context"
	"errors"
	"math"
	"net/http"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/specs"
	"github.com/openshelf/openshelf/specs/units"
)

// Prices in USD.
const (
	PriceSearch = "0.001"
	PriceSpecs  = "0.001"
	PriceBrief  = "0.05"
)

// maxSpecsPerHit bounds the statements attached to one search hit.
const maxSpecsPerHit = 10

// SpecsInput is query_specs' input.
type SpecsInput struct {
	Query    string   `json:"query,omitempty" maxLength:"200" doc:"Words that must appear in the statement's sentence, subject or document title; numeric constraints in it (\"thermal conductivity > 200 W/mK\") are applied too."`
	Quantity string   `json:"quantity,omitempty" maxLength:"40" doc:"Quantity name, e.g. thermal_conductivity, band_gap, melting_point, temperature (any temperature), dose, concentration."`
	Family   string   `json:"family,omitempty" maxLength:"40" doc:"Subject family, e.g. alloy, ceramic, polymer, semiconductor, mouse, bacteria."`
	Unit     string   `json:"unit,omitempty" maxLength:"12" doc:"Unit of min and max, e.g. W/mK, eV, °C, MPa; converted to SI. Default: the quantity's SI unit."`
	Min      *float64 `json:"min,omitempty" doc:"Lowest value, in unit."`
	Max      *float64 `json:"max,omitempty" doc:"Highest value, in unit."`
	Limit    int      `json:"limit,omitempty" min:"1" max:"200" default:"50" doc:"Rows to return."`
}

// Validate parses the query and the unit: unknown or incompatible units
// are a 400 before payment.
func (in *SpecsInput) Validate() error {
	_, _, err := in.filter()
	return err
}

func (in *SpecsInput) filter() (*filter, specs.Query, error) {
	f := &filter{family: specs.NormaliseFamily(in.Family)}
	if in.Quantity != "" {
		f.quantity = specs.NormaliseQuantity(in.Quantity)
		if f.quantity == "" {
			return nil, specs.Query{}, apierr.New(apierr.ErrInvalidInput, "unknown_quantity",
				"quantity: unknown quantity "+quote(in.Quantity)+"; see docs/tools-knowledge.md for the list")
		}
	}
	q, err := parseQuery(in.Query, "query")
	if err != nil {
		return nil, q, err
	}
	f.constraints = q.Constraints
	f.words = words(q.Text)
	if in.Min != nil || in.Max != nil || in.Unit != "" {
		unit := in.Unit
		if unit == "" {
			d, ok := specs.QuantityDim(f.quantity)
			if !ok {
				return nil, q, apierr.Invalid("unit", "is required with min or max unless quantity is given")
			}
			unit = d.SIName()
		}
		c, err := specs.Range(f.quantity, unit, in.Min, in.Max)
		if err != nil {
			return nil, q, unitError("unit", err)
		}
		f.constraints = append(f.constraints, c)
	}
	// With one constraint and a quantity, the quantity names the
	// constraint's.
	for i := range f.constraints {
		if f.constraints[i].Quantity == "" {
			f.constraints[i].Quantity = f.quantity
		}
	}
	return f, q, nil
}

func quote(s string) string { return "\"" + s + "\"" }

func unitError(field string, err error) error {
	switch {
	case errors.Is(err, units.ErrUnknownUnit):
		e := apierr.New(apierr.ErrInvalidInput, "unknown_unit", field+": "+err.Error())
		e.Field = field
		return e
	case errors.Is(err, units.ErrIncompatible):
		e := apierr.New(apierr.ErrInvalidInput, "incompatible_unit", field+": "+err.Error())
		e.Field = field
		return e
	}
	return apierr.Invalid(field, err.Error())
}

func parseQuery(q, field string) (specs.Query, error) {
	pq, err := specs.ParseQuery(q)
	if err != nil {
		return pq, unitError(field, err)
	}
	return pq, nil
}

func words(s string) []string {
	var out []string
	for _, w := range strings.Fields(strings.ToLower(s)) {
		if w = strings.Trim(w, ",.;:()\"'"); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// ConstraintOut is a parsed constraint as reported back.
type ConstraintOut struct {
	Quantity string   `json:"quantity,omitempty"`
	Op       string   `json:"op"`
	Unit     string   `json:"unit"`
	SIUnit   string   `json:"si_unit"`
	SIMin    *float64 `json:"si_min"`
	SIMax    *float64 `json:"si_max"`
	Text     string   `json:"text,omitempty"`
}

func constraintsOut(cs []specs.Constraint) []ConstraintOut {
	out := make([]ConstraintOut, 0, len(cs))
	for _, c := range cs {
		o := ConstraintOut{Quantity: c.Quantity, Op: c.Op, Unit: c.Unit, SIUnit: c.SIUnit, Text: c.Text}
		if !math.IsInf(c.Lo, 0) {
			lo := c.Lo
			o.SIMin = &lo
		}
		if !math.IsInf(c.Hi, 0) {
			hi := c.Hi
			o.SIMax = &hi
		}
		out = append(out, o)
	}
	return out
}

// DocRef is the source document of a statement with its rights.
type DocRef struct {
	ID          string `json:"id"`
	Title       string `json:"title"`
	Year        int32  `json:"year,omitempty"`
	License     string `json:"license"`
	LicenseURL  string `json:"license_url"`
	Attribution string `json:"attribution"`
}

// SpecRow is a query_specs row.
type SpecRow struct {
	specs.Statement
	Document DocRef `json:"document"`
}

// SpecsOutput is query_specs' answer.
type SpecsOutput struct {
	Constraints []ConstraintOut `json:"constraints"`
	// Total counts every matching row; Items holds the first limit, by
	// quantity then SI value.
	Total int       `json:"total"`
	Items []SpecRow `json:"items"`
}

func (t *Tools) specsEndpoint() *registry.Endpoint {
	return registry.Spec[SpecsInput]{
		Name: "query_specs", Method: http.MethodPost, Path: "/v1/specs", Group: registry.GroupTools,
		Price:   PriceSpecs,
		Summary: "Query the specification table: quantities, values and ranges in SI, subjects, source sentences and licences.",
		Description: "Structured filters over statements extracted from the archive's open-licence full texts and abstracts. " +
			"min and max are in unit and converted to SI; an incompatible unit is a 400 and costs nothing.",
		Output: SpecsOutput{},
		Tool:   &registry.Tool{},
		Check: func(ctx context.Context, in *SpecsInput) error {
			_, err := t.table()
			return err
		},
		Handle: func(ctx context.Context, in *SpecsInput) (*registry.Result, error) {
			out, err := t.QuerySpecs(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}

// QuerySpecs runs query_specs.
func (t *Tools) QuerySpecs(ctx context.Context, in *SpecsInput) (*SpecsOutput, error) {
	tab, err := t.table()
	if err != nil {
		return nil, err
	}
	f, _, err := in.filter()
	if err != nil {
		return nil, err
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 50
	}
	ix, total := tab.match(f, limit)
	out := &SpecsOutput{Constraints: constraintsOut(f.constraints), Total: total, Items: make([]SpecRow, 0, len(ix))}
	for _, i := range ix {
		out.Items = append(out.Items, SpecRow{Statement: tab.statement(i), Document: tab.docRef(tab.entries[i].doc)})
	}
	return out, ctx.Err()
}

func (t *table) docRef(d int32) DocRef {
	di := &t.docs[d]
	return DocRef{ID: di.id, Title: di.title, Year: di.year, License: di.license, LicenseURL: di.licenseURL,
		Attribution: di.attribution}
}

// SearchInput is search_specs' input.
type SearchInput struct {
	Query    string `json:"query" minLength:"1" maxLength:"200" doc:"Words to find, with optional numeric constraints: \"alloys thermal conductivity > 200 W/mK\", \"band gap 1.1–1.5 eV\", \"melting point below 600 °C\"."`
	Category string `json:"category,omitempty" enum:"general|tech_specs" default:"tech_specs" doc:"tech_specs: only documents with extracted specifications; general: any document (constraints still apply)."`
	Topic    string `json:"topic,omitempty" pattern:"^[a-z0-9-]{1,64}$" doc:"Only documents of this topic."`
	YearFrom *int   `json:"year_from,omitempty" min:"0" max:"9999" doc:"Earliest publication year."`
	Limit    int    `json:"limit,omitempty" min:"1" max:"50" default:"10" doc:"Hits to return."`
}

// Validate parses the constraints: a unit that does not fit its quantity
// is a 400 before payment.
func (in *SearchInput) Validate() error {
	_, err := parseQuery(in.Query, "query")
	return err
}

// Hit is a search_specs hit.
type Hit struct {
	ID      string   `json:"id"`
	Title   string   `json:"title"`
	Authors []string `json:"authors"`
	Year    int      `json:"year,omitempty"`
	Venue   string   `json:"venue,omitempty"`
	DOI     string   `json:"doi,omitempty"`
	Topics  []string `json:"topics"`
	// MatchedBy is "text" (the archive's full-text search), "specs" (the
	// specification table) or "text+specs".
	MatchedBy string `json:"matched_by"`
	archive.Rights
	// Specs are the document's statements matching the constraints (all
	// its statements, up to 10, without constraints).
	Specs []specs.Statement `json:"specs"`
}

// SearchOutput is search_specs' answer.
type SearchOutput struct {
	Query    string `json:"query"`
	Category string `json:"category"`
	// Text is what was searched as words once the constraints were taken
	// out.
	Text        string          `json:"text"`
	Constraints []ConstraintOut `json:"constraints"`
	// Candidates counts the documents considered before limit (the text
	// search contributes at most 50).
	Candidates int   `json:"candidates"`
	Hits       []Hit `json:"hits"`
}

func (t *Tools) searchEndpoint() *registry.Endpoint {
	return registry.Spec[SearchInput]{
		Name: "search_specs", Method: http.MethodPost, Path: "/v1/search", Group: registry.GroupTools,
		Price:   PriceSearch,
		Summary: "Full-text search of the archive with extracted specifications; numeric constraints in the query are matched in SI.",
		Description: "\"thermal conductivity > 200 W/mK\", \"band gap 1.1–1.5 eV\", \"melting point below 600 °C\": the " +
			"constraint is parsed, converted to SI and matched against the specification table; the other words are " +
			"searched in titles, keywords and authors and in the statements' sentences. Each hit carries its matching " +
			"specifications and its licence, attribution and copyright notice.",
		Output: SearchOutput{},
		Tool:   &registry.Tool{},
		Check: func(ctx context.Context, in *SearchInput) error {
			pq, err := parseQuery(in.Query, "query")
			if err != nil {
				return err
			}
			if in.Category != "general" || len(pq.Constraints) > 0 {
				_, err = t.table()
			}
			return err
		},
		Handle: func(ctx context.Context, in *SearchInput) (*registry.Result, error) {
			out, err := t.Search(ctx, in)
			if err != nil {
				return nil, err
			}
			return &registry.Result{Value: out}, nil
		},
	}.Endpoint()
}

// textHitsCap is how many archive hits search_specs considers.
const textHitsCap = 50

// maxLookups bounds the document look-ups one search makes.
const maxLookups = 200

// candidate is a document found by the text search, the specs table or
// both.
type candidate struct {
	id        string
	doc       int32 // in the specs table, -1 when it has no statements
	byText    bool
	statement []int32
}

// Search runs search_specs.
func (t *Tools) Search(ctx context.Context, in *SearchInput) (*SearchOutput, error) {
	pq, err := parseQuery(in.Query, "query")
	if err != nil {
		return nil, err
	}
	category := in.Category
	if category == "" {
		category = "tech_specs"
	}
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	tab, terr := t.table()
	if terr != nil && (category != "general" || len(pq.Constraints) > 0) {
		return nil, terr
	}
	out := &SearchOutput{Query: in.Query, Category: category, Text: pq.Text,
		Constraints: constraintsOut(pq.Constraints), Hits: []Hit{}}

	// The specs side: documents with statements matching every constraint
	// (or, without constraints, the quantity the words name, or the words).
	var bySpecs map[int32][]int32
	var specOrder []int32
	if tab != nil {
		f := &filter{constraints: pq.Constraints}
		if len(pq.Constraints) == 0 {
			if q := specs.NormaliseQuantity(pq.Text); q != "" {
				f.quantity = q
			} else {
				f.words = words(pq.Text)
			}
		} else {
			f.words = words(pq.Text)
		}
		if len(pq.Constraints) > 0 || f.quantity != "" || len(f.words) > 0 {
			ix, _ := tab.match(f, 0)
			bySpecs = map[int32][]int32{}
			for _, i := range ix {
				d := tab.entries[i].doc
				if _, ok := bySpecs[d]; !ok {
					specOrder = append(specOrder, d)
				}
				bySpecs[d] = append(bySpecs[d], i)
			}
			slices.SortStableFunc(specOrder, func(a, b int32) int { return len(bySpecs[b]) - len(bySpecs[a]) })
		}
	}

	var cands []candidate
	seen := map[string]bool{}
	if pq.Text != "" {
		res, err := t.archive.Search(ctx, &archive.SearchInput{Q: pq.Text, Topic: strings.Fields(in.Topic), YearFrom: in.YearFrom, Limit: textHitsCap})
		if err != nil {
			return nil, err
		}
		for _, e := range res.Items {
			c := candidate{id: e.ID, doc: -1, byText: true}
			if tab != nil {
				if d, ok := tab.byDoc[e.ID]; ok {
					c.doc = d
				}
			}
			if len(pq.Constraints) > 0 {
				if c.doc < 0 || bySpecs[c.doc] == nil {
					continue
				}
				c.statement = bySpecs[c.doc]
			} else if c.doc >= 0 {
				c.statement = tab.docStatements(c.doc, nil, maxSpecsPerHit)
			}
			if category == "tech_specs" && len(c.statement) == 0 {
				continue
			}
			seen[e.ID] = true
			cands = append(cands, c)
		}
	}
	for _, d := range specOrder {
		id := tab.docs[d].id
		if seen[id] {
			continue
		}
		if in.YearFrom != nil && int(tab.docs[d].year) < *in.YearFrom {
			continue
		}
		seen[id] = true
		cands = append(cands, candidate{id: id, doc: d, statement: bySpecs[d]})
	}
	out.Candidates = len(cands)
	lookups := 0
	for _, c := range cands {
		if len(out.Hits) >= limit || lookups >= maxLookups {
			break
		}
		lookups++
		doc, err := t.archive.Document(ctx, c.id)
		if errors.Is(err, apierr.ErrNotFound) {
			continue // the specs table is from a snapshot the archive no longer serves
		}
		if err != nil {
			return nil, err
		}
		if in.Topic != "" && !slices.Contains(doc.Topics, in.Topic) {
			continue
		}
		h := Hit{ID: doc.ID, Title: doc.Title, Year: doc.Year, Venue: doc.Venue, DOI: doc.DOI, Topics: doc.Topics,
			Rights: doc.Rights, Authors: make([]string, 0, len(doc.Authors)), Specs: make([]specs.Statement, 0, len(c.statement))}
		for _, a := range doc.Authors {
			h.Authors = append(h.Authors, a.Name)
		}
		switch {
		case c.byText && c.doc >= 0 && bySpecs[c.doc] != nil:
			h.MatchedBy = "text+specs"
		case c.byText:
			h.MatchedBy = "text"
		default:
			h.MatchedBy = "specs"
		}
		for k, i := range c.statement {
			if k == maxSpecsPerHit {
				break
			}
			h.Specs = append(h.Specs, tab.statement(i))
		}
		out.Hits = append(out.Hits, h)
	}
	return out, nil
}

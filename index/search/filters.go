package search

// Filters is the filter set /api/search had before facets (topic, year
// range, licence, full text); Apply turns it into a Request's.
type Filters struct {
	Topic            string // a topic slug; an unknown one matches nothing
	YearFrom, YearTo *int   // inclusive; undated documents match no year filter
	License          string // an exact licence name; an unknown one matches nothing
	Fulltext         bool   // only documents with full text; false restricts nothing
}

// Apply sets r's filters to f's.
func (f Filters) Apply(r *Request) {
	r.YearFrom, r.YearTo = f.YearFrom, f.YearTo
	if f.Topic == "" && f.License == "" && !f.Fulltext {
		return
	}
	if r.Where == nil {
		r.Where = map[string][]string{}
	}
	if f.Topic != "" {
		r.Where[FacetTopic] = []string{f.Topic}
	}
	if f.License != "" {
		r.Where[FacetLicense] = []string{f.License}
	}
	if f.Fulltext {
		r.Where[FacetFulltext] = []string{"true"}
	}
}

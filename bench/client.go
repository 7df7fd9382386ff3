package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// facetCount is one facet value's count, as every system answers it.
type facetCount struct {
	Value string `json:"value"`
	Count int64  `json:"count"`
}

// UnmarshalJSON accepts the value as a string or a number (a year).
func (f *facetCount) UnmarshalJSON(b []byte) error {
	var raw struct {
		Value json.RawMessage `json:"value"`
		Count int64           `json:"count"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	f.Count = raw.Count
	var s string
	if json.Unmarshal(raw.Value, &s) == nil {
		f.Value = s
	} else {
		f.Value = string(raw.Value)
	}
	return nil
}

// answer is the part of a search answer the bench reads, whatever the
// system: total, hit ids, facet counts and the cursor of the next page.
type answer struct {
	Total int64 `json:"total"`
	Items []struct {
		ID string `json:"id"`
	} `json:"items"`
	Facets     map[string][]facetCount `json:"facets"`
	Next       json.RawMessage         `json:"next"`
	NextCursor string                  `json:"next_cursor"`
}

// cursor is the opaque cursor of the next page, "" when there is none.
func (a *answer) cursor() string {
	if a.NextCursor != "" {
		return a.NextCursor
	}
	var s string
	if json.Unmarshal(a.Next, &s) == nil {
		return s
	}
	return ""
}

func (a *answer) ids() []string {
	out := make([]string, len(a.Items))
	for i, it := range a.Items {
		out[i] = it.ID
	}
	return out
}

// system is one side of the comparison: its base URL, request paths, and
// how it spells a search.
type system struct {
	name, base, catalog, stats string
	// searchPath is the path and query string of a search, limit hits
	// from cursor ("" for the first page).
	searchPath func(q squery, limit int, cursor string) string
	// files are what the system reads to answer: its share of the page
	// cache during its turn (turns.go).
	files []string
}

func oursSystem(base string) system {
	return system{name: "openshelf", base: base, catalog: "/api/catalog?limit=20&offset=", stats: "/api/stats",
		searchPath: func(q squery, limit int, cursor string) string {
			return "/api/search?" + q.params(limit, cursor)
		}}
}

func pgSystem(base string) system {
	return system{name: "PostgreSQL", base: base, catalog: "/catalog?limit=20&offset=", stats: "/stats",
		searchPath: func(q squery, limit int, cursor string) string {
			p := fmt.Sprintf("/search?limit=%d&tsq=%s", limit, urlQuery(tsquery(q.node)))
			if q.facets {
				p += "&facets=1"
			}
			if q.sort != "" {
				p += "&sort=" + urlQuery(q.sort)
			}
			if cursor != "" {
				p += "&cursor=" + urlQuery(cursor)
			}
			return p
		}}
}

func luceneSystem(base string) system {
	return system{name: "Lucene", base: base, stats: "",
		searchPath: func(q squery, limit int, cursor string) string {
			return "/search?" + q.params(limit, cursor)
		}}
}

// get fetches and decodes one search answer.
func get(ctx context.Context, client *http.Client, url string) (*answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(res.Body, 300))
		return nil, fmt.Errorf("status %d: %s", res.StatusCode, strings.TrimSpace(string(b)))
	}
	var a answer
	if err := json.NewDecoder(res.Body).Decode(&a); err != nil {
		return nil, err
	}
	return &a, nil
}

// ClassAgreement is how often two systems report the same total for the
// queries of one class.
type ClassAgreement struct {
	Class           string
	Compared, Equal int
	Failed          int    // requests one of the systems refused
	Example         string // one difference
}

// compareByClass asks every system for up to perClass queries of each
// class and compares the totals with the first system's, for at most
// budget per peer (a slow peer at 10M documents would take half an hour);
// the queries are shuffled, so a budget cut leaves every class sampled.
func compareByClass(ctx context.Context, systems []system, qs []squery, perClass int, budget time.Duration) map[string][]ClassAgreement {
	client := &http.Client{Timeout: 2 * time.Minute}
	out := map[string][]ClassAgreement{}
	for _, s := range systems[1:] {
		byClass := map[string]*ClassAgreement{}
		deadline := time.Now().Add(budget)
		for _, q := range qs {
			if time.Now().After(deadline) {
				break
			}
			ag := byClass[q.class]
			if ag == nil {
				ag = &ClassAgreement{Class: q.class}
				byClass[q.class] = ag
			}
			if ag.Compared+ag.Failed >= perClass {
				continue
			}
			a, errA := get(ctx, client, systems[0].base+systems[0].searchPath(q, 10, ""))
			b, errB := get(ctx, client, s.base+s.searchPath(q, 10, ""))
			if errA != nil || errB != nil {
				ag.Failed++
				if ag.Example == "" {
					ag.Example = fmt.Sprintf("%s: %v / %v", q.text(), errA, errB)
				}
				continue
			}
			ag.Compared++
			if a.Total == b.Total {
				ag.Equal++
			} else if ag.Example == "" {
				ag.Example = fmt.Sprintf("%s: %d / %d", q.text(), a.Total, b.Total)
			}
		}
		for _, cl := range classOrder {
			if ag := byClass[cl]; ag != nil {
				out[s.name] = append(out[s.name], *ag)
			}
		}
	}
	return out
}

// facetsEqual reports whether two facet answers have the same counts for
// every facet of names (order ignored).
func facetsEqual(a, b map[string][]facetCount, names []string) (bool, string) {
	for _, n := range names {
		x, y := normFacet(a[n]), normFacet(b[n])
		if !slices.Equal(x, y) {
			return false, fmt.Sprintf("%s: %d values vs %d (first %v vs %v)", n, len(x), len(y), first(x), first(y))
		}
	}
	return true, ""
}

func normFacet(fs []facetCount) []string {
	out := make([]string, 0, len(fs))
	for _, f := range fs {
		if f.Count > 0 {
			out = append(out, f.Value+"="+strconv.FormatInt(f.Count, 10))
		}
	}
	slices.Sort(out)
	return out
}

func first(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return s[0]
}

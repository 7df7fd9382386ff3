package archive_test

import (
	"context"
	"fmt"
	"html"
	"maps"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/pipelines/run"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
)

func get(t *testing.T, env *servetest.Env, path string, p map[string]any) map[string]any {
	t.Helper()
	res, m := env.Call(t, http.MethodGet, path, p, "")
	if res.StatusCode != 200 {
		t.Fatalf("GET %s %v: %d %v", path, p, res.StatusCode, m)
	}
	return m
}

func items(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range m["items"].([]any) {
		out = append(out, it.(map[string]any))
	}
	return out
}

// testSearchPhraseFieldBoundaries: a phrase never runs from one field
// value into the next (two authors, title into abstract).
func testSearchPhraseFieldBoundaries(t *testing.T, env *servetest.Env, c *corpus) {
	tried := 0
	for _, d := range c.docs {
		a := d.fields[query.Author]
		title := tokenize.Tokens(d.fields[query.Title][0])
		abs := tokenize.Tokens(d.fields[query.Abstract][0])
		var qs []string
		if len(a) >= 2 {
			t1, t2 := tokenize.Tokens(a[0]), tokenize.Tokens(a[1])
			if len(t1) > 0 && len(t2) > 0 {
				qs = append(qs, fmt.Sprintf(`author:"%s %s"`, t1[len(t1)-1], t2[0]))
			}
		}
		if len(title) > 0 && len(abs) > 0 {
			qs = append(qs, fmt.Sprintf(`"%s %s"`, title[len(title)-1], abs[0]))
		}
		for _, q := range qs {
			want := c.expected(t, q, false, false)
			got, _ := all(t, env, map[string]any{"q": q})
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("q=%s: got %v, oracle %v", q, got, want)
			}
			if slices.Contains(got, d.id) {
				t.Errorf("q=%s finds %s across a field boundary", q, d.id)
			}
			tried++
		}
		if tried >= 6 {
			break
		}
	}
	if tried < 4 {
		t.Fatalf("only %d boundary phrases in the corpus", tried)
	}
}

// testSearchSorts checks each order on a listing and on a query.
func testSearchSorts(t *testing.T, env *servetest.Env, c *corpus) {
	w := c.titleWords(3)
	for _, q := range []string{"", w[0] + " OR " + w[1]} {
		for _, sort := range []string{"relevance", "year", "-year", "cited_by"} {
			ids, _ := all(t, env, map[string]any{"q": q, "sort": sort})
			var hits []map[string]any
			for p := map[string]any{"q": q, "sort": sort, "limit": 50}; ; {
				m := get(t, env, "/api/search", p)
				hits = append(hits, items(m)...)
				next, _ := m["next_cursor"].(string)
				if next == "" {
					break
				}
				p["cursor"] = next
			}
			if len(hits) != len(ids) || len(hits) < 5 {
				t.Fatalf("q=%q sort=%s: %d hits", q, sort, len(hits))
			}
			for i := 1; i < len(hits); i++ {
				a, b := hits[i-1], hits[i]
				ya, _ := a["year"].(float64)
				yb, _ := b["year"].(float64)
				var bad bool
				switch sort {
				case "year":
					bad = ya == 0 && yb != 0 || yb != 0 && ya > yb
				case "-year":
					bad = ya == 0 && yb != 0 || yb != 0 && ya < yb
				case "cited_by":
					bad = a["cited_by_count"].(float64) < b["cited_by_count"].(float64)
				case "relevance":
					if q == "" {
						bad = a["id"].(string) > b["id"].(string) // catalog order
					} else {
						bad = a["score"].(float64) < b["score"].(float64)
					}
				}
				if bad {
					t.Errorf("q=%q sort=%s: hit %d %v (%v, %v) before %v (%v, %v)", q, sort, i-1, a["id"], ya, a["cited_by_count"], b["id"], yb, b["cited_by_count"])
				}
			}
			if sort != "relevance" {
				for _, h := range hits {
					if _, ok := h["score"]; ok && sort != "relevance" {
						t.Errorf("sort=%s: hit has a score", sort)
						break
					}
				}
			}
		}
	}
}

// facetSQL computes one facet's counts with DuckDB over the snapshot's
// documents table, for the documents matching where.
func facetSQL(t *testing.T, c *corpus, facet, where string) map[string]int64 {
	t.Helper()
	var q string
	switch facet {
	case "license":
		q = "SELECT license, count(*) FROM documents WHERE " + where + " GROUP BY 1"
	case "topic":
		q = "SELECT t, count(*) FROM (SELECT DISTINCT id, unnest(topics) AS t FROM documents WHERE " + where + ") GROUP BY 1"
	case "year":
		q = "SELECT year::VARCHAR, count(*) FROM documents WHERE year <> 0 AND " + where + " GROUP BY 1"
	case "source":
		q = `SELECT s, count(*) FROM (SELECT DISTINCT id, CASE WHEN starts_with(x, 'jats:') THEN 'jats' ELSE x END AS s
			FROM (SELECT id, unnest(sources) AS x FROM documents WHERE ` + where + `)) GROUP BY 1`
	case "fulltext":
		q = "SELECT has_fulltext::VARCHAR, count(*) FROM documents WHERE " + where + " GROUP BY 1"
	}
	rows, err := c.db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var v string
		var n int64
		if err := rows.Scan(&v, &n); err != nil {
			t.Fatal(err)
		}
		out[v] = n
	}
	return out
}

// testSearchFacetsEqualGroupBy: the facet counts of a search are a
// GROUP BY over the snapshot's documents table for the same filter, and
// filtering by a facet value finds as many documents as its count says.
func testSearchFacetsEqualGroupBy(t *testing.T, env *servetest.Env, c *corpus) {
	w := c.titleWords(3)
	topic := c.docs[0].topics[0]
	ids := c.expected(t, w[0]+" OR "+w[1], false, false)
	quoted := make([]string, len(ids))
	for i, id := range ids {
		quoted[i] = "'" + id + "'"
	}
	tests := []struct {
		params map[string]any
		where  string
	}{
		{map[string]any{}, "true"},
		{map[string]any{"license": "CC-BY"}, "license = 'CC-BY'"},
		{map[string]any{"license": "CC-BY,CC0"}, "license IN ('CC-BY', 'CC0')"},
		{map[string]any{"fulltext": "true", "topic": topic}, "has_fulltext AND list_contains(topics, '" + topic + "')"},
		{map[string]any{"year_from": 2015, "year_to": 2020}, "year BETWEEN 2015 AND 2020"},
		{map[string]any{"source": "pubmed"}, "list_contains(sources, 'pubmed')"},
		{map[string]any{"q": w[0] + " OR " + w[1]}, "id IN (" + strings.Join(quoted, ",") + ")"},
	}
	facets := []string{"license", "topic", "year", "source", "fulltext"}
	for _, tt := range tests {
		p := maps.Clone(tt.params)
		p["facets"] = strings.Join(facets, ",")
		p["limit"] = 1
		m := get(t, env, "/api/search", p)
		got := m["facets"].(map[string]any)
		for _, f := range facets {
			want := facetSQL(t, c, f, tt.where)
			have := map[string]int64{}
			prev := int64(1 << 62)
			for _, v := range got[f].([]any) {
				fc := v.(map[string]any)
				n := int64(fc["count"].(float64))
				have[fc["value"].(string)] = n
				if n > prev {
					t.Errorf("%v facet %s: counts not descending", tt.params, f)
				}
				prev = n
			}
			if !maps.Equal(have, want) {
				t.Errorf("%v facet %s:\n got %v\nwant %v (DuckDB GROUP BY)", tt.params, f, have, want)
			}
		}
		// Each licence value, used as a filter, finds its count.
		for _, v := range got["license"].([]any) {
			fc := v.(map[string]any)
			p := maps.Clone(tt.params)
			if _, ok := p["license"]; ok {
				continue
			}
			p["license"], p["limit"] = fc["value"], 1
			if n := get(t, env, "/api/search", p)["total"].(float64); n != fc["count"].(float64) {
				t.Errorf("%v license=%v: total %v, facet count %v", tt.params, fc["value"], n, fc["count"])
			}
		}
	}
	if m := get(t, env, "/api/search", map[string]any{"q": w[0]}); m["facets"] != nil {
		t.Errorf("facets without facets=: %v", m["facets"])
	}
}

// testSearchCursorEqualsOffset: paging through a whole result set with
// cursors gives the hits offset paging gives, in the same order.
func testSearchCursorEqualsOffset(t *testing.T, env *servetest.Env, c *corpus) {
	w := c.titleWords(3)
	for _, p := range []map[string]any{
		{}, {"sort": "-year"}, {"sort": "cited_by", "license": "CC-BY"}, {"q": w[0] + " OR " + w[1] + " OR " + w[2]},
	} {
		var byOffset, byCursor []string
		total := 0
		for off := 0; ; off += 7 {
			q := maps.Clone(p)
			q["limit"], q["offset"] = 7, off
			m := get(t, env, "/api/search", q)
			total = int(m["total"].(float64))
			for _, it := range items(m) {
				byOffset = append(byOffset, it["id"].(string))
			}
			if off+7 >= total {
				if m["next_cursor"] != nil || m["next"] != nil {
					t.Errorf("%v: last page has next %v / next_cursor %v", p, m["next"], m["next_cursor"])
				}
				break
			}
			if !strings.Contains(m["next"].(string), fmt.Sprintf("offset=%d", off+7)) {
				t.Errorf("%v: next %v", p, m["next"])
			}
		}
		q := maps.Clone(p)
		q["limit"] = 7
		for pages := 0; ; pages++ {
			m := get(t, env, "/api/search", q)
			for _, it := range items(m) {
				byCursor = append(byCursor, it["id"].(string))
			}
			next, _ := m["next_cursor"].(string)
			if next == "" {
				break
			}
			if pages > 0 && !strings.Contains(m["next"].(string), "cursor=") {
				t.Errorf("%v: next of a cursor page is %v", p, m["next"])
			}
			q["cursor"] = next
		}
		if len(byOffset) != total || !slices.Equal(byOffset, byCursor) || total < 8 {
			t.Errorf("%v: total %d, offset paging %d hits, cursor paging %d; equal %v", p, total, len(byOffset), len(byCursor), slices.Equal(byOffset, byCursor))
		}
	}
	// The catalog too, with and without a topic.
	topic := c.docs[0].topics[0]
	for _, p := range []map[string]any{{}, {"topic": topic}} {
		var byOffset, byCursor []string
		for off := 0; ; off += 9 {
			q := maps.Clone(p)
			q["limit"], q["offset"] = 9, off
			m := get(t, env, "/api/catalog", q)
			for _, it := range items(m) {
				byOffset = append(byOffset, it["id"].(string))
			}
			if m["next"] == nil {
				break
			}
		}
		q := maps.Clone(p)
		q["limit"] = 9
		for {
			m := get(t, env, "/api/catalog", q)
			for _, it := range items(m) {
				byCursor = append(byCursor, it["id"].(string))
			}
			next, _ := m["next_cursor"].(string)
			if next == "" {
				break
			}
			q["cursor"] = next
		}
		if !slices.Equal(byOffset, byCursor) || len(byOffset) < 10 {
			t.Errorf("catalog %v: offset paging %d, cursor paging %d", p, len(byOffset), len(byCursor))
		}
	}
}

// TestCursorAfterSnapshotSwitch: a search cursor of a snapshot no longer
// served is 410 cursor_expired; a catalog cursor resumes after its id.
func TestCursorAfterSnapshotSwitch(t *testing.T) {
	var dir string
	env := servetest.New(t, func(c *serve.Config) { dir = c.DataDir })
	m := get(t, env, "/api/search", map[string]any{"limit": 2})
	cur := m["next_cursor"].(string)
	cm := get(t, env, "/api/catalog", map[string]any{"limit": 2})
	ccur := cm["next_cursor"].(string)
	last := items(cm)[1]["id"].(string)

	_, err := run.Run(context.Background(), run.Config{DataDir: dir, Fresh: true, Workers: 1,
		Inputs: []run.Input{{Path: fixtures.Path(t, "jats", "elife")}}, Now: testsnap.Now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := env.App.Store.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, body := env.Call(t, http.MethodGet, "/api/search", map[string]any{"limit": 2, "cursor": cur}, "")
	if res.StatusCode != http.StatusGone || servetest.ErrCode(body) != "cursor_expired" {
		t.Errorf("search cursor after a switch: %d %v", res.StatusCode, body)
	}
	cm = get(t, env, "/api/catalog", map[string]any{"limit": 2, "cursor": ccur})
	for _, it := range items(cm) {
		if it["id"].(string) <= last {
			t.Errorf("catalog cursor after a switch gives %v, not after %s", it["id"], last)
		}
	}
}

// testSearchSelect: select keeps the named fields, the id and the rights.
func testSearchSelect(t *testing.T, env *servetest.Env, c *corpus) {
	w := c.titleWords(3)
	allowed := []string{"id", "license", "license_url", "attribution", "copyright_notice"}
	for _, tt := range []struct {
		path   string
		params map[string]any
		keep   []string
	}{
		{"/api/search", map[string]any{"q": w[0], "select": "title,year"}, []string{"title", "year"}},
		{"/api/search", map[string]any{"q": w[0], "select": "snippet", "snippet": true}, []string{"snippet"}},
		{"/api/catalog", map[string]any{"select": "cited_by_count"}, []string{"cited_by_count"}},
	} {
		m := get(t, env, tt.path, tt.params)
		its := items(m)
		if len(its) == 0 {
			t.Fatalf("%s %v: no items", tt.path, tt.params)
		}
		for _, it := range its {
			for k := range it {
				if !slices.Contains(tt.keep, k) && !slices.Contains(allowed, k) {
					t.Errorf("%s %v: item has %s", tt.path, tt.params, k)
				}
			}
			for _, k := range append([]string{"id", "license", "license_url"}, tt.keep...) {
				if _, ok := it[k]; !ok && k != "year" {
					t.Errorf("%s %v: item lacks %s: %v", tt.path, tt.params, k, it)
				}
			}
			if tt.params["snippet"] == true && (it["attribution"] == "" || it["copyright_notice"] == "") {
				t.Errorf("snippet without its rights: %v", it)
			}
		}
		if m["total"] == nil || m["next_cursor"] == nil && m["total"].(float64) > float64(len(its)) {
			t.Errorf("%s %v: page fields lost: %v", tt.path, tt.params, m)
		}
	}
}

var markRE = regexp.MustCompile(`<mark>(.*?)</mark>`)

// testSearchSnippets: snippets come from the open text, mark what
// matched (folded as the index folds, stemmed with stem=true), stay
// short and carry the rights.
func testSearchSnippets(t *testing.T, env *servetest.Env, c *corpus) {
	// A word in many abstracts, and a word only in some full texts.
	df := map[string]int{}
	for _, d := range c.docs {
		seen := map[string]bool{}
		for _, w := range tokenize.Terms(d.fields[query.Abstract][0]) {
			if !seen[w] && len(w) > 4 {
				seen[w] = true
				df[w]++
			}
		}
	}
	var absWord string
	for w, n := range df {
		if n >= 4 && (absWord == "" || n > df[absWord] || n == df[absWord] && w < absWord) {
			absWord = w
		}
	}
	for _, tt := range []struct {
		name   string
		params map[string]any
		marked func(string) bool
	}{
		{"abstract", map[string]any{"q": absWord}, func(s string) bool { return s == absWord }},
		{"stemmed", map[string]any{"q": absWord, "stem": true}, func(s string) bool { return stem(s) == stem(absWord) }},
		{"phrase", map[string]any{"q": `"` + absWord + `"`}, func(s string) bool { return s == absWord }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := maps.Clone(tt.params)
			p["snippet"], p["limit"] = true, 50
			m := get(t, env, "/api/search", p)
			its := items(m)
			withMark := 0
			for _, it := range its {
				s, _ := it["snippet"].(string)
				if it["attribution"] == "" || it["copyright_notice"] == "" || it["license"] == "" {
					t.Errorf("%v: snippet without rights", it["id"])
				}
				plain := html.UnescapeString(markRE.ReplaceAllString(s, "$1"))
				if n := utf8.RuneCountInString(strings.Trim(plain, "…")); n > 200 {
					t.Errorf("%v: snippet of %d characters", it["id"], n)
				}
				for _, mk := range markRE.FindAllStringSubmatch(s, -1) {
					toks := tokenize.Tokens(html.UnescapeString(mk[1]))
					if !slices.ContainsFunc(toks, tt.marked) {
						t.Errorf("%v: marked %q, which did not match", it["id"], mk[1])
					}
				}
				if markRE.MatchString(s) {
					withMark++
				}
			}
			if withMark < df[absWord]/2 || withMark == 0 {
				t.Errorf("%d of %d hits have a marked word; %d abstracts hold %q", withMark, len(its), df[absWord], absWord)
			}
		})
	}
	// in=fulltext: a document matching only in its full text gets a
	// paragraph of it.
	var ftWord, ftDoc string
	for _, d := range c.docs {
		if len(d.fields[query.Fulltext]) == 0 || ftWord != "" {
			continue
		}
		meta := map[string]bool{}
		for _, f := range []query.Field{query.Title, query.Abstract, query.Keyword, query.Author} {
			for _, v := range d.fields[f] {
				for _, tk := range tokenize.Tokens(v) {
					meta[tk] = true
				}
			}
		}
		for _, tk := range tokenize.Terms(strings.Join(d.fields[query.Fulltext], " ")) {
			if !meta[tk] && len(tk) > 6 && !strings.ContainsAny(tk, "0123456789") {
				ftWord, ftDoc = tk, d.id
				break
			}
		}
	}
	m := get(t, env, "/api/search", map[string]any{"q": ftWord, "in": "fulltext", "snippet": true, "limit": 50})
	found := false
	for _, it := range items(m) {
		if it["id"] == ftDoc {
			found = true
			s, _ := it["snippet"].(string)
			mk := markRE.FindStringSubmatch(s)
			if mk == nil || !slices.Contains(tokenize.Tokens(html.UnescapeString(mk[1])), ftWord) {
				t.Errorf("in=fulltext %q: snippet of %s is %q", ftWord, ftDoc, s)
			}
		}
	}
	if !found {
		t.Errorf("in=fulltext %q does not find %s", ftWord, ftDoc)
	}
	// Without snippet=true, no snippet.
	for _, it := range items(get(t, env, "/api/search", map[string]any{"q": absWord})) {
		if _, ok := it["snippet"]; ok {
			t.Errorf("snippet without snippet=true")
		}
	}
}

// citingCorpus publishes n synthetic documents into a data directory:
// document i cites (by DOI) documents 0..i-1 among the first five, and
// document 0 also cites a work outside the archive. Written for this
// test, through the real index builder.
func citingCorpus(t *testing.T, n int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	accept := func(ev []licence.Evidence, _ time.Time) licence.Decision {
		return licence.Decision{Accepted: true, Family: licence.CCBY, Version: "4.0",
			URL: "https://creativecommons.org/licenses/by/4.0/", Evidence: ev}
	}
	feed := func(ctx context.Context, sink ingest.Sink) error {
		for i := range n {
			d := &ingest.Document{PMCID: fmt.Sprint(5000 + i), DOI: fmt.Sprintf("10.5555/cite.%d", i),
				Title: fmt.Sprintf("Citation network study %d", i), Authors: []ingest.Author{{Name: "Grace Hopper"}},
				Abstract: "We study how papers cite each other.", Year: 2000 + i, Topics: []string{"genetics"},
				References: []ingest.Reference{{Title: "outside", DOI: "10.9999/elsewhere"}}, Sources: []string{"jats:pmc"}}
			for j := 0; j < min(i, 5); j++ {
				d.References = append(d.References, ingest.Reference{Title: fmt.Sprint("study ", j), DOI: fmt.Sprintf("10.5555/CITE.%d", j)})
			}
			d.Licence = accept([]licence.Evidence{{Kind: licence.KindJATSHref, Source: licence.SourcePMC,
				Value: "https://creativecommons.org/licenses/by/4.0/"}}, now)
			d.AssignIDs()
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
	if _, err := index.Build(context.Background(), index.Config{DataDir: dir, Decide: accept, Now: now, Fresh: true,
		Topics: []index.Topic{{Slug: "genetics", Name: "Genetics"}}}, feed); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCitedBy: references resolved to archive documents give each
// document its cited_by_count (search hits, catalog, document record)
// and its cited-by list, paged by cursor.
func TestCitedBy(t *testing.T) {
	const n = 12
	env := servetest.New(t, func(c *serve.Config) { c.DataDir = citingCorpus(t, n) })
	// Document j < 5 is cited by every later document: n-1-j of them.
	want := func(j int) int {
		if j >= 5 {
			return 0
		}
		return n - 1 - j
	}
	cat := items(get(t, env, "/api/catalog", map[string]any{"limit": 50}))
	if len(cat) != n {
		t.Fatalf("catalog has %d documents, want %d", len(cat), n)
	}
	byID := map[string]int{}
	for _, e := range cat {
		var j int
		fmt.Sscanf(e["title"].(string), "Citation network study %d", &j)
		byID[e["id"].(string)] = j
		if got := int(e["cited_by_count"].(float64)); got != want(j) {
			t.Errorf("catalog: %s (study %d) cited_by_count %d, want %d", e["id"], j, got, want(j))
		}
	}
	top := items(get(t, env, "/api/search", map[string]any{"sort": "cited_by", "limit": 3}))
	for i, e := range top {
		if byID[e["id"].(string)] != i {
			t.Errorf("sort=cited_by: hit %d is study %d", i, byID[e["id"].(string)])
		}
	}
	for id, j := range byID {
		var citing []string
		p := map[string]any{"limit": 2}
		for range 20 {
			m := get(t, env, "/api/document/"+id+"/cited-by", p)
			if m["id"] != id || int(m["total"].(float64)) != want(j) {
				t.Fatalf("cited-by of study %d: %v, want total %d", j, m, want(j))
			}
			for _, it := range items(m) {
				citing = append(citing, it["id"].(string))
				if k := byID[it["id"].(string)]; k <= j {
					t.Errorf("study %d listed as citing study %d", k, j)
				}
			}
			next, _ := m["next_cursor"].(string)
			if next == "" {
				break
			}
			p["cursor"] = next
		}
		if len(citing) != want(j) || len(slices.Compact(slices.Sorted(slices.Values(citing)))) != want(j) {
			t.Errorf("cited-by of study %d: %v, want %d distinct", j, citing, want(j))
		}
		if j == 0 {
			doc := env.PaidCall(t, http.MethodGet, "/api/document/"+id, nil)
			if int(doc["cited_by_count"].(float64)) != want(0) {
				t.Errorf("document record of study 0: cited_by_count %v, want %d", doc["cited_by_count"], want(0))
			}
			for _, tt := range []struct {
				path   string
				params map[string]any
				status int
				code   string
			}{
				{"/api/document/pmc-99999999999/cited-by", nil, 404, "document_not_found"},
				{"/api/document/nope/cited-by", nil, 400, "invalid_input"},
				{"/api/document/" + id + "/cited-by", map[string]any{"cursor": "zz"}, 400, "invalid_cursor"},
				{"/api/document/" + id + "/cited-by", map[string]any{"limit": 51}, 400, "invalid_input"},
			} {
				res, m := env.Call(t, http.MethodGet, tt.path, tt.params, "")
				if res.StatusCode != tt.status || servetest.ErrCode(m) != tt.code {
					t.Errorf("GET %s %v: %d %v, want %d %s", tt.path, tt.params, res.StatusCode, m, tt.status, tt.code)
				}
			}
		}
	}
}

// testSearchBadRequests: every refusal is a 400 (410 for an expired
// cursor) with its code, and a query error points at its position.
func testSearchBadRequests(t *testing.T, env *servetest.Env, c *corpus) {
	topic := c.docs[0].topics[0]
	for _, tt := range []struct {
		path   string
		params map[string]any
		code   string
		pos    int // -1: no position
	}{
		{"/api/search", map[string]any{"q": `heart "failure`}, "invalid_query", 6},
		{"/api/search", map[string]any{"q": "(heart failure"}, "invalid_query", 0},
		{"/api/search", map[string]any{"q": "heart)"}, "invalid_query", 5},
		{"/api/search", map[string]any{"q": "-heart"}, "invalid_query", 0},
		{"/api/search", map[string]any{"q": "heart OR"}, "invalid_query", 6},
		{"/api/search", map[string]any{"facets": "colour"}, "invalid_input", -1},
		{"/api/search", map[string]any{"select": "title,colour"}, "invalid_input", -1},
		{"/api/search", map[string]any{"sort": "date"}, "invalid_input", -1},
		{"/api/search", map[string]any{"in": "everywhere"}, "invalid_input", -1},
		{"/api/search", map[string]any{"stem": "yes"}, "invalid_input", -1},
		{"/api/search", map[string]any{"snippet": "1"}, "invalid_input", -1},
		{"/api/search", map[string]any{"source": "arxiv"}, "invalid_input", -1},
		{"/api/search", map[string]any{"license": "CC-BY,CC-BY-NC"}, "invalid_input", -1},
		{"/api/search", map[string]any{"topic": topic + ",no-such-topic"}, "unknown_topic", -1},
		{"/api/search", map[string]any{"cursor": "abc", "offset": 10}, "invalid_input", -1},
		{"/api/search", map[string]any{"cursor": "not-a-cursor"}, "invalid_cursor", -1},
		{"/api/catalog", map[string]any{"cursor": "not-a-cursor"}, "invalid_cursor", -1},
		{"/api/catalog", map[string]any{"cursor": "abc", "offset": 10}, "invalid_input", -1},
		{"/api/catalog", map[string]any{"select": "snippet"}, "invalid_input", -1},
	} {
		res, m := env.Call(t, http.MethodGet, tt.path, tt.params, "")
		if res.StatusCode != 400 || servetest.ErrCode(m) != tt.code {
			t.Errorf("%s %v: %d %v, want 400 %s", tt.path, tt.params, res.StatusCode, m, tt.code)
			continue
		}
		e := m["error"].(map[string]any)
		pos, has := e["position"].(float64)
		if tt.pos >= 0 && (!has || int(pos) != tt.pos || e["field"] != "q") {
			t.Errorf("%s %v: error %v, want position %d", tt.path, tt.params, e, tt.pos)
		}
		if tt.pos < 0 && has {
			t.Errorf("%s %v: error %v has a position", tt.path, tt.params, e)
		}
	}
	// A catalog cursor is bound to its topic filter.
	cur := get(t, env, "/api/catalog", map[string]any{"limit": 1})["next_cursor"].(string)
	res, m := env.Call(t, http.MethodGet, "/api/catalog", map[string]any{"cursor": cur, "topic": topic}, "")
	if res.StatusCode != 400 || servetest.ErrCode(m) != "invalid_cursor" {
		t.Errorf("catalog cursor with another topic: %d %v", res.StatusCode, m)
	}
	// A search cursor is bound to its sort.
	cur = get(t, env, "/api/search", map[string]any{"limit": 1, "sort": "year"})["next_cursor"].(string)
	res, m = env.Call(t, http.MethodGet, "/api/search", map[string]any{"cursor": cur, "sort": "-year"}, "")
	if res.StatusCode != 400 || servetest.ErrCode(m) != "invalid_cursor" {
		t.Errorf("search cursor with another sort: %d %v", res.StatusCode, m)
	}
}

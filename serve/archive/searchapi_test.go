package archive_test

import (
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/kljensen/snowball/english"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/snapshot"
)

// corpusDoc is one document of the fixture snapshot as the oracle sees
// it: the values of each searchable field, read from the snapshot's
// Parquet tables through DuckDB (not through the server).
type corpusDoc struct {
	id       string
	fields   map[query.Field][]string
	year     int
	license  string
	topics   []string
	sources  []string
	fulltext bool
}

type corpus struct {
	docs []corpusDoc
	db   *sql.DB
	snap *snapshot.Snapshot
}

// loadCorpus reads the served snapshot of dataDir.
func loadCorpus(t *testing.T, dataDir string) *corpus {
	t.Helper()
	snap, err := snapshot.Open(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, v := range []struct{ name, table string }{{"documents", snapshot.Documents}, {"fulltext", snapshot.Fulltext}} {
		if _, err := db.Exec(fmt.Sprintf("CREATE VIEW %s AS SELECT * FROM read_parquet('%s')", v.name, snap.Path(v.table))); err != nil {
			t.Fatal(err)
		}
	}
	c := &corpus{db: db, snap: snap}
	rows, err := db.Query(`SELECT id, title, abstract, keywords, list_transform(authors, a -> a.name), doi, year, license,
		topics, sources, has_fulltext FROM documents ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	byID := map[string]int{}
	for rows.Next() {
		var d corpusDoc
		var title, abstract, doi string
		var kw, authors, topics, sources []any
		if err := rows.Scan(&d.id, &title, &abstract, &kw, &authors, &doi, &d.year, &d.license, &topics, &sources, &d.fulltext); err != nil {
			t.Fatal(err)
		}
		d.fields = map[query.Field][]string{query.Title: {title}, query.Abstract: {abstract},
			query.Keyword: strs(kw), query.Author: strs(authors)}
		if doi != "" {
			d.fields[query.DOI] = []string{doi}
		}
		d.topics, d.sources = strs(topics), strs(sources)
		byID[d.id] = len(c.docs)
		c.docs = append(c.docs, d)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ft, err := db.Query("SELECT id, title, paragraphs FROM fulltext ORDER BY id, ordinal")
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	for ft.Next() {
		var id, title string
		var paras []any
		if err := ft.Scan(&id, &title, &paras); err != nil {
			t.Fatal(err)
		}
		d := &c.docs[byID[id]]
		d.fields[query.Fulltext] = append(append(d.fields[query.Fulltext], title), strs(paras)...)
	}
	return c
}

func strs(v []any) []string {
	out := make([]string, 0, len(v))
	for _, x := range v {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// stem is the English Snowball stem, as the index applies it.
func stem(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	return english.Stem(w, true)
}

// matches is the oracle: does d match n, evaluated by brute force over
// the folded tokens of each field value?
func (d *corpusDoc) matches(n query.Node, stemmed, fulltext bool) bool {
	switch n := n.(type) {
	case *query.And:
		for _, c := range n.Children {
			if not, ok := c.(*query.Not); ok {
				if d.matches(not.Child, stemmed, fulltext) {
					return false
				}
			} else if !d.matches(c, stemmed, fulltext) {
				return false
			}
		}
		return true
	case *query.Or:
		for _, c := range n.Children {
			if d.matches(c, stemmed, fulltext) {
				return true
			}
		}
		return false
	case *query.Term:
		return d.anyField(n.Field, fulltext, func(f query.Field, toks []string) bool {
			if f == query.DOI {
				return len(toks) > 0 && toks[0] == n.Word
			}
			for _, t := range toks {
				if n.Prefix && strings.HasPrefix(t, n.Word) || t == n.Word ||
					stemmed && f != query.Author && stem(t) == stem(n.Word) {
					return true
				}
			}
			return false
		})
	case *query.Phrase:
		return d.anyField(n.Field, fulltext, func(f query.Field, toks []string) bool {
			for i := 0; i+len(n.Words) <= len(toks); i++ {
				ok := true
				for j, w := range n.Words {
					t := toks[i+j]
					if t != w && !(stemmed && f != query.Author && stem(t) == stem(w)) {
						ok = false
						break
					}
				}
				if ok {
					return true
				}
			}
			return false
		})
	}
	panic(fmt.Sprintf("oracle: node %T", n))
}

// anyField calls match on the tokens of each value of the fields f
// stands for, until one matches.
func (d *corpusDoc) anyField(f query.Field, fulltext bool, match func(query.Field, []string) bool) bool {
	fields := []query.Field{f}
	if f == query.Any {
		fields = []query.Field{query.Title, query.Abstract, query.Author, query.Keyword}
		if fulltext {
			fields = append(fields, query.Fulltext)
		}
	}
	for _, f := range fields {
		for _, v := range d.fields[f] {
			toks := tokenize.Tokens(v)
			if f == query.DOI {
				toks = []string{strings.ToLower(v)}
			}
			if match(f, toks) {
				return true
			}
		}
	}
	return false
}

// expected returns the ids the oracle finds for q, sorted.
func (c *corpus) expected(t *testing.T, q string, stemmed, fulltext bool) []string {
	t.Helper()
	n, err := query.Parse(q)
	if err != nil {
		t.Fatalf("parse %q: %v", q, err)
	}
	var ids []string
	for i := range c.docs {
		if c.docs[i].matches(n, stemmed, fulltext) {
			ids = append(ids, c.docs[i].id)
		}
	}
	return ids
}

// all pages through a search with cursors and returns every hit's id,
// in order, and the first page.
func all(t *testing.T, env *servetest.Env, params map[string]any) ([]string, map[string]any) {
	t.Helper()
	var ids []string
	var first map[string]any
	p := map[string]any{"limit": 50}
	for k, v := range params {
		p[k] = v
	}
	for range 1000 {
		res, m := env.Call(t, http.MethodGet, "/api/search", p, "")
		if res.StatusCode != 200 {
			t.Fatalf("search %v: %d %v", p, res.StatusCode, m)
		}
		if first == nil {
			first = m
		}
		for _, it := range m["items"].([]any) {
			ids = append(ids, it.(map[string]any)["id"].(string))
		}
		next, _ := m["next_cursor"].(string)
		if next == "" {
			return ids, first
		}
		p["cursor"] = next
	}
	t.Fatal("more than 1000 pages")
	return nil, nil
}

// TestSearchAPI runs the end-to-end tests that only read, on one server
// over the fixture snapshot.
func TestSearchAPI(t *testing.T) {
	env, c := newEnv(t)
	for _, tt := range []struct {
		name string
		fn   func(*testing.T, *servetest.Env, *corpus)
	}{
		{"OperatorsMatchOracle", testSearchOperatorsMatchOracle},
		{"PhraseFieldBoundaries", testSearchPhraseFieldBoundaries},
		{"Sorts", testSearchSorts},
		{"FacetsEqualGroupBy", testSearchFacetsEqualGroupBy},
		{"CursorEqualsOffset", testSearchCursorEqualsOffset},
		{"Select", testSearchSelect},
		{"Snippets", testSearchSnippets},
		{"BadRequests", testSearchBadRequests},
	} {
		t.Run(tt.name, func(t *testing.T) { tt.fn(t, env, c) })
	}
}

func newEnv(t *testing.T) (*servetest.Env, *corpus) {
	var dir string
	env := servetest.New(t, func(c *serve.Config) { dir = c.DataDir })
	return env, loadCorpus(t, dir)
}

// words returns distinct folded non-stop words of the corpus's titles
// that occur in at least min documents, most frequent first.
func (c *corpus) titleWords(min int) []string {
	df := map[string]int{}
	for _, d := range c.docs {
		seen := map[string]bool{}
		for _, w := range tokenize.Terms(d.fields[query.Title][0]) {
			if !seen[w] && len(w) > 3 && !strings.ContainsAny(w, "0123456789") {
				seen[w] = true
				df[w]++
			}
		}
	}
	var out []string
	for w, n := range df {
		if n >= min {
			out = append(out, w)
		}
	}
	sort.Slice(out, func(i, j int) bool { return df[out[i]] > df[out[j]] || df[out[i]] == df[out[j]] && out[i] < out[j] })
	return out
}

// testSearchOperatorsMatchOracle runs each operator of the query language
// end to end and compares the whole result set (paged with cursors) with
// a brute-force evaluation over the snapshot's Parquet tables.
func testSearchOperatorsMatchOracle(t *testing.T, env *servetest.Env, c *corpus) {
	w := c.titleWords(3)
	if len(w) < 6 {
		t.Fatalf("corpus too small: title words %v", w)
	}
	// A phrase and an author from real documents.
	var phrase, author, doi, abstractWord, ftWord string
	for _, d := range c.docs {
		toks := tokenize.Tokens(d.fields[query.Title][0])
		if phrase == "" && len(toks) >= 4 {
			phrase = strings.Join(toks[1:4], " ")
		}
		if a := d.fields[query.Author]; author == "" && len(a) > 0 {
			if ts := tokenize.Tokens(a[0]); len(ts) > 1 {
				author = ts[len(ts)-1]
			}
		}
		if dd := d.fields[query.DOI]; doi == "" && len(dd) > 0 {
			doi = dd[0]
		}
		if ab := tokenize.Terms(d.fields[query.Abstract][0]); abstractWord == "" && len(ab) > 10 {
			abstractWord = ab[10]
		}
		if ft := d.fields[query.Fulltext]; ftWord == "" && len(ft) > 3 {
			if ts := tokenize.Terms(strings.Join(ft, " ")); len(ts) > 50 {
				ftWord = ts[50]
			}
		}
	}
	if phrase == "" || author == "" || doi == "" || abstractWord == "" || ftWord == "" {
		t.Fatalf("corpus lacks a phrase %q, author %q, doi %q, abstract word %q or full-text word %q", phrase, author, doi, abstractWord, ftWord)
	}
	tests := []struct {
		name     string
		q        string
		stem     bool
		fulltext bool
	}{
		{"word", w[0], false, false},
		{"all words", w[0] + " " + w[1], false, false},
		{"phrase", `"` + phrase + `"`, false, false},
		{"OR", w[2] + " OR " + w[3], false, false},
		{"minus", w[0] + " -" + w[1], false, false},
		{"NOT", w[0] + " NOT " + w[1], false, false},
		{"parentheses", "(" + w[1] + " OR " + w[2] + ") " + w[0], false, false},
		{"title", "title:" + w[0], false, false},
		{"abstract", "abstract:" + abstractWord, false, false},
		{"author", "author:" + author, false, false},
		{"keyword", "keyword:" + w[0], false, false},
		{"doi", "doi:" + doi, false, false},
		{"fulltext field", "fulltext:" + ftWord, false, false},
		{"in=fulltext", ftWord, false, true},
		{"prefix", w[4][:4] + "*", false, false},
		{"field phrase", `title:"` + phrase + `"`, false, false},
		{"stem off", w[5], false, false},
		{"stem on", w[5], true, false},
		{"stem on, plural", w[5] + "s", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := map[string]any{"q": tt.q}
			if tt.stem {
				p["stem"] = true
			}
			if tt.fulltext {
				p["in"] = "fulltext"
			}
			got, first := all(t, env, p)
			want := c.expected(t, tt.q, tt.stem, tt.fulltext)
			if int(first["total"].(float64)) != len(got) {
				t.Errorf("q=%s: total %v but %d hits paged", tt.q, first["total"], len(got))
			}
			t.Logf("q=%s: %d hits", tt.q, len(got))
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("q=%s stem=%v in=fulltext %v: got %d hits %v, oracle %d %v", tt.q, tt.stem, tt.fulltext, len(got), clip(got), len(want), clip(want))
			}
			if len(want) == 0 && tt.name != "stem on, plural" {
				t.Errorf("q=%s: the oracle finds nothing, the case tests little", tt.q)
			}
		})
	}
	// Stemming widens: with stem=true a plural finds the singular's
	// documents.
	off := c.expected(t, w[5]+"s", false, false)
	on := c.expected(t, w[5]+"s", true, false)
	if len(on) <= len(off) {
		t.Errorf("stem=true finds %d for %ss, stem=false %d: the stem case tests nothing", len(on), w[5], len(off))
	}
}

func clip(ids []string) []string {
	if len(ids) > 8 {
		return append(ids[:8:8], "…")
	}
	return ids
}

package bench

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
)

// Query classes of the search scenario, in report order. Every system
// gets the same list in the same shuffled order.
const (
	classCommon  = "1 word, df ≥ N/100"
	classMedium  = "1 word, N/10⁴ ≤ df < N/100"
	classRare    = "1 word, df < N/10⁴"
	classTwo     = "2 words (AND)"
	classThree   = "3 words (AND)"
	classPhrase  = "phrase, 2–4 words"
	classOr      = "a OR b"
	classAndNot  = "a -b"
	classGroup   = "(a OR b) c"
	classTitle   = "title:word"
	classAuthor  = "author:name"
	classPrefix  = "prefix word*"
	classPrefix2 = "word* word (AND)"
	classFaceted = "word + facets license,topic,year"
	classSorted  = "word, sort=-year"
)

// classDeep is the deep-paging scenario's class (see deep.go).
const classDeep = "cursor page 1–100+"

var classOrder = []string{classCommon, classMedium, classRare, classTwo, classThree, classPhrase, classOr,
	classAndNot, classGroup, classTitle, classAuthor, classPrefix, classPrefix2, classFaceted, classSorted}

// squery is one search of the list: a syntax tree of the query language
// (package index/search/query), rendered for each system, and the
// request's other parameters.
type squery struct {
	class  string
	node   query.Node
	facets bool   // count license, topic and year over the result set
	sort   string // "" (relevance) or "-year"
}

// text is the query in our query language; Lucene's classic query
// parser reads the same string (same operators, same field names).
func (q squery) text() string { return render(q.node) }

// label is the query as the report names it: its text and the
// request's other parameters.
func (q squery) label() string {
	s := q.text()
	if q.facets {
		s += " facets=" + strings.Join(facetNames, ",")
	}
	if q.sort != "" {
		s += " sort=" + q.sort
	}
	return s
}

// facetNames are the facets faceted queries ask for.
var facetNames = []string{"license", "topic", "year"}

// params is the query string of q for a system's search path, without
// the leading '?'; cursor continues a previous page.
func (q squery) params(limit int, cursor string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "limit=%d&q=%s", limit, urlQuery(q.text()))
	if q.facets {
		b.WriteString("&facets=" + strings.Join(facetNames, ","))
	}
	if q.sort != "" {
		b.WriteString("&sort=" + urlQuery(q.sort))
	}
	if cursor != "" {
		b.WriteString("&cursor=" + urlQuery(cursor))
	}
	return b.String()
}

// render writes a node in the query language.
func render(n query.Node) string {
	field := func(f query.Field) string {
		if f == query.Any {
			return ""
		}
		return f.String() + ":"
	}
	switch n := n.(type) {
	case *query.Term:
		s := field(n.Field) + n.Word
		if n.Prefix {
			s += "*"
		}
		return s
	case *query.Phrase:
		return field(n.Field) + `"` + strings.Join(n.Words, " ") + `"`
	case *query.And:
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = renderChild(c)
		}
		return strings.Join(parts, " ")
	case *query.Or:
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = renderChild(c)
		}
		return strings.Join(parts, " OR ")
	case *query.Not:
		return "-" + renderChild(n.Child)
	}
	return ""
}

func renderChild(n query.Node) string {
	switch n.(type) {
	case *query.And, *query.Or:
		return "(" + render(n) + ")"
	}
	return render(n)
}

// pgWeights maps our fields to the tsvector weights of the PostgreSQL
// table (title A, keywords B, authors C, abstract D).
var pgWeights = map[query.Field]string{query.Title: "A", query.Keyword: "B", query.Author: "C", query.Abstract: "D"}

// tsquery renders a node as PostgreSQL tsquery text (to_tsquery's
// input, 'simple' configuration): & | ! and <-> for phrases, :* for
// prefixes, :A..:D for field scoping by weight.
func tsquery(n query.Node) string {
	switch n := n.(type) {
	case *query.Term:
		s := n.Word
		suffix := pgWeights[n.Field]
		if n.Prefix {
			suffix = "*" + suffix
		}
		if suffix != "" {
			s += ":" + suffix
		}
		return s
	case *query.Phrase:
		ws := make([]string, len(n.Words))
		for i, w := range n.Words {
			ws[i] = w
			if wt := pgWeights[n.Field]; wt != "" {
				ws[i] += ":" + wt
			}
		}
		return "(" + strings.Join(ws, " <-> ") + ")"
	case *query.And:
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = tsquery(c)
		}
		return "(" + strings.Join(parts, " & ") + ")"
	case *query.Or:
		parts := make([]string, len(n.Children))
		for i, c := range n.Children {
			parts[i] = tsquery(c)
		}
		return "(" + strings.Join(parts, " | ") + ")"
	case *query.Not:
		return "!" + tsquery(n.Child)
	}
	return ""
}

// Builders of syntax trees.
func word(w string) *query.Term                  { return &query.Term{Word: w} }
func scoped(f query.Field, w string) *query.Term { return &query.Term{Field: f, Word: w} }
func and(ns ...query.Node) *query.And            { return &query.And{Children: ns} }
func or(ns ...query.Node) *query.Or              { return &query.Or{Children: ns} }
func not(n query.Node) *query.Not                { return &query.Not{Child: n} }
func phrase(ws ...string) *query.Phrase          { return &query.Phrase{Words: ws} }

// termStats is a sample of the corpus: document frequencies of the plain
// search terms of titles, abstracts, keywords and authors, estimated from
// a sample of generated documents and scaled to the corpus size.
type termStats struct {
	bands map[string][]string // classCommon/Medium/Rare -> terms
	df    map[string]int      // in the sample
}

// mostFrequent returns the n terms of highest document frequency.
func (st termStats) mostFrequent(n int) []string {
	ts := slices.Clone(st.bands[classCommon])
	slices.SortFunc(ts, func(a, b string) int { return st.df[b] - st.df[a] })
	return ts[:min(n, len(ts))]
}

// sampleTerms estimates document frequencies from sample documents.
func sampleTerms(docs []*ingest.Document, n int) termStats {
	df := map[string]int{}
	for _, d := range docs {
		seen := map[string]bool{}
		for _, t := range docWords(d, true) {
			if !seen[t] {
				seen[t] = true
				df[t]++
			}
		}
	}
	scale := float64(n) / float64(len(docs))
	hi, lo := float64(n)/100, float64(n)/10_000
	st := termStats{bands: map[string][]string{}, df: df}
	for t, c := range df {
		est := float64(c) * scale
		switch {
		case est >= hi:
			st.bands[classCommon] = append(st.bands[classCommon], t)
		case est >= lo:
			st.bands[classMedium] = append(st.bands[classMedium], t)
		default:
			st.bands[classRare] = append(st.bands[classRare], t)
		}
	}
	for _, b := range st.bands {
		slices.Sort(b) // map order is random: sort for a reproducible list
	}
	return st
}

// plainWord is a term every tokeniser sees the same way.
func plainWord(t string) bool { return plainTerm.MatchString(t) && !tokenize.IsStopWord(t) }

// docWords returns the distinct plain search terms of a document's title,
// keywords and author names, and its abstract when withAbstract.
func docWords(d *ingest.Document, withAbstract bool) []string {
	seen := map[string]bool{}
	var out []string
	add := func(ts []string) {
		for _, t := range ts {
			if !seen[t] && plainWord(t) {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	add(tokenize.Terms(d.Title))
	for _, k := range d.Keywords {
		add(tokenize.Terms(k))
	}
	for _, a := range d.Authors {
		add(tokenize.Tokens(a.Name))
	}
	if withAbstract {
		add(tokenize.Terms(d.Abstract))
	}
	return out
}

// docTerms is docWords without the abstract (the two- and three-word
// queries of the first benchmark).
func docTerms(d *ingest.Document) []string { return docWords(d, false) }

// runOf returns k consecutive tokens of s starting at a random place,
// all plain (stop words allowed: they count inside phrases), or nil.
func runOf(rng *rand.Rand, s string, k int) []string {
	toks := tokenize.Tokens(s)
	if len(toks) < k {
		return nil
	}
	for tries := 0; tries < 8; tries++ {
		i := rng.IntN(len(toks) - k + 1)
		run := toks[i : i+k]
		ok := !tokenize.IsStopWord(run[0]) && !tokenize.IsStopWord(run[k-1])
		for _, t := range run {
			ok = ok && plainTerm.MatchString(t)
		}
		if ok {
			return slices.Clone(run)
		}
	}
	return nil
}

// makeQueryList returns about n queries, n/len(classOrder) of each class,
// shuffled. doc returns a random generated document.
func makeQueryList(st termStats, n int, rng *rand.Rand, doc func() *ingest.Document) []squery {
	per := max(n/len(classOrder), 1)
	pick := func(cl string) string {
		b := st.bands[cl]
		if len(b) == 0 {
			b = st.bands[classMedium]
		}
		if len(b) == 0 {
			return "data"
		}
		return b[rng.IntN(len(b))]
	}
	var out []squery
	add := func(cl string, mk func() query.Node) {
		for k, tries := 0, 0; k < per && tries < 100*per; tries++ {
			if nd := mk(); nd != nil {
				out = append(out, squery{class: cl, node: nd})
				k++
			}
		}
	}
	for _, cl := range []string{classCommon, classMedium, classRare} {
		add(cl, func() query.Node { return word(pick(cl)) })
	}
	for k, cl := range []string{2: classTwo, 3: classThree} {
		if cl == "" {
			continue
		}
		add(cl, func() query.Node {
			ts := docTerms(doc())
			if len(ts) < k {
				return nil
			}
			rng.Shuffle(len(ts), func(i, j int) { ts[i], ts[j] = ts[j], ts[i] })
			var ns []query.Node
			for _, t := range ts[:k] {
				ns = append(ns, word(t))
			}
			return and(ns...)
		})
	}
	add(classPhrase, func() query.Node {
		d := doc()
		src := d.Title
		if rng.IntN(2) == 0 {
			src = d.Abstract
		}
		if ws := runOf(rng, src, 2+rng.IntN(3)); ws != nil {
			return phrase(ws...)
		}
		return nil
	})
	add(classOr, func() query.Node { return or(word(pick(classMedium)), word(pick(classMedium))) })
	add(classAndNot, func() query.Node { return and(word(pick(classCommon)), not(word(pick(classMedium)))) })
	add(classGroup, func() query.Node {
		return and(or(word(pick(classMedium)), word(pick(classMedium))), word(pick(classCommon)))
	})
	add(classTitle, func() query.Node {
		ts := tokenize.Terms(doc().Title)
		if len(ts) == 0 {
			return nil
		}
		if t := ts[rng.IntN(len(ts))]; plainWord(t) {
			return scoped(query.Title, t)
		}
		return nil
	})
	add(classAuthor, func() query.Node {
		d := doc()
		f := strings.ToLower(d.Authors[rng.IntN(len(d.Authors))].Family)
		if !plainWord(f) {
			return nil
		}
		return scoped(query.Author, f)
	})
	prefix := func() query.Node {
		w := pick(classMedium)
		if len(w) < 6 || !plainTerm.MatchString(w[:4]) {
			return nil
		}
		return &query.Term{Word: w[:4+rng.IntN(2)], Prefix: true}
	}
	add(classPrefix, prefix)
	add(classPrefix2, func() query.Node {
		if p := prefix(); p != nil {
			return and(p, word(pick(classCommon)))
		}
		return nil
	})
	for _, cl := range []string{classFaceted, classSorted} {
		for k := 0; k < per; k++ {
			q := squery{class: cl, node: word(pick(classMedium))}
			if rng.IntN(3) == 0 {
				q.node = word(pick(classCommon))
			}
			q.facets, q.sort = cl == classFaceted, map[bool]string{true: "-year"}[cl == classSorted]
			out = append(out, q)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// knownItem is a quality probe: a title fragment of one document, which
// should find that document first.
type knownItem struct {
	id     string
	words  query.Node // the fragment as plain words (AND)
	phrase query.Node // the fragment as a phrase
}

// makeKnownItems returns n probes: 3 to 6 consecutive title words of
// random documents.
func makeKnownItems(n int, rng *rand.Rand, docN func() (int, *ingest.Document)) []knownItem {
	var out []knownItem
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		_, d := docN()
		ws := runOf(rng, d.Title, 3+rng.IntN(4))
		if ws == nil {
			continue
		}
		var ns []query.Node
		// RemoveStopWords filters in place: give it a copy.
		for _, w := range tokenize.RemoveStopWords(slices.Clone(ws)) {
			ns = append(ns, word(w))
		}
		out = append(out, knownItem{id: d.ID, words: and(ns...), phrase: phrase(ws...)})
	}
	return out
}

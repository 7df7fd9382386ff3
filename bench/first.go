package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
)

// The first-searches scenario: every query is new, searched once, as
// agents search (distinct prefixes and phrases), so no answer comes from
// what an earlier search of the same query left in a cache (our kept
// sets and result cache, Lucene's query cache); the page cache is the
// system's own, as its turn left it. Its classes:
const (
	classFirstPrefix  = "first: prefix* of 2–5 letters"
	classFirstPrefix2 = "first: prefix* word (AND)"
	classFirstPhrase  = "first: frequent phrase, 2–3 words"
)

var firstClassOrder = []string{classFirstPrefix, classFirstPrefix2, classFirstPhrase}

// scenarioFirst names the scenario in the report.
const scenarioFirst = "first searches"

// defaultFirstSearches is the default number of queries per class.
const defaultFirstSearches = 150

// makeFirstSearches returns per distinct queries of each first-search
// class, none of them in seen (the labels of the queries searched
// before): prefixes of 2 to 5 letters of words drawn from documents'
// titles and abstracts (so frequent words are drawn most), alone and
// with a frequent word, and phrases of 2 or 3 words of a document whose
// words are all frequent (stop words aside). doc returns a random
// generated document.
func makeFirstSearches(st termStats, per int, rng *rand.Rand, doc func() *ingest.Document, seen map[string]bool) []squery {
	common := map[string]bool{}
	for _, t := range st.bands[classCommon] {
		common[t] = true
	}
	var out []squery
	add := func(cl string, mk func() query.Node) {
		for k, tries := 0, 0; k < per && tries < 200*per; tries++ {
			nd := mk()
			if nd == nil {
				continue
			}
			q := squery{class: cl, node: nd}
			if l := q.label(); !seen[l] {
				seen[l] = true
				out = append(out, q)
				k++
			}
		}
	}
	text := func() string {
		d := doc()
		if rng.IntN(2) == 0 {
			return d.Title
		}
		return d.Abstract
	}
	prefix := func() *query.Term {
		ts := tokenize.Terms(text())
		if len(ts) == 0 {
			return nil
		}
		w := ts[rng.IntN(len(ts))]
		n := 2 + rng.IntN(4)
		if len(w) <= n || !plainWord(w) {
			return nil
		}
		return &query.Term{Word: w[:n], Prefix: true}
	}
	add(classFirstPrefix, func() query.Node {
		if p := prefix(); p != nil {
			return p
		}
		return nil
	})
	frequent := st.mostFrequent(200)
	add(classFirstPrefix2, func() query.Node {
		p := prefix()
		if p == nil || len(frequent) == 0 {
			return nil
		}
		return and(p, word(frequent[rng.IntN(len(frequent))]))
	})
	add(classFirstPhrase, func() query.Node {
		ws := runOf(rng, text(), 2+rng.IntN(2))
		for _, w := range ws {
			if !tokenize.IsStopWord(w) && !common[w] {
				return nil
			}
		}
		if ws == nil {
			return nil
		}
		return phrase(ws...)
	})
	return out
}

// firstMarkdown writes the first searches' latencies by class, the
// systems side by side.
func firstMarkdown(w io.Writer, results []Result) {
	var first []Result
	for _, res := range results {
		if res.Scenario == scenarioFirst {
			first = append(first, res)
		}
	}
	if len(first) == 0 {
		return
	}
	classHeader(w, "First searches by class (each query searched once; ms, p50 / p99 / max)", first, "---:|")
	for _, cl := range append(firstClassOrder, "all") {
		fmt.Fprintf(w, "| %s |", cl)
		for _, s := range first {
			l := s.All
			if cl != "all" {
				l = s.ByClass[cl]
			}
			fmt.Fprintf(w, " %s / %s / %s (n=%d) |", ms(l.P50), ms(l.P99), ms(l.Max), l.N)
		}
		fmt.Fprintln(w)
	}
	classHeader(w, "Slowest first search of each class (ms)", first, "---|")
	for _, cl := range firstClassOrder {
		fmt.Fprintf(w, "| %s |", cl)
		for _, s := range first {
			if q, ok := s.Slowest[cl]; ok {
				fmt.Fprintf(w, " `%s` %s |", strings.ReplaceAll(q.Label, "|", `\|`), ms(q.Median))
			} else {
				fmt.Fprintf(w, " |")
			}
		}
		fmt.Fprintln(w)
	}
}

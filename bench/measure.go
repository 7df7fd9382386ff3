package bench

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"time"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/snapshot"
)

// Deep is the deep-paging scenario measured against one system: every
// page of a few queries followed through next cursors, one request at a
// time.
type Deep struct {
	System   string
	Queries  int
	Pages    int     // pages fetched in all
	Latency  Latency // over every page
	Last     Latency // over the deepest page of each query
	Depth    int     // pages followed per query
	Failures int
	Error    string
	// OutOfTime is set when the time budget ended the scenario before
	// every query reached Depth.
	OutOfTime bool
}

// deepPages follows the cursor of each query for depth pages of limit
// hits, timing each page, until budget has passed (a slow system would
// otherwise take the whole run).
func deepPages(ctx context.Context, s system, qs []squery, depth, limit int, budget time.Duration) Deep {
	client := &http.Client{Timeout: 2 * time.Minute}
	d := Deep{System: s.name, Depth: depth}
	var all, last []time.Duration
	end := time.Now().Add(budget)
	for _, q := range qs {
		cursor := ""
		d.Queries++
		for p := 0; p < depth; p++ {
			if time.Now().After(end) {
				d.OutOfTime = true
				break
			}
			start := time.Now()
			a, err := get(ctx, client, s.base+s.searchPath(q, limit, cursor))
			el := time.Since(start)
			if err != nil {
				d.Failures++
				if d.Error == "" {
					d.Error = fmt.Sprintf("%s page %d: %v", q.text(), p+1, err)
				}
				break
			}
			all = append(all, el)
			d.Pages++
			if p == depth-1 {
				last = append(last, el)
			}
			if cursor = a.cursor(); cursor == "" {
				if p < depth-1 {
					d.Failures++
					if d.Error == "" {
						d.Error = fmt.Sprintf("%s: no next cursor on page %d", q.text(), p+1)
					}
				}
				break
			}
		}
	}
	d.Latency, d.Last = summarise(all), summarise(last)
	return d
}

// Quality is recall of known-item queries against one system.
type Quality struct {
	System                string
	Probes                int
	WordsAt1, WordsAt10   int // the title fragment as plain words
	PhraseAt1, PhraseAt10 int // the same fragment as a phrase
	Failures              int
	Error                 string
	Miss                  string // the first probe not in the top 10
}

// knownItems runs every probe as words and as a phrase and counts where
// the document ranks.
func knownItems(ctx context.Context, s system, probes []knownItem) Quality {
	client := &http.Client{Timeout: 2 * time.Minute}
	q := Quality{System: s.name}
	rank := func(n query.Node, id string) (int, error) {
		a, err := get(ctx, client, s.base+s.searchPath(squery{node: n}, 10, ""))
		if err != nil {
			return -1, err
		}
		return slices.Index(a.ids(), id), nil
	}
	for _, p := range probes {
		q.Probes++
		for k, n := range []query.Node{p.words, p.phrase} {
			r, err := rank(n, p.id)
			if err != nil {
				q.Failures++
				if q.Error == "" {
					q.Error = fmt.Sprintf("%s: %v", render(n), err)
				}
				continue
			}
			at1, at10 := &q.WordsAt1, &q.WordsAt10
			if k == 1 {
				at1, at10 = &q.PhraseAt1, &q.PhraseAt10
			}
			if r == 0 {
				*at1++
			}
			if r >= 0 {
				*at10++
			} else if q.Miss == "" {
				q.Miss = render(n)
			}
		}
	}
	return q
}

// FacetCheck is DuckDB's facet counts for the faceted queries, scanning
// the snapshot's Parquet, timed and compared with each system's.
type FacetCheck struct {
	Queries int
	DuckDB  Latency
	Equal   map[string]int // system -> queries whose counts equal DuckDB's
	Example map[string]string
}

// plainWordRE is what a single-word faceted query may hold: DuckDB
// matches it as a whole word with a regular expression.
var plainWordRE = regexp.MustCompile(`^[a-z0-9]+$`)

// duckFacets counts license, topic and year with DuckDB over the
// documents whose title, abstract, keywords or author names contain the
// word (lower-cased, accents stripped, whole word), one query at a time,
// and compares with what each system answers for the same query.
func duckFacets(ctx context.Context, snap *snapshot.Snapshot, systems []system, qs []squery, n int) (FacetCheck, error) {
	fc := FacetCheck{Equal: map[string]int{}, Example: map[string]string{}}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return fc, err
	}
	defer db.Close()
	client := &http.Client{Timeout: 2 * time.Minute}
	docs := snap.TableSQL(snapshot.Documents)
	const text = `strip_accents(lower(concat_ws(' ', title, abstract, array_to_string(keywords, ' '),
		array_to_string([a.name FOR a IN authors], ' '))))`
	var took []time.Duration
	for _, q := range qs {
		t, ok := q.node.(*query.Term)
		if !q.facets || !ok || t.Field != query.Any || t.Prefix || !plainWordRE.MatchString(t.Word) {
			continue
		}
		if fc.Queries >= n {
			break
		}
		fc.Queries++
		start := time.Now()
		rows, err := db.QueryContext(ctx, `WITH m AS (SELECT license, topics, year FROM `+docs+`
			WHERE regexp_matches(`+text+`, '(^|[^a-z0-9])`+t.Word+`([^a-z0-9]|$)'))
			SELECT 'license', license, count(*) FROM m GROUP BY ALL
			UNION ALL SELECT 'topic', t, count(*) FROM (SELECT unnest(topics) AS t FROM m) GROUP BY ALL
			UNION ALL SELECT 'year', year::VARCHAR, count(*) FROM m WHERE year > 0 GROUP BY ALL`)
		if err != nil {
			return fc, fmt.Errorf("bench: DuckDB facets: %w", err)
		}
		want := map[string][]facetCount{}
		for rows.Next() {
			var f string
			var c facetCount
			if err := rows.Scan(&f, &c.Value, &c.Count); err != nil {
				rows.Close()
				return fc, err
			}
			want[f] = append(want[f], c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fc, err
		}
		took = append(took, time.Since(start))
		for _, s := range systems {
			a, err := get(ctx, client, s.base+s.searchPath(q, 10, ""))
			if err != nil {
				if fc.Example[s.name] == "" {
					fc.Example[s.name] = fmt.Sprintf("%s: %v", q.text(), err)
				}
				continue
			}
			if ok, diff := facetsEqual(want, a.Facets, facetNames); ok {
				fc.Equal[s.name]++
			} else if fc.Example[s.name] == "" {
				fc.Example[s.name] = q.text() + ": " + diff
			}
		}
	}
	fc.DuckDB = summarise(took)
	return fc, nil
}

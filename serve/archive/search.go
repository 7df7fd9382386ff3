package archive

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/openshelf/openshelf/index/tokenize"
)

// BM25 parameters. Field weights and average lengths come from the
// snapshot's search/fields table.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// maxQueryTerms caps the work one query can cause.
	maxQueryTerms = 16
)

type searchStats struct {
	docs int64
}

func (g *generation) loadSearchStats(ctx context.Context) error {
	return g.db.QueryRowContext(ctx, "SELECT count(*) FROM sdocs").Scan(&g.search.docs)
}

// filters are the search filters, all optional.
type filters struct {
	topic            string
	yearFrom, yearTo *int
	license          string
	fulltext         *bool
}

func (f filters) where(alias string) (string, []any) {
	var conds []string
	var args []any
	if f.topic != "" {
		conds, args = append(conds, "list_contains("+alias+".topics, ?)"), append(args, f.topic)
	}
	if f.yearFrom != nil {
		conds, args = append(conds, alias+".year >= ?"), append(args, *f.yearFrom)
	}
	if f.yearTo != nil {
		conds, args = append(conds, alias+".year <= ?"), append(args, *f.yearTo)
	}
	if f.license != "" {
		conds, args = append(conds, alias+".license = ?"), append(args, f.license)
	}
	if f.fulltext != nil {
		conds, args = append(conds, alias+".has_fulltext = ?"), append(args, *f.fulltext)
	}
	if len(conds) == 0 {
		return "TRUE", nil
	}
	return strings.Join(conds, " AND "), args
}

type hit struct {
	doc   int32
	score float64
}

// search returns one page of hits and the total. With no query terms it
// lists the filtered documents in catalog order.
func (g *generation) searchPage(ctx context.Context, q string, f filters, limit, offset int) ([]hit, int64, error) {
	if f.topic != "" {
		if _, ok := g.byTopic[f.topic]; !ok {
			return nil, 0, errTopicNotFound(f.topic)
		}
	}
	terms := tokenize.Query(q)
	if len(terms) > maxQueryTerms {
		terms = terms[:maxQueryTerms]
	}
	where, args := f.where("d")
	if len(terms) == 0 {
		if strings.TrimSpace(q) != "" {
			// Only punctuation: nothing can match every word.
			return nil, 0, nil
		}
		rows, err := g.db.QueryContext(ctx, "SELECT doc, count(*) OVER () FROM sdocs d WHERE "+where+
			" ORDER BY doc LIMIT ? OFFSET ?", append(args, limit, offset)...)
		if err != nil {
			return nil, 0, fmt.Errorf("search: %w", err)
		}
		return scanHits(rows, false)
	}

	// Look the terms up first: a word absent from the index means no
	// document has every word, and rare terms first narrows the join.
	marks := strings.TrimSuffix(strings.Repeat("?,", len(terms)), ",")
	targs := make([]any, len(terms))
	for i, t := range terms {
		targs[i] = t
	}
	rows, err := g.db.QueryContext(ctx, "SELECT term_id, df FROM terms WHERE term IN ("+marks+")", targs...)
	if err != nil {
		return nil, 0, fmt.Errorf("search terms: %w", err)
	}
	type qterm struct {
		id  int32
		df  int64
		idf float64
	}
	var qt []qterm
	for rows.Next() {
		var t qterm
		if err := rows.Scan(&t.id, &t.df); err != nil {
			rows.Close()
			return nil, 0, err
		}
		n := float64(g.search.docs)
		t.idf = math.Log(1 + (n-float64(t.df)+0.5)/(float64(t.df)+0.5))
		qt = append(qt, t)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	if len(qt) < len(terms) {
		return nil, 0, nil
	}
	sort.Slice(qt, func(i, j int) bool { return qt[i].df < qt[j].df })

	var values []string
	for _, t := range qt {
		values = append(values, "("+strconv.Itoa(int(t.id))+", "+strconv.FormatFloat(t.idf, 'g', 17, 64)+")")
	}
	// BM25F: per term, field term frequencies are length-normalised per
	// field, weighted and summed before the saturation k1 is applied.
	query := `WITH q(term_id, idf) AS (VALUES ` + strings.Join(values, ", ") + `),
		m AS (SELECT p.doc FROM postings p JOIN q USING (term_id)
			GROUP BY p.doc HAVING count(DISTINCT p.term_id) = ` + strconv.Itoa(len(qt)) + `),
		w AS (SELECT p.doc, q.idf,
				sum(f.weight * p.tf / (1 - ` + fstr(bm25B) + ` + ` + fstr(bm25B) + ` *
					(CASE p.field WHEN 0 THEN d.len_title WHEN 1 THEN d.len_keywords ELSE d.len_authors END)
					/ greatest(f.avg_len, 1e-9))) AS wtf
			FROM postings p JOIN q USING (term_id) JOIN m ON m.doc = p.doc
				JOIN sdocs d ON d.doc = p.doc JOIN sfields f ON f.field = p.field
			WHERE ` + where + `
			GROUP BY p.doc, p.term_id, q.idf),
		s AS (SELECT doc, sum(idf * wtf / (` + fstr(bm25K1) + ` + wtf)) AS score FROM w GROUP BY doc)
		SELECT doc, score, count(*) OVER () FROM s ORDER BY score DESC, doc LIMIT ? OFFSET ?`
	rows, err = g.db.QueryContext(ctx, query, append(args, limit, offset)...)
	if err != nil {
		return nil, 0, fmt.Errorf("search: %w", err)
	}
	return scanHits(rows, true)
}

func fstr(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func scanHits(rows interface {
	Next() bool
	Scan(...any) error
	Close() error
	Err() error
}, scored bool) ([]hit, int64, error) {
	defer rows.Close()
	var hits []hit
	var total int64
	for rows.Next() {
		var h hit
		var err error
		if scored {
			err = rows.Scan(&h.doc, &h.score, &total)
		} else {
			err = rows.Scan(&h.doc, &total)
		}
		if err != nil {
			return nil, 0, err
		}
		hits = append(hits, h)
	}
	return hits, total, rows.Err()
}

package index

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

// readmeSearchSQL returns the search query documented in data/README.md, so
// that the documentation is tested.
func readmeSearchSQL(t *testing.T) string {
	t.Helper()
	root, err := fixtures.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "data", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(b), "```sql\n")[1:] {
		q, _, _ := strings.Cut(block, "```")
		if strings.Contains(q, "search/postings.parquet") {
			return q
		}
	}
	t.Fatal("data/README.md has no search query")
	return ""
}

func search(t *testing.T, s *snapshot.Snapshot, query string) []string {
	t.Helper()
	terms := tokenize.Query(query)
	var quoted []string
	for _, term := range terms {
		quoted = append(quoted, "'"+strings.ReplaceAll(term, "'", "''")+"'")
	}
	q := strings.NewReplacer(
		"'search/terms.parquet'", tbl(s, snapshot.SearchTerms),
		"'search/postings.parquet'", tbl(s, snapshot.SearchPostings),
		"'search/docs.parquet'", tbl(s, snapshot.SearchDocs),
		"'search/fields.parquet'", tbl(s, snapshot.SearchFields),
		"$terms", "["+strings.Join(quoted, ",")+"]::VARCHAR[]",
		"$n", fmt.Sprint(len(terms)),
	).Replace(readmeSearchSQL(t))
	db := duck(t)
	rows, err := db.Query(q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		var score float64
		if err := rows.Scan(&id, &score); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	return ids
}

func TestSearchIndex(t *testing.T) {
	data := t.TempDir()
	mk := func(i int, title string, authors []string, kw ...string) *ingest.Document {
		d := synth(i, "cc-by")
		d.Title, d.Keywords, d.Authors = title, kw, nil
		for _, a := range authors {
			d.Authors = append(d.Authors, ingest.Author{Name: a})
		}
		return d
	}
	docs := []*ingest.Document{
		mk(1, "Müller glia in the regenerating retina", []string{"Jane Doe"}, "retina"),
		mk(2, "Development of the retina", []string{"Hans Müller"}),
		mk(3, "Cortical circuits", []string{"Ana Müller"}, "cortex"),
		mk(4, "Retina retina retina: a review of the retina of the mouse", []string{"X Y"}),
		mk(5, "Zebrafish behaviour", []string{"Jane Doe"}),
	}
	rej := mk(6, "Müller retina rejected", []string{"No One"})
	rej.Licence = testDecide(nil, testNow)
	build(t, testConfig(data), feedDocs(append(docs, rej)...))
	s := open(t, data)

	tests := []struct {
		query string
		want  []string // in rank order
	}{
		{"retina Müller", []string{docs[0].ID, docs[1].ID}}, // title match outranks author match
		{"MULLER", []string{docs[0].ID, docs[1].ID, docs[2].ID}},
		{"the retina", []string{docs[3].ID, docs[0].ID, docs[1].ID}},
		{"jane doe", []string{docs[0].ID, docs[4].ID}},
		{"cortex", []string{docs[2].ID}},
		{"nonexistent", nil},
		{"rejected", nil},
	}
	for _, tt := range tests {
		got := search(t, s, tt.query)
		if tt.query == "MULLER" {
			// Equal-scoring author matches tie; compare as a set.
			slices.Sort(got)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("search %q = %q, want %q", tt.query, got, tt.want)
		}
	}

	db := duck(t)
	terms := queryStrings(t, db, "SELECT term FROM "+tbl(s, snapshot.SearchTerms)+" ORDER BY term_id")
	if !slices.IsSorted(terms) {
		t.Error("term ids not in term order")
	}
	for _, stop := range []string{"the", "of"} {
		if slices.Contains(terms, stop) {
			t.Errorf("stop word %q indexed", stop)
		}
	}
	var df int32
	if err := db.QueryRow("SELECT df FROM " + tbl(s, snapshot.SearchTerms) + " WHERE term = 'retina'").Scan(&df); err != nil || df != 3 {
		t.Errorf("df(retina) = %d, %v; want 3", df, err)
	}
	var tf int16
	if err := db.QueryRow("SELECT tf FROM "+tbl(s, snapshot.SearchPostings)+" p JOIN "+tbl(s, snapshot.SearchTerms)+
		" USING (term_id) JOIN "+tbl(s, snapshot.SearchDocs)+" d USING (doc) WHERE term = 'retina' AND field = 0 AND d.id = ?",
		docs[3].ID).Scan(&tf); err != nil || tf != 4 {
		t.Errorf("tf = %d, %v; want 4", tf, err)
	}
	var pairs, sorted int64
	pairs = queryInt(t, db, "SELECT count(*) FROM "+tbl(s, snapshot.SearchPostings))
	sorted = queryInt(t, db, `SELECT count(*) FROM (SELECT term_id, doc, lag(term_id) OVER () AS pt, lag(doc) OVER () AS pd
		FROM `+tbl(s, snapshot.SearchPostings)+`) WHERE pt IS NULL OR pt < term_id OR (pt = term_id AND pd <= doc)`)
	if pairs == 0 || pairs != sorted {
		t.Errorf("postings not sorted by term_id, doc: %d of %d in order", sorted, pairs)
	}
	var avg float64
	if err := db.QueryRow("SELECT avg_len FROM " + tbl(s, snapshot.SearchFields) + " WHERE name = 'authors'").Scan(&avg); err != nil || avg != 1.6 { // "X Y" has no token of two letters
		t.Errorf("authors avg_len = %v, %v; want 1.6", avg, err)
	}
}

func TestSearchBuildUsesCancelledContext(t *testing.T) {
	data := t.TempDir()
	b, err := NewBuilder(testConfig(data))
	if err != nil {
		t.Fatal(err)
	}
	b.Add(synth(1, "cc-by"))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := b.Finish(ctx); err == nil {
		t.Error("Finish with a cancelled context succeeded")
	}
	if _, err := snapshot.Current(data); err == nil {
		t.Error("cancelled Finish published")
	}
}

// TestParsePosting reads back postings records as postRecord writes them:
// gaps of one byte and of several, and a record without positions.
func TestParsePosting(t *testing.T) {
	for _, pos := range [][]uint32{nil, {0}, {5, 6, 200, 201, 70000, 70001, 1 << 31}, {127, 255, 16511, 16512}} {
		rec := append([]byte("cell"), 0)
		rec = binary.BigEndian.AppendUint32(rec, 42)
		rec = append(rec, 3)
		prev := uint32(0)
		for _, p := range pos {
			rec = binary.AppendUvarint(rec, uint64(p-prev))
			prev = p
		}
		term, doc, field, got, err := parsePosting(rec, nil)
		if err != nil || string(term) != "cell" || doc != 42 || field != 3 || !slices.Equal(got, pos) {
			t.Errorf("parsePosting of %v = %q %d %d %v, %v", pos, term, doc, field, got, err)
		}
	}
	if _, _, _, _, err := parsePosting([]byte("cell\x00\x00\x00\x00\x2a\x03\x80"), nil); err == nil {
		t.Error("a truncated position parsed")
	}
}

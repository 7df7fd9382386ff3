package bench

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/ingest"
)

// TestDriveOnce: each target is requested exactly once.
func TestDriveOnce(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.RequestURI()]++
		mu.Unlock()
		if r.URL.Path == "/bad" {
			http.Error(w, "no", http.StatusInternalServerError)
			return
		}
		w.Write([]byte(`{"total": 3}`))
	}))
	defer srv.Close()
	var targets []target
	for _, p := range []string{"/a?q=1", "/a?q=2", "/a?q=3", "/b?q=1", "/b?q=2", "/bad"} {
		targets = append(targets, target{class: p[:2], path: p, label: p})
	}
	res := driveOnce(context.Background(), srv.URL, targets, 2)
	if res.Requests != 5 || res.Errors != 1 || res.ByClass["/a"].N != 3 || res.ByClass["/b"].N != 2 {
		t.Fatalf("%+v", res)
	}
	for _, tg := range targets {
		if hits[tg.path] != 1 {
			t.Errorf("%s requested %d times", tg.path, hits[tg.path])
		}
	}
}

// TestFirstSearches: the first-search queries are distinct, new to the
// search scenario, and of the documented shapes.
func TestFirstSearches(t *testing.T) {
	_, c := smallCorpus(t, 400)
	rng := rand.New(rand.NewPCG(1, 2))
	st := sampleTerms(c.sampleDocs(400, rng), c.n)
	doc := func() *ingest.Document { return c.gen.Doc(rng.IntN(c.n)) }
	qs := makeQueryList(st, 8*len(classOrder), rng, doc)
	seen := map[string]bool{}
	for _, q := range qs {
		seen[q.label()] = true
	}
	before := len(seen)
	first := makeFirstSearches(st, 20, rng, doc, seen)
	if len(seen) != before+len(first) {
		t.Errorf("%d first searches, %d new labels: some repeat or were searched before", len(first), len(seen)-before)
	}
	common := map[string]bool{}
	for _, w := range st.bands[classCommon] {
		common[w] = true
	}
	count := map[string]int{}
	for _, q := range first {
		count[q.class]++
		var p *query.Term
		switch n := q.node.(type) {
		case *query.Term:
			p = n
		case *query.And:
			p, _ = n.Children[0].(*query.Term)
			if w, ok := n.Children[1].(*query.Term); !ok || w.Prefix || !common[w.Word] {
				t.Errorf("%s: %q is not a frequent word", q.class, q.text())
			}
		case *query.Phrase:
			if len(n.Words) < 2 || len(n.Words) > 3 {
				t.Errorf("phrase %q", q.text())
			}
			for _, w := range n.Words {
				if !tokenize.IsStopWord(w) && !common[w] {
					t.Errorf("phrase %q: %q is not frequent", q.text(), w)
				}
			}
			continue
		}
		if p == nil || !p.Prefix || len(p.Word) < 2 || len(p.Word) > 5 || strings.ContainsAny(p.Word, " *") {
			t.Errorf("%s: %q is not a prefix of 2 to 5 letters", q.class, q.text())
		}
	}
	for _, cl := range firstClassOrder {
		if count[cl] == 0 {
			t.Errorf("no query of class %s", cl)
		}
	}
}

package archive

import (
	"context"
	"testing"

	"github.com/openshelf/openshelf/index/tokenize"
)

// BenchmarkSearchSnippets measures what snippets cost a search page of 10
// hits (the handler's work without HTTP): the same queries without
// snippets, with snippets from the abstract, and with in=fulltext
// snippets, which may read a document's full text. On the corpus of
// BenchmarkContentLookup:
//
//	OPENSHELF_BENCH_CONTENT_DOCS=100000 go test -run '^$' -bench BenchmarkSearchSnippets -benchtime 200x ./serve/archive
func BenchmarkSearchSnippets(b *testing.B) {
	ctx := context.Background()
	st, g := benchStore(b)
	// Queries: title words of the first documents, one and two at a time.
	var queries []string
	for d := int32(0); len(queries) < 20 && int(d) < g.catalog.Len(); d++ {
		e, _, err := g.entry(d)
		if err != nil {
			b.Fatal(err)
		}
		if w := tokenize.Terms(e.Title); len(w) >= 2 {
			queries = append(queries, w[0], w[0]+" "+w[1])
		}
	}
	s := &Service{Store: st}
	for _, bc := range []struct {
		name string
		in   func(q string) *SearchInput
	}{
		{"plain", func(q string) *SearchInput { return &SearchInput{Q: q, Limit: 10} }},
		{"snippet", func(q string) *SearchInput { return &SearchInput{Q: q, Limit: 10, Snippet: true} }},
		{"snippet-fulltext", func(q string) *SearchInput {
			return &SearchInput{Q: q, Limit: 10, Snippet: true, In: "fulltext"}
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := range b.N {
				res, err := s.search(ctx, g, bc.in(queries[i%len(queries)]))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := encodeJSON(res.Value); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(b.N), "cpu-µs/op")
		})
	}
}

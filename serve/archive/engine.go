package archive

import (
	"github.com/kljensen/snowball/english"

	"context"

	"github.com/openshelf/openshelf/index/search"
)

// searcher is what the server asks of a generation's search index: the
// request/result contract of package index/search (issue 21). The server
// depends on this interface, not on the index's layout, so the engine can
// change beneath it.
type searcher interface {
	Len() int
	TopicDocs(topic string) []int32
	Search(ctx context.Context, req search.Request) (search.Result, error)
	CitedBy(ctx context.Context, doc int32, limit int, cursor string) (docs []int32, total int64, next string, err error)
	CitedByCount(doc int32) int32
	Close() error
}

// stemmer is the index's English stemmer (package index/search stems
// the same way, unexported): snippets must mark what a stem=true search
// matched. Tokens that are not plain ASCII letters are their own stem.
func stemmer(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	return english.Stem(w, true)
}

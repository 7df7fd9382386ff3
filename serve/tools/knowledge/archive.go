package knowledge

import (
	"context"
	"fmt"
	"strings"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/registry"
)

// Archive is what the knowledge tools need from the archive: its search
// and a document's metadata, abstract and rights.
type Archive interface {
	Search(ctx context.Context, in *archive.SearchInput) (*archive.SearchResult, error)
	Document(ctx context.Context, id string) (*archive.Document, error)
}

// ServiceArchive adapts the archive service through its own registry
// entries (search and document), so the archive package needs no new API.
func ServiceArchive(s *archive.Service) Archive {
	a := &serviceArchive{}
	for _, e := range s.Endpoints() {
		switch e.Name {
		case "search":
			a.search = e
		case "document":
			a.document = e
		}
	}
	return a
}

type serviceArchive struct{ search, document *registry.Endpoint }

func (a *serviceArchive) Search(ctx context.Context, in *archive.SearchInput) (*archive.SearchResult, error) {
	in.Q = searchable(in.Q)
	res, err := a.search.Handle(ctx, in)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	switch v := res.Value.(type) {
	case archive.SearchResult:
		return &v, nil
	case *archive.SearchResult:
		return v, nil
	}
	return nil, fmt.Errorf("knowledge: archive search answered %T", res.Value)
}

func (a *serviceArchive) Document(ctx context.Context, id string) (*archive.Document, error) {
	res, err := a.document.Handle(ctx, &archive.DocumentInput{ID: id})
	if err != nil {
		return nil, err
	}
	defer res.Close()
	switch v := res.Value.(type) {
	case *archive.Document:
		return v, nil
	case archive.Document:
		return &v, nil
	}
	return nil, fmt.Errorf("knowledge: archive document answered %T", res.Value)
}

// searchable returns q when it parses in the archive's query language
// (phrases and operators work in the knowledge tools too), and otherwise
// its plain words: the tools take prose, and a question with one quotation
// mark is not a mistake to refuse.
func searchable(q string) string {
	if _, err := query.Parse(q); err == nil {
		return q
	}
	words := tokenize.Query(q)
	return strings.Join(words[:min(len(words), query.MaxLeaves)], " ")
}

package data

import (
	"context"
	"flag"

	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/place"
)

// Family plugs the dataset endpoints into the server: the offline place
// data of the server's -datasets directory (shared with the place family)
// and the archive's topics. It has no configuration of its own.
type Family struct{}

// Name is the family's name.
func (*Family) Name() string { return "data" }

// RegisterFlags registers nothing: the data directory is the server's
// -datasets, which the place family reads too.
func (*Family) RegisterFlags(*flag.FlagSet) {}

// Open builds the tools.
func (*Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	g, err := place.SharedData(deps)
	if err != nil {
		return nil, err
	}
	store := deps.Archive.Store
	return []tools.Tools{New(g, func(context.Context) ([]Topic, string, error) { return archiveTopics(store) })}, nil
}

// archiveTopics is the archive-topics dataset: the current snapshot's
// topics with their document counts.
func archiveTopics(store *archive.Store) ([]Topic, string, error) {
	ts, err := store.Topics()
	if err != nil {
		return nil, "", err
	}
	info, err := store.Info()
	if err != nil {
		return nil, "", err
	}
	out := make([]Topic, len(ts))
	for i, t := range ts {
		out[i] = Topic{Slug: t.Slug, Name: t.Name, Parent: t.Parent, Documents: t.Documents}
	}
	return out, info.ID, nil
}

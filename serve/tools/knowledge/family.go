package knowledge

import (
	"context"
	"flag"
	"path/filepath"
	"time"

	"github.com/openshelf/openshelf/serve/tools"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed"
)

// Family plugs the knowledge tools into the server: search_specs,
// query_specs and research_brief (Config), and embed_text (Embed, package
// embed). The zero value is the production setup; the data directory,
// an empty Embed.ModelsDir (DATA/models), Logger and Now are the server's.
type Family struct {
	Config Config
	Embed  embed.Config
}

// Name is the family's name.
func (*Family) Name() string { return "knowledge" }

// RegisterFlags registers the scholarly sources' flags and embed_text's.
func (f *Family) RegisterFlags(fs *flag.FlagSet) {
	c, e := &f.Config, &f.Embed
	fs.StringVar(&c.OpenAlexURL, "openalex-url", DefaultOpenAlexURL, "OpenAlex API base URL (research_brief)")
	fs.StringVar(&c.CrossrefURL, "crossref-url", DefaultCrossrefURL, "Crossref API base URL (research_brief)")
	fs.StringVar(&c.Mailto, "scholarly-mailto", "", "contact e-mail sent to OpenAlex and Crossref (their polite pools)")
	fs.DurationVar(&c.LiveTimeout, "scholarly-timeout", 8*time.Second, "timeout of each OpenAlex or Crossref request")
	fs.StringVar(&e.ModelsDir, "models-dir", "", "embedding models, one directory per model with model.onnx and tokenizer.json (default DATA/models)")
	fs.StringVar(&e.Library, "ort-library", embed.DefaultLibrary, "ONNX Runtime shared library for embed_text")
	fs.IntVar(&e.MaxBatch, "embed-batch", 32, "embed_text: texts run together at most")
	fs.DurationVar(&e.MaxWait, "embed-wait", 5*time.Millisecond, "embed_text: how long a batch waits for more requests")
}

// Open builds the two groups: the knowledge tools over the archive and the
// guarded client, and the embedder with the models it finds.
func (f *Family) Open(_ context.Context, deps tools.Deps) ([]tools.Tools, error) {
	k := f.Config
	k.DataDir = deps.DataDir
	if k.Logger == nil {
		k.Logger = deps.Logger
	}
	if k.Now == nil {
		k.Now = deps.Now
	}
	e := f.Embed
	if e.ModelsDir == "" {
		e.ModelsDir = filepath.Join(deps.DataDir, "models")
	}
	if e.Logger == nil {
		e.Logger = deps.Logger
	}
	return []tools.Tools{New(ServiceArchive(deps.Archive), deps.Fetch, k), embed.New(e)}, nil
}

package embed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/serve/schema"
)

// Limits of one call.
const (
	MaxInputs = 100
	MaxChars  = 24000
	// Price in USD.
	Price = "0.0002"
)

// Models are the models embed_text offers, with their published
// dimensions.
var Models = map[string]int{"bge-small-en-v1.5": 384, "bge-m3": 1024}

// ModelMaxTokens is each model's own input limit in tokens, special
// tokens included.
var ModelMaxTokens = map[string]int{"bge-small-en-v1.5": 512, "bge-m3": 8192}

// DefaultModel is used when the request names none.
const DefaultModel = "bge-small-en-v1.5"

// DefaultLibrary is where scripts/setup.sh installs ONNX Runtime.
const DefaultLibrary = "/usr/local/lib/openshelf/libonnxruntime.so"

var errClosed = errors.New("embed: closed")

// Config configures embed_text.
type Config struct {
	// ModelsDir holds one directory per model (MODELS/bge-small-en-v1.5/
	// model.onnx and tokenizer.json). The server defaults it to DATA/models.
	ModelsDir string
	// Library is the ONNX Runtime shared library (default DefaultLibrary).
	Library string
	// MaxBatch texts run together (default 32); MaxWait is how long a
	// batch waits for more after its first request (default 5 ms).
	MaxBatch int
	MaxWait  time.Duration
	// MaxTokens per text, special tokens included, lowers the models' own
	// limits (ModelMaxTokens: 512 for bge-small-en-v1.5, 8192 for
	// bge-m3); 0 keeps them.
	MaxTokens int
	// Threads per session (default 0: ONNX Runtime's choice).
	Threads int
	Logger  *slog.Logger
}

// Embedder is the embed_text family.
type Embedder struct {
	cfg      Config
	batchers map[string]*batcher
	status   map[string]string // model → why it is not loaded
}

// New loads every provisioned model. A model that cannot be loaded is
// reported, not fatal: its requests answer 503 model_unavailable.
func New(cfg Config) *Embedder {
	if cfg.Library == "" {
		cfg.Library = DefaultLibrary
	}
	if cfg.MaxBatch <= 0 {
		cfg.MaxBatch = 32
	}
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = 5 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	e := &Embedder{cfg: cfg, batchers: map[string]*batcher{}, status: map[string]string{}}
	for name := range Models {
		if err := e.load(name); err != nil {
			e.status[name] = err.Error()
			cfg.Logger.Info("embed_text: model not loaded", "model", name, "reason", err)
		}
	}
	return e
}

func (e *Embedder) load(name string) error {
	if e.cfg.ModelsDir == "" {
		return errors.New("no models directory configured")
	}
	dir := filepath.Join(e.cfg.ModelsDir, name)
	m, err := func() (*model, error) {
		if err := initRuntime(e.cfg.Library); err != nil {
			// Report a missing model before a missing runtime: that is
			// what an operator fixes first.
			if _, merr := loadTokenizer(filepath.Join(dir, "tokenizer.json")); merr != nil {
				return nil, fmt.Errorf("not provisioned in %s", dir)
			}
			return nil, err
		}
		maxTokens := ModelMaxTokens[name]
		if e.cfg.MaxTokens > 0 {
			maxTokens = min(maxTokens, e.cfg.MaxTokens)
		}
		return loadModel(name, dir, maxTokens, e.cfg.Threads)
	}()
	if err != nil {
		return err
	}
	e.batchers[name] = newBatcher(m, e.cfg.MaxBatch, e.cfg.MaxWait)
	e.cfg.Logger.Info("embed_text: model loaded", "model", name, "dir", dir)
	return nil
}

// Close stops the batchers and releases the sessions.
func (e *Embedder) Close() error {
	for _, b := range e.batchers {
		b.close()
		b.m.close()
	}
	e.batchers = map[string]*batcher{}
	return nil
}

// Loaded lists the loaded models.
func (e *Embedder) Loaded() []string {
	var out []string
	for n := range e.batchers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Input is embed_text's input. The schema checks the shape (a string or
// at most MaxInputs strings); Validate checks the characters.
type Input struct {
	Input schema.StringList `json:"input" minItems:"1" maxItems:"100" doc:"A string, or an array of at most 100 strings; at most 24,000 characters in all."`
	Model string            `json:"model,omitempty" enum:"bge-small-en-v1.5|bge-m3" default:"bge-small-en-v1.5" doc:"bge-small-en-v1.5: 384 dimensions, English; bge-m3: 1024 dimensions, multilingual."`
}

// Validate checks the limits of one call.
func (in *Input) Validate() error {
	if len(in.Input) == 0 {
		return apierr.Invalid("input", "must not be empty")
	}
	if len(in.Input) > MaxInputs {
		return apierr.Invalid("input", fmt.Sprintf("at most %d strings per call", MaxInputs))
	}
	n := 0
	for _, s := range in.Input {
		n += utf8.RuneCountInString(s)
	}
	if n > MaxChars {
		return apierr.Invalid("input", fmt.Sprintf("%d characters; at most %d per call", n, MaxChars))
	}
	return nil
}

// Embedding is one vector.
type Embedding struct {
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

// Output is embed_text's answer.
type Output struct {
	Model      string      `json:"model"`
	Dimensions int         `json:"dimensions"`
	Data       []Embedding `json:"data"`
	Usage      struct {
		Tokens int `json:"tokens"`
	} `json:"usage"`
}

// ModelStatus is a model's entry in GET /v1/embed/models.
type ModelStatus struct {
	Name       string `json:"name"`
	Dimensions int    `json:"dimensions"`
	Loaded     bool   `json:"loaded"`
	Reason     string `json:"reason,omitempty"`
}

func (in *Input) model() string {
	if in.Model == "" {
		return DefaultModel
	}
	return in.Model
}

func (e *Embedder) unavailable(name string) error {
	return apierr.New(apierr.ErrUnavailable, "model_unavailable",
		fmt.Sprintf("model %s is not loaded on this server (%s); see GET /v1/embed/models", name, e.status[name]))
}

// Embed runs embed_text.
func (e *Embedder) Embed(ctx context.Context, in *Input) (*Output, error) {
	if err := in.Validate(); err != nil {
		return nil, err
	}
	b := e.batchers[in.model()]
	if b == nil {
		return nil, e.unavailable(in.model())
	}
	vecs, tokens, err := b.embed(ctx, in.Input)
	if err != nil {
		return nil, err
	}
	out := &Output{Model: in.model(), Data: make([]Embedding, len(vecs))}
	for i, v := range vecs {
		out.Data[i] = Embedding{Index: i, Embedding: v}
	}
	if len(vecs) > 0 {
		out.Dimensions = len(vecs[0])
	}
	out.Usage.Tokens = tokens
	return out, nil
}

// Endpoints returns embed_text and the free model list.
func (e *Embedder) Endpoints() []*registry.Endpoint {
	loaded := strings.Join(e.Loaded(), ", ")
	if loaded == "" {
		loaded = "none"
	}
	return []*registry.Endpoint{
		registry.Spec[Input]{
			Name: "embed_text", Method: http.MethodPost, Path: "/v1/embed", Group: registry.GroupTools,
			Price:   Price,
			Summary: "L2-normalised text embeddings: bge-small-en-v1.5 (384 dimensions, English) or bge-m3 (1024, multilingual).",
			Description: "At most 100 strings and 24,000 characters per call; CLS pooling and L2 normalisation as the models " +
				"define. A model not loaded on this server answers 503 model_unavailable before payment; GET " +
				"/v1/embed/models lists the loaded ones. Loaded when this server started: " + loaded + ".",
			Output: Output{},
			Tool:   &registry.Tool{},
			Check: func(_ context.Context, in *Input) error {
				if e.batchers[in.model()] == nil {
					return e.unavailable(in.model())
				}
				return nil
			},
			Handle: func(ctx context.Context, in *Input) (*registry.Result, error) {
				out, err := e.Embed(ctx, in)
				if err != nil {
					return nil, err
				}
				return &registry.Result{Value: out}, nil
			},
		}.Endpoint(),
		registry.Spec[registry.NoInput]{
			Name: "embed_models", Method: http.MethodGet, Path: "/v1/embed/models", Group: registry.GroupTools,
			Summary: "The embedding models of embed_text and whether this server has them loaded.",
			Output:  ModelsOutput{},
			Handle: func(context.Context, *registry.NoInput) (*registry.Result, error) {
				return &registry.Result{Value: ModelsOutput{Models: e.Models()}}, nil
			},
		}.Endpoint(),
	}
}

// ModelsOutput is the answer of GET /v1/embed/models.
type ModelsOutput struct {
	Models []ModelStatus `json:"models"`
}

// Models reports every model's status.
func (e *Embedder) Models() []ModelStatus {
	var out []ModelStatus
	for name, dims := range Models {
		out = append(out, ModelStatus{Name: name, Dimensions: dims, Loaded: e.batchers[name] != nil, Reason: e.status[name]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name > out[j].Name })
	return out
}

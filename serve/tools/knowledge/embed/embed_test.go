package embed

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openshelf/openshelf/serve/apierr"
	"github.com/openshelf/openshelf/serve/schema"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed/embedtest"
)

// newTiny loads the tiny model of package embedtest as bge-small-en-v1.5
// with the ONNX Runtime library installed by scripts/setup.sh.
func newTiny(t *testing.T, cfg Config) *Embedder {
	t.Helper()
	dir := t.TempDir()
	if err := embedtest.Write(filepath.Join(dir, DefaultModel)); err != nil {
		t.Fatal(err)
	}
	cfg.ModelsDir = dir
	e := New(cfg)
	t.Cleanup(func() { e.Close() })
	if len(e.Loaded()) != 1 {
		t.Fatalf("tiny model not loaded: %v", e.Models())
	}
	return e
}

// input decodes v as the input of a request, as the server does.
func input(t *testing.T, v any) *Input {
	t.Helper()
	in, err := decodeInput(v)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func decodeInput(v any) (*Input, error) {
	b, err := json.Marshal(map[string]any{"input": v})
	if err != nil {
		return nil, err
	}
	in := new(Input)
	return in, schema.InputOf(in).DecodeJSON(in, b, nil)
}

func TestTokenizer(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.Write(dir); err != nil {
		t.Fatal(err)
	}
	tok, err := loadTokenizer(filepath.Join(dir, "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	id := embedtest.ID
	for _, tc := range []struct {
		text string
		want []int64
	}{
		{"The thermal conductivity of alloys is high.", []int64{id("[CLS]"), id("the"), id("thermal"), id("conductivity"), id("of"), id("alloy"), id("##s"), id("is"), id("high"), id("."), id("[SEP]")}},
		{"CAFÉ!", []int64{id("[CLS]"), id("cafe"), id("!"), id("[SEP]")}},
		{"unknown zebra", []int64{id("[CLS]"), id("un"), id("##known"), id("[UNK]"), id("[SEP]")}},
		{"", []int64{id("[CLS]"), id("[SEP]")}},
	} {
		got := tok.encode(tc.text, 512)
		if !equal(got, tc.want) {
			t.Errorf("encode(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
	if got := tok.encode("the the the the the", 4); len(got) != 4 || got[3] != id("[SEP]") {
		t.Errorf("truncation to 4: %v", got)
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestEmbedMatchesReference: ONNX Runtime's answer equals the graph
// computed in Go, vectors have norm 1, and a batch with padding gives the
// same vectors as single texts.
func TestEmbedMatchesReference(t *testing.T) {
	e := newTiny(t, Config{})
	id := embedtest.ID
	texts := []string{"The thermal conductivity of alloys is high.", "band gap", "CAFÉ!"}
	ids := [][]int64{
		{id("[CLS]"), id("the"), id("thermal"), id("conductivity"), id("of"), id("alloy"), id("##s"), id("is"), id("high"), id("."), id("[SEP]")},
		{id("[CLS]"), id("band"), id("gap"), id("[SEP]")},
		{id("[CLS]"), id("cafe"), id("!"), id("[SEP]")},
	}
	out, err := e.Embed(context.Background(), input(t, texts))
	if err != nil {
		t.Fatal(err)
	}
	if out.Model != DefaultModel || out.Dimensions != embedtest.Dim || len(out.Data) != 3 || out.Usage.Tokens != 11+4+4 {
		t.Fatalf("output %+v", out)
	}
	for i, d := range out.Data {
		ref := embedtest.Reference(ids[i])
		var norm float64
		for k, x := range d.Embedding {
			norm += float64(x) * float64(x)
			if math.Abs(float64(x)-ref[k]) > 1e-5 {
				t.Errorf("text %d dim %d: %g, reference %g", i, k, x, ref[k])
			}
		}
		if math.Abs(norm-1) > 1e-5 {
			t.Errorf("text %d: squared norm %g", i, norm)
		}
		single, err := e.Embed(context.Background(), input(t, texts[i]))
		if err != nil {
			t.Fatal(err)
		}
		for k := range d.Embedding {
			if math.Abs(float64(d.Embedding[k]-single.Data[0].Embedding[k])) > 1e-6 {
				t.Errorf("text %d: batched and single vectors differ at %d", i, k)
			}
		}
	}
}

// TestBatchingUnderConcurrency: concurrent requests share runs, and each
// gets its own vectors.
func TestBatchingUnderConcurrency(t *testing.T) {
	// A long wait so that the concurrent requests meet in one batch; the
	// assertion does not depend on timing beyond "fewer runs than requests".
	e := newTiny(t, Config{MaxBatch: 64, MaxWait: 300 * time.Millisecond})
	texts := []string{"the alloy", "band gap", "thermal conductivity", "cafe", "un", "high"}
	want := map[string][]float32{}
	const n = 24
	var (
		wg  sync.WaitGroup
		mu  sync.Mutex
		got = map[int][]float32{}
	)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := e.Embed(context.Background(), input(t, texts[i%len(texts)]))
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			got[i] = out.Data[0].Embedding
			mu.Unlock()
		}()
	}
	wg.Wait()
	b := e.batchers[DefaultModel]
	if runs := b.runs.Load(); runs >= n || b.largest.Load() < 2 {
		t.Errorf("%d requests ran in %d runs (largest batch %d): no batching", n, runs, b.largest.Load())
	}
	for i, v := range got {
		w, ok := want[texts[i%len(texts)]]
		if !ok {
			want[texts[i%len(texts)]] = v
			continue
		}
		for k := range v {
			if v[k] != w[k] {
				t.Fatalf("request %d got another text's vector", i)
			}
		}
	}
	// More texts than a batch holds run in chunks.
	big := make([]string, 100)
	for i := range big {
		big[i] = texts[i%len(texts)]
	}
	e2 := newTiny(t, Config{MaxBatch: 16})
	out, err := e2.Embed(context.Background(), input(t, big))
	if err != nil || len(out.Data) != 100 {
		t.Fatalf("100 texts: %v %v", out, err)
	}
	if r := e2.batchers[DefaultModel].runs.Load(); r != 7 {
		t.Errorf("100 texts in batches of 16: %d runs, want 7", r)
	}
}

func TestUnavailable(t *testing.T) {
	e := New(Config{ModelsDir: t.TempDir()})
	defer e.Close()
	_, err := e.Embed(context.Background(), input(t, "x"))
	if !errors.Is(err, apierr.ErrUnavailable) || apierr.From(err).Code != "model_unavailable" {
		t.Errorf("no model: %v", err)
	}
	for _, m := range e.Models() {
		if m.Loaded || m.Reason == "" {
			t.Errorf("status %+v", m)
		}
	}
	// bge-m3 with a tokenizer.json this package cannot read: reported,
	// not loaded.
	dir := t.TempDir()
	if err := embedtest.WriteM3(filepath.Join(dir, "bge-m3"), nil); err != nil {
		t.Fatal(err)
	}
	bpe := []byte(`{"model":{"type":"BPE","vocab":{"<s>":0}}}`)
	if err := writeFile(filepath.Join(dir, "bge-m3", "tokenizer.json"), bpe); err != nil {
		t.Fatal(err)
	}
	e3 := New(Config{ModelsDir: dir})
	defer e3.Close()
	for _, m := range e3.Models() {
		if m.Name == "bge-m3" && (m.Loaded || !strings.Contains(m.Reason, "unsupported tokenizer")) {
			t.Errorf("bge-m3 with a BPE tokenizer: %+v", m)
		}
	}
	_, err = e3.Embed(context.Background(), &Input{Input: schema.StringList{"x"}, Model: "bge-m3"})
	if apierr.From(err).Code != "model_unavailable" {
		t.Errorf("bge-m3 not loaded: %v", err)
	}
}

// TestM3 runs the bge-m3 path end to end with a tiny model of its shape:
// the Unigram tokenizer, input_ids and attention_mask only, <pad> = 1 for
// padding, 1024 dimensions, CLS pooling, L2 normalisation and the limit
// of 8192 tokens.
func TestM3(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.WriteM3(filepath.Join(dir, "bge-m3"), nil); err != nil {
		t.Fatal(err)
	}
	e := New(Config{ModelsDir: dir})
	t.Cleanup(func() { e.Close() })
	if got := e.Loaded(); !slices.Equal(got, []string{"bge-m3"}) {
		t.Fatalf("loaded %v: %+v", got, e.Models())
	}
	m := e.batchers["bge-m3"].m
	if !slices.Equal(m.inputs, []string{"input_ids", "attention_mask"}) || m.output != "last_hidden_state" || m.maxTokens != 8192 {
		t.Errorf("model inputs %v, output %q, max tokens %d", m.inputs, m.output, m.maxTokens)
	}
	if _, ok := m.tok.(*spTokenizer); !ok || m.tok.padID() != 1 {
		t.Errorf("tokenizer %T, pad %d", m.tok, m.tok.padID())
	}
	texts := []string{"the cafe is high", "ＴＨＥ ｃａｆｅ", "日本語"}
	ids := [][]int64{
		pieceIDs("▁the", "▁caf", "e", "▁", "i", "s", "▁", "h", "i", "g", "h"),
		pieceIDs("▁", "<unk>", "▁caf", "e"),
		pieceIDs("▁", "<unk>"),
	}
	in := input(t, texts)
	in.Model = "bge-m3"
	out, err := e.Embed(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	if out.Model != "bge-m3" || out.Dimensions != 1024 || len(out.Data) != 3 || out.Usage.Tokens != 13+6+4 {
		t.Fatalf("output: model %s, %d dimensions, %d vectors, %d tokens", out.Model, out.Dimensions, len(out.Data), out.Usage.Tokens)
	}
	for i, d := range out.Data {
		ref := embedtest.ReferenceOf(ids[i], embedtest.M3Dim)
		var norm float64
		for k, x := range d.Embedding {
			norm += float64(x) * float64(x)
			if math.Abs(float64(x)-ref[k]) > 1e-5 {
				t.Fatalf("text %d dim %d: %g, reference %g", i, k, x, ref[k])
			}
		}
		if math.Abs(norm-1) > 1e-4 {
			t.Errorf("text %d: squared norm %g", i, norm)
		}
	}
	// A text over 8192 tokens is cut to 8192: <s>, 8190 pieces, </s>.
	// 18,000 characters; each "a" is ▁ a (-4.78), which beats ▁a (-5.08).
	long := input(t, strings.Repeat("a ", 9000))
	long.Model = "bge-m3"
	out, err = e.Embed(context.Background(), long)
	if err != nil {
		t.Fatal(err)
	}
	if out.Usage.Tokens != 8192 {
		t.Errorf("9000 words: %d tokens, want 8192", out.Usage.Tokens)
	}
	want := make([]int64, 8192)
	for i := range want {
		want[i] = embedtest.PieceID([]string{"a", "▁"}[i%2])
	}
	want[0], want[8191] = embedtest.PieceID("<s>"), embedtest.PieceID("</s>")
	ref := embedtest.ReferenceOf(want, embedtest.M3Dim)
	for k, x := range out.Data[0].Embedding {
		if math.Abs(float64(x)-ref[k]) > 1e-4 {
			t.Fatalf("long text dim %d: %g, reference %g", k, x, ref[k])
		}
	}
	// The default model is not provisioned here.
	if _, err := e.Embed(context.Background(), input(t, "x")); apierr.From(err).Code != "model_unavailable" {
		t.Errorf("bge-small not provisioned: %v", err)
	}
}

// TestMaxTokensConfig: Config.MaxTokens lowers a model's limit, never
// raises it.
func TestMaxTokensConfig(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.WriteM3(filepath.Join(dir, "bge-m3"), nil); err != nil {
		t.Fatal(err)
	}
	if err := embedtest.Write(filepath.Join(dir, DefaultModel)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cfg, small, m3 int }{{0, 512, 8192}, {1000, 512, 1000}, {100, 100, 100}} {
		e := New(Config{ModelsDir: dir, MaxTokens: tc.cfg})
		small, m3 := e.batchers[DefaultModel].m.maxTokens, e.batchers["bge-m3"].m.maxTokens
		e.Close()
		if small != tc.small || m3 != tc.m3 {
			t.Errorf("MaxTokens %d: bge-small %d, bge-m3 %d; want %d, %d", tc.cfg, small, m3, tc.small, tc.m3)
		}
	}
}

func TestPool(t *testing.T) {
	// [2, 2, 2] hidden states: token 0 of each row.
	got, err := pool([]int64{2, 2, 2}, []float32{3, 4, 9, 9, 0, 5, 9, 9}, 2, 2)
	if err != nil || !slices.Equal(got[0], []float32{0.6, 0.8}) || !slices.Equal(got[1], []float32{0, 1}) {
		t.Errorf("3-d: %v %v", got, err)
	}
	// [2, 2]: already pooled rows.
	got, err = pool([]int64{2, 2}, []float32{3, 4, 0, 5}, 2, 7)
	if err != nil || !slices.Equal(got[0], []float32{0.6, 0.8}) || !slices.Equal(got[1], []float32{0, 1}) {
		t.Errorf("2-d: %v %v", got, err)
	}
	for _, sh := range [][]int64{{2}, {3, 2}, {2, 3, 2}, {2, 2, 0}, {2, 2, 2, 2}} {
		if _, err := pool(sh, make([]float32, 8), 2, 2); err == nil {
			t.Errorf("shape %v accepted", sh)
		}
	}
	if _, err := pool([]int64{2, 2, 4}, make([]float32, 8), 2, 2); err == nil {
		t.Error("short data accepted")
	}
}

func TestInputLimits(t *testing.T) {
	for _, raw := range []any{[]string{}, 42, []int{1, 2}, map[string]int{"a": 1}, make([]string, 101), string(make([]byte, 24001))} {
		if _, err := decodeInput(raw); err == nil {
			t.Errorf("input %.40v accepted", raw)
		}
	}
	for _, ok := range []any{"one", []string{"a", "b"}, make([]string, 100), []string{string(make([]byte, 12000)), string(make([]byte, 12000))}} {
		if _, err := decodeInput(ok); err != nil {
			t.Errorf("input %.40v refused: %v", ok, err)
		}
	}
}

// The input schema says what Validate enforces: a string, or an array of
// at most MaxInputs strings.
func TestInputSchema(t *testing.T) {
	b, err := json.Marshal(schema.InputOf(new(Input)).Field("input").Schema)
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		AnyOf []struct {
			Type     string `json:"type"`
			Items    *struct{ Type string }
			MaxItems int `json:"maxItems"`
			MinItems int `json:"minItems"`
		} `json:"anyOf"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.AnyOf) != 2 || s.AnyOf[0].Type != "string" || s.AnyOf[1].Type != "array" || s.AnyOf[1].Items == nil ||
		s.AnyOf[1].Items.Type != "string" || s.AnyOf[1].MaxItems != MaxInputs || s.AnyOf[1].MinItems != 1 {
		t.Errorf("input schema %s", b)
	}
}

func TestGroupByLength(t *testing.T) {
	for _, tc := range []struct {
		lengths []int
		budget  int
		want    [][]int
	}{
		{[]int{4, 4, 4}, 12, [][]int{{0, 1, 2}}},
		{[]int{4, 4, 4}, 11, [][]int{{0, 1}, {2}}},
		// Shortest first; the long text runs alone, not padding the others.
		{[]int{8192, 10, 12, 11}, 16384, [][]int{{1, 3, 2}, {0}}},
		{[]int{8192, 8192, 8192}, 16384, [][]int{{0, 1}, {2}}},
		{[]int{20000}, 16384, [][]int{{0}}},
		{nil, 16384, nil},
	} {
		if got := groupByLength(tc.lengths, tc.budget); !equalGroups(got, tc.want) {
			t.Errorf("groupByLength(%v, %d) = %v, want %v", tc.lengths, tc.budget, got, tc.want)
		}
	}
}

func equalGroups(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

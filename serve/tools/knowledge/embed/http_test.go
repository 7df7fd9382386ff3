package embed_test

import (
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/serve"
	"github.com/openshelf/openshelf/serve/servetest"
	"github.com/openshelf/openshelf/serve/tools/knowledge"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed/embedtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	testsnap.Cleanup()
	os.Exit(code)
}

// Without provisioned models embed_text is a 503 before payment, and the
// model list says why.
func TestHTTPNoModel(t *testing.T) {
	env := servetest.New(t, nil)
	res, m := env.Call(t, http.MethodPost, "/v1/embed", map[string]any{"input": "hello"}, "")
	if res.StatusCode != http.StatusServiceUnavailable || servetest.ErrCode(m) != "model_unavailable" {
		t.Errorf("no model: %d %v, want 503 model_unavailable", res.StatusCode, m)
	}
	res, m = env.Call(t, http.MethodGet, "/v1/embed/models", nil, "")
	models, _ := m["models"].([]any)
	if res.StatusCode != http.StatusOK || len(models) != 2 {
		t.Fatalf("models: %d %v", res.StatusCode, m)
	}
	for _, v := range models {
		st := v.(map[string]any)
		if st["loaded"] != false || st["reason"] == "" {
			t.Errorf("model status %v", st)
		}
	}
	if env.Settlements(t) != 0 {
		t.Error("charged without a model")
	}
}

func TestHTTPEmbed(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.Write(filepath.Join(dir, embed.DefaultModel)); err != nil {
		t.Fatal(err)
	}
	env := servetest.New(t, func(c *serve.Config) { c.Use(&knowledge.Family{Embed: embed.Config{ModelsDir: dir}}) })
	m := env.PaidCall(t, http.MethodPost, "/v1/embed", map[string]any{"input": []string{"band gap", "the alloy"}})
	data, _ := m["data"].([]any)
	if len(data) != 2 || m["model"] != embed.DefaultModel || m["dimensions"] != float64(embedtest.Dim) {
		t.Fatalf("answer %v", m)
	}
	for _, d := range data {
		vec := d.(map[string]any)["embedding"].([]any)
		var n float64
		for _, x := range vec {
			n += x.(float64) * x.(float64)
		}
		if math.Abs(n-1) > 1e-5 {
			t.Errorf("norm² %g", n)
		}
	}
	m = env.PaidCall(t, http.MethodPost, "/v1/embed", map[string]any{"input": "cafe"})
	if data, _ := m["data"].([]any); len(data) != 1 {
		t.Errorf("single string: %v", m)
	}
	// bge-m3 is not provisioned: 503 before payment; bad input: 400.
	for _, tc := range []struct {
		in     map[string]any
		status int
	}{
		{map[string]any{"input": "x", "model": "bge-m3"}, http.StatusServiceUnavailable},
		{map[string]any{"input": []int{1}}, http.StatusBadRequest},
		{map[string]any{"input": "x", "model": "gpt"}, http.StatusBadRequest},
		{map[string]any{}, http.StatusBadRequest},
	} {
		if res, m := env.Call(t, http.MethodPost, "/v1/embed", tc.in, ""); res.StatusCode != tc.status {
			t.Errorf("%v: %d %v, want %d", tc.in, res.StatusCode, m, tc.status)
		}
	}
}

// bge-m3 provisioned (a tiny model of its shape and its tokenizer.json
// format): a paid call answers 1024 unit-length dimensions, and the free
// model list says it is loaded.
func TestHTTPEmbedM3(t *testing.T) {
	dir := t.TempDir()
	if err := embedtest.WriteM3(filepath.Join(dir, "bge-m3"), nil); err != nil {
		t.Fatal(err)
	}
	env := servetest.New(t, func(c *serve.Config) { c.Use(&knowledge.Family{Embed: embed.Config{ModelsDir: dir}}) })
	m := env.PaidCall(t, http.MethodPost, "/v1/embed", map[string]any{"input": []string{"the cafe is high", "日本語"}, "model": "bge-m3"})
	data, _ := m["data"].([]any)
	if len(data) != 2 || m["model"] != "bge-m3" || m["dimensions"] != float64(1024) {
		t.Fatalf("answer: model %v, dimensions %v, %d vectors", m["model"], m["dimensions"], len(data))
	}
	for _, d := range data {
		vec := d.(map[string]any)["embedding"].([]any)
		var n float64
		for _, x := range vec {
			n += x.(float64) * x.(float64)
		}
		if len(vec) != 1024 || math.Abs(n-1) > 1e-4 {
			t.Errorf("%d dimensions, norm² %g", len(vec), n)
		}
	}
	if usage, _ := m["usage"].(map[string]any); usage["tokens"] != float64(13+4) {
		t.Errorf("usage %v, want 17 tokens", m["usage"])
	}
	_, m = env.Call(t, http.MethodGet, "/v1/embed/models", nil, "")
	for _, v := range m["models"].([]any) {
		st := v.(map[string]any)
		if loaded := st["name"] == "bge-m3"; st["loaded"] != loaded {
			t.Errorf("model status %v", st)
		}
	}
	// The default model is not provisioned: 503 before payment.
	res, m := env.Call(t, http.MethodPost, "/v1/embed", map[string]any{"input": "x"}, "")
	if res.StatusCode != http.StatusServiceUnavailable || servetest.ErrCode(m) != "model_unavailable" {
		t.Errorf("bge-small not provisioned: %d %v", res.StatusCode, m)
	}
	if n := env.Settlements(t); n != 1 {
		t.Errorf("%d settlements, want 1", n)
	}
}

package embed

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/openshelf/openshelf/serve/schema"
	"github.com/openshelf/openshelf/serve/tools/knowledge/embed/embedtest"
)

// BenchmarkEmbed measures embeddings per second with the tiny test model
// (so it measures the serving path: tokenizer, tensors, ONNX Runtime
// call, pooling, batching; not a real model's arithmetic): 32 concurrent
// single-text requests per iteration, batched (MaxBatch 32) against
// unbatched (MaxBatch 1).
//
//	go test -run '^$' -bench Embed -benchtime 200x ./serve/tools/knowledge/embed
func BenchmarkEmbed(b *testing.B) {
	dir := b.TempDir()
	if err := embedtest.Write(filepath.Join(dir, DefaultModel)); err != nil {
		b.Fatal(err)
	}
	text := "The thermal conductivity of alloys is high. " +
		"The band gap of the film is high. The thermal conductivity of the alloy is high."
	for _, tc := range []struct {
		name  string
		batch int
	}{{"unbatched", 1}, {"batched32", 32}} {
		b.Run(tc.name, func(b *testing.B) {
			e := New(Config{ModelsDir: dir, MaxBatch: tc.batch})
			defer e.Close()
			in := &Input{Input: schema.StringList{text}}
			if err := in.Validate(); err != nil {
				b.Fatal(err)
			}
			const clients = 32
			for b.Loop() {
				var wg sync.WaitGroup
				for range clients {
					wg.Add(1)
					go func() {
						defer wg.Done()
						if _, err := e.Embed(context.Background(), in); err != nil {
							b.Error(err)
						}
					}()
				}
				wg.Wait()
			}
			b.ReportMetric(float64(b.N*clients)/b.Elapsed().Seconds(), "texts/s")
		})
	}
}

// BenchmarkTokenize measures tokens per second of the two tokenizers on
// the same text (about 8 KB of English prose), each with its test
// vocabulary (embedtest: 19 WordPiece tokens, which hold the text's
// words; 34 Unigram pieces, mostly single letters, and the real-format
// charsmap), and the Unigram one again with the text's words added as
// pieces ("unigram-words"), so that both emit about one token per word.
// No truncation is in the way:
//
//	go test -run '^$' -bench Tokenize -benchmem ./serve/tools/knowledge/embed
func BenchmarkTokenize(b *testing.B) {
	dir := b.TempDir()
	if err := embedtest.Write(filepath.Join(dir, "wp")); err != nil {
		b.Fatal(err)
	}
	wp, err := loadTokenizer(filepath.Join(dir, "wp", "tokenizer.json"))
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("The thermal conductivity of alloys is high. The band gap is high, the café is high. ", 100)
	for _, tc := range []struct {
		name string
		tok  encoder
	}{
		{"wordpiece", wp},
		{"unigram", loadUnigramTokenizer(b, nil)},
		{"unigram-words", loadUnigramTokenizer(b, func(tj map[string]any) {
			m := tj["model"].(map[string]any)
			for _, w := range []string{"▁The", "▁thermal", "▁conductivity", "▁of", "▁alloys", "▁is", "▁high", ".", "▁band", "▁gap", ",", "▁the", "▁café"} {
				m["vocab"] = append(m["vocab"].([][]any), []any{w, -1.0})
			}
		})},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			n := 0
			for b.Loop() {
				n += len(tc.tok.encode(text, 1<<20))
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}

// Package embedtest writes a tiny BERT-shaped ONNX model and a matching
// WordPiece tokenizer.json for tests of embed_text, and computes the
// model's output in Go as a reference.
//
// The graph (opset 11) takes input_ids and attention_mask (int64,
// [batch, seq]) and returns last_hidden_state (float, [batch, seq, Dim]):
//
//	H = Gather(E, input_ids) · attention_mask   (masked token embeddings)
//	last_hidden_state = H + ReduceSum(H, axis 1) (each token plus the sum)
//
// so the first token's state, which CLS pooling takes, depends on every
// token of its own text and on no padding.
package embedtest

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"

	"google.golang.org/protobuf/encoding/protowire"
)

// Dim is the embedding size of the tiny model.
const Dim = 8

// Vocab is the tokenizer's vocabulary.
var Vocab = []string{"[PAD]", "[UNK]", "[CLS]", "[SEP]", "the", "thermal", "conductivity", "of", "alloy", "##s",
	"is", "high", ".", "band", "gap", "cafe", "!", "un", "##known"}

// ID returns a token's id.
func ID(tok string) int64 {
	for i, v := range Vocab {
		if v == tok {
			return int64(i)
		}
	}
	panic("embedtest: no token " + tok)
}

// Embedding is row id of the model's embedding table: deterministic
// values, zero for [PAD].
func Embedding(id int64) []float32 { return EmbeddingOf(id, Dim) }

// EmbeddingOf is row id of an embedding table of dim columns: the values
// of Embedding, for any size.
func EmbeddingOf(id int64, dim int) []float32 {
	row := make([]float32, dim)
	if id == 0 {
		return row
	}
	for k := range row {
		row[k] = float32(math.Sin(float64(id)*1.7 + float64(k)*0.9))
	}
	return row
}

// Reference is what the model and CLS pooling give for one text's token
// ids ([CLS] … [SEP]), L2-normalised: E[ids[0]] + Σ E[ids[j]].
func Reference(ids []int64) []float64 { return ReferenceOf(ids, Dim) }

// ReferenceOf is Reference for a model of dim columns (M3Dim for WriteM3's).
func ReferenceOf(ids []int64, dim int) []float64 {
	v := make([]float64, dim)
	for k := range v {
		v[k] = float64(EmbeddingOf(ids[0], dim)[k])
	}
	for _, id := range ids {
		for k, x := range EmbeddingOf(id, dim) {
			v[k] += float64(x)
		}
	}
	var s float64
	for _, x := range v {
		s += x * x
	}
	for k := range v {
		v[k] /= math.Sqrt(s)
	}
	return v
}

// Write writes dir/model.onnx and dir/tokenizer.json.
func Write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), Model(), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer.json"), Tokenizer(), 0o644)
}

// Tokenizer is a tokenizer.json in the Hugging Face format of the BERT
// family (BertNormalizer, BertPreTokenizer, WordPiece, [CLS] $A [SEP]).
func Tokenizer() []byte {
	vocab := map[string]int{}
	for i, v := range Vocab {
		vocab[v] = i
	}
	special := func(tok string) map[string]any {
		return map[string]any{"id": tok, "ids": []int64{ID(tok)}, "tokens": []string{tok}}
	}
	t := map[string]any{
		"version":    "1.0",
		"truncation": nil,
		"padding":    nil,
		"normalizer": map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
			"strip_accents": nil, "lowercase": true},
		"pre_tokenizer": map[string]any{"type": "BertPreTokenizer"},
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single": []any{map[string]any{"SpecialToken": map[string]any{"id": "[CLS]", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "[SEP]", "type_id": 0}}},
			"special_tokens": map[string]any{"[CLS]": special("[CLS]"), "[SEP]": special("[SEP]")}},
		"decoder": map[string]any{"type": "WordPiece", "prefix": "##", "cleanup": true},
		"model": map[string]any{"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": vocab},
	}
	b, _ := json.MarshalIndent(t, "", "  ")
	return b
}

// ONNX protobuf field numbers (onnx.proto) and enum values used here.
const (
	tFloat = 1 // TensorProto.FLOAT
	tInt64 = 7 // TensorProto.INT64

	attrInt  = 2 // AttributeProto.INT
	attrInts = 7 // AttributeProto.INTS
)

// Model is the serialised ModelProto.
func Model() []byte {
	table := make([][]float32, len(Vocab))
	for id := range table {
		table[id] = Embedding(int64(id))
	}
	return modelOf(table, Dim)
}

// modelOf is the ModelProto of the graph with embedding table E.
func modelOf(table [][]float32, dim int) []byte {
	var g []byte
	node := func(op string, in, out []string, attrs ...[]byte) {
		var n []byte
		for _, s := range in {
			n = protowire.AppendTag(n, 1, protowire.BytesType)
			n = protowire.AppendString(n, s)
		}
		for _, s := range out {
			n = protowire.AppendTag(n, 2, protowire.BytesType)
			n = protowire.AppendString(n, s)
		}
		n = protowire.AppendTag(n, 3, protowire.BytesType)
		n = protowire.AppendString(n, op+"_"+out[0])
		n = protowire.AppendTag(n, 4, protowire.BytesType)
		n = protowire.AppendString(n, op)
		for _, a := range attrs {
			n = protowire.AppendTag(n, 5, protowire.BytesType)
			n = protowire.AppendBytes(n, a)
		}
		g = protowire.AppendTag(g, 1, protowire.BytesType)
		g = protowire.AppendBytes(g, n)
	}
	intAttr := func(name string, v int64) []byte {
		var a []byte
		a = protowire.AppendTag(a, 1, protowire.BytesType)
		a = protowire.AppendString(a, name)
		a = protowire.AppendTag(a, 3, protowire.VarintType)
		a = protowire.AppendVarint(a, uint64(v))
		a = protowire.AppendTag(a, 20, protowire.VarintType)
		return protowire.AppendVarint(a, attrInt)
	}
	intsAttr := func(name string, vs ...int64) []byte {
		var a []byte
		a = protowire.AppendTag(a, 1, protowire.BytesType)
		a = protowire.AppendString(a, name)
		for _, v := range vs {
			a = protowire.AppendTag(a, 8, protowire.VarintType)
			a = protowire.AppendVarint(a, uint64(v))
		}
		a = protowire.AppendTag(a, 20, protowire.VarintType)
		return protowire.AppendVarint(a, attrInts)
	}
	node("Gather", []string{"E", "input_ids"}, []string{"H"})
	node("Cast", []string{"attention_mask"}, []string{"Mf"}, intAttr("to", tFloat))
	node("Unsqueeze", []string{"Mf"}, []string{"M3"}, intsAttr("axes", 2))
	node("Mul", []string{"H", "M3"}, []string{"Hm"})
	node("ReduceSum", []string{"Hm"}, []string{"S"}, intsAttr("axes", 1), intAttr("keepdims", 1))
	node("Add", []string{"Hm", "S"}, []string{"last_hidden_state"})

	g = protowire.AppendTag(g, 2, protowire.BytesType)
	g = protowire.AppendString(g, "tiny_bert")
	// initializer E: float [V, Dim], float_data packed
	var tensor []byte
	for _, d := range []int64{int64(len(table)), int64(dim)} {
		tensor = protowire.AppendTag(tensor, 1, protowire.VarintType)
		tensor = protowire.AppendVarint(tensor, uint64(d))
	}
	tensor = protowire.AppendTag(tensor, 2, protowire.VarintType)
	tensor = protowire.AppendVarint(tensor, tFloat)
	var floats []byte
	for _, row := range table {
		for _, x := range row {
			floats = protowire.AppendFixed32(floats, math.Float32bits(x))
		}
	}
	tensor = protowire.AppendTag(tensor, 4, protowire.BytesType)
	tensor = protowire.AppendBytes(tensor, floats)
	tensor = protowire.AppendTag(tensor, 8, protowire.BytesType)
	tensor = protowire.AppendString(tensor, "E")
	g = protowire.AppendTag(g, 5, protowire.BytesType)
	g = protowire.AppendBytes(g, tensor)

	valueInfo := func(name string, elem int, dims ...any) []byte {
		var shape []byte
		for _, d := range dims {
			var dim []byte
			switch d := d.(type) {
			case int:
				dim = protowire.AppendTag(dim, 1, protowire.VarintType)
				dim = protowire.AppendVarint(dim, uint64(d))
			case string:
				dim = protowire.AppendTag(dim, 2, protowire.BytesType)
				dim = protowire.AppendString(dim, d)
			}
			shape = protowire.AppendTag(shape, 1, protowire.BytesType)
			shape = protowire.AppendBytes(shape, dim)
		}
		var tt []byte
		tt = protowire.AppendTag(tt, 1, protowire.VarintType)
		tt = protowire.AppendVarint(tt, uint64(elem))
		tt = protowire.AppendTag(tt, 2, protowire.BytesType)
		tt = protowire.AppendBytes(tt, shape)
		var typ []byte
		typ = protowire.AppendTag(typ, 1, protowire.BytesType)
		typ = protowire.AppendBytes(typ, tt)
		var vi []byte
		vi = protowire.AppendTag(vi, 1, protowire.BytesType)
		vi = protowire.AppendString(vi, name)
		vi = protowire.AppendTag(vi, 2, protowire.BytesType)
		return protowire.AppendBytes(vi, typ)
	}
	g = protowire.AppendTag(g, 11, protowire.BytesType)
	g = protowire.AppendBytes(g, valueInfo("input_ids", tInt64, "batch", "seq"))
	g = protowire.AppendTag(g, 11, protowire.BytesType)
	g = protowire.AppendBytes(g, valueInfo("attention_mask", tInt64, "batch", "seq"))
	g = protowire.AppendTag(g, 12, protowire.BytesType)
	g = protowire.AppendBytes(g, valueInfo("last_hidden_state", tFloat, "batch", "seq", dim))

	var m []byte
	m = protowire.AppendTag(m, 1, protowire.VarintType) // ir_version
	m = protowire.AppendVarint(m, 7)
	m = protowire.AppendTag(m, 2, protowire.BytesType) // producer_name
	m = protowire.AppendString(m, "openshelf embedtest")
	m = protowire.AppendTag(m, 7, protowire.BytesType) // graph
	m = protowire.AppendBytes(m, g)
	var opset []byte
	opset = protowire.AppendTag(opset, 1, protowire.BytesType)
	opset = protowire.AppendString(opset, "")
	opset = protowire.AppendTag(opset, 2, protowire.VarintType)
	opset = protowire.AppendVarint(opset, 11)
	m = protowire.AppendTag(m, 8, protowire.BytesType) // opset_import
	return protowire.AppendBytes(m, opset)
}

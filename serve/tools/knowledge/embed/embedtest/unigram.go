package embedtest

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// M3Dim is the embedding size of the tiny bge-m3-shaped model: bge-m3's.
const M3Dim = 1024

// Charsmap is a real SentencePiece precompiled_charsmap (1,149 bytes,
// base64): a darts-clone double-array trie and its replacement strings,
// compiled by SentencePiece 0.1.97 (Debian's sentencepiece package) from
// these rules (source code points, tab, target code points), written for
// these tests after what nmt_nfkc, the charsmap of XLM-R and bge-m3, does
// (200D → 20 is in the nmt_nfkc of Hugging Face's spm_precompiled tests):
//
//	FB01 → 66 69 (ﬁ → fi); 2460 → 31 (① → 1); 3000 → 20 (ideographic
//	space); 9, A, D → 20 (tab, LF, CR → space); 200D → 20 (zero-width
//	joiner → space); 65 301 → E9 and 41 301 → C1 (e, A + combining acute
//	→ é, Á); 2126 → 3A9 (ohm sign → Ω); AD → nothing (soft hyphen);
//	FF41–FF5A → 61–7A and FF21–FF3A → 41–5A (fullwidth Latin letters)
//
// with: spm_train --input=corpus.txt --model_prefix=tiny --vocab_size=40
// --model_type=unigram --normalization_rule_tsv=rules.tsv
// --hard_vocab_limit=false, then the model's normalizer_spec
// .precompiled_charsmap (field 3, then 2, of the ModelProto), base64.
// (The decoder was also checked, outside the tests, against the full
// 237,561-byte nmt_nfkc charsmap of SentencePiece 0.1.97: its
// longest-match normalisation equalled SentencePiece's on 320 texts.)
const Charsmap = "" +
	"AAQAAAAgAAAJCQAACgUAAAEAAIDMDAIADRkAAIEFAABwAACAzAACAIENAABzAACArR0AAAAAAICR8AIAjTUAAKZ9AAB2AACAoA0A" +
	"AAMAAICAHAIAgF0AAEUAAICBDQAABQAAgITEAgAHAACACQAAgAsAAICAfAIADQAAgA8AAIARAACArNwCABMAAIAVAACAFwAAgBkA" +
	"AIAbAACAHQAAgB8AAIAhAACAIwAAgCUAAIAnAACAKQAAgCsAAIAtAACALwAAgLxkAwC9cAMAMQAAgDMAAIA1AACANwAAgDkAAIA7" +
	"AACAPQAAgD8AAIBBAACAQwAAgEgAAIBKAACATAAAgE4AAICpiQEAqIEBAKuZAQCqgQEArYkBAKyBAQCvuQEAroEBAKF9AQBBBAIA" +
	"o0EBAKJJAQClRQEApFkBAKdFAQCmRQEAuZEBALiJAQBQAACAupkBAFIAAIBUAACAVgAAgFgAAICxyQEAsMEBALPZAQCywQEAtckB" +
	"ALTBAQC3sQEAtsEBAI3VAACM1QAAj9UAAI7VAACJaQEAiGEBAIvRAACKYQEAhUkBAIRBAQCHWQEAhkEBAIFpAQBlpAIAg1kBAIJh" +
	"AQBaAACAXAAAgF4AAIBgAACAmcUDAJjFAwBiAACAmsUDAJXhAwCUPQAAl+EDAJbpAwCRNQAAkDUAAJM1AACSNQAAZAAAgGYAAIBo" +
	"AACAggAAAGoAAIBsAACAbgAAgIYAAACJAAAAiAAAAIsAAACKAAAAjQAAAIwAAACPAAAAjgAAAJEAAACQAAAAkwAAAJIAAACVAAAA" +
	"lAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0AAACcAAAAnwAAAJ4AAAChAAAAoAAAAKMAAACiAAAApQAAAKQAAACnAAAApgAA" +
	"AKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8AAACuAAAAsQAAALAAAACzAAAAsgAAALUAAAC0AAAAtwAAALYAAAC5AAAAuAAAALsA" +
	"AAC6AAAAvQAAALwAAAC/AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAAxAAAAMcAAADGAAAAyQAAAMgAAADCsAEAygAAAM0AAADM" +
	"AAAAzwAAAM4AAADRAAAA0AAAANMAAADSAAAA1QAAANQAAADXAAAA1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA" +
	"4QAAAOAAAADjAAAA4gAAAOUAAADkAAAA5wAAAO+sAQDpAAAA6AAAAOLYAQDj4AEA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA8wAA" +
	"APIAAAD1AAAA9AAAAPcAAAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAAD8AAAA/wAAAP4AAAAAIAAxAEEAQgBDAEQARQBGAEcASABJ" +
	"AEoASwBMAE0ATgBPAFAAUQBSAFMAVABVAFYAVwBYAFkAWgBhAGIAYwBkAGUAZgBmaQBnAGgAaQBqAGsAbABtAG4AbwBwAHEAcgBz" +
	"AHQAdQB2AHcAeAB5AHoAw4EAw6kAzqkA"

// SPPieces are the pieces and scores of the SentencePiece Unigram model
// trained by the command above on a four-line corpus ("the cafe is high",
// "thermal conductivity of the alloy", "café au lait", "band gap"), in
// SentencePiece's order, without its <unk>, <s> and </s> (ids 0–2).
// UnigramVocab lays them out as XLM-R's tokenizer.json does (fairseq's
// order): <s> <pad> </s> <unk>, then SentencePiece's id + 1, then <mask>.
var SPPieces = []struct {
	Piece string
	Score float64
}{
	{"▁", -1.9816572666168213}, {"a", -2.8020544052124023}, {"i", -2.975036382675171},
	{"o", -2.993626117706299}, {"▁the", -2.9936418533325195}, {"l", -3.3416736125946045},
	{"h", -3.4935998916625977}, {"g", -3.493626117706299}, {"nd", -3.493626117706299},
	{"u", -3.493626117706299}, {"y", -3.493626117706299}, {"▁caf", -3.4940025806427},
	{"it", -3.5247294902801514}, {"al", -3.6719489097595215}, {"c", -4.288756847381592},
	{"t", -4.418022155761719}, {"f", -4.492666721343994}, {"e", -4.493558883666992},
	{"b", -4.493624687194824}, {"m", -4.493626117706299}, {"p", -4.493626117706299},
	{"r", -4.493626117706299}, {"s", -4.493626117706299}, {"v", -4.493626117706299},
	{"é", -4.493626117706299}, {"▁c", -4.742973804473877}, {"n", -5.079745769500732},
	{"d", -5.079845905303955}, {"▁a", -5.079845905303955},
}

// UnigramVocab is the tokenizer's vocabulary, by id.
func UnigramVocab() []string {
	v := []string{"<s>", "<pad>", "</s>", "<unk>"}
	for _, p := range SPPieces {
		v = append(v, p.Piece)
	}
	return append(v, "<mask>")
}

// PieceID returns a piece's id in UnigramVocab.
func PieceID(piece string) int64 {
	for i, v := range UnigramVocab() {
		if v == piece {
			return int64(i)
		}
	}
	panic("embedtest: no piece " + piece)
}

// UnigramTokenizer is a tokenizer.json in the format of XLM-R's and
// bge-m3's (as transformers' XLMRobertaConverter writes it): special
// added tokens, Sequence[Precompiled, Replace " {2,}" → " "], Metaspace
// (prepend_scheme always, split), Unigram with unk_id 3, and the
// <s> $A </s> template. It is a map so that tests can vary it.
func UnigramTokenizer() map[string]any {
	vocab := [][]any{{"<s>", 0.0}, {"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}}
	for _, p := range SPPieces {
		vocab = append(vocab, []any{p.Piece, p.Score})
	}
	vocab = append(vocab, []any{"<mask>", 0.0})
	added := []any{}
	for _, tok := range []string{"<s>", "<pad>", "</s>", "<unk>", "<mask>"} {
		added = append(added, map[string]any{"id": PieceID(tok), "content": tok, "single_word": false,
			"lstrip": tok == "<mask>", "rstrip": false, "normalized": false, "special": true})
	}
	special := func(tok string) map[string]any {
		return map[string]any{"id": tok, "ids": []int64{PieceID(tok)}, "tokens": []string{tok}}
	}
	metaspace := map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true}
	return map[string]any{
		"version":      "1.0",
		"truncation":   nil,
		"padding":      nil,
		"added_tokens": added,
		"normalizer": map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Precompiled", "precompiled_charsmap": Charsmap},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " {2,}"}, "content": " "},
		}},
		"pre_tokenizer": metaspace,
		"post_processor": map[string]any{"type": "TemplateProcessing",
			"single": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}}},
			"pair": []any{map[string]any{"SpecialToken": map[string]any{"id": "<s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "A", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}},
				map[string]any{"Sequence": map[string]any{"id": "B", "type_id": 0}},
				map[string]any{"SpecialToken": map[string]any{"id": "</s>", "type_id": 0}}},
			"special_tokens": map[string]any{"<s>": special("<s>"), "</s>": special("</s>")}},
		"decoder": metaspace,
		"model":   map[string]any{"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": false},
	}
}

// WriteM3 writes dir/model.onnx, a tiny model shaped like bge-m3's ONNX
// export (input_ids and attention_mask, no token_type_ids;
// last_hidden_state of M3Dim), and dir/tokenizer.json from tok
// (UnigramTokenizer() when nil).
func WriteM3(dir string, tok map[string]any) error {
	if tok == nil {
		tok = UnigramTokenizer()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	table := make([][]float32, len(UnigramVocab()))
	for id := range table {
		table[id] = EmbeddingOf(int64(id), M3Dim)
	}
	if err := os.WriteFile(filepath.Join(dir, "model.onnx"), modelOf(table, M3Dim), 0o644); err != nil {
		return err
	}
	b, err := json.Marshal(tok)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "tokenizer.json"), b, 0o644)
}

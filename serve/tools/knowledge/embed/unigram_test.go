package embed

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/serve/tools/knowledge/embed/embedtest"
)

// The tokenizer.json of these tests is embedtest.UnigramTokenizer: the
// real format of XLM-R's and bge-m3's, with a real charsmap compiled by
// SentencePiece and the pieces of a tiny SentencePiece model (see
// embedtest.Charsmap and embedtest.SPPieces).

func loadUnigramTokenizer(t testing.TB, edit func(map[string]any)) *spTokenizer {
	t.Helper()
	tj := embedtest.UnigramTokenizer()
	if edit != nil {
		edit(tj)
	}
	b, err := json.Marshal(tj)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "tokenizer.json")
	if err := writeFile(path, b); err != nil {
		t.Fatal(err)
	}
	enc, err := loadTokenizer(path)
	if err != nil {
		t.Fatal(err)
	}
	sp, ok := enc.(*spTokenizer)
	if !ok {
		t.Fatalf("tokenizer.json with a Unigram model loaded as %T", enc)
	}
	return sp
}

// pieceIDs maps pieces to ids, framed by <s> and </s>.
func pieceIDs(pieces ...string) []int64 {
	ids := []int64{embedtest.PieceID("<s>")}
	for _, p := range pieces {
		ids = append(ids, embedtest.PieceID(p))
	}
	return append(ids, embedtest.PieceID("</s>"))
}

func TestPrecompiledCharsmap(t *testing.T) {
	p, err := parsePrecompiled(embedtest.Charsmap)
	if err != nil {
		t.Fatal(err)
	}
	// Every rule the charsmap was compiled from, and keys it lacks.
	for _, tc := range []struct {
		chunk, want string
		found       bool
	}{
		{"\ufb01", "fi", true},
		{"\u2460", "1", true},
		{"\u3000", " ", true},
		{"\t", " ", true},
		{"\n", " ", true},
		{"\u200d", " ", true},
		{"e\u0301", "é", true},
		{"A\u0301", "Á", true},
		{"\u2126", "Ω", true},
		{"\u00ad", "", true},
		{"ａ", "a", true},
		{"ｚ", "z", true},
		{"Ａ", "A", true},
		{"Ｚ", "Z", true},
		{"a", "", false},
		{" ", "", false},
		{"e", "", false},
		{"\u0301", "", false},
		{"", "", false},
	} {
		got, ok := p.transform(tc.chunk)
		if got != tc.want || ok != tc.found {
			t.Errorf("transform(%q) = %q, %v; want %q, %v", tc.chunk, got, ok, tc.want, tc.found)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"ＴＨＥ ｃａｆｅ", "THE cafe"},
		{"cafe\u0301", "café"},             // a grapheme matched whole
		{"\ufb01lm\u2460", "film1"},        // NFKC compatibility mappings
		{"soft\u00adhyphen", "softhyphen"}, // removed
		{"a\tb\nc\rd", "a b c d"},
		{"a\u200db", "a b"}, // a+ZWJ has no rule: code point by code point
		// Hugging Face's quirk, kept: a grapheme under 6 bytes is replaced
		// whole by the rule of its shortest matching prefix, here ｃ → c,
		// which drops the accent...
		{"ｃ\u0301", "c"},
		// ...while one of 6 bytes or more goes code point by code point.
		{"ｃ\u0301\u0301", "c\u0301\u0301"},
		{"日本語 €", "日本語 €"},
		{"", ""},
	} {
		if got := p.normalize(tc.in); got != tc.want {
			t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPrecompiledInvalid(t *testing.T) {
	for _, b64 := range []string{"***", "", "AAA=", "CAAAAAAAAAA=", "/////wAAAAA="} {
		if _, err := parsePrecompiled(b64); !errors.Is(err, ErrBadCharsmap) {
			t.Errorf("charsmap %q: %v, want ErrBadCharsmap", b64, err)
		}
	}
	// A trie whose offsets point outside it finds nothing, and does not
	// panic: one unit, offset 1<<20 and a leaf.
	p := &precompiled{trie: []uint32{1<<30 | 1<<8}, normalized: "x\x00"}
	if r, ok := p.transform("abc"); ok {
		t.Errorf("broken trie matched: %q", r)
	}
}

// TestUnigramReference: token ids of the tiny tokenizer against
// SentencePiece 0.1.97's own encoding with the model the pieces come from
// (spm.SentencePieceProcessor(model_file="tiny.model").encode(text,
// out_type=str)), where SentencePiece and Hugging Face agree: no trailing
// or repeated whitespace (SentencePiece strips and squeezes it).
func TestUnigramReference(t *testing.T) {
	tok := loadUnigramTokenizer(t, nil)
	unk := "<unk>"
	for _, tc := range []struct {
		text   string
		pieces []string
	}{
		{"the cafe is high", []string{"▁the", "▁caf", "e", "▁", "i", "s", "▁", "h", "i", "g", "h"}},
		{"ＴＨＥ ｃａｆｅ", []string{"▁", unk, "▁caf", "e"}}, // T, H, E unknown: one fused <unk>
		{"café", []string{"▁caf", "é"}},
		{"cafe\u0301", []string{"▁caf", "é"}}, // e + combining acute composed by the charsmap
		{"the\talloy\nof", []string{"▁the", "▁", "al", "l", "o", "y", "▁", "o", "f"}},
		{"\ufb01lm\u2460", []string{"▁", "f", "i", "l", "m", unk}},
		{"band gap", []string{"▁", "b", "a", "nd", "▁", "g", "a", "p"}},
		{"\u2126hm", []string{"▁", unk, "h", "m"}},
		{"soft\u00adhyphen", []string{"▁", "s", "o", "f", "t", "h", "y", "p", "h", "e", "n"}},
		{"the\u3000alloy", []string{"▁the", "▁", "al", "l", "o", "y"}},
		{"zebra", []string{"▁", unk, "e", "b", "r", "a"}},
		{"日本語", []string{"▁", unk}}, // CJK: not in the vocabulary, one <unk>
		{"a\u200db", []string{"▁", "a", "▁", "b"}},
	} {
		if got, want := tok.encode(tc.text, 512), pieceIDs(tc.pieces...); !slices.Equal(got, want) {
			t.Errorf("encode(%q) = %v, want %v (%v)", tc.text, got, want, tc.pieces)
		}
	}
}

// TestUnigramHuggingFace: cases where Hugging Face tokenizers (which
// embedding models are run with) differs from SentencePiece, worked out
// by hand from its pipeline.
func TestUnigramHuggingFace(t *testing.T) {
	tok := loadUnigramTokenizer(t, nil)
	unk := "<unk>"
	for _, tc := range []struct {
		text   string
		pieces []string
	}{
		{"", nil},
		{" ", []string{"▁"}},
		// Replace " {2,}" → " " squeezes runs; a leading space becomes the ▁
		// that Metaspace would have prepended; a trailing one stays a word.
		{"band   gap", []string{"▁", "b", "a", "nd", "▁", "g", "a", "p"}},
		{" band", []string{"▁", "b", "a", "nd"}},
		{"band ", []string{"▁", "b", "a", "nd", "▁"}},
		// Tabs become spaces in the charsmap, after which Replace squeezes.
		{"band\t\t gap", []string{"▁", "b", "a", "nd", "▁", "g", "a", "p"}},
		// Special tokens in the text are matched before normalisation;
		// <mask> has lstrip, so it takes the space before it. Each segment
		// gets its own ▁ (prepend_scheme always) unless it begins with a
		// space already.
		{"the <mask> gap", []string{"▁the", "<mask>", "▁", "g", "a", "p"}},
		{"the <mask>gap", []string{"▁the", "<mask>", "▁", "g", "a", "p"}},
		{"the</s>cafe", []string{"▁the", "</s>", "▁caf", "e"}},
		{"<s>", []string{"<s>"}},
		{"<s><mask></s>", []string{"<s>", "<mask>", "</s>"}},
		{"the <mask> <mask>cafe <s", []string{"▁the", "<mask>", "<mask>", "▁caf", "e", "▁", unk, "s"}},
		// The ligature of an accent on a fullwidth letter: HF's grapheme
		// rule drops the accent (see TestPrecompiledCharsmap).
		{"ｃ\u0301", []string{"▁c"}},
	} {
		if got, want := tok.encode(tc.text, 512), pieceIDs(tc.pieces...); !slices.Equal(got, want) {
			t.Errorf("encode(%q) = %v, want %v (%v)", tc.text, got, want, tc.pieces)
		}
	}

	// Without the Replace normalizer a run of spaces is a run of ▁ words.
	noReplace := loadUnigramTokenizer(t, func(tj map[string]any) {
		n := tj["normalizer"].(map[string]any)
		n["normalizers"] = n["normalizers"].([]any)[:1]
	})
	if got, want := noReplace.encode("band  gap", 512), pieceIDs("▁", "b", "a", "nd", "▁", "▁", "g", "a", "p"); !slices.Equal(got, want) {
		t.Errorf("without Replace: %v, want %v", got, want)
	}

	// Truncation keeps <s> and </s> and cuts the text's end.
	if got, want := tok.encode("the the the the the", 4), pieceIDs("▁the", "▁the"); !slices.Equal(got, want) {
		t.Errorf("truncated to 4: %v, want %v", got, want)
	}
	// A file's truncation.max_length lowers the limit too.
	short := loadUnigramTokenizer(t, func(tj map[string]any) { tj["truncation"] = map[string]any{"max_length": 3} })
	if got, want := short.encode("the the", 512), pieceIDs("▁the"); !slices.Equal(got, want) {
		t.Errorf("max_length 3: %v, want %v", got, want)
	}
	if tok.padID() != embedtest.PieceID("<pad>") {
		t.Errorf("pad id %d, want <pad>'s", tok.padID())
	}
}

// TestUnigramVariants: the other spellings of the same pipeline that
// tokenizer.json files carry.
func TestUnigramVariants(t *testing.T) {
	want := pieceIDs("▁the", "▁caf", "e")
	for name, edit := range map[string]func(map[string]any){
		"RobertaProcessing": func(tj map[string]any) {
			tj["post_processor"] = map[string]any{"type": "RobertaProcessing", "sep": []any{"</s>", 2},
				"cls": []any{"<s>", 0}, "trim_offsets": true, "add_prefix_space": true}
		},
		"legacy Metaspace": func(tj map[string]any) {
			tj["pre_tokenizer"] = map[string]any{"type": "Metaspace", "replacement": "▁", "add_prefix_space": true}
		},
		"Precompiled alone": func(tj map[string]any) {
			tj["normalizer"] = map[string]any{"type": "Precompiled", "precompiled_charsmap": embedtest.Charsmap}
		},
		"Sequence post-processor": func(tj map[string]any) {
			tj["post_processor"] = map[string]any{"type": "Sequence", "processors": []any{
				map[string]any{"type": "ByteLevel"}, tj["post_processor"]}}
		},
	} {
		if got := loadUnigramTokenizer(t, edit).encode("the cafe", 512); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	// prepend_scheme never: no ▁ before the first word.
	never := loadUnigramTokenizer(t, func(tj map[string]any) {
		tj["pre_tokenizer"].(map[string]any)["prepend_scheme"] = "never"
	})
	if got, want := never.encode("the cafe", 512), pieceIDs("t", "h", "e", "▁caf", "e"); !slices.Equal(got, want) {
		t.Errorf("prepend never: %v, want %v", got, want)
	}
	// What the package does not implement is refused, not guessed.
	for name, edit := range map[string]func(map[string]any){
		"BPE model":           func(tj map[string]any) { tj["model"].(map[string]any)["type"] = "BPE" },
		"no unk_id":           func(tj map[string]any) { delete(tj["model"].(map[string]any), "unk_id") },
		"unk_id out of range": func(tj map[string]any) { tj["model"].(map[string]any)["unk_id"] = 999 },
		"normalizer":          func(tj map[string]any) { tj["normalizer"] = map[string]any{"type": "BertNormalizer"} },
		"pre-tokenizer":       func(tj map[string]any) { tj["pre_tokenizer"] = map[string]any{"type": "ByteLevel"} },
		"post-processor":      func(tj map[string]any) { tj["post_processor"] = map[string]any{"type": "Whatever"} },
		"broken charsmap": func(tj map[string]any) {
			tj["normalizer"] = map[string]any{"type": "Precompiled", "precompiled_charsmap": "AAAA"}
		},
	} {
		tj := embedtest.UnigramTokenizer()
		edit(tj)
		b, _ := json.Marshal(tj)
		path := filepath.Join(t.TempDir(), "tokenizer.json")
		if err := writeFile(path, b); err != nil {
			t.Fatal(err)
		}
		if _, err := loadTokenizer(path); err == nil {
			t.Errorf("%s: loaded", name)
		} else if name != "broken charsmap" && !errors.Is(err, ErrUnsupportedTokenizer) {
			t.Errorf("%s: %v, want ErrUnsupportedTokenizer", name, err)
		}
	}
}

// TestUnigramViterbi: the example of Hugging Face's Unigram
// documentation ("abcdacdxx" → abcd a cd xx, the unknown x's fused), and
// byte fallback.
func TestUnigramViterbi(t *testing.T) {
	pieces := []unigramPiece{{"<unk>", 0}, {"a", 0}, {"b", 0}, {"c", 0}, {"d", 0}, {"cd", 1}, {"ab", 2}, {"abc", 5}, {"abcd", 10}}
	u, err := newUnigram(pieces, 0, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.tokenize(nil, "abcdacdxx", nil), []int64{8, 1, 5, 0}; !slices.Equal(got, want) {
		t.Errorf("abcdacdxx: %v, want %v", got, want)
	}
	// Byte fallback: unknown text becomes its UTF-8 bytes when all of them
	// are pieces, else <unk>. 日 is E6 97 A5; 本 is E6 9C AC (no <0x9C>).
	fb := append(slices.Clone(pieces), unigramPiece{"<0xE6>", 0}, unigramPiece{"<0x97>", 0}, unigramPiece{"<0xA5>", 0}, unigramPiece{"<0xAC>", 0})
	u, err = newUnigram(fb, 0, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		word string
		want []int64
	}{
		{"a日b", []int64{1, 9, 10, 11, 2}},
		{"a本b", []int64{1, 0, 2}},
		{"日日", []int64{9, 10, 11, 9, 10, 11}}, // fused, then byte by byte
		{"", nil},
	} {
		if got := u.tokenize(nil, tc.word, nil); !slices.Equal(got, tc.want) {
			t.Errorf("byte fallback %q: %v, want %v", tc.word, got, tc.want)
		}
	}
}

// FuzzUnigram: any text gives <s> … </s>, ids in the vocabulary, at
// most the limit, and no panic.
func FuzzUnigram(f *testing.F) {
	tok := loadUnigramTokenizer(f, nil)
	for _, s := range []string{"the cafe is high", "ＴＨＥ ｃａｆｅ\u0301", "日本語 <mask> </s>", "  \t\n", "\xff\xfe", "e\u0301\u0301\u0301\u0301", "a\u200d\u200d"} {
		f.Add(s, 16)
	}
	n := int64(len(embedtest.UnigramVocab()))
	f.Fuzz(func(t *testing.T, text string, limit int) {
		limit = 2 + int(uint(limit)%600)
		ids := tok.encode(text, limit)
		if len(ids) < 2 || len(ids) > limit || ids[0] != 0 || ids[len(ids)-1] != 2 {
			t.Fatalf("encode(%q, %d) = %v", text, limit, ids)
		}
		for _, id := range ids {
			if id < 0 || id >= n {
				t.Fatalf("encode(%q): id %d out of range", text, id)
			}
		}
		if strings.TrimSpace(text) != "" && len(ids) == 2 && limit > 2 && tok.normalize(text) != "" {
			t.Fatalf("encode(%q): no tokens", text)
		}
	})
}

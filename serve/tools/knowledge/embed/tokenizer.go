package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// ErrUnsupportedTokenizer means tokenizer.json describes a tokenizer
// this package does not implement: models other than WordPiece (BERT,
// bge-small) and Unigram (SentencePiece, XLM-R, bge-m3), or a normalizer,
// pre-tokenizer or post-processor outside what those use.
var ErrUnsupportedTokenizer = errors.New("embed: unsupported tokenizer")

// encoder turns a text into a model's input ids.
type encoder interface {
	// encode returns the ids of text with the model's special tokens
	// around them, at most maxTokens in all (the text's end is cut).
	encode(text string, maxTokens int) []int64
	// padID is the id that pads a batch's shorter texts.
	padID() int64
}

// loadTokenizer reads a Hugging Face tokenizer.json and returns the
// tokenizer its model type names.
func loadTokenizer(path string) (encoder, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var head struct {
		Model struct {
			Type string `json:"type"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("embed: %s: %w", path, err)
	}
	var enc encoder
	switch head.Model.Type {
	case "WordPiece":
		enc, err = loadWordPiece(b)
	case "Unigram":
		enc, err = loadUnigram(b)
	default:
		err = fmt.Errorf("%w: model type %q", ErrUnsupportedTokenizer, head.Model.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("embed: %s: %w", path, err)
	}
	return enc, nil
}

// tokenizer is a WordPiece tokenizer read from a Hugging Face
// tokenizer.json: BertNormalizer, BertPreTokenizer, WordPiece and the
// [CLS] … [SEP] template.
type tokenizer struct {
	vocab         map[string]int64
	unk           int64
	cls, sep, pad int64
	prefix        string
	maxWordChars  int
	lowercase     bool
	stripAccents  bool
	cleanText     bool
	chineseChars  bool
}

type tokenizerFile struct {
	Normalizer *struct {
		Type               string `json:"type"`
		CleanText          *bool  `json:"clean_text"`
		HandleChineseChars *bool  `json:"handle_chinese_chars"`
		StripAccents       *bool  `json:"strip_accents"`
		Lowercase          *bool  `json:"lowercase"`
	} `json:"normalizer"`
	PostProcessor *struct {
		SpecialTokens map[string]struct {
			IDs []int64 `json:"ids"`
		} `json:"special_tokens"`
	} `json:"post_processor"`
	Model struct {
		Type                    string           `json:"type"`
		UnkToken                string           `json:"unk_token"`
		ContinuingSubwordPrefix string           `json:"continuing_subword_prefix"`
		MaxInputCharsPerWord    int              `json:"max_input_chars_per_word"`
		Vocab                   map[string]int64 `json:"vocab"`
	} `json:"model"`
}

func loadWordPiece(b []byte) (*tokenizer, error) {
	var f tokenizerFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	var err error
	t := &tokenizer{vocab: f.Model.Vocab, prefix: f.Model.ContinuingSubwordPrefix, maxWordChars: f.Model.MaxInputCharsPerWord,
		lowercase: true, cleanText: true, chineseChars: true}
	if t.prefix == "" {
		t.prefix = "##"
	}
	if t.maxWordChars <= 0 {
		t.maxWordChars = 100
	}
	if n := f.Normalizer; n != nil && n.Type == "BertNormalizer" {
		if n.Lowercase != nil {
			t.lowercase = *n.Lowercase
		}
		if n.CleanText != nil {
			t.cleanText = *n.CleanText
		}
		if n.HandleChineseChars != nil {
			t.chineseChars = *n.HandleChineseChars
		}
		// strip_accents null follows lowercase, as in BERT.
		t.stripAccents = t.lowercase
		if n.StripAccents != nil {
			t.stripAccents = *n.StripAccents
		}
	}
	id := func(tok string, field string) (int64, error) {
		if p := f.PostProcessor; p != nil {
			if st, ok := p.SpecialTokens[tok]; ok && len(st.IDs) == 1 {
				return st.IDs[0], nil
			}
		}
		if v, ok := t.vocab[tok]; ok {
			return v, nil
		}
		return 0, fmt.Errorf("no %s token %q", field, tok)
	}
	if t.unk, err = id(firstNonEmpty(f.Model.UnkToken, "[UNK]"), "unknown"); err != nil {
		return nil, err
	}
	if t.cls, err = id("[CLS]", "CLS"); err != nil {
		return nil, err
	}
	if t.sep, err = id("[SEP]", "SEP"); err != nil {
		return nil, err
	}
	t.pad, _ = id("[PAD]", "PAD") // absent: 0
	return t, nil
}

func (t *tokenizer) padID() int64 { return t.pad }

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// encode returns [CLS] tokens [SEP], truncated to maxTokens.
func (t *tokenizer) encode(text string, maxTokens int) []int64 {
	ids := []int64{t.cls}
	for _, w := range t.preTokenize(t.normalise(text)) {
		ids = t.wordPiece(ids, w)
		if len(ids) >= maxTokens-1 {
			ids = ids[:maxTokens-1]
			break
		}
	}
	return append(ids, t.sep)
}

func (t *tokenizer) normalise(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case t.cleanText && (r == 0 || r == 0xfffd || unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r'):
			continue
		case t.cleanText && unicode.IsSpace(r):
			b.WriteByte(' ')
		case t.chineseChars && isCJK(r):
			b.WriteByte(' ')
			b.WriteRune(r)
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	out := b.String()
	if t.stripAccents {
		out = stripAccents(out)
	}
	if t.lowercase {
		out = strings.ToLower(out)
	}
	return out
}

func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func isCJK(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r >= 0x20000 && r <= 0x2A6DF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0x2F800 && r <= 0x2FA1F
}

// isPunct is BERT's punctuation: ASCII symbols and Unicode P*.
func isPunct(r rune) bool {
	if r >= 33 && r <= 47 || r >= 58 && r <= 64 || r >= 91 && r <= 96 || r >= 123 && r <= 126 {
		return true
	}
	return unicode.IsPunct(r)
}

// preTokenize splits on whitespace and makes every punctuation character
// a word of its own.
func (t *tokenizer) preTokenize(s string) []string {
	var out []string
	for _, f := range strings.Fields(s) {
		start := 0
		for i, r := range f {
			if isPunct(r) {
				if i > start {
					out = append(out, f[start:i])
				}
				out = append(out, string(r))
				start = i + len(string(r))
			}
		}
		if start < len(f) {
			out = append(out, f[start:])
		}
	}
	return out
}

// wordPiece appends the greedy longest-match pieces of w, or [UNK].
func (t *tokenizer) wordPiece(ids []int64, w string) []int64 {
	rs := []rune(w)
	if len(rs) > t.maxWordChars {
		return append(ids, t.unk)
	}
	n := len(ids)
	for start := 0; start < len(rs); {
		end := len(rs)
		found := int64(-1)
		for end > start {
			sub := string(rs[start:end])
			if start > 0 {
				sub = t.prefix + sub
			}
			if id, ok := t.vocab[sub]; ok {
				found = id
				break
			}
			end--
		}
		if found < 0 {
			return append(ids[:n], t.unk)
		}
		ids = append(ids, found)
		start = end
	}
	return ids
}

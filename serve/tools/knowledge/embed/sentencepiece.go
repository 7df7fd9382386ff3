package embed

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// spTokenizer is a SentencePiece Unigram tokenizer read from a Hugging
// Face tokenizer.json, as XLM-RoBERTa and bge-m3 use: special added
// tokens split out of the raw text, the normalizers (Precompiled charsmap,
// Replace, ...), the Metaspace pre-tokenizer, the Unigram model and the
// <s> $A </s> template.
type spTokenizer struct {
	added     []addedToken // special tokens matched in the raw text, longest first
	normalize func(string) string
	split     func(s string, first bool) []string
	model     *unigram
	prefix    []int64 // ids before the text (<s>)
	suffix    []int64 // ids after it (</s>)
	pad       int64
	maxLen    int // truncation.max_length of the file, 0 if none
}

type addedToken struct {
	ID      int64  `json:"id"`
	Content string `json:"content"`
	Special bool   `json:"special"`
	LStrip  bool   `json:"lstrip"`
	RStrip  bool   `json:"rstrip"`
}

type spFile struct {
	AddedTokens   []addedToken    `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Truncation    *struct {
		MaxLength int `json:"max_length"`
	} `json:"truncation"`
	Padding *struct {
		PadID *int64 `json:"pad_id"`
	} `json:"padding"`
	Model struct {
		UnkID        *int           `json:"unk_id"`
		ByteFallback bool           `json:"byte_fallback"`
		Vocab        []unigramPiece `json:"vocab"`
	} `json:"model"`
}

func loadUnigram(b []byte) (*spTokenizer, error) {
	var f spFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	if f.Model.UnkID == nil {
		// HF fails on the first unknown character without one.
		return nil, fmt.Errorf("%w: Unigram model without unk_id", ErrUnsupportedTokenizer)
	}
	m, err := newUnigram(f.Model.Vocab, *f.Model.UnkID, f.Model.ByteFallback)
	if err != nil {
		return nil, err
	}
	t := &spTokenizer{model: m}
	if t.normalize, err = parseNormalizer(f.Normalizer); err != nil {
		return nil, err
	}
	if t.split, err = parsePreTokenizer(f.PreTokenizer); err != nil {
		return nil, err
	}
	if t.prefix, t.suffix, err = parsePostProcessor(f.PostProcessor); err != nil {
		return nil, err
	}
	for _, a := range f.AddedTokens {
		// Non-special added tokens would also be matched by HF; XLM-R
		// and bge-m3 have none.
		if a.Special && a.Content != "" {
			t.added = append(t.added, a)
		}
	}
	// Longest first, so that a token that begins another never hides it.
	slices.SortStableFunc(t.added, func(a, b addedToken) int { return len(b.Content) - len(a.Content) })
	if f.Truncation != nil {
		t.maxLen = f.Truncation.MaxLength
	}
	switch id, ok := m.ids["<pad>"]; {
	case f.Padding != nil && f.Padding.PadID != nil:
		t.pad = *f.Padding.PadID
	case ok:
		t.pad = int64(id) // XLM-R: 1, which its position ids rely on
	}
	return t, nil
}

func (t *spTokenizer) padID() int64 { return t.pad }

// encode returns prefix, the text's pieces, suffix; the pieces are cut so
// that the whole is at most maxTokens (and the file's max_length) long.
func (t *spTokenizer) encode(text string, maxTokens int) []int64 {
	if t.maxLen > 0 && t.maxLen < maxTokens {
		maxTokens = t.maxLen
	}
	limit := max(len(t.prefix), maxTokens-len(t.suffix))
	ids := append(make([]int64, 0, min(limit, len(text)+2)+len(t.suffix)), t.prefix...)
	first, buf := true, []bestEnd(nil)
	t.eachSegment(text, func(seg string, special int64) bool {
		defer func() { first = false }()
		if special >= 0 {
			ids = append(ids, special)
			return len(ids) < limit
		}
		for _, w := range t.split(t.normalize(seg), first) {
			if ids = t.model.tokenize(ids, w, &buf); len(ids) >= limit {
				return false
			}
		}
		return true
	})
	return append(ids[:min(len(ids), limit)], t.suffix...)
}

// eachSegment calls fn with the text between special tokens (special
// -1) and with each special token's id, until fn returns false. As in HF,
// a token with lstrip or rstrip also takes the whitespace beside it.
func (t *spTokenizer) eachSegment(text string, fn func(seg string, special int64) bool) {
	// next[k] is where added token k next occurs in text[pos:]'s frame
	// (absolute), -1 when it does not: each token's search moves forward
	// only, so many special tokens in a text cost one pass per token.
	next := make([]int, len(t.added))
	for k, a := range t.added {
		next[k] = strings.Index(text, a.Content)
	}
	for pos := 0; pos < len(text); {
		at, k := -1, -1
		for j, a := range t.added {
			if next[j] >= 0 && next[j] < pos { // overlapped by an earlier match
				if i := strings.Index(text[pos:], a.Content); i >= 0 {
					next[j] = pos + i
				} else {
					next[j] = -1
				}
			}
			if next[j] >= 0 && (at < 0 || next[j] < at) {
				at, k = next[j], j
			}
		}
		if at < 0 {
			fn(text[pos:], -1)
			return
		}
		tok := t.added[k]
		before, after := text[pos:at], at+len(tok.Content)
		if tok.LStrip {
			before = strings.TrimRightFunc(before, unicode.IsSpace)
		}
		if tok.RStrip {
			after = len(text) - len(strings.TrimLeftFunc(text[after:], unicode.IsSpace))
		}
		if before != "" && !fn(before, -1) || !fn("", tok.ID) {
			return
		}
		pos = after
	}
}

// normalizerSpec is one entry of tokenizer.json's normalizer.
type normalizerSpec struct {
	Type                string            `json:"type"`
	Normalizers         []json.RawMessage `json:"normalizers"`
	PrecompiledCharsmap *string           `json:"precompiled_charsmap"`
	Pattern             struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content    string `json:"content"`
	StripLeft  bool   `json:"strip_left"`
	StripRight bool   `json:"strip_right"`
	Prepend    string `json:"prepend"`
}

func identity(s string) string { return s }

func parseNormalizer(raw json.RawMessage) (func(string) string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return identity, nil
	}
	var n normalizerSpec
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	switch n.Type {
	case "Sequence":
		var steps []func(string) string
		for _, r := range n.Normalizers {
			f, err := parseNormalizer(r)
			if err != nil {
				return nil, err
			}
			steps = append(steps, f)
		}
		return func(s string) string {
			for _, f := range steps {
				s = f(s)
			}
			return s
		}, nil
	case "Precompiled":
		if n.PrecompiledCharsmap == nil || *n.PrecompiledCharsmap == "" {
			return identity, nil
		}
		p, err := parsePrecompiled(*n.PrecompiledCharsmap)
		if err != nil {
			return nil, err
		}
		return p.normalize, nil
	case "Replace":
		return replaceNormalizer(n)
	case "NFC":
		return norm.NFC.String, nil
	case "NFD":
		return norm.NFD.String, nil
	case "NFKC":
		return norm.NFKC.String, nil
	case "NFKD":
		return norm.NFKD.String, nil
	case "Lowercase":
		return strings.ToLower, nil
	case "Strip":
		return func(s string) string {
			if n.StripLeft {
				s = strings.TrimLeftFunc(s, unicode.IsSpace)
			}
			if n.StripRight {
				s = strings.TrimRightFunc(s, unicode.IsSpace)
			}
			return s
		}, nil
	case "Prepend":
		return func(s string) string {
			if s == "" {
				return s
			}
			return n.Prepend + s
		}, nil
	}
	return nil, fmt.Errorf("%w: normalizer %q", ErrUnsupportedTokenizer, n.Type)
}

func replaceNormalizer(n normalizerSpec) (func(string) string, error) {
	switch {
	case n.Pattern.String != nil:
		old := *n.Pattern.String
		if old == "" {
			return identity, nil
		}
		return func(s string) string { return strings.ReplaceAll(s, old, n.Content) }, nil
	case n.Pattern.Regex != nil:
		re, err := regexp.Compile(*n.Pattern.Regex)
		if err != nil {
			return nil, fmt.Errorf("%w: Replace pattern %q: %v", ErrUnsupportedTokenizer, *n.Pattern.Regex, err)
		}
		return func(s string) string { return re.ReplaceAllLiteralString(s, n.Content) }, nil
	}
	return nil, fmt.Errorf("%w: Replace without a pattern", ErrUnsupportedTokenizer)
}

type preTokenizerSpec struct {
	Type           string            `json:"type"`
	PreTokenizers  []json.RawMessage `json:"pretokenizers"`
	Replacement    string            `json:"replacement"`
	AddPrefixSpace *bool             `json:"add_prefix_space"`
	PrependScheme  string            `json:"prepend_scheme"`
	Split          *bool             `json:"split"`
}

// parsePreTokenizer returns the function that splits normalised text
// into words. Only Metaspace (and WhitespaceSplit before it in a
// Sequence) is implemented: that is what SentencePiece conversions use.
func parsePreTokenizer(raw json.RawMessage) (func(string, bool) []string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return func(s string, _ bool) []string { return []string{s} }, nil
	}
	var p preTokenizerSpec
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, err
	}
	switch p.Type {
	case "Metaspace":
		m := metaspace{replacement: "▁", prepend: p.PrependScheme, split: p.Split == nil || *p.Split}
		if p.Replacement != "" {
			m.replacement = p.Replacement
		}
		if m.prepend == "" { // files older than prepend_scheme
			m.prepend = "always"
			if p.AddPrefixSpace != nil && !*p.AddPrefixSpace {
				m.prepend = "never"
			}
		}
		if m.prepend != "always" && m.prepend != "first" && m.prepend != "never" {
			return nil, fmt.Errorf("%w: Metaspace prepend_scheme %q", ErrUnsupportedTokenizer, m.prepend)
		}
		return m.apply, nil
	case "WhitespaceSplit":
		return func(s string, _ bool) []string { return strings.Fields(s) }, nil
	case "Sequence":
		var steps []func(string, bool) []string
		for _, r := range p.PreTokenizers {
			f, err := parsePreTokenizer(r)
			if err != nil {
				return nil, err
			}
			steps = append(steps, f)
		}
		return func(s string, first bool) []string {
			words := []string{s}
			for _, f := range steps {
				var next []string
				for i, w := range words {
					next = append(next, f(w, first && i == 0)...)
				}
				words = next
			}
			return words
		}, nil
	}
	return nil, fmt.Errorf("%w: pre-tokenizer %q", ErrUnsupportedTokenizer, p.Type)
}

// metaspace replaces spaces with the replacement (▁), prepends one
// (always, or only to the text's first segment with "first") and splits
// before every replacement but a leading one.
type metaspace struct {
	replacement string
	prepend     string
	split       bool
}

func (m metaspace) apply(s string, first bool) []string {
	if s == "" {
		return nil
	}
	s = strings.ReplaceAll(s, " ", m.replacement)
	if (m.prepend == "always" || m.prepend == "first" && first) && !strings.HasPrefix(s, m.replacement) {
		s = m.replacement + s
	}
	if !m.split {
		return []string{s}
	}
	var words []string
	for {
		// s[1:]: a replacement at 0 begins this word. The replacement's
		// first byte is never a UTF-8 continuation byte, so a match is at
		// a character boundary.
		i := strings.Index(s[1:], m.replacement)
		if i < 0 {
			return append(words, s)
		}
		words = append(words, s[:i+1])
		s = s[i+1:]
	}
}

// parsePostProcessor returns the ids around a single sequence: <s> and
// </s> for RobertaProcessing and XLM-R's TemplateProcessing.
func parsePostProcessor(raw json.RawMessage) (prefix, suffix []int64, err error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, nil
	}
	var p struct {
		Type          string            `json:"type"`
		Processors    []json.RawMessage `json:"processors"`
		Cls           []json.RawMessage `json:"cls"`
		Sep           []json.RawMessage `json:"sep"`
		Single        []json.RawMessage `json:"single"`
		SpecialTokens map[string]struct {
			IDs []int64 `json:"ids"`
		} `json:"special_tokens"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, nil, err
	}
	switch p.Type {
	case "RobertaProcessing", "BertProcessing":
		var cls, sep int64
		if len(p.Cls) != 2 || len(p.Sep) != 2 || json.Unmarshal(p.Cls[1], &cls) != nil || json.Unmarshal(p.Sep[1], &sep) != nil {
			return nil, nil, fmt.Errorf("%w: %s without [token, id] cls and sep", ErrUnsupportedTokenizer, p.Type)
		}
		return []int64{cls}, []int64{sep}, nil
	case "TemplateProcessing":
		seen := false
		for _, item := range p.Single {
			var it struct {
				SpecialToken *struct {
					ID string `json:"id"`
				} `json:"SpecialToken"`
				Sequence *struct {
					ID string `json:"id"`
				} `json:"Sequence"`
			}
			if err := json.Unmarshal(item, &it); err != nil {
				return nil, nil, err
			}
			switch {
			case it.Sequence != nil:
				seen = true
			case it.SpecialToken != nil:
				st, ok := p.SpecialTokens[it.SpecialToken.ID]
				if !ok {
					return nil, nil, fmt.Errorf("%w: template token %q has no ids", ErrUnsupportedTokenizer, it.SpecialToken.ID)
				}
				if seen {
					suffix = append(suffix, st.IDs...)
				} else {
					prefix = append(prefix, st.IDs...)
				}
			}
		}
		return prefix, suffix, nil
	case "ByteLevel":
		return nil, nil, nil // offsets only
	case "Sequence":
		for _, r := range p.Processors {
			pre, suf, err := parsePostProcessor(r)
			if err != nil {
				return nil, nil, err
			}
			prefix, suffix = append(prefix, pre...), append(suf, suffix...)
		}
		return prefix, suffix, nil
	}
	return nil, nil, fmt.Errorf("%w: post-processor %q", ErrUnsupportedTokenizer, p.Type)
}

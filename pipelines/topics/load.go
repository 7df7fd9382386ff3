package topics

import (
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Kind is the document field a rule looks at.
type Kind string

const (
	Subject Kind = "subject"
	Keyword Kind = "keyword"
	Venue   Kind = "venue"
	Any     Kind = "any"
)

// stemLen is the shortest stem of a prefix pattern word ("neu*" at least),
// which is also the length of the byStem index key.
const stemLen = 3

var slugRE = regexp.MustCompile(`^[a-z0-9-]{1,64}$`)

type patWord struct {
	s      string
	prefix bool
}

func (p patWord) matches(w string) bool {
	if p.prefix {
		return strings.HasPrefix(w, p.s)
	}
	return w == p.s
}

type rule struct {
	slug  string
	kind  Kind
	exact bool
	weak  bool
	words []patWord
}

// matches reports whether the rule matches words starting at position i
// (an exact rule only at 0, covering all words).
func (r *rule) matches(words []string, i int) bool {
	if r.exact && (i != 0 || len(words) != len(r.words)) {
		return false
	}
	if i+len(r.words) > len(words) {
		return false
	}
	for j, p := range r.words {
		if !p.matches(words[i+j]) {
			return false
		}
	}
	return true
}

// Load reads and validates a taxonomy (columns slug, name, parent,
// description) and its rules (columns slug, kind, match, pattern,
// strength). Errors wrap ErrInvalid and name the table and line.
func Load(topicsCSV, rulesCSV io.Reader) (*Taxonomy, error) {
	t := &Taxonomy{index: map[string]int{}, byWord: map[string][]int{}, byStem: map[string][]int{}}
	// The fingerprint is of the bytes read: the tables as given.
	h := sha256.New()
	topicsCSV, rulesCSV = io.TeeReader(topicsCSV, h), io.TeeReader(rulesCSV, h)
	defer func() { t.fingerprint = hex.EncodeToString(h.Sum(nil))[:16] }()
	if err := readTable(topicsCSV, "topics.csv", []string{"slug", "name", "parent", "description"}, func(line int, f []string) error {
		tp := Topic{Slug: f[0], Name: f[1], Parent: f[2], Description: f[3]}
		if !slugRE.MatchString(tp.Slug) {
			return fmt.Errorf("slug %q does not match %s", tp.Slug, slugRE)
		}
		if _, dup := t.index[tp.Slug]; dup {
			return fmt.Errorf("slug %q defined twice", tp.Slug)
		}
		if tp.Name == "" {
			return fmt.Errorf("topic %q has no name", tp.Slug)
		}
		t.index[tp.Slug] = len(t.topics)
		t.topics = append(t.topics, tp)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(t.topics) == 0 {
		return nil, fmt.Errorf("%w: topics.csv: no topics", ErrInvalid)
	}
	for _, tp := range t.topics {
		if tp.Parent == "" {
			continue
		}
		if _, ok := t.index[tp.Parent]; !ok {
			return nil, fmt.Errorf("%w: topics.csv: %q has unknown parent %q", ErrInvalid, tp.Slug, tp.Parent)
		}
		// Walk up; more steps than topics means a cycle.
		p := tp.Parent
		for n := 0; p != ""; n++ {
			if n > len(t.topics) || p == tp.Slug {
				return nil, fmt.Errorf("%w: topics.csv: parent cycle through %q", ErrInvalid, tp.Slug)
			}
			p = t.topics[t.index[p]].Parent
		}
	}
	if _, ok := t.index[Fallback]; !ok {
		return nil, fmt.Errorf("%w: topics.csv: the fallback topic %q is missing", ErrInvalid, Fallback)
	}

	seen := map[string]int{}
	if err := readTable(rulesCSV, "topic_rules.csv", []string{"slug", "kind", "match", "pattern", "strength"}, func(line int, f []string) error {
		r := rule{slug: f[0], kind: Kind(f[1])}
		if _, ok := t.index[r.slug]; !ok {
			return fmt.Errorf("unknown topic %q", r.slug)
		}
		switch r.kind {
		case Subject, Keyword, Venue, Any:
		default:
			return fmt.Errorf("kind %q is not subject, keyword, venue or any", f[1])
		}
		switch f[2] {
		case "exact":
			r.exact = true
		case "phrase":
		default:
			return fmt.Errorf("match %q is not exact or phrase", f[2])
		}
		switch f[4] {
		case "", "strong":
		case "weak":
			r.weak = true
		default:
			return fmt.Errorf("strength %q is not weak, strong or empty", f[4])
		}
		words, err := parsePattern(f[3])
		if err != nil {
			return err
		}
		r.words = words
		key := fmt.Sprint(r.slug, r.kind, r.exact, r.words)
		if prev, dup := seen[key]; dup {
			return fmt.Errorf("same rule as line %d", prev)
		}
		seen[key] = line
		i := len(t.rules)
		t.rules = append(t.rules, r)
		if first := words[0]; first.prefix {
			t.byStem[first.s[:stemLen]] = append(t.byStem[first.s[:stemLen]], i)
		} else {
			t.byWord[first.s] = append(t.byWord[first.s], i)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return t, nil
}

// parsePattern splits a pattern into normalised words; a trailing "*" on a
// word makes it a prefix.
func parsePattern(p string) ([]patWord, error) {
	var out []patWord
	for _, tok := range strings.Fields(p) {
		stem, prefix := strings.CutSuffix(tok, "*")
		if strings.Contains(stem, "*") {
			return nil, fmt.Errorf("pattern %q: '*' only at the end of a word", p)
		}
		ws := normalise(stem)
		if len(ws) == 0 {
			return nil, fmt.Errorf("pattern %q: word %q has no letters or digits", p, tok)
		}
		for i, w := range ws {
			pw := patWord{s: w}
			if prefix && i == len(ws)-1 {
				if len(w) < stemLen {
					return nil, fmt.Errorf("pattern %q: prefix %q is shorter than %d characters", p, w, stemLen)
				}
				pw.prefix = true
			}
			out = append(out, pw)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("empty pattern")
	}
	return out, nil
}

// readTable reads a CSV table with the given header, calling row for each
// record with its line number. Lines starting with '#' are comments.
func readTable(r io.Reader, name string, header []string, row func(line int, fields []string) error) error {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = 0 // the header sets the count; it is checked below
	cr.TrimLeadingSpace = true
	first := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			if first {
				return fmt.Errorf("%w: %s: empty", ErrInvalid, name)
			}
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return fmt.Errorf("%w: %s: line %d: %v", ErrInvalid, name, pe.Line, pe.Err)
			}
			return fmt.Errorf("%w: %s: %v", ErrInvalid, name, err)
		}
		line, _ := cr.FieldPos(0)
		for i := range rec {
			rec[i] = strings.TrimSpace(rec[i])
		}
		if first {
			first = false
			if !slices.Equal(rec, header) {
				return fmt.Errorf("%w: %s: header is %q, want %q", ErrInvalid, name, rec, header)
			}
			continue
		}
		if err := row(line, rec); err != nil {
			return fmt.Errorf("%w: %s: line %d: %v", ErrInvalid, name, line, err)
		}
	}
}

// normalise folds case and accents and splits on anything that is not a
// letter or digit: "Saúde Pública (SP)" -> [saude publica sp].
func normalise(s string) []string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
			// combining accent: dropped
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteByte(' ')
		}
	}
	return strings.Fields(b.String())
}

package corpus

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/ingest/detect"
)

// ErrNoVocabulary means the inputs held too few records to generate from.
var ErrNoVocabulary = errors.New("corpus: not enough real records to build a vocabulary")

// Vocabulary is what generated documents are made of. Every list is in rank
// order: most frequent in the source records first, synthetic tail entries
// last.
type Vocabulary struct {
	Words        []string // title and abstract words, lower case
	Keywords     []string // keyword phrases as written
	Given        []string // given names
	Family       []string // family names
	Venues       []string
	Publishers   []string
	Affiliations []string
	// Records is how many real records the vocabulary was read from; Real*
	// are the list lengths before the synthetic tail was added.
	Records                             int
	RealWords, RealFamily, RealKeywords int
}

// VocabularyConfig sizes the synthetic tails.
type VocabularyConfig struct {
	// Words is the size of the word list after extension; 0 means 300 000.
	Words int
	// Family is the size of the family-name list; 0 means 200 000.
	Family int
	// Given is the size of the given-name list; 0 means 20 000.
	Given int
	// Keywords is the size of the keyword-phrase list; 0 means 50 000.
	Keywords int
}

func (c *VocabularyConfig) defaults() {
	if c.Words <= 0 {
		c.Words = 300_000
	}
	if c.Family <= 0 {
		c.Family = 200_000
	}
	if c.Given <= 0 {
		c.Given = 20_000
	}
	if c.Keywords <= 0 {
		c.Keywords = 50_000
	}
}

// ReadVocabulary reads every data file under paths with the ingest readers
// (format detected per file; files that are not data are skipped) and builds
// a vocabulary from all the records, rejected licences included: the words
// are real whatever the licence.
func ReadVocabulary(ctx context.Context, cfg VocabularyConfig, paths ...string) (*Vocabulary, error) {
	c := newCounter()
	readers := detect.Default()
	err := detect.Walk(ctx, paths, func(f detect.File) error {
		_, err := readers.ReadFile(ctx, f.Path, c)
		if err != nil && !errors.Is(err, detect.ErrSkipped) && ctx.Err() == nil {
			// A damaged file costs its records, not the vocabulary.
			return nil
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("corpus: read vocabulary: %w", err)
	}
	return c.vocabulary(cfg)
}

// VocabularyFrom builds a vocabulary from documents already in memory.
func VocabularyFrom(cfg VocabularyConfig, docs []*ingest.Document) (*Vocabulary, error) {
	c := newCounter()
	for _, d := range docs {
		c.Document(d)
	}
	return c.vocabulary(cfg)
}

// counter is an ingest.Sink counting what records use.
type counter struct {
	records                                                  int
	words, keywords, given, family, venues, publishers, affs map[string]int
}

func newCounter() *counter {
	m := func() map[string]int { return map[string]int{} }
	return &counter{words: m(), keywords: m(), given: m(), family: m(), venues: m(), publishers: m(), affs: m()}
}

func (c *counter) Document(d *ingest.Document) error {
	c.records++
	for _, text := range []string{d.Title, d.Abstract} {
		for _, w := range strings.FieldsFunc(text, wordBreak) {
			if w = cleanWord(w); w != "" {
				c.words[w]++
			}
		}
	}
	for _, k := range d.Keywords {
		if k = strings.Join(strings.Fields(k), " "); k != "" && utf8.RuneCountInString(k) <= 60 {
			c.keywords[k]++
		}
	}
	for _, a := range d.Authors {
		given, family := a.Given, a.Family
		if family == "" {
			// "Ada Lovelace": the last word is the family name.
			f := strings.Fields(a.Name)
			if len(f) == 0 {
				continue
			}
			family, given = f[len(f)-1], strings.Join(f[:len(f)-1], " ")
		}
		if family = strings.TrimSpace(family); family != "" && isName(family) {
			c.family[family]++
		}
		if given = strings.TrimSpace(given); given != "" && isName(given) {
			c.given[given]++
		}
		for _, af := range a.Affiliations {
			if af = strings.TrimSpace(af); af != "" && len(af) <= 200 {
				c.affs[af]++
			}
		}
	}
	if v := strings.TrimSpace(d.Venue); v != "" {
		c.venues[v]++
	}
	if p := strings.TrimSpace(d.Publisher); p != "" {
		c.publishers[p]++
	}
	return nil
}

func (c *counter) Delete(ingest.Deletion) error { return nil }
func (c *counter) Problem(ingest.Problem)       {}

// wordBreak splits text into words at anything but letters, digits,
// hyphens and apostrophes: "economic/social" and "cells.The" (glued by
// the sources' markup) are two words each. Search engines disagree on such
// tokens (PostgreSQL's parser sees a path or a host name), and the
// benchmarks compare engines, not tokenisers.
func wordBreak(r rune) bool {
	return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.Is(unicode.Mn, r) && r != '-' && r != '\''
}

// cleanWord lower-cases a word and trims the punctuation around it; it
// returns "" for anything without a letter or too long to be a word.
func cleanWord(w string) string {
	w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if w == "" || utf8.RuneCountInString(w) > 30 || strings.IndexFunc(w, unicode.IsLetter) < 0 {
		return ""
	}
	return strings.ToLower(w)
}

func isName(s string) bool {
	return utf8.RuneCountInString(s) <= 40 && strings.IndexFunc(s, unicode.IsLetter) >= 0 &&
		strings.IndexFunc(s, unicode.IsDigit) < 0
}

func (c *counter) vocabulary(cfg VocabularyConfig) (*Vocabulary, error) {
	cfg.defaults()
	v := &Vocabulary{
		Words: ranked(c.words), Keywords: ranked(c.keywords), Given: ranked(c.given), Family: ranked(c.family),
		Venues: ranked(c.venues), Publishers: ranked(c.publishers), Affiliations: ranked(c.affs), Records: c.records,
	}
	if len(v.Words) < 50 || len(v.Family) < 10 || len(v.Given) < 5 {
		return nil, fmt.Errorf("%w: %d records, %d words, %d family names", ErrNoVocabulary, c.records, len(v.Words), len(v.Family))
	}
	v.RealWords, v.RealFamily, v.RealKeywords = len(v.Words), len(v.Family), len(v.Keywords)
	v.Words = extend(v.Words, cfg.Words, splice, true)
	v.Family = extend(v.Family, cfg.Family, spliceName, false)
	v.Given = extend(v.Given, cfg.Given, spliceName, false)
	if len(v.Keywords) == 0 {
		v.Keywords = v.Words[:min(len(v.Words), 100)]
	}
	v.Keywords = extendPhrases(v.Keywords, v.Words, cfg.Keywords)
	if len(v.Venues) == 0 {
		v.Venues = []string{"Journal of Synthetic Results"}
	}
	if len(v.Publishers) == 0 {
		v.Publishers = []string{"Synthetic Press"}
	}
	return v, nil
}

// ranked returns the keys by descending count, ties in byte order.
func ranked(m map[string]int) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}

// extend appends synthetic entries made by join from two real ones until
// the list has n entries. Entries are unique; the result is deterministic.
func extend(real []string, n int, join func(a, b string) string, lettersOnly bool) []string {
	if len(real) >= n {
		return real
	}
	// Splice only alphabetic parts of reasonable length, or the tail is
	// full of "1990s" fragments.
	var parts []string
	for _, w := range real {
		if utf8.RuneCountInString(w) >= 4 && (!lettersOnly || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) < 0) {
			parts = append(parts, w)
		}
	}
	if len(parts) < 2 {
		parts = real
	}
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for _, w := range real {
		seen[w] = true
		out = append(out, w)
	}
	for i := uint64(0); len(out) < n; i++ {
		a, b := parts[mix(i, 1)%uint64(len(parts))], parts[mix(i, 2)%uint64(len(parts))]
		w := join(a, b)
		if seen[w] {
			w += suffix(i)
			if seen[w] {
				continue
			}
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// extendPhrases adds two-word phrases of real words to the keyword list.
func extendPhrases(real, words []string, n int) []string {
	seen := make(map[string]bool, n)
	out := make([]string, 0, n)
	for _, k := range real {
		seen[k] = true
		out = append(out, k)
	}
	m := min(len(words), 20_000)
	for i := uint64(0); len(out) < n && i < uint64(4*n); i++ {
		p := words[mix(i, 3)%uint64(m)] + " " + words[mix(i, 4)%uint64(m)]
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// splice joins the first half of a and the second half of b.
func splice(a, b string) string {
	ra, rb := []rune(a), []rune(b)
	return string(ra[:(len(ra)+1)/2]) + string(rb[len(rb)/2:])
}

// spliceName is splice with the result capitalised like a name.
func spliceName(a, b string) string {
	s := []rune(strings.ToLower(splice(a, b)))
	s[0] = unicode.ToUpper(s[0])
	return string(s)
}

// suffix spells i in base 26 letters.
func suffix(i uint64) string {
	var b []byte
	for {
		b = append(b, byte('a'+i%26))
		i /= 26
		if i == 0 {
			return string(b)
		}
	}
}

// mix hashes (i, salt) into a well-spread integer.
func mix(i, salt uint64) uint64 {
	h := fnv.New64a()
	var b [16]byte
	for k := 0; k < 8; k++ {
		b[k], b[8+k] = byte(i>>(8*k)), byte(salt>>(8*k))
	}
	h.Write(b[:])
	x := h.Sum64()
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	return x
}

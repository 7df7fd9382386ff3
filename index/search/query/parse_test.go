package query

import (
	"errors"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		q, want string
	}{
		// Today's default: every word.
		{"heart failure", "(heart failure)"},
		{"Heart  FAILURE", "(heart failure)"},
		{"Müller", "muller"},
		{"heart heart", "heart"},
		// Stop words drop from bare words, unless nothing else is left.
		{"the heart of darkness", "(heart darkness)"},
		{"The The", `"the"`},
		{"the OR cancer", "cancer"},
		{"the AND cancer", "cancer"},
		// Phrases keep stop words; a word that folds to several tokens is a phrase.
		{`"heart of darkness"`, `"heart of darkness"`},
		{`"Heart"`, "heart"},
		{"SARS-CoV-2 spike", `("sars cov 2" spike)`},
		{"state-of-the-art", `"state of the art"`},
		// Boolean operators and precedence: NOT > AND > OR.
		{"heart OR cardiac", "(heart OR cardiac)"},
		{"a1 b2 OR c3", "((a1 b2) OR c3)"},
		{"a1 OR b2 c3", "(a1 OR (b2 c3))"},
		{"heart AND failure", "(heart failure)"},
		{"heart -mouse", "(heart -mouse)"},
		{"heart NOT mouse", "(heart -mouse)"},
		{"heart AND NOT mouse", "(heart -mouse)"},
		{"heart -(mouse OR rat)", "(heart -(mouse OR rat))"},
		{"+heart failure", "(heart failure)"},
		{"(heart OR cardiac) failure", "((heart OR cardiac) failure)"},
		{"((heart))", "heart"},
		{"(a1 OR (b2 OR c3))", "(a1 OR b2 OR c3)"},
		{"or not and", "not"}, // lower case: words ("or" and "and" are stop words)
		// Fields.
		{"title:failure", "title:failure"},
		{"TITLE:failure", "title:failure"},
		{`title:"heart failure"`, `title:"heart failure"`},
		{"author:van", "author:van"},
		{"title:(heart OR cardiac) failure", "((title:heart OR title:cardiac) failure)"},
		{"abstract:(heart -mouse)", "(abstract:heart -abstract:mouse)"},
		{"keyword:CRISPR fulltext:Cas9", "(keyword:crispr fulltext:cas9)"},
		{"title:SARS-CoV-2", `title:"sars cov 2"`},
		{"doi:10.1371/journal.pone.0123456", "doi:10.1371/journal.pone.0123456"},
		{"doi:https://doi.org/10.1371/JOURNAL.PONE.0123456", "doi:10.1371/journal.pone.0123456"},
		{"doi:10.1016/S0140-6736(20)30183-5", "doi:10.1016/s0140-6736(20)30183-5"},
		{"(doi:10.1016/S0140-6736(20)30183-5)", "doi:10.1016/s0140-6736(20)30183-5"},
		{`doi:"10.1000/xyz 1"`, "doi:10.1000/xyz 1"},
		// A colon after a word that is not a field is text: pasted titles.
		{"Cancer: a review", "(cancer review)"},
		{"ratio 3:1", "(ratio \"3 1\")"},
		// Prefixes.
		{"cardio*", "cardio*"},
		{"title:Cardio*", "title:cardio*"},
		{"Müll*", "mull*"},
		// Punctuation only: matches nothing.
		{"!!! ...", "()"},
		{"-", "()"},
	} {
		n, err := Parse(tc.q)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.q, err)
			continue
		}
		if got := Format(n); got != tc.want {
			t.Errorf("Parse(%q) = %s, want %s", tc.q, got, tc.want)
		}
	}
}

func TestParseBlank(t *testing.T) {
	for _, q := range []string{"", "   ", "\t\n"} {
		if n, err := Parse(q); n != nil || err != nil {
			t.Errorf("Parse(%q) = %v, %v, want nil, nil", q, n, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		q   string
		pos int
		msg string
	}{
		{`heart "failure`, 6, "unterminated phrase"},
		{"(heart failure", 0, "without a closing one"},
		{"heart) failure", 5, "without an opening one"},
		{"OR heart", 0, "OR needs a term on its left"},
		{"heart OR", 6, "OR needs a term on its right"},
		{"heart OR OR failure", 6, "OR needs a term on its right"},
		{"heart AND", 6, "AND needs a term on each side"},
		{"AND heart", 0, "AND needs a term on each side"},
		{"heart NOT", 6, "NOT needs a term to exclude"},
		{"-mouse", 0, "only excludes"},
		{"-mouse -rat", 0, "only excludes"},
		{"heart OR -mouse", 10, "cannot be an alternative of OR"},
		{"heart -(-mouse)", 6, "double negation"},
		{`""`, 0, "empty phrase"},
		{`title:"  "`, 6, "empty phrase"},
		{"title:", 0, "needs a word, a phrase or a group"},
		{"title:(abstract:heart)", 16, "field abstract: inside field title:"},
		{"c*", 0, "at least 2 letters"},
		{"*", 0, "takes one word"},
		{"sars-cov*", 0, "takes one word"},
		{"doi:nonsense", 4, "takes a DOI"},
		{strings.Repeat("(", 9) + "a1" + strings.Repeat(")", 9), 8, "nested deeper than 8"},
		{strings.Repeat("ww ", 40), 96, "more than 32 terms"},
	} {
		_, err := Parse(tc.q)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q) error = %v, want a *SyntaxError", tc.q, err)
			continue
		}
		if se.Pos != tc.pos || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("Parse(%q) = %v, want position %d and %q", tc.q, se, tc.pos, tc.msg)
		}
	}
}

func TestParseLeafCount(t *testing.T) {
	// Distinct words up to the limit parse; repeated ones are one leaf
	// each time they are written, so a long repetition is refused rather
	// than silently shortened.
	var words []string
	for i := range MaxLeaves {
		words = append(words, "w"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	if _, err := Parse(strings.Join(words, " ")); err != nil {
		t.Fatalf("%d words: %v", MaxLeaves, err)
	}
	if _, err := Parse(strings.Join(words, " ") + " extra"); err == nil {
		t.Fatalf("%d words parsed, want an error", MaxLeaves+1)
	}
}

func TestFieldByName(t *testing.T) {
	for f := Title; f <= Fulltext; f++ {
		if got, ok := FieldByName(f.String()); !ok || got != f {
			t.Errorf("FieldByName(%q) = %v, %v", f.String(), got, ok)
		}
	}
	if _, ok := FieldByName(""); ok {
		t.Error(`FieldByName("") is a field`)
	}
}

// FuzzParse checks that Parse never panics, that a refusal points inside
// the query, and that what it accepts formats to a query that parses to
// the same tree.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"heart failure", `"heart of darkness" -mouse`, "(a1 OR b2) c3", "title:(x OR y)",
		"doi:10.1016/S0140-6736(20)30183-5", "cardio*", "-", `title:""`, "((((", "a OR -b",
		"ÄÖÜ 東京 ﬁ", "NOT NOT a", "author:van der Berg", `abstract:"the" OR keyword:x*`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		n, err := Parse(q)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Parse(%q): %v is not a *SyntaxError", q, err)
			}
			if se.Pos < 0 || se.Pos > len(q) {
				t.Fatalf("Parse(%q): position %d outside the query", q, se.Pos)
			}
			return
		}
		if n == nil {
			return
		}
		s := Format(n)
		n2, err := Parse(s)
		if err != nil {
			t.Fatalf("Parse(%q) = %s, which does not parse: %v", q, s, err)
		}
		if s2 := Format(n2); s2 != s {
			t.Fatalf("Parse(%q) = %s, reparsed as %s", q, s, s2)
		}
	})
}

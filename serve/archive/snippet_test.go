package archive

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/openshelf/openshelf/index/search/query"
	"github.com/openshelf/openshelf/index/tokenize"
)

func TestSnippet(t *testing.T) {
	long := strings.Repeat("Filler words about nothing in particular. ", 12)
	tests := []struct {
		name, q, text string
		stem          bool
		want          string // the snippet, or a part of it after "…"
		marks         int
	}{
		{"word", "heart", "The heart beats.", false, "The <mark>heart</mark> beats.", 1},
		{"case and accents fold as the index folds", "muller", "Work by MÜLLER & Müller.", false,
			"Work by <mark>MÜLLER</mark> &amp; <mark>Müller</mark>.", 2},
		{"HTML is escaped", "tag", "a <b>tag</b> here", false, "a &lt;b&gt;<mark>tag</mark>&lt;/b&gt; here", 1},
		{"exact words without stem", "cells", "One cell, two cells.", false, "One cell, two <mark>cells</mark>.", 1},
		{"stems with stem", "cells", "One cell, two cells.", true, "One <mark>cell</mark>, two <mark>cells</mark>.", 2},
		{"prefix", "cardio*", "Cardiology and cardiac care.", false, "<mark>Cardiology</mark> and cardiac care.", 1},
		{"phrase marks only the phrase", `"heart failure"`, "Heart disease and heart failure.", false,
			"Heart disease and <mark>heart</mark> <mark>failure</mark>.", 2},
		{"phrase with a stop word", `"quality of life"`, "the quality of life", false,
			"the <mark>quality</mark> <mark>of</mark> <mark>life</mark>", 3},
		{"NOT is not marked", "heart -mouse", "heart of a mouse", false, "<mark>heart</mark> of a mouse", 1},
		{"title field is not the abstract", "title:heart", "heart", false, "heart", 0},
		{"hyphenated word is a phrase", "SARS-CoV-2", "The SARS-CoV-2 virus", false,
			"The <mark>SARS</mark>-<mark>CoV</mark>-<mark>2</mark> virus", 3},
		{"window around the match", "needle", long + "a needle here. " + long, false, "…", 1},
		{"no match: the beginning", "absent", long, false, "Filler words", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, err := query.Parse(tt.q)
			if err != nil {
				t.Fatal(err)
			}
			var st func(string) string
			if tt.stem {
				st = tokenize.Stem
			}
			got, marks := newMatcher(n, st, query.Any, query.Abstract).snippet(tt.text)
			if marks != tt.marks || !strings.Contains(got, tt.want) {
				t.Errorf("snippet(%q) of %q = %q (%d marks), want %q (%d marks)", tt.q, tt.text, got, marks, tt.want, tt.marks)
			}
			plain := strings.NewReplacer("<mark>", "", "</mark>", "", "&lt;", "<", "&gt;", ">", "&amp;", "&", "…", "").Replace(got)
			if n := utf8.RuneCountInString(plain); n > SnippetChars {
				t.Errorf("%d characters", n)
			}
			if tt.marks > 0 && len(tt.text) > SnippetChars && (!strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…")) {
				t.Errorf("cut passage without ellipses: %q", got)
			}
		})
	}
}

func FuzzSnippet(f *testing.F) {
	f.Add("heart failure", "The heart failure of Müller's <patients>.")
	f.Add(`"a b" OR c*`, "a b c cc ccc")
	f.Fuzz(func(t *testing.T, q, text string) {
		n, err := query.Parse(q)
		if err != nil || n == nil {
			return
		}
		for _, st := range []func(string) string{nil, tokenize.Stem} {
			s, _ := newMatcher(n, st, query.Any, query.Abstract).snippet(text)
			if !utf8.ValidString(text) {
				continue
			}
			if !utf8.ValidString(s) {
				t.Fatalf("snippet of valid text is not valid UTF-8: %q", s)
			}
			if strings.Count(s, "<mark>") != strings.Count(s, "</mark>") {
				t.Fatalf("unbalanced marks: %q", s)
			}
		}
	})
}

package tokenize

import "github.com/kljensen/snowball/english"

// Stem returns the English Snowball stem of a folded token, what a search
// with stemming on matches by: "cells" and "cell" both give "cell". Tokens
// that are not plain ASCII letters (numbers, other scripts, chemical
// formulas) are their own stem. The index stems at query time with this
// function, and the server marks snippets with it, so the two agree.
func Stem(w string) string {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	return english.Stem(w, true)
}

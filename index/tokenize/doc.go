// Package tokenize turns text into search terms. The snapshot builder (index)
// uses it to build the postings of the title, keywords and author fields, and
// the read server must use the same functions on queries so that query terms
// and indexed terms agree.
//
// The rules, chosen for scholarly metadata in many languages:
//
//   - Compatibility decomposition (NFKD), then every nonspacing mark is
//     dropped, so accents fold away ("Müller" → "muller", "ﬁ" → "fi",
//     "H₂O" → "h2o"). A few letters that have no decomposition are spelled
//     out: ß → ss, æ → ae, œ → oe, ø → o, ł → l, đ/ð → d, þ → th, ı → i.
//   - Lower case (simple Unicode lower-casing after the decomposition; final
//     sigma folds to σ).
//   - Tokens are maximal runs of letters, digits and spacing marks; anything
//     else separates tokens, so "SARS-CoV-2" gives "sars", "cov", "2" and
//     "covid19" stays one token.
//   - Han, Hiragana and Katakana are written without spaces, so each of
//     their characters is a token of its own (unigrams).
//   - A token of one character is dropped unless it is a digit ("type 2
//     diabetes") or a unigram from the scripts above: single Latin letters
//     (initials, the "s" of "Alzheimer's") match too much to be useful.
//   - Tokens longer than MaxTokenBytes bytes (sequences, hashes) are dropped.
//   - Terms are indexed as written, not stemmed: "cells" and "cell" are
//     different terms. Stemming is language specific and hurts author names
//     and chemical names, which are a large share of the queries, so it is a
//     query-time option: Stem gives the English (Snowball) stem that a
//     search with stemming on matches by.
//   - Stop words: a small English list (IsStopWord) is removed from titles
//     and keywords by the indexer (Terms), never from author names ("Van",
//     "De", "Will" are names).
//
// The functions are deterministic and idempotent: tokenising the tokens
// joined by spaces gives the same tokens again.
package tokenize

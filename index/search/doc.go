// Package search reads the search index of an archive snapshot: the
// search/terms, search/postings, search/docs and search/fields tables that
// package index writes (data/README.md describes them). It lives next to
// that writer so the two agree on one format; the server (serve/archive)
// only calls it.
//
// [Load] reads the tables into packed arrays (term text, posting lists,
// 16-bit packed term frequencies per field, per-document lengths and
// filter columns) and checks them against the catalog they must mirror.
// [Index.Search] intersects the posting lists of every query term, rarest
// first with galloping search, and ranks by BM25F with the field weights
// and average lengths of search/fields; [Index.List] pages through the
// documents passing the filters in catalog order. Both apply [Filters]
// (topic, year range, licence, full text) and return one page of [Hit]
// values with the total.
//
// # Ranking and evaluation
//
// Every word must match (in title, keywords or author names); hits are
// ranked by BM25F: per word, the field frequencies are weighted
// (search/fields) and length normalised (1 - b + b·len/avg_len, b = B =
// 0.75) and summed before the k1 = K1 = 1.2 saturation; the word scores,
// weighted by IDF, add up. Ties go to the lower doc (earlier id).
//
// The evaluation is exact and exhaustive: the posting lists (doc-ordered
// arrays) are intersected rarest first, the rarest list driving and the
// others probed by galloping search, so the cost is about the length of
// the shortest list; each surviving document is filtered (year, licence,
// full text, topic bitset) and scored, counted for the total, and offered
// to a bounded heap of the offset+limit best. The total must be exact, so
// every match is visited: early termination (WAND, impact-ordered lists)
// would save little, because visiting and scoring a posting costs a few
// nanoseconds: a word in a third of a million documents is scored in a
// few milliseconds. Results are those of the former SQL implementation,
// kept in serve/archive/searchindex_test.go as the oracle the tests
// compare against.
//
// Query words must be tokenised with package
// [github.com/openshelf/openshelf/index/tokenize], as the index was.
package search

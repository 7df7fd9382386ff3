// Package search is the archive's search engine: the on-disk index of a
// snapshot (search/index.bin, written by [Writer] during the snapshot
// build in package index, laid out in FORMAT.md) and the evaluator that
// answers a [Request] over it. It lives next to that writer so the two
// agree on one format; the server (serve/archive) only calls it.
//
// # Memory
//
// [Open] maps the file read-only and reads it in place: term dictionary,
// postings, positions, doc values and cited-by lists are never copied into
// the Go heap, which holds only the table of contents and the names of
// licences and topics. Resident memory is the kernel's page cache for the
// pages queries touch: shared, evictable, bounded by the machine or a
// cgroup rather than by the corpus; the heap adds the bitsets of frequent
// terms (see Evaluation), within their budget. A snapshot switch opens the new file
// beside the old one; the server closes (unmaps) the old one when its last
// request ends.
//
// # Evaluation
//
// A query (package query's syntax tree) compiles to iterators over posting
// lists that walk matching documents in doc order: a conjunction advances
// its children to the cheapest one's documents, galloping over each list's
// skip table (one entry per 128 documents) and unpacking only the doc ids
// of the blocks it lands in; a union walks its children over a window of
// documents at a time into a bitset (no heap); an exclusion drops the
// documents its child matches; a phrase is a conjunction whose candidates
// are checked position by position within each field (a phrase never
// spans two fields or two values of a field): the conjunction of its word
// triples and pairs where the index has them (outside full text, the
// sample's most frequent triples of two such pairs, every adjacent pair
// with a stop word and every pair of two of the corpus's most frequent
// words, less the pairs of a stop word and a rarer word in few documents;
// FORMAT.md), of its words elsewhere, so "state of the art" walks
// the far shorter lists of "state of", "of the" and "the art", and
// "resource management" or a frequent "natural resource economics" one
// list; a prefix is the union of at
// most query.MaxExpansions terms, the most frequent, whose documents the
// index also holds as a bitset where they are many (its prefix term,
// FORMAT.md); with Stem, a word is the union of the indexed
// words with its English Snowball stem.
//
// Every match is visited, so Total and the facet counts are exact: each
// match is filtered by its doc values (year, licence, topics, sources,
// full text), counted, given its sort key (BM25F score, year or
// cited-by count) and offered to a bounded heap of the best offset+limit.
// Counting walks doc ids only: once the heap is full, a match is scored
// (its frequencies decoded) only if the sum of its terms' bounds (each
// posting's impact, or the skip table's per-block maximum; FORMAT.md)
// beats the worst score kept, so the page is the one an exhaustive
// scoring would give. A lone term without filters or facets counts the
// blocks whose bound cannot enter the page without unpacking them. A
// conjunction of terms (with excluded terms) without filters, facets or
// cursor, ranked by relevance, is counted without visiting its matches
// one by one: a window of documents at a time, its lists' documents are
// set in bitsets that are intersected and counted; its page is then
// ranked from the blocks of the rarest list whose bound, with the other
// lists' block bounds over the same documents, beats the worst score kept
// (conj.go). A conjunction may hold one prefix or stemmed word: it counts
// by the expansion's bitset, and ranks the expansion's lists one after
// another from the highest bound, as a prefix alone does (conjexpansion.go).
// An OR in such a scan is counted a window of documents at a
// time from the window's bitset, and only the documents whose summed
// bounds beat the worst score kept are offered to the page. A prefix or
// a stemmed word alone in it (expand.go) is counted by ORing its lists
// into a bitset of the corpus (a prefix's bitset in the index, its prefix
// term, copied where it has one), and ranked list by list from the highest
// bound, unpacking only the blocks whose bound can enter the page. The
// lists of terms in at least 1/64 of the documents that such counted
// conjunctions ask for more than once, and the bitsets of such
// expansions searched more than once, are kept within a budget
// ([Options].Sets, least recently used first out, and past the budget
// only for a set whose asks times postings saved beat those of the one
// it would push out; sets.go): a kept list counts by word-wise AND, and
// any conjunction tests a document in it without advancing the list; a
// kept expansion counts by popcount, or by word-wise AND inside a
// conjunction (its second search keeps the bitset that its first built
// and left on probation). A phrase whose rarest list is that frequent
// keeps the bitset of its matches the same way (its first search leaves
// it on probation), and is then counted by popcount and ranked from it a
// window of documents at a time (phraseset.go). Long loops yield the
// processor now and then, so that a short search does not wait behind
// long ones.
// Phrases check the rarest list's positions first and stop at the first
// list that leaves no candidate start; a phrase's score is its words'
// (their lists advanced to its matches only), with or without pairs. A
// phrase that one pair or triple term covers is walked like a lone term,
// block by block, a block skipped when its words' block bounds over its
// documents cannot enter the page.
// With a cursor the heap keeps only matches ranking after the cursor's
// (key, doc), so a page at any depth costs about what the first page
// costs; when the worst match kept ties with the cursor (a run of equal
// scores or years), no later match can enter the page and the rest of
// the scan only counts. A next cursor is given when some match is known
// to rank after the page.
//
// # Requests
//
// Facet values are spelled as Result.Facets reports them: license the
// licence family ("CC-BY"), topic the slug, year decimal (undated
// documents are not counted), source one of [Sources] ("jats:pmc" and
// other JATS inputs are "jats"), fulltext "true" or "false". Where values
// are ORed within a facet and the facets ANDed; an unknown value matches
// nothing, an unknown facet name is [ErrUnknownFacet]. Stem is off by
// default (exact words); with it, words in titles, abstracts, keywords
// and full text also match their Snowball variants, never author names
// or DOIs, and phrases stay exact. Fulltext adds the fulltext field to
// unscoped terms and phrases.
//
// A cursor is opaque and URL-safe: the snapshot id, the sort, and the
// last hit's sort key and doc (search-after; over segments, its merged
// number). From another snapshot it is
// [ErrCursorExpired]; if it does not decode, or was made for another sort,
// [ErrCursorInvalid]. Result.Next is set whenever results follow the page.
// A listing in catalog order without filters (but one topic) or facets is
// a slice of the documents, at any depth. [Index.CitedBy] pages the
// documents citing one document in doc order, with its own cursors.
//
// # Segments
//
// A snapshot built incrementally holds its documents in segments, each
// with its own index (the same format, its documents numbered in
// canonical id order within it) and the documents that later segments
// supersede or delete. [Multi] answers a Request over them exactly as
// one index of their live documents (a fully merged build) would: each
// segment is searched with the statistics of all live documents (their
// number, each term's live document frequency, the average field
// lengths), its deleted documents counted apart and never ranked, and
// the segments' best matches merged by sort key, ties by the merged
// order, which the caller gives as each document's number among the
// live documents ([Segment].Docs). A prefix or a stemmed word expands to
// the words one index of the live documents would choose (a segment's
// prefix term counts it where it holds those words' live documents). A
// delta build's segment indexes the word pairs of the segments before it
// and keeps those they count enough of (pairs.go), so that a phrase walks
// in each segment the pairs one index would walk. The
// bounds an index was written with (impacts, skip entries) used its
// own average lengths; under the archive's they are scaled up by the
// ratio of the averages, over the fields a term is searched in, where the
// archive's are longer, so that pruning stays exact. Cited-by counts and
// lists belong to the whole archive: the caller gives them
// ([Citations]). Hits and cursors number documents in the merged order,
// so a cursor is the same bytes, and means the same page, whatever the
// segmentation of its snapshot. One segment without deletions is searched
// as it is.
//
// What is the same for every search of a snapshot in segments is worked
// out once and kept by the Multi, so that ten segments do not cost ten
// times one index's fixed costs: a term is looked up in every segment
// once (its ids and live document frequency; a phrase's pair terms,
// which its words score, their ids only); an expansion's words once,
// and from its first plain scan in a segment (alone, ranked by relevance,
// without filters, facets or cursor) its count there and each list's
// bound, so that a later scan opens only the lists whose bound beats the
// page's floor, often none in the smaller segments; the count of a list
// scanned alone, whose pruned blocks a later scan then skips uncounted; a
// topic's live documents in merged order, which a catalog page by topic
// slices as one index does (the server's catalog keeps them too,
// [Multi.TopicDocs]); the cited-by counts of each segment's documents,
// for sorts by them (4 bytes a document); the mapping of each segment's
// licence and topic codes, so that facets add up by code; and the floor
// each request without a cursor ended with (its k+1th best match), from
// which the same request searched again starts every segment, the first
// included, where the first would otherwise fill its page against none
// (multifloor.go). The frequencies a segment's search decodes, and its
// union iterators, are reused by the next. A segment searched against a
// floor, one posting list sorted by year or by cited-by count without
// filters or facets, finds its matches ahead of the floor from its live
// documents in that order (the first 65 536 kept per sort once used, 4
// bytes a document), each looked up in the list, and counts the list
// from its skip entries less its deleted documents, instead of reading
// every match's key (multiorder.go). The words of a prefix are found by
// one walk of the segments' dictionaries, merged by their first 8 bytes
// (the bytes compared only where those tie), which also makes each
// segment's own choice of them (for its prefix term); they are counted
// (their live documents, which only a walk of their lists in the
// segments with deletions gives: a block's gaps, a short list's entry)
// only where they can be among the MaxExpansions most live: the
// MaxExpansions of most documents, then those with as many as the last
// of these has live (multidel.go); the records the walk read open the
// lists of those kept, allocated together in each segment. A segment's
// first plain scan of a prefix, alone or beside words (a conjunction),
// opens only the lists the page needs: the count ORs the others where
// they lie (a short list whose documents all have a searched field by
// its gaps) and their bounds are read in their short entries or skip
// tables (multilazy.go).
//
// What a Multi would work out on its first searches, the build of a
// snapshot's newest segment works out once and writes beside that
// segment's index ([FirstFile], [MakeFirst]; FORMAT.md): for each
// segment with deletions, the deleted documents of each word and of each
// pair term whose list is not counted from its short entry, so that a
// live document frequency is a look-up; and for each prefix that a
// segment holds as a prefix term (the long expansions), its words over
// all segments (each segment's ids, their live documents, whether its
// prefix term holds them) and, in each segment of at most an eighth of
// the live documents, its first plain scan of it: its count and the
// bounds of its eight lists of the highest bounds, the others opened
// only if the highest of theirs, also written, can enter the page; and,
// in each segment whose prefix term is of other words (its own choice of
// them, by its own documents), the live documents by which the term's
// bitset differs from those words', so that a count (the prefix alone or
// beside words) copies the bitset and corrects it instead of ORing the
// words' lists. [Multi.UseFirst] takes the file when it names the
// Multi's segments, with their documents, terms and deletions; without
// it (an older snapshot), the Multi counts as before, with the same
// answers.
//
// # Ranking
//
// BM25F (K1 = 1.2): per term, each matched field's frequency is weighted
// and length-normalised (FieldParams) and the fields summed before the
// saturation; the term scores, weighted by IDF over all fields, add up
// in the order of the query (an OR adds its matching children), never in
// an order that depends on the corpus, so that segments score as the
// merged index to the bit. A prefix or a stemmed word is one
// word: a document scores by its best-scoring word of the expansion.
// Ties go to the lower doc.
//
// Query words must be folded with package
// [github.com/openshelf/openshelf/index/tokenize], as the index was;
// package query's parser does it.
package search

// Package archive serves the published snapshot: free discovery (catalog,
// topics, search, statistics) and paid content (document, full text,
// references, topic bundles), all declared as registry endpoints.
//
// # Generations
//
// Each snapshot is opened as a generation: an in-memory DuckDB database
// whose views read the snapshot's immutable Parquet files, plus the Go
// structures below, built once at open. When DATA/current switches, a new
// generation is opened beside the old one, new requests go to it, and the
// old one is closed once its last request has finished: no request fails
// during a switch.
//
// # What lives where, and why
//
// The discovery endpoints must answer at a million documents and more in a
// few milliseconds on two shared cores (see BENCHMARKS.md, "Search at 1M
// and 10M documents"). A DuckDB query costs milliseconds of planning and
// scheduling before it reads anything, and an in-memory DuckDB table of
// the catalog cost more memory than its packed bytes, so the hot paths do
// not touch DuckDB at all:
//
//   - catalogstore.go: every document's listing entry (id, title, author
//     names, year, venue, topics, licence, flags) comes from the snapshot's
//     catalog file, catalog/catalog.bin (package index/catalog), mapped
//     read-only: packed records in doc order, venues/topics/licences
//     dictionary-coded; decoding an entry takes well under a microsecond,
//     and the server holds only the pages it touches, not a copy of ten
//     million entries. A catalog page at any offset is a slice of doc
//     numbers (doc i is the i-th document in id order), a topic page a
//     slice of that topic's doc list. The aliases (every other id of every
//     document, sorted) resolve by binary search. A snapshot written
//     before the file existed gets one converted from its Parquet tables
//     at load.
//
//   - package index/search (the reader beside the index writer): the
//     search index, search/index.bin, mapped read-only and read in
//     place (postings with positions, doc values for filters, sorts and
//     facets, cited-by lists). /api/stats and /api/topics bodies are
//     encoded once per generation.
//
//   - content.go: the paid content (document metadata and rights, full
//     text, references) comes from the snapshot's content store,
//     content/docs.bin (package index/content): per document, positioned
//     reads of its offsets and of one zstd-compressed part, decoded into
//     the response in tens of microseconds at any corpus size. A DuckDB
//     point query on the Parquet tables cost 7 to 60 ms of CPU (it decodes
//     a whole row group), which capped paid requests at ~120/s. The store
//     keeps nothing in memory but its open file; a snapshot written before
//     it existed is served through DuckDB, whose queries stay as the tests'
//     oracle.
//
// DuckDB keeps the views over the Parquet files for that fallback.
//
// # Search
//
// searchapi.go turns GET /api/search (and the search_archive tool) into an
// index/search Request: q is parsed by index/search/query (a syntax error
// is a 400 invalid_query with the byte position), the filters become
// facet filters, sort, facets, offset and cursor pass through; the
// index's cursor errors become 410 cursor_expired and 400 invalid_cursor.
// The server then decodes the hits' catalog entries, adds snippets
// (snippet.go: the abstract or a full-text paragraph from the content
// store, the matched words found by folding each word of the text with
// index/tokenize, as the index did, and stemming it as the index does) and
// keeps the selected fields (select.go). Catalog cursors (catalog.go) name
// the last id listed, so they survive a snapshot switch; search cursors
// are the index's, bound to its snapshot. docs/search.md is the user's
// reference; the generation's index is reached through the searcher
// interface (engine.go).
//
// Memory, measured on the 1M-document benchmark corpus before the search
// index moved to a mapped file (issue 21: the postings, terms and
// per-document columns below are no longer on the Go heap; BENCHMARKS.md
// has the new figures) (19 million
// (term, document) postings, 2.7 million ids): postings 6 bytes each (doc
// number and packed field frequencies; 110 MiB), catalog entries about 160
// bytes per document (157 MiB), aliases other than canonical ids 54 MiB,
// terms 10 MiB, per-document columns and topic lists 25 MiB: about 370 MiB
// of Go heap, and a peak resident size of about 850 MiB under load with
// the default GOGC. A snapshot switch holds two generations for a moment.
// DuckDB is told to keep no file cache and to stay under 256 MB; the
// Parquet files are read with parquet-go at load, because a DuckDB scan
// of the whole documents file left hundreds of megabytes in its
// allocator.
package archive

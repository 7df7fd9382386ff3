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
// few milliseconds on two shared cores (see BENCHMARKS.md, "Read server at
// 1M documents"). A DuckDB query costs milliseconds of planning and
// scheduling before it reads anything, and an in-memory DuckDB table of
// the catalog cost more memory than its packed bytes, so the hot paths do
// not touch DuckDB at all:
//
//   - catalogstore.go: every document's listing entry (id, title, author
//     names, year, venue, topics, licence, flags) packed in one byte arena
//     in doc order, venues/topics/licences dictionary-coded; decoding an
//     entry takes well under a microsecond. A catalog page at any offset is
//     a slice of doc numbers (doc i is the i-th document in id order), a
//     topic page a slice of that topic's doc list. The aliases (every id
//     of every document, sorted) resolve by binary search.
//
//   - package index/search (the reader beside the index writer): the
//     search index (terms, postings, per-document field lengths and filter
//     columns) in flat arrays; search.go only tokenises the query and
//     calls it. /api/stats and /api/topics bodies are encoded once per
//     generation.
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
// Queries are tokenised with index/tokenize, the tokeniser that built the
// index (Unicode case and accent folding, no stemming), cut to 16 words,
// and handed to package index/search, which finds the documents holding
// every word and ranks them by BM25F (its package comment describes the
// evaluation). Its results are those of the former SQL implementation,
// kept in searchindex_test.go as the oracle the tests compare against.
//
// Memory, measured on the 1M-document benchmark corpus (19 million
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

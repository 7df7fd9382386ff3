// Package index writes archive snapshots: the Parquet tables, the search
// index, the per-topic bundles and the manifest described in data/README.md,
// published atomically under DATA/snapshots/<id>/ with DATA/current switched
// to it.
//
// # Use
//
// [Build] runs a whole incremental build: it carries the current snapshot's
// documents over, feeds the run's records through an [ingest.Merger] (which
// merges records of the same work, applies deletions and re-decides
// licences) and writes the result. [Builder] is the lower-level writer for
// callers that produce merged documents themselves:
//
//	b, err := index.NewBuilder(cfg)
//	defer b.Abort()
//	for each document in increasing id order { b.Add(doc) }
//	manifest, err := b.Finish(ctx)
//
// # Streaming and memory
//
// Documents arrive sorted by canonical id (the merger emits that order), so
// documents, fulltext, references and search/docs are written as they come,
// in row groups of bounded size. The two tables sorted on another key,
// aliases (by alias) and search/postings (by term), go through an external
// sort: records accumulate in a fixed-size buffer that is sorted and spilled
// to zstd run files by a goroutine while a second buffer fills, then merged.
// Term ids are assigned in term order during that merge, so no vocabulary is
// ever held in memory. Bundles are zstd streams, one open encoder per topic,
// fed by a goroutine of their own. Peak memory is therefore bounded
// whatever the corpus size: sort buffers, row groups and queues (a
// 100 000-document bench corpus build, generation included, peaked at about
// 1.4 GiB); the merger adds about 100 bytes per input record (see
// ingest/merge.go).
//
// An incremental build still rewrites every file: it costs about what a
// fresh build costs (BENCHMARKS.md, "Incremental builds"). The segmented
// layout that will make a build cost its delta is designed in
// docs/architecture.md ("Incremental snapshots"); its readers
// ([github.com/openshelf/openshelf/index/catalog.Multi],
// [github.com/openshelf/openshelf/index/content.Multi] and package
// snapshot's Numbering and LiveSQL) are tested against segments this
// package writes (segments_test.go), but no build writes a segmented
// snapshot yet.
//
// [Reindex] rebuilds only search/index.bin of the current snapshot, from its
// own Parquet tables, and publishes it as a new snapshot whose other files
// are hard links to the old one's: a new index format without a rebuild.
//
// # Search without the DuckDB fts extension
//
// Titles, keywords and author names are tokenised with package
// [github.com/openshelf/openshelf/index/tokenize] (the server must use the
// same functions on queries). search/docs numbers documents densely in
// documents.parquet order (doc 0..N-1), postings hold (term_id, doc, field,
// tf) sorted by term then doc, and search/fields the per-field average
// length, weight and b for BM25F.
//
// # Content store
//
// content/docs.bin (package [github.com/openshelf/openshelf/index/content],
// written by contentstore.go) repeats each document's served fields, sections
// and references, compressed per document with an offset table, for the read
// server's paid lookups; it is written in the same pass as the rows it is made
// from.
//
// # Publication and crash safety
//
// Everything is written in DATA/snapshots/.tmp-<id>/ and fsynced, renamed to
// DATA/snapshots/<id>/, and DATA/current (a relative symlink) is replaced by
// rename(2) of a temporary link. A run killed at any point leaves the
// previous snapshot current and whole; the next run removes the leftovers.
// One build at a time holds DATA/.lock. Old snapshots beyond Config.Keep are
// pruned, never the current one.
package index

// Package index writes archive snapshots: the Parquet tables, the search
// index, the per-topic bundles and the manifest described in data/README.md,
// published atomically under DATA/snapshots/<id>/ with DATA/current switched
// to it.
//
// # Use
//
// [Build] runs a build: it feeds the run's records through an
// [ingest.Merger] (which merges records of the same work, applies
// deletions and re-decides licences) together with the documents of the
// current snapshot they concern, and publishes the result. By default it
// is a delta build (delta.go): the new snapshot shares the current one's
// segments and adds one segment with the documents the run adds or
// changes, plus the deletions of their old copies; Config.Merge carries
// every document into one new segment (a full merge) and Config.Fresh
// ignores the current snapshot. [Builder] is the lower-level writer for
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
// sort: records accumulate in a fixed-size buffer that is radix-sorted and
// spilled to a run file by a goroutine while a second buffer fills, then
// merged (the first GiB of runs as they are, later ones S2-compressed).
// Term ids are assigned in term order during that merge, so no vocabulary is
// ever held in memory. Bundles are sequences of small zstd frames, one per
// about 8 lines of a topic (package index/bundle), fed by a goroutine of
// their own. Peak memory is therefore bounded
// whatever the corpus size: sort buffers, row groups and queues (a
// 100 000-document bench corpus build, generation included, peaked at about
// 1.4 GiB); the merger adds about 100 bytes per input record (see
// ingest/merge.go).
//
// # Segments
//
// A delta build's snapshot is a list of segments (docs/architecture.md,
// "Incremental snapshots"; data/README.md for the files): each segment is
// the files this Builder writes for its documents, in
// segments/segment=<id>/, and the unchanged ones are hard links of the
// previous snapshot's. What belongs to the whole archive is written from
// the segments' files (delta_archive.go): the citations from each
// segment's citation keys, and the bundles of the topics whose documents
// changed from the previous snapshot's bundles and the new segment's
// lines, of which only the changed frames are written, to a pack of the
// build (delta_bundles.go, package index/bundle; the unchanged frames and
// topics are linked). The
// readers over segments ([github.com/openshelf/openshelf/index/catalog.Multi],
// [github.com/openshelf/openshelf/index/content.Multi],
// [github.com/openshelf/openshelf/index/search.Multi] and package
// snapshot's Numbering and LiveSQL) answer exactly as one full build of
// the live documents (delta_test.go). The merge policy (delta_merge.go)
// folds small segments into the new one so that their number stays
// bounded.
//
// With Config.Records a segment also keeps each work's source records
// (records.go), and builds carry a touched work's records instead of its
// merged document, so that a record leaving (Config.KeepRecord,
// Config.Touch: the nightly job's deletions, merges and withdrawals)
// merges the work again as a build from every record would
// (records_test.go).
//
// [Reindex] rebuilds only search/index.bin of the current snapshot (one
// without segments: merge first), from its own Parquet tables, and publishes it as a new snapshot whose other files
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

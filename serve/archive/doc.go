// Package archive serves the published snapshot: free discovery (catalog,
// topics, search, statistics) and paid content (document, full text,
// references, topic bundles), all declared as registry endpoints.
//
// Queries run in DuckDB over the snapshot's Parquet files. Each snapshot
// generation gets its own in-memory DuckDB database whose views read the
// immutable files and whose few small tables (the catalog columns, topic
// ranks, the search index) are loaded once at open, so pagination at any
// offset and BM25 search stay fast at millions of documents. When
// DATA/current switches, a new generation is opened beside the old one,
// new requests go to it, and the old one is closed once its last request
// has finished: no request fails during a switch.
//
// Search tokenises queries with index/tokenize, the tokeniser that built
// the index: Unicode case and accent folding, no stemming.
package archive

// Package bench measures the read server at scale, side by side with
// PostgreSQL full-text search and Apache Lucene over the same documents
// and the same queries. `openshelf bench` is its command-line front.
//
// A run:
//
//  1. builds a synthetic corpus of N documents (package internal/corpus:
//     real fixture vocabulary, power-law term frequencies, recurring
//     keyword phrases, abstracts everywhere, full text for about 20 %,
//     references for about 30 % citing other documents of the corpus
//     with power-law popularity, several sources) as a snapshot under
//     DIR/data, or reuses the one cached there for the same N and seed;
//     -rebuild-ours rebuilds only this snapshot (a new index) and keeps
//     the peers' loads, which are keyed by the corpus, not the snapshot;
//     -reindex rebuilds only its search index (index.Reindex, from the
//     snapshot's own Parquet tables), the way to measure a new index
//     format on a 10M corpus without generating it again;
//     -segments N builds it as N segments, as nights of delta builds
//     leave an archive (a full build of 55 % of the documents, then
//     delta builds of equal parts of the rest), so that the server is
//     measured over segments against peers holding the same documents;
//  2. starts a private PostgreSQL cluster (Debian's packages, run as the
//     postgres user on a loopback port) under DIR/pg and loads the same
//     documents from the snapshot's documents.parquet, streamed by COPY
//     through a view whose trigger computes a weighted tsvector with
//     positions (title A, keywords B, author names C, abstract D;
//     'simple' configuration over unaccent, like ours without stemming),
//     in one transaction with wal_level=minimal (no raw copy of the
//     table, no WAL: a 10M load fits beside the other systems), then a
//     GIN index. A small pgx HTTP handler answers the
//     searches with to_tsquery text the bench renders from each query's
//     syntax tree (& | ! <-> :* and weights for fields), ranked by
//     ts_rank_cd with the exact total; sort=-year by ORDER BY year;
//     facets by GROUP BY over the matching rows; deep pages by keyset
//     pagination on (rank, id);
//  3. compiles bench/lucene/LuceneBench.java (embedded) with javac
//     against Debian's liblucene8-java jars, streams the documents to it
//     as TSV on a pipe and indexes them (StandardTokenizer, lower case, ASCII folding, no
//     stop words, no stemming, a position gap between the values of
//     multi-valued fields; one segment), then serves the same searches
//     over loopback HTTP: the classic query parser over title^3 keyword^2
//     author abstract with AND as the default operator (it reads our query
//     language as is), exact totals, searchAfter for deep pages,
//     SortedSetDocValuesFacetCounts for facets;
//  4. starts the real server, `openshelf serve`, as a child process (so
//     its resident memory can be read from /proc/PID/status, split into
//     mapped file pages and heap), with -serve-args added to its flags
//     (e.g. -search-cache);
//  5. makes one shuffled list of queries, the same for every system, in
//     classes: single words in three document-frequency bands, two- and
//     three-word AND, phrases of 2 to 4 words cut from real titles and
//     abstracts, a OR b, a -b, (a OR b) c, title:word, author:name,
//     prefix*, prefix* AND a frequent word, a word with
//     facets=license,topic,year, a word with sort=-year; compares the
//     totals of every system per class (up to 20 queries a class, within
//     -compare-budget per peer); lets
//     DuckDB recount the facets of faceted queries by scanning the
//     Parquet (a timing column and a correctness check); measures recall
//     at 1 and 10 of known-item probes (title fragments, as words and as
//     phrases);
//  6. measures one system after the other, each in its turn of the page
//     cache (-turns, on by default): the other systems' files are dropped
//     from the cache (POSIX_FADV_DONTNEED) and its own read in once, as if
//     it ran alone on the machine; at 10M the three systems' files do not
//     fit in memory together, and without turns the order of the phases
//     decides what each finds cached. In its turn a system first answers
//     the first searches (first.go): distinct prefixes of 2 to 5 letters,
//     alone and with a frequent word, and phrases of frequent words, none
//     in the list above, each sent once, so that no cache of a repeated
//     query helps; then it is driven over
//     loopback HTTP by one load generator (bounded concurrency, fixed
//     duration after an unrecorded warm-up, keep-alive connections), then
//     the next cursor of a few frequent words is followed 120 pages deep,
//     timing each page, and catalog pages and statistics are measured as
//     the first version of the benchmark did;
//  7. prints Markdown tables: p50/p95/p99 latency and throughput per
//     scenario and system, per query class side by side (the first
//     searches' classes apart), each system's
//     slowest query of each class (highest median over its repeats: the
//     query behind the class's p99), each peer against ours on the very
//     queries the peer answered (PostgreSQL answers a few dozen in 30 s
//     at 10M, too few for a p99), deep pages, recall, totals agreement,
//     resident memory and index sizes.
//
// The numbers come from a shared 2-core machine: the load generator, the
// server and the peers compete for the same cores, which is the point
// (the same conditions for every system), and the report records the
// load average seen during the run.
package bench

// Package bench measures the read server at scale, side by side with
// PostgreSQL full-text search over the same documents and the same
// queries. `openshelf bench` is its command-line front.
//
// A run:
//
//  1. builds a synthetic corpus of N documents (package internal/corpus:
//     real fixture vocabulary, power-law term frequencies) as a snapshot
//     under DIR/data, or reuses the one cached there for the same N and
//     seed;
//  2. starts the real server, `openshelf serve`, as a child process (so its
//     resident memory can be read from /proc/PID/status) with rate limiting
//     off;
//  3. starts a private PostgreSQL cluster (Debian's packages,
//     /usr/lib/postgresql/15/bin, run as the postgres user on a loopback
//     port) under DIR/pg, loads the same documents from the snapshot's
//     documents.parquet into a table with a weighted tsvector (title A,
//     keywords B, author names C; 'simple' configuration over unaccent) and
//     a GIN index, or reuses the cluster loaded for the same snapshot;
//  4. serves PostgreSQL through a small HTTP handler (pgx) answering the
//     equivalent queries: `tsv @@ plainto_tsquery(...)` ranked by
//     ts_rank_cd, first 10 with the total count; catalog pages by
//     ORDER BY id OFFSET; a count(*) as the statistics peer;
//  5. drives both over loopback HTTP with one load generator (bounded
//     concurrency, fixed duration, keep-alive connections) using the same
//     query list: single words from three document-frequency bands and
//     two- and three-word queries taken from the words of random
//     documents, so that every query has hits;
//  6. prints a Markdown table of p50/p95/p99 latency and throughput per
//     scenario and system, and the server's resident memory.
//
// The numbers come from a shared 2-core machine: the load generator, the
// server and PostgreSQL compete for the same cores, which is the point
// (the same conditions for both systems), and the table records the load
// average seen during the run.
package bench

// Package run is the ingest job behind `openshelf ingest`: it finds the
// input files, reads them concurrently with the readers chosen by
// ingest/detect, lets index.Build merge the records of the same work and
// write the snapshot, and assigns topics and applies the pipeline's licence
// filter on the way.
//
// Data flow and concurrency:
//
//	Walk ─► scan (detect + SHA-256 of every file, W goroutines)
//	     ─► read: W reader goroutines (GOMAXPROCS; parsing is the CPU cost)
//	          │ records re-ordered into input order (sequencer)
//	          ▼
//	        index.Build: ingest.Merger (one goroutine; spills to disk)
//	          │ merged documents in id order
//	          ▼
//	        Prepare: licence filter, topics.Assign ─► tables, bundles ─► DATA/current
//
// The scan reads every input once before the real read because the
// snapshot manifest records each input's SHA-256 and index.Config wants the
// inputs before the build starts; it also reports the files that are not
// data before any work is done. It costs one extra sequential read (hashing
// runs far faster than parsing).
//
// Bad input never fails a run: a file that is not data is skipped, a file
// or record that cannot be read is a problem; both are listed in the
// Summary with their paths. Run fails only when it cannot do its job:
// invalid configuration, a missing input path, DATA not writable, a
// cancelled context, or a remote source it cannot fetch yet.
package run

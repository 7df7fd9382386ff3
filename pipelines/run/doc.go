// Package run is the ingest job behind `openshelf ingest`: it finds the
// input files, reads them concurrently with the readers chosen by
// ingest/detect, lets index.Build merge the records of the same work and
// write the snapshot, and assigns topics and applies the pipeline's licence
// filter on the way.
//
// Data flow and concurrency:
//
//	Walk ─► read: W reader goroutines (GOMAXPROCS; parsing is the CPU cost),
//	          each detecting, hashing (SHA-256 for the manifest) and
//	          parsing its file in one pass
//	          │ records re-ordered into input order (sequencer)
//	          ▼
//	        index.Build: ingest.Merger (one goroutine; spills to disk)
//	          │ merged documents in id order
//	          ▼
//	        Prepare: licence filter, topics.Assign ─► tables, bundles ─► DATA/current
//
// Every input is read from disk once: its format is detected from its first
// bytes and its digest computed while the reader consumes it, and the
// manifest's list of inputs is handed to index.Build after the feed
// (index.Config.FeedInputs). Files that are not data are reported as
// skipped when their turn comes.
//
// Bad input never fails a run: a file that is not data is skipped, a file
// or record that cannot be read is a problem; both are listed in the
// Summary with their paths. Run fails only when it cannot do its job:
// invalid configuration, a missing input path, DATA not writable, a
// cancelled context, or a remote source it cannot fetch yet.
package run

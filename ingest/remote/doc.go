// Package remote holds what the remote source adapters of the nightly job
// share: the per-source summary, the checkpoint files under DATA/state/ and
// the Adapter interface the orchestrator (sub-package nightly) drives.
//
// Each adapter keeps a verified local mirror of its source under
// DATA/state/<state>/ and brings it up to date from its cursor: it fetches
// only what changed since the last good run (a new inventory, new update
// files, new partitions, new index dates), never publishes anything itself
// and returns the mirror's files for the orchestrator to ingest. The new
// cursor is committed only after the snapshot holding the delta is
// published, so a run killed at any point resumes from the last good state
// and the files it already has are found again by their checksum.
//
// Sub-packages: download (streamed, verified, retried, per-host bounded
// HTTP downloads), pmcoa (PMC Open Access cloud bucket, diffed on disk,
// mirrored in tar shards), pubmed (PubMed baseline and update files),
// openalex (OpenAlex snapshot partitions and merged ids, in the 2026 or the
// legacy layout), crossref (Crossref REST deltas) and nightly (the run).
package remote

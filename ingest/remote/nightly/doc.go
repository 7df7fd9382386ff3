// Package nightly is the nightly job: `openshelf ingest -pipeline
// pipelines/nightly.toml` with remote sources. One run
//
//  1. takes DATA/state/nightly.lock (a second run at once is refused with
//     the holder's pid and start time);
//  2. runs every enabled remote source's adapter at once; each brings its
//     verified mirror under DATA/state/<state>/ up to date from its cursor
//     and reports fetched, skipped, rejected-by-licence counts, bytes,
//     retries and errors;
//  3. if any source failed, stops: nothing is published, the previous
//     snapshot stays current, the exit code is non-zero, and what was
//     downloaded stays on disk for the next run;
//  4. stages each source's new checkpoint (commit.json), writes
//     DATA/state/run.json with the run time, and builds a snapshot, the
//     readers passing each record through the sources' filters. Every
//     build keeps the works' source records in its segment. After a
//     snapshot this pipeline published so, with only remote sources
//     that each report what they added and what left (remote.Result's
//     Delta, New and Gone), the build is a delta build of the files
//     fetched tonight: the works whose records changed or left (PubMed
//     deletions, OpenAlex merges, PMC versions and removals) are merged
//     again from their kept records, tonight's filters applied. Otherwise
//     (the first night, local sources, other sources than the last
//     night's, -fresh) it reads the pipeline's local sources and every
//     mirror from scratch;
//  5. commits: every commit.json replaces its state.json, the per-source
//     summary is added to the snapshot's manifest.json ("nightly"),
//     run.json is removed, and a Prometheus textfile with the outcome is
//     written (DATA/state/nightly.prom by default).
//
// A run killed anywhere resumes: before step 4 nothing is committed and
// the files already downloaded are found by their checksums; between 4
// and 5 the next run sees run.json, and either finds the snapshot built
// for that run time already current (it only finishes the commit) or
// builds it again with the same run time: each run publishes exactly one
// snapshot.
package nightly

// Package pipelines holds what an ingest run is configured with: the
// pipeline definitions (*.toml, parsed by [Load]) and the curated tables
// (the topic taxonomy topics.csv and its mapping rules topic_rules.csv),
// embedded in the binary through [Files] so a deployed openshelf needs no
// data files beside it.
//
// Sub-packages: topics (the taxonomy and its matcher) and run (the
// orchestration behind `openshelf ingest`).
package pipelines

package pipelines

import "embed"

// Files holds the curated tables shipped with the module, topics.csv and
// topic_rules.csv. Pipeline definitions (*.toml) are read from disk, since
// their input paths are relative to the file.
//
//go:embed topics.csv topic_rules.csv
var Files embed.FS

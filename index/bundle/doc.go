// Package bundle is a topic's bundle, bundles/<slug>.jsonl.zst
// (data/README.md, "bundles"): the JSON lines of the topic's documents,
// metadata and rights only, in id order, as a sequence of independent
// zstd frames, with its frames list bundles/<slug>.frames. It holds the
// writer the index builder uses ([Writer]), the frames list
// ([ParseFrames], [AppendFrames]), what a delta build needs to rewrite
// only the frames whose lines changed ([Dirty], [Stale], [Decode]), and
// the reader of a bundle either way a snapshot stores it ([Open]).
//
// Where frames end depends only on the lines (a frame ends after a line
// whose id is a cut, [IsCut]), so a delta build keeps the frames none of
// whose lines changed, and its bundle is byte for byte a full build's.
// A delta build does not copy the kept frames: it writes the frames it
// changed to a pack of its own, bundles/<slug>/<snapshot id>.zst, and
// the frames list names, for each frame, the file holding it (a pack, or
// the bundle file of a full build, which later snapshots link as a pack).
// The bundle as served is then the listed frames concatenated.
package bundle

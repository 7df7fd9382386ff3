// Package snapshot opens a published archive snapshot for reading.
//
// A snapshot is an immutable directory DATA/snapshots/<id>/ written by the
// index package: Parquet tables, a search index, per-topic bundles and a
// manifest.json. DATA/current is a symbolic link to the snapshot being
// served; a new build switches it atomically. [Open] resolves the link once,
// so a Snapshot keeps pointing at the same directory after a later switch:
// a server holds one Snapshot per generation and reopens when [Current]
// reports a different id.
//
// The package also defines the on-disk contract shared by the writer and the
// readers: table names, the manifest layout and [SchemaVersion]. What both
// sides encode lives here once: snapshot ids ([NextID] makes them,
// [ValidID] checks them; ids.go) and the manifest ([WriteManifest] writes
// it, [OpenDir] reads it). It imports nothing else from this module.
//
// install.go holds the steps that make a finished directory the current
// snapshot, for any writer of a data directory: [Lock], [RemoveLeftovers],
// [Install] (fsync, rename, atomic switch of current), [SwitchCurrent] and
// [Prune]. The replica package installs pulled snapshots with them.
//
// deletions.go holds the first pieces of the segmented layout described in
// docs/architecture.md ("Incremental snapshots"): the deletion file of a
// segment ([WriteDeletions], [ReadDeletions]), the numbering of the live
// documents of several segments in merged order ([MergedNumbers],
// [Numbering]) and the analysts' query of the live rows ([LiveSQL]). The
// index package's delta builds write segments (index/delta.go).
//
// A topic's bundle is read, either way a snapshot stores it, beside its
// writer in package index/bundle; [Snapshot.BundlePath] names its file.
package snapshot

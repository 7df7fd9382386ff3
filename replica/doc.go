// Package replica ships snapshots through S3-compatible object storage, so
// that every server behind a load balancer gets each night's snapshot while
// only what changed crosses the network.
//
// The machine that builds publishes ([Publish]): it hashes every regular
// file of the snapshot directory (SHA-256, cached by device, inode, size
// and modification time, so a file hard-linked from the previous snapshot
// is hashed once), uploads each content the store lacks as
// blobs/<sha256>, then, last, the replica manifest snapshots/<id>.json
// (every path with its size, SHA-256 and mode) and the pointer latest.
// A manifest is written only after all its blobs, so a reader that finds
// one finds a complete snapshot; a reader also checks that every blob is
// listed before trusting it. With [PublishConfig.StoreKeep] the publisher
// then deletes the older manifests and the blobs no kept one names.
//
// Each replica pulls ([Pull]): it lists the manifests, takes the newest
// complete one newer than its current snapshot (a replica that missed
// nights goes straight to the newest: each manifest names a whole
// snapshot), and writes it into DATA/snapshots/.tmp-<id>/. A file whose
// content a kept local snapshot already holds is hard-linked from it; any
// other is downloaded (several at once) into
// DATA/replica/partial/<sha256>.part, resumed with a ranged GET from the
// part's length when a pull was cut, checked against its SHA-256 (a
// corrupt download is deleted and fetched again from the start), fsynced
// and renamed to partial/<sha256>, where a later pull finds it if this one
// fails. The directory is then installed as a local build is (package
// snapshot: rename, atomic switch of DATA/current, pruning beyond the
// snapshots kept). Any failure leaves the previous snapshot current.
//
// DATA/replica/ holds this package's state: hashes.json (the publisher's
// hash cache), manifests/<id>.json (the replica manifest of each local
// snapshot, the index of contents a pull links from) and partial/.
package replica

import "errors"

// Errors; test with errors.Is.
var (
	// ErrConfig reports an invalid store configuration.
	ErrConfig = errors.New("replica: invalid configuration")
	// ErrInvalidManifest means a replica manifest is malformed or names
	// a path outside the snapshot directory.
	ErrInvalidManifest = errors.New("replica: invalid replica manifest")
	// ErrNoSnapshot means the store holds no complete snapshot.
	ErrNoSnapshot = errors.New("replica: no complete snapshot in the store")
	// ErrChecksum means a file's content does not match its SHA-256, after
	// the retries of a download.
	ErrChecksum = errors.New("replica: checksum mismatch")
)

// stateDir is this package's directory under DATA.
const stateDir = "replica"

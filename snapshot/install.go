package snapshot

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// Installation protocol, shared by every writer of a data directory (a
// local build, a replica's pull):
//
//  1. [Lock] DATA/.lock, so two writers never share a data directory;
//  2. [RemoveLeftovers] of killed runs: snapshots/.tmp-* directories and
//     .current-* links;
//  3. write the snapshot into snapshots/.tmp-<id>/, fsync every file;
//  4. [Install]: fsync the tree, rename it to snapshots/<id>, switch
//     DATA/current atomically;
//  5. [Prune] the oldest snapshots beyond the number kept.
//
// A kill at any point leaves current pointing at the previous, complete
// snapshot.

// Names of the temporary entries of a data directory.
const (
	LockFile   = ".lock"     // DATA/.lock, held with flock(2) by a writer
	TmpPrefix  = ".tmp-"     // snapshots/.tmp-<id>/: a snapshot being written
	linkPrefix = ".current-" // DATA/.current-<id>: the link renamed over current
)

// ErrLocked means another writer holds the data directory's lock.
var ErrLocked = errors.New("snapshot: another writer holds the data directory's lock")

// Lock takes the exclusive lock of dataDir (creating DATA/snapshots/), so
// that a pull and a build never write one data directory at once. The
// kernel releases it if the process dies; call unlock when done.
func Lock(dataDir string) (unlock func(), err error) {
	if err := os.MkdirAll(filepath.Join(dataDir, SnapshotsDir), 0o755); err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dataDir, LockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, dataDir)
		}
		return nil, fmt.Errorf("snapshot: lock %s: %w", dataDir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}

// RemoveLeftovers deletes what killed writers left: snapshots/.tmp-*
// directories and DATA/.current-* links. The caller holds the lock.
func RemoveLeftovers(dataDir string) ([]string, error) {
	var removed []string
	for _, c := range []struct{ dir, prefix string }{
		{filepath.Join(dataDir, SnapshotsDir), TmpPrefix},
		{dataDir, linkPrefix},
	} {
		entries, err := os.ReadDir(c.dir)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("snapshot: %w", err)
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), c.prefix) {
				continue
			}
			p := filepath.Join(c.dir, e.Name())
			if err := os.RemoveAll(p); err != nil {
				return removed, fmt.Errorf("snapshot: remove leftover %s: %w", p, err)
			}
			removed = append(removed, p)
		}
	}
	return removed, nil
}

// SyncDir fsyncs a directory, making the entries created in it durable.
func SyncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncTree fsyncs every directory under root, deepest first (the files
// were synced when written).
func syncTree(root string) error {
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(dirs)
	for _, d := range dirs {
		if err := SyncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// Install moves the finished directory tmp (whose files are synced) to
// snapshots/<id> and switches DATA/current to it. It checks the manifest
// first: a directory that [OpenDir] would refuse is never made current.
func Install(dataDir, tmp, id string) error {
	if err := Place(dataDir, tmp, id); err != nil {
		return err
	}
	return SwitchCurrent(dataDir, id)
}

// Place is Install without the switch: tmp becomes snapshots/<id>, complete
// and durable, but not current.
func Place(dataDir, tmp, id string) error {
	snaps := filepath.Join(dataDir, SnapshotsDir)
	final := filepath.Join(snaps, id)
	if err := syncTree(tmp); err != nil {
		return fmt.Errorf("snapshot: sync %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("snapshot: install: %w", err)
	}
	if _, err := OpenDir(final); err != nil {
		// Back to a temporary name, which the next writer removes.
		os.Rename(final, tmp)
		return err
	}
	if err := SyncDir(snaps); err != nil {
		return fmt.Errorf("snapshot: install: %w", err)
	}
	return nil
}

// SwitchCurrent points DATA/current at snapshots/<id> atomically: a new
// link renamed over the old one.
func SwitchCurrent(dataDir, id string) error {
	cur := filepath.Join(dataDir, CurrentLink)
	if fi, err := os.Lstat(cur); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("snapshot: %s exists and is not a symbolic link; refusing to replace it", cur)
	}
	tmpLink := filepath.Join(dataDir, linkPrefix+id)
	os.Remove(tmpLink)
	if err := os.Symlink(filepath.Join(SnapshotsDir, id), tmpLink); err != nil {
		return fmt.Errorf("snapshot: switch current: %w", err)
	}
	if err := os.Rename(tmpLink, cur); err != nil {
		os.Remove(tmpLink)
		return fmt.Errorf("snapshot: switch current: %w", err)
	}
	if err := SyncDir(dataDir); err != nil {
		return fmt.Errorf("snapshot: switch current: %w", err)
	}
	return nil
}

// List returns the ids of the snapshots in dataDir, oldest first (ids sort
// by creation time).
func List(dataDir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dataDir, SnapshotsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("snapshot: %w", err)
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// Prune deletes the oldest snapshots beyond keep, never the one current
// points to, and returns the ids removed. A file hard-linked into a kept
// snapshot stays with it.
func Prune(dataDir string, keep int) ([]string, error) {
	ids, err := List(dataDir)
	if err != nil {
		return nil, err
	}
	snaps := filepath.Join(dataDir, SnapshotsDir)
	cur, _ := Current(dataDir)
	var removed []string
	for i := 0; i < len(ids)-keep; i++ {
		if ids[i] == cur {
			continue
		}
		// Rename first so a crash mid-removal leaves a .tmp- directory,
		// which the next writer cleans, rather than a half-deleted snapshot.
		doomed := filepath.Join(snaps, TmpPrefix+"prune-"+ids[i])
		if err := os.Rename(filepath.Join(snaps, ids[i]), doomed); err != nil {
			return removed, fmt.Errorf("snapshot: prune: %w", err)
		}
		if err := os.RemoveAll(doomed); err != nil {
			return removed, fmt.Errorf("snapshot: prune: %w", err)
		}
		removed = append(removed, ids[i])
	}
	return removed, nil
}

package index

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// Publication protocol (crash safety):
//
//  1. Take an exclusive flock on DATA/.lock (released by the kernel if the
//     process dies), so two builds never share a data directory.
//  2. Remove leftovers of killed runs: snapshots/.tmp-* directories and
//     .current-* temporary links.
//  3. Write everything into snapshots/.tmp-<id>/, fsync every file.
//  4. fsync the directory tree, rename .tmp-<id> to snapshots/<id>, fsync
//     snapshots/.
//  5. Create the link .current-<id> -> snapshots/<id> and rename(2) it over
//     DATA/current, which replaces the link atomically; fsync DATA.
//
// A kill at any point leaves current pointing at the previous, complete
// snapshot: before step 4 the new files are only in a .tmp directory; after
// step 4 and before 5 a complete but unpublished snapshot exists, which the
// retention pruning of a later run removes in due course.

const (
	lockFile   = ".lock"
	tmpPrefix  = ".tmp-"
	linkPrefix = ".current-"
	workDir    = ".work"
)

// newID returns a snapshot id: UTC time to the second and 4 random hex
// digits, so ids sort by time and two builds in one second differ.
func newID(now time.Time) string {
	var b [2]byte
	rand.Read(b[:])
	return now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b[:])
}

// nextID returns a new snapshot id for a build at now that sorts after
// every existing snapshot, even when the clock went backwards or two builds
// start within one second: retention relies on ids sorting by age.
func nextID(dataDir string, now time.Time) (string, error) {
	entries, err := os.ReadDir(filepath.Join(dataDir, snapshot.SnapshotsDir))
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	id := newID(now)
	for _, e := range entries {
		if snapshot.ValidID(e.Name()) && e.Name() >= id {
			t, err := time.Parse("20060102T150405Z", e.Name()[:16])
			if err != nil {
				continue
			}
			id = newID(t.Add(time.Second))
		}
	}
	return id, nil
}

// lockData takes the data directory's build lock.
func lockData(dataDir string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Join(dataDir, snapshot.SnapshotsDir), 0o755); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dataDir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("%w (%s)", ErrLocked, dataDir)
		}
		return nil, fmt.Errorf("index: lock %s: %w", dataDir, err)
	}
	return f, nil
}

func unlock(f *os.File) {
	if f != nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}
}

// removeLeftovers deletes what killed runs left behind. It must hold the
// lock.
func removeLeftovers(dataDir string) ([]string, error) {
	var removed []string
	snaps := filepath.Join(dataDir, snapshot.SnapshotsDir)
	entries, err := os.ReadDir(snaps)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("index: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), tmpPrefix) {
			p := filepath.Join(snaps, e.Name())
			if err := os.RemoveAll(p); err != nil {
				return removed, fmt.Errorf("index: remove leftover %s: %w", p, err)
			}
			removed = append(removed, p)
		}
	}
	entries, err = os.ReadDir(dataDir)
	if err != nil {
		return removed, fmt.Errorf("index: %w", err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), linkPrefix) {
			p := filepath.Join(dataDir, e.Name())
			if err := os.Remove(p); err != nil {
				return removed, fmt.Errorf("index: remove leftover %s: %w", p, err)
			}
			removed = append(removed, p)
		}
	}
	return removed, nil
}

func syncDir(dir string) error {
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

// syncTree fsyncs every directory under root (files were synced when
// closed), deepest first.
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
		if err := syncDir(d); err != nil {
			return err
		}
	}
	return nil
}

// publish moves the finished tmp directory into place and switches current.
// hook, when set, runs between the rename and the switch (crash tests).
func publish(dataDir, tmp, id string, hook func()) error {
	snaps := filepath.Join(dataDir, snapshot.SnapshotsDir)
	final := filepath.Join(snaps, id)
	if err := syncTree(tmp); err != nil {
		return fmt.Errorf("index: sync %s: %w", tmp, err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("index: publish: %w", err)
	}
	if err := syncDir(snaps); err != nil {
		return fmt.Errorf("index: publish: %w", err)
	}
	if hook != nil {
		hook()
	}
	return switchCurrent(dataDir, id)
}

// switchCurrent points DATA/current at snapshots/<id> atomically.
func switchCurrent(dataDir, id string) error {
	cur := filepath.Join(dataDir, snapshot.CurrentLink)
	if fi, err := os.Lstat(cur); err == nil && fi.Mode()&fs.ModeSymlink == 0 {
		return fmt.Errorf("index: %s exists and is not a symbolic link; refusing to replace it", cur)
	}
	tmpLink := filepath.Join(dataDir, linkPrefix+id)
	os.Remove(tmpLink)
	if err := os.Symlink(filepath.Join(snapshot.SnapshotsDir, id), tmpLink); err != nil {
		return fmt.Errorf("index: switch current: %w", err)
	}
	if err := os.Rename(tmpLink, cur); err != nil {
		os.Remove(tmpLink)
		return fmt.Errorf("index: switch current: %w", err)
	}
	if err := syncDir(dataDir); err != nil {
		return fmt.Errorf("index: switch current: %w", err)
	}
	return nil
}

// prune deletes the oldest snapshots beyond keep, never the one current
// points to. Ids sort by creation time.
func prune(dataDir string, keep int) ([]string, error) {
	snaps := filepath.Join(dataDir, snapshot.SnapshotsDir)
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return nil, fmt.Errorf("index: prune: %w", err)
	}
	cur, _ := snapshot.Current(dataDir)
	var ids []string
	for _, e := range entries {
		if e.IsDir() && snapshot.ValidID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	var removed []string
	for i := 0; i < len(ids)-keep; i++ {
		if ids[i] == cur {
			continue
		}
		p := filepath.Join(snaps, ids[i])
		// Rename first so a crash mid-removal leaves a .tmp- directory, which
		// the next run cleans, rather than a half-deleted snapshot.
		doomed := filepath.Join(snaps, tmpPrefix+"prune-"+ids[i])
		if err := os.Rename(p, doomed); err != nil {
			return removed, fmt.Errorf("index: prune: %w", err)
		}
		if err := os.RemoveAll(doomed); err != nil {
			return removed, fmt.Errorf("index: prune: %w", err)
		}
		removed = append(removed, ids[i])
	}
	return removed, nil
}

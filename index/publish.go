package index

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// Publication follows package snapshot's installation protocol (lock,
// leftovers, write into snapshots/.tmp-<id>/, rename, switch current,
// prune): a kill at any point leaves current pointing at the previous,
// complete snapshot.

// workDir is the scratch directory inside a snapshot being written.
const workDir = ".work"

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

// publish moves the finished tmp directory into place and switches current.
// hook, when set, runs between the rename and the switch (crash tests).
func publish(dataDir, tmp, id string, hook func()) error {
	if err := snapshot.Place(dataDir, tmp, id); err != nil {
		return fmt.Errorf("index: publish: %w", err)
	}
	if hook != nil {
		hook()
	}
	return snapshot.SwitchCurrent(dataDir, id)
}

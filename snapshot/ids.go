package snapshot

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"time"
)

var idPattern = regexp.MustCompile(`^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{4,16}$`)

// ValidID reports whether id has the snapshot id form
// 20261122T031500Z-3f9c (UTC time, dash, 4 to 16 hex digits).
func ValidID(id string) bool { return idPattern.MatchString(id) }

// idTime is the layout of an id's time part.
const idTime = "20060102T150405Z"

// newID returns a snapshot id: UTC time to the second and 4 random hex
// digits, so ids sort by time and two builds in one second differ.
func newID(now time.Time) string {
	var b [2]byte
	rand.Read(b[:])
	return now.UTC().Format(idTime) + "-" + hex.EncodeToString(b[:])
}

// NextID returns a new snapshot id for a build at now that sorts after
// every snapshot in dataDir, even when the clock went backwards or two
// builds start within one second: [Prune] relies on ids sorting by age.
func NextID(dataDir string, now time.Time) (string, error) {
	entries, err := os.ReadDir(filepath.Join(dataDir, SnapshotsDir))
	if err != nil {
		return "", fmt.Errorf("snapshot: %w", err)
	}
	id := newID(now)
	for _, e := range entries {
		if ValidID(e.Name()) && e.Name() >= id {
			t, err := time.Parse(idTime, e.Name()[:len(idTime)])
			if err != nil {
				continue
			}
			id = newID(t.Add(time.Second))
		}
	}
	return id, nil
}

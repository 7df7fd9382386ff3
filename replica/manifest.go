package replica

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/openshelf/openshelf/snapshot"
)

// Manifest is the replica manifest of one snapshot, stored as
// snapshots/<id>.json: every regular file of the snapshot directory with
// its content address. It is uploaded after all the blobs it names.
type Manifest struct {
	ID        string    `json:"id"`
	Published time.Time `json:"published"`
	Files     []Entry   `json:"files"`
}

// Entry is one file of a snapshot.
type Entry struct {
	// Path is slash-separated, relative to the snapshot directory.
	Path   string      `json:"path"`
	Size   int64       `json:"size"`
	SHA256 string      `json:"sha256"` // lower-case hex; the blob's key
	Mode   fs.FileMode `json:"mode"`   // permission bits
}

// maxManifest bounds the size of a replica manifest read from a store (a
// million files take about 150 MB).
const maxManifest = 512 << 20

// decodeManifest parses and checks a replica manifest read from key
// snapshots/<id>.json: it names the snapshot id, every path stays inside
// the snapshot directory, appears once and has a SHA-256, and the
// snapshot's own manifest.json is among the files.
func decodeManifest(b []byte, id string) (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrInvalidManifest, id, err)
	}
	if m.ID != id || !snapshot.ValidID(m.ID) {
		return nil, fmt.Errorf("%w: %s names snapshot %q", ErrInvalidManifest, id, m.ID)
	}
	seen := make(map[string]bool, len(m.Files))
	for _, e := range m.Files {
		switch {
		case e.Path == "" || path.Clean(e.Path) != e.Path || !filepath.IsLocal(filepath.FromSlash(e.Path)):
			return nil, fmt.Errorf("%w: %s: path %q", ErrInvalidManifest, id, e.Path)
		case seen[e.Path]:
			return nil, fmt.Errorf("%w: %s: %q listed twice", ErrInvalidManifest, id, e.Path)
		case !validSum(e.SHA256):
			return nil, fmt.Errorf("%w: %s: %q has sha256 %q", ErrInvalidManifest, id, e.Path, e.SHA256)
		case e.Size < 0 || e.Mode&^fs.ModePerm != 0:
			return nil, fmt.Errorf("%w: %s: %q has size %d, mode %v", ErrInvalidManifest, id, e.Path, e.Size, e.Mode)
		}
		seen[e.Path] = true
	}
	if !seen[snapshot.ManifestFile] {
		return nil, fmt.Errorf("%w: %s lists no %s", ErrInvalidManifest, id, snapshot.ManifestFile)
	}
	return &m, nil
}

// validSum reports whether s is a SHA-256 in lower-case hex.
func validSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}

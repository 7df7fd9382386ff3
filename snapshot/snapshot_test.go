package snapshot

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fakeSnapshot writes a snapshot directory with just a manifest.
func fakeSnapshot(t *testing.T, data, id string, version int) string {
	t.Helper()
	dir := filepath.Join(data, SnapshotsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(Manifest{ID: id, SchemaVersion: version, Created: time.Now().UTC()})
	if err := os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func point(t *testing.T, data, id string) {
	t.Helper()
	tmp := filepath.Join(data, ".current-test")
	os.Remove(tmp)
	if err := os.Symlink(filepath.Join(SnapshotsDir, id), tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(data, CurrentLink)); err != nil {
		t.Fatal(err)
	}
}

func TestOpen(t *testing.T) {
	data := t.TempDir()
	if _, err := Open(data); !errors.Is(err, ErrNoSnapshot) {
		t.Fatalf("empty data dir: %v, want ErrNoSnapshot", err)
	}
	a, b := "20261122T031500Z-3f9c", "20261123T031500Z-0a1b"
	dirA := fakeSnapshot(t, data, a, SchemaVersion)
	fakeSnapshot(t, data, b, SchemaVersion)
	point(t, data, a)

	s, err := Open(data)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != a || s.Manifest.ID != a {
		t.Errorf("opened %s", s.ID)
	}
	if want, _ := filepath.EvalSymlinks(dirA); s.Dir != want {
		t.Errorf("Dir = %s, want %s", s.Dir, want)
	}
	if got := s.Path(Documents); got != filepath.Join(s.Dir, "documents.parquet") {
		t.Errorf("Path(documents) = %s", got)
	}
	if got := s.Path(SearchPostings); got != filepath.Join(s.Dir, "search", "postings.parquet") {
		t.Errorf("Path(search/postings) = %s", got)
	}
	if got := s.Path("../../etc/passwd"); got != "" {
		t.Errorf("Path of an unknown table = %q", got)
	}
	if p, err := s.BundlePath("cell-biology"); err != nil || p != filepath.Join(s.Dir, "bundles", "cell-biology.jsonl.zst") {
		t.Errorf("BundlePath = %q, %v", p, err)
	}
	for _, bad := range []string{"", "../x", "A", "a/b", "x.y", string(make([]byte, 65))} {
		if _, err := s.BundlePath(bad); !errors.Is(err, ErrInvalidSlug) {
			t.Errorf("BundlePath(%q): %v", bad, err)
		}
	}

	// Switching current does not move an open snapshot.
	point(t, data, b)
	if id, err := Current(data); err != nil || id != b {
		t.Errorf("Current = %q, %v", id, err)
	}
	if s.ID != a || filepath.Base(s.Dir) != a {
		t.Errorf("open snapshot moved to %s", s.Dir)
	}
	s2, err := Open(data)
	if err != nil || s2.ID != b {
		t.Errorf("reopen: %v %v", s2, err)
	}
}

func TestOpenErrors(t *testing.T) {
	data := t.TempDir()
	newer := "20261122T031500Z-aaaa"
	fakeSnapshot(t, data, newer, SchemaVersion+1)
	point(t, data, newer)
	if _, err := Open(data); !errors.Is(err, ErrSchemaVersion) {
		t.Errorf("newer schema: %v, want ErrSchemaVersion", err)
	}

	mismatch := "20261122T031500Z-bbbb"
	dir := fakeSnapshot(t, data, mismatch, SchemaVersion)
	b, _ := json.Marshal(Manifest{ID: "20200101T000000Z-cccc", SchemaVersion: SchemaVersion})
	os.WriteFile(filepath.Join(dir, ManifestFile), b, 0o644)
	if _, err := OpenDir(dir); !errors.Is(err, ErrInvalidManifest) {
		t.Errorf("id mismatch: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte("{not json"), 0o644)
	if _, err := OpenDir(dir); !errors.Is(err, ErrInvalidManifest) {
		t.Errorf("bad json: %v", err)
	}
	os.Remove(filepath.Join(dir, ManifestFile))
	if _, err := OpenDir(dir); !errors.Is(err, ErrInvalidManifest) {
		t.Errorf("no manifest: %v", err)
	}

	// current pointing at something that is not a snapshot.
	os.Remove(filepath.Join(data, CurrentLink))
	os.Symlink("/etc", filepath.Join(data, CurrentLink))
	if _, err := Current(data); err == nil || errors.Is(err, ErrNoSnapshot) {
		t.Errorf("current -> /etc: %v", err)
	}
}

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"20261122T031500Z-3f9c": true, "20261122T031500Z-3f9c0a1b": true,
		"20261122T031500Z": false, "20261122T031500Z-XYZ1": false, ".tmp-20261122T031500Z-3f9c": false,
		"2026-11-22T03:15:00Z-3f9c": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v", id, got)
		}
	}
}

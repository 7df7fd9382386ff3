package snapshot

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestNextIDSortsAfterEverySnapshot(t *testing.T) {
	now := time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		existing []string
		wantFrom string // the id's time part is at least this
	}{
		{"empty", nil, "20261207T030000Z"},
		{"older", []string{"20261206T030000Z-0a0b"}, "20261207T030000Z"},
		{"same second", []string{"20261207T030000Z-ffff"}, "20261207T030001Z"},
		{"clock went back", []string{"20261208T120000Z-0000", ".tmp-x", "not-an-id"}, "20261208T120001Z"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			if err := os.Mkdir(filepath.Join(data, SnapshotsDir), 0o755); err != nil {
				t.Fatal(err)
			}
			for _, id := range tc.existing {
				if err := os.MkdirAll(filepath.Join(data, SnapshotsDir, id), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			id, err := NextID(data, now)
			if err != nil {
				t.Fatal(err)
			}
			if !ValidID(id) {
				t.Fatalf("NextID = %q, not a valid id", id)
			}
			if id[:len(idTime)] < tc.wantFrom {
				t.Errorf("NextID = %s, want a time of at least %s", id, tc.wantFrom)
			}
			for _, e := range tc.existing {
				if ValidID(e) && id <= e {
					t.Errorf("NextID = %s does not sort after %s", id, e)
				}
			}
		})
	}
}

func TestWriteManifestRoundTrip(t *testing.T) {
	data := t.TempDir()
	id := "20261207T030000Z-0a0b"
	dir := filepath.Join(data, SnapshotsDir, id)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	want := Manifest{ID: id, SchemaVersion: SchemaVersion, Created: time.Date(2026, 12, 7, 3, 0, 0, 0, time.UTC)}
	if err := WriteManifest(dir, &want); err != nil {
		t.Fatal(err)
	}
	s, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if s.Manifest.ID != want.ID || !s.Manifest.Created.Equal(want.Created) {
		t.Errorf("read back %+v, want %+v", s.Manifest, want)
	}
	// A manifest is written once: a second write must not replace it.
	if err := WriteManifest(dir, &want); err == nil {
		t.Error("second WriteManifest succeeded")
	}
}

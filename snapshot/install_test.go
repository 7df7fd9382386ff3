package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInstallAndPrune(t *testing.T) {
	data := t.TempDir()
	unlock, err := Lock(data)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(data); !errors.Is(err, ErrLocked) {
		t.Errorf("second lock: %v, want ErrLocked", err)
	}
	defer unlock()
	ids := []string{"20261201T000000Z-0001", "20261202T000000Z-0002", "20261203T000000Z-0003"}
	for _, id := range ids {
		tmp := filepath.Join(data, SnapshotsDir, TmpPrefix+id)
		fakeSnapshot(t, data, TmpPrefix+id, SchemaVersion)
		// fakeSnapshot names the manifest after the directory; fix the id.
		os.WriteFile(filepath.Join(tmp, ManifestFile), []byte(`{"id":"`+id+`","schema_version":1}`), 0o644)
		if err := Install(data, tmp, id); err != nil {
			t.Fatalf("install %s: %v", id, err)
		}
		if cur, _ := Current(data); cur != id {
			t.Fatalf("current %s after installing %s", cur, id)
		}
	}
	// A directory OpenDir refuses is not made current, and is left as a
	// temporary directory for RemoveLeftovers.
	bad := "20261204T000000Z-0004"
	tmp := fakeSnapshot(t, data, TmpPrefix+bad, SchemaVersion+1)
	if err := Install(data, tmp, bad); !errors.Is(err, ErrInvalidManifest) && !errors.Is(err, ErrSchemaVersion) {
		t.Errorf("installing a bad snapshot: %v", err)
	}
	if cur, _ := Current(data); cur != ids[2] {
		t.Errorf("current %s after a refused install", cur)
	}
	removed, err := RemoveLeftovers(data)
	if err != nil || len(removed) != 1 || !strings.HasSuffix(removed[0], TmpPrefix+bad) {
		t.Errorf("RemoveLeftovers: %v, %v", removed, err)
	}
	// Prune keeps the newest and current, even when current is older.
	if err := SwitchCurrent(data, ids[0]); err != nil {
		t.Fatal(err)
	}
	pruned, err := Prune(data, 1)
	if err != nil || strings.Join(pruned, " ") != ids[1] {
		t.Errorf("Prune: %v, %v; want %s", pruned, err, ids[1])
	}
	left, _ := List(data)
	if strings.Join(left, " ") != ids[0]+" "+ids[2] {
		t.Errorf("left %v", left)
	}
}

package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index/catalog"
	isearch "github.com/openshelf/openshelf/index/search"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/snapshot"
)

// reindexCorpus builds a snapshot of documents citing one another, with a
// sort memory small enough that every sorter spills runs.
func reindexCorpus(t *testing.T) (string, *snapshot.Manifest) {
	t.Helper()
	data := t.TempDir()
	var docs []*ingest.Document
	for i := 1; i <= 40; i++ {
		d := synth(i, "cc-by")
		d.Title = fmt.Sprintf("Neural circuits of zebrafish behaviour %d in the retina", i%7)
		d.References = append(d.References, ingest.Reference{Title: "cited", DOI: fmt.Sprintf("10.1234/test.%d", 1+i%5)})
		if i%3 == 0 {
			d.Sections = nil // no full text
		}
		docs = append(docs, d)
	}
	cfg := testConfig(data)
	cfg.SortMemory = 2048
	return data, build(t, cfg, feedDocs(docs...))
}

func fileEntry(m *snapshot.Manifest, name string) snapshot.File {
	for _, f := range m.Files {
		if f.Name == name {
			return f
		}
	}
	return snapshot.File{}
}

// TestReindex: the rebuilt index is byte for byte the one the build wrote
// (same writer, same documents), published as a new snapshot whose other
// files are the old ones' hard links and whose manifest differs only in
// id, created, previous and the index's entry.
func TestReindex(t *testing.T) {
	data, old := reindexCorpus(t)
	oldSnap := open(t, data)
	// Make the index differ, as a new format would, so that the test sees
	// the entry rewritten rather than carried over.
	idx := filepath.Join(oldSnap.Dir, filepath.FromSlash(isearch.File))
	want, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(idx); err != nil { // a fresh inode: the old one may be linked
		t.Fatal(err)
	}
	if err := os.WriteFile(idx, []byte("stale index"), 0o644); err != nil {
		t.Fatal(err)
	}

	var progress []int64
	m, err := Reindex(context.Background(), ReindexConfig{DataDir: data, Now: testNow.Add(time.Hour), SortMemory: 2048,
		Progress: func(n int64) { progress = append(progress, n) }})
	if err != nil {
		t.Fatal(err)
	}
	cur := open(t, data)
	if cur.ID != m.ID || m.ID == old.ID || m.Previous != old.ID {
		t.Fatalf("current %s, manifest %s (previous %s), old %s", cur.ID, m.ID, m.Previous, old.ID)
	}
	got, err := os.ReadFile(filepath.Join(cur.Dir, filepath.FromSlash(isearch.File)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("reindexed index.bin differs from the built one (%d vs %d bytes)", len(got), len(want))
	}
	if e, o := fileEntry(&cur.Manifest, isearch.File), fileEntry(old, isearch.File); e != o {
		t.Errorf("index entry %+v, want the build's %+v", e, o)
	}
	if len(cur.Manifest.Files) != len(old.Files) || !reflectEqualCounts(cur.Manifest.Counts, old.Counts) {
		t.Errorf("manifest files or counts changed")
	}
	for _, f := range old.Files {
		if f.Name == isearch.File {
			continue
		}
		if fileEntry(&cur.Manifest, f.Name) != f {
			t.Errorf("entry %s changed", f.Name)
		}
		a, err1 := os.Stat(filepath.Join(oldSnap.Dir, filepath.FromSlash(f.Name)))
		b, err2 := os.Stat(filepath.Join(cur.Dir, filepath.FromSlash(f.Name)))
		if err1 != nil || err2 != nil || !os.SameFile(a, b) {
			t.Errorf("%s is not a hard link of the old snapshot's: %v %v", f.Name, err1, err2)
		}
	}
	if _, err := os.Stat(filepath.Join(cur.Dir, workDir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("work directory left in the snapshot: %v", err)
	}
	ix, err := isearch.OpenFile(filepath.Join(cur.Dir, filepath.FromSlash(isearch.File)), cur.ID, isearch.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if len(progress) != 0 {
		t.Errorf("progress %v for 40 documents", progress)
	}
	if dirs := snapshotDirs(t, data); !slices.Contains(dirs, old.ID) || !slices.Contains(dirs, m.ID) || len(dirs) != 2 {
		t.Errorf("snapshots %v", dirs)
	}
}

// TestReindexAddsCatalog: a snapshot written before catalog/catalog.bin
// existed gets one on reindex, byte for byte the file a build writes, with
// its manifest entry.
func TestReindexAddsCatalog(t *testing.T) {
	data, old := reindexCorpus(t)
	oldSnap := open(t, data)
	path := filepath.Join(oldSnap.Dir, filepath.FromSlash(catalog.File))
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if _, err := Reindex(context.Background(), ReindexConfig{DataDir: data, Now: testNow.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	cur := open(t, data)
	got, err := os.ReadFile(filepath.Join(cur.Dir, filepath.FromSlash(catalog.File)))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("converted catalog differs from the built one (%d vs %d bytes)", len(got), len(want))
	}
	if e, o := fileEntry(&cur.Manifest, catalog.File), fileEntry(old, catalog.File); e != o {
		t.Errorf("catalog entry %+v, want the build's %+v", e, o)
	}
}

func reflectEqualCounts(a, b snapshot.Counts) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

func TestReindexCancelledDoesNotPublish(t *testing.T) {
	data, old := reindexCorpus(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Reindex(ctx, ReindexConfig{DataDir: data}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if cur := open(t, data); cur.ID != old.ID {
		t.Errorf("current = %s, want %s", cur.ID, old.ID)
	}
	if dirs := snapshotDirs(t, data); len(dirs) != 1 {
		t.Errorf("snapshots after a cancelled reindex: %v", dirs)
	}
}

func TestReindexWithoutSnapshot(t *testing.T) {
	if _, err := Reindex(context.Background(), ReindexConfig{DataDir: t.TempDir()}); !errors.Is(err, snapshot.ErrNoSnapshot) {
		t.Fatalf("err = %v, want ErrNoSnapshot", err)
	}
}

package archive

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index/content"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/licence"
	"github.com/openshelf/openshelf/snapshot"
)

// TestContentStoreMatchesParquet checks that every document, full text
// and reference list served from content/docs.bin encodes exactly as the
// DuckDB queries over the Parquet tables do, for every document of the
// fixture corpus and of a synthetic one.
func TestContentStoreMatchesParquet(t *testing.T) {
	synth := t.TempDir()
	buildSynthetic(t, synth, 25, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	for name, dir := range map[string]string{"fixtures": testsnap.Fixtures(t), "synthetic": synth} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			g, err := st.acquire()
			if err != nil {
				t.Fatal(err)
			}
			defer g.release()
			if g.content == nil {
				t.Fatal("snapshot has no content store")
			}
			var withText, withRefs int
			for d := range g.catalog.Len() {
				id := string(g.catalog.ID(int32(d)))
				same := func(what string, fast, slow func() (any, error)) {
					t.Helper()
					a, errA := fast()
					b, errB := slow()
					if errA != nil || errB != nil {
						t.Fatalf("%s %s: content store: %v, DuckDB: %v", what, id, errA, errB)
					}
					ja, err := encodeJSON(a)
					if err != nil {
						t.Fatal(err)
					}
					jb, err := encodeJSON(b)
					if err != nil {
						t.Fatal(err)
					}
					if string(ja) != string(jb) {
						t.Errorf("%s %s differs:\ncontent store %s\nDuckDB        %s", what, id, ja, jb)
					}
				}
				same("document", func() (any, error) { return g.document(ctx, id) },
					func() (any, error) { return g.documentSQL(ctx, id) })
				// The paid answer carries the licence receipt (issue 13):
				// one of its rows names the published licence.
				if doc, err := g.document(ctx, id); err == nil && name == "fixtures" &&
					!slices.ContainsFunc(doc.LicenseEvidence, func(r licence.Receipt) bool {
						return string(r.Family) == doc.License && r.Path != "" && r.Input != ""
					}) {
					t.Errorf("document %s (%s): license_evidence %+v names no such licence", id, doc.License, doc.LicenseEvidence)
				}
				same("fulltext", func() (any, error) { return g.fulltext(ctx, id) },
					func() (any, error) { return g.fulltextSQL(ctx, id) })
				same("references", func() (any, error) { return g.references(ctx, id) },
					func() (any, error) { return g.referencesSQL(ctx, id) })
				ft, _ := g.fulltext(ctx, id)
				refs, _ := g.references(ctx, id)
				if ft != nil && len(ft.Sections) > 0 {
					withText++
				}
				if refs != nil && len(refs.References) > 0 {
					withRefs++
				}
			}
			if g.catalog.Len() == 0 || withText == 0 || withRefs == 0 {
				t.Fatalf("corpus too thin to test: %d documents, %d with sections, %d with references",
					g.catalog.Len(), withText, withRefs)
			}
			if _, err := g.document(ctx, "pmc-999999999999"); err == nil {
				t.Error("unknown id: no error")
			}
		})
	}
}

// TestContentStoreOptional checks that a snapshot without content/docs.bin
// (written before it existed) is served through DuckDB, and that one whose
// content store disagrees with its catalog is refused.
func TestContentStoreOptional(t *testing.T) {
	dir := t.TempDir()
	buildSynthetic(t, dir, 5, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	snap, err := snapshot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(snap.Dir, filepath.FromSlash(content.File))
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	st, err := OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.acquire()
	if err != nil {
		t.Fatal(err)
	}
	if g.content != nil {
		t.Error("content store opened although the file is missing")
	}
	id := string(g.catalog.ID(0))
	if d, err := g.document(ctx, id); err != nil || d.ID != id {
		t.Errorf("document through DuckDB: %v, %v", d, err)
	}
	if ft, err := g.fulltext(ctx, id); err != nil || len(ft.Sections) == 0 {
		t.Errorf("fulltext through DuckDB: %v, %v", ft, err)
	}
	g.release()
	st.Close()

	// A content store that does not match the catalog (here: one document
	// fewer), or is damaged, is refused rather than served.
	var short bytes.Buffer
	w, err := content.NewWriter(&short)
	if err != nil {
		t.Fatal(err)
	}
	for range 4 {
		if err := w.Add(&content.Document{ID: id}, nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"fewer documents": short.Bytes(), "truncated": good[:len(good)-1]} {
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if st, err := OpenStore(ctx, StoreConfig{DataDir: dir}); err == nil {
			st.Close()
			t.Errorf("%s: OpenStore accepted the content store", name)
		}
	}
	// The intact file is served again.
	if err := os.WriteFile(path, good, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err = OpenStore(ctx, StoreConfig{DataDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

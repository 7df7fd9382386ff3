package knowledge

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/snapshot"
)

// TestSegmentedTable: the specs table of a segmented snapshot (the fixture
// snapshot and a delta build that deletes a document with statements)
// holds exactly the rows of the same archive fully merged.
func TestSegmentedTable(t *testing.T) {
	ctx := context.Background()
	delta, merged := testsnap.Copy(t), testsnap.Copy(t)
	before, err := loadTable(ctx, delta, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(before.docs) < 2 {
		t.Fatalf("the fixture snapshot has statements of %d documents", len(before.docs))
	}
	gone := before.docs[0].id
	prev, err := snapshot.Open(delta)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{delta, merged} {
		_, err := index.Build(ctx, index.Config{DataDir: dir, Now: time.Now(), Merge: dir == merged,
			Policy: prev.Manifest.Policy},
			func(ctx context.Context, sink ingest.Sink) error {
				return sink.Delete(ingest.Deletion{ID: gone})
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	if s, err := snapshot.Open(delta); err != nil || !s.Segmented() {
		t.Fatalf("the delta build's snapshot is not segmented (%v)", err)
	}
	got, err := loadTable(ctx, delta, nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := loadTable(ctx, merged, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.byDoc[gone]; ok {
		t.Errorf("the deleted document %s still has statements", gone)
	}
	for _, d := range got.docs {
		if _, ok := want.byDoc[d.id]; !ok {
			t.Logf("only in the delta build: %s %q", d.id, d.license)
		}
	}
	if len(got.entries) != len(want.entries) || len(got.entries) >= len(before.entries) ||
		!reflect.DeepEqual(got.docs, want.docs) || !reflect.DeepEqual(got.quantities, want.quantities) {
		t.Fatalf("segmented: %d statements of %d documents; merged: %d of %d (before: %d)",
			len(got.entries), len(got.docs), len(want.entries), len(want.docs), len(before.entries))
	}
	for i := range want.entries {
		if g, w := got.statement(int32(i)), want.statement(int32(i)); !reflect.DeepEqual(g, w) {
			t.Fatalf("statement %d: %+v, want %+v", i, g, w)
		}
	}
}

package pmcoa

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/ingest/remote"
)

// TestSortOrders: metadata keys and articles lines sort in the same
// PMCID order, the plain string order of the PMCIDs, also where one PMCID
// is a prefix of another (PMC123 and PMC1234).
func TestSortOrders(t *testing.T) {
	ids := []string{"PMC1234", "PMC2", "PMC123", "PMC1", "PMC12", "PMC1235", "PMC99", "PMC10"}
	var keys, lines []string
	for _, id := range ids {
		for _, v := range []int{1, 2, 10} {
			keys = append(keys, fmt.Sprintf("metadata/%s.%d.json\tetag", id, v))
		}
		lines = append(lines, id+"\t"+entry{version: 3, shard: "x.tar.zst"}.rest())
	}
	slices.Sort(keys)
	slices.Sort(lines)
	var fromKeys, fromLines []string
	for _, k := range keys {
		id, _, ok := parseKey(strings.Split(k, "\t")[0])
		if !ok {
			t.Fatalf("%s: not a metadata key", k)
		}
		if len(fromKeys) == 0 || fromKeys[len(fromKeys)-1] != id {
			fromKeys = append(fromKeys, id)
		}
	}
	for _, l := range lines {
		e, err := parseEntry([]byte(l))
		if err != nil {
			t.Fatal(err)
		}
		fromLines = append(fromLines, e.id)
	}
	want := slices.Sorted(slices.Values(ids))
	if !slices.Equal(fromKeys, want) || !slices.Equal(fromLines, want) {
		t.Errorf("PMCID order: keys %v, articles %v, want %v", fromKeys, fromLines, want)
	}
	// Every key of one PMCID is contiguous.
	if len(fromKeys) != len(ids) {
		t.Errorf("the keys of a PMCID are not contiguous: %v", fromKeys)
	}
}

// TestParseKey: only metadata/PMC<id>.<version>.json is a metadata key.
func TestParseKey(t *testing.T) {
	for _, tc := range []struct {
		key string
		id  string
		v   int
	}{
		{"metadata/PMC10009416.2.json", "PMC10009416", 2},
		{"metadata/PMC1.10.json", "PMC1", 10},
		{"metadata/PMC1.json", "", 0},
		{"metadata/PMC1.0.json", "", 0},
		{"metadata/PMC1.+2.json", "", 0},
		{"metadata/PMCx.1.json", "", 0},
		{"metadata/sub/PMC1.1.json", "", 0},
		{"PMC1.1.json", "", 0},
	} {
		id, v, ok := parseKey(tc.key)
		if id != tc.id || v != tc.v || ok != (tc.id != "") {
			t.Errorf("parseKey(%q) = %q, %d, %v", tc.key, id, v, ok)
		}
	}
}

// TestNightBatches: fetching batch by batch, with the old articles file
// and the new keys file read forward once, leaves the same articles as
// the whole night done on maps (every changed key fetched, then each
// withdrawn version replaced by the newest listed), over PMCIDs that
// prefix one another, and whatever the batch size.
func TestNightBatches(t *testing.T) {
	for _, size := range []int{1, 2, 7, batch} {
		t.Run(fmt.Sprint(size), func(t *testing.T) { testNightBatches(t, size) })
	}
}

func testNightBatches(t *testing.T, size int) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(3, uint64(size)))
	key := func(id string, v int) string { return fmt.Sprintf("metadata/%s.%d.json", id, v) }
	oldKeys, newKeys := map[string]string{}, map[string]string{}
	old := map[string]article{}
	for i := 1; i <= 400; i++ {
		id := fmt.Sprintf("PMC%d", i)
		k := 1 + i%3
		for v := 1; v <= k; v++ {
			oldKeys[key(id, v)] = "e0"
			newKeys[key(id, v)] = "e0"
		}
		if i%5 != 0 {
			old[id] = article{Version: k, Shard: fmt.Sprintf("s%d.tar.zst", i%4)}
		}
		switch r := rng.IntN(10); r {
		case 0: // a new version
			newKeys[key(id, k+1)] = "e1"
		case 1: // the newest withdrawn
			delete(newKeys, key(id, k))
		case 2: // every version withdrawn
			for v := 1; v <= k; v++ {
				delete(newKeys, key(id, v))
			}
		case 3: // the newest's metadata changed (refetched)
			newKeys[key(id, k)] = "e1"
		case 4: // the newest retracted: rejected by the gate
			newKeys[key(id, k)] = "bad"
		case 5: // a new version rejected, the newest withdrawn
			newKeys[key(id, k+1)] = "bad"
			delete(newKeys, key(id, k))
		}
	}
	newKeys["metadata/PMC7.json"] = "odd" // not a metadata key
	// The stub decides as fetchArticle does, without the network.
	fetchModel := func(arts map[string]article, k, etag string) {
		id, v, _ := parseKey(k)
		a, ok := arts[id]
		if etag == "bad" {
			if ok && a.Version <= v {
				delete(arts, id)
			}
			return
		}
		if !ok || a.Version <= v {
			arts[id] = article{Version: v}
		}
	}
	// The night on maps.
	want := maps.Clone(old)
	var removed []string
	for _, k := range slices.Sorted(maps.Keys(newKeys)) {
		if _, _, ok := parseKey(k); ok && oldKeys[k] != newKeys[k] {
			fetchModel(want, k, newKeys[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(oldKeys)) {
		if _, ok := newKeys[k]; ok {
			continue
		}
		removed = append(removed, k)
		id, v, _ := parseKey(k)
		if a, ok := old[id]; ok && a.Version == v {
			if cur, ok := want[id]; ok && cur.Version == v {
				delete(want, id)
				best, bestV := "", 0
				for nk := range newKeys {
					if nid, nv, ok := parseKey(nk); ok && nid == id && nv > bestV {
						best, bestV = nk, nv
					}
				}
				if best != "" {
					fetchModel(want, best, newKeys[best])
				}
			}
		}
	}

	// The same night batch by batch.
	articles := filepath.Join(dir, "articles.tsv.zst")
	if err := writeArticlesFromMap(articles, old); err != nil {
		t.Fatal(err)
	}
	keysFile := filepath.Join(dir, "keys.tsv.zst")
	if err := writeKeysFromMap(keysFile, newKeys); err != nil {
		t.Fatal(err)
	}
	changedFile := writeLines(t, filepath.Join(dir, "changed"), func(w *bufio.Writer) {
		for _, k := range slices.Sorted(maps.Keys(newKeys)) {
			if oldKeys[k] != newKeys[k] {
				fmt.Fprintf(w, "%s\t%s\n", k, newKeys[k])
			}
		}
	})
	removedFile := writeLines(t, filepath.Join(dir, "removed"), func(w *bufio.Writer) {
		for _, k := range removed {
			fmt.Fprintln(w, k)
		}
	})
	stats := &remote.Stats{}
	n := &night{env: &remote.Env{Stats: stats}, size: size, fetch: func(_ context.Context, _ *remote.Env, _, k, etag string, b *batchArticles) error {
		b.mu.Lock()
		defer b.mu.Unlock()
		fetchModel(b.arts, k, etag)
		return nil
	}}
	runs, err := n.run(context.Background(), diff{Changed: changedFile}, removedFile, articles, keysFile, filepath.Join(dir, "changes"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]article{}
	if err := (articleSet{old: articles, changes: runs}).each(func(e entry) error { got[e.id] = e.article(); return nil }); err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, want) {
		for _, id := range slices.Sorted(maps.Keys(old)) {
			if got[id] != want[id] {
				t.Errorf("%s: got %+v, want %+v (was %+v)", id, got[id], want[id], old[id])
			}
		}
		t.Fatalf("%d articles, want %d", len(got), len(want))
	}
	diffs := 0
	for id := range maps.Keys(old) {
		if got[id] != old[id] {
			diffs++
		}
	}
	for id := range maps.Keys(got) {
		if _, ok := old[id]; !ok {
			diffs++
		}
	}
	if n.changed != diffs || stats.Rejected["unreadable-key"] != 1 {
		t.Errorf("changed %d, want %d; rejected %v", n.changed, diffs, stats.Rejected)
	}
}

func writeLines(t testing.TB, path string, fn func(w *bufio.Writer)) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	if fn != nil {
		fn(w)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

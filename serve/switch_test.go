package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/internal/testsnap"
	"github.com/openshelf/openshelf/pipelines/run"
)

// TestSnapshotSwitchUnderLoad switches DATA/current while clients hammer the
// server: no request may fail, and afterwards answers come from the new
// snapshot.
func TestSnapshotSwitchUnderLoad(t *testing.T) {
	dir := testsnap.Copy(t)
	a := newTestApp(t, dir, nil)
	srv := httptest.NewServer(a.HTTP)
	defer srv.Close()

	oldID := statsOf(t, srv.URL)["snapshot"].(string)

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var total, failed atomic.Int64
	var firstErr atomic.Value
	paths := []string{"/api/stats", "/api/catalog?limit=5&offset=3", "/api/search?q=cell", "/api/topics",
		"/.well-known/ai-data.json", "/api/search?license=CC-BY&limit=3"}
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				res, err := http.Get(srv.URL + paths[(w+i)%len(paths)])
				total.Add(1)
				if err != nil || res.StatusCode != 200 {
					failed.Add(1)
					if err == nil {
						err = fmt.Errorf("%s: status %d", paths[(w+i)%len(paths)], res.StatusCode)
					}
					firstErr.CompareAndSwap(nil, err.Error())
				}
				if res != nil {
					res.Body.Close()
				}
			}
		}(w)
	}

	// A new snapshot of part of the corpus, published while requests flow.
	time.Sleep(200 * time.Millisecond)
	_, err := run.Run(context.Background(), run.Config{DataDir: dir, Fresh: true, Workers: 1,
		Inputs: []run.Input{{Path: fixtures.Path(t, "jats", "elife")}}, Now: testsnap.Now.Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Store.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	wg.Wait()

	if failed.Load() != 0 {
		t.Fatalf("%d of %d requests failed during the switch; first: %v", failed.Load(), total.Load(), firstErr.Load())
	}
	stats := statsOf(t, srv.URL)
	if stats["snapshot"] == oldID {
		t.Fatalf("still serving %s after the switch", oldID)
	}
	if n := stats["documents"].(float64); n < 1 || n > 20 {
		t.Fatalf("new snapshot has %v documents; want the eLife subset", n)
	}
	t.Logf("%d requests, 0 failed; %s -> %s", total.Load(), oldID, stats["snapshot"])
}

func statsOf(t *testing.T, base string) map[string]any {
	t.Helper()
	res, err := http.Get(base + "/api/stats")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}

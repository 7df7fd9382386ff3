package replica

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/openshelf/openshelf/index"
	"github.com/openshelf/openshelf/ingest"
	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

const testBucket = "openshelf"

// testStore is a real S3 server (gofakes3, in memory) on loopback, behind
// a handler that can cut or corrupt chosen responses.
type testStore struct {
	*Store
	backend *s3mem.Backend
	faults  *faults
	cfg     StoreConfig
}

func newTestStore(tb testing.TB) *testStore {
	tb.Helper()
	backend := s3mem.New()
	if err := backend.CreateBucket(testBucket); err != nil {
		tb.Fatal(err)
	}
	f := &faults{next: gofakes3.New(backend).Server()}
	srv := httptest.NewServer(f)
	tb.Cleanup(srv.Close)
	cfg := StoreConfig{Endpoint: srv.URL, Bucket: testBucket, Prefix: "nightly", Region: "us-east-1",
		AccessKey: "AKIDTEST", SecretKey: "secret-test-key", MaxRetries: 1}
	st, err := NewStore(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	return &testStore{Store: st, backend: backend, faults: f, cfg: cfg}
}

// putRaw writes an object of the store as a faulty publisher would.
func (s *testStore) putRaw(tb testing.TB, key string, b []byte) {
	tb.Helper()
	if err := s.put(context.Background(), key, bytes.NewReader(b), int64(len(b)), "application/octet-stream"); err != nil {
		tb.Fatal(err)
	}
}

func (s *testStore) deleteRaw(tb testing.TB, key string) {
	tb.Helper()
	if _, err := s.backend.DeleteObject(testBucket, s.prefix+key); err != nil {
		tb.Fatal(err)
	}
}

// faults serves the S3 server, applying the fault armed for the next GET
// of a key: the body cut after n bytes (the connection dropped), or a byte
// of it flipped. It records the Range header of every GET.
type faults struct {
	next http.Handler

	mu      sync.Mutex
	cut     map[string]int64 // key suffix -> bytes sent before the cut
	corrupt map[string]int   // key suffix -> responses to corrupt
	down    bool             // every request fails with 503
	onCut   func()           // called when a response is cut
	ranges  []string         // "key range" of each GET
}

func (f *faults) armCut(key string, n int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.cut == nil {
		f.cut = map[string]int64{}
	}
	f.cut[key] = n
}

func (f *faults) armCorrupt(key string, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.corrupt == nil {
		f.corrupt = map[string]int{}
	}
	f.corrupt[key] = times
}

func (f *faults) setDown(down bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.down = down
}

// gets returns the recorded GETs of keys ending in suffix.
func (f *faults) gets(suffix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.ranges {
		if k, rng, _ := strings.Cut(r, " "); strings.HasSuffix(k, suffix) {
			out = append(out, rng)
		}
	}
	return out
}

func (f *faults) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	if f.down {
		f.mu.Unlock()
		http.Error(w, "down for the test", http.StatusServiceUnavailable)
		return
	}
	var cut int64 = -1
	corrupt := false
	if r.Method == http.MethodGet && r.URL.Query().Get("list-type") == "" && !strings.HasSuffix(r.URL.Path, "/") {
		f.ranges = append(f.ranges, r.URL.Path+" "+r.Header.Get("Range"))
		for k, n := range f.cut {
			if strings.HasSuffix(r.URL.Path, k) {
				cut = n
				delete(f.cut, k)
			}
		}
		for k, n := range f.corrupt {
			if strings.HasSuffix(r.URL.Path, k) && n > 0 {
				corrupt = true
				f.corrupt[k] = n - 1
			}
		}
	}
	f.mu.Unlock()
	if cut < 0 && !corrupt {
		f.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	f.next.ServeHTTP(rec, r)
	body := rec.Body.Bytes()
	if corrupt && len(body) > 0 {
		body[len(body)/2] ^= 0xff
	}
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(rec.Code)
	if cut >= 0 && cut < int64(len(body)) {
		w.Write(body[:cut])
		w.(http.Flusher).Flush()
		f.mu.Lock()
		onCut := f.onCut
		f.mu.Unlock()
		if onCut != nil {
			onCut()
		}
		panic(http.ErrAbortHandler) // drop the connection mid-body
	}
	w.Write(body)
}

// nights builds real snapshots night after night with the index package:
// a first night of n generated documents, then each night a delta of 1 %
// of them (half new documents, revisions, deletions), as the nightly job
// would.
type nights struct {
	data   string
	g      *corpus.Generator
	topics []index.Topic
	n      int // documents of the first night
	night  int // the next night built
	// merge makes every night a full merge, one complete directory, as
	// `openshelf ingest -merge`; by default a night is a delta build that
	// writes one new segment.
	merge bool
	now   time.Time
}

func newNights(tb testing.TB, n int) *nights {
	tb.Helper()
	v, err := corpus.ReadVocabulary(context.Background(), corpus.VocabularyConfig{}, fixtures.Dir(tb))
	if err != nil {
		tb.Fatal(err)
	}
	slugs, topics, err := corpus.DefaultTopics()
	if err != nil {
		tb.Fatal(err)
	}
	g, err := corpus.New(v, corpus.Config{Seed: 1, Topics: slugs, Documents: n})
	if err != nil {
		tb.Fatal(err)
	}
	return &nights{data: filepath.Join(tb.TempDir(), "builder"), g: g, topics: topics, n: n,
		now: time.Date(2026, 12, 1, 3, 30, 0, 0, time.UTC)}
}

// build publishes the next night's snapshot locally and returns its id.
func (a *nights) build(tb testing.TB) string {
	tb.Helper()
	id := a.buildAt(tb, a.data, a.night, a.night == 0)
	a.night++
	return id
}

// buildAt builds night's records into data: over the snapshot there, or
// alone when fresh.
func (a *nights) buildAt(tb testing.TB, data string, night int, fresh bool) string {
	tb.Helper()
	cfg := index.Config{DataDir: data, Now: a.now.Add(time.Duration(night) * 24 * time.Hour),
		Logger: slog.New(slog.DiscardHandler), Topics: a.topics, Fresh: fresh, Merge: a.merge && !fresh}
	m, err := index.Build(context.Background(), cfg, a.feed(night, cfg.Now))
	if err != nil {
		tb.Fatalf("night %d: %v", night, err)
	}
	return m.ID
}

// feed returns the records of a night: the whole archive the first night,
// then k new documents, revisions and deletions.
func (a *nights) feed(night int, now time.Time) index.Feed {
	return func(_ context.Context, sink ingest.Sink) error {
		if night == 0 {
			for i := range a.n {
				if err := sink.Document(a.g.Doc(i)); err != nil {
					return err
				}
			}
			return nil
		}
		k := max(a.n/100, 4)
		first := a.n + (night-1)*(k/2)
		for i := first; i < first+k/2; i++ {
			if err := sink.Document(a.g.Doc(i)); err != nil {
				return err
			}
		}
		for j := range k - k/2 {
			i := (night*7919 + j*131) % a.n
			if j%4 == 3 {
				if err := sink.Delete(ingest.Deletion{ID: corpus.ID(i), Origin: "test"}); err != nil {
					return err
				}
				continue
			}
			d := a.g.Doc(i)
			d.Title += " (revised night " + strconv.Itoa(night) + ")"
			d.Updated = now
			if err := sink.Document(d); err != nil {
				return err
			}
		}
		return nil
	}
}

// current returns the id DATA/current names.
func current(tb testing.TB, data string) string {
	tb.Helper()
	id, err := snapshot.Current(data)
	if err != nil {
		tb.Fatal(err)
	}
	return id
}

// treeFiles reads every regular file under dir, by slash path.
func treeFiles(tb testing.TB, dir string) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = b
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return out
}

// sameSnapshot fails unless the current snapshots of two data directories
// are the same id with byte-identical files.
func sameSnapshot(tb testing.TB, want, got string) {
	tb.Helper()
	w, err := snapshot.Open(want)
	if err != nil {
		tb.Fatal(err)
	}
	g, err := snapshot.Open(got)
	if err != nil {
		tb.Fatalf("replica: %v", err)
	}
	if w.ID != g.ID {
		tb.Fatalf("replica serves %s, the builder %s", g.ID, w.ID)
	}
	wf, gf := treeFiles(tb, w.Dir), treeFiles(tb, g.Dir)
	if len(wf) != len(gf) {
		tb.Errorf("replica has %d files, the builder %d", len(gf), len(wf))
	}
	for p, b := range wf {
		if !bytes.Equal(gf[p], b) {
			tb.Errorf("%s: %d bytes differ from the builder's %d", p, len(gf[p]), len(b))
		}
	}
}

// quiet is a logger for tests that read no logs.
func quiet() *slog.Logger { return slog.New(slog.DiscardHandler) }

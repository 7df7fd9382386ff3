package replica

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshelf/openshelf/internal/corpus"
	"github.com/openshelf/openshelf/serve/archive"
	"github.com/openshelf/openshelf/serve/registry"
	"github.com/openshelf/openshelf/snapshot"
)

// Three nights built by the index package and published; replica A pulls
// every night, replica B only after the first and then after the third.
// Both end on the builder's snapshot, byte for byte, and only what changed
// crosses the network.
func TestNightsTwoReplicas(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	a := newNights(t, 400)
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	repA, repB := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	pull := func(data string) *PullStats {
		t.Helper()
		s, err := Pull(ctx, st.Store, PullConfig{DataDir: data, Logger: log})
		if err != nil {
			t.Fatalf("pull into %s: %v", filepath.Base(data), err)
		}
		return s
	}
	var ids []string
	for night := range 3 {
		id := a.build(t)
		ids = append(ids, id)
		ps, err := Publish(ctx, st.Store, PublishConfig{DataDir: a.data, Logger: log})
		if err != nil {
			t.Fatalf("night %d: publish: %v", night, err)
		}
		if ps.ID != id || ps.Files == 0 || ps.Uploaded == 0 {
			t.Fatalf("night %d: published %+v", night, ps)
		}
		sa := pull(repA)
		if sa.ID != id || sa.Downloaded+sa.Linked != sa.Files || sa.Bytes != ps.Bytes {
			t.Errorf("night %d: replica A pulled %+v, published %+v", night, sa, ps)
		}
		if night > 0 && sa.DownloadedBytes != ps.UploadedBytes {
			// Every blob new tonight is downloaded once; the rest is linked.
			t.Errorf("night %d: replica A downloaded %d bytes, the builder uploaded %d", night, sa.DownloadedBytes, ps.UploadedBytes)
		}
		sameSnapshot(t, a.data, repA)
		if night == 0 {
			pull(repB)
			sameSnapshot(t, a.data, repB)
		}
		t.Logf("night %d: %d files, %d bytes; uploaded %d blobs, %d bytes; A downloaded %d bytes, linked %d files",
			night, ps.Files, ps.Bytes, ps.Uploaded, ps.UploadedBytes, sa.DownloadedBytes, sa.Linked)
	}
	sb := pull(repB)
	if sb.ID != ids[2] || sb.Previous != ids[0] {
		t.Errorf("replica B caught up from %s to %s, want %s to %s", sb.Previous, sb.ID, ids[0], ids[2])
	}
	sameSnapshot(t, a.data, repB)
	sameSnapshot(t, repA, repB)
	title := strings.Fields(a.g.Doc(5).Title)
	revised := corpus.ID((1*7919 + 0*131) % a.n) // revised on night 1
	requests := []struct{ endpoint, input string }{
		{"stats", `{}`},
		{"topics", `{}`},
		{"catalog", `{"limit":50,"offset":100}`},
		{"search", `{"q":"` + title[0] + `","limit":20,"facets":["license","topic","year"]}`},
		{"search", `{"q":"\"` + strings.Join(title[:2], " ") + `\"","limit":20,"sort":"cited_by"}`},
		{"document", `{"id":"` + revised + `"}`},
		{"references", `{"id":"` + corpus.ID(7) + `"}`},
	}
	want := serveJSON(t, a.data, requests)
	if !strings.Contains(want[5], "revised night 1") {
		t.Fatalf("the builder does not serve the revision of %s: %s", revised, want[5])
	}
	for _, data := range []string{repA, repB} {
		for i, got := range serveJSON(t, data, requests) {
			if got != want[i] {
				t.Errorf("%s answers %s %s with\n%s\nthe builder with\n%s", filepath.Base(data), requests[i].endpoint, requests[i].input, got, want[i])
			}
		}
	}
	if s := pull(repA); !s.UpToDate || s.ID != "" {
		t.Errorf("a second pull did %+v", s)
	}
	for data, want := range map[string][]string{repA: ids, repB: {ids[0], ids[2]}} {
		got, err := snapshot.List(data)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("%s keeps %v, want %v", filepath.Base(data), got, want)
		}
	}
	if got := readRaw(t, st, latestKey); strings.TrimSpace(got) != ids[2] {
		t.Errorf("latest = %q, want %s", got, ids[2])
	}
	for _, secret := range []string{st.cfg.SecretKey, st.cfg.AccessKey} {
		if strings.Contains(logs.String(), secret) {
			t.Errorf("the logs hold a credential: %s", logs.String())
		}
	}
}

func readRaw(tb testing.TB, st *testStore, key string) string {
	tb.Helper()
	obj, err := st.backend.GetObject(testBucket, st.prefix+key, nil)
	if err != nil {
		tb.Fatal(err)
	}
	defer obj.Contents.Close()
	var b bytes.Buffer
	b.ReadFrom(obj.Contents)
	return b.String()
}

// writeSnap writes a snapshot directory by hand: the files given, files
// hard-linked from the snapshot from (unless ""), and a manifest.json;
// current is switched to it.
func writeSnap(tb testing.TB, data, id, from string, files map[string][]byte) {
	tb.Helper()
	dir := filepath.Join(data, snapshot.SnapshotsDir, id)
	if from != "" {
		src := filepath.Join(data, snapshot.SnapshotsDir, from)
		for p := range treeFiles(tb, src) {
			if p == snapshot.ManifestFile {
				continue
			}
			os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
			if err := os.Link(filepath.Join(src, p), filepath.Join(dir, p)); err != nil {
				tb.Fatal(err)
			}
		}
	}
	for p, b := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	m, _ := json.Marshal(snapshot.Manifest{ID: id, SchemaVersion: snapshot.SchemaVersion, Created: time.Now().UTC(), Previous: from})
	if err := os.WriteFile(filepath.Join(dir, snapshot.ManifestFile), m, 0o644); err != nil {
		tb.Fatal(err)
	}
	if err := snapshot.SwitchCurrent(data, id); err != nil {
		tb.Fatal(err)
	}
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.Read(b)
	return b
}

func sum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

const (
	id1 = "20261201T033000Z-0001"
	id2 = "20261202T033000Z-0002"
	id3 = "20261203T033000Z-0003"
)

// A snapshot whose segment files are hard links of the previous one's:
// the publisher hashes and uploads only the new contents, and publishing
// again uploads nothing.
func TestPublishShipsContent(t *testing.T) {
	ctx := context.Background()
	st := newTestStore(t)
	data := t.TempDir()
	seg := randomBytes(300_000)
	writeSnap(t, data, id1, "", map[string][]byte{"segments/segment=1/documents.parquet": seg, "topics.parquet": []byte("t1")})
	p1, err := Publish(ctx, st.Store, PublishConfig{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	writeSnap(t, data, id2, id1, map[string][]byte{"segments/segment=2/documents.parquet": []byte("new segment"), "topics.parquet": []byte("t2"),
		"copy-of-seg.bin": seg})
	p2, err := Publish(ctx, st.Store, PublishConfig{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	p3, err := Publish(ctx, st.Store, PublishConfig{DataDir: data, ID: id2})
	if err != nil {
		t.Fatal(err)
	}
	if p1.Uploaded != 3 || p1.HashedBytes != p1.Bytes {
		t.Errorf("first night: %+v, want 3 blobs uploaded and every byte hashed", p1)
	}
	m2 := p2.Bytes - int64(len(seg))*2 - int64(len("new segment")+len("t2"))
	if p2.Files != 5 || p2.Uploaded != 3 || p2.UploadedBytes != int64(len("new segment")+len("t2"))+m2 {
		t.Errorf("second night: %+v, want the new segment, topics and manifest uploaded", p2)
	}
	if p2.HashedBytes != p2.Bytes-int64(len(seg)) {
		t.Errorf("second night hashed %d bytes, want all but the hard-linked segment (%d)", p2.HashedBytes, p2.Bytes-int64(len(seg)))
	}
	if p3.Uploaded != 0 || p3.HashedBytes != 0 {
		t.Errorf("publishing again: %+v, want nothing uploaded or hashed", p3)
	}
	var m Manifest
	if err := json.Unmarshal([]byte(readRaw(t, st, manifestKey(id2))), &m); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range m.Files {
		got[e.Path] = e.SHA256
	}
	if got["copy-of-seg.bin"] != sum(seg) || got["segments/segment=1/documents.parquet"] != sum(seg) || len(got) != 5 {
		t.Errorf("replica manifest: %v", got)
	}
}

// pullOK pulls into data and fails the test on error.
func pullOK(tb testing.TB, st *testStore, data string) *PullStats {
	tb.Helper()
	s, err := Pull(context.Background(), st.Store, PullConfig{DataDir: data, Logger: quiet()})
	if err != nil {
		tb.Fatalf("pull: %v", err)
	}
	return s
}

// twoNights publishes id1 and id2 (id2 adds big.bin) and pulls id1 into
// a fresh replica, whose data directory it returns with big.bin's content.
func twoNights(tb testing.TB, st *testStore) (builder, replica string, big []byte) {
	tb.Helper()
	builder, replica = tb.TempDir(), tb.TempDir()
	writeSnap(tb, builder, id1, "", map[string][]byte{"a.parquet": randomBytes(1000)})
	if _, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: builder}); err != nil {
		tb.Fatal(err)
	}
	pullOK(tb, st, replica)
	big = randomBytes(1 << 20)
	writeSnap(tb, builder, id2, id1, map[string][]byte{"big.bin": big})
	if _, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: builder}); err != nil {
		tb.Fatal(err)
	}
	return builder, replica, big
}

// A download cut mid-file resumes from the part's length with a ranged
// GET: in the same pull, or in the next one after a pull that gave up (as
// a killed one would).
func TestPullResumesCutDownload(t *testing.T) {
	for _, tc := range []struct {
		name     string
		attempts int
	}{{"next pull", 1}, {"same pull", 3}} {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestStore(t)
			builder, replica, big := twoNights(t, st)
			const cutAt = 400_000
			st.faults.armCut(blobKey(sum(big)), cutAt)
			s, err := Pull(context.Background(), st.Store, PullConfig{DataDir: replica, Attempts: tc.attempts, Logger: quiet()})
			if tc.attempts == 1 {
				if err == nil {
					t.Fatal("a pull whose download was cut succeeded")
				}
				if cur := current(t, replica); cur != id1 {
					t.Fatalf("current is %s after a failed pull, want %s", cur, id1)
				}
				fi, err := os.Stat(filepath.Join(replica, stateDir, partialDir, sum(big)+partExt))
				if err != nil || fi.Size() != cutAt {
					t.Fatalf("partial file: %v, %v; want %d bytes", fi, err, cutAt)
				}
				s = pullOK(t, st, replica)
			} else if err != nil {
				t.Fatal(err)
			}
			gets := st.faults.gets(sum(big))
			if len(gets) != 2 || gets[0] != "" || gets[1] != "bytes=400000-" {
				t.Errorf("GETs of the blob: %q, want the whole then bytes=400000-", gets)
			}
			if s.Resumed != 1 || s.ID != id2 {
				t.Errorf("pull: %+v, want id2 with one resumed download", s)
			}
			sameSnapshot(t, builder, replica)
			if _, err := os.Stat(filepath.Join(replica, stateDir, partialDir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("partial downloads left after a pull: %v", err)
			}
		})
	}
}

// A download whose bytes do not match the checksum is refused, deleted and
// fetched again from the start.
func TestPullRefetchesCorruptDownload(t *testing.T) {
	st := newTestStore(t)
	builder, replica, big := twoNights(t, st)
	st.faults.armCorrupt(blobKey(sum(big)), 1)
	s := pullOK(t, st, replica)
	if s.Refused != 1 || s.ID != id2 {
		t.Errorf("pull: %+v, want one refused download", s)
	}
	if gets := st.faults.gets(sum(big)); len(gets) != 2 || gets[1] != "" {
		t.Errorf("GETs of the blob: %q, want two whole ones", gets)
	}
	sameSnapshot(t, builder, replica)
}

// A corrupt object in the store is refused as often as it is fetched: the
// pull fails and the previous snapshot stays current, with nothing of the
// bad object kept. Once the object is repaired, the next pull succeeds.
func TestPullRefusesCorruptObject(t *testing.T) {
	st := newTestStore(t)
	builder, replica, big := twoNights(t, st)
	bad := bytes.Clone(big)
	bad[12345] ^= 1
	st.putRaw(t, blobKey(sum(big)), bad)
	_, err := Pull(context.Background(), st.Store, PullConfig{DataDir: replica, Logger: quiet()})
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("pull of a corrupt object: %v, want ErrChecksum", err)
	}
	if cur := current(t, replica); cur != id1 {
		t.Fatalf("current is %s, want %s", cur, id1)
	}
	if n := len(st.faults.gets(sum(big))); n != 3 {
		t.Errorf("the corrupt object was fetched %d times, want 3", n)
	}
	assertClean(t, replica, id1)
	assertNoPart(t, replica, sum(big))
	st.putRaw(t, blobKey(sum(big)), big)
	pullOK(t, st, replica)
	sameSnapshot(t, builder, replica)
}

// assertClean fails unless the replica holds exactly the snapshots ids
// and no temporary directory.
func assertClean(tb testing.TB, data string, ids ...string) {
	tb.Helper()
	entries, _ := os.ReadDir(filepath.Join(data, snapshot.SnapshotsDir))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != strings.Join(ids, " ") {
		tb.Errorf("snapshots/ holds %v, want %v", names, ids)
	}
}

// assertNoPart fails if anything of blob sum is kept in partial/.
func assertNoPart(tb testing.TB, data, sum string) {
	tb.Helper()
	parts, _ := os.ReadDir(filepath.Join(data, stateDir, partialDir))
	for _, p := range parts {
		if strings.HasPrefix(p.Name(), sum) {
			if fi, _ := p.Info(); fi != nil && fi.Size() > 0 {
				tb.Errorf("a download of a refused object is kept: %s", p.Name())
			}
		}
	}
}

// On every failure the previous snapshot stays current and nothing half
// written is left in snapshots/.
func TestPullFailureKeepsPrevious(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(t *testing.T, st *testStore, replica string, big []byte) context.Context
		want   error
	}{
		{"store down", func(t *testing.T, st *testStore, _ string, _ []byte) context.Context {
			st.faults.setDown(true)
			return context.Background()
		}, nil},
		{"blob missing", func(t *testing.T, st *testStore, _ string, big []byte) context.Context {
			st.deleteRaw(t, blobKey(sum(big)))
			return context.Background()
		}, ErrNoSnapshot},
		{"manifest escapes the directory", func(t *testing.T, st *testStore, _ string, big []byte) context.Context {
			m := Manifest{ID: id3, Files: []Entry{{Path: "../../outside", Size: int64(len(big)), SHA256: sum(big), Mode: 0o644}}}
			b, _ := json.Marshal(m)
			st.putRaw(t, manifestKey(id3), b)
			return context.Background()
		}, ErrInvalidManifest},
		{"snapshot of another schema", func(t *testing.T, st *testStore, _ string, _ []byte) context.Context {
			sm, _ := json.Marshal(snapshot.Manifest{ID: id3, SchemaVersion: snapshot.SchemaVersion + 1})
			st.putRaw(t, blobKey(sum(sm)), sm)
			b, _ := json.Marshal(Manifest{ID: id3, Files: []Entry{{Path: snapshot.ManifestFile, Size: int64(len(sm)), SHA256: sum(sm), Mode: 0o644}}})
			st.putRaw(t, manifestKey(id3), b)
			return context.Background()
		}, snapshot.ErrSchemaVersion},
		{"another writer holds the lock", func(t *testing.T, _ *testStore, replica string, _ []byte) context.Context {
			unlock, err := snapshot.Lock(replica)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(unlock)
			return context.Background()
		}, snapshot.ErrLocked},
		{"cancelled mid-file", func(t *testing.T, st *testStore, _ string, big []byte) context.Context {
			ctx, cancel := context.WithCancel(context.Background())
			st.faults.armCut(blobKey(sum(big)), 100_000)
			st.faults.onCut = cancel
			return ctx
		}, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := newTestStore(t)
			_, replica, big := twoNights(t, st)
			ctx := tc.break_(t, st, replica, big)
			_, err := Pull(ctx, st.Store, PullConfig{DataDir: replica, Logger: quiet()})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Fatalf("pull: %v, want %v", err, tc.want)
			}
			if cur := current(t, replica); cur != id1 {
				t.Fatalf("current is %s, want %s", cur, id1)
			}
			if _, err := snapshot.Open(replica); err != nil {
				t.Fatal(err)
			}
			if tc.want != snapshot.ErrLocked {
				entries, _ := os.ReadDir(filepath.Join(replica, snapshot.SnapshotsDir))
				if len(entries) != 1 {
					t.Errorf("snapshots/ holds %d entries after a failed pull", len(entries))
				}
			}
		})
	}
}

// A file over the client's part size goes up as a multipart upload and
// comes back whole.
func TestMultipartFile(t *testing.T) {
	st := newTestStore(t)
	builder, replica := t.TempDir(), t.TempDir()
	writeSnap(t, builder, id1, "", map[string][]byte{"search/postings.parquet": randomBytes(17 << 20)})
	if _, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: builder}); err != nil {
		t.Fatal(err)
	}
	pullOK(t, st, replica)
	sameSnapshot(t, builder, replica)
}

// A pull that fails keeps the files it had downloaded and verified (files
// are fetched in path order, one at a time here): the next one fetches
// only the rest.
func TestFailedPullKeepsDownloads(t *testing.T) {
	st := newTestStore(t)
	builder, replica := t.TempDir(), t.TempDir()
	writeSnap(t, builder, id1, "", map[string][]byte{"a.parquet": randomBytes(1000)})
	if _, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: builder}); err != nil {
		t.Fatal(err)
	}
	pullOK(t, st, replica)
	good, bad := randomBytes(200_000), randomBytes(300_000)
	writeSnap(t, builder, id2, id1, map[string][]byte{"good.bin": good, "z-bad.bin": bad})
	if _, err := Publish(context.Background(), st.Store, PublishConfig{DataDir: builder}); err != nil {
		t.Fatal(err)
	}
	broken := bytes.Clone(bad)
	broken[0] ^= 1
	st.putRaw(t, blobKey(sum(bad)), broken)
	if _, err := Pull(context.Background(), st.Store, PullConfig{DataDir: replica, Workers: 1, Logger: quiet()}); !errors.Is(err, ErrChecksum) {
		t.Fatalf("pull: %v, want ErrChecksum", err)
	}
	st.putRaw(t, blobKey(sum(bad)), bad)
	s := pullOK(t, st, replica)
	if n := len(st.faults.gets(sum(good))); n != 1 {
		t.Errorf("good.bin was fetched %d times, want once", n)
	}
	if s.Downloaded != 1 || s.DownloadedBytes != int64(len(bad)) {
		t.Errorf("second pull: %+v, want only z-bad.bin downloaded", s)
	}
	sameSnapshot(t, builder, replica)
}

// serveJSON answers requests (archive endpoint, JSON input) from data's
// current snapshot through the server's archive package, as
// `openshelf serve` does, and returns each answer as JSON.
func serveJSON(tb testing.TB, data string, requests []struct{ endpoint, input string }) []string {
	tb.Helper()
	ctx := context.Background()
	store, err := archive.OpenStore(ctx, archive.StoreConfig{DataDir: data})
	if err != nil {
		tb.Fatal(err)
	}
	defer store.Close()
	endpoints := map[string]*registry.Endpoint{}
	for _, e := range (&archive.Service{Store: store, BaseURL: "https://archive.test"}).Endpoints() {
		endpoints[e.Name] = e
	}
	var out []string
	for _, r := range requests {
		e := endpoints[r.endpoint]
		if e == nil {
			tb.Fatalf("no endpoint %s", r.endpoint)
		}
		in := e.NewInput()
		if err := json.Unmarshal([]byte(r.input), in); err != nil {
			tb.Fatal(err)
		}
		if v, ok := in.(interface{ Validate() error }); ok {
			if err := v.Validate(); err != nil {
				tb.Fatalf("%s %s: %v", r.endpoint, r.input, err)
			}
		}
		if err := e.Check(ctx, in); err != nil {
			tb.Fatalf("%s %s: %v", r.endpoint, r.input, err)
		}
		res, err := e.Handle(ctx, in)
		if err != nil {
			tb.Fatalf("%s %s: %v", r.endpoint, r.input, err)
		}
		b, err := json.Marshal(res.Value)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// A pull stopped between installing the directory and switching current
// leaves snapshots/<id> complete: the next pull switches to it without
// downloading, or replaces it when a file of it is damaged.
func TestPullFindsInstalledSnapshot(t *testing.T) {
	for _, damaged := range []bool{false, true} {
		t.Run(map[bool]string{false: "intact", true: "damaged"}[damaged], func(t *testing.T) {
			st := newTestStore(t)
			builder, replica, _ := twoNights(t, st)
			dir := filepath.Join(replica, snapshot.SnapshotsDir, id2)
			if err := os.CopyFS(dir, os.DirFS(filepath.Join(builder, snapshot.SnapshotsDir, id2))); err != nil {
				t.Fatal(err)
			}
			if damaged {
				if err := os.WriteFile(filepath.Join(dir, "big.bin"), []byte("short"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s := pullOK(t, st, replica)
			if s.ID != id2 || (s.DownloadedBytes == 0) == damaged {
				t.Errorf("pull: %+v", s)
			}
			sameSnapshot(t, builder, replica)
			assertClean(t, replica, id1, id2)
		})
	}
}

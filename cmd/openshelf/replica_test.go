package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"

	"github.com/openshelf/openshelf/snapshot"
)

// `openshelf publish` on the builder and `openshelf pull` on a replica,
// configured as an operator would: flags for the store, the standard AWS
// environment for the credentials.
func TestPublishPullCommands(t *testing.T) {
	backend := s3mem.New()
	if err := backend.CreateBucket("shelf"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(gofakes3.New(backend).Server())
	defer srv.Close()
	builder, replica := t.TempDir(), t.TempDir()
	const id = "20261201T033000Z-00aa"
	dir := filepath.Join(builder, snapshot.SnapshotsDir, id)
	os.MkdirAll(filepath.Join(dir, "bundles"), 0o755)
	writeTestSnapshot(t, builder, id, map[string][]byte{"bundles/x.jsonl.zst": []byte("bundle")})
	vars := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDCMD", "AWS_SECRET_ACCESS_KEY": "cmd-secret", "AWS_REGION": "us-east-1",
		"OPENSHELF_BUCKET": "shelf"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"publish", "-data", builder, "-endpoint", srv.URL, "-prefix", "openshelf/"}, "uploaded 2 blobs"},
		{[]string{"publish", "-data", builder, "-endpoint", srv.URL, "-prefix", "openshelf/"}, "uploaded 0 blobs"},
		{[]string{"pull", "-data", replica, "-endpoint", srv.URL, "-prefix", "openshelf/"}, "installed " + id},
		{[]string{"pull", "-data", replica, "-endpoint", srv.URL, "-prefix", "openshelf/"}, "up to date"},
	} {
		e, out, errb := testEnv(vars)
		if code := dispatch(context.Background(), e, c.args); code != exitOK {
			t.Fatalf("openshelf %s: exit %d: %s", strings.Join(c.args, " "), code, errb)
		}
		if !strings.Contains(out.String(), c.want) {
			t.Errorf("openshelf %s printed %q, want %q", c.args[0], out, c.want)
		}
		if strings.Contains(errb.String(), "cmd-secret") || strings.Contains(out.String(), "cmd-secret") {
			t.Errorf("openshelf %s printed the secret key", c.args[0])
		}
	}
	if b, err := os.ReadFile(filepath.Join(replica, "current", "bundles", "x.jsonl.zst")); err != nil || string(b) != "bundle" {
		t.Errorf("replica's bundle: %q, %v", b, err)
	}
}

func TestPublishPullUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"pull", "-bucket", "b"}, nil, "no -endpoint"},
		{[]string{"pull", "-endpoint", "http://127.0.0.1:9"}, nil, "no bucket"},
		{[]string{"publish", "-bucket", "b", "-endpoint", "https://AKID:topsecret@s3.example"}, nil, "carries credentials"},
		{[]string{"pull", "-bucket", "b", "-endpoint", "http://127.0.0.1:9"}, map[string]string{"AWS_SECRET_ACCESS_KEY": "x"}, "both"},
		{[]string{"pull", "-bucket", "b", "-endpoint", "http://127.0.0.1:9", "-keep", "-1"}, nil, "negative"},
		{[]string{"pull", "-bucket", "b", "-endpoint", "http://127.0.0.1:9", "extra"}, nil, "unexpected argument"},
	} {
		e, _, errb := testEnv(c.env)
		if code := dispatch(context.Background(), e, c.args); code != exitUsage {
			t.Errorf("openshelf %s: exit %d, want %d", strings.Join(c.args, " "), code, exitUsage)
		}
		if !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "topsecret") {
			t.Errorf("openshelf %s: %q, want %q and no secret", strings.Join(c.args, " "), errb, c.want)
		}
	}
}

// writeTestSnapshot writes a snapshot directory with files and a manifest
// and makes it current.
func writeTestSnapshot(t *testing.T, data, id string, files map[string][]byte) {
	t.Helper()
	dir := filepath.Join(data, snapshot.SnapshotsDir, id)
	m, _ := json.Marshal(snapshot.Manifest{ID: id, SchemaVersion: snapshot.SchemaVersion, Created: time.Now().UTC()})
	files[snapshot.ManifestFile] = m
	for p, b := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := snapshot.SwitchCurrent(data, id); err != nil {
		t.Fatal(err)
	}
}

// hangingStore serves the S3 server, but holds the GET of one key after
// half its body until released, and records the Range of each GET of it.
type hangingStore struct {
	next    http.Handler
	key     string
	release chan struct{}
	mu      sync.Mutex
	ranges  []string
}

func (h *hangingStore) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet || !strings.HasSuffix(r.URL.Path, h.key) {
		h.next.ServeHTTP(w, r)
		return
	}
	h.mu.Lock()
	h.ranges = append(h.ranges, r.Header.Get("Range"))
	first := len(h.ranges) == 1
	h.mu.Unlock()
	if !first {
		h.next.ServeHTTP(w, r)
		return
	}
	rec := httptest.NewRecorder()
	h.next.ServeHTTP(rec, r)
	for k, v := range rec.Header() {
		w.Header()[k] = v
	}
	w.WriteHeader(rec.Code)
	body := rec.Body.Bytes()
	w.Write(body[:len(body)/2])
	w.(http.Flusher).Flush()
	select {
	case <-h.release:
	case <-r.Context().Done():
	}
	panic(http.ErrAbortHandler)
}

// TestPullKilled kills a real `openshelf pull` process with SIGKILL in the
// middle of a file: the previous snapshot stays current, and the next pull
// resumes the file from the bytes the killed one had written.
func TestPullKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := openshelfBinary(t)
	backend := s3mem.New()
	if err := backend.CreateBucket("shelf"); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 2<<20)
	rand.Read(big)
	h := sha256.Sum256(big)
	sum := hex.EncodeToString(h[:])
	hang := &hangingStore{next: gofakes3.New(backend).Server(), key: "/blobs/" + sum, release: make(chan struct{})}
	srv := httptest.NewServer(hang)
	defer srv.Close()
	defer close(hang.release)
	builder, replica := t.TempDir(), t.TempDir()
	vars := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDCMD", "AWS_SECRET_ACCESS_KEY": "cmd-secret", "AWS_REGION": "us-east-1",
		"OPENSHELF_BUCKET": "shelf", "OPENSHELF_ENDPOINT": srv.URL}
	run := func(args ...string) string {
		t.Helper()
		e, out, errb := testEnv(vars)
		if code := dispatch(context.Background(), e, args); code != exitOK {
			t.Fatalf("openshelf %s: exit %d: %s", strings.Join(args, " "), code, errb)
		}
		return out.String()
	}
	const id1, id2 = "20261201T033000Z-0001", "20261202T033000Z-0002"
	writeTestSnapshot(t, builder, id1, map[string][]byte{"topics.parquet": []byte("night 1")})
	run("publish", "-data", builder)
	run("pull", "-data", replica)
	writeTestSnapshot(t, builder, id2, map[string][]byte{"topics.parquet": []byte("night 2"), "search/index.bin": big})
	run("publish", "-data", builder)

	child := exec.Command(bin, "pull", "-data", replica, "-workers", "1")
	child.Env = os.Environ()
	for k, v := range vars {
		child.Env = append(child.Env, k+"="+v)
	}
	var childErr bytes.Buffer
	child.Stderr = &childErr
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- child.Wait() }()
	part := filepath.Join(replica, "replica", "partial", sum+".part")
	half := int64(len(big) / 2)
	for {
		if fi, err := os.Stat(part); err == nil && fi.Size() == half {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the pull ended (%v) before the part was written: %s", err, childErr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	child.Process.Signal(syscall.SIGKILL)
	<-exited
	if cur, err := snapshot.Current(replica); err != nil || cur != id1 {
		t.Fatalf("current after the kill: %s, %v; want %s", cur, err, id1)
	}
	out := run("pull", "-data", replica)
	if !strings.Contains(out, "installed "+id2) || !strings.Contains(out, "1 resumed") {
		t.Errorf("the pull after the kill printed %q", out)
	}
	hang.mu.Lock()
	ranges := hang.ranges
	hang.mu.Unlock()
	if len(ranges) != 2 || ranges[1] != "bytes="+strconv.FormatInt(half, 10)+"-" {
		t.Errorf("GETs of the file: %q, want the whole then from byte %d", ranges, half)
	}
	if b, err := os.ReadFile(filepath.Join(replica, "current", "search", "index.bin")); err != nil || !bytes.Equal(b, big) {
		t.Errorf("the resumed file differs from the published one (%v)", err)
	}
}

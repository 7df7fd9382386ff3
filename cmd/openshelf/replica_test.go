package main

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
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
	m, _ := json.Marshal(snapshot.Manifest{ID: id, SchemaVersion: snapshot.SchemaVersion, Created: time.Now().UTC()})
	os.WriteFile(filepath.Join(dir, snapshot.ManifestFile), m, 0o644)
	os.WriteFile(filepath.Join(dir, "bundles", "x.jsonl.zst"), []byte("bundle"), 0o644)
	if err := snapshot.SwitchCurrent(builder, id); err != nil {
		t.Fatal(err)
	}
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

package replica

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestDecodeManifest(t *testing.T) {
	good := Entry{Path: "manifest.json", Size: 3, SHA256: strings.Repeat("ab", 32), Mode: 0o644}
	with := func(e Entry) []Entry { return []Entry{good, e} }
	for _, tc := range []struct {
		name  string
		id    string
		files []Entry
		ok    bool
	}{
		{"good", id1, []Entry{good, {Path: "segments/segment=1/a.parquet", SHA256: good.SHA256, Mode: 0o444}}, true},
		{"other id", id2, []Entry{good}, false},
		{"parent", id1, with(Entry{Path: "../a", SHA256: good.SHA256}), false},
		{"absolute", id1, with(Entry{Path: "/etc/passwd", SHA256: good.SHA256}), false},
		{"unclean", id1, with(Entry{Path: "a//b", SHA256: good.SHA256}), false},
		{"twice", id1, with(good), false},
		{"upper-case sum", id1, with(Entry{Path: "a", SHA256: strings.Repeat("AB", 32)}), false},
		{"short sum", id1, with(Entry{Path: "a", SHA256: "abcd"}), false},
		{"negative size", id1, with(Entry{Path: "a", SHA256: good.SHA256, Size: -1}), false},
		{"setuid", id1, with(Entry{Path: "a", SHA256: good.SHA256, Mode: 0o4755}), false},
		{"no manifest.json", id1, []Entry{{Path: "a", SHA256: good.SHA256}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, _ := json.Marshal(Manifest{ID: id1, Files: tc.files})
			_, err := decodeManifest(b, tc.id)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrInvalidManifest)) {
				t.Errorf("decodeManifest: %v, want ok=%v", err, tc.ok)
			}
		})
	}
	if _, err := decodeManifest([]byte("{not json"), id1); !errors.Is(err, ErrInvalidManifest) {
		t.Errorf("bad JSON: %v", err)
	}
}

func TestNewStoreConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  StoreConfig
		ok   bool
	}{
		{"aws", StoreConfig{Endpoint: "https://s3.eu-west-1.amazonaws.com", Bucket: "b", AccessKey: "AKIDX", SecretKey: "hush-hush"}, true},
		{"anonymous", StoreConfig{Endpoint: "http://127.0.0.1:9000/", Bucket: "b"}, true},
		{"no bucket", StoreConfig{Endpoint: "http://127.0.0.1:9000"}, false},
		{"not http", StoreConfig{Endpoint: "s3://bucket", Bucket: "b"}, false},
		{"credentials in the URL", StoreConfig{Endpoint: "https://a:s@host", Bucket: "b"}, false},
		{"path", StoreConfig{Endpoint: "https://host/bucket", Bucket: "b"}, false},
		{"half the keys", StoreConfig{Endpoint: "https://host", Bucket: "b", AccessKey: "a"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewStore(tc.cfg)
			if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrConfig)) {
				t.Fatalf("NewStore: %v, want ok=%v", err, tc.ok)
			}
			if err == nil && (tc.cfg.SecretKey != "" && strings.Contains(st.String(), tc.cfg.SecretKey)) {
				t.Errorf("String() = %q names a credential", st.String())
			}
		})
	}
}

package run

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
	"github.com/openshelf/openshelf/snapshot"
)

// The manifest lists every data file with the size and SHA-256 of its
// stored bytes, although each file is read only once (hashed while it is
// parsed), including files the reader gives up on half-way; files that are
// not data are not listed.
func TestManifestInputs(t *testing.T) {
	in := t.TempDir()
	write := func(name string, body []byte) string {
		p := filepath.Join(in, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	elife, err := os.ReadFile(fixtures.Path(t, "jats", "elife", "elife00005.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(elife)
	zw.Close()
	// Nesting beyond the reader's depth limit stops it long before the
	// end of the file: the rest must still be hashed.
	deep := "<article>" + strings.Repeat("<sec>", 300) + strings.Repeat("<p>filler</p>\n", 20_000)

	want := map[string][]byte{
		write("a-article.xml", elife):                     elife,
		write("b-article.xml.gz", gz.Bytes()):             gz.Bytes(),
		write("c-too-deep.xml", []byte(deep)):             []byte(deep),
		write("d-broken.xml", []byte("<article><front>")): []byte("<article><front>"),
	}
	write("README.txt", []byte("hello\n"))
	write("e-corrupt.gz", []byte("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xff\xff\xff\xff"))

	data := t.TempDir()
	sum, err := Run(context.Background(), Config{DataDir: data, Inputs: []Input{{Path: in}}, Fresh: true, Now: testNow, Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	// The plain and the gzipped article are one work.
	if sum.Read != 2 || sum.Accepted != 1 || sum.Skipped != 1 || sum.Problems != 3 {
		t.Errorf("read %d accepted %d skipped %d problems %d (%v), want 2, 1, 1, 3", sum.Read, sum.Accepted, sum.Skipped, sum.Problems, sum.ProblemList)
	}
	var total int64
	for _, b := range want {
		total += int64(len(b))
	}
	if sum.Bytes != total || sum.Formats["jats/article"] != 3 || sum.Formats["jats/article+gzip"] != 1 {
		t.Errorf("bytes %d (want %d), formats %v", sum.Bytes, total, sum.Formats)
	}
	s, err := snapshot.Open(data)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Manifest.Inputs
	if len(got) != len(want) {
		t.Fatalf("manifest inputs %+v, want the %d data files", got, len(want))
	}
	for i, g := range got {
		body, ok := want[g.Path]
		if !ok {
			t.Errorf("manifest lists %s", g.Path)
			continue
		}
		sha := sha256.Sum256(body)
		if g.SHA256 != hex.EncodeToString(sha[:]) || g.Bytes != int64(len(body)) || g.Kind != "jats" {
			t.Errorf("%s: %+v, want %d bytes, sha256 %x", g.Path, g, len(body), sha)
		}
		if i > 0 && got[i-1].Path >= g.Path {
			t.Errorf("inputs not in input order: %s before %s", got[i-1].Path, g.Path)
		}
	}
}

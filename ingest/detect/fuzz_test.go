package detect

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

// FuzzDetect checks that classification never panics, is deterministic,
// explains every skip, and sees through gzip: the compressed stream must
// classify like the plain one.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"", "{", "[", "<", "<article/>", jatsDoc, pubmedSet,
		`{"status":"ok","message-type":"work","message":{"DOI":"10.1/x"}}`,
		"{\"id\":\"https://openalex.org/W1\"}\n{\"id\":\"https://openalex.org/W2\"}",
		`{ "_id" : { "$oid" : "5a5" }, "DOI" : "10.1/a" }`,
		"# title\n", "\x89PNG\r\n\x1a\n", "\x1f\x8b", "\x28\xb5\x2f\xfd",
	} {
		f.Add([]byte(s))
	}
	if dir, err := fixtures.Find(); err == nil {
		// The first KiB of each kind of real file.
		for _, rel := range []string{
			"jats/pmc/pone.0000217.nxml", "jats/scielo/mediacoes-S2176-66652019000100074.xml",
			"pubmed/pubmed_19129924.xml", "crossref/works_api_response.json",
			"crossref/works_list_no_license.json", "crossref/work_wiley_tdm_plus_vor_bync-nd.json",
			"openalex/works_with_licences.jsonl", "openalex/works_sample.jsonl.gz",
		} {
			if b, err := os.ReadFile(filepath.Join(dir, rel)); err == nil {
				f.Add(b[:min(len(b), 1024)])
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := Detect(data)
		if again := Detect(data); again != got {
			t.Fatalf("not deterministic: %v then %v", got, again)
		}
		if got.Format == "" && got.Reason == "" {
			t.Fatalf("skipped without a reason: %+v", got)
		}
		if got.Format != "" && got.Reason != "" {
			t.Fatalf("data with a skip reason: %+v", got)
		}
		if bytes.HasPrefix(data, magicGzip) || bytes.HasPrefix(data, magicZstd) || len(data) > SniffSize {
			return
		}
		z := Detect(gz(t, data))
		if z.Compression != Gzip || z.Format != got.Format || z.Variant != got.Variant {
			t.Fatalf("gzip changes the answer: plain %v, gzip %v", got, z)
		}
	})
}

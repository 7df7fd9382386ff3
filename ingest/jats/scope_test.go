package jats

import (
	"strings"
	"testing"

	"github.com/openshelf/openshelf/licence"
)

// TestEveryPermissions checks that licence evidence is read from every
// place permissions can sit, each with its path, and that the decision
// then rejects a restriction hidden in a second article-meta, front or
// front-stub, while a sub-article's or response's restriction covers only
// that sub-article (whose text is not served).
func TestEveryPermissions(t *testing.T) {
	const ns = `xmlns:xlink="http://www.w3.org/1999/xlink"`
	by := `<permissions><license xlink:href="http://creativecommons.org/licenses/by/4.0/"/></permissions>`
	nc := `<permissions><license xlink:href="http://creativecommons.org/licenses/by-nc/4.0/"/></permissions>`
	meta := `<article-id pub-id-type="doi">10.1/x</article-id>`
	for _, tc := range []struct {
		name, in, path string
		sub            bool // the NC licence is a sub-article's
	}{
		{"second article-meta", `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta><article-meta>` + nc + `</article-meta></front></article>`,
			"front/article-meta[2]/permissions[1]/license[1]/@xlink:href", false},
		{"second front", `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta></front><front><article-meta>` + nc + `</article-meta></front></article>`,
			"front[2]/article-meta[1]/permissions[1]/license[1]/@xlink:href", false},
		{"front-stub in front", `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta><front-stub>` + nc + `</front-stub></front></article>`,
			"front/front-stub[1]/permissions[1]/license[1]/@xlink:href", false},
		{"sub-article front", `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta></front><sub-article><front><article-meta>` + nc + `</article-meta></front></sub-article></article>`,
			"sub-article[1]/front[1]/article-meta[1]/permissions[1]/license[1]/@xlink:href", true},
		{"nested response", `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta></front><sub-article><front-stub>` + by + `</front-stub><response><front-stub>` + nc + `</front-stub></response></sub-article></article>`,
			"sub-article[1]/response[1]/front-stub[1]/permissions[1]/license[1]/@xlink:href", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rd := &Reader{}
			sink, err := readString(t, rd, tc.in)
			if err != nil || len(sink.docs) != 1 {
				t.Fatalf("%v, %d docs, problems %v", err, len(sink.docs), sink.problems)
			}
			d := sink.docs[0].Licence
			if tc.sub && (!d.Accepted || d.Family != licence.CCBY || !strings.Contains(d.Detail, "covers only that sub-article")) ||
				!tc.sub && (d.Accepted || d.Reason != licence.NonCommercial) {
				t.Errorf("decided %+v", d)
			}
			found := false
			for _, e := range d.Evidence {
				found = found || (e.Path == tc.path && strings.Contains(e.Value, "by-nc"))
			}
			if !found {
				t.Errorf("no NC evidence at %s: %+v", tc.path, d.Evidence)
			}
		})
	}
	t.Run("sub-articles nested too deep", func(t *testing.T) {
		in := `<article ` + ns + `><front><article-meta>` + meta + by + `</article-meta></front>` +
			strings.Repeat("<sub-article>", 10) + strings.Repeat("</sub-article>", 10) + `</article>`
		sink, err := readString(t, &Reader{}, in)
		if err != nil || len(sink.docs) != 0 || len(sink.problems) != 1 || !strings.HasPrefix(sink.problems[0].Reason, "record_too_large") {
			t.Fatalf("%v, docs %d, problems %+v", err, len(sink.docs), sink.problems)
		}
	})
}

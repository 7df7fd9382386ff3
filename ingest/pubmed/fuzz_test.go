package pubmed

import (
	"bytes"
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/openshelf/openshelf/internal/fixtures"
)

func FuzzRead(f *testing.F) {
	// Only the smallest fixture is a seed: the fuzzer minimises every new
	// interesting input, which takes minutes on the 20 kB records.
	for _, name := range []string{"pubmed_31393839.xml"} {
		raw, err := os.ReadFile(fixtures.Path(f, "pubmed", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(bookArticle))
	f.Add([]byte(`<PubmedArticleSet><DeleteCitation><PMID>1</PMID></DeleteCitation></PubmedArticleSet>`))
	f.Add([]byte(`<PubmedArticle><MedlineCitation><PMID>3</PMID><Article><Journal><JournalIssue><PubDate><MedlineDate>1998 Dec-1999 Jan</MedlineDate></PubDate></JournalIssue></Journal></Article></MedlineCitation></PubmedArticle>`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &collect{}
		// A bytes.Reader never fails and the sink never refuses, so any
		// error here is a bug: bad input must only produce Problems.
		if err := Read(context.Background(), bytes.NewReader(in), "fuzz.xml", c); err != nil {
			t.Fatalf("Read returned %v", err)
		}
		for _, d := range c.docs {
			if d.ID == "" || !slices.Equal(d.Sources, []string{Source}) || d.Licence.Accepted {
				t.Fatalf("bad document %+v", d)
			}
		}
		for _, d := range c.dels {
			if !strings.HasPrefix(d.ID, "pmid-") || len(d.ID) < 6 {
				t.Fatalf("bad deletion %+v", d)
			}
		}
	})
}

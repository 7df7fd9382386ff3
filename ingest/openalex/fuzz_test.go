package openalex

import (
	"bytes"
	"context"
	"slices"
	"testing"
)

func FuzzRead(f *testing.F) {
	// Small hand-made works only: the fuzzer minimises each new
	// interesting input, which takes minutes on real 20 kB works.
	f.Add([]byte(`{"id":"https://openalex.org/W1","doi":"https://doi.org/10.1/x","title":"T","ids":{"pmid":"https://pubmed.ncbi.nlm.nih.gov/5","pmcid":"https://www.ncbi.nlm.nih.gov/pmc/articles/7"},"updated_date":"2026-01-13T01:12:25.745995"}`))
	f.Add([]byte(`{"id":"W2","abstract_inverted_index":{"b":[1],"a":[0,3]},"primary_location":{"license":"cc-by","version":"publishedVersion","source":{"display_name":"J"}},"locations":[{"license":"cc-by-sa","version":"submittedVersion"}]}` + "\n\n{bad\n"))
	f.Add([]byte(`{"id":"W3","authorships":[{"author":{"display_name":"A B","orcid":"https://orcid.org/0000-0002-1825-0097"},"raw_affiliation_strings":["X"]}],"topics":[{"display_name":"T","field":{"display_name":"F"}}],"concepts":[{"display_name":"C","score":0.5}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &collect{}
		// A bytes.Reader never fails and the sink never refuses, so any
		// error is a bug: bad input must only produce Problems.
		if err := Read(context.Background(), bytes.NewReader(in), "fuzz.jsonl", c); err != nil {
			t.Fatalf("Read returned %v", err)
		}
		for _, d := range c.docs {
			if d.ID == "" || !slices.Equal(d.Sources, []string{Source}) {
				t.Fatalf("bad document %+v", d)
			}
		}
	})
}

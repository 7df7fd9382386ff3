package crossref

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

func FuzzRead(f *testing.F) {
	// Small hand-made inputs covering every form; the fuzzer minimises
	// each new interesting input, which takes minutes on real 20 kB works.
	f.Add([]byte(`{"DOI":"10.1/a","title":["T <i>x</i>"],"author":[{"given":"A","family":"B","ORCID":"http://orcid.org/0000-0002-1825-0097","affiliation":[{"name":"U"}]}],"issued":{"date-parts":[[2001,10]]},"license":[{"URL":"http://creativecommons.org/licenses/by/4.0/","content-version":"vor","delay-in-days":30}]}` + "\n" + `{"DOI":"10.1/b"}`))
	f.Add([]byte("{\n \"status\": \"ok\",\n \"message-type\": \"work-list\",\n \"message\": {\"items\": [{\"DOI\": \"10.1/a\"}, {\"DOI\": 5}]}\n}"))
	f.Add([]byte(`{"status":"ok","message-type":"work","message":{"DOI":"10.1/a","abstract":"<jats:p>x</jats:p>","update-to":[{"type":"retraction","DOI":"10.1/b"}]}}`))
	f.Add([]byte(`{ "_id" : { "$oid" : "5a55" }, "DOI" : "10.1/m", "indexed" : { "date-parts" : [ [ 2017, 10, 23 ] ], "date-time" : { "$date" : "2017-10-23T14:35:29Z" }, "timestamp" : { "$numberLong" : "1508769329541" } }, "license" : [ { "URL" : "u", "delay-in-days" : { "$numberLong" : "5" } } ] }`))
	f.Add([]byte("[\n{\"DOI\": \"10.1/a\"},\n{\"items\": [{\"DOI\": \"10.1/c\"}]}\n]"))
	f.Fuzz(func(t *testing.T, in []byte) {
		c := &collect{}
		// A bytes.Reader never fails and the sink never refuses, so any
		// error is a bug: bad input must only produce Problems.
		if err := Read(context.Background(), bytes.NewReader(in), "fuzz.json", c); err != nil {
			t.Fatalf("Read returned %v", err)
		}
		for _, d := range c.docs {
			if !strings.HasPrefix(d.ID, "doi-") || d.DOI == "" || !slices.Equal(d.Sources, []string{Source}) {
				t.Fatalf("bad document %+v", d)
			}
		}
	})
}
